//! Kineto (PyTorch profiler) traces: the reader on every real trace of
//! `fixtures/kineto/` (HTA's test data, MIT), with busy/idle checked against
//! an independent computation from the raw JSON (serde_json `Value`, no
//! rooftrace code), ranks, the AMD trace, syncs, and hostile inputs.

use crate::common::{fixture, rooftrace};
use rooftrace::gaps::{analyze, GapClass, GapConfig};
use rooftrace::kineto::{read_counters, read_timeline, KinetoError};
use serde_json::Value;
use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// The five traces with GPU activity rows.
pub const TRACES: [&str; 5] = [
    "simple_add",
    "cuda_event_sync",
    "sampled_rank-0",
    "sampled_rank-1",
    "amd_mi250_rocm6.2",
];

pub fn trace(name: &str) -> PathBuf {
    fixture(&format!("kineto/{name}.json.gz"))
}

/// The raw JSON, decompressed by flate2 and parsed whole by serde_json.
pub fn raw_events(path: &Path) -> Vec<Value> {
    let mut text = String::new();
    flate2::read::GzDecoder::new(std::fs::File::open(path).unwrap())
        .read_to_string(&mut text)
        .unwrap();
    let doc: Value = serde_json::from_str(&text).unwrap();
    doc["traceEvents"].as_array().unwrap().clone()
}

/// A µs number as ns: integers exactly, fractions (the AMD trace's
/// `4203669604595.407`, below 2^53 ns) rounded at the ns.
pub fn ns(v: &Value) -> i64 {
    match v.as_i64() {
        Some(us) => us * 1000,
        None => (v.as_f64().unwrap() * 1000.0).round() as i64,
    }
}

/// Per device: (first start, last end, busy = length of the union of every
/// kernel, copy and memset interval), computed by sorting and merging.
fn union_per_device(events: &[Value]) -> BTreeMap<i64, (i64, i64, i64)> {
    let mut per: BTreeMap<i64, Vec<(i64, i64)>> = BTreeMap::new();
    for e in events {
        let cat = e["cat"].as_str().unwrap_or("");
        if e["ph"] != "X" || !["kernel", "gpu_memcpy", "gpu_memset"].contains(&cat) {
            continue;
        }
        let start = ns(&e["ts"]);
        let end = start + ns(&e["dur"]);
        per.entry(e["args"]["device"].as_i64().unwrap())
            .or_default()
            .push((start, end));
    }
    per.into_iter()
        .map(|(dev, mut iv)| {
            iv.sort();
            let (first, mut last, mut busy) = (iv[0].0, iv[0].1, 0);
            let mut cur = iv[0];
            for &(s, e) in &iv[1..] {
                if s > cur.1 {
                    busy += cur.1 - cur.0;
                    cur = (s, e);
                } else {
                    cur.1 = cur.1.max(e);
                }
                last = last.max(e);
            }
            busy += cur.1 - cur.0;
            (dev, (first, last, busy))
        })
        .collect()
}

#[test]
fn busy_and_idle_per_device_equal_the_union_of_the_raw_gpu_events_on_every_trace() {
    for name in TRACES {
        let path = trace(name);
        let expect = union_per_device(&raw_events(&path));
        let tl = read_timeline(&path).unwrap().timeline;
        let report = analyze(&tl, &GapConfig::default());
        let got: BTreeMap<i64, (i64, i64, i64)> = report
            .devices
            .iter()
            .map(|d| (i64::from(d.device), (d.start_ns, d.end_ns, d.busy_ns)))
            .collect();
        assert_eq!(got, expect, "{name}");
        for d in &report.devices {
            assert_eq!(d.idle_ns, d.span_ns - d.busy_ns, "{name}");
            assert!(d.idle_ns > 0, "{name}: every corpus trace has idle time");
        }
    }
}

#[test]
fn every_gpu_op_of_the_corpus_is_joined_to_its_launch_call() {
    // Each kernel/copy/memset carries `args.correlation` equal to a
    // `cuda_runtime` event's (counted here from the raw JSON).
    for name in TRACES {
        let path = trace(name);
        let events = raw_events(&path);
        let ops = events
            .iter()
            .filter(|e| {
                ["kernel", "gpu_memcpy", "gpu_memset"].contains(&e["cat"].as_str().unwrap_or(""))
            })
            .count();
        let tl = read_timeline(&path).unwrap().timeline;
        assert_eq!(tl.ops.len(), ops, "{name}");
        let joined = tl.ops.iter().filter(|o| tl.api_of(o).is_some()).count();
        assert_eq!(joined, ops, "{name}: every op has its call");
    }
}

