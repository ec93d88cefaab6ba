//! `rooftrace path` on steps whose critical path is known by construction
//! (issue 46 item 4): the scenes of `rooftrace::synth::path`, each part's
//! ns and each what-if's `saved_ns` / `new_step_ns` derived by hand from
//! the scene's times and the rules of docs/path.md (the contract), never
//! from the program's output. Also: `gaps` and `budget` read every scene,
//! and `path`'s `step_ns` is `budget`'s.
//!
//! Readings of the contract these numbers rest on (where its words allow
//! more than one): a node "before the window" is one that starts before
//! `gpu_start_ns` (it keeps its observed times in the replay); a node's
//! slack belongs to its binding edge (launch slack for a kernel whose
//! launch binds, stream slack when stream order binds) and is added after
//! the max over its recomputed constraints; a rank waiting at a collective
//! has its kernel's time split into `waiting_for_rank` (arrival to the last
//! arrival) and `collective` (the rest), and the walk goes on from its own
//! arrival.
//!
//! A second method: `scripts/path_contract_check.py`, the contract read
//! mechanically (not the program), gives every number below; put in place
//! of the binary's `path`, these tests pass on it, and fail on it with the
//! kernel floor or the straggler change broken.

use crate::common::{rooftrace, rooftrace_json};
use rooftrace::synth::path::{scene, step_base_us, HOST_PID, STEPS};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Whether a change must be listed, or may be left out when it moves
/// nothing.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Listed {
    Always,
    IfAny,
}

/// One expected what-if entry: change, `saved_ns`, `new_step_ns`.
type WhatIfRow = (&'static str, i64, i64, Listed);

/// What one scene's steps (of process `pid`) must show.
struct Expect {
    scene: &'static str,
    pid: i64,
    /// Window start, µs after the step's base ([`step_base_us`]).
    start_offset_us: i64,
    step_ns: i64,
    /// Every non-zero part, in the contract's order.
    parts: &'static [(&'static str, i64)],
    what_if: &'static [WhatIfRow],
    /// Σ `saved_ns` of the single changes (not `kernel:<name>`, not `all`).
    single_sum_ns: Option<i64>,
    /// The report's `best` change and its `saved_ns`, where one single
    /// change saves strictly most.
    best: Option<(&'static str, i64)>,
}

/// Writes the scene's traces to a temporary directory; returns it (kept
/// alive by the caller) and the files, one per rank.
fn write_scene(name: &str) -> (tempfile::TempDir, Vec<PathBuf>) {
    let dir = tempfile::tempdir().unwrap();
    let docs = scene(name).unwrap();
    let files = docs
        .iter()
        .enumerate()
        .map(|(rank, doc)| {
            let f = dir.path().join(format!("{name}_rank{rank}.pt.trace.json"));
            std::fs::write(&f, serde_json::to_vec(doc).unwrap()).unwrap();
            f
        })
        .collect();
    (dir, files)
}

fn strs(files: &[PathBuf]) -> Vec<&str> {
    files.iter().map(|f| f.to_str().unwrap()).collect()
}

/// `rooftrace path FILES --gpu a100-80gb --format json`.
fn path_json(scene: &str, files: &[PathBuf]) -> Value {
    let mut args = vec!["path"];
    args.extend(strs(files));
    args.extend(["--gpu", "a100-80gb"]);
    let (code, json, err) = rooftrace_json(&args);
    assert_eq!(code, 0, "scene {scene}: `rooftrace path` failed: {err}");
    assert_eq!(json["schema"], "rooftrace.path/1", "scene {scene}");
    json
}

/// The steps of process `pid`, by start.
fn steps_of(report: &Value, pid: i64) -> Vec<Value> {
    let mut v: Vec<Value> = report["steps"]
        .as_array()
        .map(|a| a.iter().filter(|s| s["pid"] == pid).cloned().collect())
        .unwrap_or_default();
    v.sort_by_key(|s| s["start_ns"].as_i64());
    v
}

fn check_parts(e: &Expect, step: &Value, at: &str) {
    let got: Vec<(String, i64)> = step["parts"]
        .as_array()
        .unwrap_or_else(|| panic!("{at}: no parts"))
        .iter()
        .map(|p| {
            (
                p["name"].as_str().unwrap_or("?").to_string(),
                p["ns"].as_i64().unwrap_or(-1),
            )
        })
        .collect();
    for (name, ns) in e.parts {
        let found = got.iter().find(|(n, _)| n == name).map(|p| p.1);
        assert_eq!(found, Some(*ns), "{at}: part {name} (all parts: {got:?})");
    }
    let want: Vec<(String, i64)> = e.parts.iter().map(|(n, v)| (n.to_string(), *v)).collect();
    assert_eq!(
        got, want,
        "{at}: the parts, in the contract's order, zero parts left out"
    );
    let sum: i64 = got.iter().map(|p| p.1).sum();
    assert_eq!(
        sum,
        step["step_ns"].as_i64().unwrap(),
        "{at}: parts sum to step_ns"
    );
}

