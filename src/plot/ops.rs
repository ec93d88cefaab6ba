//! The roofline of `rooftrace ops --plot`: [`OpsRooflineInput::from_ops`]
//! puts each row of the ops report where `ncu --plot` puts a kernel
//! (x: FLOPs per compulsory byte, y: FLOPs / time), on the DRAM roof and
//! the flat roofs of the compute paths the rows use, and says on the
//! chart that the intensity is an upper bound and which FLOP convention
//! counted the FLOPs. Without roofs (the GPU was not decided) the points
//! are drawn alone and the chart says so. A collective's row is bound by
//! its link and has no intensity: it is kept off the DRAM roofline, and
//! the chart lists it among the rows not drawn.

use super::roofline::{KernelPoint, RooflineChart, RooflineInput, Wording};
use super::PlotError;
use crate::ops::{OpRow, OpsReport, FLOP_CONVENTION};
use crate::roofs::MemoryLevel;
use std::collections::HashMap;

/// The ops roofline's input: the roofline's, and its words.
#[derive(Debug, Clone, PartialEq)]
pub struct OpsRooflineInput {
    /// Points and roofs.
    pub roofline: RooflineInput,
    /// What the points are and how they were derived.
    pub wording: Wording,
}

/// Why a row cannot be placed on log axes, when it cannot.
fn not_drawn(row: &OpRow) -> Option<&'static str> {
    if row.link.is_some() {
        Some("a collective, bound by its link")
    } else if row.time_ns <= 0 {
        Some("no kernel time")
    } else if row.flops == 0 {
        Some("no FLOPs in its model (copies, embeddings, integer work)")
    } else if row.bytes == 0 {
        Some("no bytes in its model")
    } else {
        None
    }
}

/// A row's point name: op and shapes (or the kernel and its ops), with
/// the compute path when two rows share the rest.
fn point_names(rows: &[OpRow]) -> Vec<String> {
    let base = |r: &OpRow| {
        if r.shapes.is_empty() {
            r.name.clone()
        } else {
            format!("{} {}", r.name, r.shapes)
        }
    };
    let mut seen: HashMap<String, usize> = HashMap::new();
    for r in rows {
        *seen.entry(base(r)).or_default() += 1;
    }
    rows.iter()
        .map(|r| {
            let name = base(r);
            match r.path {
                Some(p) if seen.get(&name).copied().unwrap_or(0) > 1 => {
                    format!("{name} [{}]", p.key())
                }
                _ => name,
            }
        })
        .collect()
}

impl OpsRooflineInput {
    /// The chart's input for `report`: one point per row (intensity from
    /// compulsory bytes, achieved FLOP/s = FLOPs / time), a red ring on a
    /// row above its roof or above the DRAM roof, the DRAM roof and the
    /// flat roofs of the report's GPU, `top_n` labels by time lost.
    pub fn from_ops(report: &OpsReport, top_n: usize) -> OpsRooflineInput {
        let mut roofs = report.roofs.clone();
        roofs.memory.retain(|level, _| *level == MemoryLevel::Dram);
        let names = point_names(&report.rows);
        let points = report
            .rows
            .iter()
            .zip(names)
            .map(|(row, name)| KernelPoint {
                name,
                flop_per_byte: row.intensity().unwrap_or(0.0),
                flop_per_s: row.achieved_flop_per_s().unwrap_or(0.0),
                duration_ns: Some(row.time_ns as f64),
                time_lost_ns: row.time_lost_ns().map(|l| l as f64),
                path: row.path,
                above_roof: row
                    .fraction_of_roof()
                    .is_some_and(|f| f > 1.0 + crate::ops::model::ABOVE_ROOF_TOLERANCE)
                    || report.above_memory_roof(row),
                useful: false,
                not_drawn: not_drawn(row),
            })
            .collect();
        let unit = match report.group_by {
            crate::ops::GroupBy::OpShapes => ("op shape", "op shapes"),
            crate::ops::GroupBy::Kernel => ("kernel", "kernels"),
        };
        let mut note = format!(
            "from the trace's shapes: intensity = FLOPs / compulsory bytes (an upper bound); FLOPs per {FLOP_CONVENTION} (docs/ops.md)"
        );
        if report.roofs.memory.is_empty() && report.roofs.compute.is_empty() {
            note.push_str("; no roofs: the GPU was not decided (give --gpu KEY)");
        }
        OpsRooflineInput {
            roofline: RooflineInput {
                roofs,
                points,
                top_n,
            },
            wording: Wording {
                title: "Ops roofline",
                point: unit,
                above: "above a roof: bytes undercounted, or from cache",
                note,
            },
        }
    }

    /// The chart.
    pub fn chart(&self) -> Result<RooflineChart, PlotError> {
        RooflineChart::build_worded(&self.roofline, &self.wording)
    }
}
