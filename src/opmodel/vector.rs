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

/// The elements of `t` an indexed op touches at least: one per index, at
/// most all of `t` (repeated indices touch an element once).
fn touched(t: &Tensor, indices: u64) -> Result<u64, NoModel> {
    Ok(indices.min(t.numel()?))
}

/// `gather(self, dim, index)` and `index_select(self, dim, index)`: the
/// indices read, the elements they pick read, the output written (the
/// index's shape for `gather`; for `index_select` `self` with its `dim`
/// cut to one slice per index); no FLOPs.
pub(super) fn gather(call: &OpCall) -> Result<Work, NoModel> {
    let (src, index) = (call.tensor(0, "self")?, call.tensor(2, "index")?);
    let out = if call.name == "aten::index_select" {
        // A 1-D source has one dimension to select along, recorded or not.
        let dim = call.ints(1).and_then(|d| d.first().copied());
        let dim = dim
            .or((src.dims.len() == 1).then_some(0))
            .ok_or(NoModel::NoValue("dim"))?;
        let rank = src.dims.len() as i64;
        let at = usize::try_from(if dim < 0 { dim + rank } else { dim })
            .ok()
            .filter(|&d| d < src.dims.len())
            .ok_or(NoModel::BadShape("selected dimension out of range"))?;
        let slice = product(&src.dims[at + 1..])?;
        mul(mul(product(&src.dims[..at])?, index.numel()?)?, slice)?
    } else {
        index.numel()?
    };
    let picked = mul(touched(&src, out)?, src.dtype.bytes())?;
    let written = mul(out, src.dtype.bytes())?;
    vector("gather", 0, src.dtype, &[index.bytes()?, picked, written])
}

/// `scatter_add_(self, dim, index, src)`: index and source read, the
/// elements of `self` they hit read and written; one add per source
/// element.
pub(super) fn scatter_add(call: &OpCall) -> Result<Work, NoModel> {
    let target = call.tensor(0, "self")?;
    let (index, src) = (call.tensor(2, "index")?, call.tensor(3, "src")?);
    let hit = mul(touched(&target, index.numel()?)?, target.dtype.bytes())?;
    vector(
        "gather",
        src.numel()?,
        target.dtype,
        &[index.bytes()?, src.bytes()?, hit, hit],
    )
}

/// FLOPs per element of the mean squared error, forward (subtract,
/// square, accumulate) and backward (subtract, scale, times the gradient).
pub(super) const MSE_FLOPS_PER_ELEMENT: u64 = 3;

/// `mse_loss(self, target, reduction)`: both read; the loss written (one
/// element unless `reduction` is recorded as 0, none: then one per
/// element). `mse_loss_backward(grad_output, self, target, reduction)`:
/// the three read (an `out=` tensor after them is not read), the gradient
/// of `self`'s size written.
pub(super) fn mse_loss(call: &OpCall) -> Result<Work, NoModel> {
    let backward = call.name == "aten::mse_loss_backward";
    let first = usize::from(backward);
    let (x, target) = (
        call.tensor(first, "self")?,
        call.tensor(first + 1, "target")?,
    );
    let mut parts = vec![x.bytes()?, target.bytes()?];
    if backward {
        parts.push(call.tensor(0, "grad_output")?.bytes()?);
        parts.push(x.bytes()?);
    } else if call.value(2) == Some("0") {
        parts.push(x.bytes()?);
    } else {
        parts.push(x.dtype.bytes());
    }
    vector(
        "loss",
        mul(x.numel()?, MSE_FLOPS_PER_ELEMENT)?,
        x.dtype,
        &parts,
    )
}
