//! The roofline chart (`rooftrace ncu --plot`): log-log FLOP/byte × FLOP/s,
//! one sloped roof per memory level, one flat roof per compute path the
//! kernels use, ridge points, one marker per kernel (area ∝ time, colour by
//! compute path) and labels for the kernels that lose the most time.
//!
//! The roof geometry ([`RoofSet`], [`roof_axes`]) is shared with the
//! calibration chart.

use super::axis::{decade_plain, decade_si, LogAxis, LogLogFrame, Tick};
use super::labels::{
    place_first, place_labels, text_size_px, LabelRequest, Legend, LegendItem, Obstacles, Rect,
    Swatch,
};
use super::{draw, style, Chart, PlotError};
use crate::roofs::{ComputePath, MemoryLevel, MemoryRoof, Origin, Roofs};
use crate::units::ellipsize;
use crate::units::{duration_ns, si};
use plotters::coord::Shift;
use plotters::prelude::*;

/// One kernel (or kernel group) to plot.
#[derive(Debug, Clone, PartialEq)]
pub struct KernelPoint {
    /// Kernel name as shown in reports (ellipsized in the label).
    pub name: String,
    /// Arithmetic intensity, in FLOP/byte (x).
    pub flop_per_byte: f64,
    /// Achieved throughput, in FLOP/s (y).
    pub flop_per_s: f64,
    /// Total GPU time of the kernel, in ns (marker area is proportional).
    pub duration_ns: f64,
    /// Time lost against the roof, in ns (ranks the labels).
    pub time_lost_ns: f64,
    /// The compute path whose roof applies; `None` when unknown.
    pub path: Option<ComputePath>,
    /// True when the point lies above its roof (drawn with a red ring).
    pub above_roof: bool,
}

/// Everything the roofline chart needs.
#[derive(Debug, Clone, PartialEq)]
pub struct RooflineInput {
    /// The roofs; `gpu` and `source` go into the title.
    pub roofs: Roofs,
    /// The kernels.
    pub points: Vec<KernelPoint>,
    /// How many kernels (by time lost) get a text label.
    pub top_n: usize,
}

/// A sloped (bandwidth) roof clipped to the plot: `flop_per_s = bytes_per_s × I`.
#[derive(Debug, Clone, PartialEq)]
pub struct SlopedRoof {
    /// Memory level.
    pub level: MemoryLevel,
    /// Bandwidth, in bytes/s.
    pub bytes_per_s: f64,
    /// Where the value came from.
    pub origin: Origin,
    /// Start of the visible segment, in FLOP/byte.
    pub from_flop_per_byte: f64,
    /// End of the visible segment (where it meets the highest flat roof), in FLOP/byte.
    pub to_flop_per_byte: f64,
    /// Label text, e.g. `DRAM 3.09 TB/s (measured)`.
    pub label: String,
    /// Label box, in pixels; `None` when it fits nowhere.
    pub label_rect: Option<Rect>,
}

/// A flat (compute) roof from its ridge point to the right edge.
#[derive(Debug, Clone, PartialEq)]
pub struct FlatRoof {
    /// Compute path.
    pub path: ComputePath,
    /// Attainable throughput, in FLOP/s.
    pub flop_per_s: f64,
    /// Where the value came from.
    pub origin: Origin,
    /// Start of the visible segment (the ridge with the slowest memory level,
    /// or the left edge), in FLOP/byte.
    pub from_flop_per_byte: f64,
    /// End of the visible segment (right edge), in FLOP/byte.
    pub to_flop_per_byte: f64,
    /// Label text, e.g. `BF16 tensor 802 TFLOP/s (measured), ridge 260 FLOP/B`.
    pub label: String,
    /// Label box, in pixels; `None` when it fits nowhere.
    pub label_rect: Option<Rect>,
}

/// A ridge point: where a flat roof meets the slowest sloped roof.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ridge {
    /// Compute path of the flat roof.
    pub path: ComputePath,
    /// Memory level of the sloped roof.
    pub level: MemoryLevel,
    /// I* = F / B, in FLOP/byte.
    pub flop_per_byte: f64,
    /// F, in FLOP/s.
    pub flop_per_s: f64,
}

