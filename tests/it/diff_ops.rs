//! `rooftrace diff A B` of two PyTorch traces with shapes gates on the
//! ops' fraction of roof (op models): a corpus trace against itself
//! passes with every op row unchanged; against a copy written here in
//! which every kernel `aten::addmm` launched runs three times as long, the
//! addmm rows' fraction of roof falls and fails the gate, while no other
//! op's row moves.

use crate::common::{corpus_file, rooftrace_json, trace_document, ROUND_PEAKS};
use serde_json::Value;
use std::io::Write;
use std::path::Path;

fn diff_json(base: &Path, new: &Path) -> (i32, Value) {
    let mut args = vec![
        "diff",
        base.to_str().unwrap(),
        new.to_str().unwrap(),
        "--top",
        "0",
    ];
    args.extend(ROUND_PEAKS);
    let (code, json, err) = rooftrace_json(&args);
    assert!(code == 0 || code == 3, "{err}");
    (code, json)
}

fn ops_rows(report: &Value) -> &Vec<Value> {
    report["nsys"]["ops"].as_array().expect("an ops table")
}

#[test]
fn a_trace_against_itself_leaves_every_op_row_unchanged() {
    let Some(path) = corpus_file("kineto/kineto_hta_sampled_rank-0.json.gz") else {
        return;
    };
    let (code, report) = diff_json(&path, &path);
    assert_eq!(code, 0);
    let rows = ops_rows(&report);
    assert!(rows.len() > 10);
    assert!(rows.iter().all(|r| r["verdict"] == "unchanged"));
}

/// A copy of the trace at `path` in which every kernel launched inside an
/// `aten::addmm` call (its launch call, joined by `correlation`, within
/// the op's interval on the op's thread) lasts three times as long.
fn with_slow_addmm(path: &Path, out: &Path) -> usize {
    let mut doc = trace_document(path);
    let events = doc["traceEvents"].as_array_mut().unwrap();
    let addmm: Vec<(Value, Value, f64, f64)> = events
        .iter()
        .filter(|e| e["cat"] == "cpu_op" && e["name"] == "aten::addmm")
        .map(|e| {
            let ts = e["ts"].as_f64().unwrap();
            (
                e["pid"].clone(),
                e["tid"].clone(),
                ts,
                ts + e["dur"].as_f64().unwrap(),
            )
        })
        .collect();
    let in_addmm: std::collections::HashSet<i64> = events
        .iter()
        .filter(|e| e["cat"] == "cuda_runtime")
        .filter(|e| {
            let at = e["ts"].as_f64().unwrap();
            addmm.iter().any(|(pid, tid, s, end)| {
                e["pid"] == *pid && e["tid"] == *tid && *s <= at && at <= *end
            })
        })
        .filter_map(|e| e["args"]["correlation"].as_i64())
        .collect();
    let mut slowed = 0;
    for e in events.iter_mut().filter(|e| e["cat"] == "kernel") {
        if e["args"]["correlation"]
            .as_i64()
            .is_some_and(|c| in_addmm.contains(&c))
        {
            let dur = e["dur"].as_f64().unwrap();
            e["dur"] = Value::from(dur * 3.0);
            slowed += 1;
        }
    }
    let mut gz = flate2::write::GzEncoder::new(
        std::fs::File::create(out).unwrap(),
        flate2::Compression::fast(),
    );
    gz.write_all(serde_json::to_string(&doc).unwrap().as_bytes())
        .unwrap();
    gz.finish().unwrap();
    slowed
}

#[test]
fn slower_addmm_kernels_fail_the_gate_on_the_addmm_rows_fraction_of_roof() {
    let Some(path) = corpus_file("kineto/kineto_hta_sampled_rank-0.json.gz") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let slow = dir.path().join("slow_addmm.json.gz");
    assert!(with_slow_addmm(&path, &slow) > 0);
    let (code, report) = diff_json(&path, &slow);
    assert_eq!(code, 3, "the gate fails");
    let rows = ops_rows(&report);
    let mut regressed = 0;
    for r in rows {
        let f = &r["fraction_of_roof"];
        if r["name"] != "aten::addmm" {
            // Other ops' kernels kept their durations: the same fraction.
            assert_eq!(r["verdict"], "unchanged", "{r}");
            continue;
        }
        // Every addmm kernel 3× longer: the call's time (the union of its
        // kernels) grows, its bound does not, so its fraction falls;
        // beyond the 0.02 threshold it is a regression.
        let (before, after) = (f["before"].as_f64().unwrap(), f["after"].as_f64().unwrap());
        assert!(after < before, "{r}");
        let verdict = if before - after > 0.02 {
            "regression"
        } else {
            "unchanged"
        };
        assert_eq!(r["verdict"], verdict, "{r}");
        regressed += usize::from(verdict == "regression");
    }
    assert!(regressed > 0);
    // The gate names the op rows among what tripped it.
    let tripped: Vec<&str> = report["gate"]["tripped"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["row"].as_str())
        .filter(|row| row.starts_with("op aten::addmm"))
        .collect();
    assert_eq!(tripped.len(), regressed);
}
