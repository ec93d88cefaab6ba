//! `rooftrace calibrate` on the ways a first real GPU run goes wrong (issue
//! 14), on hand-made H200-shaped fixtures (`fixtures/calibrate/h200-*.jsonl`,
//! written by `make_h200_failures.py`, NOT recordings; see the README): an L2
//! roof not above DRAM, a partial run with a failed GEMM, no DRAM roof; plus
//! the cuBLASLt search order and the H200 table's L2 size.

use crate::common::{fixture, rooftrace};
use rooftrace::calibrate::read_results;
use rooftrace::calibrate::select::select_roofs;
use rooftrace::calibrate::toolchain::{self, Search};
use rooftrace::roofs::gpus;
use rooftrace::roofs::model::{ComputePath, MemoryLevel, Roofs};
use std::path::{Path, PathBuf};

const L2_BELOW_DRAM: &str = "calibrate/h200-l2-below-dram.jsonl";
const PARTIAL: &str = "calibrate/h200-partial.jsonl";
const NO_DRAM: &str = "calibrate/h200-no-dram.jsonl";

#[test]
fn h200_table_l2_is_60_mib() {
    let h200 = gpus::by_key("h200").unwrap();
    // 60 MiB = 60 x 1,048,576 = 62,914,560 bytes, what an H200 reports.
    assert_eq!(h200.l2_bytes, Some(62_914_560));
    assert_eq!(
        gpus::by_device_name("NVIDIA H200").and_then(|g| g.l2_bytes),
        Some(62_914_560)
    );
}

