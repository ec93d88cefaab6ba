//! `rooftrace ops` on what the corpus traces do not hold, from synthetic
//! Kineto traces written here (events as PyTorch's profiler writes them):
//! a collective with its own keys on an A100's NVLink, a CUDA graph's
//! replay, torch.compile kernels with and without Inductor's annotation;
//! and the coverage of every corpus trace with shapes.

use crate::common::{corpus_file, rooftrace_json};
use serde_json::{json, Value};

/// A trace of two A100-SXM4-40GB devices (rank 0 of 2) with `events`.
fn write_trace(dir: &tempfile::TempDir, events: Vec<Value>) -> std::path::PathBuf {
    let device = |id: i64| {
        json!({"id": id, "name": "NVIDIA A100-SXM4-40GB", "computeMajor": 8,
               "computeMinor": 0, "numSms": 108, "totalGlobalMem": 42_505_273_344u64})
    };
    let doc = json!({
        "schemaVersion": 1,
        "distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 2},
        "deviceProperties": [device(0), device(1)],
        "traceEvents": events,
    });
    let path = dir.path().join("synthetic.pt.trace.json");
    std::fs::write(&path, serde_json::to_vec(&doc).unwrap()).unwrap();
    path
}

/// A host event of category `cat` on thread 1, µs.
fn host(cat: &str, name: &str, ts: f64, dur: f64, args: Value) -> Value {
    json!({"ph": "X", "cat": cat, "name": name, "pid": 1, "tid": 1, "ts": ts, "dur": dur, "args": args})
}

/// A kernel on device 0, stream 7, µs.
fn kernel(name: &str, correlation: u64, ts: f64, dur: f64) -> Value {
    json!({"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": 7, "ts": ts, "dur": dur,
           "args": {"correlation": correlation, "device": 0, "stream": 7}})
}

/// A launch call with `correlation`, µs.
fn launch(name: &str, correlation: u64, ts: f64) -> Value {
    host(
        "cuda_runtime",
        name,
        ts,
        1.0,
        json!({"correlation": correlation}),
    )
}

fn ops(path: &std::path::Path) -> Value {
    let (code, json, err) = rooftrace_json(&["ops", path.to_str().unwrap(), "--top", "0"]);
    assert_eq!(code, 0, "{err}");
    json
}

fn row<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["ops"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == name)
        .unwrap_or_else(|| panic!("no row {name}: {report:#}"))
}

/// record_param_comms as PyTorch 2.2+ writes it (no Input Dims): an
/// all-reduce of 1,000,000 FP32 over ranks [0, 1], its NCCL kernel 20 µs.
fn all_reduce_trace(dir: &tempfile::TempDir) -> std::path::PathBuf {
    let keys = json!({"Collective name": "allreduce", "In msg nelems": 1_000_000,
        "Out msg nelems": 1_000_000, "dtype": "Float", "Group size": 2,
        "Process Group Ranks": "[0, 1]"});
    write_trace(
        dir,
        vec![
            host("cpu_op", "record_param_comms", 100.0, 10.0, keys),
            launch("cudaLaunchKernel", 5, 102.0),
            kernel(
                "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)",
                5,
                110.0,
                20.0,
            ),
        ],
    )
}

