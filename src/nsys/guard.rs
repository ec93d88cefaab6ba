//! The defences every table reader inherits: one way to open an export
//! ([`open`], [`Db::open`]: read-only, immutable, by a correctly built URI, with
//! `trusted_schema` off, tight `sqlite3_limit`s, a process-wide SQLite heap
//! ceiling and a deadline enforced by a progress handler), one way to turn an
//! SQLite error into an [`NsysError`] ([`sql_err`], which names the deadline
//! when it fired) and checked conversions of file values (times, string ids,
//! names). A new reader takes its connection from [`open`] and its values
//! through these helpers; docs/reliability.md lists the limits.

use super::NsysError;
pub use crate::timeline::limits::{cap_name, checked_interval, MAX_NAME_BYTES, MAX_TIME_NS};
use rusqlite::limits::Limit;
use rusqlite::{Connection, OpenFlags};
use std::path::Path;
use std::time::{Duration, Instant};

/// Longest string or blob SQLite may hand us (`SQLITE_LIMIT_LENGTH`).
pub const MAX_VALUE_BYTES: i32 = 64 << 20;
/// Ceiling on SQLite's own heap, all connections together
/// (`sqlite3_hard_heap_limit64`): page caches and sorters, not our rows.
pub const SQLITE_HEAP_LIMIT_BYTES: i64 = 1 << 30;
/// Page cache per connection (KiB, `PRAGMA cache_size = -N`). The big
/// tables are scanned once in rowid order, which needs the interior pages
/// of the path down and little else: 16 MiB per connection held 40 MiB
/// more at the peak on a 2.9 GB export, no faster (docs/bench-gaps.md).
const CACHE_KIB: i64 = 2 << 10;
/// The fixed part of the reading deadline.
pub const DEADLINE_BASE: Duration = Duration::from_secs(60);
/// The part of the deadline that grows with the file: one second per this
/// many bytes (real exports read at well over 100 MB/s).
pub const DEADLINE_BYTES_PER_SEC: u64 = 4 << 20;
/// Progress handler period, in SQLite virtual-machine instructions.
const PROGRESS_OPS: i32 = 10_000;
/// Highest `StringIds` id usable as a name: the ids above are rooftrace's own
/// (unknown, memset, graph, memcpy kinds).
pub const MAX_STRING_ID: u32 = u32::MAX - 32;

/// When reading one export must stop, shared by all its connections.
#[derive(Debug, Clone, Copy)]
pub struct Deadline {
    at: Instant,
    allowed: Duration,
}

impl Deadline {
    /// [`DEADLINE_BASE`] plus one second per [`DEADLINE_BYTES_PER_SEC`] of
    /// the file: the work SQLite does is bounded by the data, not by what a
    /// view or a schema could ask for.
    pub fn for_file(path: &Path) -> Deadline {
        let bytes = std::fs::metadata(path).map_or(0, |m| m.len());
        Deadline::after(DEADLINE_BASE + Duration::from_secs(bytes / DEADLINE_BYTES_PER_SEC))
    }

    /// A deadline `allowed` from now.
    pub fn after(allowed: Duration) -> Deadline {
        Deadline {
            at: Instant::now() + allowed,
            allowed,
        }
    }
}

/// The export one read opens, once per connection: the file SQLite reads
/// (the export itself, or the copy `companion` made of it with its `-wal`
/// or hot `-journal` applied), the path its errors name, and the deadline
/// all its connections share.
#[derive(Debug, Clone, Copy)]
pub struct Db<'a> {
    /// The file opened.
    pub file: &'a Path,
    /// The input as the user named it, for errors.
    pub path: &'a Path,
    /// When reading must stop.
    pub deadline: Deadline,
}

impl Db<'_> {
    /// A connection to [`Db::file`] with every defence ([`open`]), its
    /// errors naming [`Db::path`].
    pub fn open(&self) -> Result<Connection, NsysError> {
        open_as(self.file, self.path, self.deadline)
    }
}

/// Opens `path` read-only and immutable (no locks, no journal, no writes)
/// and sets every defence: `trusted_schema=OFF`, limits, heap ceiling, page
/// cache and the `deadline`. Immutable: a `-wal` or `-journal` beside the
/// file is not looked at (`companion` decides about those first).
pub fn open(path: &Path, deadline: Deadline) -> Result<Connection, NsysError> {
    open_as(path, path, deadline)
}

