//! Drawing helpers shared by the charts, generic over the plotters backend:
//! text at a pixel position, lines, boxes, the log-log frame with its grid
//! and ticks, titles and legends. Every plotters error becomes a
//! [`PlotError`]; nothing here unwraps.

use super::axis::{LogLogFrame, Tick};
use super::labels::{Legend, Rect, Swatch, LEGEND_SWATCH_PX};
use super::style;
use super::{OrPlotError, PlotError, FONT_FAMILY};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// A text style of the embedded font at `size` in `color`.
pub(crate) fn font(size: f64, color: RGBColor) -> TextStyle<'static> {
    (FONT_FAMILY, size).into_font().color(&color)
}

/// Draws `text` with its anchor (`h`, `v`) at `pos`.
pub(crate) fn text<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    s: &str,
    pos: (i32, i32),
    size: f64,
    color: RGBColor,
    anchor: (HPos, VPos),
) -> Result<(), PlotError> {
    let style = font(size, color).pos(Pos::new(anchor.0, anchor.1));
    area.draw(&Text::new(s.to_string(), pos, style)).or_plot()
}

/// Draws `text` from the top-left corner of `rect`.
pub(crate) fn text_in<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    s: &str,
    rect: Rect,
    size: f64,
    color: RGBColor,
) -> Result<(), PlotError> {
    text(
        area,
        s,
        (rect.left, rect.top),
        size,
        color,
        (HPos::Left, VPos::Top),
    )
}

/// Draws a polyline.
pub(crate) fn line<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    points: Vec<(i32, i32)>,
    color: RGBColor,
    width: u32,
) -> Result<(), PlotError> {
    area.draw(&PathElement::new(points, color.stroke_width(width)))
        .or_plot()
}

/// Fills a rectangle with `color` at `opacity` (0..=1).
pub(crate) fn fill_rect<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    r: Rect,
    color: RGBColor,
    opacity: f64,
) -> Result<(), PlotError> {
    area.draw(&Rectangle::new(
        [(r.left, r.top), (r.right, r.bottom)],
        color.mix(opacity).filled(),
    ))
    .or_plot()
}

/// Outlines a rectangle.
pub(crate) fn outline_rect<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    r: Rect,
    color: RGBColor,
    width: u32,
) -> Result<(), PlotError> {
    area.draw(&Rectangle::new(
        [(r.left, r.top), (r.right, r.bottom)],
        color.stroke_width(width),
    ))
    .or_plot()
}

/// Draws a filled circle, optionally ringed.
pub(crate) fn dot<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    center: (i32, i32),
    radius: f64,
    color: RGBColor,
    opacity: f64,
    ring: Option<(RGBColor, u32)>,
) -> Result<(), PlotError> {
    let r = radius.round().max(1.0) as i32;
    area.draw(&Circle::new(center, r, color.mix(opacity).filled()))
        .or_plot()?;
    let (ring_color, ring_width) = ring.unwrap_or((color, 1));
    area.draw(&Circle::new(center, r, ring_color.stroke_width(ring_width)))
        .or_plot()
}

/// Fills the canvas with the background, then draws the title (bold size)
/// and subtitle centred above the plot frame: the start of every chart.
pub(crate) fn canvas<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    title: &str,
    subtitle: &str,
    center_x: i32,
) -> Result<(), PlotError> {
    area.fill(&style::BACKGROUND)
        .map_err(|e| PlotError::Draw(e.to_string()))?;
    let c = (HPos::Center, VPos::Top);
    text(
        area,
        title,
        (center_x, 10),
        style::TITLE_FONT,
        style::INK,
        c,
    )?;
    text(
        area,
        subtitle,
        (center_x, 44),
        style::SUBTITLE_FONT,
        style::INK_SOFT,
        c,
    )
}

/// Frame, decade and minor grid lines, tick labels and axis titles of a
/// log-log plot.
pub(crate) fn log_log_frame<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    frame: &LogLogFrame,
    x_ticks: &[Tick],
    y_ticks: &[Tick],
    x_title: &str,
    y_title: &str,
) -> Result<(), PlotError> {
    let p = frame.plot;
    for v in frame.x.minor_values() {
        let x = frame.px_x(v).round() as i32;
        line(area, vec![(x, p.top), (x, p.bottom)], style::GRID_MINOR, 1)?;
    }
    for v in frame.y.minor_values() {
        let y = frame.px_y(v).round() as i32;
        line(area, vec![(p.left, y), (p.right, y)], style::GRID_MINOR, 1)?;
    }
    for t in x_ticks {
        let x = frame.px_x(t.value).round() as i32;
        line(area, vec![(x, p.top), (x, p.bottom)], style::GRID, 1)?;
        x_tick(area, x, p.bottom, &t.label)?;
    }
    for t in y_ticks {
        let y = frame.px_y(t.value).round() as i32;
        line(area, vec![(p.left, y), (p.right, y)], style::GRID, 1)?;
        line(area, vec![(p.left - 6, y), (p.left, y)], style::INK, 1)?;
        text(
            area,
            &t.label,
            (p.left - 10, y),
            style::TICK_FONT,
            style::INK,
            (HPos::Right, VPos::Center),
        )?;
    }
    outline_rect(area, p, style::INK, 1)?;
    axis_titles(area, p, x_title, y_title)
}

