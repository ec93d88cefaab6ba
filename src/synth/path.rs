//! PyTorch profiler (Kineto) traces whose steps' critical path is known by
//! construction, the independent oracle for `rooftrace path`
//! (docs/path.md): each scene places its runtime calls, kernels and
//! `ProfilerStep#N` annotations at integer µs, so the path's parts and each
//! what-if's saving follow from the contract's rules by hand.
//!
//! Every scene is [`STEPS`] identical steps, step `k` starting at
//! [`step_base_us`]`(k)`; each scene's doc gives its step as offsets (µs)
//! from that start. The host process is [`HOST_PID`] (thread
//! [`HOST_PID`]), the GPU device 0, an `NVIDIA A100-SXM4-80GB` in
//! `deviceProperties`. Launch calls are `cudaLaunchKernel`, joined to their
//! kernel by `args.correlation`; a GEMM's `aten::mm` `cpu_op` holds its
//! launch call and records `Input Dims` and `Input type` (bf16), so the op
//! models bound it.

use serde_json::{json, Map, Value};

/// Steps in every scene.
pub const STEPS: i64 = 3;
/// Host process (and thread) of a single-rank scene; rank `r` of
/// [`straggler`] is `HOST_PID + r`.
pub const HOST_PID: i64 = 100;
/// Length of each `ProfilerStep#N` annotation, µs: it holds every launch
/// call of its step.
pub const STEP_ANNOTATION_US: i64 = 200;

/// The start of step `k` (its `ProfilerStep#k` annotation), µs: 1 ms
/// apart, so no step's GPU work runs into the next one.
pub fn step_base_us(k: i64) -> i64 {
    1_000 + 1_000 * k
}

/// The names of the scenes, as [`scene`] takes them.
pub const SCENES: [&str; 10] = [
    "host_bound",
    "hidden_kernel",
    "device_sync",
    "gemm_roofs",
    "cross_stream",
    "straggler",
    "overlapping_gains",
    "blocking_copy",
    "graph_replays",
    "orphan_kernel",
];

/// The trace documents of scene `name` (one per rank), `None` for a name
/// not in [`SCENES`].
pub fn scene(name: &str) -> Option<Vec<Value>> {
    let one = |t: PathTrace| vec![t.to_value()];
    Some(match name {
        "host_bound" => one(host_bound()),
        "hidden_kernel" => one(hidden_kernel()),
        "device_sync" => one(device_sync()),
        "gemm_roofs" => one(gemm_roofs()),
        "cross_stream" => one(cross_stream()),
        "straggler" => straggler().into_iter().map(|t| t.to_value()).collect(),
        "overlapping_gains" => one(overlapping_gains()),
        "blocking_copy" => one(blocking_copy()),
        "graph_replays" => one(graph_replays()),
        "orphan_kernel" => one(orphan_kernel()),
        _ => return None,
    })
}

/// The compute-bound GEMM: `aten::mm` bf16, M = 3914 (2·19·103), N = 4800
/// (3·5²·64), K = 4096. On the a100-80gb row (bf16 tensor 293.55 TFLOP/s,
/// DRAM 1682.5 GB/s, measured) T* = 2·M·N·K / 293,550 FLOP/ns = 524,288 ns
/// exactly (DRAM side 108,959,488 B / 1682.5 B/ns = 64,760.3 ns).
pub const GEMM_COMPUTE: Gemm = Gemm {
    m: 3914,
    n: 4800,
    k: 4096,
};
/// The memory-bound GEMM: M = 16, N = 1097, K = 4096; bytes 2·(M·K + K·N +
/// M·N) = 9,152,800, T* = 9,152,800 / 1682.5 = 5,440 ns exactly (compute
/// side 489.8 ns).
pub const GEMM_MEMORY: Gemm = Gemm {
    m: 16,
    n: 1097,
    k: 4096,
};
/// A GEMM too small for its roofs: M = N = K = 16, 1,536 B (0.9 ns): at
/// its roof it takes the kernel floor (2,000 ns).
pub const GEMM_TINY: Gemm = Gemm {
    m: 16,
    n: 16,
    k: 16,
};

