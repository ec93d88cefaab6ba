//! The critical path of each step, and what each change would save
//! (docs/path.md): the step's dependency graph per rank from the
//! `Timeline` (host order, launches, stream order, synchronisation,
//! cross-stream waits, collectives across ranks), the backward walk that
//! splits the step into the parts on its path, and the replay that
//! recomputes the step with one change (kernels at their roofs, idle
//! removed, collectives at their link) instead of adding shortfalls up.
//! The report is plain data (`model`), rendered by `report::path`.

mod analyze;
mod change;
mod graph;
pub mod model;
mod node;
mod replay;
pub mod roofs;
#[cfg(test)]
mod tests;
mod topo;
mod walk;

pub use analyze::check_replay;
pub use change::LAUNCH_CALL_NS;
pub use model::{
    Best, Lane, PartName, PathPart, PathReport, ReplayCheck, Segment, StepPath, WhatIf,
    KERNEL_FLOOR_NS, SCHEMA,
};
pub use roofs::{KernelRoof, KernelRoofs, RoofSide};

use crate::budget::BudgetReport;
use crate::timeline::Timeline;

/// What to analyse (plain config, no CLI types).
#[derive(Debug, Clone, Default)]
pub struct PathConfig {
    /// The inputs as given, for the report.
    pub input: Vec<String>,
    /// Single-kernel-name changes (`kernel:<name>`) kept per step, most
    /// saved first.
    pub top_kernels: usize,
}

/// Each step of `budget` (the steps of `tl`) on its critical path, with
/// the what-if changes replayed (docs/path.md).
pub fn analyze(
    tl: &Timeline,
    budget: &BudgetReport,
    kernels: &KernelRoofs,
    cfg: &PathConfig,
) -> PathReport {
    analyze::analyze(tl, budget, kernels, cfg)
}
