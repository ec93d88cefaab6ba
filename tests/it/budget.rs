//! `rooftrace budget`: the fixture pair (a timeline derived by
//! `fixtures/budget/derive.py` from the real A100 sgemm ncu export, and that
//! export) checked part by part by hand arithmetic; the identity bound +
//! shortfall + gaps + other = step to the nanosecond on every instance of
//! the fixture and of every corpus export with NVTX ranges; the reference's
//! worked example (14.14 GB per step → 4.58 ms on H100); CLI errors and
//! snapshots.

use crate::common::{corpus, fixture, rooftrace};
use rooftrace::budget::{self, *};
use rooftrace::gaps::{self, GapConfig};
use rooftrace::nsys::{read_timeline, Timeline};
use rooftrace::report::{Format, Render, RenderOptions};
use rooftrace::roofline::{self, GroupBy, RooflineReport};
use rooftrace::roofs::{self, choose, DeviceHints, GpuInfo, Roofs, RoofsChoice};
use rusqlite::Connection;
use std::path::PathBuf;

// The parts these tests read, by kind.
const BOUND: PartKind = PartKind::Bound;
const SHORTFALL: PartKind = PartKind::Shortfall;
const NO_COUNTERS: PartKind = PartKind::NoCounters;
const MEMSET: PartKind = PartKind::Memset;
const MEMCPY: PartKind = PartKind::Memcpy;
const OUTSIDE: PartKind = PartKind::Outside;

fn no_progress(_: u64, _: u64) {}

/// Builds `fixtures/budget/sgemm_steps.sql` into a fresh database.
fn build_fixture() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("sgemm_steps.sqlite");
    let sql = std::fs::read_to_string(fixture("budget/sgemm_steps.sql")).unwrap();
    Connection::open(&db).unwrap().execute_batch(&sql).unwrap();
    (dir, db)
}

fn roofs_of(key: &str) -> (Roofs, GpuInfo) {
    choose::<roofs::RoofsError>(
        &RoofsChoice::Gpu(key.into()),
        &DeviceHints::default(),
        || unreachable!(),
    )
    .unwrap()
}

/// The fixture pair's roofs: the A100 80GB datasheet, as a roofs file (so
/// the hand arithmetic does not move when the built-in table gains
/// measured values).
fn fixture_roofs() -> (Roofs, GpuInfo) {
    choose::<roofs::RoofsError>(
        // Relative to the package root (the tests' working directory), so
        // the report's `chosen_by` is the same on every machine.
        &RoofsChoice::File(PathBuf::from("fixtures/budget/a100-80gb-datasheet.json")),
        &DeviceHints::default(),
        || unreachable!(),
    )
    .unwrap()
}

fn ncu_report(roofs: &Roofs, gpu: &GpuInfo) -> RooflineReport {
    let path = fixture("ncu/sgemm_a100_printfp_details15.csv");
    let csv = rooftrace::ncu::parse(std::fs::File::open(&path).unwrap(), "sgemm.csv").unwrap();
    roofline::analyze(&csv, roofs, gpu.clone(), GroupBy::Launch)
}

fn budget_of(
    tl: &Timeline,
    pattern: &str,
    ncu: Option<&RooflineReport>,
    bytes: Option<f64>,
    roofs: &Roofs,
    gpu: &GpuInfo,
) -> BudgetReport {
    let g = gaps::analyze(
        tl,
        &GapConfig {
            nvtx: Some(regex::Regex::new(pattern).unwrap()),
            ..GapConfig::default()
        },
    );
    budget::analyze(
        tl,
        &g,
        ncu,
        roofs,
        gpu.clone(),
        &BudgetConfig {
            input: "sgemm_steps.sqlite".into(),
            ncu_file: ncu.map(|_| "sgemm_a100_printfp_details15.csv".into()),
            bytes_per_step: bytes,
        },
    )
}

