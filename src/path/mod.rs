//! The critical path of each step, and what each change would save
//! (docs/path.md): the step's dependency graph per rank from the
//! `Timeline` (host order, launches, stream order, synchronisation,
//! cross-stream waits, collectives across ranks), the backward walk that
//! splits the step into the parts on its path, and the replay that
//! recomputes the step with one change (kernels at their roofs, idle
//! removed, collectives at their link) instead of adding shortfalls up.
//! The report is plain data (`model`), rendered by `report::path`.

pub mod model;

pub use model::{PartName, PathPart, PathReport, StepPath, WhatIf, KERNEL_FLOOR_NS, SCHEMA};
