//! The roofline report model: what [`super::analysis`] computes and every
//! renderer, chart adapter, `diff`, `multi` and `budget` read. Plain data
//! (rows, the roofs used, diagnostics, padding and useful-work annotations)
//! with the few accessors renderers share; no math beyond choosing among
//! what is stored. `analysis`, `diagnose` and `useful` all depend on this
//! file, one way; it depends on none of them.

use crate::ncu::{FlopGroup, Source};
use crate::roofs::{ComputePath, GpuInfo, MemoryLevel, Roofs};
use serde::Serialize;
use std::collections::BTreeMap;
use std::sync::Arc;

/// A shared name serialised as the string it is.
fn shared_str<S: serde::Serializer>(s: &Arc<str>, ser: S) -> Result<S::Ok, S::Error> {
    ser.serialize_str(s)
}

/// Schema tag of the JSON report.
pub const NCU_SCHEMA: &str = "rooftrace.ncu/3";

/// A point is "above the roof" when it beats the bound by more than this
/// fraction (5 %).
pub const ABOVE_ROOF_TOLERANCE: f64 = 0.05;

/// How rows are formed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum GroupBy {
    /// One row per launch.
    Launch,
    /// One row per kernel name: times, bytes and FLOPs summed over launches.
    Kernel,
}

/// The clock the roofs are taken at (`--roof-clock`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RoofClock {
    /// Each launch against its roofs scaled to the clocks it ran at
    /// (compute ∝ SM clock, DRAM ∝ memory clock where it differs).
    #[default]
    Run,
    /// The roofs as stated, at the clocks they assume (a datasheet's boost
    /// clock): the fraction of the boost-clock roof.
    Boost,
}

/// Lowest and highest clock over the analysed launches, Hz.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ClockRange {
    /// Lowest, Hz.
    pub min_hz: f64,
    /// Highest, Hz.
    pub max_hz: f64,
}

/// The clocks of a report: what the roofs assume, what the launches ran
/// at, and whether the roofs were scaled (docs/ncu.md, "Clocks").
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClockInfo {
    /// `run` (roofs scaled to each launch's clocks) or `boost` (as stated).
    pub roof_clock: RoofClock,
    /// SM clock the compute roofs assume, Hz (`None`: not known, not scaled).
    pub roof_sm_clock_hz: Option<f64>,
    /// Where it comes from.
    pub roof_sm_clock_source: String,
    /// Memory clock the DRAM roof assumes, Hz.
    pub roof_memory_clock_hz: Option<f64>,
    /// Where it comes from.
    pub roof_memory_clock_source: String,
    /// SM clocks the analysed launches ran at (`None`: not in the file).
    pub run_sm_clock_hz: Option<ClockRange>,
    /// DRAM clocks the analysed launches ran at.
    pub run_dram_clock_hz: Option<ClockRange>,
    /// True when the compute roofs were scaled.
    pub compute_scaled: bool,
    /// True when the DRAM roof was scaled.
    pub memory_scaled: bool,
    /// The roofs before scaling, when they were scaled (what `diff`
    /// compares: two runs at other clocks share the roofs as stated).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub roofs_as_stated: Option<Roofs>,
}

/// Which term of the time bound is larger.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Bound {
    /// `Q / B` (DRAM) is the larger term.
    Memory,
    /// `sum_p W_p / F_p` is the larger term.
    Compute,
}

impl Bound {
    /// `memory` or `compute`.
    pub fn key(self) -> &'static str {
        match self {
            Bound::Memory => "memory",
            Bound::Compute => "compute",
        }
    }
}

