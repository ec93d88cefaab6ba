//! An export with a `-wal` or a hot `-journal` beside it is read as SQLite
//! reads it (`nsys::companion`): the WAL's committed frames applied, the
//! journal's unfinished transaction rolled back, both on a copy; the
//! input and its companion keep their bytes and times. The files are made
//! by SQLite itself from a bundled real export; the expected figures come
//! from plain SQL on a connection that sees what SQLite sees.

use crate::common::{fixture, rooftrace};
use rooftrace::nsys::{DiagnosticKind, OpKind, Timeline};
use rusqlite::Connection;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

const KERNEL: &str = "CUPTI_ACTIVITY_KIND_KERNEL";

/// A bundled export with 6,130 kernels and no primary key on its kernel
/// table (so rows can be copied with `SELECT *`).
fn source() -> PathBuf {
    fixture("nsys/nsys2025.5.1_balinski-gomory_report3.sqlite")
}

/// (kernels, total kernel time in ns) of the committed state, by SQL on
/// `conn`: rooftrace's own figures from the same rows are the count of
/// kernel ops and the sum of their durations.
fn committed(conn: &Connection) -> (usize, i64) {
    conn.query_row(
        &format!("SELECT count(*), sum(\"end\" - start) FROM {KERNEL}"),
        [],
        |r| Ok((r.get::<_, i64>(0)? as usize, r.get(1)?)),
    )
    .unwrap()
}

/// The same two figures from a timeline.
fn figures(tl: &Timeline) -> (usize, i64) {
    let kernels = tl.ops.iter().filter(|o| o.kind == OpKind::Kernel);
    let n = kernels.clone().count();
    (n, kernels.map(|o| o.end_ns - o.start_ns).sum())
}

/// Bytes and modification time of each file, to check a read left them.
fn snapshot(files: &[&Path]) -> Vec<(Vec<u8>, SystemTime)> {
    files
        .iter()
        .map(|f| {
            let m = std::fs::metadata(f).unwrap();
            (std::fs::read(f).unwrap(), m.modified().unwrap())
        })
        .collect()
}

fn with_suffix(p: &Path, suffix: &str) -> PathBuf {
    PathBuf::from(format!("{}{suffix}", p.display()))
}

#[test]
fn a_wal_beside_the_export_has_its_committed_frames_read() {
    let work = tempfile::tempdir().unwrap();
    let live = work.path().join("live.sqlite");
    std::fs::copy(source(), &live).unwrap();
    let before = committed(&Connection::open(&live).unwrap());
    // WAL mode, never checkpointed: one transaction copies every third
    // kernel 10 µs later and deletes every seventh row; it commits into
    // the WAL only.
    let c = Connection::open(&live).unwrap();
    c.query_row("PRAGMA journal_mode = WAL", [], |r| r.get::<_, String>(0))
        .unwrap();
    c.execute_batch(&format!(
        "PRAGMA wal_autocheckpoint = 0;
         BEGIN;
         INSERT INTO {KERNEL} SELECT * FROM {KERNEL} WHERE rowid % 3 = 0;
         UPDATE {KERNEL} SET start = start + 10000, \"end\" = \"end\" + 10000 WHERE rowid > 6130;
         DELETE FROM {KERNEL} WHERE rowid % 7 = 0;
         COMMIT;"
    ))
    .unwrap();
    let want = committed(&c);
    // The export as a crash or a copy would leave it: the file and its
    // WAL, taken while the writer is still open (closing it would
    // checkpoint).
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("run.sqlite");
    let wal = with_suffix(&p, "-wal");
    std::fs::copy(&live, &p).unwrap();
    std::fs::copy(with_suffix(&live, "-wal"), &wal).unwrap();
    drop(c);
    // 6,130 + 2,043 copies − 1,168 deleted rows (every seventh rowid of
    // 8,173): the transaction changed the figures, so reading the file
    // without its WAL would be caught.
    assert_eq!(want.0, 6_130 + 2_043 - 8_173 / 7);
    assert_ne!(want, before);
    let files = snapshot(&[&p, &wal]);

    let tl = rooftrace::nsys::read_timeline(&p, true, &|_, _| {}).unwrap();
    assert_eq!(figures(&tl), want);
    let frames = tl.diagnostics.iter().find_map(|d| match d.kind {
        DiagnosticKind::WalApplied { frames } => Some(frames),
        _ => None,
    });
    assert!(frames.is_some_and(|f| f > 0), "{:?}", tl.diagnostics);
    assert!(snapshot(&[&p, &wal]) == files, "the read changed the input");
    assert!(!with_suffix(&p, "-shm").exists());
}

