//! What each kernel (and each step) would take on another GPU, from the
//! counters of the source profile: per row the bound on the target
//! (`T*' = max(Σ W_p/F'_p, Q/B')`, same paths, the target's roofs at the
//! clocks its table entry or roofs file assumes), the binding side there,
//! and an expected time from a stated [`Model`].
//!
//! By phase: `launch` fits the fixed per-launch cost from the source rows,
//! `kernel` projects one row, [`project`] runs every target and sums.
//! docs/projection.md has the models, their validation on paired H100/H200
//! counters, and the limits.

pub mod budget;
pub mod kernel;
pub mod launch;
pub mod model;

pub use model::*;

use crate::roofline::RooflineReport;
use crate::roofs::{ComputePath, GpuInfo, Roofs};
use std::collections::BTreeSet;

/// A target to project onto: its roofs and how it was named.
#[derive(Debug, Clone)]
pub struct Target {
    /// The target's roofs.
    pub roofs: Roofs,
    /// Its name and how it was chosen.
    pub gpu: GpuInfo,
    /// Its per-launch cost `c'`, ns, when known (`--target-launch-cost`).
    pub launch_ns: Option<f64>,
}

/// The sentences of the method section.
fn method(report: &RooflineReport, model: Model, cost: &LaunchCost) -> Vec<String> {
    let c = &report.clock;
    let clock = if c.compute_scaled || c.memory_scaled {
        "Source roofs at the clocks its launches ran at (scaled as the ncu report says, `clock`); target roofs at the clocks its table entry or roofs file states (the target running at them)."
    } else {
        "Source roofs as stated (not scaled: the launches ran at the roofs' clocks, or the file has no clock); target roofs at the clocks its table entry or roofs file states (the target running at them)."
    };
    vec![
        "T*' = max(Σ W_p/F'_p, Q/B') with the target's roofs for the same compute paths and DRAM bytes as the source row; a path either GPU has no roof for is left out of both bounds and named (not mapped to another path).".into(),
        format!(
            "Expected time: {} model, {}; C = launches × c, at most T; C' = launches × c' (c' = c unless the target's is given with --target-launch-cost).",
            model.key(),
            model.formula()
        ),
        format!("c = {:.0} ns per launch: {}.", cost.per_launch_ns, cost.rule),
        clock.into(),
        "The FLOPs and bytes are the source's: the same binary with the same tiling on the target (another library version, split or tile choice changes them).".into(),
    ]
}

/// Projects every row of `report` onto each target under `model`.
pub fn project(report: &RooflineReport, targets: &[Target], model: Model) -> Projection {
    let launch_cost = launch::fit(&report.kernels);
    let targets = targets
        .iter()
        .map(|t| one_target(report, t, model, launch_cost.per_launch_ns))
        .collect();
    Projection {
        schema: PROJECTION_SCHEMA,
        input: report.input.clone(),
        source_gpu: report.gpu.clone(),
        source_roofs: report.roofs.source.clone(),
        model,
        method: method(report, model, &launch_cost),
        launch_cost,
        targets,
    }
}

fn one_target(report: &RooflineReport, t: &Target, model: Model, c: f64) -> TargetProjection {
    let kernels: Vec<KernelProjection> = report
        .kernels
        .iter()
        .map(|k| kernel::project(k, &report.roofs, &t.roofs, c, t.launch_ns))
        .collect();
    let unmapped: BTreeSet<ComputePath> = kernels
        .iter()
        .flat_map(|k| k.unmapped_paths.iter().copied())
        .collect();
    TargetProjection {
        gpu: t.gpu.clone(),
        roofs: t.roofs.clone(),
        target_launch_ns: t.launch_ns,
        unmapped_paths: unmapped.into_iter().collect(),
        totals: totals(&kernels, model),
        kernels,
    }
}

/// Sums over the rows; the expected total and its ratio over the rows
/// whose expected time is known.
pub fn totals(kernels: &[KernelProjection], model: Model) -> Totals {
    let mut t = Totals {
        source_ns: 0.0,
        target_bound_ns: 0.0,
        expected_ns: 0.0,
        source_known_ns: 0.0,
        ratio: None,
        unknown_rows: 0,
        class_changes: 0,
    };
    for k in kernels {
        if !k.rate_only {
            t.source_ns += k.source_ns;
            t.target_bound_ns += k.target_bound_ns;
        }
        t.class_changes += u64::from(k.class_change);
        match k.expected(model) {
            Some(e) => {
                t.expected_ns += e;
                t.source_known_ns += k.source_ns;
            }
            None => t.unknown_rows += 1,
        }
    }
    t.ratio = (t.source_known_ns > 0.0).then(|| t.expected_ns / t.source_known_ns);
    t
}
