//! Roofs x kernel metrics -> roofline report.
//!
//! `roofs` holds the shared vocabulary (compute paths, memory levels, the
//! roofs JSON file that `rooftrace calibrate` writes and `rooftrace ncu
//! --roofs` reads).

pub mod gpus;
pub mod roofs;

pub use roofs::{ComputePath, ComputeRoof, MemoryLevel, MemoryRoof, Origin, Roofs, RoofsError};
