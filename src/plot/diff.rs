//! Charts of `rooftrace diff --plot`: [`DiffRooflineInput::from_diff`] (a
//! roofline with an arrow from each kernel's base point to its new point)
//! and [`DiffIdleInput::from_diff`] (idle per class, before vs after bars).
//! Models are plain data; the drawers reuse the roofline drawer and the
//! shared drawing helpers.

use super::axis::{LinearAxis, Tick};
use super::labels::Rect;
use super::roofline::{KernelPoint, RooflineChart, RooflineInput};
use super::{draw, style, Chart, PlotError};
use crate::diff::DiffReport;
use crate::roofs::{ComputePath, Roofs};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

/// Most arrows labelled (by the largest time change).
pub const DIFF_LABELS_MAX: usize = 8;

/// Name prefix that marks a base point inside the shared roofline input.
const BASE_MARK: &str = "\u{1}base:";

/// One kernel's move on the roofline.
#[derive(Debug, Clone, PartialEq)]
pub struct Move {
    /// Kernel name and occurrence.
    pub name: String,
    /// Base (intensity FLOP/byte, FLOP/s).
    pub before: (f64, f64),
    /// New point.
    pub after: (f64, f64),
    /// New duration, ns (marker size).
    pub duration_ns: f64,
    /// Duration change, ns (ranks the labels).
    pub delta_ns: f64,
}

/// What the diff roofline needs.
#[derive(Debug, Clone, PartialEq)]
pub struct DiffRooflineInput {
    /// The roofs and every point (new points, then base points).
    pub roofline: RooflineInput,
    /// Kernels with a point on both sides.
    pub moves: Vec<Move>,
}

impl DiffRooflineInput {
    /// The chart input of an ncu diff: kernels with FLOPs and bytes on both
    /// sides; `None` without roofs or without such a kernel.
    pub fn from_diff(r: &DiffReport) -> Option<DiffRooflineInput> {
        let n = r.ncu.as_ref()?;
        let roofs = n.roofs.clone()?;
        let moves: Vec<Move> = n
            .kernels
            .iter()
            .filter_map(|k| {
                Some(Move {
                    name: format!("{} #{}", k.name, k.occurrence),
                    before: k.point_before?,
                    after: k.point_after?,
                    duration_ns: k.duration_ns.after?,
                    delta_ns: k.duration_ns.delta?,
                })
            })
            .collect();
        let path = |name: &str| {
            n.kernels
                .iter()
                .find(|k| format!("{} #{}", k.name, k.occurrence) == name)
                .and_then(|k| k.path)
        };
        DiffRooflineInput::from_moves(roofs, moves, path)
    }

    /// The chart input of kernel moves (each with the compute path of its
    /// point, looked up by name): the largest time changes first; `None`
    /// without a move.
    pub fn from_moves(
        roofs: Roofs,
        mut moves: Vec<Move>,
        path: impl Fn(&str) -> Option<ComputePath>,
    ) -> Option<DiffRooflineInput> {
        if moves.is_empty() {
            return None;
        }
        moves.sort_by(|a, b| {
            b.delta_ns
                .abs()
                .total_cmp(&a.delta_ns.abs())
                .then_with(|| a.name.cmp(&b.name))
        });
        let mut points: Vec<KernelPoint> = Vec::new();
        for (i, m) in moves.iter().enumerate() {
            let before_ns = m.duration_ns - m.delta_ns;
            let change = if before_ns > 0.0 {
                format!("{:+.1} %", m.delta_ns / before_ns * 100.0)
            } else {
                String::new()
            };
            points.push(KernelPoint {
                name: format!("{} {change}", m.name),
                flop_per_byte: m.after.0,
                flop_per_s: m.after.1,
                duration_ns: m.duration_ns,
                // The roofline chart labels the largest "time lost" first
                // and prints it only when positive: a negative rank puts
                // the largest changes first with no "lost" suffix.
                time_lost_ns: -(i as f64) - 1.0,
                path: path(&m.name),
                above_roof: false,
                // Only kernels with a point on both sides are moves.
                not_drawn: None,
                useful: false,
            });
        }
        for m in &moves {
            points.push(KernelPoint {
                name: format!("{BASE_MARK}{}", m.name),
                flop_per_byte: m.before.0,
                flop_per_s: m.before.1,
                duration_ns: m.duration_ns,
                time_lost_ns: -1e18,
                // Same path as the new point, so the legend lists no extra path.
                path: path(&m.name),
                above_roof: false,
                not_drawn: None,
                useful: false,
            });
        }
        Some(DiffRooflineInput {
            roofline: RooflineInput {
                roofs,
                points,
                top_n: moves.len().min(DIFF_LABELS_MAX),
            },
            moves,
        })
    }
}

