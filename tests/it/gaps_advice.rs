//! `rooftrace gaps`: advice that holds on traces nobody here has seen
//! (issue 29). Each pattern a new user met is rebuilt with
//! `rooftrace::synth::scene` in the real format (a graph-launched memset
//! waiting on host sync, an 18.6 ms untraced CPU stretch beside two short
//! `aten::` ops, nested same-name annotations, a 4 s `getc`), or read
//! from the corpus where a file shows it (Kineto's negative thread ids);
//! the expected numbers are placed by hand in the scene and explained.

use crate::common::{corpus_file, rooftrace, rooftrace_json};
use rooftrace::gaps::{analyze, GapClass, GapConfig, HostDetail};
use rooftrace::synth::scene::{KinetoScene, NsysScene};
use std::path::Path;

fn no_progress(_: u64, _: u64) {}

fn nsys_report(path: &Path) -> rooftrace::gaps::GapReport {
    let tl = rooftrace::nsys::read_timeline(path, false, &no_progress).unwrap();
    analyze(&tl, &GapConfig::default())
}

fn kineto_report(path: &Path) -> rooftrace::gaps::GapReport {
    let tl = rooftrace::kineto::read_timeline(path).unwrap().timeline;
    analyze(&tl, &GapConfig::default())
}

/// The first line of `rooftrace gaps FILE`: the verdict.
fn verdict(path: &Path) -> String {
    let (code, out, err) = rooftrace(&["gaps", path.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    out.lines().next().unwrap_or_default().to_string()
}

const MS: i64 = 1_000_000;

/// A `cudaGraphLaunch` at 1.00 ms queues a 1.4 kB memset on stream 7 (the
/// stream of the kernel before it) that starts only at 66.0 ms, while the
/// host sits in `cudaDeviceSynchronize` from 1.02 ms to 66.005 ms and no
/// copy runs anywhere: the gap [1.1 ms, 66.0 ms) = 64.9 ms waited on
/// something the export cannot show. Before issue 29 it was "copy-engine
/// scheduling" (a queued memset on the stream of the op before, no wait
/// event) and the verdict said "batch small copies".
fn graph_memset_scene(path: &Path, other_stream_memset: bool) {
    let mut s = NsysScene::new();
    s.runtime("cudaLaunchKernel_v7000", 900_000, 905_000, 1)
        .kernel("step_kernel", 7, MS, 1_100_000, 1)
        .runtime("cudaGraphLaunch_v10000", MS, 1_010_000, 2)
        .memset(7, 66 * MS, 66 * MS + 1_000, 2, 1_400)
        .runtime("cudaDeviceSynchronize_v3020", 1_020_000, 66 * MS + 5_000, 3)
        .runtime(
            "cudaLaunchKernel_v7000",
            66 * MS + 10_000,
            66 * MS + 15_000,
            4,
        )
        .kernel("step_kernel", 7, 66 * MS + 20_000, 66 * MS + 120_000, 4);
    if other_stream_memset {
        // Another stream's memset on the device from 1.2 to 60 ms: the
        // memset engine was held during stream 7's gap.
        s.runtime("cudaMemsetAsync_v3020", 1_150_000, 1_160_000, 5)
            .memset(9, 1_200_000, 60 * MS, 5, 1 << 30);
    }
    s.write(path).unwrap();
}

#[test]
fn a_graph_launched_memset_waiting_on_host_sync_is_a_dependency_not_copy_scheduling() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("graph_memset.sqlite");
    graph_memset_scene(&db, false);
    let r = nsys_report(&db);
    let d = &r.devices[0];
    // The only gaps: [1.1 ms, 66.0 ms) before the memset (queued: its call
    // returned at 1.01 ms) and [66.001 ms, 66.02 ms) before the last
    // kernel (its call started at 66.01 ms, after the gap opened: host-bound).
    assert_eq!(d.classes.get(GapClass::CopyScheduling).count, 0);
    let q = d.classes.get(GapClass::QueuedDependency);
    assert_eq!((q.count, q.total_ns), (1, 66 * MS - 1_100_000));
    let g = &r.top_gaps[0];
    assert_eq!(g.class, GapClass::QueuedDependency);
    let e = g.queued.as_ref().unwrap();
    // 1.1 ms - 1.01 ms: the launch returned 90 µs before the gap.
    assert_eq!(e.launched_before_ns, 90_000);
    assert!(!e.dependency_seen && e.engine_busy_with.is_none());
    // The host sat in the sync over the whole gap: 64.9 ms.
    assert_eq!(e.host_meanwhile, HostDetail::CudaApi);
    assert_eq!(e.host_meanwhile_ns, 66 * MS - 1_100_000);
    let host = g.host.as_deref().unwrap();
    assert!(
        host.contains("queued by cudaGraphLaunch_v10000 90.0 µs before the gap")
            && host.contains("no dependency in the trace")
            && host.contains("cudaDeviceSynchronize_v3020"),
        "{host}"
    );
    let v = verdict(&db);
    assert!(
        v.contains("queued/dependency") && !v.contains("batch small copies"),
        "{v}"
    );
}

#[test]
fn a_queued_memset_beside_another_streams_memset_is_copy_scheduling() {
    // The same scene with a memset on stream 9 running from 1.2 to 60 ms:
    // on stream 7 the gap [1.1 ms, 66.0 ms) before its memset overlaps it,
    // so the stream view calls it copy-engine scheduling (stream gaps are
    // not device idle: another stream ran).
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("graph_memset_busy.sqlite");
    graph_memset_scene(&db, true);
    let r = nsys_report(&db);
    let s7 = r.streams.iter().find(|s| s.stream == 7).unwrap();
    let c = s7.classes.get(GapClass::CopyScheduling);
    assert_eq!((c.count, c.total_ns), (1, 66 * MS - 1_100_000));
    // On the device the memset of stream 9 is busy time; the gap after it
    // [60 ms, 66 ms) sees no copy (this process's own ops never run in its
    // device gaps): queued/dependency.
    assert_eq!(r.devices[0].classes.get(GapClass::CopyScheduling).count, 0);
}

/// Kernel A ends at 1.010 ms; `aten::matmul` runs 278 µs right after it,
/// `aten::add` from 19.599 ms holds the launch call (19.600 to 19.605 ms)
/// of kernel B (19.610 ms): between them 18.3 ms with no CPU op and no
/// runtime call. The host window is [1.010, 19.605) ms = 18.595 ms.
fn cpu_stretch_scene() -> KinetoScene {
    let mut s = KinetoScene::new();
    s.cpu_op("aten::mm", 100, 990.0, 6.0)
        .runtime("cudaLaunchKernel", 100, 992.0, 3.0, 1)
        .kernel("gemm", 7, 1_000.0, 10.0, 1)
        .cpu_op("aten::matmul", 100, 1_010.0, 278.0)
        .cpu_op("aten::add", 100, 19_599.0, 21.0)
        .runtime("cudaLaunchKernel", 100, 19_600.0, 5.0, 2)
        .kernel("add", 7, 19_610.0, 10.0, 2);
    s
}

#[test]
fn untraced_cpu_time_is_cpu_work_not_the_range_beside_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("stretch.json");
    cpu_stretch_scene().write(&path).unwrap();
    let r = kineto_report(&path);
    let g = &r.top_gaps[0];
    assert_eq!((g.start_ns, g.end_ns), (1_010_000, 19_610_000));
    assert_eq!(g.class, GapClass::HostBound);
    // aten::matmul covers 278 µs and aten::add 6 µs of the 18.595 ms
    // window (1.5 % and 0.03 %), far from the half a range needs to name
    // it: CPU work, covering the window less the 5 µs launch call.
    let e = g.host_evidence.unwrap();
    assert_eq!(e.detail, HostDetail::CpuWork);
    let host = g.host.as_deref().unwrap();
    assert_eq!(host, "(CPU work (no API call), 18.6 ms)");
    // The ranges are still listed, with their true share of the gap
    // (18.6 ms): 278 µs and 11 µs (aten::add from 19.599 to 19.610 ms).
    let shares: Vec<(&str, i64)> = g.ranges.iter().map(|x| (r.name(x.text_id), x.ns)).collect();
    assert_eq!(
        shares,
        vec![("aten::matmul", 278_000), ("aten::add", 11_000)]
    );
    // The fix is the CPU stretch's, in torch.profiler's terms: no
    // torch.compile for 18 ms of CPU time, no nsys flag for a trace.
    let fix = r.gap_fix(g);
    assert!(
        fix.contains("with_stack=True") && !fix.contains("nsys"),
        "{fix}"
    );
    let v = verdict(&path);
    assert!(
        !v.contains("torch.compile (") && !v.contains("nsys") && v.contains("with_stack=True"),
        "{v}"
    );
}