/// All roofs of a chart with their label boxes.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RoofSet {
    /// One per memory level, slowest first.
    pub sloped: Vec<SlopedRoof>,
    /// One per compute path, highest first.
    pub flat: Vec<FlatRoof>,
    /// One per flat roof that meets the slowest sloped roof inside the plot.
    pub ridges: Vec<Ridge>,
}

/// A kernel marker.
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
}

/// The plot frame of the roofline and calibration charts on their canvas.
pub fn roofline_plot_rect() -> Rect {
    let (w, h) = style::ROOFLINE_SIZE_PX;
    let (l, t, r, b) = style::MARGIN_PX;
    Rect {
        left: l,
        top: t,
        right: w as i32 - r,
        bottom: h as i32 - b,
    }
}

/// Log axes covering the roofs of `paths` and the `(FLOP/byte, FLOP/s)`
/// points: every point, every ridge (with a decade of slope left of the
/// lowest ridge), and the highest flat roof.
pub fn roof_axes(
    roofs: &Roofs,
    paths: &[ComputePath],
    points: &[(f64, f64)],
) -> Result<(LogAxis, LogAxis), PlotError> {
    let slowest = slowest_bandwidth(roofs);
    let flops: Vec<f64> = paths
        .iter()
        .filter_map(|p| roofs.compute.get(p).map(|r| r.flop_per_s))
        .collect();
    let mut x_lo = f64::INFINITY;
    let mut x_hi = f64::NEG_INFINITY;
    let mut y_lo = f64::INFINITY;
    let mut y_hi = f64::NEG_INFINITY;
    for &(i, p) in points {
        x_lo = x_lo.min(i);
        x_hi = x_hi.max(i);
        y_lo = y_lo.min(p);
        y_hi = y_hi.max(p);
    }
    if let Some(b) = slowest {
        for &f in &flops {
            let ridge = f / b;
            x_lo = x_lo.min(ridge / 10.0);
            x_hi = x_hi.max(ridge * 4.0);
        }
    }
    for &f in &flops {
        y_lo = y_lo.min(f);
        y_hi = y_hi.max(f);
    }
    if !x_lo.is_finite() || !y_lo.is_finite() {
        return Err(PlotError::Empty(
            "no kernel with a positive intensity and throughput, and no roofs".into(),
        ));
    }
    // Points on the frame are hard to read: keep a 1.5× margin, 1.2× above
    // the highest roof (its label may go below the line).
    let x = LogAxis::covering(x_lo / 1.5, x_hi * 1.5, 1.0);
    if let Some(b) = slowest {
        // Show the slope from the left edge.
        y_lo = y_lo.min(b * x.min());
    }
    let y = LogAxis::covering(y_lo / 1.5, y_hi * 1.2, 1.0);
    Ok((x, y))
}

/// The lowest bandwidth among the memory roofs (normally DRAM).
fn slowest_bandwidth(roofs: &Roofs) -> Option<f64> {
    roofs
        .memory
        .values()
        .map(|m| m.bytes_per_s)
        .reduce(f64::min)
}

/// Tick labels of the roofline axes.
pub fn roof_ticks(frame: &LogLogFrame) -> (Vec<Tick>, Vec<Tick>) {
    (
        frame.x.decade_ticks(decade_plain),
        frame.y.decade_ticks(|e| decade_si(e, "FLOP/s")),
    )
}

