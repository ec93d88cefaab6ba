//! The roofs of a GPU: the shared vocabulary of compute paths and memory
//! levels, the roofs file (`model`), and the built-in GPU table (`gpus`).
//!
//! A leaf of the house: it imports nothing of ours but `units`, so the
//! parsers (`ncu`, `calibrate`) and the analysis (`roofline`) may all use it.

pub mod gpus;
pub mod model;

pub use model::{ComputePath, ComputeRoof, MemoryLevel, MemoryRoof, Origin, Roofs, RoofsError};