#[test]
fn a_collective_with_its_own_keys_is_bound_by_its_bus_bytes_over_nvlink() {
    // record_param_comms as PyTorch 2.2+ writes it (no Input Dims): an
    // all-reduce of 1,000,000 FP32 over ranks [0, 1]. nccl-tests: size
    // 4,000,000 B, bus factor 2·(2−1)/2 = 1. Two devices listed and the
    // NCCL kernel on device 0 = rank 0 mod 2: one node of 2 GPUs, so the
    // A100's NVLink 3: 300 GB/s per direction (datasheet: 600 GB/s both
    // ways). Bound 4e6 / 300e9 s = 13,333.3 ns; the kernel took 20 µs.
    let dir = tempfile::tempdir().unwrap();
    let path = all_reduce_trace(&dir);
    let report = ops(&path);
    let r = row(&report, "record_param_comms");
    assert_eq!(r["model"], "collective");
    assert_eq!(r["bytes"], 4_000_000);
    assert_eq!(r["bound"], "link");
    assert!(r["intensity_flop_per_byte"].is_null(), "{r}");
    let bound = r["bound_ns"].as_f64().unwrap();
    assert!((bound - 4e6 / 300e9 * 1e9).abs() < 1e-6, "{bound}");
    assert_eq!(r["time_ns"], 20_000);
    assert!(r["shapes"]
        .as_str()
        .unwrap()
        .contains("all_reduce 4000000 B, group 2"));
}

