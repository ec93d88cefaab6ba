//! A case per row of the table, with the expected FLOPs and bytes worked
//! out by hand beside it, and every row's counts checked against
//! `torch.utils.flop_counter` (`fixtures/opmodel/flop_counter.json`,
//! made by `scripts/flop_oracle.py` on meta tensors).

use super::model::{Dtype, Engine, NoModel, OpCall, Work};
use super::table::{row_for, ROWS};
use super::table_cases::{call, coverage_cases, t, v, Case, BF, F, H, L};
use super::work;
use std::collections::BTreeSet;

/// Every hand-worked case.
fn hand_cases() -> Vec<Case> {
    [
        gemm_cases(),
        attention_cases(),
        conv_cases(),
        vector_cases(),
        coverage_cases(),
    ]
    .concat()
}

/// Matrix products.
fn gemm_cases() -> Vec<Case> {
    vec![
        // [64, 128] × [128, 32], FP32: 2·M·N·K; A, B read, C written.
        (
            "mm",
            call("aten::mm", &[t(&[64, 128], F), t(&[128, 32], F)]),
            2 * 64 * 32 * 128,
            (64 * 128 + 128 * 32 + 64 * 32) * 4,
        ),
        // A shape of the real sampled trace: bias [256] read too.
        (
            "addmm",
            call(
                "aten::addmm",
                &[
                    t(&[256], F),
                    t(&[2048, 6948], F),
                    t(&[6948, 256], F),
                    v("1"),
                    v("1"),
                ],
            ),
            2 * 2048 * 256 * 6948,
            (256 + 2048 * 6948 + 6948 * 256 + 2048 * 256) * 4,
        ),
        (
            "bmm",
            call(
                "aten::bmm",
                &[t(&[2048, 160, 45], F), t(&[2048, 45, 20], F)],
            ),
            2 * 2048 * 160 * 20 * 45,
            2048 * (160 * 45 + 45 * 20 + 160 * 20) * 4,
        ),
        (
            "baddbmm",
            call(
                "aten::baddbmm",
                &[t(&[4, 1, 8], H), t(&[4, 16, 32], H), t(&[4, 32, 8], H)],
            ),
            2 * 4 * 16 * 8 * 32,
            (4 * 8 + 4 * 16 * 32 + 4 * 32 * 8 + 4 * 16 * 8) * 2,
        ),
        // Batch dims [5, 1] and [3] broadcast to [5, 3]: 15 products of 4×8 · 8×2.
        (
            "matmul",
            call("aten::matmul", &[t(&[5, 1, 4, 8], F), t(&[3, 8, 2], F)]),
            2 * 15 * 4 * 2 * 8,
            (5 * 4 * 8 + 3 * 8 * 2 + 15 * 4 * 2) * 4,
        ),
        // x [4, 10, 64] · Wᵀ, W [32, 64], bias [32]: M = 40 rows.
        (
            "linear",
            call(
                "aten::linear",
                &[t(&[4, 10, 64], BF), t(&[32, 64], BF), t(&[32], BF)],
            ),
            2 * 40 * 32 * 64,
            (4 * 10 * 64 + 32 * 64 + 32 + 40 * 32) * 2,
        ),
        // FP8 operands (1 byte), FP32 scales, BF16 output (out_dtype).
        (
            "scaled_mm",
            call(
                "aten::_scaled_mm",
                &[
                    t(&[128, 256], "c10::Float8_e4m3fn"),
                    t(&[256, 64], "c10::Float8_e4m3fn"),
                    t(&[], F),
                    t(&[], F),
                    v(""),
                    v(""),
                    v("torch.bfloat16"),
                    v("False"),
                ],
            ),
            2 * 128 * 64 * 256,
            128 * 256 + 256 * 64 + 4 + 4 + 128 * 64 * 2,
        ),
        // 96 rows routed to 4 experts' [64, 32] weights: 96 rows of K = 64, N = 32.
        (
            "grouped_mm",
            call(
                "aten::_grouped_mm",
                &[t(&[96, 64], BF), t(&[4, 64, 32], BF), t(&[4], "int")],
            ),
            2 * 96 * 32 * 64,
            (96 * 64 + 4 * 64 * 32 + 96 * 32) * 2 + 4 * 4,
        ),
    ]
}