/// The identity on every step: integer parts, none negative, summing to the
/// measured step exactly; a projected step has nothing outside its ops.
fn check_identity(r: &BudgetReport, what: &str) {
    for (i, s) in r.steps.iter().enumerate() {
        let sum: i64 = s.parts.iter().map(|p| p.ns).sum();
        assert_eq!(sum, s.step_ns, "{what}: step {i} parts {:?}", s.parts);
        assert_eq!(s.step_ns, s.gpu_end_ns - s.gpu_start_ns, "{what}: step {i}");
        for p in &s.parts {
            assert!(p.ns >= 0, "{what}: step {i} part {:?} = {}", p.kind, p.ns);
        }
        if s.projected {
            assert_eq!(s.part(OUTSIDE), 0, "{what}: step {i} {:?}", s.parts);
        }
    }
}

// The real counters of the three launches in sgemm_a100_printfp_details15.csv.
const CYCLES: [f64; 3] = [5_145_083_088.72, 5_134_280_071.41, 25_610_472_227.46];
const CYCLES_PER_S: [f64; 3] = [764_999_991.90, 764_999_992.88, 764_999_999.31];
const DRAM_BYTES: [f64; 3] = [5_323_503_232.0, 5_420_639_360.0, 807_658_682_624.0];
/// fixtures/budget/a100-80gb-datasheet.json: DRAM 2039 GB/s, FP32 19.5
/// TFLOP/s, FP16 39 TFLOP/s.
const B: f64 = 2039e9;

#[test]
fn fixture_pair_parts_by_hand() {
    let (_dir, db) = build_fixture();
    let tl = read_timeline(&db, true, &no_progress).unwrap();
    let (roofs, gpu) = fixture_roofs();
    let ncu = ncu_report(&roofs, &gpu);
    let r = budget_of(&tl, "^step$", Some(&ncu), None, &roofs, &gpu);
    assert_eq!(r.steps.len(), 3, "{:?}", r.diagnostics);
    check_identity(&r, "fixture");

    // Timeline durations = ncu durations (cycles / rate), rounded to the ns.
    let d: Vec<i64> = (0..3)
        .map(|i| (CYCLES[i] / CYCLES_PER_S[i] * 1e9).round() as i64)
        .collect();
    assert_eq!(d, [6_725_598_880, 6_711_477_280, 33_477_741_504]);
    // T* by hand: randomInit is memory-bound, Q / B.
    let t0 = DRAM_BYTES[0] / B * 1e9; // 2,610,840.23 ns
    let t1 = DRAM_BYTES[1] / B * 1e9; // 2,658,479.33 ns
                                      // gemm_v1 is compute-bound: 2 × 34,359,738,368,000 FFMA / 19.5 TFLOP/s
                                      // + 2 × 2,149,161,369,600 HFMA / 39 TFLOP/s = 3.5241 s + 0.1102 s
                                      // (its tensor instructions have no op counter: not counted, diagnosed).
    let t2 = (2.0 * 34_359_738_368_000.0 / 19.5e12 + 2.0 * 2_149_161_369_600.0 / 39e12) * 1e9;
    assert!(t2 > DRAM_BYTES[2] / B * 1e9);
    let bound0 = t0.round() as i64 + t1.round() as i64 + t2.round() as i64;
    assert_eq!(bound0, 2_610_840 + 2_658_479 + 3_634_289_134);
    let kernels0 = d[0] + d[1] + d[2];

    // Step 0: randomInit, 2 us, randomInit, 50 us, memset 1 us, 3 us, gemm_v1.
    let s0 = &r.steps[0];
    assert_eq!(s0.step_ns, kernels0 + 2_000 + 50_000 + 1_000 + 3_000);
    assert_eq!(s0.part(BOUND), bound0);
    assert_eq!(s0.part(SHORTFALL), kernels0 - bound0);
    assert_eq!(s0.part(MEMSET), 1_000);
    assert_eq!(
        s0.part(PartKind::Idle(gaps::GapClass::LaunchLatency)),
        2_000 + 3_000
    );
    assert_eq!(s0.part(PartKind::Idle(gaps::GapClass::HostBound)), 50_000);
    assert_eq!(s0.part(NO_COUNTERS), 0);
    assert_eq!((s0.kernels, s0.concurrent_ns), (3, 0));

    // Step 1: + 20 us queued gap and a second gemm_v1 (half of ID 2's
    // time), which ncu did not profile: bounded by gemm_v1's fraction of
    // roof T*/T (ncu's own T = cycles / rate, unrounded).
    let d2b = (d[2] as f64 / 2.0).round() as i64;
    let frac = t2 / (CYCLES[2] / CYCLES_PER_S[2] * 1e9); // 0.10856
    let bound_b = (frac * d2b as f64).round() as i64; // ≈ 1,817,144,567
    let s1 = &r.steps[1];
    assert_eq!(s1.step_ns, s0.step_ns + 20_000 + d2b);
    assert_eq!(s1.part(BOUND), bound0 + bound_b);
    assert_eq!(s1.part(SHORTFALL), kernels0 + d2b - bound0 - bound_b);
    assert_eq!(
        s1.part(PartKind::Idle(gaps::GapClass::QueuedDependency)),
        20_000
    );

    // Step 2: cleanup_kernel on stream 13 from 10 us before gemm_v1 ends
    // to 5 us after: 10 us hidden under gemm_v1 (first come), 5 us charged,
    // and it has no ncu counter.
    let s2 = &r.steps[2];
    assert_eq!(s2.step_ns, s0.step_ns + 5_000);
    assert_eq!(s2.part(NO_COUNTERS), 5_000);
    assert_eq!(s2.concurrent_ns, 10_000);
    assert_eq!(s2.part(BOUND), bound0);

    // Coverage: every kernel but cleanup_kernel has a counter of its name.
    let c = &r.coverage;
    assert_eq!(c.matched_ns, 3 * kernels0);
    assert_eq!(c.per_name_ns, d2b);
    assert_eq!(c.none_ns, 5_000);
    // gemm_v1 has the largest shortfall, 4 launches (one per name figure).
    let g = &r.kernels[0];
    assert_eq!(
        (g.name.as_str(), g.launches, g.matched, g.per_name),
        ("gemm_v1", 4, 3, 1)
    );
    assert_eq!(g.bound_by, Some("compute"));
    // Median step by step_ns: s0 < s2 < s1, so s2.
    assert_eq!(r.median_step, Some(2));
    // Fix first starts with gemm_v1's shortfall (≈ 35.5 s per step).
    assert!(
        r.fix_first[0].what == "shortfall:gemm_v1",
        "{:?}",
        r.fix_first
    );
    assert!(r.fix_first[0].text.contains("below its roof"));
    // Every profiled name is on the timeline.
    assert!(
        !r.diagnostics
            .iter()
            .any(|d| matches!(d.kind, DiagnosticKind::UnmatchedCounters { .. })),
        "{:?}",
        r.diagnostics
    );
}

