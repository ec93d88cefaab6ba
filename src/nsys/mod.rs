//! Nsight Systems SQLite export (schema probed first) -> [`Timeline`].
//!
//! The reader opens the export read-only, probes which tables and columns
//! exist (tables are present only when they have data; columns were added
//! over the years), loads GPU activity (kernels, memcpys, memsets, whole-graph
//! rows), CUDA runtime calls, synchronisation calls and NVTX ranges into
//! compact structs, and joins each GPU op to the API call that launched it on
//! (process, correlationId) (`crate::timeline::join`). `convert` turns an `.nsys-rep` into an export by
//! running `nsys export`.

mod chunks;
mod companion;
pub mod convert;
mod copies;
pub mod guard;
mod host;
pub mod identity;
mod nccl;
mod nvtx;
mod raw;
mod read;
mod rows;
mod schema;
mod sql;

pub use read::{read_timeline, read_timeline_near, Near};
pub use schema::{Schema, SchemaFlavor};
pub use sql::ReadProgress;

/// The model the reader fills, defined in the shared leaf `timeline` (the
/// Kineto reader fills it too) and named here for the analyses.
pub use crate::timeline::{
    ApiCall, CopyKind, CopyTotal, Diagnostic, DiagnosticKind, ExportInfo, GpuOp, GraphTrace,
    HostSpan, HostSpanKind, NameRef, NvtxRange, OpKind, SyncCall, Timeline, NO_API, NO_TID,
    OP_PAGEABLE,
};

use std::path::PathBuf;

