//! Steps that overlap on the GPU (pipelined training): each step owns the
//! device from the end of the previous step's GPU work to the end of its
//! own, so the steps sum to at most the device's span, the overlap is a
//! figure of its own in every format, and each step's parts still sum to
//! it (docs/budget.md, "Overlapping steps").

use crate::common::{corpus_file, rooftrace, rooftrace_json, us_to_ns as ns};
use rooftrace::synth::kineto::pipelined_steps;
use serde_json::Value;

/// (first start, last end) of every kernel, copy and memset of `device` in
/// the raw events.
fn device_span(events: &[Value], device: i64) -> (i64, i64) {
    let mut span = (i64::MAX, i64::MIN);
    for e in events {
        let cat = e["cat"].as_str().unwrap_or("");
        if e["ph"] != "X"
            || !["kernel", "gpu_memcpy", "gpu_memset"].contains(&cat)
            || e["args"]["device"].as_i64() != Some(device)
        {
            continue;
        }
        let s = ns(&e["ts"]);
        span = (span.0.min(s), span.1.max(s + ns(&e["dur"])));
    }
    span
}

/// Each step's parts sum to it exactly, none negative.
fn check_parts(doc: &Value) {
    for s in doc["steps"].as_array().unwrap() {
        let sum: i64 = s["parts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["ns"].as_i64().unwrap())
            .sum();
        assert_eq!(sum, s["step_ns"].as_i64().unwrap(), "{s}");
        assert!(s["parts"]
            .as_array()
            .unwrap()
            .iter()
            .all(|p| p["ns"].as_i64().unwrap() >= 0));
    }
}

fn field(doc: &Value, f: &str) -> Vec<i64> {
    doc["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s[f].as_i64().unwrap())
        .collect()
}

#[test]
fn pipelined_steps_are_charged_once_and_their_overlap_is_reported() {
    // Five steps, one every 10 ms on the host, each 8 ms long; step k's
    // compute kernel runs [h+1, h+9) ms and its all-reduce [h+9, h+12.5) ms
    // (h = its host start), so its GPU work ends 2.5 ms into step k+1's
    // host range [h+10, h+18) and 1.5 ms after step k+1's compute began
    // (h+11). By hand: step 0 owns [h0+1, h0+12.5) = 11.5 ms; every later
    // step owns from the previous step's end to its own, 10 ms; their sum
    // is the device's span, 4 × 10 + 11.5 = 51.5 ms. Windows taken whole
    // would sum to 5 × 11.5 = 57.5 ms.
    let doc = pipelined_steps(5, 10_000_000, 8_000_000, 8_000_000, 3_500_000).to_value();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("pipelined.pt.trace.json");
    std::fs::write(&path, serde_json::to_vec(&doc).unwrap()).unwrap();
    let p = path.to_str().unwrap();
    let events = doc["traceEvents"].as_array().unwrap();
    let (d0, d1) = device_span(events, 0);
    assert_eq!(d1 - d0, 51_500_000);
    // The windows as the raw JSON has them (first kernel start to last
    // kernel end of each step's two launches) overlap: 57.5 ms > 51.5 ms.
    let kernels: Vec<(i64, i64)> = events
        .iter()
        .filter(|e| e["cat"] == "kernel")
        .map(|e| (ns(&e["ts"]), ns(&e["ts"]) + ns(&e["dur"])))
        .collect();
    let whole: i64 = kernels.chunks(2).map(|k| k[1].1 - k[0].0).sum();
    assert_eq!(whole, 57_500_000);

    let (code, out, err) = rooftrace_json(&["budget", p, "--gpu", "a100-40gb"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        field(&out, "step_ns"),
        vec![11_500_000, 10_000_000, 10_000_000, 10_000_000, 10_000_000]
    );
    assert_eq!(field(&out, "step_ns").iter().sum::<i64>(), d1 - d0);
    assert_eq!(
        field(&out, "previous_overlap_ns"),
        vec![0, 1_500_000, 1_500_000, 1_500_000, 1_500_000]
    );
    assert_eq!(
        field(&out, "next_host_overlap_ns"),
        vec![2_500_000, 2_500_000, 2_500_000, 2_500_000, 0]
    );
    // Owned windows start where the previous step's work ended.
    let (starts, ends) = (field(&out, "gpu_start_ns"), field(&out, "gpu_end_ns"));
    assert!(starts[1..].iter().zip(&ends).all(|(s, e)| s == e));
    check_parts(&out);
    // No bound given: compute kernels' charged time is "without counters";
    // the all-reduces (NCCL kernels) are charged only where no compute
    // runs: exposed communication, never shortfall. By hand: all-reduce k
    // [h+9, h+12.5) runs under compute k+1 from h+11, so 2 ms of it is
    // exposed (3.5 ms for the last step), and compute k+1's first 1.5 ms
    // falls in step k's window: steps 0-3 are 9.5/8/8/8 ms of compute and
    // 2 ms of exposed communication, step 4 6.5 + 3.5. No idle time.
    let part = |s: &Value, n: &str| {
        s["parts"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["name"] == n)
            .unwrap()["ns"]
            .as_i64()
            .unwrap()
    };
    let steps = out["steps"].as_array().unwrap();
    let exposed: Vec<i64> = steps.iter().map(|s| part(s, "exposed_comm")).collect();
    assert_eq!(
        exposed,
        vec![2_000_000, 2_000_000, 2_000_000, 2_000_000, 3_500_000]
    );
    let compute: Vec<i64> = steps
        .iter()
        .map(|s| part(s, "kernels_without_counters"))
        .collect();
    assert_eq!(
        compute,
        vec![9_500_000, 8_000_000, 8_000_000, 8_000_000, 6_500_000]
    );
    // The same exposed communication as `gaps` finds on the device.
    let (_, g, _) = rooftrace_json(&["gaps", p]);
    assert_eq!(
        g["devices"][0]["exposed_comm_ns"].as_i64().unwrap(),
        exposed.iter().sum::<i64>()
    );
    let said = out["diagnostics"].to_string();
    assert!(
        said.contains(
            "4 steps began on the GPU while the step before still ran (6000000 ns in all)"
        ),
        "{said}"
    );

    // Every format carries the overlap.
    let (_, table, _) = rooftrace(&["budget", p, "--gpu", "a100-40gb"]);
    assert!(table.contains("steps overlap: 4 of 5 steps' GPU work ran during the next step's host time (10.0 ms in all, at most 2.50 ms in one step)"), "{table}");
    assert!(table.contains("into next host"), "{table}");
    let (_, md, _) = rooftrace(&["budget", p, "--gpu", "a100-40gb", "--format", "md"]);
    assert!(md.contains("steps overlap: 4 of 5"), "{md}");
    let (_, csv, _) = rooftrace(&["budget", p, "--gpu", "a100-40gb", "--format", "csv"]);
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let col = |n: &str| header.iter().position(|h| *h == n).unwrap();
    let row1: Vec<&str> = csv.lines().nth(2).unwrap().split(',').collect();
    assert_eq!(row1[col("previous_overlap_ns")], "1500000");
    assert_eq!(row1[col("next_host_overlap_ns")], "2500000");
}

#[test]
fn a_real_trace_whose_second_step_ran_over_the_first_sums_to_at_most_the_span() {
    // trace_compare_test (HTA's test data): ProfilerStep#1009's one
    // launched kernel runs inside the host range of ProfilerStep#1010, which
    // launched nothing and so keeps its host range as its window. The two
    // windows overlap; charged once, the steps sum to at most the device's
    // span (computed from the raw JSON), the second starts where the first's
    // GPU work ended, and the first's GPU time inside the second's host
    // range is reported.
    let Some(path) = corpus_file("kineto/kineto_hta_trace_compare_test.json.gz") else {
        return;
    };
    let events = crate::kineto::raw_events(&path);
    let p = path.to_str().unwrap();
    let (code, out, err) = rooftrace_json(&["budget", p, "--gpu", "a100-40gb"]);
    assert_eq!(code, 0, "{err}");
    check_parts(&out);
    let steps = out["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 2);
    let device = steps[0]["device"].as_i64().unwrap();
    let (d0, d1) = device_span(&events, device);
    let sum: i64 = field(&out, "step_ns").iter().sum();
    assert!(sum <= d1 - d0, "{sum} > {}", d1 - d0);
    let host: Vec<(i64, i64)> = events
        .iter()
        .filter(|e| {
            e["name"]
                .as_str()
                .unwrap_or("")
                .starts_with("ProfilerStep#")
        })
        .map(|e| (ns(&e["ts"]), ns(&e["ts"]) + ns(&e["dur"])))
        .collect();
    let (w0, w1) = (
        steps[0]["gpu_work_start_ns"].as_i64().unwrap(),
        steps[0]["gpu_end_ns"].as_i64().unwrap(),
    );
    // Step 0's GPU work lies inside step 1's host range (raw JSON).
    assert!(host[1].0 <= w0 && w1 <= host[1].1, "{host:?} {w0} {w1}");
    assert_eq!(steps[0]["next_host_overlap_ns"].as_i64().unwrap(), w1 - w0);
    assert_eq!(steps[1]["gpu_start_ns"].as_i64().unwrap(), w1);
    assert_eq!(steps[1]["gpu_work_start_ns"].as_i64().unwrap(), host[1].0);
    assert_eq!(
        steps[1]["previous_overlap_ns"].as_i64().unwrap(),
        w1 - host[1].0
    );
}
