//! HTA 0.5.0's critical-path rules (`hta/analyzers/critical_path_analysis.py`,
//! written down in docs/path-hta.md) applied to rooftrace's own reading of a
//! trace: the graph HTA builds for one window, its longest path as
//! `networkx.dag_longest_path` picks it, and the path's split by `bound_by`
//! and by edge type. Everything comes from the `KinetoTrace` rooftrace read,
//! except two facts its `Timeline` does not keep, taken from the raw JSON
//! and named in [`RawFacts`].

use rooftrace::kineto::KinetoTrace;
use rooftrace::timeline::{NO_API, NO_TID};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;

/// The facts HTA's path uses that rooftrace's `Timeline` does not keep.
pub struct RawFacts {
    /// Names of `user_annotation` events: the timeline keeps them among
    /// the host ranges with `cpu_op`s, without the category, and HTA's
    /// graph has `cpu_op` nodes but no annotation nodes.
    pub annotations: HashSet<String>,
    /// `cuda_sync` record correlation → (`args.wait_on_stream`,
    /// `args.wait_on_cuda_event_record_corr_id`): which event record an
    /// `Event Sync` or `Stream Wait Event` waited for (the timeline's
    /// `SyncRecord` keeps neither).
    pub waits: HashMap<u32, (i64, u32)>,
}

/// Reads [`RawFacts`] from the trace's raw JSON.
pub fn raw_facts(path: &Path) -> RawFacts {
    let mut facts = RawFacts {
        annotations: HashSet::new(),
        waits: HashMap::new(),
    };
    for e in crate::kineto::raw_events(path) {
        match e["cat"].as_str() {
            Some("user_annotation") => {
                facts
                    .annotations
                    .insert(e["name"].as_str().unwrap_or("").to_string());
            }
            Some("cuda_sync") => {
                let args = &e["args"];
                let (Some(corr), Some(stream), Some(record)) = (
                    args["correlation"].as_u64(),
                    args["wait_on_stream"].as_i64(),
                    args["wait_on_cuda_event_record_corr_id"].as_i64(),
                ) else {
                    continue;
                };
                if stream >= 0 && record > 0 {
                    facts.waits.insert(corr as u32, (stream, record as u32));
                }
            }
            _ => {}
        }
    }
    facts
}

/// HTA's edge types (`CPEdgeType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum EdgeKind {
    Operator,
    Dependency,
    LaunchDelay,
    KernelKernel,
    Sync,
}

impl EdgeKind {
    /// The name HTA's breakdown gives the type.
    pub fn hta_name(self) -> &'static str {
        match self {
            EdgeKind::Operator => "critical_path_operator",
            EdgeKind::Dependency => "critical_path_dependency",
            EdgeKind::LaunchDelay => "critical_path_kernel_launch_delay",
            EdgeKind::KernelKernel => "critical_path_kernel_kernel_delay",
            EdgeKind::Sync => "critical_path_sync_dependency",
        }
    }
}

struct Edge {
    from: usize,
    to: usize,
    weight: i64,
    kind: EdgeKind,
    class: &'static str,
}

/// The graph: node times (µs) and edges in HTA's insertion order.
#[derive(Default)]
pub struct Graph {
    ts: Vec<i64>,
    edges: Vec<Edge>,
    index: HashMap<(usize, usize), usize>,
}

impl Graph {
    /// A node's time, µs.
    pub fn ts_of(&self, node: usize) -> i64 {
        self.ts[node]
    }

    /// HTA's `_add_edge_helper`: dependency and sync edges (and a zero-
    /// weight span) weigh 0, others the time between the two nodes. A
    /// second edge between the same nodes replaces the first (networkx).
    pub fn edge(
        &mut self,
        from: usize,
        to: usize,
        kind: EdgeKind,
        class: &'static str,
        zero: bool,
    ) {
        let weight = match kind {
            EdgeKind::Dependency | EdgeKind::Sync => 0,
            _ if zero => 0,
            _ => self.ts[to] - self.ts[from],
        };
        let e = Edge {
            from,
            to,
            weight,
            kind,
            class,
        };
        match self.index.get(&(from, to)) {
            Some(&i) => self.edges[i] = e,
            None => {
                self.index.insert((from, to), self.edges.len());
                self.edges.push(e);
            }
        }
    }
}

/// One edge of HTA's path: from and to (µs, rooftrace's clock), its
/// weight and `bound_by` class.
#[derive(Debug, Clone, Copy)]
pub struct PathEdge {
    pub from_us: i64,
    pub to_us: i64,
    pub weight: i64,
    pub class: &'static str,
}

