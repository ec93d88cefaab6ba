//! Where text lands on the canvas: a [`PlacedText`] is a string with its
//! position, font size and anchor, exactly as a drawer hands it to plotters;
//! its [`extent`](PlacedText::extent) is the box it covers, measured with
//! the charts' embedded font ([`text_size_px`]). [`first_overlap`] reports
//! the first two boxes that share a pixel, so a chart model can be checked
//! (in its tests, on real inputs) for labels that collide, and
//! [`wrap_to_width`] breaks a label into lines that fit a slot.
//!
//! A chart that keeps its texts as `PlacedText`s draws them with
//! [`draw_texts`] and checks them with the same list: what is measured is
//! what is drawn.

use super::labels::{text_size_px, Legend, Rect};
use super::{draw, PlotError};
use plotters::coord::Shift;
use plotters::prelude::{DrawingArea, DrawingBackend};
use plotters::style::text_anchor::{HPos, VPos};
use plotters::style::RGBColor;

/// Which column of the text box the anchor point is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HAnchor {
    /// The left edge.
    Left,
    /// The middle.
    Center,
    /// The right edge.
    Right,
}

/// Which row of the text box the anchor point is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VAnchor {
    /// The top edge.
    Top,
    /// The middle.
    Center,
    /// The bottom edge.
    Bottom,
}

impl HAnchor {
    fn pos(self) -> HPos {
        match self {
            HAnchor::Left => HPos::Left,
            HAnchor::Center => HPos::Center,
            HAnchor::Right => HPos::Right,
        }
    }
}

impl VAnchor {
    fn pos(self) -> VPos {
        match self {
            VAnchor::Top => VPos::Top,
            VAnchor::Center => VPos::Center,
            VAnchor::Bottom => VPos::Bottom,
        }
    }
}

/// One text as drawn: the string, its anchor point in pixels, its font
/// size (plotters units, as in [`super::style`]) and colour, and which
/// point of its box the anchor is.
#[derive(Debug, Clone, PartialEq)]
pub struct PlacedText {
    /// The text (one line).
    pub text: String,
    /// Anchor point, in pixels.
    pub pos: (i32, i32),
    /// Font size, plotters units.
    pub size: f64,
    /// Colour.
    pub color: RGBColor,
    /// Which point of the text box `pos` is (horizontal, vertical).
    pub anchor: (HAnchor, VAnchor),
}

impl PlacedText {
    /// A text anchored at `pos` by (`h`, `v`).
    pub fn new(
        text: impl Into<String>,
        pos: (i32, i32),
        size: f64,
        color: RGBColor,
        anchor: (HAnchor, VAnchor),
    ) -> PlacedText {
        PlacedText {
            text: text.into(),
            pos,
            size,
            color,
            anchor,
        }
    }

    /// The box the text covers, in pixels, from the embedded font's
    /// advances (the same measure the label placer uses).
    pub fn extent(&self) -> Result<Rect, PlotError> {
        let (width, height) = text_size_px(&self.text, self.size)?;
        let left = match self.anchor.0 {
            HAnchor::Left => self.pos.0,
            HAnchor::Center => self.pos.0 - width / 2,
            HAnchor::Right => self.pos.0 - width,
        };
        let top = match self.anchor.1 {
            VAnchor::Top => self.pos.1,
            VAnchor::Center => self.pos.1 - height / 2,
            VAnchor::Bottom => self.pos.1 - height,
        };
        Ok(Rect::at(left, top, width, height))
    }
}

/// Two texts whose boxes overlap: their indices in the list and boxes.
#[derive(Debug, Clone, PartialEq)]
pub struct Overlap {
    /// Index of the earlier text.
    pub first: usize,
    /// Index of the later text.
    pub second: usize,
    /// The earlier text's box.
    pub first_rect: Rect,
    /// The later text's box.
    pub second_rect: Rect,
}

/// The first pair (in list order: lowest `second`, then lowest `first`) of
/// texts whose boxes share a pixel, or `None` when no two overlap. Empty
/// strings cover nothing and are skipped.
pub fn first_overlap(texts: &[PlacedText]) -> Result<Option<Overlap>, PlotError> {
    let mut seen: Vec<(usize, Rect)> = Vec::with_capacity(texts.len());
    for (second, t) in texts.iter().enumerate() {
        if t.text.trim().is_empty() {
            continue;
        }
        let rect = t.extent()?;
        if let Some(&(first, first_rect)) = seen.iter().find(|(_, r)| r.overlaps(&rect)) {
            return Ok(Some(Overlap {
                first,
                second,
                first_rect,
                second_rect: rect,
            }));
        }
        seen.push((second, rect));
    }
    Ok(None)
}

/// The pieces `text` may break between: words (at spaces, joined by a
/// space) and, inside a word, the parts after a `-` or `/` (joined by
/// nothing), as (piece, joined to the previous piece by a space).
fn break_points(text: &str) -> Vec<(String, bool)> {
    let mut pieces = Vec::new();
    for word in text.split_whitespace() {
        let mut spaced = true;
        let mut part = String::new();
        for ch in word.chars() {
            part.push(ch);
            if matches!(ch, '-' | '/') {
                pieces.push((std::mem::take(&mut part), spaced));
                spaced = false;
            }
        }
        if !part.is_empty() {
            pieces.push((part, spaced));
        }
    }
    pieces
}