/// A bf16 `aten::mm` of `[m, k] × [k, n]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Gemm {
    /// Rows of A and C.
    pub m: u64,
    /// Columns of B and C.
    pub n: u64,
    /// The shared dimension.
    pub k: u64,
}

/// A Kineto trace built event by event at integer µs (Kineto's unit): one
/// host process and thread, device 0.
#[derive(Debug, Clone)]
pub struct PathTrace {
    pid: i64,
    next_correlation: i64,
    top: Map<String, Value>,
    events: Vec<Value>,
}

impl PathTrace {
    /// An empty trace of host process (and thread) `pid` on an
    /// A100-SXM4-80GB.
    pub fn new(pid: i64) -> PathTrace {
        let mut top = Map::new();
        top.insert("schemaVersion".into(), Value::from(1));
        top.insert(
            "deviceProperties".into(),
            json!([{"id": 0, "name": "NVIDIA A100-SXM4-80GB", "computeMajor": 8,
                "computeMinor": 0, "numSms": 108, "totalGlobalMem": 85_089_746_944_u64}]),
        );
        PathTrace {
            pid,
            next_correlation: 1,
            top,
            events: Vec::new(),
        }
    }

    /// Records `distributedInfo` (NCCL): rank `rank` of `world_size`.
    pub fn distributed(mut self, rank: u32, world_size: u32) -> PathTrace {
        let info = json!({"backend": "nccl", "rank": rank, "world_size": world_size});
        self.top.insert("distributedInfo".into(), info);
        self
    }

    fn host(&mut self, cat: &str, name: &str, (start_us, dur_us): (i64, i64), args: Value) {
        self.events
            .push(json!({"ph": "X", "cat": cat, "name": name, "pid": self.pid,
            "tid": self.pid, "ts": start_us, "dur": dur_us, "args": args}));
    }

    /// A `user_annotation` (`ProfilerStep#N`) `[start, start + dur)` µs.
    pub fn annotation(&mut self, name: &str, start_us: i64, dur_us: i64) {
        self.host("user_annotation", name, (start_us, dur_us), json!({}));
    }

    /// An `aten::mm` `cpu_op` with the shapes of `gemm` in bf16.
    pub fn mm_op(&mut self, gemm: Gemm, start_us: i64, dur_us: i64) {
        let args = json!({
            "Input Dims": [[gemm.m, gemm.k], [gemm.k, gemm.n]],
            "Input type": ["c10::BFloat16", "c10::BFloat16"],
        });
        self.host("cpu_op", "aten::mm", (start_us, dur_us), args);
    }

    /// A CUDA runtime call on the host thread with the next correlation
    /// id; returns it.
    pub fn call(&mut self, name: &str, start_us: i64, dur_us: i64) -> i64 {
        let correlation = self.next_correlation;
        self.next_correlation += 1;
        let args = json!({"correlation": correlation, "External id": correlation});
        self.host("cuda_runtime", name, (start_us, dur_us), args);
        correlation
    }

    /// A kernel on device 0, `stream`, joined to the call `correlation`,
    /// with `extra` arguments (a collective's).
    pub fn kernel(&mut self, name: &str, correlation: i64, at: GpuAt, extra: Map<String, Value>) {
        let mut args = extra;
        args.insert("device".into(), Value::from(0));
        args.insert("stream".into(), Value::from(at.stream));
        args.insert("correlation".into(), Value::from(correlation));
        args.insert("External id".into(), Value::from(correlation));
        self.events
            .push(json!({"ph": "X", "cat": "kernel", "name": name, "pid": 0,
            "tid": at.stream, "ts": at.start_us, "dur": at.dur_us, "args": Value::Object(args)}));
    }

    /// A kernel whose launch call is not in the trace (as a profiler
    /// drops one): its correlation id joins nothing.
    pub fn kernel_without_call(&mut self, name: &str, at: GpuAt) {
        let correlation = self.next_correlation;
        self.next_correlation += 1;
        self.kernel(name, correlation, at, Map::new());
    }

    /// A `cudaLaunchKernel` call `[call_us, call_us + call_dur_us)` and its
    /// kernel at `at`.
    pub fn launch(&mut self, kernel: &str, (call_us, call_dur_us): (i64, i64), at: GpuAt) {
        let correlation = self.call("cudaLaunchKernel", call_us, call_dur_us);
        self.kernel(kernel, correlation, at, Map::new());
    }

