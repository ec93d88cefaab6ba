//! Nsight Compute CSV (details and raw pages, every ncu version) -> launches.
//!
//! [`parse`] streams the file once (`records`: fields split at ncu's quotes
//! in the read buffer, other lines through `csv_core`; no per-row
//! allocation), so memory grows with the number of launches, not with the
//! file. Numbers and units are converted at this
//! boundary (`number`); metric names are classified once (`metrics`).

pub mod bounds;
pub mod convert;
mod finalize;
mod launches;
pub mod metrics;
pub mod model;
pub mod number;
mod parse;
mod peaks;
mod preamble;
mod records;

pub use finalize::{RATE_ONLY_NS, RATE_ONLY_SOURCE};
pub use model::{
    DeviceFacts, FlopGroup, FlopGroups, LaunchMetrics, NcuCsv, NcuPeaks, Page, PathFlop, Source,
};
pub use parse::parse;

/// True for an ncu CSV's header line (`"ID","Process ID",…` or unquoted,
/// its UTF-8 mark stripped): the line the parser starts at, and the input
/// door's test for an ncu CSV (`input::identify`).
pub fn is_header_line(line: &[u8]) -> bool {
    line.starts_with(b"\"ID\",") || line.starts_with(b"ID,")
}

/// True for a line of ncu's own log (`==PROF==`, `==ERROR==`,
/// `==WARNING==`), which ncu writes before its CSV or instead of it.
pub fn is_log_line(line: &[u8]) -> bool {
    [&b"==PROF=="[..], b"==ERROR==", b"==WARNING=="]
        .iter()
        .any(|p| line.starts_with(p))
}

