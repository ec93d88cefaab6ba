//! Ops from an nsys export of a run under
//! `torch.autograd.profiler.emit_nvtx(record_shapes=True)`: each op is an
//! NVTX range on the thread that ran it, its text written by PyTorch's
//! `getNvtxStr` (`torch/csrc/profiler/util.cpp`):
//!
//! ```text
//! aten::mm, seq = 12, op_id = 7, sizes = [[64, 128], [128, 256]], input_op_ids = [(5,0)]
//! ```
//!
//! (`seq`, `op_id` and `input_op_ids` each only when present; `[]` for an
//! argument that is no tensor, or a 0-d one). The sizes are read into the
//! same [`OpCall`]s a trace's shapes give; the export records no element
//! types, so each op's type comes from its kernels' names (`…bf16…`,
//! `sgemm`, `<float>`) or `--dtype`, and every row says which. The same
//! attribution applies: each kernel is charged to the innermost shaped
//! range holding its launch call on its thread.

use super::analyze::{charge_kernels, report};
use super::context::Context;
use super::model::{DtypeFrom, GroupBy, OpsReport, Unmodelled};
use crate::opmodel::record::MAX_OP_CALLS;
use crate::opmodel::{table, work, Arg, Dtype, OpCall, OpCalls, OpRecord, Work};
use crate::roofs::{GpuInfo, Roofs};
use crate::timeline::Timeline;

/// Where the sizes start in a range's text.
const SIZES: &str = ", sizes = ";

/// Most arguments read from one range (as `kineto::shapes` bounds a
/// trace's).
const MAX_ARGS: usize = 64;

/// The op calls of an export's shaped NVTX ranges.
#[derive(Debug, Clone, Default)]
pub struct NvtxCalls {
    /// The calls (every argument a tensor of type [`Dtype::F32`] until its
    /// kernels say otherwise), sorted as [`OpCalls`] says.
    pub calls: OpCalls,
    /// Ranges `emit_nvtx` wrote without sizes (`aten::mm, op_id = 7`):
    /// recorded without `record_shapes=True`.
    pub without_sizes: u64,
}

/// The op name and argument sizes of one range's text, `None` when it
/// carries no sizes; an argument whose sizes cannot be read (a symbolic
/// or nested size, a text cut short) is [`Arg::BadTensor`], `[]` a value.
pub fn parse_range(text: &str) -> Option<OpCall> {
    let at = text.find(SIZES)?;
    let name = text[..at].split(", ").next().unwrap_or_default();
    let list = &text[at + SIZES.len()..];
    let args = parse_sizes(list).unwrap_or_else(|| vec![Arg::BadTensor]);
    (!name.is_empty()).then(|| OpCall {
        name: name.to_string(),
        args,
        comm: None,
        annotation: None,
    })
}

/// `[[64, 128], [], [7]]` (and what follows it) → the arguments: a tensor
/// of type F32 per non-empty list, a value per `[]`. `None` when the text
/// is not such a list.
fn parse_sizes(text: &str) -> Option<Vec<Arg>> {
    let body = text.strip_prefix('[')?;
    let mut args = Vec::new();
    let mut rest = body;
    loop {
        rest = rest.trim_start_matches([',', ' ']);
        if rest.starts_with(']') {
            return Some(args);
        }
        let inner = rest.strip_prefix('[')?;
        let end = inner.find(']')?;
        let dims_text = &inner[..end];
        rest = &inner[end + 1..];
        if args.len() == MAX_ARGS {
            return None;
        }
        args.push(if dims_text.trim().is_empty() {
            Arg::Value(String::new())
        } else {
            let dims: Option<Vec<u64>> = dims_text
                .split(", ")
                .map(|d| d.trim().parse::<u64>().ok())
                .collect();
            match dims {
                Some(dims) if !dims_text.contains('[') => Arg::Tensor {
                    dims,
                    dtype: Dtype::F32,
                },
                _ => Arg::BadTensor,
            }
        });
    }
}

