//! Many inputs, one view: the tag each input's rows carry ([`tag`]: input,
//! host, rank), per-kernel totals of a timeline ([`kernels`]), and the
//! cross-input summaries built from the per-input reports: [`gaps`] (per
//! rank busy/idle and idle classes, NVTX stragglers, kernels across inputs)
//! and [`ncu`] (kernels across inputs with their fraction of the roof);
//! which job each input belongs to, and a section per job when they are of
//! several ([`jobs`]).
//!
//! The per-input analysis is the single-input one, unchanged; this module
//! only reduces its results, so a multi-input run equals the single runs row
//! for row.

pub mod gaps;
pub mod jobs;
pub mod kernels;
pub mod ncu;
pub mod tag;

pub use gaps::{summarize_gaps, GapsInput, MultiGapReport};
pub use kernels::{kernel_totals, KernelTotal};
pub use ncu::{summarize_ncu, MultiNcuReport, NcuInput};
pub use tag::{InputTag, RankRule, RankSource};

/// An input that could not be analysed; the others' results stand.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct InputFailure {
    /// The input as given.
    pub input: String,
    /// The whole error chain, one line.
    pub error: String,
    /// True when the input itself is bad (the single-input exit code 2);
    /// false for other failures (I/O on outputs, a failed `nsys export`).
    pub bad_input: bool,
}

impl InputFailure {
    /// `input: error`, naming the file once: most readers' errors name it
    /// already (at their start, or after a prefix such as `reading X:`),
    /// and then the error stands alone.
    pub fn line(&self) -> String {
        if self.input.is_empty() || self.error.contains(&self.input) {
            self.error.clone()
        } else {
            format!("{}: {}", self.input, self.error)
        }
    }
}

/// Median (lower of the two middle values) of a non-empty sorted slice.
pub(crate) fn median_sorted(v: &[i64]) -> i64 {
    v.get((v.len().max(1) - 1) / 2).copied().unwrap_or(0)
}