/// One row of the report: a launch, or all launches of one kernel name.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct KernelRoofline {
    /// ncu `ID` of the launch (for a kernel group: of its first launch).
    pub id: u64,
    /// `Process ID`; `None` for a kernel group spanning several processes.
    pub process_id: Option<u64>,
    /// Kernel name (shared with the parsed CSV and the other rows of the
    /// name: a row per launch holds no copy of it).
    #[serde(serialize_with = "shared_str")]
    pub name: Arc<str>,
    /// Readable label, unique among the report's kernel names
    /// ([`super::names::labels`]), shared by the rows of one name; what
    /// tables and plots show.
    #[serde(serialize_with = "shared_str")]
    pub label: Arc<str>,
    /// Number of launches in this row.
    pub launches: u64,
    /// Measured time T, ns.
    pub duration_ns: f64,
    /// DRAM bytes Q; `None` when not collected in any form (for every
    /// launch of the row).
    pub dram_bytes: Option<f64>,
    /// How the DRAM bytes were derived (the least direct over the launches).
    pub dram_source: Option<Source>,
    /// L2 bytes, when collected for every launch of the row.
    pub l2_bytes: Option<f64>,
    /// How the L2 bytes were derived.
    pub l2_source: Option<Source>,
    /// L1 bytes, when collected for every launch of the row.
    pub l1_bytes: Option<f64>,
    /// Total FLOPs W over the counted paths; `None` when no FLOP counter was
    /// collected. A lower bound when `flop_unknown` is not empty.
    pub flop: Option<f64>,
    /// How the FLOPs were derived (the least direct over paths and launches).
    pub flop_source: Option<Source>,
    /// FLOP counter groups not collected (`fp64`, `fp32`, `fp16`,
    /// `tensor`): their FLOPs are unknown.
    pub flop_unknown: Vec<FlopGroup>,
    /// FLOPs per compute path with a nonzero count.
    pub flop_by_path: BTreeMap<ComputePath, f64>,
    /// Intensity on DRAM, FLOP/byte (`None`: FLOPs or DRAM bytes unknown,
    /// or Q = 0; a lower bound when `flop_unknown` is not empty).
    pub intensity: Option<f64>,
    /// Intensity on L2, FLOP/byte.
    pub intensity_l2: Option<f64>,
    /// Intensity on L1, FLOP/byte.
    pub intensity_l1: Option<f64>,
    /// W / T, FLOP/s (`None` when the FLOPs are unknown).
    pub achieved_flop_per_s: Option<f64>,
    /// Q / T, byte/s (`None` when the DRAM bytes are unknown).
    pub achieved_dram_bytes_per_s: Option<f64>,
    /// sum_p W_p / F_p over the counted paths with a roof, ns (`None` when
    /// the FLOPs are unknown).
    pub compute_time_ns: Option<f64>,
    /// Q / B_dram, ns (`None` when the DRAM bytes are unknown).
    pub memory_time_ns: Option<f64>,
    /// T* = max(compute_time_ns, memory_time_ns) over the known terms, ns.
    pub bound_time_ns: f64,
    /// True when a side is unknown or incomplete: `bound_time_ns` and
    /// `fraction_of_roof` are then lower bounds, `time_lost_ns` an upper bound.
    pub lower_bound: bool,
    /// Which term is larger; `None` when that is not certain (a side
    /// unknown, or incomplete FLOPs whose compute time is below the memory
    /// time).
    pub bound: Option<Bound>,
    /// Attainable FLOP/s at this intensity, W / T* (for one path exactly
    /// min(F, B * I)); `None` unless both sides are known and complete.
    pub roof_flop_per_s: Option<f64>,
    /// T* / T (1 = on the roof); a lower bound when `lower_bound`.
    pub fraction_of_roof: f64,
    /// T - T*, ns (negative above the roof); an upper bound when `lower_bound`.
    pub time_lost_ns: f64,
    /// fraction_of_roof > 1 + 5 %.
    pub above_roof: bool,
    /// Tensor FLOPs that may count padded MMA tiles (a skinny GEMM shape);
    /// boxed, as few rows have it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub padding: Option<Box<PaddingSuspect>>,
    /// Useful work stated with `--useful-flops`, and the figures from it;
    /// boxed, as few rows have it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub useful: Option<Box<UsefulWork>>,
    /// No FLOP counter was collected: analysed against the bandwidth roof
    /// alone (`flop` is `None`).
    pub bandwidth_only: bool,
    /// The file has rates but no duration for this row (ncu's roofline
    /// section exported alone): intensity, FLOP/s, B/s, the fraction of
    /// roof and the bound hold; time, bytes, FLOPs and time lost are unknown
    /// (`null` in JSON; internally per second of run).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub rate_only: bool,
    /// SM clock the row ran at, Hz (time-weighted mean over its launches);
    /// `None` when the file has no SM clock.
    pub sm_clock_hz: Option<f64>,
    /// DRAM clock the row ran at, Hz (time-weighted mean).
    pub dram_clock_hz: Option<f64>,
}