#[test]
fn nested_same_name_annotations_count_once() {
    // The stretch scene inside two nested `step` annotations that both
    // cover the whole gap [1.010, 19.610) ms: the text covers the gap
    // once (100 %), not twice (200 %), and since it covers more than half
    // the host window it names the CPU time (a user's range: the CPU
    // stretch's fix, not PyTorch's).
    let mut s = cpu_stretch_scene();
    s.annotation("step", 100, 1_000.0, 19_630.0)
        .annotation("step", 100, 1_005.0, 19_620.0);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nested.json");
    s.write(&path).unwrap();
    let r = kineto_report(&path);
    let g = &r.top_gaps[0];
    let step = g
        .ranges
        .iter()
        .find(|x| r.name(x.text_id) == "step")
        .unwrap();
    assert_eq!(step.ns, g.duration_ns);
    assert_eq!(g.host_evidence.unwrap().detail, HostDetail::Nvtx);
    // The window [1.010, 19.605) ms is inside both: 18.595 ms covered.
    assert_eq!(
        g.host.as_deref(),
        // A PyTorch trace's annotation: a PyTorch range, not NVTX (issue 33).
        Some("`step` (inside a PyTorch range, 18.6 ms)")
    );
    let md = {
        let (code, out, err) = rooftrace(&["gaps", path.to_str().unwrap(), "--format", "md"]);
        assert_eq!(code, 0, "{err}");
        out
    };
    assert!(
        md.contains("(100.0 %)") && !md.contains("(200.0 %)"),
        "{md}"
    );
}

