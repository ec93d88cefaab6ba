//! Matrix products: `mm`, `addmm`, `bmm`, `baddbmm`, `matmul`, `linear`,
//! `_scaled_mm` (FP8) and `_grouped_mm`. FLOPs are 2·M·N·K per product
//! (one multiply and one add per term); a bias added to the product is not
//! counted (as `torch.utils.flop_counter`), its bytes are. Bytes: both
//! operands, the bias and the scales read once, the product written once.

use super::args::{broadcast, mul, product, sum, Tensor};
use super::model::{Dtype, Engine, NoModel, OpCall, Work};

/// The work of `batch` products of `[M, K] × [K, N]`, given every
/// operand's bytes and the output's element type.
fn products(
    model: &'static str,
    (batch, m, n, k): (u64, u64, u64, u64),
    dtype: Dtype,
    read_bytes: &[u64],
    out: Dtype,
) -> Result<Work, NoModel> {
    let terms = product(&[batch, m, n, k])?;
    let written = mul(product(&[batch, m, n])?, out.bytes())?;
    let mut all = read_bytes.to_vec();
    all.push(written);
    Ok(Work {
        model,
        flops: mul(2, terms)?,
        engine: Engine::Matrix,
        dtype,
        bytes: sum(&all)?,
        collective: None,
    })
}

/// `[M, K] × [K, N]` from two 2-D operands.
fn two_d(a: &Tensor, b: &Tensor) -> Result<(u64, u64, u64), NoModel> {
    match (a.dims, b.dims) {
        ([m, k], [k2, n]) if k == k2 => Ok((*m, *n, *k)),
        ([_, _], [_, _]) => Err(NoModel::BadShape("inner sizes differ")),
        _ => Err(NoModel::BadShape("operands are not matrices")),
    }
}

/// `aten::mm(self, mat2)`.
pub(super) fn mm(call: &OpCall) -> Result<Work, NoModel> {
    let (a, b) = (call.tensor(0, "self")?, call.tensor(1, "mat2")?);
    let (m, n, k) = two_d(&a, &b)?;
    products(
        "gemm",
        (1, m, n, k),
        a.dtype,
        &[a.bytes()?, b.bytes()?],
        a.dtype,
    )
}

/// `aten::addmm(self, mat1, mat2, beta, alpha)`: `self` is the bias.
pub(super) fn addmm(call: &OpCall) -> Result<Work, NoModel> {
    let bias = call.tensor(0, "self")?;
    let (a, b) = (call.tensor(1, "mat1")?, call.tensor(2, "mat2")?);
    let (m, n, k) = two_d(&a, &b)?;
    let read = [bias.bytes()?, a.bytes()?, b.bytes()?];
    products("gemm", (1, m, n, k), a.dtype, &read, a.dtype)
}

/// `[B, M, K] × [B, K, N]` from two 3-D operands.
fn three_d(a: &Tensor, b: &Tensor) -> Result<(u64, u64, u64, u64), NoModel> {
    match (a.dims, b.dims) {
        ([bt, m, k], [bt2, k2, n]) if bt == bt2 && k == k2 => Ok((*bt, *m, *n, *k)),
        ([_, _, _], [_, _, _]) => Err(NoModel::BadShape("batch or inner sizes differ")),
        _ => Err(NoModel::BadShape("operands are not batches of matrices")),
    }
}

/// `aten::bmm(self, mat2)`.
pub(super) fn bmm(call: &OpCall) -> Result<Work, NoModel> {
    let (a, b) = (call.tensor(0, "self")?, call.tensor(1, "mat2")?);
    let shape = three_d(&a, &b)?;
    products("gemm", shape, a.dtype, &[a.bytes()?, b.bytes()?], a.dtype)
}

/// `aten::baddbmm(self, batch1, batch2, beta, alpha)`.
pub(super) fn baddbmm(call: &OpCall) -> Result<Work, NoModel> {
    let bias = call.tensor(0, "self")?;
    let (a, b) = (call.tensor(1, "batch1")?, call.tensor(2, "batch2")?);
    let shape = three_d(&a, &b)?;
    let read = [bias.bytes()?, a.bytes()?, b.bytes()?];
    products("gemm", shape, a.dtype, &read, a.dtype)
}

