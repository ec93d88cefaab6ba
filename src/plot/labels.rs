//! Text boxes and label placement: pixel rectangles, text extents measured
//! with the embedded font, and a greedy placer that puts each label at the
//! first candidate position around its anchor that overlaps no placed label,
//! no hard obstacle (legend, roof labels) and stays inside the plot.

use super::{ensure_font, PlotError, FONT_FAMILY};
use plotters::style::{FontDesc, FontFamily, FontStyle};

/// An axis-aligned rectangle in canvas pixels; `right`/`bottom` exclusive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Rect {
    /// Left edge, in pixels.
    pub left: i32,
    /// Top edge, in pixels.
    pub top: i32,
    /// Right edge (exclusive), in pixels.
    pub right: i32,
    /// Bottom edge (exclusive), in pixels.
    pub bottom: i32,
}

impl Rect {
    /// A rectangle from its top-left corner and size, in pixels.
    pub fn at(left: i32, top: i32, width: i32, height: i32) -> Rect {
        Rect {
            left,
            top,
            right: left + width,
            bottom: top + height,
        }
    }

    /// Width in pixels.
    pub fn width(&self) -> i32 {
        self.right - self.left
    }

    /// Height in pixels.
    pub fn height(&self) -> i32 {
        self.bottom - self.top
    }

    /// True when the two rectangles share any pixel.
    pub fn overlaps(&self, o: &Rect) -> bool {
        self.left < o.right && o.left < self.right && self.top < o.bottom && o.top < self.bottom
    }

    /// True when `o` lies entirely inside `self`.
    pub fn contains(&self, o: &Rect) -> bool {
        o.left >= self.left && o.right <= self.right && o.top >= self.top && o.bottom <= self.bottom
    }

    /// The rectangle grown by `pad` pixels on every side.
    pub fn inflate(&self, pad: i32) -> Rect {
        Rect {
            left: self.left - pad,
            top: self.top - pad,
            right: self.right + pad,
            bottom: self.bottom + pad,
        }
    }

    /// The square box around a circle of `radius` pixels at `center`.
    pub fn around(center: (f64, f64), radius: f64) -> Rect {
        Rect {
            left: (center.0 - radius).floor() as i32,
            top: (center.1 - radius).floor() as i32,
            right: (center.0 + radius).ceil() as i32,
            bottom: (center.1 + radius).ceil() as i32,
        }
    }
}

/// Width and height in pixels of `text` drawn at plotters font `size` with
/// the embedded font (its glyph advances and kerning).
pub fn text_size_px(text: &str, size: f64) -> Result<(i32, i32), PlotError> {
    ensure_font()?;
    let font = FontDesc::new(FontFamily::Name(FONT_FAMILY), size, FontStyle::Normal);
    let (w, h) = font.box_size(text).map_err(|_| PlotError::Font)?;
    // The layout box is one em high; descenders reach a little below it.
    Ok((w as i32, (h as f64 * 1.2).ceil() as i32))
}

