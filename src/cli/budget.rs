//! Arguments of `rooftrace budget`.

use super::gaps::parse_duration_ns;
use super::projection::ProjectionArgs;
use super::roofs::RoofsArgs;
use super::OutputArgs;
use std::path::PathBuf;

const AFTER_HELP: &str = "\
Producing the inputs (the same program, twice):
  nsys profile --trace=cuda,nvtx -o decode python run.py          # the timeline
  ncu --csv --page raw --print-units base --metrics \"$(rooftrace ncu --print-metrics)\" \\
      --nvtx --nvtx-include 'decode_step/' python run.py > decode.csv   # counters

Examples:
  rooftrace budget decode.nsys-rep --ncu decode.csv --nvtx decode_step --gpu h100-sxm
  rooftrace budget decode.sqlite --nvtx decode_step --bytes-per-step 14.14GB --gpu h200
  rooftrace budget decode.sqlite --nvtx decode_step --ncu decode.csv --plot budget.svg --format md
  rooftrace budget run.pt.trace.json.gz --gpu a100-80gb --bytes-per-step 14GB   # PyTorch: ProfilerStep#N
  rooftrace budget decode.sqlite --nvtx decode_step --bytes-per-step 11GB \
      --peak-dram-bw 448GB/s --peak fp32=19.2TFLOP/s   # a card the table lacks

Each step (instance of the NVTX range, projected on the GPU) is split into
bound + shortfall + idle gaps per class + copies/memsets + kernels without
counters, summing to the measured step to the nanosecond. Details: docs/budget.md";

/// `rooftrace budget`: where each step's time goes.
#[derive(Debug, clap::Args)]
#[command(after_help = AFTER_HELP)]
pub struct BudgetArgs {
    /// The timeline: `.nsys-rep`, a `.sqlite` export or a PyTorch profiler
    /// (Kineto) trace `.json[.gz]`.
    pub input: PathBuf,
    /// The NVTX range that marks one step (a regular expression on its
    /// text). Required for an nsys export; on a PyTorch (Kineto) trace with
    /// `ProfilerStep#N` annotations it defaults to `ProfilerStep#\d+`.
    #[arg(long, value_name = "REGEX")]
    pub nvtx: Option<String>,
    /// ncu CSV of the same program: each kernel's bound T* from its counters.
    #[arg(long, value_name = "CSV", conflicts_with = "bytes_per_step")]
    pub ncu: Option<PathBuf>,
    /// Bytes every step must move (e.g. the weights: `14.14GB`, `13.2GiB`,
    /// `1.5e10`): the bound is SIZE / B on the DRAM roof.
    #[arg(long, value_name = "SIZE", value_parser = super::parse_bytes)]
    pub bytes_per_step: Option<f64>,
    #[command(flatten)]
    pub roofs: RoofsArgs,
    /// Only this CUDA device id (needed when a step spans several devices).
    #[arg(long, value_name = "N")]
    pub device: Option<u16>,
    /// Queued gaps shorter than DUR are launch latency rather than a dependency.
    #[arg(long, value_name = "DUR", default_value = "5us", value_parser = parse_duration_ns)]
    pub latency: i64,
    /// The `nsys` executable used to convert an `.nsys-rep`.
    #[arg(long, value_name = "PATH")]
    pub nsys: Option<PathBuf>,
    /// Draw the median step as a stacked bar from bound to measured (and
    /// every step beside it, up to 40) to FILE: `.svg` or `.png`.
    #[arg(long, value_name = "FILE")]
    pub plot: Option<PathBuf>,
    #[command(flatten)]
    pub projection: ProjectionArgs,
    /// Write the timeline and what rooftrace found in it to FILE
    /// (`.json` or `.json.gz`), a Chrome trace that Perfetto
    /// (ui.perfetto.dev) and `chrome://tracing` open: GPU ops per device
    /// and stream, launch calls with arrows to their ops, and per device a
    /// `rooftrace idle gaps` track (each gap named by its class; duration,
    /// cause, host detail, evidence and fix in its args), and `rooftrace steps` and `rooftrace step budget` tracks (each step and its parts; each kernel's roofline fraction in its args with --ncu).
    #[arg(long, value_name = "FILE")]
    pub trace_out: Option<PathBuf>,
    #[command(flatten)]
    pub output: OutputArgs,
}
