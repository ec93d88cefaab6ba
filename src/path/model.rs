//! The path report: plain data, serialised as JSON schema
//! `rooftrace.path/1` (docs/path.md) and rendered by `report::path`.
//!
//! Every step carries its measured `step_ns` and the `parts` of its
//! critical path in integer nanoseconds, summing to `path_ns`, which equals
//! `step_ns` (the path is contiguous from the step's start to its end).

use crate::roofs::GpuInfo;
use serde::Serialize;

/// Version tag of the JSON document.
pub const SCHEMA: &str = "rooftrace.path/1";

/// The least time a kernel takes however little work it does, ns: an
/// empty kernel's GPU time (about 2 µs on A100 and H100 in nsys). A
/// kernel "at its roof" never takes less.
pub const KERNEL_FLOOR_NS: i64 = 2_000;

/// What a segment of the critical path is (code decides on the name,
/// never on its words; the JSON key is [`PartName::key`]). Listed in the
/// order a step lists its parts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PartName {
    /// A kernel's own time, bound by memory (DRAM).
    KernelMemory,
    /// A kernel's own time, bound by a compute path.
    KernelCompute,
    /// A kernel's own time, no bound known.
    KernelNoModel,
    /// A communication kernel's own time.
    Collective,
    /// A memcpy's or memset's own time.
    Copy,
    /// A whole-graph row's own time.
    Graph,
    /// From a launch call's start to its op's start (the launch binds).
    LaunchOverhead,
    /// From the previous op's end to the op's start on one stream.
    GpuGap,
    /// From another stream's op end to the op's start (a cross-stream wait).
    Dependency,
    /// From the end of the op a sync waited for to the sync's end.
    Sync,
    /// Host work between two calls on a thread.
    HostWork,
    /// A host call's own time.
    HostCall,
    /// From this rank's arrival at a collective to the last rank's arrival.
    WaitingForRank,
    /// From the step's start to the walk's first node (no predecessor).
    BeforeFirstEvent,
}

impl PartName {
    /// Every part, in the order a step lists them.
    pub const ALL: [PartName; 14] = [
        PartName::KernelMemory,
        PartName::KernelCompute,
        PartName::KernelNoModel,
        PartName::Collective,
        PartName::Copy,
        PartName::Graph,
        PartName::LaunchOverhead,
        PartName::GpuGap,
        PartName::Dependency,
        PartName::Sync,
        PartName::HostWork,
        PartName::HostCall,
        PartName::WaitingForRank,
        PartName::BeforeFirstEvent,
    ];

    /// The snake_case key in the JSON, CSV and Parquet.
    pub fn key(self) -> &'static str {
        match self {
            PartName::KernelMemory => "kernel_memory",
            PartName::KernelCompute => "kernel_compute",
            PartName::KernelNoModel => "kernel_no_model",
            PartName::Collective => "collective",
            PartName::Copy => "copy",
            PartName::Graph => "graph",
            PartName::LaunchOverhead => "launch_overhead",
            PartName::GpuGap => "gpu_gap",
            PartName::Dependency => "dependency",
            PartName::Sync => "sync",
            PartName::HostWork => "host_work",
            PartName::HostCall => "host_call",
            PartName::WaitingForRank => "waiting_for_rank",
            PartName::BeforeFirstEvent => "before_first_event",
        }
    }
}

impl Serialize for PartName {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.key())
    }
}

/// One part of a step's critical path, integer ns.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PathPart {
    /// What the part is.
    pub name: PartName,
    /// Its time on the path, ns.
    pub ns: i64,
}

/// One change replayed on a step's graph.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct WhatIf {
    /// The change's key (`kernels_at_roof`, `kernel:<name>`,
    /// `launch_overhead_removed`, `host_work_removed`, `gpu_gaps_removed`,
    /// `collectives_at_link`, `straggler_on_time`, `all`).
    pub change: String,
    /// max(0, `step_ns - new_step_ns`), ns.
    pub saved_ns: i64,
    /// The step recomputed with the change (max recomputed end − min
    /// recomputed start of its ops; above `step_ns` when its ops moved
    /// earlier at the start more than at the end), ns.
    pub new_step_ns: i64,
    /// The change's own summed shortfall (Σ over what it touched of old
    /// minus new time), ns: `saved_ns` never exceeds it.
    pub shortfall_ns: i64,
    /// Kernels or gaps the change touched.
    pub moved: u64,
}

/// One step (one instance of the step range), on its critical path.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StepPath {
    /// The range text.
    pub name: String,
    /// Process id.
    pub pid: u32,
    /// Device the step ran on.
    pub device: u16,
    /// Start of the step's window, ns (`budget`'s `gpu_start_ns`).
    pub start_ns: i64,
    /// The measured step, ns (`budget`'s `step_ns`).
    pub step_ns: i64,
    /// The critical path's length, ns: equal to `step_ns`.
    pub path_ns: i64,
    /// The path split into parts (zero parts left out), summing to `path_ns`.
    pub parts: Vec<PathPart>,
    /// The changes replayed, most saved first (then by change).
    pub what_if: Vec<WhatIf>,
    /// The path itself, in time order: what `--trace-out` draws (not in
    /// the JSON).
    #[serde(skip)]
    pub segments: Vec<Segment>,
}

/// Where a segment of the path lies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Lane {
    /// On a GPU stream.
    Stream {
        /// Device id.
        device: u16,
        /// Stream id.
        stream: u32,
    },
    /// On a host thread.
    Thread {
        /// Thread id.
        tid: u32,
    },
    /// Between events (a wait for another rank, the time before the walk's
    /// first node).
    Between,
}

/// One piece of a step's critical path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Segment {
    /// Start, ns.
    pub start_ns: i64,
    /// End, ns.
    pub end_ns: i64,
    /// Which part it counts in.
    pub part: PartName,
    /// Where it lies.
    pub lane: Lane,
    /// What it is (a kernel's or call's name), for people.
    pub label: String,
}

/// The single change that shortens the median step most.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Best {
    /// The change's key.
    pub change: String,
    /// Time it saves on the median step, ns.
    pub saved_ns: i64,
    /// Why, in one sentence from the evidence (what lies on the path).
    pub why: String,
}

/// The whole `rooftrace path` report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PathReport {
    /// [`SCHEMA`].
    pub schema: &'static str,
    /// The inputs as given.
    pub input: Vec<String>,
    /// The GPU whose roofs were used, and how it was chosen.
    pub gpu: GpuInfo,
    /// The step pattern.
    pub pattern: String,
    /// [`KERNEL_FLOOR_NS`].
    pub kernel_floor_ns: i64,
    /// One entry per step, by (pid, start).
    pub steps: Vec<StepPath>,
    /// Index in `steps` of the median step (nearest rank by `step_ns`).
    pub median_step: Option<usize>,
    /// The single change that saves most on the median step.
    pub best: Option<Best>,
    /// Warnings, each once, as sentences.
    pub diagnostics: Vec<String>,
}

/// The replay of nothing over a whole timeline (`path::check_replay`):
/// what a test asserts is exact.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReplayCheck {
    /// Nodes in the graph (GPU ops and host intervals).
    pub nodes: u64,
    /// Events (starts and ends) that did not come back at their observed
    /// time: 0 when the replay is exact.
    pub moved_events: u64,
    /// Edges left out: their constraint came after their target.
    pub contradicted_edges: u64,
    /// Edges dropped to break a cycle at one timestamp.
    pub dropped_edges: u64,
}
