//! `rooftrace budget`'s advice in the input's terms (issue 45, the budget
//! paragraph): the copies' fix follows where the copies ran, and an
//! export with no step range is told so before anything else (which GPU
//! it ran on is no problem while there is nothing to budget). Scenes are
//! placed by hand with `rooftrace::synth::scene`.

use crate::common::{rooftrace, rooftrace_json};
use rooftrace::synth::scene::NsysScene;
use std::path::Path;

/// Three `step` ranges, 10 ms apart, each: a kernel [t + 50 µs,
/// t + 150 µs), then on the same stream a device-to-device copy
/// [t + 150 µs, t + 1,020 µs) (870 µs) and a pinned host-to-device copy
/// [t + 1,020 µs, t + 1,150 µs) (130 µs). Each step is the 1.1 ms window
/// of 100 µs of kernel and 1.0 ms of copies, 87 % of them device to
/// device.
fn device_copies(path: &Path) {
    let mut s = NsysScene::new();
    for step in 0..3i64 {
        let t = 10_000_000 * (step + 1);
        let corr = 3 * step;
        s.nvtx("step", t, t + 2_000_000)
            .runtime("cudaLaunchKernel_v7000", t + 10_000, t + 15_000, corr + 1)
            .runtime("cudaMemcpyAsync_v3020", t + 20_000, t + 25_000, corr + 2)
            .runtime("cudaMemcpyAsync_v3020", t + 30_000, t + 35_000, corr + 3)
            .kernel("k", 7, t + 50_000, t + 150_000, corr + 1)
            .memcpy(7, (t + 150_000, t + 1_020_000), corr + 2, 8, 1 << 20)
            .memcpy(7, (t + 1_020_000, t + 1_150_000), corr + 3, 1, 1 << 16);
    }
    s.write(path).unwrap();
}

#[test]
fn copies_that_are_mostly_device_to_device_are_told_to_avoid_them_not_to_stay_on_the_gpu() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("dtod.sqlite");
    device_copies(&db);
    let (code, doc, err) = rooftrace_json(&[
        "budget",
        db.to_str().unwrap(),
        "--nvtx",
        "^step$",
        "--gpu",
        "h100-sxm",
    ]);
    assert_eq!(code, 0, "{err}");
    for s in doc["steps"].as_array().unwrap() {
        assert_eq!(s["step_ns"], 1_100_000, "{s}");
        let sides = &s["memcpy_by_side"];
        assert_eq!(sides["device_ns"], 870_000, "{s}");
        assert_eq!(sides["pinned_ns"], 130_000, "{s}");
        assert_eq!(sides["pageable_ns"], 0, "{s}");
        assert_eq!(sides["unknown_ns"], 0, "{s}");
    }
    let line = doc["fix_first"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["what"] == "memcpy")
        .expect("a copies line");
    // 1.0 ms of copies per step, first: the kernel is 100 µs.
    assert_eq!(doc["fix_first"][0], *line);
    assert_eq!(line["ns_per_step"], 1_000_000.0);
    let text = line["text"].as_str().unwrap();
    assert!(text.contains("avoid the device-to-device copies"), "{text}");
    assert!(!text.contains("keep the data"), "{text}");
    // 2,610 of the 3,000 µs of copies in the three steps.
    assert!(
        text.contains("(in the 3 steps ranked: 87.0 % of the copy time on the device"),
        "{text}"
    );
}

#[test]
fn an_export_without_the_step_range_is_told_so_before_its_gpu_is_asked_for() {
    // The scene records no GPU (no TARGET_INFO_GPU): without --gpu the GPU
    // cannot be decided, which is the second problem, not the first.
    let dir = tempfile::tempdir().unwrap();
    let bare = dir.path().join("no_nvtx.sqlite");
    let mut s = NsysScene::new();
    s.runtime("cudaLaunchKernel_v7000", 10_000, 15_000, 1)
        .kernel("k", 7, 20_000, 100_000, 1);
    s.write(&bare).unwrap();
    let (code, _, err) = rooftrace(&["budget", bare.to_str().unwrap(), "--nvtx", "step"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("the export has no closed NVTX ranges"),
        "{err}"
    );
    assert!(!err.contains("GPU"), "{err}");
    // With ranges, none of them the step: the ranges it has.
    let other = dir.path().join("other_nvtx.sqlite");
    s.nvtx("warmup", 0, 200_000);
    s.write(&other).unwrap();
    let (code, _, err) = rooftrace(&["budget", other.to_str().unwrap(), "--nvtx", "^step$"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("matches no NVTX range"), "{err}");
    assert!(err.contains("`warmup` (1)"), "{err}");
    assert!(!err.contains("GPU"), "{err}");
}