#[test]
fn a_hot_journal_beside_the_export_is_rolled_back() {
    let work = tempfile::tempdir().unwrap();
    let live = work.path().join("live.sqlite");
    std::fs::copy(source(), &live).unwrap();
    let c = Connection::open(&live).unwrap();
    let want = committed(&c);
    // A transaction that spills to the file before it commits (a cache of
    // a few pages): the file holds its pages, the journal the originals.
    c.execute_batch(&format!(
        "PRAGMA journal_mode = DELETE; PRAGMA cache_size = 2;
         BEGIN;
         DELETE FROM {KERNEL} WHERE rowid % 2 = 0;
         INSERT INTO {KERNEL} SELECT * FROM {KERNEL} WHERE rowid < 3000;"
    ))
    .unwrap();
    let uncommitted = committed(&c);
    // The export as a crash mid-transaction leaves it.
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("run.sqlite");
    let journal = with_suffix(&p, "-journal");
    std::fs::copy(&live, &p).unwrap();
    std::fs::copy(with_suffix(&live, "-journal"), &journal).unwrap();
    c.execute_batch("ROLLBACK").unwrap();
    drop(c);
    // The set-up took: the copied file differs from the committed one and
    // the transaction changed the figures.
    assert_ne!(std::fs::read(&p).unwrap(), std::fs::read(source()).unwrap());
    assert_ne!(uncommitted, want);
    let files = snapshot(&[&p, &journal]);

    let tl = rooftrace::nsys::read_timeline(&p, true, &|_, _| {}).unwrap();
    assert_eq!(figures(&tl), want);
    assert!(
        tl.diagnostics
            .iter()
            .any(|d| d.kind == DiagnosticKind::JournalRolledBack),
        "{:?}",
        tl.diagnostics
    );
    assert!(
        snapshot(&[&p, &journal]) == files,
        "the read changed the input"
    );

    // Without its journal the same file is the half-written one: what the
    // immutable read gave before (rows of the uncommitted transaction, or
    // a file SQLite calls malformed).
    let alone = dir.path().join("alone.sqlite");
    std::fs::copy(&p, &alone).unwrap();
    if let Ok(tl) = rooftrace::nsys::read_timeline(&alone, true, &|_, _| {}) {
        assert_ne!(figures(&tl), want);
    }
}

#[test]
fn a_journal_that_is_not_hot_is_left_alone() {
    // A journal whose first byte is zero (what `PERSIST` mode leaves after
    // a commit) is no transaction to roll back: the export is read as it
    // is, without a copy or a word.
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("run.sqlite");
    std::fs::copy(source(), &p).unwrap();
    std::fs::write(with_suffix(&p, "-journal"), [0u8; 512]).unwrap();
    let tl = rooftrace::nsys::read_timeline(&p, true, &|_, _| {}).unwrap();
    assert_eq!(
        figures(&tl),
        committed(&Connection::open(source()).unwrap())
    );
    assert!(tl.diagnostics.iter().all(|d| !matches!(
        d.kind,
        DiagnosticKind::JournalRolledBack | DiagnosticKind::WalApplied { .. }
    )));
}

#[cfg(unix)]
#[test]
fn a_companion_that_cannot_be_copied_is_an_error_naming_the_fix() {
    // A WAL beside the export and a temporary directory that does not
    // exist: the copy fails, and the error names both files and the
    // commands that apply the WAL by hand (exit 2: bad input's code).
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("run.sqlite");
    std::fs::copy(source(), &p).unwrap();
    std::fs::write(with_suffix(&p, "-wal"), b"not empty").unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_rooftrace"))
        .args(["gaps", p.to_str().unwrap()])
        .env("TMPDIR", dir.path().join("missing"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("run.sqlite-wal beside it"), "{stderr}");
    assert!(
        stderr.contains("PRAGMA wal_checkpoint(TRUNCATE)"),
        "{stderr}"
    );
    // The same file reads once the WAL is gone (the CLI path works).
    std::fs::remove_file(with_suffix(&p, "-wal")).unwrap();
    let (code, _, stderr) = rooftrace(&["gaps", p.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
}
