//! The rows: the modelled calls grouped by op name and shapes, or by the
//! names of the kernels they launched ([`GroupBy`]), each with its bound
//! at the roofs, `max(FLOPs / F_path, bytes / B_dram)`, and sorted by the
//! time lost against it.

use super::context::{CallTime, Context};
use super::model::{BoundSide, DtypeFrom, GroupBy, OpRow, Unmodelled};
use crate::opmodel::{Arg, OpCall, Work};
use crate::roofs::{ComputePath, Roofs};
use std::collections::{BTreeMap, BTreeSet};

/// Between the kernel names of one op call that launched several, in a
/// [`GroupBy::Kernel`] row's name.
pub const KERNEL_JOIN: &str = " + ";

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
pub fn dram(roofs: &Roofs) -> Option<f64> {
    roofs.dram().map(|m| m.bytes_per_s).filter(|b| *b > 0.0)
}

/// The bound time of `flops` on `path` and `bytes` on DRAM, and its side:
/// max(FLOPs / F, bytes / B). Work with no FLOP roof (integer) is bound by
/// its bytes; `None` when a roof it needs is unknown.
fn bound(
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

/// A row's key: its name, its shapes (empty for a kernel row) and path.
type Key = (String, String, Option<ComputePath>);

/// A row being summed: the row, and for a kernel row the ops that
/// launched its kernels.
struct Acc {
    row: OpRow,
    ops: BTreeSet<String>,
}

/// The key of one call's row.
fn key(context: &Context, call: &OpCall, t: &CallTime, path: Option<ComputePath>) -> Key {
    match context.group_by {
        GroupBy::OpShapes => (call.name.clone(), shapes_text(call), path),
        GroupBy::Kernel => {
            let names: Vec<&str> = t.names.iter().map(|n| context.timeline.name(*n)).collect();
            (names.join(KERNEL_JOIN), String::new(), path)
        }
    }
}

/// The modelled calls grouped per the context's [`GroupBy`], sorted by
/// time lost (unknown last, then by time), then name and shapes.
pub fn rows(
    context: &Context,
    works: &[Result<Work, Unmodelled>],
    dtype_from: &[Option<DtypeFrom>],
    times: &[CallTime],
) -> Vec<OpRow> {
    let mut groups: BTreeMap<Key, Acc> = BTreeMap::new();
    for (i, ((record, work), t)) in context
        .calls
        .records
        .iter()
        .zip(works)
        .zip(times)
        .enumerate()
    {
        let (Ok(work), true) = (work, t.kernels > 0) else {
            continue;
        };
        let path = work.compute_path(t.tf32);
        let acc = groups
            .entry(key(context, &record.call, t, path))
            .or_insert_with_key(|(name, shapes, _)| Acc {
                row: OpRow {
                    name: name.clone(),
                    shapes: shapes.clone(),
                    model: work.model,
                    engine: work.engine,
                    dtype: work.dtype,
                    dtype_from: dtype_from.get(i).copied().flatten(),
                    path,
                    launches: 0,
                    kernels: 0,
                    time_ns: 0,
                    flops: 0,
                    bytes: 0,
                    bound_ns: None,
                    bound: None,
                },
                ops: BTreeSet::new(),
            });
        let row = &mut acc.row;
        row.launches += 1;
        row.kernels += t.kernels;
        row.time_ns += t.time_ns;
        row.flops = row.flops.saturating_add(work.flops);
        row.bytes = row.bytes.saturating_add(work.bytes);
        // An assumed type anywhere in the row is said, over a named one.
        if dtype_from.get(i).copied().flatten() == Some(DtypeFrom::Assumed) {
            row.dtype_from = Some(DtypeFrom::Assumed);
        }
        if context.group_by == GroupBy::Kernel {
            acc.ops.insert(record.call.name.clone());
        }
    }
    let mut rows: Vec<OpRow> = groups
        .into_values()
        .map(|mut acc| {
            if context.group_by == GroupBy::Kernel {
                acc.row.shapes = acc.ops.into_iter().collect::<Vec<_>>().join(", ");
            }
            acc.row
        })
        .collect();
    for row in &mut rows {
        if let Some((ns, side)) = bound(row.flops, row.bytes, row.path, context.roofs) {
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
