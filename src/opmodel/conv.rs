//! Convolution, forward and backward, any number of spatial dimensions,
//! with stride, padding, dilation, groups and transposition. FLOPs (as
//! `torch.utils.flop_counter`): 2 · N · |weight| · the spatial size of
//! the output (of the input, transposed), where |weight| =
//! C_out · C_in / groups · kernel size; the backward pass does that once
//! per gradient it computes (`output_mask`: input, weight; the bias
//! gradient is a sum, not counted). Bytes: input, weight and bias read
//! once, output written once; backward, what each gradient needs read and
//! each gradient written.

use super::args::{mul, product, sum, Tensor};
use super::model::{Engine, NoModel, OpCall, Work};

/// Where an op keeps its convolution settings.
struct At {
    stride: usize,
    padding: usize,
    dilation: usize,
    /// `None`: never transposed (`cudnn_convolution`); `Some(Ok(i))`: the
    /// `transposed` flag's position; `Some(Err(()))`: always transposed.
    transposed: Option<Result<usize, ()>>,
    output_padding: Option<usize>,
    groups: usize,
    bias: Option<usize>,
}

/// One setting per spatial dimension (a single value stands for all).
fn per_dim(call: &OpCall, at: usize, dims: usize, name: &'static str) -> Result<Vec<i64>, NoModel> {
    let v = call.ints(at).ok_or(NoModel::NoValue(name))?;
    match v.len() {
        1 => Ok(vec![v[0]; dims]),
        n if n == dims => Ok(v),
        _ => Err(NoModel::BadShape(
            "a setting's length is not the spatial rank",
        )),
    }
}

fn transposed(call: &OpCall, at: &At) -> Result<bool, NoModel> {
    match at.transposed {
        None => Ok(false),
        Some(Err(())) => Ok(true),
        Some(Ok(i)) => call.flag(i).ok_or(NoModel::NoValue("transposed")),
    }
}

/// The spatial sizes of the output.
fn out_spatial(
    call: &OpCall,
    at: &At,
    x: &Tensor,
    w: &Tensor,
    t: bool,
) -> Result<Vec<u64>, NoModel> {
    let n = x.dims.len() - 2;
    let stride = per_dim(call, at.stride, n, "stride")?;
    let pad = per_dim(call, at.padding, n, "padding")?;
    let dil = per_dim(call, at.dilation, n, "dilation")?;
    let out_pad = match at.output_padding {
        Some(i) if t => per_dim(call, i, n, "output_padding")?,
        _ => vec![0; n],
    };
    let mut out = Vec::with_capacity(n);
    for d in 0..n {
        let (i, k) = (x.dims[d + 2] as i128, w.dims[d + 2] as i128);
        let (s, p, dl, op) = (
            stride[d] as i128,
            pad[d] as i128,
            dil[d] as i128,
            out_pad[d] as i128,
        );
        if s <= 0 || dl <= 0 {
            return Err(NoModel::BadShape("stride or dilation not positive"));
        }
        let o = if t {
            (i - 1) * s - 2 * p + dl * (k - 1) + op + 1
        } else {
            (i + 2 * p - dl * (k - 1) - 1).div_euclid(s) + 1
        };
        out.push(u64::try_from(o).map_err(|_| NoModel::BadShape("output size not positive"))?);
    }
    Ok(out)
}

/// Checks input and weight ranks and returns C_out.
fn out_channels(call: &OpCall, at: &At, x: &Tensor, w: &Tensor, t: bool) -> Result<u64, NoModel> {
    if x.dims.len() < 3 || x.dims.len() != w.dims.len() {
        return Err(NoModel::BadShape(
            "input and weight ranks differ or have no spatial dimension",
        ));
    }
    let groups = call
        .ints(at.groups)
        .and_then(|g| g.first().copied())
        .ok_or(NoModel::NoValue("groups"))?;
    let groups = u64::try_from(groups).map_err(|_| NoModel::BadShape("groups not positive"))?;
    if t {
        mul(w.dims[1], groups)
    } else {
        Ok(w.dims[0])
    }
}

