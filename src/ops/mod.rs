//! Each PyTorch op on the roofline from the shapes its trace recorded,
//! without hardware counters: every kernel charged to the op that launched
//! it (`attribute`: the innermost op with a model whose interval holds the
//! kernel's launch call on its thread, never two), each op's time the union
//! of its kernels on the device, its FLOPs and bytes from `opmodel::work`,
//! rows per op name and shapes with their bound at the roofs and the time
//! lost against it (`analyze`), a collective's message over the GPU's link
//! with `comm`'s `nccl-tests` size and bus factor (`link`), and the kernels
//! no model covers grouped by why (`model`: the report every renderer
//! reads). The FLOP convention is
//! docs/ops.md.

mod analyze;
mod attribute;
mod link;
pub mod model;

pub use analyze::analyze;
pub use model::{BoundSide, LinkUse, OpRow, OpsReport, Unmodelled, UnmodelledRow, FLOP_CONVENTION};
