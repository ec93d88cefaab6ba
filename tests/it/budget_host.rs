//! `rooftrace budget`: the host's time inside a step's range before its
//! first GPU op (issue 45 item 3). It is reported beside the step
//! (`host_before_gpu_ns`; `step_ns` still starts at the first GPU op), with
//! what the host did there, and named in "fix first" weighed by its median
//! per step (docs/budget.md, "Host time before the first GPU op"). Scenes
//! are placed by hand with `rooftrace::synth::scene`; on the real exports
//! every step's figure is recomputed from the raw rows by SQL.

use crate::common::{corpus_file, rooftrace_json};
use rooftrace::synth::scene::NsysScene;
use rusqlite::Connection;
use serde_json::Value;
use std::path::Path;

/// `budget --nvtx PATTERN --format json` of `path` (`gpu`: `--gpu KEY`,
/// or none: the export's own).
fn budget(path: &Path, pattern: &str, gpu: &[&str]) -> Value {
    let args = [&["budget", path.to_str().unwrap(), "--nvtx", pattern], gpu].concat();
    let (code, doc, err) = rooftrace_json(&args);
    assert_eq!(code, 0, "{err}");
    doc
}

fn steps_field(doc: &Value, f: &str) -> Vec<i64> {
    doc["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s[f].as_i64().unwrap_or_else(|| panic!("{f} in {s}")))
        .collect()
}

/// The "fix first" line for the host's time before the first GPU op.
fn host_before_fix(doc: &Value) -> Option<&Value> {
    doc["fix_first"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["what"] == "host_before_gpu")
}

/// Three `Coarse Level` ranges, each as the AMG export holds them: the
/// range opens at `t`, `cudaMallocAsync` stalls the thread 1.07 ms over
/// [t + 5 µs, t + 1,075 µs), the launch call runs [t + 1,080 µs,
/// t + 1,085 µs) and its kernel [t + 1,090 µs, t + 1,290 µs); the range
/// closes at t + 1,300 µs. The levels start 10 ms apart.
fn amg_levels(path: &Path) {
    let mut s = NsysScene::new();
    for level in 0..3i64 {
        let t = 10_000_000 * (level + 1);
        // Correlation ids grow with call start, as CUPTI numbers them.
        let corr = 2 * level + 2;
        s.nvtx("Coarse Level", t, t + 1_300_000)
            .runtime("cudaMallocAsync_v11020", t + 5_000, t + 1_075_000, corr - 1)
            .runtime("cudaLaunchKernel_v7000", t + 1_080_000, t + 1_085_000, corr)
            .kernel("smooth", 7, t + 1_090_000, t + 1_290_000, corr);
    }
    s.write(path).unwrap();
}

#[test]
fn a_cuda_malloc_async_stall_before_each_levels_first_op_is_charged_and_fixed_first() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("amg.sqlite");
    amg_levels(&db);
    let doc = budget(&db, "^Coarse Level$", &["--gpu", "h100-sxm"]);
    // The step is still the GPU window: the kernel, 200 µs.
    assert_eq!(steps_field(&doc, "step_ns"), vec![200_000; 3]);
    // Beside it, the range's start to the kernel's: 1,090 µs per level.
    assert_eq!(steps_field(&doc, "host_before_gpu_ns"), vec![1_090_000; 3]);
    // What the host did, judged over [t, end of the launch call) as a
    // host-bound gap is: 1,070 µs in the allocation call against 15 µs
    // of the rest (5 µs launch call, 10 µs CPU), so allocation, and the
    // whole stretch is charged to it.
    for s in doc["steps"].as_array().unwrap() {
        let host = &s["host_before_gpu"];
        assert_eq!(host["detail"]["alloc"]["total_ns"], 1_090_000, "{host}");
    }
    // Fix first: 1,090 µs per step, 5.45 × the 200 µs step, first of all
    // (the kernel time without counters is 200 µs), with the fix for a
    // stream-ordered allocation that grows its pool.
    let line = host_before_fix(&doc).expect("a host_before_gpu line");
    assert_eq!(doc["fix_first"][0], *line);
    assert_eq!(line["ns_per_step"], 1_090_000.0);
    assert!((line["share_of_step"].as_f64().unwrap() - 5.45).abs() < 1e-12);
    let text = line["text"].as_str().unwrap();
    assert!(
        text.contains("cudaMallocAsync stops growing the pool"),
        "{text}"
    );
    assert!(
        text.contains("3 stretches in stream-ordered allocation calls hold 3.27 ms"),
        "{text}"
    );
    // Every format says it: the CSV column and the table's line.
    let (_, csv, _) = crate::common::rooftrace(&[
        "budget",
        db.to_str().unwrap(),
        "--nvtx",
        "^Coarse Level$",
        "--gpu",
        "h100-sxm",
        "--format",
        "csv",
    ]);
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let at = header
        .iter()
        .position(|h| *h == "host_before_gpu_ns")
        .unwrap();
    for row in csv.lines().skip(1) {
        assert_eq!(row.split(',').nth(at), Some("1090000"), "{row}");
    }
    let (_, table, _) = crate::common::rooftrace(&[
        "budget",
        db.to_str().unwrap(),
        "--nvtx",
        "^Coarse Level$",
        "--gpu",
        "h100-sxm",
    ]);
    assert!(
        table.contains("3 of 3 steps, median 1.09 ms per step; the median step from its range's start is 1.29 ms (1.09 ms + 200 µs on the GPU)"),
        "{table}"
    );
}

