//! Kernels before → after: two [`NcuSide`]s, kernels matched by normalised
//! name ([`super::name`]) and occurrence, every figure judged
//! ([`super::noise`]), totals.

use super::ncu_side::{KernelSample, NcuSide};
use super::noise::{spread_rel, Change, Limit, Thresholds, Verdict, Worse};
use super::{JudgedRow, Quantity, Section};
use crate::roofs::{ComputePath, Roofs};
use serde::Serialize;
use std::collections::HashMap;

/// One matched (or one-sided) kernel row.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct KernelDiff {
    /// Kernel name as printed (new side's, else base's).
    pub name: String,
    /// Matching key.
    pub key: String,
    /// 1-based occurrence of the key (launch order within each side).
    pub occurrence: u64,
    /// The row's verdict: its time's, or added/removed.
    pub verdict: Verdict,
    /// Duration, ns.
    pub duration_ns: Change,
    /// DRAM bytes.
    pub dram_bytes: Change,
    /// FLOPs (`null` sides: no FLOP counter).
    pub flop: Change,
    /// FLOP per DRAM byte.
    pub intensity: Change,
    /// Fraction of the roof (lower is worse).
    pub fraction_of_roof: Change,
    /// Time lost against the roof, ns.
    pub time_lost_ns: Change,
    /// Why, in one phrase that names what to look at.
    pub why: String,
    /// Base point on the roofline (intensity, FLOP/s), for the plot.
    #[serde(skip)]
    pub point_before: Option<(f64, f64)>,
    /// New point on the roofline.
    #[serde(skip)]
    pub point_after: Option<(f64, f64)>,
    /// Compute path of the point.
    #[serde(skip)]
    pub path: Option<ComputePath>,
}

/// Sums over every row of each side.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NcuTotals {
    /// Rows (launches) per side.
    pub rows_before: u64,
    /// Rows in the new run.
    pub rows_after: u64,
    /// Total kernel time, ns.
    pub duration_ns: Change,
    /// Total DRAM bytes (unknown when a row's is).
    pub dram_bytes: Change,
    /// Total FLOPs (unknown when a row's is).
    pub flop: Change,
    /// Sum of positive time lost, ns.
    pub time_lost_ns: Change,
    /// Time-weighted fraction of roof, `Σ T* / Σ T`.
    pub fraction_of_roof: Change,
}

/// The kernel comparison.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NcuDiff {
    /// GPU of the base side's roofs.
    pub gpu_before: Option<String>,
    /// GPU of the new side's roofs.
    pub gpu_after: Option<String>,
    /// True when both sides were analysed against the same roofs.
    pub same_roofs: bool,
    /// Totals.
    pub totals: NcuTotals,
    /// Rows: regressions, improvements, inconclusive, added, removed,
    /// unchanged; within each, the largest time change first.
    pub kernels: Vec<KernelDiff>,
    /// The roofs to draw (the new side's).
    #[serde(skip)]
    pub roofs: Option<Roofs>,
}

impl NcuTotals {
    /// The totals rows as the table prints them: (label, change, what it measures).
    pub fn rows(&self) -> [(&'static str, &Change, Quantity); 5] {
        [
            ("kernel time", &self.duration_ns, Quantity::Time),
            ("DRAM bytes", &self.dram_bytes, Quantity::Bytes),
            ("FLOPs", &self.flop, Quantity::Flop),
            ("time lost", &self.time_lost_ns, Quantity::Time),
            (
                "fraction of roof (time-weighted)",
                &self.fraction_of_roof,
                Quantity::Fraction,
            ),
        ]
    }

    fn changes_mut(&mut self) -> [&mut Change; 5] {
        [
            &mut self.duration_ns,
            &mut self.dram_bytes,
            &mut self.flop,
            &mut self.time_lost_ns,
            &mut self.fraction_of_roof,
        ]
    }
}

impl NcuDiff {
    /// Every kernel row (its verdict, decided by its time), then every
    /// totals row (its figure's verdict).
    pub fn judged_rows(&self) -> Vec<JudgedRow<'_>> {
        let kernels = self.kernels.iter().map(|k| JudgedRow {
            section: Section::Kernels,
            label: format!("{} #{}", k.name, k.occurrence),
            verdict: k.verdict,
            change: &k.duration_ns,
            quantity: Quantity::Time,
        });
        let totals = self
            .totals
            .rows()
            .into_iter()
            .map(|(label, change, quantity)| JudgedRow {
                section: Section::Totals,
                label: format!("total {label}"),
                verdict: change.verdict,
                change,
                quantity,
            });
        kernels.chain(totals).collect()
    }

