//! Building the dependency graph of a timeline (docs/path.md, edges 1–5):
//! one node per GPU op and per host interval (a call in `Timeline::api`
//! and the same call in `Timeline::syncs` are one node), and each node's
//! incoming edges. An edge whose observed constraint is later than its
//! target's observed time is dropped and counted: the run shows it did not
//! constrain (host and device clocks disagree, or two ops overlap on one
//! stream), and keeping it would move the target in a replay of nothing.
//!
//! Linear after the sorts: each edge is found by one binary search and a
//! scan bounded by [`MAX_SYNC_SCAN`] or [`MAX_CROSS_SCAN`].

use super::node::{Graph, Node, NodeKind, NONE};
use crate::timeline::{CopyKind, SyncCall, Timeline, NO_API, NO_TID};
use std::collections::{HashMap, HashSet};

/// Ops looked at, newest end first, when looking for the op a sync waited
/// for: ops launched after the sync began (other threads) are skipped, and
/// a hostile export could make that scan long.
pub const MAX_SYNC_SCAN: usize = 4096;

/// Ops looked at when looking for another stream's op that ended in an
/// unexplained wait (edge 5).
pub const MAX_CROSS_SCAN: usize = 64;

/// A wait longer than this past every other constraint looks for a
/// cross-stream edge (edge 5), ns.
pub const CROSS_WAIT_NS: i64 = 1_000;

/// The whole timeline's graph, edges set, not yet ordered (`topo` orders
/// it and computes the slacks).
pub fn build(tl: &Timeline) -> Graph {
    let mut nodes: Vec<Node> = tl
        .ops
        .iter()
        .enumerate()
        .map(|(i, o)| {
            Node::new(
                o.start_ns,
                o.end_ns,
                o.pid,
                NodeKind::Op { index: i as u32 },
            )
        })
        .collect();
    let own = own_ops(tl);
    let host = host_nodes(tl, &mut nodes, &own);
    let mut contradicted = 0u64;
    contradicted += host_order(&mut nodes, tl.ops.len());
    contradicted += launches(tl, &mut nodes, &host.api_node);
    contradicted += stream_order(tl, &mut nodes);
    let by_end = OpsByEnd::new(tl);
    for &h in &host.syncs {
        let waited = waited_for(tl, &nodes, &by_end, (&host, &own), h);
        nodes[h as usize].waited = waited;
    }
    let waits: HashSet<u32> = tl.waits.iter().map(|w| w.0).collect();
    if !waits.is_empty() {
        cross_streams(tl, &mut nodes, &by_end, &waits);
    }
    Graph {
        nodes,
        contradicted_edges: contradicted,
        ..Graph::default()
    }
}

/// The host nodes made, with what the edges need.
struct HostNodes {
    /// Per `Timeline::api` index, its node.
    api_node: Vec<u32>,
    /// Per host node that is an api call, its api index (else [`NO_API`]),
    /// indexed by node − ops.
    node_api: Vec<u32>,
    /// The host nodes that are syncs (or blocking copies), by node.
    syncs: Vec<u32>,
}

/// Adds one host node per api call and per sync interval not already an
/// api call (same (pid, correlation id), or same thread and interval).
fn host_nodes(tl: &Timeline, nodes: &mut Vec<Node>, own: &[u32]) -> HostNodes {
    let first = nodes.len() as u32;
    let mut api_node = Vec::with_capacity(tl.api.len());
    let mut node_api = Vec::with_capacity(tl.api.len() + tl.syncs.len());
    let mut syncs = Vec::new();
    for (i, a) in tl.api.iter().enumerate() {
        let n = nodes.len() as u32;
        api_node.push(n);
        node_api.push(i as u32);
        nodes.push(Node::new(
            a.start_ns,
            a.end_ns,
            a.pid,
            NodeKind::Host {
                tid: a.tid,
                name: a.name,
                launches: false,
            },
        ));
        if waits_for_own_copy(tl, i as u32, own) {
            syncs.push(n);
        }
    }
    let by_interval: HashMap<(u32, u32, i64, i64), u32> =
        if tl.syncs.iter().any(|s| s.correlation_id == 0) {
            tl.api
                .iter()
                .enumerate()
                .map(|(i, a)| ((a.pid, a.tid, a.start_ns, a.end_ns), api_node[i]))
                .collect()
        } else {
            HashMap::new()
        };
    for s in tl.syncs.iter().filter(|s| s.tid != NO_TID) {
        match same_call(tl, s, &api_node, &by_interval) {
            Some(n) => {
                if !tl.is_blocking_name(nodes[n as usize].host_name()) {
                    syncs.push(n);
                }
            }
            None => {
                syncs.push(nodes.len() as u32);
                node_api.push(NO_API);
                nodes.push(Node::new(
                    s.start_ns,
                    s.end_ns,
                    s.pid,
                    NodeKind::Host {
                        tid: s.tid,
                        name: s.name,
                        launches: false,
                    },
                ));
            }
        }
    }
    syncs.sort_unstable();
    syncs.dedup();
    debug_assert_eq!(node_api.len(), nodes.len() - first as usize);
    HostNodes {
        api_node,
        node_api,
        syncs,
    }
}

