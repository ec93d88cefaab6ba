//! Timeline -> [`GapReport`]. One sweep per (process, device) over ops sorted
//! by start gives the busy union, the gaps and their classes; the per-stream
//! view is the same sweep kept per stream in the same pass. Rules for the
//! classes are in `docs/gaps.md` and in [`classify`].

use super::model::*;
use super::GapClass;
use crate::nsys::{ApiCall, GpuOp, OpKind, SyncCall, Timeline};
use regex::Regex;
use std::collections::{BinaryHeap, HashMap};

/// Default launch-latency threshold: a queued op that starts less than this
/// after the GPU went idle is ordinary launch latency, ns.
pub const DEFAULT_LAUNCH_LATENCY_NS: i64 = 5_000;

/// Histogram edges, ns: 1-2-5 steps from 1 µs to 1 s, plus `[0, 1 µs)` and `[1 s, ∞)`.
pub const HIST_EDGES_NS: [i64; 20] = [
    0,
    1_000,
    2_000,
    5_000,
    10_000,
    20_000,
    50_000,
    100_000,
    200_000,
    500_000,
    1_000_000,
    2_000_000,
    5_000_000,
    10_000_000,
    20_000_000,
    50_000_000,
    100_000_000,
    200_000_000,
    500_000_000,
    1_000_000_000,
];

/// A top-gap candidate in the min-heap: (duration, reverse (pid, device,
/// start) so earlier gaps win ties, index of the op before, index of the op
/// after, class index).
type TopEntry = std::cmp::Reverse<(i64, std::cmp::Reverse<(u32, u16, i64)>, usize, usize, usize)>;

/// What to analyse and how (plain config, no CLI types).
#[derive(Debug, Clone)]
pub struct GapConfig {
    /// Only this device.
    pub device: Option<u16>,
    /// Only ops on this stream.
    pub stream: Option<u32>,
    /// Gaps shorter than this stay idle time (and in the class totals) but are
    /// left out of the distribution and the top list, ns.
    pub min_gap_ns: i64,
    /// Queued gaps shorter than this are launch latency, ns.
    pub launch_latency_ns: i64,
    /// How many longest gaps to list (0 = every gap of at least `min_gap_ns`).
    pub top: usize,
    /// NVTX ranges to report per instance.
    pub nvtx: Option<Regex>,
}

impl Default for GapConfig {
    fn default() -> Self {
        GapConfig {
            device: None,
            stream: None,
            min_gap_ns: 0,
            launch_latency_ns: DEFAULT_LAUNCH_LATENCY_NS,
            top: 10,
            nvtx: None,
        }
    }
}

/// Why the GPU idled over `[g0, g1)`, judged from `next` (the op whose start
/// ends the gap) and its launching call `api` (`blocking`: the call is a
/// blocking copy such as `cudaMemcpy`):
///
/// 1. no API row → unattributed (graph replay, device-side launch, trimmed export);
/// 2. the call started at or after `g0` (the GPU was idle before the host
///    even asked): synchronisation if the host spent that lateness blocked —
///    the process's latest sync call starting before the launch call
///    overlaps `[g0, call start)` and the host time between the sync's end
///    and the launch call is at most `max(latency_ns, time in the sync)` —
///    else host-bound (the host was busy elsewhere, e.g. `cudaMalloc` after a
///    sync);
/// 3. the call started before `g0` and returned after it → synchronisation
///    when the call is a blocking copy (it waited for earlier work: an
///    implicit sync), else launch in flight;
/// 4. the call had returned by `g0` (work queued, GPU idle anyway) → launch
///    latency when the gap is shorter than `latency_ns`, else
///    queued/dependency.
pub fn classify(
    g0: i64,
    g1: i64,
    api: Option<&ApiCall>,
    blocking: bool,
    syncs: &[SyncCall],
    latency_ns: i64,
) -> GapClass {
    let Some(a) = api else {
        return GapClass::Unattributed;
    };
    if a.start_ns >= g0 {
        // syncs: merged per process, sorted by (pid, start), disjoint: the
        // latest one starting strictly before the launch call is the only one
        // that can cover the end of the host's lateness [g0, a.start). Not
        // "at or before": a blocking copy (`cudaMemcpy`) is itself in `syncs`
        // and would hide the `cudaDeviceSynchronize` that returned just
        // before it, while covering nothing of [g0, a.start) itself.
        let j = syncs.partition_point(|s| (s.pid, s.start_ns) < (a.pid, a.start_ns));
        let blocked = j > 0 && {
            let s = &syncs[j - 1];
            let in_sync = overlap(s.start_ns, s.end_ns, g0, a.start_ns);
            let after_sync = a.start_ns - s.end_ns;
            s.pid == a.pid && in_sync > 0 && after_sync <= latency_ns.max(in_sync)
        };
        if blocked {
            GapClass::Synchronization
        } else {
            GapClass::HostBound
        }
    } else if a.end_ns > g0 {
        if blocking {
            GapClass::Synchronization
        } else {
            GapClass::LaunchInFlight
        }
    } else if g1 - g0 < latency_ns {
        GapClass::LaunchLatency
    } else {
        GapClass::QueuedDependency
    }
}

