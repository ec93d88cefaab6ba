//! The table of op models: which op names each model takes. A contributor
//! adds an op by adding a row (or a name to a row) and a case to
//! `table_tests.rs`, whose check fails for a row without one.

use super::model::{NoModel, OpCall, Work};
use super::{attention, collective, conv, fbgemm, gemm, vector};
use std::collections::HashMap;
use std::sync::OnceLock;

/// One row: the ops a model takes.
pub struct Row {
    /// The row's key: names its cases in the tests and docs/ops.md.
    pub key: &'static str,
    /// Op names as the trace writes them (`aten::mm`).
    pub names: &'static [&'static str],
    /// Whether each name's in-place form (`aten::add_`) is taken too.
    pub in_place: bool,
    /// The model.
    pub model: fn(&OpCall) -> Result<Work, NoModel>,
}

/// Every model, one row each.
pub static ROWS: &[Row] = &[
    Row {
        key: "mm",
        names: &["aten::mm"],
        in_place: false,
        model: gemm::mm,
    },
    Row {
        key: "addmm",
        names: &["aten::addmm"],
        in_place: false,
        model: gemm::addmm,
    },
    Row {
        key: "bmm",
        names: &["aten::bmm"],
        in_place: false,
        model: gemm::bmm,
    },
    Row {
        key: "baddbmm",
        names: &["aten::baddbmm"],
        in_place: false,
        model: gemm::baddbmm,
    },
    Row {
        key: "matmul",
        names: &["aten::matmul"],
        in_place: false,
        model: gemm::matmul,
    },
    Row {
        key: "linear",
        names: &["aten::linear"],
        in_place: false,
        model: gemm::linear,
    },
    Row {
        key: "scaled_mm",
        names: &["aten::_scaled_mm"],
        in_place: false,
        model: gemm::scaled_mm,
    },
    Row {
        key: "grouped_mm",
        names: &["aten::_grouped_mm"],
        in_place: false,
        model: gemm::grouped_mm,
    },
    Row {
        key: "sdpa_flash",
        names: &["aten::_scaled_dot_product_flash_attention"],
        in_place: false,
        model: attention::sdpa_flash,
    },
    Row {
        key: "sdpa_efficient_cudnn",
        names: &[
            "aten::_scaled_dot_product_efficient_attention",
            "aten::_scaled_dot_product_cudnn_attention",
        ],
        in_place: false,
        model: attention::sdpa_efficient_or_cudnn,
    },
    Row {
        key: "sdpa_flash_efficient_bwd",
        names: &[
            "aten::_scaled_dot_product_flash_attention_backward",
            "aten::_scaled_dot_product_efficient_attention_backward",
        ],
        in_place: false,
        model: attention::sdpa_flash_or_efficient_bwd,
    },
    Row {
        key: "sdpa_cudnn_bwd",
        names: &["aten::_scaled_dot_product_cudnn_attention_backward"],
        in_place: false,
        model: attention::sdpa_cudnn_bwd,
    },
    Row {
        key: "flash_attn_fwd",
        names: &["flash_attn::_flash_attn_forward"],
        in_place: false,
        model: attention::flash_attn_fwd,
    },
    Row {
        key: "flash_attn_bwd",
        names: &["flash_attn::_flash_attn_backward"],
        in_place: false,
        model: attention::flash_attn_bwd,
    },
    Row {
        key: "convolution",
        names: &["aten::convolution", "aten::_convolution"],
        in_place: false,
        model: conv::convolution,
    },
    Row {
        key: "cudnn_convolution",
        names: &["aten::cudnn_convolution"],
        in_place: false,
        model: conv::cudnn_convolution,
    },
    Row {
        key: "cudnn_convolution_transpose",
        names: &["aten::cudnn_convolution_transpose"],
        in_place: false,
        model: conv::cudnn_convolution_transpose,
    },
    Row {
        key: "convolution_backward",
        names: &["aten::convolution_backward"],
        in_place: false,
        model: conv::convolution_backward,
    },
    Row {
        key: "norm",
        names: &[
            "aten::layer_norm",
            "aten::native_layer_norm",
            "aten::native_layer_norm_backward",
            "aten::native_batch_norm",
            "aten::cudnn_batch_norm",
            "aten::native_batch_norm_backward",
            "aten::cudnn_batch_norm_backward",
            "aten::native_group_norm",
            "aten::native_group_norm_backward",
        ],
        in_place: false,
        model: vector::norm,
    },
    Row {
        key: "rms_norm",
        names: &[
            "aten::rms_norm",
            "aten::_fused_rms_norm",
            "aten::_fused_rms_norm_backward",
        ],
        in_place: false,
        model: vector::rms_norm,
    },
    Row {
        key: "softmax",
        names: &[
            "aten::_softmax",
            "aten::_log_softmax",
            "aten::_softmax_backward_data",
            "aten::_log_softmax_backward_data",
        ],
        in_place: false,
        model: vector::softmax,
    },
    Row {
        key: "nll_loss",
        names: &["aten::nll_loss_forward"],
        in_place: false,
        model: vector::nll_loss,
    },
    Row {
        key: "embedding",
        names: &["aten::embedding"],
        in_place: false,
        model: vector::embedding,
    },
    Row {
        key: "pointwise",
        names: &[
            "aten::abs",
            "aten::neg",
            "aten::exp",
            "aten::log",
            "aten::log1p",
            "aten::sqrt",
            "aten::rsqrt",
            "aten::reciprocal",
            "aten::sin",
            "aten::cos",
            "aten::tanh",
            "aten::sigmoid",
            "aten::erf",
            "aten::relu",
            "aten::gelu",
            "aten::silu",
            "aten::mish",
            "aten::hardswish",
            "aten::leaky_relu",
            "aten::elu",
            "aten::softplus",
            "aten::clamp",
            "aten::clamp_min",
            "aten::clamp_max",
            "aten::hardtanh",
            "aten::add",
            "aten::sub",
            "aten::rsub",
            "aten::mul",
            "aten::div",
            "aten::pow",
            "aten::maximum",
            "aten::minimum",
            "aten::remainder",
            "aten::eq",
            "aten::ne",
            "aten::lt",
            "aten::le",
            "aten::gt",
            "aten::ge",
            "aten::where",
            "aten::masked_fill",
            "aten::threshold_backward",
            "aten::gelu_backward",
            "aten::silu_backward",
            "aten::sigmoid_backward",
            "aten::tanh_backward",
            "aten::nan_to_num",
        ],
        in_place: true,
        model: vector::pointwise,
    },
    Row {
        key: "fused_pointwise",
        names: &["aten::addcmul", "aten::addcdiv", "aten::lerp"],
        in_place: true,
        model: vector::fused_pointwise,
    },
    Row {
        key: "reduction",
        names: &[
            "aten::sum",
            "aten::mean",
            "aten::amax",
            "aten::amin",
            "aten::var",
            "aten::std",
            "aten::norm",
            "aten::argmax",
            "aten::argmin",
            "aten::logsumexp",
        ],
        in_place: false,
        model: vector::reduction,
    },
    Row {
        key: "copy",
        names: &["aten::copy_", "aten::_to_copy", "aten::clone"],
        in_place: false,
        model: vector::copy,
    },
    Row {
        key: "record_param_comms",
        names: &["record_param_comms"],
        in_place: false,
        model: collective::record_param_comms,
    },
    Row {
        key: "c10d_base",
        names: &[
            "c10d::_allgather_base_",
            "c10d::_reduce_scatter_base_",
            "c10d::alltoall_base_",
        ],
        in_place: false,
        model: collective::c10d_base,
    },
    Row {
        key: "gather",
        names: &["aten::gather", "aten::index_select"],
        in_place: false,
        model: vector::gather,
    },
    Row {
        key: "scatter_add",
        names: &["aten::scatter_add"],
        in_place: true,
        model: vector::scatter_add,
    },
    Row {
        key: "mse_loss",
        names: &["aten::mse_loss", "aten::mse_loss_backward"],
        in_place: false,
        model: vector::mse_loss,
    },
    Row {
        key: "embedding_bag_fbgemm",
        names: &["fbgemm::split_embedding_codegen_lookup_*_function"],
        in_place: false,
        model: fbgemm::lookup,
    },
    Row {
        key: "embedding_bag_fbgemm_bwd",
        names: &["torch::autograd::CppNode<SplitLookupFunction_*_Op>"],
        in_place: false,
        model: fbgemm::lookup_backward,
    },
    Row {
        key: "permute_pooled_embs",
        names: &[
            "fbgemm::permute_pooled_embs_auto_grad",
            "fbgemm::permute_pooled_embs",
            "torch::autograd::CppNode<fbgemm_gpu::PermutePooledEmbsFunction<*> >",
        ],
        in_place: false,
        model: fbgemm::permute_pooled,
    },
    Row {
        key: "permute_sparse",
        names: &[
            "fbgemm::permute_2D_sparse_data",
            "fbgemm::permute_sparse_features",
        ],
        in_place: false,
        model: fbgemm::permute_sparse,
    },
    Row {
        key: "bounds_check_indices",
        names: &["fbgemm::bounds_check_indices"],
        in_place: false,
        model: fbgemm::bounds_check,
    },
    Row {
        key: "complete_cumsum",
        names: &["fbgemm::asynchronous_complete_cumsum"],
        in_place: false,
        model: fbgemm::complete_cumsum,
    },
    Row {
        key: "quantize_fbgemm",
        names: &[
            "fbgemm::FloatToFP8RowwiseQuantized",
            "fbgemm::FP8RowwiseQuantizedToFloat",
            "fbgemm::FloatToHFP8Quantized",
            "fbgemm::HFP8QuantizedToFloat",
        ],
        in_place: false,
        model: fbgemm::quantize,
    },
    Row {
        key: "fill",
        names: &["aten::fill_", "aten::zero_"],
        in_place: false,
        model: vector::fill,
    },
];