fn check_what_if(e: &Expect, step: &Value, at: &str) {
    let rows = step["what_if"].as_array().cloned().unwrap_or_default();
    let find = |change: &str| rows.iter().find(|w| w["change"] == change);
    for &(change, saved, new_step, listed) in e.what_if {
        let Some(w) = find(change) else {
            assert_eq!(
                listed,
                Listed::IfAny,
                "{at}: what-if {change} is not listed"
            );
            continue;
        };
        assert_eq!(
            w["saved_ns"].as_i64(),
            Some(saved),
            "{at}: what-if {change} saved_ns"
        );
        assert_eq!(
            w["new_step_ns"].as_i64(),
            Some(new_step),
            "{at}: what-if {change} new_step_ns"
        );
    }
    for w in &rows {
        let (saved, new_step) = (
            w["saved_ns"].as_i64().unwrap(),
            w["new_step_ns"].as_i64().unwrap(),
        );
        let shortfall = w["shortfall_ns"].as_i64().unwrap();
        let change = &w["change"];
        assert!(saved >= 0, "{at}: what-if {change} saves a negative time");
        assert!(
            saved <= shortfall,
            "{at}: what-if {change} saves {saved} > its shortfall {shortfall}"
        );
        // saved_ns is step_ns - new_step_ns clamped at 0: a change may
        // lengthen the step (it moves the first op earlier than the end).
        if saved > 0 {
            assert_eq!(
                new_step,
                e.step_ns - saved,
                "{at}: what-if {change}: new_step_ns = step_ns - saved_ns"
            );
        } else {
            assert!(
                new_step >= e.step_ns,
                "{at}: what-if {change}: saved 0 with new_step_ns {new_step} < step_ns"
            );
        }
    }
    let order: Vec<(i64, String)> = rows
        .iter()
        .map(|w| (-w["saved_ns"].as_i64().unwrap(), w["change"].to_string()))
        .collect();
    let mut sorted = order.clone();
    sorted.sort();
    assert_eq!(
        order, sorted,
        "{at}: what_if sorted by saved_ns desc, then change"
    );
    if let Some(sum) = e.single_sum_ns {
        let singles: i64 = rows
            .iter()
            .filter(|w| {
                w["change"] != "all" && !w["change"].as_str().unwrap().starts_with("kernel:")
            })
            .map(|w| w["saved_ns"].as_i64().unwrap())
            .sum();
        assert_eq!(singles, sum, "{at}: Σ saved_ns of the single changes");
    }
}

/// Checks every step of `e.pid` in `report` against `e`.
fn check(e: &Expect, report: &Value) {
    let steps = steps_of(report, e.pid);
    assert_eq!(
        steps.len() as i64,
        STEPS,
        "scene {}: steps of pid {}",
        e.scene,
        e.pid
    );
    for (k, step) in steps.iter().enumerate() {
        let at = format!("scene {}, step {} (pid {})", e.scene, step["name"], e.pid);
        assert_eq!(step["name"], format!("ProfilerStep#{k}"), "{at}");
        let start_ns = (step_base_us(k as i64) + e.start_offset_us) * 1000;
        assert_eq!(step["start_ns"].as_i64(), Some(start_ns), "{at}: start_ns");
        assert_eq!(step["step_ns"].as_i64(), Some(e.step_ns), "{at}: step_ns");
        assert_eq!(
            step["path_ns"].as_i64(),
            Some(e.step_ns),
            "{at}: path_ns == step_ns"
        );
        check_parts(e, step, &at);
        check_what_if(e, step, &at);
    }
    if let Some((change, saved)) = e.best {
        let best = &report["best"];
        assert_eq!(best["change"], change, "scene {}: best change", e.scene);
        assert_eq!(
            best["saved_ns"].as_i64(),
            Some(saved),
            "scene {}: best saved_ns",
            e.scene
        );
    }
}

