//! Arguments of `rooftrace ops`.

use super::roofs::RoofsArgs;
use super::OutputArgs;
use std::path::PathBuf;

const AFTER_HELP: &str = "\
Producing the input: a PyTorch profiler trace with shapes:
  with torch.profiler.profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],
                              record_shapes=True) as prof:
      step()
  prof.export_chrome_trace(\"run.pt.trace.json.gz\")
or an nsys export of a run under emit_nvtx with shapes:
  with torch.autograd.profiler.emit_nvtx(record_shapes=True):
      step()
  nsys profile -t cuda,nvtx -o run python train.py && nsys export -t sqlite run.nsys-rep

Examples:
  rooftrace ops run.pt.trace.json.gz                       # GPU from deviceProperties
  rooftrace ops run.pt.trace.json.gz --plot ops.svg        # the ops on the roofline
  rooftrace ops run.pt.trace.json.gz --gpu a100-80gb --format md
  rooftrace ops run.pt.trace.json.gz --group-by kernel
  rooftrace ops run.pt.trace.json.gz --format json -o ops.json
  rooftrace ops run.pt.trace.json.gz --format parquet -o ops.parquet/
  rooftrace ops run.sqlite --gpu h100-sxm --dtype bf16     # nsys + emit_nvtx

Each kernel is charged to the innermost op with a model whose call holds
its launch; an op's time is the union of its kernels on the device, its
FLOPs and bytes come from its recorded shapes (convention rooftrace/1,
docs/ops.md), its bound is max(FLOPs / F, bytes / B) at the roofs, and the
rows are sorted by the time lost against it; \"fix first\" names the rows
that lose the most and what would help. Kernels no model covers are
grouped by reason. Details: docs/ops.md";

/// `rooftrace ops`: every PyTorch op on the roofline from the shapes its
/// trace recorded.
#[derive(Debug, clap::Args)]
#[command(after_help = AFTER_HELP)]
pub struct OpsArgs {
    /// The PyTorch profiler (Kineto) trace `.json[.gz]`, recorded with
    /// `record_shapes=True`, or an nsys SQLite export of a run under
    /// `torch.autograd.profiler.emit_nvtx(record_shapes=True)`.
    pub input: PathBuf,
    #[command(flatten)]
    pub roofs: RoofsArgs,
    /// One row per op name and input shapes, or per kernel name (the work
    /// of the ops that launched it summed, their time the union).
    #[arg(long, value_enum, default_value_t = OpsGroupByArg::Op)]
    pub group_by: OpsGroupByArg,
    /// Draw the ops on the roofline (`.svg` or `.png`), as `ncu --plot`
    /// draws kernels.
    #[arg(long, value_name = "FILE")]
    pub plot: Option<PathBuf>,
    /// The element type of ops whose kernels' names do not say it, for an
    /// nsys export (its NVTX ranges record sizes, not types); each row
    /// says when its type was assumed. Without it such ops are counted as
    /// having no type.
    #[arg(long, value_enum, value_name = "TYPE")]
    pub dtype: Option<DtypeArg>,
    #[command(flatten)]
    pub output: OutputArgs,
}

/// `--group-by` values of `ops`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum OpsGroupByArg {
    /// One row per op name and input shapes.
    Op,
    /// One row per kernel name.
    Kernel,
}

/// `--dtype` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum DtypeArg {
    /// 32-bit float.
    Fp32,
    /// 16-bit float.
    Fp16,
    /// bfloat16.
    Bf16,
    /// 64-bit float.
    Fp64,
    /// 8-bit float.
    Fp8,
}
