//! The step budget chart (`rooftrace budget --plot`): one stacked bar per
//! step, the median step first, each stacked from the bound at the bottom
//! to the measured step at the top, coloured by part. The adapter
//! ([`BudgetInput::from_report`]) reads the report's parts as they are: the
//! bar heights are the integer parts, so every bar ends at its step.

use super::axis::{LinearAxis, Tick};
use super::labels::{Legend, LegendItem, Rect, Swatch};
use super::{draw, style, Chart, PlotError};
use crate::budget::{BudgetReport, PartKind};
use crate::error::InputError;
use crate::units::duration_ns;
use plotters::coord::Shift;
use plotters::prelude::*;

/// Most steps drawn beside the median one.
pub const BUDGET_MAX_BARS: usize = 40;

/// One bar: a label and its parts bottom-up, ns.
#[derive(Debug, Clone, PartialEq)]
pub struct BudgetBar {
    /// Under the bar (`median`, `#3`).
    pub label: String,
    /// (part name, ns), bottom first.
    pub parts: Vec<(PartKind, i64)>,
}

/// Everything the chart needs.
#[derive(Debug, Clone, PartialEq)]
pub struct BudgetInput {
    /// Title line.
    pub title: String,
    /// The bars, the median step first.
    pub bars: Vec<BudgetBar>,
    /// The median step's bound is a lower bound (an unknown side in ncu).
    pub bound_is_lower: bool,
    /// Bars (indices into `bars`) of the report's outlier steps (longer
    /// than 3 × the median step): cut at the top of an axis scaled to the
    /// others, and named in the subtitle.
    pub outliers: Vec<usize>,
    /// What the subtitle says about the bound instead of its part, when the
    /// part hides it: a stated bound longer than the step (capped), or a
    /// bound above kernels' own times (capped to them).
    pub bound_note: Option<String>,
}

impl BudgetInput {
    /// The median step, then the steps in order (at most
    /// [`BUDGET_MAX_BARS`]); error when there is no step.
    pub fn from_report(r: &BudgetReport) -> Result<BudgetInput, InputError> {
        let m = r.median_step.and_then(|i| r.steps.get(i)).ok_or_else(|| {
            InputError::new(format!(
                "--plot: no `{}` step to draw (check --nvtx against `rooftrace gaps --nvtx`)",
                r.pattern
            ))
        })?;
        let bar = |label: String, s: &crate::budget::StepBudget| BudgetBar {
            label,
            parts: s.parts.iter().map(|p| (p.kind, p.ns)).collect(),
        };
        let mut bars = vec![bar("median".into(), m)];
        let mut outliers = Vec::new();
        for (i, s) in r.steps.iter().enumerate().take(BUDGET_MAX_BARS) {
            if r.outlier_steps.contains(&i) {
                outliers.push(bars.len());
            }
            bars.push(bar(format!("#{}", i + 1), s));
        }
        Ok(BudgetInput {
            // Plain text: a chart title is not Markdown.
            title: format!("Step budget of the {} range on {}", r.pattern, r.gpu.name),
            bars,
            bound_is_lower: m.lower_bound_launches > 0,
            outliers,
            bound_note: bound_note(r, m),
        })
    }
}

/// The subtitle's word on a bound the median bar does not show as it was
/// stated: `--bytes-per-step` longer than the step (so the bytes cannot be
/// this range's traffic), or kernels' bounds capped to their own times.
fn bound_note(r: &BudgetReport, m: &crate::budget::StepBudget) -> Option<String> {
    if let crate::budget::BoundSource::BytesPerStep { bytes, bound_ns } = &r.bound_source {
        if *bound_ns > m.step_ns as f64 {
            return Some(format!(
                "bound {} > step: {}/step cannot be this range's traffic",
                duration_ns(*bound_ns),
                crate::units::si(*bytes, "B"),
            ));
        }
    }
    (m.bound_capped_ns > 0).then(|| {
        format!(
            "bound {} (another {} above kernels' own times capped to them)",
            duration_ns(m.part(PartKind::Bound) as f64),
            duration_ns(m.bound_capped_ns as f64)
        )
    })
}

/// The axis top that keeps the typical bars readable: the tallest bar that
/// is not an outlier, when the outliers are taller; `None` when nothing is
/// cut.
fn typical_max(input: &BudgetInput, total: impl Fn(&BudgetBar) -> i64) -> Option<i64> {
    let typical = input
        .bars
        .iter()
        .enumerate()
        .filter(|(i, _)| !input.outliers.contains(i))
        .map(|(_, b)| total(b))
        .max()?;
    let tallest = input
        .outliers
        .iter()
        .filter_map(|&i| input.bars.get(i))
        .map(&total)
        .max()?;
    (typical > 0 && tallest > typical).then_some(typical)
}

