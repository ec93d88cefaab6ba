//! What `gaps` analyses and how: plain config (no CLI types) and the one
//! device/stream filter every phase applies.

use crate::timeline::GpuOp;
use regex::Regex;

/// Default launch-latency threshold: a queued op that starts less than this
/// after the GPU went idle is ordinary launch latency, ns.
pub const DEFAULT_LAUNCH_LATENCY_NS: i64 = 5_000;

/// What to analyse and how (plain config, no CLI types).
#[derive(Debug, Clone)]
pub struct GapConfig {
    /// Only this device.
    pub device: Option<u16>,
    /// Only ops on this stream.
    pub stream: Option<u32>,
    /// Gaps shorter than this stay idle time (and in the class totals) but are
    /// left out of the distribution and the top list, ns.
    pub min_gap_ns: i64,
    /// Queued gaps shorter than this are launch latency, ns.
    pub launch_latency_ns: i64,
    /// How many longest gaps to list (0 = every gap of at least `min_gap_ns`).
    pub top: usize,
    /// NVTX ranges to report per instance.
    pub nvtx: Option<Regex>,
    /// Keep every classified gap in [`GapReport::gaps`](super::GapReport::gaps)
    /// (for a timeline or a histogram chart; 32 bytes per gap).
    pub keep_gaps: bool,
}

impl Default for GapConfig {
    fn default() -> Self {
        GapConfig {
            device: None,
            stream: None,
            min_gap_ns: 0,
            launch_latency_ns: DEFAULT_LAUNCH_LATENCY_NS,
            top: 10,
            nvtx: None,
            keep_gaps: false,
        }
    }
}

/// The `--device`/`--stream` filter: the one place it is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Scope {
    /// Only this device.
    pub device: Option<u16>,
    /// Only ops on this stream.
    pub stream: Option<u32>,
}

impl Scope {
    /// True when the filter keeps `op`.
    pub fn selects(&self, op: &GpuOp) -> bool {
        self.device.is_none_or(|d| d == op.device) && self.stream.is_none_or(|s| s == op.stream)
    }

    /// True when no filter is set.
    pub fn is_all(&self) -> bool {
        self.device.is_none() && self.stream.is_none()
    }
}

impl GapConfig {
    /// The device/stream filter of this config.
    pub fn scope(&self) -> Scope {
        Scope {
            device: self.device,
            stream: self.stream,
        }
    }
}
