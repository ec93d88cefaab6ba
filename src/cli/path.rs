//! Arguments of `rooftrace path`.

use super::gaps::parse_duration_ns;
use super::roofs::RoofsArgs;
use super::OutputFormatArg;
use std::path::PathBuf;

const AFTER_HELP: &str = "\
Producing the input (either):
  with torch.profiler.profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],
                              record_shapes=True, schedule=...) as prof:
      for batch in loader: step(batch); prof.step()      # one ProfilerStep#N per step
  prof.export_chrome_trace(\"run.pt.trace.json.gz\")
  nsys profile --trace=cuda,nvtx -o run python train.py   # NVTX range per step

Examples:
  rooftrace path run.pt.trace.json.gz                      # steps: ProfilerStep#N
  rooftrace path run.sqlite --nvtx train_step --gpu h100-sxm
  rooftrace path run.sqlite --nvtx train_step --ncu run.csv --format md
  rooftrace path run.pt.trace.json.gz --trace-out path.json.gz   # open in ui.perfetto.dev
  rooftrace path rank0.json.gz rank1.json.gz --format json -o path.json

The first line names the single change that shortens the median step most,
by how much and why. Each step's critical path (walked back from its last GPU
op through launches, stream order, synchronisation and host order) is split
into parts that sum to the step to the nanosecond; each change (kernels at
their roofs, launch overhead, host work or GPU gaps removed, collectives at
their link) is replayed on the step's graph, never added up. Details:
docs/path.md";

/// `--top`'s default: the single-kernel changes kept per step (`budget`
/// walks the path with it too, so both name the same best change).
pub const TOP_KERNELS: usize = 5;

/// `rooftrace path`: each step's critical path, and what each change on it
/// would save.
#[derive(Debug, clap::Args)]
#[command(after_help = AFTER_HELP)]
pub struct PathArgs {
    /// The timelines: a PyTorch profiler (Kineto) trace `.json[.gz]`, an
    /// nsys `.sqlite` export or `.nsys-rep`; several: one per rank, each
    /// rank's steps in one report.
    #[arg(required = true, num_args = 1..)]
    pub inputs: Vec<PathBuf>,
    /// The NVTX range that marks one step (a regular expression on its
    /// text). Required for an nsys export; on a PyTorch (Kineto) trace with
    /// `ProfilerStep#N` annotations it defaults to `ProfilerStep#\d+`.
    #[arg(long, value_name = "REGEX")]
    pub nvtx: Option<String>,
    /// ncu CSV of the same program: each kernel's roof time T* from its
    /// counters (else the op models of a trace with shapes give it).
    #[arg(long, value_name = "CSV")]
    pub ncu: Option<PathBuf>,
    #[command(flatten)]
    pub roofs: RoofsArgs,
    /// Only this CUDA device id (needed when a step spans several devices).
    #[arg(long, value_name = "N")]
    pub device: Option<u16>,
    /// Queued gaps shorter than DUR are launch latency rather than a
    /// dependency (the step windows are `budget`'s, which reads it).
    #[arg(long, value_name = "DUR", default_value = "5us", value_parser = parse_duration_ns)]
    pub latency: i64,
    /// The `nsys` executable used to convert an `.nsys-rep`.
    #[arg(long, value_name = "PATH")]
    pub nsys: Option<PathBuf>,
    /// Write the timeline with a `rooftrace critical path` track (each
    /// segment of each step's path as a slice named by its part, flow
    /// arrows where the path moves between a stream and a thread) to FILE
    /// (`.json` or `.json.gz`), for Perfetto (ui.perfetto.dev). One INPUT.
    #[arg(long, value_name = "FILE")]
    pub trace_out: Option<PathBuf>,
    /// Output format (`parquet` needs `-o DIR`).
    #[arg(long, value_enum, default_value_t = OutputFormatArg::Table)]
    pub format: OutputFormatArg,
    /// Write the report to FILE instead of stdout (with `--format parquet`:
    /// the dataset directory).
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Single-kernel changes (`kernel:<name>`) kept per step, most saved
    /// first.
    #[arg(long, value_name = "N", default_value_t = TOP_KERNELS)]
    pub top: usize,
    /// Print tables whole (by default a table printed to a terminal fits
    /// its width).
    #[arg(long)]
    pub wide: bool,
}

impl PathArgs {
    /// The shared output flags, for fitting the table to the terminal.
    pub fn output_args(&self) -> super::OutputArgs {
        super::OutputArgs {
            format: self.format,
            output: self.output.clone(),
            top: 0,
            wide: self.wide,
        }
    }
}
