//! When a change counts: the thresholds (defaults documented in
//! docs/diff.md), the spread of repeated launches or NVTX instances, and the
//! verdict of one before → after pair.
//!
//! A change is a regression or an improvement only when it is *beyond the
//! threshold* (strictly: `|after − before| > abs` and `|after − before| /
//! |before| > rel`) **and** *beyond the spread* (`|after − before| >
//! spread`, where the spread is the larger relative spread `(p90 − p10) /
//! p50` of the two sides' repeated samples, times `|before|`). Beyond the
//! threshold but within the spread is *inconclusive*; within the threshold
//! is *unchanged*.

use serde::Serialize;

/// Default relative threshold on times (kernel duration, idle, NVTX range
/// medians): 5 %, above the 1–3 % run-to-run jitter of kernel durations.
pub const DEFAULT_TIME_REL: f64 = 0.05;
/// Default absolute floor on kernel times: 100 ns (about the resolution of
/// `gpu__time_duration` on short kernels).
pub const DEFAULT_KERNEL_ABS_NS: f64 = 100.0;
/// Default absolute floor on timeline times (span, busy, idle, classes,
/// gaps, NVTX ranges): 10 µs.
pub const DEFAULT_TIMELINE_ABS_NS: f64 = 10_000.0;
/// Default relative threshold on DRAM bytes and FLOPs: 2 % (DRAM counters
/// vary slightly with cache state; FLOP counts do not).
pub const DEFAULT_BYTES_REL: f64 = 0.02;
/// Default absolute threshold on the fraction of roof: 0.02 (2 points).
pub const DEFAULT_FRACTION_ABS: f64 = 0.02;

/// The thresholds a diff judges changes with.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Thresholds {
    /// Relative threshold on times (kernel duration, timeline times).
    pub time_rel: f64,
    /// Absolute floor on kernel times, ns.
    pub kernel_abs_ns: f64,
    /// Absolute floor on timeline times, ns.
    pub timeline_abs_ns: f64,
    /// Relative threshold on DRAM bytes and FLOPs.
    pub bytes_rel: f64,
    /// Absolute threshold on the fraction of roof.
    pub fraction_abs: f64,
}

impl Default for Thresholds {
    fn default() -> Self {
        Thresholds {
            time_rel: DEFAULT_TIME_REL,
            kernel_abs_ns: DEFAULT_KERNEL_ABS_NS,
            timeline_abs_ns: DEFAULT_TIMELINE_ABS_NS,
            bytes_rel: DEFAULT_BYTES_REL,
            fraction_abs: DEFAULT_FRACTION_ABS,
        }
    }
}

/// What a row (or one metric of it) did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Worse, beyond threshold and spread.
    Regression,
    /// Better, beyond threshold and spread.
    Improvement,
    /// Beyond the threshold, within the spread of repeated samples (or a
    /// side does not know the figure).
    Inconclusive,
    /// Within the threshold.
    Unchanged,
    /// Beyond threshold and spread for a figure that is neither better nor
    /// worse when it moves (FLOPs, intensity, busy time of one kind).
    Changed,
    /// Only in the new run.
    Added,
    /// Only in the base run.
    Removed,
}

impl Verdict {
    /// The snake_case key used in JSON and CSV.
    pub fn key(self) -> &'static str {
        match self {
            Verdict::Regression => "regression",
            Verdict::Improvement => "improvement",
            Verdict::Inconclusive => "inconclusive",
            Verdict::Unchanged => "unchanged",
            Verdict::Changed => "changed",
            Verdict::Added => "added",
            Verdict::Removed => "removed",
        }
    }
}

/// Which direction is worse for a metric.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Worse {
    /// More is worse (time, bytes, idle).
    Higher,
    /// Less is worse (fraction of roof).
    Lower,
    /// Neither (FLOPs, intensity): reported as [`Verdict::Changed`], never
    /// judged better or worse.
    Neither,
}

/// A threshold: a change must exceed both parts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Limit {
    /// Relative part, as a fraction of `|before|` (0 = none).
    pub rel: f64,
    /// Absolute part, in the metric's unit (0 = none).
    pub abs: f64,
}

/// One metric before → after, and its verdict.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Change {
    /// Base value (`null`: not known on that side).
    pub before: Option<f64>,
    /// New value.
    pub after: Option<f64>,
    /// `after − before`.
    pub delta: Option<f64>,
    /// `(after − before) / |before|` (`null` when `before` is 0 or unknown).
    pub rel: Option<f64>,
    /// The spread the change had to beat, in the metric's unit (0 when
    /// neither side has repeated samples).
    pub spread: f64,
    /// The verdict.
    pub verdict: Verdict,
}

impl Change {
    /// Judges `before → after` against `limit` and the larger of the two
    /// sides' relative spreads (`spread_rel`, e.g. from [`spread_rel`]).
    pub fn judge(
        before: Option<f64>,
        after: Option<f64>,
        limit: Limit,
        spread_rel: f64,
        worse: Worse,
    ) -> Change {
        let (Some(b), Some(a)) = (before, after) else {
            return Change {
                before,
                after,
                delta: None,
                rel: None,
                spread: 0.0,
                verdict: Verdict::Inconclusive,
            };
        };
        let delta = a - b;
        let rel = (b != 0.0).then(|| delta / b.abs());
        let spread = spread_rel * b.abs();
        let verdict = if !beyond(delta, rel, limit) {
            Verdict::Unchanged
        } else if delta.abs() <= spread {
            Verdict::Inconclusive
        } else {
            match (worse, delta > 0.0) {
                (Worse::Higher, true) | (Worse::Lower, false) => Verdict::Regression,
                (Worse::Higher, false) | (Worse::Lower, true) => Verdict::Improvement,
                (Worse::Neither, _) => Verdict::Changed,
            }
        };
        Change {
            before,
            after,
            delta: Some(delta),
            rel,
            spread,
            verdict,
        }
    }
}

