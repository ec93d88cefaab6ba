//! Roofs x kernel metrics -> roofline report.
//!
//! `roofs` holds the shared vocabulary (compute paths, memory levels, the
//! roofs JSON file that `rooftrace calibrate` writes and `rooftrace ncu
//! --roofs` reads); `gpus` the built-in GPU table; `analysis` the math that
//! turns parsed launches into a [`RooflineReport`].

pub mod analysis;
pub mod gpus;
pub mod roofs;

pub use analysis::{
    analyze, Bound, Diagnostic, DiagnosticKind, GpuInfo, GroupBy, KernelRoofline, RooflineReport,
    RoofsUsed, NCU_SCHEMA,
};
pub use roofs::{ComputePath, ComputeRoof, MemoryLevel, MemoryRoof, Origin, Roofs, RoofsError};
