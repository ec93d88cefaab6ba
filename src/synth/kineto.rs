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
    let (mut lo, mut hi, mut max_id) = (f64::MAX, f64::MIN, 0i64);
    for e in &events {
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
    let period = (hi - lo).max(0.0).ceil() as i64 + 1000;
    let stride = max_id + 1;
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
            shift(&mut e["ts"], r * period);
            for id in ["correlation", "External id"] {
                if let Some(v) = e.get_mut("args").and_then(|a| a.get_mut(id)) {
                    shift(v, r * stride);
                }
            }
            if let Some(v) = e.get_mut("id") {
                shift(v, r * stride);
            }
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
