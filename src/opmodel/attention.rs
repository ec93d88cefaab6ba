//! Attention: PyTorch's fused scaled-dot-product kernels (flash, memory
//! efficient, cuDNN; forward and backward) and the flash-attn package's
//! ops. FLOPs are those of the matrix products over the score entries the
//! mask keeps: forward `QKᵀ` and `PV`, 2·(D_qk + D_v) per kept entry;
//! backward the recomputed scores and the four gradient products,
//! 2·(3·D_qk + 2·D_v) per kept entry (as `torch.utils.flop_counter`, which
//! keeps every entry: a causal mask here keeps only the entries it keeps,
//! about half). Softmax and scaling are not counted. Heads are the query's
//! (grouped-query attention reads fewer key/value heads); query and key
//! lengths may differ (decode, chunked prefill). Bytes: Q, K, V and the
//! output read or written once (backward: the output gradient, Q, K, V
//! and the output read, the three gradients written); the log-sum-exp
//! rows are left out.

use super::args::{add, mul, product, sum, Tensor};
use super::model::{Engine, NoModel, OpCall, Work};

/// Where a causal mask's diagonal starts when query and key lengths
/// differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Causal {
    /// No mask.
    None,
    /// Query `i` sees keys `0..=i` (PyTorch's `is_causal`).
    TopLeft,
    /// Query `i` sees keys `0..=i + (S_k − S_q)` (flash-attn ≥ 2.1).
    BottomRight,
}

/// (query, key) pairs the mask keeps, for one head.
fn kept_pairs(sq: u64, sk: u64, causal: Causal) -> Result<u64, NoModel> {
    // Triangle numbers in u128: the sizes are untrusted.
    let tri = |n: u64| u128::from(n) * (u128::from(n) + 1) / 2;
    let kept: u128 = match causal {
        Causal::None => u128::from(sq) * u128::from(sk),
        Causal::TopLeft if sq <= sk => tri(sq),
        Causal::TopLeft => tri(sk) + u128::from(sq - sk) * u128::from(sk),
        Causal::BottomRight if sq <= sk => u128::from(sq) * u128::from(sk - sq) + tri(sq),
        Causal::BottomRight => tri(sk),
    };
    u64::try_from(kept).map_err(|_| NoModel::Overflow)
}

/// The sizes of an attention call: batch, query heads, query and key
/// lengths, and head sizes of Q/K and of V.
struct Sizes {
    batch: u64,
    heads: u64,
    sq: u64,
    sk: u64,
    d_qk: u64,
    d_v: u64,
}

/// Layout of Q, K and V.
#[derive(Clone, Copy)]
enum Layout {
    /// `[B, H, S, D]` (PyTorch's SDPA).
    Bhsd,
    /// `[B, S, H, D]` (flash-attn).
    Bshd,
}

fn sizes(q: &Tensor, k: &Tensor, v: &Tensor, layout: Layout) -> Result<Sizes, NoModel> {
    let (q4, k4, v4) = match (q.dims, k.dims, v.dims) {
        ([a, b, c, d], [e, f, g, h], [i, j, l, m]) => {
            ([*a, *b, *c, *d], [*e, *f, *g, *h], [*i, *j, *l, *m])
        }
        _ => {
            return Err(NoModel::BadShape(
                "Q, K, V are not 4-D (variable-length attention is not modelled)",
            ))
        }
    };
    // (batch, heads, length, head size) of each.
    let bhsd = |t: [u64; 4]| match layout {
        Layout::Bhsd => t,
        Layout::Bshd => [t[0], t[2], t[1], t[3]],
    };
    let (q4, k4, v4) = (bhsd(q4), bhsd(k4), bhsd(v4));
    if q4[0] != k4[0] || k4[0] != v4[0] {
        return Err(NoModel::BadShape("Q, K, V batch sizes differ"));
    }
    if k4[1] != v4[1] || k4[1] == 0 || q4[1] % k4[1] != 0 {
        return Err(NoModel::BadShape(
            "query heads are not a multiple of key/value heads",
        ));
    }
    if k4[2] != v4[2] || q4[3] != k4[3] {
        return Err(NoModel::BadShape(
            "K and V lengths or Q and K head sizes differ",
        ));
    }
    Ok(Sizes {
        batch: q4[0],
        heads: q4[1],
        sq: q4[2],
        sk: k4[2],
        d_qk: q4[3],
        d_v: v4[3],
    })
}

/// Whether the call is causal, from its argument at `at`.
fn causal_at(call: &OpCall, at: usize, when: Causal) -> Result<Causal, NoModel> {
    match call.flag(at) {
        Some(true) => Ok(when),
        Some(false) => Ok(Causal::None),
        None => Err(NoModel::NoValue("is_causal")),
    }
}

