//! Which stretch of the timeline to draw, decided in this one place:
//! `--window` (relative to the first GPU op), else the first
//! [`TIMELINE_NVTX_INSTANCES`] `--nvtx` instances projected on the GPU, else
//! the stretch holding the most idle time of the largest class (when the
//! report kept its gaps), else the busiest stretch by kernel time
//! ([`busiest_window`], a pure function over intervals).

use super::model::GapReport;
use crate::error::InputError;
use crate::timeline::{OpKind, Timeline};
use crate::units::duration_ns;

/// NVTX range instances the default timeline window shows with `--nvtx`.
pub const TIMELINE_NVTX_INSTANCES: usize = 3;

/// How the time window is chosen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WindowChoice {
    /// Exactly this window, in ns on the trace clock.
    Explicit {
        /// Window start, in ns.
        start_ns: i64,
        /// Window end, in ns.
        end_ns: i64,
    },
    /// From the start of the first to the end of the `count`-th NVTX range
    /// instance (by start time), e.g. the first few training steps.
    NvtxRanges {
        /// NVTX range instances as (start_ns, end_ns).
        ranges: Vec<(i64, i64)>,
        /// How many to show.
        count: usize,
        /// What the input calls one (`NVTX range`, a PyTorch trace's
        /// `PyTorch range`: [`super::range_words`]).
        called: &'static str,
    },
    /// The stretch of `width_ns` where kernels (or, with no kernels, all
    /// ops) keep the GPU busiest; `None` picks a width holding about
    /// [`BUSIEST_TARGET_OPS`] of them on average.
    Busiest {
        /// Window width, in ns.
        width_ns: Option<i64>,
    },
    /// A window the caller already chose, with the phrase the subtitle gives
    /// for it (e.g. `busiest stretch`, when the caller resolved
    /// [`WindowChoice::Busiest`] itself with [`choose_window`] to keep only
    /// the lanes active in the window).
    Chosen {
        /// Window start, in ns.
        start_ns: i64,
        /// Window end, in ns.
        end_ns: i64,
        /// How it was chosen, e.g. `busiest stretch`.
        how: String,
    },
}

/// Ops per window the default busiest-stretch width aims at.
pub const BUSIEST_TARGET_OPS: usize = 150;

/// The timeline window of a `gaps` run: `window_rel_ns` (`--window`,
/// relative to the first GPU op of the trace), else the first
/// [`TIMELINE_NVTX_INSTANCES`] `--nvtx` instances (those that launched GPU
/// work, else every instance: a broad regex also matches host-only ranges
/// such as `MPI_Init`), else the stretch holding the most idle time of the
/// largest class (when the report kept its gaps), else the busiest stretch
/// of the ops in the report's `--device`/`--stream` scope. Returns the
/// window and how it was chosen.
pub fn timeline_window(
    tl: &Timeline,
    report: &GapReport,
    window_rel_ns: Option<(i64, i64)>,
) -> Result<((i64, i64), String), InputError> {
    let first_op_ns = first_op_ns(tl);
    let nvtx: Option<Vec<(i64, i64)>> = report.ranges.as_ref().map(|r| {
        let projected = r.instances.iter().any(|i| i.projected);
        r.instances
            .iter()
            .filter(|i| i.projected || !projected)
            .map(|i| (i.gpu_start_ns, i.gpu_end_ns))
            .collect()
    });
    let choice = match (window_rel_ns, nvtx) {
        (Some((a, b)), _) => WindowChoice::Chosen {
            start_ns: first_op_ns + a,
            end_ns: first_op_ns + b,
            how: format!(
                "--window {}..{} after the first GPU op",
                duration_ns(a as f64),
                duration_ns(b as f64)
            ),
        },
        (None, Some(ranges)) if !ranges.is_empty() => WindowChoice::NvtxRanges {
            ranges,
            count: TIMELINE_NVTX_INSTANCES,
            called: super::range_words(report.input.source.tool()).one,
        },
        _ => WindowChoice::Busiest { width_ns: None },
    };
    let scope = report.settings.scope();
    let ops: Vec<(i64, i64, OpKind)> = tl
        .ops
        .iter()
        .filter(|o| scope.selects(o))
        .map(|o| (o.start_ns, o.end_ns, o.kind))
        .collect();
    let choice = match choice {
        WindowChoice::Busiest { .. } => idle_window(report, &ops).unwrap_or(choice),
        other => other,
    };
    choose_window(&choice, &ops).ok_or_else(|| {
        InputError::new(match window_rel_ns {
            Some(_) => "--window: the end must be after the start".to_string(),
            None => {
                "no GPU op with a positive duration to draw (check --device/--stream)".to_string()
            }
        })
    })
}

