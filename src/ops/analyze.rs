//! The analysis: each kernel charged once (`attribute`), each op call's
//! time the union of its kernels' intervals, calls grouped by op name and
//! shapes into rows with their bound at the roofs, the rest grouped by
//! reason. Modelled + unmodelled time = kernel time, exactly, by
//! construction: every kernel lands in one op's union or alone in a reason.

use super::attribute::{charge, parents, Charge};
use super::by_reason::ByReason;
use super::context::{CallTime, Charged, Context};
use super::fix::fix_first;
use super::link::{collectives, link_config, Links};
use super::model::{DtypeFrom, GroupBy, OpsReport, Unmodelled, UnmodelledRow};
use super::rows::{dram, rows};
use crate::comm::CollKind;
use crate::opmodel::{work, OpCalls, Work};
use crate::roofs::{GpuInfo, Roofs};
use crate::timeline::names::is_graph_launch_name;
use crate::timeline::{NameRef, OpKind, Timeline, NO_API};

/// The ops report of `timeline` with the op calls its reader kept, at
/// `roofs` (whose GPU `gpu` says how it was chosen), one row per op name
/// and shapes.
pub fn analyze(
    timeline: &Timeline,
    calls: &OpCalls,
    roofs: &Roofs,
    gpu: GpuInfo,
    input: &str,
) -> OpsReport {
    analyze_by(timeline, calls, roofs, gpu, input, GroupBy::OpShapes)
}

/// [`analyze`], with rows per `group_by`.
pub fn analyze_by(
    timeline: &Timeline,
    calls: &OpCalls,
    roofs: &Roofs,
    gpu: GpuInfo,
    input: &str,
    group_by: GroupBy,
) -> OpsReport {
    let works = works(calls);
    let modelled: Vec<bool> = works.iter().map(Result::is_ok).collect();
    let charged = charge_kernels(timeline, calls, &modelled);
    let context = Context {
        timeline,
        calls,
        roofs,
        gpu,
        input,
        group_by,
    };
    report(&context, works, &[], &charged)
}

/// The report from each record's work or why none (and, per record, where
/// its element type came from when the input records none: empty when it
/// does). A collective's work becomes its message on its link, or
/// unmodelled when its kind or size is not told.
pub(super) fn report(
    context: &Context,
    mut works: Vec<Result<Work, Unmodelled>>,
    dtype_from: &[Option<DtypeFrom>],
    charged: &Charged,
) -> OpsReport {
    let kernels =
        charged.per_record.iter().map(|t| t.kernels).sum::<u64>() + charged.alone_kernels();
    let links = Links {
        calls: collectives(&mut works, &charged.per_record),
        config: link_config(context.timeline, &context.gpu, charged.comm_devices.clone()),
    };
    let rows = rows(context, &works, dtype_from, &charged.per_record, &links);
    let unmodelled = unmodelled(context.calls, &works, charged);
    let modelled_time_ns = rows.iter().map(|r| r.time_ns).sum();
    let kernel_time_ns = modelled_time_ns + unmodelled.iter().map(|u| u.time_ns).sum::<i64>();
    let mut report = OpsReport {
        input: context.input.to_string(),
        gpu: context.gpu.clone(),
        roofs_source: context.roofs.source.clone(),
        dram_bytes_per_s: dram(context.roofs),
        roofs: context.roofs.clone(),
        group_by: context.group_by,
        rows,
        fix_first: Vec::new(),
        unmodelled,
        kernels,
        kernel_time_ns,
        modelled_time_ns,
        ops_without_shapes: context.calls.without_shapes,
        ops_dropped: context.calls.dropped,
    };
    report.fix_first = fix_first(&report);
    report
}

