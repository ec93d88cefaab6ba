//! Hostile nsys exports (issue 13, cases 1-6): each test copies a real
//! fixture into a temporary directory, edits it with SQL (the edit is the
//! test's first lines) and reads it. Expected counts come from SQL on the
//! edited copy, not from rooftrace's output.

use crate::common::{fixture, rooftrace, root};
use rooftrace::nsys::{read_timeline, OpKind, Timeline};
use rusqlite::Connection;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const BASE: &str = "nsys/nsys2024.5.1_pipit_cloverleaf.sqlite";
const K: &str = "CUPTI_ACTIVITY_KIND_KERNEL";

/// A copy of the 2 MB cloverleaf export named `name` in `dir`, edited by `sql`.
pub fn edited(dir: &Path, name: &str, sql: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::copy(fixture(BASE), &p).unwrap();
    Connection::open(&p).unwrap().execute_batch(sql).unwrap();
    p
}

fn read(p: &Path) -> Result<Timeline, rooftrace::nsys::NsysError> {
    read_timeline(p, true, &|_, _| {})
}

fn kernels(t: &Timeline) -> usize {
    t.ops.iter().filter(|o| o.kind == OpKind::Kernel).count()
}

fn sql_count(p: &Path, sql: &str) -> usize {
    let c = Connection::open(p).unwrap();
    c.query_row(sql, [], |r| r.get::<_, i64>(0)).unwrap() as usize
}