/// The diff roofline: the roofline chart of the new points, and arrows.
#[derive(Debug, Clone, PartialEq)]
pub struct DiffRooflineChart {
    /// Roofs, axes, new-point markers and labels.
    pub chart: RooflineChart,
    /// Arrows from base to new point, in pixels.
    pub arrows: Vec<((i32, i32), (i32, i32))>,
}

impl DiffRooflineChart {
    /// Computes the chart (the axes cover both sides' points).
    pub fn build(input: &DiffRooflineInput) -> Result<DiffRooflineChart, PlotError> {
        let mut chart = RooflineChart::build(&input.roofline)?;
        chart.points.retain(|p| !p.name.starts_with(BASE_MARK));
        chart.title = format!("Roofline before → after: {}", input.roofline.roofs.gpu);
        let labelled = chart.points.iter().filter(|p| p.label.is_some()).count();
        chart.subtitle = super::labels::fit_middle(
            "roofs: ",
            &input.roofline.roofs.source,
            &format!(
                " · {} kernels, arrow from base to new point, top {labelled} by time change labelled",
                input.moves.len()
            ),
            style::SUBTITLE_FONT,
            style::ROOFLINE_SIZE_PX.0 as i32 - 40,
        )?;
        let f = chart.frame;
        let arrows = input
            .moves
            .iter()
            .filter(|m| f.contains(m.before.0, m.before.1) && f.contains(m.after.0, m.after.1))
            .map(|m| (f.px(m.before.0, m.before.1), f.px(m.after.0, m.after.1)))
            .collect();
        Ok(DiffRooflineChart { chart, arrows })
    }
}

/// The two barbs of an arrow head at `to`, 10 px long.
pub fn arrow_head(from: (i32, i32), to: (i32, i32)) -> [(i32, i32); 2] {
    let (dx, dy) = ((to.0 - from.0) as f64, (to.1 - from.1) as f64);
    let len = dx.hypot(dy).max(1e-9);
    let (ux, uy) = (dx / len, dy / len);
    let barb = |s: f64| {
        let (c, si) = (0.5f64.cos(), s * 0.5f64.sin());
        let (bx, by) = (ux * c - uy * si, uy * c + ux * si);
        (
            (to.0 as f64 - 10.0 * bx).round() as i32,
            (to.1 as f64 - 10.0 * by).round() as i32,
        )
    };
    [barb(1.0), barb(-1.0)]
}

impl Chart for DiffRooflineChart {
    fn size_px(&self) -> (u32, u32) {
        self.chart.size_px
    }

    fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<(), PlotError> {
        self.chart.draw(area)?;
        for &(from, to) in &self.arrows {
            draw::dot(
                area,
                from,
                4.0,
                style::BACKGROUND,
                1.0,
                Some((style::INK_SOFT, 2)),
            )?;
            if (to.0 - from.0).abs() + (to.1 - from.1).abs() < 3 {
                continue;
            }
            draw::line(area, vec![from, to], style::INK, 2)?;
            let [a, b] = arrow_head(from, to);
            draw::line(area, vec![a, to, b], style::INK, 2)?;
        }
        Ok(())
    }
}

/// Idle of one class on both sides, ns.
#[derive(Debug, Clone, PartialEq)]
pub struct ClassBars {
    /// Class key.
    pub class: String,
    /// Base idle, ns.
    pub before_ns: f64,
    /// New idle, ns.
    pub after_ns: f64,
}

/// What the idle-per-class chart needs.
#[derive(Debug, Clone, PartialEq)]
pub struct DiffIdleInput {
    /// Title line (the two files).
    pub subtitle: String,
    /// Classes, in report order.
    pub classes: Vec<ClassBars>,
}

impl DiffIdleInput {
    /// Idle per class over all devices, from an nsys diff.
    pub fn from_diff(r: &DiffReport) -> DiffIdleInput {
        let classes = r
            .nsys
            .as_ref()
            .map(|g| {
                g.total
                    .classes
                    .iter()
                    .map(|c| ClassBars {
                        class: c.class.clone(),
                        before_ns: c.total_ns.before.unwrap_or(0.0),
                        after_ns: c.total_ns.after.unwrap_or(0.0),
                    })
                    .collect()
            })
            .unwrap_or_default();
        DiffIdleInput {
            subtitle: format!("{} → {}", r.base.input, r.new.input),
            classes,
        }
    }
}

/// One bar, in pixels.
#[derive(Debug, Clone, PartialEq)]
pub struct Bar {
    /// Rectangle.
    pub rect: Rect,
    /// Base (true) or new.
    pub before: bool,
}

