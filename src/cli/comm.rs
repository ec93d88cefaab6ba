//! Arguments of `rooftrace comm`.

use super::{ManyArgs, OutputArgs};
use std::path::PathBuf;

const AFTER_HELP: &str = "\
Producing the inputs: the PyTorch profiler trace of every rank (one file per
rank, `torch.profiler.profile(..., on_trace_ready=tensorboard_trace_handler(DIR))`):
PyTorch records each collective's arguments on `record_param_comms` and, in
newer versions, on the NCCL kernel. Or Nsight Systems exports
(`nsys profile --trace=cuda,nvtx ...`, then `nsys export --type=sqlite
--include-blobs=true`): sizes from NCCL's own NVTX ranges; one export per
rank, or one export holding several ranks' processes (each process is a
rank, all on the export's one clock).

Examples:
  rooftrace comm rank0.pt.trace.json.gz                  # one rank: bytes, algbw, busbw, link
  rooftrace comm traces/ --format md                     # every rank: who was late, who waited
  rooftrace comm job.sqlite                              # nsys: every process of the export is a rank
  rooftrace comm traces/ --gpus-per-node 8 --net-bw 50GB/s --plot busbw.svg
  rooftrace comm traces/ --format parquet -o comm.parquet/   # one row per rank x collective (docs/scale.md)

Each NCCL/RCCL kernel is joined to its collective: bytes (nelems x element
size, nccl-tests' convention), algbw = bytes / time, busbw = algbw x
nccl-tests' factor, and busbw as a fraction of the link the group crossed.
Given several ranks, collectives are matched across them, clocks aligned on
collective completions, and each rank's NCCL time split into waiting for the
last rank and transfer. Details: docs/comm.md";

/// `rooftrace comm`: what each collective moved, how close to its link, and
/// the rank everyone waited for.
#[derive(Debug, clap::Args)]
#[command(after_help = AFTER_HELP)]
pub struct CommArgs {
    /// PyTorch profiler (Kineto) traces `.json[.gz]` or nsys exports
    /// `.sqlite` (`.nsys-rep` with nsys installed), one per rank (an
    /// export may hold several ranks' processes), or directories holding
    /// them.
    #[arg(required = true)]
    pub inputs: Vec<PathBuf>,
    /// The GPU (table key) whose NVLink and PCIe link the collectives
    /// crossed; default: the trace's `deviceProperties` device name.
    #[arg(long, value_name = "KEY")]
    pub gpu: Option<String>,
    /// The network's bandwidth per direction per GPU, for groups that span
    /// nodes: `50GB/s` (400 Gb/s InfiniBand), `25e9`.
    #[arg(long, value_name = "RATE", value_parser = super::roofs::parse_byte_rate)]
    pub net_bw: Option<f64>,
    /// GPUs per node (ranks r and s share a node when r / N == s / N);
    /// default: from the traces' host names (the whole job given) or the
    /// devices each process lists (when each rank uses device rank mod N),
    /// else unknown (a process that sees one GPU says nothing of its node).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub gpus_per_node: Option<u32>,
    /// Draw bus bandwidth against message size, log-log, with the link
    /// roof, to FILE: `.svg` or `.png`.
    #[arg(long, value_name = "FILE")]
    pub plot: Option<PathBuf>,
    #[command(flatten)]
    pub many: ManyArgs,
    #[command(flatten)]
    pub output: OutputArgs,
}
