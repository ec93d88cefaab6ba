//! Glue between the CLI and the library: resolve arguments into plain config,
//! open files, show progress, write output. No analysis happens here.

use crate::cli::{Cli, Command};

pub mod budget;
pub mod calibrate;
pub mod diff;
pub mod gaps;
pub mod inputs;
pub mod many;
pub mod ncu;
pub mod output;
pub mod plot;
pub mod project;
pub mod roofs;
pub mod timeline;
pub mod trace_out;

/// Runs one parsed command line.
pub fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Ncu(args) => ncu::run(args),
        Command::Gaps(args) => gaps::run(args),
        Command::Budget(args) => budget::run(args),
        Command::Calibrate(args) => calibrate::run(args),
        Command::Diff(args) => diff::run(args),
    }
}
