//! The roofline chart (`rooftrace ncu --plot`): log-log FLOP/byte × FLOP/s,
//! one sloped roof per memory level, one flat roof per compute path the
//! kernels use, ridge points, one marker per kernel (area ∝ time, colour by
//! compute path) and labels for the kernels that lose the most time.
//!
//! `input` holds the chart's input and its adapter from the report; `roofs`
//! the roof geometry ([`RoofSet`], [`roof_axes`]) shared with the
//! calibration chart; this file the markers, their labels and the drawing.

mod input;
mod roofs;

pub use input::{KernelPoint, RooflineInput};
pub use roofs::{
    roof_axes, roof_ticks, roofline_plot_rect, roofs_and_legend, FlatRoof, Ridge, RoofSet,
    SlopedRoof,
};

use super::axis::{LogLogFrame, Tick};
use super::labels::{
    place_labels, text_size_px, LabelRequest, Legend, LegendItem, Obstacles, Rect, Swatch,
};
use super::{draw, style, Chart, PlotError};
use crate::roofs::ComputePath;
use crate::units::duration_ns;
use plotters::coord::Shift;
use plotters::prelude::*;

/// What a roofline chart's points are, in its words: `ncu --plot`'s
/// kernels ([`Wording::KERNELS`]) or `ops --plot`'s op rows.
#[derive(Debug, Clone, PartialEq)]
pub struct Wording {
    /// The title before the GPU's name (`Roofline`).
    pub title: &'static str,
    /// One point and several (`kernel`, `kernels`).
    pub point: (&'static str, &'static str),
    /// The legend's words for the red ring of a point above its roof.
    pub above: &'static str,
    /// A sentence the bottom line starts with (how the points were
    /// derived), kept whole when the line is shortened to fit; empty for
    /// none.
    pub note: String,
}

impl Wording {
    /// `ncu --plot`'s words: kernels, no note.
    pub const KERNELS: Wording = Wording {
        title: "Roofline",
        point: ("kernel", "kernels"),
        above: "above its roof: check roofs/counters",
        note: String::new(),
    };
}

/// One kernel's marker on the chart.
#[derive(Debug, Clone, PartialEq)]
pub struct PointMark {
    /// Kernel name.
    pub name: String,
    /// Compute path (colour).
    pub path: Option<ComputePath>,
    /// Arithmetic intensity, in FLOP/byte.
    pub flop_per_byte: f64,
    /// Achieved throughput, in FLOP/s.
    pub flop_per_s: f64,
    /// Marker centre, in pixels.
    pub center_px: (i32, i32),
    /// Marker radius, in pixels (area ∝ duration, clamped below).
    pub radius_px: f64,
    /// Drawn with a red ring.
    pub above_roof: bool,
    /// The kernel's label, when it is among the top N and fits.
    pub label: Option<PointLabel>,
}

/// A placed kernel label.
#[derive(Debug, Clone, PartialEq)]
pub struct PointLabel {
    /// Text, e.g. `gemv_bf16 (1.23 ms lost)`.
    pub text: String,
    /// Text box, in pixels.
    pub rect: Rect,
    /// Draw a line from the label to the marker.
    pub leader: bool,
}

/// The roofline chart model.
#[derive(Debug, Clone, PartialEq)]
pub struct RooflineChart {
    /// Canvas size, in pixels.
    pub size_px: (u32, u32),
    /// Title line (GPU).
    pub title: String,
    /// Subtitle line (roof source, kernel count).
    pub subtitle: String,
    /// Plot frame and axes.
    pub frame: LogLogFrame,
    /// X ticks (FLOP/byte).
    pub x_ticks: Vec<Tick>,
    /// Y ticks (FLOP/s).
    pub y_ticks: Vec<Tick>,
    /// Roofs, ridge points and their labels.
    pub roofs: RoofSet,
    /// Markers, largest first (so small ones are drawn on top).
    pub points: Vec<PointMark>,
    /// Legend (top-left inside the frame).
    pub legend: Legend,
    /// Top-N kernels whose label fit nowhere without overlapping.
    pub unplaced_labels: Vec<String>,
    /// Points left out because intensity or throughput is not a positive number.
    pub skipped_points: usize,
    /// The bottom line naming what is not drawn and why (`2 of 23 kernels
    /// not drawn: no FLOP counters (2); …`), when something is not.
    pub caption: Option<String>,
}

/// Marker radius for a kernel of `duration_ns` when the longest takes
/// `max_duration_ns`: area ∝ time, clamped so short kernels stay visible.
pub fn marker_radius_px(duration_ns: f64, max_duration_ns: f64) -> f64 {
    let share = if max_duration_ns > 0.0 && duration_ns > 0.0 {
        duration_ns / max_duration_ns
    } else {
        0.0
    };
    (style::MARKER_MAX_RADIUS_PX * share.sqrt()).max(style::MARKER_MIN_RADIUS_PX)
}

