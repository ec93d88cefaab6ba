//! The analysis: each kernel charged once (`attribute`), each op call's
//! time the union of its kernels' intervals, calls grouped by op name and
//! shapes into rows with their bound at the roofs, the rest grouped by
//! reason. Modelled + unmodelled time = kernel time, exactly, by
//! construction: every kernel lands in one op's union or alone in a reason.

use super::attribute::{charge, parents, Charge};
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
use std::collections::BTreeMap;

/// Ops named per unmodelled reason.
const TOP_OPS: usize = 5;

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
    let works: Vec<Result<Work, Unmodelled>> = calls
        .records
        .iter()
        .map(|r| work(&r.call).map_err(Unmodelled::Op))
        .collect();
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
/// `cutlass_tensorop_tf32_s1688gemm…`).
fn says_tf32(name: &str) -> bool {
    name.as_bytes()
        .windows(4)
        .any(|w| w.eq_ignore_ascii_case(b"tf32"))
}

/// A kernel charged to a record: where and what it ran.
struct Span {
    record: usize,
    start_ns: i64,
    end_ns: i64,
    name: NameRef,
}

/// Charges each kernel of `timeline` to an op record (the innermost
/// holding its launch whose `modelled` is true, else the innermost) or a
/// reason (a CUDA graph replay's kernels to their own: they belong to the
/// graph's capture, not to the op around the replay), and sums each
/// record's kernels by union.
pub(super) fn charge_kernels(timeline: &Timeline, calls: &OpCalls, modelled: &[bool]) -> Charged {
    let records = &calls.records;
    let parents = parents(records);
    let mut spans: Vec<Span> = Vec::new();
    let mut charged = Charged {
        per_record: vec![CallTime::default(); records.len()],
        no_op: (0, 0),
        no_call: (0, 0),
        graph: (0, 0),
        comm_devices: Vec::new(),
    };
    for op in timeline.ops.iter().filter(|o| o.kind == OpKind::Kernel) {
        if timeline.is_comm(op) {
            charged.comm_devices.push(op.device);
        }
        let duration = op.end_ns - op.start_ns;
        let Some(call) = (op.api != NO_API)
            .then(|| timeline.api.get(op.api as usize))
            .flatten()
        else {
            charged.no_call.0 += 1;
            charged.no_call.1 += duration;
            continue;
        };
        if is_graph_launch_name(timeline.name(call.name)) {
            charged.graph.0 += 1;
            charged.graph.1 += duration;
            continue;
        }
        match charge(
            records,
            &parents,
            modelled,
            (call.pid, call.tid),
            call.start_ns,
        ) {
            Charge::Record(record) => spans.push(Span {
                record,
                start_ns: op.start_ns,
                end_ns: op.end_ns,
                name: op.name,
            }),
            Charge::NoOp => {
                charged.no_op.0 += 1;
                charged.no_op.1 += duration;
            }
        }
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
    let mut by: BTreeMap<Unmodelled, (u64, i64, BTreeMap<&str, i64>)> = BTreeMap::new();
    for ((record, work), t) in calls.records.iter().zip(works).zip(&charged.per_record) {
        let (Err(why), true) = (work, t.kernels > 0) else {
            continue;
        };
        let entry = by.entry(why.clone()).or_default();
        entry.0 += t.kernels;
        entry.1 += t.time_ns;
        *entry.2.entry(record.call.name.as_str()).or_default() += t.time_ns;
    }
    for (reason, (kernels, time_ns)) in [
        (Unmodelled::NoOpWithShapes, charged.no_op),
        (Unmodelled::NoLaunchCall, charged.no_call),
        (Unmodelled::GraphReplay, charged.graph),
    ] {
        if kernels > 0 {
            by.insert(reason, (kernels, time_ns, BTreeMap::new()));
        }
    }
    let mut rows: Vec<UnmodelledRow> = by
        .into_iter()
        .map(|(reason, (kernels, time_ns, ops))| {
            let mut top_ops: Vec<(String, i64)> =
                ops.into_iter().map(|(n, t)| (n.to_string(), t)).collect();
            top_ops.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
            top_ops.truncate(TOP_OPS);
            UnmodelledRow {
                reason,
                kernels,
                time_ns,
                top_ops,
            }
        })
        .collect();
    rows.sort_by(|a, b| {
        b.time_ns
            .cmp(&a.time_ns)
            .then_with(|| a.reason.cmp(&b.reason))
    });
    rows
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
        assert!(!says_tf32("volta_sgemm_128x64_nn"));
    }
}
