//! The GPU side of HTA's critical-path graph (`_construct_graph_from_kernels`)
//! on rooftrace's reading: which GPU ops and `cuda_sync` records the window
//! keeps, each op's span, launch-delay or kernel-kernel edge, and the sync
//! edges of stream, context, event syncs and stream waits
//! (docs/path-hta.md).

use crate::path_hta_rules::{is_comm, Clock, EdgeKind, GpuSide, Graph, HostEvent, RawFacts};
use rooftrace::kineto::{KinetoTrace, SyncKind};
use rooftrace::timeline::NO_API;
use std::collections::{HashMap, HashSet};

/// A GPU op, or a `cuda_sync` record, of the window.
pub struct GpuEvent {
    pub start_us: i64,
    pub end_us: i64,
    /// HTA sorts ops by start and sync records by end.
    sort_us: i64,
    what: What,
    /// Its (start, end) nodes: an op's. A `cuda_sync` record has none in
    /// HTA's graph, even one drawn on a stream.
    pub nodes: Option<(usize, usize)>,
}

impl GpuEvent {
    /// Whether it is a node pair of the graph (an op).
    pub fn has_nodes(&self) -> bool {
        matches!(self.what, What::Op(_))
    }
}

#[derive(Clone, Copy)]
enum What {
    Op(usize),
    Record(usize),
}

/// The `cuda_sync` record's kind, by the call it belongs to (the timeline
/// keeps `Blocking` for event, stream and context syncs alike).
#[derive(PartialEq)]
enum SyncName {
    StreamWait,
    Event,
    Stream,
    Context,
}

fn call_name(t: &KinetoTrace, correlation: u32) -> Option<&str> {
    let tl = &t.timeline;
    tl.api
        .iter()
        .find(|a| a.correlation_id == correlation)
        .map(|a| tl.name(a.name))
        .or_else(|| {
            tl.syncs
                .iter()
                .find(|s| s.correlation_id == correlation)
                .map(|s| tl.name(s.name))
        })
}

fn sync_name(t: &KinetoTrace, r: usize) -> Option<SyncName> {
    let rec = &t.sync_records[r];
    if rec.kind == Some(SyncKind::WaitEvent) {
        return Some(SyncName::StreamWait);
    }
    let call = call_name(t, rec.correlation_id)?;
    if call.contains("Event") {
        Some(SyncName::Event)
    } else if call.contains("StreamSynchronize") {
        Some(SyncName::Stream)
    } else if call.contains("DeviceSynchronize") || call.contains("CtxSynchronize") {
        Some(SyncName::Context)
    } else {
        None
    }
}

/// The GPU ops and sync records HTA's clip keeps for the window, given the
/// host events in it.
pub fn gpu_events(
    t: &KinetoTrace,
    _raw: &RawFacts,
    clock: Clock,
    host: &[&HostEvent],
    window: Option<(i64, i64)>,
) -> Vec<GpuEvent> {
    let calls: HashSet<u32> = host
        .iter()
        .map(|e| e.correlation)
        .filter(|c| *c != 0)
        .collect();
    let tl = &t.timeline;
    let mut out: Vec<GpuEvent> = tl
        .ops
        .iter()
        .enumerate()
        .filter(|(_, o)| o.api != NO_API && calls.contains(&o.correlation_id))
        .map(|(i, o)| GpuEvent {
            start_us: clock.start(o.start_ns),
            end_us: clock.end(o.end_ns),
            sort_us: clock.start(o.start_ns),
            what: What::Op(i),
            nodes: None,
        })
        .collect();
    let inside = |s: i64| window.is_none_or(|(a, b)| s >= a && s <= b);
    for (i, r) in t.sync_records.iter().enumerate() {
        let (start_us, end_us) = (clock.start(r.start_ns), clock.end(r.end_ns));
        let kept = if r.stream.is_some_and(|s| s != -1) {
            calls.contains(&r.correlation_id) || r.kind == Some(SyncKind::WaitEvent)
        } else {
            inside(start_us) && end_us > start_us
        };
        if kept {
            out.push(GpuEvent {
                start_us,
                end_us,
                sort_us: end_us,
                what: What::Record(i),
                nodes: None,
            });
        }
    }
    out
}

/// Launch calls (HTA's launch list) in time order: (call start µs, pid,
/// tid, op index).
pub fn launches(
    t: &KinetoTrace,
    clock: Clock,
    queue: &HashMap<usize, (i64, i64)>,
) -> Vec<(i64, u32, u32, usize)> {
    let tl = &t.timeline;
    let mut v: Vec<(i64, u32, u32, usize)> = queue
        .keys()
        .map(|&i| {
            let call = &tl.api[tl.ops[i].api as usize];
            (clock.start(call.start_ns), call.pid, call.tid, i)
        })
        .collect();
    v.sort();
    v
}

/// The op an event record followed: the last launch on the recorded stream
/// at or before the `cudaEventRecord` call (`_get_cuda_event_record_df`).
fn previous_launch(t: &KinetoTrace, side: &GpuSide, stream: i64, record: u32) -> Option<usize> {
    let tl = &t.timeline;
    let call = tl.api.iter().find(|a| a.correlation_id == record)?;
    let at = side.clock.start(call.start_ns);
    side.launches
        .iter()
        .rev()
        .find(|l| i64::from(tl.ops[l.3].stream) == stream && l.0 <= at)
        .map(|l| l.3)
}

