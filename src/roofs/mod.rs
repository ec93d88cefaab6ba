//! The roofs of a GPU: the shared vocabulary of compute paths and memory
//! levels, the roofs file (`model`), the built-in GPU table (`gpus`), and
//! the policy that picks a run's roofs (`choose`).
//!
//! A leaf of the house: it imports nothing of ours but `units` and `error`,
//! so the parsers (`ncu`, `calibrate`) and the analysis (`roofline`) may all
//! use it.

pub mod choose;
pub mod gpus;
pub mod model;

pub use choose::{
    choose, choose_or_undecided, DeviceHints, GpuInfo, HintSource, RoofsChoice, UNDECIDED,
};
pub use model::{ComputePath, ComputeRoof, MemoryLevel, MemoryRoof, Origin, Roofs, RoofsError};
