//! Reference-kernel results -> measured roofs.
//!
//! `results` parses the harness's JSON lines, `stats` gives medians and
//! IQRs, `select` picks the roofs, `compare` sets them beside the datasheet,
//! `report` holds both for the renderers; `toolchain` finds nvcc and `build`
//! holds the embedded kernel sources and the nvcc command lines. The chart's
//! input is `plot::CalibrationInput::from_results`; running the harness is
//! `commands::calibrate`'s job.

pub mod build;
pub mod compare;
pub mod report;
pub mod results;
pub mod select;
pub mod stats;
pub mod toolchain;

pub use report::CalibrateReport;

/// Errors in a harness results file (exit code 2).
#[derive(Debug, thiserror::Error)]
pub enum CalibrateInputError {
    /// The file could not be read.
    #[error("cannot read harness results {path}: {error}")]
    Io {
        /// The file.
        path: String,
        /// The I/O error (in the message, not a `source`: printing the
        /// chain would repeat the OS's text).
        error: std::io::Error,
    },
    /// The file is larger than any harness output.
    #[error("{path} is larger than {limit} bytes; a harness results file is a few KiB of JSON lines (`rooftrace calibrate --save-results FILE`)")]
    TooBig {
        /// The file.
        path: String,
        /// The limit, bytes.
        limit: u64,
    },
    /// One line is not a valid harness measurement.
    #[error("{path}, line {line}: {detail}. Each line must be one JSON measurement written by the rooftrace harness (format: kernels/README.md); rerun `rooftrace calibrate --save-results FILE` to get a fresh file")]
    Line {
        /// The file.
        path: String,
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        detail: String,
    },
    /// The file holds no measurement.
    #[error("{path} holds no measurements: expected JSON lines from the rooftrace harness (`rooftrace calibrate --save-results FILE`)")]
    Empty {
        /// The file.
        path: String,
    },
    /// No DRAM roof could be selected, so no roofs file is written
    /// (`rooftrace ncu --roofs` needs one).
    #[error("{path}: no DRAM roof ({reason}), so the roofs file {output} was not written: `rooftrace ncu --roofs` needs a DRAM roof. Rerun `rooftrace calibrate` on an idle GPU (read_sum/copy/triad at working sets >= 4 x L2 give it)")]
    NoDramRoof {
        /// The results file.
        path: String,
        /// Why selection found none.
        reason: String,
        /// The roofs file that was not written.
        output: String,
    },
    /// Lines from two different GPUs.
    #[error("{path}, line {line}: measured on {found:?}, but line {first_line} on {expected:?}; a results file must come from one GPU, split it per device")]
    MixedDevices {
        /// The file.
        path: String,
        /// The line with the other device.
        line: usize,
        /// Its device.
        found: String,
        /// The first line's line number.
        first_line: usize,
        /// The first line's device.
        expected: String,
    },
}

/// A bad harness results file is the input's fault (exit code 2).
impl crate::error::BadInput for CalibrateInputError {}

/// Largest harness results file read (a real one is a few KiB).
pub const MAX_RESULTS_BYTES: u64 = 64 << 20;

/// Reads and parses a harness results file; `-` reads standard input. At
/// most [`MAX_RESULTS_BYTES`] are read, so `/dev/zero` or an endless pipe is
/// an error, not an allocation without bound.
pub fn read_results(path: &std::path::Path) -> Result<results::Results, CalibrateInputError> {
    use std::io::Read;
    let stdin = path.as_os_str() == "-";
    let shown = if stdin {
        "<stdin>".to_string()
    } else {
        path.display().to_string()
    };
    let io = |error| CalibrateInputError::Io {
        path: shown.clone(),
        error,
    };
    let input: Box<dyn Read> = if stdin {
        Box::new(std::io::stdin().lock())
    } else {
        Box::new(std::fs::File::open(path).map_err(io)?)
    };
    let mut bytes = Vec::new();
    input
        .take(MAX_RESULTS_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(io)?;
    if bytes.len() as u64 > MAX_RESULTS_BYTES {
        return Err(CalibrateInputError::TooBig {
            path: shown,
            limit: MAX_RESULTS_BYTES,
        });
    }
    let text = String::from_utf8(bytes).map_err(|e| CalibrateInputError::Line {
        path: shown.clone(),
        line: 1 + e.as_bytes()[..e.utf8_error().valid_up_to()]
            .iter()
            .filter(|&&b| b == b'\n')
            .count(),
        detail: "not UTF-8 text".into(),
    })?;
    results::parse(&text, &shown)
}