impl KernelRoofline {
    /// Compute paths with work, in display order.
    pub fn paths(&self) -> Vec<ComputePath> {
        self.flop_by_path.keys().copied().collect()
    }

    /// True when some FLOP counter group was not collected, so `flop` is
    /// a lower bound (or unknown).
    pub fn flop_incomplete(&self) -> bool {
        !self.flop_unknown.is_empty()
    }
}

/// The roofs a report actually used.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RoofsUsed {
    /// Memory levels (always DRAM; L2/L1 when the roofs have them and the
    /// CSV has bytes for them, for plotting).
    pub memory: Vec<MemoryLevel>,
    /// Compute paths with FLOPs in some row and a roof.
    pub compute: Vec<ComputePath>,
}

/// The whole analysis: what every renderer prints.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RooflineReport {
    /// Always [`NCU_SCHEMA`].
    pub schema: &'static str,
    /// Input file as given.
    pub input: String,
    /// `details` or `raw`.
    pub page: String,
    /// Rows per launch or per kernel.
    pub group_by: GroupBy,
    /// The GPU and how it was chosen.
    pub gpu: GpuInfo,
    /// The clocks the roofs assume and the launches ran at.
    pub clock: ClockInfo,
    /// The roofs, each with origin and source.
    pub roofs: Roofs,
    /// Which of them were used.
    pub roofs_used: RoofsUsed,
    /// Launches in the file.
    pub launches_total: u64,
    /// Launches with a positive duration and DRAM bytes or FLOPs in some
    /// form (the rest are diagnosed).
    pub launches_analysed: u64,
    /// Sum of analysed durations, ns.
    pub total_duration_ns: f64,
    /// Sum of positive time lost over rows, ns.
    pub total_time_lost_ns: f64,
    /// Rows, biggest time lost first (ties: longer, then name, then ID).
    pub kernels: Vec<KernelRoofline>,
    /// Warnings, one per kind.
    pub diagnostics: Vec<Diagnostic>,
}

impl RooflineReport {
    /// True when the report has no roofs at all (the GPU was not decided
    /// and the file carries no ncu peaks): every roof-dependent figure
    /// (`compute_time_ns`, `memory_time_ns`, `bound_time_ns`, `bound`,
    /// `fraction_of_roof`, `time_lost_ns`, `above_roof`) is unknown and
    /// renderers show it so.
    pub fn roofless(&self) -> bool {
        self.roofs.memory.is_empty() && self.roofs.compute.is_empty()
    }

    /// The memory roofs used, slowest level first (for plots: one slope each).
    pub fn used_memory_roofs(&self) -> Vec<(MemoryLevel, &crate::roofs::MemoryRoof)> {
        self.roofs_used
            .memory
            .iter()
            .filter_map(|l| self.roofs.memory.get(l).map(|r| (*l, r)))
            .collect()
    }

    /// The path that dominates a row's compute time (largest W_p / F_p; the
    /// largest W_p when no path has a roof); `None` without FLOPs.
    pub fn dominant_path(&self, k: &KernelRoofline) -> Option<ComputePath> {
        let time = |(p, w): (&ComputePath, &f64)| match self.roofs.compute.get(p) {
            Some(r) => (1, w / r.flop_per_s),
            None => (0, *w),
        };
        k.flop_by_path
            .iter()
            .max_by(|a, b| {
                let (ra, ta) = time(*a);
                let (rb, tb) = time(*b);
                ra.cmp(&rb).then(ta.total_cmp(&tb))
            })
            .map(|(p, _)| *p)
    }

