//! The graph, the walk and the replay on hand-built timelines: each edge
//! kind, each tie rule, the sync edge, dedup of a blocking copy, a cycle of
//! zero-length events, and every change of the contract, with the
//! expected times worked out by hand in the comments (µs, written ×1000).

use super::analyze::{nodes_by_start, step_path, StepWindow};
use super::change::Editor;
use super::model::{PartName, Segment, WhatIf};
use super::ranks::Arrivals;
use super::replay::Replayer;
use super::roofs::{KernelRoof, KernelRoofs, RoofSide};
use super::walk::{parts, Walker};
use super::{check_replay, graph, topo};
use crate::timeline::*;
use std::collections::HashMap;

const US: i64 = 1_000;
const LAUNCH: NameRef = NameRef(1);
const DEVICE_SYNC: NameRef = NameRef(2);
const GEMM: NameRef = NameRef(3);
const SMALL: NameRef = NameRef(4);
const RELU: NameRef = NameRef(5);
const MEMCPY: NameRef = NameRef(6);
const WAIT_EVENT: NameRef = NameRef(7);
const MEMCPY_ASYNC: NameRef = NameRef(8);

/// A call `[start, end]` µs on thread 1 of pid 1.
fn call(name: NameRef, corr: u32, start: i64, end: i64) -> ApiCall {
    ApiCall {
        start_ns: start * US,
        end_ns: end * US,
        pid: 1,
        tid: 1,
        correlation_id: corr,
        name,
    }
}

/// A kernel `[start, end]` µs on device 0, launched by call index `api`.
fn kernel(name: NameRef, stream: u32, api: u32, start: i64, end: i64) -> GpuOp {
    GpuOp {
        start_ns: start * US,
        end_ns: end * US,
        pid: 1,
        stream,
        correlation_id: api + 1,
        name,
        api,
        device: 0,
        kind: OpKind::Kernel,
        flags: 0,
    }
}

/// A sync row `[start, end]` µs on thread 1.
fn sync(name: NameRef, corr: u32, start: i64, end: i64) -> SyncCall {
    SyncCall {
        pid: 1,
        tid: 1,
        start_ns: start * US,
        end_ns: end * US,
        correlation_id: corr,
        pageable: false,
        name,
    }
}

/// A timeline of these rows (ops in (pid, device, start) order, calls in
/// correlation order, as the readers leave them).
fn timeline(ops: Vec<GpuOp>, api: Vec<ApiCall>, syncs: Vec<SyncCall>, waits: bool) -> Timeline {
    let strings: HashMap<u32, String> = [
        (LAUNCH, "cudaLaunchKernel"),
        (DEVICE_SYNC, "cudaDeviceSynchronize"),
        (GEMM, "gemm"),
        (SMALL, "small"),
        (RELU, "relu"),
        (MEMCPY, "cudaMemcpy"),
        (WAIT_EVENT, "cudaStreamWaitEvent"),
        (MEMCPY_ASYNC, "cudaMemcpyAsync"),
    ]
    .into_iter()
    .map(|(n, s)| (n.0, s.to_string()))
    .collect();
    Timeline {
        info: ExportInfo {
            source: Source::PyTorchProfiler,
            graph_trace_option: None,
            identity: Identity::default(),
        },
        ops,
        api,
        syncs,
        waits: if waits { vec![(1, 0)] } else { Vec::new() },
        host_spans: Vec::new(),
        nvtx: Vec::new(),
        copies: Vec::new(),
        graph_trace: GraphTrace::None,
        graph_launches: 0,
        nested_api_rows: 0,
        diagnostics: Vec::new(),
        collectives: Vec::new(),
        names: Names::new(strings),
    }
}

/// The path of `[w0, w1]` µs on device 0 of pid 1, and its changes.
fn path_of(tl: &Timeline, roofs: &KernelRoofs, w0: i64, w1: i64) -> (Vec<Segment>, Vec<WhatIf>) {
    let mut g = graph::build(tl);
    topo::order(&mut g);
    let by_start = nodes_by_start(&g);
    let one_rank = Arrivals::one_rank();
    let walker = Walker {
        tl,
        graph: &g,
        roofs,
        arrivals: &one_rank,
    };
    let mut replayer = Replayer::new(Editor {
        tl,
        graph: &g,
        roofs,
        arrivals: &one_rank,
    });
    let window = StepWindow {
        pid: 1,
        device: 0,
        start_ns: w0 * US,
        end_ns: w1 * US,
        previous_overlap_ns: 0,
    };
    step_path(&walker, &mut replayer, &by_start, &window, 5)
}

