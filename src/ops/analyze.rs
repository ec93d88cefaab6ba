//! The analysis: each kernel charged once (`attribute`), each op call's
//! time the union of its kernels' intervals, calls grouped by op name and
//! shapes into rows with their bound at the roofs, the rest grouped by
//! reason. Modelled + unmodelled time = kernel time, exactly, by
//! construction: every kernel lands in one op's union or alone in a reason.

use super::attribute::{charge, parents, Charge};
use super::model::{BoundSide, OpRow, OpsReport, Unmodelled, UnmodelledRow};
use crate::opmodel::{work, Arg, NoModel, OpCall, OpCalls, Work};
use crate::roofs::{ComputePath, GpuInfo, Roofs};
use crate::timeline::{OpKind, Timeline, NO_API};
use std::collections::BTreeMap;

/// Ops named per unmodelled reason.
const TOP_OPS: usize = 5;

/// The ops report of `timeline` with the op calls its reader kept, at
/// `roofs` (whose GPU `gpu` says how it was chosen).
pub fn analyze(
    timeline: &Timeline,
    calls: &OpCalls,
    roofs: &Roofs,
    gpu: GpuInfo,
    input: &str,
) -> OpsReport {
    let works: Vec<Result<Work, NoModel>> = calls.records.iter().map(|r| work(&r.call)).collect();
    let charged = charge_kernels(timeline, calls, &works);
    let kernels =
        charged.per_record.iter().map(|t| t.kernels).sum::<u64>() + charged.alone_kernels();
    let rows = rows(calls, &works, &charged.per_record, roofs);
    let unmodelled = unmodelled(calls, &works, &charged);
    let modelled_time_ns = rows.iter().map(|r| r.time_ns).sum();
    let kernel_time_ns = modelled_time_ns + unmodelled.iter().map(|u| u.time_ns).sum::<i64>();
    OpsReport {
        input: input.to_string(),
        gpu,
        roofs_source: roofs.source.clone(),
        dram_bytes_per_s: dram(roofs),
        rows,
        unmodelled,
        kernels,
        kernel_time_ns,
        modelled_time_ns,
        ops_without_shapes: calls.without_shapes,
        ops_dropped: calls.dropped,
    }
}

/// One op call's kernels.
#[derive(Debug, Clone, Copy, Default)]
struct CallTime {
    /// Kernels charged to it.
    kernels: u64,
    /// The union of their intervals, ns.
    time_ns: i64,
    /// A kernel's name says TF32 (`…tf32…`): FP32 matrix work ran on
    /// tensor cores.
    tf32: bool,
}

/// Every kernel's charge: per record, and the kernels charged to no op.
struct Charged {
    per_record: Vec<CallTime>,
    /// Kernels no op with shapes launched: count and summed time.
    no_op: (u64, i64),
    /// Kernels whose launch call is not in the trace.
    no_call: (u64, i64),
}

impl Charged {
    fn alone_kernels(&self) -> u64 {
        self.no_op.0 + self.no_call.0
    }
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
}

/// Each kernel of `timeline` (its index in `timeline.ops`) and where it is
/// charged, in the timeline's order: the one attribution `ops` and the
/// per-kernel bounds read.
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