/// `budget` reads the scene and its steps are `path`'s, to the ns; `gaps`
/// reads it.
fn check_budget_and_gaps(e: &Expect, file: &Path) {
    let f = file.to_str().unwrap();
    let (code, budget, err) = rooftrace_json(&["budget", f, "--gpu", "a100-80gb"]);
    assert_eq!(code, 0, "scene {}: budget: {err}", e.scene);
    let steps = budget["steps"].as_array().unwrap();
    assert_eq!(
        steps.len() as i64,
        STEPS,
        "scene {}: budget's steps",
        e.scene
    );
    for (k, s) in steps.iter().enumerate() {
        let start_ns = (step_base_us(k as i64) + e.start_offset_us) * 1000;
        assert_eq!(
            s["gpu_start_ns"].as_i64(),
            Some(start_ns),
            "scene {}: budget step {k} start",
            e.scene
        );
        assert_eq!(
            s["step_ns"].as_i64(),
            Some(e.step_ns),
            "scene {}: budget step {k} step_ns",
            e.scene
        );
    }
    let (code, gaps, err) = rooftrace_json(&["gaps", f]);
    assert_eq!(code, 0, "scene {}: gaps: {err}", e.scene);
    assert!(gaps.is_object(), "scene {}: gaps wrote no JSON", e.scene);
}

/// Runs `budget`/`gaps` and then `path` on a single-rank scene.
fn run_one(e: &Expect) {
    let (_dir, files) = write_scene(e.scene);
    check_budget_and_gaps(e, &files[0]);
    let report = path_json(e.scene, &files);
    check(e, &report);
}

use Listed::{Always, IfAny};

#[test]
fn a_host_bound_step_is_host_work_launch_overhead_and_its_last_kernel() {
    // host_bound, offsets µs: calls [10,15] [40,45] [70,75]; kernels
    // [15,25] [45,55] [75,85]. Window [15, 85]: step 70 µs.
    // Walk: k_host_c [75,85] (10 µs, no bound: kernel_no_model); its
    // launch (call start 70) beats stream order (k_host_b's end 55):
    // launch_overhead [70,75] = 5 µs; call 3 at its start 70, host order
    // from call 2's end 45: host_work [45,70] = 25 µs; call 2's own time
    // [40,45]: host_call 5 µs; host order from call 1's end 15: host_work
    // [15,40] = 25 µs, which reaches the window's start. 10+5+50+5 = 70.
    //
    // Replay (call 1 starts before the window: kept at [10,15]; each
    // kernel's slack is its 5 µs launch latency):
    // host_work_removed: k1 = 10+5 → [15,25]; call 2 = 15 → [15,20];
    //   k2 = max(15, 25)+5 → [30,40]; call 3 = 20 → [20,25];
    //   k3 = max(20, 40)+5 → [45,55]. New step 55-15 = 40: saved 30 µs.
    // launch_overhead_removed (slack 0, calls 5 → 2 µs): k1 = 10 → [10,20];
    //   call 2 = 15+25 → [40,42]; k2 = max(40,20) → [40,50]; call 3 =
    //   42+25 → [67,69]; k3 = max(67,50) → [67,77]. New 77-10 = 67: saved 3.
    // gpu_gaps_removed: no stream slack (every launch binds): 0.
    // all: k1 [10,20]; call 2 [15,17]; k2 = max(15,20) → [20,30]; call 3
    //   [17,19]; k3 = max(17,30) → [30,40]. New 40-10 = 30: saved 40.
    // Σ singles 30+3 = 33 < all's 40.
    run_one(&Expect {
        scene: "host_bound",
        pid: HOST_PID,
        start_offset_us: 15,
        step_ns: 70_000,
        parts: &[
            ("kernel_no_model", 10_000),
            ("launch_overhead", 5_000),
            ("host_work", 50_000),
            ("host_call", 5_000),
        ],
        what_if: &[
            ("host_work_removed", 30_000, 40_000, Always),
            ("launch_overhead_removed", 3_000, 67_000, Always),
            ("gpu_gaps_removed", 0, 70_000, IfAny),
            ("kernels_at_roof", 0, 70_000, IfAny),
            ("all", 40_000, 30_000, Always),
        ],
        single_sum_ns: Some(33_000),
        best: Some(("host_work_removed", 30_000)),
    });
}