/// Each part's time, µs.
fn part_us(segments: &[Segment]) -> Vec<(PartName, i64)> {
    parts(segments)
        .iter()
        .map(|p| (p.name, p.ns / US))
        .collect()
}

/// (saved, shortfall, moved) of one change, µs.
fn change(what_if: &[WhatIf], key: &str) -> (i64, i64, u64) {
    let w = what_if
        .iter()
        .find(|w| w.change == key)
        .unwrap_or_else(|| panic!("no change {key} in {what_if:?}"));
    (w.saved_ns / US, w.shortfall_ns / US, w.moved)
}

/// Two streams, a hidden kernel, a device sync, host work:
///
/// ```text
/// thread 1: C1 [0,5]  C2 [20,25]  C3 [40,45]  S4 sync [50,160]  C5 [170,175]
/// stream 7: K1 gemm [10,110] (C1)   K3 relu [110,150] (C3)      K4 gemm [180,200] (C5)
/// stream 8:   K2 small [30,60] (C2), hidden under K1
/// ```
/// gemm's bound: 40 µs for K1, 5 µs for K4 (memory); relu's 10 µs
/// (compute); small has none.
fn two_streams() -> (Timeline, KernelRoofs) {
    let api = vec![
        call(LAUNCH, 1, 0, 5),
        call(LAUNCH, 2, 20, 25),
        call(LAUNCH, 3, 40, 45),
        call(LAUNCH, 5, 170, 175),
    ];
    let ops = vec![
        kernel(GEMM, 7, 0, 10, 110),
        kernel(SMALL, 8, 1, 30, 60),
        kernel(RELU, 7, 2, 110, 150),
        kernel(GEMM, 7, 3, 180, 200),
    ];
    let syncs = vec![sync(DEVICE_SYNC, 4, 50, 160)];
    let roof = |us: i64, side| {
        Some(KernelRoof {
            bound_ns: us * US,
            side,
        })
    };
    let roofs = KernelRoofs {
        by_op: vec![
            roof(40, RoofSide::Memory),
            None,
            roof(10, RoofSide::Compute),
            roof(5, RoofSide::Memory),
        ],
    };
    (timeline(ops, api, syncs, false), roofs)
}

#[test]
fn the_walk_goes_back_through_launch_host_work_sync_and_stream_order() {
    let (tl, roofs) = two_streams();
    // From K4's end (200): K4 [180,200] gemm; its launch binds (C5 at 170
    // is later than K3's end 150): launch overhead [170,180]; C5's start:
    // host work after S4 [160,170]; S4 waited for K3 (launched before 50,
    // the latest end in (50,160]): sync [150,160]; K3 [110,150] relu; its
    // stream edge (K1's end 110) binds over its launch (40): no gap; K1
    // [10,110] gemm; its launch (C1 at 0) is before the window: clipped.
    // Memory 100 + 20, compute 40, and 10 each: 190 = 200 − 10.
    let (segments, _) = path_of(&tl, &roofs, 10, 200);
    assert_eq!(
        part_us(&segments),
        vec![
            (PartName::KernelMemory, 120),
            (PartName::KernelCompute, 40),
            (PartName::LaunchOverhead, 10),
            (PartName::Sync, 10),
            (PartName::HostWork, 10),
        ]
    );
    let times: Vec<(i64, i64)> = segments
        .iter()
        .map(|s| (s.start_ns / US, s.end_ns / US))
        .collect();
    assert_eq!(
        times,
        vec![
            (10, 110),
            (110, 150),
            (150, 160),
            (160, 170),
            (170, 180),
            (180, 200)
        ]
    );
    // K2 is hidden: not on the path.
    assert!(segments.iter().all(|s| s.label != "small"));
}

