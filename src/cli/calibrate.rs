//! Arguments of `rooftrace calibrate`.

use super::FormatArg;
use std::path::PathBuf;

const AFTER_HELP: &str = "\
Examples:
  # build and run the reference kernels, write the roofs
  rooftrace calibrate -o roofs.json
  # roofs from a saved harness run (on any machine)
  rooftrace calibrate --from results.jsonl -o roofs.json
  # use the measured roofs
  rooftrace ncu report.csv --roofs roofs.json
  # the roofline shape traced by the sweeps, as a PR comment
  rooftrace calibrate --from results.jsonl --plot roofs.png --format md

Needs nvcc and cuBLASLt to build the kernels. Without a CUDA toolkit:
  pip install nvidia-cuda-nvcc nvidia-cuda-cccl nvidia-cublas nvidia-cuda-runtime
Keep the GPU otherwise idle while it runs: 1-3 min (the build, then 1-2 min of\nkernels on an H100).";

/// `rooftrace calibrate`: measure the roofs of this GPU.
#[derive(Debug, clap::Args)]
#[command(after_help = AFTER_HELP)]
pub struct CalibrateArgs {
    /// Compute the roofs from a saved harness run instead of running the kernels.
    #[arg(long, value_name = "results.jsonl")]
    pub from: Option<PathBuf>,
    /// Write the measured roofs (the file `rooftrace ncu --roofs` reads) to FILE.
    #[arg(short = 'o', long = "output", value_name = "roofs.json")]
    pub output: Option<PathBuf>,
    /// Compare with the roofs in this file instead of the built-in datasheet table.
    #[arg(long, value_name = "roofs.json")]
    pub datasheet: Option<PathBuf>,
    /// Also draw the measured roofs with the FMA-sweep and M-sweep points to FILE (.svg or
    /// .png). With `--format md` the report embeds it.
    #[arg(long, value_name = "FILE")]
    pub plot: Option<PathBuf>,
    /// Format of the report printed on stdout.
    #[arg(long, value_enum, default_value_t = FormatArg::Table)]
    pub format: FormatArg,
    /// Keep the raw harness results (JSON lines) in FILE [default: results.jsonl in the cache dir].
    #[arg(long, value_name = "FILE", conflicts_with = "from")]
    pub save_results: Option<PathBuf>,
    /// The nvcc to build the kernels with [default: PATH, $CUDA_HOME, pip's nvidia/cu13].
    #[arg(long, value_name = "PATH", conflicts_with = "from")]
    pub nvcc: Option<PathBuf>,
    /// Where the kernels are built [default: $XDG_CACHE_HOME/rooftrace or ~/.cache/rooftrace].
    #[arg(long, value_name = "DIR", conflicts_with = "from")]
    pub cache_dir: Option<PathBuf>,
    /// Timed samples per point (at least 7).
    #[arg(long, value_name = "N", default_value_t = 9, value_parser = clap::value_parser!(u32).range(7..), conflicts_with = "from")]
    pub samples: u32,
    /// Flush L2 before every sample (cold runs, one launch per sample).
    #[arg(long, conflicts_with = "from")]
    pub l2_flush: bool,
    /// Measure a few points only (smoke test; roofs less exact).
    #[arg(long, conflicts_with = "from")]
    pub quick: bool,
}
