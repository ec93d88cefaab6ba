//! Arguments of `rooftrace diff`.

use super::gaps::parse_duration_ns;
use super::roofs::RoofsArgs;
use super::OutputArgs;
use std::path::PathBuf;

/// Exit codes, inputs and the pull-request workflow, shown under `--help`.
const AFTER_HELP: &str = "\
Inputs (both sides of one kind, detected from the file):
  two ncu CSVs               rooftrace diff base.csv new.csv --gpu h100-sxm
  or .ncu-rep reports        rooftrace diff base.ncu-rep new.csv   (imported with ncu from PATH)
  two nsys exports           rooftrace diff base.sqlite new.nsys-rep --nvtx decode_step
  two PyTorch traces         rooftrace diff base.json.gz new.json.gz   (kernels added, removed, run more or less often)
  two rooftrace JSON reports rooftrace diff base.json new.json   (from `rooftrace ncu|gaps --format json`)

A change is a regression or improvement only beyond the threshold (time 5 %
and 100 ns for kernels, 10 µs on timelines; DRAM bytes 2 %; fraction of roof
0.02) AND beyond the spread (p90 - p10 over the median) of repeated launches
or NVTX instances; otherwise it is unchanged or inconclusive. Details:
docs/diff.md

Gate (--fail-on, repeatable): [SCOPE:]METRIC(>|<)VALUE
  time>+5%  fraction<-0.05  bytes>+10%  lost>+1ms  'kernel:gemm:time>+5%'  total:time>+2%
  idle>+1ms  idle.host_bound>+10%  busy>+5%  span>+5%  device:1:idle>+1ms  range:step:time>+5%
  timelines: 'kernel:gemm:time>+5%' (a kernel's total GPU time)  'kernel:nccl:count>+0' (its launches)
Without --fail-on, any row called a regression (kernels, devices, ranges, gaps
and every totals row) fails the gate (--no-gate: never).

Roofs of ncu sides (both sides): --gpu KEY, --roofs FILE|ncu, or for a card
the table lacks --peak-dram-bw 448GB/s --peak fp32=19.2TFLOP/s; without them
the base side's GPU, from what its CSV says (docs/roofs-format.md).

Comparable or refused: both sides' GPU models (ncu CSV device names, nsys
TARGET_INFO_GPU, trace deviceProperties) must be the same, or the diff is
refused (exit 2) unless --allow-different-gpus, which marks the report and
every verdict cross-GPU; traces' rank and world size are compared and shown;
every ncu CSV is checked against --gpu, and the two sides' compute
capabilities against each other (unless --own-roofs); sides that share no
kernel or range name are refused (exit 2); when the shared names hold less
than half of either side's time, the diff is inconclusive and fails the gate
unless --allow-unmatched.

Exit codes: 0 gate passed, 1 failure to run, 2 bad input or rule (including
runs that share nothing or contradict --gpu), 3 regression found or most of
the work unmatched (the report is written in full first).

Pull request:
  rooftrace diff base.csv new.csv --gpu h100-sxm --format md --plot diff.png -o comment.md";

/// `rooftrace diff`: before → after of two profiles of one kind.
#[derive(Debug, clap::Args)]
#[command(after_help = AFTER_HELP)]
pub struct DiffArgs {
    /// The base run (ncu CSV or .ncu-rep, nsys .sqlite/.nsys-rep, or
    /// rooftrace JSON).
    pub base: PathBuf,
    /// The new run, of the same kind.
    pub new: PathBuf,
    #[command(flatten)]
    pub roofs: RoofsArgs,
    /// Each side against its own roofs (detected from its own CSV, or as its JSON report says),
    /// instead of the base side's roofs for both.
    #[arg(long, conflicts_with_all = ["gpu", "roofs", "peak_dram_bw"])]
    pub own_roofs: bool,
    /// nsys: NVTX ranges (regex) compared by name, median and p90 of their instances.
    #[arg(long, value_name = "REGEX")]
    pub nvtx: Option<String>,
    /// nsys: the `nsys` executable used to convert an `.nsys-rep`.
    #[arg(long, value_name = "PATH")]
    pub nsys: Option<PathBuf>,
    /// Relative threshold on times, in percent.
    #[arg(long, value_name = "PCT", default_value_t = 5.0)]
    pub threshold: f64,
    /// Absolute floor on timeline times (span, busy, idle, gaps, ranges).
    #[arg(long, value_name = "DUR", default_value = "10us", value_parser = parse_duration_ns)]
    pub min_change: i64,
    /// A gate rule (repeatable); see below.
    #[arg(long = "fail-on", value_name = "RULE")]
    pub fail_on: Vec<String>,
    /// Never fail on a regression (exit 0 with the report).
    #[arg(long, conflicts_with = "fail_on")]
    pub no_gate: bool,
    /// Judge the matched part even when the kernels (or ranges) both runs ran hold less than
    /// half of either run's time: without it such a diff is inconclusive and fails the gate.
    #[arg(long)]
    pub allow_unmatched: bool,
    /// Compare runs recorded on different GPU models (an A100 base, an H100 new run): without
    /// it such a diff is refused (exit 2); with it the report and every verdict say cross-GPU.
    #[arg(long)]
    pub allow_different_gpus: bool,
    /// Also draw FILE (.svg/.png): ncu, a roofline with an arrow from each kernel's base point
    /// to its new point; nsys, idle per class before vs after.
    #[arg(long, value_name = "FILE")]
    pub plot: Option<PathBuf>,
    #[command(flatten)]
    pub output: OutputArgs,
}
