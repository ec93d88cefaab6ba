//! Charts of `rooftrace diff --plot`: [`DiffRooflineInput::from_diff`] (a
//! roofline with an arrow from each kernel's base point to its new point)
//! and [`DiffIdleInput::from_diff`] (idle per class, before vs after bars).
//! Models are plain data; the drawers reuse the roofline drawer and the
//! shared drawing helpers.

use super::axis::LinearAxis;
use super::extent::{self, wrap_to_width, HAnchor, PlacedText, VAnchor};
use super::labels::Rect;
use super::roofline::{KernelPoint, RooflineChart, RooflineInput};
use super::{draw, style, Chart, PlotError};
use crate::diff::DiffReport;
use crate::roofs::{ComputePath, Roofs};
use plotters::coord::Shift;
use plotters::prelude::*;

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
    /// The sides ran on different GPU models (`--allow-different-gpus`):
    /// the title says cross-GPU.
    pub cross_gpu: bool,
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
        DiffRooflineInput::from_moves(roofs, moves, path).map(|mut input| {
            input.cross_gpu = r.identity.cross_gpu;
            input
        })
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
                duration_ns: Some(m.duration_ns),
                // The roofline chart labels the largest "time lost" first
                // and prints it only when positive: a negative rank puts
                // the largest changes first with no "lost" suffix.
                time_lost_ns: Some(-(i as f64) - 1.0),
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
                duration_ns: Some(m.duration_ns),
                time_lost_ns: Some(-1e18),
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
            cross_gpu: false,
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
        chart.title = format!(
            "Roofline before → after: {}{}",
            input.roofline.roofs.gpu,
            cross_words(input.cross_gpu)
        );
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
    /// The class's human name (as `rooftrace gaps` prints it).
    pub label: String,
    /// Base idle, ns.
    pub before_ns: f64,
    /// New idle, ns.
    pub after_ns: f64,
}

/// What the idle-per-class chart needs.
#[derive(Debug, Clone, PartialEq)]
pub struct DiffIdleInput {
    /// Base file name (no directories).
    pub base_name: String,
    /// New file name (no directories).
    pub new_name: String,
    /// Classes, in report order.
    pub classes: Vec<ClassBars>,
    /// The sides ran on different GPU models: the title says cross-GPU.
    pub cross_gpu: bool,
}

/// ` (cross-GPU)` after a chart's title when the sides ran on different GPU models.
fn cross_words(cross: bool) -> &'static str {
    match cross {
        true => " (cross-GPU)",
        false => "",
    }
}

/// The last component of a path as given (the whole text when it has none).
fn file_name(path: &str) -> String {
    std::path::Path::new(path)
        .file_name()
        .map_or_else(|| path.to_string(), |n| n.to_string_lossy().into_owned())
}