/// The api call's node that a sync row is (same (pid, correlation id) on
/// the same thread, or the same thread and interval).
fn same_call(
    tl: &Timeline,
    s: &SyncCall,
    api_node: &[u32],
    by_interval: &HashMap<(u32, u32, i64, i64), u32>,
) -> Option<u32> {
    if s.correlation_id != 0 {
        let at = tl
            .api
            .binary_search_by_key(&(s.pid, s.correlation_id), |a| (a.pid, a.correlation_id))
            .ok()?;
        return (tl.api[at].tid == s.tid).then(|| api_node[at]);
    }
    by_interval
        .get(&(s.pid, s.tid, s.start_ns, s.end_ns))
        .copied()
}

impl Node {
    /// A host node's call name (UNKNOWN for an op).
    fn host_name(&self) -> crate::timeline::NameRef {
        match self.kind {
            NodeKind::Host { name, .. } => name,
            NodeKind::Op { .. } => crate::timeline::NameRef::UNKNOWN,
        }
    }
}

/// Edge 1: each host node after the previous one of its thread (by start,
/// then end). Returns the edges dropped as contradicted.
fn host_order(nodes: &mut [Node], first_host: usize) -> u64 {
    let tid = |n: &Node| match n.kind {
        NodeKind::Host { tid, .. } => tid,
        NodeKind::Op { .. } => NO_TID,
    };
    let mut order: Vec<u32> = (first_host as u32..nodes.len() as u32).collect();
    order.sort_unstable_by_key(|&i| {
        let n = &nodes[i as usize];
        (n.pid, tid(n), n.start_ns, n.end_ns, i)
    });
    let mut contradicted = 0;
    for pair in order.windows(2) {
        let (prev, next) = (&nodes[pair[0] as usize], &nodes[pair[1] as usize]);
        if (prev.pid, tid(prev)) != (next.pid, tid(next)) {
            continue;
        }
        if prev.end_ns <= next.start_ns {
            nodes[pair[1] as usize].host_prev = pair[0];
        } else {
            contradicted += 1;
        }
    }
    contradicted
}

/// Edge 2: each op after its launch call's start (a graph launch's replay
/// shares its call). Marks the launch calls. Returns the edges dropped.
fn launches(tl: &Timeline, nodes: &mut [Node], api_node: &[u32]) -> u64 {
    let mut contradicted = 0;
    for (i, o) in tl.ops.iter().enumerate() {
        if o.api == NO_API {
            continue;
        }
        let call = api_node[o.api as usize];
        if let NodeKind::Host { launches, .. } = &mut nodes[call as usize].kind {
            *launches = true;
        }
        if nodes[call as usize].start_ns <= o.start_ns {
            nodes[i].launch = call;
        } else {
            contradicted += 1;
        }
    }
    contradicted
}

/// Edge 3: each op after the previous op (by start) on its (pid, device,
/// stream). Returns the edges dropped.
fn stream_order(tl: &Timeline, nodes: &mut [Node]) -> u64 {
    let mut last: HashMap<(u32, u16, u32), u32> = HashMap::new();
    let mut contradicted = 0;
    for (i, o) in tl.ops.iter().enumerate() {
        if let Some(prev) = last.insert((o.pid, o.device, o.stream), i as u32) {
            if tl.ops[prev as usize].end_ns <= o.start_ns {
                nodes[i].stream_prev = prev;
            } else {
                contradicted += 1;
            }
        }
    }
    contradicted
}

/// Op indices sorted by (pid, end) and by (pid, device, end).
struct OpsByEnd {
    by_pid: Vec<u32>,
    by_device: Vec<u32>,
}

impl OpsByEnd {
    fn new(tl: &Timeline) -> OpsByEnd {
        let ops = &tl.ops;
        let mut by_pid: Vec<u32> = (0..ops.len() as u32).collect();
        by_pid.sort_unstable_by_key(|&i| (ops[i as usize].pid, ops[i as usize].end_ns, i));
        let mut by_device = by_pid.clone();
        by_device.sort_by_key(|&i| (ops[i as usize].pid, ops[i as usize].device));
        OpsByEnd { by_pid, by_device }
    }
}

