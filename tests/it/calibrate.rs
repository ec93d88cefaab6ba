//! `rooftrace calibrate`: roof selection, stability filtering, the ≥ 4 x L2
//! rule and the roofs round trip on `fixtures/calibrate/h100-published.jsonl`
//! (hand-made from published H100 figures, see its README), error paths, and
//! the CI compile check of the embedded CUDA kernels.

use crate::common::{fixture, rooftrace};
use rooftrace::calibrate::build;
use rooftrace::calibrate::compare::{compare, RoofKey};
use rooftrace::calibrate::read_results;
use rooftrace::calibrate::results::Sweep;
use rooftrace::calibrate::select::select_roofs;
use rooftrace::calibrate::toolchain::{self, Search};
use rooftrace::roofs::model::{ComputePath, ComputeRoof, MemoryLevel, MemoryRoof, Origin, Roofs};

const H100: &str = "calibrate/h100-published.jsonl";

fn rel_close(a: f64, b: f64, tol: f64) -> bool {
    ((a - b) / b).abs() <= tol
}

// Sample times in the fixture are rounded to 0.1 ns, so a rate comes back
// within ~1e-6 of the published figure it was made from.
const TOL: f64 = 1e-5;

#[test]
fn selects_best_stable_roofs() {
    let results = read_results(&fixture(H100)).unwrap();
    assert_eq!(results.points.len(), 19);
    let cal = select_roofs(&results);
    let r = &cal.roofs;

    // DRAM: read_sum at 512 MiB (3085 GB/s) beats copy (2568 GB/s); the
    // 128 MiB read_sum (3200 GB/s) is below 4 x 50 MiB and the 1 GiB triad
    // (3300 GB/s) is unstable, so neither may win.
    let dram = r.memory.get(&MemoryLevel::Dram).unwrap();
    assert!(
        rel_close(dram.bytes_per_s, 3085e9, TOL),
        "{}",
        dram.bytes_per_s
    );
    let m = dram.measurement.as_ref().unwrap();
    assert_eq!(m.kernel, "read_sum");
    assert_eq!(m.shape, "working_set=536870912");
    assert_eq!(m.samples, 9);
    // The fixture has no NVML clocks (like a run without libnvidia-ml): the
    // roof's clock is unknown, not the driver's 1980 MHz maximum.
    assert_eq!(m.sm_clock_hz, None);
    assert_eq!(dram.origin, Origin::Measured);

    // L2: the 16 MiB point (≤ L2/2) is the L2 roof, not the DRAM one.
    let l2 = r.memory.get(&MemoryLevel::L2).unwrap();
    assert!(rel_close(l2.bytes_per_s, 5500e9, TOL));

    let f = |p: ComputePath| r.compute.get(&p).map(|c| c.flop_per_s);
    // FP32: R = 256 at 61.5 TFLOP/s; R = 2048 (63 TFLOP/s) is unstable.
    assert!(rel_close(f(ComputePath::Fp32).unwrap(), 61.5e12, TOL));
    assert_eq!(
        r.compute[&ComputePath::Fp32]
            .measurement
            .as_ref()
            .unwrap()
            .shape,
        "r=256,elements=67108864"
    );
    // BF16: 802 TFLOP/s; the 830 TFLOP/s point is unstable.
    assert!(rel_close(f(ComputePath::TensorBf16).unwrap(), 802e12, TOL));
    assert!(rel_close(f(ComputePath::TensorFp16).unwrap(), 788e12, TOL));
    assert!(rel_close(f(ComputePath::TensorTf32).unwrap(), 418e12, TOL));
    assert!(rel_close(f(ComputePath::TensorFp64).unwrap(), 64.2e12, TOL));
    // FP16 cores: the only point is unstable, so no roof, and a note says so.
    assert_eq!(f(ComputePath::Fp16), None);
    assert!(cal
        .notes
        .iter()
        .any(|n| n.starts_with("no fp16 roof: every point is unstable")));
    // What the fixture does not measure is listed as missing: FP64 FMA and
    // FP8 GEMM have no line, FP16 only an unstable one.
    let missing: Vec<&str> = cal.missing.iter().map(|m| m.roof.as_str()).collect();
    assert_eq!(missing, ["fp64", "fp16", "tensor_fp8"]);
    // Four unstable points, each named by its line.
    assert_eq!(
        cal.notes
            .iter()
            .filter(|n| n.contains("rejected as unstable"))
            .count(),
        4
    );

    // Ridge points agree with those the reference derives from the same
    // figures: FP16 255, BF16 260, FP32 19.9 FLOP/byte.
    assert!((r.ridge_flop_per_byte(ComputePath::TensorFp16).unwrap() - 255.4).abs() < 0.1);
    assert!((r.ridge_flop_per_byte(ComputePath::TensorBf16).unwrap() - 260.0).abs() < 0.1);
    assert!((r.ridge_flop_per_byte(ComputePath::Fp32).unwrap() - 19.9).abs() < 0.05);
}