/// HTA's path on one window, as HTA's oracle file records it.
#[derive(Debug, PartialEq, Eq)]
pub struct HtaPath {
    pub graph_nodes: usize,
    pub graph_edges: usize,
    pub path_nodes: usize,
    pub path_us: i64,
    pub bound_by_us: BTreeMap<String, i64>,
    pub edge_type_us: BTreeMap<String, i64>,
    pub edge_type_count: BTreeMap<String, i64>,
}

/// `networkx.dag_longest_path` on the graph (weights below 0 count as 0,
/// as HTA's `_validate_graph` sets them): topological order by
/// generations, ties to the first predecessor by insertion, the path's end
/// the first node of the order with the longest distance.
pub fn longest_path(g: &Graph) -> (HtaPath, Vec<PathEdge>) {
    let n = g.ts.len();
    let mut succ: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut pred: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, e) in g.edges.iter().enumerate() {
        succ[e.from].push(i);
        pred[e.to].push(i);
    }
    let mut indegree: Vec<usize> = pred.iter().map(Vec::len).collect();
    let mut order: Vec<usize> = (0..n).filter(|v| indegree[*v] == 0).collect();
    let mut next = 0;
    while next < order.len() {
        let generation = order.len();
        for k in next..generation {
            for &i in &succ[order[k]] {
                let child = g.edges[i].to;
                indegree[child] -= 1;
                if indegree[child] == 0 {
                    order.push(child);
                }
            }
        }
        next = generation;
    }
    assert_eq!(order.len(), n, "HTA's graph has a cycle");
    let mut dist: Vec<(i64, Option<usize>)> = vec![(0, None); n];
    for &v in &order {
        let mut best: Option<(i64, usize)> = None;
        for &i in &pred[v] {
            let d = dist[g.edges[i].from].0 + g.edges[i].weight.max(0);
            if best.is_none_or(|b| d > b.0) {
                best = Some((d, i));
            }
        }
        dist[v] = match best {
            Some((d, i)) if d >= 0 => (d, Some(i)),
            _ => (0, None),
        };
    }
    let mut end = order[0];
    for &v in &order {
        if dist[v].0 > dist[end].0 {
            end = v;
        }
    }
    let mut out = HtaPath {
        graph_nodes: n,
        graph_edges: g.edges.len(),
        path_nodes: 1,
        path_us: dist[end].0,
        bound_by_us: BTreeMap::new(),
        edge_type_us: BTreeMap::new(),
        edge_type_count: BTreeMap::new(),
    };
    let mut v = end;
    let mut edges = Vec::new();
    while let Some(i) = dist[v].1 {
        let e = &g.edges[i];
        edges.push(PathEdge {
            from_us: g.ts[e.from],
            to_us: g.ts[e.to],
            weight: e.weight,
            class: e.class,
        });
        *out.bound_by_us.entry(e.class.to_string()).or_default() += e.weight;
        *out.edge_type_us
            .entry(e.kind.hta_name().into())
            .or_default() += e.weight;
        *out.edge_type_count
            .entry(e.kind.hta_name().into())
            .or_default() += 1;
        out.path_nodes += 1;
        v = e.from;
    }
    edges.reverse();
    (out, edges)
}

/// HTA's `BLOCKING_SYNC_CALLS`: the span into such a call's end weighs 0.
const BLOCKING: [&str; 6] = [
    "cudaDeviceSynchronize",
    "cudaStreamSynchronize",
    "cudaEventQuery",
    "cudaEventSynchronize",
    "cudaMemcpy",
    "cudaMemcpyAsync",
];

/// Whether HTA counts a call as blocking (its span weighs 0).
pub fn is_blocking(name: &str) -> bool {
    BLOCKING.contains(&name)
}

/// `get_runtime_launch_events_query`: the calls that count as launches.
const LAUNCHES: [&str; 11] = [
    "cudaLaunchKernel",
    "cudaLaunchKernelExC",
    "cuLaunchKernel",
    "cudaMemcpyAsync",
    "cudaMemsetAsync",
    "runFunction - job_prep_and_submit_for_execution",
    "hipLaunchKernel",
    "hipExtModuleLaunchKernel",
    "hipMemsetAsync",
    "hipMemcpyAsync",
    "hipMemcpyWithStream",
];

