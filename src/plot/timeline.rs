//! The timeline chart (`rooftrace gaps --plot`): one lane per device/stream
//! over a time window, GPU ops as bars (kernel, memcpy, memset), idle gaps
//! as bars coloured by their class.
//!
//! The window is chosen by [`WindowChoice`]; the busiest stretch is a pure
//! function over intervals ([`busiest_window`]).

use super::axis::{decimals_for_step, LinearAxis, Tick};
use super::labels::{text_size_px, Legend, LegendItem, Rect, Swatch};
use super::{draw, style, Chart, PlotError};
use crate::gaps::GapClass;
use crate::units::ellipsize;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

/// Kind of GPU op.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum OpKind {
    /// A kernel.
    Kernel,
    /// A memory copy.
    Memcpy,
    /// A memory set.
    Memset,
}

impl OpKind {
    fn color(self) -> RGBColor {
        match self {
            OpKind::Kernel => style::KERNEL_COLOR,
            OpKind::Memcpy => style::MEMCPY_COLOR,
            OpKind::Memset => style::MEMSET_COLOR,
        }
    }

    fn label(self) -> &'static str {
        match self {
            OpKind::Kernel => "kernel",
            OpKind::Memcpy => "memcpy",
            OpKind::Memset => "memset",
        }
    }
}

/// One horizontal lane, e.g. `GPU 0 (all streams)` or `GPU 0 stream 7`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lane {
    /// Text left of the lane (ellipsized to fit).
    pub label: String,
}

/// A GPU op drawn as a bar.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpBar {
    /// Index into [`TimelineInput::lanes`].
    pub lane: usize,
    /// Start, in ns on the trace clock.
    pub start_ns: i64,
    /// End, in ns on the trace clock.
    pub end_ns: i64,
    /// Kernel, memcpy or memset.
    pub kind: OpKind,
    /// Op name (not drawn; kept for callers and tests).
    pub name: String,
}

/// An idle gap drawn as a bar in its class colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GapBar {
    /// Index into [`TimelineInput::lanes`].
    pub lane: usize,
    /// Start, in ns on the trace clock.
    pub start_ns: i64,
    /// End, in ns on the trace clock.
    pub end_ns: i64,
    /// Why the GPU idled.
    pub class: GapClass,
}

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

/// Everything the timeline chart needs.
#[derive(Debug, Clone, PartialEq)]
pub struct TimelineInput {
    /// Chart title, e.g. the trace file name.
    pub title: String,
    /// Lanes, top to bottom.
    pub lanes: Vec<Lane>,
    /// GPU ops.
    pub ops: Vec<OpBar>,
    /// Idle gaps.
    pub gaps: Vec<GapBar>,
    /// Which window to draw.
    pub window: WindowChoice,
}

/// A bar on the canvas.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BarMark {
    /// The bar, in pixels.
    pub rect: Rect,
    /// What it shows.
    pub what: BarWhat,
}

/// What a bar shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BarWhat {
    /// One or more ops of this kind, merged when closer than a pixel.
    Op(OpKind),
    /// An idle gap of this class.
    Gap(GapClass),
}

/// A lane's row on the canvas.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LaneRow {
    /// Label as drawn (ellipsized).
    pub label: String,
    /// The row, in pixels.
    pub rect: Rect,
}

/// The timeline chart model.
#[derive(Debug, Clone, PartialEq)]
pub struct TimelineChart {
    /// Canvas size, in pixels.
    pub size_px: (u32, u32),
    /// Title line.
    pub title: String,
    /// Subtitle: the window and how it was chosen.
    pub subtitle: String,
    /// Plot frame, in pixels.
    pub plot: Rect,
    /// Drawn window (start_ns, end_ns) on the trace clock.
    pub window_ns: (i64, i64),
    /// Time axis, in `unit` since the window start.
    pub axis: LinearAxis,
    /// Time axis ticks.
    pub ticks: Vec<Tick>,
    /// Axis title, e.g. `time since window start (ms)`.
    pub axis_title: String,
    /// Lanes shown.
    pub lanes: Vec<LaneRow>,
    /// Bars (ops merged per pixel, gaps), in drawing order.
    pub bars: Vec<BarMark>,
    /// Legend (right of the frame).
    pub legend: Legend,
    /// Lanes left out because the canvas has room for [`MAX_LANES`].
    pub hidden_lanes: usize,
}