#[test]
fn a_kernel_hidden_on_a_second_stream_saves_nothing_at_its_roof() {
    // hidden_kernel, offsets µs: k_long stream 7 [20,120] (call [10,15]);
    // k_hidden stream 8 [30,70] (call [20,25], under aten::mm 16×4096 ·
    // 4096×1097 bf16: T* = 5,440 ns, see GEMM_MEMORY); k_tail stream 7
    // [120,150] (call [30,35], queued). Window [20,150]: 130 µs.
    // Walk: k_tail 30 µs; stream order (k_long's end 120) beats its
    // launch (30): gpu_gap 0; k_long 100 µs; its launch (10) is before the
    // window: clipped. kernel_no_model 130 µs; k_hidden is off the path.
    //
    // kernels_at_roof: k_hidden 40 → 5.44 µs ends at 35.44, nothing waits
    //   for it: saved 0 (its shortfall 40,000 - 5,440 = 34,560 ns, 1 kernel).
    // launch_overhead_removed: k_long (call kept) = 10 → [10,110]; call 2
    //   = 15+5 → [20,22]; call 3 = 22+5 → [27,29]; k_hidden [20,60]; k_tail
    //   = max(27,110) → [110,140]. New 140-10 = 130: saved 0.
    // host_work_removed: calls [15,20] [20,25]; k_hidden = 15+10 →
    //   [25,65]; k_tail = max(20,120) → [120,150]: saved 0.
    // all: k_long [10,110], k_tail [110,140]: new 130, saved 0.
    let e = Expect {
        scene: "hidden_kernel",
        pid: HOST_PID,
        start_offset_us: 20,
        step_ns: 130_000,
        parts: &[("kernel_no_model", 130_000)],
        what_if: &[
            ("kernels_at_roof", 0, 130_000, Always),
            ("kernel:k_hidden", 0, 130_000, Always),
            ("launch_overhead_removed", 0, 130_000, Always),
            ("host_work_removed", 0, 130_000, Always),
            ("gpu_gaps_removed", 0, 130_000, IfAny),
            ("all", 0, 130_000, Always),
        ],
        single_sum_ns: Some(0),
        best: None,
    };
    let (_dir, files) = write_scene(e.scene);
    check_budget_and_gaps(&e, &files[0]);
    let report = path_json(e.scene, &files);
    check(&e, &report);
    for step in steps_of(&report, HOST_PID) {
        let at_roof = step["what_if"]
            .as_array()
            .and_then(|a| a.iter().find(|w| w["change"] == "kernels_at_roof"))
            .cloned()
            .unwrap_or(Value::Null);
        let at = format!("scene hidden_kernel, step {}", step["name"]);
        assert_eq!(
            at_roof["shortfall_ns"].as_i64(),
            Some(34_560),
            "{at}: kernels_at_roof shortfall_ns"
        );
        assert_eq!(
            at_roof["moved"].as_u64(),
            Some(1),
            "{at}: kernels_at_roof moved"
        );
    }
}

#[test]
fn a_device_synchronize_puts_the_path_through_the_sync_onto_the_host() {
    // device_sync, offsets µs: call [10,15] → k_before_sync [20,120];
    // cudaDeviceSynchronize [22,125]; call [135,140] → k_after_sync
    // [145,165]. Window [20,165]: 145 µs.
    // Walk: k_after_sync 20 µs; launch (135) beats stream (120):
    // launch_overhead [135,145] = 10 µs; call at 135, host order from the
    // sync's end 125: host_work 10 µs; the sync's end: its sync edge (it
    // waited for k_before_sync: launched before the sync started, ended
    // 120 in (22, 125]) at 120 beats host order (15): sync [120,125] =
    // 5 µs; k_before_sync [20,120] 100 µs; its launch is clipped.
    // kernel_no_model 120, launch_overhead 10, sync 5, host_work 10 = 145.
    //
    // host_work_removed: sync starts 15, ends max(15, 120+5) = 125; call
    //   [125,130]; k_after_sync = max(125,120)+10 → [135,155]. New 135:
    //   saved 10 µs.
    // launch_overhead_removed: k_before_sync = 10 → [10,110]; sync 22 →
    //   ends max(22, 110+5) = 115; call = 115+10 → [125,127];
    //   k_after_sync = max(125,110) → [125,145]. New 145-10 = 135: saved 10.
    // all: k_before_sync [10,110]; sync [15,115]; call [115,117];
    //   k_after_sync [115,135]. New 125: saved 20 = Σ singles.
    run_one(&Expect {
        scene: "device_sync",
        pid: HOST_PID,
        start_offset_us: 20,
        step_ns: 145_000,
        parts: &[
            ("kernel_no_model", 120_000),
            ("launch_overhead", 10_000),
            ("sync", 5_000),
            ("host_work", 10_000),
        ],
        what_if: &[
            ("host_work_removed", 10_000, 135_000, Always),
            ("launch_overhead_removed", 10_000, 135_000, Always),
            ("gpu_gaps_removed", 0, 145_000, IfAny),
            ("kernels_at_roof", 0, 145_000, IfAny),
            ("all", 20_000, 125_000, Always),
        ],
        single_sum_ns: Some(20_000),
        best: None,
    });
}

