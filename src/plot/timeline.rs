//! The timeline chart (`rooftrace gaps --plot`): one lane per device/stream
//! over a time window, GPU ops as bars (kernel, memcpy, memset), idle gaps
//! as bars coloured by their class.
//!
//! The window is chosen by [`WindowChoice`], resolved in
//! [`crate::gaps::window`] (the one place that decides it).

use super::axis::{decimals_for_step, LinearAxis, Tick};
use super::extent::{self, legend_texts, HAnchor, PlacedText, VAnchor};
use super::labels::{text_size_px, Legend, LegendItem, Rect, Swatch};
use super::{draw, style, ticks, Chart, PlotError};
use crate::gaps::window::choose_window;
pub use crate::gaps::window::{busiest_window, WindowChoice, BUSIEST_TARGET_OPS};
use crate::gaps::GapClass;
pub use crate::timeline::OpKind;
use crate::units::ellipsize;
use plotters::coord::Shift;
use plotters::prelude::*;

/// How an op kind is drawn: a graph row is kernel work (one colour, one
/// legend entry).
fn drawn_kind(k: OpKind) -> OpKind {
    match k {
        OpKind::Graph => OpKind::Kernel,
        k => k,
    }
}

fn kind_color(k: OpKind) -> RGBColor {
    match drawn_kind(k) {
        OpKind::Memcpy => style::MEMCPY_COLOR,
        OpKind::Memset => style::MEMSET_COLOR,
        _ => style::KERNEL_COLOR,
    }
}

fn kind_label(k: OpKind) -> &'static str {
    match drawn_kind(k) {
        OpKind::Memcpy => "memcpy",
        OpKind::Memset => "memset",
        _ => "kernel",
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
    /// Where the chart's times count from: t = 0, ns on the trace clock
    /// (the first GPU op of the trace, as `--window` counts), and that
    /// moment as a date when the trace's clock is Unix time.
    pub origin: TimeOrigin,
}

/// t = 0 of a chart's times: the subtitle gives times after it, and the
/// date once, instead of raw trace-clock seconds (a PyTorch trace's clock
/// is µs since 1970: `1694039996.493421 s`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TimeOrigin {
    /// t = 0, ns on the trace clock.
    pub ns: i64,
    /// What t = 0 is, e.g. `the first GPU op`.
    pub what: String,
    /// t = 0 as a UTC date, when the trace's clock is Unix time.
    pub date: Option<String>,
}

impl TimeOrigin {
    /// `"0.512000 s to 0.552000 s after the first GPU op (40.0 ms; the
    /// first GPU op at 2023-09-06 22:39:56.493 UTC)"`: the span `(a, b)`
    /// (ns on the trace clock) relative to t = 0, with the date once.
    pub fn span_text(&self, (a, b): (i64, i64)) -> String {
        let what = if self.what.is_empty() {
            "t = 0"
        } else {
            &self.what
        };
        let mut s = format!(
            "{:.6} s to {:.6} s after {what} ({}",
            (a - self.ns) as f64 / 1e9,
            (b - self.ns) as f64 / 1e9,
            crate::units::duration_ns((b - a) as f64)
        );
        if let Some(date) = &self.date {
            s.push_str(&format!("; {what} at {date}"));
        }
        s.push(')');
        s
    }
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
    /// Every text as drawn (title, subtitle, tick labels that fit, lane
    /// labels, axis title, legend entries): [`extent::first_overlap`]
    /// checks them.
    pub texts: Vec<PlacedText>,
}

impl TimelineChart {
    /// The time pixel column `x` (from `plot.left` to `plot.right`)
    /// covers, ns on the trace clock; `None` outside the plot.
    pub fn column_ns(&self, x: i32) -> Option<(i64, i64)> {
        (self.plot.left..self.plot.right)
            .contains(&x)
            .then(|| column_span(self.window_ns, self.plot.width(), x - self.plot.left))
    }
}

/// Most lanes drawn; the rest are counted in the subtitle.
pub const MAX_LANES: usize = 24;

