//! `rooftrace ncu` on files without our metric list (issue 9): every other
//! form of DRAM bytes, L2 bytes and FLOPs, checked against the counter it
//! replaces (fixtures derived from the real GPP file by
//! fixtures/ncu/derive.py, section 6); unknown is not zero; refusals.

use crate::common::{fixture, rooftrace};
use rooftrace::ncu::{self, FlopGroup, NcuCsv, NcuError, Source};
use rooftrace::roofline::{analyze, analyze_at, Bound, DiagnosticKind, GroupBy, RoofClock};
use rooftrace::roofs::{gpus, ComputePath, GpuInfo, Roofs};

fn fx(rel: &str) -> NcuCsv {
    let path = fixture(rel);
    let f = std::fs::File::open(&path).expect("fixture exists");
    ncu::parse(f, &path.display().to_string()).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

fn gpu(key: &str) -> (Roofs, GpuInfo) {
    let g = gpus::by_key(key).unwrap();
    (
        g.default_roofs(),
        GpuInfo {
            key: Some(key.into()),
            name: g.name.into(),
            chosen_by: rooftrace::roofs::GpuChoice::CommandLine,
            notes: Vec::new(),
        },
    )
}

/// The directly collected GPP counters every derived figure is checked
/// against (fixtures/ncu/gpp_ncu2024.2_details15.csv).
const GPP_DRAM: f64 = 134_957_158_144.0;
const GPP_L2: f64 = 225_714_841_568.0;
const GPP_CYCLES: f64 = 36_873_068_823.0;
const GPP_FP64: f64 = 1_963_812_210_336.0;
const GPP_FP32: f64 = 49_082_724_716.0;

#[test]
fn roofline_section_rates_give_the_counted_figures() {
    let direct = fx("ncu/gpp_ncu2024.2_details15.csv");
    let csv = fx("ncu/gpp_roofline_section_rates.csv");
    let (d, l) = (&direct.launches[0], &csv.launches[0]);
    // DRAM: 5,928,273,731.81 byte/s x (36,873,068,823 / 1,619,726,202.90) s
    // = 134,957,158,144 B; the rate was printed to 0.01 B/s, so the product
    // agrees to ~1e-12.
    assert_eq!(l.dram_derivation, Some(Source::RateTimesDuration));
    assert!(((l.dram_bytes.unwrap() - GPP_DRAM) / GPP_DRAM).abs() < 1e-9);
    // L2: 7,053,588,799 sectors x 32 = 225,714,841,568 B, exactly.
    assert_eq!(l.l2_bytes, Some(GPP_L2));
    assert_eq!(l.l2_derivation, Some(Source::Sectors));
    assert_eq!(d.l2_derivation, Some(Source::Counter));
    // FP64: (dadd 3.32 + dmul 10.09 + 2 x dfma 19.93) inst/cycle x
    // 36,873,068,823 cycles = 53.27 x 36,873,068,823 = 1,964,228,376,201.2;
    // each rate is rounded to 0.01, so it may be off the counted
    // 1,963,812,210,336 by at most (1 + 1 + 2) x 0.005 x cycles = 737.5e6.
    let fp64 = l.flop.get(ComputePath::Fp64).unwrap();
    assert!((fp64 - 53.27 * GPP_CYCLES).abs() < 1.0);
    assert!((fp64 - GPP_FP64).abs() <= 4.0 * 0.005 * GPP_CYCLES);
    assert_eq!(d.flop.get(ComputePath::Fp64), Some(GPP_FP64));
    // FP32: 2 x ffma 0.67 x cycles = 49,409,912,222.8 vs 49,082,724,716
    // counted: within 2 x 0.005 x cycles = 368.7e6.
    let fp32 = l.flop.get(ComputePath::Fp32).unwrap();
    assert!((fp32 - GPP_FP32).abs() <= 2.0 * 0.005 * GPP_CYCLES);
    assert_eq!(l.flop_derivation, Some(Source::RateTimesCycles));
    assert!(l.flop_unknown.is_empty());

    // Both sides known and complete: the same bound as the counters.
    let (roofs, info) = gpu("rtx4090");
    let r = analyze(&csv, &roofs, info, GroupBy::Launch);
    let k = &r.kernels[0];
    assert_eq!(k.bound, Some(Bound::Compute));
    assert!(!k.lower_bound);
    assert_eq!(k.flop_source, Some(Source::RateTimesCycles));
    assert!(r
        .diagnostics
        .iter()
        .any(|d| d.kind == DiagnosticKind::Derived));
}

#[test]
fn memory_throughput_times_duration_is_the_dram_bytes() {
    let csv = fx("ncu/gpp_full_set_memory_throughput.csv");
    let l = &csv.launches[0];
    // Duration row: 22,765,001,120 ns. Memory Workload Analysis "Memory
    // Throughput": 5,928,273,731.81 byte/s. Product: 134,957,158,347 B, off
    // the counted 134,957,158,144 by the rounding of the duration to whole
    // ns in derive.py (35 ns of 22.8 s: 1.5e-9).
    assert_eq!(l.duration_ns, Some(22_765_001_120.0));
    assert_eq!(l.dram_derivation, Some(Source::RateTimesDuration));
    assert!(((l.dram_bytes.unwrap() - GPP_DRAM) / GPP_DRAM).abs() < 1e-8);
    // The Speed Of Light "Memory Throughput" (%) is not DRAM bytes; the
    // DRAM Throughput % is kept but the rate wins.
    assert_eq!(l.dram_percent_of_peak, Some(0.59));
    // No FLOP counter: unknown, never zero.
    assert!(!l.flop.any_counted());
    assert_eq!(l.flop_unknown.iter().count(), 4);
}

#[test]
fn corpus_2019_5_memory_throughput_is_whole_sectors() {
    // The real 2019.5 default-sections file (tested in place, no licence to
    // copy): 21,608,695,652.17 byte/s x 6,624 ns = 143,136.0000 B
    // = 4,473 sectors of 32 B exactly.
    let Some(path) =
        crate::common::corpus_file("ncu/ncu2019.5_details_csv_rodinia_hotspot_single_kernel.log")
    else {
        return;
    };
    let csv = ncu::parse(std::fs::File::open(&path).unwrap(), "hotspot").unwrap();
    let b = csv.launches[0].dram_bytes.unwrap();
    assert!((b - 143_136.0).abs() < 1e-3, "{b}");
    assert!((b / 32.0 - 4_473.0).abs() < 1e-4);
    // SOL FB (the 2019.5 name of DRAM Throughput): 3.36 %.
    assert_eq!(csv.launches[0].dram_percent_of_peak, Some(3.36));
}

#[test]
fn basic_set_percent_of_peak_gives_approximate_bytes() {
    let csv = fx("ncu/gpp_basic_set_percent.csv");
    let l = &csv.launches[0];
    assert_eq!((l.dram_bytes, l.dram_percent_of_peak), (None, Some(0.59)));
    let (roofs, info) = gpu("rtx4090");
    let r = analyze(&csv, &roofs, info, GroupBy::Launch);
    let k = &r.kernels[0];
    // 0.59 % x 1008 GB/s (the reference derive.py used) x 22.765001120 s
    // = 135,390,842,... B; the percentage was printed to 0.01 of 0.588 %,
    // so within 0.005 / 0.588 = 0.85 % of the counted 134,957,158,144 B.
    let q = k.dram_bytes.unwrap();
    assert!((q - 0.0059 * 1008e9 * 22.765_001_12).abs() < 1.0);
    assert!(((q - GPP_DRAM) / GPP_DRAM).abs() <= 0.005 / 0.588);
    assert_eq!(k.dram_source, Some(Source::PercentOfPeak));
    // Memory side only: fraction = Q/B / T = 0.59 % exactly, a lower bound;
    // compute unknown, so no bound is claimed.
    assert!((k.fraction_of_roof - 0.0059).abs() < 1e-12);
    assert!(k.lower_bound && k.bound.is_none() && k.flop.is_none());
    assert!(k.intensity.is_none() && k.roof_flop_per_s.is_none());
    let kinds: Vec<_> = r.diagnostics.iter().map(|d| d.kind).collect();
    assert!(
        kinds.contains(&DiagnosticKind::DramFromPercent),
        "{kinds:?}"
    );
    assert!(kinds.contains(&DiagnosticKind::BandwidthOnly), "{kinds:?}");
}

#[test]
fn compute_only_file_gives_a_compute_side_bound() {
    let csv = fx("ncu/gpp_no_dram_compute_only.csv");
    let (roofs, info) = gpu("rtx4090");
    // The roofs as stated (boost clock), as the hand figures below.
    let r = analyze_at(&csv, &roofs, info, GroupBy::Launch, RoofClock::Boost);
    let k = &r.kernels[0];
    // No DRAM: compute side only, 1.9638e12/1.29e12 + 4.908e10/82.6e12 s
    // = 1.52292 s of 22.765 s (6.69 %), a lower bound; bound not claimed.
    assert_eq!(k.dram_bytes, None);
    assert!(k.bound.is_none() && k.lower_bound);
    assert!((k.fraction_of_roof - 1.52292 / 22.765).abs() < 1e-5);
    assert!(r
        .diagnostics
        .iter()
        .any(|d| d.kind == DiagnosticKind::DramUnknown));
}

#[test]
fn only_dram_counters_never_read_as_memory_bound() {
    // A GEMM at high SM throughput with only DRAM counters: "memory, 0.8 %"
    // was the old answer. Now the compute side is unknown.
    let text = "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"dram__bytes.sum\",\"gpu__time_duration.sum\"\n\
                \"\",\"\",\"\",\"\",\"\",\"byte\",\"ns\"\n\
                \"0\",\"1\",\"p\",\"h\",\"gemm\",\"24680000\",\"1000000\"\n";
    let csv = ncu::parse(text.as_bytes(), "inline.csv").unwrap();
    let (roofs, info) = gpu("h100-sxm");
    let r = analyze(&csv, &roofs.clone(), info, GroupBy::Launch);
    let k = &r.kernels[0];
    // 24.68 MB / 3084.8 GB/s (measured, roofs.csv) = 8.0005 us of 1 ms: at
    // least 0.8 % of the roof.
    assert!((k.fraction_of_roof - 24.68e6 / 3084.8e9 / 1e-3).abs() < 1e-12);
    assert_eq!((k.bound, k.flop, k.intensity), (None, None, None));
    assert_eq!(k.flop_unknown, FlopGroup::ALL.to_vec());
    let md = String::from_utf8(rooftrace::report::Render::render(
        &r,
        rooftrace::report::Format::Markdown,
        &rooftrace::report::RenderOptions::default(),
    ))
    .unwrap();
    let first = md.lines().next().unwrap();
    assert!(
        first.contains("at least 0.8 % of the DRAM roof (compute unknown"),
        "{first}"
    );
    assert!(!first.contains("memory-bound"), "{first}");
    // The missing metrics are named exactly.
    assert!(md.contains("sm__sass_thread_inst_executed_op_ffma_pred_on.sum"));
}

#[test]
fn launch_failed_quotes_ncus_error() {
    let csv = fx("ncu/bad/launch_failed_nan.csv");
    let e = csv.check_analysable().unwrap_err();
    assert!(matches!(e, NcuError::LaunchFailed { nan: 1, .. }), "{e}");
    let text = e.to_string();
    assert!(text.contains("  ==ERROR== LaunchFailed"), "{text}");
    assert!(!text.contains("--metrics"), "{text}");
}

#[test]
fn derived_figures_say_how_in_every_format() {
    let args = [
        "ncu",
        "fixtures/ncu/gpp_roofline_section_rates.csv",
        "--gpu",
        "rtx4090",
    ];
    let run = |fmt: &str| {
        let mut a = args.to_vec();
        a.extend(["--format", fmt]);
        let (code, out, err) = rooftrace(&a);
        assert_eq!(code, 0, "{err}");
        out
    };
    let v: serde_json::Value = serde_json::from_str(&run("json")).unwrap();
    assert_eq!(v["schema"], "rooftrace.ncu/3");
    let k = &v["kernels"][0];
    assert_eq!(k["dram_source"], "rate_times_duration");
    assert_eq!(k["l2_source"], "sectors");
    assert_eq!(k["flop_source"], "rate_times_cycles");
    assert_eq!(k["flop_unknown"], serde_json::json!([]));
    let csv = run("csv");
    assert!(csv
        .lines()
        .nth(1)
        .unwrap()
        .contains(",rate_times_duration,"));
    let table = run("table");
    assert!(
        table.contains(
            "marks: c: ncu's per-cycle rate x elapsed cycles; r: ncu's per-second rate x duration"
        ),
        "{table}"
    );
    insta::assert_snapshot!("ncu_table_gpp_rates", table);
    let md = run("md");
    assert!(md.contains("marks: c:"), "{md}");
    let basic = rooftrace(&[
        "ncu",
        "fixtures/ncu/gpp_basic_set_percent.csv",
        "--gpu",
        "rtx4090",
    ])
    .1;
    insta::assert_snapshot!("ncu_table_gpp_basic_set", basic);
}

/// Runs rooftrace with `PATH` set to `path` only (and no `$ROOFTRACE_NCU`).
fn rooftrace_with_path(args: &[&str], path: &std::path::Path) -> (i32, String, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_rooftrace"))
        .args(args)
        .current_dir(crate::common::root())
        .env("PATH", path)
        .env_remove("ROOFTRACE_NCU")
        .output()
        .expect("run rooftrace");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[cfg(unix)]
#[test]
fn ncu_rep_is_imported_with_ncu_on_path() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let rep = dir.path().join("run.ncu-rep");
    std::fs::write(&rep, b"not read by rooftrace").unwrap();
    let rep_s = rep.to_str().unwrap();

    // Without ncu: the exact command to run by hand, exit 2.
    let (code, out, err) = rooftrace_with_path(&["ncu", rep_s, "--gpu", "rtx5090"], dir.path());
    assert_eq!(code, 2, "{err}");
    assert!(out.is_empty());
    let csv_s = rep.with_extension("csv");
    assert!(
        err.contains(&format!(
            "ncu --import {rep_s} --csv --page raw --print-units base > {}",
            csv_s.display()
        )),
        "{err}"
    );

    // A fake ncu that checks its argument vector and prints the raw-page
    // fixture, as `ncu --import ... --page raw` would.
    let fixture = fixture("ncu/bf16_gemm_raw_page_units.csv");
    let script = format!(
        "#!/bin/sh\n[ \"$1 $3 $4 $5 $6 $7\" = \"--import --csv --page raw --print-units base\" ] || {{ echo \"bad args: $*\" >&2; exit 3; }}\n[ \"$2\" = \"{rep_s}\" ] || exit 4\ncat '{}'\n",
        fixture.display()
    );
    let ncu = dir.path().join("ncu");
    std::fs::write(&ncu, script).unwrap();
    std::fs::set_permissions(&ncu, std::fs::Permissions::from_mode(0o755)).unwrap();
    let with_sh = std::path::PathBuf::from(format!("{}:/usr/bin:/bin", dir.path().display()));
    let (code, out, err) = rooftrace_with_path(
        // The fixture is CC 12.0: an RTX 5090's roofs (h100-sxm is refused).
        &["ncu", rep_s, "--gpu", "rtx5090", "--format", "json"],
        &with_sh,
    );
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    // The same two launches as the CSV itself: 17.5 MB and 61.44 MB.
    assert_eq!(v["launches_total"], 2);
    assert_eq!(v["page"], "raw, 20 columns");

    // ncu failing: its status and stderr are quoted.
    std::fs::write(
        &ncu,
        "#!/bin/sh\necho '==ERROR== cannot open report' >&2\nexit 1\n",
    )
    .unwrap();
    let (code, _, err) = rooftrace_with_path(&["ncu", rep_s, "--gpu", "rtx5090"], &with_sh);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("==ERROR== cannot open report"), "{err}");
}

