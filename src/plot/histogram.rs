//! The gap histogram (`rooftrace gaps --plot-hist`): idle-gap durations in
//! the bins the caller gives (for `gaps`, the report's 1-2-5 bins) on a log
//! axis; each bar is the bin's idle *time*, stacked by gap class, with the
//! gap count above it (a few long gaps holding most of the idle time stand
//! out next to thousands of short ones).

use super::axis::{decade_si, LinearAxis, LogAxis, Tick};
use super::extent::{self, first_overlap, legend_texts, HAnchor, PlacedText, VAnchor};
use super::labels::{Legend, LegendItem, Rect, Swatch};
use super::{draw, style, Chart, PlotError};
use crate::gaps::GapClass;
use crate::units::duration_ns;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// One idle gap.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GapSample {
    /// Gap length, in ns.
    pub duration_ns: f64,
    /// Why the GPU idled.
    pub class: GapClass,
}

/// Everything the histogram needs.
#[derive(Debug, Clone, PartialEq)]
pub struct HistogramInput {
    /// Chart title, e.g. the trace file name.
    pub title: String,
    /// The gaps.
    pub gaps: Vec<GapSample>,
    /// Bin edges, ns, increasing: bin `i` is `[edges_ns[i], edges_ns[i + 1])`,
    /// the last one open (e.g. [`crate::gaps::HIST_EDGES_NS`]).
    pub edges_ns: Vec<i64>,
}

/// One bin: `[lo_ns, hi_ns)` and its count per class.
#[derive(Debug, Clone, PartialEq)]
pub struct Bin {
    /// Lower edge as drawn, in ns (a bin starting at 0 is drawn from the
    /// axis start).
    pub lo_ns: f64,
    /// Upper edge (exclusive) as drawn, in ns (the open last bin ends at
    /// the axis end).
    pub hi_ns: f64,
    /// Gap count per class, in [`GapClass::ALL`] order.
    pub counts: [u64; crate::gaps::class::N_CLASSES],
    /// Idle time per class, ns, in [`GapClass::ALL`] order.
    pub time_ns: [f64; crate::gaps::class::N_CLASSES],
}

impl Bin {
    /// Gaps in the bin over all classes.
    pub fn total(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// Idle time in the bin over all classes, ns.
    pub fn total_time_ns(&self) -> f64 {
        self.time_ns.iter().sum()
    }
}

/// A stacked bar segment on the canvas.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Segment {
    /// The segment, in pixels.
    pub rect: Rect,
    /// Its class.
    pub class: GapClass,
}

/// The histogram chart model.
#[derive(Debug, Clone, PartialEq)]
pub struct GapHistogram {
    /// Canvas size, in pixels.
    pub size_px: (u32, u32),
    /// Title line.
    pub title: String,
    /// Subtitle: gap count and total idle time.
    pub subtitle: String,
    /// Plot frame, in pixels.
    pub plot: Rect,
    /// Duration axis, in ns (log).
    pub x: LogAxis,
    /// Idle-time axis, ns.
    pub y: LinearAxis,
    /// Duration ticks, one per decade.
    pub x_ticks: Vec<Tick>,
    /// Idle-time ticks.
    pub y_ticks: Vec<Tick>,
    /// The gap count of each non-empty bar, as drawn: above the bar,
    /// raised a line at a time past a label it would overlap; the cut
    /// bar's "N gaps, T (bar cut)" sits in the frame's top row beside it.
    pub counts: Vec<PlacedText>,
    /// Bars whose count found no free place (their gaps are still in the
    /// legend's per-class counts).
    pub hidden_counts: usize,
    /// Every horizontal text as drawn (title, subtitle, tick labels, x
    /// axis title, counts, legend entries): [`first_overlap`] checks them.
    /// The rotated y axis title is drawn beside them, left of the ticks.
    pub texts: Vec<PlacedText>,
    /// Bins from the shortest to the longest gap.
    pub bins: Vec<Bin>,
    /// Stacked segments, bottom class first.
    pub segments: Vec<Segment>,
    /// Legend: each class present with its count and idle time.
    pub legend: Legend,
    /// Gaps left out because their duration is not a positive number.
    pub skipped: usize,
}

/// Least height of a non-empty stacked segment, in pixels.
pub const MIN_SEGMENT_PX: i32 = 3;

/// Index of the bin of `edges_ns` holding `d_ns` (an edge starts its bin;
/// below the first edge is the first bin).
pub fn bin_index(d_ns: f64, edges_ns: &[i64]) -> usize {
    edges_ns
        .partition_point(|&e| e as f64 <= d_ns)
        .saturating_sub(1)
}

