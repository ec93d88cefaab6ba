//! The `rooftrace` binary: parse arguments, run, print the error chain, exit.
//! A broken pipe on stdout is success; the error line goes through
//! `commands::output::note`, which never panics on a closed stderr.
#![deny(clippy::print_stdout, clippy::print_stderr)]

use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = <rooftrace::cli::Cli as clap::Parser>::parse();
    match rooftrace::commands::run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            if rooftrace::error::is_broken_pipe(&err) {
                return ExitCode::SUCCESS;
            }
            rooftrace::commands::output::note(&format!(
                "error: {}",
                rooftrace::error::message(&err)
            ));
            ExitCode::from(rooftrace::error::exit_code(&err))
        }
    }
}