/// `text` broken at spaces (and after `-` or `/` inside a word) into lines
/// at most `max_px` wide at font `size`; a piece wider than `max_px` on its
/// own is cut with `…` to fit. At most `max_lines` lines: the last one
/// kept ends with `…` when pieces are left.
pub fn wrap_to_width(
    text: &str,
    size: f64,
    max_px: i32,
    max_lines: usize,
) -> Result<Vec<String>, PlotError> {
    let fits = |s: &str| -> Result<bool, PlotError> { Ok(text_size_px(s, size)?.0 <= max_px) };
    let mut lines: Vec<String> = Vec::new();
    let mut current = String::new();
    for (piece, spaced) in break_points(text) {
        let joined = match (current.is_empty(), spaced) {
            (true, _) => piece.clone(),
            (false, true) => format!("{current} {piece}"),
            (false, false) => format!("{current}{piece}"),
        };
        if fits(&joined)? {
            current = joined;
            continue;
        }
        if !current.is_empty() {
            lines.push(std::mem::take(&mut current));
        }
        current = if fits(&piece)? {
            piece
        } else {
            super::labels::fit_middle("", &piece, "", size, max_px)?
        };
    }
    if !current.is_empty() {
        lines.push(current);
    }
    let keep = max_lines.max(1);
    if lines.len() > keep {
        let rest = lines[keep - 1..].join(" ");
        lines.truncate(keep - 1);
        // More pieces than fit: cut (fit_middle adds the `…`).
        lines.push(super::labels::fit_middle("", &rest, "", size, max_px)?);
    }
    Ok(lines)
}

/// A legend's entry texts as drawn by [`super::draw::legend`]: legend
/// font, left-anchored after the swatch, centred on the entry's row.
pub fn legend_texts(legend: &Legend) -> Vec<PlacedText> {
    legend
        .items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            PlacedText::new(
                item.text.clone(),
                (legend.text_x(), legend.row_center_y(i)),
                super::style::LEGEND_FONT,
                super::style::INK,
                (HAnchor::Left, VAnchor::Center),
            )
        })
        .collect()
}

/// Draws every text of `texts` as placed.
pub(crate) fn draw_texts<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    texts: &[PlacedText],
) -> Result<(), PlotError> {
    for t in texts {
        draw::text(
            area,
            &t.text,
            t.pos,
            t.size,
            t.color,
            (t.anchor.0.pos(), t.anchor.1.pos()),
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plot::style;

    fn at(text: &str, pos: (i32, i32), anchor: (HAnchor, VAnchor)) -> PlacedText {
        PlacedText::new(text, pos, style::LABEL_FONT, style::INK, anchor)
    }

    #[test]
    fn the_anchor_decides_which_corner_pos_is() {
        let left = at("synchronisation", (500, 100), (HAnchor::Left, VAnchor::Top))
            .extent()
            .unwrap();
        let centre = at(
            "synchronisation",
            (500, 100),
            (HAnchor::Center, VAnchor::Center),
        )
        .extent()
        .unwrap();
        let right = at(
            "synchronisation",
            (500, 100),
            (HAnchor::Right, VAnchor::Bottom),
        )
        .extent()
        .unwrap();
        assert_eq!((left.left, left.top), (500, 100));
        assert_eq!(left.width(), centre.width());
        assert_eq!(centre.left, 500 - left.width() / 2);
        assert_eq!(centre.top, 100 - left.height() / 2);
        assert_eq!((right.right, right.bottom), (500, 100));
    }

    #[test]
    fn first_overlap_names_the_first_colliding_pair_only() {
        let (w, _) = text_size_px("host-bound", style::LABEL_FONT).unwrap();
        let c = (HAnchor::Center, VAnchor::Top);
        // Centres one width apart touch at most at an edge (right is
        // exclusive); half a width apart they overlap.
        let apart = [
            at("host-bound", (100, 0), c),
            at("host-bound", (100 + w, 0), c),
        ];
        assert_eq!(first_overlap(&apart).unwrap(), None);
        let close = [
            at("host-bound", (100, 0), c),
            at("", (100, 0), c),
            at("host-bound", (100 + w + 5, 0), c),
            at("host-bound", (100 + w / 2, 0), c),
        ];
        let o = first_overlap(&close).unwrap().unwrap();
        assert_eq!((o.first, o.second), (0, 3));
        assert!(o.first_rect.overlaps(&o.second_rect));
    }

    #[test]
    fn wrapped_lines_fit_and_keep_every_word_when_there_is_room() {
        let size = style::LABEL_FONT;
        let lines = wrap_to_width("after a sync (queue drained)", size, 90, 4).unwrap();
        assert!(lines.len() > 1, "{lines:?}");
        for l in &lines {
            assert!(text_size_px(l, size).unwrap().0 <= 90, "{l}");
        }
        assert_eq!(lines.join(" "), "after a sync (queue drained)");
        // Two lines allowed: the second ends in an ellipsis.
        let two = wrap_to_width("after a sync (queue drained)", size, 60, 2).unwrap();
        assert_eq!(two.len(), 2);
        assert!(two[1].ends_with('…'), "{two:?}");
        // Hyphens and slashes are break points too.
        let hyphen = wrap_to_width("copy-engine scheduling", size, 60, 3).unwrap();
        assert_eq!(hyphen[0], "copy-", "{hyphen:?}");
        // One word too wide for the slot is cut to fit.
        let one = wrap_to_width("synchronisation", size, 40, 3).unwrap();
        assert_eq!(one.len(), 1);
        assert!(one[0].ends_with('…') && text_size_px(&one[0], size).unwrap().0 <= 40);
    }
}