impl GapHistogram {
    /// Computes bins, stacks and axes.
    pub fn build(input: &HistogramInput) -> Result<GapHistogram, PlotError> {
        let valid: Vec<GapSample> = input
            .gaps
            .iter()
            .copied()
            .filter(|g| g.duration_ns.is_finite() && g.duration_ns > 0.0)
            .collect();
        let skipped = input.gaps.len() - valid.len();
        let (lo, hi) = valid.iter().fold((f64::INFINITY, 0.0f64), |(lo, hi), g| {
            (lo.min(g.duration_ns), hi.max(g.duration_ns))
        });
        if valid.is_empty() || input.edges_ns.is_empty() {
            return Err(PlotError::Empty(
                "no idle gap with a positive duration".into(),
            ));
        }
        let x = LogAxis::covering(lo, hi, 1.0);
        let (axis_lo, axis_hi) = (10f64.powi(x.lo_exp), 10f64.powi(x.hi_exp));
        // The bins from the shortest gap's to the longest's, clipped to the axis.
        let (first, last) = (
            bin_index(lo, &input.edges_ns),
            bin_index(hi, &input.edges_ns),
        );
        let edge = |i: usize| input.edges_ns.get(i).map(|&e| e as f64);
        let mut bins: Vec<Bin> = (first..=last)
            .map(|i| Bin {
                lo_ns: edge(i).map_or(axis_lo, |e| e.max(axis_lo)),
                hi_ns: edge(i + 1).map_or(axis_hi, |e| e.min(axis_hi)),
                counts: [0; crate::gaps::class::N_CLASSES],
                time_ns: [0.0; crate::gaps::class::N_CLASSES],
            })
            .collect();
        let mut per_class = [(0u64, 0.0f64); crate::gaps::class::N_CLASSES];
        for g in &valid {
            let i = bin_index(g.duration_ns, &input.edges_ns) - first;
            let c = class_index(g.class);
            bins[i].counts[c] += 1;
            bins[i].time_ns[c] += g.duration_ns;
            per_class[c].0 += 1;
            per_class[c].1 += g.duration_ns;
        }
        let cap = axis_cap(&bins);
        let max_time = bins.iter().map(Bin::total_time_ns).fold(0.0, f64::max);
        let y = LinearAxis::nice(0.0, cap.unwrap_or(max_time).max(1.0), 6);
        let x_ticks = x.decade_ticks(|e| decade_si(e - 9, "s"));
        let y_ticks = y.ticks(|v| if v == 0.0 { "0".into() } else { duration_ns(v) });

        let items: Vec<LegendItem> = GapClass::ALL
            .iter()
            .zip(per_class)
            .filter(|(_, (n, _))| *n > 0)
            .map(|(c, (n, t))| LegendItem {
                swatch: Swatch::Bar(style::gap_color(*c)),
                text: format!("{}: {n}, {}", c.label(), duration_ns(t)),
            })
            .collect();
        let (w, h) = style::HISTOGRAM_SIZE_PX;
        let legend = Legend::new(items, (w as i32 - 20, style::MARGIN_PX.1), true)?;
        let plot = Rect {
            left: style::MARGIN_PX.0 - 40,
            top: style::MARGIN_PX.1,
            right: legend.rect.left - 25,
            bottom: h as i32 - style::MARGIN_PX.3,
        };
        let x_px = |v: f64| plot.left + (x.fraction(v) * plot.width() as f64).round() as i32;
        let y_px = |v: f64| plot.bottom - (y.fraction(v) * plot.height() as f64).round() as i32;
        let mut segments = Vec::new();
        // (bar, text, cut): placed once every bar is known.
        let mut counts: Vec<(Rect, String, bool)> = Vec::new();
        for b in &bins {
            let (l, r) = (x_px(b.lo_ns) + 1, x_px(b.hi_ns) - 1);
            // A bar above the cut is drawn to the top of the frame, its
            // classes in proportion, and says its idle time above it.
            let scale = match cap {
                Some(_) if b.total_time_ns() > y.max => y.max / b.total_time_ns(),
                _ => 1.0,
            };
            let mut below = 0.0f64;
            let mut bottom = y_px(0.0);
            for ((c, &n), &t) in GapClass::ALL.iter().zip(&b.counts).zip(&b.time_ns) {
                if n == 0 {
                    continue;
                }
                // Many short gaps can hold little idle time: every non-empty
                // segment gets at least MIN_SEGMENT_PX so it stays visible
                // next to a bin of a few long gaps.
                let top = y_px((below + t) * scale).min(bottom - MIN_SEGMENT_PX);
                segments.push(Segment {
                    rect: Rect {
                        left: l,
                        right: r,
                        top,
                        bottom,
                    },
                    class: *c,
                });
                below += t;
                bottom = top;
            }
            if b.total() > 0 {
                let text = if scale < 1.0 {
                    format!(
                        "{} gaps, {} (bar cut)",
                        b.total(),
                        duration_ns(b.total_time_ns())
                    )
                } else {
                    b.total().to_string()
                };
                let bar = Rect {
                    left: l,
                    right: r,
                    top: bottom,
                    bottom: y_px(0.0),
                };
                counts.push((bar, text, scale < 1.0));
            }
        }
        let subtitle = subtitle(&valid, cap.map(|_| y.max));
        let mut texts = fixed_texts(
            &input.title,
            &subtitle,
            plot,
            (&x, &x_ticks),
            (&y, &y_ticks),
        );
        texts.extend(legend_texts(&legend));
        let (counts, hidden_counts) = place_counts(&counts, plot, &mut texts)?;
        Ok(GapHistogram {
            size_px: style::HISTOGRAM_SIZE_PX,
            title: input.title.clone(),
            subtitle,
            plot,
            x,
            y,
            x_ticks,
            y_ticks,
            counts,
            hidden_counts,
            texts,
            bins,
            segments,
            legend,
            skipped,
        })
    }
}