#[test]
fn ranks_come_from_distributed_info() {
    let rank = |n: &str| {
        read_timeline(&trace(n))
            .unwrap()
            .timeline
            .info
            .identity
            .rank
    };
    assert_eq!(rank("sampled_rank-0"), Some((0, "distributedInfo")));
    assert_eq!(rank("sampled_rank-1"), Some((1, "distributedInfo")));
    assert_eq!(rank("simple_add"), Some((0, "distributedInfo")));
    assert_eq!(
        rank("amd_mi250_rocm6.2"),
        None,
        "the ROCm trace has no distributedInfo"
    );
    let t = read_timeline(&trace("sampled_rank-1")).unwrap();
    assert_eq!(t.distributed.unwrap().world_size, Some(128));
}

#[test]
fn syncs_and_pageable_copies_of_simple_add_are_read() {
    // Raw JSON: 16 cudaStreamSynchronize + 5 cudaDeviceSynchronize calls;
    // its 41 `cuda_sync` records all belong to a call (16 Stream Sync, 5
    // Context Sync) or are stream waits (20), so they add no sync of their
    // own; 34 cudaStreamWaitEvent calls; memcpys named "(Pageable -> ...)".
    let path = trace("simple_add");
    let events = raw_events(&path);
    let pageable = events
        .iter()
        .filter(|e| e["cat"] == "gpu_memcpy" && e["name"].as_str().unwrap().contains("Pageable"))
        .count();
    assert!(pageable > 0);
    let tl = read_timeline(&path).unwrap().timeline;
    assert_eq!(tl.syncs.len(), 21);
    assert!(tl.syncs.iter().all(|s| s.tid != rooftrace::nsys::NO_TID));
    assert_eq!(tl.waits.len(), 34);
    assert_eq!(tl.ops.iter().filter(|o| o.is_pageable()).count(), pageable);
}

#[test]
fn the_rocm_trace_is_read_with_hip_names_and_its_first_launch_is_a_slow_call() {
    // MI250, ROCm 6.2: 14 kernels + 2 HtoD copies on device 2 stream 0, all
    // launched by hip* calls. The raw JSON's longest hipLaunchKernel lasts
    // 6 537 µs (module load on first use) and covers the longest gap: a slow
    // launch call, not host-bound work.
    let tl = read_timeline(&trace("amd_mi250_rocm6.2")).unwrap().timeline;
    assert_eq!(tl.ops.len(), 16);
    assert!(tl.api.iter().all(|a| tl.name(a.name).starts_with("hip")));
    assert_eq!(
        tl.syncs.len(),
        3,
        "hipDeviceSynchronize + 2 blocking hipMemcpyWithStream"
    );
    let report = analyze(&tl, &GapConfig::default());
    let top = &report.top_gaps[0];
    assert_eq!(top.class, GapClass::LaunchInFlight);
    assert!(report.devices[0].classes.get(top.class).total_ns > 6_000_000);
}

#[test]
fn counters_only_trace_says_to_use_ncu_and_holds_77_counter_ranges() {
    let path = trace("cupti_profiler_counters");
    let err = read_timeline(&path).unwrap_err();
    assert!(matches!(err, KinetoError::NoGpuActivity { .. }));
    assert!(err.to_string().contains("rooftrace ncu"), "{err}");
    let t = read_counters(&path).unwrap();
    assert_eq!(t.counters.len(), 77);
    assert!(t.counters[0]
        .metrics
        .iter()
        .any(|(m, _)| m == "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum"));
}