    /// A device-to-host copy of `bytes` into pinned memory on device 0,
    /// joined to the call `correlation`.
    pub fn copy_to_host(&mut self, correlation: i64, at: GpuAt, bytes: u64) {
        self.events.push(json!({"ph": "X", "cat": "gpu_memcpy",
            "name": "Memcpy DtoH (Device -> Pinned)", "pid": 0, "tid": at.stream,
            "ts": at.start_us, "dur": at.dur_us, "args": {"device": 0, "stream": at.stream,
                "correlation": correlation, "External id": correlation, "bytes": bytes}}));
    }

    /// `cudaStreamWaitEvent` `[start, start + dur)` µs making `stream` wait
    /// for the event recorded by call `recorded` on `on_stream`, with the
    /// `cuda_sync` record PyTorch writes on the waiting stream's row.
    pub fn wait_event(&mut self, (start_us, dur_us): (i64, i64), stream: i64, on: (i64, i64)) {
        let (on_stream, recorded) = on;
        let correlation = self.call("cudaStreamWaitEvent", start_us, dur_us);
        self.events.push(
            json!({"ph": "X", "cat": "cuda_sync", "name": "Stream Wait Event",
            "pid": 0, "tid": stream, "ts": start_us, "dur": 0, "args": {
                "cuda_sync_kind": "Stream Wait Event", "device": 0, "stream": stream,
                "correlation": correlation, "wait_on_stream": on_stream,
                "wait_on_cuda_event_record_corr_id": recorded}}),
        );
    }

    /// The trace as a JSON document.
    pub fn to_value(&self) -> Value {
        let mut top = self.top.clone();
        top.insert("traceEvents".into(), Value::Array(self.events.clone()));
        Value::Object(top)
    }
}

/// Where a GPU op runs: stream and `[start, start + dur)` µs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GpuAt {
    /// Stream (device 0).
    pub stream: i64,
    /// Start, µs.
    pub start_us: i64,
    /// Duration, µs.
    pub dur_us: i64,
}

/// Stream `stream`, `[start, start + dur)` µs.
pub fn on(stream: i64, start_us: i64, dur_us: i64) -> GpuAt {
    GpuAt {
        stream,
        start_us,
        dur_us,
    }
}

/// A trace of [`STEPS`] steps, `step` placing one at its base µs.
fn steps(pid: i64, mut step: impl FnMut(&mut PathTrace, i64)) -> PathTrace {
    let mut t = PathTrace::new(pid);
    for k in 0..STEPS {
        let b = step_base_us(k);
        t.annotation(&format!("ProfilerStep#{k}"), b, STEP_ANNOTATION_US);
        step(&mut t, b);
    }
    t
}

/// (a) One stream, host-bound: each launch comes after the previous
/// kernel ended. Offsets from the step start, µs (stream 7):
///
/// | call (5 µs each) | kernel (10 µs each) |
/// |---|---|
/// | `[10, 15]` | `k_host_a` `[15, 25]` |
/// | `[40, 45]` | `k_host_b` `[45, 55]` |
/// | `[70, 75]` | `k_host_c` `[75, 85]` |
///
/// Host work between calls: 25 µs; launch latency: 5 µs.
pub fn host_bound() -> PathTrace {
    steps(HOST_PID, |t, b| {
        for (i, name) in ["k_host_a", "k_host_b", "k_host_c"].iter().enumerate() {
            let call = b + 10 + 30 * i as i64;
            t.launch(name, (call, 5), on(7, call + 5, 10));
        }
    })
}