/// The points that can be placed on log axes, and the roofs to draw.
struct Plan<'a> {
    /// Points with a positive, finite intensity and throughput.
    valid: Vec<&'a KernelPoint>,
    /// Compute paths of the valid points, sorted, deduplicated.
    paths: Vec<ComputePath>,
    /// Compute paths whose flat roof is drawn.
    roof_paths: Vec<ComputePath>,
}

impl<'a> Plan<'a> {
    fn new(input: &'a RooflineInput) -> Plan<'a> {
        let valid: Vec<&KernelPoint> = input.points.iter().filter(|p| placeable(p)).collect();
        let mut paths: Vec<ComputePath> = valid.iter().filter_map(|p| p.path).collect();
        paths.sort();
        paths.dedup();
        let roof_paths: Vec<ComputePath> =
            if paths.iter().any(|p| input.roofs.compute.contains_key(p)) {
                paths.clone()
            } else {
                // No kernel says which path it used: show every roof.
                input.roofs.compute.keys().copied().collect()
            };
        Plan {
            valid,
            paths,
            roof_paths,
        }
    }

    /// Legend rows for the markers: one per path, then the unknown path and
    /// the above-roof ring when some point needs them.
    fn legend_items(&self, words: &Wording) -> Vec<LegendItem> {
        let mut items: Vec<LegendItem> = self
            .paths
            .iter()
            .map(|p| LegendItem {
                swatch: Swatch::Dot(style::path_color(*p)),
                text: p.label().to_string(),
            })
            .collect();
        if self.valid.iter().any(|p| p.path.is_none()) {
            items.push(LegendItem {
                swatch: Swatch::Dot(style::UNKNOWN_PATH),
                text: "path unknown".into(),
            });
        }
        if self.valid.iter().any(|p| p.above_roof) {
            items.push(LegendItem {
                swatch: Swatch::Ring(style::ABOVE_ROOF),
                text: words.above.into(),
            });
        }
        items
    }

    /// Markers, largest first (small ones are drawn on top), in the same
    /// order as the returned points.
    fn markers(&self, frame: &LogLogFrame) -> (Vec<&'a KernelPoint>, Vec<PointMark>) {
        // No time (rates only): the smallest marker, drawn last.
        let ns = |p: &KernelPoint| p.duration_ns.unwrap_or(0.0);
        let max_ns = self.valid.iter().map(|p| ns(p)).fold(0.0, f64::max);
        let mut order: Vec<&KernelPoint> = self.valid.clone();
        order.sort_by(|a, b| ns(b).total_cmp(&ns(a)).then_with(|| a.name.cmp(&b.name)));
        let points = order
            .iter()
            .map(|p| PointMark {
                name: p.name.clone(),
                path: p.path,
                flop_per_byte: p.flop_per_byte,
                flop_per_s: p.flop_per_s,
                center_px: frame.px(p.flop_per_byte, p.flop_per_s),
                radius_px: marker_radius_px(ns(p), max_ns),
                above_roof: p.above_roof,
                label: None,
            })
            .collect();
        (order, points)
    }
}

/// Labels the top `top_n` markers by time lost (most lost placed first),
/// clear of `taken` (legend, roofs) and of the markers `soft`. Returns how
/// many were ranked and the names whose label fit nowhere.
fn label_top(
    order: &[&KernelPoint],
    points: &mut [PointMark],
    top_n: usize,
    frame: &LogLogFrame,
    taken: &Obstacles,
    soft: &[Rect],
) -> Result<(usize, Vec<String>), PlotError> {
    let mut ranked: Vec<usize> = (0..points.len()).collect();
    // A time lost that is unknown or not a number ranks last, not first.
    let lost = |p: &KernelPoint| {
        p.time_lost_ns
            .filter(|ns| ns.is_finite())
            .unwrap_or(f64::NEG_INFINITY)
    };
    ranked.sort_by(|&a, &b| {
        lost(order[b])
            .total_cmp(&lost(order[a]))
            .then_with(|| order[a].name.cmp(&order[b].name))
    });
    ranked.truncate(top_n);
    let mut texts = Vec::new();
    let mut requests = Vec::new();
    // No two labelled kernels read the same once cut; a launch ID adds
    // its own length, so the cut keeps it whole (the middle goes first).
    let names: Vec<&str> = ranked.iter().map(|&i| order[i].name.as_str()).collect();
    let id_chars = names
        .iter()
        .filter_map(|n| {
            n.rfind(input::LAUNCH_ID_SEP)
                .map(|at| n[at..].chars().count())
        })
        .max()
        .unwrap_or(0);
    let cuts = super::labels::distinct_cuts(&names, style::LABEL_MAX_CHARS + id_chars);
    for (&i, mut text) in ranked.iter().zip(cuts) {
        let p = order[i];
        if p.useful {
            text.push_str(" [useful work]");
        }
        if let Some(ns) = p.time_lost_ns.filter(|ns| *ns > 0.0) {
            text.push_str(&format!(" ({} lost)", duration_ns(ns)));
        }
        let size = text_size_px(&text, style::LABEL_FONT)?;
        let c = points[i].center_px;
        requests.push(LabelRequest {
            anchor: (c.0 as f64, c.1 as f64),
            clearance: points[i].radius_px,
            size,
        });
        texts.push(text);
    }
    let placed = place_labels(&requests, frame.plot, taken, soft);
    let mut unplaced = Vec::new();
    for ((&i, text), got) in ranked.iter().zip(texts).zip(placed) {
        match got {
            Some(pl) => {
                points[i].label = Some(PointLabel {
                    text,
                    rect: pl.rect,
                    leader: pl.leader,
                })
            }
            None => unplaced.push(points[i].name.clone()),
        }
    }
    Ok((ranked.len(), unplaced))
}

/// Placeable on log axes: positive, finite intensity and throughput.
fn placeable(p: &KernelPoint) -> bool {
    p.flop_per_byte.is_finite()
        && p.flop_per_byte > 0.0
        && p.flop_per_s.is_finite()
        && p.flop_per_s > 0.0
}

/// Most names of undrawn top kernels listed in the caption.
const CAPTION_NAMES: usize = 3;

/// The bottom line: the wording's note, then the points that cannot be
/// drawn: how many, why (count per reason), and which of the top `top_n`
/// by time lost they include, so no kernel of the report's top rows
/// vanishes without a word.
fn caption(input: &RooflineInput, words: &Wording) -> Result<Option<String>, PlotError> {
    let skipped: Vec<&KernelPoint> = input.points.iter().filter(|p| !placeable(p)).collect();
    let head = if words.note.is_empty() || skipped.is_empty() {
        words.note.clone()
    } else {
        format!("{} · ", words.note)
    };
    if skipped.is_empty() {
        return Ok((!head.is_empty()).then_some(head));
    }
    let mut reasons: std::collections::BTreeMap<&str, usize> = Default::default();
    for p in &skipped {
        *reasons
            .entry(
                p.not_drawn
                    .unwrap_or("intensity or FLOP/s not a positive number"),
            )
            .or_default() += 1;
    }
    let reasons: Vec<String> = reasons
        .iter()
        .map(|(why, n)| format!("{why} ({n})"))
        .collect();
    let mut text = format!(
        "{} of {} {} not drawn: {}",
        skipped.len(),
        input.points.len(),
        words.point.1,
        reasons.join(", ")
    );
    let lost = |p: &KernelPoint| {
        p.time_lost_ns
            .filter(|ns| ns.is_finite())
            .unwrap_or(f64::NEG_INFINITY)
    };
    let mut ranked: Vec<&KernelPoint> = input.points.iter().collect();
    ranked.sort_by(|a, b| {
        lost(b)
            .total_cmp(&lost(a))
            .then_with(|| a.name.cmp(&b.name))
    });
    let top = input.top_n.max(1).min(ranked.len());
    let mut names: Vec<&str> = ranked[..top]
        .iter()
        .filter(|p| !placeable(p))
        .map(|p| p.name.as_str())
        .collect();
    names.dedup();
    if !names.is_empty() {
        let more = names.len().saturating_sub(CAPTION_NAMES);
        names.truncate(CAPTION_NAMES);
        text.push_str(&format!(
            "; of the top {top} by time lost: {}{}",
            names.join(", "),
            if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            }
        ));
    }
    super::labels::fit_middle(
        &head,
        &text,
        "",
        style::LABEL_FONT,
        style::ROOFLINE_SIZE_PX.0 as i32 - 20,
    )
    .map(Some)
}

