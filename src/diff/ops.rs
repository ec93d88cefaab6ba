//! What changed, op by op, between two PyTorch traces with shapes: each
//! op name at one set of input shapes (a row of `rooftrace ops`) with its
//! time and its fraction of roof (bound from the op models / time) on each
//! side. The fraction of roof decides, as on ncu rows: a row whose fraction
//! fell by more than the threshold (absolute, `fraction_abs`) is a
//! regression. An unknown fraction (no roof for the op's path, an undecided
//! GPU) never decides: such a row is judged on its time, as kernel rows are.

use super::noise::{Change, Limit, Thresholds, Verdict, Worse};
use super::{JudgedRow, Quantity, Section};
use serde::Serialize;
use std::collections::BTreeMap;

/// One op row of one side, as `rooftrace ops` computed it.
#[derive(Debug, Clone, PartialEq)]
pub struct OpFraction {
    /// The op's name (`aten::addmm`).
    pub name: String,
    /// Its inputs' shapes and types as text (`f32[128], f32[5,128], …`).
    pub shapes: String,
    /// Its calls' time (per call the union of its kernels), ns.
    pub time_ns: i64,
    /// Its bound at the side's roofs, ns (`None`: a roof unknown).
    pub bound_ns: Option<f64>,
}

impl OpFraction {
    /// The rows of an ops report.
    pub fn from_report(r: &crate::ops::OpsReport) -> Vec<OpFraction> {
        r.rows
            .iter()
            .map(|row| OpFraction {
                name: row.name.clone(),
                shapes: row.shapes.clone(),
                time_ns: row.time_ns,
                bound_ns: row.bound_ns,
            })
            .collect()
    }

    fn fraction(&self) -> Option<f64> {
        let bound = self.bound_ns?;
        (self.time_ns > 0).then(|| bound / self.time_ns as f64)
    }
}

/// One op name and shapes before → after.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OpRowDiff {
    /// The op's name.
    pub name: String,
    /// Its input shapes and types.
    pub shapes: String,
    /// The row's verdict: added, removed, else its fraction of roof's.
    pub verdict: Verdict,
    /// Fraction of roof (bound / time; lower is worse; judged on the
    /// absolute change against `fraction_abs`). `null` where a side's
    /// roofs lack what the bound needs.
    pub fraction_of_roof: Change,
    /// The calls' time, ns (higher is worse; against the timeline
    /// thresholds): the verdict when a side's fraction is unknown.
    pub time_ns: Change,
}

impl OpRowDiff {
    /// The row as the tables print it and the gate reads it: its fraction
    /// of roof when both sides know it, else its time.
    pub fn judged(&self) -> JudgedRow<'_> {
        let known = self.fraction_of_roof.delta.is_some();
        JudgedRow {
            section: Section::Ops,
            label: format!(
                "op {} ({}) {}",
                self.name,
                self.shapes,
                if known { "fraction of roof" } else { "time" }
            ),
            verdict: self.verdict,
            change: if known {
                &self.fraction_of_roof
            } else {
                &self.time_ns
            },
            quantity: if known {
                Quantity::Fraction
            } else {
                Quantity::Time
            },
        }
    }
}

/// [`diff`] when both sides carry op rows (PyTorch traces with shapes).
pub fn diff_sides(
    before: Option<&[OpFraction]>,
    after: Option<&[OpFraction]>,
    t: &Thresholds,
) -> Option<Vec<OpRowDiff>> {
    Some(diff(before?, after?, t))
}

/// One row's base and new side (`None`: not in that trace).
type Sides<'a> = (Option<&'a OpFraction>, Option<&'a OpFraction>);

