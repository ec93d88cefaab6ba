//! The dependency graph's plain data (docs/path.md, "The dependency
//! graph"): one [`Node`] per GPU op and per host interval, each with its
//! incoming edges as fields, and the [`Graph`] the walk and the replay
//! read. `graph` builds it, `topo` orders it; this file holds no logic
//! beyond small accessors, so every phase reads it one way.

use crate::timeline::NameRef;

/// "No node" in an edge field.
pub const NONE: u32 = u32::MAX;

/// What a node is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeKind {
    /// A GPU op: its index in `Timeline::ops`.
    Op {
        /// Index in `Timeline::ops`.
        index: u32,
    },
    /// A host interval: a runtime/driver call, a sync call, or both (a
    /// blocking copy listed in `api` and in `syncs` is one node).
    Host {
        /// Thread id.
        tid: u32,
        /// The call's name.
        name: NameRef,
        /// It launched at least one GPU op (a launch call).
        launches: bool,
    },
}

/// Which edge binds a node's start (docs/path.md, tie order: stream,
/// cross-stream, launch, host order; the sync edge binds an end).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Binding {
    /// Stream order: the previous op on the stream.
    Stream,
    /// A cross-stream dependency.
    Cross,
    /// The launch call's start.
    Launch,
    /// The previous call on the thread.
    Host,
}

/// One node: observed times and incoming edges (node indices or [`NONE`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Node {
    /// Observed start, ns.
    pub start_ns: i64,
    /// Observed end, ns.
    pub end_ns: i64,
    /// Process id.
    pub pid: u32,
    /// Op or host interval.
    pub kind: NodeKind,
    /// Host order: the previous host node of the thread (its end binds).
    pub host_prev: u32,
    /// Launch: the host node whose call launched this op (its start binds).
    pub launch: u32,
    /// Stream order: the previous op on the same (pid, device, stream).
    pub stream_prev: u32,
    /// Cross-stream: another stream's op that ended in the unexplained wait.
    pub cross: u32,
    /// Sync: the op this host node waited for (its end binds this end).
    pub waited: u32,
}

impl Node {
    /// A node with no edges yet.
    pub fn new(start_ns: i64, end_ns: i64, pid: u32, kind: NodeKind) -> Node {
        Node {
            start_ns,
            end_ns,
            pid,
            kind,
            host_prev: NONE,
            launch: NONE,
            stream_prev: NONE,
            cross: NONE,
            waited: NONE,
        }
    }

    /// Its own time, ns.
    pub fn duration_ns(&self) -> i64 {
        self.end_ns - self.start_ns
    }

    /// The edges into its start, as (binding kind, source node, the
    /// source's event that constrains: true for its end).
    pub fn start_edges(&self) -> [(Binding, u32, bool); 4] {
        [
            (Binding::Stream, self.stream_prev, true),
            (Binding::Cross, self.cross, true),
            (Binding::Launch, self.launch, false),
            (Binding::Host, self.host_prev, true),
        ]
    }
}

/// Start event of node `n` (events: `2n` start, `2n + 1` end).
pub fn start_event(n: u32) -> usize {
    2 * n as usize
}

/// End event of node `n`.
pub fn end_event(n: u32) -> usize {
    2 * n as usize + 1
}

/// What each node's start keeps from the observed run: the slack over its
/// latest constraint and the edge that binds (`None`: no edge, the node is
/// anchored at its observed start).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Slack {
    /// Observed start − latest constraint, ns (≥ 0).
    pub ns: i64,
    /// The binding edge.
    pub binding: Option<Binding>,
}

/// The graph of a whole timeline: nodes `0..ops` are `Timeline::ops` in
/// order, host nodes follow; edges only from events no later than their
/// target's observed time, so the graph is acyclic after `topo` breaks the
/// ties a zero-duration chain can form.
#[derive(Debug, Clone, Default)]
pub struct Graph {
    /// Every node.
    pub nodes: Vec<Node>,
    /// Per node, the slack of its start (filled by `topo`).
    pub slack: Vec<Slack>,
    /// Per event, its rank in a topological order (filled by `topo`).
    pub rank: Vec<u32>,
    /// Edges dropped to break a cycle at equal timestamps.
    pub dropped_edges: u64,
    /// Edges dropped because their constraint was later than the observed
    /// time of their target (clock skew, overlapping ops on a stream).
    pub contradicted_edges: u64,
}

impl Graph {
    /// The observed time of an event.
    pub fn event_time(&self, event: usize) -> i64 {
        let n = &self.nodes[event / 2];
        if event % 2 == 0 {
            n.start_ns
        } else {
            n.end_ns
        }
    }

    /// The observed constraint of an edge from `source` (its end when
    /// `from_end`, else its start).
    pub fn constraint(&self, source: u32, from_end: bool) -> i64 {
        let n = &self.nodes[source as usize];
        if from_end {
            n.end_ns
        } else {
            n.start_ns
        }
    }
}