fn forward(call: &OpCall, at: &At) -> Result<Work, NoModel> {
    let (x, w) = (call.tensor(0, "input")?, call.tensor(1, "weight")?);
    let t = transposed(call, at)?;
    let c_out = out_channels(call, at, &x, &w, t)?;
    let out = out_spatial(call, at, &x, &w, t)?;
    let conv = if t { &x.dims[2..] } else { &out[..] };
    let flops = mul(2, product(&[x.dims[0], w.numel()?, product(conv)?])?)?;
    let mut parts = vec![x.bytes()?, w.bytes()?];
    if let Some(b) = at
        .bias
        .map(|i| call.optional_tensor(i))
        .transpose()?
        .flatten()
    {
        parts.push(b.bytes()?);
    }
    parts.push(mul(
        product(&[x.dims[0], c_out, product(&out)?])?,
        x.dtype.bytes(),
    )?);
    Ok(Work {
        model: "conv_fwd",
        flops,
        engine: Engine::Matrix,
        dtype: x.dtype,
        bytes: sum(&parts)?,
        collective: None,
    })
}

/// `aten::convolution` and `aten::_convolution(input, weight, bias,
/// stride, padding, dilation, transposed, output_padding, groups, …)`.
pub(super) fn convolution(call: &OpCall) -> Result<Work, NoModel> {
    let at = At {
        stride: 3,
        padding: 4,
        dilation: 5,
        transposed: Some(Ok(6)),
        output_padding: Some(7),
        groups: 8,
        bias: Some(2),
    };
    forward(call, &at)
}

/// `aten::cudnn_convolution(self, weight, padding, stride, dilation,
/// groups, …)`.
pub(super) fn cudnn_convolution(call: &OpCall) -> Result<Work, NoModel> {
    let at = At {
        stride: 3,
        padding: 2,
        dilation: 4,
        transposed: None,
        output_padding: None,
        groups: 5,
        bias: None,
    };
    forward(call, &at)
}

/// `aten::cudnn_convolution_transpose(self, weight, padding,
/// output_padding, stride, dilation, groups, …)`.
pub(super) fn cudnn_convolution_transpose(call: &OpCall) -> Result<Work, NoModel> {
    let at = At {
        stride: 4,
        padding: 2,
        dilation: 5,
        transposed: Some(Err(())),
        output_padding: Some(3),
        groups: 6,
        bias: None,
    };
    forward(call, &at)
}

/// `aten::convolution_backward(grad_output, input, weight, bias_sizes,
/// stride, padding, dilation, transposed, output_padding, groups,
/// output_mask)`: the output's spatial sizes are the gradient's.
pub(super) fn convolution_backward(call: &OpCall) -> Result<Work, NoModel> {
    let g = call.tensor(0, "grad_output")?;
    let (x, w) = (call.tensor(1, "input")?, call.tensor(2, "weight")?);
    if x.dims.len() < 3 || x.dims.len() != w.dims.len() || g.dims.len() != x.dims.len() {
        return Err(NoModel::BadShape("gradient, input and weight ranks differ"));
    }
    let t = call.flag(7).ok_or(NoModel::NoValue("transposed"))?;
    let mask = call.value(10).ok_or(NoModel::NoValue("output_mask"))?;
    let mask: Vec<bool> = mask
        .trim_matches(['[', ']'])
        .split(',')
        .map(|m| m.trim() == "True" || m.trim() == "1")
        .collect();
    let want = |i: usize| mask.get(i).copied().unwrap_or(false);
    let conv = if t { &x.dims[2..] } else { &g.dims[2..] };
    let one = mul(2, product(&[x.dims[0], w.numel()?, product(conv)?])?)?;
    let flops = mul(one, u64::from(want(0)) + u64::from(want(1)))?;
    let (input, weight) = (x.bytes()?, w.bytes()?);
    let mut parts = vec![g.bytes()?];
    if want(0) {
        parts.extend([weight, input]); // weight read, input gradient written
    }
    if want(1) {
        parts.extend([input, weight]); // input read, weight gradient written
    }
    if want(2) {
        parts.push(mul(g.dims[1], g.dtype.bytes())?);
    }
    Ok(Work {
        model: "conv_bwd",
        flops,
        engine: Engine::Matrix,
        dtype: x.dtype,
        bytes: sum(&parts)?,
        collective: None,
    })
}
