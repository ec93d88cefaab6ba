//! An export with a companion file beside it, read as SQLite reads it. The
//! reader opens exports immutable (`guard::open`), which looks at neither
//! companion: a `-wal` (WAL mode: committed transactions not yet
//! checkpointed into the file) would be left out, and a hot `-journal`
//! (rollback mode: the pages a transaction that never committed
//! overwrote) would leave that transaction's rows in. So when either is
//! there, the export and its companions are copied into a private
//! temporary directory, SQLite applies the WAL or rolls the journal back
//! in the copy, and the read opens the copy. The input and its companions
//! are never written; the copy needs room for them under `$TMPDIR`, and
//! when it cannot be made the read stops with the commands that do the
//! same by hand ([`NsysError::Companion`]).

use super::guard::{open_copy_for_recovery, Deadline};
use super::{Diagnostic, DiagnosticKind, NsysError};
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// The file a read opens: the export itself, or a recovered copy of it
/// (which lives as long as this value).
pub(super) struct Prepared {
    /// The temporary directory holding the copy, when one was made: the
    /// copy is deleted with it.
    _dir: Option<tempfile::TempDir>,
    /// The export, or the copy in `_dir`.
    file: PathBuf,
    diagnostics: Vec<Diagnostic>,
}

impl Prepared {
    /// The file to open.
    pub(super) fn file(&self) -> &Path {
        &self.file
    }

    /// What applying a companion did (none without one).
    pub(super) fn diagnostics(&self) -> Vec<Diagnostic> {
        self.diagnostics.clone()
    }
}

/// The copy's name inside its directory (its companions are named after
/// it, as SQLite looks for them).
const COPY_NAME: &str = "export.sqlite";

/// Which companions lie beside `path`, and the file to read: `path` when
/// there are none, else a copy with them applied.
pub(super) fn prepare(path: &Path, deadline: Deadline) -> Result<Prepared, NsysError> {
    let plain = || Prepared {
        _dir: None,
        file: path.to_path_buf(),
        diagnostics: Vec::new(),
    };
    // Anything but a regular file is left to `guard::open` to refuse.
    if !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
        return Ok(plain());
    }
    let wal = beside(path, "-wal");
    let journal = beside(path, "-journal");
    let has_wal = std::fs::metadata(&wal).is_ok_and(|m| m.is_file() && m.len() > 0);
    let hot_journal = is_hot(&journal);
    if !has_wal && !hot_journal {
        return Ok(plain());
    }
    let found = if has_wal {
        Found::Wal(wal)
    } else {
        Found::Journal(journal)
    };
    let dir = copy_with(path, &found)?;
    let copy = dir.path().join(COPY_NAME);
    let diagnostic = recover(&copy, path, deadline, &found)?;
    Ok(Prepared {
        _dir: Some(dir),
        file: copy,
        diagnostics: diagnostic.into_iter().collect(),
    })
}

/// The companion found beside an export.
enum Found {
    Wal(PathBuf),
    Journal(PathBuf),
}

impl Found {
    fn path(&self) -> &Path {
        match self {
            Found::Wal(p) | Found::Journal(p) => p,
        }
    }

    fn suffix(&self) -> &'static str {
        match self {
            Found::Wal(_) => "-wal",
            Found::Journal(_) => "-journal",
        }
    }
}

/// `path` with `suffix` appended to its name (`run.sqlite-wal`).
fn beside(path: &Path, suffix: &str) -> PathBuf {
    let mut s = OsString::from(path.as_os_str());
    s.push(suffix);
    PathBuf::from(s)
}

/// Whether `journal` is a journal SQLite would roll back: a non-empty
/// file whose first byte is not zero (SQLite's test, `hasHotJournal`; a
/// journal a `PERSIST` or `TRUNCATE` mode left after its commit is zeroed
/// or empty). SQLite also requires that no connection holds a lock on the
/// database, which no finished export has.
fn is_hot(journal: &Path) -> bool {
    use std::io::Read;
    let Ok(file) = std::fs::File::open(journal) else {
        return false;
    };
    if !file.metadata().is_ok_and(|m| m.is_file()) {
        return false;
    }
    let mut first = [0u8; 1];
    file.take(1).read_exact(&mut first).is_ok() && first[0] != 0
}

