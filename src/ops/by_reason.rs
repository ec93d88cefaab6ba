//! Kernels grouped by why no model bounds them: per reason a kernel
//! count, a time and the ops that launched most of that time, most time
//! first. The one grouping the ops report's unmodelled rows and budget's
//! kernels without counters both read. A leaf: it imports nothing of ours.

use std::collections::BTreeMap;

/// Ops named per reason.
pub const TOP_OPS: usize = 5;

/// One reason's kernels as they are added.
#[derive(Debug, Default)]
struct Group {
    kernels: u64,
    time_ns: i64,
    ops: BTreeMap<String, i64>,
}

/// Kernels by reason `R` (its order breaks ties in time).
#[derive(Debug)]
pub struct ByReason<R> {
    by: BTreeMap<R, Group>,
}

impl<R: Ord> Default for ByReason<R> {
    fn default() -> Self {
        ByReason {
            by: BTreeMap::new(),
        }
    }
}

/// One reason's kernels, grouped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReasonRow<R> {
    /// Why.
    pub reason: R,
    /// Kernels.
    pub kernels: u64,
    /// Their time, ns.
    pub time_ns: i64,
    /// The ops with the most of that time (at most [`TOP_OPS`]), most
    /// first then by name: name and ns.
    pub top_ops: Vec<(String, i64)>,
}

impl<R: Ord> ByReason<R> {
    /// Adds `kernels` kernels of `time_ns` for `reason`, launched by the
    /// op named `op` when an op holds them.
    pub fn add(&mut self, reason: R, kernels: u64, time_ns: i64, op: Option<&str>) {
        let group = self.by.entry(reason).or_default();
        group.kernels += kernels;
        group.time_ns += time_ns;
        if let Some(op) = op {
            match group.ops.get_mut(op) {
                Some(t) => *t += time_ns,
                None => {
                    group.ops.insert(op.to_string(), time_ns);
                }
            }
        }
    }

    /// The rows, most time first, then by reason.
    pub fn rows(self) -> Vec<ReasonRow<R>> {
        let mut rows: Vec<ReasonRow<R>> = self
            .by
            .into_iter()
            .map(|(reason, g)| {
                let mut top_ops: Vec<(String, i64)> = g.ops.into_iter().collect();
                top_ops.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
                top_ops.truncate(TOP_OPS);
                ReasonRow {
                    reason,
                    kernels: g.kernels,
                    time_ns: g.time_ns,
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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reasons_by_time_then_reason_and_ops_by_time_then_name_at_most_five() {
        let mut by = ByReason::default();
        // Reason 2: 3 kernels, 30 ns; reason 1: 2 kernels, 30 ns (a tie
        // in time: reason 1 first); reason 0: 1 kernel, 5 ns.
        by.add(2u8, 1, 10, Some("b"));
        by.add(2, 2, 20, Some("a"));
        by.add(1, 2, 30, None);
        by.add(0, 1, 5, Some("z"));
        // Six ops under reason 0, each 1 ns more than the one before it;
        // "z" gets 5 more ns (10 in all): the five largest are kept.
        for (i, op) in ["o1", "o2", "o3", "o4", "o5", "o6"].iter().enumerate() {
            by.add(0, 1, i as i64 + 1, Some(op));
        }
        by.add(0, 0, 5, Some("z"));
        let rows = by.rows();
        let order: Vec<(u8, u64, i64)> = rows
            .iter()
            .map(|r| (r.reason, r.kernels, r.time_ns))
            .collect();
        // Reason 0: 1 + 6 kernels, 5 + 21 + 5 = 31 ns: first.
        assert_eq!(order, vec![(0, 7, 31), (1, 2, 30), (2, 3, 30)]);
        assert_eq!(
            rows[0].top_ops,
            vec![
                ("z".to_string(), 10),
                ("o6".to_string(), 6),
                ("o5".to_string(), 5),
                ("o4".to_string(), 4),
                ("o3".to_string(), 3)
            ]
        );
        assert!(rows[1].top_ops.is_empty());
        assert_eq!(
            rows[2].top_ops,
            vec![("a".to_string(), 20), ("b".to_string(), 10)]
        );
    }
}
