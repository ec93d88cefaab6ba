//! The `rooftrace` binary: parse arguments, run, print the error chain, exit.

use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = <rooftrace::cli::Cli as clap::Parser>::parse();
    match rooftrace::commands::run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            if rooftrace::error::is_broken_pipe(&err) {
                return ExitCode::SUCCESS;
            }
            eprintln!("error: {err:#}");
            ExitCode::from(rooftrace::error::exit_code(&err))
        }
    }
}