    /// The compute roofs used, in display order (for plots: one flat roof each).
    pub fn used_compute_roofs(&self) -> Vec<(ComputePath, &crate::roofs::ComputeRoof)> {
        self.roofs_used
            .compute
            .iter()
            .filter_map(|p| self.roofs.compute.get(p).map(|r| (*p, r)))
            .collect()
    }
}

/// What a diagnostic is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DiagnosticKind {
    /// ncu printed `==ERROR==`/`==WARNING==` lines into the file.
    NcuLog,
    /// Launches without a duration (skipped).
    MissingDuration,
    /// Launches with a zero duration (skipped).
    ZeroDuration,
    /// Launches with neither DRAM bytes nor FLOPs in any form (skipped).
    MissingWork,
    /// Only one of DRAM read/write bytes collected (undercounted).
    PartialDram,
    /// Metrics read as `nan` (failed launch?).
    NanMetrics,
    /// No FLOP counters: compute unknown, a memory-side lower bound only.
    BandwidthOnly,
    /// Some FLOP counter groups not collected: FLOPs are a lower bound.
    FlopIncomplete,
    /// FLOPs but no DRAM bytes: a compute-side lower bound only.
    DramUnknown,
    /// DRAM bytes derived from ncu's percent of peak (approximate).
    DramFromPercent,
    /// Figures derived from sectors or rates rather than counted directly.
    Derived,
    /// Tensor instructions executed but no tensor op counters collected.
    TensorNotCounted,
    /// FLOPs on a path the roofs have no value for.
    NoRoofForPath,
    /// Points above the roof by more than 5 %.
    AboveRoof,
    /// Launches ran well below the SM clock the roofs assume (ncu's
    /// default base-clock lock).
    ClockBelowRoof,
    /// Several devices in one file; roofs of one GPU applied to all.
    SeveralDevices,
    /// The input disagrees with the chosen GPU (SM count, device name).
    GpuMismatch,
    /// Tensor FLOPs that may count padded MMA tiles (skinny GEMM shape).
    TensorPadding,
    /// Useful work stated with `--useful-flops`.
    UsefulWork,
    /// Rows from rates alone (no duration in the file).
    RateOnly,
    /// The input did not decide the GPU: the file's own ncu peaks, or no
    /// roofs (roof-dependent figures unknown).
    GpuUndecided,
}

/// A warning carried as data and shown once.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Diagnostic {
    /// What it is about.
    pub kind: DiagnosticKind,
    /// How many launches (or rows, or lines) it concerns.
    pub count: u64,
    /// One sentence with the fix.
    pub message: String,
    /// Up to three examples (`name (ID n)`).
    pub examples: Vec<String>,
}

/// A row whose tensor FLOPs may count padded MMA tiles.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PaddingSuspect {
    /// The tensor path with the most FLOPs.
    pub path: ComputePath,
    /// Rows per weight read its FLOPs imply: `W_path / Q × sizeof / 2`.
    pub implied_rows: f64,
    /// True when the name says GEMV (one useful row by construction).
    pub certain: bool,
}

/// Work the user stated for a row, and the figures computed from it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct UsefulWork {
    /// Useful FLOPs of the row: the stated FLOP per launch × launches.
    pub flop: f64,
    /// Where it came from: `--useful-flops <rule>`.
    pub source: String,
    /// The path whose roof bounds it (the row's tensor path with the most
    /// executed FLOPs, else its dominant path); `None` when unknown.
    pub path: Option<ComputePath>,
    /// Useful FLOP per DRAM byte; `None` without DRAM bytes.
    pub intensity: Option<f64>,
    /// Useful FLOP/s: `flop / T`.
    pub flop_per_s: f64,
    /// `max(flop / F_path, Q / B)`, ns, over the sides known.
    pub bound_time_ns: f64,
    /// `bound_time_ns / T`.
    pub fraction_of_roof: f64,
    /// Which side bounds the useful work, when both are known.
    pub bound: Option<Bound>,
    /// `T - bound_time_ns`, ns.
    pub time_lost_ns: f64,
    /// Executed FLOPs over useful ones (how much the counters overstate).
    pub executed_over_useful: Option<f64>,
}
