//! The sweep: one pass per (process, device) over its ops sorted by start
//! gives the busy union, every gap with its class, the histogram, the
//! top-N heap and the per-stream view.

use super::class::{blocking_sync, classify, Evidence, NextOp, SyncHints};
use super::describe::Lookup;
use super::engines::{CopyEngines, EngineLane, Exclude};
use super::hist::{hist_bin, HIST_EDGES_NS};
use super::host::host_verdict;
use super::model::*;
use super::onetime::{FirstLaunches, OneTimeCause, OneTimeIdle, FIRST_LAUNCH_MIN_NS};
use super::GapClass;
use super::GapConfig;
use crate::timeline::{GpuOp, OpKind, SyncCall, Timeline};
use std::collections::BinaryHeap;

/// A candidate for the longest gaps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TopCandidate {
    pub(crate) duration_ns: i64,
    pub(crate) pid: u32,
    pub(crate) device: u16,
    pub(crate) start_ns: i64,
    /// Index in the analysed ops of the op before the gap.
    pub(crate) before: usize,
    /// Index in the analysed ops of the op after the gap.
    pub(crate) after: usize,
    pub(crate) class: GapClass,
}

impl Ord for TopCandidate {
    /// Longer is greater; on equal length the earlier gap (by pid, device,
    /// start) is greater, so it is kept and listed first. The op indices
    /// and class follow from (pid, device, start) and only make the order
    /// total.
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        self.duration_ns
            .cmp(&o.duration_ns)
            .then_with(|| {
                (o.pid, o.device, o.start_ns).cmp(&(self.pid, self.device, self.start_ns))
            })
            .then_with(|| (self.before, self.after, self.class).cmp(&(o.before, o.after, o.class)))
    }
}

impl PartialOrd for TopCandidate {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}

/// A top-gap candidate in the min-heap (the shortest kept on top).
pub(crate) type TopEntry = std::cmp::Reverse<TopCandidate>;

/// A device gap as found by the sweep: `[start, end)`, the index (in the
/// device slice) of the op that ended last before it and of the op after it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RawGap {
    pub(crate) start: i64,
    pub(crate) end: i64,
    pub(crate) before: usize,
    pub(crate) after: usize,
}

/// Why a gap of process `pid` classed `class` is one-time, if it is
/// (`gaps::onetime`): half or more of it inside the process's warm-up
/// ranges, or host-bound or a slow launch call and ended by a kernel's
/// first launch on the device whose launch call took
/// [`FIRST_LAUNCH_MIN_NS`] or more.
fn one_time_cause(
    look: Lookup,
    g: &RawGap,
    (pid, class): (u32, GapClass),
    next: &NextOp,
    firsts: &FirstLaunches,
) -> Option<OneTimeCause> {
    let d = g.end - g.start;
    if 2 * look.warmup.inside(pid, g.start, g.end) >= d {
        return Some(OneTimeCause::WarmUp);
    }
    let slow_launch = next
        .api
        .is_some_and(|a| a.end_ns - a.start_ns >= FIRST_LAUNCH_MIN_NS);
    let late_launch = matches!(class, GapClass::HostBound | GapClass::LaunchInFlight);
    let kernel = firsts.is_kernel(g.after);
    (late_launch && slow_launch && kernel && firsts.is_first(g.after))
        .then_some(OneTimeCause::FirstLaunch)
}

/// Sweeps ops sorted by start: returns (busy_ns, span_start, span_end) and
/// calls `on_gap` for each gap.
pub(crate) fn sweep(ops: &[GpuOp], mut on_gap: impl FnMut(RawGap)) -> (i64, i64, i64) {
    let Some(first) = ops.first() else {
        return (0, 0, 0);
    };
    let (mut run_start, mut run_end, mut last) = (first.start_ns, first.end_ns, 0usize);
    let mut busy = 0i64;
    for (i, op) in ops.iter().enumerate().skip(1) {
        if op.start_ns > run_end {
            busy += run_end - run_start;
            on_gap(RawGap {
                start: run_end,
                end: op.start_ns,
                before: last,
                after: i,
            });
            run_start = op.start_ns;
            run_end = op.end_ns;
            last = i;
        } else if op.end_ns > run_end {
            run_end = op.end_ns;
            last = i;
        }
    }
    busy += run_end - run_start;
    (busy, first.start_ns, run_end)
}

