//! Roofs on the command line (`--peak-dram-bw`, `--peak`, `--peak-sm-clock`)
//! and advice that fits the file's architecture (issue 19).

use crate::common::{corpus, fixture, rooftrace};

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
    let Some(dir) = corpus("ncu") else {
        return;
    };
    let path = dir.join("ncu2019.5_details_csv_rodinia_hotspot_single_kernel.log");
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
    if let Some(dir) = corpus("ncu") {
        let empty = dir.join("ncu2025_raw_page_empty_app_error.csv");
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
