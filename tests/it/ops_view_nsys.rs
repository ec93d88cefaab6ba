//! `rooftrace ops` on nsys exports of runs under
//! `torch.autograd.profiler.emit_nvtx(record_shapes=True)`: a small export
//! written here (`synth::scene::NsysScene`) whose NVTX texts are in
//! PyTorch's `getNvtxStr` format, every figure worked out by hand from its
//! sizes, the type its kernels' names say or `--dtype`, and its times;
//! the real corpus exports recorded without shapes are refused by name.

use crate::common::{corpus_file, rooftrace, rooftrace_json};
use rooftrace::synth::scene::NsysScene;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The export: a user range `train_step` [0, 10 µs] holding
/// `aten::linear` ⊃ `aten::addmm` (a BF16 GEMM kernel, 20 µs on the
/// device) and `aten::relu` (an elementwise kernel whose name says no
/// type, 2 µs), and a kernel launched outside any op range (1 µs).
fn write_export(dir: &Path) -> PathBuf {
    let path = dir.join("emit_nvtx.sqlite");
    let mut s = NsysScene::new();
    s.nvtx("train_step", 0, 10_000)
        .nvtx(
            "aten::linear, seq = 1, op_id = 4, sizes = [[64, 128], [256, 128], [256]]",
            1_000,
            5_000,
        )
        .nvtx(
            "aten::addmm, seq = 2, op_id = 5, sizes = [[256], [64, 128], [128, 256], [], []], input_op_ids = [(4,0)]",
            1_500,
            4_500,
        )
        .runtime("cudaLaunchKernel", 2_000, 2_100, 1)
        .kernel("sm80_xmma_gemm_bf16bf16_bf16f32_f32_tn_n", 7, 10_000, 30_000, 1)
        .nvtx("aten::relu, seq = 3, op_id = 6, sizes = [[64, 256]]", 6_000, 7_000)
        .runtime("cudaLaunchKernel", 6_100, 6_200, 2)
        .kernel("void at::native::vectorized_elementwise_kernel<4, clamp_min>", 7, 31_000, 33_000, 2)
        .runtime("cudaLaunchKernel", 8_000, 8_100, 3)
        .kernel("copy_kernel", 7, 34_000, 35_000, 3);
    s.write(&path).unwrap();
    path
}

fn ops(path: &Path, extra: &[&str]) -> Value {
    let args = [&["ops", path.to_str().unwrap(), "--gpu", "h100-sxm"], extra].concat();
    let (code, json, err) = rooftrace_json(&args);
    assert_eq!(code, 0, "{err}");
    json
}

fn row<'a>(json: &'a Value, name: &str) -> Option<&'a Value> {
    json["ops"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == name)
}

fn unmodelled_ns(json: &Value, reason_start: &str) -> i64 {
    json["unmodelled"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|u| u["reason"].as_str().unwrap().starts_with(reason_start))
        .map(|u| u["time_ns"].as_i64().unwrap())
        .sum()
}

#[test]
fn shaped_nvtx_ranges_give_the_op_rows_with_the_type_from_the_kernel_name() {
    let dir = tempfile::tempdir().unwrap();
    let json = ops(&write_export(dir.path()), &[]);
    // addmm(bias[256], a[64,128], b[128,256]): 2·64·128·256 FLOPs; in BF16
    // (the kernel's name) bias, a, b read and c[64,256] written, 2 bytes
    // each: (256 + 8192 + 32768 + 16384) · 2. The innermost range with a
    // model (addmm, not linear) takes the kernel.
    let addmm = row(&json, "aten::addmm").expect("an addmm row");
    assert_eq!(addmm["flops"], 2 * 64 * 128 * 256);
    assert_eq!(addmm["bytes"], (256 + 8192 + 32768 + 16384) * 2);
    assert_eq!(addmm["dtype"], "bf16");
    assert_eq!(addmm["dtype_from"], "kernel_name");
    assert_eq!(addmm["compute_path"], "tensor_bf16");
    assert_eq!(addmm["time_ns"], 20_000);
    assert!(row(&json, "aten::linear").is_none());
    // relu's kernel names no type and no --dtype was given: said, not
    // guessed; the kernel launched outside every op range has no op.
    assert!(row(&json, "aten::relu").is_none());
    assert_eq!(unmodelled_ns(&json, "no element type"), 2_000);
    assert_eq!(unmodelled_ns(&json, "no op with shapes"), 1_000);
    assert_eq!(json["kernel_time_ns"], 23_000);
    assert_eq!(json["modelled_time_ns"], 20_000);
}

#[test]
fn dtype_gives_the_type_of_ops_whose_kernels_name_none_and_the_row_says_assumed() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_export(dir.path());
    let json = ops(&path, &["--dtype", "fp16"]);
    // relu(x[64,256]) in FP16: one FLOP per element, x read and y written.
    let relu = row(&json, "aten::relu").expect("a relu row");
    assert_eq!(relu["flops"], 64 * 256);
    assert_eq!(relu["bytes"], 2 * 64 * 256 * 2);
    assert_eq!(relu["dtype_from"], "assumed");
    // The GEMM's kernel still names its type: --dtype does not override it.
    assert_eq!(
        row(&json, "aten::addmm").unwrap()["dtype_from"],
        "kernel_name"
    );
    let (code, table, err) = rooftrace(&[
        "ops",
        path.to_str().unwrap(),
        "--gpu",
        "h100-sxm",
        "--dtype",
        "fp16",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(table.contains("fp16 (assumed)"), "{table}");
    assert!(table.contains("bf16 (kernel name)"), "{table}");
}

#[test]
fn an_export_without_shaped_ranges_is_refused_with_how_to_record_them() {
    // A PyTorch run under emit_nvtx without record_shapes (`aten::mm,
    // op_id = 314307`), and a non-PyTorch export.
    for (name, says) in [
        (
            "nsys/nsys2026.2.1_nsysai_h100_2gpu_1s.sqlite",
            "op ranges from emit_nvtx carry no sizes",
        ),
        (
            "nsys/nsys2024.5.1_pipit_cloverleaf.sqlite",
            "no op ranges from emit_nvtx",
        ),
    ] {
        let Some(path) = corpus_file(name) else {
            return;
        };
        let (code, out, err) = rooftrace(&["ops", path.to_str().unwrap()]);
        assert_eq!(code, 2, "{name}: {out}{err}");
        assert!(err.contains("no shapes"), "{err}");
        assert!(err.contains(says), "{name}: {err}");
        assert!(err.contains("emit_nvtx(record_shapes=True)"), "{err}");
    }
}

#[test]
fn dtype_on_a_pytorch_trace_is_bad_input() {
    let trace = crate::common::fixture("kineto/sampled_rank-0.json.gz");
    let (code, _, err) = rooftrace(&["ops", trace.to_str().unwrap(), "--dtype", "bf16"]);
    assert_eq!(code, 2);
    assert!(err.contains("--dtype is for nsys exports"), "{err}");
}