/// Merges each process's sync intervals so that ends are monotonic within a
/// process (needed by [`classify`]'s binary search).
pub fn merge_syncs(syncs: &[SyncCall]) -> Vec<SyncCall> {
    let mut out: Vec<SyncCall> = Vec::with_capacity(syncs.len());
    for s in syncs {
        match out.last_mut() {
            Some(l) if l.pid == s.pid && s.start_ns <= l.end_ns => {
                l.end_ns = l.end_ns.max(s.end_ns)
            }
            _ => out.push(*s),
        }
    }
    out
}

/// A device gap as found by the sweep: `[start, end)`, the index (in the
/// device slice) of the op that ended last before it and of the op after it.
#[derive(Debug, Clone, Copy)]
struct RawGap {
    start: i64,
    end: i64,
    before: usize,
    after: usize,
}

/// Sweeps ops sorted by start: returns (busy_ns, span_start, span_end) and
/// calls `on_gap` for each gap.
fn sweep(ops: &[GpuOp], mut on_gap: impl FnMut(RawGap)) -> (i64, i64, i64) {
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

/// Union length of sorted-by-start intervals of the given kinds.
fn union_of(ops: &[GpuOp], keep: impl Fn(&GpuOp) -> bool) -> i64 {
    let (mut busy, mut cur): (i64, Option<(i64, i64)>) = (0, None);
    for op in ops.iter().filter(|o| keep(o)) {
        cur = match cur {
            Some((s, e)) if op.start_ns <= e => Some((s, e.max(op.end_ns))),
            Some((s, e)) => {
                busy += e - s;
                Some((op.start_ns, op.end_ns))
            }
            None => Some((op.start_ns, op.end_ns)),
        };
    }
    busy + cur.map_or(0, |(s, e)| e - s)
}

/// Per-device data kept for `--nvtx` and timeline windows.
struct DeviceDetail {
    pid: u32,
    device: u16,
    span: (i64, i64),
    gaps: Vec<(i64, i64, GapClass)>,
    kernel_runs: Vec<(i64, i64)>,
    /// This device's ops are `ops[ops_at.0..ops_at.1]`, sorted by start.
    ops_at: (usize, usize),
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
}

/// Analyses a timeline.
pub fn analyze(tl: &Timeline, cfg: &GapConfig) -> GapReport {
    let filtered;
    let ops: &[GpuOp] = match cfg.stream {
        Some(s) => {
            filtered = tl
                .ops
                .iter()
                .filter(|o| o.stream == s)
                .copied()
                .collect::<Vec<_>>();
            &filtered
        }
        None => &tl.ops,
    };
    let syncs = merge_syncs(&tl.syncs);
    let keep_detail = cfg.nvtx.is_some();
    // (index of the group's first op in `ops`, the group's ops).
    let mut groups: Vec<(usize, &[GpuOp])> = Vec::new();
    let mut next_offset = 0usize;
    for dev_ops in ops.chunk_by(|a, b| (a.pid, a.device) == (b.pid, b.device)) {
        if cfg.device.is_none_or(|d| d == dev_ops[0].device) {
            groups.push((next_offset, dev_ops));
        }
        next_offset += dev_ops.len();
    }
    // Devices are independent: analyse them on parallel threads.
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(groups.len())
        .max(1);
    let one = |g: &(usize, &[GpuOp])| analyze_device(tl, g.1, g.0, &syncs, cfg, keep_detail);
    let outs: Vec<DeviceOut> = if threads == 1 {
        groups.iter().map(one).collect()
    } else {
        let mut parts: Vec<(usize, DeviceOut)> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..threads)
                .map(|t| {
                    let (groups, one) = (&groups, &one);
                    s.spawn(move || {
                        groups
                            .iter()
                            .enumerate()
                            .filter(|(i, _)| i % threads == t)
                            .map(|(i, g)| (i, one(g)))
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            handles
                .into_iter()
                .flat_map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
                .collect()
        });
        parts.sort_unstable_by_key(|p| p.0);
        parts.into_iter().map(|p| p.1).collect()
    };

    let mut devices = Vec::new();
    let mut streams = Vec::new();
    let mut details = Vec::new();
    let mut gap_durations: Vec<i64> = Vec::new();
    let mut histogram: Vec<HistBin> = HIST_EDGES_NS
        .iter()
        .enumerate()
        .map(|(i, &lo)| HistBin {
            lo_ns: lo,
            hi_ns: HIST_EDGES_NS.get(i + 1).copied(),
            count: 0,
            total_ns: 0,
        })
        .collect();
    let mut heap: BinaryHeap<TopEntry> = BinaryHeap::new();
    let n_ops = groups.iter().map(|g| g.1.len() as u64).sum::<u64>();
    for out in outs {
        devices.push(out.device);
        streams.extend(out.streams);
        details.extend(out.detail);
        if gap_durations.is_empty() {
            gap_durations = out.durations;
        } else {
            gap_durations.extend_from_slice(&out.durations);
        }
        for (h, (count, total)) in histogram.iter_mut().zip(out.hist) {
            h.count += count;
            h.total_ns += total;
        }
        for e in out.heap {
            push_bounded(&mut heap, e, cfg.top);
        }
    }

    let top_gaps = heap
        .into_sorted_vec()
        .into_iter()
        .map(
            |std::cmp::Reverse((d, std::cmp::Reverse((pid, device, start)), b, a, c))| {
                let after = &ops[a];
                TopGap {
                    pid,
                    device,
                    start_ns: start,
                    end_ns: start + d,
                    duration_ns: d,
                    class: GapClass::ALL[c],
                    before: op_ref(tl, &ops[b]),
                    after: op_ref(tl, after),
                    api: tl.api_of(after).map(|x| ApiRef {
                        name: tl.name(x.name).to_string(),
                        tid: x.tid,
                        start_ns: x.start_ns,
                        end_ns: x.end_ns,
                    }),
                }
            },
        )
        .collect();

    let distribution = GapDistribution {
        duration: dist(&mut gap_durations),
        histogram,
    };
    drop(gap_durations);
    let launch = launch_stats(tl, ops, cfg);
    let ranges = cfg
        .nvtx
        .as_ref()
        .map(|re| range_report(tl, ops, &details, re, cfg));

    let mut diagnostics = tl.diagnostics.clone();
    if launch.ops_without_api > 0 && launch.ops_with_api > 0 {
        diagnostics.push(format!(
            "{} of {} GPU ops have no launching API row in the export (trimmed export, graph replay or device-side launch): gaps they end are unattributed",
            launch.ops_without_api,
            launch.ops_with_api + launch.ops_without_api
        ));
    } else if launch.ops_with_api == 0 {
        diagnostics.push(
            "no CUDA API rows: every gap is unattributed; profile with `nsys profile --trace=cuda`"
                .to_string(),
        );
    }
    if n_ops == 0 {
        diagnostics.push("no GPU ops left after --device/--stream".to_string());
    }
    if let (Some(re), Some(rr)) = (&cfg.nvtx, &ranges) {
        if rr.instances.is_empty() {
            // Name a few range texts so the user can fix the pattern.
            let mut texts: Vec<&str> = tl.nvtx.iter().map(|r| r.text.as_str()).collect();
            texts.sort_unstable();
            texts.dedup();
            let shown: Vec<String> = texts.iter().take(5).map(|t| format!("`{t}`")).collect();
            diagnostics.push(if texts.is_empty() {
                format!(
                    "--nvtx `{re}`: the export has no closed NVTX ranges; profile with `nsys profile --trace=cuda,nvtx`"
                )
            } else {
                format!(
                    "--nvtx `{re}` matches none of the {} distinct NVTX range texts, e.g. {}",
                    texts.len(),
                    shown.join(", ")
                )
            });
        }
    }

    GapReport {
        schema: SCHEMA,
        input: InputSummary {
            nsys_version: tl.info.nsys_version.clone(),
            schema_flavor: tl.info.flavor,
            graph_trace: tl.graph_trace,
            graph_trace_option: tl.info.graph_trace_option.clone(),
            graph_launches: tl.graph_launches,
            nested_api_rows: tl.nested_api_rows,
            ops: n_ops,
        },
        settings: SettingsEcho {
            min_gap_ns: cfg.min_gap_ns,
            launch_latency_ns: cfg.launch_latency_ns,
            device: cfg.device,
            stream: cfg.stream,
        },
        devices,
        streams,
        launch,
        distribution,
        ranges,
        top_gaps,
        diagnostics,
    }
}

/// What one (process, device) contributes to the report.
struct DeviceOut {
    device: DeviceGaps,
    streams: Vec<StreamGaps>,
    detail: Option<DeviceDetail>,
    /// Durations of the gaps of at least `min_gap_ns`, ns.
    durations: Vec<i64>,
    /// (count, total ns) per histogram bin.
    hist: [(u64, i64); HIST_EDGES_NS.len()],
    heap: BinaryHeap<TopEntry>,
}

/// Keeps the `top` longest gaps (all when `top` is 0) in a min-heap.
fn push_bounded(heap: &mut BinaryHeap<TopEntry>, e: TopEntry, top: usize) {
    heap.push(e);
    if top > 0 && heap.len() > top {
        heap.pop();
    }
}

/// The sweep, classes, stream view and details of one (process, device);
/// `offset` is the index of `dev_ops[0]` in the analysed ops.
fn analyze_device(
    tl: &Timeline,
    dev_ops: &[GpuOp],
    offset: usize,
    syncs: &[SyncCall],
    cfg: &GapConfig,
    keep_detail: bool,
) -> DeviceOut {
    let (pid, device) = (dev_ops[0].pid, dev_ops[0].device);
    let mut classes = ClassTotals::default();
    let mut gap_count = 0u64;
    let mut detail_gaps = Vec::new();
    let mut durations = Vec::new();
    let mut hist = [(0u64, 0i64); HIST_EDGES_NS.len()];
    let mut heap = BinaryHeap::new();
    let (busy, span_start, span_end) = sweep(dev_ops, |g| {
        let next = &dev_ops[g.after];
        let api = tl.api_of(next);
        let blocking = api.is_some_and(|a| tl.is_blocking(a));
        let class = classify(g.start, g.end, api, blocking, syncs, cfg.launch_latency_ns);
        let d = g.end - g.start;
        classes.add(class, d);
        gap_count += 1;
        if keep_detail {
            detail_gaps.push((g.start, g.end, class));
        }
        if d >= cfg.min_gap_ns {
            durations.push(d);
            let bin = HIST_EDGES_NS.partition_point(|&e| e <= d) - 1;
            hist[bin].0 += 1;
            hist[bin].1 += d;
            let entry = std::cmp::Reverse((
                d,
                std::cmp::Reverse((pid, device, g.start)),
                offset + g.before,
                offset + g.after,
                class as usize,
            ));
            push_bounded(&mut heap, entry, cfg.top);
        }
    });
    let kernel_like = |o: &GpuOp| matches!(o.kind, OpKind::Kernel | OpKind::Graph);
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
            kernel_busy_ns: union_of(dev_ops, kernel_like),
            idle_ns: span_end - span_start - busy,
            gap_count,
            kernels: by_kind[OpKind::Kernel as usize],
            memcpys: by_kind[OpKind::Memcpy as usize],
            memsets: by_kind[OpKind::Memset as usize],
            graphs: by_kind[OpKind::Graph as usize],
            classes,
        },
        streams: stream_view(tl, dev_ops, syncs, cfg),
        detail: keep_detail.then(|| DeviceDetail {
            pid,
            device,
            span: (span_start, span_end),
            gaps: detail_gaps,
            kernel_runs: runs(dev_ops, kernel_like),
            ops_at: (offset, offset + dev_ops.len()),
        }),
        durations,
        hist,
        heap,
    }
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

fn op_ref(tl: &Timeline, op: &GpuOp) -> OpRef {
    OpRef {
        kind: op.kind,
        name: tl.name(op.name).to_string(),
        stream: op.stream,
        start_ns: op.start_ns,
        end_ns: op.end_ns,
    }
}

/// The per-stream sweep over one device's ops (sorted by start).
fn stream_view(
    tl: &Timeline,
    dev_ops: &[GpuOp],
    syncs: &[SyncCall],
    cfg: &GapConfig,
) -> Vec<StreamGaps> {
    // Sorted by stream id; few streams, so a binary search beats hashing.
    let mut acc: Vec<(u32, StreamAcc)> = Vec::new();
    for op in dev_ops {
        let k = match acc.binary_search_by_key(&op.stream, |a| a.0) {
            Ok(k) => k,
            Err(k) => {
                let fresh = StreamAcc {
                    start: op.start_ns,
                    run_start: op.start_ns,
                    run_end: op.end_ns,
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
            let api = tl.api_of(op);
            let blocking = api.is_some_and(|a| tl.is_blocking(a));
            let class = classify(g0, g1, api, blocking, syncs, cfg.launch_latency_ns);
            s.classes.add(class, g1 - g0);
            s.gaps += 1;
            s.run_start = op.start_ns;
            s.run_end = op.end_ns;
        } else if op.end_ns > s.run_end {
            s.run_end = op.end_ns;
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

/// Nearest-rank percentiles; reorders `v`.
fn dist(v: &mut [i64]) -> Dist {
    if v.is_empty() {
        return Dist::default();
    }
    let n = v.len();
    let total = v.iter().sum();
    let rank = |p: f64| (((p * n as f64).ceil() as usize).max(1) - 1).min(n - 1);
    let idx = [0, rank(0.5), rank(0.9), rank(0.99), n - 1];
    // Successive selections on the shrinking tail: O(n) overall.
    let mut vals = [0i64; 5];
    let mut lo = 0usize;
    for (k, &i) in idx.iter().enumerate() {
        if i < lo {
            vals[k] = v[i];
            continue;
        }
        let (_, x, _) = v[lo..].select_nth_unstable(i - lo);
        vals[k] = *x;
        lo = i;
    }
    Dist {
        count: n as u64,
        min_ns: vals[0],
        p50_ns: vals[1],
        p90_ns: vals[2],
        p99_ns: vals[3],
        max_ns: vals[4],
        total_ns: total,
    }
}

fn launch_stats(tl: &Timeline, ops: &[GpuOp], cfg: &GapConfig) -> LaunchStats {
    let in_scope = |o: &&GpuOp| cfg.device.is_none_or(|d| d == o.device);
    // A call that launched several ops (a graph launch) counts once: mark
    // the calls used instead of sorting their ids.
    let mut used = vec![false; tl.api.len()];
    let (mut ops_with_api, mut ops_without_api) = (0u64, 0u64);
    let mut buf: Vec<i64> = Vec::new();
    for o in ops.iter().filter(in_scope) {
        match tl.api_of(o) {
            Some(a) => {
                ops_with_api += 1;
                used[o.api as usize] = true;
                // A blocking copy returns after its op started (it waits for
                // it): its "queue delay" is not a queue delay.
                if !tl.is_blocking(a) {
                    buf.push(o.start_ns - a.end_ns);
                }
            }
            None => ops_without_api += 1,
        }
    }
    let queue_delay = dist(&mut buf);
    buf.clear();
    buf.extend(
        tl.api
            .iter()
            .zip(&used)
            .filter(|(_, u)| **u)
            .map(|(a, _)| a.end_ns - a.start_ns),
    );
    LaunchStats {
        launches: buf.len() as u64,
        ops_with_api,
        ops_without_api,
        api_duration: dist(&mut buf),
        queue_delay,
    }
}

/// Length of `[a0, a1) ∩ [b0, b1)`.
fn overlap(a0: i64, a1: i64, b0: i64, b1: i64) -> i64 {
    (a1.min(b1) - a0.max(b0)).max(0)
}

/// Sum of the overlaps of sorted disjoint intervals with `[w0, w1)`.
fn clipped<T>(
    items: &[T],
    w0: i64,
    w1: i64,
    iv: impl Fn(&T) -> (i64, i64),
    mut each: impl FnMut(&T, i64),
) {
    let i = items.partition_point(|x| iv(x).1 <= w0);
    for x in &items[i..] {
        let (s, e) = iv(x);
        if s >= w1 {
            break;
        }
        each(x, overlap(s, e, w0, w1));
    }
}

fn range_report(
    tl: &Timeline,
    ops: &[GpuOp],
    details: &[DeviceDetail],
    re: &Regex,
    cfg: &GapConfig,
) -> RangeReport {
    // Ops by (pid, tid, launch start) to project host ranges onto the GPU.
    let mut launched: Vec<(u32, u32, i64, usize)> = ops
        .iter()
        .enumerate()
        .filter(|(_, o)| cfg.device.is_none_or(|d| d == o.device))
        .filter_map(|(i, o)| tl.api_of(o).map(|a| (a.pid, a.tid, a.start_ns, i)))
        .collect();
    launched.sort_unstable();
    let mut instances = Vec::new();
    for r in tl.nvtx.iter().filter(|r| re.is_match(&r.text)) {
        let lo = launched.partition_point(|x| (x.0, x.1, x.2) < (r.pid, r.tid, r.start_ns));
        let hi = launched.partition_point(|x| (x.0, x.1, x.2) <= (r.pid, r.tid, r.end_ns));
        let mine = &launched[lo..hi];
        let (projected, w0, w1) = if mine.is_empty() {
            (false, r.start_ns, r.end_ns)
        } else {
            let s = mine
                .iter()
                .map(|x| ops[x.3].start_ns)
                .min()
                .unwrap_or(r.start_ns);
            let e = mine
                .iter()
                .map(|x| ops[x.3].end_ns)
                .max()
                .unwrap_or(r.end_ns);
            (true, s, e)
        };
        let mut devs: Vec<u16> = if projected {
            mine.iter().map(|x| ops[x.3].device).collect()
        } else {
            details
                .iter()
                .filter(|d| d.pid == r.pid)
                .map(|d| d.device)
                .collect()
        };
        devs.sort_unstable();
        devs.dedup();
        let (mut idle, mut in_span, mut kbusy) = (0i64, 0i64, 0i64);
        let mut classes = ClassTotals::default();
        for d in details
            .iter()
            .filter(|d| d.pid == r.pid && devs.contains(&d.device))
        {
            in_span += overlap(d.span.0, d.span.1, w0, w1);
            clipped(
                &d.gaps,
                w0,
                w1,
                |g| (g.0, g.1),
                |g, len| {
                    if len > 0 {
                        idle += len;
                        classes.add(g.2, len);
                    }
                },
            );
            clipped(&d.kernel_runs, w0, w1, |k| *k, |_, len| kbusy += len);
        }
        let kernels = if projected {
            mine.iter()
                .filter(|x| ops[x.3].kind == OpKind::Kernel)
                .count() as u64
        } else {
            // Kernels starting in the window: binary search in each device's ops.
            details
                .iter()
                .filter(|d| d.pid == r.pid && devs.contains(&d.device))
                .map(|d| {
                    let dev = &ops[d.ops_at.0..d.ops_at.1];
                    let lo = dev.partition_point(|o| o.start_ns < w0);
                    let hi = dev.partition_point(|o| o.start_ns < w1);
                    dev[lo..hi]
                        .iter()
                        .filter(|o| o.kind == OpKind::Kernel)
                        .count() as u64
                })
                .sum()
        };
        instances.push(RangeRow {
            text: r.text.clone(),
            pid: r.pid,
            tid: r.tid,
            start_ns: r.start_ns,
            end_ns: r.end_ns,
            wall_ns: r.end_ns - r.start_ns,
            projected,
            gpu_start_ns: w0,
            gpu_end_ns: w1,
            busy_ns: in_span - idle,
            kernel_busy_ns: kbusy,
            idle_ns: idle,
            kernels,
            classes,
        });
    }
    let mp = |f: &dyn Fn(&RangeRow) -> i64| {
        let mut v: Vec<i64> = instances.iter().map(f).collect();
        let d = dist(&mut v);
        MedianP90 {
            median: d.p50_ns,
            p90: d.p90_ns,
        }
    };
    let mut classes = ClassTotals::default();
    for r in &instances {
        for (i, t) in r.classes.0.iter().enumerate() {
            classes.0[i].count += t.count;
            classes.0[i].total_ns += t.total_ns;
        }
    }
    RangeReport {
        pattern: re.as_str().to_string(),
        wall_ns: mp(&|r| r.wall_ns),
        gpu_window_ns: mp(&|r| r.gpu_end_ns - r.gpu_start_ns),
        kernel_busy_ns: mp(&|r| r.kernel_busy_ns),
        idle_ns: mp(&|r| r.idle_ns),
        kernels: mp(&|r| r.kernels as i64),
        classes,
        instances,
    }
}

/// Every device gap with its class (after `--device`/`--stream`), sorted by
/// (pid, device, start): the input of a gap histogram by class.
pub fn classified_gaps(tl: &Timeline, cfg: &GapConfig) -> Vec<ClassifiedGap> {
    window_gaps(tl, cfg, i64::MIN, i64::MAX)
}

fn window_gaps(tl: &Timeline, cfg: &GapConfig, start_ns: i64, end_ns: i64) -> Vec<ClassifiedGap> {
    let syncs = merge_syncs(&tl.syncs);
    let mut gaps = Vec::new();
    for dev_ops in tl
        .ops
        .chunk_by(|a, b| (a.pid, a.device) == (b.pid, b.device))
    {
        let (pid, device) = (dev_ops[0].pid, dev_ops[0].device);
        if cfg.device.is_some_and(|d| d != device) {
            continue;
        }
        let scoped: Vec<GpuOp>;
        let dev_ops: &[GpuOp] = match cfg.stream {
            Some(s) => {
                scoped = dev_ops.iter().filter(|o| o.stream == s).copied().collect();
                &scoped
            }
            None => dev_ops,
        };
        sweep(dev_ops, |g| {
            if g.start < end_ns && g.end > start_ns {
                let api = tl.api_of(&dev_ops[g.after]);
                let blocking = api.is_some_and(|a| tl.is_blocking(a));
                gaps.push(ClassifiedGap {
                    pid,
                    device,
                    start_ns: g.start,
                    end_ns: g.end,
                    class: classify(g.start, g.end, api, blocking, &syncs, cfg.launch_latency_ns),
                });
            }
        });
    }
    gaps
}

/// The ops and classified gaps overlapping `[start_ns, end_ns)`, for drawing
/// a timeline (lanes per device/stream, gaps coloured by class).
pub fn window(tl: &Timeline, cfg: &GapConfig, start_ns: i64, end_ns: i64) -> TimelineWindow {
    let mut lanes: HashMap<(u32, u16, u32), Vec<OpBar>> = HashMap::new();
    let visible = tl.ops.iter().filter(|o| {
        cfg.device.is_none_or(|d| d == o.device)
            && cfg.stream.is_none_or(|s| s == o.stream)
            && o.start_ns < end_ns
            && o.end_ns > start_ns
    });
    for op in visible {
        lanes
            .entry((op.pid, op.device, op.stream))
            .or_default()
            .push(OpBar {
                kind: op.kind,
                name: tl.name(op.name).to_string(),
                start_ns: op.start_ns,
                end_ns: op.end_ns,
            });
    }
    let mut lanes: Vec<Lane> = lanes
        .into_iter()
        .map(|((pid, device, stream), ops)| Lane {
            pid,
            device,
            stream,
            ops,
        })
        .collect();
    lanes.sort_by_key(|l| (l.pid, l.device, l.stream));
    TimelineWindow {
        start_ns,
        end_ns,
        lanes,
        gaps: window_gaps(tl, cfg, start_ns, end_ns),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn api(start: i64, end: i64) -> ApiCall {
        ApiCall {
            start_ns: start,
            end_ns: end,
            pid: 1,
            tid: 1,
            correlation_id: 1,
            name: crate::nsys::NameRef(0),
        }
    }

    #[test]
    fn classes_follow_the_documented_rules() {
        // Gap [100, 200); a sync from 50 to 150 (the host was blocked for 50
        // ns of the gap).
        let sync = [SyncCall {
            pid: 1,
            start_ns: 50,
            end_ns: 150,
        }];
        assert_eq!(
            classify(100, 200, None, false, &[], 5),
            GapClass::Unattributed
        );
        assert_eq!(
            classify(100, 200, Some(&api(120, 130)), false, &[], 5),
            GapClass::HostBound
        );
        // Launch 10 ns after the sync returned: 10 <= max(5, 50 in sync).
        assert_eq!(
            classify(100, 200, Some(&api(160, 170)), false, &sync, 5),
            GapClass::Synchronization
        );
        // Launch 60 ns after the sync returned: the host was busy elsewhere
        // for longer than it was blocked (60 > max(5, 50)).
        assert_eq!(
            classify(100, 200, Some(&api(210, 220)), false, &sync, 5),
            GapClass::HostBound
        );
        // A sync that ended before the gap began explains nothing.
        let early = [SyncCall {
            pid: 1,
            start_ns: 50,
            end_ns: 99,
        }];
        assert_eq!(
            classify(100, 200, Some(&api(101, 110)), false, &early, 5),
            GapClass::HostBound
        );
        // Another process's sync explains nothing.
        let other = [SyncCall {
            pid: 2,
            start_ns: 50,
            end_ns: 150,
        }];
        assert_eq!(
            classify(100, 200, Some(&api(160, 170)), false, &other, 5),
            GapClass::HostBound
        );
        assert_eq!(
            classify(100, 200, Some(&api(90, 130)), false, &sync, 5),
            GapClass::LaunchInFlight
        );
        // The same call as a blocking cudaMemcpy: it waited for earlier work.
        assert_eq!(
            classify(100, 200, Some(&api(90, 130)), true, &sync, 5),
            GapClass::Synchronization
        );
        assert_eq!(
            classify(100, 200, Some(&api(10, 20)), false, &sync, 5),
            GapClass::QueuedDependency
        );
        assert_eq!(
            classify(100, 104, Some(&api(10, 20)), false, &[], 5),
            GapClass::LaunchLatency
        );
    }

    #[test]
    fn a_blocking_copy_after_a_sync_is_synchronisation() {
        // `cudaDeviceSynchronize` 30..1000, then `cudaMemcpy` 1001..1600
        // whose copy starts at 1500; the last kernel ended at 900, so the gap
        // is [900, 1500). The host was blocked in the sync for 100 ns of the
        // gap and called the copy 1 ns after the sync returned (1 <= max(5000,
        // 100)): synchronisation. The copy is itself a sync interval (it
        // blocks); it must not hide the earlier sync (it used to: the gap
        // read as host-bound).
        let syncs = merge_syncs(&[
            SyncCall {
                pid: 1,
                start_ns: 30,
                end_ns: 1000,
            },
            SyncCall {
                pid: 1,
                start_ns: 1001,
                end_ns: 1600,
            },
        ]);
        assert_eq!(syncs.len(), 2);
        assert_eq!(
            classify(900, 1500, Some(&api(1001, 1600)), true, &syncs, 5000),
            GapClass::Synchronization
        );
        // Without the earlier sync the same copy is host-bound: the host
        // called it 101 ns after the GPU went idle and was not blocked.
        assert_eq!(
            classify(900, 1500, Some(&api(1001, 1600)), true, &syncs[1..], 5000),
            GapClass::HostBound
        );
    }

    #[test]
    fn percentiles_are_nearest_rank() {
        let mut v: Vec<i64> = (1..=10).rev().collect();
        let d = dist(&mut v);
        assert_eq!(
            (d.min_ns, d.p50_ns, d.p90_ns, d.p99_ns, d.max_ns, d.total_ns),
            (1, 5, 9, 10, 10, 55)
        );
    }
}
