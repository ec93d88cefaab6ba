//! The `path` library on the real corpus (docs/path.md): on every PyTorch
//! trace and nsys export, the replay of nothing gives back every observed
//! time; on every one with steps, each step's path is contiguous over
//! budget's window and its parts sum to `step_ns` to the ns, and no change
//! saves more than its own shortfall. On the V100 2-rank trace and the
//! NCCL trace, `kernels_at_roof` saves at most budget's summed shortfall
//! over the same steps, under the same bounds.

use crate::common::{corpus, corpus_file};
use rooftrace::budget::{self, BudgetConfig, BudgetReport, OpModels, PartKind};
use rooftrace::gaps::{self, GapConfig};
use rooftrace::kineto::{read_timeline_keeping, Keep};
use rooftrace::opmodel::OpCalls;
use rooftrace::ops::{BoundSide, KernelBounds, KernelModel};
use rooftrace::path::{self, KernelRoofs, PathConfig, PathReport};
use rooftrace::roofs::{choose, DeviceHints, RoofsChoice, RoofsError};
use rooftrace::timeline::{OpKind, Timeline};
use std::path::Path;

fn no_progress(_: u64, _: u64) {}

/// PyTorch's step range.
pub(crate) const PROFILER_STEP: &str = r"^ProfilerStep#\d+$";

/// Budget of `tl`'s steps (`pattern`), each kernel bound by `bounds` when
/// given (as `rooftrace budget` does with a trace's op models), on the
/// V100's roofs (only the DRAM figure is read, for the report).
pub(crate) fn budget_of(
    tl: &Timeline,
    pattern: &str,
    bounds: Option<&KernelBounds>,
) -> BudgetReport {
    let g = gaps::analyze(
        tl,
        &GapConfig {
            nvtx: Some(regex::Regex::new(pattern).unwrap()),
            ..GapConfig::default()
        },
    );
    let (roofs, gpu) = choose::<RoofsError>(
        &RoofsChoice::Gpu("v100".into()),
        &DeviceHints::default(),
        || unreachable!(),
    )
    .unwrap();
    let calls = OpCalls::default();
    let models = bounds.map(|bounds| OpModels {
        bounds,
        calls: &calls,
    });
    budget::analyze_with_ops(tl, &g, None, models, &roofs, gpu, &BudgetConfig::default())
}

/// The path report of `tl` over `budget`'s steps.
pub(crate) fn path_of(
    tl: &Timeline,
    budget: &BudgetReport,
    bounds: Option<&KernelBounds>,
) -> PathReport {
    let roofs = KernelRoofs::from_steps(tl, None, bounds, budget);
    path::analyze(
        tl,
        budget,
        &roofs,
        &PathConfig {
            input: vec!["corpus".into()],
            top_kernels: 5,
        },
    )
}

/// What every path report must hold, whatever the input.
fn check_report(name: &str, budget: &BudgetReport, report: &PathReport) {
    assert_eq!(report.steps.len(), budget.steps.len(), "{name}");
    for (s, b) in report.steps.iter().zip(&budget.steps) {
        assert_eq!(
            (s.start_ns, s.step_ns),
            (b.gpu_start_ns, b.step_ns),
            "{name}"
        );
        assert_eq!(s.path_ns, s.step_ns, "{name} {}", s.name);
        assert_eq!(
            s.parts.iter().map(|p| p.ns).sum::<i64>(),
            s.step_ns,
            "{name} {}",
            s.name
        );
        // Contiguous, in time order, from the window's start to its end.
        let mut at = b.gpu_start_ns;
        for seg in &s.segments {
            assert_eq!(seg.start_ns, at, "{name} {}: {seg:?}", s.name);
            assert!(seg.end_ns > seg.start_ns, "{name}: {seg:?}");
            at = seg.end_ns;
        }
        assert_eq!(at, b.gpu_end_ns, "{name} {}", s.name);
        for w in &s.what_if {
            assert!(
                w.saved_ns >= 0 && w.saved_ns <= w.shortfall_ns,
                "{name} {}: {w:?}",
                s.name
            );
            // The new step may exceed the step (its ops moved earlier at
            // the start more than at the end): then nothing is saved.
            if w.saved_ns > 0 {
                assert_eq!(w.new_step_ns, s.step_ns - w.saved_ns, "{name}: {w:?}");
            } else {
                assert!(w.new_step_ns >= s.step_ns, "{name}: {w:?}");
            }
        }
    }
}

