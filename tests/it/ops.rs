//! `rooftrace ops` on the real corpus traces with shapes: the GEMM rows'
//! FLOPs against 2·M·N·K computed here from the raw `Input Dims`, the
//! rows and the unmodelled kernels summing to the kernel time (checked
//! against the raw kernel events), the table as the user sees it, and the
//! inputs it refuses.

use crate::common::{
    fixture, kineto_trace as trace, rooftrace, rooftrace_json, trace_events as raw_events,
    KINETO_WITH_SHAPES as WITH_SHAPES,
};
use serde_json::Value;

fn ops_json(path: &std::path::Path) -> Value {
    let (code, json, err) = rooftrace_json(&["ops", path.to_str().unwrap(), "--top", "0"]);
    assert_eq!(code, 0, "{err}");
    json
}

/// The sizes of each tensor in a row's `shapes` (`fp32[10,327680], 1`),
/// `None` for a value: arguments are joined by ", ", sizes by "," alone,
/// so the tensors before the first list value split cleanly (a GEMM's
/// operands come first).
fn tensor_dims(shapes: &str) -> Vec<Option<Vec<u64>>> {
    shapes
        .split(", ")
        .map(|arg| {
            let (ty, dims) = arg.split_once('[')?;
            if ty.is_empty() || !ty.chars().all(|c| c.is_ascii_alphanumeric()) {
                return None;
            }
            dims.strip_suffix(']')?
                .split(',')
                .filter(|s| !s.is_empty())
                .map(|s| s.parse().ok())
                .collect()
        })
        .collect()
}

/// 2·M·N·K (× batch) of a GEMM from its operands' sizes, by the aten
/// schemas: mm(a[M,K], b[K,N]), addmm(bias, a[M,K], b[K,N]),
/// bmm(a[B,M,K], b[B,K,N]), baddbmm(self, a[B,M,K], b[B,K,N]).
fn two_mnk(name: &str, dims: &[Vec<u64>]) -> u64 {
    let (a, b) = match name {
        "aten::mm" | "aten::bmm" => (&dims[0], &dims[1]),
        _ => (&dims[1], &dims[2]),
    };
    match a.len() {
        2 => 2 * a[0] * a[1] * b[1],
        _ => 2 * a[0] * a[1] * a[2] * b[2],
    }
}

#[test]
fn every_gemm_rows_flops_are_2mnk_of_the_raw_input_dims() {
    const GEMMS: [&str; 4] = ["aten::mm", "aten::addmm", "aten::bmm", "aten::baddbmm"];
    for name in WITH_SHAPES {
        let Some(path) = trace(name) else { return };
        // Every (op, Input Dims) the raw trace holds for a GEMM.
        let raw: Vec<(String, Vec<Vec<u64>>)> = raw_events(&path)
            .iter()
            .filter(|e| e["cat"] == "cpu_op")
            .filter(|e| GEMMS.contains(&e["name"].as_str().unwrap_or("")))
            .filter_map(|e| {
                let dims = e["args"]["Input Dims"].as_array()?;
                let dims = dims
                    .iter()
                    .map(|d| {
                        d.as_array()
                            .unwrap()
                            .iter()
                            .map(|x| x.as_u64().unwrap())
                            .collect()
                    })
                    .collect();
                Some((e["name"].as_str().unwrap().to_string(), dims))
            })
            .collect();
        let report = ops_json(&path);
        let mut rows = 0;
        for row in report["ops"].as_array().unwrap() {
            let op = row["name"].as_str().unwrap();
            if !GEMMS.contains(&op) {
                continue;
            }
            rows += 1;
            let dims: Vec<Vec<u64>> = tensor_dims(row["shapes"].as_str().unwrap())
                .into_iter()
                .map(|d| d.unwrap_or_default())
                .collect();
            // The row's shapes are a call's raw Input Dims …
            assert!(
                raw.iter().any(|(n, d)| n == op && *d == dims),
                "{name}: {op} {dims:?} is no raw call's Input Dims"
            );
            // … and its FLOPs are 2·M·N·K per launch.
            let launches = row["launches"].as_u64().unwrap();
            assert_eq!(
                row["flops"].as_u64().unwrap(),
                launches * two_mnk(op, &dims),
                "{name}: {op} {dims:?}"
            );
        }
        assert!(rows > 0, "{name}: no GEMM row");
    }
}

