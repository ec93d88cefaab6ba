//! Each PyTorch op on the roofline from the shapes its trace recorded,
//! without hardware counters: every kernel charged to the op that launched
//! it (`attribute`: the innermost op with a model whose interval holds the
//! kernel's launch call on its thread, never two), each op's time the union
//! of its kernels on the device, its FLOPs and bytes from `opmodel::work`,
//! rows per op name and shapes with their bound at the roofs and the time
//! lost against it (`analyze`), and the kernels no model covers grouped by
//! why (`model`: the report every renderer reads), and each kernel's share
//! of its call's bound for `budget` (`kernel_bound`). The FLOP convention is
//! docs/ops.md.

mod analyze;
mod attribute;
mod kernel_bound;
pub mod model;

pub use analyze::analyze;
pub use kernel_bound::{kernel_bounds, KernelBounds, KernelModel};
pub use model::{BoundSide, OpRow, OpsReport, Unmodelled, UnmodelledRow, FLOP_CONVENTION};
