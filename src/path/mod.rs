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
mod ranks;
#[cfg(test)]
mod ranks_tests;
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
/// the what-if changes replayed (docs/path.md); one rank alone.
pub fn analyze(
    tl: &Timeline,
    budget: &BudgetReport,
    kernels: &KernelRoofs,
    cfg: &PathConfig,
) -> PathReport {
    analyze::analyze(tl, budget, kernels, cfg, &ranks::Arrivals::one_rank())
}

/// One rank of several: its timeline, its steps and its kernels' bounds.
#[derive(Debug, Clone, Copy)]
pub struct RankInput<'a> {
    /// The input as given.
    pub input: &'a str,
    /// Its timeline.
    pub timeline: &'a Timeline,
    /// Its steps (`budget`'s).
    pub budget: &'a BudgetReport,
    /// Its kernels' bounds.
    pub kernels: &'a KernelRoofs,
}

/// Several ranks of one job (docs/path.md, "Several ranks"): each rank's
/// steps as [`analyze`] walks them, with every collective ending no
/// earlier than its last rank's arrival (`comm`'s matching and clock
/// alignment): the wait before it is `waiting_for_rank`, and
/// `straggler_on_time` replays the steps with every rank on time. One
/// report per rank, in the order given; each carries the notes on what
/// could not be matched.
pub fn analyze_ranks(ranks: &[RankInput], top_kernels: usize) -> Vec<PathReport> {
    let timelines: Vec<&Timeline> = ranks.iter().map(|r| r.timeline).collect();
    let inputs: Vec<String> = ranks.iter().map(|r| r.input.to_string()).collect();
    let arrivals = ranks::last_arrivals(&timelines, &inputs);
    ranks
        .iter()
        .zip(&arrivals.per_rank)
        .map(|(r, a)| {
            let cfg = PathConfig {
                input: vec![r.input.to_string()],
                top_kernels,
            };
            let mut report = analyze::analyze(r.timeline, r.budget, r.kernels, &cfg, a);
            report
                .diagnostics
                .extend(arrivals.diagnostics.iter().cloned());
            report
        })
        .collect()
}
