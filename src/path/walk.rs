//! The backward walk (docs/path.md, "The critical path"): from the step's
//! last-ending GPU op, through each node's own time and the edge that
//! binds it, back to the step's start, clipped there. The segments are
//! contiguous, so they cover `[gpu_start_ns, gpu_end_ns]` exactly once and
//! the parts sum to the step to the ns.

use super::model::{Lane, PartName, PathPart, Segment};
use super::node::{Binding, Graph, NodeKind, NONE};
use super::ranks::Arrivals;
use super::roofs::{KernelRoofs, RoofSide};
use crate::timeline::{OpKind, Timeline};

/// What the walk reads.
pub struct Walker<'a> {
    /// The timeline.
    pub tl: &'a Timeline,
    /// Its graph, ordered.
    pub graph: &'a Graph,
    /// Each kernel's bound (for the side its time counts in).
    pub roofs: &'a KernelRoofs,
    /// Each collective's last rank's arrival (several ranks).
    pub arrivals: &'a Arrivals,
}

/// Where the walk stands: at a node's end (its own time next), or at its
/// start (reached by a launch edge: the call's own time is not on the path).
#[derive(Clone, Copy)]
enum At {
    End(u32),
    Start(u32),
}

impl Walker<'_> {
    /// The part a node's own time counts in.
    pub fn own_part(&self, node: u32) -> PartName {
        match self.graph.nodes[node as usize].kind {
            NodeKind::Host { .. } => PartName::HostCall,
            NodeKind::Op { index } => {
                let op = &self.tl.ops[index as usize];
                match op.kind {
                    OpKind::Memcpy | OpKind::Memset => PartName::Copy,
                    OpKind::Graph => PartName::Graph,
                    OpKind::Kernel if self.tl.is_comm(op) => PartName::Collective,
                    OpKind::Kernel => match self.roofs.get(index as usize).map(|r| r.side) {
                        Some(RoofSide::Memory) => PartName::KernelMemory,
                        Some(RoofSide::Compute) => PartName::KernelCompute,
                        Some(RoofSide::Link) => PartName::Collective,
                        None => PartName::KernelNoModel,
                    },
                }
            }
        }
    }

    /// The lane a node lies on.
    pub fn lane(&self, node: u32) -> Lane {
        match self.graph.nodes[node as usize].kind {
            NodeKind::Host { tid, .. } => Lane::Thread { tid },
            NodeKind::Op { index } => {
                let op = &self.tl.ops[index as usize];
                Lane::Stream {
                    device: op.device,
                    stream: op.stream,
                }
            }
        }
    }

    /// A node's name, for people.
    pub fn label(&self, node: u32) -> String {
        match self.graph.nodes[node as usize].kind {
            NodeKind::Host { name, .. } => self.tl.name(name).to_string(),
            NodeKind::Op { index } => self.tl.name(self.tl.ops[index as usize].name).to_string(),
        }
    }

    /// The path of the window `[w0, w1]` ending at `last` (the step's
    /// last-ending GPU op; `None`: no op, the whole window is before the
    /// first event), in time order.
    pub fn walk(&self, last: Option<u32>, w0: i64, w1: i64) -> Vec<Segment> {
        let mut out = Path {
            segments: Vec::new(),
            w0,
        };
        let Some(last) = last else {
            out.push(
                w0,
                w1,
                PartName::BeforeFirstEvent,
                Lane::Between,
                String::new(),
            );
            return out.segments;
        };
        let end = self.graph.nodes[last as usize].end_ns;
        if end < w1 {
            // A step window past its last op (a range with no launch in
            // it is its host range): the GPU sat idle.
            out.push(
                end,
                w1,
                PartName::GpuGap,
                Lane::Between,
                "after the last GPU op".into(),
            );
        }
        let mut at = At::End(last);
        // Each node is met at most twice (its end, its start) in a DAG.
        for _ in 0..=2 * self.graph.nodes.len() {
            let next = match at {
                At::End(n) => self.back_from_end(n, &mut out),
                At::Start(n) => self.back_from_start(n, &mut out),
            };
            match next {
                Some(a) => at = a,
                None => break,
            }
        }
        out.segments.reverse();
        out.segments
    }

    /// From a node's end: a sync's wait, or its own time.
    fn back_from_end(&self, n: u32, out: &mut Path) -> Option<At> {
        let node = &self.graph.nodes[n as usize];
        if node.waited != NONE {
            let waited_end = self.graph.nodes[node.waited as usize].end_ns;
            out.push(
                waited_end,
                node.end_ns,
                PartName::Sync,
                self.lane(n),
                self.label(n),
            );
            return (waited_end > out.w0).then_some(At::End(node.waited));
        }
        // A collective that began before its last rank arrived: its own
        // time is the rest, the wait lies between the ranks, and the walk
        // carries on from its own arrival (its start).
        let arrival = match node.kind {
            NodeKind::Op { index } => self.arrivals.last_arrival_ns(index as usize),
            NodeKind::Host { .. } => None,
        }
        .filter(|&a| a > node.start_ns)
        .map_or(node.start_ns, |a| a.min(node.end_ns));
        out.push(
            arrival,
            node.end_ns,
            self.own_part(n),
            self.lane(n),
            self.label(n),
        );
        out.push(
            node.start_ns,
            arrival,
            PartName::WaitingForRank,
            Lane::Between,
            self.label(n),
        );
        (node.start_ns > out.w0).then_some(At::Start(n))
    }

    /// From a node's start: the binding edge's gap, then its source.
    fn back_from_start(&self, n: u32, out: &mut Path) -> Option<At> {
        let node = &self.graph.nodes[n as usize];
        let Some(binding) = self.graph.slack[n as usize].binding else {
            out.push(
                out.w0,
                node.start_ns,
                PartName::BeforeFirstEvent,
                Lane::Between,
                String::new(),
            );
            return None;
        };
        let (source, part) = match binding {
            Binding::Stream => (node.stream_prev, PartName::GpuGap),
            Binding::Cross => (node.cross, PartName::Dependency),
            Binding::Launch => (node.launch, PartName::LaunchOverhead),
            Binding::Host => (node.host_prev, PartName::HostWork),
        };
        let from_end = binding != Binding::Launch;
        let c = self.graph.constraint(source, from_end);
        out.push(c, node.start_ns, part, self.lane(n), self.label(n));
        if c <= out.w0 {
            return None;
        }
        Some(if from_end {
            At::End(source)
        } else {
            At::Start(source)
        })
    }
}

/// The segments so far (latest first) and the window's start they clip at.
struct Path {
    segments: Vec<Segment>,
    w0: i64,
}

impl Path {
    /// Adds `[start, end]` clipped at `w0`, if anything is left.
    fn push(&mut self, start: i64, end: i64, part: PartName, lane: Lane, label: String) {
        let start = start.max(self.w0);
        if end > start {
            self.segments.push(Segment {
                start_ns: start,
                end_ns: end,
                part,
                lane,
                label,
            });
        }
    }
}

/// The parts of a path: each part's summed time, zero parts left out, in
/// [`PartName::ALL`]'s order.
pub fn parts(segments: &[Segment]) -> Vec<PathPart> {
    PartName::ALL
        .iter()
        .map(|&name| PathPart {
            name,
            ns: segments
                .iter()
                .filter(|s| s.part == name)
                .map(|s| s.end_ns - s.start_ns)
                .sum(),
        })
        .filter(|p| p.ns != 0)
        .collect()
}