/// Attention, forward and backward, PyTorch and flash-attn.
fn attention_cases() -> Vec<Case> {
    vec![
        // GQA: 8 query heads, 2 key/value heads; causal top-left over
        // 128 × 128: 128·129/2 = 8256 kept pairs per head.
        (
            "sdpa_flash",
            call(
                "aten::_scaled_dot_product_flash_attention",
                &[
                    t(&[2, 8, 128, 64], H),
                    t(&[2, 2, 128, 64], H),
                    t(&[2, 2, 128, 64], H),
                    v("0.0"),
                    v("True"),
                ],
            ),
            2 * (2 * 8 * 8256) * (64 + 64),
            (2 * 8 * 128 * 64 + 2 * (2 * 2 * 128 * 64) + 2 * 8 * 128 * 64) * 2,
        ),
        // Decode: 1 query against 4096 keys, not causal.
        (
            "sdpa_efficient_cudnn",
            call(
                "aten::_scaled_dot_product_cudnn_attention",
                &[
                    t(&[1, 32, 1, 128], BF),
                    t(&[1, 8, 4096, 128], BF),
                    t(&[1, 8, 4096, 128], BF),
                    v(""),
                    v("False"),
                    v("0.0"),
                    v("False"),
                ],
            ),
            2 * (32 * 4096) * (128 + 128),
            (32 * 128 + 2 * 8 * 4096 * 128 + 32 * 128) * 2,
        ),
        // Backward, not causal: 2·pairs·(3·D_qk + 2·D_v); dO, O read,
        // Q, K, V read and their gradients written.
        (
            "sdpa_flash_efficient_bwd",
            call(
                "aten::_scaled_dot_product_flash_attention_backward",
                &[
                    t(&[1, 4, 64, 32], H),
                    t(&[1, 4, 64, 32], H),
                    t(&[1, 4, 64, 32], H),
                    t(&[1, 4, 64, 32], H),
                    t(&[1, 4, 64, 32], H),
                    t(&[1, 4, 64], F),
                    v(""),
                    v(""),
                    v("64"),
                    v("64"),
                    v("0.0"),
                    v("False"),
                ],
            ),
            2 * (4 * 64 * 64) * (3 * 32 + 2 * 32),
            (6 + 2) * (4 * 64 * 32) * 2,
        ),
        (
            "sdpa_cudnn_bwd",
            call(
                "aten::_scaled_dot_product_cudnn_attention_backward",
                &[
                    t(&[1, 4, 64, 32], H),
                    t(&[1, 4, 64, 32], H),
                    t(&[1, 4, 64, 32], H),
                    t(&[1, 4, 64, 32], H),
                    t(&[1, 4, 64, 32], H),
                    t(&[1, 4, 64], F),
                    v(""),
                    v(""),
                    v(""),
                    v(""),
                    v(""),
                    v("64"),
                    v("64"),
                    v("0.0"),
                    v("True"),
                ],
            ),
            // Causal top-left, 64 × 64: 64·65/2 = 2080 pairs per head.
            2 * (4 * 2080) * (3 * 32 + 2 * 32),
            (6 + 2) * (4 * 64 * 32) * 2,
        ),
        // flash-attn: [B, S, H, D]; 100 queries, 300 keys, causal
        // bottom-right: query i sees 200 + i + 1 keys: 100·200 + 100·101/2.
        (
            "flash_attn_fwd",
            call(
                "flash_attn::_flash_attn_forward",
                &[
                    t(&[2, 100, 8, 64], BF),
                    t(&[2, 300, 8, 64], BF),
                    t(&[2, 300, 8, 64], BF),
                    v("0.0"),
                    v("0.125"),
                    v("True"),
                    v("-1"),
                    v("-1"),
                ],
            ),
            2 * (2 * 8 * (100 * 200 + 5050)) * (64 + 64),
            (2 * 100 * 8 * 64 * 2 + 2 * 2 * 300 * 8 * 64) * 2,
        ),
        (
            "flash_attn_bwd",
            call(
                "flash_attn::_flash_attn_backward",
                &[
                    t(&[1, 16, 2, 64], BF),
                    t(&[1, 16, 2, 64], BF),
                    t(&[1, 16, 2, 64], BF),
                    t(&[1, 16, 2, 64], BF),
                    t(&[1, 16, 2, 64], BF),
                    t(&[1, 2, 16], F),
                    t(&[1, 16, 2, 64], BF),
                    t(&[1, 16, 2, 64], BF),
                    t(&[1, 16, 2, 64], BF),
                    v("0.0"),
                    v("0.125"),
                    v("False"),
                    v("-1"),
                ],
            ),
            2 * (2 * 16 * 16) * (3 * 64 + 2 * 64),
            8 * (16 * 2 * 64) * 2,
        ),
    ]
}

