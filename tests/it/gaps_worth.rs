//! `rooftrace gaps`: advice weighed by what it is worth (issue 45 item 2).
//! A fix for idle is put first only when the idle it addresses is at least
//! 5 % of the span; on a busier GPU the verdict says the kernels are the
//! lever. Gaps paid once (inside warm-up ranges, before a slow first
//! launch) are named apart and the advice is for the steady state. Fixes
//! are in the input's terms: a program that replays CUDA graphs is not
//! told to adopt them, a PyTorch job is told its caching allocator's knobs.
//! Scenes are placed by hand (`synth::scene`), corpus files recomputed from
//! their raw rows.

use crate::common::{corpus_file, rooftrace, rooftrace_json};
use rooftrace::gaps::{analyze, GapClass, GapConfig};
use rooftrace::synth::scene::KinetoScene;
use std::io::Read;
use std::path::Path;

const US: i64 = 1_000;

fn verdict(path: &Path) -> String {
    let (code, out, err) = rooftrace(&["gaps", path.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    out.lines().next().unwrap_or_default().to_string()
}

fn kineto_report(path: &Path) -> rooftrace::gaps::GapReport {
    let tl = rooftrace::kineto::read_timeline(path).unwrap().timeline;
    analyze(&tl, &GapConfig::default())
}

/// Ten steady launches after `t0` µs, each kernel 100 µs, issued 300 µs
/// after the previous one ended: ten host-bound gaps of CPU work (no call)
/// of 300 µs each (mid-scale: "profile the host between launches").
fn steady_loop(s: &mut KinetoScene, t0: f64, corr0: i64) {
    for i in 0..10 {
        let t = t0 + i as f64 * 400.0;
        s.runtime("cudaLaunchKernel", 100, t + 290.0, 5.0, corr0 + i)
            .kernel("steady_kernel", 7, t + 300.0, 100.0, corr0 + i);
    }
}

#[test]
fn idle_inside_a_warm_up_range_is_one_time_and_the_advice_is_for_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("warm.json");
    let mut s = KinetoScene::new();
    // Warm-up [0, 100 ms): a kernel [10, 20) µs, then a 90 ms cudaMalloc
    // and the next kernel at 90.05 ms: the gap [20 µs, 90.05 ms) = 90.03 ms
    // is host-bound allocation, wholly inside the warm-up range.
    s.annotation("Warm-up step", 100, 0.0, 100_000.0)
        .runtime("cudaLaunchKernel", 100, 0.0, 5.0, 1)
        .kernel("steady_kernel", 7, 10.0, 10.0, 1)
        .runtime("cudaMalloc", 100, 30.0, 90_000.0, 2)
        .runtime("cudaLaunchKernel", 100, 90_040.0, 5.0, 3)
        .kernel("steady_kernel", 7, 90_050.0, 10.0, 3);
    // Steady state from 100 ms: the first loop gap opens at 90.06 ms and
    // lies 9.94 of its 10.24 ms inside the range (one-time too); the nine
    // after it are steady.
    steady_loop(&mut s, 100_000.0, 10);
    s.write(&path).unwrap();
    let r = kineto_report(&path);
    let once = &r.devices[0].one_time;
    // 90.03 ms + (100.29 − 90.06 + 0.01 =) the gap [90.06, 100.30) ms.
    let first_loop_gap = 100_300 * US - 90_060 * US;
    assert_eq!(once.warmup_ns, 90_030 * US + first_loop_gap);
    assert_eq!(once.gaps, 2);
    assert_eq!(once.first_launch_ns, 0);
    // The steady state is the nine 300 µs CPU-work gaps: its fix is the
    // mid-scale host profile, not the allocation the warm-up did.
    let v = verdict(&path);
    assert!(v.contains("one-time 100 ms"), "{v}");
    assert!(
        v.contains("inside warm-up ranges (e.g. `Warm-up step`)"),
        "{v}"
    );
    assert!(
        v.contains("fix first: profile the host between launches"),
        "{v}"
    );
    assert!(!v.contains("caching allocator"), "{v}");
    // The classes still sum to idle; the one-time ones are a part of them.
    let d = &r.devices[0];
    assert_eq!(d.classes.total_ns(), d.idle_ns);
    assert_eq!(once.classes.get(GapClass::HostBound).total_ns, once.idle_ns);
}

#[test]
fn a_slow_first_launch_is_one_time_a_slow_later_launch_is_not() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("first.json");
    let mut s = KinetoScene::new();
    // `a` [10, 20) µs; `b`'s first launch call lasts 5 ms (module load)
    // and `b` runs at 5.04 ms: the gap [20, 5040) µs (a slow launch call)
    // is one-time. `b`'s second launch lasts 3 ms too, but `b` is loaded:
    // the gap [5.05, 8.07) ms is steady.
    s.runtime("cudaLaunchKernel", 100, 0.0, 5.0, 1)
        .kernel("a", 7, 10.0, 10.0, 1)
        .runtime("cudaLaunchKernel", 100, 30.0, 5_000.0, 2)
        .kernel("b", 7, 5_040.0, 10.0, 2)
        .runtime("cudaLaunchKernel", 100, 5_060.0, 3_000.0, 3)
        .kernel("b", 7, 8_070.0, 10.0, 3);
    s.write(&path).unwrap();
    let r = kineto_report(&path);
    let once = &r.devices[0].one_time;
    assert_eq!(once.first_launch_ns, 5_020 * US);
    assert_eq!((once.gaps, once.warmup_ns), (1, 0));
    assert_eq!(
        once.classes.get(GapClass::LaunchInFlight).total_ns,
        5_020 * US
    );
    let steady = r.devices[0].classes.less(&once.classes);
    assert_eq!(steady.get(GapClass::LaunchInFlight).total_ns, 3_020 * US);
    let v = verdict(&path);
    assert!(v.contains("before slow first launches"), "{v}");
}