#[test]
fn gemms_at_their_a100_roofs_save_their_shortfall_on_a_serial_stream() {
    // gemm_roofs, offsets µs, stream 7: gemm_compute [20,620], gemm_memory
    // [620,629], gemm_tiny [629,634], elementwise [634,654], each queued
    // behind the previous (launch calls at 10, 20, 30, 40). Window
    // [20,654]: 634 µs. Walk: stream order binds at every kernel (gap 0),
    // gemm_compute's launch is clipped.
    // Bounds on the a100-80gb row (measured roofs: bf16 tensor 293.55
    // TFLOP/s, DRAM 1682.5 GB/s; FLOPs 2·M·N·K, bytes A + B read, C
    // written, docs/ops.md):
    //   gemm_compute 3914×4800×4096: 2·M·N·K / 293,550 FLOP/ns = 524,288 ns
    //     (DRAM 64,760 ns): compute side;
    //   gemm_memory 16×1097×4096: 2·(16·4096 + 4096·1097 + 16·1097) =
    //     9,152,800 B / 1.6825 B/ns = 5,440 ns: memory side;
    //   gemm_tiny 16×16×16: 1,536 B = 0.9 ns: memory side, floored at
    //     KERNEL_FLOOR_NS = 2,000 ns;
    //   elementwise: no op with shapes: no bound.
    // Parts: kernel_memory 9+5 = 14 µs, kernel_compute 600, no model 20.
    //
    // kernels_at_roof: the stream runs back to back, so the step shrinks
    //   by each kernel's shortfall: (600,000 - 524,288) + (9,000 - 5,440)
    //   + (5,000 - 2,000) = 75,712 + 3,560 + 3,000 = 82,272 ns; new
    //   634,000 - 82,272 = 551,728. Each kernel:<name> alone saves its own.
    // launch_overhead_removed: gemm_compute = 10 → [10,610], the rest
    //   follows on the stream: [610,644]; new 644-10 = 634: saved 0.
    // host_work_removed: the calls move, the stream does not: saved 0.
    // all: gemm_compute [10, 534.288], then 5.44 + 2 + 20 → 561.728;
    //   new 551,728 ns: saved 82,272.
    run_one(&Expect {
        scene: "gemm_roofs",
        pid: HOST_PID,
        start_offset_us: 20,
        step_ns: 634_000,
        parts: &[
            ("kernel_memory", 14_000),
            ("kernel_compute", 600_000),
            ("kernel_no_model", 20_000),
        ],
        what_if: &[
            ("kernels_at_roof", 82_272, 551_728, Always),
            ("kernel:gemm_compute", 75_712, 558_288, Always),
            ("kernel:gemm_memory", 3_560, 630_440, Always),
            ("kernel:gemm_tiny", 3_000, 631_000, Always),
            ("launch_overhead_removed", 0, 634_000, Always),
            ("host_work_removed", 0, 634_000, Always),
            ("gpu_gaps_removed", 0, 634_000, IfAny),
            ("all", 82_272, 551_728, Always),
        ],
        single_sum_ns: Some(82_272),
        best: Some(("kernels_at_roof", 82_272)),
    });
}