/// Errors in an ncu CSV. Every message names the file, the line and the
/// column where it applies, and what to do.
#[derive(Debug, thiserror::Error)]
pub enum NcuError {
    /// The file could not be read.
    #[error("cannot read {file}: {error}")]
    Io {
        /// The file.
        file: String,
        /// The I/O error (in the message, not a `source`: printing the
        /// chain would repeat the OS's text).
        error: std::io::Error,
    },
    /// No CSV header, and ncu printed errors instead.
    #[error("{file} holds no ncu CSV; ncu printed:\n{}\nfix the profiled run, then export again with `ncu --csv ...`", quote(.errors))]
    NcuFailed {
        /// The file.
        file: String,
        /// ncu's `==ERROR==` (and `==WARNING==`) lines, verbatim.
        errors: Vec<String>,
    },
    /// ncu attached to the application (`==PROF== Connected`) but profiled
    /// no kernel (no `==PROF== Profiling` line) and wrote no CSV.
    #[error("{file} holds no ncu CSV: ncu ran the application but profiled no kernel (no \"==PROF== Profiling\" line){}\n{NO_KERNEL_CAUSES}", errors_or_nothing(.errors))]
    NoKernelProfiled {
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
    #[error("{file}: the ncu CSV has a header (line {line}) but no launch rows: ncu profiled no kernel. {NO_KERNEL_CAUSES}")]
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
    /// The last record has no line end and fewer fields than the header:
    /// the file was cut between two fields.
    #[error("{file}, line {line}: the file ends inside this record (it has {fields} of the header's {expected} fields and no line end): the file looks truncated, and the launch's values after the cut are missing; export it again (e.g. `ncu --import run.ncu-rep --csv --page raw > report.csv`)")]
    CutRecord {
        /// The file.
        file: String,
        /// 1-based line the cut record starts on.
        line: u64,
        /// Fields the cut record has.
        fields: usize,
        /// Fields the header has.
        expected: usize,
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
    /// No launch has what a roofline needs: DRAM bytes or FLOPs in any form
    /// (and, when `no_duration`, a duration).
    #[error("nothing a roofline can use in {file} ({launches} launch(es)): no DRAM bytes and no FLOPs in any form{}; add `--metrics {}` (or use `--metrics \"$(rooftrace ncu --print-metrics)\"`)", if *.no_duration { ", and no kernel duration" } else { "" }, if *.no_duration { "gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,sm__sass_thread_inst_executed_op_ffma_pred_on.sum,..." } else { "dram__bytes_read.sum,dram__bytes_write.sum,sm__sass_thread_inst_executed_op_ffma_pred_on.sum,..." })]
    NoWork {
        /// The file.
        file: String,
        /// Launches in the file.
        launches: usize,
        /// True when no launch has a duration either.
        no_duration: bool,
    },
    /// No launch has a duration.
    #[error("no kernel duration in {file} ({launches} launch(es)): add `--metrics gpu__time_duration.sum` (or `sm__cycles_elapsed.avg,sm__cycles_elapsed.avg.per_second`)")]
    NoDuration {
        /// The file.
        file: String,
        /// Launches in the file.
        launches: usize,
    },
    /// Launches with rates but no duration (ncu's roofline section
    /// exported alone), read by a command that needs each kernel's time.
    #[error("{file}: {rate_only} of {launches} launch(es) have rates but no duration (ncu's roofline section exported by itself), and {needs}. Give the .ncu-rep itself (rooftrace imports it with every counter it holds), or re-export it: `ncu --import R.ncu-rep --csv --page raw --print-units base > R.csv`. `rooftrace ncu {file}` shows its roofline points (intensity, FLOP/s, B/s, fraction of roof) as they are")]
    RateOnly {
        /// The file.
        file: String,
        /// Launches in the file.
        launches: usize,
        /// Launches from rates alone.
        rate_only: usize,
        /// What the command does with time, in words (`rooftrace diff
        /// compares kernel times ...`).
        needs: String,
    },
    /// The profiled launches failed: ncu read every metric as `nan`.
    #[error("the profiled kernel launches failed in {file}: {nan} of {launches} launch(es) have their metrics read as `nan`, and no launch has a usable value{}\nfix the failing launch (run the application without ncu, e.g. under compute-sanitizer), then profile again", errors_or_nothing(.errors))]
    LaunchFailed {
        /// The file.
        file: String,
        /// Launches in the file.
        launches: usize,
        /// Launches with `nan` metrics.
        nan: usize,
        /// ncu's `==ERROR==` lines, verbatim.
        errors: Vec<String>,
    },
    /// A `.ncu-rep` report and no `ncu` to import it.
    #[error("{file} is an Nsight Compute report and `ncu` is not on PATH (nor in $ROOFTRACE_NCU); export it where ncu is installed:\n  {command}\nthen run rooftrace on the CSV")]
    NcuNotFound {
        /// The report.
        file: String,
        /// The command to run by hand.
        command: String,
    },
    /// `ncu --import` failed.
    #[error("`{command}` failed ({status}) for {file}:\n{stderr}")]
    ImportFailed {
        /// The report.
        file: String,
        /// The command (as a user would type it).
        command: String,
        /// Exit status or why it did not start.
        status: String,
        /// The end of ncu's stderr.
        stderr: String,
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

fn errors_or_nothing(errors: &[String]) -> String {
    if errors.is_empty() {
        String::new()
    } else {
        format!("; ncu printed:\n{}", quote(errors))
    }
}

/// Why an ncu run profiles no kernel, and the fix of each (the advice of
/// [`NcuError::NoKernelProfiled`] and [`NcuError::NoLaunches`]).
pub const NO_KERNEL_CAUSES: &str = "Likely causes: the application failed or exited before its first kernel launch (run it without ncu); --launch-skip/--launch-count skipped past every launch it made; a kernel filter (-k/--kernel-name, --kernel-id) that matched no kernel (check the name with `--kernel-name-base demangled` or drop the filter); the kernels ran in a child process (add --target-processes all). Profile again, then export with `ncu --csv ...`";

fn quote(lines: &[String]) -> String {
    lines
        .iter()
        .map(|l| format!("  {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

impl NcuCsv {
    /// What the file says about its device, for choosing the roofs and
    /// checking `--gpu` ([`crate::roofs::choose`]): names, compute
    /// capabilities, SM counts, L2 sizes, memory clocks, bus widths, and
    /// ncu's own peaks.
    pub fn device_hints(&self) -> crate::roofs::DeviceHints {
        let mut memory_clocks_mhz: Vec<u64> =
            self.facts.memory_clocks_mhz.iter().copied().collect();
        // ncu's own roofline metric `dram__cycles_elapsed.avg.per_second`.
        if let Some(hz) = self.peaks.get(metrics::Peak::DramClock) {
            if hz.is_finite() && hz > 0.0 {
                memory_clocks_mhz.push((hz / 1e6).round() as u64);
            }
        }
        memory_clocks_mhz.sort_unstable();
        memory_clocks_mhz.dedup();
        crate::roofs::DeviceHints {
            file: self.file.clone(),
            source: crate::roofs::HintSource::Csv,
            device_names: self.device_names.clone(),
            compute_capabilities: self.compute_capabilities.clone(),
            sm_counts: self.facts.sm_counts.iter().copied().collect(),
            l2_bytes: self.facts.l2_bytes.iter().copied().collect(),
            memory_clocks_mhz,
            bus_widths_bits: self.facts.bus_widths_bits.iter().copied().collect(),
            memory_bandwidths_bytes_per_s: Vec::new(),
            // ncu's own peaks, when the file carries them: `--gpu` is
            // checked against them too.
            ncu_peaks: self.roofs_from_peaks().ok(),
            implied_dram_peak_bytes_per_s: self.implied_dram_peak(),
        }
    }

    /// The DRAM peak the file's `dram__throughput` percentages imply,
    /// byte/s: DRAM bytes / duration / percentage, the lowest over the
    /// launches that state all three with at least 0.5 % (ncu prints two
    /// decimals: 0.50 is within 1 % of its value). Each launch's figure is
    /// at most the true peak, so the lowest is the safest floor (one
    /// launch's inconsistent values, as in a hand-made file, cannot raise
    /// it). `None` when no launch states all three.
    fn implied_dram_peak(&self) -> Option<f64> {
        self.launches
            .iter()
            .filter_map(|l| {
                let (bytes, ns, pct) = (l.dram_bytes?, l.duration_ns?, l.dram_percent_of_peak?);
                (bytes > 0.0 && ns > 0.0 && pct >= 0.5).then(|| bytes / (ns * 1e-9) / (pct / 100.0))
            })
            .filter(|p| p.is_finite())
            .min_by(f64::total_cmp)
    }

    /// Checks that the file can be analysed at all: some launch has a
    /// duration and DRAM bytes or FLOPs in some form. Otherwise says what is
    /// missing, or quotes ncu's errors when the launches failed (every
    /// metric `nan`).
    pub fn check_analysable(&self) -> Result<(), NcuError> {
        let n = self.launches.len();
        let work = |l: &LaunchMetrics| {
            l.dram_bytes.is_some() || l.dram_percent_of_peak.is_some() || l.flop.any_counted()
        };
        if self
            .launches
            .iter()
            .any(|l| l.duration_ns.is_some() && work(l))
        {
            return Ok(());
        }
        let nan = self.launches.iter().filter(|l| l.nan_metrics > 0).count();
        let errors: Vec<String> = self
            .log
            .iter()
            .filter(|l| l.starts_with("==ERROR=="))
            .cloned()
            .collect();
        if nan == n || (nan > 0 && !errors.is_empty()) {
            return Err(NcuError::LaunchFailed {
                file: self.file.clone(),
                launches: n,
                nan,
                errors,
            });
        }
        let any_work = self.launches.iter().any(work);
        let any_duration = self.launches.iter().any(|l| l.duration_ns.is_some());
        if any_work && !any_duration {
            return Err(NcuError::NoDuration {
                file: self.file.clone(),
                launches: n,
            });
        }
        Err(NcuError::NoWork {
            file: self.file.clone(),
            launches: n,
            no_duration: !any_duration,
        })
    }

    /// Checks that every launch has its time, for a command that needs it
    /// (`needs` says what it does with time): a launch from rates alone
    /// ([`LaunchMetrics::rate_only`], timed per nominal second) is refused
    /// with the export to make instead.
    pub fn check_timed(&self, needs: &str) -> Result<(), NcuError> {
        let rate_only = self.launches.iter().filter(|l| l.rate_only).count();
        if rate_only == 0 {
            return Ok(());
        }
        Err(NcuError::RateOnly {
            file: self.file.clone(),
            launches: self.launches.len(),
            rate_only,
            needs: needs.to_string(),
        })
    }
}
