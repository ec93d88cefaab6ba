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
    [collective_cases(), fbgemm_cases(), indexing_cases()].concat()
}

const I: &str = "int";

/// The sampled corpus traces' fbgemm calls, as recorded there.
fn fbgemm_cases() -> Vec<Case> {
    // The lookup: 29 arguments; indices [30111429] and offsets [2359297]
    // int64 read (the rows' widths are not recorded).
    let mut lookup = vec![(Vec::new(), "Scalar", ""); 29];
    lookup[11] = t(&[30_111_429], L);
    lookup[12] = t(&[2_359_297], L);
    lookup[1] = t(&[7_722_480_160], H);
    vec![
        (
            "embedding_bag_fbgemm",
            call(
                "fbgemm::split_embedding_codegen_lookup_rowwise_adagrad_function",
                &lookup,
            ),
            0,
            (30_111_429 + 2_359_297) * 8,
        ),
        // Its backward node: the gradient [262144, 1440] FP32 read.
        (
            "embedding_bag_fbgemm_bwd",
            call(
                "torch::autograd::CppNode<SplitLookupFunction_rowwise_adagrad_Op>",
                &[t(&[262_144, 1440], F)],
            ),
            0,
            262_144 * 1440 * 4,
        ),
        // [2048, 186588] FP32 read and written; four int64 lists read.
        (
            "permute_pooled_embs",
            call(
                "fbgemm::permute_pooled_embs_auto_grad",
                &[
                    t(&[2048, 186_588], F),
                    t(&[1391], L),
                    t(&[1390], L),
                    t(&[1391], L),
                    t(&[1390], L),
                ],
            ),
            0,
            2 * 2048 * 186_588 * 4 + (1391 + 1390 + 1391 + 1390) * 8,
        ),
        // permute [300] of lengths [300, 2048]: a permutation; inputs read,
        // lengths (300 · 2048) and indices (16334339) written, int32.
        (
            "permute_sparse",
            call(
                "fbgemm::permute_sparse_features",
                &[t(&[300], I), t(&[300, 2048], I), t(&[16_334_339], I), v("")],
            ),
            0,
            (300 + 300 * 2048 + 16_334_339 + 300 * 2048 + 16_334_339) * 4,
        ),
        // permute [1390] of [1334, 2048]: not a permutation; the permuted
        // indices' size is not recorded: inputs read, 1390 · 2048 lengths
        // written.
        (
            "permute_sparse",
            call(
                "fbgemm::permute_2D_sparse_data",
                &[
                    t(&[1390], I),
                    t(&[1334, 2048], I),
                    t(&[64_162_701], I),
                    v(""),
                    v(""),
                ],
            ),
            0,
            (1390 + 1334 * 2048 + 64_162_701 + 1390 * 2048) * 4,
        ),
        // Rows [9], indices [30111429], offsets [2359297], warning [1]
        // int64: all read.
        (
            "bounds_check_indices",
            call(
                "fbgemm::bounds_check_indices",
                &[
                    t(&[9], L),
                    t(&[30_111_429], L),
                    t(&[2_359_297], L),
                    v(""),
                    t(&[1], L),
                ],
            ),
            0,
            (9 + 30_111_429 + 2_359_297 + 1) * 8,
        ),
        // [2359296] int32 → [2359297]: one add each.
        (
            "complete_cumsum",
            call(
                "fbgemm::asynchronous_complete_cumsum",
                &[t(&[2_359_296], I)],
            ),
            2_359_296,
            (2_359_296 + 2_359_297) * 4,
        ),
        // [1492704, 256] FP32 → [1492704, 264] bytes (scale and bias).
        (
            "quantize_fbgemm",
            call(
                "fbgemm::FloatToFP8RowwiseQuantized",
                &[t(&[1_492_704, 256], F), v("")],
            ),
            0,
            1_492_704 * 256 * 4 + 1_492_704 * 264,
        ),
        // [1638400, 264] bytes → [1638400, 256] FP32.
        (
            "quantize_fbgemm",
            call(
                "fbgemm::FP8RowwiseQuantizedToFloat",
                &[t(&[1_638_400, 264], U8), v("")],
            ),
            0,
            1_638_400 * 264 + 1_638_400 * 256 * 4,
        ),
        // HFP8: 419430400 FP32 → one byte each; back: one byte → FP32.
        (
            "quantize_fbgemm",
            call(
                "fbgemm::FloatToHFP8Quantized",
                &[t(&[419_430_400], F), v(""), v(""), v("")],
            ),
            0,
            419_430_400 * 5,
        ),
        (
            "quantize_fbgemm",
            call(
                "fbgemm::HFP8QuantizedToFloat",
                &[t(&[382_132_224], U8), v(""), v("")],
            ),
            0,
            382_132_224 * 5,
        ),
    ]
}

/// Gathers, scatters, the squared-error loss and `nan_to_num`.
fn indexing_cases() -> Vec<Case> {
    vec![
        // gather([50], 0, index [8856548]): the index read, at most the 50
        // source elements read, 8856548 FP32 written.
        (
            "gather",
            call(
                "aten::gather",
                &[t(&[50], F), v(""), t(&[8_856_548], L), v("")],
            ),
            0,
            8_856_548 * 8 + 50 * 4 + 8_856_548 * 4,
        ),
        // index_select of a 1-D [2048] int64 by [6825]: dim 0 (the only
        // one); 2048 elements read at most, 6825 written.
        (
            "gather",
            call("aten::index_select", &[t(&[2048], L), v(""), t(&[6825], L)]),
            0,
            6825 * 8 + 2048 * 8 + 6825 * 8,
        ),
        // index_select([4, 10, 3], 1, [5]): out [4, 5, 3] = 60 elements.
        (
            "gather",
            call(
                "aten::index_select",
                &[t(&[4, 10, 3], F), v("1"), t(&[5], L)],
            ),
            0,
            5 * 8 + 60 * 4 + 60 * 4,
        ),
        // scatter_add_([50], 0, index [8856548], src [8856548]): index and
        // src read, the 50 targets read and written; one add per source.
        (
            "scatter_add",
            call(
                "aten::scatter_add_",
                &[t(&[50], F), v(""), t(&[8_856_548], L), t(&[8_856_548], F)],
            ),
            8_856_548,
            8_856_548 * 8 + 8_856_548 * 4 + 2 * 50 * 4,
        ),
        // The MI250 trace's: [5, 128] FP32 each, mean: 3 FLOPs per
        // element; both read, one loss written.
        (
            "mse_loss",
            call(
                "aten::mse_loss",
                &[t(&[5, 128], F), t(&[5, 128], F), v("1")],
            ),
            3 * 640,
            2 * 640 * 4 + 4,
        ),
        // Backward (the out= form): grad [] read, self and target read,
        // the gradient [5, 128] written; the out tensor is not read.
        (
            "mse_loss",
            call(
                "aten::mse_loss_backward",
                &[
                    t(&[], F),
                    t(&[5, 128], F),
                    t(&[5, 128], F),
                    v("1"),
                    t(&[5, 128], F),
                ],
            ),
            3 * 640,
            4 + 3 * 640 * 4,
        ),
        // nan_to_num([2048, 96]): read, written; one FLOP each.
        (
            "pointwise",
            call(
                "aten::nan_to_num",
                &[t(&[2048, 96], F), v(""), v(""), v("")],
            ),
            2048 * 96,
            2 * 2048 * 96 * 4,
        ),
    ]
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
