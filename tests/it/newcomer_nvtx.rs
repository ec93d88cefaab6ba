//! Issue 45 item 8: repeated NVTX ranges cost linear time. A real export
//! whose every NVTX row appears 64 times (nvFuser's 13,513 host ranges
//! become 864,832) kept `gaps --nvtx .` running past 120 s: each host-bound
//! gap was judged again for every instance whose window held it, over
//! every range text of the window. The run has a deadline, so a hang
//! fails this test instead of the suite.

use crate::common::corpus_file;
use serde_json::Value;
use std::collections::BTreeMap;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The nvFuser export: 13,513 NVTX ranges on one thread, most of them
/// holding host-bound gaps (its `.src.txt`).
const EXPORT: &str = "nsys/nsys2025.1.1_nvfuser_cross-entropy-pytest.sqlite";

/// A range text with 765 instances in the export, 758 of them holding
/// idle time: 48,960 instances once repeated.
const PATTERN: &str = "^ExpressionEvaluator::evaluate$";

/// How many times each NVTX row appears in the repeated copy.
const REPEAT: usize = 64;

/// `src` copied to `dst` with each NVTX_EVENTS row inserted `REPEAT - 1`
/// more times (SQLite's own copy of the rows, so every column is kept).
fn repeat_nvtx(src: &std::path::Path, dst: &std::path::Path) {
    std::fs::copy(src, dst).unwrap();
    let mut perms = std::fs::metadata(dst).unwrap().permissions();
    #[allow(clippy::permissions_set_readonly_false)]
    perms.set_readonly(false);
    std::fs::set_permissions(dst, perms).unwrap();
    let db = rusqlite::Connection::open(dst).unwrap();
    db.execute_batch(&format!(
        "CREATE TEMP TABLE once AS SELECT * FROM NVTX_EVENTS;
         WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {})
         INSERT INTO NVTX_EVENTS SELECT once.* FROM once, n;",
        REPEAT - 1
    ))
    .unwrap();
    let rows: i64 = db
        .query_row("SELECT count(*) FROM NVTX_EVENTS", [], |r| r.get(0))
        .unwrap();
    let once: i64 = db
        .query_row("SELECT count(*) FROM temp.once", [], |r| r.get(0))
        .unwrap();
    assert_eq!(rows, once * REPEAT as i64);
}

/// `gaps FILE --nvtx PATTERN --format json`, killed after `limit`: the
/// parsed report and the seconds it took.
fn gaps_within(file: &std::path::Path, limit: Duration) -> (Value, f64) {
    let out_file = tempfile::NamedTempFile::new().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_rooftrace"))
        .arg("gaps")
        .arg(file)
        .args(["--nvtx", PATTERN, "--format", "json"])
        .stdin(Stdio::null())
        .stdout(out_file.reopen().unwrap())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if start.elapsed() > limit {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!(
                "gaps {} --nvtx {PATTERN} ran past {limit:?}",
                file.display()
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(status.success(), "gaps {}: {status}", file.display());
    let text = std::fs::read_to_string(out_file.path()).unwrap();
    (
        serde_json::from_str(&text).unwrap(),
        start.elapsed().as_secs_f64(),
    )
}

/// The instances of a report by (text, pid, tid, start, end), each with
/// its figures (the row less its `text_id`, an index into the report's
/// own names table).
fn by_range(report: &Value) -> BTreeMap<(String, i64, i64, i64, i64), Vec<Value>> {
    let names = report["names"].as_array().unwrap();
    let mut out: BTreeMap<_, Vec<Value>> = BTreeMap::new();
    for row in report["ranges"]["instances"].as_array().unwrap() {
        let mut row = row.clone();
        let text_id = row["text_id"].as_u64().unwrap() as usize;
        let text = names[text_id].as_str().unwrap().to_string();
        row.as_object_mut().unwrap().remove("text_id");
        let int = |k: &str| row[k].as_i64().unwrap();
        let key = (text, int("pid"), int("tid"), int("start_ns"), int("end_ns"));
        out.entry(key).or_default().push(row);
    }
    out
}

/// Each instance of the repeated export has the figures of its original
/// (window, busy, idle, kernels, classes, host evidence: they depend on
/// the GPU ops and the calls, which did not change, and on the union of
/// the ranges of a text, which a copy does not widen), there are 64 of
/// each, the class totals over instances are 64 times the original's and
/// the medians and p90s are the original's (each value repeated 64
/// times keeps its rank). Before the fix the repeated run took minutes.
#[test]
fn every_nvtx_row_repeated_64_times_costs_linear_time_and_keeps_each_range() {
    let Some(src) = corpus_file(EXPORT) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let repeated = dir.path().join("repeated.sqlite");
    repeat_nvtx(&src, &repeated);
    let (once, _) = gaps_within(&src, Duration::from_secs(60));
    let (many, secs) = gaps_within(&repeated, Duration::from_secs(60));
    let (once_rows, many_rows) = (by_range(&once), by_range(&many));
    let total: usize = once_rows.values().map(Vec::len).sum();
    assert_eq!(total, 765, "the export's instances of {PATTERN}");
    assert_eq!(
        once_rows.keys().collect::<Vec<_>>(),
        many_rows.keys().collect::<Vec<_>>()
    );
    for (key, rows) in &once_rows {
        assert_eq!(rows.len(), 1, "{key:?} appears once in the export");
        let copies = &many_rows[key];
        assert_eq!(copies.len(), REPEAT, "{key:?}");
        for copy in copies {
            assert_eq!(copy, &rows[0], "{key:?}");
        }
    }
    let (a, b) = (&once["ranges"], &many["ranges"]);
    for class in a["classes"].as_object().unwrap().keys() {
        for field in ["count", "total_ns"] {
            let x = a["classes"][class][field].as_i64().unwrap();
            let y = b["classes"][class][field].as_i64().unwrap();
            assert_eq!(y, x * REPEAT as i64, "{class}.{field}");
        }
    }
    for figure in [
        "wall_ns",
        "gpu_window_ns",
        "kernel_busy_ns",
        "idle_ns",
        "kernels",
    ] {
        assert_eq!(a[figure], b[figure], "{figure}");
    }
    // The gaps themselves do not depend on the ranges.
    assert_eq!(once["devices"], many["devices"]);
    eprintln!("repeated export: {secs:.1} s");
}