#[test]
fn each_change_is_replayed_on_the_graph_not_added_up() {
    let (tl, roofs) = two_streams();
    let (_, what_if) = path_of(&tl, &roofs, 10, 200);
    // Kernels at their roofs: K1 10..50, K3 max(C3 40, K1 50) = 50..60, S4
    // ends 60 + 10 (its return latency) = 70, C5 80..85, K4 max(80, 60) +
    // 10 (its slack) = 90..95: the step ends at 95, 105 saved; shortfall
    // 60 + 30 + 15.
    assert_eq!(change(&what_if, "kernels_at_roof"), (105, 105, 3));
    // Launch overhead: K1, K2, K4 start at their call (slack 10 each), C2,
    // C3, C5 last 2 µs (C1 is before the window: it keeps its times): K1
    // 0..100, C2 5..7+15 → C2 20..22, C3 37..39, K3 100..140, S4 ends 150,
    // C5 160..162, K4 160..180. New step = max end − min start = 180 − 0
    // (K1 moved 10 earlier with the rest): 10 saved, not the 20 the end
    // alone moved; shortfall 3 × 10 + 3 × 3.
    assert_eq!(change(&what_if, "launch_overhead_removed"), (10, 39, 6));
    // Host work 0 (C2, C3, S4, C5): C2 5..10, C3 10..15, S4 15, ends at
    // K3 (150) + 10 = 160, C5 160..165, K4 max(160, 150) + 10 = 170..190:
    // 10 saved of 15 + 15 + 5 + 10 (K1 stays at 10).
    assert_eq!(change(&what_if, "host_work_removed"), (10, 45, 4));
    // The only stream-bound op (K3) has no gap.
    assert_eq!(change(&what_if, "gpu_gaps_removed"), (0, 0, 0));
    assert_eq!(change(&what_if, "collectives_at_link"), (0, 0, 0));
    // All: K1 0..40, C2 5..7, C3 7..9, K3 40..50, S4 9 → 60, C5 60..62,
    // K4 60..65: new step 65 − 0, 125 saved, the sum of the singles here
    // (105 + 10 + 10); 8 nodes touched (the four kernels, C2, C3, S4, C5),
    // 105 + 39 + 45 of shortfall.
    assert_eq!(change(&what_if, "all"), (125, 189, 8));
    // gemm alone: K1 10..50, K3 50..90, S4 → 100, C5 110..115, K4 120..125.
    assert_eq!(change(&what_if, "kernel:gemm"), (75, 75, 2));
    // relu alone: K3 110..120, S4 → 130, C5 140..145, K4 150..170.
    assert_eq!(change(&what_if, "kernel:relu"), (30, 30, 1));
    for w in &what_if {
        assert!(w.saved_ns <= w.shortfall_ns, "{w:?}");
        assert_eq!(w.new_step_ns + w.saved_ns, 190 * US);
    }
    // Most saved first.
    assert_eq!(what_if[0].change, "all");
    assert_eq!(what_if[1].change, "kernels_at_roof");
}

#[test]
fn the_replay_of_nothing_gives_back_every_observed_time() {
    let (tl, _) = two_streams();
    let check = check_replay(&tl);
    // 4 ops, 4 calls, 1 sync.
    assert_eq!(check.nodes, 9);
    assert_eq!(check.moved_events, 0);
    assert_eq!((check.contradicted_edges, check.dropped_edges), (0, 0));
}

#[test]
fn a_stream_edge_wins_a_tie_with_the_launch_edge() {
    // K1 [0,100] on stream 7; K2's call starts at 100 too, K2 at 105: both
    // constraints are 100, stream order binds: the 5 µs are a GPU gap.
    let api = vec![call(LAUNCH, 1, 0, 2), call(LAUNCH, 2, 100, 102)];
    let ops = vec![kernel(GEMM, 7, 0, 0, 100), kernel(RELU, 7, 1, 105, 150)];
    let tl = timeline(ops, api, Vec::new(), false);
    let (segments, what_if) = path_of(&tl, &KernelRoofs::default(), 0, 150);
    assert_eq!(
        part_us(&segments),
        vec![(PartName::KernelNoModel, 145), (PartName::GpuGap, 5)]
    );
    // Its slack is the GPU gap's: removing gaps saves it, launches do not.
    assert_eq!(change(&what_if, "gpu_gaps_removed"), (5, 5, 1));
    assert_eq!(change(&what_if, "launch_overhead_removed").0, 0);
}

#[test]
fn a_cross_stream_wait_binds_only_with_wait_evidence_and_past_1_us() {
    // K1 on stream 7 [0,48]; K2 on stream 8 launched at 2, starts at 50:
    // 48 µs past its launch, nothing on its stream: with stream-wait
    // evidence K1's end (48) is a dependency edge (2 µs), without it the
    // launch binds (48 µs of launch overhead), then the calls before it
    // (C1 [0,1] and the wait [1,2], back to back).
    let api = vec![
        call(LAUNCH, 1, 0, 1),
        call(WAIT_EVENT, 2, 1, 2),
        call(LAUNCH, 3, 2, 3),
    ];
    let ops = vec![kernel(GEMM, 7, 0, 0, 48), kernel(RELU, 8, 2, 50, 60)];
    let with = timeline(ops.clone(), api.clone(), Vec::new(), true);
    let (segments, _) = path_of(&with, &KernelRoofs::default(), 0, 60);
    assert_eq!(
        part_us(&segments),
        vec![(PartName::KernelNoModel, 58), (PartName::Dependency, 2)]
    );
    let without = timeline(ops, api, Vec::new(), false);
    let (segments, _) = path_of(&without, &KernelRoofs::default(), 0, 60);
    assert_eq!(
        part_us(&segments),
        vec![
            (PartName::KernelNoModel, 10),
            (PartName::LaunchOverhead, 48),
            (PartName::HostCall, 2)
        ]
    );
}