#[test]
fn l2_roof_not_above_dram_is_refused() {
    let cal = select_roofs(&read_results(&fixture(L2_BELOW_DRAM)).unwrap());
    // DRAM: 512 MiB >= 4 x 60 MiB (251,658,240 bytes), read at 4.26 TB/s.
    assert_eq!(cal.roofs.memory[&MemoryLevel::Dram].bytes_per_s, 4.26e12);
    // Line 1 (one pass over 16 MiB: 16,777,216 B / 3.45 TB/s = 4.9 µs < 20
    // µs) is launch-bound and skipped; line 2 (32 passes: 155.6 µs) is long
    // enough but 3.45 TB/s <= 4.26 TB/s, so it is refused: no L2 roof.
    assert!(!cal.roofs.memory.contains_key(&MemoryLevel::L2));
    let l2 = cal.missing.iter().find(|m| m.roof == "l2").unwrap();
    assert_eq!(
        l2.reason,
        "line 2: the best L2-resident point (read_sum working_set=16777216,passes=32, 3.450 TB/s) is not above the DRAM roof (4.260 TB/s), so it did not measure L2 bandwidth; refused"
    );

    // The CLI still writes the roofs (DRAM is there), without L2.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("roofs.json");
    let (code, stdout, stderr) = rooftrace(&[
        "calibrate",
        "--from",
        "fixtures/calibrate/h200-l2-below-dram.jsonl",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    let roofs = Roofs::from_file(&out).unwrap();
    assert!(roofs.memory.contains_key(&MemoryLevel::Dram));
    assert!(!roofs.memory.contains_key(&MemoryLevel::L2));
    assert!(
        stdout.contains("no l2 roof: line 2: the best L2-resident point"),
        "{stdout}"
    );
}

#[test]
fn partial_results_select_what_they_can_and_list_what_is_missing() {
    let results = read_results(&fixture(PARTIAL)).unwrap();
    assert_eq!((results.points.len(), results.failures.len()), (6, 1));
    let cal = select_roofs(&results);
    let r = &cal.roofs;
    // Rates are the fixture's (sample times rounded to 0.1 ns, 6 digits kept):
    // DRAM read_sum 4.26 TB/s beats copy 3.9; L2 9.8 TB/s (32 passes, 54.8
    // µs per launch, above DRAM); FP32 FMA 60, BF16 815, FP8 with fast
    // accumulation 1480 TFLOP/s.
    assert_eq!(r.memory[&MemoryLevel::Dram].bytes_per_s, 4.26e12);
    // 536,870,912 B / 9.8 TB/s = 54,782.746 ns, stored as 54,782.7 ns:
    // 9.80001 TB/s after rounding to 6 digits.
    assert_eq!(r.memory[&MemoryLevel::L2].bytes_per_s, 9.80001e12);
    assert_eq!(r.compute[&ComputePath::Fp32].flop_per_s, 60e12);
    assert_eq!(r.compute[&ComputePath::TensorBf16].flop_per_s, 815e12);
    let fp8 = &r.compute[&ComputePath::TensorFp8];
    assert_eq!(fp8.flop_per_s, 1480e12);
    // The FP8 roof says it is the fast-accumulation GEMM, and which algorithm.
    let m = fp8.measurement.as_ref().unwrap();
    assert_eq!(m.kernel, "gemm_fp8_e4m3_fast_accum");
    assert_eq!(
        m.cublaslt_algo.as_deref(),
        Some("id=71,tile=24,stages=8,splitk=1,reduction=0,swizzle=0,custom=0")
    );
    // Each roof carries the clock NVML read during its samples: the FP32
    // point ran power-capped (throttle bits 0x1 | 0x4) at 1755 MHz.
    let fp32 = r.compute[&ComputePath::Fp32].measurement.as_ref().unwrap();
    assert_eq!(fp32.sm_clock_hz, Some(1.755e9));
    assert_eq!(fp32.throttle_reasons, ["sw_power_cap"]);
    let dram = r.memory[&MemoryLevel::Dram].measurement.as_ref().unwrap();
    assert_eq!(
        (dram.sm_clock_hz, dram.mem_clock_hz),
        (Some(1.98e9), Some(3.201e9))
    );
    assert!(dram.throttle_reasons.is_empty());

    // The failed point is named with its error; what the run never reached
    // is listed as missing.
    assert_eq!(
        cal.notes[0],
        "line 6: gemm_fp8_e4m3 m=8192,n=8192,k=8192 failed, skipped: cublasLtMatmul: CUBLAS_STATUS_NOT_SUPPORTED (status 15)"
    );
    let missing: Vec<&str> = cal.missing.iter().map(|m| m.roof.as_str()).collect();
    assert_eq!(
        missing,
        ["fp64", "fp16", "tensor_fp64", "tensor_tf32", "tensor_fp16"]
    );
    assert!(cal
        .notes
        .contains(&"no tensor_fp16 roof: no gemm_fp16 point in the results".to_string()));
    assert_eq!(
        cal.notes.last().unwrap(),
        "clocks were held down while roofs were measured (sw_power_cap): those roofs are below what the GPU reaches when cool and within its power limit; see each roof's throttle_reasons"
    );
}

#[test]
fn partial_results_json_report_lists_missing_roofs() {
    let (code, json, stderr) = rooftrace(&[
        "calibrate",
        "--from",
        "fixtures/calibrate/h200-partial.jsonl",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{stderr}");
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["missing"][0]["roof"], "fp64");
    assert_eq!(
        v["missing"][0]["reason"],
        "no fma_fp64 point in the results"
    );
    let fp32 = v["comparison"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["roof"] == "fp32")
        .unwrap();
    assert_eq!(fp32["sm_clock_hz"], 1.755e9);
    assert_eq!(fp32["throttle_reasons"][0], "sw_power_cap");
}

#[test]
fn no_roofs_file_without_dram() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("roofs.json");
    let (code, stdout, stderr) = rooftrace(&[
        "calibrate",
        "--from",
        "fixtures/calibrate/h200-no-dram.jsonl",
        "-o",
        out.to_str().unwrap(),
    ]);
    // The input's fault: exit 2, nothing written, and the report of what
    // was measured is still shown.
    assert_eq!(code, 2, "{stderr}");
    assert!(!out.exists());
    assert!(stderr.contains(&format!(
        "fixtures/calibrate/h200-no-dram.jsonl: no DRAM roof (no bandwidth point with a working set >= 4 x L2 (251658240 bytes); 1 such point(s) failed (line 2: kernel launch: out of memory)), so the roofs file {} was not written: `rooftrace ncu --roofs` needs a DRAM roof",
        out.display()
    )), "{stderr}");
    assert!(stdout.contains("no dram roof:"), "{stdout}");
    assert!(stdout.contains("read_sum"), "{stdout}");

    // Without -o nothing is refused: the report says what is missing.
    let (code, _, stderr) = rooftrace(&[
        "calibrate",
        "--from",
        "fixtures/calibrate/h200-no-dram.jsonl",
    ]);
    assert_eq!(code, 0, "{stderr}");
}

#[cfg(unix)]
#[test]
fn live_run_that_stops_early_selects_from_what_it_saved() {
    use crate::calibrate::{fake_toolkit, run_with_path};
    let tmp = tempfile::tempdir().unwrap();
    let cuda = tmp.path().join("cuda");
    // The fake harness promises 19 points, prints the 7 partial lines, exits 1.
    fake_toolkit(&cuda, &fixture(PARTIAL), 1);
    let roofs = tmp.path().join("roofs.json");
    let cache = tmp.path().join("cache");
    let args = [
        "calibrate",
        "--cache-dir",
        cache.to_str().unwrap(),
        "-o",
        roofs.to_str().unwrap(),
    ];
    let (code, stderr) = run_with_path(&args, &cuda.join("bin"));
    assert_eq!(code, 0, "{stderr}");
    let back = Roofs::from_file(&roofs).unwrap();
    assert_eq!(back.compute[&ComputePath::TensorBf16].flop_per_s, 815e12);

    // The same harness on the no-DRAM lines: a measurement failure (exit 1,
    // not 2), and no roofs file.
    let cuda2 = tmp.path().join("cuda2");
    fake_toolkit(&cuda2, &fixture(NO_DRAM), 0);
    let roofs2 = tmp.path().join("roofs2.json");
    let args = [
        "calibrate",
        "--cache-dir",
        cache.to_str().unwrap(),
        "-o",
        roofs2.to_str().unwrap(),
    ];
    let (code, stderr) = run_with_path(&args, &cuda2.join("bin"));
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("no DRAM roof"), "{stderr}");
    assert!(!roofs2.exists());
}

#[cfg(unix)]
#[test]
fn live_run_note_says_the_harness_stopped_early() {
    use crate::calibrate::fake_toolkit;
    let tmp = tempfile::tempdir().unwrap();
    let cuda = tmp.path().join("cuda");
    fake_toolkit(&cuda, &fixture(PARTIAL), 1);
    let cache = tmp.path().join("cache");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_rooftrace"))
        .args(["calibrate", "--cache-dir", cache.to_str().unwrap()])
        .env(
            "PATH",
            format!("{}:/usr/bin:/bin", cuda.join("bin").display()),
        )
        .env_remove("CUDA_HOME")
        .env_remove("CUDA_PATH")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        stdout.contains("the harness stopped early (exit 1) after 7 of 19 points"),
        "{stdout}"
    );
}

