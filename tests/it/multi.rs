//! Many inputs at once: the multi-input run equals the single-input runs
//! row for row, a failing input is named and does not lose the others
//! (exit 4), ranks come from the export's environment, and the Parquet
//! datasets read back by an independent reader (DuckDB's Python package)
//! give the same totals as the JSON output, entity by entity.
//!
//! The Parquet tests need `python3 -c 'import duckdb'` (CI: `pip install
//! duckdb==2.0.1`); without it they fail under CI and skip with a note
//! elsewhere (`common::need`).

use crate::common::{corpus, fixture, need, rooftrace};
use serde_json::Value;
use std::path::{Path, PathBuf};

const NSYS: [&str; 3] = [
    "nsys/nsys2022.2.1_pipit_saxpy-mpi-cuda.sqlite",
    "nsys/nsys2024.5.1_pipit_cloverleaf.sqlite",
    "nsys/nsys2026.2.1_nsysai_h100_2gpu_1s.sqlite",
];

/// Real CSVs of one code on an RTX 4090 (compute capability 8.9, which the
/// built-in table shares between GPUs, hence `--gpu`): details page, full
/// set, and one without DRAM bytes (unknown sides, lower bounds).
const NCU: [&str; 3] = [
    "ncu/gpp_ncu2024.2_details15.csv",
    "ncu/gpp_full_set_memory_throughput.csv",
    "ncu/gpp_no_dram_compute_only.csv",
];

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

fn json_of(args: &[&str]) -> Value {
    let (code, out, err) = rooftrace(args);
    assert_eq!(code, 0, "{args:?}: {err}");
    serde_json::from_str(&out).expect("JSON output")
}

/// Each input's report inside the multi-input JSON equals the single run's
/// JSON, and the tagged CSV rows equal the single runs' CSV rows.
fn multi_equals_singles(cmd: &str, inputs: &[PathBuf], extra: &[&str]) {
    let mut args = vec![cmd];
    args.extend(inputs.iter().map(|p| s(p)));
    args.extend(extra);
    let mut json_args = args.clone();
    json_args.extend(["--format", "json"]);
    let multi = json_of(&json_args);
    let reports = multi["inputs"].as_array().expect("inputs");
    assert_eq!(reports.len(), inputs.len());
    let mut csv_args = args.clone();
    csv_args.extend(["--format", "csv"]);
    let (code, multi_csv, err) = rooftrace(&csv_args);
    assert_eq!(code, 0, "{err}");
    let mut tagged = multi_csv.lines().skip(1);
    for (p, r) in inputs.iter().zip(reports) {
        assert_eq!(r["input"], s(p));
        let mut one = vec![cmd, s(p)];
        one.extend(extra);
        let mut one_json = one.clone();
        one_json.extend(["--format", "json"]);
        assert_eq!(r["report"], json_of(&one_json), "{}", p.display());
        one.extend(["--format", "csv"]);
        let (_, single_csv, _) = rooftrace(&one);
        for row in single_csv.lines().skip(1) {
            let t = tagged.next().expect("a tagged row per single row");
            // input,host,rank, then the single row unchanged.
            let rest = t.splitn(4, ',').nth(3).unwrap_or_default();
            assert_eq!(rest, row, "{}", p.display());
        }
    }
    assert_eq!(tagged.next(), None, "no extra rows");
}

#[test]
fn gaps_many_equals_single_runs_row_for_row() {
    let inputs: Vec<PathBuf> = NSYS.iter().map(|f| fixture(f)).collect();
    // Unrelated exports (two GPUs, rank 0 twice): summed as one job.
    multi_equals_singles("gaps", &inputs, &["--nvtx", ".", "--one-job"]);
}

#[test]
fn ncu_many_equals_single_runs_row_for_row() {
    let inputs: Vec<PathBuf> = NCU.iter().map(|f| fixture(f)).collect();
    multi_equals_singles(
        "ncu",
        &inputs,
        &["--group-by", "kernel", "--gpu", "rtx4090"],
    );
}

#[test]
fn corpus_gaps_many_equals_single_runs() {
    let Some(dir) = corpus("nsys") else {
        return;
    };
    let mut inputs: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("corpus dir")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "sqlite"))
        .collect();
    inputs.sort();
    multi_equals_singles("gaps", &inputs, &["--one-job"]);
}