/// The subtitle: the roofs' source (shortened in the middle to fit the
/// canvas), the kernel count, how many are labelled (`(top_n, labelled)`)
/// and, when a label carries a launch ID (`by_id`), that launches of one
/// kernel are told apart by it.
fn subtitle(
    roofs: &crate::roofs::Roofs,
    (kernels, words): (usize, &Wording),
    (top_n, labelled): (usize, usize),
    by_id: bool,
) -> Result<String, PlotError> {
    let source = if roofs.source.is_empty() {
        "roofs without a source line".to_string()
    } else {
        roofs.source.clone()
    };
    if kernels == 0 {
        // Nothing drawn: no marker, no label; the caption says why.
        return super::labels::fit_middle(
            "roofs: ",
            &source,
            " · no kernel can be drawn (the line below says why)",
            style::SUBTITLE_FONT,
            style::ROOFLINE_SIZE_PX.0 as i32 - 40,
        );
    }
    let mut tail = format!(
        " · {} {}, marker area ∝ time",
        kernels,
        if kernels == 1 {
            words.point.0
        } else {
            words.point.1
        }
    );
    if top_n > 0 {
        tail.push_str(&format!(", top {labelled} by time lost labelled"));
    }
    if by_id {
        tail.push_str(", launches of one kernel by ncu ID");
    }
    // A long source line (e.g. a roofs file's citation) is shortened
    // rather than clipped at the canvas edges.
    super::labels::fit_middle(
        "roofs: ",
        &source,
        &tail,
        style::SUBTITLE_FONT,
        style::ROOFLINE_SIZE_PX.0 as i32 - 40,
    )
}