/// End of the time axis drawn for the window `[w0, w1)`, ns: the axis runs
/// on to the next "nice" tick, so the chart shows `[w0, drawn_end_ns)`.
/// Whoever gathers the ops and gaps must cover that whole span, or the
/// stretch after `w1` is drawn empty although the GPU was busy there.
pub fn drawn_end_ns(w0: i64, w1: i64) -> i64 {
    let (unit_ns, _) = time_unit(w1 - w0);
    let axis = LinearAxis::nice(0.0, (w1 - w0) as f64 / unit_ns, 8);
    w0 + (axis.max * unit_ns).round() as i64
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
        let spans: Vec<(i64, i64, OpKind)> = input
            .ops
            .iter()
            .map(|o| (o.start_ns, o.end_ns, o.kind))
            .collect();
        let ((w0, w1), how) = choose_window(&input.window, &spans).ok_or_else(|| {
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

        let in_window = |s: i64, e: i64| e > w0 && s < w1;
        let items = legend_items(input, &in_window);
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
        let lanes = lane_rows(input, plot, shown, lane_h)?;

        let px = |t: i64| -> i32 {
            let f = (t.clamp(w0, w1) - w0) as f64 / (w1 - w0) as f64;
            plot.left + (f * plot.width() as f64).round() as i32
        };
        let mut bars = gap_bars(input, &lanes, plot, (w0, w1));
        bars.extend(op_bars(input, &lanes, &px, &in_window));
        // An op kind or gap class present in the window but drawn nowhere
        // (its ops only in lanes not shown, its gaps holding no pixel
        // column) leaves the legend (the plot keeps its width).
        let drawn: Vec<String> = bars.iter().map(|b| bar_legend_text(b.what)).collect();
        if legend.items.iter().any(|i| !drawn.contains(&i.text)) {
            let items: Vec<LegendItem> = legend
                .items
                .iter()
                .filter(|i| drawn.contains(&i.text))
                .cloned()
                .collect();
            legend = Legend::new(items, (w as i32 - 20, style::MARGIN_PX.1), true)?;
            if legend.items.is_empty() {
                legend.rect = Rect::at(legend.rect.right, legend.rect.top, 0, 0);
            }
        }

        let hidden_lanes = input.lanes.len() - shown;
        let mut subtitle = format!("{how}: {}", input.origin.span_text((w0, w1)));
        if hidden_lanes > 0 {
            subtitle.push_str(&format!(", {hidden_lanes} more lanes not shown"));
        }
        // One line inside the canvas: the date and the lanes note make it
        // long; cut with `…` if it must be.
        if text_size_px(&subtitle, style::SUBTITLE_FONT)?.0 > w as i32 - 40 {
            subtitle = extent::wrap_to_width(&subtitle, style::SUBTITLE_FONT, w as i32 - 40, 1)?
                .pop()
                .unwrap_or(subtitle);
        }
        let texts = timeline_texts(
            (&input.title, &subtitle, w as i32 / 2),
            plot,
            &axis,
            &ticks,
            &lanes,
            &format!("time since window start ({unit})"),
            &legend,
        )?;
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
            texts,
        })
    }
}

/// The chart's texts in drawing order: title and subtitle (centred at
/// `heading.2`), the tick labels that fit side by side
/// ([`ticks::fitting_x_labels`]), one label per lane right of the label
/// column, the axis title and the legend entries.
fn timeline_texts(
    heading: (&str, &str, i32),
    plot: Rect,
    axis: &LinearAxis,
    axis_ticks: &[Tick],
    lanes: &[LaneRow],
    axis_title: &str,
    legend: &Legend,
) -> Result<Vec<PlacedText>, PlotError> {
    let top = (HAnchor::Center, VAnchor::Top);
    let (title, subtitle, center_x) = heading;
    let mut texts = vec![
        PlacedText::new(title, (center_x, 10), style::TITLE_FONT, style::INK, top),
        PlacedText::new(
            subtitle,
            (center_x, 44),
            style::SUBTITLE_FONT,
            style::INK_SOFT,
            top,
        ),
    ];
    let tick_labels: Vec<(i32, String)> = axis_ticks
        .iter()
        .map(|t| (tick_x(plot, axis, t), t.label.clone()))
        .collect();
    texts.extend(ticks::fitting_x_labels(&tick_labels, plot.bottom)?);
    for lane in lanes {
        texts.push(PlacedText::new(
            lane.label.clone(),
            (plot.left - 10, (lane.rect.top + lane.rect.bottom) / 2),
            style::TICK_FONT,
            style::INK,
            (HAnchor::Right, VAnchor::Center),
        ));
    }
    texts.push(PlacedText::new(
        axis_title,
        ((plot.left + plot.right) / 2, plot.bottom + 42),
        style::AXIS_TITLE_FONT,
        style::INK,
        top,
    ));
    texts.extend(legend_texts(legend));
    Ok(texts)
}

