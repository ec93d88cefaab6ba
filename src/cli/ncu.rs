//! Arguments of `rooftrace ncu`.

use super::OutputArgs;
use std::path::PathBuf;

/// `rooftrace ncu`: roofline analysis of an Nsight Compute CSV.
#[derive(Debug, clap::Args)]
pub struct NcuArgs {
    /// The ncu CSV (details or raw page).
    pub input: Option<PathBuf>,
    #[command(flatten)]
    pub output: OutputArgs,
}