/// `head + middle + tail` with `middle` shortened at its end (with `…`)
/// until the whole line is at most `max_px` wide at font `size`; `middle`
/// disappears entirely (`…` only) if even that is too wide.
pub fn fit_middle(
    head: &str,
    middle: &str,
    tail: &str,
    size: f64,
    max_px: i32,
) -> Result<String, PlotError> {
    let whole = format!("{head}{middle}{tail}");
    if text_size_px(&whole, size)?.0 <= max_px {
        return Ok(whole);
    }
    let chars: Vec<char> = middle.chars().collect();
    // Binary search on the number of characters kept: width grows with it.
    let (mut lo, mut hi) = (0usize, chars.len());
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        let kept: String = chars[..mid].iter().collect();
        if text_size_px(&format!("{head}{}…{tail}", kept.trim_end()), size)?.0 <= max_px {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    let kept: String = chars[..lo].iter().collect();
    Ok(format!("{head}{}…{tail}", kept.trim_end()))
}

/// Each of `names` cut to at most `max` characters in the middle
/// ([`ellipsize`](crate::units::ellipsize)), with no two different names
/// cut to the same text: where they would be, each of them is cut less (4
/// characters at a time, up to the whole name), so the part where they
/// differ shows. Equal names (two rows of one kernel the caller could not
/// tell apart) get ` (2)`, ` (3)`, … in order after the first.
pub fn distinct_cuts(names: &[&str], max: usize) -> Vec<String> {
    use crate::units::ellipsize;
    use std::collections::HashMap;
    let mut keep = vec![max; names.len()];
    let mut cuts: Vec<String> = names.iter().map(|n| ellipsize(n, max)).collect();
    loop {
        let mut by_cut: HashMap<&str, Vec<usize>> = HashMap::new();
        for (i, c) in cuts.iter().enumerate() {
            by_cut.entry(c.as_str()).or_default().push(i);
        }
        let mut longer = Vec::new();
        for group in by_cut.values() {
            for &i in group {
                let whole = names[i].chars().count();
                let clash = group.iter().any(|&j| names[j] != names[i]);
                if clash && keep[i] < whole {
                    longer.push(i);
                }
            }
        }
        if longer.is_empty() {
            break;
        }
        for i in longer {
            keep[i] += 4;
            cuts[i] = ellipsize(names[i], keep[i]);
        }
    }
    let mut seen: HashMap<String, usize> = HashMap::new();
    for c in &mut cuts {
        let n = seen.entry(c.clone()).or_default();
        *n += 1;
        if *n > 1 {
            c.push_str(&format!(" ({n})"));
        }
    }
    cuts
}

/// A label to place near an anchor point.
#[derive(Debug, Clone, PartialEq)]
pub struct LabelRequest {
    /// Anchor (e.g. a marker centre), in pixels.
    pub anchor: (f64, f64),
    /// Clearance around the anchor (e.g. the marker radius), in pixels.
    pub clearance: f64,
    /// Size of the text box, in pixels.
    pub size: (i32, i32),
}

/// Where a label went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Placement {
    /// The text box (text drawn from its top-left corner), in pixels.
    pub rect: Rect,
    /// True when the label sits far from its anchor and needs a leader line.
    pub leader: bool,
}

/// Extra distances tried beyond the clearance, nearest first, in pixels.
const RINGS_PX: [f64; 5] = [4.0, 16.0, 34.0, 60.0, 95.0];

/// Things a label must not touch: boxes (legend, other labels) and line
/// segments (roofs), in pixels.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Obstacles {
    /// Boxes, kept [`LABEL_PAD_PX`](super::style::LABEL_PAD_PX) away from.
    pub rects: Vec<Rect>,
    /// Line segments (end points), which may not cross a label box.
    pub segments: Vec<((f64, f64), (f64, f64))>,
}

impl Obstacles {
    /// True when `r` (padded for boxes) touches any obstacle.
    pub fn blocks(&self, r: &Rect) -> bool {
        let padded = r.inflate(super::style::LABEL_PAD_PX);
        self.rects.iter().any(|h| h.overlaps(&padded))
            || self
                .segments
                .iter()
                .any(|&(a, b)| segment_hits_rect(a, b, &r.inflate(3)))
    }
}

/// True when the segment `a`–`b` passes through `r` (Liang–Barsky clipping).
pub fn segment_hits_rect(a: (f64, f64), b: (f64, f64), r: &Rect) -> bool {
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    let mut t0: f64 = 0.0;
    let mut t1: f64 = 1.0;
    let checks = [
        (-dx, a.0 - r.left as f64),
        (dx, r.right as f64 - a.0),
        (-dy, a.1 - r.top as f64),
        (dy, r.bottom as f64 - a.1),
    ];
    for (p, q) in checks {
        if p == 0.0 {
            if q < 0.0 {
                return false;
            }
        } else {
            let t = q / p;
            if p < 0.0 {
                t0 = t0.max(t);
            } else {
                t1 = t1.min(t);
            }
            if t0 > t1 {
                return false;
            }
        }
    }
    true
}