/// A running union of sorted-by-start intervals.
#[derive(Default, Clone, Copy)]
struct Union {
    busy: i64,
    cur: Option<(i64, i64)>,
}

impl Union {
    fn add(&mut self, s: i64, e: i64) {
        self.cur = match self.cur {
            Some((cs, ce)) if s <= ce => Some((cs, ce.max(e))),
            Some((cs, ce)) => {
                self.busy += ce - cs;
                Some((s, e))
            }
            None => Some((s, e)),
        };
    }

    fn total(&self) -> i64 {
        self.busy + self.cur.map_or(0, |(s, e)| e - s)
    }
}

/// Busy time of one device by kind, each a union, ns.
#[derive(Debug, Default, Clone, Copy)]
struct BusyByKind {
    /// Kernels and graph rows.
    kernels: i64,
    /// Memcpys.
    copies: i64,
    /// Memsets.
    memsets: i64,
    /// Communication kernels (NCCL, NVSHMEM).
    comm: i64,
    /// Other kernels and graph rows (compute).
    compute: i64,
}

/// Busy time by kind in one pass over a device's ops (sorted by start).
fn busy_by_kind(tl: &Timeline, ops: &[GpuOp]) -> BusyByKind {
    let [mut kernels, mut copies, mut memsets, mut comm, mut compute] = [Union::default(); 5];
    for o in ops {
        let (s, e) = (o.start_ns, o.end_ns);
        match o.kind {
            OpKind::Memcpy => copies.add(s, e),
            OpKind::Memset => memsets.add(s, e),
            _ => {
                kernels.add(s, e);
                let part = if tl.is_comm(o) {
                    &mut comm
                } else {
                    &mut compute
                };
                part.add(s, e);
            }
        }
    }
    BusyByKind {
        kernels: kernels.total(),
        copies: copies.total(),
        memsets: memsets.total(),
        comm: comm.total(),
        compute: compute.total(),
    }
}

/// Per-device data kept for `--nvtx`.
pub(crate) struct DeviceDetail {
    pub(crate) pid: u32,
    pub(crate) device: u16,
    pub(crate) span: (i64, i64),
    /// This device's gaps are `gaps[gaps_at.0..gaps_at.1]` of every
    /// classified gap, sorted by start (set when the devices are merged).
    pub(crate) gaps_at: (usize, usize),
    pub(crate) kernel_runs: Vec<(i64, i64)>,
    /// This device's ops are `ops[ops_at.0..ops_at.1]`, sorted by start.
    pub(crate) ops_at: (usize, usize),
}

#[derive(Default)]
struct StreamAcc {
    start: i64,
    run_start: i64,
    run_end: i64,
    busy: i64,
    gaps: u64,
    ops: u64,
    classes: ClassTotals,
    /// Index of the op whose end is `run_end`.
    last: usize,
}
/// What one (process, device) contributes to the report.
pub(crate) struct DeviceOut {
    pub(crate) device: DeviceGaps,
    pub(crate) streams: Vec<StreamGaps>,
    pub(crate) detail: Option<DeviceDetail>,
    /// Every gap with its class, by start (empty unless kept).
    pub(crate) gaps: Vec<ClassifiedGap>,
    /// Durations of the gaps of at least `min_gap_ns`, ns.
    pub(crate) durations: Vec<i64>,
    /// (count, total ns) per histogram bin.
    pub(crate) hist: [(u64, i64); HIST_EDGES_NS.len()],
    pub(crate) heap: BinaryHeap<TopEntry>,
}

/// Keeps the `top` longest gaps (all when `top` is 0) in a min-heap.
pub(crate) fn push_bounded(heap: &mut BinaryHeap<TopEntry>, e: TopEntry, top: usize) {
    // A full heap keeps only a longer gap: one no longer than its
    // shortest would be pushed and popped again (the order is total, so
    // an equal entry is the same gap). Most gaps of a long run are not
    // among the longest.
    if top > 0 && heap.len() >= top && heap.peek().is_some_and(|least| e >= *least) {
        return;
    }
    heap.push(e);
    if top > 0 && heap.len() > top {
        heap.pop();
    }
}