/// Most lanes drawn; the rest are counted in the subtitle.
pub const MAX_LANES: usize = 24;

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
pub fn choose_window(choice: &WindowChoice, ops: &[OpBar]) -> Option<((i64, i64), String)> {
    match choice {
        WindowChoice::Explicit { start_ns, end_ns } => {
            (end_ns > start_ns).then(|| ((*start_ns, *end_ns), "window given".to_string()))
        }
        WindowChoice::Chosen {
            start_ns,
            end_ns,
            how,
        } => (end_ns > start_ns).then(|| ((*start_ns, *end_ns), how.clone())),
        WindowChoice::NvtxRanges { ranges, count } => {
            let mut r: Vec<(i64, i64)> = ranges.iter().copied().filter(|(s, e)| e > s).collect();
            r.sort_unstable();
            r.truncate((*count).max(1));
            let start = r.first()?.0;
            let end = r.iter().map(|x| x.1).max()?;
            Some((
                (start, end),
                format!("first {} NVTX range instance{}", r.len(), plural(r.len())),
            ))
        }
        WindowChoice::Busiest { width_ns } => {
            // Kernels decide: a long copy would make any window inside it
            // "busy" while showing nothing of interest.
            let kernels = ops.iter().any(|o| o.kind == OpKind::Kernel);
            let iv: Vec<(i64, i64)> = ops
                .iter()
                .filter(|o| !kernels || o.kind == OpKind::Kernel)
                .map(|o| (o.start_ns, o.end_ns))
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

/// End of the time axis drawn for the window `[w0, w1)`, ns: the axis runs
/// on to the next "nice" tick, so the chart shows `[w0, drawn_end_ns)`.
/// Whoever gathers the ops and gaps must cover that whole span, or the
/// stretch after `w1` is drawn empty although the GPU was busy there.
pub fn drawn_end_ns(w0: i64, w1: i64) -> i64 {
    let (unit_ns, _) = time_unit(w1 - w0);
    let axis = LinearAxis::nice(0.0, (w1 - w0) as f64 / unit_ns, 8);
    w0 + (axis.max * unit_ns).round() as i64
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// The time unit for a window span: (ns per unit, name).
fn time_unit(span_ns: i64) -> (f64, &'static str) {
    match span_ns {
        s if s < 10_000 => (1.0, "ns"),
        s if s < 10_000_000 => (1e3, "µs"),
        s if s < 10_000_000_000 => (1e6, "ms"),
        _ => (1e9, "s"),
    }
}

impl TimelineChart {
    /// Computes the chart: window, axis, lane rows and bars.
    pub fn build(input: &TimelineInput) -> Result<TimelineChart, PlotError> {
        let ((w0, w1), how) = choose_window(&input.window, &input.ops).ok_or_else(|| {
            PlotError::Empty(
                "the window is empty (end not after start), or no GPU op has a positive duration"
                    .into(),
            )
        })?;
        let (unit_ns, unit) = time_unit(w1 - w0);
        let axis = LinearAxis::nice(0.0, (w1 - w0) as f64 / unit_ns, 8);
        let w1 = w0 + (axis.max * unit_ns).round() as i64;
        let decimals = decimals_for_step(axis.step);
        let ticks = axis.ticks(|v| format!("{v:.decimals$}"));

        // Legend right of the frame: the kinds and classes that appear.
        let in_window = |s: i64, e: i64| e > w0 && s < w1;
        let mut items = Vec::new();
        for kind in [OpKind::Kernel, OpKind::Memcpy, OpKind::Memset] {
            if input
                .ops
                .iter()
                .any(|o| o.kind == kind && in_window(o.start_ns, o.end_ns))
            {
                items.push(LegendItem {
                    swatch: Swatch::Bar(kind.color()),
                    text: kind.label().to_string(),
                });
            }
        }
        for class in GapClass::ALL {
            if input
                .gaps
                .iter()
                .any(|g| g.class == class && in_window(g.start_ns, g.end_ns))
            {
                items.push(LegendItem {
                    swatch: Swatch::Bar(style::gap_color(class)),
                    text: format!("gap: {}", class.label()),
                });
            }
        }
        let shown = input.lanes.len().min(MAX_LANES);
        let w = style::TIMELINE_WIDTH_PX;
        let mut legend = Legend::new(items, (w as i32 - 20, style::MARGIN_PX.1), true)?;
        // The canvas grows with the lanes (and the legend), nothing else.
        let lanes_h = shown as i32 * style::LANE_HEIGHT_PX;
        let plot = Rect {
            left: style::LANE_LABEL_WIDTH_PX + 20,
            top: style::MARGIN_PX.1,
            right: legend.rect.left - 20,
            bottom: style::MARGIN_PX.1 + lanes_h.max(legend.rect.height()).max(120),
        };
        let h = (plot.bottom + style::MARGIN_PX.3) as u32;
        if legend.items.is_empty() {
            legend.rect = Rect::at(legend.rect.right, legend.rect.top, 0, 0);
        }

        // Few lanes share the minimum height rather than leave a blank strip.
        let lane_h = if shown == 0 {
            0
        } else {
            plot.height() / shown as i32
        };
        let mut lanes = Vec::with_capacity(shown);
        for (i, lane) in input.lanes.iter().take(shown).enumerate() {
            let mut label = lane.label.clone();
            let mut max_chars = label.chars().count();
            while max_chars > 5
                && text_size_px(&label, style::TICK_FONT)?.0 > style::LANE_LABEL_WIDTH_PX
            {
                max_chars -= 1;
                label = ellipsize(&lane.label, max_chars);
            }
            lanes.push(LaneRow {
                label,
                rect: Rect::at(
                    plot.left,
                    plot.top + i as i32 * lane_h,
                    plot.width(),
                    lane_h,
                ),
            });
        }

        let px = |t: i64| -> i32 {
            let f = (t.clamp(w0, w1) - w0) as f64 / (w1 - w0) as f64;
            plot.left + (f * plot.width() as f64).round() as i32
        };
        let mut bars = Vec::new();
        // Gaps first (under the ops), in the middle 60 % of the lane.
        let mut gaps: Vec<&GapBar> = input
            .gaps
            .iter()
            .filter(|g| g.lane < shown && in_window(g.start_ns, g.end_ns))
            .collect();
        gaps.sort_by_key(|g| (g.lane, g.start_ns, g.end_ns, g.class));
        for g in gaps {
            let row = lanes[g.lane].rect;
            let (l, r) = (px(g.start_ns), px(g.end_ns));
            bars.push(BarMark {
                rect: Rect {
                    left: l,
                    right: r.max(l + 1),
                    top: row.top + row.height() / 5,
                    bottom: row.bottom - row.height() / 5,
                },
                what: BarWhat::Gap(g.class),
            });
        }
        // Ops, merged per lane and kind when they touch at pixel resolution.
        let mut ops: Vec<&OpBar> = input
            .ops
            .iter()
            .filter(|o| o.lane < shown && in_window(o.start_ns, o.end_ns))
            .collect();
        ops.sort_by_key(|o| (o.lane, o.kind, o.start_ns, o.end_ns));
        let mut current: Option<(usize, OpKind, i32, i32)> = None;
        let flush = |c: Option<(usize, OpKind, i32, i32)>, bars: &mut Vec<BarMark>| {
            if let Some((lane, kind, l, r)) = c {
                let row: Rect = lanes[lane].rect;
                // Copies and sets may overlap kernels of the same stream:
                // they take the lower third, drawn over the kernels.
                let top = match kind {
                    OpKind::Kernel => row.top + 3,
                    _ => row.bottom - row.height() / 3,
                };
                bars.push(BarMark {
                    rect: Rect {
                        left: l,
                        right: r,
                        top,
                        bottom: row.bottom - 3,
                    },
                    what: BarWhat::Op(kind),
                });
            }
        };
        for o in ops {
            let (l, r) = (px(o.start_ns), px(o.end_ns));
            let r = r.max(l + 1);
            current = match current {
                Some((lane, kind, cl, cr)) if lane == o.lane && kind == o.kind && l <= cr => {
                    Some((lane, kind, cl, cr.max(r)))
                }
                other => {
                    flush(other, &mut bars);
                    Some((o.lane, o.kind, l, r))
                }
            };
        }
        flush(current, &mut bars);

        let hidden_lanes = input.lanes.len() - shown;
        let mut subtitle = format!(
            "{how}: {:.6} s to {:.6} s on the trace clock ({})",
            w0 as f64 / 1e9,
            w1 as f64 / 1e9,
            crate::units::duration_ns((w1 - w0) as f64)
        );
        if hidden_lanes > 0 {
            subtitle.push_str(&format!(", {hidden_lanes} more lanes not shown"));
        }
        Ok(TimelineChart {
            size_px: (w, h),
            title: input.title.clone(),
            subtitle,
            plot,
            window_ns: (w0, w1),
            axis,
            ticks,
            axis_title: format!("time since window start ({unit})"),
            lanes,
            bars,
            legend,
            hidden_lanes,
        })
    }
}

impl Chart for TimelineChart {
    fn size_px(&self) -> (u32, u32) {
        self.size_px
    }

    fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<(), PlotError> {
        let p = self.plot;
        draw::canvas(area, &self.title, &self.subtitle, self.size_px.0 as i32 / 2)?;
        for t in &self.ticks {
            let x = p.left + (self.axis.fraction(t.value) * p.width() as f64).round() as i32;
            draw::line(area, vec![(x, p.top), (x, p.bottom)], style::GRID, 1)?;
            draw::x_tick(area, x, p.bottom, &t.label)?;
        }
        for (i, lane) in self.lanes.iter().enumerate() {
            if i % 2 == 1 {
                draw::fill_rect(area, lane.rect, style::GRID_MINOR, 0.6)?;
            }
            draw::text(
                area,
                &lane.label,
                (p.left - 10, (lane.rect.top + lane.rect.bottom) / 2),
                style::TICK_FONT,
                style::INK,
                (HPos::Right, VPos::Center),
            )?;
        }
        for b in &self.bars {
            let color = match b.what {
                BarWhat::Op(k) => k.color(),
                BarWhat::Gap(c) => style::gap_color(c),
            };
            draw::fill_rect(area, b.rect, color, 1.0)?;
        }
        draw::outline_rect(area, p, style::INK, 1)?;
        draw::text(
            area,
            &self.axis_title,
            ((p.left + p.right) / 2, p.bottom + 42),
            style::AXIS_TITLE_FONT,
            style::INK,
            (HPos::Center, VPos::Top),
        )?;
        if !self.legend.items.is_empty() {
            draw::legend(area, &self.legend)?;
        }
        Ok(())
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
