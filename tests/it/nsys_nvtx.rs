//! The NVTX ranges the nsys reader keeps from its one scan of
//! `NVTX_EVENTS` (closed push/pop and start/end ranges, and beside them
//! NCCL's rows for `comm`) against SQLite's own selection of the same rows,
//! written here: every closed range of types 59, 60, 70 and 71, in
//! (process, start, end) order; marks, domain rows, open ranges and rows
//! of other types, in NCCL's domain or not, are not ranges.

use crate::common::{corpus, fixture};
use rooftrace::nsys::read_timeline;
use rooftrace::synth::scene::{NsysScene, NSYS_GLOBAL_TID};
use rusqlite::Connection;
use std::path::Path;

/// (pid, start, end, text) of the closed ranges, as SQLite selects them.
fn sqlite_ranges(path: &Path) -> Vec<(u32, i64, i64, String)> {
    let c = Connection::open_with_flags(path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    let mut st = c
        .prepare(
            "SELECT (e.globalTid >> 24) & 16777215, e.start, e.\"end\", coalesce(e.text, s.value)
             FROM NVTX_EVENTS e LEFT JOIN StringIds s ON s.id = e.textId
             WHERE e.\"end\" IS NOT NULL AND e.eventType IN (59, 60, 70, 71)
               AND coalesce(e.text, s.value) IS NOT NULL
             ORDER BY 1, 2, 3, e.rowid",
        )
        .unwrap();
    st.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

fn read_ranges(path: &Path) -> Vec<(u32, i64, i64, String)> {
    let no_progress = |_: u64, _: u64| {};
    read_timeline(path, true, &no_progress)
        .unwrap()
        .nvtx
        .iter()
        .map(|r| (r.pid, r.start_ns, r.end_ns, r.text.to_string()))
        .collect()
}

#[test]
fn only_closed_ranges_of_the_four_range_types_are_ranges() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("nvtx.sqlite");
    let mut s = NsysScene::new();
    s.runtime("cudaLaunchKernel", 0, 10, 1)
        .kernel("k", 7, 20, 120, 1)
        .nvtx("push-pop", 0, 100);
    s.write(&db).unwrap();
    let c = Connection::open(&db).unwrap();
    let tid = NSYS_GLOBAL_TID;
    // (start, end, eventType, text, domainId): a start/end range and the
    // two NVTXT ones (kept); a mark that carries an end, a domain-create
    // row, an open push/pop range and an unknown type (dropped); an NCCL
    // call range in domain 5 (kept, and NCCL's too) and an NCCL row of
    // another type in that domain (not a range).
    for (start, end, ty, text, domain) in [
        (5, Some(50), 60, "start-end", 0),
        (6, Some(60), 70, "nvtxt-push", 0),
        (7, Some(70), 71, "nvtxt-start", 0),
        (8, Some(80), 34, "mark", 0),
        (9, Some(90), 75, "domain", 0),
        (10, None, 59, "open", 0),
        (11, Some(110), 99, "unknown", 0),
        (12, Some(40), 59, "ncclAllReduce", 5),
        (13, Some(41), 34, "ncclAllReduce", 5),
    ] {
        c.execute(
            "INSERT INTO NVTX_EVENTS (start, \"end\", eventType, text, globalTid, domainId)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            rusqlite::params![start, end, ty, text, tid, domain],
        )
        .unwrap();
    }
    drop(c);
    let want = sqlite_ranges(&db);
    let texts: Vec<&str> = want.iter().map(|r| r.3.as_str()).collect();
    // By hand, in (start, end) order: the scene's push/pop range at 0, then
    // the rows at 5, 6, 7 and 12.
    assert_eq!(
        texts,
        [
            "push-pop",
            "start-end",
            "nvtxt-push",
            "nvtxt-start",
            "ncclAllReduce"
        ]
    );
    assert_eq!(read_ranges(&db), want);
}

#[test]
fn every_exports_ranges_are_sqlites() {
    let mut dirs = vec![fixture("nsys")];
    dirs.extend(corpus("nsys"));
    let mut checked = 0;
    for d in dirs {
        for e in std::fs::read_dir(d).unwrap() {
            let p = e.unwrap().path();
            let has_nvtx = p.extension().is_some_and(|x| x == "sqlite")
                && Connection::open_with_flags(&p, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
                    .and_then(|c| {
                        c.query_row(
                            "SELECT count(*) FROM sqlite_master WHERE name = 'NVTX_EVENTS'",
                            [],
                            |r| r.get::<_, i64>(0),
                        )
                    })
                    .is_ok_and(|n| n == 1);
            if has_nvtx {
                assert_eq!(read_ranges(&p), sqlite_ranges(&p), "{}", p.display());
                checked += 1;
            }
        }
    }
    // fixtures/nsys holds two exports with NVTX ranges (saxpy, H100).
    assert!(checked >= 2, "{checked}");
}