#[test]
fn a_wait_of_1_us_or_less_is_no_cross_stream_edge() {
    // As above but K2 starts 1 µs after K1's end and 1 µs after its own
    // constraint (its launch at 48): within the threshold, the launch binds.
    let api = vec![
        call(LAUNCH, 1, 0, 1),
        call(WAIT_EVENT, 2, 1, 2),
        call(LAUNCH, 3, 48, 49),
    ];
    let ops = vec![kernel(GEMM, 7, 0, 0, 48), kernel(RELU, 8, 2, 49, 60)];
    let tl = timeline(ops, api, Vec::new(), true);
    let (segments, _) = path_of(&tl, &KernelRoofs::default(), 0, 60);
    assert!(
        segments.iter().all(|s| s.part != PartName::Dependency),
        "{segments:?}"
    );
}

#[test]
fn a_blocking_copy_in_api_and_in_syncs_is_one_node_waiting_for_its_copy() {
    // cudaMemcpy [0,30] (corr 1) launched the copy [5,25]; the same call is
    // a sync row. One host node; its end waits for the copy: sync [25,30].
    let api = vec![call(MEMCPY, 1, 0, 30)];
    let copy = GpuOp {
        kind: OpKind::Memcpy,
        name: NameRef::memcpy(CopyKind::HtoD),
        ..kernel(GEMM, 7, 0, 5, 25)
    };
    let syncs = vec![sync(MEMCPY, 1, 0, 30)];
    let tl = timeline(vec![copy], api, syncs, false);
    assert_eq!(check_replay(&tl).nodes, 2);
    let mut g = graph::build(&tl);
    topo::order(&mut g);
    assert_eq!(g.nodes[1].waited, 0);
    // The copy's path: its launch (the call's start, 0) binds.
    let (segments, _) = path_of(&tl, &KernelRoofs::default(), 5, 25);
    assert_eq!(part_us(&segments), vec![(PartName::Copy, 20)]);
}

/// A copy `[start, end]` µs on stream 7 from the device to pageable host
/// memory (or pinned), launched by call index `api`.
fn dtoh_copy(api: u32, start: i64, end: i64, pageable: bool) -> GpuOp {
    GpuOp {
        kind: OpKind::Memcpy,
        name: NameRef::memcpy(CopyKind::DtoH),
        flags: if pageable { OP_PAGEABLE } else { 0 },
        ..kernel(GEMM, 7, api, start, end)
    }
}

#[test]
fn an_async_copy_to_pageable_memory_waits_for_its_copy_like_a_blocking_copy() {
    // cudaMemcpyAsync [0,30] launches the DtoH copy [5,25]; C2 [32,33]
    // launches K [35,50] on stream 8. To pageable memory the call returns
    // only once the copy is done: from K's end, K 15 (35..50), its launch
    // 3 (32..35), host work 2 (30..32), the call's wait for its copy as
    // sync 5 (25..30), the copy 20 (5..25): 45 = 50 − 5.
    let api = vec![call(MEMCPY_ASYNC, 1, 0, 30), call(LAUNCH, 2, 32, 33)];
    let run = |pageable: bool| {
        let ops = vec![dtoh_copy(0, 5, 25, pageable), kernel(RELU, 8, 1, 35, 50)];
        let tl = timeline(ops, api.clone(), Vec::new(), false);
        assert_eq!(check_replay(&tl).moved_events, 0);
        let (segments, _) = path_of(&tl, &KernelRoofs::default(), 5, 50);
        part_us(&segments)
    };
    assert_eq!(
        run(true),
        vec![
            (PartName::KernelNoModel, 15),
            (PartName::Copy, 20),
            (PartName::LaunchOverhead, 3),
            (PartName::Sync, 5),
            (PartName::HostWork, 2),
        ]
    );
    // To pinned memory the call may return before its copy: no sync edge,
    // the call's own time (5..30 inside the window) is host time.
    assert_eq!(
        run(false),
        vec![
            (PartName::KernelNoModel, 15),
            (PartName::LaunchOverhead, 3),
            (PartName::HostWork, 2),
            (PartName::HostCall, 25),
        ]
    );
}