/// Pixel column of tick `t` on the time axis.
fn tick_x(plot: Rect, axis: &LinearAxis, t: &Tick) -> i32 {
    plot.left + (axis.fraction(t.value) * plot.width() as f64).round() as i32
}

/// The legend: the op kinds and gap classes that appear in the window.
fn legend_items(input: &TimelineInput, in_window: &dyn Fn(i64, i64) -> bool) -> Vec<LegendItem> {
    let mut items = Vec::new();
    for kind in [OpKind::Kernel, OpKind::Memcpy, OpKind::Memset] {
        if input
            .ops
            .iter()
            .any(|o| drawn_kind(o.kind) == kind && in_window(o.start_ns, o.end_ns))
        {
            items.push(LegendItem {
                swatch: Swatch::Bar(kind_color(kind)),
                text: kind_label(kind).to_string(),
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
                text: gap_legend_text(class),
            });
        }
    }
    items
}

/// The legend entry of what a bar shows.
fn bar_legend_text(what: BarWhat) -> String {
    match what {
        BarWhat::Op(k) => kind_label(k).to_string(),
        BarWhat::Gap(c) => gap_legend_text(c),
    }
}

/// A gap class's legend entry.
fn gap_legend_text(class: GapClass) -> String {
    format!("gap: {}", class.label())
}

/// One row per shown lane, labels ellipsized to fit the label column.
fn lane_rows(
    input: &TimelineInput,
    plot: Rect,
    shown: usize,
    lane_h: i32,
) -> Result<Vec<LaneRow>, PlotError> {
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
    Ok(lanes)
}

/// The time pixel column `c` (0 = the plot's left edge) of a plot `width`
/// pixels wide over the window `(w0, w1)` covers, ns: `[w0 + c·span/width,
/// w0 + (c+1)·span/width)`, rounded down.
fn column_span((w0, w1): (i64, i64), width: i32, c: i32) -> (i64, i64) {
    let span = i128::from(w1 - w0);
    let at = |c: i32| w0 + (span * i128::from(c) / i128::from(width.max(1))) as i64;
    (at(c), at(c + 1))
}

/// What each pixel column of a gap lane is drawn as: the state that held
/// most of the column's time, busy (`None`: nothing drawn) or the idle
/// class with the most time (the first in [`GapClass::ALL`] order on ties;
/// busy wins a tie with the classes). `gaps` are the lane's gaps.
pub fn column_states(gaps: &[&GapBar], window: (i64, i64), width: i32) -> Vec<Option<GapClass>> {
    let n = width.max(0) as usize;
    let mut per_col = vec![[0i64; GapClass::ALL.len()]; n];
    let span = (window.1 - window.0).max(1);
    let col_of = |t: i64| {
        ((i128::from(t - window.0) * i128::from(width) / i128::from(span)) as i64)
            .clamp(0, n as i64 - 1) as usize
    };
    for g in gaps {
        let (s, e) = (g.start_ns.max(window.0), g.end_ns.min(window.1));
        if e <= s || n == 0 {
            continue;
        }
        // One column either side: the rounding of col_of never hides time.
        let (first, last) = (col_of(s).saturating_sub(1), (col_of(e - 1) + 1).min(n - 1));
        for (c, col) in per_col.iter_mut().enumerate().take(last + 1).skip(first) {
            let (c0, c1) = column_span(window, width, c as i32);
            let ns = e.min(c1) - s.max(c0);
            if ns > 0 {
                col[g.class as usize] += ns;
            }
        }
    }
    per_col
        .iter()
        .enumerate()
        .map(|(c, times)| {
            let (c0, c1) = column_span(window, width, c as i32);
            let idle: i64 = times.iter().sum();
            let busy = (c1 - c0) - idle;
            GapClass::ALL
                .into_iter()
                .filter(|k| times[*k as usize] > 0)
                .max_by_key(|k| (times[*k as usize], std::cmp::Reverse(*k as usize)))
                .filter(|k| times[*k as usize] > busy)
        })
        .collect()
}