/// Every kernel of `tl` but the collectives bound at half its own time
/// on the DRAM side: an assumed roof, the same for budget and path.
fn half_time_bounds(tl: &Timeline) -> KernelBounds {
    KernelBounds {
        by_op: tl
            .ops
            .iter()
            .map(|o| {
                (o.kind == OpKind::Kernel && !tl.is_comm(o)).then(|| KernelModel::Bound {
                    bound_ns: (o.end_ns - o.start_ns) as f64 / 2.0,
                    side: BoundSide::Memory,
                    record: 0,
                })
            })
            .collect(),
    }
}

fn read_trace(path: &Path) -> Timeline {
    read_timeline_keeping(path, Keep::NoCollectives)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .timeline
}

#[test]
fn on_every_corpus_trace_the_replay_of_nothing_is_exact_and_each_step_sums() {
    let Some(dir) = corpus("kineto") else { return };
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".json.gz"))
        .collect();
    files.sort();
    assert!(files.len() >= 10, "{files:?}");
    let mut with_steps = 0;
    let re = regex::Regex::new(PROFILER_STEP).unwrap();
    for file in &files {
        let name = file.file_name().unwrap().to_string_lossy().to_string();
        if name.contains("cupti_profiler_counters") {
            // Counter ranges only, no GPU activity: no timeline to walk.
            continue;
        }
        let tl = read_trace(file);
        let check = path::check_replay(&tl);
        assert_eq!(check.moved_events, 0, "{name}: {check:?}");
        assert!(
            check.nodes as usize >= tl.ops.len() + tl.api.len(),
            "{name}"
        );
        if !tl.nvtx.iter().any(|r| re.is_match(&r.text)) {
            continue;
        }
        let budget = budget_of(&tl, PROFILER_STEP, None);
        let report = path_of(&tl, &budget, None);
        check_report(&name, &budget, &report);
        with_steps += usize::from(!report.steps.is_empty());
    }
    // The V100, NCCL, sampled, MI250, event-sync and compare traces.
    assert!(with_steps >= 7, "{with_steps}");
}

#[test]
fn on_the_nsys_exports_the_replay_of_nothing_is_exact_and_saxpy_steps_sum() {
    for name in [
        "nsys2022.2.1_pipit_saxpy-mpi-cuda.sqlite",
        "nsys2023.1.2_gtls_tls-search.sqlite",
    ] {
        let Some(file) = corpus_file(&format!("nsys/{name}")) else {
            return;
        };
        let tl = rooftrace::nsys::read_timeline(&file, true, &no_progress).unwrap();
        let check = path::check_replay(&tl);
        assert_eq!(check.moved_events, 0, "{name}: {check:?}");
        assert!(check.nodes > 0, "{name}");
    }
    // The saxpy export's `saxpy` NVTX ranges are its steps.
    let Some(file) = corpus_file("nsys/nsys2022.2.1_pipit_saxpy-mpi-cuda.sqlite") else {
        return;
    };
    let tl = rooftrace::nsys::read_timeline(&file, true, &no_progress).unwrap();
    let budget = budget_of(&tl, "^saxpy$", None);
    assert!(!budget.steps.is_empty());
    let report = path_of(&tl, &budget, None);
    check_report("saxpy", &budget, &report);
}