#[test]
fn a_stream_wait_event_puts_the_producer_and_the_dependency_on_the_path() {
    // cross_stream, offsets µs: gemm_producer stream 7 [20,620] (call
    // [10,15], aten::mm GEMM_COMPUTE: T* 524,288 ns); cudaEventRecord
    // [20,25]; cudaStreamWaitEvent [30,35] (stream 8 waits on 7);
    // k_consumer stream 8 [625,655] (call [40,45]). Window [20,655]: 635 µs.
    // Walk: k_consumer 30 µs (no bound); its constraints: launch 40,
    // stream 8's previous op (the previous step's k_consumer) long before;
    // it starts more than 1 µs after them and gemm_producer (stream 7)
    // ended at 620, in (40, 625]: cross-stream edge 620 binds: dependency
    // [620,625] = 5 µs; gemm_producer 600 µs, compute side; launch clipped.
    //
    // kernels_at_roof: gemm_producer → [20, 544.288]; k_consumer =
    //   max(40, 544.288) + its 5 µs (cross-stream) slack → [549.288,
    //   579.288]. New 559,288 ns: saved 75,712 = its shortfall.
    // launch_overhead_removed: gemm_producer [10,610]; k_consumer =
    //   610+5 → [615,645]; new 645-10 = 635: saved 0.
    // host_work_removed: only the calls move: saved 0.
    // all: gemm_producer [10, 534.288]; k_consumer ends 569.288; new
    //   559,288: saved 75,712.
    run_one(&Expect {
        scene: "cross_stream",
        pid: HOST_PID,
        start_offset_us: 20,
        step_ns: 635_000,
        parts: &[
            ("kernel_compute", 600_000),
            ("kernel_no_model", 30_000),
            ("dependency", 5_000),
        ],
        what_if: &[
            ("kernels_at_roof", 75_712, 559_288, Always),
            ("kernel:gemm_producer", 75_712, 559_288, Always),
            ("launch_overhead_removed", 0, 635_000, Always),
            ("host_work_removed", 0, 635_000, Always),
            ("gpu_gaps_removed", 0, 635_000, IfAny),
            ("all", 75_712, 559_288, Always),
        ],
        single_sum_ns: Some(75_712),
        best: None,
    });
}

