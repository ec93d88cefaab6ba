//! What each collective moved and how close to its link it ran, how much
//! communication no compute hid, and, given several ranks of one job, the
//! rank everyone waited for. By phase: `join` (each NCCL/RCCL kernel to its
//! collective's arguments), `kind` (kind, size and bus bandwidth factor,
//! after `nccl-tests`), `link` (which link a group crossed), `ranks`
//! (matching, clock alignment, wait and transfer), `analyze` (one trace →
//! [`RankTrace`], the ranks → [`CommReport`]), `given` (which rank each
//! trace is, decided once: recorded, else inferred from its groups when
//! unambiguous; and what the ranks given say about themselves: a rank
//! claimed twice, a contradicted group size). docs/comm.md has the method.

mod analyze;
pub mod given;
mod join;
pub mod kind;
mod link;
pub mod model;
pub mod ranks;

pub use analyze::{comm_and_overlap, rank_trace, rank_traces, report};
pub use kind::CollKind;
pub use link::{gpu_of, gpus_per_node, LinkConfig, NodeEvidence};
pub use model::*;
