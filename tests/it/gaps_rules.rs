//! `rooftrace gaps`: the rules docs/gaps.md settles for a second
//! implementation that the corpus never exercises (issue 45 item 7): what
//! occupies a copy engine, ties between classes, the case of range
//! families, the input-wait threshold per call. Each scene is built with
//! `rooftrace::synth::scene`, its expected numbers placed by hand and
//! explained beside it.

use crate::common::rooftrace;
use rooftrace::gaps::{analyze, GapClass, GapConfig, GapReport, HostDetail, RangeFamily};
use rooftrace::synth::scene::NsysScene;
use rusqlite::Connection;
use std::path::Path;

fn no_progress(_: u64, _: u64) {}

fn nsys_report(path: &Path) -> GapReport {
    let tl = rooftrace::nsys::read_timeline(path, false, &no_progress).unwrap();
    analyze(&tl, &GapConfig::default())
}

/// The scene's process (`NSYS_GLOBAL_PID` = 7 << 24).
const PID: u32 = 7;

/// Process 7 on device 0: a kernel on stream 7 over [20 µs, 100 µs)
/// (launched 10-15 µs), then a 4 kB HtoD `cudaMemcpyAsync` on stream 7
/// whose call returned at 35 µs but whose copy runs only over
/// [200 µs, 210 µs). The one device gap is [100 µs, 200 µs) = 100 µs:
/// the copy was queued by `g0` and the GPU idled over `--latency` (5 µs),
/// so it is queued/dependency unless another copy held the HtoD engine.
/// `other` is that other copy, (start, end, copyKind, deviceId), written
/// as a memcpy of process 8 (`globalPid` 8 << 24, no launch row).
fn engine_scene(path: &Path, other: (i64, i64, i64, i64)) {
    let mut s = NsysScene::new();
    s.runtime("cudaLaunchKernel_v7000", 10_000, 15_000, 1)
        .kernel("k", 7, 20_000, 100_000, 1)
        .runtime("cudaMemcpyAsync_v3020", 30_000, 35_000, 2)
        .memcpy(7, (200_000, 210_000), 2, 1, 4_096)
        .memcpy(9, (other.0, other.1), 3, other.2, 4_096);
    s.write(path).unwrap();
    let c = Connection::open(path).unwrap();
    c.execute(
        "UPDATE CUPTI_ACTIVITY_KIND_MEMCPY SET globalPid = ?1, deviceId = ?2, dstDeviceId = ?2
         WHERE correlationId = 3",
        rusqlite::params![8i64 << 24, other.3],
    )
    .unwrap();
}

/// The class of process 7's device-0 gap, and the copy named.
fn engine_gap(other: (i64, i64, i64, i64)) -> (GapClass, Option<u32>) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("engine.sqlite");
    engine_scene(&db, other);
    let r = nsys_report(&db);
    let d = r
        .devices
        .iter()
        .find(|d| (d.pid, d.device) == (PID, 0))
        .unwrap();
    // One gap, [100 µs, 200 µs), whatever its class.
    assert_eq!(d.idle_ns, 100_000);
    let classes: Vec<GapClass> = GapClass::ALL
        .into_iter()
        .filter(|c| d.classes.get(*c).count > 0)
        .collect();
    assert_eq!(classes.len(), 1, "{classes:?}");
    assert_eq!(d.classes.get(classes[0]).total_ns, 100_000);
    let g = r.top_gaps.iter().find(|g| g.pid == PID).unwrap();
    let busy_pid = g.queued.as_ref().and_then(|q| q.engine_busy_pid);
    (classes[0], busy_pid)
}

#[test]
fn another_processes_copy_of_the_same_direction_on_the_same_device_holds_the_engine() {
    // Process 8's HtoD copy over [150 µs, 190 µs) overlaps the gap
    // [100 µs, 200 µs) by 40 µs on device 0: copy-engine scheduling, and
    // the gap names that copy's process.
    assert_eq!(
        engine_gap((150_000, 190_000, 1, 0)),
        (GapClass::CopyScheduling, Some(8))
    );
    // A 1 ns overlap is enough: [199.999 µs, 250 µs).
    assert_eq!(
        engine_gap((199_999, 250_000, 1, 0)).0,
        GapClass::CopyScheduling
    );
}

#[test]
fn a_copy_of_another_direction_device_or_touching_the_gap_holds_nothing() {
    // The same copy DtoH (copyKind 2): another engine.
    assert_eq!(
        engine_gap((150_000, 190_000, 2, 0)),
        (GapClass::QueuedDependency, None)
    );
    // The same copy HtoD on device 1: another device's engine.
    assert_eq!(
        engine_gap((150_000, 190_000, 1, 1)),
        (GapClass::QueuedDependency, None)
    );
    // HtoD on device 0 over [50 µs, 100 µs): it ends at g0, intervals are
    // half-open, so it shares no time with [100 µs, 200 µs).
    assert_eq!(
        engine_gap((50_000, 100_000, 1, 0)),
        (GapClass::QueuedDependency, None)
    );
    // … and one starting at g1 = 200 µs neither.
    assert_eq!(
        engine_gap((200_000, 220_000, 1, 0)),
        (GapClass::QueuedDependency, None)
    );
}

