//! The collectives' roofline (`rooftrace comm --plot`): bus bandwidth
//! against message size, log-log, one dot per collective coloured by kind,
//! under a flat roof per link the collectives crossed (NVLink, PCIe, the
//! network per direction). [`CommInput::from_report`] is the one adapter.

use super::axis::{decade_si, LogAxis, LogLogFrame, Tick};
use super::labels::Rect;
use super::{draw, style, Chart, PlotError};
use crate::comm::{CollKind, CommReport};
use crate::error::InputError;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

/// One collective as a point.
#[derive(Debug, Clone, PartialEq)]
pub struct CommPoint {
    /// Its kind (the colour).
    pub kind: CollKind,
    /// Message size, byte.
    pub bytes: f64,
    /// Bus bandwidth, byte/s.
    pub busbw_bytes_per_s: f64,
}

/// Everything the chart needs.
#[derive(Debug, Clone, PartialEq)]
pub struct CommInput {
    /// Title.
    pub title: String,
    /// The link roofs: label and byte/s per direction.
    pub roofs: Vec<(String, f64)>,
    /// Collectives with a known size and bus bandwidth.
    pub points: Vec<CommPoint>,
}

impl CommInput {
    /// The collectives of `r` with a known size and bus bandwidth, under
    /// the report's links; error when none has both.
    pub fn from_report(r: &CommReport) -> Result<CommInput, InputError> {
        let points: Vec<CommPoint> = r
            .collectives
            .iter()
            .filter_map(|c| {
                Some(CommPoint {
                    kind: c.kind,
                    bytes: c.bytes? as f64,
                    busbw_bytes_per_s: c.busbw_bytes_per_s?,
                })
            })
            .filter(|p| p.bytes > 0.0 && p.busbw_bytes_per_s > 0.0)
            .collect();
        if points.is_empty() {
            return Err(InputError::new(
                "--plot: no collective has both a known size and a known group size, so no bus bandwidth to draw",
            ));
        }
        Ok(CommInput {
            title: format!(
                "Collectives: bus bandwidth against message size{}",
                r.gpu
                    .as_deref()
                    .map_or(String::new(), |g| format!(" on {g}"))
            ),
            roofs: r
                .links
                .iter()
                .map(|l| (l.interface.clone(), l.bytes_per_s))
                .collect(),
            points,
        })
    }
}

/// The chart model.
#[derive(Debug, Clone, PartialEq)]
pub struct CommChart {
    /// Canvas size, pixels.
    pub size_px: (u32, u32),
    /// Title.
    pub title: String,
    /// Subtitle.
    pub subtitle: String,
    /// Frame and axes.
    pub frame: LogLogFrame,
    /// Ticks of the size axis.
    pub x_ticks: Vec<Tick>,
    /// Ticks of the bandwidth axis.
    pub y_ticks: Vec<Tick>,
    /// Each roof: label, its row in pixels.
    pub roofs: Vec<(String, i32)>,
    /// Each point: kind, pixel position.
    pub points: Vec<(CollKind, (i32, i32))>,
    /// Legend rows: kind and label, by kind.
    pub legend: Vec<(CollKind, String)>,
}

/// The colour of a kind.
fn kind_color(k: CollKind) -> RGBColor {
    style::SERIES_COLORS[k as usize % style::SERIES_COLORS.len()]
}

