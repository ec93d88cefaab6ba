//! What an input is ([`InputKind`]), said in words, and which commands read
//! each kind: the model the door ([`super::identify`]) returns and its
//! errors word.

use std::fmt;

/// Which page of an ncu CSV a file holds (the parser reads both, and ncu's
/// own log when it wrote no CSV).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NcuShape {
    /// `--page details`: a `Metric Name`/`Metric Value` row per metric
    /// (ncu's default, and the roofline sections' rate rows).
    Details,
    /// `--page raw`: one row per launch, one column per metric.
    Raw,
    /// ncu's log (`==PROF==`, `==ERROR==` lines) without a CSV header: the
    /// parser says what ncu printed.
    Log,
}

/// Which rooftrace report a JSON file is (its `schema` key,
/// `rooftrace.<kind>/<version>`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReportKind {
    /// `rooftrace ncu --format json`.
    Ncu,
    /// `rooftrace gaps --format json`.
    Gaps,
    /// `rooftrace budget --format json`.
    Budget,
    /// `rooftrace diff --format json`.
    Diff,
    /// `rooftrace comm --format json`.
    Comm,
    /// `rooftrace ncu --project-to … --format json`.
    Projection,
}

impl ReportKind {
    /// The kind of schema `rooftrace.<key>/…`, if it is a report's.
    pub fn from_key(key: &str) -> Option<ReportKind> {
        Some(match key {
            "ncu" => ReportKind::Ncu,
            "gaps" => ReportKind::Gaps,
            "budget" => ReportKind::Budget,
            "diff" => ReportKind::Diff,
            "comm" => ReportKind::Comm,
            "projection" => ReportKind::Projection,
            _ => return None,
        })
    }

    /// The subcommand that writes it.
    pub fn command(self) -> &'static str {
        match self {
            ReportKind::Ncu | ReportKind::Projection => "ncu",
            ReportKind::Gaps => "gaps",
            ReportKind::Budget => "budget",
            ReportKind::Diff => "diff",
            ReportKind::Comm => "comm",
        }
    }
}

/// What an input path holds, decided from its content by
/// [`super::identify`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InputKind {
    /// A directory (commands that take many inputs search it).
    Directory,
    /// An Nsight Compute CSV.
    NcuCsv(NcuShape),
    /// An Nsight Compute report (`.ncu-rep`), imported with `ncu`.
    NcuReport,
    /// An Nsight Systems SQLite export (an SQLite database with nsys tables).
    NsysExport,
    /// An Nsight Systems report (`.nsys-rep`, `.qdrep`), exported with `nsys`.
    NsysReport,
    /// A PyTorch profiler (Kineto) Chrome-trace JSON, plain or gzip.
    PyTorchTrace,
    /// A JSON report rooftrace wrote, with its `schema` value.
    Report(ReportKind, String),
    /// A roofs file (`rooftrace.roofs/…`: `--roofs FILE`).
    Roofs,
    /// Calibration results (`rooftrace.calib/…` JSON lines).
    CalibrateResults,
}

impl InputKind {
    /// True for a timeline (what `gaps`, `budget`, `comm` and `diff` read).
    pub fn is_timeline(&self) -> bool {
        matches!(
            self,
            InputKind::NsysExport | InputKind::NsysReport | InputKind::PyTorchTrace
        )
    }

    /// The commands that read this kind, as a user types them.
    pub fn read_by(&self) -> &'static str {
        match self {
            InputKind::Directory => "`rooftrace ncu DIR` and `rooftrace gaps DIR`",
            InputKind::NcuCsv(_) | InputKind::NcuReport => {
                "`rooftrace ncu` (and `rooftrace diff`, two of them)"
            }
            InputKind::NsysExport | InputKind::NsysReport | InputKind::PyTorchTrace => {
                "`rooftrace gaps`, `budget`, `comm` (and `diff`, two of them)"
            }
            InputKind::Report(ReportKind::Ncu | ReportKind::Gaps, _) => "`rooftrace diff`",
            InputKind::Report(..) => "people, not rooftrace (a report, not an input)",
            InputKind::Roofs => "`--roofs`, `--project-to` and `calibrate --datasheet`",
            InputKind::CalibrateResults => "`rooftrace calibrate --from FILE`",
        }
    }
}