/// True when a kernel's name says it runs TF32 (`sm80_xmma_gemm_tf32f32…`,
/// `cutlass_tensorop_tf32_s1688gemm…`), or names an FP32 tensor-core MMA
/// (`cutlass_80_tensorop_s1688gemm…`: single-precision operands on the
/// m16n8k8 or m16n8k4 tensor-core MMA, which for 32-bit floats exists only
/// as TF32; cuBLAS picks these on Ampere when TF32 is allowed).
pub(super) fn says_tf32(name: &str) -> bool {
    let has = |needle: &[u8]| {
        name.as_bytes()
            .windows(needle.len())
            .any(|w| w.eq_ignore_ascii_case(needle))
    };
    has(b"tf32") || has(b"tensorop_s1688") || has(b"tensorop_s1684")
}

/// Where one kernel of the timeline is charged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum KernelTo {
    /// To this op record (index): modelled, or the innermost with shapes.
    Record(usize),
    /// No op with shapes holds its launch call.
    NoOp,
    /// Its launch call is not in the trace.
    NoCall,
    /// A CUDA graph's replay launched it: it belongs to the graph's
    /// capture, not to the op around the replay.
    GraphReplay,
}

/// Each op record's work or why none: [`work`] at its recorded shapes.
pub(super) fn works(calls: &OpCalls) -> Vec<Result<Work, Unmodelled>> {
    calls
        .records
        .iter()
        .map(|r| work(&r.call).map_err(Unmodelled::Op))
        .collect()
}

/// Each kernel of `timeline` (its index in `timeline.ops`) and where it is
/// charged, in the timeline's order: to an op record (the innermost
/// holding its launch whose `modelled` is true, else the innermost) or a
/// reason. The one attribution the ops report and the per-kernel bounds
/// (`kernel_bound`) read.
pub(super) fn kernel_charges(
    timeline: &Timeline,
    calls: &OpCalls,
    modelled: &[bool],
) -> Vec<(usize, KernelTo)> {
    let records = &calls.records;
    let parents = parents(records);
    let mut out = Vec::new();
    for (index, op) in timeline.ops.iter().enumerate() {
        if op.kind != OpKind::Kernel {
            continue;
        }
        let Some(call) = (op.api != NO_API)
            .then(|| timeline.api.get(op.api as usize))
            .flatten()
        else {
            out.push((index, KernelTo::NoCall));
            continue;
        };
        if is_graph_launch_name(timeline.name(call.name)) {
            out.push((index, KernelTo::GraphReplay));
            continue;
        }
        let to = match charge(
            records,
            &parents,
            modelled,
            (call.pid, call.tid),
            call.start_ns,
        ) {
            Charge::Record(i) => KernelTo::Record(i),
            Charge::NoOp => KernelTo::NoOp,
        };
        out.push((index, to));
    }
    out
}

/// A kernel charged to a record: where and what it ran.
struct Span {
    record: usize,
    start_ns: i64,
    end_ns: i64,
    name: NameRef,
}

/// Charges each kernel of `timeline` as [`kernel_charges`] says and sums
/// each record's kernels by union.
pub(super) fn charge_kernels(timeline: &Timeline, calls: &OpCalls, modelled: &[bool]) -> Charged {
    let charges = kernel_charges(timeline, calls, modelled);
    sum_charges(timeline, calls.records.len(), &charges)
}