/// `aten::matmul(self, other)` with `torch.matmul`'s rules: a 1-D
/// operand is a row (left) or a column (right), leading dimensions
/// broadcast as batch.
pub(super) fn matmul(call: &OpCall) -> Result<Work, NoModel> {
    let (a, b) = (call.tensor(0, "self")?, call.tensor(1, "other")?);
    if a.dims.is_empty() || b.dims.is_empty() {
        return Err(NoModel::BadShape("matmul of a 0-d tensor"));
    }
    let (m, k) = match a.dims.len() {
        1 => (1, a.dims[0]),
        _ => (a.back(2), a.back(1)),
    };
    let (k2, n) = match b.dims.len() {
        1 => (b.dims[0], 1),
        _ => (b.back(2), b.back(1)),
    };
    if k != k2 {
        return Err(NoModel::BadShape("inner sizes differ"));
    }
    let lead = |t: &Tensor| t.dims.len().saturating_sub(2);
    let batch = broadcast(&[&a.dims[..lead(&a)], &b.dims[..lead(&b)]])?;
    let shape = (product(&batch)?, m, n, k);
    products("gemm", shape, a.dtype, &[a.bytes()?, b.bytes()?], a.dtype)
}

/// `aten::linear(input, weight, bias)`: `input [..., K] × weightᵀ`, weight
/// `[N, K]` (or `[K]`, one output feature).
pub(super) fn linear(call: &OpCall) -> Result<Work, NoModel> {
    let (x, w) = (call.tensor(0, "input")?, call.tensor(1, "weight")?);
    let bias = call.optional_tensor(2)?;
    let k = x.back(1);
    let (n, k2) = match w.dims {
        [n, k2] => (*n, *k2),
        [k2] => (1, *k2),
        _ => return Err(NoModel::BadShape("weight is not a matrix")),
    };
    if x.dims.is_empty() || k != k2 {
        return Err(NoModel::BadShape("inner sizes differ"));
    }
    let m = product(&x.dims[..x.dims.len() - 1])?;
    let mut read = vec![x.bytes()?, w.bytes()?];
    if let Some(b) = bias {
        read.push(b.bytes()?);
    }
    products("gemm", (1, m, n, k), x.dtype, &read, x.dtype)
}

/// `aten::_scaled_mm(self, mat2, scale_a, scale_b, bias, scale_result,
/// out_dtype, use_fast_accum)`: an FP8 product; the output has
/// `out_dtype`, else the inputs' type (PyTorch's default).
pub(super) fn scaled_mm(call: &OpCall) -> Result<Work, NoModel> {
    let (a, b) = (call.tensor(0, "self")?, call.tensor(1, "mat2")?);
    let (m, n, k) = two_d(&a, &b)?;
    let mut read = vec![a.bytes()?, b.bytes()?];
    for i in 2..6 {
        if let Some(t) = call.optional_tensor(i)? {
            read.push(t.bytes()?);
        }
    }
    let out = call
        .value(6)
        .and_then(Dtype::parse_concrete)
        .unwrap_or(a.dtype);
    products("gemm", (1, m, n, k), a.dtype, &read, out)
}

/// `aten::_grouped_mm(self, mat2, offs, bias, out_dtype)`: groups of
/// products stacked along M (`[ΣM, K] × [G, K, N]`) or batched
/// (`[G, M, K] × [G, K, N]`); the other layouts are not modelled.
pub(super) fn grouped_mm(call: &OpCall) -> Result<Work, NoModel> {
    let (a, b) = (call.tensor(0, "self")?, call.tensor(1, "mat2")?);
    let shape = match (a.dims, b.dims) {
        ([m_all, k], [_, k2, n]) if k == k2 => (1, *m_all, *n, *k),
        ([_, _, _], [_, _, _]) => three_d(&a, &b)?,
        _ => {
            return Err(NoModel::BadShape(
                "grouped layout other than 2-D × 3-D or 3-D × 3-D",
            ))
        }
    };
    let mut read = vec![a.bytes()?, b.bytes()?];
    for i in 2..4 {
        if let Some(t) = call.optional_tensor(i)? {
            read.push(t.bytes()?);
        }
    }
    let out = call
        .value(4)
        .and_then(Dtype::parse_concrete)
        .unwrap_or(a.dtype);
    products("gemm", shape, a.dtype, &read, out)
}
