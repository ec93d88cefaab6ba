//! fbgemm_gpu's ops of recommendation models (TorchRec): the split
//! (table-batched) embedding lookup and its backward, the sparse-feature
//! permutes, the index bounds check and the FP8/HFP8 quantization of
//! communication buffers. All are memory-bound gathers, scatters and
//! conversions: no FLOPs counted (as `embedding`), the bytes every recorded
//! tensor read once and each output of a size the recorded shapes fix
//! written once. Where a size depends on a value PyTorch 2.0 does not
//! record (an embedding table's width), it is left out: the bytes stay a
//! lower bound, said in docs/ops.md.

use super::args::{mul, product, sum, Tensor};
use super::model::{Dtype, Engine, NoModel, OpCall, Work};

/// Memory work: `parts` bytes in the type of `dtype`.
fn moved(model: &'static str, dtype: Dtype, parts: &[u64]) -> Result<Work, NoModel> {
    Ok(Work {
        model,
        flops: 0,
        engine: Engine::Vector,
        dtype,
        bytes: sum(parts)?,
        collective: None,
    })
}

/// Bytes of every tensor argument.
fn reads(call: &OpCall) -> Result<Vec<u64>, NoModel> {
    call.tensors()?.iter().map(Tensor::bytes).collect()
}

/// A 1-D integer tensor at `i` (indices, offsets).
fn index_list<'a>(call: &'a OpCall, i: usize, what: &'static str) -> Result<Tensor<'a>, NoModel> {
    let t = call.tensor(i, what)?;
    let integer = matches!(t.dtype, Dtype::I64 | Dtype::I32);
    if t.dims.len() != 1 || !integer {
        return Err(NoModel::BadShape(
            "a lookup's indices or offsets are not a list of integers",
        ));
    }
    Ok(t)
}

/// `split_embedding_codegen_lookup_*_function` (forward): indices
/// (argument 11), offsets (12) and per-sample weights (14, when given)
/// read. The rows gathered and the pooled output need each table's width
/// (`D_offsets`' values), which the trace does not record: left out.
pub(super) fn lookup(call: &OpCall) -> Result<Work, NoModel> {
    let indices = index_list(call, 11, "indices")?;
    let offsets = index_list(call, 12, "offsets")?;
    let mut parts = vec![indices.bytes()?, offsets.bytes()?];
    if let Some(w) = call.optional_tensor(14)? {
        parts.push(w.bytes()?);
    }
    moved("embedding_bag", Dtype::F32, &parts)
}

/// `CppNode<SplitLookupFunction_*_Op>` (the lookup's backward with its
/// fused optimizer): the pooled gradient `[B, total_D]` read. The rows
/// updated depend on the indices' values: left out.
pub(super) fn lookup_backward(call: &OpCall) -> Result<Work, NoModel> {
    let grad = call.tensor(0, "grad_output")?;
    if grad.dims.len() != 2 {
        return Err(NoModel::BadShape(
            "the lookup's gradient is not [B, total_D]",
        ));
    }
    moved("embedding_bag", grad.dtype, &[grad.bytes()?])
}

/// `permute_pooled_embs_auto_grad(pooled_embs, offset_dim_list,
/// permute_list, inv_offset_dim_list, inv_permute_list)` and its backward
/// node (the gradient alone): the pooled embeddings read and written once
/// in their new order, the index lists read.
pub(super) fn permute_pooled(call: &OpCall) -> Result<Work, NoModel> {
    let embs = call.tensor(0, "pooled_embs")?;
    let mut parts = reads(call)?;
    parts.push(embs.bytes()?);
    moved("permute", embs.dtype, &parts)
}