/// The sweep, classes, stream view and details of one (process, device);
/// `offset` is the index of `dev_ops[0]` in the analysed ops. Keeps every
/// classified gap when `keep_gaps`, the `--nvtx` detail when `keep_detail`.
pub(crate) fn analyze_device(
    tl: &Timeline,
    dev_ops: &[GpuOp],
    offset: usize,
    look: Lookup,
    cfg: &GapConfig,
    keep_gaps: bool,
) -> DeviceOut {
    let (syncs, nvtx, engines) = (look.syncs, look.nvtx, look.engines);
    let keep_detail = cfg.nvtx.is_some();
    let (pid, device) = (dev_ops[0].pid, dev_ops[0].device);
    let mut classes = ClassTotals::default();
    let mut gap_count = 0u64;
    let mut gaps = Vec::new();
    let mut durations = Vec::new();
    let mut hist = [(0u64, 0i64); HIST_EDGES_NS.len()];
    let mut heap = BinaryHeap::new();
    let hints = SyncHints::default();
    let ev = evidence(tl, syncs, cfg, &hints);
    let mut host = HostTotals::default();
    let mut one_time = OneTimeIdle::default();
    let firsts = FirstLaunches::new(dev_ops);
    let mut drain = Drain::default();
    let (busy, span_start, span_end) = sweep(dev_ops, |g| {
        let (before, after) = (&dev_ops[g.before], &dev_ops[g.after]);
        let gap = (g.start, g.end);
        let next = next_op(tl, (before, after), gap, (engines, Exclude::Process(pid)));
        let mut class = classify(g.start, g.end, &next, &ev);
        let d = g.end - g.start;
        class = drain.attribute(class, &g, &next, &ev);
        let once = one_time_cause(look, &g, (pid, class), &next, &firsts);
        if let Some(cause) = once {
            one_time.add(cause, class, d);
        }
        if let (GapClass::HostBound, Some(a)) = (class, next.api) {
            let v = host_verdict(tl, syncs, nvtx, after.api, g.start, a.end_ns.min(g.end));
            host.add(v.typed(tl), d, d);
            if once.is_none() {
                one_time.steady_host.add(v.typed(tl), d, d);
            }
        }
        classes.add(class, d);
        gap_count += 1;
        if keep_gaps {
            gaps.push(ClassifiedGap {
                pid,
                device,
                start_ns: g.start,
                end_ns: g.end,
                class,
            });
        }
        if d >= cfg.min_gap_ns {
            durations.push(d);
            let bin = hist_bin(d);
            hist[bin].0 += 1;
            hist[bin].1 += d;
            let entry = std::cmp::Reverse(TopCandidate {
                duration_ns: d,
                pid,
                device,
                start_ns: g.start,
                before: offset + g.before,
                after: offset + g.after,
                class,
            });
            push_bounded(&mut heap, entry, cfg.top);
        }
    });
    let kernel_like = |o: &GpuOp| matches!(o.kind, OpKind::Kernel | OpKind::Graph);
    let busy_kinds = busy_by_kind(tl, dev_ops);
    let (kbusy, comm) = (busy_kinds.kernels, busy_kinds.comm);
    let mut by_kind = [0u64; 4];
    for o in dev_ops {
        by_kind[o.kind as usize] += 1;
    }
    DeviceOut {
        device: DeviceGaps {
            pid,
            device,
            start_ns: span_start,
            end_ns: span_end,
            span_ns: span_end - span_start,
            busy_ns: busy,
            kernel_busy_ns: kbusy,
            copy_busy_ns: busy_kinds.copies,
            memset_busy_ns: busy_kinds.memsets,
            comm_busy_ns: comm,
            comm_compute_overlap_ns: if comm > 0 {
                comm + busy_kinds.compute - kbusy
            } else {
                0
            },
            // Comm time no compute kernel hid: the union of all kernels
            // less the compute union.
            exposed_comm_ns: if comm > 0 {
                kbusy - busy_kinds.compute
            } else {
                0
            },
            idle_ns: span_end - span_start - busy,
            gap_count,
            kernels: by_kind[OpKind::Kernel as usize],
            memcpys: by_kind[OpKind::Memcpy as usize],
            memsets: by_kind[OpKind::Memset as usize],
            graphs: by_kind[OpKind::Graph as usize],
            classes,
            host_detail: host.detail,
            host_scale: host.scale,
            host_evidence: host.evidence,
            one_time,
            copies: if cfg.stream.is_some() {
                Vec::new()
            } else {
                copy_summaries(tl, pid, device)
            },
        },
        streams: stream_view(tl, dev_ops, &ev, engines),
        detail: keep_detail.then(|| DeviceDetail {
            pid,
            device,
            span: (span_start, span_end),
            gaps_at: (0, 0),
            kernel_runs: runs(dev_ops, kernel_like),
            ops_at: (offset, offset + dev_ops.len()),
        }),
        gaps,
        durations,
        hist,
        heap,
    }
}

