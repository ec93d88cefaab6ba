//! The ops report: rows per op name and shapes, or per kernel name
//! ([`OpRow`], [`GroupBy`]), the kernels no model covers by reason
//! ([`UnmodelledRow`]), the totals they sum to, the rows to fix first
//! ([`FixFirst`]) and the rows above the DRAM roof. Every renderer reads
//! this; times are ns, work FLOPs and bytes.

use crate::opmodel::{Dtype, Engine, NoModel};
use crate::roofs::{ComputePath, GpuInfo, Roofs};

/// The FLOP and byte convention the figures follow (docs/ops.md).
pub const FLOP_CONVENTION: &str = "rooftrace/1";

/// How far above a roof a row must be to be flagged (as `ncu`'s report
/// flags rows more than 5 % above theirs): timers and roofs are not
/// exact to the last percent.
pub const ABOVE_ROOF_TOLERANCE: f64 = 0.05;

/// Mean kernel time below which a row's kernels count as tiny: launching
/// a kernel costs a few µs of host and device time, so below this the
/// launches, not the work, set the pace.
pub const TINY_KERNEL_NS: i64 = 10_000;

/// Fraction of the roof below which a row is far from it (the evidence for
/// a remedy other than tuning the kernel).
pub const LOW_FRACTION: f64 = 0.5;

/// Rows named in "fix first".
pub const FIX_FIRST: usize = 3;

/// What one row stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum GroupBy {
    /// One row per op name, input shapes and compute path.
    #[default]
    OpShapes,
    /// One row per kernel name (the names of an op call's kernels joined
    /// by ` + ` when it launched several) and compute path; the work of
    /// every op call that launched them summed, never split.
    Kernel,
}

impl GroupBy {
    /// `op_shapes` or `kernel`, for JSON.
    pub fn key(self) -> &'static str {
        match self {
            GroupBy::OpShapes => "op_shapes",
            GroupBy::Kernel => "kernel",
        }
    }
}

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

/// One op name at one set of input shapes (and compute path), or one
/// kernel name ([`GroupBy::Kernel`]).
#[derive(Debug, Clone, PartialEq)]
pub struct OpRow {
    /// The op's name (`aten::addmm`), or the kernel's name.
    pub name: String,
    /// Its inputs' shapes and types as text (`f32[128], f32[5,128], 1`);
    /// for a kernel row the ops that launched it (`aten::addmm,
    /// aten::mm`).
    pub shapes: String,
    /// The op model (the table row's key) that counted the work; the first
    /// one's for a kernel row whose ops several models count.
    pub model: &'static str,
    /// The engine of the work (matrix or vector), the first call's.
    pub engine: Engine,
    /// The element type the work is done in, the first call's.
    pub dtype: Dtype,
    /// How the element type was known when the input records none (an
    /// nsys export): `None` when recorded, else the evidence.
    pub dtype_from: Option<DtypeFrom>,
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

    /// Compulsory bytes / time, byte/s: the least bandwidth the kernels
    /// reached; `None` without time.
    pub fn achieved_bytes_per_s(&self) -> Option<f64> {
        (self.time_ns > 0).then(|| self.bytes as f64 / (self.time_ns as f64 * 1e-9))
    }

    /// FLOPs / time, FLOP/s; `None` without time.
    pub fn achieved_flop_per_s(&self) -> Option<f64> {
        (self.time_ns > 0).then(|| self.flops as f64 / (self.time_ns as f64 * 1e-9))
    }

    /// Mean time of one kernel, ns; `None` without kernels.
    pub fn mean_kernel_ns(&self) -> Option<i64> {
        (self.kernels > 0).then(|| self.time_ns / self.kernels as i64)
    }
}

/// Where an op's element type came from when the input records none.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DtypeFrom {
    /// A kernel's name says it (`…bf16…`, `s1688gemm`).
    KernelName,
    /// Assumed: `--dtype` (or its default) said it.
    Assumed,
}