/// Three steps on one stream, by hand:
/// - A: range [0, 100 µs), launch [10, 15 µs), kernel [50, 500 µs): the
///   host's stretch is [0, 50 µs) = 50 µs.
/// - B: range [100, 200 µs), launch [110, 115 µs), kernel queued behind
///   A's until [500, 600 µs): A's work held the device until B's op
///   began, so B has no host time before it (0).
/// - C: range [550, 1,000 µs), `cudaMallocAsync` [555, 755 µs), launch
///   [760, 765 µs), kernel [770, 870 µs): the stretch starts at the end
///   of B's work (600 µs), not at the range's start (550 µs), since B
///   owns [550, 600 µs) of the device: 170 µs.
fn pipelined(path: &Path) {
    let mut s = NsysScene::new();
    s.nvtx("step", 0, 100_000)
        .runtime("cudaLaunchKernel_v7000", 10_000, 15_000, 1)
        .kernel("a", 7, 50_000, 500_000, 1)
        .nvtx("step", 100_000, 200_000)
        .runtime("cudaLaunchKernel_v7000", 110_000, 115_000, 2)
        .kernel("b", 7, 500_000, 600_000, 2)
        .nvtx("step", 550_000, 1_000_000)
        .runtime("cudaMallocAsync_v11020", 555_000, 755_000, 3)
        .runtime("cudaLaunchKernel_v7000", 760_000, 765_000, 4)
        .kernel("c", 7, 770_000, 870_000, 4);
    s.write(path).unwrap();
}

#[test]
fn host_time_before_the_first_op_is_never_time_an_earlier_step_owns() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("pipelined.sqlite");
    pipelined(&db);
    let doc = budget(&db, "^step$", &["--gpu", "h100-sxm"]);
    assert_eq!(
        steps_field(&doc, "gpu_work_start_ns"),
        vec![50_000, 500_000, 770_000]
    );
    assert_eq!(
        steps_field(&doc, "host_before_gpu_ns"),
        vec![50_000, 0, 170_000]
    );
    // C's stretch [600, 770 µs), judged up to its launch call's end (765
    // µs): 155 µs of the allocation call against 10 µs of the rest.
    let c = &doc["steps"][2]["host_before_gpu"];
    assert_eq!(c["detail"]["alloc"]["total_ns"], 170_000, "{c}");
    // B's stretch is empty: no evidence.
    assert_eq!(
        doc["steps"][1]["host_before_gpu"]["evidence"],
        Value::Array(vec![]),
        "{}",
        doc["steps"][1]
    );
}

/// Per instance of `text` (by range start): the host's time before its
/// first GPU op, recomputed from the raw rows: the first start of the
/// kernels, copies and memsets whose launch call ran on the range's thread
/// inside the range, less the later of the range's start and the latest
/// end of the GPU work of the instances before it (0 when that is later).
fn host_before_by_sql(db: &Path, text: &str) -> Vec<i64> {
    let c = Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    let sql = "WITH ops AS (
            SELECT start, end, correlationId, globalPid FROM CUPTI_ACTIVITY_KIND_KERNEL
            UNION ALL SELECT start, end, correlationId, globalPid FROM CUPTI_ACTIVITY_KIND_MEMCPY
            UNION ALL SELECT start, end, correlationId, globalPid FROM CUPTI_ACTIVITY_KIND_MEMSET),
        steps AS (
            SELECT n.start AS h0, n.globalTid AS tid,
                   (SELECT min(o.start) FROM ops o JOIN CUPTI_ACTIVITY_KIND_RUNTIME r
                      ON r.correlationId = o.correlationId AND r.globalTid / 16777216 = o.globalPid / 16777216
                    WHERE r.globalTid = n.globalTid AND r.start BETWEEN n.start AND n.end) AS w0,
                   (SELECT max(o.end) FROM ops o JOIN CUPTI_ACTIVITY_KIND_RUNTIME r
                      ON r.correlationId = o.correlationId AND r.globalTid / 16777216 = o.globalPid / 16777216
                    WHERE r.globalTid = n.globalTid AND r.start BETWEEN n.start AND n.end) AS w1
            FROM NVTX_EVENTS n LEFT JOIN StringIds s ON s.id = n.textId
            WHERE coalesce(n.text, s.value) = ?1 AND n.end IS NOT NULL)
        SELECT h0, w0, w1 FROM steps WHERE w0 IS NOT NULL ORDER BY h0";
    let rows: Vec<(i64, i64, i64)> = c
        .prepare(sql)
        .unwrap()
        .query_map([text], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let mut before_end = i64::MIN;
    rows.iter()
        .map(|&(h0, w0, w1)| {
            let ns = (w0 - h0.max(before_end)).max(0);
            before_end = before_end.max(w1);
            ns
        })
        .collect()
}

