//! Exit codes and the error types that mean "the input is bad".
//!
//! Parsers return their own `thiserror` enums; commands add file context with
//! `anyhow`. Any error whose chain contains one of the input-error types below
//! exits with code 2, everything else (I/O, a failed `nvcc`) with 1.

/// A problem with what the user gave us: a file, a flag value, a roofs file.
/// The message names the file, row/column or table, what is wrong and how to
/// fix it.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct InputError(pub String);

impl InputError {
    /// Builds an input error from any message.
    pub fn new(msg: impl Into<String>) -> Self {
        InputError(msg.into())
    }
}

/// Exit code for bad input (clap uses the same code for bad arguments).
pub const EXIT_BAD_INPUT: u8 = 2;
/// Exit code for every other failure.
pub const EXIT_FAILURE: u8 = 1;

/// Maps an error chain to the process exit code.
pub fn exit_code(err: &anyhow::Error) -> u8 {
    if err.chain().any(is_input_error) {
        EXIT_BAD_INPUT
    } else {
        EXIT_FAILURE
    }
}

fn is_input_error(e: &(dyn std::error::Error + 'static)) -> bool {
    e.is::<InputError>()
        || e.is::<crate::ncu::NcuError>()
        || e.is::<crate::nsys::NsysError>()
        || e.is::<crate::roofs::RoofsError>()
        || e.is::<crate::calibrate::CalibrateInputError>()
}

/// True when the error is a broken pipe (e.g. `rooftrace ... | head`), which
/// is not a failure.
pub fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|e| {
        e.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
