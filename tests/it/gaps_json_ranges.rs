//! `--nvtx` instances in the JSON (`rooftrace.gaps/5` and later, issue 32 item 2): each
//! instance writes only the classes, host details and length classes that
//! hold a gap, so a million windows without idle time no longer write a
//! million sets of zero totals. What is written must still add up: checked
//! here against the report's own summed fields, on a real corpus export
//! (`common::need`: without it, fails under CI and skips elsewhere).

use crate::common::{corpus_file, rooftrace};
use serde_json::Value;
use std::collections::BTreeMap;

fn sum_ns(m: &Value) -> i64 {
    m.as_object()
        .expect("an object")
        .values()
        .map(|v| v["total_ns"].as_i64().expect("total_ns"))
        .sum()
}

#[test]
fn instances_write_only_what_holds_a_gap_and_still_add_up() {
    let Some(e) = corpus_file("nsys/nsys2026.2.1_nsysai_h100_2gpu_1s.sqlite") else {
        return;
    };
    let (code, out, err) = rooftrace(&[
        "gaps",
        e.to_str().unwrap(),
        "--nvtx",
        ".",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(v["schema"], "rooftrace.gaps/6");
    let ranges = &v["ranges"];
    let inst = ranges["instances"].as_array().expect("instances");
    // The PyTorch export has thousands of op ranges, most without idle time.
    assert!(inst.len() > 10_000, "{}", inst.len());
    let (mut empty, mut by_class) = (0usize, BTreeMap::<String, i64>::new());
    for i in inst {
        for part in [&i["classes"], &i["host"]["detail"], &i["host"]["scale"]] {
            for (k, t) in part.as_object().expect("an object") {
                // Nothing written is zero: an absent key is the zero.
                assert!(t["count"].as_u64() > Some(0), "{k}: {t}");
            }
        }
        // The classes written sum to the window's idle time, and the host
        // details and length classes to its host-bound part.
        assert_eq!(sum_ns(&i["classes"]), i["idle_ns"].as_i64().unwrap(), "{i}");
        let host_bound = i["classes"]["host_bound"]["total_ns"].as_i64().unwrap_or(0);
        assert_eq!(sum_ns(&i["host"]["detail"]), host_bound, "{i}");
        assert_eq!(sum_ns(&i["host"]["scale"]), host_bound, "{i}");
        empty += usize::from(i["classes"].as_object().unwrap().is_empty());
        for (k, t) in i["classes"].as_object().unwrap() {
            *by_class.entry(k.clone()).or_insert(0) += t["total_ns"].as_i64().unwrap();
        }
    }
    assert!(
        empty > inst.len() / 2,
        "most windows have no idle: {empty} of {}",
        inst.len()
    );
    // Summed over instances, the sparse classes give the dense summary.
    for (k, t) in ranges["classes"].as_object().unwrap() {
        let total = t["total_ns"].as_i64().unwrap();
        assert_eq!(by_class.get(k).copied().unwrap_or(0), total, "{k}");
    }
}

/// The median and 90th percentile across instances, by nearest rank
/// (the `p`-th of `n` sorted values is the `ceil(p·n)`-th), computed here
/// from the instances the report lists.
fn nearest_rank(mut v: Vec<i64>, p: f64) -> i64 {
    v.sort_unstable();
    let k = ((p * v.len() as f64).ceil() as usize).max(1);
    v[k - 1]
}

#[test]
fn medians_across_instances_are_theirs_and_unknown_without_one() {
    // The saxpy fixture's 22 NVTX range instances (MPI calls): `.` matches
    // every one, the second pattern none.
    let e = "fixtures/nsys/nsys2022.2.1_pipit_saxpy-mpi-cuda.sqlite";
    let run = |pattern: &str| -> Value {
        let (code, out, err) = rooftrace(&["gaps", e, "--nvtx", pattern, "--format", "json"]);
        assert_eq!(code, 0, "{err}");
        serde_json::from_str(&out).expect("JSON")
    };
    let all = run(".");
    let ranges = &all["ranges"];
    let inst = ranges["instances"].as_array().expect("instances");
    assert!(inst.len() > 2, "{}", inst.len());
    for (field, own) in [("wall_ns", "wall_ns"), ("idle_ns", "idle_ns")] {
        let v: Vec<i64> = inst.iter().map(|i| i[own].as_i64().unwrap()).collect();
        assert_eq!(
            ranges[field]["median"].as_i64(),
            Some(nearest_rank(v.clone(), 0.5))
        );
        assert_eq!(ranges[field]["p90"].as_i64(), Some(nearest_rank(v, 0.9)));
    }
    // No instance: a median of nothing is unknown, written `null`, not 0.
    let none = run("^no range is named this$");
    let ranges = &none["ranges"];
    assert_eq!(ranges["instances"].as_array().map(Vec::len), Some(0));
    for field in [
        "wall_ns",
        "gpu_window_ns",
        "kernel_busy_ns",
        "idle_ns",
        "kernels",
    ] {
        assert!(
            ranges[field]["median"].is_null(),
            "{field}: {}",
            ranges[field]
        );
        assert!(ranges[field]["p90"].is_null(), "{field}: {}", ranges[field]);
    }
}
