//! Glue between the CLI and the library: resolve arguments into plain config,
//! open files, show progress, write output. No analysis happens here.

use crate::cli::{Cli, Command};

pub mod budget;
pub mod calibrate;
pub mod comm;
pub mod diff;
pub mod gaps;
pub mod inputs;
pub mod many;
pub mod ncu;
pub mod ops;
pub mod output;
pub mod path;
pub mod plot;
pub mod projection;
pub mod roofs;
pub mod timeline;
pub mod trace_out;

/// Runs one parsed command line, its tables fitted to the terminal when
/// the report goes to one ([`output::terminal_width`]).
pub fn run(cli: Cli) -> anyhow::Result<()> {
    let width = match &cli.command {
        Command::Ncu(args) => output::terminal_width(&args.output),
        Command::Gaps(args) => output::terminal_width(&args.output),
        Command::Budget(args) => output::terminal_width(&args.output),
        Command::Diff(args) => output::terminal_width(&args.output),
        Command::Comm(args) => output::terminal_width(&args.output),
        Command::Ops(args) => output::terminal_width(&args.output),
        Command::Path(args) => output::terminal_width(&args.output_args()),
        Command::Calibrate(_) => None,
    };
    crate::report::table::with_width(width, || match cli.command {
        Command::Ncu(args) => ncu::run(args),
        Command::Gaps(args) => gaps::run(args),
        Command::Budget(args) => budget::run(args),
        Command::Calibrate(args) => calibrate::run(args),
        Command::Comm(args) => comm::run(args),
        Command::Ops(args) => ops::run(args),
        Command::Diff(args) => diff::run(args),
        Command::Path(args) => path::run(args),
    })
}