#[test]
fn a_collective_shows_its_link_in_json_by_kernel_and_stays_off_the_dram_plot() {
    // The all-reduce above: 4,000,000 bus bytes over NVLink 3's 300 GB/s.
    let dir = tempfile::tempdir().unwrap();
    let path = all_reduce_trace(&dir);
    let report = ops(&path);
    let r = row(&report, "record_param_comms");
    let link = &r["link"];
    assert_eq!(link["kind"], "all_reduce", "{r}");
    assert_eq!(link["kind_from"], "op");
    assert_eq!(link["group_size"], 2);
    assert_eq!(link["bus_bytes"].as_f64(), Some(4e6));
    assert_eq!(link["link_bytes_per_s"].as_f64(), Some(300e9));
    // Its bytes cross the link, not DRAM: never above the DRAM roof.
    assert_eq!(r["above_memory_roof"], false);
    // By kernel: one row under the NCCL kernel's name, the same bound.
    let (code, by_kernel, err) = rooftrace_json(&[
        "ops",
        path.to_str().unwrap(),
        "--top",
        "0",
        "--group-by",
        "kernel",
    ]);
    assert_eq!(code, 0, "{err}");
    let k = &by_kernel["ops"][0];
    assert!(
        k["name"]
            .as_str()
            .unwrap()
            .starts_with("ncclKernel_AllReduce"),
        "{k}"
    );
    assert_eq!(k["shapes"], "record_param_comms");
    assert_eq!(k["bound"], "link");
    assert_eq!(k["bound_ns"], r["bound_ns"]);
    assert_eq!(k["link"]["bus_bytes"].as_f64(), Some(4e6));
    // The plot: no intensity, so not drawn, and the bottom line says why.
    let svg = dir.path().join("ops.svg");
    let (code, _, err) = crate::common::rooftrace(&[
        "ops",
        path.to_str().unwrap(),
        "--plot",
        svg.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(&svg).unwrap();
    // (The bottom line is cut to the chart's width.)
    assert!(
        text.contains("1 of 1 op shapes not drawn: a collective, bound"),
        "{text}"
    );
}

#[test]
fn a_graph_replay_s_kernels_are_counted_with_their_reason_not_charged_to_the_op_around() {
    // An aten::mm with shapes around a cudaGraphLaunch whose three kernels
    // (5 + 7 + 11 µs, apart) share its correlation: they are the graph's,
    // not the mm's. The mm's own kernel (4 µs) is the mm's.
    let dir = tempfile::tempdir().unwrap();
    let mm_args = json!({"Input Dims": [[64, 128], [128, 32]], "Input type": ["float", "float"]});
    let path = write_trace(
        &dir,
        vec![
            host("cpu_op", "aten::mm", 100.0, 50.0, mm_args),
            launch("cudaLaunchKernel", 1, 101.0),
            launch("cudaGraphLaunch", 2, 110.0),
            kernel("volta_sgemm_128x64_nn", 1, 200.0, 4.0),
            kernel("triton_poi_fused_0", 2, 210.0, 5.0),
            kernel("triton_poi_fused_1", 2, 220.0, 7.0),
            kernel("triton_red_fused_2", 2, 230.0, 11.0),
        ],
    );
    let report = ops(&path);
    assert_eq!(row(&report, "aten::mm")["kernels"], 1);
    assert_eq!(row(&report, "aten::mm")["time_ns"], 4_000);
    let replay = report["unmodelled"]
        .as_array()
        .unwrap()
        .iter()
        .find(|u| {
            u["reason"]
                .as_str()
                .unwrap()
                .starts_with("no shapes (graph replay)")
        })
        .unwrap_or_else(|| panic!("{report:#}"));
    assert_eq!(replay["kernels"], 3);
    assert_eq!(replay["time_ns"], 23_000);
    assert_eq!(report["kernels"], 4);
    assert_eq!(report["kernel_time_ns"], 27_000);
}

#[test]
fn inductor_s_annotation_is_used_as_given_and_a_kernel_without_one_is_not_guessed() {
    // Inductor's profiler event of a Triton kernel with kernel_flop 0 and
    // kernel_num_gb 0.004 (4,000,000 B) over an FP32 [1000, 1000]: memory
    // bound at the A100-40GB's 1,555 GB/s (the datasheet's HBM2): 4e6 /
    // 1.555e12 s = 2,572.3 ns. A second Triton kernel whose event has no
    // annotation and no shapes stays unmodelled.
    let dir = tempfile::tempdir().unwrap();
    let annotated = json!({"kernel_backend": "triton", "kernel_flop": 0, "kernel_num_gb": 0.004,
        "Input Dims": [[1000, 1000], [1000, 1000]], "Input type": ["float", "float"]});
    let path = write_trace(
        &dir,
        vec![
            host("cpu_op", "triton_poi_fused_add_0", 100.0, 10.0, annotated),
            launch("cuLaunchKernel", 1, 101.0),
            host(
                "cpu_op",
                "triton_red_fused_sum_1",
                120.0,
                10.0,
                json!({"kernel_backend": "triton"}),
            ),
            launch("cuLaunchKernel", 2, 121.0),
            kernel("triton_poi_fused_add_0", 1, 200.0, 5.0),
            kernel("triton_red_fused_sum_1", 2, 210.0, 6.0),
        ],
    );
    let report = ops(&path);
    let r = row(&report, "triton_poi_fused_add_0");
    assert_eq!(r["model"], "inductor_annotation");
    assert_eq!(
        (r["flops"].as_u64(), r["bytes"].as_u64()),
        (Some(0), Some(4_000_000))
    );
    assert_eq!(r["bound"], "memory");
    let bound = r["bound_ns"].as_f64().unwrap();
    assert!((bound - 4e6 / 1.555e12 * 1e9).abs() < 1e-6, "{bound}");
    assert!(report["ops"]
        .as_array()
        .unwrap()
        .iter()
        .all(|r| r["name"] != "triton_red_fused_sum_1"));
    assert_eq!(report["modelled_time_ns"], 5_000);
    assert_eq!(report["kernel_time_ns"], 11_000);
}

/// The coverage each corpus trace with shapes reaches, and why not more:
/// sampled rank-0 and rank-1 (PyTorch 2.0, DLRM with fbgemm and NCCL) and
/// the MI250 trace. Every uncovered kernel has its reason.
#[test]
fn the_corpus_traces_with_shapes_are_at_least_80_percent_modelled() {
    for name in [
        "kineto_hta_sampled_rank-0.json.gz",
        "kineto_hta_sampled_rank-1.json.gz",
        "kineto_hta_amd_mi250_rocm6.2.json.gz",
    ] {
        let Some(path) = corpus_file(&format!("kineto/{name}")) else {
            return;
        };
        let report = ops(&path);
        let coverage = report["coverage"].as_f64().unwrap();
        assert!(coverage >= 0.80, "{name}: {coverage}");
        for u in report["unmodelled"].as_array().unwrap() {
            assert!(!u["reason"].as_str().unwrap().is_empty(), "{name}: {u}");
        }
    }
}