/// A tick mark below the x axis at `x` and its label under it.
/// Horizontal grid lines across the plot `p` at pixel rows `y`, each
/// labelled `gap` pixels left of the plot (the value axis of a bar chart).
pub(crate) fn y_grid<'a, DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    p: Rect,
    rows: impl IntoIterator<Item = (i32, &'a str)>,
    gap: i32,
) -> Result<(), PlotError> {
    for (y, label) in rows {
        line(area, vec![(p.left, y), (p.right, y)], style::GRID, 1)?;
        text(
            area,
            label,
            (p.left - gap, y),
            style::TICK_FONT,
            style::INK,
            (HPos::Right, VPos::Center),
        )?;
    }
    Ok(())
}

pub(crate) fn x_tick<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    x: i32,
    bottom: i32,
    label: &str,
) -> Result<(), PlotError> {
    line(area, vec![(x, bottom), (x, bottom + 6)], style::INK, 1)?;
    text(
        area,
        label,
        (x, bottom + 10),
        style::TICK_FONT,
        style::INK,
        (HPos::Center, VPos::Top),
    )
}

/// Axis titles: below the frame, and rotated left of it.
pub(crate) fn axis_titles<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    p: Rect,
    x_title: &str,
    y_title: &str,
) -> Result<(), PlotError> {
    text(
        area,
        x_title,
        ((p.left + p.right) / 2, p.bottom + 42),
        style::AXIS_TITLE_FONT,
        style::INK,
        (HPos::Center, VPos::Top),
    )?;
    let style = font(style::AXIS_TITLE_FONT, style::INK)
        .transform(FontTransform::Rotate270)
        .pos(Pos::new(HPos::Center, VPos::Top));
    area.draw(&Text::new(
        y_title.to_string(),
        (6, (p.top + p.bottom) / 2),
        style,
    ))
    .or_plot()
}

/// A legend box with its entries (each swatch, then its text).
pub(crate) fn legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    legend: &Legend,
) -> Result<(), PlotError> {
    legend_box(area, legend)?;
    for i in 0..legend.items.len() {
        legend_swatch(area, legend, i)?;
        text(
            area,
            &legend.items[i].text,
            (legend.text_x(), legend.row_center_y(i)),
            style::LEGEND_FONT,
            style::INK,
            (HPos::Left, VPos::Center),
        )?;
    }
    Ok(())
}

/// A legend's box and swatches, without its texts (a chart that keeps its
/// texts as [`super::extent::PlacedText`]s draws them itself).
pub(crate) fn legend_frame<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    legend: &Legend,
) -> Result<(), PlotError> {
    legend_box(area, legend)?;
    for i in 0..legend.items.len() {
        legend_swatch(area, legend, i)?;
    }
    Ok(())
}

/// The legend's background and outline.
fn legend_box<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    legend: &Legend,
) -> Result<(), PlotError> {
    fill_rect(area, legend.rect, style::BACKGROUND, 0.9)?;
    outline_rect(area, legend.rect, style::GRID, 1)
}

/// Entry `i`'s swatch.
fn legend_swatch<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    legend: &Legend,
    i: usize,
) -> Result<(), PlotError> {
    let cy = legend.row_center_y(i);
    let sx = legend.rect.left + 8 + (LEGEND_SWATCH_PX - 8) / 2;
    match legend.items[i].swatch {
        Swatch::Dot(c) => dot(area, (sx, cy), 6.0, c, 0.7, None),
        Swatch::Ring(c) => dot(area, (sx, cy), 6.0, style::BACKGROUND, 1.0, Some((c, 3))),
        Swatch::Bar(c) => fill_rect(area, Rect::at(sx - 9, cy - 6, 18, 12), c, 1.0),
        Swatch::Line(c) => line(area, vec![(sx - 10, cy), (sx + 10, cy)], c, 3),
    }
}
