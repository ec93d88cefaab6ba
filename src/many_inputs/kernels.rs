//! Per-kernel totals of one timeline: launches and GPU time per (process,
//! device, kernel name), after the `--device`/`--stream` filter. What the
//! `kernels/` Parquet dataset of `gaps` and the cross-input kernel table
//! hold.

use crate::gaps::Scope;
use crate::timeline::{OpKind, Timeline};
use serde::Serialize;
use std::collections::BTreeMap;

/// One kernel name on one (process, device).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct KernelTotal {
    /// Process id.
    pub pid: u32,
    /// Device id.
    pub device: u16,
    /// Kernel name as the export gives it (short name when recorded).
    pub name: String,
    /// Launches.
    pub launches: u64,
    /// Sum of the launches' durations, ns (not a union: concurrent
    /// launches each count).
    pub total_ns: i64,
    /// Shortest launch, ns.
    pub min_ns: i64,
    /// Longest launch, ns.
    pub max_ns: i64,
}

/// Kernel totals sorted by (pid, device, name). Graph rows and copies are
/// not kernels and are left out.
pub fn kernel_totals(t: &Timeline, scope: Scope) -> Vec<KernelTotal> {
    // (pid, device, name) -> (launches, total, min, max).
    type Key = (u32, u16, crate::timeline::NameRef);
    let mut by: BTreeMap<Key, (u64, i64, i64, i64)> = BTreeMap::new();
    for op in t
        .ops
        .iter()
        .filter(|o| o.kind == OpKind::Kernel && scope.selects(o))
    {
        let d = op.end_ns.saturating_sub(op.start_ns);
        let e = by
            .entry((op.pid, op.device, op.name))
            .or_insert((0, 0, i64::MAX, i64::MIN));
        e.0 += 1;
        e.1 = e.1.saturating_add(d);
        e.2 = e.2.min(d);
        e.3 = e.3.max(d);
    }
    let mut out: Vec<KernelTotal> = by
        .into_iter()
        .map(|((pid, device, name), (n, total, min, max))| KernelTotal {
            pid,
            device,
            name: t.name(name).to_string(),
            launches: n,
            total_ns: total,
            min_ns: min,
            max_ns: max,
        })
        .collect();
    // Two name ids can carry the same text: merge them.
    out.sort_by(|a, b| (a.pid, a.device, &a.name).cmp(&(b.pid, b.device, &b.name)));
    out.dedup_by(|b, a| {
        if (a.pid, a.device, &a.name) == (b.pid, b.device, &b.name) {
            a.launches += b.launches;
            a.total_ns = a.total_ns.saturating_add(b.total_ns);
            a.min_ns = a.min_ns.min(b.min_ns);
            a.max_ns = a.max_ns.max(b.max_ns);
            true
        } else {
            false
        }
    });
    out
}