#[test]
fn the_cli_reads_a_trace_as_it_reads_an_export() {
    let (code, out, err) = rooftrace(&[
        "gaps",
        "fixtures/kineto/cuda_event_sync.json.gz",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let doc: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(doc["input"]["schema_flavor"], "kineto");
    // Raw JSON: 4 kernels + 1 copy on device 0.
    assert_eq!(doc["input"]["ops"], 5);
}

/// Writes `bytes` to a temporary file.
fn temp(bytes: &[u8], suffix: &str) -> tempfile::NamedTempFile {
    let mut f = tempfile::Builder::new().suffix(suffix).tempfile().unwrap();
    f.write_all(bytes).unwrap();
    f
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

const ONE_KERNEL: &str = r#"{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":10.5,"dur":2,"args":{"device":0,"stream":7,"correlation":1}}"#;

#[test]
fn hostile_traces_fail_with_a_clear_error_and_never_panic() {
    let long = format!(
        r#"{{"traceEvents":[{{"ph":"X","cat":"kernel","name":"{}"}}]}}"#,
        "x".repeat(2 << 20)
    );
    let deep = format!(
        r#"{{"traceEvents":[{{"extra":{}1{}}}]}}"#,
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("long string", long.into_bytes(), "longer than"),
        // Skipped values are walked without recursion (serde_json's
        // `ignore_value`), so depth costs neither stack nor an error.
        (
            "deep nesting",
            deep.into_bytes(),
            "no GPU activity (1 events",
        ),
        // The trace's only kernel has an unusable `ts`: the error says it
        // was skipped, and why, rather than that there was no kernel.
        (
            "only kernel skipped",
            br#"{"traceEvents":[{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":1e400,"dur":1}]}"#.to_vec(),
            "no usable `kernel`, `gpu_memcpy` or `gpu_memset`); 1 events of a category rooftrace reads were skipped: their `ts` is absent",
        ),
        (
            "not JSON",
            b"{ nope".to_vec(),
            "not a PyTorch profiler trace",
        ),
        (
            "no traceEvents",
            br#"{"schemaVersion":1}"#.to_vec(),
            "without a `traceEvents`",
        ),
        (
            "events not an array",
            br#"{"traceEvents":7}"#.to_vec(),
            "line 1",
        ),
        (
            "truncated",
            format!(r#"{{"traceEvents":[{ONE_KERNEL}"#).into_bytes(),
            "EOF",
        ),
        (
            "trailing bytes",
            format!(r#"{{"traceEvents":[{ONE_KERNEL}]}} x"#).into_bytes(),
            "trailing",
        ),
        (
            "no GPU rows",
            br#"{"traceEvents":[]}"#.to_vec(),
            "no GPU activity",
        ),
    ];
    for (what, bytes, says) in cases {
        for (form, data) in [("json", bytes.clone()), ("gzip", gzip(&bytes))] {
            let f = temp(&data, ".json");
            let err = read_timeline(f.path()).unwrap_err().to_string();
            assert!(err.contains(says), "{what} ({form}): {err}");
            assert!(
                err.contains(&f.path().display().to_string()),
                "{what}: names the file"
            );
        }
    }
    // A truncated gzip stream (half the bytes).
    let full = gzip(format!(r#"{{"traceEvents":[{}]}}"#, [ONE_KERNEL; 200].join(",")).as_bytes());
    let f = temp(&full[..full.len() / 2], ".json.gz");
    assert!(read_timeline(f.path()).is_err());
}

#[test]
fn a_gzip_bomb_stops_at_the_expansion_limit() {
    // 80 MiB of spaces inside the array: gzip makes it ~80 KiB (1000×),
    // beyond both the 64 MiB floor and 200× the file.
    let mut json = br#"{"traceEvents":["#.to_vec();
    json.extend(std::iter::repeat_n(b' ', 80 << 20));
    json.extend_from_slice(b"]}");
    // Best compression: how far a fast level shrinks spaces depends on the
    // deflate backend (zlib-rs's fast level is a quick, weaker strategy).
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    e.write_all(&json).unwrap();
    let gz = e.finish().unwrap();
    assert!(json.len() > 200 * gz.len(), "a bomb: {} bytes", gz.len());
    let f = temp(&gz, ".json.gz");
    let err = read_timeline(f.path()).unwrap_err().to_string();
    assert!(err.contains("expands more than 200×"), "{err}");
}

#[test]
fn unusable_events_are_skipped_and_counted_and_times_keep_their_ns() {
    let json = format!(
        r#"{{"traceEvents":[{ONE_KERNEL},
        {{"ph":"X","cat":"kernel","name":"bad","ts":"soon","dur":1,"args":{{"device":0,"stream":7}}}},
        {{"ph":"X","cat":"kernel","name":"neg","ts":1,"dur":-5,"args":{{"device":0,"stream":7}}}},
        {{"ph":"X","cat":"kernel","name":"far","ts":1e300,"dur":1,"args":{{"device":0,"stream":7}}}},
        {{"ph":"X","cat":"kernel","name":"dev","ts":1,"dur":1,"args":{{"device":70000,"stream":7}}}},
        {{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":5,"tid":5,"ts":9.9999,"dur":0.25,"args":{{"correlation":1}}}}
        ]}}"#
    );
    let f = temp(json.as_bytes(), ".json");
    let t = read_timeline(f.path()).unwrap();
    assert_eq!(t.counts.bad, 4);
    // One diagnostic per field: two unusable `ts`, one `dur`, one device.
    let kinds: Vec<_> = t.timeline.diagnostics.iter().map(|d| d.kind).collect();
    use rooftrace::timeline::DiagnosticKind::SkippedEvents;
    for (events, reason) in [(2, "ts"), (1, "dur"), (1, "args.device")] {
        assert!(
            kinds.contains(&SkippedEvents { events, reason }),
            "{reason}: {kinds:?}"
        );
    }
    let op = t.timeline.ops[0];
    assert_eq!((op.start_ns, op.end_ns), (10_500, 12_500));
    let call = t.timeline.api_of(&op).unwrap();
    assert_eq!(
        (call.start_ns, call.end_ns),
        (10_000, 10_250),
        "9.9999 µs rounds to 10 000 ns"
    );
}

#[test]
fn bad_traces_exit_2_on_the_cli() {
    let f = temp(b"{ nope", ".json");
    let (code, _, err) = rooftrace(&["gaps", f.path().to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("not a PyTorch profiler trace"), "{err}");
}

fn json_of(args: &[&str]) -> Value {
    let (code, out, err) = rooftrace(args);
    assert_eq!(code, 0, "{args:?}: {err}");
    serde_json::from_str(&out).expect("JSON output")
}

/// (start ns, duration ns) of each `ProfilerStep#N` annotation in the raw JSON.
fn profiler_steps(events: &[Value]) -> Vec<(String, i64)> {
    events
        .iter()
        .filter(|e| e["cat"] == "user_annotation")
        .filter(|e| e["name"].as_str().unwrap().starts_with("ProfilerStep#"))
        .map(|e| (e["name"].as_str().unwrap().to_string(), ns(&e["dur"])))
        .collect()
}

#[test]
fn budget_takes_profiler_steps_as_its_steps() {
    // sampled_rank-0 has two ProfilerStep annotations (#551, #552); each
    // becomes one budget step, named by the annotation.
    let path = trace("sampled_rank-0");
    let steps = profiler_steps(&raw_events(&path));
    assert_eq!(steps.len(), 2);
    let doc = json_of(&[
        "budget",
        path.to_str().unwrap(),
        "--nvtx",
        r"ProfilerStep#\d+",
        "--gpu",
        "a100-40gb",
        "--bytes-per-step",
        "1GB",
        "--format",
        "json",
    ]);
    let got = doc["steps"].as_array().unwrap();
    assert_eq!(got.len(), 2);
    let names: Vec<&str> = doc["names"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap())
        .collect();
    for (want, step) in steps.iter().zip(got) {
        assert_eq!(names[step["text_id"].as_u64().unwrap() as usize], want.0);
    }
}

#[test]
fn budget_without_nvtx_defaults_to_profiler_steps_only_where_the_trace_has_them() {
    // sampled_rank-0 has ProfilerStep#551/#552 (raw JSON above): without
    // --nvtx the steps are those two, figure for figure the same as with
    // the explicit pattern, and the report says the default was used.
    let path = trace("sampled_rank-0");
    let p = path.to_str().unwrap();
    let bound = [
        "--gpu",
        "a100-40gb",
        "--bytes-per-step",
        "1GB",
        "--format",
        "json",
    ];
    let explicit = json_of(&[&["budget", p, "--nvtx", r"ProfilerStep#\d+"], &bound[..]].concat());
    let default = json_of(&[&["budget", p], &bound[..]].concat());
    assert_eq!(default["steps"], explicit["steps"]);
    assert_eq!(default["names"], explicit["names"]);
    assert_eq!(default["steps"].as_array().unwrap().len(), 2);
    assert_eq!(default["pattern"], r"^ProfilerStep#\d+$");
    let said = default["diagnostics"][0].as_str().unwrap();
    assert!(
        said.contains("no --nvtx given") && said.contains("ProfilerStep#N"),
        "{said}"
    );
    assert!(!explicit["diagnostics"]
        .to_string()
        .contains("no --nvtx given"));
    // simple_add has no ProfilerStep annotation (none in its raw JSON):
    // no silent empty budget, exit 2 naming the file and what to give.
    let plain = trace("simple_add");
    assert!(profiler_steps(&raw_events(&plain)).is_empty());
    let (code, _, err) = rooftrace(&["budget", plain.to_str().unwrap(), "--gpu", "a100-40gb"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("simple_add.json.gz: no --nvtx given"), "{err}");
    assert!(err.contains("give --nvtx REGEX"), "{err}");
    // An nsys export has no default step: --nvtx stays required (exit 2).
    let db = fixture("nsys/nsys2022.2.1_pipit_saxpy-mpi-cuda.sqlite");
    let (code, _, err) = rooftrace(&["budget", db.to_str().unwrap(), "--gpu", "a100-40gb"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--nvtx REGEX is required"), "{err}");
}

#[test]
fn diff_of_a_trace_with_itself_and_with_its_own_gaps_json_is_unchanged() {
    let path = trace("sampled_rank-0");
    let p = path.to_str().unwrap();
    let same = json_of(&["diff", p, p, "--format", "json"]);
    assert_eq!(same["verdict"], "unchanged");
    assert_eq!(same["counts"]["regression"], 0);
    assert_eq!(same["counts"]["improvement"], 0);
    // rank 0 against rank 1: two real timelines, compared field by field.
    // The gate trips (exit 3) on kernels slower on rank 1; no longer on
    // "copy-engine scheduling" 2.27 ms -> 7.37 ms, queued copies judged from
    // the absence of a wait event (no other copy held an engine in those
    // gaps: queued/dependency now, issue 29).
    let (code, out, err) = rooftrace(&[
        "diff",
        p,
        trace("sampled_rank-1").to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(code, 3, "{err}");
    let ranks: Value = serde_json::from_str(&out).unwrap();
    let tripped = ranks["gate"]["tripped"].as_array().unwrap();
    assert!(tripped.iter().all(|t| !t["row"]
        .as_str()
        .unwrap_or("")
        .contains("copy-engine scheduling")));
    let busy = &ranks["nsys"]["total"]["busy_ns"];
    assert_eq!(busy["before"].as_f64(), Some(547_656_000.0));
    assert_eq!(busy["after"].as_f64(), Some(580_050_000.0));
    // Each side says what it is: a PyTorch trace, not an nsys export.
    assert_eq!(ranks["base"]["source"], "PyTorch trace");
    assert_eq!(ranks["new"]["source"], "PyTorch trace");
}

#[test]
fn diff_refuses_a_pytorch_trace_against_an_nsys_export_either_way() {
    // Different profilers record different windows and host rows: span and
    // idle would move with the tool, so the pair is bad input (exit 2),
    // named side by side, in both orders.
    let t = trace("sampled_rank-0");
    let db = fixture("nsys/nsys2022.2.1_pipit_saxpy-mpi-cuda.sqlite");
    let (t, db) = (t.to_str().unwrap(), db.to_str().unwrap());
    for (base, new) in [(t, db), (db, t)] {
        let (code, out, err) = rooftrace(&["diff", base, new]);
        assert_eq!(code, 2, "{err}");
        assert!(out.is_empty(), "{out}");
        assert!(
            err.contains("(PyTorch trace)") && err.contains("(nsys export)"),
            "{err}"
        );
        assert!(err.contains("profile both runs the same way"), "{err}");
    }
}

#[test]
fn two_ranks_in_one_run_are_tagged_from_distributed_info_and_land_in_parquet() {
    let (r0, r1) = (trace("sampled_rank-0"), trace("sampled_rank-1"));
    let (p0, p1) = (r0.to_str().unwrap(), r1.to_str().unwrap());
    let doc = json_of(&["gaps", p0, p1, "--format", "json"]);
    let tags: Vec<(i64, &str)> = doc["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            (
                i["rank"].as_i64().unwrap(),
                i["rank_source"]["detail"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(tags, [(0, "distributedInfo"), (1, "distributedInfo")]);
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("pq");
    let (code, _, err) = rooftrace(&[
        "gaps",
        p0,
        p1,
        "--format",
        "parquet",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let Some(rows) = crate::multi::duckdb(&format!(
        "select rank, sum(busy_ns), sum(idle_ns) from read_parquet('{}/devices/*/*.parquet', hive_partitioning=true) group by rank order by rank",
        out.display()
    )) else {
        return;
    };
    // The busy/idle of each rank as the independent union above computes
    // them (and the single-trace test pins): 547.656 ms / 675.191 ms on
    // rank 0, 580.050 ms / 651.136 ms on rank 1.
    assert_eq!(
        rows,
        serde_json::json!([[0, 547_656_000, 675_191_000], [1, 580_050_000, 651_136_000]])
    );
}

#[test]
fn ncu_reads_the_counter_ranges_and_says_the_duration_is_missing() {
    // The real counters trace has FLOP counters only: its ranges' `dur` is
    // the profiling pass, so no kernel time exists and the roofline cannot
    // be placed. The error says which metric to add.
    let (code, _, err) = rooftrace(&["ncu", trace("cupti_profiler_counters").to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("77 CUPTI counter ranges"), "{err}");
    assert!(err.contains("gpu__time_duration.sum"), "{err}");
}

#[test]
fn ncu_gives_a_per_kernel_roofline_from_counter_ranges_with_a_duration() {
    // The real trace with, on its first range only, the two metrics it
    // lacks added here: 100 µs and 1 MB read. FLOPs from the raw args by
    // hand: 2 × ffma (38,731,776) + 2 × hfma (4,866,048) = 87,195,648 (the
    // other op counters are 0); the tensor path stays unknown (not
    // collected), so the FLOPs are a lower bound. The other 76 ranges have
    // no duration and are skipped with a diagnostic.
    let path = trace("cupti_profiler_counters");
    let mut text = String::new();
    flate2::read::GzDecoder::new(std::fs::File::open(&path).unwrap())
        .read_to_string(&mut text)
        .unwrap();
    let mut doc: Value = serde_json::from_str(&text).unwrap();
    let first = doc["traceEvents"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|e| e["cat"] == "cuda_profiler_range")
        .unwrap();
    let args = first["args"].as_object_mut().unwrap();
    assert_eq!(
        args["smsp__sass_thread_inst_executed_op_ffma_pred_on.sum"],
        38_731_776
    );
    assert_eq!(
        args["smsp__sass_thread_inst_executed_op_hfma_pred_on.sum"],
        4_866_048
    );
    args.insert("gpu__time_duration.sum".into(), 100_000.into());
    args.insert("dram__bytes_read.sum".into(), 1_000_000.into());
    let f = temp(serde_json::to_string(&doc).unwrap().as_bytes(), ".json");
    let out = json_of(&[
        "ncu",
        f.path().to_str().unwrap(),
        "--gpu",
        "a100-40gb",
        "--format",
        "json",
    ]);
    assert_eq!(out["launches_analysed"], 1);
    let k = &out["kernels"][0];
    assert_eq!(k["flop"].as_f64(), Some(87_195_648.0));
    assert_eq!(k["duration_ns"].as_f64(), Some(100_000.0));
    assert_eq!(k["dram_bytes"].as_f64(), Some(1_000_000.0));
    assert_eq!(k["flop_unknown"], serde_json::json!(["tensor"]));
    assert_eq!(k["lower_bound"], true);
}

#[test]
fn a_repeated_trace_holds_each_copy_whole_and_apart() {
    // The benchmark's generator: 3 copies of cuda_event_sync, each shifted
    // past the previous one with its ids offset, so rooftrace must see 3×
    // the ops, all joined, 3× the busy time, and 2 more gaps of
    // (period − span) between the copies.
    let path = trace("cuda_event_sync");
    let mut text = String::new();
    flate2::read::GzDecoder::new(std::fs::File::open(&path).unwrap())
        .read_to_string(&mut text)
        .unwrap();
    let doc: Value = serde_json::from_str(&text).unwrap();
    let mut out = Vec::new();
    rooftrace::synth::kineto::repeat_trace(&doc, 3, &mut out).unwrap();
    let f = temp(&out, ".json");
    let one = read_timeline(&path).unwrap().timeline;
    let three = read_timeline(f.path()).unwrap().timeline;
    assert_eq!(three.ops.len(), 3 * one.ops.len());
    assert!(three.ops.iter().all(|o| three.api_of(o).is_some()));
    let (r1, r3) = (
        analyze(&one, &GapConfig::default()),
        analyze(&three, &GapConfig::default()),
    );
    assert_eq!(r3.devices[0].busy_ns, 3 * r1.devices[0].busy_ns);
    assert_eq!(r3.devices[0].gap_count, 3 * r1.devices[0].gap_count + 2);
}

#[test]
fn budget_names_the_gpu_of_device_properties_when_choosing_roofs() {
    // The ROCm trace's deviceProperties say "AMD Radeon Graphics" (not in
    // the built-in table): the roofs cannot be chosen, and the error says
    // which device the trace names.
    let (code, _, err) = rooftrace(&[
        "budget",
        trace("amd_mi250_rocm6.2").to_str().unwrap(),
        "--nvtx",
        r"ProfilerStep#\d+",
        "--bytes-per-step",
        "1GB",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("device \"AMD Radeon Graphics\""), "{err}");
    assert!(err.contains("none fits what the file states"), "{err}");
    // An NVIDIA trace: the GPU comes from its deviceProperties, and the
    // decision says so (it said "in the CSV" for a trace before).
    let out = json_of(&[
        "budget",
        trace("cuda_event_sync").to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(
        out["gpu"]["chosen_by"],
        "device name \"NVIDIA A100-PG509-200\" in the trace's deviceProperties"
    );
}

/// A Kineto `gpu_memcpy` keeps its `args.bytes` at the parse boundary: the
/// copy totals of simple_add (16 `Memcpy HtoD (Pageable -> Device)` events)
/// carry their bytes, so the copy-bound verdict names bytes and the
/// achieved bandwidth, and calls the input a trace. The expected totals are
/// counted independently from the raw JSON (decompressed and parsed whole
/// by serde_json): 244,403,360 bytes in 39,080 µs (python3 over the same
/// file agrees), 6.25 GB/s. The ROCm trace's copies have no `bytes`: their
/// bytes stay unknown, not zero.
#[test]
fn kineto_copies_keep_their_bytes_and_the_verdict_says_trace() {
    let path = trace("simple_add");
    let copies: Vec<Value> = raw_events(&path)
        .into_iter()
        .filter(|e| e["cat"] == "gpu_memcpy")
        .collect();
    let bytes: u64 = copies
        .iter()
        .map(|e| e["args"]["bytes"].as_u64().unwrap())
        .sum();
    let dur_us: f64 = copies.iter().map(|e| e["dur"].as_f64().unwrap()).sum();
    assert_eq!((copies.len(), bytes, dur_us), (16, 244_403_360, 39_080.0));
    let t = read_timeline(&path).unwrap();
    assert_eq!(t.timeline.copies.len(), 1, "{:?}", t.timeline.copies);
    let c = t.timeline.copies[0];
    assert_eq!(
        (c.copy_kind, c.pageable, c.count, c.bytes, c.duration_ns),
        (
            rooftrace::timeline::CopyKind::HtoD,
            true,
            16,
            Some(bytes),
            (dur_us * 1e3) as i64
        )
    );
    let (code, out, err) = rooftrace(&["gaps", path.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let verdict = out.lines().next().unwrap();
    // 244,403,360 B / 39.08 ms = 6.254 GB/s. The trace's deviceProperties
    // name an "NVIDIA A100-PG509-200" (the table's a100-40gb, PCIe Gen4 x16 to
    // the host: 16 GT/s x 16 lanes x 128/130 / 8 = 31.5 GB/s per direction):
    // 6.254 / 31.5 = 19.85 %, under the 50 % that points to pageable staging.
    assert!(
        verdict.contains(
            "16 HtoD copies from pageable memory, 244 MB in 39.1 ms at 6.25 GB/s achieved, 19.8 % of the PCIe Gen4 x16 link (31.5 GB/s per direction, from the a100-40gb table entry, GPU chosen by device name \"NVIDIA A100-PG509-200\" in the trace's deviceProperties)"
        ) && verdict.contains("pageable copies under 50.0 % of the link")
            && !verdict.contains("export"),
        "{verdict}"
    );
    let rocm = read_timeline(&trace("amd_mi250_rocm6.2")).unwrap();
    assert!(!rocm.timeline.copies.is_empty());
    assert!(rocm.timeline.copies.iter().all(|c| c.bytes.is_none()));
    // ROCm writes the gfx version as the compute capability (9.0 for the
    // MI250): its devices are not GPU records, so nothing reads as a Hopper.
    assert!(rocm.timeline.info.identity.gpus.is_empty());
    let (code, out, err) = rooftrace(&["gaps", trace("amd_mi250_rocm6.2").to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("the trace records no NVIDIA GPU in its deviceProperties; give --gpu KEY"),
        "{out}"
    );
}