impl RooflineChart {
    /// Computes the chart: axes, roofs, markers, legend and labels.
    pub fn build(input: &RooflineInput) -> Result<RooflineChart, PlotError> {
        RooflineChart::build_worded(input, &Wording::KERNELS)
    }

    /// [`RooflineChart::build`], in `words`.
    pub fn build_worded(
        input: &RooflineInput,
        words: &Wording,
    ) -> Result<RooflineChart, PlotError> {
        let plan = Plan::new(input);
        let xy: Vec<(f64, f64)> = plan
            .valid
            .iter()
            .map(|p| (p.flop_per_byte, p.flop_per_s))
            .collect();
        let (x, y) = roof_axes(&input.roofs, &plan.roof_paths, &xy)?;
        let frame = LogLogFrame {
            plot: roofline_plot_rect(),
            x,
            y,
        };
        let (x_ticks, y_ticks) = roof_ticks(&frame);
        let items = plan.legend_items(words);
        let (order, mut points) = plan.markers(&frame);

        // Roof labels avoid the markers; kernel labels avoid roof labels.
        let soft: Vec<Rect> = points
            .iter()
            .map(|m| Rect::around((m.center_px.0 as f64, m.center_px.1 as f64), m.radius_px))
            .collect();
        let markers = Obstacles {
            rects: soft.clone(),
            segments: Vec::new(),
        };
        let (roofs, legend, taken) =
            roofs_and_legend(&input.roofs, &plan.roof_paths, &frame, &items, &markers)?;
        let (labelled, unplaced_labels) =
            label_top(&order, &mut points, input.top_n, &frame, &taken, &soft)?;
        let by_id = points
            .iter()
            .any(|p| p.label.is_some() && p.name.contains(input::LAUNCH_ID_SEP));
        let subtitle = subtitle(
            &input.roofs,
            (plan.valid.len(), words),
            (input.top_n, labelled),
            by_id,
        )?;
        Ok(RooflineChart {
            size_px: style::ROOFLINE_SIZE_PX,
            title: format!("{}: {}", words.title, input.roofs.gpu),
            subtitle,
            frame,
            x_ticks,
            y_ticks,
            roofs,
            points,
            legend,
            unplaced_labels,
            skipped_points: input.points.len() - plan.valid.len(),
            caption: caption(input, words)?,
        })
    }
}

impl Chart for RooflineChart {
    fn size_px(&self) -> (u32, u32) {
        self.size_px
    }

    fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<(), PlotError> {
        let f = &self.frame;
        draw::canvas(area, &self.title, &self.subtitle, self.size_px.0 as i32 / 2)?;
        draw::log_log_frame(
            area,
            f,
            &self.x_ticks,
            &self.y_ticks,
            "arithmetic intensity (FLOP/byte)",
            "throughput (FLOP/s)",
        )?;
        self.roofs.draw(area, f)?;
        for p in &self.points {
            let color = p.path.map(style::path_color).unwrap_or(style::UNKNOWN_PATH);
            let ring = p.above_roof.then_some((style::ABOVE_ROOF, 3));
            draw::dot(area, p.center_px, p.radius_px, color, 0.55, ring)?;
        }
        for p in &self.points {
            if let Some(l) = &p.label {
                if l.leader {
                    let r = l.rect;
                    let target = (
                        p.center_px.0.clamp(r.left, r.right),
                        p.center_px.1.clamp(r.top, r.bottom),
                    );
                    draw::line(area, vec![p.center_px, target], style::LEADER, 1)?;
                }
                draw::fill_rect(area, l.rect, style::BACKGROUND, 0.75)?;
                draw::text_in(area, &l.text, l.rect, style::LABEL_FONT, style::INK)?;
            }
        }
        if let Some(c) = &self.caption {
            draw::text(
                area,
                c,
                (10, self.size_px.1 as i32 - 6),
                style::LABEL_FONT,
                style::INK_SOFT,
                (
                    plotters::style::text_anchor::HPos::Left,
                    plotters::style::text_anchor::VPos::Bottom,
                ),
            )?;
        }
        draw::legend(area, &self.legend)
    }
}