#[test]
fn weights_bound_mode_on_the_fixture() {
    let (_dir, db) = build_fixture();
    let tl = read_timeline(&db, true, &no_progress).unwrap();
    let (roofs, gpu) = fixture_roofs();
    // 100 GB per step on 2039 GB/s: 49,043,648.8 ns → 49,043,649 ns bound.
    let r = budget_of(&tl, "^step$", None, Some(100e9), &roofs, &gpu);
    check_identity(&r, "weights");
    for s in &r.steps {
        assert_eq!(s.part(BOUND), 49_043_649);
        assert_eq!(s.part(NO_COUNTERS), 0);
    }
    let s0 = &r.steps[0];
    assert_eq!(
        s0.part(SHORTFALL),
        6_725_598_880 + 6_711_477_280 + 33_477_741_504 - 49_043_649
    );
    // The cleanup kernel's 5 us is kernel time too: inside the shortfall.
    assert_eq!(r.steps[2].part(SHORTFALL), s0.part(SHORTFALL) + 5_000);
}

/// The reference (§6, Table 7): 14.14 GB of weights per decode step on the
/// measured roofs of the built-in table. H100: 14.14e9 / 3084.8e9 =
/// 4.5838 ms ("the 4.58 ms bandwidth bound"); H200: 14.14e9 / 4295.1e9 =
/// 3.2921 ms. Measured 11.56 ms and 11.86 ms are then 2.52× and 3.60× the
/// bound ("2.5 to 3.6 times"), and the excess 6.98 ms and 8.57 ms ("7 ms or
/// so", "8.6 ms"). RTX 4080: 14.14e9 / 661.42e9 = 21.378 ms, 88 % of its
/// measured 24.3 ms ("weight reads taking 88% of each step").
#[test]
fn reference_worked_example() {
    let (h100, _) = roofs_of("h100-sxm");
    let (h200, _) = roofs_of("h200");
    let b100 = weights_bound_ns(14.14e9, &h100).unwrap();
    let b200 = weights_bound_ns(14.14e9, &h200).unwrap();
    assert_eq!(format!("{:.2}", b100 / 1e6), "4.58");
    assert_eq!(format!("{:.2}", b200 / 1e6), "3.29");
    assert_eq!(format!("{:.1}", 11.56e6 / b100), "2.5");
    assert_eq!(format!("{:.1}", 11.86e6 / b200), "3.6");
    assert_eq!(format!("{:.1}", (11.56e6 - b100) / 1e6), "7.0");
    assert_eq!(format!("{:.1}", (11.86e6 - b200) / 1e6), "8.6");
    let (rtx, _) = roofs_of("rtx4080");
    let b4080 = weights_bound_ns(14.14e9, &rtx).unwrap();
    assert_eq!(format!("{:.2}", b4080 / 1e6), "21.38");
    assert_eq!(format!("{:.0}", b4080 / 24.3e6 * 100.0), "88");
}