/// Whether `name` is what `pattern` (with one `*`) names: any text in the
/// star's place.
fn matches(pattern: &str, name: &str) -> bool {
    pattern.split_once('*').is_some_and(|(head, tail)| {
        name.len() >= head.len() + tail.len() && name.starts_with(head) && name.ends_with(tail)
    })
}

/// The rows by exact name, and the names with a `*` (fbgemm's codegen
/// names one op per optimizer) with their rows: built once, so a lookup
/// costs one hash, not a scan of every name.
struct Index {
    exact: HashMap<&'static str, &'static Row>,
    patterns: Vec<(&'static str, &'static Row)>,
}

fn index() -> &'static Index {
    static INDEX: OnceLock<Index> = OnceLock::new();
    INDEX.get_or_init(|| {
        let mut exact = HashMap::new();
        let mut patterns = Vec::new();
        for row in ROWS {
            for &name in row.names {
                if name.contains('*') {
                    patterns.push((name, row));
                } else {
                    exact.entry(name).or_insert(row);
                }
            }
        }
        Index { exact, patterns }
    })
}

/// The row that takes `name`: by its name (or a pattern), or, for a row
/// that takes in-place forms, by the name without its trailing `_`.
pub fn row_for(name: &str) -> Option<&'static Row> {
    let index = index();
    let of = |n: &str| {
        index.exact.get(n).copied().or_else(|| {
            index
                .patterns
                .iter()
                .find(|(p, _)| matches(p, n))
                .map(|(_, r)| *r)
        })
    };
    of(name).or_else(|| {
        let base = name.strip_suffix('_')?;
        of(base).filter(|r| r.in_place)
    })
}