#[test]
fn modelled_and_unmodelled_time_sum_to_the_kernel_time_within_the_raw_bounds() {
    for name in WITH_SHAPES {
        let Some(path) = trace(name) else { return };
        let report = ops_json(&path);
        let sum = |key: &str| -> i64 {
            report[key]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r["time_ns"].as_i64().unwrap())
                .sum()
        };
        let kernel_time = report["kernel_time_ns"].as_i64().unwrap();
        assert_eq!(sum("ops") + sum("unmodelled"), kernel_time, "{name}");
        assert_eq!(sum("ops"), report["modelled_time_ns"].as_i64().unwrap());
        // From the raw kernel events: per-op unions lie between the union of
        // every kernel (per device) and the plain sum of their durations.
        let kernels: Vec<(i64, i64, i64)> = raw_events(&path)
            .iter()
            .filter(|e| e["cat"] == "kernel")
            .map(|e| {
                let ns = |v: &Value| (v.as_f64().unwrap() * 1000.0).round() as i64;
                let start = ns(&e["ts"]);
                (
                    e["args"]["device"].as_i64().unwrap_or(0),
                    start,
                    start + ns(&e["dur"]),
                )
            })
            .collect();
        assert_eq!(
            report["kernels"].as_u64().unwrap(),
            kernels.len() as u64,
            "{name}"
        );
        let plain: i64 = kernels.iter().map(|k| k.2 - k.1).sum();
        let mut sorted = kernels.clone();
        sorted.sort();
        let mut union = 0;
        let mut open: Option<(i64, i64, i64)> = None;
        for (d, s, e) in sorted {
            open = match open {
                Some((od, os, oe)) if od == d && s <= oe => Some((od, os, oe.max(e))),
                Some((_, os, oe)) => {
                    union += oe - os;
                    Some((d, s, e))
                }
                None => Some((d, s, e)),
            };
        }
        union += open.map_or(0, |(_, s, e)| e - s);
        // One ns of rounding per kernel at most (µs floats at 1.7e15).
        let slack = kernels.len() as i64;
        assert!(
            union - slack <= kernel_time && kernel_time <= plain + slack,
            "{name}: {union} ≤ {kernel_time} ≤ {plain}"
        );
    }
}

#[test]
fn the_table_of_the_mi250_trace_says_the_gpu_is_undecided_and_bounds_unknown() {
    let Some(path) = trace("kineto_hta_amd_mi250_rocm6.2.json.gz") else {
        return;
    };
    let (code, out, err) = rooftrace(&["ops", path.to_str().unwrap(), "--wide"]);
    assert_eq!(code, 0, "{err}");
    // No table GPU fits an MI250: every bound and fraction is unknown,
    // never 0.
    assert!(!out.contains(" 0.0 %"));
    insta::assert_snapshot!("ops_table_mi250", out);
}

#[test]
fn a_known_gpu_gives_each_row_its_bound_and_fraction() {
    let Some(path) = trace("kineto_hta_sampled_rank-0.json.gz") else {
        return;
    };
    let (code, json, err) = rooftrace_json(&[
        "ops",
        path.to_str().unwrap(),
        "--gpu",
        "a100-80gb",
        "--top",
        "0",
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(json["schema"], "rooftrace.ops/1");
    assert_eq!(json["flop_convention"], "rooftrace/1");
    let rows = json["ops"].as_array().unwrap();
    // An fp32 mm(a[10,327680], b[327680,606]) on an A100: 2·10·606·327680
    // = 3.97 GFLOP per call against 4·(10·327680 + 327680·606 + 10·606)
    // = 807 MB compulsory: 4.92 FLOP/B, far below the fp32 ridge (19.5
    // TFLOP/s over ~2 TB/s ≈ 10): memory-bound.
    let mm = rows
        .iter()
        .find(|r| r["name"] == "aten::mm" && r["shapes"] == "fp32[10,327680], fp32[327680,606]")
        .unwrap();
    assert_eq!(mm["bound"], "memory");
    let per_call_bytes = 4 * (10 * 327_680 + 327_680 * 606 + 10 * 606);
    assert_eq!(mm["bytes"].as_u64().unwrap(), 2 * per_call_bytes);
    let bound = mm["bound_ns"].as_f64().unwrap();
    let time = mm["time_ns"].as_f64().unwrap();
    assert!((mm["fraction_of_roof"].as_f64().unwrap() - bound / time).abs() < 1e-12);
    assert_eq!(
        mm["time_lost_ns"].as_i64().unwrap(),
        (time - bound).round() as i64
    );
    // Sorted by time lost, most first, among rows where it is known.
    let lost: Vec<i64> = rows
        .iter()
        .filter_map(|r| r["time_lost_ns"].as_i64())
        .collect();
    assert!(lost.windows(2).all(|w| w[0] >= w[1]));
}

#[test]
fn an_nsys_export_and_roofs_ncu_are_refused_with_exit_2() {
    let export = fixture("nsys/nsys2022.2.1_pipit_saxpy-mpi-cuda.sqlite");
    let (code, _, err) = rooftrace(&["ops", export.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("reads PyTorch profiler traces"), "{err}");
    let Some(path) = trace("kineto_hta_amd_mi250_rocm6.2.json.gz") else {
        return;
    };
    let (code, _, err) = rooftrace(&["ops", path.to_str().unwrap(), "--roofs", "ncu"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--gpu KEY"), "{err}");
}