/// (b) Two streams, a kernel on stream 8 hidden under stream 7's work.
/// Offsets, µs:
///
/// | host | GPU |
/// |---|---|
/// | call `[10, 15]` | `k_long` stream 7 `[20, 120]` |
/// | `aten::mm` `[18, 27]` ([`GEMM_MEMORY`]), call `[20, 25]` | `k_hidden` stream 8 `[30, 70]` |
/// | call `[30, 35]` | `k_tail` stream 7 `[120, 150]` (queued behind `k_long`) |
///
/// Only `k_hidden` has a bound (5,440 ns).
pub fn hidden_kernel() -> PathTrace {
    steps(HOST_PID, |t, b| {
        t.launch("k_long", (b + 10, 5), on(7, b + 20, 100));
        t.mm_op(GEMM_MEMORY, b + 18, 9);
        t.launch("k_hidden", (b + 20, 5), on(8, b + 30, 40));
        t.launch("k_tail", (b + 30, 5), on(7, b + 120, 30));
    })
}

/// (c) A `cudaDeviceSynchronize` mid-step, then more launches. Offsets,
/// µs (stream 7):
///
/// | host | GPU |
/// |---|---|
/// | call `[10, 15]` | `k_before_sync` `[20, 120]` |
/// | `cudaDeviceSynchronize` `[22, 125]` (returns 5 µs after the kernel) | |
/// | call `[135, 140]` (10 µs host work after the sync) | `k_after_sync` `[145, 165]` |
pub fn device_sync() -> PathTrace {
    steps(HOST_PID, |t, b| {
        t.launch("k_before_sync", (b + 10, 5), on(7, b + 20, 100));
        t.call("cudaDeviceSynchronize", b + 22, 103);
        t.launch("k_after_sync", (b + 135, 5), on(7, b + 145, 20));
    })
}

/// (d) GEMMs with shapes, one stream, GPU-bound. Offsets, µs (stream 7):
///
/// | host | GPU |
/// |---|---|
/// | `aten::mm` `[8, 17]` ([`GEMM_COMPUTE`]), call `[10, 15]` | `gemm_compute` `[20, 620]` |
/// | `aten::mm` `[18, 27]` ([`GEMM_MEMORY`]), call `[20, 25]` | `gemm_memory` `[620, 629]` |
/// | `aten::mm` `[28, 37]` ([`GEMM_TINY`]), call `[30, 35]` | `gemm_tiny` `[629, 634]` |
/// | call `[40, 45]` (no op with shapes) | `elementwise` `[634, 654]` |
pub fn gemm_roofs() -> PathTrace {
    steps(HOST_PID, |t, b| {
        t.mm_op(GEMM_COMPUTE, b + 8, 9);
        t.launch("gemm_compute", (b + 10, 5), on(7, b + 20, 600));
        t.mm_op(GEMM_MEMORY, b + 18, 9);
        t.launch("gemm_memory", (b + 20, 5), on(7, b + 620, 9));
        t.mm_op(GEMM_TINY, b + 28, 9);
        t.launch("gemm_tiny", (b + 30, 5), on(7, b + 629, 5));
        t.launch("elementwise", (b + 40, 5), on(7, b + 634, 20));
    })
}

/// (e) Stream 8 waits on stream 7 (`cudaEventRecord`, then
/// `cudaStreamWaitEvent`). Offsets, µs:
///
/// | host | GPU |
/// |---|---|
/// | `aten::mm` `[8, 17]` ([`GEMM_COMPUTE`]), call `[10, 15]` | `gemm_producer` stream 7 `[20, 620]` |
/// | `cudaEventRecord` `[20, 25]` (stream 7) | |
/// | `cudaStreamWaitEvent` `[30, 35]` (stream 8 on that event) | |
/// | call `[40, 45]` | `k_consumer` stream 8 `[625, 655]` |
pub fn cross_stream() -> PathTrace {
    steps(HOST_PID, |t, b| {
        t.mm_op(GEMM_COMPUTE, b + 8, 9);
        t.launch("gemm_producer", (b + 10, 5), on(7, b + 20, 600));
        let recorded = t.call("cudaEventRecord", b + 20, 5);
        t.wait_event((b + 30, 5), 8, (7, recorded));
        t.launch("k_consumer", (b + 40, 5), on(8, b + 625, 30));
    })
}