/// Every instance of every NVTX range in every export with NVTX: the
/// identity holds, with the weights bound and without any bound.
#[test]
fn identity_on_every_export_with_nvtx() {
    let (roofs, gpu) = roofs_of("h100-sxm");
    let mut paths: Vec<PathBuf> = vec![
        fixture("nsys/nsys2022.2.1_pipit_saxpy-mpi-cuda.sqlite"),
        fixture("nsys/nsys2026.2.1_nsysai_h100_2gpu_1s.sqlite"),
    ];
    if let Some(dir) = corpus("nsys") {
        let mut more: Vec<PathBuf> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "sqlite"))
            .collect();
        more.sort();
        paths.extend(more);
    }
    let mut steps = 0usize;
    for p in &paths {
        let tl = read_timeline(p, true, &no_progress).unwrap();
        if tl.nvtx.is_empty() {
            continue;
        }
        for bytes in [None, Some(1e9)] {
            let r = budget_of(&tl, ".", None, bytes, &roofs, &gpu);
            check_identity(&r, &p.display().to_string());
            steps += r.steps.len();
        }
    }
    assert!(steps > 100, "{steps} steps checked");
}

/// The synthetic export (`rooftrace::synth`): 4 streams per device, an HtoD
/// copy every 50th op, `step` ranges of 100 kernels: the identity holds and
/// the copies are their own part.
#[test]
fn identity_on_the_synthetic_export_with_copies_and_streams() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("synth.sqlite");
    let spec = rooftrace::synth::nsys::SynthSpec {
        kernels: 20_000,
        devices: 2,
        streams: 4,
        seed: 7,
    };
    rooftrace::synth::nsys::write_synthetic(&db, &spec).unwrap();
    let tl = read_timeline(&db, true, &no_progress).unwrap();
    let (roofs, gpu) = roofs_of("h100-sxm");
    let r = budget_of(&tl, "^step$", None, Some(1e6), &roofs, &gpu);
    check_identity(&r, "synthetic");
    // 10,000 kernels per device, a range closing every 100: ~100 per device.
    assert!(r.steps.len() >= 190, "{}", r.steps.len());
    assert!(r.steps.iter().any(|s| s.part(MEMCPY) > 0));
    // Every step is projected: the ranges launched their kernels.
    assert!(r.steps.iter().all(|s| s.projected));
}