/// The subtitle: gap count and idle total, and where the idle-time axis
/// is cut (`cut_at`, ns) when one bin dominates.
fn subtitle(valid: &[GapSample], cut_at: Option<f64>) -> String {
    let total: f64 = valid.iter().map(|g| g.duration_ns).sum();
    let cut = cut_at.map_or(String::new(), |ns| {
        format!(
            "; idle-time axis cut at {} so the other bars stay readable",
            duration_ns(ns)
        )
    });
    format!(
        "{} idle gaps, {} idle in total{cut}",
        valid.len(),
        duration_ns(total)
    )
}

/// The x axis title.
const X_TITLE: &str = "idle gap duration (log bins); gap count above each bar";

/// Title, subtitle, tick labels and the x axis title, as drawn.
fn fixed_texts(
    title: &str,
    subtitle: &str,
    plot: Rect,
    x: (&LogAxis, &[Tick]),
    y: (&LinearAxis, &[Tick]),
) -> Vec<PlacedText> {
    let center_x = style::HISTOGRAM_SIZE_PX.0 as i32 / 2;
    let top = (HAnchor::Center, VAnchor::Top);
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
    for t in y.1 {
        let row = plot.bottom - (y.0.fraction(t.value) * plot.height() as f64).round() as i32;
        texts.push(PlacedText::new(
            t.label.clone(),
            (plot.left - 10, row),
            style::TICK_FONT,
            style::INK,
            (HAnchor::Right, VAnchor::Center),
        ));
    }
    for t in x.1 {
        let col = plot.left + (x.0.fraction(t.value) * plot.width() as f64).round() as i32;
        texts.push(PlacedText::new(
            t.label.clone(),
            (col, plot.bottom + 10),
            style::TICK_FONT,
            style::INK,
            top,
        ));
    }
    texts.push(PlacedText::new(
        X_TITLE,
        ((plot.left + plot.right) / 2, plot.bottom + 42),
        style::AXIS_TITLE_FONT,
        style::INK,
        top,
    ));
    texts
}

/// How many lines a count may be raised to clear another label.
const COUNT_RAISES: i32 = 3;