/// [`open`] of `file`, its errors naming `path`.
fn open_as(file: &Path, path: &Path, deadline: Deadline) -> Result<Connection, NsysError> {
    // A FIFO or device is refused unopened (SQLite would wait on a FIFO).
    if let Err(e) = crate::timeline::limits::open_regular(file) {
        if e.kind() == std::io::ErrorKind::InvalidInput {
            return Err(NsysError::NotSqlite {
                path: path.to_path_buf(),
                detail: e.to_string(),
            });
        }
    }
    check_length(file, path)?;
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY
        | OpenFlags::SQLITE_OPEN_URI
        | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    connect(&file_uri(file), flags, path, deadline)
}

/// Opens `copy`, a private copy of the export `path` with its `-wal` or
/// hot `-journal` beside it, for writing: SQLite applies the WAL's
/// committed frames or rolls the journal back in the copy, as it would in
/// the export (`companion`). Every defence but read-only.
pub(super) fn open_copy_for_recovery(
    copy: &Path,
    path: &Path,
    deadline: Deadline,
) -> Result<Connection, NsysError> {
    check_length(copy, path)?;
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
        | OpenFlags::SQLITE_OPEN_URI
        | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    connect(&plain_uri(copy), flags, path, deadline)
}

/// Opens `uri` with `flags` and sets every defence: `trusted_schema=OFF`,
/// limits, heap ceiling, page cache, `cell_size_check` and the `deadline`.
fn connect(
    uri: &str,
    flags: OpenFlags,
    path: &Path,
    deadline: Deadline,
) -> Result<Connection, NsysError> {
    // SAFETY: sets a process-wide SQLite setting; thread-safe by SQLite's
    // documentation, and idempotent.
    unsafe {
        rusqlite::ffi::sqlite3_hard_heap_limit64(SQLITE_HEAP_LIMIT_BYTES);
    }
    let conn = Connection::open_with_flags(uri, flags).map_err(|e| classify_open_error(e, path))?;
    for (limit, value) in [
        (Limit::SQLITE_LIMIT_LENGTH, MAX_VALUE_BYTES),
        (Limit::SQLITE_LIMIT_SQL_LENGTH, 1 << 20),
        (Limit::SQLITE_LIMIT_COLUMN, 2000),
        (Limit::SQLITE_LIMIT_EXPR_DEPTH, 200),
        (Limit::SQLITE_LIMIT_COMPOUND_SELECT, 16),
        (Limit::SQLITE_LIMIT_VDBE_OP, 100_000),
        (Limit::SQLITE_LIMIT_FUNCTION_ARG, 16),
        (Limit::SQLITE_LIMIT_ATTACHED, 0),
        (Limit::SQLITE_LIMIT_LIKE_PATTERN_LENGTH, 1000),
        (Limit::SQLITE_LIMIT_VARIABLE_NUMBER, 16),
        (Limit::SQLITE_LIMIT_TRIGGER_DEPTH, 1),
    ] {
        conn.set_limit(limit, value);
    }
    let at = deadline.at;
    conn.progress_handler(PROGRESS_OPS, Some(move || Instant::now() >= at));
    // `cell_size_check`: a page's cells are checked against its bounds when
    // the page is loaded. Without it a cell pointer past the page's end
    // (a damaged export, found by the `nsys_sql` fuzz target) reads the
    // bytes after the page buffer, which differ from run to run: the same
    // file gave a report in one run and "malformed" in the next, with the
    // sqlite3 shell too. With it, "malformed" every time.
    conn.execute_batch(&format!(
        "PRAGMA trusted_schema = OFF; PRAGMA cache_size = -{CACHE_KIB}; PRAGMA cell_size_check = ON;"
    ))
    .map_err(|e| classify_open_error(e, path))?;
    Ok(conn)
}

/// Length of the SQLite database header.
const HEADER_BYTES: usize = 100;

