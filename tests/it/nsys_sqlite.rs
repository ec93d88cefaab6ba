//! The nsys reader through SQLite on files SQLite writes in every shape
//! the reader must take (deep trees of small pages, overflowing texts,
//! short records of a column added later, text in an integer column, a
//! WAL-mode header, rows deleted, a vacuumed file), each read as SQLite
//! reads it, counted against plain SQL on the same file; and damaged
//! copies of a real export, read the same way every time.

use crate::common::fixture;
use crate::fuzz_replay::entry::timeline_text;
use rusqlite::Connection;
use std::path::Path;

/// One read, as text (`entry::timeline_text`).
fn read(path: &Path) -> String {
    timeline_text(&rooftrace::nsys::read_timeline(path, true, &|_, _| {}))
}

/// A small export written by SQLite itself: `n` kernels and calls, NVTX
/// ranges with texts of `text_bytes`, on pages of `page_size` bytes.
fn write_export(path: &Path, page_size: u32, n: i64, text_bytes: usize, extra: &str) {
    let c = Connection::open(path).unwrap();
    c.execute_batch(&format!(
        "PRAGMA page_size = {page_size};
         CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
         CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL,
            deviceId INTEGER NOT NULL, contextId INTEGER, streamId INTEGER NOT NULL,
            correlationId INTEGER, globalPid INTEGER, demangledName INTEGER, shortName INTEGER NOT NULL);
         CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL,
            eventClass INTEGER, globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL);
         CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL,
            rangeId INTEGER, category INTEGER, color INTEGER, text TEXT, globalTid INTEGER,
            endGlobalTid INTEGER, textId INTEGER, domainId INTEGER);
         INSERT INTO StringIds VALUES (1, 'k1'), (2, 'cudaLaunchKernel'), (3, 'a range');"
    ))
    .unwrap();
    let gpid = (77i64 << 24) | 5;
    let tx = c.unchecked_transaction().unwrap();
    for i in 0..n {
        // Starts spread over widths of 1 to 8 bytes (serial types 1-6).
        let t = 1_000 + i * 3_000 + (i % 7) * (1 << (8 * (i % 6)));
        tx.execute(
            "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?1, ?2, ?3, 1, ?4, ?5, ?6, 1, 1)",
            rusqlite::params![t + 500, t + 1_500, i % 2, i % 3, i + 1, gpid],
        )
        .unwrap();
        tx.execute(
            "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?1, ?2, 1, ?3, ?4, 2)",
            rusqlite::params![t, t + 400, gpid, i + 1],
        )
        .unwrap();
        let text = if i % 3 == 0 {
            None
        } else {
            Some("r".repeat(text_bytes) + &i.to_string())
        };
        tx.execute(
            "INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, textId, domainId) \
             VALUES (?1, ?2, 59, ?3, ?4, 3, 0)",
            rusqlite::params![
                t,
                if i % 11 == 0 { None } else { Some(t + 2_000) },
                text,
                gpid
            ],
        )
        .unwrap();
    }
    tx.commit().unwrap();
    c.execute_batch(extra).unwrap();
}

#[test]
fn exports_sqlite_writes_in_odd_shapes_read_every_row_sqlite_holds() {
    let dir = tempfile::tempdir().unwrap();
    let cases: [(&str, u32, i64, usize, &str); 8] = [
        // 512-byte pages: a tree four levels deep.
        ("deep", 512, 3_000, 8, ""),
        ("big_pages", 65_536, 3_000, 8, ""),
        // Texts past a page: overflow records, read by SQLite.
        ("overflow", 1_024, 300, 2_000, ""),
        // A column added after the rows: short records read as NULL.
        (
            "added",
            4_096,
            500,
            8,
            "ALTER TABLE NVTX_EVENTS ADD COLUMN jsonText TEXT; \
            INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, domainId, jsonText) \
            VALUES (10000000, 10000100, 59, 'late', 5, 0, 'x');",
        ),
        // Rows deleted: stale keys in interior pages, emptier leaves.
        (
            "deleted",
            1_024,
            3_000,
            8,
            "DELETE FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE rowid % 5 = 0; \
            DELETE FROM NVTX_EVENTS WHERE rowid BETWEEN 100 AND 1900;",
        ),
        // Text where an integer is read: SQLite converts, so it reads.
        (
            "text_in_int",
            4_096,
            500,
            8,
            "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET streamId = '7' WHERE rowid = 40; \
            UPDATE NVTX_EVENTS SET text = x'41ff' WHERE rowid = 41; \
            UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET start = 2.5e3 WHERE rowid = 3;",
        ),
        ("wal", 4_096, 500, 8, "PRAGMA journal_mode = WAL;"),
        (
            "vacuumed",
            2_048,
            2_000,
            40,
            "DELETE FROM NVTX_EVENTS WHERE rowid % 2 = 0; VACUUM;",
        ),
    ];
    for (name, page, n, text, extra) in cases {
        let p = dir.path().join(format!("{name}.sqlite"));
        write_export(&p, page, n, text, extra);
        // Independently, by plain SQL on the same file: every kernel and
        // runtime row is whole (a start, an end after it, a launch name
        // with a correlation id), so each is one op and one call; a range
        // is a row with an end (`write_export` leaves every 11th open),
        // each named by its text or by textId 3.
        let c = Connection::open(&p).unwrap();
        let count = |sql: &str| c.query_row(sql, [], |r| r.get::<_, i64>(0)).unwrap() as usize;
        let kernels = count("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL");
        let calls = count("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME");
        let ranges = count("SELECT count(*) FROM NVTX_EVENTS WHERE \"end\" IS NOT NULL");
        drop(c);
        let tl = rooftrace::nsys::read_timeline(&p, true, &|_, _| {})
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(tl.ops.len(), kernels, "{name}: kernels");
        assert_eq!(tl.api.len(), calls, "{name}: calls");
        assert_eq!(tl.nvtx.len(), ranges, "{name}: ranges");
        assert!(tl.diagnostics.is_empty(), "{name}: {:?}", tl.diagnostics);
    }
}