/// (g) Two changes that buy the same time: stream 7's path ends after a
/// GPU gap, and stream 8's independent kernel (no stream wait: no
/// cross-stream edge) ends 30 µs before it. Offsets, µs:
///
/// | host | GPU |
/// |---|---|
/// | `aten::mm` `[8, 17]` ([`GEMM_COMPUTE`]), call `[10, 15]` | `gemm_compute` stream 7 `[20, 620]` |
/// | call `[20, 25]` | `k_after_gap` stream 7 `[650, 670]` (30 µs after `gemm_compute`) |
/// | call `[30, 35]` | `k_side` stream 8 `[50, 640]` |
///
/// Closing the gap or running `gemm_compute` at its roof each end
/// stream 7 before `k_side`: each saves 30 µs, and both together no more.
pub fn overlapping_gains() -> PathTrace {
    steps(HOST_PID, |t, b| {
        t.mm_op(GEMM_COMPUTE, b + 8, 9);
        t.launch("gemm_compute", (b + 10, 5), on(7, b + 20, 600));
        t.launch("k_after_gap", (b + 20, 5), on(7, b + 650, 20));
        t.launch("k_side", (b + 30, 5), on(8, b + 50, 590));
    })
}

/// (h) A blocking copy (`cudaMemcpy`, as `tensor.item()` makes): a sync
/// and a launch at once. Offsets, µs (stream 7):
///
/// | host | GPU |
/// |---|---|
/// | call `[10, 15]` | `k_before_copy` `[20, 120]` |
/// | `cudaMemcpy` `[25, 135]` (returns 5 µs after its copy) | copy DtoH 4 MB `[120, 130]` (queued) |
/// | call `[145, 150]` (10 µs host work after the copy returned) | `k_after_copy` `[155, 175]` |
pub fn blocking_copy() -> PathTrace {
    steps(HOST_PID, |t, b| {
        t.launch("k_before_copy", (b + 10, 5), on(7, b + 20, 100));
        let correlation = t.call("cudaMemcpy", b + 25, 110);
        t.copy_to_host(correlation, on(7, b + 120, 10), 4_000_000);
        t.launch("k_after_copy", (b + 145, 5), on(7, b + 155, 20));
    })
}

/// (i) Two CUDA-graph replays with host work between them: each
/// `cudaGraphLaunch` launches three kernels (one correlation id, as
/// Kineto writes a replay's kernels). Offsets, µs (stream 7):
///
/// | host | GPU |
/// |---|---|
/// | `cudaGraphLaunch` `[10, 20]` | `graph_a_0..2` `[25, 35]`, `[35, 45]`, `[45, 55]` |
/// | `cudaGraphLaunch` `[80, 90]` (60 µs host work) | `graph_b_0..2` `[95, 105]`, `[105, 115]`, `[115, 125]` |
pub fn graph_replays() -> PathTrace {
    steps(HOST_PID, |t, b| {
        for (replay, call) in [("graph_a", b + 10), ("graph_b", b + 80)] {
            let correlation = t.call("cudaGraphLaunch", call, 10);
            for i in 0..3 {
                let at = on(7, call + 15 + 10 * i, 10);
                t.kernel(&format!("{replay}_{i}"), correlation, at, Map::new());
            }
        }
    })
}

/// (j) A kernel without its launch call on the path: the walk runs out of
/// predecessors inside the window. Step `k` uses stream `10 + k` for it,
/// so nothing of an earlier step precedes it. Offsets, µs:
///
/// | host | GPU |
/// |---|---|
/// | call `[10, 15]` | `k_first` stream 7 `[20, 40]` |
/// | (no call) | `k_orphan` stream `10 + k` `[30, 100]` |
/// | call `[45, 50]` | `k_last` stream `10 + k` `[100, 120]` (queued behind `k_orphan`) |
pub fn orphan_kernel() -> PathTrace {
    let mut k = 0;
    steps(HOST_PID, |t, b| {
        t.launch("k_first", (b + 10, 5), on(7, b + 20, 20));
        t.kernel_without_call("k_orphan", on(10 + k, b + 30, 70));
        t.launch("k_last", (b + 45, 5), on(10 + k, b + 100, 20));
        k += 1;
    })
}

/// The all-reduce of [`straggler`]'s steps: NCCL, bf16, 7,500,000
/// elements (15 MB), ranks 0 and 1.
pub const ALL_REDUCE_KERNEL: &str =
    "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevComm*, unsigned long, ncclWork*)";

