//! An op's recorded arguments (`Input Dims`, `Input type`, `Concrete
//! Inputs` of a `cpu_op` event's `args`), read from their JSON text into
//! an [`OpCall`] for the op models. Bounded: an argument list longer than
//! [`MAX_ARGS`] or a value text longer than [`MAX_TEXT_BYTES`] is not
//! read (that op has no shapes; nothing else is lost).

use crate::opmodel::{Annotation, CommArgs, Dtype, OpCall};
use crate::timeline::comm::CollectiveArgs;
use serde_json::Value;

/// Most arguments read per op (the widest aten schemas have about 20).
pub const MAX_ARGS: usize = 64;
/// Longest `args` value text read, bytes.
pub const MAX_TEXT_BYTES: usize = 64 << 10;

/// The three recorded lists of one op, as JSON text (`None`: not
/// recorded).
#[derive(Debug, Clone, Copy, Default)]
pub struct RecordedText<'a> {
    /// `Input Dims`: `[[2048, 6948], [], …]`.
    pub dims: Option<&'a str>,
    /// `Input type`: `["float", "Scalar", …]`.
    pub types: Option<&'a str>,
    /// `Concrete Inputs`: `["", "1", …]`.
    pub values: Option<&'a str>,
    /// `kernel_flop`: Inductor's FLOPs of a generated kernel.
    pub kernel_flop: Option<&'a str>,
    /// `kernel_num_gb`: Inductor's estimate of the GB it moves.
    pub kernel_num_gb: Option<&'a str>,
}

/// The JSON array in `text`, when it is one within the bounds.
fn array(text: Option<&str>) -> Option<Vec<Value>> {
    let text = text?;
    if text.len() > MAX_TEXT_BYTES {
        return None;
    }
    match serde_json::from_str::<Value>(text).ok()? {
        Value::Array(v) if v.len() <= MAX_ARGS => Some(v),
        _ => None,
    }
}

/// The call of op `name` from its recorded lists and, for a collective,
/// its own keys (`comm`); `None` when the trace recorded neither usable
/// `Input Dims` and `Input type` nor a collective's keys (no shapes).
pub fn op_call(name: &str, text: RecordedText, comm: Option<&CollectiveArgs>) -> Option<OpCall> {
    let comm = comm.map(|c| Box::new(comm_args(c)));
    let annotation = annotation(text);
    match shaped_call(name, text) {
        Some(call) => Some(OpCall {
            comm,
            annotation,
            ..call
        }),
        None if comm.is_some() || annotation.is_some() => Some(OpCall {
            name: name.to_string(),
            args: Vec::new(),
            comm,
            annotation,
        }),
        None => None,
    }
}

/// Inductor's `kernel_flop` (an integer) and `kernel_num_gb` (a number of
/// 10^9 bytes), when both are there and usable (finite, not negative,
/// within 64 bits).
fn annotation(text: RecordedText) -> Option<Annotation> {
    let flops = serde_json::from_str::<Value>(text.kernel_flop?).ok()?;
    let gb = serde_json::from_str::<Value>(text.kernel_num_gb?)
        .ok()?
        .as_f64()?;
    let bytes = gb * 1e9;
    let usable = (0.0..1.8e19).contains(&bytes);
    Some(Annotation {
        flops: flops.as_u64()?,
        bytes: usable.then(|| bytes.round() as u64)?,
    })
}

/// A collective's keys in the op models' terms (its dtype by the
/// canonical name the reader gave it).
fn comm_args(c: &CollectiveArgs) -> CommArgs {
    CommArgs {
        name: c.name.clone(),
        in_elems: c.in_nelems,
        out_elems: c.out_nelems,
        dtype: c.dtype.and_then(|d| Dtype::parse_concrete(d.name)),
        group_size: c.group_size,
        ranks: c.ranks.clone(),
    }
}

