//! The critical path of each step, and what each change would save
//! (docs/path.md): the step's dependency graph per rank from the
//! `Timeline` (host order, launches, stream order, synchronisation,
//! cross-stream waits, collectives across ranks), the backward walk that
//! splits the step into the parts on its path, and the replay that
//! recomputes the step with one change (kernels at their roofs, idle
//! removed, collectives at their link) instead of adding shortfalls up.
//! The report is plain data (`model`), rendered by `report::path`.

pub mod model;
pub mod roofs;

pub use model::{
    Best, Lane, PartName, PathPart, PathReport, Segment, StepPath, WhatIf, KERNEL_FLOOR_NS, SCHEMA,
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
/// the what-if changes replayed.
///
/// Placeholder until the walk and the replay land: each step is one
/// `before_first_event` part and no change.
pub fn analyze(
    _tl: &Timeline,
    budget: &BudgetReport,
    _kernels: &KernelRoofs,
    cfg: &PathConfig,
) -> PathReport {
    let steps: Vec<StepPath> = budget
        .steps
        .iter()
        .map(|s| StepPath {
            name: budget.text(s).to_string(),
            pid: s.pid,
            device: s.device,
            start_ns: s.gpu_start_ns,
            step_ns: s.step_ns,
            path_ns: s.step_ns,
            parts: vec![PathPart {
                name: PartName::BeforeFirstEvent,
                ns: s.step_ns,
            }],
            what_if: Vec::new(),
            segments: Vec::new(),
        })
        .collect();
    PathReport {
        schema: SCHEMA,
        input: cfg.input.clone(),
        gpu: budget.gpu.clone(),
        pattern: budget.pattern.clone(),
        kernel_floor_ns: KERNEL_FLOOR_NS,
        median_step: budget.median_step,
        steps,
        best: None,
        diagnostics: Vec::new(),
    }
}