/// Refuses a file whose SQLite header is intact but which is shorter than
/// the header says: SQLite itself would call it "malformed" or "not a
/// database" only when a read reaches the missing pages. The size in the
/// header (offset 28, pages; page size at offset 16, 1 meaning 65536) is
/// valid when the change counter (offset 24) equals the version-valid-for
/// number (offset 92), as in every file written by SQLite 3.7.0 or later;
/// otherwise a length that is not a whole number of pages is the sign. A
/// file without the SQLite magic is left to SQLite to name.
fn check_length(file: &Path, path: &Path) -> Result<(), NsysError> {
    use std::io::Read;
    let Ok(mut file) = std::fs::File::open(file) else {
        return Ok(());
    };
    let file_bytes = file.metadata().map_or(0, |m| m.len());
    let mut head = Vec::with_capacity(HEADER_BYTES);
    if file
        .by_ref()
        .take(HEADER_BYTES as u64)
        .read_to_end(&mut head)
        .is_err()
        || !head.starts_with(b"SQLite format 3\0")
    {
        return Ok(());
    }
    let be32 = |at: usize| u32::from_be_bytes([head[at], head[at + 1], head[at + 2], head[at + 3]]);
    let truncated = |expected_bytes: u64| NsysError::Truncated {
        path: path.to_path_buf(),
        expected_bytes,
        file_bytes,
    };
    if head.len() < HEADER_BYTES {
        return Err(truncated(HEADER_BYTES as u64));
    }
    let page_bytes = match u16::from_be_bytes([head[16], head[17]]) {
        1 => 65536,
        n => u64::from(n),
    };
    if !(512..=65536).contains(&page_bytes) || !page_bytes.is_power_of_two() {
        return Ok(());
    }
    let pages = u64::from(be32(28));
    let expected_bytes = if pages > 0 && be32(24) == be32(92) {
        pages * page_bytes
    } else {
        file_bytes.div_ceil(page_bytes) * page_bytes
    };
    if file_bytes < expected_bytes {
        return Err(truncated(expected_bytes));
    }
    Ok(())
}

/// The `file:` URI of `path`: made absolute (so a path starting with `//` is
/// never read as an authority), every byte that is not plain ASCII or that a
/// URI path may not hold literally (`?`, `#`, `%`) percent-encoded from the
/// raw bytes (non-UTF-8 names survive), then `?immutable=1`.
pub fn file_uri(path: &Path) -> String {
    plain_uri(path) + "?immutable=1"
}

/// [`file_uri`] without `?immutable=1`.
fn plain_uri(path: &Path) -> String {
    let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut s = String::from("file://");
    for &b in path_bytes(&abs).iter() {
        if b.is_ascii_graphic() && !matches!(b, b'?' | b'#' | b'%') {
            s.push(b as char);
        } else {
            s.push_str(&format!("%{b:02X}"));
        }
    }
    if !s[7..].starts_with('/') {
        s.insert(7, '/');
    }
    s
}

#[cfg(unix)]
fn path_bytes(p: &Path) -> std::borrow::Cow<'_, [u8]> {
    use std::os::unix::ffi::OsStrExt;
    std::borrow::Cow::Borrowed(p.as_os_str().as_bytes())
}

#[cfg(not(unix))]
fn path_bytes(p: &Path) -> std::borrow::Cow<'_, [u8]> {
    let s = p.to_string_lossy().replace('\\', "/");
    std::borrow::Cow::Owned(s.into_bytes())
}

/// Maps an SQLite error while reading `table` to an [`NsysError`]: the
/// deadline's interrupt becomes [`NsysError::Deadline`], the heap ceiling
/// [`NsysError::TooBig`].
pub fn sql_err<'a>(path: &'a Path, table: &str) -> impl Fn(rusqlite::Error) -> NsysError + 'a {
    let table = table.to_string();
    move |source| classify(source, path, &table)
}

/// See [`sql_err`].
pub fn classify(source: rusqlite::Error, path: &Path, table: &str) -> NsysError {
    use rusqlite::ErrorCode as C;
    match source.sqlite_error_code() {
        Some(C::OperationInterrupted) => NsysError::Deadline {
            path: path.to_path_buf(),
            table: table.to_string(),
        },
        Some(C::OutOfMemory) | Some(C::TooBig) => NsysError::TooBig {
            path: path.to_path_buf(),
            table: table.to_string(),
            detail: source.to_string(),
        },
        _ => NsysError::Sqlite {
            path: path.to_path_buf(),
            table: table.to_string(),
            error: source,
        },
    }
}