/// A file (empty: only its presence is searched for).
fn touch(p: &Path) {
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, "").unwrap();
}

#[test]
fn cublaslt_is_searched_beside_nvcc_then_pip_then_ld_library_path_then_system() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    // A toolkit nvcc with an empty lib64, and a cuBLASLt in each other place.
    let nvcc = t.join("toolkit/bin/nvcc");
    touch(&nvcc);
    let beside = t.join("toolkit/lib64");
    std::fs::create_dir_all(&beside).unwrap();
    let site = t.join("site-packages");
    let cu13 = site.join("nvidia/cu13/lib");
    let cu12 = site.join("nvidia/cublas/lib");
    let ld = t.join("ld");
    let sys = t.join("sys/lib");
    touch(&cu13.join("libcublasLt.so.13"));
    touch(&site.join("nvidia/cu13/include/cublasLt.h"));
    touch(&cu12.join("libcublasLt.so.12"));
    touch(&ld.join("libcublasLt.so.13"));
    touch(&sys.join("libcublasLt.so"));
    let search = Search {
        explicit: Some(nvcc.clone()),
        site_packages: vec![site.clone()],
        ld_library_path: Some(ld.clone().into_os_string()),
        system_lib_dirs: vec![sys.clone()],
        ..Search::default()
    };
    let found = || toolchain::find(&search).unwrap();
    let looked = |dirs: &[(&str, &PathBuf)]| -> Vec<String> {
        dirs.iter()
            .map(|(o, d)| format!("{o}: {}", d.display()))
            .collect()
    };

    // 1. Beside nvcc wins over everything else.
    touch(&beside.join("libcublasLt.so"));
    let tc = found();
    assert_eq!(tc.cublaslt.as_deref(), Some("-lcublasLt"));
    assert_eq!(tc.cublaslt_dir.as_ref(), Some(&beside));
    assert_eq!(tc.cublaslt_looked, looked(&[("beside nvcc", &beside)]));
    std::fs::remove_file(beside.join("libcublasLt.so")).unwrap();

    // 2. Then the CUDA 13 wheel, with its include directory (cublasLt.h).
    let tc = found();
    assert_eq!(tc.cublaslt.as_deref(), Some("-l:libcublasLt.so.13"));
    assert_eq!(tc.cublaslt_dir.as_ref(), Some(&cu13));
    assert!(tc.lib_dirs.contains(&cu13));
    assert_eq!(tc.include_dirs, [site.join("nvidia/cu13/include")]);
    std::fs::remove_file(cu13.join("libcublasLt.so.13")).unwrap();

    // 3. Then the CUDA 12 wheel (nvidia/cublas/lib).
    let tc = found();
    assert_eq!(tc.cublaslt.as_deref(), Some("-l:libcublasLt.so.12"));
    assert_eq!(tc.cublaslt_dir.as_ref(), Some(&cu12));
    std::fs::remove_file(cu12.join("libcublasLt.so.12")).unwrap();

    // 4. Then LD_LIBRARY_PATH.
    let tc = found();
    assert_eq!(tc.cublaslt_dir.as_ref(), Some(&ld));
    std::fs::remove_file(ld.join("libcublasLt.so.13")).unwrap();

    // 5. Then the system library path.
    let tc = found();
    assert_eq!(tc.cublaslt_dir.as_ref(), Some(&sys));
    assert_eq!(tc.cublaslt.as_deref(), Some("-lcublasLt"));
    std::fs::remove_file(sys.join("libcublasLt.so")).unwrap();

    // 6. Nowhere: no flag, and every place searched, in order.
    let tc = found();
    assert_eq!(tc.cublaslt, None);
    assert_eq!(
        tc.cublaslt_looked,
        looked(&[
            ("beside nvcc", &beside),
            ("pip", &cu13),
            ("pip", &cu12),
            ("LD_LIBRARY_PATH", &ld),
            ("system", &sys),
        ])
    );
}