/// Copies the export and its companion into a new temporary directory.
fn copy_with(path: &Path, found: &Found) -> Result<tempfile::TempDir, NsysError> {
    let failed = |e: std::io::Error| companion_error(path, found, e.to_string());
    let dir = tempfile::Builder::new()
        .prefix("rooftrace-export-")
        .tempdir()
        .map_err(failed)?;
    let copy = dir.path().join(COPY_NAME);
    std::fs::copy(path, &copy).map_err(failed)?;
    std::fs::copy(found.path(), beside(&copy, found.suffix())).map_err(failed)?;
    Ok(dir)
}

/// Applies the companion in the copy: a read makes SQLite roll a hot
/// journal back; a WAL is checkpointed into the copy, which then leaves
/// WAL mode, so that the immutable connections of the read see every
/// committed row. Says what was applied.
fn recover(
    copy: &Path,
    path: &Path,
    deadline: Deadline,
    found: &Found,
) -> Result<Option<Diagnostic>, NsysError> {
    let conn = open_copy_for_recovery(copy, path, deadline)?;
    let err = |e| super::guard::classify_open_error(e, path);
    conn.query_row("SELECT count(*) FROM sqlite_schema", [], |r| {
        r.get::<_, i64>(0)
    })
    .map_err(err)?;
    let name = found
        .path()
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    match found {
        Found::Wal(_) => {
            // (busy, frames in the WAL, frames checkpointed); FULL, not
            // TRUNCATE, which answers 0 and 0 once it has emptied the WAL.
            // Leaving WAL mode then deletes the emptied WAL.
            let (_, _, frames): (i64, i64, i64) = conn
                .query_row("PRAGMA wal_checkpoint(FULL)", [], |r| {
                    Ok((r.get(0)?, r.get(1)?, r.get(2)?))
                })
                .map_err(err)?;
            conn.query_row("PRAGMA journal_mode = DELETE", [], |r| {
                r.get::<_, String>(0)
            })
            .map_err(err)?;
            let frames = u64::try_from(frames).unwrap_or(0);
            Ok(Some(Diagnostic::new(
                DiagnosticKind::WalApplied { frames },
                format!(
                    "{name} beside the export: its {frames} committed WAL frames were applied, as SQLite applies them (read from a copy; the export and {name} are unchanged)"
                ),
            )))
        }
        Found::Journal(_) => {
            drop(conn);
            // SQLite deletes the journal it rolled back (the copy's
            // connection is in DELETE mode); one it did not take for hot
            // is still there, and SQLite read the file without it.
            if is_hot(&beside(copy, found.suffix())) {
                return Ok(None);
            }
            Ok(Some(Diagnostic::new(
                DiagnosticKind::JournalRolledBack,
                format!(
                    "{name} beside the export is a hot journal: the transaction it belongs to never committed and was rolled back, as SQLite rolls it back (read from a copy; the export and {name} are unchanged)"
                ),
            )))
        }
    }
}

/// The error for a copy that could not be made, with the commands that
/// apply the companion to a copy by hand.
fn companion_error(path: &Path, found: &Found, detail: String) -> NsysError {
    let shown = path.display();
    let companion = found.path().display();
    let (holds, apply) = match found {
        Found::Wal(_) => (
            "committed changes not yet written into the export (a WAL)",
            "PRAGMA wal_checkpoint(TRUNCATE); PRAGMA journal_mode = DELETE",
        ),
        Found::Journal(_) => (
            "the pages of a transaction that never committed (a hot journal)",
            "PRAGMA quick_check",
        ),
    };
    let name = path
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    NsysError::Companion {
        path: path.to_path_buf(),
        companion: found.path().to_path_buf(),
        holds,
        detail,
        fix: format!(
            "`mkdir DIR && cp '{shown}' '{companion}' DIR/ && sqlite3 'DIR/{name}' '{apply}'`"
        ),
    }
}
