//! The roofline chart's input and its one adapter from the analysis:
//! [`RooflineInput::from_report`] turns a [`RooflineReport`] into points
//! and roofs (`rooftrace ncu --plot`).

use crate::roofline::{KernelRoofline, RooflineReport};
use crate::roofs::{ComputePath, Roofs};

/// Between a kernel's label and its ncu launch ID, in the point's name of a
/// kernel with several rows (one row per launch): `gemm · ID 12`. The
/// chart's subtitle says so when a labelled point carries one.
pub const LAUNCH_ID_SEP: &str = " · ID ";

/// One kernel (or kernel group) to plot.
#[derive(Debug, Clone, PartialEq)]
pub struct KernelPoint {
    /// Kernel label as shown in reports (unique in the report).
    pub name: String,
    /// Arithmetic intensity, in FLOP/byte (x).
    pub flop_per_byte: f64,
    /// Achieved throughput, in FLOP/s (y).
    pub flop_per_s: f64,
    /// Total GPU time of the kernel, in ns (marker area is proportional);
    /// `None` when the file has rates but no time (the smallest marker).
    pub duration_ns: Option<f64>,
    /// Time lost against the roof, in ns (ranks the labels); `None` when
    /// unknown (no roofs: no GPU decided; or no time), never a figure made
    /// from a placeholder.
    pub time_lost_ns: Option<f64>,
    /// The compute path whose roof applies; `None` when unknown.
    pub path: Option<ComputePath>,
    /// True when the point lies above its roof (drawn with a red ring).
    pub above_roof: bool,
    /// True when the point is at the useful work stated with
    /// `--useful-flops` (intensity and FLOP/s of the useful FLOPs, time
    /// lost against the useful bound), not at the executed counts.
    pub useful: bool,
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

/// Why a row cannot be placed on log axes, when it cannot.
fn not_drawn(k: &KernelRoofline) -> Option<&'static str> {
    if k.bandwidth_only || k.flop.is_none() {
        Some("no FLOP counters")
    } else if k.flop.is_some_and(|f| f <= 0.0) && !k.flop_unknown.is_empty() {
        // 0 on the counters collected, the others not collected.
        Some("no FLOP counters for its path")
    } else if k.flop.is_some_and(|f| f <= 0.0) {
        Some("0 FLOP counted")
    } else if k.dram_bytes.is_none() {
        Some("DRAM bytes unknown")
    } else if k.dram_bytes.is_some_and(|q| q <= 0.0) {
        Some("0 DRAM bytes")
    } else if k.intensity.is_none() || k.achieved_flop_per_s.is_none() {
        Some("intensity unknown")
    } else {
        None
    }
}

impl RooflineInput {
    /// The chart's input for `report`: one point per row (rows without
    /// FLOPs or without DRAM bytes cannot be placed on log axes; each says
    /// why, and the chart's caption counts them), the memory roofs used and
    /// every compute roof (the chart keeps those of the points' paths),
    /// `top_n` labels. A label several rows share (the launches of one
    /// kernel, one row per launch) gets each row's ncu launch ID
    /// ([`LAUNCH_ID_SEP`]), so no two points read the same.
    pub fn from_report(report: &RooflineReport, top_n: usize) -> RooflineInput {
        let mut roofs = report.roofs.clone();
        roofs
            .memory
            .retain(|level, _| report.roofs_used.memory.contains(level));
        let mut rows_of: std::collections::HashMap<&str, usize> = Default::default();
        for k in &report.kernels {
            *rows_of.entry(&*k.label).or_default() += 1;
        }
        let name = |k: &KernelRoofline| {
            if rows_of.get(&*k.label).copied().unwrap_or(0) > 1 {
                format!("{}{LAUNCH_ID_SEP}{}", k.label, k.id)
            } else {
                k.label.to_string()
            }
        };
        // The model holds 0 for no roof and a second for no time (ncu's
        // roofline section alone); the chart shows neither as a figure.
        let timed = |k: &KernelRoofline| (!k.rate_only).then_some(k.duration_ns);
        let lost = |k: &KernelRoofline, ns: f64| (!report.roofless() && !k.rate_only).then_some(ns);
        RooflineInput {
            roofs,
            points: report
                .kernels
                .iter()
                .map(
                    |k| match k.useful.as_ref().filter(|u| u.intensity.is_some()) {
                        // Stated useful work: the point where the work really is
                        // (padded tensor FLOPs overstate I and FLOP/s).
                        Some(u) => KernelPoint {
                            name: name(k),
                            flop_per_byte: u.intensity.unwrap_or(0.0),
                            flop_per_s: u.flop_per_s,
                            duration_ns: timed(k),
                            time_lost_ns: lost(k, u.time_lost_ns),
                            path: u.path.or_else(|| report.dominant_path(k)),
                            above_roof: u.fraction_of_roof
                                > 1.0 + crate::roofline::ABOVE_ROOF_TOLERANCE,
                            useful: true,
                            not_drawn: None,
                        },
                        None => KernelPoint {
                            name: name(k),
                            flop_per_byte: k.intensity.unwrap_or(0.0),
                            flop_per_s: k.achieved_flop_per_s.unwrap_or(0.0),
                            duration_ns: timed(k),
                            time_lost_ns: lost(k, k.time_lost_ns),
                            path: report.dominant_path(k),
                            above_roof: k.above_roof,
                            useful: false,
                            not_drawn: not_drawn(k),
                        },
                    },
                )
                .collect(),
            top_n,
        }
    }
}