/// The default window when the report kept its gaps: the stretch holding
/// the most idle time of the largest class (an all-busy stretch shows
/// nothing of why the GPU idled). Its width is the busiest-stretch width
/// ([`default_busy_width`]) or, when the longest gap of that class is
/// longer, 5/4 of that gap, so the ops on both sides of it are drawn.
fn idle_window(report: &GapReport, ops: &[(i64, i64, OpKind)]) -> Option<WindowChoice> {
    let gaps = report.gaps.as_ref()?;
    let mut totals = super::ClassTotals::default();
    for d in &report.devices {
        totals.merge(&d.classes);
    }
    let class = totals.dominant()?;
    let idle: Vec<(i64, i64)> = gaps
        .iter()
        .filter(|g| g.class == class)
        .map(|g| (g.start_ns, g.end_ns))
        .collect();
    let longest = idle.iter().map(|g| g.1 - g.0).max()?;
    let is_kernel = |k: OpKind| matches!(k, OpKind::Kernel | OpKind::Graph);
    let kernels = ops.iter().any(|o| is_kernel(o.2));
    let busy: Vec<(i64, i64)> = ops
        .iter()
        .filter(|o| !kernels || is_kernel(o.2))
        .map(|o| (o.0, o.1))
        .collect();
    let width = default_busy_width(&busy).max(longest.saturating_add(longest / 4));
    let (start_ns, end_ns) = busiest_window(&idle, width)?;
    Some(WindowChoice::Chosen {
        start_ns,
        end_ns,
        how: format!("stretch with the most {} idle", class.label()),
    })
}

/// Start of the first GPU op of the trace (any device or stream), ns; 0
/// without ops. `--window` is relative to it.
pub fn first_op_ns(tl: &Timeline) -> i64 {
    tl.ops.iter().map(|o| o.start_ns).min().unwrap_or(0)
}

/// The window `[start, start + width_ns]` that maximises the time covered by
/// the union of `intervals` (start_ns, end_ns); ties go to the earliest.
/// `None` when there are no intervals of positive length. The window never
/// starts before the first interval nor ends after the last one, unless the
/// whole trace is shorter than `width_ns`.
pub fn busiest_window(intervals: &[(i64, i64)], width_ns: i64) -> Option<(i64, i64)> {
    let union = merge(intervals);
    let (first, last) = (union.first()?.0, union.last()?.1);
    if width_ns <= 0 || last - first <= width_ns {
        return Some((first, first + width_ns.max(last - first)));
    }
    // Prefix sums of busy time at each merged interval's start.
    let mut before = Vec::with_capacity(union.len() + 1);
    before.push(0i64);
    for (s, e) in &union {
        before.push(before.last().copied().unwrap_or(0) + (e - s));
    }
    // Busy time in [0, t) on the trace clock (relative to the union).
    let busy_until = |t: i64| -> i64 {
        let k = union.partition_point(|&(s, _)| s < t);
        if k == 0 {
            return 0;
        }
        let (s, e) = union[k - 1];
        before[k - 1] + (t.min(e) - s)
    };
    // Coverage is piecewise linear in the start, so its maximum is at a
    // start where the window's left edge meets an interval start or its
    // right edge meets an interval end.
    let mut best: Option<(i64, i64)> = None;
    let candidates = union
        .iter()
        .map(|&(s, _)| s)
        .chain(union.iter().map(|&(_, e)| e - width_ns));
    let mut starts: Vec<i64> = candidates
        .map(|s| s.clamp(first, last - width_ns))
        .collect();
    starts.sort_unstable();
    starts.dedup();
    for s in starts {
        let cover = busy_until(s + width_ns) - busy_until(s);
        if best.is_none_or(|(_, b)| cover > b) {
            best = Some((s, cover));
        }
    }
    best.map(|(s, _)| (s, s + width_ns))
}

/// Sorted union of intervals with positive length.
fn merge(intervals: &[(i64, i64)]) -> Vec<(i64, i64)> {
    let mut v: Vec<(i64, i64)> = intervals.iter().copied().filter(|(s, e)| e > s).collect();
    v.sort_unstable();
    let mut out: Vec<(i64, i64)> = Vec::with_capacity(v.len());
    for (s, e) in v {
        match out.last_mut() {
            Some(last) if s <= last.1 => last.1 = last.1.max(e),
            _ => out.push((s, e)),
        }
    }
    out
}