/// The work of a forward (`backward == false`) or backward call.
fn attention(
    call: &OpCall,
    first_qkv: usize,
    layout: Layout,
    causal: Causal,
    backward: bool,
) -> Result<Work, NoModel> {
    let q = call.tensor(first_qkv, "query")?;
    let k = call.tensor(first_qkv + 1, "key")?;
    let v = call.tensor(first_qkv + 2, "value")?;
    let s = sizes(&q, &k, &v, layout)?;
    let entries = mul(
        product(&[s.batch, s.heads])?,
        kept_pairs(s.sq, s.sk, causal)?,
    )?;
    let per_entry = if backward {
        add(mul(3, s.d_qk)?, mul(2, s.d_v)?)?
    } else {
        add(s.d_qk, s.d_v)?
    };
    let out = mul(product(&[s.batch, s.heads, s.sq, s.d_v])?, q.dtype.bytes())?;
    let qkv = [q.bytes()?, k.bytes()?, v.bytes()?];
    let bytes = if backward {
        // dO and O read, dQ, dK, dV written (each the size of its input).
        let grad_out = call.tensor(0, "grad_out")?.bytes()?;
        sum(&[grad_out, out, sum(&qkv)?, sum(&qkv)?])?
    } else {
        sum(&[sum(&qkv)?, out])?
    };
    Ok(Work {
        model: if backward {
            "attention_bwd"
        } else {
            "attention_fwd"
        },
        flops: mul(2, mul(entries, per_entry)?)?,
        engine: Engine::Matrix,
        dtype: q.dtype,
        bytes,
        collective: None,
    })
}

/// `aten::_scaled_dot_product_flash_attention(query, key, value,
/// dropout_p, is_causal, return_debug_mask, scale)`.
pub(super) fn sdpa_flash(call: &OpCall) -> Result<Work, NoModel> {
    let causal = causal_at(call, 4, Causal::TopLeft)?;
    attention(call, 0, Layout::Bhsd, causal, false)
}

/// `aten::_scaled_dot_product_efficient_attention(query, key, value,
/// attn_bias, compute_log_sumexp, dropout_p, is_causal, scale)` and the
/// cuDNN one (same positions up to `is_causal`).
pub(super) fn sdpa_efficient_or_cudnn(call: &OpCall) -> Result<Work, NoModel> {
    let causal = causal_at(call, 6, Causal::TopLeft)?;
    attention(call, 0, Layout::Bhsd, causal, false)
}

/// `aten::_scaled_dot_product_flash_attention_backward(grad_out, query,
/// key, value, out, logsumexp, cum_seq_q, cum_seq_k, max_q, max_k,
/// dropout_p, is_causal, …)` and the efficient one (`grad_out_, query,
/// key, value, attn_bias, out, logsumexp, philox_seed, philox_offset,
/// dropout_p, grad_input_mask, is_causal, …`): `is_causal` 12th in both.
pub(super) fn sdpa_flash_or_efficient_bwd(call: &OpCall) -> Result<Work, NoModel> {
    let causal = causal_at(call, 11, Causal::TopLeft)?;
    attention(call, 1, Layout::Bhsd, causal, true)
}

/// `aten::_scaled_dot_product_cudnn_attention_backward(grad_out, query,
/// key, value, out, logsumexp, philox_seed, philox_offset, attn_bias,
/// cum_seq_q, cum_seq_k, max_q, max_k, dropout_p, is_causal, scale)`.
pub(super) fn sdpa_cudnn_bwd(call: &OpCall) -> Result<Work, NoModel> {
    let causal = causal_at(call, 14, Causal::TopLeft)?;
    attention(call, 1, Layout::Bhsd, causal, true)
}

/// A sliding window (`window_size_left >= 0`) is not modelled.
fn no_window(call: &OpCall, at: usize) -> Result<(), NoModel> {
    match call.ints(at).as_deref() {
        Some([w, ..]) if *w >= 0 => Err(NoModel::BadShape(
            "sliding-window attention is not modelled",
        )),
        _ => Ok(()),
    }
}

/// `flash_attn::_flash_attn_forward(q, k, v, dropout_p, softmax_scale,
/// causal, window_size_left, …)`: `[B, S, H, D]`, causal bottom-right.
pub(super) fn flash_attn_fwd(call: &OpCall) -> Result<Work, NoModel> {
    no_window(call, 6)?;
    let causal = causal_at(call, 5, Causal::BottomRight)?;
    attention(call, 0, Layout::Bshd, causal, false)
}

/// `flash_attn::_flash_attn_backward(dout, q, k, v, out, softmax_lse, dq,
/// dk, dv, dropout_p, softmax_scale, causal, window_size_left, …)`.
pub(super) fn flash_attn_bwd(call: &OpCall) -> Result<Work, NoModel> {
    no_window(call, 12)?;
    let causal = causal_at(call, 11, Causal::BottomRight)?;
    attention(call, 1, Layout::Bshd, causal, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The kept pairs counted one by one from the mask's definition.
    fn by_hand(sq: u64, sk: u64, causal: Causal) -> u64 {
        let mut n = 0;
        for i in 0..sq as i64 {
            for j in 0..sk as i64 {
                let keep = match causal {
                    Causal::None => true,
                    Causal::TopLeft => j <= i,
                    Causal::BottomRight => j <= i + sk as i64 - sq as i64,
                };
                n += u64::from(keep);
            }
        }
        n
    }

    #[test]
    fn kept_pairs_equal_the_masks_counted_entry_by_entry() {
        for sq in 0..9 {
            for sk in 0..9 {
                for c in [Causal::None, Causal::TopLeft, Causal::BottomRight] {
                    assert_eq!(
                        kept_pairs(sq, sk, c),
                        Ok(by_hand(sq, sk, c)),
                        "{sq} {sk} {c:?}"
                    );
                }
            }
        }
    }
}