/// Two 100 µs gaps on device 0, nothing else idle:
/// * [110 µs, 210 µs) before kernel `b`, whose launch call starts at
///   150 µs, after the gap opened, with no sync anywhere: host-bound;
/// * [310 µs, 410 µs) before kernel `c`, whose launch call returned at
///   165 µs, long before the gap: queued/dependency (100 µs ≥ 5 µs, a
///   kernel, so never copy-engine scheduling).
///
/// Equal time (100,000 ns each), so the largest class is the one first in
/// `GapClass::ALL`: host-bound before queued/dependency.
#[test]
fn equal_class_times_go_to_the_class_first_in_gapclass_all() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("tie.sqlite");
    let mut s = NsysScene::new();
    s.runtime("cudaLaunchKernel_v7000", 0, 5_000, 1)
        .kernel("a", 7, 10_000, 110_000, 1)
        .runtime("cudaLaunchKernel_v7000", 150_000, 155_000, 2)
        .kernel("b", 7, 210_000, 310_000, 2)
        .runtime("cudaLaunchKernel_v7000", 160_000, 165_000, 3)
        .kernel("c", 7, 410_000, 510_000, 3);
    s.write(&db).unwrap();
    let r = nsys_report(&db);
    let d = &r.devices[0];
    let h = d.classes.get(GapClass::HostBound);
    let q = d.classes.get(GapClass::QueuedDependency);
    assert_eq!((h.count, h.total_ns), (1, 100_000));
    assert_eq!((q.count, q.total_ns), (1, 100_000));
    assert_eq!(d.idle_ns, 200_000);
    assert_eq!(d.classes.dominant(), Some(GapClass::HostBound));
    // The verdict names it: 100 of 200 µs idle, over a 500 µs span
    // ([10 µs, 510 µs)), 20 % of the span, above the 5 % to fix first.
    let (code, out, err) = rooftrace(&["gaps", db.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let verdict = out.lines().next().unwrap_or_default();
    assert!(verdict.contains("50.0 % host-bound"), "{verdict}");
    assert!(!verdict.contains("queued"), "{verdict}");
}

#[test]
fn range_family_prefixes_are_case_sensitive_and_substrings_are_not() {
    // `aten::`, `autograd::`, `MPI_`: prefixes, exact case.
    assert_eq!(RangeFamily::of("aten::mm"), Some(RangeFamily::PyTorch));
    assert_eq!(RangeFamily::of("ATEN::mm"), None);
    assert_eq!(RangeFamily::of("Aten::mm"), None);
    assert_eq!(
        RangeFamily::of("autograd::engine"),
        Some(RangeFamily::PyTorch)
    );
    assert_eq!(RangeFamily::of("Autograd::engine"), None);
    assert_eq!(RangeFamily::of("MPI_Send"), Some(RangeFamily::Mpi));
    assert_eq!(RangeFamily::of("mpi_Send"), None);
    assert_eq!(RangeFamily::of("my MPI_Send"), None);
    // `torch`, `nccl`: anywhere, any ASCII case.
    assert_eq!(RangeFamily::of("TORCH.compile"), Some(RangeFamily::PyTorch));
    assert_eq!(RangeFamily::of("step (Torch)"), Some(RangeFamily::PyTorch));
    assert_eq!(RangeFamily::of("ncclAllReduce"), Some(RangeFamily::Nccl));
    assert_eq!(RangeFamily::of("my NCCL wait"), Some(RangeFamily::Nccl));
    // Tested in the order PyTorch, MPI, NCCL.
    assert_eq!(
        RangeFamily::of("MPI_torch_bcast"),
        Some(RangeFamily::PyTorch)
    );
    assert_eq!(RangeFamily::of("MPI_nccl_bridge"), Some(RangeFamily::Mpi));
    assert_eq!(RangeFamily::of("nccl aten::x"), Some(RangeFamily::Nccl));
}

/// Kernel `a` ends at 1.1 ms; the host thread is in the OS call `name`
/// over [0.95 ms, 11.05 ms) (10.1 ms), then launches kernel `b` over
/// [11.1 ms, 11.105 ms); `b` runs from 11.11 ms. The gap [1.1 ms,
/// 11.11 ms) = 10.01 ms is host-bound; its host window [1.1 ms,
/// 11.105 ms) holds 9.95 ms of the OS call, 5 µs of the launch call and
/// 50 µs of nothing (the rest), so the OS call's detail wins.
fn input_wait_scene(path: &Path, name: &str) -> GapReport {
    let mut s = NsysScene::new();
    s.runtime("cudaLaunchKernel_v7000", 900_000, 905_000, 1)
        .kernel("a", 7, 1_000_000, 1_100_000, 1)
        .osrt(name, 950_000, 11_050_000)
        .runtime("cudaLaunchKernel_v7000", 11_100_000, 11_105_000, 2)
        .kernel("b", 7, 11_110_000, 11_210_000, 2);
    s.write(path).unwrap();
    nsys_report(path)
}

#[test]
fn the_input_wait_threshold_is_per_call_and_its_name_is_matched_in_case() {
    let dir = tempfile::tempdir().unwrap();
    // `getc_unlocked` is `getc`; the call lasts 10.1 ms, at least the
    // 10 ms of a stdio read, although only 9.95 ms of it lies in the
    // window: the threshold is per call, so waiting for input.
    let r = input_wait_scene(&dir.path().join("getc.sqlite"), "getc_unlocked");
    let d = &r.devices[0];
    assert_eq!(d.classes.get(GapClass::HostBound).total_ns, 10_010_000);
    let w = d.host_detail.get(HostDetail::InputWait);
    assert_eq!((w.count, w.total_ns), (1, 10_010_000));
    assert_eq!(
        r.top_gaps[0].host.as_deref(),
        Some("getc_unlocked (waiting for input, 9.95 ms)")
    );
    // `GETC` is no stdio name (matched case included): an OS call.
    let r = input_wait_scene(&dir.path().join("upper.sqlite"), "GETC");
    let d = &r.devices[0];
    assert_eq!(d.host_detail.get(HostDetail::InputWait).count, 0);
    let o = d.host_detail.get(HostDetail::OsRuntime);
    assert_eq!((o.count, o.total_ns), (1, 10_010_000));
}
