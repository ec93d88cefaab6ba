//! The builders of the table's test calls (a tensor, a value, a call as a
//! trace records it) and the hand-worked cases of the rows added for
//! coverage of the corpus traces (collectives, fbgemm's embeddings, lists
//! of tensors, losses), each number worked out beside it.

use super::model::{CommArgs, Dtype, OpCall};

/// A tensor argument: sizes and the profiler's type name.
pub(super) fn t(dims: &[i64], ty: &'static str) -> (Vec<i64>, &'static str, &'static str) {
    (dims.to_vec(), ty, "")
}

/// A value argument as `Concrete Inputs` writes it.
pub(super) fn v(text: &'static str) -> (Vec<i64>, &'static str, &'static str) {
    (Vec::new(), "Scalar", text)
}

/// A call from its arguments as a trace records them.
pub(super) fn call(name: &str, args: &[(Vec<i64>, &'static str, &'static str)]) -> OpCall {
    let dims: Vec<Vec<i64>> = args.iter().map(|a| a.0.clone()).collect();
    let types: Vec<&str> = args.iter().map(|a| a.1).collect();
    let values: Vec<&str> = args.iter().map(|a| a.2).collect();
    OpCall::from_recorded(name, &dims, &types, &values)
}

pub(super) const F: &str = "float";
pub(super) const H: &str = "c10::Half";
pub(super) const BF: &str = "c10::BFloat16";
pub(super) const L: &str = "long int";
const U8: &str = "unsigned char";
const I8: &str = "signed char";

/// A row key, a call, and the FLOPs and bytes expected, by hand.
pub(super) type Case = (&'static str, OpCall, u64, u64);

/// The rows added for the corpus traces' coverage.
pub(super) fn coverage_cases() -> Vec<Case> {
    collective_cases()
}

#[test]
fn a_collective_gives_its_message_and_an_exact_group() {
    let gather = call(
        "c10d::_allgather_base_",
        &[t(&[1 << 30], I8), t(&[1 << 24], I8), v("")],
    );
    let w = super::work(&gather).unwrap();
    let c = w.collective.unwrap();
    assert_eq!(c.name.as_deref(), Some("_allgather_base"));
    assert_eq!((c.in_elems, c.out_elems), (Some(1 << 24), Some(1 << 30)));
    // 2^30 / 2^24 = 64 ranks.
    assert_eq!(c.group_size, Some(64));
    // A tensor list (c10d::allreduce_'s record_param_comms in PyTorch 2.0):
    // no size recorded, said so.
    let list = call("record_param_comms", &[v(""), v(""), v("")]);
    assert!(matches!(
        super::work(&list),
        Err(super::NoModel::BadShape(why)) if why.contains("message size")
    ));
}

/// Collectives: no FLOPs; the bytes are the rank's own buffers (input
/// read, output written), for the record (`ops` shows the message).
fn collective_cases() -> Vec<Case> {
    // The nccl_allreduce corpus trace's record_param_comms: no Input Dims,
    // its own keys: 2,049,000 FP32 in and out.
    let mut keyed = call("record_param_comms", &[]);
    keyed.comm = Some(Box::new(CommArgs {
        name: Some("allreduce".into()),
        in_elems: Some(2_049_000),
        out_elems: Some(2_049_000),
        dtype: Some(Dtype::F32),
        group_size: Some(2),
        ranks: Some(vec![0, 1]),
    }));
    vec![
        ("record_param_comms", keyed, 0, 2 * 2_049_000 * 4),
        // The sampled trace's (PyTorch 2.0): the input tensor only.
        (
            "record_param_comms",
            call(
                "record_param_comms",
                &[t(&[419_430_400], U8), v(""), v(""), v("")],
            ),
            0,
            419_430_400,
        ),
        // The sampled trace's all-gather: output [2^30] int8 = 64 × input
        // [2^24]; both buffers.
        (
            "c10d_base",
            call(
                "c10d::_allgather_base_",
                &[t(&[1 << 30], I8), t(&[1 << 24], I8), v("")],
            ),
            0,
            (1 << 30) + (1 << 24),
        ),
    ]
}