/// Compares the op rows of two traces, matched by (name, shapes);
/// regressions first, then by the larger time, then name and shapes.
pub fn diff(before: &[OpFraction], after: &[OpFraction], t: &Thresholds) -> Vec<OpRowDiff> {
    let key = |o: &OpFraction| (o.name.clone(), o.shapes.clone());
    let mut rows: BTreeMap<(String, String), Sides> = BTreeMap::new();
    for o in before {
        rows.entry(key(o)).or_default().0 = Some(o);
    }
    for o in after {
        rows.entry(key(o)).or_default().1 = Some(o);
    }
    let fraction_limit = Limit {
        rel: 0.0,
        abs: t.fraction_abs,
    };
    let time_limit = Limit {
        rel: t.time_rel,
        abs: t.timeline_abs_ns,
    };
    let mut out: Vec<OpRowDiff> = rows
        .into_iter()
        .map(|((name, shapes), (b, a))| {
            let fraction_of_roof = Change::judge(
                b.and_then(OpFraction::fraction),
                a.and_then(OpFraction::fraction),
                fraction_limit,
                0.0,
                Worse::Lower,
            );
            let time_ns = Change::judge(
                Some(b.map_or(0.0, |o| o.time_ns as f64)),
                Some(a.map_or(0.0, |o| o.time_ns as f64)),
                time_limit,
                0.0,
                Worse::Higher,
            );
            let verdict = match (b, a) {
                (None, _) => Verdict::Added,
                (_, None) => Verdict::Removed,
                // A side without the fraction (no roof for the op's path,
                // an undecided GPU): the time decides, as for kernel rows;
                // an unknown fraction never does.
                _ if fraction_of_roof.delta.is_none() => time_ns.verdict,
                _ => fraction_of_roof.verdict,
            };
            OpRowDiff {
                name,
                shapes,
                verdict,
                fraction_of_roof,
                time_ns,
            }
        })
        .collect();
    out.sort_by(|x, y| {
        let big = |r: &OpRowDiff| {
            r.time_ns
                .before
                .unwrap_or(0.0)
                .max(r.time_ns.after.unwrap_or(0.0))
        };
        (x.verdict != Verdict::Regression)
            .cmp(&(y.verdict != Verdict::Regression))
            .then(big(y).total_cmp(&big(x)))
            .then_with(|| (&x.name, &x.shapes).cmp(&(&y.name, &y.shapes)))
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(name: &str, time_ns: i64, bound_ns: Option<f64>) -> OpFraction {
        OpFraction {
            name: name.into(),
            shapes: "f32[4,4], f32[4,4]".into(),
            time_ns,
            bound_ns,
        }
    }

    #[test]
    fn a_fall_in_the_fraction_of_roof_beyond_the_threshold_is_a_regression() {
        let t = Thresholds::default(); // fraction ±0.02
                                       // mm: bound 500 ns, 1000 → 2000 ns: 0.50 → 0.25, down 0.25.
                                       // add: 0.50 → 0.49 (1000 → 1020 ns), within 0.02.
                                       // relu: bound unknown on the new side: its time decides (the same).
                                       // sub: no roofs on either side, 100 → 200 µs: a time regression
                                       // (beyond 5 % and 10 µs, the timeline thresholds).
        let before = [
            row("aten::mm", 1000, Some(500.0)),
            row("aten::add", 1000, Some(500.0)),
            row("aten::relu", 1000, Some(100.0)),
            row("aten::gone", 10, Some(1.0)),
            row("aten::sub", 100_000, None),
        ];
        let after = [
            row("aten::mm", 2000, Some(500.0)),
            row("aten::add", 1020, Some(500.0)),
            row("aten::relu", 1000, None),
            row("aten::sub", 200_000, None),
        ];
        let d = diff(&before, &after, &t);
        let verdict = |n: &str| d.iter().find(|r| r.name == n).unwrap().verdict;
        // Regressions first, the longer first.
        let first: Vec<&str> = d.iter().take(2).map(|r| r.name.as_str()).collect();
        assert_eq!(first, ["aten::sub", "aten::mm"]);
        assert_eq!(verdict("aten::mm"), Verdict::Regression);
        assert_eq!(d[1].fraction_of_roof.delta, Some(-0.25));
        assert_eq!(verdict("aten::add"), Verdict::Unchanged);
        assert_eq!(verdict("aten::relu"), Verdict::Unchanged);
        assert_eq!(verdict("aten::sub"), Verdict::Regression);
        let sub = d.iter().find(|r| r.name == "aten::sub").unwrap();
        assert_eq!(sub.judged().quantity, Quantity::Time);
        assert_eq!(verdict("aten::gone"), Verdict::Removed);
    }
}
