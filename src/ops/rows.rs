//! The rows: the modelled calls grouped by op name and shapes, or by the
//! names of the kernels they launched ([`GroupBy`]), each with its bound
//! at the roofs, `max(FLOPs / F_path, bytes / B_dram)` (a collective's:
//! its bus bytes over its link), and sorted by the time lost against it.

use super::context::{CallTime, Context};
use super::link::{link_bound, link_of, LinkCall, Links};
use super::model::{BoundSide, DtypeFrom, GroupBy, LinkUse, OpRow, Unmodelled};
use crate::opmodel::{Arg, OpCall, Work};
use crate::roofs::{ComputePath, Roofs};
use std::collections::{BTreeMap, BTreeSet};

/// Between the kernel names of one op call that launched several, in a
/// [`GroupBy::Kernel`] row's name.
pub const KERNEL_JOIN: &str = " + ";

/// An op's inputs as text: `f32[5,128]` per tensor, a value as recorded
/// (`_` when not recorded), `?` for unusable sizes; a collective adds its
/// kind, size and group (`all_reduce 8196000 B, group 2`).
fn shapes_text(call: &OpCall, link: Option<&LinkCall>, group: Option<u32>) -> String {
    let arg = |a: &Arg| match a {
        Arg::Tensor { dims, dtype } => {
            let dims: Vec<String> = dims.iter().map(u64::to_string).collect();
            format!("{}[{}]", dtype.key(), dims.join(","))
        }
        Arg::Value(v) if v.is_empty() => "_".to_string(),
        Arg::Value(v) => v.clone(),
        Arg::BadTensor => "?".to_string(),
    };
    let mut parts: Vec<String> = call.args.iter().map(arg).collect();
    if let Some(l) = link {
        let group = group.map_or("?".to_string(), |g| g.to_string());
        parts.push(format!(
            "{} {} B, group {group}",
            l.kind.key(),
            l.size_bytes
        ));
    }
    parts.join(", ")
}

/// The DRAM roof, byte/s, when positive.
pub fn dram(roofs: &Roofs) -> Option<f64> {
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

/// A row's key: its name, its shapes (empty for a kernel row), path, and
/// whether it is a collective's (bound by its link, not the roofs).
type Key = (String, String, Option<ComputePath>, bool);

/// A row being summed: the row, and for a kernel row the ops that
/// launched its kernels.
struct Acc {
    row: OpRow,
    ops: BTreeSet<String>,
}

/// The key of one call's row (its collective's figures when it is one).
fn key(
    context: &Context,
    call: &OpCall,
    work: &Work,
    t: &CallTime,
    link: Option<&LinkCall>,
) -> Key {
    // A collective's bytes cross its link: no compute path.
    let path = match link {
        Some(_) => None,
        None => work.compute_path(t.tf32),
    };
    let group = work.collective.as_deref().and_then(|m| m.group_size);
    match context.group_by {
        GroupBy::OpShapes => (
            call.name.clone(),
            shapes_text(call, link, group),
            path,
            link.is_some(),
        ),
        GroupBy::Kernel => {
            let names: Vec<&str> = t.names.iter().map(|n| context.timeline.name(*n)).collect();
            (names.join(KERNEL_JOIN), String::new(), path, link.is_some())
        }
    }
}

/// A new row's link use: the collective's kind, group and link, no bus
/// bytes summed yet.
fn link_use(work: &Work, call: &LinkCall, links: &Links) -> LinkUse {
    let message = work.collective.as_deref();
    let group = message.and_then(|m| m.group_size);
    LinkUse {
        kind: (call.kind.key(), call.told_by),
        group_size: group,
        bus_bytes: Some(0.0),
        link: link_of(
            &links.config,
            message.and_then(|m| m.ranks.as_deref()),
            group,
        ),
    }
}

/// A row's bound: a collective's bus bytes over its link, any other row's
/// work at the roofs.
fn row_bound(row: &OpRow, roofs: &Roofs) -> Option<(f64, BoundSide)> {
    match &row.link {
        Some(l) => link_bound(l.bus_bytes, &l.link),
        None => bound(row.flops, row.bytes, row.path, roofs),
    }
}

/// The modelled calls grouped per the context's [`GroupBy`], sorted by
/// time lost (unknown last, then by time), then name and shapes.
pub fn rows(
    context: &Context,
    works: &[Result<Work, Unmodelled>],
    dtype_from: &[Option<DtypeFrom>],
    times: &[CallTime],
    links: &Links,
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
        let link_call = links.calls.get(i).copied().flatten();
        let acc = groups
            .entry(key(context, &record.call, work, t, link_call.as_ref()))
            .or_insert_with_key(|(name, shapes, path, _)| Acc {
                row: OpRow {
                    name: name.clone(),
                    shapes: shapes.clone(),
                    model: work.model,
                    engine: work.engine,
                    dtype: work.dtype,
                    dtype_from: dtype_from.get(i).copied().flatten(),
                    path: *path,
                    launches: 0,
                    kernels: 0,
                    time_ns: 0,
                    flops: 0,
                    bytes: 0,
                    bound_ns: None,
                    bound: None,
                    link: link_call.as_ref().map(|l| link_use(work, l, links)),
                },
                ops: BTreeSet::new(),
            });
        let row = &mut acc.row;
        if let (Some(use_), Some(call)) = (row.link.as_mut(), link_call) {
            use_.bus_bytes = use_.bus_bytes.zip(call.bus_bytes).map(|(a, b)| a + b);
        }
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
        if let Some((ns, side)) = row_bound(row, context.roofs) {
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