/// A tiny xorshift, so the overwritten bytes are the same on every run.
fn next(s: &mut u64) -> u64 {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    *s
}

#[test]
fn overwritten_bytes_give_a_report_or_an_error_and_the_same_one_twice() {
    // Bytes overwritten in the pages of a small real export: SQLite reads
    // what its checks let through and calls the rest malformed; either way
    // the answer is the same on a second read (the `nsys_sql` fuzz target
    // asserts this on every input) and the file is left as it was.
    let src = fixture("nsys/nsys2025.5.1_balinski-gomory_report3.sqlite");
    let img = std::fs::read(&src).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("x.sqlite");
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    let (mut reports, mut errors) = (0, 0);
    for _ in 0..120 {
        let mut bad = img.clone();
        for _ in 0..1 + next(&mut seed) % 4 {
            // Past the header and the schema page.
            let at = 4_096 + (next(&mut seed) as usize) % (bad.len() - 4_096);
            bad[at] = next(&mut seed) as u8;
        }
        std::fs::write(&p, &bad).unwrap();
        let (first, second) = (read(&p), read(&p));
        assert_eq!(first, second);
        assert!(
            std::fs::read(&p).unwrap() == bad,
            "the read wrote to its input"
        );
        if first.starts_with("error") {
            errors += 1;
        } else {
            reports += 1;
        }
    }
    // Most single-byte damage lands in values SQLite does not check (a
    // time, a name id): a report, with other numbers.
    assert!(reports >= 60, "{reports} reports, {errors} errors");
}

#[test]
fn a_cell_past_its_page_is_malformed_every_time() {
    // A leaf of the runtime table whose first cell pointer is set to the
    // page's last byte (the damage a `nsys_sql` fuzz input made): SQLite
    // then read the bytes after its page buffer, which differ from run to
    // run, and the same file gave a report in one run and "malformed" in
    // the next (about 4 runs in 10). With the pages' cells checked on load
    // (`PRAGMA cell_size_check`) the read says "malformed", every run.
    let src = fixture("nsys/nsys2025.5.1_balinski-gomory_report3.sqlite");
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("cell.sqlite");
    std::fs::copy(&src, &p).unwrap();
    let (page_bytes, root): (usize, u32) = {
        let c = Connection::open(&p).unwrap();
        let size: i64 = c.query_row("PRAGMA page_size", [], |r| r.get(0)).unwrap();
        let root: i64 = c
            .query_row(
                "SELECT rootpage FROM sqlite_schema WHERE name = 'CUPTI_ACTIVITY_KIND_RUNTIME'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        (size as usize, root as u32)
    };
    let mut img = std::fs::read(&p).unwrap();
    // Down the left-most children to a leaf (0x0D); an interior page
    // (0x05) holds its first cell's child page number in the cell's
    // first 4 bytes.
    let mut page = root as usize;
    let leaf = loop {
        let at = (page - 1) * page_bytes;
        match img[at] {
            0x0D => break at,
            0x05 => {
                let cell = u16::from_be_bytes([img[at + 12], img[at + 13]]) as usize;
                let c = at + cell;
                page = u32::from_be_bytes([img[c], img[c + 1], img[c + 2], img[c + 3]]) as usize;
            }
            t => panic!("page {page} has type {t:#x}"),
        }
    };
    let last = (page_bytes - 1) as u16;
    img[leaf + 8..leaf + 10].copy_from_slice(&last.to_be_bytes());
    std::fs::write(&p, &img).unwrap();
    for run in 0..8 {
        let got = read(&p);
        assert!(got.contains("malformed"), "run {run}: {got:.300}");
    }
}
