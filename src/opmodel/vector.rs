//! Ops on CUDA cores whose cost is their traffic: elementwise unary,
//! binary and fused ops with broadcasting, reductions, normalisation,
//! softmax, the negative log-likelihood, embedding, copies and fills.
//! FLOPs are a stated count per element (docs/ops.md: one per element per
//! arithmetic op, whatever the function; a fixed count per element for
//! the normalisations and softmax); they only set these ops' intensity,
//! which is far below any GPU's ridge point at every plausible count.
//! Bytes: every tensor argument read once at its own size, the output
//! written once.

use super::args::{broadcast, mul, product, sum, Tensor};
use super::model::{Dtype, Engine, NoModel, OpCall, Work};

/// Vector work of `flops` FLOPs in `dtype` moving `parts` bytes.
fn vector(model: &'static str, flops: u64, dtype: Dtype, parts: &[u64]) -> Result<Work, NoModel> {
    Ok(Work {
        model,
        flops,
        engine: Engine::Vector,
        dtype,
        bytes: sum(parts)?,
        collective: None,
    })
}

/// Bytes of every tensor argument.
fn all_read(tensors: &[Tensor]) -> Result<Vec<u64>, NoModel> {
    tensors.iter().map(Tensor::bytes).collect()
}

/// An elementwise op doing `per_element` FLOPs per output element: the
/// output has the tensors' broadcast shape and the first tensor's type.
fn elementwise(call: &OpCall, per_element: u64) -> Result<Work, NoModel> {
    let tensors = call.tensors()?;
    let first = *tensors
        .first()
        .ok_or(NoModel::BadShape("no tensor argument"))?;
    let shapes: Vec<&[u64]> = tensors.iter().map(|t| t.dims).collect();
    let out = product(&broadcast(&shapes)?)?;
    let mut parts = all_read(&tensors)?;
    parts.push(mul(out, first.dtype.bytes())?);
    vector("elementwise", mul(out, per_element)?, first.dtype, &parts)
}

/// Unary and binary elementwise ops (`relu`, `add`, `mul`, `where`,
/// `gelu_backward`…): one FLOP per output element.
pub(super) fn pointwise(call: &OpCall) -> Result<Work, NoModel> {
    elementwise(call, 1)
}

/// Fused multiply-adds per element (`addcmul`, `addcdiv`, `lerp`): two.
pub(super) fn fused_pointwise(call: &OpCall) -> Result<Work, NoModel> {
    elementwise(call, 2)
}

/// Copies and casts (`copy_`, `_to_copy`, `clone`): no FLOPs; each tensor
/// read once and the result written once (`_to_copy`'s in its `dtype`).
pub(super) fn copy(call: &OpCall) -> Result<Work, NoModel> {
    let src = call.tensor(0, "self")?;
    let parts = if call.name == "aten::copy_" {
        let from = call.tensor(1, "src")?;
        vec![from.bytes()?, src.bytes()?]
    } else {
        let to = match call.name.as_str() {
            "aten::_to_copy" => call
                .value(1)
                .and_then(Dtype::parse_concrete)
                .unwrap_or(src.dtype),
            _ => src.dtype,
        };
        vec![src.bytes()?, mul(src.numel()?, to.bytes())?]
    };
    vector("copy", 0, src.dtype, &parts)
}

/// Fills (`fill_`, `zero_`): the tensor written once.
pub(super) fn fill(call: &OpCall) -> Result<Work, NoModel> {
    let t = call.tensor(0, "self")?;
    vector("copy", 0, t.dtype, &[t.bytes()?])
}