/// Each record's kernels (of `records` records) summed by union from
/// where each kernel is charged, the rest counted per reason.
pub(super) fn sum_charges(
    timeline: &Timeline,
    records: usize,
    charges: &[(usize, KernelTo)],
) -> Charged {
    let mut spans: Vec<Span> = Vec::new();
    let mut charged = Charged {
        per_record: vec![CallTime::default(); records],
        no_op: (0, 0),
        no_call: (0, 0),
        graph: (0, 0),
        comm_devices: Vec::new(),
    };
    for &(index, to) in charges {
        let op = &timeline.ops[index];
        if timeline.is_comm(op) {
            charged.comm_devices.push(op.device);
        }
        let duration = op.end_ns - op.start_ns;
        let alone = match to {
            KernelTo::Record(record) => {
                spans.push(Span {
                    record,
                    start_ns: op.start_ns,
                    end_ns: op.end_ns,
                    name: op.name,
                });
                continue;
            }
            KernelTo::NoOp => &mut charged.no_op,
            KernelTo::NoCall => &mut charged.no_call,
            KernelTo::GraphReplay => &mut charged.graph,
        };
        alone.0 += 1;
        alone.1 += duration;
    }
    charged.comm_devices.sort_unstable();
    charged.comm_devices.dedup();
    spans.sort_unstable_by_key(|s| (s.record, s.start_ns, s.end_ns));
    for group in spans.chunk_by(|a, b| a.record == b.record) {
        let t = &mut charged.per_record[group[0].record];
        t.kernels = group.len() as u64;
        t.time_ns = union_ns(group.iter().map(|s| (s.start_ns, s.end_ns)));
        let mut names: Vec<NameRef> = group.iter().map(|s| s.name).collect();
        names.sort_unstable();
        names.dedup();
        t.tf32 = names.iter().any(|n| says_tf32(timeline.name(*n)));
        t.kernel_kind = names.iter().find_map(|n| {
            let kind = CollKind::from_kernel(timeline.name(*n));
            (kind != CollKind::Other).then_some(kind)
        });
        t.names = names;
    }
    charged
}

/// The length of the union of intervals given sorted by start, ns.
fn union_ns(intervals: impl Iterator<Item = (i64, i64)>) -> i64 {
    let mut total = 0;
    let mut open: Option<(i64, i64)> = None;
    for (start, end) in intervals {
        open = match open {
            Some((s, e)) if start <= e => Some((s, e.max(end))),
            Some((s, e)) => {
                total += e - s;
                Some((start, end))
            }
            None => Some((start, end)),
        };
    }
    total + open.map_or(0, |(s, e)| e - s)
}

/// The kernels without a model, by reason, most time first.
fn unmodelled(
    calls: &OpCalls,
    works: &[Result<Work, Unmodelled>],
    charged: &Charged,
) -> Vec<UnmodelledRow> {
    let mut by: ByReason<Unmodelled> = ByReason::default();
    for ((record, work), t) in calls.records.iter().zip(works).zip(&charged.per_record) {
        let (Err(why), true) = (work, t.kernels > 0) else {
            continue;
        };
        by.add(
            why.clone(),
            t.kernels,
            t.time_ns,
            Some(record.call.name.as_str()),
        );
    }
    for (reason, (kernels, time_ns)) in [
        (Unmodelled::NoOpWithShapes, charged.no_op),
        (Unmodelled::NoLaunchCall, charged.no_call),
        (Unmodelled::GraphReplay, charged.graph),
    ] {
        if kernels > 0 {
            by.add(reason, kernels, time_ns, None);
        }
    }
    by.rows()
        .into_iter()
        .map(|r| UnmodelledRow {
            reason: r.reason,
            kernels: r.kernels,
            time_ns: r.time_ns,
            top_ops: r.top_ops,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_union_counts_overlapping_time_once() {
        // [0,10] ∪ [5,12] ∪ [20,25] = 12 + 5 = 17; [30,30] adds nothing.
        let spans = [(0, 10), (5, 12), (20, 25), (30, 30)];
        assert_eq!(union_ns(spans.into_iter()), 17);
        assert_eq!(union_ns(std::iter::empty()), 0);
    }

    #[test]
    fn tf32_is_read_off_the_kernel_name() {
        assert!(says_tf32(
            "sm80_xmma_gemm_tf32f32_tf32f32_f32_nn_n_tilesize128x128x16"
        ));
        assert!(says_tf32("cutlass_tensorop_TF32_s1688gemm"));
        assert!(says_tf32(
            "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_32x3_nt_align1>(cutlass_80_tensorop_s1688gemm_128x128_32x3_nt_align1::Params)"
        ));
        // Half-precision tensor-core GEMMs are not TF32.
        assert!(!says_tf32(
            "cutlass_80_tensorop_h16816gemm_256x128_32x3_nn_align8"
        ));
        assert!(!says_tf32("volta_sgemm_128x64_nn"));
    }
}
