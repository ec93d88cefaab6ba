//! `rooftrace gaps`: the host-side attributions (pageable-copy staging,
//! syncs of the launching thread only, queries that never block) checked on
//! real exports against an independent SQL implementation of the rules in
//! `docs/gaps.md`.

use crate::common::fixture;
use rooftrace::gaps::{analyze, GapClass, GapConfig};
use rooftrace::nsys::read_timeline;
use rusqlite::Connection;
use std::path::Path;

const BALINSKI: &str = "nsys/nsys2025.5.1_balinski-gomory_report3.sqlite";
const NCCL: &str = "nsys/nsys2026.2.1_nsysai_mfu_2gpu_before_nccl.sqlite";
const SAXPY: &str = "nsys/nsys2022.2.1_pipit_saxpy-mpi-cuda.sqlite";

fn no_progress(_: u64, _: u64) {}

/// Device gaps with the call that launched the op after each gap, and the
/// latest sync of `sync_scope` (the launching thread, or any thread of the
/// process) that started before that call: one SQL query, window functions
/// for the union, correlated subqueries for the sync. `syncs` is the SQL
/// set of sync calls (columns rid, start, end, globalTid, correlationId).
/// Returns (pid, device, g0, g1, op pageable, call start, call end, call
/// blocking, sync start, sync end, sync pageable).
type Row = (
    i64,
    i64,
    i64,
    i64,
    bool,
    i64,
    i64,
    bool,
    Option<i64>,
    Option<i64>,
    bool,
);

