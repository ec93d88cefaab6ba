//! A large Kineto trace from a real one: its events repeated `reps` times,
//! each copy shifted in time by the trace's span (plus 1 ms) and its ids
//! (`correlation`, `External id`, flow `id`) by the largest id + 1, so the
//! copies never overlap or share a launch. Metadata (`ph: M`) is written
//! once. What the nsys generator does for SQLite, for the benchmark against
//! HTA (`docs/bench-kineto.md`).

use serde_json::{Map, Number, Value};
use std::io::Write;

/// Writes `reps` shifted copies of the events of `trace` (a Kineto JSON
/// document) to `out` as one trace; returns the events written.
pub fn repeat_trace(trace: &Value, reps: u32, out: &mut impl Write) -> std::io::Result<u64> {
    let events = trace["traceEvents"].as_array().cloned().unwrap_or_default();
    let copies = Copies::of(&events);
    let mut head = Map::new();
    if let Some(top) = trace.as_object() {
        for (k, v) in top.iter().filter(|(k, _)| *k != "traceEvents") {
            head.insert(k.clone(), v.clone());
        }
    }
    let head = serde_json::to_string(&Value::Object(head))?;
    out.write_all(&head.as_bytes()[..head.len() - 1])?;
    out.write_all(if head.len() > 2 {
        b",\"traceEvents\":[\n"
    } else {
        b"\"traceEvents\":[\n"
    })?;
    let mut n = 0u64;
    for r in 0..i64::from(reps) {
        for e in &events {
            if r > 0 && e["ph"] == "M" {
                continue;
            }
            let mut e = e.clone();
            copies.shift(&mut e, r);
            if n > 0 {
                out.write_all(b",\n")?;
            }
            serde_json::to_writer(&mut *out, &e)?;
            n += 1;
        }
    }
    out.write_all(b"\n]}\n")?;
    Ok(n)
}

/// How copy `r` of a trace's events is shifted: by `r` periods in time
/// (the events' span plus 1 µs, so copies never overlap) and by `r`
/// strides in ids (one past the largest id, so ids never collide).
#[derive(Debug, Clone, Copy)]
pub struct Copies {
    /// First event start, µs.
    pub lo_us: f64,
    /// Last event end, µs.
    pub hi_us: f64,
    period: i64,
    stride: i64,
}

impl Copies {
    /// The span and largest id of `events`.
    pub fn of(events: &[Value]) -> Copies {
        let (mut lo, mut hi, mut max_id) = (f64::MAX, f64::MIN, 0i64);
        for e in events {
            if let Some(ts) = e["ts"].as_f64() {
                lo = lo.min(ts);
                hi = hi.max(ts + e["dur"].as_f64().unwrap_or(0.0));
            }
            for id in [
                &e["id"],
                &e["args"]["correlation"],
                &e["args"]["External id"],
            ] {
                max_id = max_id.max(id.as_i64().unwrap_or(0));
            }
        }
        Copies {
            lo_us: lo,
            hi_us: hi,
            period: (hi - lo).max(0.0).ceil() as i64 + 1000,
            stride: max_id + 1,
        }
    }

    /// Shifts event `e` to copy `r`: its start, flow id, correlation and
    /// external id.
    pub fn shift(&self, e: &mut Value, r: i64) {
        shift(&mut e["ts"], r * self.period);
        for id in ["correlation", "External id"] {
            if let Some(v) = e.get_mut("args").and_then(|a| a.get_mut(id)) {
                shift(v, r * self.stride);
            }
        }
        if let Some(v) = e.get_mut("id") {
            shift(v, r * self.stride);
        }
    }
}

/// Adds `by` to a number, keeping integers integers.
fn shift(v: &mut Value, by: i64) {
    if let Some(i) = v.as_i64() {
        *v = Value::Number(Number::from(i + by));
    } else if let Some(f) = v.as_f64() {
        if let Some(n) = Number::from_f64(f + by as f64) {
            *v = Value::Number(n);
        }
    }
}

/// A Kineto trace built event by event, every time in integer ns: written
/// as µs with three decimals (`1234.567`), which the reader turns back
/// into the same ns. One host process and thread launch every kernel.
#[derive(Debug, Clone)]
pub struct TraceBuilder {
    pid: i64,
    tid: i64,
    next_correlation: i64,
    top: Map<String, Value>,
    events: Vec<Value>,
}

/// One kernel launch: the `cudaLaunchKernel` call on the host thread and
/// the kernel on the GPU, joined by their correlation id.
#[derive(Debug, Clone)]
pub struct Launch<'a> {
    /// Kernel name.
    pub kernel: &'a str,
    /// Start of the launch call on the host, ns.
    pub host_ns: i64,
    /// Kernel start on the GPU, ns.
    pub gpu_start_ns: i64,
    /// Kernel duration, ns.
    pub gpu_dur_ns: i64,
    /// Device index.
    pub device: i64,
    /// Stream.
    pub stream: i64,
    /// Extra `args` of the kernel event (a collective's arguments).
    pub args: Map<String, Value>,
}

/// Length of every synthetic launch call, ns.
pub const LAUNCH_CALL_NS: i64 = 2_000;

/// `ns` as the µs number Kineto writes.
fn micros(ns: i64) -> Value {
    let sign = if ns < 0 { "-" } else { "" };
    let a = ns.unsigned_abs();
    let text = format!("{sign}{}.{:03}", a / 1000, a % 1000);
    serde_json::from_str(&text).unwrap_or(Value::Null)
}