#[test]
fn roofline_chart_body_items_give_rates_and_ncus_roofs() {
    let csv = fx("ncu/gpp_roofline_chart_body_items.csv");
    assert_eq!(csv.columns, 21);
    let l = &csv.launches[0];
    // SOL Duration 22,765,001,120 ns x SM Frequency 1,619,726,202.90 Hz
    // = 36,873,068,880 elapsed cycles (the counter says 36,873,068,823; the
    // duration was rounded to whole ns).
    let t = 22.765_001_12;
    let cycles = t * 1_619_726_202.90;
    assert_eq!(l.duration_ns, Some(22_765_001_120.0));
    // FP64: (DFMA 39.85 ops + DADD 3.32 + DMUL 10.09) per cycle x cycles
    // = 53.26 x 36,873,068,880 = 1,963,859,648,... FLOP; three rates rounded
    // to 0.01: within 3 x 0.005 x cycles = 553e6 of the counted
    // 1,963,812,210,336 (plus 57 cycles x 53.26 from the duration).
    let fp64 = l.flop.get(ComputePath::Fp64).unwrap();
    assert!((fp64 - 53.26 * cycles).abs() < 1.0, "{fp64}");
    assert!((fp64 - GPP_FP64).abs() <= 3.0 * 0.005 * GPP_CYCLES + 57.0 * 53.26);
    // FP32: FFMA 1.33 ops/cycle x cycles = 49,041,181,610 vs 49,082,724,716.
    let fp32 = l.flop.get(ComputePath::Fp32).unwrap();
    assert!((fp32 - GPP_FP32).abs() <= 3.0 * 0.005 * GPP_CYCLES);
    // Rates x duration (no elapsed-cycle counter in the file).
    assert_eq!(l.flop_derivation, Some(Source::RateTimesDuration));
    // DRAM Bandwidth 5,928,273,731.81 byte/s x 22.76500112 s = Q to 2e-9.
    assert_eq!(l.dram_derivation, Some(Source::RateTimesDuration));
    assert!(((l.dram_bytes.unwrap() - GPP_DRAM) / GPP_DRAM).abs() < 1e-8);
    // No half-precision or tensor items: those FLOPs are unknown.
    assert_eq!(
        l.flop_unknown.iter().collect::<Vec<_>>(),
        vec![FlopGroup::Fp16, FlopGroup::Tensor]
    );

    // ncu's theoretical roofs from the same items: DRAM 96 byte/cycle x
    // 10.501 GHz = 1.008096 TB/s; FP64 512 ops/cycle x 1.6197 GHz =
    // 829.3 GFLOP/s; FP32 32,768 ops/cycle x 1.6197 GHz = 53.075 TFLOP/s.
    let roofs = csv.roofs_from_peaks().unwrap();
    assert!((roofs.dram().unwrap().bytes_per_s - 96.0 * 10.501e9).abs() < 1.0);
    let f64_roof = roofs.compute[&ComputePath::Fp64].flop_per_s;
    assert!((f64_roof - 512.0 * 1_619_726_202.90).abs() < 1.0);
    let info = GpuInfo {
        key: None,
        name: roofs.gpu.clone(),
        chosen_by: rooftrace::roofs::GpuChoice::NcuPeaks,
        notes: Vec::new(),
    };
    let r = analyze(&csv, &roofs, info, GroupBy::Launch);
    let k = &r.kernels[0];
    // The fraction needs no duration: achieved per cycle over peak per cycle,
    // 53.26 / 512 + 1.33 / 32,768 = 0.104063 (FP64 dominates; memory
    // 5.93 GB/s / 1008 GB/s = 0.0059). A lower bound (FP16/tensor unknown),
    // compute-bound for certain.
    assert!((k.fraction_of_roof - (53.26 / 512.0 + 1.33 / 32_768.0)).abs() < 1e-9);
    assert_eq!(k.bound, Some(Bound::Compute));
    assert!(k.lower_bound);
}