#[test]
fn sweeps_are_exposed_for_plots() {
    let results = read_results(&fixture(H100)).unwrap();
    let fma = results.fma_sweep();
    let fp32: Vec<_> = fma.iter().filter(|p| p.dtype == "fp32").collect();
    assert_eq!(
        fp32.iter().map(|p| p.r).collect::<Vec<_>>(),
        [1, 64, 256, 2048]
    );
    // FP32: 2R FLOP per 8 bytes, I = R/4.
    assert_eq!(fp32[1].intensity_flop_per_byte, 16.0);
    // Packed half2: one element is one 16-bit lane, I = 2R/4 = R/2.
    let fp16 = fma.iter().find(|p| p.dtype == "fp16").unwrap();
    assert_eq!(fp16.intensity_flop_per_byte, 512.0);

    let m: Vec<_> = results
        .gemm_points()
        .into_iter()
        .filter(|p| p.dtype == "fp16" && p.sweep == Sweep::MSweep)
        .collect();
    assert_eq!(m.iter().map(|p| p.m).collect::<Vec<_>>(), [4, 8]);
    // The published M = 4 (0.060 ms) and M = 8 (0.050 ms) times come back.
    assert!(rel_close(m[0].time_s, 0.060e-3, TOL));
    assert!(rel_close(m[1].time_s, 0.050e-3, TOL));
    // I = 2MNK / ((MK + KN + MN) * 2) at M = 8: 2*8*8192^2 / ((8*8192*2 + 8192^2) * 2)
    let expect = 2.0 * 8.0 * 8192.0f64.powi(2) / ((16.0 * 8192.0 + 8192.0f64.powi(2)) * 2.0);
    assert!(rel_close(m[1].intensity_flop_per_byte, expect, 1e-12));
}

fn datasheet_h100() -> Roofs {
    // H100 SXM datasheet (dense): 3.35 TB/s, BF16 989 TFLOP/s, FP32 67 TFLOP/s.
    let mut d = Roofs::new("NVIDIA H100 SXM5 80GB", "datasheet");
    let mem = |b| MemoryRoof {
        bytes_per_s: b,
        origin: Origin::Datasheet,
        source: String::new(),
        measurement: None,
    };
    let comp = |f| ComputeRoof {
        flop_per_s: f,
        origin: Origin::Datasheet,
        source: String::new(),
        measurement: None,
    };
    d.memory.insert(MemoryLevel::Dram, mem(3.35e12));
    d.compute.insert(ComputePath::TensorBf16, comp(989e12));
    d.compute.insert(ComputePath::Fp32, comp(67e12));
    d
}

