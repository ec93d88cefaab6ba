//! The projection: plain data, serialised as the versioned `projection`
//! block ([`PROJECTION_SCHEMA`], docs/projection.md) and rendered by
//! `report::projection`.

use crate::roofline::Bound;
use crate::roofs::{ComputePath, GpuInfo, Roofs};
use serde::Serialize;
use std::collections::BTreeMap;

/// Version tag of the `projection` JSON block.
pub const PROJECTION_SCHEMA: &str = "rooftrace.projection/1";

/// How a kernel's measured time carries over to the target (docs/projection.md).
/// `T` source time, `T*` source bound, `T*'` target bound, `C` the kernel's
/// per-launch cost on the source (`launches × c`, at most `T`), `C'` on the
/// target (`launches × c'`; `C` when the target's `c'` is not given).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Model {
    /// `T' = T`: nothing moves (the baseline "same time").
    SameTime,
    /// `T' = T × T*'/T*`: the kernel reaches the same fraction of its bound.
    SameFraction,
    /// `T' = C' + (T − C) × T*'/T*`: the per-launch cost is the target's,
    /// the rest reaches the same fraction of its bound.
    LaunchFraction,
    /// `T' = C' + (T − C − T*) + T*'` when `T − C ≥ T*` (the bound part
    /// scales; the time lost beyond the bound stays), else as
    /// `LaunchFraction` (a kernel at or above its roof).
    BoundScales,
}

impl Model {
    /// Every model, in display order.
    pub const ALL: [Model; 4] = [
        Model::SameTime,
        Model::SameFraction,
        Model::LaunchFraction,
        Model::BoundScales,
    ];

    /// The snake_case key used in JSON, CSV and `--projection-model`.
    pub fn key(self) -> &'static str {
        match self {
            Model::SameTime => "same_time",
            Model::SameFraction => "same_fraction",
            Model::LaunchFraction => "launch_fraction",
            Model::BoundScales => "bound_scales",
        }
    }

    /// The formula, for headers and the method section.
    pub fn formula(self) -> &'static str {
        match self {
            Model::SameTime => "T' = T",
            Model::SameFraction => "T' = T × T*'/T*",
            Model::LaunchFraction => "T' = C' + (T − C) × T*'/T*",
            Model::BoundScales => {
                "T' = C' + (T − C − T*) + T*' (C' + (T − C) × T*'/T* when T − C < T*)"
            }
        }
    }
}

/// The fixed per-launch cost `c`, fitted from the source profile.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LaunchCost {
    /// `c`, ns per launch (0 when no launch qualified).
    pub per_launch_ns: f64,
    /// Launches the fit used (launch-dominated ones: bound below
    /// [`super::launch::DOMINATED_BELOW`] of their time).
    pub launches_used: u64,
    /// The rule, in words.
    pub rule: String,
}

/// One kernel row projected onto one target.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct KernelProjection {
    /// ncu `ID` of the row (its first launch).
    pub id: u64,
    /// The readable label of the source report.
    pub label: String,
    /// Launches in the row.
    pub launches: u64,
    /// Arithmetic intensity on DRAM, FLOP/byte (source counters).
    pub intensity: Option<f64>,
    /// Measured time on the source, ns.
    pub source_ns: f64,
    /// `T*` on the source roofs over the mapped paths, ns.
    pub source_bound_ns: f64,
    /// Binding side on the source; `None` when not certain.
    pub source_bound: Option<Bound>,
    /// `Σ W_p / F_p` on the target's roofs over the mapped paths, ns.
    pub target_compute_ns: Option<f64>,
    /// `Q / B` on the target's DRAM roof, ns.
    pub target_memory_ns: Option<f64>,
    /// `T*'` on the target, ns.
    pub target_bound_ns: f64,
    /// Binding side on the target; `None` when not certain.
    pub target_bound: Option<Bound>,
    /// The binding side differs between source and target (the kernel's
    /// intensity lies between the two ridge points: the H100/H200 crossing).
    pub class_change: bool,
    /// A side of the bound is unknown or incomplete (uncollected FLOP
    /// groups): both bounds are lower bounds over the collected counters.
    pub lower_bound: bool,
    /// Compute paths with FLOPs that the target (or the source) has no roof
    /// for: not mapped to another path, so the expected time is unknown.
    pub unmapped_paths: Vec<ComputePath>,
    /// `C`: the row's per-launch cost on the source, `launches × c` capped
    /// at its time, ns.
    pub launch_cost_ns: f64,
    /// `C'`: on the target, `launches × c'` (`C` when `c'` is not given), ns.
    pub target_launch_cost_ns: f64,
    /// Expected time on the target under each model, ns (`None`: unknown,
    /// an unmapped path or a rate-only row).
    pub expected_ns: BTreeMap<Model, Option<f64>>,
    /// The row came from rates without a duration (a roofline-section
    /// export): `source_ns` and the bounds are per second of run, the
    /// ratio `T*'/T*` holds, no time is expected.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub rate_only: bool,
}

impl KernelProjection {
    /// The expected time under `model`.
    pub fn expected(&self, model: Model) -> Option<f64> {
        self.expected_ns.get(&model).copied().flatten()
    }
}

/// Sums over the kernels of one target.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Totals {
    /// Σ source time, ns (every row with a duration).
    pub source_ns: f64,
    /// Σ target bound, ns (every row; rows with unmapped paths count their
    /// mapped part only, so this is then a lower bound).
    pub target_bound_ns: f64,
    /// Σ expected time under the report's model over the rows where it is
    /// known, ns.
    pub expected_ns: f64,
    /// Σ source time of those same rows, ns.
    pub source_known_ns: f64,
    /// `expected_ns / source_known_ns` (below 1: faster on the target).
    pub ratio: Option<f64>,
    /// Rows whose expected time is unknown (an unmapped path).
    pub unknown_rows: u64,
    /// Rows whose binding side changes.
    pub class_changes: u64,
}

/// The projection onto one target GPU.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TargetProjection {
    /// The target and how it was named (`--project-to h200`, a roofs file).
    pub gpu: GpuInfo,
    /// The target's roofs, each with origin and source.
    pub roofs: Roofs,
    /// `c'`, the target's per-launch cost, ns, when given
    /// (`--target-launch-cost`); `None`: the source's `c` is assumed.
    pub target_launch_ns: Option<f64>,
    /// Compute paths with FLOPs in the source that the target has no roof
    /// for, each once.
    pub unmapped_paths: Vec<ComputePath>,
    /// Per row, in the source report's order.
    pub kernels: Vec<KernelProjection>,
    /// Totals.
    pub totals: Totals,
}

/// The whole projection of one ncu report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Projection {
    /// Always [`PROJECTION_SCHEMA`].
    pub schema: &'static str,
    /// The source ncu input as given.
    pub input: String,
    /// The source GPU and how it was chosen.
    pub source_gpu: GpuInfo,
    /// Where the source roofs came from.
    pub source_roofs: String,
    /// The model of the `expected` columns and totals.
    pub model: Model,
    /// The fitted per-launch cost.
    pub launch_cost: LaunchCost,
    /// How the figures are derived, one sentence each.
    pub method: Vec<String>,
    /// One per target, in the order given.
    pub targets: Vec<TargetProjection>,
}

/// A roofline report with its projection: what `rooftrace ncu
/// --project-to` renders (its JSON is the roofline report's with a
/// `projection` block).
#[derive(Debug, Clone, PartialEq)]
pub struct ProjectedReport {
    /// The source analysis.
    pub roofline: crate::roofline::RooflineReport,
    /// Its projection.
    pub projection: Projection,
}
