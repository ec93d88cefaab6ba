//! Category labels under an x axis that never overlap: each label is a
//! [`PlacedText`] measured with the embedded font ([`super::extent`]), and
//! a label is kept only when its box clears the last kept one by a gap.
//! The first label (the budget chart's median bar) is always kept.

use super::extent::{HAnchor, PlacedText, VAnchor};
use super::{style, PlotError};

/// Least horizontal space between two kept labels, in pixels.
pub const TICK_GAP_PX: i32 = 8;

/// The labels `(centre x, text)` that fit under an axis whose bottom edge
/// is at `bottom`, in order, as drawn by [`super::draw`]'s x ticks (tick
/// font, centred, top-anchored 10 px below the axis).
pub fn fitting_x_labels(
    labels: &[(i32, String)],
    bottom: i32,
) -> Result<Vec<PlacedText>, PlotError> {
    let mut kept: Vec<PlacedText> = Vec::new();
    let mut right_edge = i32::MIN;
    for (x, text) in labels {
        let t = PlacedText::new(
            text.clone(),
            (*x, bottom + 10),
            style::TICK_FONT,
            style::INK,
            (HAnchor::Center, VAnchor::Top),
        );
        let r = t.extent()?;
        if kept.is_empty() || r.left >= right_edge.saturating_add(TICK_GAP_PX) {
            right_edge = r.right;
            kept.push(t);
        }
    }
    Ok(kept)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plot::extent::first_overlap;

    #[test]
    fn kept_labels_never_overlap() {
        // 60 labels 12 px apart: far closer than a "#12" is wide.
        let labels: Vec<(i32, String)> = (0..60)
            .map(|i| {
                (
                    100 + 12 * i,
                    if i == 0 {
                        "median".to_string()
                    } else {
                        format!("#{i}")
                    },
                )
            })
            .collect();
        let kept = fitting_x_labels(&labels, 500).unwrap();
        assert_eq!(kept[0].text, "median");
        assert!(kept.len() > 3 && kept.len() < 30, "{}", kept.len());
        assert_eq!(first_overlap(&kept).unwrap(), None);
        // Far apart, every one is kept.
        let wide: Vec<(i32, String)> = (0..5).map(|i| (100 + 200 * i, format!("#{i}"))).collect();
        assert_eq!(fitting_x_labels(&wide, 500).unwrap().len(), 5);
    }
}