impl DtypeFrom {
    /// `kernel_name` or `assumed`, for JSON and tables.
    pub fn key(self) -> &'static str {
        match self {
            DtypeFrom::KernelName => "kernel_name",
            DtypeFrom::Assumed => "assumed",
        }
    }
}

/// What the evidence says would help a row that loses time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Remedy {
    /// Its kernels are tiny (mean below [`TINY_KERNEL_NS`]): launches set
    /// the pace; fuse them or capture them in a CUDA graph.
    LaunchOverhead,
    /// FP32 matrix work bound on CUDA cores on a GPU with TF32 and BF16
    /// tensor cores: allow TF32 or autocast to BF16.
    TensorCores,
    /// Memory-bound below [`LOW_FRACTION`] of the DRAM roof: fuse it with
    /// its neighbours or move fewer bytes (lower precision, no copies).
    FewerBytes,
    /// Below its roof with none of the evidence above: the kernel itself
    /// (its counters in `ncu` say why).
    Kernel,
}

impl Remedy {
    /// The advice in words.
    pub fn advice(self) -> &'static str {
        match self {
            Remedy::LaunchOverhead => "tiny kernels: launch overhead sets the pace; fuse them (torch.compile) or capture them in a CUDA graph",
            Remedy::TensorCores => "FP32 matrix work on CUDA cores: use the tensor cores (torch.backends.cuda.matmul.allow_tf32 = True, or autocast to BF16)",
            Remedy::FewerBytes => "memory-bound far below the DRAM roof: fuse it with its neighbours or move fewer bytes (lower precision, fewer copies)",
            Remedy::Kernel => "below its roof with no cause in the trace: profile its kernels with ncu to see why",
        }
    }

    /// `launch_overhead`, `tensor_cores`, `fewer_bytes` or `kernel`.
    pub fn key(self) -> &'static str {
        match self {
            Remedy::LaunchOverhead => "launch_overhead",
            Remedy::TensorCores => "tensor_cores",
            Remedy::FewerBytes => "fewer_bytes",
            Remedy::Kernel => "kernel",
        }
    }
}

/// A row to fix first: the most time lost, and what would help.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FixFirst {
    /// Index in [`OpsReport::rows`].
    pub row: usize,
    /// Its time lost / the kernel time.
    pub share_of_kernel_time: f64,
    /// What the evidence says would help.
    pub remedy: Remedy,
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
    /// The input records no element types (an nsys export), none of the
    /// op's kernels' names says one, and `--dtype` was not given.
    NoDtype,
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
            Unmodelled::NoDtype => {
                "no element type: the export records none and no kernel name says one (give --dtype)".into()
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
    /// The roofs the bounds are at (none when the GPU was not decided).
    pub roofs: Roofs,
    /// What a row stands for.
    pub group_by: GroupBy,
    /// Rows, most time lost first (unknown last, by time), then name.
    pub rows: Vec<OpRow>,
    /// The rows with the most time lost and what would help, most first.
    pub fix_first: Vec<FixFirst>,
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

    /// True when `row` moved its compulsory bytes faster than the DRAM
    /// roof allows (by more than [`ABOVE_ROOF_TOLERANCE`]): the model
    /// undercounts its bytes, or its data came from a cache, not DRAM. A
    /// collective's bytes cross a link, not DRAM: never.
    pub fn above_memory_roof(&self, row: &OpRow) -> bool {
        if row.link.is_some() {
            return false;
        }
        match (row.achieved_bytes_per_s(), self.dram_bytes_per_s) {
            (Some(got), Some(roof)) => got > roof * (1.0 + ABOVE_ROOF_TOLERANCE),
            _ => false,
        }
    }

    /// The rows above the DRAM roof.
    pub fn above_memory_roof_rows(&self) -> impl Iterator<Item = &OpRow> {
        self.rows.iter().filter(|r| self.above_memory_roof(r))
    }
}
