//! Each kernel's share of its op call's bound, for readers that budget
//! kernel by kernel (`budget`): the same attribution as the ops report
//! (`analyze::kernel_charges`), the call's bound max(FLOPs / F_path,
//! bytes / B) from its own work, split over the call's kernels in
//! proportion to their durations, so the shares of a call sum to its bound
//! and a call's kernels all sit at the call's fraction of roof. A kernel no
//! model covers carries the ops report's reason.

use super::analyze::{bound, kernel_charges, says_tf32, KernelTo};
use super::model::{BoundSide, Unmodelled};
use crate::opmodel::{work, NoModel, OpCalls, Work};
use crate::roofs::{ComputePath, Roofs};
use crate::timeline::Timeline;

/// What the op models say about one kernel.
#[derive(Debug, Clone, PartialEq)]
pub enum KernelModel {
    /// Its share of its op call's bound.
    Bound {
        /// The share, ns (`call bound × duration / Σ durations of the
        /// call's kernels`; may exceed the kernel's own time when the call
        /// ran above its roof).
        bound_ns: f64,
        /// The side the call's bound lies on.
        side: BoundSide,
        /// The op record (index in [`OpCalls::records`]) it is charged to.
        record: usize,
    },
    /// The call has a work figure but the roofs lack the roof its compute
    /// path needs (or a DRAM roof).
    NoRoof {
        /// The compute path whose roof is missing (`None`: the DRAM roof).
        path: Option<ComputePath>,
        /// The op record it is charged to.
        record: usize,
    },
    /// No model covers it, and why (the op record it is charged to, when
    /// one holds its launch).
    Unmodelled {
        /// Why, as the ops report says it.
        reason: Unmodelled,
        /// The op record, when one with shapes holds the launch.
        record: Option<usize>,
    },
}

/// Per kernel of a timeline (indexed as `timeline.ops`; `None` for ops that
/// are not kernels), what the op models say.
#[derive(Debug, Clone)]
pub struct KernelBounds {
    /// One entry per timeline op.
    pub by_op: Vec<Option<KernelModel>>,
}

impl KernelBounds {
    /// What the op models say about the kernel at `index` in `timeline.ops`.
    pub fn get(&self, index: usize) -> Option<&KernelModel> {
        self.by_op.get(index).and_then(Option::as_ref)
    }
}

/// The op calls' kernels, per record: (op index, duration ns), and whether
/// a kernel's name says TF32.
#[derive(Default, Clone)]
struct CallKernels {
    kernels: Vec<(usize, i64)>,
    tf32: bool,
}

/// Each kernel's share of its op call's bound at `roofs`, or why it has
/// none.
pub fn kernel_bounds(timeline: &Timeline, calls: &OpCalls, roofs: &Roofs) -> KernelBounds {
    let works: Vec<Result<Work, NoModel>> = calls.records.iter().map(|r| work(&r.call)).collect();
    let modelled: Vec<bool> = works.iter().map(Result::is_ok).collect();
    let mut by_op: Vec<Option<KernelModel>> = vec![None; timeline.ops.len()];
    let mut per_call: Vec<CallKernels> = vec![CallKernels::default(); calls.records.len()];
    for (index, to) in kernel_charges(timeline, calls, &modelled) {
        let op = &timeline.ops[index];
        let reason = match to {
            KernelTo::Record(i) => match &works[i] {
                Ok(_) => {
                    per_call[i].kernels.push((index, op.end_ns - op.start_ns));
                    per_call[i].tf32 |= says_tf32(timeline.name(op.name));
                    continue;
                }
                Err(why) => (Unmodelled::Op(why.clone()), Some(i)),
            },
            KernelTo::NoOp => (Unmodelled::NoOpWithShapes, None),
            KernelTo::NoCall => (Unmodelled::NoLaunchCall, None),
        };
        by_op[index] = Some(KernelModel::Unmodelled {
            reason: reason.0,
            record: reason.1,
        });
    }
    for (record, (call, work)) in per_call.iter().zip(&works).enumerate() {
        let Ok(work) = work else { continue };
        if call.kernels.is_empty() {
            continue;
        }
        let path = work.compute_path(call.tf32);
        let Some((call_bound_ns, side)) = bound(work.flops, work.bytes, path, roofs) else {
            let missing = path.filter(|p| roofs.compute.get(p).is_none_or(|c| c.flop_per_s <= 0.0));
            for &(index, _) in &call.kernels {
                by_op[index] = Some(KernelModel::NoRoof {
                    path: missing,
                    record,
                });
            }
            continue;
        };
        let total: i64 = call.kernels.iter().map(|k| k.1.max(0)).sum();
        let n = call.kernels.len() as f64;
        for &(index, duration) in &call.kernels {
            // In proportion to duration; kernels of no duration share
            // equally (their parts are capped at their time anyway).
            let share = if total > 0 {
                duration.max(0) as f64 / total as f64
            } else {
                1.0 / n
            };
            by_op[index] = Some(KernelModel::Bound {
                bound_ns: call_bound_ns * share,
                side,
                record,
            });
        }
    }
    KernelBounds { by_op }
}