#[test]
fn compares_with_datasheet() {
    let cal = select_roofs(&read_results(&fixture(H100)).unwrap());
    let ds = datasheet_h100();
    let c = compare(&cal.roofs, Some(&ds));
    let row = |k: RoofKey| c.roofs.iter().find(|r| r.roof == k).unwrap();
    // 3085 / 3350 = 0.9209; 802 / 989 = 0.8109; 61.5 / 67 = 0.9179.
    let dram = row(RoofKey::Memory(MemoryLevel::Dram));
    assert!((dram.fraction_of_datasheet.unwrap() - 0.9209).abs() < 1e-4);
    let bf16 = row(RoofKey::Compute(ComputePath::TensorBf16));
    assert!((bf16.fraction_of_datasheet.unwrap() - 0.8109).abs() < 1e-4);
    let fp32 = row(RoofKey::Compute(ComputePath::Fp32));
    assert!((fp32.fraction_of_datasheet.unwrap() - 0.9179).abs() < 1e-4);
    // Paths the datasheet lacks have no fraction.
    assert_eq!(
        row(RoofKey::Compute(ComputePath::TensorTf32)).fraction_of_datasheet,
        None
    );
    // Datasheet ridge BF16: 989e12 / 3.35e12 = 295.2 FLOP/byte.
    let ridge = c
        .ridges
        .iter()
        .find(|r| r.path == ComputePath::TensorBf16)
        .unwrap();
    assert!((ridge.datasheet_flop_per_byte.unwrap() - 295.2).abs() < 0.05);
    // Memory rows first, then compute paths in display order.
    let order: Vec<&str> = c.roofs.iter().map(|r| r.roof.key()).collect();
    assert_eq!(
        order,
        [
            "dram",
            "l2",
            "fp32",
            "tensor_fp64",
            "tensor_tf32",
            "tensor_fp16",
            "tensor_bf16"
        ]
    );

    let none = compare(&cal.roofs, None);
    assert!(none.roofs.iter().all(|r| r.fraction_of_datasheet.is_none()));
}