#[cfg(unix)]
#[test]
fn diff_imports_an_ncu_rep_like_rooftrace_ncu() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let rep = dir.path().join("base.ncu-rep");
    std::fs::write(&rep, b"not read by rooftrace").unwrap();
    let rep_s = rep.to_str().unwrap();
    let fixture = fixture("ncu/bf16_gemm_raw_page_units.csv");
    let fixture_s = fixture.to_str().unwrap();

    // Without ncu: the exact command to run by hand, exit 2.
    let args = [
        "diff", rep_s, fixture_s, "--gpu", "rtx5090", "--format", "json",
    ];
    let (code, _, err) = rooftrace_with_path(&args, dir.path());
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(&format!("ncu --import {rep_s} --csv --page raw")),
        "{err}"
    );

    // A fake ncu printing the CSV itself: the report against its own CSV is
    // the same two launches, unchanged.
    let script = format!("#!/bin/sh\ncat '{fixture_s}'\n");
    let ncu = dir.path().join("ncu");
    std::fs::write(&ncu, script).unwrap();
    std::fs::set_permissions(&ncu, std::fs::Permissions::from_mode(0o755)).unwrap();
    let with_sh = std::path::PathBuf::from(format!("{}:/usr/bin:/bin", dir.path().display()));
    let (code, out, err) = rooftrace_with_path(&args, &with_sh);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["base"]["source"], "ncu report");
    assert_eq!(v["new"]["source"], "ncu csv");
    assert_eq!(v["verdict"], "unchanged");
    assert_eq!(
        v["counts"]["unchanged"].as_u64().map(|n| n >= 2),
        Some(true),
        "{}",
        v["counts"]
    );
}