#[test]
fn a_rank_waiting_for_a_straggler_has_its_wait_on_the_path() {
    // straggler: ranks 0 (pid 100) and 1 (pid 101), one clock. Offsets
    // µs: k_compute stream 7 [20,100] on rank 0, [20,150] on rank 1; the
    // all-reduce stream 20 [100,250] on rank 0, [150,250] on rank 1
    // (stream 20 waits on stream 7: cross-stream edge, dependency 0).
    // Window [20,250] on both: 230 µs.
    // Rank 0: the all-reduce from its arrival (100) to the last arrival
    // (rank 1, 150) is waiting_for_rank 50 µs, the rest collective
    // 100 µs; then k_compute 80 µs. straggler_on_time: its all-reduce
    // transfers from its own arrival, [100,200]: new 180 µs, saved 50.
    // Rank 1 arrives last: collective 100 µs, k_compute 130 µs, nothing to
    // wait for: straggler_on_time saves 0.
    // Needs the walk across ranks (docs/path.md: several ranks).
    let (_dir, files) = write_scene("straggler");
    for (rank, file) in files.iter().enumerate() {
        let e = Expect {
            scene: "straggler",
            pid: HOST_PID + rank as i64,
            start_offset_us: 20,
            step_ns: 230_000,
            parts: &[],
            what_if: &[],
            single_sum_ns: None,
            best: None,
        };
        check_budget_and_gaps(&e, file);
    }
    let (code, _, err) = rooftrace(&[
        "gaps",
        files[0].to_str().unwrap(),
        files[1].to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "scene straggler: gaps on both ranks: {err}");
    let report = path_json("straggler", &files);
    let rank0 = Expect {
        scene: "straggler",
        pid: HOST_PID,
        start_offset_us: 20,
        step_ns: 230_000,
        parts: &[
            ("kernel_no_model", 80_000),
            ("collective", 100_000),
            ("waiting_for_rank", 50_000),
        ],
        what_if: &[("straggler_on_time", 50_000, 180_000, Always)],
        single_sum_ns: None,
        best: None,
    };
    check(&rank0, &report);
    let rank1 = Expect {
        pid: HOST_PID + 1,
        parts: &[("kernel_no_model", 130_000), ("collective", 100_000)],
        what_if: &[("straggler_on_time", 0, 230_000, IfAny)],
        ..rank0
    };
    check(&rank1, &report);
}

#[test]
fn two_changes_that_buy_the_same_time_save_less_together_than_summed() {
    // overlapping_gains, offsets µs: gemm_compute stream 7 [20,620] (call
    // [10,15], T* 524,288 ns); k_after_gap stream 7 [650,670] (call
    // [20,25]: stream order binds, 30 µs of GPU gap); k_side stream 8
    // [50,640] (call [30,35], launch slack 20 µs; no stream wait, so no
    // cross-stream edge). Window [20,670]: 650 µs.
    // Walk: k_after_gap 20 µs (no bound); stream order (620) beats its
    // launch (20): gpu_gap [620,650] 30 µs; gemm_compute 600 µs; clipped.
    //
    // gpu_gaps_removed: k_after_gap [620,640]; the step ends at
    //   max(640, k_side's 640): new 620, saved 30 µs.
    // kernels_at_roof: gemm_compute ends 544.288, k_after_gap =
    //   544.288+30 → ends 594.288 < 640: new 620, saved 30 µs.
    // launch_overhead_removed: gemm_compute [10,610] (call kept); calls
    //   [20,22] [27,29]; k_side = 27 → [27,617]; k_after_gap = 610+30 →
    //   [640,660]; new 660-10 = 650: saved 0.
    // host_work_removed: calls [15,20] [20,25]; k_side = 20+20 → [40,630];
    //   k_after_gap [650,670]: saved 0.
    // all: gemm_compute [10, 534.288]; calls [15,17] [17,19]; k_side =
    //   17 → [17,607]; k_after_gap = 534.288 → 554.288. New 607-10 = 597
    //   µs: saved 53 µs, less than the singles' 30+30 = 60: the report
    //   must say so (docs/path.md, "What-if").
    let e = Expect {
        scene: "overlapping_gains",
        pid: HOST_PID,
        start_offset_us: 20,
        step_ns: 650_000,
        parts: &[
            ("kernel_compute", 600_000),
            ("kernel_no_model", 20_000),
            ("gpu_gap", 30_000),
        ],
        what_if: &[
            ("all", 53_000, 597_000, Always),
            ("gpu_gaps_removed", 30_000, 620_000, Always),
            ("kernels_at_roof", 30_000, 620_000, Always),
            ("kernel:gemm_compute", 30_000, 620_000, Always),
            ("launch_overhead_removed", 0, 650_000, Always),
            ("host_work_removed", 0, 650_000, Always),
        ],
        single_sum_ns: Some(60_000),
        best: None,
    };
    let (_dir, files) = write_scene(e.scene);
    check_budget_and_gaps(&e, &files[0]);
    let report = path_json(e.scene, &files);
    check(&e, &report);
    // The contract gives the words no shape: a diagnostic naming the `all`
    // change as a word (the default-step note names no change).
    let names_all = |s: &str| {
        s.split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .any(|w| w == "all")
    };
    let says_so = report["diagnostics"]
        .as_array()
        .is_some_and(|d| d.iter().filter_map(Value::as_str).any(names_all));
    assert!(
        says_so,
        "scene overlapping_gains: Σ single saved (60 µs) > all's (53 µs), and no diagnostic says so: {}",
        report["diagnostics"]
    );
}

#[test]
fn a_blocking_copy_waits_for_its_own_copy_and_puts_it_on_the_path() {
    // blocking_copy, offsets µs (stream 7): call [10,15] → k_before_copy
    // [20,120]; cudaMemcpy [25,135] → its DtoH copy [120,130] (queued
    // behind the kernel); call [145,150] → k_after_copy [155,175]. Window
    // [20,175]: 155 µs.
    // Walk: k_after_copy 20 µs; launch (145) beats stream (the copy's end
    // 130): launch_overhead 10 µs; host order from cudaMemcpy's end 135:
    // host_work 10 µs; cudaMemcpy's end: a blocking copy waits for its
    // own copy (ended 130, in (25, 135]): sync [130,135] 5 µs; the copy
    // [120,130]: copy 10 µs; stream order (120) beats its launch (25):
    // gpu_gap 0; k_before_copy 100 µs; launch clipped.
    // kernel_no_model 120, copy 10, launch_overhead 10, sync 5,
    // host_work 10 = 155.
    //
    // host_work_removed: cudaMemcpy starts 15; the copy = max(15, 120) →
    //   [120,130]; cudaMemcpy ends max(15, 130+5) = 135; call [135,140];
    //   k_after_copy = max(135,130)+10 → [145,165]. New 145: saved 10 µs.
    // launch_overhead_removed (a sync's end follows the sync rule, not
    //   the 2 µs launch-call cap): k_before_copy [10,110]; cudaMemcpy
    //   starts 15+10 = 25; copy [110,120]; it ends max(25, 125) = 125; call
    //   = 125+10 → [135,137]; k_after_copy → [135,155]. New 155-10 = 145:
    //   saved 10.
    // all: k_before_copy [10,110]; cudaMemcpy 15 → 125; call [125,127];
    //   k_after_copy [125,145]. New 135: saved 20 = Σ singles.
    run_one(&Expect {
        scene: "blocking_copy",
        pid: HOST_PID,
        start_offset_us: 20,
        step_ns: 155_000,
        parts: &[
            ("kernel_no_model", 120_000),
            ("copy", 10_000),
            ("launch_overhead", 10_000),
            ("sync", 5_000),
            ("host_work", 10_000),
        ],
        what_if: &[
            ("host_work_removed", 10_000, 145_000, Always),
            ("launch_overhead_removed", 10_000, 145_000, Always),
            ("gpu_gaps_removed", 0, 155_000, IfAny),
            ("kernels_at_roof", 0, 155_000, IfAny),
            ("all", 20_000, 135_000, Always),
        ],
        single_sum_ns: Some(20_000),
        best: None,
    });
}

#[test]
fn a_graph_launch_is_the_launch_of_every_kernel_of_its_replay() {
    // graph_replays, offsets µs (stream 7): cudaGraphLaunch [10,20] →
    // graph_a_0..2 [25,35] [35,45] [45,55]; cudaGraphLaunch [80,90] →
    // graph_b_0..2 [95,105] [105,115] [115,125]. Window [25,125]: 100 µs.
    // Walk: graph_b_2 and graph_b_1 follow their stream predecessor (gap
    // 0; their launch, 80, is earlier): 20 µs; graph_b_0 10 µs; its launch
    // (80) beats stream order (graph_a_2's end 55): launch_overhead
    // [80,95] 15 µs; the second cudaGraphLaunch at its start, host order
    // from the first's end 20: host_work [20,80] clipped at 25: 55 µs.
    // Kineto has no whole-graph rows: the kernels are kernel_no_model, 30.
    //
    // host_work_removed: the second launch [20,30]; graph_b_0 = max(20,
    //   55) + its 15 µs launch slack → [70,80], then [80,90], [90,100].
    //   New 100-25 = 75: saved 25 µs.
    // launch_overhead_removed: graph_a_0 = 10 → [10,20], graph_a_2 ends
    //   40; the second launch 20+60 = 80 (10 → 2 µs); graph_b_0 = max(80,
    //   40) → [80,90] … ends 110. New 110-10 = 100: saved 0.
    // all: graph_a [10,40]; second launch [20,22]; graph_b = max(20, 40)
    //   → [40,70]. New 60: saved 40 > Σ singles 25.
    run_one(&Expect {
        scene: "graph_replays",
        pid: HOST_PID,
        start_offset_us: 25,
        step_ns: 100_000,
        parts: &[
            ("kernel_no_model", 30_000),
            ("launch_overhead", 15_000),
            ("host_work", 55_000),
        ],
        what_if: &[
            ("host_work_removed", 25_000, 75_000, Always),
            ("launch_overhead_removed", 0, 100_000, Always),
            ("gpu_gaps_removed", 0, 100_000, IfAny),
            ("kernels_at_roof", 0, 100_000, IfAny),
            ("all", 40_000, 60_000, Always),
        ],
        single_sum_ns: Some(25_000),
        best: Some(("host_work_removed", 25_000)),
    });
}

#[test]
fn a_kernel_without_its_launch_call_ends_the_walk_inside_the_window() {
    // orphan_kernel, offsets µs: call [10,15] → k_first stream 7 [20,40];
    // k_orphan [30,100] on a stream of its own (10 + step), its launch call
    // absent; call [45,50] → k_last on that stream [100,120]. The step's
    // GPU ops (launched from the range) are k_first and k_last: window
    // [20,120], 100 µs.
    // Walk: k_last 20 µs; stream order (k_orphan's end 100) beats its
    // launch (45): gap 0; k_orphan 70 µs; no launch, no earlier op on its
    // stream: no predecessor, so before_first_event [20,30] = 10 µs.
    //
    // launch_overhead_removed: k_first = 10 → [10,30]; the call [45,47];
    //   k_orphan keeps its time (no edge); k_last = max(45, 100) →
    //   [100,120]. New step 120-10 = 110 µs, longer than the step:
    //   saved 0 (never negative), new_step_ns 110 µs. `all` the same.
    // host_work_removed: the call [15,20]; k_last still waits for
    //   k_orphan: new 100 µs, saved 0.
    run_one(&Expect {
        scene: "orphan_kernel",
        pid: HOST_PID,
        start_offset_us: 20,
        step_ns: 100_000,
        parts: &[("kernel_no_model", 90_000), ("before_first_event", 10_000)],
        what_if: &[
            ("launch_overhead_removed", 0, 110_000, Always),
            ("host_work_removed", 0, 100_000, Always),
            ("all", 0, 110_000, Always),
            ("gpu_gaps_removed", 0, 100_000, IfAny),
            ("kernels_at_roof", 0, 100_000, IfAny),
        ],
        single_sum_ns: Some(0),
        best: None,
    });
}
