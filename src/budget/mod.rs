//! Where each step's time goes: the NVTX range's GPU window split into the
//! bound (the time its work needs at the roofs), the roofline shortfall
//! (kernel time beyond the bound, per kernel), the idle gaps per class, and
//! copies, memsets and unbounded kernel time, stated as such. The parts of
//! every step sum to the measured step exactly, in integer ns.
//!
//! By phase: [`charge`](self) (busy time charged first come, so concurrent
//! streams count once), `bound` (ncu launches matched to timeline kernels
//! by name and order; the roofline report's `T*`, not recomputed; or, on a
//! PyTorch trace with shapes, `opbound`: each kernel's share of its op
//! call's bound from `ops::kernel_bounds`), `analyze`
//! (one step at a time; the idle parts are the gaps `gaps` classified) and
//! `summary` (median step, outliers, spread, coverage, fix first). Beside
//! each step, the host's time in its range before its first GPU op and
//! what the host did there (`host_before_gpu_ns`, from the gap analysis'
//! tiling), named in fix first. docs/budget.md has the method and its
//! limits.

mod analyze;
mod bound;
mod charge;
pub mod model;
mod opbound;
mod summary;

pub use analyze::{analyze, analyze_with_ops, BudgetConfig};
pub use bound::kernel_key;
pub(crate) use bound::{Counters, KernelBound};
pub use model::*;
pub use opbound::OpModels;
pub use summary::FIX_FIRST_MAX;

use crate::roofs::Roofs;

/// The weights bound of a step: `bytes / B` on the DRAM roof, in ns
/// (`None` when the roofs have no positive DRAM bandwidth). The
/// reference's example: 14.14 GB on H100's measured 3.09 TB/s is 4.58 ms.
pub fn weights_bound_ns(bytes: f64, roofs: &Roofs) -> Option<f64> {
    let b = roofs.dram()?.bytes_per_s;
    (b > 0.0 && bytes.is_finite() && bytes >= 0.0).then(|| bytes / b * 1e9)
}
