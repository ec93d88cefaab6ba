//! The bound of a kernel from the op models (no ncu counters): its share
//! of its op call's bound as `ops::kernel_bounds` splits it, or why it has
//! none, with the op that launched it; and the uncovered kernels grouped by
//! reason for the report.

use super::bound::KernelBound;
use super::model::{BoundBasis, OpTime, Uncovered, UncoveredRow};
use crate::opmodel::OpCalls;
use crate::ops::{BoundSide, KernelBounds, KernelModel};
use std::collections::BTreeMap;

/// Ops named per uncovered reason.
const TOP_OPS: usize = 5;

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

/// Uncovered kernel time inside the steps, by reason.
#[derive(Default)]
pub(crate) struct UncoveredAcc {
    by: BTreeMap<Uncovered, (u64, i64, BTreeMap<String, i64>)>,
}

impl UncoveredAcc {
    /// Adds one kernel charged `ns` inside a step.
    pub(crate) fn add(&mut self, reason: Uncovered, op: Option<&str>, ns: i64) {
        let entry = self.by.entry(reason).or_default();
        entry.0 += 1;
        entry.1 += ns;
        if let Some(op) = op {
            *entry.2.entry(op.to_string()).or_default() += ns;
        }
    }

    /// The rows, most time first, then by reason.
    pub(crate) fn rows(self) -> Vec<UncoveredRow> {
        let mut rows: Vec<UncoveredRow> = self
            .by
            .into_iter()
            .map(|(reason, (kernels, time_ns, ops))| {
                let mut ops: Vec<OpTime> = ops
                    .into_iter()
                    .map(|(name, time_ns)| OpTime { name, time_ns })
                    .collect();
                ops.sort_by(|a, b| b.time_ns.cmp(&a.time_ns).then_with(|| a.name.cmp(&b.name)));
                ops.truncate(TOP_OPS);
                UncoveredRow {
                    fix: reason.fix(),
                    reason,
                    kernels,
                    time_ns,
                    ops,
                }
            })
            .collect();
        rows.sort_by(|a, b| {
            b.time_ns
                .cmp(&a.time_ns)
                .then_with(|| a.reason.cmp(&b.reason))
        });
        rows
    }
}