/// Convolution, forward, transposed and backward.
fn conv_cases() -> Vec<Case> {
    vec![
        // 224² input, 7×7 kernel, stride 2, padding 3: (224 + 6 − 6 − 1)/2 + 1 = 112.
        (
            "convolution",
            call(
                "aten::convolution",
                &[
                    t(&[8, 3, 224, 224], F),
                    t(&[64, 3, 7, 7], F),
                    t(&[64], F),
                    v("[2, 2]"),
                    v("[3, 3]"),
                    v("[1, 1]"),
                    v("False"),
                    v("[0, 0]"),
                    v("1"),
                ],
            ),
            2 * 8 * (64 * 3 * 49) * (112 * 112),
            (8 * 3 * 224 * 224 + 64 * 3 * 49 + 64 + 8 * 64 * 112 * 112) * 4,
        ),
        // Depthwise (groups 32), 3×3, padding 1: output 56².
        (
            "cudnn_convolution",
            call(
                "aten::cudnn_convolution",
                &[
                    t(&[4, 32, 56, 56], H),
                    t(&[32, 1, 3, 3], H),
                    v("[1, 1]"),
                    v("[1, 1]"),
                    v("[1, 1]"),
                    v("32"),
                    v("False"),
                    v("False"),
                    v("True"),
                ],
            ),
            2 * 4 * (32 * 9) * (56 * 56),
            (4 * 32 * 56 * 56 * 2 + 32 * 9) * 2,
        ),
        // Transposed, stride 2, padding 1, 4×4: (8 − 1)·2 − 2 + 3 + 1 = 16;
        // FLOPs over the input's 8²; C_out = 8.
        (
            "cudnn_convolution_transpose",
            call(
                "aten::cudnn_convolution_transpose",
                &[
                    t(&[1, 16, 8, 8], F),
                    t(&[16, 8, 4, 4], F),
                    v("[1, 1]"),
                    v("[0, 0]"),
                    v("[2, 2]"),
                    v("[1, 1]"),
                    v("1"),
                ],
            ),
            2 * (16 * 8 * 16) * 64,
            (16 * 64 + 16 * 8 * 16 + 8 * 256) * 4,
        ),
        // First layer: no input gradient; weight gradient (input read, it
        // written) and bias gradient (64 values).
        (
            "convolution_backward",
            call(
                "aten::convolution_backward",
                &[
                    t(&[8, 64, 112, 112], F),
                    t(&[8, 3, 224, 224], F),
                    t(&[64, 3, 7, 7], F),
                    v("[64]"),
                    v("[2, 2]"),
                    v("[3, 3]"),
                    v("[1, 1]"),
                    v("False"),
                    v("[0, 0]"),
                    v("1"),
                    v("[False, True, True]"),
                ],
            ),
            2 * 8 * (64 * 3 * 49) * (112 * 112),
            (8 * 64 * 112 * 112 + 8 * 3 * 224 * 224 + 64 * 3 * 49 + 64) * 4,
        ),
    ]
}

