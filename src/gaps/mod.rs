//! Timeline -> gap report: busy/idle per (process, device) and per stream,
//! each idle gap classified by why the GPU idled.

mod analyze;
pub mod class;
pub mod model;

pub use analyze::{
    analyze, classified_gaps, classify, merge_syncs, window, GapConfig, DEFAULT_LAUNCH_LATENCY_NS,
    HIST_EDGES_NS,
};
pub use class::GapClass;
pub use model::*;
