//! Arguments of `rooftrace ncu`.

use super::projection::ProjectionArgs;
use super::roofs::RoofsArgs;
use super::{ManyArgs, OutputArgs};
use clap::ValueEnum;
use std::path::PathBuf;

/// How to produce the input, shown under `--help`.
const AFTER_HELP: &str = "\
Producing the input:
  ncu --csv --page raw --print-units base \\
      --metrics \"$(rooftrace ncu --print-metrics)\" ./app > report.csv
  ncu --import run.ncu-rep --csv --page details > report.csv
  rooftrace ncu run.ncu-rep     (runs ncu --import ... --csv --page raw itself)
Files without this metric list (the basic set, --set full, roofline sections)
work as far as they go: derived figures are marked, what was not collected
prints as unknown with the --metrics to add.

Roofs: --gpu KEY (built-in table, see --list-gpus), --roofs FILE (written by
rooftrace calibrate), --roofs ncu (peak metrics in the CSV), or for a card the
table lacks --peak-dram-bw 448GB/s --peak fp32=19.2TFLOP/s (docs/roofs-format.md;
the same flags work for budget and diff).
Without them the
GPU comes from what the CSV says about its device: name, compute capability,
SM count, L2 size, memory bus width, memory clock (a contradiction with --gpu
is reported). Every output
names the roofs it used and their source. Details: docs/ncu.md

Plot and pull-request comment:
  rooftrace ncu report.csv --plot roofline.png --format md -o report.md

On another GPU (per kernel bound, side, expected time; docs/projection.md):
  rooftrace ncu report.csv --project-to h200,a100-80gb --plot projected.svg

Many inputs:
  rooftrace ncu profiles/*.csv --group-by kernel
  rooftrace ncu profiles/ --format parquet -o ncu.parquet/";

/// `rooftrace ncu`: roofline analysis of an Nsight Compute CSV.
#[derive(Debug, clap::Args)]
#[command(after_help = AFTER_HELP)]
pub struct NcuArgs {
    /// The ncu CSVs (details or raw page, with or without ncu's log lines),
    /// or `.ncu-rep` reports (imported with `ncu` from PATH or
    /// $ROOFTRACE_NCU): files, directories (searched for `.csv`) or glob
    /// patterns. Several inputs give one table across them (docs/scale.md).
    #[arg(required_unless_present_any = ["print_metrics", "list_gpus"], num_args = 1..)]
    pub input: Vec<PathBuf>,
    /// Print the comma-separated metric list rooftrace reads, for `ncu --metrics`, and exit.
    #[arg(long, conflicts_with_all = ["input", "list_gpus"])]
    pub print_metrics: bool,
    /// Print the built-in GPU table with its roofs and exit.
    #[arg(long, conflicts_with = "input")]
    pub list_gpus: bool,
    #[command(flatten)]
    pub roofs: RoofsArgs,
    /// One row per launch, or per kernel name (times, bytes and FLOPs summed).
    #[arg(long, value_enum, default_value_t = GroupByArg::Launch)]
    pub group_by: GroupByArg,
    /// The clock the roofs are taken at: `run` scales them to the SM (and
    /// DRAM) clock the launches ran at, as ncu's `--clock-control base`
    /// lock lowers it; `boost` keeps them at the clocks they assume (the
    /// datasheet's boost clock), for the fraction of the boost-clock roof.
    #[arg(long, value_enum, default_value_t = RoofClockArg::Run)]
    pub roof_clock: RoofClockArg,
    /// Useful FLOPs per launch of the kernels whose name matches REGEX (e.g.
    /// `gemv=2*1*18944*3584`, 2·M·N·K): tensor counters count padded tiles,
    /// so a skinny GEMM's executed FLOPs overstate its work. Rows matched get
    /// their useful intensity and fraction of roof beside the executed ones.
    /// Repeatable; the first matching rule applies.
    #[arg(long, value_name = "REGEX=FLOP")]
    pub useful_flops: Vec<String>,
    /// Also draw the roofline chart to FILE (.svg or .png); the top `--top` kernels by time
    /// lost are labelled (at most 10). With `--format md` the report embeds it.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["print_metrics", "list_gpus"])]
    pub plot: Option<PathBuf>,
    #[command(flatten)]
    pub projection: ProjectionArgs,
    #[command(flatten)]
    pub output: OutputArgs,
    #[command(flatten)]
    pub many: ManyArgs,
}

/// `--roof-clock` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RoofClockArg {
    /// Roofs scaled to the clocks the launches ran at.
    Run,
    /// Roofs at the clocks they assume (datasheet: boost clock).
    Boost,
}

/// `--group-by` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum GroupByArg {
    /// One row per launch.
    Launch,
    /// One row per kernel name.
    Kernel,
}