#[test]
fn a_step_that_only_moved_earlier_saves_nothing() {
    // C1 [0,5] launches K1 [10,50], the step's only op: window [10,50].
    // Without launch overhead K1 starts at C1's start (C1 began before the
    // window and keeps its times): 0..40. New step = 40 − 0 = 40: 0 saved,
    // though the end moved 10 earlier; K1's 10 µs of slack is shortfall.
    let api = vec![call(LAUNCH, 1, 0, 5)];
    let tl = timeline(vec![kernel(GEMM, 7, 0, 10, 50)], api, Vec::new(), false);
    let (_, what_if) = path_of(&tl, &KernelRoofs::default(), 10, 50);
    assert_eq!(change(&what_if, "launch_overhead_removed"), (0, 10, 1));
}

#[test]
fn a_window_starting_at_the_previous_steps_work_end_keeps_its_start() {
    // The previous step's K0 [0,20] (stream 7) ends at 20, the window's
    // start; this step's K1 [10,30] (stream 8, C1 [4,5]) began before it,
    // and K2 [40,60] (stream 8) is launched by C2 [32,33] after K1's end
    // (30): the launch binds, 8 µs of slack. Without launch overhead K2
    // runs 32..52; K1 keeps its times and counts from 20, so the step's
    // start stays at 20: new step 52 − 20 = 32, 8 saved of 20.
    let api = vec![
        call(LAUNCH, 1, 0, 1),
        call(LAUNCH, 2, 4, 5),
        call(LAUNCH, 3, 32, 33),
    ];
    let ops = vec![
        kernel(GEMM, 7, 0, 0, 20),
        kernel(SMALL, 8, 1, 10, 30),
        kernel(RELU, 8, 2, 40, 60),
    ];
    let tl = timeline(ops, api, Vec::new(), false);
    let (_, what_if) = path_of(&tl, &KernelRoofs::default(), 20, 60);
    assert_eq!(change(&what_if, "launch_overhead_removed"), (8, 8, 1));
}

#[test]
fn a_sync_that_ended_before_any_work_finished_did_not_wait() {
    // The sync [0,10] ends before K1 (launched at 0) ends at 50.
    let api = vec![call(LAUNCH, 1, 0, 1)];
    let ops = vec![kernel(GEMM, 7, 0, 2, 50)];
    let syncs = vec![sync(DEVICE_SYNC, 2, 1, 10)];
    let tl = timeline(ops, api, syncs, false);
    let mut g = graph::build(&tl);
    topo::order(&mut g);
    assert!(g.nodes.iter().all(|n| n.waited == super::node::NONE));
}

#[test]
fn a_cycle_of_zero_length_events_at_one_ns_is_broken_and_the_replay_stays_exact() {
    // K [100,100] (zero length) launched by L [40,45]; the sync S [50,100]
    // waits for it (K ends in (50,100], launched before 50); C [100,100]
    // follows S on the thread and launches Y [100,100] on K's stream,
    // listed before K (equal starts): K's stream edge from Y closes
    // K → S → C → Y → K at t = 100. One edge goes.
    let api = vec![call(LAUNCH, 1, 40, 45), call(LAUNCH, 3, 100, 100)];
    let ops = vec![kernel(RELU, 7, 1, 100, 100), kernel(GEMM, 7, 0, 100, 100)];
    let syncs = vec![sync(DEVICE_SYNC, 2, 50, 100)];
    let tl = timeline(ops, api, syncs, false);
    let check = check_replay(&tl);
    assert_eq!(check.dropped_edges, 1);
    assert_eq!(check.moved_events, 0);
}

#[test]
fn a_window_without_ops_is_before_the_first_event() {
    let tl = timeline(Vec::new(), Vec::new(), Vec::new(), false);
    let (segments, what_if) = path_of(&tl, &KernelRoofs::default(), 0, 10);
    assert_eq!(part_us(&segments), vec![(PartName::BeforeFirstEvent, 10)]);
    assert!(what_if.is_empty());
}