/// The copies of (pid, device) from the timeline's memcpy totals, most
/// time first.
fn copy_summaries(tl: &Timeline, pid: u32, device: u16) -> Vec<CopySummary> {
    let mut v: Vec<CopySummary> = tl
        .copies
        .iter()
        .filter(|c| (c.pid, c.device) == (pid, device))
        .map(|c| CopySummary {
            direction: c.copy_kind,
            pageable: c.pageable,
            count: c.count,
            bytes: c.bytes,
            duration_ns: c.duration_ns,
            bytes_per_s: c.bytes.filter(|_| c.duration_ns > 0).map(|b| {
                (u128::from(b) * 1_000_000_000 / c.duration_ns as u128).min(u128::from(u64::MAX))
                    as u64
            }),
        })
        .collect();
    v.sort_by(|a, b| {
        b.duration_ns
            .cmp(&a.duration_ns)
            .then_with(|| a.direction.cmp(&b.direction))
            .then_with(|| a.pageable.cmp(&b.pageable))
    });
    v
}

/// Merged busy runs of the ops passing `keep`.
fn runs(ops: &[GpuOp], keep: impl Fn(&GpuOp) -> bool) -> Vec<(i64, i64)> {
    let mut out: Vec<(i64, i64)> = Vec::new();
    for op in ops.iter().filter(|o| keep(o)) {
        match out.last_mut() {
            Some(l) if op.start_ns <= l.1 => l.1 = l.1.max(op.end_ns),
            _ => out.push((op.start_ns, op.end_ns)),
        }
    }
    out
}
/// The printed reference to an op, its name put in `names`.
pub(crate) fn op_ref<'t>(tl: &'t Timeline, op: &GpuOp, names: &mut Names<'t>) -> OpRef {
    OpRef {
        kind: op.kind,
        name_id: names.id(tl.name(op.name)),
        stream: op.stream,
        start_ns: op.start_ns,
        end_ns: op.end_ns,
    }
}

/// Which host-bound gaps a sync caused: a sync (or blocking copy) that
/// drained the queue held the host for `budget_ns`, the GPU work that was
/// queued; the host-bound gaps after it are the sync's cost while they fit
/// in that budget and the host has not got ahead again (a busy run of more
/// than one op, or a queued gap).
#[derive(Default)]
struct Drain {
    budget_ns: i64,
    /// Index of the op after the previous gap.
    prev_after: usize,
}

impl Drain {
    /// The class of gap `g`, given the class `c` from [`classify`].
    fn attribute(&mut self, c: GapClass, g: &RawGap, next: &NextOp, ev: &Evidence) -> GapClass {
        let d = g.end - g.start;
        if g.after - self.prev_after > 1 {
            self.budget_ns = 0; // the host got ahead: several ops queued in one run
        }
        self.prev_after = g.after;
        match (c, next.api) {
            (GapClass::Synchronization | GapClass::PageableCopy, Some(a)) => {
                self.budget_ns = match blocking_sync(ev, a, g.start) {
                    Some(s) => s.end_ns.min(g.start) - s.start_ns,
                    None => g.start - a.start_ns, // a blocking copy waiting over g0
                }
                .max(0);
                c
            }
            (GapClass::HostBound, _) if d <= self.budget_ns => {
                self.budget_ns -= d;
                GapClass::SyncDrain
            }
            (GapClass::HostBound, _) => {
                self.budget_ns = 0;
                c
            }
            (
                GapClass::LaunchLatency | GapClass::QueuedDependency | GapClass::CopyScheduling,
                _,
            ) => {
                self.budget_ns = 0;
                c
            }
            _ => c,
        }
    }
}

