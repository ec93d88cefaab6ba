//! Each kernel's share of its op call's bound, for readers that budget
//! kernel by kernel (`budget`): the same attribution as the ops report
//! (`analyze::kernel_charges`), the call's bound max(FLOPs / F_path,
//! bytes / B) from its own work, split over the call's kernels in
//! proportion to their durations, so the shares of a call sum to its bound
//! and a call's kernels all sit at the call's fraction of roof. A
//! collective's call is bound as its ops row is: its bus bytes over its
//! link (`link`). A kernel no model covers carries the ops report's reason
//! (a CUDA graph replay's kernels theirs), so the kernels without a bound
//! here are the ops report's unmodelled ones.

use super::analyze::{kernel_charges, sum_charges, works, KernelTo};
use super::link::{collectives, link_bound, link_config, link_of};
use super::model::{BoundSide, Unmodelled};
use super::rows::bound;
use crate::opmodel::OpCalls;
use crate::roofs::{ComputePath, GpuInfo, Roofs};
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
    /// A collective whose bus bytes (its group) or link is unknown.
    NoLink {
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

/// Each kernel's share of its op call's bound at `roofs` (a collective's
/// over the link of `gpu`), or why it has none.
pub fn kernel_bounds(
    timeline: &Timeline,
    calls: &OpCalls,
    roofs: &Roofs,
    gpu: &GpuInfo,
) -> KernelBounds {
    let mut works = works(calls);
    let modelled: Vec<bool> = works.iter().map(Result::is_ok).collect();
    let charges = kernel_charges(timeline, calls, &modelled);
    let charged = sum_charges(timeline, calls.records.len(), &charges);
    let link_calls = collectives(&mut works, &charged.per_record);
    let links = link_config(timeline, gpu, charged.comm_devices.clone());
    let mut by_op: Vec<Option<KernelModel>> = vec![None; timeline.ops.len()];
    // Per record, its kernels: (op index, duration ns).
    let mut per_call: Vec<Vec<(usize, i64)>> = vec![Vec::new(); calls.records.len()];
    for &(index, to) in &charges {
        let op = &timeline.ops[index];
        let (reason, record) = match to {
            KernelTo::Record(i) => match &works[i] {
                Ok(_) => {
                    per_call[i].push((index, op.end_ns - op.start_ns));
                    continue;
                }
                Err(why) => (why.clone(), Some(i)),
            },
            KernelTo::NoOp => (Unmodelled::NoOpWithShapes, None),
            KernelTo::NoCall => (Unmodelled::NoLaunchCall, None),
            KernelTo::GraphReplay => (Unmodelled::GraphReplay, None),
        };
        by_op[index] = Some(KernelModel::Unmodelled { reason, record });
    }
    for (record, (kernels, work)) in per_call.iter().zip(&works).enumerate() {
        let Ok(work) = work else { continue };
        if kernels.is_empty() {
            continue;
        }
        let found = match &link_calls[record] {
            Some(call) => {
                let message = work.collective.as_deref();
                let link = link_of(
                    &links,
                    message.and_then(|m| m.ranks.as_deref()),
                    message.and_then(|m| m.group_size),
                );
                link_bound(call.bus_bytes, &link).ok_or(KernelModel::NoLink { record })
            }
            None => {
                let path = work.compute_path(charged.per_record[record].tf32);
                bound(work.flops, work.bytes, path, roofs).ok_or_else(|| {
                    let missing =
                        path.filter(|p| roofs.compute.get(p).is_none_or(|c| c.flop_per_s <= 0.0));
                    KernelModel::NoRoof {
                        path: missing,
                        record,
                    }
                })
            }
        };
        let (call_bound_ns, side) = match found {
            Ok(b) => b,
            Err(none) => {
                for &(index, _) in kernels {
                    by_op[index] = Some(none.clone());
                }
                continue;
            }
        };
        let total: i64 = kernels.iter().map(|k| k.1.max(0)).sum();
        let n = kernels.len() as f64;
        for &(index, duration) in kernels {
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