    /// Most of the work is unmatched: the totals sum different work on
    /// each side, so a move in them is neither a regression nor an
    /// improvement but inconclusive. Matched kernel rows keep their verdicts.
    pub fn mark_unmatched(&mut self) {
        for change in self.totals.changes_mut() {
            if matches!(change.verdict, Verdict::Regression | Verdict::Improvement) {
                change.verdict = Verdict::Inconclusive;
            }
        }
    }
}

/// Relative spreads `(p90 − p10) / p50` of one key's repeated launches.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct Spread {
    /// Of the duration.
    time: f64,
    /// Of the DRAM bytes.
    bytes: f64,
    /// Of the fraction of roof.
    fraction: f64,
}

impl Spread {
    /// The larger spread of each figure: a change must beat both sides'.
    fn max(self, other: Spread) -> Spread {
        Spread {
            time: self.time.max(other.time),
            bytes: self.bytes.max(other.bytes),
            fraction: self.fraction.max(other.fraction),
        }
    }
}

/// Per key: the side's rows in occurrence order and the spreads over them.
#[derive(Default)]
struct Group {
    rows: Vec<usize>,
    spread: Spread,
}

fn groups(side: &NcuSide) -> HashMap<&str, Group> {
    let mut by_key: HashMap<&str, Group> = HashMap::new();
    for (i, k) in side.kernels.iter().enumerate() {
        by_key.entry(k.key.as_str()).or_default().rows.push(i);
    }
    let samples = &side.kernels;
    for group in by_key.values_mut() {
        group
            .rows
            .sort_by_key(|&i| (samples[i].process_id.unwrap_or(0), samples[i].id, i));
        let spread_of = |f: &dyn Fn(&KernelSample) -> Option<f64>| -> f64 {
            let mut v: Vec<f64> = group.rows.iter().filter_map(|&i| f(&samples[i])).collect();
            spread_rel(&mut v)
        };
        group.spread = Spread {
            time: spread_of(&|k| Some(k.duration_ns)),
            bytes: spread_of(&|k| k.dram_bytes),
            fraction: spread_of(&|k| k.fraction_of_roof),
        };
    }
    by_key
}

/// Compares two sides.
pub fn diff(base: &NcuSide, new: &NcuSide, t: &Thresholds) -> NcuDiff {
    let groups_before = groups(base);
    let groups_after = groups(new);
    let mut keys: Vec<&str> = groups_before
        .keys()
        .chain(groups_after.keys())
        .copied()
        .collect();
    keys.sort_unstable();
    keys.dedup();
    let empty = Group::default();
    let mut kernels = Vec::new();
    for key in keys {
        let group_before = groups_before.get(key).unwrap_or(&empty);
        let group_after = groups_after.get(key).unwrap_or(&empty);
        let spread = group_before.spread.max(group_after.spread);
        for occurrence in 0..group_before.rows.len().max(group_after.rows.len()) {
            let before = group_before.rows.get(occurrence).map(|&i| &base.kernels[i]);
            let after = group_after.rows.get(occurrence).map(|&i| &new.kernels[i]);
            kernels.push(row(before, after, occurrence as u64 + 1, spread, t));
        }
    }
    kernels.sort_by(|x, y| {
        rank(x.verdict)
            .cmp(&rank(y.verdict))
            .then(abs_delta(y).total_cmp(&abs_delta(x)))
            .then_with(|| x.key.cmp(&y.key))
            .then(x.occurrence.cmp(&y.occurrence))
    });
    NcuDiff {
        gpu_before: base.gpu.clone(),
        gpu_after: new.gpu.clone(),
        same_roofs: base.same_roofs(new),
        totals: totals(base, new, t),
        kernels,
        roofs: new.roofs.clone().or_else(|| base.roofs.clone()),
    }
}

