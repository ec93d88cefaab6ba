//! The memcpy totals the nsys reader sums (`Timeline::copies`: count, bytes
//! and time per process, device, direction and host memory kind) against
//! SQLite's own aggregate of the same rows: a `GROUP BY` written here, run
//! through rusqlite, merged by process as `pid_of` does (the reader sums
//! in Rust over a plain scan since issue 32; before, it ran this query).

use crate::common::{corpus, fixture};
use rooftrace::nsys::{pid_of, read_timeline, CopyKind, CopyTotal};
use rooftrace::synth::scene::{NsysScene, NSYS_GLOBAL_PID};
use rusqlite::Connection;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The totals SQLite computes for `path`, in `CopyTotal` order.
fn sqlite_totals(path: &Path) -> Vec<CopyTotal> {
    let c = Connection::open_with_flags(path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    let pageable: i64 = c
        .query_row(
            "SELECT id FROM ENUM_CUDA_MEM_KIND WHERE name LIKE '%_PAGEABLE' LIMIT 1",
            [],
            |r| r.get(0),
        )
        .unwrap_or(0);
    let mut st = c
        .prepare(
            "SELECT globalPid, deviceId, copyKind, (srcKind = ?1 OR dstKind = ?1), COUNT(*),
                    TOTAL(MAX(COALESCE(bytes, 0), 0)), TOTAL(MAX(\"end\" - start, 0))
             FROM CUPTI_ACTIVITY_KIND_MEMCPY GROUP BY 1, 2, 3, 4",
        )
        .unwrap();
    // (pid, device, direction, pageable) -> (count, bytes, ns).
    type Key = (u32, u16, CopyKind, bool);
    let mut merged: BTreeMap<Key, (u64, u64, i64)> = BTreeMap::new();
    let rows = st
        .query_map([pageable], |r| {
            Ok((
                r.get::<_, Option<i64>>(0)?.unwrap_or(0),
                r.get::<_, i64>(1)?,
                r.get::<_, Option<i64>>(2)?.unwrap_or(0),
                r.get::<_, Option<i64>>(3)?.unwrap_or(0) != 0,
                r.get::<_, i64>(4)?,
                r.get::<_, f64>(5)?,
                r.get::<_, f64>(6)?,
            ))
        })
        .unwrap();
    for row in rows {
        let (gpid, device, kind, pageable, count, bytes, ns) = row.unwrap();
        let key = (
            pid_of(gpid),
            u16::try_from(device).unwrap(),
            CopyKind::from_code(kind),
            pageable,
        );
        let t = merged.entry(key).or_default();
        t.0 += count as u64;
        t.1 += bytes as u64;
        t.2 += ns as i64;
    }
    merged
        .into_iter()
        .map(
            |((pid, device, copy_kind, pageable), (count, bytes, ns))| CopyTotal {
                pid,
                device,
                copy_kind,
                pageable,
                count,
                bytes: Some(bytes),
                duration_ns: ns,
            },
        )
        .collect()
}

fn read_totals(path: &Path) -> Vec<CopyTotal> {
    let no_progress = |_: u64, _: u64| {};
    read_timeline(path, false, &no_progress).unwrap().copies
}

/// Every export in `fixtures/nsys` and the corpus with copies.
fn exports() -> Vec<PathBuf> {
    let mut dirs = vec![fixture("nsys")];
    dirs.extend(corpus("nsys"));
    let mut out = Vec::new();
    for d in dirs {
        for e in std::fs::read_dir(d).unwrap() {
            let p = e.unwrap().path();
            let has_copies = p.extension().is_some_and(|x| x == "sqlite")
                && Connection::open_with_flags(&p, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
                    .and_then(|c| {
                        c.query_row(
                            "SELECT count(*) FROM sqlite_master WHERE name = 'CUPTI_ACTIVITY_KIND_MEMCPY'",
                            [],
                            |r| r.get::<_, i64>(0),
                        )
                    })
                    .is_ok_and(|n| n == 1);
            if has_copies {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

#[test]
fn copy_totals_equal_sqlites_group_by_on_every_export() {
    let files = exports();
    // fixtures/nsys alone holds three exports with copies.
    assert!(files.len() >= 3, "{files:?}");
    for f in &files {
        let want = sqlite_totals(f);
        assert!(!want.is_empty(), "{}", f.display());
        assert_eq!(read_totals(f), want, "{}", f.display());
    }
}

#[test]
fn odd_copy_rows_count_as_the_aggregate_counts_them() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("copies.sqlite");
    let mut s = NsysScene::new();
    s.runtime("cudaLaunchKernel", 0, 10, 1)
        .kernel("k", 7, 20, 120, 1)
        .memcpy(7, (200, 300), 0, 1, 4096)
        .memcpy(7, (400, 450), 0, 1, 1000)
        .memcpy(7, (500, 900), 0, 2, 65536);
    s.write(&db).unwrap();
    let c = Connection::open(&db).unwrap();
    // The table without its NOT NULL constraints (the scene's schema has
    // them), then: rows 1-3 as written (HtoD 4096 B in 100 ns, HtoD 1000 B
    // in 50 ns, DtoH 65536 B in 400 ns); row 4, a copy of row 1 with a
    // NULL size (zero bytes); row 5, a copy of row 2 with a negative size
    // (zero bytes) ending before it starts (zero time); row 3 with another
    // hardware id in the upper bits of globalPid (the same process,
    // `pid_of`); row 6, a copy of row 1 from pageable memory (the export has
    // no ENUM_CUDA_MEM_KIND, so code 0 is pageable), a total of its own.
    c.execute_batch(&format!(
        "CREATE TABLE m AS SELECT * FROM CUPTI_ACTIVITY_KIND_MEMCPY;
         DROP TABLE CUPTI_ACTIVITY_KIND_MEMCPY;
         ALTER TABLE m RENAME TO CUPTI_ACTIVITY_KIND_MEMCPY;
         INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY SELECT * FROM CUPTI_ACTIVITY_KIND_MEMCPY WHERE copyKind = 1;
         UPDATE CUPTI_ACTIVITY_KIND_MEMCPY SET bytes = NULL WHERE rowid = 4;
         UPDATE CUPTI_ACTIVITY_KIND_MEMCPY SET bytes = -5, \"end\" = start - 1 WHERE rowid = 5;
         UPDATE CUPTI_ACTIVITY_KIND_MEMCPY SET globalPid = {} WHERE rowid = 3;
         INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY SELECT * FROM CUPTI_ACTIVITY_KIND_MEMCPY WHERE rowid = 1;
         UPDATE CUPTI_ACTIVITY_KIND_MEMCPY SET srcKind = 0 WHERE rowid = 6;",
        NSYS_GLOBAL_PID | (1 << 48)
    ))
    .unwrap();
    drop(c);
    let want = sqlite_totals(&db);
    // By hand: HtoD pinned = rows 1, 2, 4, 5: 4 copies, 4096 + 1000 + 0 +
    // 0 bytes, 100 + 50 + 100 + 0 ns; HtoD pageable: row 6; DtoH: row 3,
    // 1 copy, 65536 bytes, 400 ns. SQLite's aggregate says so too, and the
    // reader must say what SQLite says.
    let htod: Vec<&CopyTotal> = want
        .iter()
        .filter(|t| t.copy_kind == CopyKind::from_code(1))
        .collect();
    assert_eq!(htod.len(), 2, "{want:?}");
    let pinned = htod.iter().find(|t| !t.pageable).unwrap();
    assert_eq!(
        (pinned.count, pinned.bytes, pinned.duration_ns),
        (4, Some(5096), 250)
    );
    let dtoh = want
        .iter()
        .find(|t| t.copy_kind == CopyKind::from_code(2))
        .unwrap();
    assert_eq!(
        (dtoh.count, dtoh.bytes, dtoh.duration_ns),
        (1, Some(65536), 400)
    );
    assert_eq!(read_totals(&db), want);
}