/// (Σ kernels_at_roof saved, Σ its shortfall, Σ budget's shortfall part)
/// over the steps, ns.
fn at_roof_against_budget(file: &str) -> Option<(i64, i64, i64)> {
    let path = corpus_file(&format!("kineto/{file}"))?;
    let tl = read_trace(&path);
    let bounds = half_time_bounds(&tl);
    let budget = budget_of(&tl, PROFILER_STEP, Some(&bounds));
    let report = path_of(&tl, &budget, Some(&bounds));
    check_report(file, &budget, &report);
    assert!(!report.steps.is_empty(), "{file}");
    let at_roof = |s: &path::StepPath| {
        s.what_if
            .iter()
            .find(|w| w.change == "kernels_at_roof")
            .cloned()
            .unwrap()
    };
    let saved = report.steps.iter().map(|s| at_roof(s).saved_ns).sum();
    let own = report.steps.iter().map(|s| at_roof(s).shortfall_ns).sum();
    let shortfall = budget
        .steps
        .iter()
        .map(|s| s.part(PartKind::Shortfall))
        .sum();
    // Without a bound neither moves: unknown is no saving.
    let bare = path_of(&tl, &budget_of(&tl, PROFILER_STEP, None), None);
    for s in &bare.steps {
        assert_eq!(at_roof(s).saved_ns, 0, "{file}");
    }
    Some((saved, own, shortfall))
}

#[test]
fn on_the_v100_and_nccl_traces_kernels_at_roof_saves_at_most_the_budget_shortfall() {
    // Neither trace records shapes and the corpus has no ncu CSV of them,
    // so every kernel but the collectives is given a roof at half its own
    // time, in budget and in path alike. Budget's shortfall counts each
    // kernel's charged time above its bound, hidden or not; the replay
    // moves the step only by what lies on its critical path, and a kernel
    // never goes under the 2 µs floor (path's own shortfall is below
    // budget's by that floor). docs/path.md states the ratios.
    for file in [
        "kineto_hta_v100_2rank_rank1.json.gz",
        "kineto_hta_nccl_allreduce_rank0.json.gz",
    ] {
        let Some((saved, own, shortfall)) = at_roof_against_budget(file) else {
            return;
        };
        eprintln!(
            "{file}: saved {saved} ns, path shortfall {own} ns, budget shortfall {shortfall} ns"
        );
        assert!(shortfall > 0, "{file}");
        assert!(
            saved <= own && own <= shortfall,
            "{file}: {saved} {own} {shortfall}"
        );
        assert!(saved > 0, "{file}");
    }
}