/// Display order of verdicts.
fn rank(v: Verdict) -> u8 {
    match v {
        Verdict::Regression => 0,
        Verdict::Improvement => 1,
        Verdict::Inconclusive => 2,
        Verdict::Added => 3,
        Verdict::Removed => 4,
        Verdict::Changed => 5,
        Verdict::Unchanged => 6,
    }
}

fn abs_delta(k: &KernelDiff) -> f64 {
    match (k.duration_ns.before, k.duration_ns.after) {
        (Some(b), Some(a)) => (a - b).abs(),
        (b, a) => b.or(a).unwrap_or(0.0),
    }
}

fn time_limit(t: &Thresholds) -> Limit {
    Limit {
        rel: t.time_rel,
        abs: t.kernel_abs_ns,
    }
}

/// One row: every figure judged; a one-sided row is added or removed.
fn row(
    before: Option<&KernelSample>,
    after: Option<&KernelSample>,
    occurrence: u64,
    spread: Spread,
    t: &Thresholds,
) -> KernelDiff {
    let get = |f: fn(&KernelSample) -> Option<f64>| (before.and_then(f), after.and_then(f));
    let judge = |f: fn(&KernelSample) -> Option<f64>, limit, spread, worse| {
        let (b, a) = get(f);
        Change::judge(b, a, limit, spread, worse)
    };
    let bytes_limit = Limit {
        rel: t.bytes_rel,
        abs: 0.0,
    };
    let duration_ns = judge(
        |k| Some(k.duration_ns),
        time_limit(t),
        spread.time,
        Worse::Higher,
    );
    let dram_bytes = judge(|k| k.dram_bytes, bytes_limit, spread.bytes, Worse::Higher);
    let flop = judge(|k| k.flop, bytes_limit, 0.0, Worse::Neither);
    let intensity = judge(|k| k.intensity, bytes_limit, 0.0, Worse::Neither);
    let fraction_of_roof = judge(
        |k| k.fraction_of_roof,
        Limit {
            rel: 0.0,
            abs: t.fraction_abs,
        },
        spread.fraction,
        Worse::Lower,
    );
    let time_lost_ns = judge(
        |k| k.time_lost_ns,
        time_limit(t),
        spread.time,
        Worse::Higher,
    );
    let verdict = match (before, after) {
        (Some(_), None) => Verdict::Removed,
        (None, Some(_)) => Verdict::Added,
        _ => duration_ns.verdict,
    };
    let mut d = KernelDiff {
        name: after.or(before).map(|k| k.name.clone()).unwrap_or_default(),
        key: after.or(before).map(|k| k.key.clone()).unwrap_or_default(),
        occurrence,
        verdict,
        duration_ns,
        dram_bytes,
        flop,
        intensity,
        fraction_of_roof,
        time_lost_ns,
        why: String::new(),
        point_before: before.and_then(point),
        point_after: after.and_then(point),
        path: after.or(before).and_then(|k| k.path),
    };
    d.why = why(&d);
    d
}

fn point(k: &KernelSample) -> Option<(f64, f64)> {
    let x = k.intensity.filter(|x| *x > 0.0)?;
    let y = k.achieved_flop_per_s.filter(|y| *y > 0.0)?;
    Some((x, y))
}

