//! The roofs of a GPU: the shared vocabulary of compute paths and memory
//! levels, the roofs file (`model`), the built-in GPU table (`gpus`), what
//! an input says about its device (`hints`), the decision as data
//! (`decision`), the check of a chosen GPU against the input (`check`), and
//! the policy that picks a run's roofs (`choose`).
//!
//! A leaf of the house: it imports nothing of ours but `units` and `error`,
//! so the parsers (`ncu`, `calibrate`) and the analysis (`roofline`) may all
//! use it.

pub mod check;
pub mod choose;
pub mod closest;
pub mod decision;
pub mod gpus;
pub mod hints;
pub mod model;

pub use choose::{choose, choose_or_undecided, RoofsChoice};
pub use decision::{Fact, GpuChoice, GpuInfo, UndecidedRoofs, UNDECIDED};
pub use hints::{DeviceHints, HintSource};
pub use model::{ComputePath, ComputeRoof, MemoryLevel, MemoryRoof, Origin, Roofs, RoofsError};