#[test]
fn ncu_bounds_are_matched_as_budget_matches_them_and_move_the_path_by_its_shortfall() {
    // The budget fixture pair: three `step` ranges, each one sgemm-family
    // kernel profiled by ncu (tests/it/budget.rs works its T* by hand).
    // Each kernel runs alone, fully charged, so budget's bound part is the
    // kernels' T* rounded and capped at their time: the same figures path
    // must hold for them, and kernels_at_roof's shortfall is budget's.
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("sgemm_steps.sqlite");
    let sql = std::fs::read_to_string(crate::common::fixture("budget/sgemm_steps.sql")).unwrap();
    rusqlite::Connection::open(&db)
        .unwrap()
        .execute_batch(&sql)
        .unwrap();
    let tl = rooftrace::nsys::read_timeline(&db, true, &no_progress).unwrap();
    let (roofs, gpu) = choose::<RoofsError>(
        &RoofsChoice::File("fixtures/budget/a100-80gb-datasheet.json".into()),
        &DeviceHints::default(),
        || unreachable!(),
    )
    .unwrap();
    let csv_path = crate::common::fixture("ncu/sgemm_a100_printfp_details15.csv");
    let csv = rooftrace::ncu::parse(std::fs::File::open(&csv_path).unwrap(), "sgemm.csv").unwrap();
    let ncu = rooftrace::roofline::analyze(
        &csv,
        &roofs,
        gpu.clone(),
        rooftrace::roofline::GroupBy::Launch,
    );
    let g = gaps::analyze(
        &tl,
        &GapConfig {
            nvtx: Some(regex::Regex::new("^step$").unwrap()),
            ..GapConfig::default()
        },
    );
    let budget = budget::analyze(&tl, &g, Some(&ncu), &roofs, gpu, &BudgetConfig::default());
    assert_eq!(budget.steps.len(), 3);
    let kernels = KernelRoofs::from_steps(&tl, Some(&ncu), None, &budget);
    let report = path::analyze(&tl, &budget, &kernels, &PathConfig::default());
    check_report("sgemm_steps", &budget, &report);
    let mut saved = Vec::new();
    for (b, s) in budget.steps.iter().zip(&report.steps) {
        let in_step: Vec<usize> = (0..tl.ops.len())
            .filter(|&i| {
                let o = &tl.ops[i];
                o.kind == OpKind::Kernel && o.end_ns > b.gpu_start_ns && o.start_ns < b.gpu_end_ns
            })
            .collect();
        let bound: i64 = in_step
            .iter()
            // cleanup_kernel (the last step's) has no counters: no bound.
            .filter_map(|&i| {
                let roof = kernels.get(i)?;
                Some(roof.bound_ns.min(tl.ops[i].end_ns - tl.ops[i].start_ns))
            })
            .sum();
        assert_eq!(bound, b.part(PartKind::Bound), "{}", s.name);
        let at_roof = s
            .what_if
            .iter()
            .find(|w| w.change == "kernels_at_roof")
            .unwrap();
        assert_eq!(
            at_roof.shortfall_ns,
            b.part(PartKind::Shortfall),
            "{}",
            s.name
        );
        // Only the kernels on the path move the step: the randomInit pair
        // ran while the host worked 13.4 s before launching gemm_v1 (no
        // sync: the host never waited for them), so gemm_v1's launch binds
        // and the path is host work then gemm_v1 (and, in the later steps,
        // the gemm_v1 queued behind it). Each kernel on the path, one
        // chain, shrinks the step by its own cut.
        let on_path: i64 = s
            .segments
            .iter()
            .filter(|g| {
                matches!(
                    g.part,
                    path::PartName::KernelMemory | path::PartName::KernelCompute
                )
            })
            .map(|g| {
                let i = tl
                    .ops
                    .iter()
                    .position(|o| o.start_ns == g.start_ns && o.end_ns == g.end_ns)
                    .expect("a whole kernel on the path");
                let d = g.end_ns - g.start_ns;
                d - kernels
                    .get(i)
                    .unwrap()
                    .bound_ns
                    .max(path::KERNEL_FLOOR_NS)
                    .min(d)
            })
            .sum();
        assert!(on_path <= at_roof.shortfall_ns, "{}", s.name);
        assert_eq!(at_roof.saved_ns, on_path, "{}", s.name);
        saved.push(at_roof.saved_ns);
    }
    // The last step ends with cleanup_kernel on stream 13, launched 33.5 s
    // before it starts; the export has no stream-wait call, so no
    // cross-stream edge: its launch binds, no bounded kernel is on that
    // path, and kernels at their roofs save that step nothing.
    assert!(saved[0] > 0 && saved[1] > 0 && saved[2] == 0, "{saved:?}");
}

#[test]
fn on_the_v100_trace_the_best_single_change_is_named_with_its_evidence() {
    // The median step is host-bound (docs/path.md, "On the corpus"): host
    // work between runtime calls is most of its path, and no kernel has a
    // bound, which the report says.
    let Some(file) = corpus_file("kineto/kineto_hta_v100_2rank_rank1.json.gz") else {
        return;
    };
    let tl = read_trace(&file);
    let budget = budget_of(&tl, PROFILER_STEP, None);
    let report = path_of(&tl, &budget, None);
    let best = report.best.as_ref().expect("a change saves time");
    assert_eq!(best.change, "host_work_removed");
    let median = &report.steps[report.median_step.unwrap()];
    let host_work = median
        .parts
        .iter()
        .find(|p| p.name == path::PartName::HostWork)
        .unwrap();
    assert!(host_work.ns * 2 > median.step_ns, "{:?}", median.parts);
    assert!(
        best.why.starts_with("host work between runtime calls is "),
        "{}",
        best.why
    );
    // The single best never beats `all`, and is the largest single saving.
    let all = median.what_if.iter().find(|w| w.change == "all").unwrap();
    assert!(best.saved_ns <= all.saved_ns);
    assert!(report
        .diagnostics
        .iter()
        .any(|d| d.starts_with("no kernel has a known bound")));
}
