//! Each PyTorch op on the roofline from the shapes its trace recorded,
//! without hardware counters: every kernel charged to the op that launched
//! it (`attribute`: the innermost op with a model whose interval holds the
//! kernel's launch call on its thread, never two; a CUDA graph replay's
//! kernels to no op), each op's time the union of its kernels on the
//! device, its FLOPs and bytes from `opmodel::work`, rows per op name and
//! shapes or per kernel name with their bound at the roofs and the time
//! lost against it (`rows`), a collective's message over the GPU's link
//! with `comm`'s `nccl-tests` size and bus factor (`link`), the rows to fix
//! first and what would help (`fix`), the kernels no model covers grouped
//! by why (`analyze`, through `by_reason`, the grouping `budget` reads
//! too; `context` holds what the phases share, `model` the
//! report every renderer reads), and each kernel's share of its call's
//! bound for `budget` (`kernel_bound`). An nsys export of a run under `emit_nvtx(
//! record_shapes=True)` gives its ops as NVTX ranges with sizes (`nvtx`).
//! The FLOP convention is docs/ops.md.

mod analyze;
mod attribute;
pub mod by_reason;
mod context;
mod fix;
mod kernel_bound;
mod link;
pub mod model;
pub mod nvtx;
mod rows;

pub use analyze::{analyze, analyze_by};
pub use fix::remedy;
pub use kernel_bound::{kernel_bounds, KernelBounds, KernelModel};
pub use model::{
    BoundSide, DtypeFrom, FixFirst, GroupBy, LinkUse, OpRow, OpsReport, Remedy, Unmodelled,
    UnmodelledRow, FLOP_CONVENTION,
};
pub use rows::KERNEL_JOIN;