/// "file is not a database" and friends become [`NsysError::NotSqlite`];
/// anything else is classified as a read of `sqlite_master`.
pub(super) fn classify_open_error(e: rusqlite::Error, path: &Path) -> NsysError {
    match &e {
        rusqlite::Error::SqliteFailure(f, _)
            if matches!(
                f.code,
                rusqlite::ErrorCode::NotADatabase | rusqlite::ErrorCode::DatabaseCorrupt
            ) =>
        {
            // SQLite's "file is not a database" repeats the message; what
            // the file starts with tells the reader what they gave.
            let said = e.to_string();
            let detail = match describe_head(path) {
                Some(head) if said == "file is not a database" => head,
                Some(head) => format!("{said}; {head}"),
                None => said,
            };
            NsysError::NotSqlite {
                path: path.to_path_buf(),
                detail,
            }
        }
        _ => classify(e, path, "sqlite_master"),
    }
}

/// Bytes of a file looked at to say what it is when it is not SQLite.
const HEAD_BYTES: usize = 4096;

/// `it starts with …`: the file's first line (printable, cut at 40
/// characters), and the command that reads it when it is one of
/// rooftrace's other inputs (an ncu CSV). None when the file cannot be
/// read; never more than a line.
fn describe_head(path: &Path) -> Option<String> {
    use std::io::Read;
    let mut head = Vec::with_capacity(HEAD_BYTES);
    let file = std::fs::File::open(path).ok()?;
    file.take(HEAD_BYTES as u64).read_to_end(&mut head).ok()?;
    if head.is_empty() {
        return Some("the file is empty".to_string());
    }
    // Bytes that are no text (a NUL, or not UTF-8 once a character cut at
    // the end is allowed for) are said to be binary, not shown.
    if !crate::error::looks_like_text(&head[..head.len().min(256)]) {
        return Some("it is binary data, not text".to_string());
    }
    let text = String::from_utf8_lossy(&head);
    let shown = crate::error::first_line_shown(&text);
    let csv = text
        .lines()
        .any(|l| l.starts_with("\"ID\",") && l.contains("\"Kernel Name\""));
    let hint = if csv {
        "; an Nsight Compute CSV: give it to `rooftrace ncu`"
    } else {
        ""
    };
    Some(format!("it starts with `{shown}`{hint}"))
}

/// The allowed time of a deadline, for messages.
pub fn allowed(d: &Deadline) -> Duration {
    d.allowed
}

/// A `StringIds` id usable as a name reference, or `None`.
pub fn string_id(v: i64) -> Option<u32> {
    u32::try_from(v).ok().filter(|&id| id <= MAX_STRING_ID)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uri_of_a_double_slash_path_has_an_empty_authority() {
        assert_eq!(
            file_uri(Path::new("//tmp/a b?#%.sqlite")),
            "file:////tmp/a%20b%3F%23%25.sqlite?immutable=1"
        );
    }

    #[cfg(unix)]
    #[test]
    fn uri_keeps_non_utf8_bytes() {
        use std::os::unix::ffi::OsStrExt;
        let p = Path::new(std::ffi::OsStr::from_bytes(b"/x/\xff\xe9.sqlite"));
        assert_eq!(file_uri(p), "file:///x/%FF%E9.sqlite?immutable=1");
    }

    #[test]
    fn deadline_interrupts_an_endless_query() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("e.sqlite");
        Connection::open(&p)
            .unwrap()
            .execute_batch("CREATE TABLE t(x);")
            .unwrap();
        let conn = open(&p, Deadline::after(Duration::from_millis(200))).unwrap();
        let t0 = Instant::now();
        let e = conn
            .query_row(
                "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c) \
                 SELECT count(*) FROM c",
                [],
                |r| r.get::<_, i64>(0),
            )
            .unwrap_err();
        assert!(t0.elapsed() < Duration::from_secs(5));
        assert!(matches!(classify(e, &p, "t"), NsysError::Deadline { .. }));
    }

    #[test]
    fn names_are_capped_on_a_char_boundary() {
        let long = "é".repeat(MAX_NAME_BYTES);
        let c = cap_name(long.as_bytes());
        assert!(c.len() < MAX_NAME_BYTES + 64, "{}", c.len());
        assert!(
            c.ends_with(&format!("of {} bytes)", 2 * MAX_NAME_BYTES)),
            "{c}"
        );
        assert_eq!(cap_name(b"short"), "short");
    }

    #[test]
    fn intervals_and_ids_are_checked() {
        assert_eq!(checked_interval(1, 2), Some((1, 2)));
        assert_eq!(checked_interval(2, 1), None);
        assert_eq!(checked_interval(0, i64::MAX), None);
        assert_eq!(string_id(-1), None);
        assert_eq!(string_id(4_294_967_295), None);
        assert_eq!(string_id(7), Some(7));
    }
}