#[test]
fn a_failing_input_is_named_and_the_others_stand() {
    let good = fixture(NSYS[0]);
    let bad = fixture("nsys/not_sqlite.sqlite");
    let missing = fixture("nsys/no_such_rank.sqlite");
    let (code, out, err) = rooftrace(&["gaps", s(&good), s(&bad), s(&missing), "--format", "json"]);
    assert_eq!(code, 4, "{err}");
    assert!(err.contains("2 of 3 inputs failed"), "{err}");
    let v: Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(v["inputs"].as_array().map(Vec::len), Some(1));
    let failed: Vec<&str> = v["failures"]
        .as_array()
        .expect("failures")
        .iter()
        .map(|f| f["input"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(failed, [s(&bad), s(&missing)]);
    assert!(v["failures"][0]["error"]
        .as_str()
        .unwrap_or_default()
        .contains("not an input rooftrace reads"));
    // Every input failing is the single-input exit code: bad input, 2.
    let (code, _, _) = rooftrace(&["gaps", s(&bad), s(&missing)]);
    assert_eq!(code, 2);
}

#[test]
fn rank_and_host_from_the_export_else_the_file_name() {
    // By SQL on the exports: saxpy's TARGET_INFO_SYSTEM_ENV has Hostname
    // `nid001608` and DeviceEnvironment `...PALS_RANKID=0...PMI_RANK=0...`
    // (NUL-separated, nsys 2022.2); the H100 export records no rank
    // variable, and its Hostname is `modal`.
    let d = tempfile::tempdir().expect("tempdir");
    let renamed = d.path().join("job_rank7.sqlite");
    std::fs::copy(fixture(NSYS[2]), &renamed).expect("copy");
    let v = json_of(&[
        "gaps",
        "--one-job",
        s(&fixture(NSYS[0])),
        s(&renamed),
        "--format",
        "json",
    ]);
    let ranks = v["ranks"].as_array().expect("ranks");
    let by_input = |name: &str| {
        ranks
            .iter()
            .find(|r| r["input"].as_str().is_some_and(|i| i.ends_with(name)))
            .cloned()
            .expect("row")
    };
    let saxpy = by_input("saxpy-mpi-cuda.sqlite");
    assert_eq!(saxpy["rank"], 0);
    assert_eq!(saxpy["host"], "nid001608");
    assert_eq!(saxpy["rank_source"]["detail"], "PMI_RANK");
    let h100 = by_input("job_rank7.sqlite");
    assert_eq!(h100["rank"], 7);
    assert_eq!(h100["host"], "modal");
    assert_eq!(h100["rank_source"]["kind"], "file_name");
    // --rank-from wins over the export: `nsys2022.2.1_...` gives 2022.
    let v = json_of(&[
        "gaps",
        "--one-job",
        s(&fixture(NSYS[0])),
        s(&renamed),
        "--rank-from",
        r"nsys(\d+)\.",
        "--format",
        "json",
    ]);
    assert_eq!(v["ranks"][0]["rank"], 2022);
}

#[test]
fn globs_and_directories_are_expanded() {
    let dir = fixture("nsys");
    let pattern = dir.join("nsys20*.sqlite");
    let a = json_of(&["gaps", s(&pattern), "--one-job", "--format", "json"]);
    let (_, b, _) = rooftrace(&["gaps", s(&dir), "--one-job", "--format", "json"]);
    let b: Value = serde_json::from_str(&b).expect("JSON");
    let names = |v: &Value| -> Vec<String> {
        v["inputs"]
            .as_array()
            .expect("inputs")
            .iter()
            .map(|i| i["input"].as_str().unwrap_or_default().to_string())
            .collect()
    };
    let exports = std::fs::read_dir(&dir)
        .expect("fixtures/nsys")
        .flatten()
        .filter(|e| {
            let n = e.file_name().to_string_lossy().into_owned();
            n.starts_with("nsys20") && n.ends_with(".sqlite")
        })
        .count();
    assert!(exports >= 3);
    assert_eq!(names(&a).len(), exports);
    // The directory also holds not_sqlite.sqlite, which fails (exit 4,
    // reported), so compare the analysed ones.
    let (code, _, _) = rooftrace(&["gaps", s(&dir), "--one-job"]);
    assert_eq!(code, 4);
    assert_eq!(names(&a), names(&b));
}

/// Runs a DuckDB query through Python; `None` when python3 or its
/// `duckdb` package is missing outside CI (`common::need`).
pub(crate) fn duckdb(sql: &str) -> Option<Value> {
    if !crate::common::require_python3() {
        return None;
    }
    let script = format!(
        "import duckdb, json\nrows = duckdb.sql({sql:?}).fetchall()\nprint(json.dumps(rows))"
    );
    let o = std::process::Command::new("python3")
        .args(["-c", &script])
        .output()
        .expect("run python3");
    let stderr = String::from_utf8_lossy(&o.stderr);
    if o.status.success() {
        Some(serde_json::from_slice(&o.stdout).expect("JSON rows"))
    } else if stderr.contains("No module named 'duckdb'") {
        need(
            None,
            "python3's `duckdb` package (the independent Parquet reader)",
            "pip install duckdb==2.0.1 (as .ci/run does)",
        )
    } else {
        panic!("duckdb query failed: {stderr}")
    }
}

fn sum(v: &Value, key: &str) -> i64 {
    v.as_array()
        .map(|a| a.iter().map(|x| x[key].as_i64().unwrap_or(0)).sum())
        .unwrap_or(0)
}

#[test]
fn gaps_parquet_totals_equal_the_json_per_entity() {
    let d = tempfile::tempdir().expect("tempdir");
    let out = d.path().join("pq");
    let mut args = vec!["gaps"];
    let inputs: Vec<PathBuf> = NSYS.iter().map(|f| fixture(f)).collect();
    args.extend(inputs.iter().map(|p| s(p)));
    args.extend(["--nvtx", ".", "--format", "parquet", "-o", s(&out)]);
    let (code, _, err) = rooftrace(&args);
    assert_eq!(code, 0, "{err}");
    let q = |entity: &str, select: &str| {
        duckdb(&format!(
            "select input, {select} from read_parquet('{}/{entity}/*/*.parquet', hive_partitioning=true) group by input order by input",
            out.display()
        ))
    };
    let Some(devices) = q(
        "devices",
        "count(*), sum(busy_ns), sum(idle_ns), sum(kernels)",
    ) else {
        return;
    };
    let streams = q("streams", "count(*), sum(idle_ns), sum(ops)").expect("streams");
    let gaps = q("gaps", "count(*), sum(duration_ns)").expect("gaps");
    let kernels = q("kernels", "sum(launches)").expect("kernels");
    let nvtx = q("nvtx", "count(*), sum(wall_ns)").expect("nvtx");
    let row_of = |rows: &Value, part: &str| -> Vec<i64> {
        rows.as_array()
            .expect("rows")
            .iter()
            .find(|r| r[0] == part)
            .map(|r| {
                r.as_array().expect("row")[1..]
                    .iter()
                    .map(|x| x.as_i64().unwrap_or(-1))
                    .collect()
            })
            .unwrap_or_default()
    };
    for p in &inputs {
        let part = p.file_name().and_then(|n| n.to_str()).expect("name");
        let single = json_of(&["gaps", s(p), "--nvtx", ".", "--format", "json"]);
        let dev = &single["devices"];
        // Devices: row count and busy/idle/kernel sums, as in the JSON.
        assert_eq!(
            row_of(&devices, part),
            [
                dev.as_array().map_or(0, Vec::len) as i64,
                sum(dev, "busy_ns"),
                sum(dev, "idle_ns"),
                sum(dev, "kernels")
            ],
            "{part} devices"
        );
        let st = &single["streams"];
        assert_eq!(
            row_of(&streams, part),
            [
                st.as_array().map_or(0, Vec::len) as i64,
                sum(st, "idle_ns"),
                sum(st, "ops")
            ],
            "{part} streams"
        );
        // Gaps: every device gap, so their count and time are the device
        // gap counts and idle time.
        assert_eq!(
            row_of(&gaps, part),
            [sum(dev, "gap_count"), sum(dev, "idle_ns")],
            "{part} gaps"
        );
        // Kernels: launches per name summed = kernels per device.
        assert_eq!(
            row_of(&kernels, part),
            [sum(dev, "kernels")],
            "{part} kernels"
        );
        let inst = &single["ranges"]["instances"];
        if inst.as_array().is_some_and(|a| !a.is_empty()) {
            assert_eq!(
                row_of(&nvtx, part),
                [
                    inst.as_array().map_or(0, Vec::len) as i64,
                    sum(inst, "wall_ns")
                ],
                "{part} nvtx"
            );
        }
    }
    // The straggler table: DuckDB's per-rank lower median (quantile_disc,
    // the query of docs/scale.md) and counts equal the report's.
    let mut json_args = args[..args.len() - 4].to_vec();
    json_args.extend(["--one-job", "--format", "json", "--top", "0"]);
    let multi = json_of(&json_args);
    let ranges = duckdb(&format!(
        "with per_rank as (select text, input, count(*) as n, quantile_disc(wall_ns, 0.5) as med from read_parquet('{}/nvtx/*/*.parquet', hive_partitioning=true) group by text, input) select text, count(*), sum(n), max(med), min(med), max(med) - min(med) from per_rank group by text order by text",
        out.display()
    ))
    .expect("nvtx");
    let ours = multi["ranges"].as_array().expect("ranges");
    assert_eq!(ranges.as_array().map(Vec::len), Some(ours.len()));
    for row in ranges.as_array().expect("rows") {
        let r = ours
            .iter()
            .find(|r| r["name"] == row[0])
            .expect("range name");
        assert_eq!(
            [&row[1], &row[2], &row[3], &row[4], &row[5]].map(|x| x.as_i64()),
            [
                &r["inputs"],
                &r["instances"],
                &r["slowest"]["median_wall_ns"],
                &r["fastest"]["median_wall_ns"],
                &r["spread_ns"]
            ]
            .map(|x| x.as_i64()),
            "{}",
            row[0]
        );
    }
    let meta = duckdb(&format!(
        "select distinct decode(key), decode(value) from parquet_kv_metadata('{}/devices/*/*.parquet') where decode(key) = 'rooftrace.schema_version'",
        out.display()
    ))
    .expect("metadata");
    assert_eq!(meta, serde_json::json!([["rooftrace.schema_version", "1"]]));
}

#[test]
fn ncu_parquet_totals_equal_the_json() {
    let d = tempfile::tempdir().expect("tempdir");
    let out = d.path().join("pq");
    let inputs: Vec<PathBuf> = NCU.iter().map(|f| fixture(f)).collect();
    let mut args = vec!["ncu"];
    args.extend(inputs.iter().map(|p| s(p)));
    args.extend(["--gpu", "rtx4090", "--format", "parquet", "-o", s(&out)]);
    let (code, _, err) = rooftrace(&args);
    assert_eq!(code, 0, "{err}");
    let Some(rows) = duckdb(&format!(
        "select input, count(*), sum(launches), sum(duration_ns), sum(greatest(time_lost_ns, 0)) from read_parquet('{}/kernels/*/*.parquet', hive_partitioning=true) group by input order by input",
        out.display()
    )) else {
        return;
    };
    let rows = rows.as_array().expect("rows");
    assert_eq!(rows.len(), inputs.len());
    for p in &inputs {
        let part = p.file_name().and_then(|n| n.to_str()).expect("name");
        let single = json_of(&["ncu", s(p), "--gpu", "rtx4090", "--format", "json"]);
        let r = rows.iter().find(|r| r[0] == part).expect("partition");
        assert_eq!(
            r[1].as_u64(),
            single["kernels"].as_array().map(|a| a.len() as u64)
        );
        assert_eq!(r[2].as_u64(), single["launches_analysed"].as_u64());
        let close = |a: &Value, b: &Value| {
            let (a, b) = (
                a.as_f64().unwrap_or(f64::NAN),
                b.as_f64().unwrap_or(f64::NAN),
            );
            (a - b).abs() <= 1e-9 * b.abs().max(1.0)
        };
        assert!(close(&r[3], &single["total_duration_ns"]), "{part}: {r:?}");
        assert!(close(&r[4], &single["total_time_lost_ns"]), "{part}: {r:?}");
    }
}
