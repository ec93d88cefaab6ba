//! `--trace-out`: the Chrome trace of a corpus nsys export and of a corpus
//! PyTorch trace, checked three independent ways: rooftrace reads its own
//! file back (a Kineto-shaped trace) with the same busy and idle per
//! device; the file's events, parsed as plain `serde_json::Value`, hold one
//! gap slice per gap the report counts, summing to its idle time, and one
//! flow arrow per joined op; HTA 0.5.0 loads it and its temporal breakdown
//! agrees within its µs rounding.

use crate::common::{corpus_file, need, rooftrace, rooftrace_json};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::io::Read;
use std::path::{Path, PathBuf};

const SAXPY: &str = "nsys/nsys2022.2.1_pipit_saxpy-mpi-cuda.sqlite";
const SIMPLE_ADD: &str = "kineto/kineto_hta_simple_add.json.gz";

fn read_trace(path: &Path) -> Value {
    let raw = std::fs::read(path).expect("trace written");
    let text = if raw.starts_with(&[0x1f, 0x8b]) {
        let mut s = String::new();
        flate2::read::GzDecoder::new(&raw[..])
            .read_to_string(&mut s)
            .expect("gzip");
        s
    } else {
        String::from_utf8(raw).expect("utf-8")
    };
    let mut doc: Value = serde_json::from_str(&text).expect("the trace is JSON");
    // Times as written (µs with 3 decimals), to the ns: an f64 of an epoch
    // µs value steps by 0.25 µs, so each event gets `ts_ns` from its text.
    #[derive(serde::Deserialize)]
    struct Raw<'a> {
        #[serde(rename = "traceEvents", borrow)]
        events: Vec<&'a serde_json::value::RawValue>,
    }
    let raw: Raw = serde_json::from_str(&text).unwrap();
    let re = regex::Regex::new(r#""ts":(-?)(\d+)\.(\d{3})[,}]"#).unwrap();
    for (e, r) in doc["traceEvents"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .zip(raw.events)
    {
        if let Some(c) = re.captures(r.get()) {
            let ns = c[2].parse::<i64>().unwrap() * 1000 + c[3].parse::<i64>().unwrap();
            e["ts_ns"] = Value::from(if &c[1] == "-" { -ns } else { ns });
        }
    }
    doc
}

/// (device → (busy ns, idle ns, gap count)) of a gaps JSON report.
fn per_device(report: &Value) -> BTreeMap<u64, (i64, i64, u64)> {
    report["devices"]
        .as_array()
        .expect("devices")
        .iter()
        .map(|d| {
            (
                d["device"].as_u64().unwrap(),
                (
                    d["busy_ns"].as_i64().unwrap(),
                    d["idle_ns"].as_i64().unwrap(),
                    d["gap_count"].as_u64().unwrap(),
                ),
            )
        })
        .collect()
}

/// Writes the trace of `input` (gzip or plain by `name`), checks the read
/// back and the file's structure; returns (report, trace, trace path).
fn round_trip(input: &Path, out: &Path) -> (Value, Value) {
    let out_s = out.to_str().unwrap();
    let (code, report, err) =
        rooftrace_json(&["gaps", input.to_str().unwrap(), "--trace-out", out_s]);
    assert_eq!(code, 0, "{err}");
    let (code, back, err) = rooftrace_json(&["gaps", out_s]);
    assert_eq!(code, 0, "rooftrace reads its own trace: {err}");
    // The same GPU ops, to the ns: the same busy and idle per device.
    assert_eq!(per_device(&report), per_device(&back));
    let trace = read_trace(out);
    let events = trace["traceEvents"].as_array().expect("traceEvents");

    // One gap slice per gap the report counts, on the device's gap track,
    // their durations summing to the device's idle time (µs text → ns).
    let mut gaps: BTreeMap<u64, (u64, i64)> = BTreeMap::new();
    for e in events.iter().filter(|e| e["cat"] == "rooftrace_gap") {
        assert_eq!(e["ph"], "X");
        assert_eq!(e["tid"].as_i64(), Some(2_000_000_000));
        let args = &e["args"];
        // Named by its class: the label of the key in args.
        let class = args["class"].as_str().unwrap();
        assert_eq!(
            e["name"].as_str(),
            Some(rooftrace::gaps::class_label(class).as_str())
        );
        for key in ["duration", "fix", "cause", "host_detail"] {
            assert!(args.get(key).is_some(), "{key} in {args}");
        }
        let dur_ns = args["duration_ns"].as_i64().unwrap();
        assert_eq!((e["dur"].as_f64().unwrap() * 1000.0).round() as i64, dur_ns);
        let g = gaps.entry(e["pid"].as_u64().unwrap()).or_default();
        g.0 += 1;
        g.1 += dur_ns;
    }
    let from_report: BTreeMap<u64, (u64, i64)> = per_device(&report)
        .into_iter()
        .map(|(d, (_, idle, count))| (d, (count, idle)))
        .collect();
    assert_eq!(gaps, from_report);

    // Flow arrows: each `s` has its `f` with the same id, bound to a GPU op
    // that starts there.
    let mut starts: HashMap<u64, &Value> = HashMap::new();
    let mut ends = 0;
    for e in events.iter().filter(|e| e["cat"] == "ac2g") {
        let id = e["id"].as_u64().unwrap();
        match e["ph"].as_str() {
            Some("s") => {
                starts.insert(id, e);
            }
            Some("f") => {
                assert!(starts.contains_key(&id), "f before its s");
                assert_eq!(e["bp"], "e");
                ends += 1;
            }
            other => panic!("flow phase {other:?}"),
        }
    }
    assert_eq!(starts.len(), ends);
    let ops = events
        .iter()
        .filter(|e| {
            matches!(
                e["cat"].as_str(),
                Some("kernel" | "gpu_memcpy" | "gpu_memset")
            )
        })
        .count();
    let joined = report["launch"]["ops_with_api"].as_u64().unwrap() as usize;
    assert!(ops > 0);
    assert_eq!(ends, joined, "one arrow per op joined to its launch call");
    // Rooftrace's track is named for Perfetto's track list.
    assert!(events.iter().any(|e| e["ph"] == "M"
        && e["name"] == "thread_name"
        && e["args"]["name"] == "rooftrace idle gaps"));
    (report, trace)
}

#[test]
fn an_nsys_exports_trace_reads_back_with_the_same_busy_idle_and_a_slice_per_gap() {
    let Some(input) = corpus_file(SAXPY) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let (report, trace) = round_trip(&input, &dir.path().join("saxpy.trace.json"));
    // saxpy: 19 gaps on device 0 (the report's count, checked against the
    // slices above); the longest is described with its launch call.
    assert_eq!(report["devices"][0]["gap_count"], 19);
    let described = trace["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["cat"] == "rooftrace_gap")
        .filter(|e| {
            e["args"]["cause"]
                .as_str()
                .is_some_and(|c| c.contains("launched by"))
        })
        .count();
    assert!(described > 0);
}

#[test]
fn a_pytorch_traces_trace_reads_back_with_the_same_busy_idle_and_a_slice_per_gap() {
    let Some(input) = corpus_file(SIMPLE_ADD) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("simple_add.trace.json.gz");
    let (_, trace) = round_trip(&input, &out);
    assert!(
        std::fs::read(&out).unwrap().starts_with(&[0x1f, 0x8b]),
        ".gz is gzip"
    );
    // The device's properties travel with it (the GPU stays decided).
    assert!(trace["deviceProperties"]
        .as_array()
        .is_some_and(|d| !d.is_empty()));
}

#[test]
fn a_trace_out_that_is_not_json_is_refused_before_any_work() {
    let (code, _, err) = rooftrace(&["gaps", "missing.sqlite", "--trace-out", "t.pftrace"]);
    assert_eq!(code, 2);
    assert!(err.contains("ending in .json or .json.gz"), "{err}");
}

#[test]
fn budget_writes_each_step_and_its_parts_laid_end_to_end() {
    let Some(input) = corpus_file("kineto/kineto_hta_sampled_rank-0.json.gz") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("b.trace.json");
    let (code, report, err) = rooftrace_json(&[
        "budget",
        input.to_str().unwrap(),
        "--gpu",
        "a100-80gb",
        "--trace-out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let trace = read_trace(&out);
    let events = trace["traceEvents"].as_array().unwrap();
    let steps: Vec<&Value> = events
        .iter()
        .filter(|e| e["cat"] == "rooftrace_step")
        .collect();
    let want = report["steps"].as_array().unwrap();
    assert_eq!(steps.len(), want.len());
    for (s, w) in steps.iter().zip(want) {
        assert_eq!(s["args"]["step_ns"], w["step_ns"]);
        // The parts (those above 0) tile the step's window exactly.
        let start = s["ts_ns"].as_i64().unwrap();
        let end = start + w["step_ns"].as_i64().unwrap();
        let mut at = start;
        for p in events.iter().filter(|e| {
            e["cat"] == "rooftrace_budget_part"
                && e["pid"] == s["pid"]
                && e["ts_ns"].as_i64().unwrap() >= start
                && e["ts_ns"].as_i64().unwrap() < end
        }) {
            assert_eq!(p["ts_ns"].as_i64().unwrap(), at);
            at += p["args"]["ns"].as_i64().unwrap();
        }
        assert_eq!(at, end, "parts sum to the step");
    }
}

/// HTA's Python, the oracle environment `.ci/run` makes, under
/// [`need`]'s rule.
fn hta_python() -> Option<PathBuf> {
    let p = std::env::var_os("ROOFTRACE_HTA_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/tmp/rooftrace-hta/bin/python"));
    need(
        p.is_file().then(|| p.clone()),
        &format!("HTA 0.5.0's Python ({}; ROOFTRACE_HTA_PYTHON names another)", p.display()),
        "python3 -m venv /tmp/rooftrace-hta && /tmp/rooftrace-hta/bin/pip install holistictraceanalysis==0.5.0 (as .ci/run does)",
    )
}

/// HTA's temporal breakdown of the one trace in `dir`: (idle µs, kernel µs).
fn hta_temporal(python: &Path, dir: &Path) -> (f64, f64) {
    let script = r#"
import logging, sys
logging.disable(logging.CRITICAL)
from hta.trace_analysis import TraceAnalysis
t = TraceAnalysis(trace_dir=sys.argv[1])
tb = t.get_temporal_breakdown(visualize=False)
row = tb.iloc[0]
print(float(row["idle_time(us)"]), float(row["kernel_time(us)"]))
"#;
    let out = std::process::Command::new(python)
        .args(["-c", script, dir.to_str().unwrap()])
        .output()
        .expect("run HTA");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "HTA failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Vec<f64> = text
        .split_whitespace()
        .map(|x| x.parse().unwrap())
        .collect();
    (v[0], v[1])
}

#[test]
fn hta_loads_both_traces_and_agrees_on_idle_within_its_rounding() {
    let Some(python) = hta_python() else {
        return;
    };
    for name in [SAXPY, SIMPLE_ADD] {
        let Some(input) = corpus_file(name) else {
            continue;
        };
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("rank0.trace.json.gz");
        let (code, report, err) = rooftrace_json(&[
            "gaps",
            input.to_str().unwrap(),
            "--trace-out",
            out.to_str().unwrap(),
        ]);
        assert_eq!(code, 0, "{err}");
        let (idle_us, span_us) = hta_temporal(&python, dir.path());
        let d = &report["devices"][0];
        let idle = d["idle_ns"].as_f64().unwrap() / 1000.0;
        let span = d["span_ns"].as_f64().unwrap() / 1000.0;
        // HTA rounds each GPU event to whole µs (start up, end down), so
        // each op may move the idle time by under 2 µs.
        let ops = report["input"]["ops"].as_f64().unwrap();
        assert!(
            (idle_us - idle).abs() <= 2.0 * ops,
            "{name}: HTA idle {idle_us} µs, rooftrace {idle} µs"
        );
        assert!(
            (span_us - span).abs() <= 2.0,
            "{name}: span {span_us} vs {span}"
        );
    }
}

#[test]
fn budget_with_ncu_puts_each_kernels_roofline_fraction_in_its_args() {
    // The budget fixture pair: steps of sgemm launches and their ncu rows.
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("sgemm_steps.sqlite");
    let sql = std::fs::read_to_string(crate::common::fixture("budget/sgemm_steps.sql")).unwrap();
    rusqlite::Connection::open(&db)
        .unwrap()
        .execute_batch(&sql)
        .unwrap();
    let out = dir.path().join("b.trace.json");
    let (code, report, err) = rooftrace_json(&[
        "budget",
        db.to_str().unwrap(),
        "--nvtx",
        "^step$",
        "--ncu",
        "fixtures/ncu/sgemm_a100_printfp_details15.csv",
        "--roofs",
        "fixtures/budget/a100-80gb-datasheet.json",
        "--trace-out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let trace = read_trace(&out);
    let events = trace["traceEvents"].as_array().unwrap();
    let mut checked = 0;
    for k in report["kernels"].as_array().unwrap() {
        let (Some(bound), Some(time)) = (k["bound_ns"].as_f64(), k["time_ns"].as_f64()) else {
            continue;
        };
        // Σ T* / Σ T of the name, from the report's own kernel row.
        let want = (bound / time * 1000.0).round() / 1000.0;
        let name = k["name"].as_str().unwrap();
        let ops: Vec<&Value> = events
            .iter()
            .filter(|e| e["cat"] == "kernel" && e["name"] == name)
            .collect();
        assert!(!ops.is_empty(), "{name}");
        for op in ops {
            assert_eq!(
                op["args"]["roofline_fraction"].as_f64(),
                Some(want),
                "{name}"
            );
            assert!(op["args"]["roofline_fraction_how"]
                .as_str()
                .is_some_and(|h| h.contains("sgemm_a100_printfp_details15.csv")));
        }
        checked += 1;
    }
    assert!(checked > 0, "a kernel with a bound");
}