/// Places labels greedily in request order (put the most important first).
///
/// Each label tries 8 directions (E, W, NE, SE, NW, SW, N, S) at growing
/// distances from its anchor. A candidate is accepted when it lies inside
/// `bounds`, touches no label placed before it and no `hard` obstacle, and
/// — on the first pass — no `soft` rectangle (other markers). A label that
/// fits nowhere on either pass is left out (`None`), never drawn overlapping.
pub fn place_labels(
    requests: &[LabelRequest],
    bounds: Rect,
    hard: &Obstacles,
    soft: &[Rect],
) -> Vec<Option<Placement>> {
    let mut placed: Vec<Rect> = Vec::new();
    let mut out = Vec::with_capacity(requests.len());
    for req in requests {
        let found = [true, false].into_iter().find_map(|avoid_soft| {
            candidates(req).into_iter().find(|(r, _)| {
                let padded = r.inflate(super::style::LABEL_PAD_PX);
                bounds.contains(r)
                    && !placed.iter().any(|p| p.overlaps(&padded))
                    && !hard.blocks(r)
                    && (!avoid_soft || !soft.iter().any(|s| s.overlaps(r)))
            })
        });
        match found {
            Some((rect, ring)) => {
                placed.push(rect);
                out.push(Some(Placement {
                    rect,
                    leader: ring >= 2,
                }));
            }
            None => out.push(None),
        }
    }
    out
}

/// Candidate boxes for one label with the index of their distance ring.
fn candidates(req: &LabelRequest) -> Vec<(Rect, usize)> {
    let (ax, ay) = req.anchor;
    let (w, h) = (req.size.0 as f64, req.size.1 as f64);
    let mut out = Vec::with_capacity(RINGS_PX.len() * 8);
    for (ring, extra) in RINGS_PX.iter().enumerate() {
        let d = req.clearance + extra;
        // Diagonal offsets are shortened so the corner sits at distance d.
        let q = d * std::f64::consts::FRAC_1_SQRT_2;
        let tops_lefts = [
            (ax + d, ay - h / 2.0),     // E
            (ax - d - w, ay - h / 2.0), // W
            (ax + q, ay - q - h),       // NE
            (ax + q, ay + q),           // SE
            (ax - q - w, ay - q - h),   // NW
            (ax - q - w, ay + q),       // SW
            (ax - w / 2.0, ay - d - h), // N
            (ax - w / 2.0, ay + d),     // S
        ];
        for (l, t) in tops_lefts {
            out.push((
                Rect::at(l.round() as i32, t.round() as i32, req.size.0, req.size.1),
                ring,
            ));
        }
    }
    out
}

/// The first of `candidates` that lies inside `bounds` and touches no
/// obstacle; used for roof labels, which have a few fixed spots each.
pub fn place_first(candidates: &[Rect], bounds: Rect, hard: &Obstacles) -> Option<Rect> {
    candidates
        .iter()
        .copied()
        .find(|r| bounds.contains(r) && !hard.blocks(r))
}

/// What a legend entry shows left of its text.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Swatch {
    /// A filled dot of this colour (kernel points, sweep points).
    Dot(plotters::style::RGBColor),
    /// A white dot ringed in this colour (points above their roof, M-sweep points).
    Ring(plotters::style::RGBColor),
    /// A filled bar (timeline ops, gap classes).
    Bar(plotters::style::RGBColor),
    /// A line (roofs, sweep series).
    Line(plotters::style::RGBColor),
}

/// One legend entry.
#[derive(Debug, Clone, PartialEq)]
pub struct LegendItem {
    /// The symbol.
    pub swatch: Swatch,
    /// The text.
    pub text: String,
}

/// A boxed legend: entries stacked vertically inside `rect`.
#[derive(Debug, Clone, PartialEq)]
pub struct Legend {
    /// The legend box, in pixels.
    pub rect: Rect,
    /// Entries, top to bottom.
    pub items: Vec<LegendItem>,
}

/// Height of one legend row, in pixels.
pub const LEGEND_ROW_PX: i32 = 24;
/// Width of the swatch column plus its gap to the text, in pixels.
pub const LEGEND_SWATCH_PX: i32 = 30;

