//! Several ranks on hand-built timelines: the last rank's arrival found
//! through `comm`'s matching and clock alignment, the early rank's wait on
//! its path (`waiting_for_rank`) and `straggler_on_time` replayed, with the
//! times worked out by hand in the comments (µs, written ×1000).

use super::analyze::{nodes_by_start, step_path, StepWindow};
use super::change::Editor;
use super::model::{PartName, PathPart, Segment, WhatIf};
use super::ranks::{last_arrivals, Arrivals};
use super::replay::Replayer;
use super::roofs::KernelRoofs;
use super::walk::{parts, Walker};
use super::{graph, topo};
use crate::timeline::*;
use std::collections::HashMap;

const US: i64 = 1_000;
const LAUNCH: NameRef = NameRef(1);
const COMPUTE: NameRef = NameRef(2);
const ALL_REDUCE: NameRef = NameRef(3);

/// One rank: launch calls `[0,5]` and `[20,25]` on thread 1 of pid 1;
/// `compute` stream 7 `[10, arrive]`, then the all-reduce stream 7
/// `[arrive, end]` (stream order binds: its launch came at 20); every
/// time shifted by `clock` (the rank's clock reads `clock` more).
fn rank(arrive: i64, end: i64, clock: i64) -> Timeline {
    let call = |corr: u32, start: i64| ApiCall {
        start_ns: (start + clock) * US,
        end_ns: (start + 5 + clock) * US,
        pid: 1,
        tid: 1,
        correlation_id: corr,
        name: LAUNCH,
    };
    let kernel = |name: NameRef, api: u32, start: i64, end: i64| GpuOp {
        start_ns: (start + clock) * US,
        end_ns: (end + clock) * US,
        pid: 1,
        stream: 7,
        correlation_id: api + 1,
        name,
        api,
        device: 0,
        kind: OpKind::Kernel,
        flags: 0,
    };
    let strings: HashMap<u32, String> = [
        (LAUNCH, "cudaLaunchKernel"),
        (COMPUTE, "compute"),
        (
            ALL_REDUCE,
            "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevComm*, unsigned long, ncclWork*)",
        ),
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
        ops: vec![
            kernel(COMPUTE, 0, 10, arrive),
            kernel(ALL_REDUCE, 1, arrive, end),
        ],
        api: vec![call(1, 0), call(2, 20)],
        syncs: Vec::new(),
        waits: Vec::new(),
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

/// The path of `[w0, w1]` µs (on the rank's own clock) and its changes.
fn path_of(tl: &Timeline, arrivals: &Arrivals, w0: i64, w1: i64) -> (Vec<Segment>, Vec<WhatIf>) {
    let mut g = graph::build(tl);
    topo::order(&mut g);
    let by_start = nodes_by_start(&g);
    let roofs = KernelRoofs::default();
    let walker = Walker {
        tl,
        graph: &g,
        roofs: &roofs,
        arrivals,
    };
    let mut replayer = Replayer::new(Editor {
        tl,
        graph: &g,
        roofs: &roofs,
        arrivals,
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
        .map(|p: &PathPart| (p.name, p.ns / US))
        .collect()
}

/// (saved, shortfall, moved) of one change, µs; `None` when not listed.
fn change(what_if: &[WhatIf], key: &str) -> Option<(i64, i64, u64)> {
    let w = what_if.iter().find(|w| w.change == key)?;
    Some((w.saved_ns / US, w.shortfall_ns / US, w.moved))
}

#[test]
fn the_early_rank_waits_from_its_arrival_to_the_last_ranks() {
    // Rank 0 arrives at 50, rank 1 at 80; both all-reduces end at 120 (one
    // clock: the completions give offset 0). Rank 0's wait: 80 − 50 = 30.
    let (r0, r1) = (rank(50, 120, 0), rank(80, 120, 0));
    let got = last_arrivals(&[&r0, &r1], &["r0".into(), "r1".into()]);
    assert_eq!(got.per_rank[0].last_arrival_ns(1), Some(80 * US));
    assert_eq!(got.per_rank[0].last_arrival_ns(0), None);
    // Rank 1 came last: nothing to wait for.
    assert_eq!(got.per_rank[1].last_arrival_ns(1), None);
    // No Seq in these timelines: matched by order, and said.
    assert_eq!(got.diagnostics.len(), 1, "{:?}", got.diagnostics);
    assert!(got.diagnostics[0].starts_with("1 collectives were matched across the ranks by order"));

    // Rank 0's window [10,120]: from the all-reduce's end, collective
    // [80,120] 40, waiting_for_rank [50,80] 30; from its start (its own
    // arrival, 50) stream order binds (compute ends at 50, the launch at
    // 20): gap 0; compute [10,50] 40, no bound. 40 + 40 + 30 = 110.
    let (segments, what_if) = path_of(&r0, &got.per_rank[0], 10, 120);
    assert_eq!(
        part_us(&segments),
        vec![
            (PartName::KernelNoModel, 40),
            (PartName::Collective, 40),
            (PartName::WaitingForRank, 30),
        ]
    );
    // straggler_on_time: the all-reduce takes its transfer only (120 − 80
    // = 40 µs) from 50: the ops span [10,90], 80: saved 30 = its
    // shortfall, 1 moved.
    assert_eq!(change(&what_if, "straggler_on_time"), Some((30, 30, 1)));
    // `all` holds it, with the launch and host changes on the step's nodes
    // (those starting in [10,120]: call 2, compute, the all-reduce): call
    // 2 cut to 2 µs (3) and its host work after call 1 gone (20 − 5 =
    // 15); compute's launch slack (10 − 0 = 10) gone, so it runs [0,40];
    // the all-reduce at max(40, call 2's start 5) for 40 µs: ends at 80.
    // The new step is the ops' recomputed span (docs/path.md: max end −
    // min start), 80 − 0 = 80: saved 110 − 80 = 30 (the step moved 10
    // earlier at its start too, which saves nothing); shortfall 3 + 15 +
    // 10 + 30 = 58; 3 moved.
    assert_eq!(change(&what_if, "all"), Some((30, 58, 3)));

    // Rank 1: collective [80,120] 40, compute [10,80] 70; saves 0.
    let (segments, what_if) = path_of(&r1, &got.per_rank[1], 10, 120);
    assert_eq!(
        part_us(&segments),
        vec![(PartName::KernelNoModel, 70), (PartName::Collective, 40)]
    );
    assert_eq!(change(&what_if, "straggler_on_time"), Some((0, 0, 0)));
}

#[test]
fn the_last_arrival_is_put_on_each_ranks_own_clock() {
    // As above, rank 1's clock reads 500 µs more: its all-reduce
    // [580,620], so its offset to rank 0 is 120 − 620 = −500 and its
    // arrival 580 is 80 on rank 0's clock; rank 0 (its own clock) waits
    // from 50 to 80.
    let (r0, r1) = (rank(50, 120, 0), rank(80, 120, 500));
    let got = last_arrivals(&[&r0, &r1], &["r0".into(), "r1".into()]);
    assert_eq!(got.per_rank[0].last_arrival_ns(1), Some(80 * US));
    assert_eq!(got.per_rank[1].last_arrival_ns(1), None);
    // The other way round: rank 0 late (arrives at 90 on its clock),
    // rank 1 early (80 on rank 0's clock, 580 on its own): rank 1 waits
    // until 90 + 500 = 590 on its own clock.
    let (r0, r1) = (rank(90, 120, 0), rank(80, 120, 500));
    let got = last_arrivals(&[&r0, &r1], &["r0".into(), "r1".into()]);
    assert_eq!(got.per_rank[0].last_arrival_ns(1), None);
    assert_eq!(got.per_rank[1].last_arrival_ns(1), Some(590 * US));
}

#[test]
fn one_rank_alone_neither_waits_nor_lists_straggler_on_time() {
    // The same rank 0 with no other rank: its all-reduce [50,120] is 70 µs
    // of collective, and the change is not listed (unknown, not 0).
    let r0 = rank(50, 120, 0);
    let alone = last_arrivals(&[&r0], &["r0".into()]);
    assert!(!alone.per_rank[0].several_ranks());
    let (segments, what_if) = path_of(&r0, &alone.per_rank[0], 10, 120);
    assert_eq!(
        part_us(&segments),
        vec![(PartName::KernelNoModel, 40), (PartName::Collective, 70)]
    );
    assert_eq!(change(&what_if, "straggler_on_time"), None);
}

#[test]
fn a_collective_on_one_rank_only_is_not_split_and_said() {
    // Rank 1 holds no all-reduce (its second kernel is compute): nothing
    // is matched, no clock is aligned, and the notes say both.
    let r0 = rank(50, 120, 0);
    let mut r1 = rank(80, 120, 0);
    r1.ops[1].name = COMPUTE;
    let got = last_arrivals(&[&r0, &r1], &["r0".into(), "r1".into()]);
    assert_eq!(got.per_rank[0].last_arrival_ns(1), None);
    assert!(got.per_rank[0].several_ranks());
    assert_eq!(got.diagnostics.len(), 2, "{:?}", got.diagnostics);
    assert!(got.diagnostics[0].starts_with("1 collective kernels were found on one rank only"));
    assert!(got.diagnostics[1].ends_with("r0, r1"));
}