/// A host event of HTA's graph: a `cpu_op` or a runtime call.
#[derive(Clone)]
pub struct HostEvent {
    pub tid: u32,
    pub start_us: i64,
    pub end_us: i64,
    pub name: String,
    /// The call's correlation (0 for a `cpu_op`).
    pub correlation: u32,
}

/// ns → µs as HTA holds the trace: exact on whole-µs traces; on traces with
/// fractions a start rounded up and an end rounded down.
#[derive(Clone, Copy)]
pub struct Clock {
    pub rounds: bool,
}

impl Clock {
    pub fn start(self, ns: i64) -> i64 {
        if self.rounds {
            ns.div_euclid(1000) + i64::from(ns.rem_euclid(1000) != 0)
        } else {
            ns.div_euclid(1000)
        }
    }
    pub fn end(self, ns: i64) -> i64 {
        ns.div_euclid(1000)
    }
}

/// Every host event rooftrace read (cpu_op ranges, runtime calls, sync
/// calls), in µs.
pub fn host_events(t: &KinetoTrace, raw: &RawFacts, clock: Clock) -> Vec<HostEvent> {
    let tl = &t.timeline;
    let mut out: Vec<HostEvent> = tl
        .nvtx
        .iter()
        .filter(|r| !raw.annotations.contains(&*r.text))
        .map(|r| HostEvent {
            tid: r.tid,
            start_us: clock.start(r.start_ns),
            end_us: clock.end(r.end_ns),
            name: r.text.to_string(),
            correlation: 0,
        })
        .collect();
    let calls: HashSet<u32> = tl.api.iter().map(|a| a.correlation_id).collect();
    let api = tl
        .api
        .iter()
        .map(|a| (a.tid, a.start_ns, a.end_ns, a.name, a.correlation_id));
    let syncs = tl
        .syncs
        .iter()
        .filter(|s| s.tid != NO_TID && !calls.contains(&s.correlation_id))
        .map(|s| (s.tid, s.start_ns, s.end_ns, s.name, s.correlation_id));
    out.extend(
        api.chain(syncs)
            .map(|(tid, start, end, name, correlation)| HostEvent {
                tid,
                start_us: clock.start(start),
                end_us: clock.end(end),
                name: tl.name(name).to_string(),
                correlation,
            }),
    );
    out
}

/// HTA's host edges for one thread's events (those in the window):
/// depth-first over their nesting (`_construct_graph_from_call_stack`).
/// `nodes[i]` holds event i's (start, end) node.
fn host_edges(g: &mut Graph, events: &[&HostEvent], nodes: &[(usize, usize)]) {
    let mut order: Vec<usize> = (0..events.len()).collect();
    order.sort_by_key(|&i| (events[i].start_us, std::cmp::Reverse(events[i].end_us)));
    let mut stack: Vec<usize> = Vec::new();
    let mut last: Option<usize> = None;
    let mut last_top: Option<usize> = None;
    let exit = |g: &mut Graph,
                i: usize,
                depth: usize,
                last: &mut Option<usize>,
                top: &mut Option<usize>| {
        if let Some(l) = *last {
            let zero = is_blocking(&events[i].name);
            g.edge(l, nodes[i].1, EdgeKind::Operator, "cpu_bound", zero);
        }
        if depth == 0 {
            *last = None;
            *top = Some(nodes[i].1);
        } else {
            *last = Some(nodes[i].1);
        }
    };
    for i in order {
        while let Some(&top) = stack.last() {
            if events[i].end_us <= events[top].end_us && events[i].start_us < events[top].end_us {
                break;
            }
            stack.pop();
            exit(g, top, stack.len(), &mut last, &mut last_top);
        }
        if stack.is_empty() {
            if let Some(t) = last_top {
                g.edge(t, nodes[i].0, EdgeKind::Dependency, "none", false);
            }
        }
        if let Some(l) = last {
            g.edge(l, nodes[i].0, EdgeKind::Operator, "cpu_bound", false);
        }
        last = Some(nodes[i].0);
        stack.push(i);
    }
    while let Some(top) = stack.pop() {
        exit(g, top, stack.len(), &mut last, &mut last_top);
    }
}

/// What the GPU side of the graph reads: ops, launch calls, sync records.
pub struct GpuSide<'a> {
    pub t: &'a KinetoTrace,
    pub raw: &'a RawFacts,
    pub clock: Clock,
    /// Host event index of each call correlation (calls in the window).
    pub call_nodes: HashMap<u32, (usize, usize)>,
    /// [`queue_lengths`], computed once.
    pub queue: HashMap<usize, (i64, i64)>,
    /// The launch calls in time order (`path_hta_gpu::launches`).
    pub launches: Vec<(i64, u32, u32, usize)>,
}