impl Legend {
    /// Sizes a legend for `items` with its top-left corner at `top_left`
    /// (or its top-right corner there when `from_right`).
    pub fn new(
        items: Vec<LegendItem>,
        corner: (i32, i32),
        from_right: bool,
    ) -> Result<Legend, PlotError> {
        let mut w = 0;
        for it in &items {
            w = w.max(text_size_px(&it.text, super::style::LEGEND_FONT)?.0);
        }
        let width = w + LEGEND_SWATCH_PX + 16;
        let height = items.len() as i32 * LEGEND_ROW_PX + 10;
        let left = if from_right {
            corner.0 - width
        } else {
            corner.0
        };
        Ok(Legend {
            rect: Rect::at(left, corner.1, width, height),
            items,
        })
    }

    /// Centre row (y, pixels) of entry `i`.
    pub fn row_center_y(&self, i: usize) -> i32 {
        self.rect.top + 5 + i as i32 * LEGEND_ROW_PX + LEGEND_ROW_PX / 2
    }

    /// Where entry `i`'s text starts (x, pixels): after the swatch column.
    pub fn text_x(&self) -> i32 {
        self.rect.left + 8 + LEGEND_SWATCH_PX
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_names_that_cut_alike_are_cut_less_until_they_differ() {
        // 40 characters each, differing only at character 20: cut to 16
        // (10 head, `…`, 5 tail) both read `aaaaaaaaaa…bbbbb`.
        let a = format!("{}X{}", "a".repeat(19), "b".repeat(20));
        let b = format!("{}Y{}", "a".repeat(19), "b".repeat(20));
        let short = "gemm";
        let cuts = distinct_cuts(&[&a, &b, short], 16);
        assert_eq!(
            crate::units::ellipsize(&a, 16),
            crate::units::ellipsize(&b, 16)
        );
        assert_ne!(cuts[0], cuts[1]);
        // Each shows its differing character, and no more than needed: cut
        // to 32 (20 head + `…` + 11 tail) the head reaches character 20.
        assert_eq!(cuts[0].chars().count(), 32, "{}", cuts[0]);
        assert!(cuts[0].contains('X') && cuts[1].contains('Y'), "{cuts:?}");
        // A name not in the clash keeps its cut.
        assert_eq!(cuts[2], "gemm");
    }

    #[test]
    fn equal_names_are_numbered_in_order() {
        let cuts = distinct_cuts(&["k", "gemm", "k", "k"], 16);
        assert_eq!(cuts, ["k", "gemm", "k (2)", "k (3)"]);
    }

    #[test]
    fn fit_middle_shortens_only_the_middle_and_fits() {
        let short = fit_middle("roofs: ", "a100", " · 3 kernels", 18.0, 1160).unwrap();
        assert_eq!(short, "roofs: a100 · 3 kernels");
        // No spaces in the middle, so no trailing space is trimmed below.
        let long = "measured_where_published,".repeat(8);
        let fitted = fit_middle("roofs: ", &long, " · 1 kernel", 18.0, 600).unwrap();
        assert!(fitted.starts_with("roofs: measured_where"), "{fitted}");
        assert!(fitted.ends_with("… · 1 kernel"), "{fitted}");
        assert!(text_size_px(&fitted, 18.0).unwrap().0 <= 600);
        // One more character of the middle would no longer fit.
        let kept = fitted
            .trim_start_matches("roofs: ")
            .trim_end_matches("… · 1 kernel");
        let next = &long[..kept.len() + 1];
        assert!(
            text_size_px(&format!("roofs: {next}… · 1 kernel"), 18.0)
                .unwrap()
                .0
                > 600
        );
        // Nothing fits: the middle goes entirely.
        assert_eq!(fit_middle("ab", "cdef", "gh", 18.0, 1).unwrap(), "ab…gh");
    }

    /// A deterministic pseudo-random sequence (64-bit LCG, Knuth's MMIX
    /// constants), so the invariant test needs no rand crate.
    struct Lcg(u64);
    impl Lcg {
        fn next_f64(&mut self) -> f64 {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (self.0 >> 11) as f64 / (1u64 << 53) as f64
        }
    }

    #[test]
    fn placed_labels_never_overlap_each_other_obstacles_or_edges() {
        let bounds = Rect::at(100, 50, 900, 600);
        let legend = Rect::at(110, 60, 200, 120);
        let mut total_placed = 0;
        for seed in 0..200u64 {
            let mut rng = Lcg(seed);
            let n = 1 + (rng.next_f64() * 25.0) as usize;
            let reqs: Vec<LabelRequest> = (0..n)
                .map(|_| LabelRequest {
                    // Clustered anchors make collisions likely.
                    anchor: (
                        100.0 + 900.0 * rng.next_f64().powi(2),
                        50.0 + 600.0 * rng.next_f64(),
                    ),
                    clearance: 3.0 + 15.0 * rng.next_f64(),
                    size: (
                        40 + (rng.next_f64() * 220.0) as i32,
                        14 + (rng.next_f64() * 6.0) as i32,
                    ),
                })
                .collect();
            let soft: Vec<Rect> = reqs
                .iter()
                .map(|r| Rect::around(r.anchor, r.clearance))
                .collect();
            // A roof-like diagonal line through the middle of the plot.
            let hard = Obstacles {
                rects: vec![legend],
                segments: vec![((100.0, 650.0), (700.0, 50.0))],
            };
            let got = place_labels(&reqs, bounds, &hard, &soft);
            assert_eq!(got.len(), n);
            let rects: Vec<Rect> = got.iter().flatten().map(|p| p.rect).collect();
            total_placed += rects.len();
            for (i, a) in rects.iter().enumerate() {
                assert!(bounds.contains(a), "seed {seed}: {a:?} leaves the plot");
                assert!(!a.overlaps(&legend), "seed {seed}: {a:?} covers the legend");
                assert!(
                    !segment_hits_rect(hard.segments[0].0, hard.segments[0].1, a),
                    "seed {seed}: {a:?} crosses the roof line"
                );
                for b in &rects[i + 1..] {
                    assert!(!a.overlaps(b), "seed {seed}: {a:?} overlaps {b:?}");
                }
            }
        }
        // The placer must actually place most labels, or the invariant is empty.
        assert!(total_placed > 1500, "only {total_placed} labels placed");
    }

    #[test]
    fn lone_label_goes_right_of_its_point() {
        let req = LabelRequest {
            anchor: (200.0, 200.0),
            clearance: 5.0,
            size: (50, 10),
        };
        let got = place_labels(&[req], Rect::at(0, 0, 400, 400), &Obstacles::default(), &[]);
        // East candidate of the first ring: left = 200 + 5 + 4, top = 200 - 5.
        assert_eq!(
            got[0],
            Some(Placement {
                rect: Rect::at(209, 195, 50, 10),
                leader: false
            })
        );
    }

    #[test]
    fn label_that_fits_nowhere_is_dropped() {
        let req = LabelRequest {
            anchor: (20.0, 20.0),
            clearance: 2.0,
            size: (500, 10),
        };
        assert_eq!(
            place_labels(&[req], Rect::at(0, 0, 100, 100), &Obstacles::default(), &[]),
            vec![None]
        );
    }

    #[test]
    fn segment_rect_intersection() {
        let r = Rect::at(10, 10, 10, 10);
        assert!(segment_hits_rect((0.0, 0.0), (30.0, 30.0), &r)); // diagonal through
        assert!(!segment_hits_rect((0.0, 30.0), (5.0, 0.0), &r)); // passes left of it
        assert!(!segment_hits_rect((0.0, 0.0), (30.0, 5.0), &r)); // passes above it
        assert!(segment_hits_rect((12.0, 12.0), (13.0, 13.0), &r)); // inside
    }

    #[test]
    fn text_width_comes_from_the_embedded_font() {
        let (w1, h1) = text_size_px("gemm", 16.0).unwrap();
        let (w2, _) = text_size_px("gemm_bf16_kernel", 16.0).unwrap();
        assert!(w1 > 0 && h1 > 0);
        // Four times the characters, roughly four times the width.
        assert!(w2 > 3 * w1 && w2 < 5 * w1, "{w1} {w2}");
    }
}