/// Charges each kernel of `timeline` to an op record or a reason, and
/// sums each record's kernels by union.
fn charge_kernels(
    timeline: &Timeline,
    calls: &OpCalls,
    works: &[Result<Work, NoModel>],
) -> Charged {
    let modelled: Vec<bool> = works.iter().map(Result::is_ok).collect();
    let mut spans: Vec<(usize, i64, i64, bool)> = Vec::new();
    let mut charged = Charged {
        per_record: vec![CallTime::default(); calls.records.len()],
        no_op: (0, 0),
        no_call: (0, 0),
    };
    for (index, to) in kernel_charges(timeline, calls, &modelled) {
        let op = &timeline.ops[index];
        let duration = op.end_ns - op.start_ns;
        match to {
            KernelTo::Record(i) => {
                let tf32 = says_tf32(timeline.name(op.name));
                spans.push((i, op.start_ns, op.end_ns, tf32));
            }
            KernelTo::NoOp => {
                charged.no_op.0 += 1;
                charged.no_op.1 += duration;
            }
            KernelTo::NoCall => {
                charged.no_call.0 += 1;
                charged.no_call.1 += duration;
            }
        }
    }
    spans.sort_unstable_by_key(|&(i, start, end, _)| (i, start, end));
    for group in spans.chunk_by(|a, b| a.0 == b.0) {
        let t = &mut charged.per_record[group[0].0];
        t.kernels = group.len() as u64;
        t.time_ns = union_ns(group.iter().map(|&(_, s, e, _)| (s, e)));
        t.tf32 = group.iter().any(|g| g.3);
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

/// An op's inputs as text: `f32[5,128]` per tensor, a value as recorded
/// (`_` when not recorded), `?` for unusable sizes.
fn shapes_text(call: &OpCall) -> String {
    let arg = |a: &Arg| match a {
        Arg::Tensor { dims, dtype } => {
            let dims: Vec<String> = dims.iter().map(u64::to_string).collect();
            format!("{}[{}]", dtype.key(), dims.join(","))
        }
        Arg::Value(v) if v.is_empty() => "_".to_string(),
        Arg::Value(v) => v.clone(),
        Arg::BadTensor => "?".to_string(),
    };
    call.args.iter().map(arg).collect::<Vec<_>>().join(", ")
}

/// The DRAM roof, byte/s, when positive.
fn dram(roofs: &Roofs) -> Option<f64> {
    roofs.dram().map(|m| m.bytes_per_s).filter(|b| *b > 0.0)
}

/// The bound time of `flops` on `path` and `bytes` on DRAM, and its side:
/// max(FLOPs / F, bytes / B). Work with no FLOP roof (integer) is bound by
/// its bytes; `None` when a roof it needs is unknown.
pub(super) fn bound(
    flops: u64,
    bytes: u64,
    path: Option<ComputePath>,
    roofs: &Roofs,
) -> Option<(f64, BoundSide)> {
    let memory_ns = bytes as f64 / dram(roofs)? * 1e9;
    let compute = match path {
        Some(p) if flops > 0 => {
            let f = roofs
                .compute
                .get(&p)
                .map(|c| c.flop_per_s)
                .filter(|f| *f > 0.0)?;
            Some((flops as f64 / f * 1e9, BoundSide::Compute(p)))
        }
        _ => None,
    };
    Some(match compute {
        Some((ns, side)) if ns > memory_ns => (ns, side),
        _ => (memory_ns, BoundSide::Memory),
    })
}

/// The modelled calls grouped by (name, shapes, path), sorted by time
/// lost (unknown last, then by time), then name and shapes.
fn rows(
    calls: &OpCalls,
    works: &[Result<Work, NoModel>],
    times: &[CallTime],
    roofs: &Roofs,
) -> Vec<OpRow> {
    let mut groups: BTreeMap<(&str, String, Option<ComputePath>), OpRow> = BTreeMap::new();
    for ((record, work), t) in calls.records.iter().zip(works).zip(times) {
        let (Ok(work), true) = (work, t.kernels > 0) else {
            continue;
        };
        let path = work.compute_path(t.tf32);
        let key = (record.call.name.as_str(), shapes_text(&record.call), path);
        let row = groups
            .entry(key)
            .or_insert_with_key(|(name, shapes, _)| OpRow {
                name: name.to_string(),
                shapes: shapes.clone(),
                model: work.model,
                path,
                launches: 0,
                kernels: 0,
                time_ns: 0,
                flops: 0,
                bytes: 0,
                bound_ns: None,
                bound: None,
            });
        row.launches += 1;
        row.kernels += t.kernels;
        row.time_ns += t.time_ns;
        row.flops = row.flops.saturating_add(work.flops);
        row.bytes = row.bytes.saturating_add(work.bytes);
    }
    let mut rows: Vec<OpRow> = groups.into_values().collect();
    for row in &mut rows {
        if let Some((ns, side)) = bound(row.flops, row.bytes, row.path, roofs) {
            row.bound_ns = Some(ns);
            row.bound = Some(side);
        }
    }
    rows.sort_by(|a, b| {
        let lost = |r: &OpRow| {
            (
                r.time_lost_ns().is_none(),
                std::cmp::Reverse(r.time_lost_ns()),
            )
        };
        (lost(a), std::cmp::Reverse(a.time_ns), &a.name, &a.shapes).cmp(&(
            lost(b),
            std::cmp::Reverse(b.time_ns),
            &b.name,
            &b.shapes,
        ))
    });
    rows
}

/// The kernels without a model, by reason, most time first.
fn unmodelled(
    calls: &OpCalls,
    works: &[Result<Work, NoModel>],
    charged: &Charged,
) -> Vec<UnmodelledRow> {
    let mut by: BTreeMap<Unmodelled, (u64, i64, BTreeMap<&str, i64>)> = BTreeMap::new();
    for ((record, work), t) in calls.records.iter().zip(works).zip(&charged.per_record) {
        let (Err(why), true) = (work, t.kernels > 0) else {
            continue;
        };
        let entry = by.entry(Unmodelled::Op(why.clone())).or_default();
        entry.0 += t.kernels;
        entry.1 += t.time_ns;
        *entry.2.entry(record.call.name.as_str()).or_default() += t.time_ns;
    }
    for (reason, (kernels, time_ns)) in [
        (Unmodelled::NoOpWithShapes, charged.no_op),
        (Unmodelled::NoLaunchCall, charged.no_call),
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
