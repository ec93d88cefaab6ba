//! The ops report: rows per op name and shapes ([`OpRow`]), the kernels
//! no model covers by reason ([`UnmodelledRow`]), and the totals they sum
//! to. Every renderer reads this; times are ns, work FLOPs and bytes.

use crate::opmodel::NoModel;
use crate::roofs::{ComputePath, GpuInfo};

/// The FLOP and byte convention the figures follow (docs/ops.md).
pub const FLOP_CONVENTION: &str = "rooftrace/1";

/// The side of the roofline an op's bound lies on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum BoundSide {
    /// The DRAM roof: bytes / B is the larger time.
    Memory,
    /// The flat roof of this compute path: FLOPs / F is the larger time.
    Compute(ComputePath),
    /// A collective's link (NVLink, PCIe): `nccl-tests`' bus bytes / the
    /// link's bandwidth per direction. Not on the DRAM roofline.
    Link,
}

impl BoundSide {
    /// `memory`, or the compute path's key (`tensor_fp16`).
    pub fn key(self) -> &'static str {
        match self {
            BoundSide::Memory => "memory",
            BoundSide::Compute(path) => path.key(),
            BoundSide::Link => "link",
        }
    }
}

/// One op name at one set of input shapes (and compute path).
#[derive(Debug, Clone, PartialEq)]
pub struct OpRow {
    /// The op's name (`aten::addmm`).
    pub name: String,
    /// Its inputs' shapes and types as text (`f32[128], f32[5,128], 1`).
    pub shapes: String,
    /// The op model (the table row's key) that counted the work.
    pub model: &'static str,
    /// Where the FLOPs run; `None` for work with no FLOP roof (integer).
    pub path: Option<ComputePath>,
    /// Calls of the op with these shapes that launched kernels.
    pub launches: u64,
    /// Kernels charged to them.
    pub kernels: u64,
    /// The calls' time: per call the union of its kernels' intervals on
    /// the device, summed, ns.
    pub time_ns: i64,
    /// FLOPs of every call, per docs/ops.md.
    pub flops: u64,
    /// Compulsory bytes of every call (each input read once, each output
    /// written once), bytes.
    pub bytes: u64,
    /// The bound time at the roofs, max(FLOPs / F_path, bytes / B_dram),
    /// ns; `None` when a roof it needs is unknown.
    pub bound_ns: Option<f64>,
    /// The side the bound lies on, when known.
    pub bound: Option<BoundSide>,
    /// For a collective's row, what crossed its link (`bytes` is then the
    /// message size in `nccl-tests`' convention); `None` for every other.
    pub link: Option<LinkUse>,
}

/// A collective row's traffic over its link.
#[derive(Debug, Clone, PartialEq)]
pub struct LinkUse {
    /// The collective's kind, `nccl-tests`' name (`all_reduce`), and where
    /// it was told: `op` (the recorded name) or `kernel` (the NCCL
    /// kernel's name, when the trace records none).
    pub kind: (&'static str, &'static str),
    /// Ranks in the group, when recorded or derived exactly.
    pub group_size: Option<u32>,
    /// `nccl-tests`' bus bytes of every call (size × bus bandwidth factor
    /// of `comm::CollKind`), bytes; `None` when the group is unknown and
    /// the factor depends on it.
    pub bus_bytes: Option<f64>,
    /// The link (`NVLink 3, 12 links`) and its bandwidth per direction,
    /// byte/s, or why it is unknown.
    pub link: Result<(String, f64), String>,
}

impl OpRow {
    /// FLOPs per compulsory byte (an upper bound on the kernels' real
    /// intensity); `None` without bytes, and for a collective, whose bytes
    /// cross a link and are not on the DRAM roofline.
    pub fn intensity(&self) -> Option<f64> {
        (self.bytes > 0 && self.link.is_none()).then(|| self.flops as f64 / self.bytes as f64)
    }

    /// bound / time: 1 at the roof; above 1 when the op took less than its
    /// compulsory work allows (the bytes are a lower bound: a sign the
    /// model or the roofs are wrong for it). `None` when unknown.
    pub fn fraction_of_roof(&self) -> Option<f64> {
        let bound = self.bound_ns?;
        (self.time_ns > 0).then(|| bound / self.time_ns as f64)
    }

    /// time − bound, ns (negative above the roof); `None` when unknown.
    pub fn time_lost_ns(&self) -> Option<i64> {
        Some(self.time_ns - self.bound_ns?.round() as i64)
    }
}

/// Why a kernel's time has no op model.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Unmodelled {
    /// The innermost op with shapes that launched it has no work figure.
    Op(NoModel),
    /// No op with recorded shapes holds its launch call.
    NoOpWithShapes,
    /// Its launch call is not in the trace (no `cuda_runtime` row joined).
    NoLaunchCall,
    /// Launched by a CUDA graph's replay (`cudaGraphLaunch`): the graph's
    /// kernels carry no op's shapes (their capture is not in the trace).
    GraphReplay,
}

impl Unmodelled {
    /// The reason in words, for tables and JSON.
    pub fn reason(&self) -> String {
        match self {
            Unmodelled::Op(why) => why.reason(),
            Unmodelled::NoOpWithShapes => {
                "no op with shapes launched it (profile with record_shapes=True; a custom op needs torch.library.custom_op)".into()
            }
            Unmodelled::NoLaunchCall => "its launch call is not in the trace".into(),
            Unmodelled::GraphReplay => {
                "no shapes (graph replay): a CUDA graph's kernels carry no op shapes; profile an eager step for them".into()
            }
        }
    }
}

/// The kernels of one reason.
#[derive(Debug, Clone, PartialEq)]
pub struct UnmodelledRow {
    /// Why.
    pub reason: Unmodelled,
    /// Kernels.
    pub kernels: u64,
    /// Their time: per op the union of its kernels, summed (a kernel with
    /// no op counts alone), ns.
    pub time_ns: i64,
    /// The ops with the most of that time (at most 5), name and ns.
    pub top_ops: Vec<(String, i64)>,
}

/// `rooftrace ops`: every op on the roofline, and what no model covers.
#[derive(Debug, Clone)]
pub struct OpsReport {
    /// The trace, as given.
    pub input: String,
    /// The GPU whose roofs were used, and how it was chosen.
    pub gpu: GpuInfo,
    /// Where the roofs came from.
    pub roofs_source: String,
    /// The DRAM roof, byte/s, when known.
    pub dram_bytes_per_s: Option<f64>,
    /// Rows, most time lost first (unknown last, by time), then name.
    pub rows: Vec<OpRow>,
    /// Kernels without a model, most time first.
    pub unmodelled: Vec<UnmodelledRow>,
    /// Kernels in the trace.
    pub kernels: u64,
    /// Kernel time: per op the union of its kernels, summed over ops (a
    /// kernel with no op alone) = the rows' time + the unmodelled time, ns.
    pub kernel_time_ns: i64,
    /// The rows' time, ns.
    pub modelled_time_ns: i64,
    /// `cpu_op` events without usable shapes.
    pub ops_without_shapes: u64,
    /// Ops with shapes left out beyond the reader's bound.
    pub ops_dropped: u64,
}

impl OpsReport {
    /// Modelled time / kernel time; `None` without kernel time.
    pub fn coverage(&self) -> Option<f64> {
        (self.kernel_time_ns > 0).then(|| self.modelled_time_ns as f64 / self.kernel_time_ns as f64)
    }
}
