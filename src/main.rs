//! The `rooftrace` binary: parse arguments, run, print the error chain, exit.
//! A broken pipe on stdout is success; the error line goes through
//! `commands::output::note`, which never panics on a closed stderr.
#![deny(clippy::print_stdout, clippy::print_stderr)]

use std::process::ExitCode;

fn main() -> ExitCode {
    // clap's parse, with near misses answered by the closest names.
    let cli =
        rooftrace::cli::near_miss::parse_from(std::env::args_os()).unwrap_or_else(|e| e.exit());
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
