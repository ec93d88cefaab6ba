//! Roofs on the command line (`--peak-dram-bw`, `--peak`, `--peak-sm-clock`)
//! and advice that fits the file's architecture (issue 19).

use crate::common::{corpus_file, fixture, rooftrace};

const SGEMM: &str = "fixtures/ncu/sgemm_a100_printfp_details15.csv";

fn fractions(json: &str) -> Vec<(String, Option<f64>)> {
    let v: serde_json::Value = serde_json::from_str(json).unwrap();
    v["kernels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| {
            (
                k["name"].as_str().unwrap().to_string(),
                k["fraction_of_roof"].as_f64(),
            )
        })
        .collect()
}

#[test]
fn peak_flags_give_the_fractions_of_the_equivalent_roofs_file() {
    // The A100 40GB datasheet figures, once as a roofs file and once as
    // flags: the two must give the same report rows.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a100.json");
    std::fs::write(
        &file,
        r#"{"schema": "rooftrace.roofs/1", "gpu": "A100 by hand",
            "memory": {"dram": {"bytes_per_s": 1555e9}},
            "compute": {"fp32": {"flop_per_s": 19.5e12}, "fp16": {"flop_per_s": 39e12}},
            "clocks": {"sm_clock_hz": 1.41e9}}"#,
    )
    .unwrap();
    let (code, by_file, err) = rooftrace(&[
        "ncu",
        SGEMM,
        "--roofs",
        file.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let (code, by_flags, err) = rooftrace(&[
        "ncu",
        SGEMM,
        "--format",
        "json",
        "--peak-dram-bw",
        "1555GB/s",
        "--peak",
        "fp32=19.5TFLOP/s",
        "--peak",
        "fp16=39e12",
        "--peak-sm-clock",
        "1410MHz",
    ]);
    assert_eq!(code, 0, "{err}");
    let (a, b) = (fractions(&by_file), fractions(&by_flags));
    assert_eq!(a.len(), 3);
    assert_eq!(a, b);
    // By hand: the first randomInit is memory bound: 5.32 GB over 6.73 s
    // is 792 MB/s, 792e6 / 1555e9 = 0.0509 % of the DRAM roof.
    let random_init = b
        .iter()
        .filter(|(n, _)| n.contains("randomInit"))
        .filter_map(|(_, f)| *f)
        .fold(f64::INFINITY, f64::min);
    assert!((random_init - 5.09e-4).abs() < 0.01e-4, "{random_init}");
    assert!(by_flags.contains("command line (--peak-dram-bw, --peak)"));
    // The table's source line says where each roof came from.
    let (_, table, _) = rooftrace(&["ncu", SGEMM, "--peak-dram-bw", "1555GB/s"]);
    assert!(table.contains("command line: --peak-dram-bw"), "{table}");
}

#[test]
fn bad_peak_flags_exit_2_with_the_fix() {
    let cases: [(&[&str], &str); 7] = [
        (&["--peak-dram-bw", "0GB/s"], "must be a positive number"),
        (&["--peak-dram-bw", "fast"], "is not a bandwidth"),
        (
            &["--peak-dram-bw", "1TB/s", "--peak", "fp33=1T"],
            "unknown compute path `fp33`",
        ),
        (
            &["--peak-dram-bw", "1TB/s", "--peak", "fp32=1Tbyte/s"],
            "unknown unit `Tbyte`",
        ),
        (
            &["--peak-dram-bw", "1TB/s", "--peak", "fp32"],
            "is not PATH=RATE",
        ),
        (
            &[
                "--peak-dram-bw",
                "1TB/s",
                "--peak",
                "fp32=1T",
                "--peak",
                "fp32=2T",
            ],
            "given twice",
        ),
        (&["--peak", "fp32=1T"], "--peak-dram-bw"),
    ];
    for (flags, want) in cases {
        let mut args = vec!["ncu", SGEMM];
        args.extend_from_slice(flags);
        let (code, _, err) = rooftrace(&args);
        assert_eq!(code, 2, "{flags:?}: {err}");
        assert!(err.contains(want), "{flags:?}: {err}");
    }
    for other in [["--gpu", "a100-40gb"], ["--roofs", "ncu"]] {
        let (code, _, err) =
            rooftrace(&["ncu", SGEMM, "--peak-dram-bw", "1TB/s", other[0], other[1]]);
        assert_eq!(code, 2, "{err}");
        assert!(err.contains("cannot be used with"), "{err}");
    }
}

/// The `add --metrics ...` advice of the partial-FLOPs diagnostic.
fn tensor_advice(out: &str) -> String {
    let at = out.find("sm__inst_executed_pipe_tensor.sum").expect(out);
    out[at..].lines().next().unwrap().to_string()
}

#[test]
fn advice_names_only_tensor_counters_of_the_files_architecture() {
    // A100 (the file states compute capability 8.0): FP16, BF16 and TF32
    // tensor paths exist, FP8 (from 8.9, Ada/Hopper) does not.
    let (code, out, err) = rooftrace(&["ncu", SGEMM, "--gpu", "a100-40gb"]);
    assert_eq!(code, 0, "{err}");
    let a100 = tensor_advice(&out);
    assert!(
        a100.contains("sm__ops_path_tensor_src_bf16_dst_fp32.sum"),
        "{a100}"
    );
    assert!(
        a100.contains("sm__ops_path_tensor_src_tf32_dst_fp32.sum"),
        "{a100}"
    );
    assert!(!a100.contains("fp8"), "{a100}");
    assert!(
        a100.contains("no FP8 tensor counters: compute capability 8.0"),
        "{a100}"
    );
    // Ada (the GPP export states 8.9): every path of the list exists, nothing left out.
    let (_, out, _) = rooftrace(&["ncu", "fixtures/ncu/gpp_full_set_memory_throughput.csv"]);
    let ada = tensor_advice(&out);
    assert!(
        ada.contains("sm__ops_path_tensor_src_fp8_dst_fp32.sum"),
        "{ada}"
    );
    assert!(!ada.contains("no FP8"), "{ada}");
}

#[test]
fn v100_advice_has_no_bf16_tf32_or_fp8_counters() {
    // The real 2019.5 V100 export (tested in place, no licence to copy)
    // states no compute capability: the chosen GPU (--gpu v100, 7.0) decides.
    let Some(path) = corpus_file("ncu/ncu2019.5_details_csv_rodinia_hotspot_single_kernel.log")
    else {
        return;
    };
    let p = path.to_str().unwrap();
    let (code, out, err) = rooftrace(&["ncu", p, "--gpu", "v100"]);
    assert_eq!(code, 0, "{err}");
    let v100 = tensor_advice(&out);
    assert!(
        v100.contains("sm__ops_path_tensor_src_fp16_dst_fp32.sum"),
        "{v100}"
    );
    for absent in ["bf16", "tf32", "fp8"] {
        assert!(!v100.contains(&format!("src_{absent}")), "{v100}");
    }
    assert!(
        v100.contains("no TF32/BF16/FP8 tensor counters: compute capability 7.0"),
        "{v100}"
    );
    // Without a GPU, nothing says the architecture: every counter is named.
    let (_, out, _) = rooftrace(&["ncu", p]);
    assert!(tensor_advice(&out).contains("src_fp8"), "{out}");
}

#[test]
fn a_capture_without_kernels_says_ncu_profiled_none() {
    let causes = [
        "--launch-skip/--launch-count",
        "-k/--kernel-name",
        "--target-processes all",
    ];
    // ncu attached, the application failed, no kernel was profiled: the
    // real capture (tested in place: its repository declares no licence).
    if let Some(empty) = corpus_file("ncu/ncu2025_raw_page_empty_app_error.csv") {
        let (code, _, err) = rooftrace(&["ncu", empty.to_str().unwrap()]);
        assert_eq!(code, 2, "{err}");
        assert!(err.contains("profiled no kernel"), "{err}");
        assert!(
            err.contains("==ERROR== The application returned an error code (1)."),
            "{err}"
        );
        for c in causes {
            assert!(err.contains(c), "{c}: {err}");
        }
        assert!(!err.contains("--page details"), "{err}");
    }
    // The real SGEMM export's header with its launch rows cut off.
    let text = std::fs::read_to_string(fixture("ncu/sgemm_a100_printfp_details15.csv")).unwrap();
    let header = text.lines().find(|l| l.starts_with("\"ID\"")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let cut = dir.path().join("header_only.csv");
    std::fs::write(&cut, format!("{header}\n")).unwrap();
    let (code, _, err) = rooftrace(&["ncu", cut.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("no launch rows: ncu profiled no kernel"),
        "{err}"
    );
    for c in causes {
        assert!(err.contains(c), "{c}: {err}");
    }
}

/// The A100 40GB datasheet roofs as a roofs file in `dir`, and the same
/// roofs as flags (issue 19: budget and diff take the flags too).
fn a100_by_hand(dir: &std::path::Path) -> (String, Vec<&'static str>) {
    let file = dir.join("a100.json");
    std::fs::write(
        &file,
        r#"{"schema": "rooftrace.roofs/1", "gpu": "A100 by hand",
            "memory": {"dram": {"bytes_per_s": 1555e9}},
            "compute": {"fp32": {"flop_per_s": 19.5e12}, "fp16": {"flop_per_s": 39e12}},
            "clocks": {"sm_clock_hz": 1.41e9}}"#,
    )
    .unwrap();
    let flags = vec![
        "--peak-dram-bw",
        "1555GB/s",
        "--peak",
        "fp32=19.5TFLOP/s",
        "--peak",
        "fp16=39e12",
        "--peak-sm-clock",
        "1410MHz",
    ];
    (file.to_str().unwrap().to_string(), flags)
}

/// `ncu.kernels[*]` of a diff JSON: (name, fraction before, fraction after).
fn diff_fractions(json: &str) -> Vec<(String, Option<f64>, Option<f64>)> {
    let v: serde_json::Value = serde_json::from_str(json).unwrap();
    v["ncu"]["kernels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| {
            (
                k["name"].as_str().unwrap().to_string(),
                k["fraction_of_roof"]["before"].as_f64(),
                k["fraction_of_roof"]["after"].as_f64(),
            )
        })
        .collect()
}

#[test]
fn diff_with_peak_flags_gives_the_fractions_of_the_equivalent_roofs_file() {
    let dir = tempfile::tempdir().unwrap();
    let (file, flags) = a100_by_hand(dir.path());
    let new = "fixtures/ncu/sgemm_a100_diff_new_constructed.csv";
    let base = ["diff", SGEMM, new, "--format", "json", "--no-gate"];
    let (code, by_file, err) = rooftrace(&[&base[..], &["--roofs", &file]].concat());
    assert_eq!(code, 0, "{err}");
    let (code, by_flags, err) = rooftrace(&[&base[..], &flags[..]].concat());
    assert_eq!(code, 0, "{err}");
    let (a, b) = (diff_fractions(&by_file), diff_fractions(&by_flags));
    assert!(a.len() >= 3, "{by_file}");
    assert_eq!(a, b);
    // By hand, as for `ncu`: the first randomInit moves 5.32 GB in 6.73 s,
    // 792 MB/s of the 1555 GB/s DRAM roof = 0.0509 %.
    let random_init = b
        .iter()
        .filter(|(n, _, _)| n.contains("randomInit"))
        .filter_map(|(_, before, _)| *before)
        .fold(f64::INFINITY, f64::min);
    assert!((random_init - 5.09e-4).abs() < 0.01e-4, "{random_init}");
    // The flags are for ncu sides: refused with --own-roofs and on timelines.
    let (code, _, err) = rooftrace(&[&base[..], &["--own-roofs"], &flags[..]].concat());
    assert_eq!(code, 2, "{err}");
    let saxpy = "fixtures/nsys/nsys2022.2.1_pipit_saxpy-mpi-cuda.sqlite";
    let (code, _, err) =
        rooftrace(&[&["diff", saxpy, saxpy, "--peak-dram-bw", "1TB/s"][..]].concat());
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--peak-dram-bw apply to ncu"), "{err}");
}

/// `steps[*].parts` of a budget JSON.
fn budget_parts(json: &str) -> Vec<serde_json::Value> {
    let v: serde_json::Value = serde_json::from_str(json).unwrap();
    v["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["parts"].clone())
        .collect()
}

/// The `bound` part of a budget step, ns.
fn bound_ns(parts: &serde_json::Value) -> i64 {
    parts
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "bound")
        .and_then(|p| p["ns"].as_i64())
        .unwrap()
}

#[test]
fn budget_with_peak_flags_gives_the_parts_of_the_equivalent_roofs_file() {
    // The synthetic export names no GPU (no TARGET_INFO_GPU): without roofs
    // budget refuses it; an unlisted card given by flags answers.
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("sgemm_steps.sqlite");
    let sql = std::fs::read_to_string(fixture("budget/sgemm_steps.sql")).unwrap();
    rusqlite::Connection::open(&db)
        .unwrap()
        .execute_batch(&sql)
        .unwrap();
    let db = db.to_str().unwrap();
    let (file, flags) = a100_by_hand(dir.path());
    let base = ["budget", db, "--nvtx", "^step$", "--format", "json"];
    let with_ncu = [&base[..], &["--ncu", SGEMM]].concat();
    let (code, by_file, err) = rooftrace(&[&with_ncu[..], &["--roofs", &file]].concat());
    assert_eq!(code, 0, "{err}");
    let (code, by_flags, err) = rooftrace(&[&with_ncu[..], &flags[..]].concat());
    assert_eq!(code, 0, "{err}");
    let (a, b) = (budget_parts(&by_file), budget_parts(&by_flags));
    assert!(!a.is_empty());
    assert_eq!(a, b);
    // By hand, from the bytes alone: 1 GB per step on a 500 GB/s card is
    // a bound of 1e9 / 500e9 s = 2 ms in every step.
    let bytes = [
        &base[..],
        &["--bytes-per-step", "1GB", "--peak-dram-bw", "500GB/s"],
    ]
    .concat();
    let (code, out, err) = rooftrace(&bytes);
    assert_eq!(code, 0, "{err}");
    let parts = budget_parts(&out);
    assert!(!parts.is_empty());
    for p in &parts {
        assert_eq!(bound_ns(p), 2_000_000, "{p}");
    }
}

#[test]
fn peak_mem_clock_scales_the_flag_dram_roof_to_the_run_memory_clock() {
    // The GPP export (RTX 4090 class) records DRAM Frequency 10501 MHz and
    // only the memory side. A 1 TB/s roof stated at twice that clock is
    // 0.5 TB/s at the run clock: the fraction doubles. Within 2 % of the
    // run clock (10.6 GHz) and with --roof-clock boost it is not scaled.
    let gpp = "fixtures/ncu/gpp_full_set_memory_throughput.csv";
    let fraction = |extra: &[&str]| {
        let args = [
            &["ncu", gpp, "--format", "json", "--peak-dram-bw", "1TB/s"],
            extra,
        ]
        .concat();
        let (code, out, err) = rooftrace(&args);
        assert_eq!(code, 0, "{err}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        let dram = v["roofs"]["memory"]["dram"].clone();
        (v["kernels"][0]["fraction_of_roof"].as_f64().unwrap(), dram)
    };
    let (plain, _) = fraction(&[]);
    let (scaled, dram) = fraction(&["--peak-mem-clock", "21.002GHz"]);
    assert!((scaled / plain - 2.0).abs() < 1e-9, "{plain} {scaled}");
    assert_eq!(dram["bytes_per_s"], 0.5e12, "{dram}");
    assert!(
        dram["source"]
            .as_str()
            .unwrap()
            .contains("10501 MHz / 21002 MHz"),
        "{dram}"
    );
    assert_eq!(fraction(&["--peak-mem-clock", "10.6GHz"]).0, plain);
    let boost = ["--peak-mem-clock", "21.002GHz", "--roof-clock", "boost"];
    assert_eq!(fraction(&boost).0, plain);
    let (code, _, err) = rooftrace(&["ncu", gpp, "--peak-mem-clock", "10GHz"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--peak-dram-bw"), "{err}");
}

#[test]
fn many_inputs_with_peak_flags_give_the_rows_of_the_equivalent_roofs_file() {
    // The many-inputs path takes `rooftrace ncu`'s flags for every input.
    let dir = tempfile::tempdir().unwrap();
    let (file, flags) = a100_by_hand(dir.path());
    let new = "fixtures/ncu/sgemm_a100_diff_new_constructed.csv";
    let base = ["ncu", SGEMM, new, "--format", "json"];
    let (code, by_file, err) = rooftrace(&[&base[..], &["--roofs", &file]].concat());
    assert_eq!(code, 0, "{err}");
    let (code, by_flags, err) = rooftrace(&[&base[..], &flags[..]].concat());
    assert_eq!(code, 0, "{err}");
    let kernels = |json: &str| {
        let v: serde_json::Value = serde_json::from_str(json).unwrap();
        v["kernels"].clone()
    };
    assert_eq!(kernels(&by_file), kernels(&by_flags));
    // The slowest randomInit of the two inputs, by hand: 792 MB/s of
    // 1555 GB/s, 0.0509 % (as for one input).
    let rows = kernels(&by_flags);
    let random_init = rows
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["name"].as_str().unwrap().contains("randomInit"))
        .unwrap();
    let min = random_init["min_fraction_of_roof"].as_f64().unwrap();
    assert!((min - 5.09e-4).abs() < 0.01e-4, "{min}");
}

// --- `--gpu` and `--roofs FILE` checked against every identity fact the
// input records (issue 28). Each contradiction is exit 2, names the fact
// and both values, and points to --project-to.

#[test]
fn gpu_contradicted_by_the_memory_clock_is_refused() {
    // The GPP roofline-chart file (CC 8.9) states DRAM Frequency
    // 10,501,000,000 cycle/second: 10,501 MHz, the RTX 4090's attribute
    // (21 Gbps GDDR6X / 2). The L40S's is 9,000 MHz: 16.7 % apart, and
    // 10,501 is within 5 % of rtx4090's own 10,501.
    let f = "fixtures/ncu/gpp_roofline_chart_body_items.csv";
    let (code, _, err) = rooftrace(&["ncu", f, "--gpu", "l40s"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("--gpu l40s has memory clock 9000 MHz, but fixtures/ncu/gpp_roofline_chart_body_items.csv records memory clock 10501 MHz (16.7 % apart"),
        "{err}"
    );
    assert!(err.contains("add --project-to l40s"), "{err}");
    assert!(err.contains("and within it of rtx4090"), "{err}");
    let (code, _, err) = rooftrace(&["ncu", f, "--gpu", "rtx4090"]);
    assert_eq!(code, 0, "{err}");
}

#[test]
fn gpu_contradicted_by_the_sm_count_is_refused_and_fewer_is_a_note() {
    // The GPP basic-set file (CC 8.9) with the Launch Statistics row
    // `# SMs` that ncu's basic set prints (here 128, an RTX 4090's),
    // added in a copy: the shipped file does not carry it.
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(fixture("ncu/gpp_basic_set_percent.csv")).unwrap();
    let row = text.lines().nth(1).unwrap();
    let prefix = &row[..row.find("\"GPU Speed Of Light Throughput\"").unwrap()];
    let with_sms = |sms: u32| {
        let file = dir.path().join(format!("gpp_{sms}_sms.csv"));
        let extra = format!("{prefix}\"Launch Statistics\",\"# SMs\",\"SM\",\"{sms}\"\n");
        std::fs::write(&file, format!("{text}{extra}")).unwrap();
        file.to_str().unwrap().to_string()
    };
    // RTX 4080: 76 SMs (table); the file has 128: more than it has, and
    // not more than every CC 8.9 GPU (the L40S has 142).
    let f = with_sms(128);
    let (code, _, err) = rooftrace(&["ncu", &f, "--gpu", "rtx4080"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--gpu rtx4080 has SM count 76, but"), "{err}");
    assert!(err.contains("records SM count 128 (more than rtx4080 has: a part of a GPU has fewer SMs, never more)"), "{err}");
    assert!(!err.contains("MIG"), "{err}");
    let (code, _, err) = rooftrace(&["ncu", &f, "--gpu", "rtx4090"]);
    assert_eq!(code, 0, "{err}");
    // 64 SMs on an RTX 4090 (128): a part of one, a note in the report.
    let f = with_sms(64);
    let (code, out, err) = rooftrace(&["ncu", &f, "--gpu", "rtx4090", "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let notes = v["gpu"]["notes"].to_string();
    assert!(
        notes.contains("reports 64 SMs where rtx4090 has 128: a MIG slice"),
        "{notes}"
    );
}

#[test]
fn gpu_contradicted_by_the_files_own_peaks_is_refused() {
    // The real CC 12.0 details file: dram__bytes_read.sum 17.50 Mbyte,
    // write 0, Duration 111.81 us, dram__throughput 8.87 %: its DRAM peak
    // is at least 17.5e6 B / 111.81e-6 s / 0.0887 = 1764.5 GB/s. The RTX
    // 5060 Ti's is 448 GB/s (128-bit, 28 Gbps), the RTX 5080's 960: ruled
    // out; the RTX 5090's 1792 fits (1.6 % above).
    let f = "fixtures/ncu/bf16_gemm_ncu2025.1_import_details20.csv";
    for (key, peak) in [("rtx5060ti", "448.0"), ("rtx5080", "960.0")] {
        let (code, _, err) = rooftrace(&["ncu", f, "--gpu", key]);
        assert_eq!(code, 2, "{err}");
        assert!(
            err.contains(&format!(
                "--gpu {key} has DRAM peak {peak} GB/s (datasheet), but"
            )),
            "{err}"
        );
        assert!(
            err.contains("records DRAM peak at least 1764.5 GB/s"),
            "{err}"
        );
        assert!(err.contains(&format!("add --project-to {key}")), "{err}");
        // The GPUs that fit are those every check leaves.
        assert!(
            err.contains("Pick one that fits (rtx5090, rtx-pro-6000)"),
            "{err}"
        );
    }
    let (code, _, err) = rooftrace(&["ncu", f, "--gpu", "rtx5090"]);
    assert_eq!(code, 0, "{err}");
    // Several launches: the lowest floor counts. The constructed raw page
    // repeats launch 1's 8.87 % for a hand-picked second launch (61.44 MB
    // in 40 us: 1.536 TB/s / 0.0887 = 17316.8 GB/s, no real GPU); the
    // floor stays launch 1's 1764.5.
    let raw = "fixtures/ncu/bf16_gemm_raw_page_units.csv";
    let (code, _, err) = rooftrace(&["ncu", raw, "--gpu", "rtx5060ti"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("records DRAM peak at least 1764.5 GB/s"),
        "{err}"
    );
    // ncu's peak metrics: the constructed H100 raw page (1,280 byte/cycle
    // x 2.619 GHz = 3352.3 GB/s) without its device name, so the peaks
    // are what decide: the H200's 4800 GB/s is 30 % above.
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(fixture("ncu/h100_raw_page_peaks_constructed.csv")).unwrap();
    let nameless = dir.path().join("h100_nameless.csv");
    std::fs::write(&nameless, text.replace("\"NVIDIA H100 80GB HBM3\"", "\"\"")).unwrap();
    let n = nameless.to_str().unwrap();
    let (code, _, err) = rooftrace(&["ncu", n, "--gpu", "h200"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("--gpu h200 has DRAM peak 4800.0 GB/s (datasheet), but"),
        "{err}"
    );
    assert!(err.contains("records DRAM peak 3352.3 GB/s"), "{err}");
    let (code, _, err) = rooftrace(&["ncu", n, "--gpu", "h100-sxm"]);
    assert_eq!(code, 0, "{err}");
}

#[test]
fn an_h100_roofs_file_on_an_a100_csv_is_refused() {
    // fixtures/calibrate/h100-sxm-datasheet.json is for "NVIDIA H100 SXM5
    // 80GB" (the table's h100-sxm, CC 9.0); the sgemm file is CC 8.0.
    let roofs = "fixtures/calibrate/h100-sxm-datasheet.json";
    let (code, _, err) = rooftrace(&["ncu", SGEMM, "--roofs", roofs]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("--roofs fixtures/calibrate/h100-sxm-datasheet.json (for NVIDIA H100 SXM5 80GB: the table's h100-sxm) has compute capability 9.0, but"),
        "{err}"
    );
    assert!(err.contains("records compute capability 8.0"), "{err}");
    assert!(
        err.contains("add --project-to fixtures/calibrate/h100-sxm-datasheet.json"),
        "{err}"
    );
    // The A100 roofs file of the budget fixtures fits it.
    let (code, _, err) = rooftrace(&[
        "ncu",
        SGEMM,
        "--roofs",
        "fixtures/budget/a100-80gb-datasheet.json",
    ]);
    assert_eq!(code, 0, "{err}");
}

#[test]
fn gaps_and_budget_gpu_is_checked_against_the_export_and_the_trace() {
    // The cloverleaf export's TARGET_INFO_GPU: "NVIDIA A100-SXM4-80GB",
    // CC 8.0 (raw SQL in the fixture). The HTA trace's deviceProperties:
    // "NVIDIA A100-PG509-200", CC 8.0 (the table's a100-40gb).
    let export = "fixtures/nsys/nsys2024.5.1_pipit_cloverleaf.sqlite";
    let (code, _, err) = rooftrace(&["gaps", export, "--gpu", "a100-40gb"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("records device name \"NVIDIA A100-SXM4-80GB\" (the table's a100-80gb)"),
        "{err}"
    );
    let (code, _, err) = rooftrace(&["gaps", export, "--gpu", "h100-sxm"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("has compute capability 9.0, but"), "{err}");
    let (code, _, err) = rooftrace(&["gaps", export, "--gpu", "a100-80gb"]);
    assert_eq!(code, 0, "{err}");
    let trace = "fixtures/kineto/simple_add.json.gz";
    let (code, _, err) = rooftrace(&["gaps", trace, "--gpu", "a100-80gb"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("records device name \"NVIDIA A100-PG509-200\" (the table's a100-40gb)"),
        "{err}"
    );
    let (code, _, err) = rooftrace(&["gaps", trace, "--gpu", "a100-40gb"]);
    assert_eq!(code, 0, "{err}");
    // budget chooses its roofs the same way, once the step range is
    // found (a missing step is told first).
    let budget = [
        "budget",
        trace,
        "--nvtx",
        "aten::add",
        "--bytes-per-step",
        "1GB",
        "--gpu",
    ];
    let (code, _, err) = rooftrace(&[&budget[..], &["a100-80gb"]].concat());
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("records device name \"NVIDIA A100-PG509-200\""),
        "{err}"
    );
    assert!(err.contains("add --project-to a100-80gb"), "{err}");
}