/// True for a text `emit_nvtx` wrote without sizes: an op name followed
/// by `, seq = ` or `, op_id = `.
fn unshaped_op(text: &str) -> bool {
    !text.contains(SIZES) && (text.contains(", seq = ") || text.contains(", op_id = "))
}

/// The op calls of `timeline`'s NVTX ranges that carry sizes, at most
/// [`MAX_OP_CALLS`] (more are counted as dropped).
pub fn nvtx_calls(timeline: &Timeline) -> NvtxCalls {
    let mut out = NvtxCalls::default();
    for range in &timeline.nvtx {
        let Some(call) = parse_range(&range.text) else {
            out.without_sizes += u64::from(unshaped_op(&range.text));
            continue;
        };
        if out.calls.records.len() == MAX_OP_CALLS {
            out.calls.dropped += 1;
            continue;
        }
        out.calls.records.push(OpRecord {
            call,
            pid: range.pid,
            tid: range.tid,
            start_ns: range.start_ns,
            end_ns: range.end_ns,
        });
    }
    out.calls.without_shapes = out.without_sizes;
    out.calls
        .records
        .sort_by_key(|r| (r.pid, r.tid, r.start_ns, std::cmp::Reverse(r.end_ns)));
    out
}

/// The element type a kernel's name says, when it says one: FP8, BF16,
/// FP16, FP64, then FP32 spellings (cuBLAS, CUTLASS and ATen's templates:
/// `sm90_xmma_gemm_bf16bf16…`, `h1688gemm`, `c10::Half`, `dgemm`,
/// `volta_sgemm`, `s1688gemm`, `<float>`), checked in that order so
/// `bf16` is not read as `f16` nor `f16f16_f32` as FP32.
pub fn kernel_dtype(name: &str) -> Option<Dtype> {
    let lower = name.to_ascii_lowercase();
    let has = |words: &[&str]| words.iter().any(|w| lower.contains(w));
    Some(if has(&["fp8", "e4m3", "e5m2", "float8"]) {
        Dtype::F8
    } else if has(&["bf16", "bfloat16"]) {
        Dtype::Bf16
    } else if has(&["f16", "fp16", "half", "h884", "h1688", "h16816"]) {
        Dtype::F16
    } else if has(&["f64", "fp64", "double", "dgemm", "d884", "d1688"]) {
        Dtype::F64
    } else if has(&[
        "f32", "fp32", "tf32", "float", "sgemm", "s884", "s1688", "s16816",
    ]) {
        Dtype::F32
    } else {
        return None;
    })
}

/// `call` with every tensor of type `dtype`.
fn typed(call: &OpCall, dtype: Dtype) -> OpCall {
    let args = call
        .args
        .iter()
        .map(|a| match a {
            Arg::Tensor { dims, .. } => Arg::Tensor {
                dims: dims.clone(),
                dtype,
            },
            other => other.clone(),
        })
        .collect();
    OpCall {
        name: call.name.clone(),
        args,
        comm: call.comm.clone(),
        annotation: call.annotation,
    }
}

/// What the ops analysis of an export needs beyond the timeline.
pub struct NvtxOptions<'a> {
    /// The roofs.
    pub roofs: &'a Roofs,
    /// The GPU decision.
    pub gpu: GpuInfo,
    /// The input, as given.
    pub input: &'a str,
    /// What a row stands for.
    pub group_by: GroupBy,
    /// The type of ops whose kernels' names say none (`--dtype`).
    pub dtype: Option<Dtype>,
}