/// Runs rooftrace with `args` under `ulimit -v` (KiB) and a wall-clock
/// limit; returns (exit code, stderr). A run killed at the limit is -1.
pub fn run_limited(args: &[&str], vmem_kib: u64, limit: Duration) -> (i32, String) {
    let mut cmd = String::from("ulimit -v ");
    cmd.push_str(&vmem_kib.to_string());
    cmd.push_str("; exec \"$0\" \"$@\"");
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(cmd)
        .arg(env!("CARGO_BIN_EXE_rooftrace"))
        .args(args)
        .current_dir(root())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let t0 = Instant::now();
    loop {
        if let Some(st) = child.try_wait().unwrap() {
            let mut err = String::new();
            use std::io::Read;
            child.stderr.take().unwrap().read_to_string(&mut err).ok();
            return (st.code().unwrap_or(-2), err);
        }
        if t0.elapsed() > limit {
            child.kill().ok();
            child.wait().ok();
            return (-1, "killed at the time limit".into());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn case1_a_far_rowid_costs_no_memory() {
    let dir = tempfile::tempdir().unwrap();
    // One kernel moved to rowid 5e7 (2 GB of slots before the fix) and one to
    // 4e12 (an abort).
    let p = edited(
        dir.path(),
        "far.sqlite",
        &format!(
            "UPDATE {K} SET rowid = 50000000 WHERE rowid = 7;
             UPDATE {K} SET rowid = 4000000000000 WHERE rowid = 9;"
        ),
    );
    let (code, err) = run_limited(
        &["gaps", p.to_str().unwrap(), "--format", "json"],
        1_500_000,
        Duration::from_secs(60),
    );
    assert_eq!(code, 0, "{err}");
    // Every row is still read: 1312 kernels in the fixture, none removed.
    let t = read(&p).unwrap();
    assert_eq!(
        kernels(&t),
        sql_count(&p, &format!("SELECT count(*) FROM {K}"))
    );
}

#[test]
fn case2_rowid_i64_max_does_not_drop_the_table() {
    let dir = tempfile::tempdir().unwrap();
    let p = edited(
        dir.path(),
        "max.sqlite",
        &format!("UPDATE {K} SET rowid = 9223372036854775807 WHERE rowid = 1312;"),
    );
    let t = read(&p).unwrap();
    // 1312 kernels before and after: the edit moves a row, removes none.
    assert_eq!(kernels(&t), 1312);
    assert_eq!(sql_count(&p, &format!("SELECT count(*) FROM {K}")), 1312);
    // Runtime rows too (min and max at the extremes of i64).
    let p2 = edited(
        dir.path(),
        "minmax.sqlite",
        "UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET rowid = -9223372036854775808 WHERE rowid = 1;
         UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET rowid = 9223372036854775807 WHERE rowid = 2;",
    );
    let a = read(&p).unwrap();
    let b = read(&p2).unwrap();
    assert_eq!(a.api.len(), b.api.len());
}

#[test]
fn case3_a_huge_string_id_costs_no_bitmap() {
    let dir = tempfile::tempdir().unwrap();
    // A sync name and a blocking copy at the top of the u32 range, and one
    // beyond it (which would alias id 5 if truncated).
    let p = edited(
        dir.path(),
        "ids.sqlite",
        "INSERT INTO StringIds VALUES (4294967295, 'cudaDeviceSynchronize');
         INSERT INTO StringIds VALUES (4294967000, 'cudaMemcpy');
         INSERT INTO StringIds VALUES (4294967301, 'cudaStreamSynchronize');",
    );
    let (code, err) = run_limited(
        &["gaps", p.to_str().unwrap()],
        1_500_000,
        Duration::from_secs(60),
    );
    assert_eq!(code, 0, "{err}");
    let t = read(&p).unwrap();
    assert!(
        t.diagnostics
            .iter()
            .any(|d| d.kind == rooftrace::timeline::DiagnosticKind::BadNameIds { names: 2 }),
        "{:?}",
        t.diagnostics
    );
}

#[test]
fn case4_views_are_refused_fast_and_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let endless = "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c)";
    let cases = [
        (
            "StringIds",
            format!("CREATE VIEW StringIds AS {endless} SELECT i AS id, 'cudaDeviceSynchronize' AS value FROM c;"),
        ),
        (
            "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION",
            format!("CREATE VIEW CUPTI_ACTIVITY_KIND_SYNCHRONIZATION AS {endless} SELECT i AS start, i AS \"end\", 0 AS globalPid FROM c;"),
        ),
        (
            "META_DATA_EXPORT",
            format!("CREATE VIEW META_DATA_EXPORT AS {endless} SELECT 'x' AS name, i AS value FROM c;"),
        ),
        (
            "NVTX_EVENTS",
            format!("CREATE VIEW NVTX_EVENTS AS {endless} SELECT i AS start, i AS \"end\", 'r' AS text FROM c;"),
        ),
        (
            K,
            format!("CREATE VIEW {K} AS SELECT * FROM {K}_T;"),
        ),
    ];
    for (i, (table, view)) in cases.iter().enumerate() {
        let drop = if *table == K {
            format!("ALTER TABLE {K} RENAME TO {K}_T;")
        } else {
            format!("DROP TABLE IF EXISTS {table};")
        };
        let p = edited(
            dir.path(),
            &format!("v{i}.sqlite"),
            &format!("{drop}{view}"),
        );
        let (code, err) = run_limited(
            &["gaps", p.to_str().unwrap(), "--nvtx", "."],
            2_000_000,
            Duration::from_secs(30),
        );
        assert_eq!(code, 2, "{table}: {err}");
        assert!(
            err.contains(&format!("{table} is a view, not a table")),
            "{table}: {err}"
        );
    }
}

#[test]
fn case6_quoted_names_double_slash_and_non_utf8_paths() {
    let dir = tempfile::tempdir().unwrap();
    let p = edited(
        dir.path(),
        "q.sqlite",
        "CREATE TABLE \"CUPTI_ACTIVITY_KIND_X\"\")\" (a);
         CREATE TABLE \"NVTX_EVENTS'\" (a);",
    );
    assert_eq!(kernels(&read(&p).unwrap()), 1312);
    // `//tmp/...`: the same file through a path with an empty first component.
    let abs = std::path::absolute(&p).unwrap();
    let slashed = PathBuf::from(format!("/{}", abs.display()));
    assert_eq!(kernels(&read(&slashed).unwrap()), 1312);
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let odd = dir
            .path()
            .join(std::ffi::OsStr::from_bytes(b"r\xff\xfe %3F#?.sqlite"));
        std::fs::copy(fixture(BASE), &odd).unwrap();
        assert_eq!(kernels(&read(&odd).unwrap()), 1312);
    }
}

#[test]
fn case5_a_megabyte_name_is_cut_in_plots_and_json() {
    let dir = tempfile::tempdir().unwrap();
    // The most frequent kernel (shortName 1103, 968 of 1312 rows) gets a
    // 1 MB name.
    let p = edited(
        dir.path(),
        "long.sqlite",
        "UPDATE StringIds SET value = 'k' || printf('%.*c', 1048576, 'x') WHERE id = 1103;",
    );
    let svg = dir.path().join("t.svg");
    let json = dir.path().join("g.json");
    let (code, err) = run_limited(
        &[
            "gaps",
            p.to_str().unwrap(),
            "--plot",
            svg.to_str().unwrap(),
            "--format",
            "json",
            "--top",
            "0",
            "-o",
            json.to_str().unwrap(),
        ],
        1_500_000,
        Duration::from_secs(120),
    );
    assert_eq!(code, 0, "{err}");
    let out = std::fs::read_to_string(&json).unwrap();
    // Before: the 1 MB name in every gap it borders, GBs. Now it is cut to
    // 4096 bytes plus a note, and written once, in the report's `names`:
    // the gaps refer to it by index.
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let cut = "name cut at 4096 of 1048577 bytes";
    assert_eq!(out.matches(cut).count(), 1);
    let id = v["names"]
        .as_array()
        .unwrap()
        .iter()
        .position(|n| n.as_str().unwrap().contains(cut))
        .unwrap();
    let gaps = v["top_gaps"].as_array().unwrap();
    let bordering = gaps
        .iter()
        .filter(|g| g["before"]["name_id"] == id || g["after"]["name_id"] == id)
        .count();
    assert!(bordering > 900, "{bordering} of {} gaps", gaps.len());
    // What is left is the gaps themselves, ~0.6 KB each pretty-printed.
    assert!(
        out.len() < gaps.len() * 1024 + (64 << 10),
        "{} bytes",
        out.len()
    );
    assert!(std::fs::metadata(&svg).unwrap().len() < 4 << 20);
}

#[test]
fn case5_a_megabyte_call_name_is_cut_in_the_per_gap_sentence() {
    let dir = tempfile::tempdir().unwrap();
    // cudaDeviceSynchronize (StringIds 1085) is the sync call named by
    // 1280 synchronization gaps of the cloverleaf export; give it 1 MB.
    let p = edited(
        dir.path(),
        "longsync.sqlite",
        "UPDATE StringIds SET value = 'cudaDeviceSynchronize' || printf('%.*c', 1048576, 'y') \
         WHERE id = 1085;",
    );
    let (code, out, err) = rooftrace(&[
        "gaps",
        p.to_str().unwrap(),
        "--top",
        "0",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let sync: Vec<&str> = v["top_gaps"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|g| g["class"] == "synchronization")
        .map(|g| g["host"].as_str().unwrap())
        .collect();
    assert!(sync.len() > 1000, "{}", sync.len());
    // The sentence is built per gap: the name in it is cut to 120
    // characters (`cudaDeviceSynchr…yyyy`), the cut name is in `names` once.
    for h in &sync {
        assert_eq!(h.chars().count(), 120, "{h}");
        assert!(
            h.starts_with("cudaDeviceSynchronize") && h.contains('…'),
            "{h}"
        );
    }
    // Before, each of those sentences held the whole 4 KiB cut name: > 5 MB.
    let gaps = v["top_gaps"].as_array().unwrap().len();
    assert!(out.len() < gaps * 1024 + (64 << 10), "{} bytes", out.len());
}

#[test]
fn case5_ranges_of_one_registered_string_share_it() {
    let dir = tempfile::tempdir().unwrap();
    let src = fixture("nsys/nsys2022.2.1_pipit_saxpy-mpi-cuda.sqlite");
    let p = dir.path().join("ranges.sqlite");
    std::fs::copy(&src, &p).unwrap();
    // textId 85 (`MPI_Send`, 10 ranges of the saxpy export: `SELECT
    // count(*) FROM NVTX_EVENTS WHERE textId = 85`) becomes 1 MB, and 50,000
    // more ranges point at it: 50,010 ranges of one registered string. They
    // lie apart, after the export's last range (2,088,944,716 ns), so that
    // `budget`, which charges overlapping steps' time once, keeps each as a
    // step of its own.
    Connection::open(&p)
        .unwrap()
        .execute_batch(
            "UPDATE StringIds SET value = printf('%.*c', 1048576, 'm') WHERE id = 85;
             WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 50000)
             INSERT INTO NVTX_EVENTS (start, \"end\", eventType, textId, globalTid)
             SELECT 2100000000 + 20 * i, 2100000000 + 20 * i + 10, 59, 85, 302119224788637 FROM c;",
        )
        .unwrap();
    let t = read_timeline(&p, true, &|_, _| {}).unwrap();
    let long: Vec<&std::sync::Arc<str>> = t
        .nvtx
        .iter()
        .map(|r| &r.text)
        .filter(|x| x.len() > 4096)
        .collect();
    assert_eq!(long.len(), 50_010);
    // One allocation of the (cut) text, not 50,010: ~4 KB, not ~200 MB.
    assert!(long.iter().all(|x| std::sync::Arc::ptr_eq(x, long[0])));
    assert!(long[0].starts_with("mmmm") && long[0].contains("name cut at 4096 of 1048576 bytes"));
    // Through the CLI: the gaps report names it once, its 50,010 range
    // instances refer to it by index.
    let json = dir.path().join("g.json");
    let (code, err) = run_limited(
        &[
            "gaps",
            p.to_str().unwrap(),
            "--nvtx",
            "^m",
            "--format",
            "json",
            "-o",
            json.to_str().unwrap(),
        ],
        1_500_000,
        Duration::from_secs(120),
    );
    assert_eq!(code, 0, "{err}");
    let out = std::fs::read_to_string(&json).unwrap();
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["ranges"]["instances"].as_array().unwrap().len(), 50_010);
    assert_eq!(out.matches("name cut at 4096").count(), 1);
    // `budget` too: one step per range, the text once in `names`.
    let (code, err) = run_limited(
        &[
            "budget",
            p.to_str().unwrap(),
            "--nvtx",
            "^m",
            "--gpu",
            "a100-40gb",
            "--format",
            "json",
            "-o",
            json.to_str().unwrap(),
        ],
        1_500_000,
        Duration::from_secs(120),
    );
    assert_eq!(code, 0, "{err}");
    let out = std::fs::read_to_string(&json).unwrap();
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["steps"].as_array().unwrap().len(), 50_010);
    assert_eq!(out.matches("name cut at 4096").count(), 1);
}