#[test]
fn single_changes_that_shorten_one_stretch_sum_to_more_than_all() {
    // Stream 7: K1 [0,50] (bound 30 µs), K2 [60,100] after a 10 µs gap;
    // stream 8: K3 [0,80], no bound, launched with K1 by C1 [0,1]; C2
    // [2,3] launches K2. At its roof K1 ends at 30, K2 runs 40..80: the
    // step ends at 80 (K3), 20 saved. Without the gap K2 runs 50..90: 10
    // saved. Both: K2 30..70, but K3 still ends at 80: `all` saves 20 <
    // 20 + 10.
    let api = vec![call(LAUNCH, 1, 0, 1), call(LAUNCH, 2, 2, 3)];
    let ops = vec![
        kernel(GEMM, 7, 0, 0, 50),
        kernel(SMALL, 8, 0, 0, 80),
        kernel(RELU, 7, 1, 60, 100),
    ];
    let tl = timeline(ops, api, Vec::new(), false);
    let roofs = KernelRoofs {
        by_op: vec![
            Some(KernelRoof {
                bound_ns: 30 * US,
                side: RoofSide::Memory,
            }),
            None,
            None,
        ],
    };
    let (_, what_if) = path_of(&tl, &roofs, 0, 100);
    assert_eq!(change(&what_if, "kernels_at_roof").0, 20);
    assert_eq!(change(&what_if, "gpu_gaps_removed").0, 10);
    assert_eq!(change(&what_if, "all").0, 20);
    assert!(super::analyze::overclaims(&what_if));
}

#[test]
fn op_model_bounds_are_rounded_and_keep_their_side() {
    use crate::ops::{BoundSide, KernelBounds, KernelModel, Unmodelled};
    use crate::roofs::ComputePath;
    let tl = timeline(
        vec![
            kernel(GEMM, 7, 0, 0, 10),
            kernel(RELU, 7, 0, 10, 20),
            kernel(SMALL, 7, 0, 20, 30),
            kernel(SMALL, 7, 0, 30, 40),
        ],
        vec![call(LAUNCH, 1, 0, 1)],
        Vec::new(),
        false,
    );
    let bound = |bound_ns: f64, side| KernelModel::Bound {
        bound_ns,
        side,
        record: 0,
    };
    let ops = KernelBounds {
        by_op: vec![
            // 1234.5 ns rounds half away from zero.
            Some(bound(1234.5, BoundSide::Memory)),
            Some(bound(99.4, BoundSide::Compute(ComputePath::Fp32))),
            Some(KernelModel::Unmodelled {
                reason: Unmodelled::NoLaunchCall,
                record: None,
            }),
            Some(bound(f64::NAN, BoundSide::Link)),
        ],
    };
    let roofs = KernelRoofs::from_sources(&tl, None, Some(&ops));
    assert_eq!(
        roofs.get(0),
        Some(KernelRoof {
            bound_ns: 1235,
            side: RoofSide::Memory
        })
    );
    assert_eq!(
        roofs.get(1),
        Some(KernelRoof {
            bound_ns: 99,
            side: RoofSide::Compute
        })
    );
    // No model, and a figure that is no time: unknown, not zero.
    assert_eq!((roofs.get(2), roofs.get(3)), (None, None));
}

#[test]
fn a_graph_launch_is_the_launch_call_of_every_op_of_its_replay() {
    // cudaGraphLaunch [0,4] (corr 1) replays K1 [10,20] on stream 7 and K2
    // [12,30] on stream 8; both carry its correlation id, so both have it
    // as their launch call. K2 ends last: K2 [12,30], then its launch edge
    // back to the call's start (0): 12 µs of launch overhead, clipped at
    // the window's start 10: 2 µs. Without the overhead K2 runs 0..18 and
    // K1 0..10: the step's ops end at 18 but start at 0, new step 18 − 0:
    // 2 saved (20 − 18; the 10 µs they all moved earlier save nothing).
    let api = vec![call(NameRef(9), 1, 0, 4)];
    let ops = vec![kernel(GEMM, 7, 0, 10, 20), kernel(RELU, 8, 0, 12, 30)];
    let tl = timeline(ops, api, Vec::new(), false);
    let mut g = graph::build(&tl);
    topo::order(&mut g);
    assert_eq!((g.nodes[0].launch, g.nodes[1].launch), (2, 2));
    let (segments, what_if) = path_of(&tl, &KernelRoofs::default(), 10, 30);
    assert_eq!(
        part_us(&segments),
        vec![(PartName::KernelNoModel, 18), (PartName::LaunchOverhead, 2)]
    );
    assert_eq!(change(&what_if, "launch_overhead_removed").0, 2);
}