impl RoofSet {
    /// Roof segments of every memory level and of `paths`, clipped to the
    /// frame, with labels placed clear of the obstacles in `taken`, of every
    /// roof line and of `avoid` (markers). The roof lines and label boxes
    /// are added to `taken`.
    pub fn build(
        roofs: &Roofs,
        paths: &[ComputePath],
        frame: &LogLogFrame,
        taken: &mut Obstacles,
        avoid: &Obstacles,
    ) -> Result<RoofSet, PlotError> {
        let (x, y) = (frame.x, frame.y);
        let mut flat_paths: Vec<ComputePath> = paths
            .iter()
            .copied()
            .filter(|p| roofs.compute.contains_key(p))
            .collect();
        flat_paths.sort_by(|a, b| {
            roofs.compute[b]
                .flop_per_s
                .total_cmp(&roofs.compute[a].flop_per_s)
                .then(a.cmp(b))
        });
        flat_paths.dedup();
        let f_max = flat_paths
            .first()
            .map(|p| roofs.compute[p].flop_per_s)
            .unwrap_or(y.max());
        let slowest = roofs
            .memory
            .iter()
            .min_by(|a, b| a.1.bytes_per_s.total_cmp(&b.1.bytes_per_s))
            .map(|(l, m)| (*l, m.bytes_per_s));
        let mut set = RoofSet::default();

        // Flat roofs (they carry the ridges), highest first.
        for p in &flat_paths {
            let r = &roofs.compute[p];
            let ridge = slowest.map(|(level, b)| (level, r.flop_per_s / b));
            let from = ridge.map(|(_, i)| i.max(x.min())).unwrap_or(x.min());
            if from >= x.max() || !y.contains(r.flop_per_s) {
                continue;
            }
            let mut label = format!(
                "{} {} ({})",
                p.label(),
                si(r.flop_per_s, "FLOP/s"),
                r.origin.key()
            );
            if let Some((level, i)) = ridge {
                label.push_str(&format!(", ridge {}", si(i, "FLOP/B")));
                if x.contains(i) {
                    set.ridges.push(Ridge {
                        path: *p,
                        level,
                        flop_per_byte: i,
                        flop_per_s: r.flop_per_s,
                    });
                }
            }
            set.flat.push(FlatRoof {
                path: *p,
                flop_per_s: r.flop_per_s,
                origin: r.origin,
                from_flop_per_byte: from,
                to_flop_per_byte: x.max(),
                label,
                label_rect: None,
            });
        }

        // Sloped roofs, slowest first; each ends where it meets the top roof.
        let mut levels: Vec<(&MemoryLevel, &MemoryRoof)> = roofs.memory.iter().collect();
        levels.sort_by(|a, b| {
            a.1.bytes_per_s
                .total_cmp(&b.1.bytes_per_s)
                .then(a.0.cmp(b.0))
        });
        for (level, m) in levels {
            let b = m.bytes_per_s;
            let from = x.min().max(y.min() / b);
            let to = x.max().min(f_max / b);
            if from >= to {
                continue;
            }
            set.sloped.push(SlopedRoof {
                level: *level,
                bytes_per_s: b,
                origin: m.origin,
                from_flop_per_byte: from,
                to_flop_per_byte: to,
                label: format!("{} {} ({})", level.label(), si(b, "B/s"), m.origin.key()),
                label_rect: None,
            });
        }

        // Labels go after all lines are known, so none crosses a roof.
        taken.segments.extend(set.segments_px(frame));
        let mut blocked = taken.clone();
        blocked.rects.extend(&avoid.rects);
        blocked.segments.extend(&avoid.segments);
        for f in &mut set.flat {
            let (w, h) = text_size_px(&f.label, style::LABEL_FONT)?;
            let x0 = frame.px_x(f.from_flop_per_byte).round() as i32;
            let x1 = frame.plot.right - 8;
            let ly = frame.px_y(f.flop_per_s).round() as i32;
            let mut cands = Vec::new();
            for eighth in 0..6 {
                let right = x1 - (x1 - x0) * eighth / 8;
                cands.push(Rect::at(right - w, ly - h - 6, w, h));
                cands.push(Rect::at(right - w, ly + 6, w, h));
            }
            // Left of the ridge, in line with the roof: above the slope,
            // where no kernel can be.
            cands.push(Rect::at(x0 - 24 - w, ly - h / 2, w, h));
            cands.push(Rect::at(x0 - 16 - w, ly - h - 2, w, h));
            f.label_rect = place_first(&cands, frame.plot, &blocked);
            taken.rects.extend(f.label_rect);
            blocked.rects.extend(f.label_rect);
        }
        for s in &mut set.sloped {
            let (w, h) = text_size_px(&s.label, style::LABEL_FONT)?;
            let (from, to) = (s.from_flop_per_byte, s.to_flop_per_byte);
            let mut cands = Vec::new();
            for t in [0.2, 0.35, 0.5, 0.65, 0.1, 0.8] {
                // A point a fraction t along the visible segment (log space).
                let i = (from.ln() + t * (to.ln() - from.ln())).exp();
                let (px, py) = frame.px(i, s.bytes_per_s * i);
                cands.push(Rect::at(px + 8, py + 8, w, h)); // below the line
                cands.push(Rect::at(px - 8 - w, py - 8 - h, w, h)); // above it
            }
            s.label_rect = place_first(&cands, frame.plot, &blocked);
            taken.rects.extend(s.label_rect);
            blocked.rects.extend(s.label_rect);
        }
        Ok(set)
    }