fn gaps_sql(path: &Path, syncs: &str, same_thread: bool) -> Vec<Row> {
    let c = Connection::open_with_flags(path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    let has_memset = c
        .prepare("SELECT 1 FROM CUPTI_ACTIVITY_KIND_MEMSET")
        .is_ok();
    let memset = if has_memset {
        "UNION ALL SELECT start, \"end\", globalPid, deviceId, correlationId, 0 FROM CUPTI_ACTIVITY_KIND_MEMSET"
    } else {
        ""
    };
    let scope = if same_thread {
        "s.globalTid = a.globalTid"
    } else {
        "s.globalTid >> 24 = a.globalTid >> 24"
    };
    let sql = format!(
        "WITH ops AS (
           SELECT start, \"end\", globalPid, deviceId, correlationId, 0 AS pg FROM CUPTI_ACTIVITY_KIND_KERNEL
           UNION ALL SELECT start, \"end\", globalPid, deviceId, correlationId,
             (srcKind = 0 OR dstKind = 0) FROM CUPTI_ACTIVITY_KIND_MEMCPY
           {memset}),
         o AS (SELECT *, MAX(\"end\") OVER (PARTITION BY globalPid, deviceId ORDER BY start, \"end\"
               ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev FROM ops),
         g AS (SELECT prev AS g0, start AS g1, globalPid, deviceId, correlationId, pg
               FROM o WHERE start > prev),
         calls AS (SELECT r.rowid AS rid, r.start, r.\"end\", r.globalTid, r.correlationId, s.value AS name
                   FROM CUPTI_ACTIVITY_KIND_RUNTIME r JOIN StringIds s ON s.id = r.nameId),
         pcalls AS (SELECT DISTINCT c.rid FROM calls c JOIN CUPTI_ACTIVITY_KIND_MEMCPY m
                    ON m.correlationId = c.correlationId AND m.globalPid >> 24 = c.globalTid >> 24
                    WHERE m.srcKind = 0 OR m.dstKind = 0),
         syncs AS ({syncs}),
         ga AS (SELECT g.*, a.start AS a0, a.\"end\" AS a1, a.name AS aname,
                  (SELECT s.rid FROM syncs s WHERE {scope} AND s.start < a.start
                   ORDER BY s.start DESC LIMIT 1) AS srid
                FROM g JOIN calls a ON a.correlationId = g.correlationId
                  AND a.globalTid >> 24 = g.globalPid >> 24
                  AND a.rid = (SELECT MIN(rid) FROM calls x WHERE x.correlationId = g.correlationId
                               AND x.globalTid >> 24 = g.globalPid >> 24))
         SELECT (ga.globalPid >> 24) & 16777215, ga.deviceId, g0, g1, pg, a0, a1,
           (aname LIKE 'cudaMemcpy%' AND aname NOT LIKE '%Async%'),
           s.start, s.\"end\", s.rid IN (SELECT rid FROM pcalls)
         FROM ga LEFT JOIN calls s ON s.rid = ga.srid"
    );
    let mut st = c.prepare(&sql).unwrap();
    st.query_map([], |r| {
        Ok((
            r.get(0)?,
            r.get(1)?,
            r.get(2)?,
            r.get(3)?,
            r.get(4)?,
            r.get(5)?,
            r.get(6)?,
            r.get(7)?,
            r.get(8)?,
            r.get(9)?,
            r.get::<_, Option<bool>>(10)?.unwrap_or(false),
        ))
    })
    .unwrap()
    .map(|r| r.unwrap())
    .collect()
}

/// The `*Synchronize` runtime calls and blocking copies (no queries).
const SYNC_CALLS: &str = "SELECT * FROM calls WHERE name LIKE 'cu%Synchronize%'
    OR (name LIKE 'cudaMemcpy%' AND name NOT LIKE '%Async%')";

/// The docs/gaps.md rules for the two host-blocked classes, on one SQL row:
/// `Some(PageableCopy | Synchronization)` or `None` (another class).
fn blocked_class(r: &Row, latency: i64) -> Option<GapClass> {
    let &(_, _, g0, g1, pg, a0, a1, blocking, s0, s1, spg) = r;
    let pick = |p: bool| {
        Some(if p {
            GapClass::PageableCopy
        } else {
            GapClass::Synchronization
        })
    };
    if a0 >= g0 {
        if let (Some(s0), Some(s1)) = (s0, s1) {
            let in_sync = s1.min(a0) - s0.max(g0);
            if in_sync > 0 && a0 - s1 <= latency.max(in_sync) {
                return pick(spg);
            }
        }
        let covered = a1.min(g1) - a0.max(g0);
        (pg && 2 * covered > g1 - g0).then_some(GapClass::PageableCopy)
    } else if a1 > g0 && blocking {
        pick(pg)
    } else {
        None
    }
}

fn totals(rows: &[Row], device: Option<i64>, class: GapClass) -> i64 {
    rows.iter()
        .filter(|r| device.is_none_or(|d| r.1 == d))
        .filter(|r| blocked_class(r, 5_000) == Some(class))
        .map(|r| r.3 - r.2)
        .sum()
}

#[test]
fn pageable_copy_staging_matches_an_independent_query() {
    // Balinski-Gomory (2025.5): thousands of 4-byte DtoH `cudaMemcpy` into
    // pageable memory (`srcKind` 2 device, `dstKind` 0 pageable); each call
    // returns ~5 µs after its copy row ends, the host copying out of the
    // staging buffer, and the next kernel comes right after. The same gaps
    // were "synchronisation" before pageable staging had its own class.
    let path = fixture(BALINSKI);
    let r = analyze(
        &read_timeline(&path, false, &no_progress).unwrap(),
        &GapConfig::default(),
    );
    let rows = gaps_sql(&path, SYNC_CALLS, true);
    let d = &r.devices[0];
    let pageable = totals(&rows, None, GapClass::PageableCopy);
    let sync = totals(&rows, None, GapClass::Synchronization);
    assert!(pageable > 10_000_000, "{pageable} ns of staging expected");
    assert_eq!(d.classes.get(GapClass::PageableCopy).total_ns, pageable);
    assert_eq!(d.classes.get(GapClass::Synchronization).total_ns, sync);
    assert_eq!(d.classes.total_ns(), d.idle_ns);
}

#[test]
fn saxpy_pageable_copies_are_staging() {
    // saxpy (2022.2, no enum tables: pageable is kind 0): every copy is a
    // 262 MB pageable `cudaMemcpy`; the gaps before them (call in flight,
    // host staging) are pageable-copy staging, none synchronisation.
    let path = fixture(SAXPY);
    let r = analyze(
        &read_timeline(&path, false, &no_progress).unwrap(),
        &GapConfig::default(),
    );
    let rows = gaps_sql(&path, SYNC_CALLS, true);
    let d = &r.devices[0];
    assert_eq!(
        d.classes.get(GapClass::PageableCopy).total_ns,
        totals(&rows, None, GapClass::PageableCopy)
    );
    assert_eq!(
        d.classes.get(GapClass::Synchronization).total_ns,
        totals(&rows, None, GapClass::Synchronization)
    );
    assert!(d.classes.get(GapClass::PageableCopy).count >= 10);
}

#[test]
fn only_the_launching_threads_syncs_explain_a_gap() {
    // 2-rank NCCL run (2026.2): the NCCL watchdog thread polls
    // `cudaEventQuery`, which nsys records as SYNCHRONIZATION rows
    // (syncType 1, event). Read as syncs of the whole process they turned
    // host-bound gaps into synchronisation. Expected here from the raw rows:
    // the synchronisation time with the launching thread's own
    // `*Synchronize` calls, and separately how much the process-wide
    // reading (queries included, any thread) would add on device 1.
    let path = fixture(NCCL);
    let r = analyze(
        &read_timeline(&path, false, &no_progress).unwrap(),
        &GapConfig::default(),
    );
    let mine = gaps_sql(&path, SYNC_CALLS, true);
    for d in &r.devices {
        assert_eq!(
            d.classes.get(GapClass::Synchronization).total_ns,
            totals(&mine, Some(i64::from(d.device)), GapClass::Synchronization),
            "device {}",
            d.device
        );
        assert_eq!(d.classes.total_ns(), d.idle_ns);
    }
    let with_queries = gaps_sql(
        &path,
        "SELECT * FROM calls WHERE name LIKE 'cu%Synchronize%' OR name LIKE 'cudaEventQuery%'",
        false,
    );
    let extra = totals(&with_queries, Some(1), GapClass::Synchronization)
        - totals(&mine, Some(1), GapClass::Synchronization);
    assert!(extra > 0, "queries on other threads would add {extra} ns");
    eprintln!("queries/other threads would add {extra} ns on device 1");
}

#[test]
fn sync_type_is_decoded_per_export_version() {
    // The SYNCHRONIZATION rows of every fixture joined to their runtime call:
    // the call's name, not the code, says whether the host blocked. The
    // codes differ by version (2026.2: 1 = cudaEventQuery; 2025.5: 1 =
    // cudaEventSynchronize), so a decoder from one table would be wrong on
    // the other. Checked: in both, the number of syncs rooftrace keeps equals
    // the runtime rows named `*Synchronize` plus blocking copies.
    for f in [BALINSKI, NCCL] {
        let path = fixture(f);
        let t = read_timeline(&path, false, &no_progress).unwrap();
        let c =
            Connection::open_with_flags(&path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
        let n: usize = c
            .query_row(
                "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME r JOIN StringIds s ON s.id = r.nameId
                 WHERE s.value LIKE 'cu%Synchronize%'
                   OR (s.value LIKE 'cudaMemcpy%' AND s.value NOT LIKE '%Async%')",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(t.syncs.len(), n, "{f}");
    }
}