/// The call of op `name` from its recorded lists alone.
fn shaped_call(name: &str, text: RecordedText) -> Option<OpCall> {
    let dims = array(text.dims)?;
    let types = array(text.types)?;
    let values = array(text.values).unwrap_or_default();
    // A tensor list's entry (`[[1, 2], [3]]`) reads as unusable sizes, but
    // its type (`TensorList`) makes it a value for the models; an entry
    // that is no list reads as no sizes.
    let dims: Vec<Vec<i64>> = dims
        .iter()
        .map(|d| match d {
            Value::Array(sizes) => sizes
                .iter()
                .map(Value::as_i64)
                .collect::<Option<_>>()
                // A size that is no integer (`1e30`, a nested list): the
                // tensor's sizes are unusable, never a 0-d tensor.
                .unwrap_or_else(|| vec![-1]),
            _ => Vec::new(),
        })
        .collect();
    let text_of = |v: &Value| match v {
        Value::String(s) => s.clone(),
        _ => String::new(),
    };
    let types: Vec<String> = types.iter().map(text_of).collect();
    let values: Vec<String> = values.iter().map(text_of).collect();
    let types: Vec<&str> = types.iter().map(String::as_str).collect();
    let values: Vec<&str> = values.iter().map(String::as_str).collect();
    Some(OpCall::from_recorded(name, &dims, &types, &values))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::opmodel::{work, Arg, Dtype};

    /// The `args` of an `aten::addmm` of the MI250 corpus trace
    /// (`kineto_hta_amd_mi250_rocm6.2.json.gz`), as written there.
    const ADDMM: RecordedText = RecordedText {
        dims: Some("[[128], [5, 128], [128, 128], [], []]"),
        types: Some("[\"float\", \"float\", \"float\", \"Scalar\", \"Scalar\"]"),
        values: Some("[\"\", \"\", \"\", \"1\", \"1\"]"),
        kernel_flop: None,
        kernel_num_gb: None,
    };

    #[test]
    fn a_real_addmm_reads_as_its_call_and_its_work() {
        let c = op_call("aten::addmm", ADDMM, None).unwrap();
        assert_eq!(
            c.args[1],
            Arg::Tensor {
                dims: vec![5, 128],
                dtype: Dtype::F32
            }
        );
        assert_eq!(c.args[3], Arg::Value("1".into()));
        // 2·M·N·K with M = 5, K = 128, N = 128.
        assert_eq!(work(&c).unwrap().flops, 2 * 5 * 128 * 128);
    }

    #[test]
    fn lists_of_tensors_odd_values_and_oversized_text_cost_only_that() {
        let cat = RecordedText {
            dims: Some("[[[2, 3], [4, 3]], []]"),
            types: Some("[\"TensorList\", \"Scalar\"]"),
            values: Some("[\"\", \"0\"]"),
            ..RecordedText::default()
        };
        let c = op_call("aten::cat", cat, None).unwrap();
        assert_eq!(
            c.args,
            vec![Arg::Value(String::new()), Arg::Value("0".into())]
        );
        assert!(op_call(
            "aten::mm",
            RecordedText {
                dims: Some("{}"),
                ..ADDMM
            },
            None
        )
        .is_none());
        assert!(op_call(
            "aten::mm",
            RecordedText {
                types: None,
                ..ADDMM
            },
            None
        )
        .is_none());
        let long = format!("[{}]", vec!["[1]"; MAX_ARGS + 1].join(","));
        assert!(op_call(
            "aten::mm",
            RecordedText {
                dims: Some(&long),
                ..ADDMM
            },
            None
        )
        .is_none());
        // A size that is no integer makes that tensor unusable, not 0-d.
        let odd = RecordedText {
            dims: Some("[[1e30], [5, 128], [128, 128], [], []]"),
            ..ADDMM
        };
        assert_eq!(
            op_call("aten::addmm", odd, None).unwrap().args[0],
            Arg::BadTensor
        );
        // Values absent (PyTorch < 2.1): the call is still read.
        assert!(op_call(
            "aten::addmm",
            RecordedText {
                values: None,
                ..ADDMM
            },
            None
        )
        .is_some());
    }

    #[test]
    fn a_collective_s_own_keys_and_inductor_s_annotation_make_a_call_without_shapes() {
        // The nccl_allreduce corpus trace's record_param_comms: keys, no
        // Input Dims.
        let keys = CollectiveArgs {
            name: Some("allreduce".into()),
            in_nelems: Some(2_049_000),
            out_nelems: Some(2_049_000),
            dtype: crate::timeline::comm::data_type("Float"),
            group_size: Some(2),
            ranks: Some(vec![0, 1]),
            ..CollectiveArgs::default()
        };
        let c = op_call("record_param_comms", RecordedText::default(), Some(&keys)).unwrap();
        assert!(c.args.is_empty());
        let comm = c.comm.as_deref().unwrap();
        assert_eq!(comm.dtype, Some(Dtype::F32));
        assert_eq!((comm.in_elems, comm.group_size), (Some(2_049_000), Some(2)));
        assert_eq!(work(&c).unwrap().model, "collective");
        // Neither shapes, keys nor annotation: no call.
        assert!(op_call("aten::mm", RecordedText::default(), None).is_none());
        // kernel_num_gb 0.5 = 500,000,000 bytes; 123 FLOPs.
        let annotated = RecordedText {
            kernel_flop: Some("123"),
            kernel_num_gb: Some("0.5"),
            ..RecordedText::default()
        };
        let c = op_call("triton_poi_fused_0", annotated, None).unwrap();
        assert_eq!(
            c.annotation,
            Some(Annotation {
                flops: 123,
                bytes: 500_000_000
            })
        );
        // A negative or non-numeric size, or FLOPs that are no integer: no
        // annotation, and without shapes no call.
        for (flop, gb) in [("123", "-1"), ("123", "\"x\""), ("1.5", "0.5")] {
            let odd = RecordedText {
                kernel_flop: Some(flop),
                kernel_num_gb: Some(gb),
                ..RecordedText::default()
            };
            assert!(
                op_call("triton_poi_fused_0", odd, None).is_none(),
                "{flop} {gb}"
            );
        }
    }
}