/// ncu counters of other kernels: nothing matches, every kernel is
/// "without counters", coverage 0, and the mismatch is diagnosed.
#[test]
fn counters_of_other_kernels_are_stated_not_hidden() {
    let tl = read_timeline(
        &fixture("nsys/nsys2022.2.1_pipit_saxpy-mpi-cuda.sqlite"),
        true,
        &no_progress,
    )
    .unwrap();
    let (roofs, gpu) = fixture_roofs();
    let ncu = ncu_report(&roofs, &gpu);
    let r = budget_of(&tl, "^saxpy$", Some(&ncu), None, &roofs, &gpu);
    check_identity(&r, "saxpy");
    assert_eq!(r.steps.len(), 5);
    for s in &r.steps {
        // One saxpy kernel per range, the whole step: 17,704,808 ns for the
        // first (SELECT end - start FROM CUPTI_ACTIVITY_KIND_KERNEL).
        assert_eq!(s.part(NO_COUNTERS), s.step_ns);
        assert_eq!(s.part(BOUND), 0);
    }
    assert_eq!(r.steps[0].step_ns, 17_704_808);
    assert_eq!(r.coverage.fraction, 0.0);
    assert!(
        r.diagnostics
            .iter()
            .any(|d| matches!(d.kind, DiagnosticKind::UnmatchedCounters { .. })),
        "{:?}",
        r.diagnostics
    );
    assert!(r.kernels.iter().all(|k| k.bound_ns.is_none()));
}

fn fixture_report() -> BudgetReport {
    let (_dir, db) = build_fixture();
    let tl = read_timeline(&db, true, &no_progress).unwrap();
    let (roofs, gpu) = fixture_roofs();
    let ncu = ncu_report(&roofs, &gpu);
    budget_of(&tl, "^step$", Some(&ncu), None, &roofs, &gpu)
}

#[test]
fn snapshots_of_every_format() {
    let r = fixture_report();
    let opts = RenderOptions::default();
    let s = |f| String::from_utf8(r.render(f, &opts)).unwrap();
    insta::assert_snapshot!("budget_table", s(Format::Table));
    insta::assert_snapshot!("budget_csv", s(Format::Csv));
    insta::assert_snapshot!("budget_md", s(Format::Markdown));
    let json = s(Format::Json);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["schema"], "rooftrace.budget/2");
    for step in v["steps"].as_array().unwrap() {
        let sum: i64 = step["parts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["ns"].as_i64().unwrap())
            .sum();
        assert_eq!(sum, step["step_ns"].as_i64().unwrap());
    }
    insta::assert_snapshot!("budget_json", json);
}

#[test]
fn plot_has_one_bar_per_step_plus_the_median() {
    let r = fixture_report();
    let input = rooftrace::plot::BudgetInput::from_report(&r).unwrap();
    assert_eq!(input.bars.len(), 4);
    assert_eq!(input.bars[0].label, "median");
    let chart = rooftrace::plot::BudgetChart::build(&input).unwrap();
    let svg = rooftrace::plot::render_svg(&chart).unwrap();
    // A plain-text title: no Markdown backticks around the pattern.
    assert!(
        chart.title.starts_with("Step budget of the "),
        "{}",
        chart.title
    );
    assert!(!chart.title.contains('`'), "{}", chart.title);
    assert!(svg.contains("Step budget of the "));
    // The bar labels as drawn never overlap (boxes from the font's metrics).
    assert_eq!(
        rooftrace::plot::extent::first_overlap(&chart.labels).unwrap(),
        None
    );
    assert_eq!(chart.labels[0].text, "median");
}

#[test]
fn budget_chart_with_many_steps_keeps_only_labels_that_fit() {
    // 48 bars (more than from_report draws): "#10" … "#47" under slots of
    // about 17 px cannot all be drawn; the kept ones must not touch.
    let bars: Vec<rooftrace::plot::BudgetBar> = (0..48)
        .map(|i| rooftrace::plot::BudgetBar {
            label: if i == 0 {
                "median".into()
            } else {
                format!("#{i}")
            },
            parts: vec![(PartKind::Bound, 1000 + i)],
        })
        .collect();
    let input = rooftrace::plot::BudgetInput {
        title: "t".into(),
        bars,
        bound_is_lower: false,
        outliers: vec![],
        bound_note: None,
    };
    let chart = rooftrace::plot::BudgetChart::build(&input).unwrap();
    assert!(chart.labels.len() < 48, "{}", chart.labels.len());
    assert_eq!(
        rooftrace::plot::extent::first_overlap(&chart.labels).unwrap(),
        None
    );
}