fn pct(c: &Change) -> String {
    match c.rel {
        Some(r) => format!("{:+.1} %", r * 100.0),
        None => "new".to_string(),
    }
}

/// What moved with the time, most telling first: more bytes, more FLOPs,
/// or the same work further from (closer to) the roof.
fn why(d: &KernelDiff) -> String {
    match d.verdict {
        Verdict::Added => return "only in the new run".to_string(),
        Verdict::Removed => return "only in the base run".to_string(),
        Verdict::Unchanged | Verdict::Changed => return String::new(),
        Verdict::Inconclusive => {
            return if d.duration_ns.spread > 0.0 {
                format!(
                    "time {} is within the spread of repeated launches (±{})",
                    pct(&d.duration_ns),
                    crate::units::duration_ns(d.duration_ns.spread)
                )
            } else {
                "a side lacks the figure".to_string()
            }
        }
        Verdict::Regression | Verdict::Improvement => {}
    }
    let moved = |c: &Change| matches!(c.verdict, Verdict::Regression | Verdict::Improvement);
    let flop_moved = d.flop.delta.is_some() && d.flop.verdict != Verdict::Unchanged;
    if moved(&d.dram_bytes) {
        format!(
            "DRAM bytes {}: the kernel moves {} data (layout, fusion, caching)",
            pct(&d.dram_bytes),
            if d.dram_bytes.delta.unwrap_or(0.0) > 0.0 {
                "more"
            } else {
                "less"
            }
        )
    } else if flop_moved {
        format!("FLOPs {}: the kernel does different work", pct(&d.flop))
    } else {
        let frac = match (d.fraction_of_roof.before, d.fraction_of_roof.after) {
            (Some(b), Some(a)) => format!(", fraction of roof {b:.3} → {a:.3}"),
            _ => String::new(),
        };
        let dir = if d.verdict == Verdict::Regression {
            "further below"
        } else {
            "closer to"
        };
        format!(
            "same bytes{}{frac}: runs {dir} its roof (compare occupancy and stall reasons, `ncu --set full`)",
            if d.flop.delta.is_some() {
                " and FLOPs"
            } else {
                ""
            }
        )
    }
}

/// Sum of `f` over the rows, `None` when any row does not know it.
fn sum(side: &NcuSide, f: impl Fn(&KernelSample) -> Option<f64>) -> Option<f64> {
    side.kernels.iter().map(f).sum()
}

fn totals(base: &NcuSide, new: &NcuSide, t: &Thresholds) -> NcuTotals {
    let both = |f: &dyn Fn(&KernelSample) -> Option<f64>| (sum(base, f), sum(new, f));
    let judge =
        |(b, a): (Option<f64>, Option<f64>), limit, worse| Change::judge(b, a, limit, 0.0, worse);
    let bytes_limit = Limit {
        rel: t.bytes_rel,
        abs: 0.0,
    };
    // Σ T* / Σ T with T* = fraction × T.
    let frac = |s: &NcuSide| {
        let bound = sum(s, |k| k.fraction_of_roof.map(|f| f * k.duration_ns))?;
        let time = sum(s, |k| Some(k.duration_ns))?;
        (time > 0.0).then(|| bound / time)
    };
    NcuTotals {
        rows_before: base.kernels.len() as u64,
        rows_after: new.kernels.len() as u64,
        duration_ns: judge(both(&|k| Some(k.duration_ns)), time_limit(t), Worse::Higher),
        dram_bytes: judge(both(&|k| k.dram_bytes), bytes_limit, Worse::Higher),
        flop: judge(both(&|k| k.flop), bytes_limit, Worse::Neither),
        time_lost_ns: judge(
            both(&|k| k.time_lost_ns.map(|x| x.max(0.0))),
            time_limit(t),
            Worse::Higher,
        ),
        fraction_of_roof: judge(
            (frac(base), frac(new)),
            Limit {
                rel: 0.0,
                abs: t.fraction_abs,
            },
            Worse::Lower,
        ),
    }
}
