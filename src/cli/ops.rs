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

Examples:
  rooftrace ops run.pt.trace.json.gz                       # GPU from deviceProperties
  rooftrace ops run.pt.trace.json.gz --gpu a100-80gb --format md
  rooftrace ops run.pt.trace.json.gz --format json -o ops.json

Each kernel is charged to the innermost op with a model whose call holds
its launch; an op's time is the union of its kernels on the device, its
FLOPs and bytes come from its recorded shapes (convention rooftrace/1,
docs/ops.md), its bound is max(FLOPs / F, bytes / B) at the roofs, and the
rows are sorted by the time lost against it. Kernels no model covers are
grouped by reason. Details: docs/ops.md";

/// `rooftrace ops`: every PyTorch op on the roofline from the shapes its
/// trace recorded.
#[derive(Debug, clap::Args)]
#[command(after_help = AFTER_HELP)]
pub struct OpsArgs {
    /// The PyTorch profiler (Kineto) trace `.json[.gz]`, recorded with
    /// `record_shapes=True`.
    pub input: PathBuf,
    #[command(flatten)]
    pub roofs: RoofsArgs,
    #[command(flatten)]
    pub output: OutputArgs,
}