impl TraceBuilder {
    /// An empty trace of host process `pid` (thread `pid`).
    pub fn new(pid: i64) -> TraceBuilder {
        let mut top = Map::new();
        top.insert("schemaVersion".into(), Value::from(1));
        TraceBuilder {
            pid,
            tid: pid,
            next_correlation: 1,
            top,
            events: Vec::new(),
        }
    }

    /// Records `distributedInfo` (NCCL backend): this process's rank in a
    /// job of `world_size` ranks.
    pub fn distributed(mut self, rank: u32, world_size: u32) -> TraceBuilder {
        let info = serde_json::json!({"backend": "nccl", "rank": rank, "world_size": world_size});
        self.top.insert("distributedInfo".into(), info);
        self
    }

    /// Records one `deviceProperties` entry.
    pub fn device(mut self, id: i64, name: &str, cc: (i64, i64), sms: i64) -> TraceBuilder {
        let entry = serde_json::json!({"id": id, "name": name, "computeMajor": cc.0,
            "computeMinor": cc.1, "numSms": sms});
        match self.top.get_mut("deviceProperties") {
            Some(Value::Array(a)) => a.push(entry),
            _ => {
                self.top
                    .insert("deviceProperties".into(), Value::Array(vec![entry]));
            }
        }
        self
    }

    /// A host event of category `cat` (`user_annotation`, `cpu_op`) on the
    /// host thread, `[start_ns, end_ns)`, with `args`.
    pub fn host_event(
        &mut self,
        cat: &str,
        name: &str,
        (start_ns, end_ns): (i64, i64),
        args: Map<String, Value>,
    ) {
        self.events
            .push(serde_json::json!({"ph": "X", "cat": cat, "name": name,
            "pid": self.pid, "tid": self.tid, "ts": micros(start_ns),
            "dur": micros(end_ns - start_ns), "args": Value::Object(args)}));
    }

    /// A `user_annotation` (`ProfilerStep#N`, `record_function`).
    pub fn annotation(&mut self, name: &str, start_ns: i64, end_ns: i64) {
        self.host_event("user_annotation", name, (start_ns, end_ns), Map::new());
    }

    /// A launch call and its kernel; returns the correlation id.
    pub fn launch(&mut self, l: Launch) -> i64 {
        let c = self.next_correlation;
        self.launch_under(l, c)
    }

    /// The launch call alone, its kernel event absent (as a profiler drops
    /// one); returns the correlation id.
    pub fn launch_call_only(&mut self, l: &Launch) -> i64 {
        let c = self.next_correlation;
        self.next_correlation += 1;
        self.call(l.host_ns, c, c);
        c
    }

    fn call(&mut self, host_ns: i64, correlation: i64, external: i64) {
        self.events
            .push(serde_json::json!({"ph": "X", "cat": "cuda_runtime",
            "name": "cudaLaunchKernel", "pid": self.pid, "tid": self.tid,
            "ts": micros(host_ns), "dur": micros(LAUNCH_CALL_NS),
            "args": {"correlation": correlation, "External id": external}}));
    }

    /// A launch call and its kernel, both with `External id` `external`
    /// (the host op that launched it, as Kineto links them); returns the
    /// correlation id.
    pub fn launch_under(&mut self, l: Launch, external: i64) -> i64 {
        let c = self.next_correlation;
        self.next_correlation += 1;
        self.call(l.host_ns, c, external);
        let mut args = l.args;
        args.insert("device".into(), Value::from(l.device));
        args.insert("stream".into(), Value::from(l.stream));
        args.insert("correlation".into(), Value::from(c));
        args.insert("External id".into(), Value::from(external));
        self.events.push(
            serde_json::json!({"ph": "X", "cat": "kernel", "name": l.kernel,
            "pid": l.device, "tid": l.stream, "ts": micros(l.gpu_start_ns),
            "dur": micros(l.gpu_dur_ns), "args": Value::Object(args)}),
        );
        c
    }

    /// The trace as a JSON document.
    pub fn to_value(&self) -> Value {
        let mut top = self.top.clone();
        top.insert("traceEvents".into(), Value::Array(self.events.clone()));
        Value::Object(top)
    }
}

/// A training loop whose steps overlap on the GPU, as pipelined training
/// does: `steps` `ProfilerStep#N` ranges every `period_ns` on the host,
/// each `host_ns` long; each launches one compute kernel (stream 7, from
/// 1 ms after its host start for `compute_ns`) and then, at the end of its
/// host range, an all-reduce (stream 20) that starts when the compute ends
/// and runs `comm_ns`, into the next step's host range and under the next
/// step's compute. Device 0.
pub fn pipelined_steps(
    steps: u32,
    period_ns: i64,
    host_ns: i64,
    compute_ns: i64,
    comm_ns: i64,
) -> TraceBuilder {
    let mut t = TraceBuilder::new(100);
    for k in 0..i64::from(steps) {
        let h0 = 1_000_000 + k * period_ns;
        t.annotation(&format!("ProfilerStep#{k}"), h0, h0 + host_ns);
        let g0 = h0 + 1_000_000;
        t.launch(Launch {
            kernel: "sm80_xmma_gemm_bf16bf16_bf16f32",
            host_ns: h0 + 10_000,
            gpu_start_ns: g0,
            gpu_dur_ns: compute_ns,
            device: 0,
            stream: 7,
            args: Map::new(),
        });
        t.launch(Launch {
            kernel:
                "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevComm*, unsigned long, ncclWork*)",
            host_ns: h0 + host_ns - 2 * LAUNCH_CALL_NS,
            gpu_start_ns: g0 + compute_ns,
            gpu_dur_ns: comm_ns,
            device: 0,
            stream: 20,
            args: Map::new(),
        });
    }
    t
}