/// Elements left after reducing `t` over the dimensions at argument
/// `at` (all of them when none is given or recorded: at least one element
/// is written, so the bytes stay a lower bound).
fn reduced_numel(call: &OpCall, t: &Tensor, at: usize) -> Result<u64, NoModel> {
    let rank = t.dims.len() as i64;
    let dims = match call.ints(at) {
        Some(d) if !d.is_empty() => d,
        _ => return Ok(1),
    };
    let mut keep = t.dims.to_vec();
    for d in dims {
        let d = if d < 0 { d + rank } else { d };
        let slot = usize::try_from(d)
            .ok()
            .and_then(|d| keep.get_mut(d))
            .ok_or(NoModel::BadShape("reduced dimension out of range"))?;
        *slot = 1;
    }
    product(&keep)
}

/// Reductions (`sum`, `mean`, `amax`, `var`, `norm`…): one FLOP per input
/// element; the input read, the reduced output written.
pub(super) fn reduction(call: &OpCall) -> Result<Work, NoModel> {
    let t = call.tensor(0, "self")?;
    let dim_at = if call.name == "aten::norm" { 2 } else { 1 };
    let out = reduced_numel(call, &t, dim_at)?;
    vector(
        "reduction",
        t.numel()?,
        t.dtype,
        &[t.bytes()?, mul(out, t.dtype.bytes())?],
    )
}

/// FLOPs per element of the normalisations and softmax (docs/ops.md).
pub(super) const NORM_FLOPS_PER_ELEMENT: u64 = 8;
/// RMS normalisation: square, sum, scale, weight.
pub(super) const RMS_FLOPS_PER_ELEMENT: u64 = 4;
/// Softmax: max, subtract, exponential, sum, divide.
pub(super) const SOFTMAX_FLOPS_PER_ELEMENT: u64 = 5;

/// A normalisation or softmax over its first argument: `per_element`
/// FLOPs per element; every tensor argument read (weights, statistics),
/// one output of the input's size written.
fn normalise(call: &OpCall, model: &'static str, per_element: u64) -> Result<Work, NoModel> {
    let x = call.tensor(0, "input")?;
    let mut parts = all_read(&call.tensors()?)?;
    parts.push(x.bytes()?);
    vector(model, mul(x.numel()?, per_element)?, x.dtype, &parts)
}

/// `layer_norm`, `native_layer_norm`, `native_batch_norm`,
/// `cudnn_batch_norm`, `native_group_norm` and their backward.
pub(super) fn norm(call: &OpCall) -> Result<Work, NoModel> {
    normalise(call, "norm", NORM_FLOPS_PER_ELEMENT)
}

/// `rms_norm`, `_fused_rms_norm`.
pub(super) fn rms_norm(call: &OpCall) -> Result<Work, NoModel> {
    normalise(call, "norm", RMS_FLOPS_PER_ELEMENT)
}

/// `_softmax`, `_log_softmax` and their backward.
pub(super) fn softmax(call: &OpCall) -> Result<Work, NoModel> {
    normalise(call, "softmax", SOFTMAX_FLOPS_PER_ELEMENT)
}

/// `nll_loss_forward(self, target, weight, reduction, ignore_index)`: one
/// log-probability gathered per target; the targets and those values
/// read, at least one element written.
pub(super) fn nll_loss(call: &OpCall) -> Result<Work, NoModel> {
    let (x, target) = (call.tensor(0, "self")?, call.tensor(1, "target")?);
    let n = target.numel()?;
    let gathered = mul(n, x.dtype.bytes())?;
    vector(
        "loss",
        n,
        x.dtype,
        &[target.bytes()?, gathered, x.dtype.bytes()],
    )
}

/// `embedding(weight, indices, …)`: one row of the table read and written
/// per index, the indices read; no FLOPs.
pub(super) fn embedding(call: &OpCall) -> Result<Work, NoModel> {
    let (w, idx) = (call.tensor(0, "weight")?, call.tensor(1, "indices")?);
    if w.dims.len() != 2 {
        return Err(NoModel::BadShape("embedding table is not a matrix"));
    }
    let rows = mul(mul(idx.numel()?, w.dims[1])?, w.dtype.bytes())?;
    vector("embedding", 0, w.dtype, &[idx.bytes()?, rows, rows])
}
