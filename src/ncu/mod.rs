//! Nsight Compute CSV (details and raw pages, every ncu version) -> launches.
//!
//! [`parse`] streams the file once with the `csv` crate (byte records, no
//! per-row allocation for skipped rows), so memory grows with the number of
//! launches, not with the file. Numbers and units are converted at this
//! boundary (`number`); metric names are classified once (`metrics`).

pub mod bounds;
mod finalize;
pub mod metrics;
pub mod model;
pub mod number;
mod parse;
mod peaks;

pub use model::{LaunchMetrics, NcuCsv, NcuPeaks, Page, PathFlop};
pub use parse::parse;

/// Errors in an ncu CSV. Every message names the file, the line and the
/// column where it applies, and what to do.
#[derive(Debug, thiserror::Error)]
pub enum NcuError {
    /// The file could not be read.
    #[error("cannot read {file}: {source}")]
    Io {
        /// The file.
        file: String,
        /// The I/O error.
        source: std::io::Error,
    },
    /// No CSV header, and ncu printed errors instead.
    #[error("{file} holds no ncu CSV; ncu printed:\n{}\nfix the profiled run, then export again with `ncu --csv ...`", quote(.errors))]
    NcuFailed {
        /// The file.
        file: String,
        /// ncu's `==ERROR==` (and `==WARNING==`) lines, verbatim.
        errors: Vec<String>,
    },
    /// No CSV header and no ncu error lines.
    #[error("{file} holds no ncu CSV: no header line starting with \"ID\",\"Process ID\" in its {lines} lines; export with `ncu --csv --page details` or `--page raw`")]
    NoCsv {
        /// The file.
        file: String,
        /// Lines read.
        lines: u64,
    },
    /// A header without launches.
    #[error("{file}: the ncu CSV has a header but no launches (line {line}); was any kernel profiled? check ncu's --kernel-name / --launch-skip filters")]
    NoLaunches {
        /// The file.
        file: String,
        /// Line of the header.
        line: u64,
    },
    /// A column rooftrace needs is absent from the header.
    #[error("{file}, line {line}: the header has no {column:?} column; this does not look like an ncu --csv export (expected the details page with \"Metric Name\"/\"Metric Value\" or the raw page with one column per metric)")]
    MissingColumn {
        /// The file.
        file: String,
        /// Header line.
        line: u64,
        /// The missing column.
        column: String,
    },
    /// A number written with a decimal comma.
    #[error("{file}, line {line}, column {column:?}: {value:?} is written in a comma-decimal locale; reading it would be off by 1000x. Re-export with LC_ALL=C (e.g. `LC_ALL=C ncu --import report.ncu-rep --csv ...`)")]
    CommaDecimal {
        /// The file.
        file: String,
        /// 1-based line.
        line: u64,
        /// Column (and metric, on the details page).
        column: String,
        /// The cell.
        value: String,
    },
    /// A metric value that is a number but not a measurement (overflows,
    /// or beyond 1e30 in base units).
    #[error("{file}, line {line}, column {column:?}: {value:?} {why}; the file is corrupt or was edited, export it again with `ncu --csv`")]
    Implausible {
        /// The file.
        file: String,
        /// 1-based line.
        line: u64,
        /// Column (and metric, on the details page).
        column: String,
        /// The cell (cut to a short echo).
        value: String,
        /// What is wrong.
        why: &'static str,
    },
    /// Two different kernels under one (ID, Process ID).
    #[error("{file}, line {line}: launch ID {id} of process {pid} is kernel {second:?} here but {first:?} at line {first_line}; two launches cannot share an ID — the file joins two exports or was edited; export each report separately")]
    DuplicateLaunch {
        /// The file.
        file: String,
        /// 1-based line of the second row.
        line: u64,
        /// 1-based line where the launch was first seen.
        first_line: u64,
        /// `ID`.
        id: u64,
        /// `Process ID`.
        pid: u64,
        /// First kernel name.
        first: String,
        /// Second kernel name.
        second: String,
    },
    /// A line longer than any ncu writes (or no line end at all).
    #[error("{file}, line {line}: a line longer than {limit} bytes; this is not an ncu CSV (or it is corrupt); export with `ncu --csv`")]
    TooLong {
        /// The file.
        file: String,
        /// 1-based line.
        line: u64,
        /// The limit, bytes.
        limit: u64,
    },
    /// A metric value that is not a number.
    #[error("{file}, line {line}, column {column:?}: {value:?} is not a number")]
    BadNumber {
        /// The file.
        file: String,
        /// 1-based line.
        line: u64,
        /// Column (and metric, on the details page).
        column: String,
        /// The cell.
        value: String,
    },
    /// An ID or Process ID that is not an integer.
    #[error("{file}, line {line}, column {column:?}: {value:?} is not a launch id (a non-negative integer); is the file truncated or edited?")]
    BadId {
        /// The file.
        file: String,
        /// 1-based line.
        line: u64,
        /// `ID` or `Process ID`.
        column: String,
        /// The cell.
        value: String,
    },
    /// A unit rooftrace cannot convert for a metric it needs.
    #[error("{file}, line {line}: metric {metric} has unit {unit:?}, expected {expected}; export with `--print-units base` to get base units")]
    BadUnit {
        /// The file.
        file: String,
        /// 1-based line.
        line: u64,
        /// The metric.
        metric: String,
        /// The unit found.
        unit: String,
        /// What was expected.
        expected: &'static str,
    },
    /// The file ends inside a quoted field: it was cut short.
    #[error("{file} ends inside a quoted field (line {line}): the file looks truncated, and its last value cannot be trusted; export it again (e.g. `ncu --import run.ncu-rep --csv --page raw > report.csv`)")]
    Truncated {
        /// The file.
        file: String,
        /// 1-based line of the last record.
        line: u64,
    },
    /// Malformed CSV (unbalanced quotes, ...).
    #[error("{file}, line {line}: malformed CSV: {detail}")]
    Csv {
        /// The file.
        file: String,
        /// 1-based line.
        line: u64,
        /// The csv crate's message.
        detail: String,
    },
    /// No launch has a DRAM traffic metric.
    #[error("no DRAM traffic metric in {file} ({launches} launch(es)): add `--metrics dram__bytes_read.sum,dram__bytes_write.sum` (or use `--metrics \"$(rooftrace ncu --print-metrics)\"`)")]
    NoDram {
        /// The file.
        file: String,
        /// Launches in the file.
        launches: usize,
    },
    /// No launch has a duration.
    #[error("no kernel duration in {file} ({launches} launch(es)): add `--metrics gpu__time_duration.sum` (or `sm__cycles_elapsed.avg,sm__cycles_elapsed.avg.per_second`)")]
    NoDuration {
        /// The file.
        file: String,
        /// Launches in the file.
        launches: usize,
    },
    /// `--roofs ncu` without the peak metrics.
    #[error("--roofs ncu needs ncu's peak metrics, and {file} lacks {missing}; collect them with `--metrics \"$(rooftrace ncu --print-metrics)\"`, or pick roofs with --gpu or --roofs FILE")]
    NoPeaks {
        /// The file.
        file: String,
        /// The missing metrics.
        missing: String,
    },
}

/// Every ncu CSV error is the input's (exit code 2).
impl crate::error::BadInput for NcuError {}

fn quote(lines: &[String]) -> String {
    lines
        .iter()
        .map(|l| format!("  {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

impl NcuCsv {
    /// What the file says about its device, for choosing the roofs
    /// ([`crate::roofs::choose`]).
    pub fn device_hints(&self) -> crate::roofs::DeviceHints {
        crate::roofs::DeviceHints {
            file: self.file.clone(),
            device_names: self.device_names.clone(),
            compute_capabilities: self.compute_capabilities.clone(),
        }
    }

    /// Checks that the file can be analysed at all: some launch has a
    /// duration and some launch has DRAM bytes.
    pub fn check_analysable(&self) -> Result<(), NcuError> {
        let n = self.launches.len();
        if !self.launches.iter().any(|l| l.dram_bytes.is_some()) {
            return Err(NcuError::NoDram {
                file: self.file.clone(),
                launches: n,
            });
        }
        if !self.launches.iter().any(|l| l.duration_ns.is_some()) {
            return Err(NcuError::NoDuration {
                file: self.file.clone(),
                launches: n,
            });
        }
        Ok(())
    }
}