fn all_reduce_args() -> Map<String, Value> {
    let mut a = Map::new();
    a.insert("Collective name".into(), "allreduce".into());
    a.insert("In msg nelems".into(), 7_500_000.into());
    a.insert("Out msg nelems".into(), 7_500_000.into());
    a.insert("dtype".into(), "BFloat16".into());
    a.insert("Group size".into(), 2.into());
    a.insert("Process Group Ranks".into(), "[0, 1]".into());
    a.insert("Process Group Name".into(), "0".into());
    a
}

/// (f) Two ranks (process 100 rank 0, process 101 rank 1, one clock), one
/// all-reduce per step; rank 1's compute is 50 µs longer, so it arrives
/// late and rank 0 waits. Offsets, µs, on each rank:
///
/// | host | rank 0 | rank 1 |
/// |---|---|---|
/// | call `[10, 15]` | `k_compute` stream 7 `[20, 100]` | `[20, 150]` |
/// | `cudaEventRecord` `[20, 25]`, `cudaStreamWaitEvent` `[30, 35]` (stream 20 on 7) | | |
/// | call `[40, 45]` | all-reduce stream 20 `[100, 250]` | `[150, 250]` |
///
/// Both all-reduces end at 250 µs: the transfer is the last 100 µs, after
/// the last rank (rank 1) arrived at 150.
pub fn straggler() -> [PathTrace; 2] {
    let rank = |r: i64, compute_us: i64| {
        steps(HOST_PID + r, |t, b| {
            t.launch("k_compute", (b + 10, 5), on(7, b + 20, compute_us));
            let recorded = t.call("cudaEventRecord", b + 20, 5);
            t.wait_event((b + 30, 5), 20, (7, recorded));
            let correlation = t.call("cudaLaunchKernel", b + 40, 5);
            let start = b + 20 + compute_us;
            let at = on(20, start, b + 250 - start);
            t.kernel(ALL_REDUCE_KERNEL, correlation, at, all_reduce_args());
        })
        .distributed(r as u32, 2)
    };
    [rank(0, 80), rank(1, 130)]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_scene_has_its_steps_and_every_gpu_op_its_launch_call_but_the_orphan() {
        for name in SCENES {
            let docs = scene(name).unwrap();
            for doc in &docs {
                let events = doc["traceEvents"].as_array().unwrap();
                let steps = events
                    .iter()
                    .filter(|e| e["name"].as_str().unwrap().starts_with("ProfilerStep#"))
                    .count();
                assert_eq!(steps as i64, STEPS, "{name}");
                // orphan_kernel's k_orphan lacks its call on purpose.
                let gpu = |e: &&Value| {
                    (e["cat"] == "kernel" || e["cat"] == "gpu_memcpy") && e["name"] != "k_orphan"
                };
                for k in events.iter().filter(gpu) {
                    let c = &k["args"]["correlation"];
                    assert!(
                        events
                            .iter()
                            .any(|e| e["cat"] == "cuda_runtime" && &e["args"]["correlation"] == c),
                        "{name}: kernel {} has no launch call",
                        k["name"]
                    );
                }
            }
        }
        assert!(scene("nope").is_none());
    }

    #[test]
    fn the_gemm_bounds_are_whole_nanoseconds_at_the_a100_80gb_roofs() {
        // 293.55 TFLOP/s = 293,550 FLOP/ns; 1682.5 GB/s: ns = 2·bytes / 3365.
        let flop = |g: Gemm| 2 * g.m * g.n * g.k;
        let bytes = |g: Gemm| 2 * (g.m * g.k + g.k * g.n + g.m * g.n);
        assert_eq!(flop(GEMM_COMPUTE) % 293_550, 0);
        assert_eq!(flop(GEMM_COMPUTE) / 293_550, 524_288);
        assert!(2 * bytes(GEMM_COMPUTE) / 3365 < 524_288);
        assert_eq!(2 * bytes(GEMM_MEMORY) % 3365, 0);
        assert_eq!(2 * bytes(GEMM_MEMORY) / 3365, 5_440);
        assert!(flop(GEMM_MEMORY) / 293_550 < 5_440);
        assert!(2 * bytes(GEMM_TINY) / 3365 < 2_000);
    }
}