#[test]
fn a_long_getc_is_waiting_for_input() {
    // Kernel A ends at 1.1 ms; the host thread blocks in `getc` from 1.2
    // ms to 4.0012 s (4 s, reading its terminal), then launches kernel B
    // at 4.3 s. Window [1.1 ms, 4.300005 s): getc covers 4 s of 4.299 s.
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("getc.sqlite");
    let mut s = NsysScene::new();
    s.runtime("cudaLaunchKernel_v7000", 900_000, 905_000, 1)
        .kernel("step_kernel", 7, MS, 1_100_000, 1)
        .osrt("getc", 1_200_000, 4_001_200_000)
        .osrt("write", 4_100_000_000, 4_100_050_000)
        .runtime("cudaLaunchKernel_v7000", 4_300_000_000, 4_300_005_000, 2)
        .kernel("step_kernel", 7, 4_300_010_000, 4_300_110_000, 2);
    s.write(&db).unwrap();
    let r = nsys_report(&db);
    let d = r.devices[0].host_detail.get(HostDetail::InputWait);
    assert_eq!((d.count, d.total_ns), (1, 4_300_010_000 - 1_100_000));
    assert_eq!(r.devices[0].host_detail.get(HostDetail::OsRuntime).count, 0);
    let host = r.top_gaps[0].host.as_deref().unwrap();
    assert_eq!(host, "getc (waiting for input, 4.00 s)");
    let v = verdict(&db);
    assert!(
        v.contains("fix first: profile a non-interactive run") && !v.contains("prefetch"),
        "{v}"
    );
    let (code, j, _) = rooftrace_json(&["gaps", db.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert_eq!(j["devices"][0]["host_detail"]["input_wait"]["count"], 1);
}

#[test]
fn a_pytorch_trace_without_launch_rows_is_told_torch_profiler_settings() {
    // Two kernels whose launches the trace did not record (no runtime
    // event carries their correlation ids): the gap between them is
    // unattributed. Its fix names torch.profiler's activities, never
    // nsys's --trace=cuda.
    let mut s = KinetoScene::new();
    s.cpu_op("aten::mm", 100, 990.0, 6.0)
        .kernel("gemm", 7, 1_000.0, 10.0, 41)
        .kernel("gemm", 7, 2_000.0, 10.0, 42);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("no_launches.json");
    s.write(&path).unwrap();
    let r = kineto_report(&path);
    let g = &r.top_gaps[0];
    assert_eq!(g.class, GapClass::Unattributed);
    let fix = r.gap_fix(g);
    assert!(
        fix.contains("torch.profiler activities=") && !fix.contains("--trace"),
        "{fix}"
    );
    let (code, md, _) = rooftrace(&["gaps", path.to_str().unwrap(), "--format", "md"]);
    assert_eq!(code, 0);
    assert!(
        !md.contains("--trace=cuda") && md.contains("ProfilerActivity.CUDA"),
        "{md}"
    );
}

#[test]
fn kinetos_negative_thread_ids_are_read_not_skipped() {
    let Some(path) = corpus_file("kineto/kineto_hta_nccl_allreduce_rank0.json.gz") else {
        return;
    };
    // From the raw JSON: the runtime events with a negative tid (Kineto
    // writes the 32-bit thread id signed), and the unsigned ids they wrap.
    let raw: serde_json::Value = {
        let f = std::fs::File::open(&path).unwrap();
        serde_json::from_reader(flate2::read::GzDecoder::new(f)).unwrap()
    };
    let neg: Vec<(u32, i64)> = raw["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["cat"] == "cuda_runtime" && e["tid"].as_i64().is_some_and(|t| t < 0))
        .map(|e| {
            let t = e["tid"].as_i64().unwrap();
            (
                (t + (1i64 << 32)) as u32,
                e["args"]["correlation"].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(neg.len(), 42);
    let t = rooftrace::kineto::read_timeline(&path).unwrap().timeline;
    // Each is a runtime call of its wrapped thread (cudaEventQuery: a query,
    // kept as an API call with its correlation id).
    for (tid, corr) in &neg {
        assert!(
            t.api
                .iter()
                .any(|a| a.tid == *tid && i64::from(a.correlation_id) == *corr),
            "tid {tid} correlation {corr}"
        );
    }
    // And no note calls them skipped.
    assert!(
        !t.diagnostics.iter().any(|d| matches!(
            d.kind,
            rooftrace::timeline::DiagnosticKind::SkippedEvents { .. }
        )),
        "{:?}",
        t.diagnostics
    );
}

/// Every pixel column of the idle lanes of the default timeline window is
/// drawn as the state that held most of its time, recomputed here from the
/// timeline: busy is the union of the device's ops (from the timeline's
/// rows, not the gap model) inside the column, each class's time the part
/// of the report's classified gaps of that class inside it.
fn columns_match_the_timeline(tl: &rooftrace::timeline::Timeline) {
    use rooftrace::plot::timeline::{BarWhat, TimelineChart, TimelineInput};
    let cfg = GapConfig {
        keep_gaps: true,
        ..GapConfig::default()
    };
    let report = analyze(tl, &cfg);
    let input = TimelineInput::from_gaps(tl, &report, None, "x").unwrap();
    let chart = TimelineChart::build(&input).unwrap();
    let gaps = report.gaps.as_deref().unwrap();
    let (mut checked, mut idle_columns) = (0, 0);
    for (lane, row) in chart.lanes.iter().enumerate() {
        let Some(who) = row.label.strip_suffix(" idle gaps") else {
            continue;
        };
        // One process in these inputs: the lane is `GPU <device>`.
        let device: u16 = who.trim_start_matches("GPU ").parse().unwrap();
        let pid = tl.ops.iter().find(|o| o.device == device).unwrap().pid;
        let ops: Vec<(i64, i64)> = tl
            .ops
            .iter()
            .filter(|o| (o.pid, o.device) == (pid, device))
            .map(|o| (o.start_ns, o.end_ns))
            .collect();
        for x in chart.plot.left..chart.plot.right {
            let (c0, c1) = chart.column_ns(x).unwrap();
            // Busy: the union of the ops clipped to the column.
            let mut parts: Vec<(i64, i64)> = ops
                .iter()
                .map(|&(s, e)| (s.max(c0), e.min(c1)))
                .filter(|(s, e)| e > s)
                .collect();
            parts.sort_unstable();
            let (mut busy, mut reach) = (0i64, c0);
            for (s, e) in parts {
                if e > reach {
                    busy += e - s.max(reach);
                    reach = e;
                }
            }
            let mut by_class = [0i64; 9];
            for g in gaps.iter().filter(|g| (g.pid, g.device) == (pid, device)) {
                let ns = g.end_ns.min(c1) - g.start_ns.max(c0);
                if ns > 0 {
                    by_class[g.class as usize] += ns;
                }
            }
            // Time outside the device's span (before its first op, after
            // its last) is neither idle nor drawn: it counts with busy.
            let outside = (c1 - c0) - busy - by_class.iter().sum::<i64>();
            assert!(outside >= 0, "column {x}: busy and idle overlap");
            let want = GapClass::ALL
                .into_iter()
                .filter(|k| by_class[*k as usize] > 0)
                .max_by_key(|k| (by_class[*k as usize], std::cmp::Reverse(*k as usize)))
                .filter(|k| by_class[*k as usize] > busy + outside);
            let drawn = chart.bars.iter().find_map(|b| match b.what {
                BarWhat::Gap(c)
                    if b.rect.top >= row.rect.top
                        && b.rect.bottom <= row.rect.bottom
                        && (b.rect.left..b.rect.right).contains(&x) =>
                {
                    Some(c)
                }
                _ => None,
            });
            assert_eq!(drawn, want, "lane {lane} column {x} [{c0}, {c1})");
            checked += 1;
            idle_columns += usize::from(drawn.is_some());
        }
    }
    // The legend names only classes some column is drawn as.
    for item in chart
        .legend
        .items
        .iter()
        .filter(|i| i.text.starts_with("gap: "))
    {
        assert!(
            chart.bars.iter().any(
                |b| matches!(b.what, BarWhat::Gap(c) if item.text == format!("gap: {}", c.label()))
            ),
            "legend entry {} is never drawn",
            item.text
        );
    }
    // Both states occur: the check compares something.
    assert!(
        checked > 500 && idle_columns > 0 && idle_columns < checked,
        "{idle_columns} of {checked}"
    );
}

#[test]
fn each_timeline_column_is_drawn_as_the_state_with_most_of_its_time() {
    // CloverLeaf (nsys, fixtures/) and a PyTorch trace's busiest stretch.
    let path = crate::common::fixture("nsys/nsys2024.5.1_pipit_cloverleaf.sqlite");
    columns_match_the_timeline(
        &rooftrace::nsys::read_timeline(&path, false, &no_progress).unwrap(),
    );
    let path = crate::common::fixture("kineto/sampled_rank-1.json.gz");
    columns_match_the_timeline(&rooftrace::kineto::read_timeline(&path).unwrap().timeline);
}