/// The host rows [`classify`] consults, looked up from `hints` (the
/// device's gaps come in time order).
fn evidence<'a>(
    tl: &'a Timeline,
    syncs: &'a [SyncCall],
    cfg: &GapConfig,
    hints: &'a SyncHints,
) -> Evidence<'a> {
    Evidence {
        syncs,
        waits: &tl.waits,
        latency_ns: cfg.launch_latency_ns,
        hints: Some(hints),
    }
}

/// What [`classify`] needs to know of the op `next` that ends the gap
/// `(g0, g1)` and the op `before` whose end began it; another copy in the
/// direction of `next` during the gap counts unless `exclude`d.
pub(crate) fn next_op<'a>(
    tl: &'a Timeline,
    (before, next): (&GpuOp, &GpuOp),
    (g0, g1): (i64, i64),
    (engines, exclude): (&CopyEngines, Exclude),
) -> NextOp<'a> {
    let api = tl.api_of(next);
    let lane = EngineLane::of(next);
    NextOp {
        api,
        blocking: api.is_some_and(|a| tl.is_blocking(a)),
        pageable: next.is_pageable(),
        copy: lane.is_some(),
        engine_busy: lane.is_some_and(|lane| {
            engines
                .occupied(tl, next.device, lane, (g0, g1), exclude)
                .is_some()
        }),
        cross_stream: before.stream != next.stream,
        before_call_ns: tl.api_of(before).map(|a| a.start_ns),
    }
}

/// The per-stream sweep over one device's ops (sorted by start).
fn stream_view(
    tl: &Timeline,
    dev_ops: &[GpuOp],
    ev: &Evidence,
    engines: &CopyEngines,
) -> Vec<StreamGaps> {
    // Sorted by stream id; few streams, so a binary search beats hashing.
    let mut acc: Vec<(u32, StreamAcc)> = Vec::new();
    for (i, op) in dev_ops.iter().enumerate() {
        let k = match acc.binary_search_by_key(&op.stream, |a| a.0) {
            Ok(k) => k,
            Err(k) => {
                let fresh = StreamAcc {
                    start: op.start_ns,
                    run_start: op.start_ns,
                    run_end: op.end_ns,
                    last: i,
                    ..StreamAcc::default()
                };
                acc.insert(k, (op.stream, fresh));
                k
            }
        };
        let s = &mut acc[k].1;
        s.ops += 1;
        if op.start_ns > s.run_end {
            let (g0, g1) = (s.run_end, op.start_ns);
            s.busy += s.run_end - s.run_start;
            let next = next_op(
                tl,
                (&dev_ops[s.last], op),
                (g0, g1),
                (engines, Exclude::Stream(op.pid, op.stream)),
            );
            let class = classify(g0, g1, &next, ev);
            s.classes.add(class, g1 - g0);
            s.gaps += 1;
            s.run_start = op.start_ns;
            s.run_end = op.end_ns;
            s.last = i;
        } else if op.end_ns > s.run_end {
            s.run_end = op.end_ns;
            s.last = i;
        }
    }
    let (pid, device) = (dev_ops[0].pid, dev_ops[0].device);
    acc.into_iter()
        .map(|(stream, s)| {
            let busy = s.busy + s.run_end - s.run_start;
            let span = s.run_end - s.start;
            StreamGaps {
                pid,
                device,
                stream,
                start_ns: s.start,
                end_ns: s.run_end,
                span_ns: span,
                busy_ns: busy,
                idle_ns: span - busy,
                gap_count: s.gaps,
                ops: s.ops,
                classes: s.classes,
            }
        })
        .collect()
}
