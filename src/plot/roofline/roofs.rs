//! The roof geometry of the roofline and calibration charts: axes that
//! cover roofs and points, sloped and flat roof segments clipped to the
//! frame, ridge points, roof labels placed clear of markers, and the legend
//! corner that leaves every roof named.

use super::super::axis::{decade_plain, decade_si, LogAxis, LogLogFrame, Tick};
use super::super::labels::{
    place_first, text_size_px, Legend, LegendItem, Obstacles, Rect, Swatch,
};
use super::super::{draw, style, PlotError};
use crate::roofs::{ComputePath, MemoryLevel, MemoryRoof, Origin, Roofs};
use crate::units::si;
use plotters::coord::Shift;
use plotters::prelude::*;

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

/// A flat (compute) roof from its ridge point to the right edge. Paths
/// whose roofs have the same value are one line with one combined label.
#[derive(Debug, Clone, PartialEq)]
pub struct FlatRoof {
    /// Compute path (its colour draws the line).
    pub path: ComputePath,
    /// Other paths with the same value, drawn by this line.
    pub same_as: Vec<ComputePath>,
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

/// Two roof values the chart cannot tell apart (equal to 1 part in 10^9).
fn same_value(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs())
}

/// `FP16 tensor = BF16 tensor`: the paths one flat roof stands for.
fn group_name(group: &[ComputePath]) -> String {
    group
        .iter()
        .map(|p| p.label())
        .collect::<Vec<_>>()
        .join(" = ")
}

/// The origin of a group's roofs (`datasheet`), or each path's when they
/// differ (`measured/datasheet`).
fn group_origin(roofs: &Roofs, group: &[ComputePath]) -> String {
    let mut origins: Vec<&str> = group
        .iter()
        .map(|p| roofs.compute[p].origin.key())
        .collect();
    origins.dedup();
    origins.join("/")
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

        // Flat roofs (they carry the ridges), highest first; equal values
        // (FP16 and BF16 tensor on a datasheet) are one line, one label.
        let mut groups: Vec<Vec<ComputePath>> = Vec::new();
        for p in &flat_paths {
            let f = roofs.compute[p].flop_per_s;
            match groups.last_mut() {
                Some(g) if same_value(roofs.compute[&g[0]].flop_per_s, f) => g.push(*p),
                _ => groups.push(vec![*p]),
            }
        }
        for group in groups {
            let p = &group[0];
            let r = &roofs.compute[p];
            let ridge = slowest.map(|(level, b)| (level, r.flop_per_s / b));
            let from = ridge.map(|(_, i)| i.max(x.min())).unwrap_or(x.min());
            if from >= x.max() || !y.contains(r.flop_per_s) {
                continue;
            }
            let mut label = format!(
                "{} {} ({})",
                group_name(&group),
                si(r.flop_per_s, "FLOP/s"),
                group_origin(roofs, &group)
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
                same_as: group[1..].to_vec(),
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
