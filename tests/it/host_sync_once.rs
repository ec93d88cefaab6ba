//! `gaps::host`'s host verdict sums, over a window, the thread's CUDA calls
//! from `tl.api` and its synchronisations from `tl.syncs`: a `*Synchronize`
//! in both would be counted twice (issue 45 review). It is in one only:
//! the readers route a synchronize to `syncs` and not to `api` (a blocking
//! copy goes to both, and the verdict skips it among the syncs). Checked on
//! real exports against the export's own rows, counted by SQL.

use crate::common::corpus_file;

/// Exports with many synchronize calls: CloverLeaf (1312 runtime rows
/// named `*Synchronize*`) and the Balinski-Gomory solver (2561).
const EXPORTS: [&str; 2] = [
    "nsys/nsys2024.5.1_pipit_cloverleaf.sqlite",
    "nsys/nsys2025.5.1_balinski-gomory_report3.sqlite",
];

/// Runtime and driver rows whose name holds `Synchronize`, by SQL.
fn synchronize_rows(path: &std::path::Path) -> i64 {
    let c = rusqlite::Connection::open_with_flags(path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
        .unwrap();
    let mut n = 0;
    for table in ["CUPTI_ACTIVITY_KIND_RUNTIME", "CUPTI_ACTIVITY_KIND_DRIVER"] {
        let exists: i64 = c
            .query_row(
                "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = ?1",
                [table],
                |r| r.get(0),
            )
            .unwrap();
        if exists == 0 {
            continue;
        }
        let sql = format!(
            "SELECT COUNT(*) FROM {table} r JOIN StringIds s ON s.id = r.nameId
             WHERE s.value GLOB '*Synchronize*' AND r.\"end\" >= r.start"
        );
        n += c.query_row(&sql, [], |r| r.get::<_, i64>(0)).unwrap();
    }
    n
}

#[test]
fn every_synchronize_call_is_a_sync_once_and_no_api_call() {
    for rel in EXPORTS {
        let Some(path) = corpus_file(rel) else {
            return;
        };
        let tl = rooftrace::nsys::read_timeline(&path, false, &|_, _| {})
            .unwrap_or_else(|e| panic!("{rel}: {e}"));
        let in_api = tl
            .api
            .iter()
            .filter(|a| tl.name(a.name).contains("Synchronize"))
            .count();
        assert_eq!(in_api, 0, "{rel}: synchronize calls among the API calls");
        let in_syncs = tl
            .syncs
            .iter()
            .filter(|s| tl.name(s.name).contains("Synchronize"))
            .count();
        let rows = synchronize_rows(&path);
        assert!(rows > 0, "{rel}");
        assert_eq!(in_syncs as i64, rows, "{rel}: each synchronize row once");
        // No call is both: a (pid, correlation id) among the syncs is among
        // the API calls only for a blocking copy (a sync and a launch).
        let mut api: Vec<(u32, u32)> = tl.api.iter().map(|a| (a.pid, a.correlation_id)).collect();
        api.sort_unstable();
        for s in &tl.syncs {
            if s.correlation_id != 0 && api.binary_search(&(s.pid, s.correlation_id)).is_ok() {
                assert!(
                    tl.is_blocking_name(s.name),
                    "{rel}: {} in both",
                    tl.name(s.name)
                );
            }
        }
    }
}
