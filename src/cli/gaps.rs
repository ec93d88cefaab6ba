//! Arguments of `rooftrace gaps`.

use super::OutputArgs;
use std::path::PathBuf;

/// `rooftrace gaps`: idle-gap analysis of an Nsight Systems timeline.
#[derive(Debug, clap::Args)]
pub struct GapsArgs {
    /// The report: `.nsys-rep` or a `.sqlite` export.
    pub input: PathBuf,
    #[command(flatten)]
    pub output: OutputArgs,
}
