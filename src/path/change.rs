//! The what-if changes (docs/path.md, "Changes"), as data: which change,
//! and what it does to one node's own time and slack ([`Edit`]). The
//! replay applies them; this file decides nothing about the graph's order.

use super::model::KERNEL_FLOOR_NS;
use super::node::{Binding, Graph, NodeKind, NONE};
use super::ranks::Arrivals;
use super::roofs::{KernelRoofs, RoofSide};
use crate::timeline::{NameRef, OpKind, Timeline};

/// The longest a launch call takes once launches are cheap (CUDA graphs),
/// ns: `launch_overhead_removed` cuts each launch call to at most this.
pub const LAUNCH_CALL_NS: i64 = 2_000;

/// One change to replay.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    /// Every kernel with a known memory or compute bound at
    /// max(bound, [`KERNEL_FLOOR_NS`]), never above its own time.
    KernelsAtRoof,
    /// The same, for the kernels of one name only.
    Kernel(NameRef),
    /// Launch edges' slack 0 and launch calls cut to [`LAUNCH_CALL_NS`].
    LaunchOverheadRemoved,
    /// Host-order slack (host work) 0.
    HostWorkRemoved,
    /// Stream-order slack (GPU gaps) 0.
    GpuGapsRemoved,
    /// Each collective with a link bound at max(bound, floor).
    CollectivesAtLink,
    /// Each collective that waited for a later rank takes its own
    /// transfer only (end − the last rank's arrival): several ranks.
    StragglerOnTime,
    /// Every change above at once.
    All,
    /// No change: the replay of the observed run (it must reproduce
    /// every observed time).
    Nothing,
}

impl Change {
    /// The single changes, in the order they are replayed (`Kernel` is
    /// added per name).
    pub const SINGLE: [Change; 5] = [
        Change::KernelsAtRoof,
        Change::LaunchOverheadRemoved,
        Change::HostWorkRemoved,
        Change::GpuGapsRemoved,
        Change::CollectivesAtLink,
    ];

    /// The change's key in the report (`kernel:<name>` with the name).
    pub fn key(self, tl: &Timeline) -> String {
        match self {
            Change::KernelsAtRoof => "kernels_at_roof".into(),
            Change::Kernel(name) => format!("kernel:{}", tl.name(name)),
            Change::LaunchOverheadRemoved => "launch_overhead_removed".into(),
            Change::HostWorkRemoved => "host_work_removed".into(),
            Change::GpuGapsRemoved => "gpu_gaps_removed".into(),
            Change::CollectivesAtLink => "collectives_at_link".into(),
            Change::StragglerOnTime => "straggler_on_time".into(),
            Change::All => "all".into(),
            Change::Nothing => "nothing".into(),
        }
    }
}

/// A node's own time and slack under a change, ns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Edit {
    /// Its own time.
    pub duration_ns: i64,
    /// The slack of its start.
    pub slack_ns: i64,
}

/// What the edits read.
pub struct Editor<'a> {
    /// The timeline.
    pub tl: &'a Timeline,
    /// Its graph, ordered.
    pub graph: &'a Graph,
    /// Each kernel's bound.
    pub roofs: &'a KernelRoofs,
    /// Each collective's last rank's arrival (several ranks).
    pub arrivals: &'a Arrivals,
}

impl Editor<'_> {
    /// Node `n` under `change`.
    pub fn edit(&self, change: Change, n: u32) -> Edit {
        let node = &self.graph.nodes[n as usize];
        let slack = self.graph.slack[n as usize];
        let mut edit = Edit {
            duration_ns: node.duration_ns(),
            slack_ns: slack.ns,
        };
        let all = change == Change::All;
        match node.kind {
            NodeKind::Op { index } => {
                if let Some(t) = self.at_roof(change, index as usize) {
                    edit.duration_ns = edit.duration_ns.min(t);
                }
                if all || change == Change::StragglerOnTime {
                    if let Some(arrival) = self.arrivals.last_arrival_ns(index as usize) {
                        edit.duration_ns = edit.duration_ns.min(node.end_ns - arrival);
                    }
                }
                let gap = match slack.binding {
                    Some(Binding::Launch) => all || change == Change::LaunchOverheadRemoved,
                    Some(Binding::Stream) => all || change == Change::GpuGapsRemoved,
                    _ => false,
                };
                if gap {
                    edit.slack_ns = 0;
                }
            }
            NodeKind::Host { launches, .. } => {
                let launch = all || change == Change::LaunchOverheadRemoved;
                // A sync's end follows the op it waited for: its own time
                // is not what a cheaper launch shortens.
                if launch && launches && node.waited == NONE {
                    edit.duration_ns = edit.duration_ns.min(LAUNCH_CALL_NS);
                }
                if (all || change == Change::HostWorkRemoved)
                    && slack.binding == Some(Binding::Host)
                {
                    edit.slack_ns = 0;
                }
            }
        }
        edit
    }

    /// The time kernel op `index` takes under `change`, when the change
    /// sets it (its bound floored at [`KERNEL_FLOOR_NS`]).
    fn at_roof(&self, change: Change, index: usize) -> Option<i64> {
        let op = &self.tl.ops[index];
        if op.kind != OpKind::Kernel {
            return None;
        }
        let roof = self.roofs.get(index)?;
        // A communication kernel is never "at its roof" (budget gives it
        // no roofline bound): only its link bound moves it.
        let link = roof.side == RoofSide::Link;
        let roofline = !link && !self.tl.is_comm(op);
        let applies = match change {
            Change::All => link || roofline,
            Change::KernelsAtRoof => roofline,
            Change::Kernel(name) => roofline && op.name == name,
            Change::CollectivesAtLink => link,
            _ => false,
        };
        applies.then_some(roof.bound_ns.max(KERNEL_FLOOR_NS))
    }
}