/// Places each bar's count among `texts` (which it extends): a plain
/// count centred 4 px above its bar; when that overlaps a text already
/// placed (a full-height bar's count under the subtitle), just inside the
/// bar's top if the bar is tall enough, else raised one line at a time (at
/// most [`COUNT_RAISES`]) past a neighbour's count; the cut
/// bar's label, wider than its bin, in the frame's top row right of the
/// bar (left of it when it would cross the frame), where every other bar
/// is at most 40 % high. A count with no free place is left out and
/// counted. Returns the counts and how many were left out.
fn place_counts(
    counts: &[(Rect, String, bool)],
    plot: Rect,
    texts: &mut Vec<PlacedText>,
) -> Result<(Vec<PlacedText>, usize), PlotError> {
    let (_, line_px) = super::labels::text_size_px("0", style::TICK_FONT)?;
    let mut placed = Vec::new();
    let mut hidden = 0;
    for (bar, text, cut) in counts {
        let candidates: Vec<PlacedText> = if *cut {
            let right = PlacedText::new(
                text.clone(),
                (bar.right + 6, plot.top + 4),
                style::TICK_FONT,
                style::INK,
                (HAnchor::Left, VAnchor::Top),
            );
            let left = PlacedText::new(
                text.clone(),
                (bar.left - 6, plot.top + 4),
                style::TICK_FONT,
                style::INK,
                (HAnchor::Right, VAnchor::Top),
            );
            if right.extent()?.right <= plot.right {
                vec![right, left]
            } else {
                vec![left]
            }
        } else {
            let raised = |k: i32| {
                PlacedText::new(
                    text.clone(),
                    ((bar.left + bar.right) / 2, bar.top - 4 - k * (line_px + 2)),
                    style::TICK_FONT,
                    style::INK,
                    (HAnchor::Center, VAnchor::Bottom),
                )
            };
            let mut c = vec![raised(0)];
            if bar.height() >= line_px + 8 {
                c.push(PlacedText::new(
                    text.clone(),
                    ((bar.left + bar.right) / 2, bar.top + 4),
                    style::TICK_FONT,
                    style::INK,
                    (HAnchor::Center, VAnchor::Top),
                ));
            }
            c.extend((1..=COUNT_RAISES).map(raised));
            c
        };
        let mut found = None;
        for c in candidates {
            texts.push(c);
            if first_overlap(texts)?.is_none() {
                found = texts.last().cloned();
                break;
            }
            texts.pop();
        }
        match found {
            Some(t) => placed.push(t),
            None => hidden += 1,
        }
    }
    Ok((placed, hidden))
}

/// A bin holding more than this many times the idle time of the next
/// largest makes the idle-time axis cut.
pub const DOMINANT_BIN_RATIO: f64 = 5.0;

/// Where the idle-time axis stops when one bin dominates: at
/// [`DOMINANT_BIN_RATIO`] / 2 × the second-largest bin, so that bin fills
/// 40 % of the height and the dominant bar is cut at the top (with its
/// time written above it); `None` when no bin dominates.
fn axis_cap(bins: &[Bin]) -> Option<f64> {
    let mut totals: Vec<f64> = bins.iter().map(Bin::total_time_ns).collect();
    totals.sort_by(|a, b| b.total_cmp(a));
    match totals.as_slice() {
        [first, second, ..] if *second > 0.0 && *first > DOMINANT_BIN_RATIO * second => {
            Some(second * DOMINANT_BIN_RATIO / 2.0)
        }
        _ => None,
    }
}

/// Position of `c` in [`GapClass::ALL`] (the enum is declared in that order).
fn class_index(c: GapClass) -> usize {
    c as usize
}

impl Chart for GapHistogram {
    fn size_px(&self) -> (u32, u32) {
        self.size_px
    }

    fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<(), PlotError> {
        let p = self.plot;
        area.fill(&style::BACKGROUND)
            .map_err(|e| PlotError::Draw(e.to_string()))?;
        for t in &self.y_ticks {
            let y = p.bottom - (self.y.fraction(t.value) * p.height() as f64).round() as i32;
            draw::line(area, vec![(p.left, y), (p.right, y)], style::GRID, 1)?;
        }
        for t in &self.x_ticks {
            let x = p.left + (self.x.fraction(t.value) * p.width() as f64).round() as i32;
            draw::line(area, vec![(x, p.bottom), (x, p.bottom + 6)], style::INK, 1)?;
        }
        for s in &self.segments {
            draw::fill_rect(area, s.rect, style::gap_color(s.class), 1.0)?;
        }
        draw::outline_rect(area, p, style::INK, 1)?;
        draw::legend_frame(area, &self.legend)?;
        extent::draw_texts(area, &self.texts)?;
        // The rotated y title, as draw::axis_titles draws it.
        let style = draw::font(style::AXIS_TITLE_FONT, style::INK)
            .transform(FontTransform::Rotate270)
            .pos(Pos::new(HPos::Center, VPos::Top));
        area.draw(&Text::new(
            "idle time".to_string(),
            (6, (p.top + p.bottom) / 2),
            style,
        ))
        .map_err(|e| PlotError::Draw(e.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bins_follow_the_given_edges() {
        let g = |d: f64, class| GapSample {
            duration_ns: d,
            class,
        };
        let input = HistogramInput {
            title: "t".into(),
            gaps: vec![
                g(1_500.0, GapClass::LaunchLatency),
                g(1_900.0, GapClass::LaunchLatency),
                g(2_500.0, GapClass::HostBound),
                g(40_000.0, GapClass::HostBound),
                g(0.0, GapClass::Unattributed),
            ],
            // Edges 0, 1, 2, 5, 10, 20, 50 µs.
            edges_ns: vec![0, 1_000, 2_000, 5_000, 10_000, 20_000, 50_000],
        };
        let h = GapHistogram::build(&input).unwrap();
        // 1.5 µs .. 40 µs covers 10^3 .. 10^5 ns.
        assert_eq!((h.x.lo_exp, h.x.hi_exp), (3, 5));
        // Bins from [1, 2) µs (1.5 µs) to [20, 50) µs (40 µs): 5 bins, the
        // last drawn up to 50 µs.
        assert_eq!(h.bins.len(), 5);
        assert_eq!((h.bins[0].lo_ns, h.bins[4].hi_ns), (1_000.0, 50_000.0));
        // 1.5 and 1.9 µs share bin 0, 2.5 µs is in [2, 5) µs, 40 µs in the last.
        assert_eq!(h.bins[0].counts[class_index(GapClass::LaunchLatency)], 2);
        assert_eq!(h.bins[1].counts[class_index(GapClass::HostBound)], 1);
        assert_eq!(h.bins[4].total(), 1);
        assert_eq!(h.skipped, 1);
        // Bin 0 holds only launch latency; bin 1 only host-bound.
        assert_eq!(h.segments[0].class, GapClass::LaunchLatency);
        assert_eq!(h.segments[1].class, GapClass::HostBound);
        assert_eq!(h.legend.items.len(), 2);
        let edges = [0, 1_000, 2_000];
        assert_eq!(bin_index(999.0, &edges), 0);
        assert_eq!(bin_index(1000.0, &edges), 1);
        assert_eq!(bin_index(5_000.0, &edges), 2);
    }

    #[test]
    fn classes_stack_in_one_bin() {
        let g = |d: f64, class| GapSample {
            duration_ns: d,
            class,
        };
        let input = HistogramInput {
            title: "t".into(),
            gaps: vec![
                g(1_500.0, GapClass::LaunchLatency),
                g(1_900.0, GapClass::HostBound),
            ],
            edges_ns: vec![0, 1_000, 2_000],
        };
        let h = GapHistogram::build(&input).unwrap();
        // Host-bound (first class) at the bottom, launch latency on top.
        assert_eq!(h.segments[0].class, GapClass::HostBound);
        assert_eq!(h.segments[1].class, GapClass::LaunchLatency);
        assert_eq!(h.segments[1].rect.bottom, h.segments[0].rect.top);
        // Heights are idle time: 1.9 µs of host-bound, 1.5 µs of latency;
        // the count (2) sits above the bar.
        let height = |s: &Segment| s.rect.bottom - s.rect.top;
        assert!(height(&h.segments[0]) > height(&h.segments[1]));
        assert_eq!(h.bins[0].total_time_ns(), 3_400.0);
        assert_eq!(h.counts[0].text, "2");
    }

    #[test]
    fn one_dominant_bin_cuts_the_axis_and_keeps_the_others_readable() {
        // One 1.6 s gap and twenty gaps of 2 µs (40 µs): on a linear axis
        // to 1.6 s the short bin would be 3 px high. The axis is cut at
        // 2.5 × 40 µs = 100 µs (rounded up to a nice value), the short bin
        // fills 40 % of the frame or more, the long bar reaches the top.
        let mut gaps = vec![GapSample {
            duration_ns: 1.6e9,
            class: GapClass::HostBound,
        }];
        gaps.extend((0..20).map(|_| GapSample {
            duration_ns: 2_000.0,
            class: GapClass::LaunchLatency,
        }));
        let h = GapHistogram::build(&HistogramInput {
            title: "t".into(),
            gaps,
            edges_ns: crate::gaps::HIST_EDGES_NS.to_vec(),
        })
        .unwrap();
        assert!(h.y.max >= 100_000.0 && h.y.max < 1e6, "{}", h.y.max);
        let height = |c: GapClass| -> i32 {
            h.segments
                .iter()
                .filter(|s| s.class == c)
                .map(|s| s.rect.bottom - s.rect.top)
                .sum()
        };
        // At least a quarter of the frame (40 % before the axis is rounded).
        assert!(height(GapClass::LaunchLatency) * 4 >= h.plot.height());
        assert_eq!(height(GapClass::HostBound), h.plot.height());
        assert!(
            h.counts
                .iter()
                .any(|c| c.text == "1 gaps, 1.60 s (bar cut)"),
            "{:?}",
            h.counts
        );
        assert!(h.subtitle.contains("axis cut at"));
    }
}