/// Errors in an nsys export. Each names the file (and table or column) and
/// says what to do.
#[derive(Debug, thiserror::Error)]
pub enum NsysError {
    /// The file is not an SQLite database at all.
    #[error("{path}: not an SQLite database ({detail}); give a `.sqlite` file from `nsys export --type=sqlite`, an `.nsys-rep`, or a PyTorch profiler trace (`.json` or `.json.gz`)")]
    NotSqlite {
        /// The input file.
        path: PathBuf,
        /// What the file starts with (for a reader to tell what it was
        /// given), or what SQLite said when that was more.
        detail: String,
    },
    /// An SQLite header, but the file is shorter than the header says (a
    /// copy or download cut short).
    #[error("{path}: truncated or corrupt SQLite file: its header says {expected_bytes} bytes, the file has {file_bytes}; copy it again or re-export it with `nsys export --type=sqlite`")]
    Truncated {
        /// The input file.
        path: PathBuf,
        /// The length its header gives (bytes: page count × page size).
        expected_bytes: u64,
        /// Its length on disk (bytes).
        file_bytes: u64,
    },
    /// An SQLite database without any Nsight Systems table.
    #[error("{path}: SQLite database but not an Nsight Systems export (no StringIds or CUPTI_ACTIVITY_KIND_* table); export it with `nsys export --type=sqlite -o out.sqlite report.nsys-rep`")]
    NotNsysExport {
        /// The input file.
        path: PathBuf,
    },
    /// An export without kernels, memcpys, memsets or graph rows.
    #[error("{path}: no GPU activity (tables CUPTI_ACTIVITY_KIND_KERNEL, _MEMCPY, _MEMSET, _GRAPH_TRACE are absent or empty); profile with `nsys profile --trace=cuda,nvtx ...`")]
    NoGpuActivity {
        /// The input file.
        path: PathBuf,
    },
    /// A table lacks a column rooftrace needs.
    #[error("{path}: table {table} has no column `{column}`; re-export with a current `nsys export --type=sqlite`")]
    MissingColumn {
        /// The input file.
        path: PathBuf,
        /// The table.
        table: String,
        /// The missing column.
        column: String,
    },
    /// A value rooftrace cannot use (e.g. a NULL start, a negative device id).
    #[error("{path}: table {table}, row {rowid}: {what}")]
    BadValue {
        /// The input file.
        path: PathBuf,
        /// The table.
        table: String,
        /// The SQLite rowid of the row.
        rowid: i64,
        /// What is wrong.
        what: String,
    },
    /// SQLite failed while reading a table.
    #[error("{path}: reading table {table}: {error}")]
    Sqlite {
        /// The input file.
        path: PathBuf,
        /// The table being read.
        table: String,
        /// The SQLite error (in the message, not a `source`: printing the
        /// chain would repeat it).
        error: rusqlite::Error,
    },
    /// Reading took longer than the deadline allows (a view or schema that
    /// asks for endless work, or a corrupt file).
    #[error("{path}: reading table {table} exceeded the time allowed for a file of this size (see docs/reliability.md); the export is corrupt or was edited (e.g. an endless view) — export it again with `nsys export --type=sqlite`")]
    Deadline {
        /// The input file.
        path: PathBuf,
        /// The table being read.
        table: String,
    },
    /// SQLite hit its memory ceiling or a size limit.
    #[error("{path}: reading table {table} needs more memory than rooftrace allows for SQLite ({detail}); the export is corrupt or was edited — export it again with `nsys export --type=sqlite`")]
    TooBig {
        /// The input file.
        path: PathBuf,
        /// The table being read.
        table: String,
        /// What SQLite said.
        detail: String,
    },
    /// Holding a table's rows needs more memory than the process can get
    /// (an address-space limit, a full machine): an error, not an abort.
    #[error("{path}: holding the {rows} rows of {table} needs more memory than this process can get; raise the memory limit (`ulimit -v`), free memory, or cut the capture (`nsys profile --duration`, `--capture-range`)")]
    OutOfMemory {
        /// The input file.
        path: PathBuf,
        /// The table being read.
        table: String,
        /// Rows held when the growth failed.
        rows: usize,
    },
    /// A name the reader uses is a view, a virtual table or something else
    /// than a plain table.
    #[error("{path}: {table} is a {kind}, not a table; nsys exports only plain tables, so this export was edited — export it again with `nsys export --type=sqlite`")]
    NotATable {
        /// The input file.
        path: PathBuf,
        /// The name.
        table: String,
        /// What it is (`view`, `virtual table`).
        kind: String,
    },
    /// A `-wal` or hot `-journal` lies beside the export and the copy
    /// that applies it, leaving the originals untouched, could not be made.
    #[error("{path}: {companion} beside it holds {holds}, which SQLite applies when it opens the export; rooftrace applies it to a copy in the temporary directory and could not make one ({detail}): free room there (or point TMPDIR at a disk with room for both files), or apply it to a copy yourself and give rooftrace the copy: {fix}")]
    Companion {
        /// The input file.
        path: PathBuf,
        /// The companion file (`…-wal`, `…-journal`).
        companion: PathBuf,
        /// What the companion holds, in words.
        holds: &'static str,
        /// Why the copy failed.
        detail: String,
        /// The commands that apply the companion to a copy.
        fix: String,
    },
    /// An `.nsys-rep` was given but `nsys` cannot be found.
    #[error("{path}: converting an .nsys-rep needs Nsight Systems' `nsys`, which was not found (looked for --nsys, $ROOFTRACE_NSYS, PATH); run `{command}` where nsys is installed and pass the .sqlite")]
    NsysNotFound {
        /// The report.
        path: PathBuf,
        /// The exact export command to run elsewhere.
        command: String,
    },
    /// `nsys export` ran and failed.
    #[error("{path}: `{command}` failed ({status}): {stderr}")]
    ExportFailed {
        /// The report.
        path: PathBuf,
        /// The command that was run.
        command: String,
        /// Its exit status.
        status: String,
        /// The end of its stderr.
        stderr: String,
    },
}

/// Every nsys export error is the input's (exit code 2).
impl crate::error::BadInput for NsysError {}

/// Process id from a serialized `globalPid`/`globalTid`.
pub fn pid_of(global: i64) -> u32 {
    ((global >> 24) & 0xFF_FFFF) as u32
}

/// Thread id from a serialized `globalTid`.
pub fn tid_of(global: i64) -> u32 {
    (global & 0xFF_FFFF) as u32
}

/// The bundled real exports (`fixtures/nsys/*.sqlite`, not the one that is
/// no SQLite file), for the readers' unit tests.
#[cfg(test)]
fn bundled_exports() -> Vec<std::path::PathBuf> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/nsys");
    let mut v: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "sqlite"))
        .filter(|p| !p.ends_with("not_sqlite.sqlite"))
        .collect();
    v.sort();
    v
}