/// Issue 19: ncu's roofline section exported alone (rates, no duration;
/// constructed from the documented layout, fixtures/ncu/README.md) gives
/// one row whose intensity is FLOP/s / B/s, with time, bytes, FLOPs and
/// time lost unknown, and advice that names the re-import.
#[test]
fn rate_only_roofline_section_gives_the_point_from_rates() {
    let f = "fixtures/ncu/gpp_roofline_chart_rates_only_constructed.csv";
    let csv = fx("ncu/gpp_roofline_chart_rates_only_constructed.csv");
    assert_eq!(csv.launches.len(), 1);
    assert!(csv.launches[0].rate_only);
    let (code, out, err) = rooftrace(&["ncu", f, "--roofs", "ncu", "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let ks = v["kernels"].as_array().unwrap();
    assert_eq!(ks.len(), 1);
    let k = &ks[0];
    assert_eq!(k["rate_only"], true);
    // FLOP/s from the chart's per-cycle items x "SM Frequency":
    // (2 x 39.85/2 + 3.32 + 10.09 + 2 x 1.33/2) x 1,619,726,202.90 Hz
    // = 54.59 x 1.6197e9 = 88.42 GFLOP/s (the counters gave 88.42 too);
    // B/s = "DRAM Bandwidth" 5.93 Gbyte/s.
    let flops = k["achieved_flop_per_s"].as_f64().unwrap();
    let bps = k["achieved_dram_bytes_per_s"].as_f64().unwrap();
    assert!((flops - (39.85 + 3.32 + 10.09 + 1.33) * 1_619_726_202.90).abs() < 1.0);
    assert_eq!(bps, 5.93e9);
    assert!((k["intensity"].as_f64().unwrap() - flops / bps).abs() < 1e-12);
    // Fraction of ncu's roof: FP64 time dominates; with ncu's peaks at the
    // run clock: W64/F64 + W32/F32 per second over 1 s.
    let f64_roof = 2.0 * 256.0 * 1_619_726_202.90; // 512 DFMA ops/cycle / 2 x 2 FLOP
    let f32_roof = 2.0 * 16_384.0 * 1_619_726_202.90;
    let w64 = (39.85 + 3.32 + 10.09) * 1_619_726_202.90;
    let w32 = 1.33 * 1_619_726_202.90;
    let want = w64 / f64_roof + w32 / f32_roof;
    assert!((k["fraction_of_roof"].as_f64().unwrap() - want).abs() < 1e-12);
    assert_eq!(k["bound"], "compute");
    for f in [
        "duration_ns",
        "dram_bytes",
        "flop",
        "time_lost_ns",
        "bound_time_ns",
    ] {
        assert!(k[f].is_null(), "{f}: {}", k[f]);
    }
    assert!(v["total_duration_ns"].is_null());
    let advice: Vec<&str> = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["message"].as_str().unwrap())
        .collect();
    assert!(
        advice.iter().any(|m| m.contains("--page raw")),
        "{advice:?}"
    );
    assert!(
        !advice.iter().any(|m| m.contains("add --metrics")),
        "{advice:?}"
    );
}