#[test]
fn cli_writes_roofs_that_read_back() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("roofs.json");
    let (code, stdout, stderr) = rooftrace(&[
        "calibrate",
        "--from",
        "fixtures/calibrate/h100-published.jsonl",
        "--datasheet",
        "fixtures/calibrate/h100-sxm-datasheet.json",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    let back = Roofs::from_file(&out).unwrap();
    let expected = select_roofs(&read_results(&fixture(H100)).unwrap()).roofs;
    assert_eq!(back, expected);
    insta::assert_snapshot!("calibrate_h100_table", stdout);
    insta::assert_snapshot!(
        "calibrate_h100_roofs_json",
        std::fs::read_to_string(&out).unwrap()
    );
}

#[test]
fn cli_markdown_and_json_reports() {
    let (code, md, _) = rooftrace(&[
        "calibrate",
        "--from",
        "fixtures/calibrate/h100-published.jsonl",
        "--datasheet",
        "fixtures/calibrate/h100-sxm-datasheet.json",
        "--format",
        "md",
    ]);
    assert_eq!(code, 0);
    insta::assert_snapshot!("calibrate_h100_md", md);
    let (code, json, _) = rooftrace(&[
        "calibrate",
        "--from",
        "fixtures/calibrate/h100-published.jsonl",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["schema"], "rooftrace.calibrate-report/1");
    assert_eq!(v["roofs"]["schema"], "rooftrace.roofs/1");
    assert_eq!(v["comparison"][0]["roof"], "dram");
}

#[test]
fn cli_csv_report() {
    let (code, csv, stderr) = rooftrace(&[
        "calibrate",
        "--from",
        "fixtures/calibrate/h100-published.jsonl",
        "--datasheet",
        "fixtures/calibrate/h100-sxm-datasheet.json",
        "--format",
        "csv",
    ]);
    assert_eq!(code, 0, "{stderr}");
    insta::assert_snapshot!("calibrate_h100_csv", csv);
}

#[test]
fn bad_datasheet_file_is_an_input_error() {
    let (code, _, stderr) = rooftrace(&[
        "calibrate",
        "--from",
        "fixtures/calibrate/h100-published.jsonl",
        "--datasheet",
        "fixtures/calibrate/h100-published.jsonl",
    ]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        // The door knows the file as calibration results by its `schema`
        // line and names what reads it.
        stderr.contains("fixtures/calibrate/h100-published.jsonl: calibration results, read by `rooftrace calibrate --from FILE`; a roofs flag (`--roofs`, `--project-to`, `--datasheet`) reads a roofs file"),
        "{stderr}"
    );
}

#[test]
fn bad_line_is_reported_with_its_number() {
    let (code, _, stderr) = rooftrace(&[
        "calibrate",
        "--from",
        "fixtures/calibrate/h100-published-bad-line.jsonl",
    ]);
    assert_eq!(code, 2, "{stderr}");
    insta::assert_snapshot!("calibrate_bad_line", stderr);
}

#[test]
fn too_few_samples_and_missing_file_are_input_errors() {
    let (code, _, stderr) = rooftrace(&[
        "calibrate",
        "--from",
        "fixtures/calibrate/h100-published-two-samples.jsonl",
    ]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("line 2: 2 samples in `sample_ns`, need at least 3"),
        "{stderr}"
    );
    let (code, _, stderr) = rooftrace(&["calibrate", "--from", "fixtures/calibrate/nope.jsonl"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains(
            "fixtures/calibrate/nope.jsonl: no such file; give the JSON lines of a harness run"
        ),
        "{stderr}"
    );
}

#[test]
fn missing_nvcc_says_how_to_get_it() {
    let (code, _, stderr) = rooftrace(&["calibrate", "--nvcc", "/nonexistent/bin/nvcc"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("--nvcc /nonexistent/bin/nvcc: no such file"),
        "{stderr}"
    );

    // No PATH, no CUDA_HOME, no python: nothing to find (unless a toolkit
    // sits in /usr/local/cuda, which is always searched).
    if std::path::Path::new("/usr/local/cuda/bin/nvcc").exists() {
        eprintln!("skipping the no-nvcc half: /usr/local/cuda/bin/nvcc exists");
        return;
    }
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_rooftrace"))
        .args(["calibrate"])
        .env_clear()
        .env("PATH", "")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("cannot measure this GPU"), "{stderr}");
    assert!(
        stderr.contains("nvcc not found (looked in: PATH, /usr/local/cuda/bin)"),
        "{stderr}"
    );
    assert!(
        stderr.contains(
            "pip install nvidia-cuda-nvcc nvidia-cuda-cccl nvidia-cublas nvidia-cuda-runtime"
        ),
        "{stderr}"
    );
}

/// CI compile check: every kernel source builds for sm_80, sm_90 and sm_100, and no
/// FMA-sweep kernel spills registers. Needs nvcc (`common::need`: fails
/// under CI without it, skips elsewhere).
#[test]
fn kernels_compile_without_spills() {
    let found = toolchain::find(&Search::from_env(None));
    // The error says where it looked and how to install nvcc.
    let fix = match &found {
        Ok(_) => String::new(),
        Err(e) => format!("{e} (.ci/run installs it)"),
    };
    let Some(tc) = crate::common::need(found.ok(), "nvcc", &fix) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    build::write_sources(dir.path()).unwrap();
    let out = std::process::Command::new(&tc.nvcc)
        .args(build::check_args(&tc, dir.path()))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "nvcc failed:\n{stderr}");
    let kernels = build::parse_ptxas(&stderr);
    for arch in build::CHECK_ARCHS {
        let fma: Vec<_> = kernels
            .iter()
            .filter(|k| k.arch == arch && k.function.contains("fma_kernel"))
            .collect();
        // 4 types (double, float, half2, bf16x2) x 6 unrolls (1, 2, 4, 8, 16, 32).
        assert_eq!(fma.len(), 24, "{arch}: {fma:?}");
        for k in &fma {
            assert_eq!(
                (k.spill_store_bytes, k.spill_load_bytes),
                (0, 0),
                "{} spills on {arch}",
                k.function
            );
        }
        for name in ["read_sum_kernel", "copy_kernel", "triad_kernel"] {
            assert!(
                kernels
                    .iter()
                    .any(|k| k.arch == arch && k.function.contains(name)),
                "{name} missing for {arch}"
            );
        }
    }
}

/// A fake CUDA toolkit in `dir`: `bin/nvcc` records its arguments and
/// "builds" a harness script that exits 3 (no device) when `harness_exit`
/// is 3, else prints `results` and exits with `harness_exit` (a harness
/// that stopped early), `bin/nvidia-smi` succeeds, `lib/libcublasLt.so.13`
/// exists. Lets the live path (find, build, run, progress, save) run
/// without a GPU.
#[cfg(unix)]
pub fn fake_toolkit(dir: &std::path::Path, results: &std::path::Path, harness_exit: i32) {
    use std::os::unix::fs::PermissionsExt;
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::create_dir_all(dir.join("lib")).unwrap();
    std::fs::write(dir.join("lib/libcublasLt.so.13"), "").unwrap();
    let nvcc = format!(
        r#"#!/bin/sh
printf '%s\n' "$@" > "{args}"
out=""
while [ $# -gt 0 ]; do
  if [ "$1" = "-o" ]; then out="$2"; fi
  shift
done
cat > "$out" <<'H'
#!/bin/sh
if [ {exit} -eq 3 ]; then echo "rooftrace-harness: no CUDA device: fake" >&2; exit 3; fi
for a in "$@"; do if [ "$a" = "--count" ]; then echo 19; exit 0; fi; done
cat "{results}"
exit {exit}
H
chmod +x "$out"
"#,
        args = dir.join("nvcc-args.txt").display(),
        exit = harness_exit,
        results = results.display()
    );
    for (name, text) in [
        ("nvcc", nvcc.as_str()),
        ("nvidia-smi", "#!/bin/sh\nexit 0\n"),
    ] {
        let p = bin.join(name);
        std::fs::write(&p, text).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
}

#[cfg(unix)]
pub fn run_with_path(args: &[&str], path_dir: &std::path::Path) -> (i32, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_rooftrace"))
        .args(args)
        .env("PATH", format!("{}:/usr/bin:/bin", path_dir.display()))
        .env_remove("CUDA_HOME")
        .env_remove("CUDA_PATH")
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[cfg(unix)]
#[test]
fn live_run_builds_runs_and_saves_with_a_fake_toolkit() {
    let tmp = tempfile::tempdir().unwrap();
    let cuda = tmp.path().join("cuda");
    fake_toolkit(&cuda, &fixture(H100), 0);
    let cache = tmp.path().join("cache");
    let saved = tmp.path().join("results.jsonl");
    let roofs = tmp.path().join("roofs.json");
    let args = [
        "calibrate",
        "--cache-dir",
        cache.to_str().unwrap(),
        "--save-results",
        saved.to_str().unwrap(),
        "-o",
        roofs.to_str().unwrap(),
    ];
    let (code, stderr) = run_with_path(&args, &cuda.join("bin"));
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains("building the reference kernels"),
        "{stderr}"
    );
    // Not a terminal: one progress line per point, numbered against --count.
    assert!(
        stderr.contains("[1/19] read_sum working_set=16777216"),
        "{stderr}"
    );
    assert!(
        stderr.contains("[19/19] gemm_fp64 m=8192,n=8192,k=8192"),
        "{stderr}"
    );
    // The harness output is saved byte for byte and gives the same roofs.
    assert_eq!(
        std::fs::read_to_string(&saved).unwrap(),
        std::fs::read_to_string(fixture(H100)).unwrap()
    );
    let expected = select_roofs(&read_results(&fixture(H100)).unwrap()).roofs;
    assert_eq!(Roofs::from_file(&roofs).unwrap(), expected);
    // nvcc saw the embedded sources, this GPU's arch and the versioned cuBLASLt.
    let nvcc_args = std::fs::read_to_string(cuda.join("nvcc-args.txt")).unwrap();
    let lib = cuda.join("lib");
    for want in [
        "-arch=native".to_string(),
        "-l:libcublasLt.so.13".to_string(),
        format!("-rpath,{}", lib.display()),
    ] {
        assert!(
            nvcc_args.lines().any(|l| l == want),
            "{want} not in {nvcc_args}"
        );
    }
    let src = nvcc_args
        .lines()
        .find(|l| l.ends_with("harness.cu"))
        .unwrap();
    let dir = std::path::Path::new(src).parent().unwrap();
    for (name, text) in build::SOURCES {
        assert_eq!(std::fs::read_to_string(dir.join(name)).unwrap(), text);
    }
    // A second run reuses the build.
    let (code, stderr) = run_with_path(&args, &cuda.join("bin"));
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("using the harness built in"), "{stderr}");
}

#[cfg(unix)]
#[test]
fn live_run_without_a_device_says_so() {
    let tmp = tempfile::tempdir().unwrap();
    let cuda = tmp.path().join("cuda");
    fake_toolkit(&cuda, &fixture(H100), 3);
    let cache = tmp.path().join("cache");
    let (code, stderr) = run_with_path(
        &["calibrate", "--cache-dir", cache.to_str().unwrap()],
        &cuda.join("bin"),
    );
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("no usable CUDA GPU: rooftrace-harness: no CUDA device: fake"),
        "{stderr}"
    );
}

#[test]
fn markdown_fits_a_pr_comment_with_many_notes() {
    use rooftrace::calibrate::CalibrateReport;
    use rooftrace::report::calibrate::verdict;
    use rooftrace::report::{Format, Render, RenderOptions, MARKDOWN_LIMIT_CHARS};
    let results = read_results(&fixture(H100)).unwrap();
    let mut calibration = select_roofs(&results);
    // 2000 notes of ~100 chars each: ~200,000 chars, three times the limit.
    for i in 0..2000 {
        calibration
            .notes
            .push(format!("line {i}: {}", "x".repeat(90)));
    }
    let report = CalibrateReport::new(calibration, None);
    let opts = RenderOptions {
        top: 0,
        images: vec![("measured roofs".into(), "roofs.png".into())],
    };
    let md = String::from_utf8(report.render(Format::Markdown, &opts)).unwrap();
    let chars = md.chars().count();
    assert!(chars <= MARKDOWN_LIMIT_CHARS, "{chars} chars");
    // Cut notes are counted, not dropped silently: kept + left out = all.
    let notes = md.split("### Notes").nth(1).unwrap();
    let kept = notes.lines().filter(|l| l.starts_with("- ")).count() - 1;
    let last = md.lines().last().unwrap();
    let left: usize = last
        .strip_prefix("- … ")
        .and_then(|r| r.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no count line: {last}"));
    // 2000 added + the fixture's 8: 4 unstable points, 3 missing roofs
    // (fp64, fp16, tensor_fp8) and the clocks-not-recorded note.
    assert_eq!(kept + left, 2000 + 8);
    // Verdict first, without a datasheet: no percentages, said once.
    let first = md.lines().next().unwrap();
    assert_eq!(first, verdict(&report));
    assert!(first.starts_with("NVIDIA H100 80GB HBM3: DRAM 3.08 TB/s, L2 5.50 TB/s,"));
    assert!(first.contains("(no datasheet to compare with); 2008 notes"));
    assert!(!first.contains('%'));
    assert_eq!(md.lines().nth(2), Some("![measured roofs](roofs.png)"));
}