impl fmt::Display for InputKind {
    /// The kind in words: "an ncu CSV (details page)".
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InputKind::Directory => write!(f, "a directory"),
            InputKind::NcuCsv(NcuShape::Details) => write!(f, "an ncu CSV (details page)"),
            InputKind::NcuCsv(NcuShape::Raw) => write!(f, "an ncu CSV (raw page)"),
            InputKind::NcuCsv(NcuShape::Log) => write!(f, "ncu's output without a CSV"),
            InputKind::NcuReport => write!(f, "an Nsight Compute report (.ncu-rep)"),
            InputKind::NsysExport => write!(f, "an Nsight Systems SQLite export"),
            InputKind::NsysReport => write!(f, "an Nsight Systems report (.nsys-rep)"),
            InputKind::PyTorchTrace => write!(f, "a PyTorch profiler trace"),
            InputKind::Report(kind, schema) => write!(
                f,
                "a `rooftrace {} --format json` report ({schema})",
                kind.command()
            ),
            InputKind::Roofs => write!(f, "a roofs file"),
            InputKind::CalibrateResults => write!(f, "calibration results"),
        }
    }
}

/// What the door found in a file that is no input (for
/// [`NotAnInput`]'s sentence).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Found {
    /// The file's first bytes in hex, and what they may be (`an ELF binary`).
    Bytes(String, Option<&'static str>),
    /// Text: its first line, cut.
    Text(String),
    /// JSON whose `schema` is none of rooftrace's (or absent: `None`).
    Json(Option<String>),
    /// gzip that decodes whole to something that is no trace.
    Gzip,
    /// An SQLite database without Nsight Systems tables.
    OtherSqlite,
}

impl fmt::Display for Found {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Found::Bytes(hex, Some(guess)) => write!(
                f,
                "it is binary data, not text, starting with bytes {hex} ({guess}?)"
            ),
            Found::Bytes(hex, None) => {
                write!(f, "it is binary data, not text, starting with bytes {hex}")
            }
            Found::Text(line) => write!(f, "it starts with `{line}`"),
            Found::Json(Some(schema)) => write!(
                f,
                "JSON with schema {schema:?}, none of rooftrace's (`rooftrace.<kind>/<version>`)"
            ),
            Found::Json(None) => write!(
                f,
                "a JSON object that is not a PyTorch profiler trace (no `traceEvents`) nor rooftrace's (no `schema` key)"
            ),
            Found::Gzip => write!(
                f,
                "gzip whose content is not a PyTorch profiler trace (no `traceEvents`)"
            ),
            Found::OtherSqlite => write!(
                f,
                "an SQLite database without Nsight Systems tables (no StringIds or CUPTI_ACTIVITY_KIND_* table: export a report with `nsys export --type=sqlite -o out.sqlite report.nsys-rep`)"
            ),
        }
    }
}

/// What rooftrace reads, for the end of [`NotAnInput`].
pub const WHAT_ROOFTRACE_READS: &str = "rooftrace reads ncu CSVs (`ncu --csv`) and .ncu-rep reports, Nsight Systems exports (`nsys export --type=sqlite`) and .nsys-rep reports, PyTorch profiler traces (.json, .json.gz), and its own JSON reports, roofs files and calibration results";

/// A file that is no input rooftrace reads: what it holds, and what
/// rooftrace reads.
#[derive(Debug, thiserror::Error)]
#[error("{path}: not an input rooftrace reads ({found}); {WHAT_ROOFTRACE_READS}")]
pub struct NotAnInput {
    /// The file, as given.
    pub path: String,
    /// What it holds.
    pub found: Found,
}

impl crate::error::BadInput for NotAnInput {}

/// An input of a kind the command does not read: what it is, and which
/// commands read it.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {kind}, read by {read_by}; {command} reads {wants}")]
pub struct WrongCommand {
    /// The file, as given.
    pub path: String,
    /// What it is.
    pub kind: InputKind,
    /// Who reads it ([`InputKind::read_by`]).
    pub read_by: &'static str,
    /// The command (or flag) it was given to, as typed: "`rooftrace ncu`".
    pub command: &'static str,
    /// What that command reads.
    pub wants: &'static str,
}

impl crate::error::BadInput for WrongCommand {}