/// `permute_2D_sparse_data(permute, lengths [T, B], indices, weights, …)`
/// and `permute_sparse_features(permute, lengths, indices, weights)`:
/// every input read; the permuted lengths (`permute` entries × B)
/// written; the permuted indices (and weights) written at the input's size
/// when `permute` is a permutation of the T features (as many entries as
/// features), else left out (features dropped or repeated: their size is
/// not recorded).
pub(super) fn permute_sparse(call: &OpCall) -> Result<Work, NoModel> {
    let permute = call.tensor(0, "permute")?;
    let lengths = call.tensor(1, "lengths")?;
    let indices = call.tensor(2, "indices")?;
    if lengths.dims.len() != 2 || permute.dims.len() != 1 {
        return Err(NoModel::BadShape(
            "lengths are not [T, B] or permute not a list",
        ));
    }
    let mut parts = reads(call)?;
    let permuted_lengths = mul(permute.dims[0], lengths.dims[1])?;
    parts.push(mul(permuted_lengths, lengths.dtype.bytes())?);
    if permute.dims[0] == lengths.dims[0] {
        parts.push(indices.bytes()?);
        if let Some(w) = call.optional_tensor(3)? {
            parts.push(w.bytes()?);
        }
    }
    moved("permute", indices.dtype, &parts)
}

/// `bounds_check_indices(rows_per_table, indices, offsets, …)`: every
/// tensor read (out-of-range indices are fixed in place: none written at
/// least).
pub(super) fn bounds_check(call: &OpCall) -> Result<Work, NoModel> {
    let indices = index_list(call, 1, "indices")?;
    moved("bounds_check", indices.dtype, &reads(call)?)
}

/// Rows × columns of a 2-D tensor.
fn matrix(t: &Tensor) -> Result<(u64, u64), NoModel> {
    match t.dims {
        [rows, cols] => Ok((*rows, *cols)),
        _ => Err(NoModel::BadShape(
            "a row-wise quantized buffer is not a matrix",
        )),
    }
}

/// fbgemm's row-wise FP8 buffers carry each row's scale and bias as two
/// FP32 values after its elements: 8 bytes.
const ROW_SCALE_BIAS_BYTES: u64 = 8;

/// Quantization and its inverse, one element converted per element:
/// `FloatToFP8RowwiseQuantized` (`[R, C]` FP32 → `[R, C + 8]` bytes),
/// `FP8RowwiseQuantizedToFloat` (`[R, C + 8]` bytes → `[R, C]` FP32,
/// fbgemm's default output type), `FloatToHFP8Quantized` (FP32 → one byte
/// each) and `HFP8QuantizedToFloat` (one byte → FP32 each): the input read,
/// the output written.
pub(super) fn quantize(call: &OpCall) -> Result<Work, NoModel> {
    let input = call.tensor(0, "input")?;
    let name = call.name.trim_start_matches("fbgemm::");
    let out = match name {
        "FloatToFP8RowwiseQuantized" => {
            let (rows, cols) = matrix(&input)?;
            mul(
                rows,
                cols.checked_add(ROW_SCALE_BIAS_BYTES)
                    .ok_or(NoModel::Overflow)?,
            )?
        }
        "FP8RowwiseQuantizedToFloat" => {
            let (rows, cols) = matrix(&input)?;
            let width = cols
                .checked_sub(ROW_SCALE_BIAS_BYTES)
                .ok_or(NoModel::BadShape(
                    "a row-wise FP8 row is narrower than its scale",
                ))?;
            mul(mul(rows, width)?, Dtype::F32.bytes())?
        }
        "FloatToHFP8Quantized" => product(input.dims)?,
        _ => mul(product(input.dims)?, Dtype::F32.bytes())?,
    };
    moved("quantize", input.dtype, &[input.bytes()?, out])
}

/// `asynchronous_complete_cumsum(t)`: the inclusive prefix sum with a
/// leading 0, `[N]` → `[N + 1]`: one add per element, the input read,
/// the output written.
pub(super) fn complete_cumsum(call: &OpCall) -> Result<Work, NoModel> {
    let t = call.tensor(0, "t_in")?;
    if t.dims.len() != 1 {
        return Err(NoModel::BadShape(
            "the cumulative sum's input is not a list",
        ));
    }
    let n = t.numel()?;
    let out = mul(n.checked_add(1).ok_or(NoModel::Overflow)?, t.dtype.bytes())?;
    Ok(Work {
        flops: n,
        ..moved("scan", t.dtype, &[t.bytes()?, out])?
    })
}