/// The verdict's rule from the report's JSON: the largest idle class's
/// time against the span.
fn largest_share(json: &serde_json::Value) -> f64 {
    let mut by_class = std::collections::BTreeMap::<String, i64>::new();
    let mut span = 0i64;
    for d in json["devices"].as_array().unwrap() {
        span += d["span_ns"].as_i64().unwrap();
        for (k, v) in d["classes"].as_object().unwrap() {
            *by_class.entry(k.clone()).or_default() += v["total_ns"].as_i64().unwrap();
        }
    }
    *by_class.values().max().unwrap() as f64 / span as f64
}

#[test]
fn a_busy_gpu_is_told_the_kernels_are_the_lever_not_an_idle_fix() {
    // tls-search: idle 6.0 % of 2.35 s, host-bound 81.9 % of it: 4.9 % of
    // the span. CloverLeaf: 33.9 % of 11.3 %: 3.8 %. Balinski: 47.3 % of
    // 82.3 %: 39 %, an idle fix worth making first.
    for (file, busy) in [
        ("nsys/nsys2023.1.2_gtls_tls-search.sqlite", true),
        ("nsys/nsys2024.5.1_pipit_cloverleaf.sqlite", true),
        ("nsys/nsys2025.5.1_balinski-gomory_report3.sqlite", false),
    ] {
        let Some(path) = corpus_file(file) else {
            return;
        };
        let p = path.to_str().unwrap();
        let (code, json, err) = rooftrace_json(&["gaps", p]);
        assert_eq!(code, 0, "{err}");
        assert_eq!(largest_share(&json) < 0.05, busy, "{file}");
        let v = verdict(&path);
        assert_eq!(v.contains("the kernels are the lever"), busy, "{file}: {v}");
        assert_eq!(v.contains("fix first"), !busy, "{file}: {v}");
        if busy {
            assert!(v.contains("rooftrace ncu"), "{v}");
        }
    }
}