/// Per op: (queue length after its launch call, after its own start), over
/// the whole trace, per stream id (`_get_queue_length_time_series_for_rank`).
pub fn queue_lengths(t: &KinetoTrace, clock: Clock) -> HashMap<usize, (i64, i64)> {
    let tl = &t.timeline;
    let mut rows: Vec<(u32, i64, bool, usize)> = Vec::new();
    for (i, op) in tl.ops.iter().enumerate() {
        if op.api == NO_API {
            continue;
        }
        let call = &tl.api[op.api as usize];
        if !LAUNCHES.contains(&tl.name(call.name)) {
            continue;
        }
        rows.push((op.stream, clock.start(call.start_ns), true, i));
        rows.push((op.stream, clock.start(op.start_ns), false, i));
    }
    // pandas' concat puts the calls first; the sort is by time.
    rows.sort_by_key(|r| (r.0, r.1, !r.2));
    let mut out: HashMap<usize, (i64, i64)> = HashMap::new();
    let mut queue: HashMap<u32, i64> = HashMap::new();
    for (stream, _, is_call, op) in rows {
        let q = queue.entry(stream).or_default();
        *q += if is_call { 1 } else { -1 };
        let slot = out.entry(op).or_default();
        if is_call {
            slot.0 = *q;
        } else {
            slot.1 = *q;
        }
    }
    out
}

/// Whether an op's name is a collective (`is_comm_kernel`: `^nccl.*Kernel`).
pub fn is_comm(name: &str) -> bool {
    name.starts_with("nccl") && name[4..].contains("Kernel")
}

pub use crate::path_hta_gpu::gpu_edges;

/// HTA's graph and path for one window (`None`: the whole trace).
pub fn hta_path(
    t: &KinetoTrace,
    raw: &RawFacts,
    clock: Clock,
    window: Option<(i64, i64)>,
) -> (HtaPath, Vec<PathEdge>) {
    let inside = |s: i64| window.is_none_or(|(a, b)| s >= a && s <= b);
    let all = host_events(t, raw, clock);
    let host: Vec<&HostEvent> = all
        .iter()
        .filter(|e| inside(e.start_us) && e.end_us > e.start_us)
        .collect();
    let mut gpu = crate::path_hta_gpu::gpu_events(t, raw, clock, &host, window);
    // Nodes sorted by time (HTA: every start, then every end, sorted).
    let mut times: Vec<(i64, usize, bool)> = Vec::new();
    let spans: Vec<(i64, i64)> = host
        .iter()
        .map(|e| (e.start_us, e.end_us))
        .chain(
            gpu.iter()
                .filter(|e| e.has_nodes())
                .map(|e| (e.start_us, e.end_us)),
        )
        .collect();
    for (i, s) in spans.iter().enumerate() {
        times.push((s.0, i, true));
    }
    for (i, s) in spans.iter().enumerate() {
        times.push((s.1, i, false));
    }
    times.sort_by_key(|t| t.0);
    let mut nodes = vec![(0, 0); spans.len()];
    let mut g = Graph::default();
    for (id, (ts, i, start)) in times.into_iter().enumerate() {
        g.ts.push(ts);
        if start {
            nodes[i].0 = id;
        } else {
            nodes[i].1 = id;
        }
    }
    let mut threads: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
    for (i, e) in host.iter().enumerate() {
        threads.entry(e.tid).or_default().push(i);
    }
    for idx in threads.values() {
        let events: Vec<&HostEvent> = idx.iter().map(|&i| host[i]).collect();
        let ns: Vec<(usize, usize)> = idx.iter().map(|&i| nodes[i]).collect();
        host_edges(&mut g, &events, &ns);
    }
    let call_nodes: HashMap<u32, (usize, usize)> = host
        .iter()
        .enumerate()
        .filter(|(_, e)| e.correlation != 0)
        .map(|(i, e)| (e.correlation, nodes[i]))
        .collect();
    for (k, e) in gpu.iter_mut().filter(|e| e.has_nodes()).enumerate() {
        e.nodes = Some(nodes[host.len() + k]);
    }
    let queue = queue_lengths(t, clock);
    let launches = crate::path_hta_gpu::launches(t, clock, &queue);
    let side = GpuSide {
        t,
        raw,
        clock,
        call_nodes,
        queue,
        launches,
    };
    gpu_edges(&mut g, &side, &gpu);
    longest_path(&g)
}