/// Resolves a window choice against the ops; returns the window and a
/// phrase saying how it was chosen.
/// `ops` are (start_ns, end_ns, kind); a graph row counts as kernel work.
pub fn choose_window(
    choice: &WindowChoice,
    ops: &[(i64, i64, OpKind)],
) -> Option<((i64, i64), String)> {
    match choice {
        WindowChoice::Explicit { start_ns, end_ns } => {
            (end_ns > start_ns).then(|| ((*start_ns, *end_ns), "window given".to_string()))
        }
        WindowChoice::Chosen {
            start_ns,
            end_ns,
            how,
        } => (end_ns > start_ns).then(|| ((*start_ns, *end_ns), how.clone())),
        WindowChoice::NvtxRanges {
            ranges,
            count,
            called,
        } => {
            let mut r: Vec<(i64, i64)> = ranges.iter().copied().filter(|(s, e)| e > s).collect();
            r.sort_unstable();
            r.truncate((*count).max(1));
            let start = r.first()?.0;
            let end = r.iter().map(|x| x.1).max()?;
            Some((
                (start, end),
                format!("first {} {called} instance{}", r.len(), plural(r.len())),
            ))
        }
        WindowChoice::Busiest { width_ns } => {
            // Kernels decide: a long copy would make any window inside it
            // "busy" while showing nothing of interest.
            let is_kernel = |k: OpKind| matches!(k, OpKind::Kernel | OpKind::Graph);
            let kernels = ops.iter().any(|o| is_kernel(o.2));
            let iv: Vec<(i64, i64)> = ops
                .iter()
                .filter(|o| !kernels || is_kernel(o.2))
                .map(|o| (o.0, o.1))
                .collect();
            let width = width_ns.unwrap_or_else(|| default_busy_width(&iv));
            let w = busiest_window(&iv, width)?;
            Some((w, "busiest stretch".to_string()))
        }
    }
}

/// Width holding about [`BUSIEST_TARGET_OPS`] ops on average: the whole
/// span when there are fewer ops, else span × target / count.
pub fn default_busy_width(intervals: &[(i64, i64)]) -> i64 {
    let first = intervals.iter().map(|i| i.0).min().unwrap_or(0);
    let last = intervals.iter().map(|i| i.1).max().unwrap_or(0);
    let span = (last - first).max(1);
    if intervals.len() <= BUSIEST_TARGET_OPS {
        span
    } else {
        ((span as i128 * BUSIEST_TARGET_OPS as i128 / intervals.len() as i128) as i64).max(1)
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn busiest_window_finds_the_dense_stretch() {
        // Sparse ops early, a dense burst at 1000..1100, sparse again.
        let iv = [
            (0, 5),
            (100, 105),
            (1000, 1030),
            (1035, 1060),
            (1062, 1100),
            (2000, 2010),
        ];
        // Width 100: [1000, 1100) holds 30 + 25 + 38 = 93 ns of busy time.
        assert_eq!(busiest_window(&iv, 100), Some((1000, 1100)));
        // Width 10: the 38 ns op 1062..1100 holds a full window; earliest wins.
        assert_eq!(busiest_window(&iv, 10), Some((1000, 1010)));
        // Wider than the trace: the whole span from the first op.
        assert_eq!(busiest_window(&iv, 5000), Some((0, 5000)));
        assert_eq!(busiest_window(&[], 10), None);
    }

    #[test]
    fn busiest_window_matches_brute_force() {
        // Deterministic pseudo-random intervals; compare with a scan over
        // every integer start.
        let mut x: u64 = 12345;
        let mut next = |m: u64| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((x >> 33) % m) as i64
        };
        for _ in 0..50 {
            let n = 1 + next(12) as usize;
            let iv: Vec<(i64, i64)> = (0..n)
                .map(|_| {
                    let s = next(500);
                    (s, s + 1 + next(40))
                })
                .collect();
            let width = 5 + next(120);
            let union = merge(&iv);
            let cover = |s: i64| -> i64 {
                union
                    .iter()
                    .map(|&(a, b)| (b.min(s + width) - a.max(s)).max(0))
                    .sum()
            };
            let (first, last) = (union[0].0, union.last().unwrap().1);
            let (s, e) = busiest_window(&iv, width).unwrap();
            if last - first > width {
                assert_eq!(e - s, width);
                assert!(s >= first && e <= last, "window leaves the trace");
                let best = (first..=last - width).map(cover).max().unwrap();
                assert_eq!(cover(s), best, "{iv:?} width {width}");
            }
        }
    }

    #[test]
    fn nvtx_window_spans_the_first_ranges() {
        let choice = WindowChoice::NvtxRanges {
            ranges: vec![(500, 900), (100, 400), (1000, 1400)],
            count: 2,
            called: "NVTX range",
        };
        let (w, how) = choose_window(&choice, &[]).unwrap();
        assert_eq!(w, (100, 900));
        assert_eq!(how, "first 2 NVTX range instances");
    }

    #[test]
    fn default_width_targets_about_150_ops() {
        let iv: Vec<(i64, i64)> = (0..300).map(|i| (i * 10, i * 10 + 5)).collect();
        // Span 2995 ns, 300 ops: 2995 × 150 / 300 = 1497 ns.
        assert_eq!(default_busy_width(&iv), 1497);
        assert_eq!(default_busy_width(&iv[..10]), 95);
    }
}