impl DiffIdleInput {
    /// Idle per class over all devices, from an nsys diff: the classes with
    /// idle on either side.
    pub fn from_diff(r: &DiffReport) -> DiffIdleInput {
        let classes = r
            .nsys
            .as_ref()
            .map(|g| {
                g.total
                    .classes
                    .iter()
                    // A class without idle on either side adds an empty slot.
                    .filter(|c| {
                        c.total_ns.before.unwrap_or(0.0) > 0.0
                            || c.total_ns.after.unwrap_or(0.0) > 0.0
                    })
                    .map(|c| ClassBars {
                        class: c.class.clone(),
                        label: crate::gaps::class_label(&c.class),
                        before_ns: c.total_ns.before.unwrap_or(0.0),
                        after_ns: c.total_ns.after.unwrap_or(0.0),
                    })
                    .collect()
            })
            .unwrap_or_default();
        DiffIdleInput {
            base_name: file_name(&r.base.input),
            new_name: file_name(&r.new.input),
            classes,
            cross_gpu: r.identity.cross_gpu,
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
    /// Plot frame.
    pub plot: Rect,
    /// Pixel rows of the value grid lines.
    pub grid_rows: Vec<i32>,
    /// Bars.
    pub bars: Vec<Bar>,
    /// Every text drawn (title, subtitle, axis title, tick labels, class
    /// labels line by line), as drawn: [`extent::first_overlap`] checks them.
    pub texts: Vec<PlacedText>,
}

const BEFORE_COLOR: RGBColor = RGBColor(170, 170, 170);
/// Widest bar, in pixels (a few classes would otherwise get slabs).
const BAR_MAX_PX: i32 = 70;
/// Most lines of one class label under its bars.
const CLASS_LABEL_LINES: usize = 3;
/// Pixels kept between neighbouring class labels.
const CLASS_LABEL_GAP_PX: i32 = 8;

/// `base → new` file names, each cut at its end to fit half of `max_px`.
fn subtitle(input: &DiffIdleInput, max_px: i32) -> Result<String, PlotError> {
    let arrow = " → ";
    let (arrow_px, _) = super::labels::text_size_px(arrow, style::SUBTITLE_FONT)?;
    let half = (max_px - arrow_px) / 2;
    let fit = |name: &str| super::labels::fit_middle("", name, "", style::SUBTITLE_FONT, half);
    Ok(format!(
        "{}{arrow}{}",
        fit(&input.base_name)?,
        fit(&input.new_name)?
    ))
}

impl DiffIdleChart {
    /// Lays out two bars per class on a linear axis in ms, class labels
    /// wrapped to their slot, file names cut to fit between the margins.
    pub fn build(input: &DiffIdleInput) -> Result<DiffIdleChart, PlotError> {
        super::ensure_font()?;
        if input.classes.is_empty() {
            return Err(PlotError::Empty("no idle class on either side".into()));
        }
        let size_px = style::HISTOGRAM_SIZE_PX;
        let plot = Rect::at(110, 90, size_px.0 as i32 - 150, size_px.1 as i32 - 200);
        let center_x = size_px.0 as i32 / 2;
        let top = (HAnchor::Center, VAnchor::Top);
        let mut texts = vec![
            PlacedText::new(
                format!(
                    "Idle per class: before (grey) vs after (blue){}",
                    cross_words(input.cross_gpu)
                ),
                (center_x, 10),
                style::TITLE_FONT,
                style::INK,
                top,
            ),
            PlacedText::new(
                subtitle(input, size_px.0 as i32 - 2 * plot.left)?,
                (center_x, 44),
                style::SUBTITLE_FONT,
                style::INK_SOFT,
                top,
            ),
            PlacedText::new(
                "idle (ms)",
                (plot.left - 90, plot.top - 34),
                style::AXIS_TITLE_FONT,
                style::INK,
                (HAnchor::Left, VAnchor::Top),
            ),
        ];
        let max_ms = input
            .classes
            .iter()
            .map(|c| c.before_ns.max(c.after_ns) / 1e6)
            .fold(0.0, f64::max);
        let axis = LinearAxis::nice(0.0, max_ms.max(1e-3), 6);
        let y = |ms: f64| plot.bottom - (axis.fraction(ms) * plot.height() as f64).round() as i32;
        let decimals = super::axis::decimals_for_step(axis.step);
        let mut grid_rows = Vec::new();
        for t in axis.ticks(|v| format!("{v:.decimals$}")) {
            let row = y(t.value);
            grid_rows.push(row);
            texts.push(PlacedText::new(
                t.label,
                (plot.left - 8, row),
                style::TICK_FONT,
                style::INK,
                (HAnchor::Right, VAnchor::Center),
            ));
        }
        let slot = plot.width() / input.classes.len() as i32;
        let bar_w = (slot / 3).clamp(2, BAR_MAX_PX);
        let mut bars = Vec::new();
        for (i, c) in input.classes.iter().enumerate() {
            // The pair centred in its slot.
            let left = plot.left + i as i32 * slot + slot / 2 - bar_w;
            for (j, ns) in [c.before_ns, c.after_ns].into_iter().enumerate() {
                let bar_top = y(ns / 1e6);
                let l = left + j as i32 * bar_w;
                bars.push(Bar {
                    rect: Rect::at(l, bar_top, bar_w, (plot.bottom - bar_top).max(0)),
                    before: j == 0,
                });
            }
            let lines = wrap_to_width(
                &c.label,
                style::LABEL_FONT,
                slot - CLASS_LABEL_GAP_PX,
                CLASS_LABEL_LINES,
            )?;
            let (_, line_px) = super::labels::text_size_px("Ag", style::LABEL_FONT)?;
            for (k, line) in lines.into_iter().enumerate() {
                texts.push(PlacedText::new(
                    line,
                    (left + bar_w, plot.bottom + 10 + k as i32 * line_px),
                    style::LABEL_FONT,
                    style::INK,
                    top,
                ));
            }
        }
        Ok(DiffIdleChart {
            size_px,
            plot,
            grid_rows,
            bars,
            texts,
        })
    }
}

impl Chart for DiffIdleChart {
    fn size_px(&self) -> (u32, u32) {
        self.size_px
    }

    fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<(), PlotError> {
        let p = self.plot;
        area.fill(&style::BACKGROUND)
            .map_err(|e| PlotError::Draw(e.to_string()))?;
        for &row in &self.grid_rows {
            draw::line(area, vec![(p.left, row), (p.right, row)], style::GRID, 1)?;
        }
        for b in &self.bars {
            let color = if b.before {
                BEFORE_COLOR
            } else {
                style::KERNEL_COLOR
            };
            draw::fill_rect(area, b.rect, color, 1.0)?;
        }
        extent::draw_texts(area, &self.texts)?;
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
            cross_gpu: false,
            base_name: "a.sqlite".into(),
            new_name: "b.sqlite".into(),
            classes: vec![ClassBars {
                class: "host_bound".into(),
                label: "host-bound".into(),
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

    #[test]
    fn nine_classes_and_long_paths_leave_no_text_overlapping() {
        // Every class `rooftrace gaps` knows, with the human names the
        // chart prints, and two long paths: labels wrap to their slots and
        // the subtitle keeps the file names, cut to fit.
        let classes = crate::gaps::GapClass::ALL
            .iter()
            .enumerate()
            .map(|(i, c)| ClassBars {
                class: c.key().into(),
                label: crate::gaps::class_label(c.key()),
                before_ns: 1e6 * i as f64,
                after_ns: 2e6,
            })
            .collect();
        let long = "a_very_long_export_name_from_a_ci_job_that_nobody_shortened_0001.sqlite";
        // Cross-GPU: the longer title must fit the canvas too.
        let input = DiffIdleInput {
            base_name: long.into(),
            new_name: long.replace("0001", "0002"),
            classes,
            cross_gpu: true,
        };
        let c = DiffIdleChart::build(&input).unwrap();
        assert_eq!(extent::first_overlap(&c.texts).unwrap(), None);
        let canvas = Rect::at(0, 0, c.size_px.0 as i32, c.size_px.1 as i32);
        for t in &c.texts {
            assert!(canvas.contains(&t.extent().unwrap()), "{t:?}");
        }
        assert!(c.texts[1].text.contains('…') && c.texts[1].text.contains(" → "));
        assert!(c.texts[0].text.ends_with("(cross-GPU)"));
    }
}
