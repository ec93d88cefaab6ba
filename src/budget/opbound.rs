//! The bound of a kernel from the op models (no ncu counters): its share
//! of its op call's bound as `ops::kernel_bounds` splits it, or why it has
//! none, with the op that launched it; and the uncovered kernels grouped by
//! reason for the report.

use super::bound::KernelBound;
use super::model::{BoundBasis, OpTime, Uncovered, UncoveredRow};
use crate::opmodel::OpCalls;
use crate::ops::by_reason::ByReason;
use crate::ops::{BoundSide, KernelBounds, KernelModel};

/// What the op models of a trace say, per kernel, and the op calls they
/// name.
#[derive(Clone, Copy)]
pub struct OpModels<'a> {
    /// Per timeline op, the kernel's share of its call's bound or why none.
    pub bounds: &'a KernelBounds,
    /// The op calls the records index.
    pub calls: &'a OpCalls,
}

impl OpModels<'_> {
    /// The bound of the kernel at `index` in the timeline's ops, or why it
    /// has none and the op (name) holding its launch, when one does.
    pub(crate) fn bound(&self, index: usize) -> Result<KernelBound, (Uncovered, Option<&str>)> {
        let name = |record: usize| self.calls.records.get(record).map(|r| r.call.name.as_str());
        match self.bounds.get(index) {
            Some(KernelModel::Bound { bound_ns, side, .. }) => Ok(KernelBound {
                bound_ns: *bound_ns,
                basis: BoundBasis::OpModel,
                bound_by: Some(match side {
                    BoundSide::Memory => "memory",
                    BoundSide::Compute(_) => "compute",
                    BoundSide::Link => "link",
                }),
                lower: false,
            }),
            Some(KernelModel::NoRoof { path, record }) => {
                Err((Uncovered::NoRoof(*path), name(*record)))
            }
            Some(KernelModel::NoLink { record }) => Err((Uncovered::NoLink, name(*record))),
            Some(KernelModel::Unmodelled { reason, record }) => {
                Err((Uncovered::Op(reason.clone()), record.and_then(name)))
            }
            // A kernel the op attribution never saw (not in the timeline
            // it ran on): no launch call to link it.
            None => Err((Uncovered::Op(crate::ops::Unmodelled::NoLaunchCall), None)),
        }
    }
}

/// Uncovered kernel time inside the steps, by reason (the ops report's
/// grouping, `ops::by_reason`).
#[derive(Default)]
pub(crate) struct UncoveredAcc {
    by: ByReason<Uncovered>,
}

impl UncoveredAcc {
    /// Adds one kernel charged `ns` inside a step.
    pub(crate) fn add(&mut self, reason: Uncovered, op: Option<&str>, ns: i64) {
        self.by.add(reason, 1, ns, op);
    }

    /// The rows, most time first, then by reason.
    pub(crate) fn rows(self) -> Vec<UncoveredRow> {
        self.by
            .rows()
            .into_iter()
            .map(|r| UncoveredRow {
                fix: r.reason.fix(),
                reason: r.reason,
                kernels: r.kernels,
                time_ns: r.time_ns,
                ops: r
                    .top_ops
                    .into_iter()
                    .map(|(name, time_ns)| OpTime { name, time_ns })
                    .collect(),
            })
            .collect()
    }
}