    /// Legend rows for the roofs whose label fit nowhere on the plot.
    pub fn unlabeled_items(&self) -> Vec<LegendItem> {
        let flat = self
            .flat
            .iter()
            .filter(|f| f.label_rect.is_none())
            .map(|f| LegendItem {
                swatch: Swatch::Line(style::path_color(f.path)),
                text: f.label.clone(),
            });
        let sloped = self
            .sloped
            .iter()
            .filter(|s| s.label_rect.is_none())
            .map(|s| LegendItem {
                swatch: Swatch::Line(style::level_color(s.level)),
                text: s.label.clone(),
            });
        flat.chain(sloped).collect()
    }

    /// Every roof line as a pixel segment.
    pub fn segments_px(&self, frame: &LogLogFrame) -> Vec<((f64, f64), (f64, f64))> {
        let at = |i: f64, p: f64| (frame.px_x(i), frame.px_y(p));
        let mut out: Vec<_> = self
            .sloped
            .iter()
            .map(|s| {
                (
                    at(s.from_flop_per_byte, s.bytes_per_s * s.from_flop_per_byte),
                    at(s.to_flop_per_byte, s.bytes_per_s * s.to_flop_per_byte),
                )
            })
            .collect();
        out.extend(self.flat.iter().map(|f| {
            (
                at(f.from_flop_per_byte, f.flop_per_s),
                at(f.to_flop_per_byte, f.flop_per_s),
            )
        }));
        out
    }

    /// Draws roofs, ridge markers and roof labels.
    pub(crate) fn draw<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        frame: &LogLogFrame,
    ) -> Result<(), PlotError> {
        for s in &self.sloped {
            let a = frame.px(s.from_flop_per_byte, s.bytes_per_s * s.from_flop_per_byte);
            let b = frame.px(s.to_flop_per_byte, s.bytes_per_s * s.to_flop_per_byte);
            draw::line(area, vec![a, b], style::level_color(s.level), 3)?;
        }
        for f in &self.flat {
            let a = frame.px(f.from_flop_per_byte, f.flop_per_s);
            let b = frame.px(f.to_flop_per_byte, f.flop_per_s);
            draw::line(area, vec![a, b], style::path_color(f.path), 3)?;
        }
        for r in &self.ridges {
            let c = frame.px(r.flop_per_byte, r.flop_per_s);
            draw::dot(
                area,
                c,
                5.0,
                style::BACKGROUND,
                1.0,
                Some((style::path_color(r.path), 3)),
            )?;
        }
        for s in &self.sloped {
            if let Some(rect) = s.label_rect {
                draw::text_in(
                    area,
                    &s.label,
                    rect,
                    style::LABEL_FONT,
                    style::level_color(s.level),
                )?;
            }
        }
        for f in &self.flat {
            if let Some(rect) = f.label_rect {
                draw::text_in(area, &f.label, rect, style::LABEL_FONT, style::INK)?;
            }
        }
        Ok(())
    }
}

/// The legend for `items` in one corner of `plot` (10 px inside): 0 top-left
/// (above the slope, where no kernel can be), 1 bottom-right, 2 top-right,
/// 3 bottom-left.
fn legend_in_corner(
    items: Vec<LegendItem>,
    plot: Rect,
    corner: usize,
) -> Result<Legend, PlotError> {
    let mut legend = Legend::new(items, (0, 0), false)?;
    let (w, h) = (legend.rect.width(), legend.rect.height());
    let (left, top) = match corner {
        0 => (plot.left + 10, plot.top + 10),
        1 => (plot.right - 10 - w, plot.bottom - 10 - h),
        2 => (plot.right - 10 - w, plot.top + 10),
        _ => (plot.left + 10, plot.bottom - 10 - h),
    };
    legend.rect = Rect::at(left, top, w, h);
    Ok(legend)
}