/// The colour of a part.
pub fn part_color(kind: PartKind) -> RGBColor {
    match kind {
        PartKind::Idle(c) => style::gap_color(c),
        PartKind::Bound => RGBColor(0, 90, 50),
        PartKind::Shortfall => RGBColor(0, 114, 178),
        PartKind::NoCounters => RGBColor(120, 120, 120),
        PartKind::Graph => RGBColor(140, 86, 75),
        PartKind::Memcpy => style::MEMCPY_COLOR,
        PartKind::Memset => style::MEMSET_COLOR,
        PartKind::ExposedComm => RGBColor(204, 121, 167),
        PartKind::Outside => RGBColor(220, 220, 220),
    }
}

/// The legend entries, one per part some bar holds (in the order the bars
/// first hold them), each with its median-step time; a part the median
/// step lacks says where it is instead of "0".
fn legend_items(input: &BudgetInput) -> Vec<(PartKind, LegendItem)> {
    let mut kinds: Vec<PartKind> = Vec::new();
    for b in &input.bars {
        for (k, ns) in &b.parts {
            if *ns > 0 && !kinds.contains(k) {
                kinds.push(*k);
            }
        }
    }
    let Some(first) = input.bars.first() else {
        return Vec::new();
    };
    kinds
        .iter()
        .map(|k| {
            let median = first.parts.iter().find(|p| p.0 == *k).map_or(0, |p| p.1);
            let value = if median > 0 {
                duration_ns(median as f64)
            } else {
                let most = input
                    .bars
                    .iter()
                    .flat_map(|b| b.parts.iter().filter(|p| p.0 == *k).map(|p| p.1))
                    .max()
                    .unwrap_or(0);
                format!(
                    "none in the median, up to {} in a step",
                    duration_ns(most as f64)
                )
            };
            let item = LegendItem {
                swatch: Swatch::Bar(part_color(*k)),
                text: format!("{}: {value}", k.label()),
            };
            (*k, item)
        })
        .collect()
}

/// A stacked segment on the canvas.
#[derive(Debug, Clone, PartialEq)]
pub struct BarSegment {
    /// In pixels.
    pub rect: Rect,
    /// Its part.
    pub part: PartKind,
}

/// The chart model.
#[derive(Debug, Clone, PartialEq)]
pub struct BudgetChart {
    /// Canvas size, in pixels.
    pub size_px: (u32, u32),
    /// Title.
    pub title: String,
    /// Subtitle: the median step and its bound.
    pub subtitle: String,
    /// Plot frame, in pixels.
    pub plot: Rect,
    /// Time axis, ns.
    pub y: LinearAxis,
    /// Time ticks.
    pub y_ticks: Vec<Tick>,
    /// The bar labels that fit under the axis without overlapping (the
    /// median's first), as drawn.
    pub labels: Vec<super::extent::PlacedText>,
    /// Segments, bar by bar, bottom first (zero parts left out).
    pub segments: Vec<BarSegment>,
    /// Legend: each part present in some bar, with the median step's time.
    pub legend: Legend,
}