#[test]
fn a_program_that_replays_cuda_graphs_is_told_to_widen_them() {
    let Some(path) = corpus_file("nsys/nsys2025.5.2_flameox_cudagraph-smoke.sqlite") else {
        return;
    };
    let v = verdict(&path);
    assert!(v.contains("already replays CUDA graphs"), "{v}");
    assert!(!v.contains("fix first: CUDA graphs, or fewer"), "{v}");
    // One without graph launches keeps the plain advice (the fix table's
    // `call:launch` row for an nsys export).
    let plain = rooftrace::gaps::FixTerms::default();
    assert_eq!(
        rooftrace::gaps::CallFamily::Launch.fix_in(plain),
        "CUDA graphs, or fewer, larger kernels (launch overhead)"
    );
}

/// PyTorch's benchmark harness trace: `[param|…|warmup|forward]`
/// annotations hold almost all of a 16 s span. The one-time time is
/// recomputed here from the raw JSON: the GPU ops' union, its gaps, and
/// the share of each inside the merged warm-up annotations (integer µs
/// timestamps in this file, so ns are exact).
#[test]
fn the_warm_up_of_a_real_trace_is_recomputed_from_its_raw_events() {
    let Some(path) = corpus_file("kineto/kineto_hta_simple_add.json.gz") else {
        return;
    };
    let mut text = String::new();
    flate2::read::GzDecoder::new(std::fs::File::open(&path).unwrap())
        .read_to_string(&mut text)
        .unwrap();
    let raw: serde_json::Value = serde_json::from_str(&text).unwrap();
    let events = raw["traceEvents"].as_array().unwrap();
    let span = |e: &serde_json::Value| {
        let ts = e["ts"].as_i64().unwrap() * US;
        (ts, ts + e["dur"].as_i64().unwrap() * US)
    };
    let mut ops: Vec<(i64, i64)> = events
        .iter()
        .filter(|e| {
            matches!(
                e["cat"].as_str(),
                Some("kernel" | "gpu_memcpy" | "gpu_memset")
            )
        })
        .map(span)
        .collect();
    ops.sort_unstable();
    let mut warm: Vec<(i64, i64)> = events
        .iter()
        .filter(|e| e["cat"] == "user_annotation")
        .filter(|e| e["name"].as_str().unwrap().contains("warmup"))
        .map(span)
        .collect();
    warm.sort_unstable();
    let inside = |a: i64, b: i64| -> i64 {
        // The annotations nest or repeat; merge them first.
        let mut merged: Vec<(i64, i64)> = Vec::new();
        for &(s, e) in &warm {
            match merged.last_mut() {
                Some(m) if s <= m.1 => m.1 = m.1.max(e),
                _ => merged.push((s, e)),
            }
        }
        merged
            .iter()
            .map(|&(s, e)| (e.min(b) - s.max(a)).max(0))
            .sum()
    };
    let (mut end, mut expected) = (ops[0].1, 0i64);
    for &(s, e) in &ops[1..] {
        if s > end && 2 * inside(end, s) >= s - end {
            expected += s - end;
        }
        end = end.max(e);
    }
    let r = kineto_report(&path);
    let got: i64 = r.devices.iter().map(|d| d.one_time.warmup_ns).sum();
    assert_eq!(got, expected);
    // Nearly all of the idle: the steady state is the `measure` part.
    let idle: i64 = r.devices.iter().map(|d| d.idle_ns).sum();
    assert!(got as f64 > 0.95 * idle as f64, "{got} of {idle}");
    // Its steady state empties PyTorch's cache (`[param|clear_cache]`):
    // the fix is about empty_cache, not writing an allocator.
    let v = verdict(&path);
    assert!(v.contains("torch.cuda.empty_cache()"), "{v}");
    assert!(!v.contains("use a caching allocator"), "{v}");
}