/// The op a `cudaStreamWaitEvent` made wait: the next launch by the same
/// thread on the waiting stream (`_get_cuda_stream_wait_event_df`).
fn next_launch(t: &KinetoTrace, side: &GpuSide, wait_corr: u32, stream: i64) -> Option<usize> {
    let tl = &t.timeline;
    let call = tl.api.iter().find(|a| a.correlation_id == wait_corr)?;
    let at = side.clock.start(call.start_ns);
    side.launches
        .iter()
        .find(|l| {
            l.1 == call.pid
                && l.2 == call.tid
                && i64::from(tl.ops[l.3].stream) == stream
                && l.0 >= at
        })
        .map(|l| l.3)
}

/// Every GPU edge, in HTA's order (`_construct_graph_from_kernels`).
pub fn gpu_edges(g: &mut Graph, side: &GpuSide, gpu: &[GpuEvent]) {
    let t = side.t;
    let tl = &t.timeline;
    let queue = &side.queue;
    let op_nodes: HashMap<usize, (usize, usize)> = gpu
        .iter()
        .filter_map(|e| match e.what {
            What::Op(i) => Some((i, e.nodes?)),
            What::Record(_) => None,
        })
        .collect();
    let mut order: Vec<&GpuEvent> = gpu.iter().collect();
    order.sort_by_key(|e| (e.sort_us, e.start_us));
    let mut last: Vec<(u32, usize)> = Vec::new();
    let mut kernel_sync: HashMap<usize, usize> = HashMap::new();
    for e in order {
        let i = match e.what {
            What::Record(r) => {
                sync_edges(g, side, r, &last, &op_nodes, &mut kernel_sync);
                continue;
            }
            What::Op(i) => i,
        };
        let op = &tl.ops[i];
        let (start, end) = e.nodes.expect("an op has nodes");
        let class = if is_comm(tl.name(op.name)) {
            "gpu_communication_bound"
        } else {
            "gpu_compute_bound"
        };
        g.edge(start, end, EdgeKind::Operator, class, false);
        let call_ts = side.clock.start(tl.api[op.api as usize].start_ns);
        let mut sync_end: Option<usize> = None;
        if let Some(src) = kernel_sync.remove(&i) {
            if let Some(&(_, src_end)) = op_nodes.get(&src) {
                g.edge(src_end, start, EdgeKind::Sync, "none", false);
                sync_end = Some(src_end);
            }
        }
        let prev = last.iter().find(|l| l.0 == op.stream).map(|l| l.1);
        let ts = |n: usize| g.ts_of(n);
        let empty_queue = queue.get(&i).is_some_and(|q| *q == (1, 0));
        if empty_queue
            && prev.is_none_or(|p| ts(p) < call_ts)
            && sync_end.is_none_or(|s| ts(s) < call_ts)
        {
            let call_start = side.call_nodes[&op.correlation_id].0;
            g.edge(
                call_start,
                start,
                EdgeKind::LaunchDelay,
                "gpu_kernel_launch_overhead",
                false,
            );
        } else if let Some(p) = prev {
            if sync_end.is_none_or(|s| ts(s) < ts(p)) {
                g.edge(
                    p,
                    start,
                    EdgeKind::KernelKernel,
                    "gpu_kernel_kernel_overhead",
                    false,
                );
            }
        }
        match last.iter_mut().find(|l| l.0 == op.stream) {
            Some(l) => l.1 = end,
            None => last.push((op.stream, end)),
        }
    }
}

/// `handle_cuda_sync`: a sync record's edges, or the wait it schedules.
fn sync_edges(
    g: &mut Graph,
    side: &GpuSide,
    r: usize,
    last: &[(u32, usize)],
    op_nodes: &HashMap<usize, (usize, usize)>,
    kernel_sync: &mut HashMap<usize, usize>,
) {
    let t = side.t;
    let rec = &t.sync_records[r];
    let Some(name) = sync_name(t, r) else {
        return;
    };
    let call_end = side.call_nodes.get(&rec.correlation_id).map(|n| n.1);
    match name {
        SyncName::StreamWait | SyncName::Event => {
            let Some(&(stream, record)) = side.raw.waits.get(&rec.correlation_id) else {
                return;
            };
            let Some(src) = previous_launch(t, side, stream, record) else {
                return;
            };
            if name == SyncName::StreamWait {
                let waiting = rec.stream.unwrap_or(-1);
                if let Some(dest) = next_launch(t, side, rec.correlation_id, waiting) {
                    kernel_sync.insert(dest, src);
                }
            } else if let (Some(&(_, src_end)), Some(end)) = (op_nodes.get(&src), call_end) {
                g.edge(src_end, end, EdgeKind::Sync, "none", false);
            }
        }
        SyncName::Stream => {
            let stream = rec.stream.unwrap_or(-1);
            let prev = last.iter().find(|l| i64::from(l.0) == stream);
            if let (Some(&(_, p)), Some(end)) = (prev, call_end) {
                g.edge(p, end, EdgeKind::Sync, "none", false);
            }
        }
        SyncName::Context => {
            for &(_, p) in last {
                if let Some(end) = call_end {
                    g.edge(p, end, EdgeKind::Sync, "none", false);
                }
            }
        }
    }
}
