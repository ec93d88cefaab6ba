//! The chart of `rooftrace ncu --project-to … --plot`:
//! [`ProjectionRooflineInput::from_projection`] draws the target's roofs,
//! the source's roofs as thin grey lines, and an arrow per kernel from its
//! measured point `(I, W/T)` to its projected one `(I, W/T')` (same
//! intensity: the counters are the source's). It reuses the diff roofline
//! (arrows, labels by the largest time change).

use super::diff::{DiffRooflineChart, DiffRooflineInput, Move};
use super::labels::Obstacles;
use super::roofline::RoofSet;
use super::{draw, style, Chart, PlotError};
use crate::projection::ProjectedReport;
use crate::roofs::{ComputePath, Roofs};
use plotters::coord::Shift;
use plotters::prelude::*;
use std::collections::{BTreeSet, HashMap};

/// What the projection roofline needs.
#[derive(Debug, Clone, PartialEq)]
pub struct ProjectionRooflineInput {
    /// Target roofs, projected points and arrows.
    pub diff: DiffRooflineInput,
    /// The source's roofs (drawn thin and grey).
    pub source_roofs: Roofs,
    /// Compute paths of the projected rows.
    pub paths: Vec<ComputePath>,
    /// Source and target names, for the title.
    pub names: (String, String),
    /// Rows of the target not drawn (no FLOPs, no intensity or no
    /// expected time) and rows in all, for the subtitle to say so as the
    /// roofline's caption does.
    pub not_drawn: (usize, usize),
}

impl ProjectionRooflineInput {
    /// The chart input of target `target` (index in the projection): rows
    /// with FLOPs, DRAM bytes and a known expected time; `None` without one.
    pub fn from_projection(r: &ProjectedReport, target: usize) -> Option<ProjectionRooflineInput> {
        let p = &r.projection;
        let t = p.targets.get(target)?;
        let rows: HashMap<u64, &crate::roofline::KernelRoofline> =
            r.roofline.kernels.iter().map(|k| (k.id, k)).collect();
        let mut paths: HashMap<String, Option<ComputePath>> = HashMap::new();
        let mut moves = Vec::new();
        for k in &t.kernels {
            let (Some(src), Some(i), Some(e)) = (rows.get(&k.id), k.intensity, k.expected(p.model))
            else {
                continue;
            };
            let Some(w) = src.flop.filter(|w| *w > 0.0 && i > 0.0) else {
                continue;
            };
            if k.source_ns <= 0.0 || e <= 0.0 {
                continue;
            }
            let name = format!("{} #{}", k.label, k.id);
            paths.insert(name.clone(), r.roofline.dominant_path(src));
            moves.push(Move {
                name,
                before: (i, w / (k.source_ns * 1e-9)),
                after: (i, w / (e * 1e-9)),
                duration_ns: e,
                delta_ns: e - k.source_ns,
            });
        }
        let used: BTreeSet<ComputePath> = paths.values().flatten().copied().collect();
        let mut diff = DiffRooflineInput::from_moves(t.roofs.clone(), moves, |n| {
            paths.get(n).copied().flatten()
        })?;
        diff.roofline.roofs.gpu = t.gpu.name.clone();
        let drawn = diff.moves.len();
        Some(ProjectionRooflineInput {
            diff,
            source_roofs: r.roofline.roofs.clone(),
            paths: used.into_iter().collect(),
            names: (p.source_gpu.name.clone(), t.gpu.name.clone()),
            not_drawn: (t.kernels.len().saturating_sub(drawn), t.kernels.len()),
        })
    }
}

/// The projection roofline: the diff chart on the target's roofs, plus the
/// source's roof lines.
#[derive(Debug, Clone, PartialEq)]
pub struct ProjectionRooflineChart {
    /// Target roofs, projected points, arrows and labels.
    pub chart: DiffRooflineChart,
    /// The source's roof lines in pixels, clipped to the frame.
    pub source_roofs: Vec<((i32, i32), (i32, i32))>,
}

impl ProjectionRooflineChart {
    /// Computes the chart.
    pub fn build(input: &ProjectionRooflineInput) -> Result<ProjectionRooflineChart, PlotError> {
        let mut chart = DiffRooflineChart::build(&input.diff)?;
        chart.chart.title = format!("Roofline projected: {} → {}", input.names.0, input.names.1);
        chart.chart.subtitle = super::labels::fit_middle(
            "grey: ",
            &format!("{} roofs", input.names.0),
            &format!(
                " · colour: {} roofs · {} kernels, arrows measured → projected{}",
                input.names.1,
                input.diff.moves.len(),
                match input.not_drawn {
                    (0, _) => String::new(),
                    (n, m) => format!(" · {n} of {m} not drawn (no FLOPs or expected time)"),
                }
            ),
            style::SUBTITLE_FONT,
            style::ROOFLINE_SIZE_PX.0 as i32 - 40,
        )?;
        let frame = chart.chart.frame;
        let set = RoofSet::build(
            &input.source_roofs,
            &input.paths,
            &frame,
            &mut Obstacles::default(),
            &Obstacles::default(),
        )?;
        let px = |p: (f64, f64)| (p.0.round() as i32, p.1.round() as i32);
        let source_roofs = set
            .segments_px(&frame)
            .into_iter()
            .map(|(a, b)| (px(a), px(b)))
            .collect();
        Ok(ProjectionRooflineChart {
            chart,
            source_roofs,
        })
    }
}

impl Chart for ProjectionRooflineChart {
    fn size_px(&self) -> (u32, u32) {
        self.chart.size_px()
    }

    fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<(), PlotError> {
        self.chart.draw(area)?;
        for &(a, b) in &self.source_roofs {
            draw::line(area, vec![a, b], style::LEADER, 2)?;
        }
        Ok(())
    }
}