/// Ops on CUDA cores.
fn vector_cases() -> Vec<Case> {
    vec![
        // 8 FLOPs per element; input, weight, bias read, output written.
        (
            "norm",
            call(
                "aten::native_layer_norm",
                &[
                    t(&[4, 128, 768], H),
                    v("[768]"),
                    t(&[768], H),
                    t(&[768], H),
                    v("1e-05"),
                ],
            ),
            8 * 4 * 128 * 768,
            (2 * 4 * 128 * 768 + 2 * 768) * 2,
        ),
        (
            "rms_norm",
            call(
                "aten::rms_norm",
                &[
                    t(&[2, 16, 4096], BF),
                    v("[4096]"),
                    t(&[4096], BF),
                    v("1e-06"),
                ],
            ),
            4 * 2 * 16 * 4096,
            (2 * 2 * 16 * 4096 + 4096) * 2,
        ),
        (
            "softmax",
            call(
                "aten::_softmax",
                &[t(&[8, 12, 128, 128], F), v("-1"), v("False")],
            ),
            5 * 8 * 12 * 128 * 128,
            2 * 8 * 12 * 128 * 128 * 4,
        ),
        // 32 targets (8 bytes each), 32 log-probabilities gathered, one loss.
        (
            "nll_loss",
            call(
                "aten::nll_loss_forward",
                &[t(&[32, 1000], F), t(&[32], L), v(""), v("1"), v("-100")],
            ),
            32,
            32 * 8 + 32 * 4 + 4,
        ),
        // 512 indices; 512 rows of 768 floats read and written.
        (
            "embedding",
            call(
                "aten::embedding",
                &[
                    t(&[50257, 768], F),
                    t(&[4, 128], L),
                    v("-1"),
                    v("False"),
                    v("False"),
                ],
            ),
            0,
            512 * 8 + 2 * 512 * 768 * 4,
        ),
        // [4, 1, 8] + [3, 1] broadcast to [4, 3, 8] = 96 elements.
        (
            "pointwise",
            call("aten::add", &[t(&[4, 1, 8], F), t(&[3, 1], F), v("1")]),
            96,
            (32 + 3 + 96) * 4,
        ),
        // In place: the row takes `addcmul_` through `addcmul`.
        (
            "fused_pointwise",
            call(
                "aten::addcmul_",
                &[t(&[10], F), t(&[10], F), t(&[10], F), v("0.5")],
            ),
            2 * 10,
            4 * 10 * 4,
        ),
        // Sum over dim 1 of [8, 16, 32]: 4096 read, 256 written.
        (
            "reduction",
            call(
                "aten::sum",
                &[t(&[8, 16, 32], F), v("[1]"), v("False"), v("")],
            ),
            8 * 16 * 32,
            (4096 + 256) * 4,
        ),
        // FP32 source into an FP16 tensor.
        (
            "copy",
            call("aten::copy_", &[t(&[1024], H), t(&[1024], F), v("False")]),
            0,
            1024 * 4 + 1024 * 2,
        ),
        ("fill", call("aten::zero_", &[t(&[1000], F)]), 0, 4000),
    ]
}

#[test]
fn each_row_gives_its_hand_worked_flops_and_bytes() {
    for (key, c, flops, bytes) in hand_cases() {
        assert_eq!(row_for(&c.name).map(|r| r.key), Some(key), "{}", c.name);
        let w = work(&c).unwrap_or_else(|e| panic!("{key}: {e:?}"));
        assert_eq!((w.flops, w.bytes), (flops, bytes), "{key}");
    }
}

#[test]
fn every_row_has_a_hand_worked_case() {
    let covered: BTreeSet<&str> = hand_cases().iter().map(|c| c.0).collect();
    let missing: Vec<&str> = ROWS
        .iter()
        .map(|r| r.key)
        .filter(|k| !covered.contains(k))
        .collect();
    assert!(missing.is_empty(), "rows without a case: {missing:?}");
}

/// The oracle file's cases.
#[derive(serde::Deserialize)]
struct Oracle {
    cases: Vec<OracleCase>,
}

#[derive(serde::Deserialize)]
struct OracleCase {
    case: String,
    op: String,
    args: Vec<OracleArg>,
    flop_counter_flops: u64,
}

#[derive(serde::Deserialize)]
struct OracleArg {
    dims: Vec<i64>,
    #[serde(rename = "type")]
    ty: String,
    #[serde(default)]
    value: String,
}