/// Edge 4: the op sync node `h` waited for: for a blocking copy its own
/// copy; else among the process's ops launched before the sync began, the
/// one with the latest end in (sync start, sync end]. [`NONE`]: it did not
/// wait.
fn waited_for(
    tl: &Timeline,
    nodes: &[Node],
    by_end: &OpsByEnd,
    (host, own): (&HostNodes, &[u32]),
    h: u32,
) -> u32 {
    let sync = nodes[h as usize];
    let in_wait = |end: i64| end > sync.start_ns && end <= sync.end_ns;
    let api = host.node_api[h as usize - tl.ops.len()];
    if api != NO_API && waits_for_own_copy(tl, api, own) {
        // The copy itself: the latest-ending op its call launched.
        let copy = own[api as usize];
        return if copy != NONE && in_wait(tl.ops[copy as usize].end_ns) {
            copy
        } else {
            NONE
        };
    }
    let ops = &tl.ops;
    let lo = by_end
        .by_pid
        .partition_point(|&i| ops[i as usize].pid < sync.pid);
    let hi = by_end.by_pid.partition_point(|&i| {
        (ops[i as usize].pid, ops[i as usize].end_ns) <= (sync.pid, sync.end_ns)
    });
    by_end.by_pid[lo..hi]
        .iter()
        .rev()
        .take(MAX_SYNC_SCAN)
        .take_while(|&&i| in_wait(ops[i as usize].end_ns))
        .find(|&&i| {
            tl.api_of(&ops[i as usize])
                .is_some_and(|call| call.start_ns < sync.start_ns)
        })
        .copied()
        .unwrap_or(NONE)
}

/// True when api call `api` returns only once the copy it launched has
/// completed: a blocking copy (`cudaMemcpy`, `Timeline::is_blocking`), or
/// a copy from the device to pageable host memory whatever its call
/// (`cudaMemcpyAsync` included: the CUDA runtime API's "API
/// synchronization behavior" — for transfers from device memory to
/// pageable host memory the function returns only once the copy has
/// completed). `own` is [`own_ops`].
fn waits_for_own_copy(tl: &Timeline, api: u32, own: &[u32]) -> bool {
    if tl.is_blocking(&tl.api[api as usize]) {
        return true;
    }
    let copy = own.get(api as usize).copied().unwrap_or(NONE);
    copy != NONE && {
        let op = &tl.ops[copy as usize];
        op.is_pageable() && op.copy_kind() == Some(CopyKind::DtoH)
    }
}

/// Per api call, the latest-ending op it launched ([`NONE`]: none): a
/// blocking copy's own copy, found in one pass over the ops.
fn own_ops(tl: &Timeline) -> Vec<u32> {
    let mut own = vec![NONE; tl.api.len()];
    for (i, o) in tl.ops.iter().enumerate() {
        if o.api == NO_API {
            continue;
        }
        let slot = &mut own[o.api as usize];
        if *slot == NONE || tl.ops[*slot as usize].end_ns < o.end_ns {
            *slot = i as u32;
        }
    }
    own
}

/// Edge 5, on processes with stream-wait evidence: an op that started
/// more than [`CROSS_WAIT_NS`] after every other constraint waits on the
/// latest op of another stream of its device that ended in between.
fn cross_streams(tl: &Timeline, nodes: &mut [Node], by_end: &OpsByEnd, waits: &HashSet<u32>) {
    let ops = &tl.ops;
    let key = |i: u32| {
        let o = &ops[i as usize];
        (o.pid, o.device, o.end_ns)
    };
    for (i, o) in ops.iter().enumerate() {
        if !waits.contains(&o.pid) {
            continue;
        }
        let n = &nodes[i];
        let latest = [(n.launch, false), (n.stream_prev, true)]
            .iter()
            .filter(|(s, _)| *s != NONE)
            .map(|&(s, from_end)| {
                let src = &nodes[s as usize];
                if from_end {
                    src.end_ns
                } else {
                    src.start_ns
                }
            })
            .max()
            .unwrap_or(i64::MIN);
        if o.start_ns.saturating_sub(latest) <= CROSS_WAIT_NS {
            continue;
        }
        let hi = by_end
            .by_device
            .partition_point(|&j| key(j) <= (o.pid, o.device, o.start_ns));
        let found = by_end.by_device[..hi]
            .iter()
            .rev()
            .take(MAX_CROSS_SCAN)
            .take_while(|&&j| {
                let other = &ops[j as usize];
                (other.pid, other.device) == (o.pid, o.device) && other.end_ns > latest
            })
            .find(|&&j| ops[j as usize].stream != o.stream && j as usize != i)
            .copied();
        if let Some(j) = found {
            nodes[i].cross = j;
        }
    }
}