/// The idle-per-class chart model.
#[derive(Debug, Clone, PartialEq)]
pub struct DiffIdleChart {
    /// Canvas size.
    pub size_px: (u32, u32),
    /// Subtitle.
    pub subtitle: String,
    /// Plot frame.
    pub plot: Rect,
    /// Y ticks (ms) with their pixel rows.
    pub y_ticks: Vec<(Tick, i32)>,
    /// Bars.
    pub bars: Vec<Bar>,
    /// Class labels under each pair, with their centre x.
    pub x_labels: Vec<(String, i32)>,
}

const BEFORE_COLOR: RGBColor = RGBColor(170, 170, 170);

impl DiffIdleChart {
    /// Lays out two bars per class on a linear axis in ms.
    pub fn build(input: &DiffIdleInput) -> Result<DiffIdleChart, PlotError> {
        super::ensure_font()?;
        if input.classes.is_empty() {
            return Err(PlotError::Empty("no idle class on either side".into()));
        }
        let size_px = style::HISTOGRAM_SIZE_PX;
        let plot = Rect::at(110, 90, size_px.0 as i32 - 150, size_px.1 as i32 - 200);
        let max_ms = input
            .classes
            .iter()
            .map(|c| c.before_ns.max(c.after_ns) / 1e6)
            .fold(0.0, f64::max);
        let axis = LinearAxis::nice(0.0, max_ms.max(1e-3), 6);
        let y = |ms: f64| plot.bottom - (axis.fraction(ms) * plot.height() as f64).round() as i32;
        let decimals = super::axis::decimals_for_step(axis.step);
        let y_ticks = axis
            .ticks(|v| format!("{v:.decimals$}"))
            .into_iter()
            .map(|t| {
                let py = y(t.value);
                (t, py)
            })
            .collect();
        let slot = plot.width() / input.classes.len() as i32;
        let bar_w = (slot / 3).max(2);
        let mut bars = Vec::new();
        let mut x_labels = Vec::new();
        for (i, c) in input.classes.iter().enumerate() {
            let left = plot.left + i as i32 * slot + slot / 6;
            for (j, ns) in [c.before_ns, c.after_ns].into_iter().enumerate() {
                let top = y(ns / 1e6);
                let l = left + j as i32 * bar_w;
                bars.push(Bar {
                    rect: Rect::at(l, top, bar_w, (plot.bottom - top).max(0)),
                    before: j == 0,
                });
            }
            x_labels.push((c.class.replace('_', " "), left + bar_w));
        }
        Ok(DiffIdleChart {
            size_px,
            subtitle: input.subtitle.clone(),
            plot,
            y_ticks,
            bars,
            x_labels,
        })
    }
}

impl Chart for DiffIdleChart {
    fn size_px(&self) -> (u32, u32) {
        self.size_px
    }

    fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<(), PlotError> {
        let p = self.plot;
        draw::canvas(
            area,
            "Idle per class: before (grey) vs after (blue)",
            &self.subtitle,
            self.size_px.0 as i32 / 2,
        )?;
        let rows = self.y_ticks.iter().map(|(t, py)| (*py, t.label.as_str()));
        draw::y_grid(area, p, rows, 8)?;
        draw::text(
            area,
            "idle (ms)",
            (p.left - 90, p.top - 30),
            style::AXIS_TITLE_FONT,
            style::INK,
            (HPos::Left, VPos::Top),
        )?;
        for b in &self.bars {
            let color = if b.before {
                BEFORE_COLOR
            } else {
                style::KERNEL_COLOR
            };
            draw::fill_rect(area, b.rect, color, 1.0)?;
        }
        for (label, x) in &self.x_labels {
            draw::text(
                area,
                label,
                (*x, p.bottom + 10),
                style::LABEL_FONT,
                style::INK,
                (HPos::Center, VPos::Top),
            )?;
        }
        draw::outline_rect(area, p, style::INK_SOFT, 1)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arrow_head_points_back_along_the_arrow() {
        // Rightward arrow: barbs to the left of the tip, one above, one below.
        let [a, b] = arrow_head((0, 0), (100, 0));
        assert!(a.0 < 100 && b.0 < 100);
        assert_eq!(a.1, -b.1);
        assert!(a.1 != 0);
    }

    #[test]
    fn idle_bars_stand_on_the_axis_and_scale_with_idle() {
        let input = DiffIdleInput {
            subtitle: String::new(),
            classes: vec![ClassBars {
                class: "host_bound".into(),
                before_ns: 1e6,
                after_ns: 2e6,
            }],
        };
        let c = DiffIdleChart::build(&input).unwrap();
        let (b, a) = (&c.bars[0].rect, &c.bars[1].rect);
        assert_eq!(b.bottom, c.plot.bottom);
        assert_eq!(a.bottom, c.plot.bottom);
        // 2 ms is twice 1 ms, to a pixel.
        assert!((a.height() - 2 * b.height()).abs() <= 1);
    }
}