/// The ops report of an export from its shaped NVTX ranges (`calls`, from
/// [`nvtx_calls`]): kernels charged to the innermost range with a model
/// for the op's name, each op's type read off its kernels' names (or
/// assumed), its work from the same models as a trace's.
pub fn analyze_nvtx(timeline: &Timeline, calls: &NvtxCalls, options: NvtxOptions) -> OpsReport {
    let records = &calls.calls.records;
    let modelled: Vec<bool> = records
        .iter()
        .map(|r| table::row_for(&r.call.name).is_some())
        .collect();
    let charged = charge_kernels(timeline, &calls.calls, &modelled);
    let mut works: Vec<Result<Work, Unmodelled>> = Vec::with_capacity(records.len());
    let mut dtype_from: Vec<Option<DtypeFrom>> = Vec::with_capacity(records.len());
    for (record, t) in records.iter().zip(&charged.per_record) {
        let named = t.names.iter().find_map(|n| kernel_dtype(timeline.name(*n)));
        let (dtype, from) = match (named, options.dtype) {
            (Some(d), _) => (Some(d), Some(DtypeFrom::KernelName)),
            (None, Some(d)) => (Some(d), Some(DtypeFrom::Assumed)),
            (None, None) => (None, None),
        };
        works.push(match dtype {
            Some(d) => work(&typed(&record.call, d)).map_err(Unmodelled::Op),
            None => match work(&record.call) {
                Err(why) => Err(Unmodelled::Op(why)),
                Ok(_) => Err(Unmodelled::NoDtype),
            },
        });
        dtype_from.push(from);
    }
    let context = Context {
        timeline,
        calls: &calls.calls,
        roofs: options.roofs,
        gpu: options.gpu,
        input: options.input,
        group_by: options.group_by,
    };
    report(&context, works, &dtype_from, &charged)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tensor(dims: &[u64]) -> Arg {
        Arg::Tensor {
            dims: dims.to_vec(),
            dtype: Dtype::F32,
        }
    }

    #[test]
    fn a_range_text_gives_the_op_name_and_its_sizes() {
        let call = parse_range("aten::mm, seq = 12, sizes = [[64, 128], [128, 256]]").unwrap();
        assert_eq!(call.name, "aten::mm");
        assert_eq!(call.args, vec![tensor(&[64, 128]), tensor(&[128, 256])]);
        // op_id before and input_op_ids after; [] is a value.
        let call = parse_range(
            "aten::addmm, op_id = 7, sizes = [[256], [64, 128], [128, 256], [], []], input_op_ids = [(5,0), (6,0)]",
        )
        .unwrap();
        assert_eq!(call.name, "aten::addmm");
        assert_eq!(call.args.len(), 5);
        assert_eq!(call.args[3], Arg::Value(String::new()));
        // No sizes: not an op call with shapes.
        assert_eq!(parse_range("aten::mm, op_id = 314307"), None);
        assert!(unshaped_op("aten::mm, op_id = 314307"));
        assert!(!unshaped_op("train_step"));
        // A size that is no number costs its argument; a text cut short
        // every argument.
        let call = parse_range("aten::mm, sizes = [[s0, 128], [128, 256]]").unwrap();
        assert_eq!(call.args, vec![Arg::BadTensor, tensor(&[128, 256])]);
        let call = parse_range("aten::mm, sizes = [[64, 128], [128, 2").unwrap();
        assert_eq!(call.args, vec![Arg::BadTensor]);
    }

    #[test]
    fn a_kernels_name_says_its_element_type() {
        let cases = [
            ("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n", Some(Dtype::Bf16)),
            ("ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_tn", Some(Dtype::F16)),
            ("volta_h884gemm_64x64_ldg8_nn", Some(Dtype::F16)),
            ("volta_sgemm_128x64_nn", Some(Dtype::F32)),
            ("cutlass_tensorop_s1688gemm_tf32_128x128", Some(Dtype::F32)),
            ("void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>>", Some(Dtype::F32)),
            ("void at::native::elementwise_kernel<c10::Half>", Some(Dtype::F16)),
            ("sm80_xmma_gemm_e4m3e4m3_bf16", Some(Dtype::F8)),
            ("dgemm_nn_64x64", Some(Dtype::F64)),
            ("ncclKernel_AllReduce_RING_LL_Sum", None),
        ];
        for (name, want) in cases {
            assert_eq!(kernel_dtype(name), want, "{name}");
        }
    }
}
