//! What each collective moved and how close to its link it ran, how much
//! communication no compute hid, and, given several ranks of one job, the
//! rank everyone waited for. By phase: `join` (each NCCL/RCCL kernel to its
//! collective's arguments), `kind` (kind, size and bus bandwidth factor,
//! after `nccl-tests`), `link` (which link a group crossed), `ranks`
//! (matching, clock alignment, wait and transfer), `analyze` (one trace →
//! [`RankTrace`], the ranks → [`CommReport`]). docs/comm.md has the method.

mod analyze;
mod join;
pub mod kind;
mod link;
pub mod model;
pub mod ranks;

pub use analyze::{comm_and_overlap, rank_trace, report, RankTrace};
pub use kind::CollKind;
pub use link::{gpu_of, gpus_per_node, LinkConfig, NodeEvidence};
pub use model::*;