/// True when `delta` (with `rel = delta / |before|`, `None` from a zero
/// base) exceeds both parts of `limit`, strictly.
pub fn beyond(delta: f64, rel: Option<f64>, limit: Limit) -> bool {
    let abs_ok = delta.abs() > limit.abs;
    let rel_ok = match rel {
        Some(r) => r.abs() > limit.rel,
        // From zero, any nonzero change is infinitely large in relative terms.
        None => delta != 0.0,
    };
    abs_ok && rel_ok
}

/// Nearest-rank percentile `p` (0–1) of sorted `v`.
pub fn nearest_rank(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let n = sorted.len();
    let rank = ((p * n as f64).ceil() as usize).clamp(1, n);
    sorted[rank - 1]
}

/// Relative spread of repeated samples, `(p90 − p10) / |p50|`
/// (nearest rank), or 0 with fewer than two samples or a zero median.
/// Sorts `v`.
pub fn spread_rel(v: &mut [f64]) -> f64 {
    if v.len() < 2 {
        return 0.0;
    }
    v.sort_by(f64::total_cmp);
    let med = nearest_rank(v, 0.5);
    if med == 0.0 || !med.is_finite() {
        return 0.0;
    }
    let s = (nearest_rank(v, 0.9) - nearest_rank(v, 0.1)) / med.abs();
    if s.is_finite() {
        s
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: Limit = Limit {
        rel: 0.05,
        abs: 100.0,
    };

    #[test]
    fn threshold_edges_are_strict() {
        // 1000 -> 1050 ns: +5.0 % exactly, not beyond 5 %.
        let c = Change::judge(Some(1000.0), Some(1050.0), T, 0.0, Worse::Higher);
        assert_eq!(c.verdict, Verdict::Unchanged);
        // 1000 -> 1051 ns: +5.1 % > 5 % and 51 ns ... but 51 ns <= 100 ns floor.
        let c = Change::judge(Some(1000.0), Some(1051.0), T, 0.0, Worse::Higher);
        assert_eq!(c.verdict, Verdict::Unchanged);
        // 10000 -> 10501 ns: +5.01 % and 501 ns > 100 ns.
        let c = Change::judge(Some(10000.0), Some(10501.0), T, 0.0, Worse::Higher);
        assert_eq!(c.verdict, Verdict::Regression);
        let c = Change::judge(Some(10000.0), Some(9499.0), T, 0.0, Worse::Higher);
        assert_eq!(c.verdict, Verdict::Improvement);
    }

    #[test]
    fn spread_edges_make_changes_inconclusive() {
        // +20 % against a 20 % spread: within it (<=) -> inconclusive.
        let c = Change::judge(Some(10000.0), Some(12000.0), T, 0.20, Worse::Higher);
        assert_eq!(c.verdict, Verdict::Inconclusive);
        assert_eq!(c.spread, 2000.0);
        // against a 19.99 % spread: beyond it.
        let c = Change::judge(Some(10000.0), Some(12000.0), T, 0.1999, Worse::Higher);
        assert_eq!(c.verdict, Verdict::Regression);
    }

    #[test]
    fn lower_is_worse_and_unknown_is_inconclusive() {
        let f = Limit {
            rel: 0.0,
            abs: 0.02,
        };
        let c = Change::judge(Some(0.50), Some(0.47), f, 0.0, Worse::Lower);
        assert_eq!(c.verdict, Verdict::Regression);
        let c = Change::judge(Some(0.50), Some(0.51), f, 0.0, Worse::Lower);
        assert_eq!(c.verdict, Verdict::Unchanged);
        let c = Change::judge(None, Some(0.51), f, 0.0, Worse::Lower);
        assert_eq!(c.verdict, Verdict::Inconclusive);
        assert_eq!(c.delta, None);
    }

    #[test]
    fn from_zero_any_change_beyond_the_floor_counts() {
        let c = Change::judge(Some(0.0), Some(20_000.0), T, 0.0, Worse::Higher);
        assert_eq!(c.verdict, Verdict::Regression);
        assert_eq!(c.rel, None);
    }

    #[test]
    fn spread_is_p90_minus_p10_over_median() {
        // 10 samples 100..=109: p10 = 100 (rank 1), p50 = 104 (rank 5),
        // p90 = 108 (rank 9): (108 - 100) / 104.
        let mut v: Vec<f64> = (100..110).rev().map(f64::from).collect();
        assert_eq!(spread_rel(&mut v), 8.0 / 104.0);
        // two samples: (max - min) / min (rank 1 is the median of two).
        assert_eq!(spread_rel(&mut [110.0, 100.0]), 10.0 / 100.0);
        assert_eq!(spread_rel(&mut [100.0]), 0.0);
    }
}