/// Every case torch's flop counter counted gives the same FLOPs here, but
/// where docs/ops.md says the conventions differ: a causal mask keeps
/// `kept` of `sq·sk` entries (flop_counter counts them all), and a 1-D ·
/// 1-D `matmul` (a dot product) flop_counter does not count.
#[test]
fn flops_equal_torch_flop_counter_where_the_conventions_agree() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/opmodel/flop_counter.json"
    );
    let oracle: Oracle = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mut rows = BTreeSet::new();
    for case in &oracle.cases {
        let dims: Vec<Vec<i64>> = case.args.iter().map(|a| a.dims.clone()).collect();
        let types: Vec<&str> = case.args.iter().map(|a| a.ty.as_str()).collect();
        let values: Vec<&str> = case.args.iter().map(|a| a.value.as_str()).collect();
        let c = OpCall::from_recorded(&case.op, &dims, &types, &values);
        let w = work(&c).unwrap_or_else(|e| panic!("{}: {e:?}", case.case));
        rows.insert(row_for(&case.op).unwrap().key);
        let want = match case.case.as_str() {
            // 128 × 128 causal top-left: 8256 of 16384 entries.
            "sdpa_flash_causal" | "sdpa_flash_bwd_causal" => case.flop_counter_flops / 16384 * 8256,
            // Not causal in the call; flop_counter gives 0 for a dot.
            "matmul_dot" => {
                assert_eq!(case.flop_counter_flops, 0);
                2 * 100
            }
            _ => case.flop_counter_flops,
        };
        assert_eq!(w.flops, want, "{}", case.case);
    }
    // The matrix rows flop_counter models are all checked here.
    for key in [
        "mm",
        "addmm",
        "bmm",
        "baddbmm",
        "matmul",
        "linear",
        "scaled_mm",
        "sdpa_flash",
        "sdpa_efficient_cudnn",
        "sdpa_flash_efficient_bwd",
        "convolution",
        "convolution_backward",
    ] {
        assert!(rows.contains(key), "no oracle case for {key}");
    }
}

#[test]
fn calls_that_cannot_be_modelled_say_why_and_cost_only_themselves() {
    let k_mismatch = call("aten::mm", &[t(&[4, 5], F), t(&[6, 7], F)]);
    assert_eq!(
        work(&k_mismatch),
        Err(NoModel::BadShape("inner sizes differ"))
    );
    // No Concrete Inputs: whether the mask is causal is unknown.
    let no_causal = call(
        "aten::_scaled_dot_product_flash_attention",
        &[
            t(&[1, 1, 4, 8], H),
            t(&[1, 1, 4, 8], H),
            t(&[1, 1, 4, 8], H),
        ],
    );
    assert_eq!(work(&no_causal), Err(NoModel::NoValue("is_causal")));
    let no_settings = call(
        "aten::convolution",
        &[t(&[1, 3, 8, 8], F), t(&[4, 3, 3, 3], F)],
    );
    assert_eq!(work(&no_settings), Err(NoModel::NoValue("transposed")));
    assert_eq!(
        work(&call("aten::unknown_op", &[t(&[1], F)])),
        Err(NoModel::NotModelled)
    );
    assert_eq!(work(&call("aten::mm", &[])), Err(NoModel::NoShapes));
    let negative = call("aten::mm", &[t(&[-1, 5], F), t(&[5, 7], F)]);
    assert!(matches!(work(&negative), Err(NoModel::BadShape(_))));
    let huge = call(
        "aten::mm",
        &[t(&[1 << 40, 1 << 20], F), t(&[1 << 20, 1 << 20], F)],
    );
    assert_eq!(work(&huge), Err(NoModel::Overflow));
}

#[test]
fn fp32_matrix_work_takes_tf32_only_when_allowed() {
    let w = |engine, dtype| Work {
        model: "x",
        flops: 1,
        engine,
        dtype,
        bytes: 1,
        collective: None,
    };
    use crate::roofs::ComputePath as P;
    assert_eq!(
        w(Engine::Matrix, Dtype::F32).compute_path(false),
        Some(P::Fp32)
    );
    assert_eq!(
        w(Engine::Matrix, Dtype::F32).compute_path(true),
        Some(P::TensorTf32)
    );
    assert_eq!(
        w(Engine::Matrix, Dtype::Bf16).compute_path(false),
        Some(P::TensorBf16)
    );
    assert_eq!(
        w(Engine::Vector, Dtype::Bf16).compute_path(false),
        Some(P::Fp16)
    );
    assert_eq!(w(Engine::Vector, Dtype::I64).compute_path(false), None);
}