#[test]
fn cli_errors_are_bad_input() {
    let (_dir, db) = build_fixture();
    let db = db.to_str().unwrap();
    // No roofs without --ncu.
    let (code, _, err) = rooftrace(&["budget", db, "--nvtx", "step", "--bytes-per-step", "1GB"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--gpu"), "{err}");
    let (code, _, err) = rooftrace(&["budget", db, "--nvtx", "(", "--gpu", "h100-sxm"]);
    assert_eq!(code, 2, "{err}");
    let (code, _, err) = rooftrace(&[
        "budget",
        "fixtures/nsys/absent.sqlite",
        "--nvtx",
        "step",
        "--gpu",
        "h100-sxm",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("no such file"), "{err}");
    let (code, out, err) = rooftrace(&[
        "budget",
        db,
        "--nvtx",
        "^step$",
        "--ncu",
        "fixtures/ncu/sgemm_a100_printfp_details15.csv",
        "--roofs",
        "fixtures/budget/a100-80gb-datasheet.json",
        "--format",
        "csv",
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.lines().count(), 4, "{out}");
    // --device that selects nothing is bad input, naming what the export has.
    let (code, _, err) = rooftrace(&[
        "budget",
        db,
        "--nvtx",
        "^step$",
        "--gpu",
        "h100-sxm",
        "--bytes-per-step",
        "1GB",
        "--device",
        "3",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("device 0 stream 7"), "{err}");
}

/// Issue 19: the saxpy export's TARGET_INFO_GPU names an "NVIDIA
/// A100-SXM4-40GB" (compute 8.0, 108 SMs, 40 MiB L2): `budget` takes the
/// GPU from there without --gpu, and refuses a --gpu it contradicts.
#[test]
fn budget_takes_the_gpu_from_target_info_gpu() {
    let saxpy = "fixtures/nsys/nsys2022.2.1_pipit_saxpy-mpi-cuda.sqlite";
    let tl = read_timeline(&fixture(&saxpy[9..]), true, &no_progress).unwrap();
    let g = &tl.info.identity.gpus;
    assert_eq!(g.len(), 1);
    assert_eq!(g[0].name, "NVIDIA A100-SXM4-40GB");
    assert_eq!(
        g[0].compute_capability,
        Some(rooftrace::units::ComputeCapability::new(8, 0))
    );
    assert_eq!(
        (g[0].sm_count, g[0].l2_bytes),
        (Some(108), Some(41_943_040))
    );
    assert_eq!(g[0].memory_bandwidth_bytes_per_s, Some(1_555_200_000_000));
    assert_eq!(g[0].clock_hz, Some(1_410_000_000));
    let args = [
        "budget",
        saxpy,
        "--nvtx",
        "^saxpy$",
        "--bytes-per-step",
        "1MB",
    ];
    let (code, out, err) = rooftrace(&[&args[..], &["--format", "json"]].concat());
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["gpu"]["key"], "a100-40gb");
    assert!(v["gpu"]["chosen_by"]
        .as_str()
        .unwrap()
        .contains("TARGET_INFO_GPU"));
    // The A100 40GB datasheet DRAM roof: 1555 GB/s.
    assert_eq!(v["dram_bytes_per_s"], 1555e9);
    let (code, _, err) = rooftrace(&[&args[..], &["--gpu", "h100-sxm"]].concat());
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("compute capability 9.0") && err.contains("a100-40gb"),
        "{err}"
    );
}

/// The host-bound fix of "fix first" follows from the gaps inside the
/// steps it ranks, not from the whole export. On the fixture the steps are
/// 1 s apart: the whole report's host-bound time is two ~1 s stretches
/// between steps (the next step's first launch call starts 100 µs before
/// its kernel), while inside each step the only host-bound gap is the
/// 50 µs one before the memset (its call starts 40 µs into the gap).
///
/// The expected scales are counted independently in SQL over the export:
/// a device gap opens where an op starts after every earlier op ended
/// (running max of `end` by start) and is host-bound when the call that
/// launched the op after it (joined by correlationId) started after the gap
/// opened: the host was late (docs/gaps.md). A step's window is the span
/// of the ops whose call starts inside its NVTX range. Lengths are then
/// sorted into the documented classes (< 100 µs launch-scale, ≥ 1 ms CPU
/// stretch).
#[test]
fn budget_host_fix_comes_from_the_gaps_inside_the_steps() {
    let (_dir, db) = build_fixture();
    let conn = Connection::open(&db).unwrap();
    let host_late: Vec<(i64, i64)> = conn
        .prepare(
            "WITH ops AS (
                 SELECT start, end, correlationId FROM CUPTI_ACTIVITY_KIND_KERNEL
                 UNION ALL SELECT start, end, correlationId FROM CUPTI_ACTIVITY_KIND_MEMSET),
             ordered AS (
                 SELECT start, correlationId, MAX(end) OVER (ORDER BY start, end
                     ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS busy_until
                 FROM ops)
             SELECT o.busy_until, o.start FROM ordered o
             JOIN CUPTI_ACTIVITY_KIND_RUNTIME r USING (correlationId)
             WHERE o.start > o.busy_until AND r.start > o.busy_until
             ORDER BY o.start",
        )
        .unwrap()
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let windows: Vec<(i64, i64)> = conn
        .prepare(
            "WITH ops AS (
                 SELECT start, end, correlationId FROM CUPTI_ACTIVITY_KIND_KERNEL
                 UNION ALL SELECT start, end, correlationId FROM CUPTI_ACTIVITY_KIND_MEMSET)
             SELECT MIN(o.start), MAX(o.end) FROM NVTX_EVENTS n
             JOIN CUPTI_ACTIVITY_KIND_RUNTIME r ON r.start >= n.start AND r.start <= n.end
             JOIN ops o USING (correlationId)
             WHERE n.text = 'step' GROUP BY n.start ORDER BY n.start",
        )
        .unwrap()
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(windows.len(), 3);
    let launch_scale = |ns: i64| ns < 100_000;
    let stretch = |ns: i64| ns >= 1_000_000;
    // Inside each step: one host-bound gap, 50 µs, launch-scale.
    for &(w0, w1) in &windows {
        let inside: Vec<i64> = host_late
            .iter()
            .filter(|g| g.0 >= w0 && g.1 <= w1)
            .map(|g| g.1 - g.0)
            .collect();
        assert_eq!(inside, vec![50_000]);
    }
    // Over the whole export: two CPU stretches between the steps outweigh
    // the three 50 µs gaps.
    let stretches: i64 = host_late
        .iter()
        .map(|g| g.1 - g.0)
        .filter(|&d| stretch(d))
        .sum();
    let short: i64 = host_late
        .iter()
        .map(|g| g.1 - g.0)
        .filter(|&d| launch_scale(d))
        .sum();
    assert_eq!(host_late.len(), 5);
    assert!(stretches > 1_000 * short, "{stretches} vs {short}");

    let tl = read_timeline(&db, true, &no_progress).unwrap();
    let (roofs, gpu) = fixture_roofs();
    let ncu = ncu_report(&roofs, &gpu);
    let r = budget_of(&tl, "^step$", Some(&ncu), None, &roofs, &gpu);
    for s in &r.steps {
        let launch = s.host.scale.get(gaps::Scale::Launch);
        assert_eq!((launch.count, launch.total_ns), (1, 50_000), "{:?}", s.host);
        assert_eq!(s.host.scale.dominant(), Some(gaps::Scale::Launch));
    }
    // The whole report says CPU stretch: the budget must not take its fix.
    let g = gaps::analyze(&tl, &GapConfig::default());
    assert_eq!(
        g.devices[0].host_scale.dominant(),
        Some(gaps::Scale::Stretch)
    );
    let host = r
        .fix_first
        .iter()
        .find(|f| f.what == "idle_host_bound")
        .expect("host-bound gaps in fix first");
    assert!(
        host.text
            .contains(gaps::Scale::Launch.fix(gaps::FixTerms::default()))
            && host
                .text
                .contains("in the 3 steps ranked: 3 gaps under 100 µs hold 150 µs")
            && !host.text.contains("profile the host"),
        "{}",
        host.text
    );
}