impl BudgetChart {
    /// Lays out the bars.
    pub fn build(input: &BudgetInput) -> Result<BudgetChart, PlotError> {
        let first = input
            .bars
            .first()
            .ok_or_else(|| PlotError::Empty("no step".into()))?;
        let total = |b: &BudgetBar| b.parts.iter().map(|p| p.1.max(0)).sum::<i64>();
        let max = input.bars.iter().map(total).max().unwrap_or(0);
        if max <= 0 {
            return Err(PlotError::Empty("every step is 0 ns long".into()));
        }
        // Outlier steps do not set the scale: the axis fits the others and
        // the outliers are cut at its top (the subtitle names them).
        let cut_at = typical_max(input, total);
        let y = LinearAxis::nice(0.0, cut_at.unwrap_or(max) as f64, 6);
        let y_ticks = y.ticks(|v| if v == 0.0 { "0".into() } else { duration_ns(v) });
        let items = legend_items(input);
        let kinds: Vec<PartKind> = items.iter().map(|i| i.0).collect();
        let (w, h) = style::HISTOGRAM_SIZE_PX;
        let at = (w as i32 - 20, style::MARGIN_PX.1);
        let mut legend = Legend::new(items.iter().map(|i| i.1.clone()).collect(), at, true)?;
        let plot = Rect {
            left: style::MARGIN_PX.0 - 40,
            top: style::MARGIN_PX.1,
            right: legend.rect.left - 25,
            bottom: h as i32 - style::MARGIN_PX.3,
        };
        let n = input.bars.len() as i32;
        let slot = (plot.width() / n.max(1)).max(2);
        let y_px = |v: f64| plot.bottom - (y.fraction(v) * plot.height() as f64).round() as i32;
        let mut segments = Vec::new();
        let mut labels = Vec::new();
        for (i, b) in input.bars.iter().enumerate() {
            let left = plot.left + i as i32 * slot + slot / 6;
            let right = plot.left + (i as i32 + 1) * slot - slot / 6;
            labels.push(((left + right) / 2, b.label.clone()));
            let mut below = 0i64;
            let top_ns = y.max;
            for (kind, ns) in b.parts.iter().filter(|p| p.1 > 0) {
                if below as f64 >= top_ns {
                    break; // cut: above the axis
                }
                segments.push(BarSegment {
                    rect: Rect {
                        left,
                        right: right.max(left + 1),
                        top: y_px(((below + ns) as f64).min(top_ns)),
                        bottom: y_px(below as f64),
                    },
                    part: *kind,
                });
                below += ns;
            }
        }
        // A part under a pixel in every bar, or only in the cut tops of
        // outlier bars, is drawn nowhere: it leaves the legend (the plot
        // keeps its width; the report's table and JSON have it).
        let shown = |k: PartKind| {
            segments
                .iter()
                .any(|s| s.part == k && s.rect.bottom - s.rect.top >= 1)
        };
        if kinds.iter().any(|k| !shown(*k)) {
            let drawn = items
                .into_iter()
                .filter(|(k, _)| shown(*k))
                .map(|i| i.1)
                .collect();
            legend = Legend::new(drawn, at, true)?;
        }
        let bound = first
            .parts
            .iter()
            .find(|p| p.0 == PartKind::Bound)
            .map_or(0, |p| p.1);
        let bound_text = match &input.bound_note {
            Some(note) => note.clone(),
            None => format!(
                "bound {}{}",
                if input.bound_is_lower { "≥" } else { "" },
                duration_ns(bound as f64)
            ),
        };
        let cut_text = match cut_at {
            Some(_) => {
                let longest = input
                    .outliers
                    .iter()
                    .filter_map(|&i| input.bars.get(i))
                    .max_by_key(|b| total(b))
                    .map(|b| format!("longest {}: {}", b.label, duration_ns(total(b) as f64)))
                    .unwrap_or_default();
                format!(
                    "; {} outlier{} cut ({longest})",
                    input.outliers.len(),
                    if input.outliers.len() == 1 { "" } else { "s" },
                )
            }
            None => String::new(),
        };
        let core = format!(
            "median {}, {bound_text}{cut_text}",
            duration_ns(total(first) as f64)
        );
        let with_how =
            format!("{core}; stacked from the bound (bottom) to the measured step (top)");
        let room = w as i32 - 40;
        let subtitle = if super::labels::text_size_px(&with_how, style::SUBTITLE_FONT)?.0 <= room {
            with_how
        } else {
            // One line inside the canvas, cut with `…` if it must be.
            super::extent::wrap_to_width(&core, style::SUBTITLE_FONT, room, 1)?
                .pop()
                .unwrap_or(core)
        };
        Ok(BudgetChart {
            size_px: style::HISTOGRAM_SIZE_PX,
            title: input.title.clone(),
            subtitle,
            plot,
            y,
            y_ticks,
            labels: super::ticks::fitting_x_labels(&labels, plot.bottom)?,
            segments,
            legend,
        })
    }
}

impl Chart for BudgetChart {
    fn size_px(&self) -> (u32, u32) {
        self.size_px
    }

    fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<(), PlotError> {
        let p = self.plot;
        draw::canvas(area, &self.title, &self.subtitle, self.size_px.0 as i32 / 2)?;
        let row = |v: f64| p.bottom - (self.y.fraction(v) * p.height() as f64).round() as i32;
        let rows = self
            .y_ticks
            .iter()
            .map(|t| (row(t.value), t.label.as_str()));
        draw::y_grid(area, p, rows, 10)?;
        for s in &self.segments {
            draw::fill_rect(area, s.rect, part_color(s.part), 1.0)?;
        }
        // Labels only where they fit (decided in `build`).
        for l in &self.labels {
            draw::x_tick(area, l.pos.0, p.bottom, &l.text)?;
        }
        draw::outline_rect(area, p, style::INK, 1)?;
        draw::axis_titles(area, p, "step (median first, then in order)", "time")?;
        draw::legend(area, &self.legend)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HOST: PartKind = PartKind::Idle(crate::gaps::GapClass::HostBound);

    #[test]
    fn bars_stack_from_the_bound_to_the_step() {
        let bar = |parts: &[(PartKind, i64)]| BudgetBar {
            label: "b".into(),
            parts: parts.to_vec(),
        };
        let input = BudgetInput {
            title: "t".into(),
            bars: vec![
                bar(&[
                    (PartKind::Bound, 400),
                    (PartKind::Shortfall, 100),
                    (HOST, 500),
                ]),
                bar(&[
                    (PartKind::Bound, 400),
                    (PartKind::Shortfall, 0),
                    (HOST, 600),
                ]),
            ],
            bound_is_lower: false,
            outliers: vec![],
            bound_note: None,
        };
        let c = BudgetChart::build(&input).unwrap();
        // Zero parts are not drawn: 3 + 2 segments.
        assert_eq!(c.segments.len(), 5);
        assert_eq!(c.segments[0].part, PartKind::Bound);
        // Each segment starts where the one below ends.
        assert_eq!(c.segments[1].rect.bottom, c.segments[0].rect.top);
        // Axis covers the 1000 ns bars.
        assert!(c.y.max >= 1000.0);
        assert_eq!(c.legend.items.len(), 3);
    }
}