/// The first corner where the legend covers no roof line or marker; the
/// top-left one when every corner is taken.
fn legend_corner(items: &[LegendItem], plot: Rect, avoid: &Obstacles) -> Result<usize, PlotError> {
    for corner in 0..4 {
        let legend = legend_in_corner(items.to_vec(), plot, corner)?;
        if plot.contains(&legend.rect) && !avoid.blocks(&legend.rect) {
            return Ok(corner);
        }
    }
    Ok(0)
}

/// Roofs plus a legend in a free corner of the frame: the `base` entries,
/// then one row per roof whose label found no free spot on the plot (so
/// every roof is named somewhere). Roof labels and the legend keep off
/// `avoid` (markers, sweep lines). Returns the roofs, the legend and the
/// obstacles later labels must avoid (legend, roof lines, roof labels).
pub fn roofs_and_legend(
    roofs: &Roofs,
    paths: &[ComputePath],
    frame: &LogLogFrame,
    base: &[LegendItem],
    avoid: &Obstacles,
) -> Result<(RoofSet, Legend, Obstacles), PlotError> {
    // The roof lines do not depend on the legend: compute them once.
    let lines = RoofSet::build(roofs, paths, frame, &mut Obstacles::default(), avoid)?;
    let mut legend_avoid = avoid.clone();
    legend_avoid.segments.extend(lines.segments_px(frame));
    let mut extra: Vec<LegendItem> = Vec::new();
    // Each pass reserves room for the roofs the previous pass could not
    // label; a pass that needs no new rows is final.
    for _ in 0..4 {
        let items: Vec<LegendItem> = base.iter().chain(&extra).cloned().collect();
        let corner = legend_corner(&items, frame.plot, &legend_avoid)?;
        let legend = legend_in_corner(items, frame.plot, corner)?;
        let mut taken = Obstacles {
            rects: vec![legend.rect],
            segments: Vec::new(),
        };
        let set = RoofSet::build(roofs, paths, frame, &mut taken, avoid)?;
        let missing = set.unlabeled_items();
        if missing.iter().all(|m| extra.contains(m)) {
            // Rows for roofs labelled in this pass are dropped: the legend
            // shrinks towards its corner, so nothing placed can come to
            // overlap it.
            let items: Vec<LegendItem> = base.iter().chain(&missing).cloned().collect();
            let legend = legend_in_corner(items, frame.plot, corner)?;
            taken.rects[0] = legend.rect;
            return Ok((set, legend, taken));
        }
        for m in missing {
            if !extra.contains(&m) {
                extra.push(m);
            }
        }
    }
    // Still unsettled: name every roof in the legend and none on the plot.
    let mut set = lines;
    set.flat.iter_mut().for_each(|f| f.label_rect = None);
    set.sloped.iter_mut().for_each(|s| s.label_rect = None);
    let items: Vec<LegendItem> = base.iter().cloned().chain(set.unlabeled_items()).collect();
    let corner = legend_corner(&items, frame.plot, &legend_avoid)?;
    let legend = legend_in_corner(items, frame.plot, corner)?;
    let taken = Obstacles {
        rects: vec![legend.rect],
        segments: set.segments_px(frame),
    };
    Ok((set, legend, taken))
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

impl RooflineChart {
    /// Computes the chart: axes, roofs, markers, legend and labels.
    pub fn build(input: &RooflineInput) -> Result<RooflineChart, PlotError> {
        let valid: Vec<&KernelPoint> = input
            .points
            .iter()
            .filter(|p| {
                p.flop_per_byte.is_finite()
                    && p.flop_per_byte > 0.0
                    && p.flop_per_s.is_finite()
                    && p.flop_per_s > 0.0
            })
            .collect();
        let skipped_points = input.points.len() - valid.len();
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
        let xy: Vec<(f64, f64)> = valid
            .iter()
            .map(|p| (p.flop_per_byte, p.flop_per_s))
            .collect();
        let (x, y) = roof_axes(&input.roofs, &roof_paths, &xy)?;
        let frame = LogLogFrame {
            plot: roofline_plot_rect(),
            x,
            y,
        };
        let (x_ticks, y_ticks) = roof_ticks(&frame);

        let mut items: Vec<LegendItem> = paths
            .iter()
            .map(|p| LegendItem {
                swatch: Swatch::Dot(style::path_color(*p)),
                text: p.label().to_string(),
            })
            .collect();
        if valid.iter().any(|p| p.path.is_none()) {
            items.push(LegendItem {
                swatch: Swatch::Dot(style::UNKNOWN_PATH),
                text: "path unknown".into(),
            });
        }
        if valid.iter().any(|p| p.above_roof) {
            items.push(LegendItem {
                swatch: Swatch::Ring(style::ABOVE_ROOF),
                text: "above its roof: check roofs/counters".into(),
            });
        }

        // Markers, largest first: small ones are drawn on top.
        let max_ns = valid.iter().map(|p| p.duration_ns).fold(0.0, f64::max);
        let mut order: Vec<&KernelPoint> = valid.clone();
        order.sort_by(|a, b| {
            b.duration_ns
                .total_cmp(&a.duration_ns)
                .then_with(|| a.name.cmp(&b.name))
        });
        let mut points: Vec<PointMark> = order
            .iter()
            .map(|p| PointMark {
                name: p.name.clone(),
                path: p.path,
                flop_per_byte: p.flop_per_byte,
                flop_per_s: p.flop_per_s,
                center_px: frame.px(p.flop_per_byte, p.flop_per_s),
                radius_px: marker_radius_px(p.duration_ns, max_ns),
                above_roof: p.above_roof,
                label: None,
            })
            .collect();

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
            roofs_and_legend(&input.roofs, &roof_paths, &frame, &items, &markers)?;

        // Labels for the top N by time lost, most lost placed first.
        let mut ranked: Vec<usize> = (0..points.len()).collect();
        // A time lost that is not a number ranks last, not first.
        let lost = |p: &KernelPoint| {
            if p.time_lost_ns.is_finite() {
                p.time_lost_ns
            } else {
                f64::NEG_INFINITY
            }
        };
        ranked.sort_by(|&a, &b| {
            lost(order[b])
                .total_cmp(&lost(order[a]))
                .then_with(|| order[a].name.cmp(&order[b].name))
        });
        ranked.truncate(input.top_n);
        let mut texts = Vec::new();
        let mut requests = Vec::new();
        for &i in &ranked {
            let p = order[i];
            let mut text = ellipsize(&p.name, style::LABEL_MAX_CHARS);
            if p.time_lost_ns > 0.0 {
                text.push_str(&format!(" ({} lost)", duration_ns(p.time_lost_ns)));
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

        let placed = place_labels(&requests, frame.plot, &taken, &soft);
        let mut unplaced_labels = Vec::new();
        for ((&i, text), got) in ranked.iter().zip(texts).zip(placed) {
            match got {
                Some(pl) => {
                    points[i].label = Some(PointLabel {
                        text,
                        rect: pl.rect,
                        leader: pl.leader,
                    })
                }
                None => unplaced_labels.push(points[i].name.clone()),
            }
        }

        let source = if input.roofs.source.is_empty() {
            "roofs without a source line".to_string()
        } else {
            input.roofs.source.clone()
        };
        let mut tail = format!(
            " · {} kernel{}, marker area ∝ time",
            valid.len(),
            if valid.len() == 1 { "" } else { "s" }
        );
        if input.top_n > 0 {
            tail.push_str(&format!(", top {} by time lost labelled", ranked.len()));
        }
        // A long source line (e.g. a roofs file's citation) is shortened
        // rather than clipped at the canvas edges.
        let subtitle = super::labels::fit_middle(
            "roofs: ",
            &source,
            &tail,
            style::SUBTITLE_FONT,
            style::ROOFLINE_SIZE_PX.0 as i32 - 40,
        )?;
        Ok(RooflineChart {
            size_px: style::ROOFLINE_SIZE_PX,
            title: format!("Roofline: {}", input.roofs.gpu),
            subtitle,
            frame,
            x_ticks,
            y_ticks,
            roofs,
            points,
            legend,
            unplaced_labels,
            skipped_points,
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
        draw::legend(area, &self.legend)
    }
}
