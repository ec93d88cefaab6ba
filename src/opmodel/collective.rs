//! Collectives (`record_param_comms`, `c10d::_allgather_base_`,
//! `c10d::_reduce_scatter_base_`, `c10d::alltoall_base_`): their cost is
//! bytes over a link, not DRAM traffic, so the model gives the message as
//! recorded ([`Collective`]: name, elements in and out, group) and no
//! FLOPs; the `ops` analysis turns it into `nccl-tests`' size × bus
//! bandwidth factor over the GPU's link with `comm`'s functions.
//! Work's `bytes` are the rank's own buffers (the input read, the output
//! written), for the record; `ops` shows the message size instead.

use super::args::{add, mul};
use super::model::{Collective, Dtype, Engine, NoModel, OpCall, Work};

/// Why a collective has no message: its tensors are a list whose sizes
/// the profiler does not record (`c10d::allreduce_`'s `Tensor[]`) and the
/// trace wrote no `In msg nelems`.
const NO_MESSAGE: &str =
    "the collective's message size is not recorded (a tensor list; PyTorch >= 2.2 writes `In msg nelems` on record_param_comms)";

/// A collective of `dtype` moving `in_elems` → `out_elems` per rank.
fn collective(dtype: Dtype, message: Collective) -> Result<Work, NoModel> {
    let own = add(
        message.in_elems.unwrap_or(0),
        message.out_elems.unwrap_or(0),
    )?;
    Ok(Work {
        model: "collective",
        flops: 0,
        engine: Engine::Vector,
        dtype,
        bytes: mul(own, dtype.bytes())?,
        collective: Some(Box::new(message)),
    })
}

/// `record_param_comms`: its own keys when the trace wrote them (`In msg
/// nelems`, `Out msg nelems`, `dtype`, `Group size`, `Process Group
/// Ranks`, `Collective name`); else its first argument, the input tensor
/// (older traces: the name is then the kernel's to tell).
pub(super) fn record_param_comms(call: &OpCall) -> Result<Work, NoModel> {
    let first = call.optional_tensor(0)?;
    if let Some(keys) = call.comm.as_deref() {
        if keys.in_elems.is_some() || keys.out_elems.is_some() {
            let dtype = keys
                .dtype
                .or(first.map(|t| t.dtype))
                .ok_or(NoModel::BadShape("the collective's dtype is not recorded"))?;
            return collective(
                dtype,
                Collective {
                    name: keys.name.clone(),
                    in_elems: keys.in_elems,
                    out_elems: keys.out_elems,
                    group_size: keys.group_size,
                    ranks: keys.ranks.clone(),
                },
            );
        }
    }
    let input = first.ok_or(NoModel::BadShape(NO_MESSAGE))?;
    let keys = call.comm.as_deref();
    collective(
        input.dtype,
        Collective {
            name: keys.and_then(|k| k.name.clone()),
            in_elems: Some(input.numel()?),
            out_elems: None,
            group_size: keys.and_then(|k| k.group_size),
            ranks: keys.and_then(|k| k.ranks.clone()),
        },
    )
}

/// The `c10d` ops whose schema is `(Tensor output, Tensor input, …)`:
/// `_allgather_base_` (output = group × input, so the group is output /
/// input when it divides), `_reduce_scatter_base_` (input = group ×
/// output) and `alltoall_base_` (no group in the sizes).
pub(super) fn c10d_base(call: &OpCall) -> Result<Work, NoModel> {
    let (output, input) = (call.tensor(0, "output")?, call.tensor(1, "input")?);
    let (out_elems, in_elems) = (output.numel()?, input.numel()?);
    let name = call
        .name
        .trim_start_matches("c10d::")
        .trim_end_matches('_')
        .to_string();
    let whole_of = |big: u64, part: u64| {
        (part > 0 && big % part == 0)
            .then(|| u32::try_from(big / part).ok())
            .flatten()
    };
    let group_size = match name.as_str() {
        "_allgather_base" => whole_of(out_elems, in_elems),
        "_reduce_scatter_base" => whole_of(in_elems, out_elems),
        _ => None,
    };
    collective(
        input.dtype,
        Collective {
            name: Some(name),
            in_elems: Some(in_elems),
            out_elems: Some(out_elems),
            group_size,
            ranks: None,
        },
    )
}
