//! The roofline chart's input and its one adapter from the analysis:
//! [`RooflineInput::from_report`] turns a [`RooflineReport`] into points
//! and roofs (`rooftrace ncu --plot`).

use crate::roofline::RooflineReport;
use crate::roofs::{ComputePath, Roofs};

/// One kernel (or kernel group) to plot.
#[derive(Debug, Clone, PartialEq)]
pub struct KernelPoint {
    /// Kernel label as shown in reports (unique in the report).
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
    /// Why the point cannot be placed (`no FLOP counters`), when it cannot:
    /// the chart's caption says so instead of dropping it silently.
    pub not_drawn: Option<&'static str>,
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

impl RooflineInput {
    /// The chart's input for `report`: one point per row (rows without
    /// FLOPs or without DRAM bytes cannot be placed on log axes; each says
    /// why, and the chart's caption counts them), the memory roofs used and
    /// every compute roof (the chart keeps those of the points' paths),
    /// `top_n` labels.
    pub fn from_report(report: &RooflineReport, top_n: usize) -> RooflineInput {
        let mut roofs = report.roofs.clone();
        roofs
            .memory
            .retain(|level, _| report.roofs_used.memory.contains(level));
        RooflineInput {
            roofs,
            points: report
                .kernels
                .iter()
                .map(|k| KernelPoint {
                    name: k.label.clone(),
                    flop_per_byte: k.intensity.unwrap_or(0.0),
                    flop_per_s: k.achieved_flop_per_s.unwrap_or(0.0),
                    duration_ns: k.duration_ns,
                    time_lost_ns: k.time_lost_ns,
                    path: report.dominant_path(k),
                    above_roof: k.above_roof,
                    not_drawn: if k.bandwidth_only {
                        Some("no FLOP counters")
                    } else if k.flop.is_some_and(|w| w <= 0.0) {
                        Some("0 FLOP counted")
                    } else if k.dram_bytes.is_none() {
                        Some("no DRAM bytes")
                    } else if k.intensity.is_none() {
                        Some("0 DRAM bytes")
                    } else {
                        None
                    },
                })
                .collect(),
            top_n,
        }
    }
}
