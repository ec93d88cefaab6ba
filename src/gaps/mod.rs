//! Timeline -> gap report: busy/idle per (process, device) and per stream,
//! each idle gap classified by why the GPU idled.
//!
//! By phase: [`config`] (plain config and the one `--device`/`--stream`
//! filter), [`evidence`] (the evidence vocabulary and its fixes), `sweep`
//! (one pass per device: busy union, gaps, their [`class`], histogram bins
//! from [`hist`], longest gaps), [`host`] (what the host did in a gap) over
//! `nvtx_index` (the ranges by thread and start), [`onetime`] (gaps paid once: warm-up ranges, slow first launches), `ranges` (`--nvtx` instances), [`totals`]
//! (count and time per class, host detail and length), `describe` (the
//! words and typed evidence beside each longest gap), [`engines`] (which
//! copy held a copy engine during a gap), [`link`] (the host
//! link the copies crossed), [`analyze`] (the
//! phases in order) and [`window`] (which stretch a timeline shows); the
//! report they fill is [`model`].

mod analyze;
pub mod class;
pub mod config;
mod describe;
pub mod engines;
pub mod evidence;
pub mod fixes;
pub mod hist;
pub mod host;
pub mod link;
pub mod model;
mod nvtx_index;
pub mod onetime;
mod ranges;
mod stats;
mod sweep;
pub mod totals;
pub mod window;

pub use analyze::{analyze, range_filter};
pub use class::{class_label, classify, merge_syncs, GapClass};
pub use config::{GapConfig, Scope, DEFAULT_LAUNCH_LATENCY_NS};
pub use evidence::{
    detail_label, CallFamily, FixTerms, HostDetail, HostFacts, RangeFamily, Scale, Tool,
};
pub use hist::{hist_bin, HIST_EDGES_NS};
pub use model::*;
pub use ranges::{
    most_frequent_ranges, no_match_message, no_match_sentence, range_counts, range_words, rows_fit,
    sort_counts, RangeWords,
};
