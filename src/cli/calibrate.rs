//! Arguments of `rooftrace calibrate`.

use std::path::PathBuf;

/// `rooftrace calibrate`: measure the roofs of this GPU.
#[derive(Debug, clap::Args)]
pub struct CalibrateArgs {
    /// Compute the roofs from a saved harness run instead of running the kernels.
    #[arg(long, value_name = "results.jsonl")]
    pub from: Option<PathBuf>,
}