/// Nearest-rank median.
fn median(v: &[i64]) -> i64 {
    let mut v = v.to_vec();
    v.sort_unstable();
    v[v.len().div_ceil(2) - 1]
}

#[test]
fn the_real_exports_host_time_before_each_steps_first_op_matches_the_raw_rows() {
    // saxpy: each `saxpy` range's launch call (31-36 µs) before its
    // kernel; nvFuser: `runFusionWithInputs` holds 270 ms of host work
    // (CPU work, cudaMalloc calls) before its first kernel.
    for (file, text) in [
        ("nsys/nsys2022.2.1_pipit_saxpy-mpi-cuda.sqlite", "saxpy"),
        (
            "nsys/nsys2025.1.1_nvfuser_cross-entropy-pytest.sqlite",
            "FusionExecutorCache::runFusionWithInputs",
        ),
    ] {
        let Some(db) = corpus_file(file) else {
            continue;
        };
        let want = host_before_by_sql(&db, text);
        let doc = budget(&db, &format!("^{}$", regex::escape(text)), &[]);
        let got = steps_field(&doc, "host_before_gpu_ns");
        assert_eq!(got, want, "{file}");
        assert!(got.iter().all(|&ns| ns > 0), "{file}: {got:?}");
        // The step itself is unchanged: its GPU window.
        let (start, end) = (
            steps_field(&doc, "gpu_start_ns"),
            steps_field(&doc, "gpu_end_ns"),
        );
        let step: Vec<i64> = start.iter().zip(&end).map(|(s, e)| e - s).collect();
        assert_eq!(steps_field(&doc, "step_ns"), step, "{file}");
        // Fix first weighs it by its median over the steps it ranks (the
        // outliers, longer than 3 × the median step, left out).
        let outliers: Vec<usize> = doc["outlier_steps"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i.as_u64().unwrap() as usize)
            .collect();
        let typical: Vec<i64> = (0..got.len())
            .filter(|i| !outliers.contains(i))
            .map(|i| got[i])
            .collect();
        let line = host_before_fix(&doc).expect("a host_before_gpu line");
        assert_eq!(
            line["ns_per_step"].as_f64().unwrap(),
            median(&typical) as f64,
            "{file}"
        );
    }
}

#[test]
fn the_fixture_pairs_steps_each_hold_110_us_of_host_time_before_their_first_kernel() {
    // fixtures/budget/sgemm_steps.sql: the `step` ranges open at
    // 999,890,000, 48,914,763,664 and 113,568,528,080 ns and their first
    // kernels start at 1,000,000,000, 48,914,873,664 and 113,568,638,080
    // (each range opens after the previous step's last kernel ended):
    // 110,000 ns each. Step 0's stretch, judged up to its first launch
    // call's end (999,905,000): that call is 5 µs against 10 µs without a
    // call, so no call wins and the thread's own `step` range covers the
    // rest: inside an NVTX range, no family, the 100 µs-1 ms length
    // class's fix.
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("sgemm_steps.sqlite");
    let sql = std::fs::read_to_string(crate::common::fixture("budget/sgemm_steps.sql")).unwrap();
    Connection::open(&db).unwrap().execute_batch(&sql).unwrap();
    let doc = budget(&db, "^step$", &["--gpu", "a100-80gb"]);
    assert_eq!(steps_field(&doc, "host_before_gpu_ns"), vec![110_000; 3]);
    assert_eq!(
        steps_field(&doc, "gpu_work_start_ns"),
        vec![1_000_000_000, 48_914_873_664, 113_568_638_080]
    );
    for s in doc["steps"].as_array().unwrap() {
        assert_eq!(s["host_before_gpu"]["detail"]["nvtx"]["total_ns"], 110_000);
        assert_eq!(s["host_before_gpu"]["scale"]["mid"]["total_ns"], 110_000);
    }
    let line = host_before_fix(&doc).expect("a host_before_gpu line");
    assert_eq!(line["ns_per_step"], 110_000.0);
    let text = line["text"].as_str().unwrap();
    assert!(
        text.contains("profile the host between launches (nsys --sample=cpu)"),
        "{text}"
    );
    assert!(
        text.contains("(in the 3 steps ranked: 3 stretches in CPU work (no API call) hold 330 µs)"),
        "{text}"
    );
}