/// The gap lanes, in the middle 60 % of their lane (drawn under the ops):
/// each pixel column drawn as the state that held most of its time
/// ([`column_states`]), runs of one class merged into one bar, so 114
/// short gaps in a 93 % busy stretch are not one solid block of the last
/// class drawn.
fn gap_bars(
    input: &TimelineInput,
    lanes: &[LaneRow],
    plot: Rect,
    window: (i64, i64),
) -> Vec<BarMark> {
    let mut bars = Vec::new();
    let mut by_lane: std::collections::BTreeMap<usize, Vec<&GapBar>> =
        std::collections::BTreeMap::new();
    for g in input.gaps.iter().filter(|g| g.lane < lanes.len()) {
        by_lane.entry(g.lane).or_default().push(g);
    }
    for (lane, gaps) in by_lane {
        let row = lanes[lane].rect;
        let states = column_states(&gaps, window, plot.width());
        let mut c = 0usize;
        while c < states.len() {
            let Some(class) = states[c] else {
                c += 1;
                continue;
            };
            let run = states[c..]
                .iter()
                .take_while(|s| **s == Some(class))
                .count();
            bars.push(BarMark {
                rect: Rect {
                    left: plot.left + c as i32,
                    right: plot.left + (c + run) as i32,
                    top: row.top + row.height() / 5,
                    bottom: row.bottom - row.height() / 5,
                },
                what: BarWhat::Gap(class),
            });
            c += run;
        }
    }
    bars
}

/// The ops in the window, merged per lane and kind when they touch at
/// pixel resolution.
fn op_bars(
    input: &TimelineInput,
    lanes: &[LaneRow],
    px: &dyn Fn(i64) -> i32,
    in_window: &dyn Fn(i64, i64) -> bool,
) -> Vec<BarMark> {
    let shown = lanes.len();
    let mut bars = Vec::new();
    // Ops, merged per lane and kind when they touch at pixel resolution.
    let mut ops: Vec<&OpBar> = input
        .ops
        .iter()
        .filter(|o| o.lane < shown && in_window(o.start_ns, o.end_ns))
        .collect();
    ops.sort_by_key(|o| (o.lane, drawn_kind(o.kind), o.start_ns, o.end_ns));
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
        let kind = drawn_kind(o.kind);
        let (l, r) = (px(o.start_ns), px(o.end_ns));
        let r = r.max(l + 1);
        current = match current {
            Some((lane, k, cl, cr)) if lane == o.lane && k == kind && l <= cr => {
                Some((lane, k, cl, cr.max(r)))
            }
            other => {
                flush(other, &mut bars);
                Some((o.lane, kind, l, r))
            }
        };
    }
    flush(current, &mut bars);
    bars
}

impl Chart for TimelineChart {
    fn size_px(&self) -> (u32, u32) {
        self.size_px
    }

    fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<(), PlotError> {
        let p = self.plot;
        area.fill(&style::BACKGROUND)
            .map_err(|e| PlotError::Draw(e.to_string()))?;
        for t in &self.ticks {
            let x = tick_x(p, &self.axis, t);
            draw::line(area, vec![(x, p.top), (x, p.bottom)], style::GRID, 1)?;
            draw::line(area, vec![(x, p.bottom), (x, p.bottom + 6)], style::INK, 1)?;
        }
        for (i, lane) in self.lanes.iter().enumerate() {
            if i % 2 == 1 {
                draw::fill_rect(area, lane.rect, style::GRID_MINOR, 0.6)?;
            }
        }
        for b in &self.bars {
            let color = match b.what {
                BarWhat::Op(k) => kind_color(k),
                BarWhat::Gap(c) => style::gap_color(c),
            };
            draw::fill_rect(area, b.rect, color, 1.0)?;
        }
        draw::outline_rect(area, p, style::INK, 1)?;
        if !self.legend.items.is_empty() {
            draw::legend_frame(area, &self.legend)?;
        }
        extent::draw_texts(area, &self.texts)
    }
}