impl CommChart {
    /// Lays out the chart.
    pub fn build(input: &CommInput) -> Result<CommChart, PlotError> {
        if input.points.is_empty() {
            return Err(PlotError::Empty("no collective to draw".into()));
        }
        let fold = |it: &mut dyn Iterator<Item = f64>| {
            it.fold((f64::MAX, f64::MIN), |a, v| (a.0.min(v), a.1.max(v)))
        };
        let (x0, x1) = fold(&mut input.points.iter().map(|p| p.bytes));
        let (y0, y1) = fold(
            &mut input
                .points
                .iter()
                .map(|p| p.busbw_bytes_per_s)
                .chain(input.roofs.iter().map(|r| r.1)),
        );
        let (w, h) = style::ROOFLINE_SIZE_PX;
        let plot = Rect {
            left: style::MARGIN_PX.0,
            top: style::MARGIN_PX.1,
            right: w as i32 - 260,
            bottom: h as i32 - style::MARGIN_PX.3,
        };
        let frame = LogLogFrame {
            plot,
            x: LogAxis::covering(x0, x1, 1.5),
            y: LogAxis::covering(y0, y1, 1.5),
        };
        let mut kinds: Vec<CollKind> = input.points.iter().map(|p| p.kind).collect();
        kinds.sort();
        kinds.dedup();
        Ok(CommChart {
            size_px: (w, h),
            title: input.title.clone(),
            subtitle: format!(
                "{} collectives · busbw = algbw × nccl-tests' factor · roofs: links per direction",
                input.points.len()
            ),
            frame,
            x_ticks: frame.x.decade_ticks(|e| decade_si(e, "B")),
            y_ticks: frame.y.decade_ticks(|e| decade_si(e, "B/s")),
            roofs: input
                .roofs
                .iter()
                .map(|(l, b)| {
                    (
                        format!("{l}: {}", crate::units::si(*b, "B/s")),
                        frame.px_y(*b).round() as i32,
                    )
                })
                .collect(),
            points: input
                .points
                .iter()
                .map(|p| (p.kind, frame.px(p.bytes, p.busbw_bytes_per_s)))
                .collect(),
            legend: kinds
                .into_iter()
                .map(|k| (k, k.key().replace('_', "-")))
                .collect(),
        })
    }
}

impl Chart for CommChart {
    fn size_px(&self) -> (u32, u32) {
        self.size_px
    }

    fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<(), PlotError> {
        draw::canvas(area, &self.title, &self.subtitle, self.size_px.0 as i32 / 2)?;
        draw::log_log_frame(
            area,
            &self.frame,
            &self.x_ticks,
            &self.y_ticks,
            "message size (nccl-tests convention)",
            "bus bandwidth",
        )?;
        let p = self.frame.plot;
        for (label, y) in &self.roofs {
            draw::line(area, vec![(p.left, *y), (p.right, *y)], style::INK, 2)?;
            draw::text(
                area,
                label,
                (p.right - 4, y - 4),
                style::LABEL_FONT,
                style::INK,
                (HPos::Right, VPos::Bottom),
            )?;
        }
        for (k, at) in &self.points {
            draw::dot(area, *at, 4.0, kind_color(*k), 0.85, None)?;
        }
        for (i, (k, label)) in self.legend.iter().enumerate() {
            let y = p.top + 10 + 26 * i as i32;
            draw::dot(area, (p.right + 30, y), 5.0, kind_color(*k), 1.0, None)?;
            draw::text(
                area,
                label,
                (p.right + 44, y),
                style::LEGEND_FONT,
                style::INK,
                (HPos::Left, VPos::Center),
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_sit_under_their_roof_on_log_axes() {
        let input = CommInput {
            title: "t".into(),
            roofs: vec![("NVLink".into(), 300e9)],
            points: vec![
                CommPoint {
                    kind: CollKind::AllReduce,
                    bytes: 1e6,
                    busbw_bytes_per_s: 30e9,
                },
                CommPoint {
                    kind: CollKind::AllGather,
                    bytes: 1e9,
                    busbw_bytes_per_s: 240e9,
                },
            ],
        };
        let c = CommChart::build(&input).unwrap();
        // A larger busbw is higher up (smaller pixel y), and both are under
        // the roof's row.
        assert!(c.points[1].1 .1 < c.points[0].1 .1);
        assert!(c.points.iter().all(|p| p.1 .1 > c.roofs[0].1));
        assert!(c.frame.x.contains(1e6) && c.frame.x.contains(1e9));
        assert_eq!(c.legend.len(), 2);
    }
}
