//! The step budget: plain data, serialised as JSON schema
//! `rooftrace.budget/1` (docs/budget.md) and rendered by `report::budget`.
//!
//! Every step carries its measured `step_ns` and `parts`, a list of
//! `{name, ns}` in integer nanoseconds that sums to `step_ns` exactly
//! (the rounding rule is in [`crate::budget`]).

use crate::gaps::GapClass;
use crate::roofs::GpuInfo;
use serde::Serialize;
use std::collections::HashMap;

/// Version tag of the JSON document.
pub const SCHEMA: &str = "rooftrace.budget/2";

/// What a part of a step is: the budget's parts as a type (code decides
/// on the kind, never on the part's name; the name is the kind's `key`,
/// as in the JSON and the CSV headers).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PartKind {
    /// The time the step's work needs at the roofs.
    Bound,
    /// Kernel time beyond the bound.
    Shortfall,
    /// Kernel time without a bound (no ncu counter for the kernel's name,
    /// or no `--ncu`/`--bytes-per-step` at all).
    NoCounters,
    /// Whole CUDA graph rows (no per-kernel rows to match).
    Graph,
    /// Memory copies.
    Memcpy,
    /// Memsets.
    Memset,
    /// Communication kernels (NCCL, RCCL, NVSHMEM) running with no other
    /// op on the device: exposed communication (no roofline bound, never
    /// shortfall).
    ExposedComm,
    /// Idle gaps of one class, clipped to the step.
    Idle(GapClass),
    /// Window time outside the device's op span (only for an instance
    /// whose GPU window is the host range: no launch was found).
    Outside,
}

/// Prefix of the idle parts' keys: `idle_<gap class key>`.
pub const IDLE_PREFIX: &str = "idle_";

impl PartKind {
    /// Every kind, in the order a step lists its parts.
    pub fn all() -> Vec<PartKind> {
        let mut v = vec![
            PartKind::Bound,
            PartKind::Shortfall,
            PartKind::NoCounters,
            PartKind::Graph,
            PartKind::Memcpy,
            PartKind::Memset,
            PartKind::ExposedComm,
        ];
        v.extend(GapClass::ALL.into_iter().map(PartKind::Idle));
        v.push(PartKind::Outside);
        v
    }

    /// The part's name in the JSON and the CSV (`bound`, `idle_host_bound`, …).
    pub fn key(self) -> String {
        match self {
            PartKind::Bound => "bound".into(),
            PartKind::Shortfall => "shortfall".into(),
            PartKind::NoCounters => "kernels_without_counters".into(),
            PartKind::Graph => "graph_without_kernel_rows".into(),
            PartKind::Memcpy => "memcpy".into(),
            PartKind::Memset => "memset".into(),
            PartKind::ExposedComm => "exposed_comm".into(),
            PartKind::Idle(c) => format!("{IDLE_PREFIX}{}", c.key()),
            PartKind::Outside => "outside_gpu_span".into(),
        }
    }

    /// The kind whose [`key`](Self::key) is `key`.
    pub fn from_key(key: &str) -> Option<PartKind> {
        PartKind::all().into_iter().find(|k| k.key() == key)
    }

    /// The part's label for people: `idle: host-bound`, `kernels without
    /// counters`.
    pub fn label(self) -> String {
        match self {
            PartKind::Idle(c) => format!("idle: {}", c.label()),
            PartKind::ExposedComm => "exposed communication".into(),
            k => k.key().replace('_', " "),
        }
    }
}

impl Serialize for PartKind {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.key())
    }
}

/// Where the bound comes from.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum BoundSource {
    /// Σ over the step's kernels of `T* = max(Σ W_p/F_p, Q/B)` from the ncu
    /// counters matched to them.
    Ncu {
        /// The ncu CSV as given.
        file: String,
    },
    /// `--bytes-per-step / B` (the weights bound), for the step as a whole.
    BytesPerStep {
        /// Bytes every step must move, byte.
        bytes: f64,
        /// The bound, ns (`bytes / B × 1e9`, before rounding).
        bound_ns: f64,
    },
    /// The op models of a PyTorch trace with shapes: each kernel's share
    /// of its op call's bound, derived from the recorded shapes
    /// (docs/ops.md); kernels no model covers are "without counters".
    OpModel {
        /// The FLOP and byte convention (`rooftrace/1`).
        flop_convention: &'static str,
    },
    /// The ncu counters for the kernels they match, the op models for the
    /// rest (each kernel table row says how many launches took which).
    NcuAndOpModel {
        /// The ncu CSV as given.
        file: String,
        /// The op models' FLOP and byte convention (`rooftrace/1`).
        flop_convention: &'static str,
    },
    /// Neither: every kernel's time is "without counters".
    Unknown,
}

impl BoundSource {
    /// True when some kernel's bound may come from the op models.
    pub fn uses_op_models(&self) -> bool {
        matches!(
            self,
            BoundSource::OpModel { .. } | BoundSource::NcuAndOpModel { .. }
        )
    }

    /// True when the bound is per kernel (ncu counters or op models), not
    /// the step's weights bound.
    pub fn per_kernel(&self) -> bool {
        matches!(
            self,
            BoundSource::Ncu { .. }
                | BoundSource::OpModel { .. }
                | BoundSource::NcuAndOpModel { .. }
        )
    }
}

/// One part of a step: integer ns.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Part {
    /// What the part is; in the JSON its key as `name` (`bound`,
    /// `shortfall`, `idle_host_bound`, …).
    #[serde(rename = "name")]
    pub kind: PartKind,
    /// Its time, ns.
    pub ns: i64,
}

/// One instance of the NVTX range (one step), decomposed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StepBudget {
    /// Range text: an index into [`BudgetReport::names`].
    pub text_id: usize,
    /// Process id.
    pub pid: u32,
    /// Device the step ran on.
    pub device: u16,
    /// Start of the window charged to the step, ns: its GPU window's start,
    /// or, when the previous step's GPU work still ran then, that work's
    /// end (each step owns the device from the end of the previous step's
    /// GPU work to the end of its own).
    pub gpu_start_ns: i64,
    /// GPU window end, ns.
    pub gpu_end_ns: i64,
    /// First start of the step's own GPU work, ns (`gpu_start_ns` unless
    /// the previous step's work still ran).
    pub gpu_work_start_ns: i64,
    /// The step's GPU work time that ran while the previous step's still
    /// ran, charged to that step: `gpu_start_ns - gpu_work_start_ns`, ns.
    /// Not a part.
    pub previous_overlap_ns: i64,
    /// Time of the step's GPU window (from `gpu_work_start_ns`) inside the
    /// next step's host range: its work still running while the host ran
    /// the next step, ns. Not a part.
    pub next_host_overlap_ns: i64,
    /// Host time inside the step's range before its first GPU op started,
    /// that no earlier step's window covers: from the later of the range's
    /// start and the end of the previous steps' GPU work to
    /// `gpu_work_start_ns`, ns (0 when the previous step's work still ran
    /// then, or the window is the host range). Beside the step, not a part:
    /// `step_ns` starts at the first GPU op, so the step from the range's
    /// start is `host_before_gpu_ns + step_ns`.
    pub host_before_gpu_ns: i64,
    /// True when the window is the GPU projection of the work launched in
    /// the range; false when no launch was found and the host range is used.
    pub projected: bool,
    /// The measured step: `gpu_end_ns - gpu_start_ns`.
    pub step_ns: i64,
    /// The parts, summing to `step_ns` exactly.
    pub parts: Vec<Part>,
    /// Kernels in the window.
    pub kernels: u64,
    /// Op time inside the window hidden under other ops (concurrent
    /// streams): Σ op time in the window − busy union, ns. Not a part.
    pub concurrent_ns: i64,
    /// Bound that exceeded a kernel's own time and was capped to it (the
    /// kernel ran above its roof: L2 hits or wrong roofs), ns. Not a part.
    pub bound_capped_ns: i64,
    /// Launches whose bound is a lower bound (an unknown or incomplete side
    /// of their ncu row): when nonzero, `bound` is a lower bound and
    /// `shortfall` an upper bound.
    pub lower_bound_launches: u64,
    /// The step's host-bound gaps by their typed evidence (what the
    /// launching thread did, the length class of the whole gap), from the
    /// gap analysis: the host-bound fix is chosen from these.
    pub host: crate::gaps::HostTotals,
    /// What the host did in `host_before_gpu_ns`, by the typed evidence
    /// `gaps` judges a host-bound gap with (the launching thread of the
    /// first GPU op up to the end of its launch call); empty when that call
    /// ended before the stretch began.
    pub host_before_gpu: crate::gaps::HostTotals,
    /// The `memcpy` part split by where the copies ran (what decides the
    /// copies' fix); absent from the JSON when the step has no copy time.
    #[serde(skip_serializing_if = "CopySides::is_empty")]
    pub memcpy_by_side: CopySides,
}

/// A step's charged copy time by where the copies ran, ns; the four sum to
/// its `memcpy` part.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct CopySides {
    /// On the device: device to device, peer to peer, arrays (no host
    /// memory, not over the host link), ns.
    pub device_ns: i64,
    /// To or from pageable host memory, ns.
    pub pageable_ns: i64,
    /// To or from pinned host memory, ns.
    pub pinned_ns: i64,
    /// Of a direction the reader could not decode, ns.
    pub unknown_ns: i64,
}

impl CopySides {
    /// Adds a copy `op` charged `ns`.
    pub fn add(&mut self, op: &crate::timeline::GpuOp, ns: i64) {
        use crate::timeline::CopyKind;
        match op.copy_kind() {
            None | Some(CopyKind::Unknown) => self.unknown_ns += ns,
            Some(_) if op.is_pageable() => self.pageable_ns += ns,
            Some(k) if k.has_host_side() => self.pinned_ns += ns,
            Some(_) => self.device_ns += ns,
        }
    }

    /// Adds another step's sides.
    pub fn merge(&mut self, o: &CopySides) {
        self.device_ns += o.device_ns;
        self.pageable_ns += o.pageable_ns;
        self.pinned_ns += o.pinned_ns;
        self.unknown_ns += o.unknown_ns;
    }

    /// No copy time at all.
    pub fn is_empty(&self) -> bool {
        *self == CopySides::default()
    }
}

impl StepBudget {
    /// The part of kind `kind` (0 when absent).
    pub fn part(&self, kind: PartKind) -> i64 {
        self.parts
            .iter()
            .find(|p| p.kind == kind)
            .map_or(0, |p| p.ns)
    }
}

/// Nearest-rank spread of one part (or of the step) across steps.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Spread {
    /// Part name, or `step` for the measured step.
    pub name: String,
    /// 10th percentile, ns.
    pub p10_ns: i64,
    /// Median, ns.
    pub median_ns: i64,
    /// 90th percentile, ns.
    pub p90_ns: i64,
    /// Mean, ns.
    pub mean_ns: f64,
}

/// How a kernel's bound was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, PartialOrd, Ord)]
#[serde(rename_all = "snake_case")]
pub enum BoundBasis {
    /// Its own ncu launch (same name, same order within the step).
    Matched,
    /// A launch ncu did not profile: the name's fraction of roof
    /// (Σ T* / Σ T over its profiled launches) times its time.
    PerName,
    /// The kernel's share of its op call's bound, from the shapes the
    /// trace recorded (the op models, docs/ops.md).
    OpModel,
    /// No counter for the name.
    None,
}

/// All launches of one kernel name across the steps.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct KernelBudget {
    /// Kernel name as on the timeline.
    pub name: String,
    /// Launches inside the steps.
    pub launches: u64,
    /// Of which matched to their own ncu launch.
    pub matched: u64,
    /// Of which bounded by the name's figure.
    pub per_name: u64,
    /// Of which bounded by the op models (their share of their op call's
    /// bound); absent when the op models were not used.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub op_model: Option<u64>,
    /// Time charged to the kernel inside the steps, ns.
    pub time_ns: i64,
    /// Its bound part, ns; `None` (unknown) when no launch of the name has
    /// a counter (or the bound is the step's weights bound).
    pub bound_ns: Option<i64>,
    /// Its shortfall part, ns; `None` when the bound is unknown.
    pub shortfall_ns: Option<i64>,
    /// `memory` or `compute`: the larger term of its first ncu launch (or
    /// op model; `link` for a collective's, bound by its link)
    pub bound_by: Option<&'static str>,
    /// Launches whose bound is a lower bound (an unknown or incomplete side
    /// of their ncu row): their shortfall is an upper bound.
    pub lower_bound_launches: u64,
}

/// Share of kernel time backed by a counter.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Coverage {
    /// Kernel time in all steps, ns.
    pub kernel_ns: i64,
    /// Of which matched to its own ncu launch, ns.
    pub matched_ns: i64,
    /// Of which bounded by its name's figure (an unprofiled launch), ns.
    pub per_name_ns: i64,
    /// Of which bounded by the op models, ns; absent when the op models
    /// were not used.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub op_model_ns: Option<i64>,
    /// Of which with no bound (no counter of the same kernel, no op
    /// model), ns.
    pub none_ns: i64,
    /// `(matched_ns + per_name_ns + op_model_ns) / kernel_ns` (a counter of
    /// the same kernel or an op model bounds it); 0 without kernels.
    pub fraction: f64,
}

/// Why a kernel's time has no bound when the op models are used.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Uncovered {
    /// What the ops report says: no model for the op, no shapes, unusable
    /// shapes, no op with shapes holds the launch, no launch call.
    Op(crate::ops::Unmodelled),
    /// The op has a work figure but the roofs lack the roof its compute
    /// path needs (`None`: the DRAM roof).
    NoRoof(Option<crate::roofs::ComputePath>),
    /// A collective whose bus bytes (its group, where the factor depends
    /// on it) or link is unknown.
    NoLink,
}

impl Uncovered {
    /// The reason in words (the ops report's words for its reasons).
    pub fn reason(&self) -> String {
        match self {
            Uncovered::Op(u) => u.reason(),
            Uncovered::NoRoof(Some(p)) => format!("no {} roof at these roofs", p.key()),
            Uncovered::NoRoof(None) => "no DRAM roof at these roofs".into(),
            Uncovered::NoLink => {
                "a collective whose group or link is unknown (no bus bytes over a link)".into()
            }
        }
    }

    /// How to bound these kernels.
    pub fn fix(&self) -> &'static str {
        use crate::opmodel::NoModel as N;
        use crate::ops::Unmodelled as U;
        match self {
            Uncovered::Op(U::Op(N::NotModelled)) => {
                "no op model for these ops: add a row to the op table (docs/ops.md), or bound their kernels with ncu (--ncu)"
            }
            Uncovered::Op(U::Op(N::NoShapes)) | Uncovered::Op(U::NoOpWithShapes) => {
                "profile with record_shapes=True (a custom kernel shows as an op through torch.library.custom_op), or bound these kernels with ncu (--ncu)"
            }
            Uncovered::Op(U::Op(_)) => {
                "the recorded shapes cannot be counted (see the reason): bound these kernels with ncu (--ncu)"
            }
            Uncovered::Op(U::NoLaunchCall) => {
                "profile with ProfilerActivity.CPU too (the launch calls link kernels to ops), or bound these kernels with ncu (--ncu)"
            }
            Uncovered::Op(U::GraphReplay) => {
                "a CUDA graph's replay records no op shapes: profile an eager step for them, or bound these kernels with ncu (--ncu)"
            }
            Uncovered::Op(U::NoDtype) => {
                "no element type recorded: bound these kernels with ncu (--ncu)"
            }
            Uncovered::NoLink => {
                "give --gpu KEY (its NVLink or PCIe link bounds the collective), or bound these kernels with ncu (--ncu)"
            }
            Uncovered::NoRoof(_) => {
                "give the missing roof (--peak PATH=RATE, --roofs FILE), or bound these kernels with ncu (--ncu)"
            }
        }
    }
}

impl Serialize for Uncovered {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.reason())
    }
}

/// The kernels inside the steps of one [`Uncovered`] reason.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct UncoveredRow {
    /// Why (in the JSON, the reason in words).
    pub reason: Uncovered,
    /// How to bound them.
    pub fix: &'static str,
    /// Kernel launches inside the steps.
    pub kernels: u64,
    /// Their time charged inside the steps, ns.
    pub time_ns: i64,
    /// The ops that launched most of that time (at most 5, by time): name
    /// and ns (kernels no op with shapes holds have none).
    pub ops: Vec<OpTime>,
}

/// An op's time among the uncovered kernels.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OpTime {
    /// The op's name (`fbgemm::jagged_to_padded_dense`).
    pub name: String,
    /// Kernel time charged to it inside the steps, ns.
    pub time_ns: i64,
}

/// A step longer than this many median steps is an outlier.
pub const OUTLIER_FACTOR: i64 = 3;

/// The `what` of the "fix first" line for the host's time before the
/// steps' first GPU ops (`host_before_gpu_ns`, beside the step).
pub const HOST_BEFORE_GPU: &str = "host_before_gpu";

/// One "fix first" line: a part, its time per step and what to do.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FixLine {
    /// What it is (part name, `shortfall:<kernel>`, or
    /// [`HOST_BEFORE_GPU`]).
    pub what: String,
    /// Median time per step over the steps that are not outliers, ns.
    pub ns_per_step: f64,
    /// Its share of the median step (`ns_per_step` / the median step's
    /// `step_ns`; the host's time before the first GPU op is beside the
    /// step, so its share can exceed 1).
    pub share_of_step: f64,
    /// The sentence, with the fix.
    pub text: String,
}

/// What a budget's warning is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiagnosticKind {
    /// A warning of the gap analysis (or of the timeline's reader).
    Gaps(crate::gaps::DiagnosticKind),
    /// A warning of the ncu report the bound came from.
    Ncu(crate::roofline::model::DiagnosticKind),
    /// No `--nvtx`: each `ProfilerStep#N` of a PyTorch trace is a step.
    DefaultStep,
    /// The pattern matched no instance to budget.
    NoInstance,
    /// Instances on several devices, left out.
    SeveralDevices {
        /// Instances left out.
        instances: u64,
    },
    /// Instances whose GPU work ran entirely under the steps before them,
    /// left out (their device time is those steps').
    UnderPrevious {
        /// Instances left out.
        instances: u64,
    },
    /// Steps whose GPU work began while the previous step's still ran.
    StepsOverlap {
        /// Steps.
        steps: usize,
    },
    /// Instances with an empty GPU window, left out.
    EmptyWindow {
        /// Instances left out.
        instances: u64,
    },
    /// Projected instances with time outside their device's ops (a bug).
    OutsideSpan {
        /// Instances.
        instances: u64,
    },
    /// Kernel names of the ncu CSV that match no kernel in the steps.
    UnmatchedCounters {
        /// Names.
        names: usize,
    },
    /// Launches whose bound is a lower bound (an unknown side in ncu).
    LowerBound {
        /// Launches.
        launches: u64,
    },
    /// Steps with kernels faster than their bound (capped).
    BoundCapped {
        /// Steps.
        steps: usize,
    },
    /// Neither `--ncu` nor `--bytes-per-step`: no bound.
    NoBound,
}

/// A budget's warning, typed; in the JSON, its sentence.
pub type Diagnostic = crate::diagnostic::Diagnostic<DiagnosticKind>;

/// The whole `rooftrace budget` report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BudgetReport {
    /// [`SCHEMA`].
    pub schema: &'static str,
    /// The timeline as given.
    pub input: String,
    /// The NVTX pattern.
    pub pattern: String,
    /// The GPU whose roofs were used, and how it was chosen.
    pub gpu: GpuInfo,
    /// DRAM bandwidth of the roofs, byte/s.
    pub dram_bytes_per_s: f64,
    /// Where the bound comes from.
    pub bound_source: BoundSource,
    /// How the parts are defined (overlap, rounding), one sentence each.
    pub method: Vec<&'static str>,
    /// One entry per budgeted instance, by (pid, start).
    pub steps: Vec<StepBudget>,
    /// Index in `steps` of the median step (nearest rank by `step_ns`).
    pub median_step: Option<usize>,
    /// Indices in `steps` of the outlier steps: longer than
    /// [`OUTLIER_FACTOR`] × the median step (warm-up, a checkpoint); named
    /// in the report and left out of `fix_first`.
    pub outlier_steps: Vec<usize>,
    /// Spread of the step and of each part across steps.
    pub spread: Vec<Spread>,
    /// Per kernel name, largest shortfall first.
    pub kernels: Vec<KernelBudget>,
    /// Share of kernel time backed by a counter (or an op model).
    pub coverage: Coverage,
    /// With the op models: the kernel time inside the steps no model and
    /// no counter covers, by reason, most time first (empty, and absent
    /// from the JSON, without the op models).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub without_counters: Vec<UncoveredRow>,
    /// The largest parts, with the fix.
    pub fix_first: Vec<FixLine>,
    /// Warnings, each once.
    pub diagnostics: Vec<Diagnostic>,
    /// The steps' range texts, each once, in order of first use (steps hold
    /// indices): a long text costs its bytes once, not once per step.
    pub names: Vec<String>,
    /// The single change on the median step's critical path that shortens
    /// it most, as `rooftrace path` finds it (set by the command, which
    /// walks the path; absent when nothing walked it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub critical_path: Option<CriticalPathBest>,
}

/// The best change on the median step's critical path (docs/path.md),
/// named in `budget`'s output.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CriticalPathBest {
    /// Index in `steps` of the step walked (the median step).
    pub step: usize,
    /// The change's key (`kernels_at_roof`, `launch_overhead_removed`, …);
    /// `None`: no single change is known to shorten the step.
    pub change: Option<String>,
    /// Time the change saves on the step, replayed on its graph, ns;
    /// `None` with `change`.
    pub saved_ns: Option<i64>,
    /// Why, one sentence (or why no change is known).
    pub why: String,
}

impl BudgetReport {
    /// The range text of `step` (empty for an id the table does not have,
    /// which a report this crate built never holds).
    pub fn text(&self, step: &StepBudget) -> &str {
        self.names.get(step.text_id).map_or("", String::as_str)
    }
}

/// A part's label for people, by its key (`idle_host_bound` → `idle:
/// host-bound`); a key that is no part (`step`) with its `_` as spaces.
pub fn part_label(name: &str) -> String {
    PartKind::from_key(name).map_or_else(|| name.replace('_', " "), PartKind::label)
}

/// The one-sentence definitions carried in every report.
pub const METHOD: [&str; 8] = [
    "step = GPU window of the range instance (an NVTX range; in a PyTorch trace, an op or record_function range: first start to last end of the GPU work launched in it); parts sum to it exactly, in integer ns",
    "overlapping steps: a step owns the device from the end of the previous step's GPU work (or its own first start, if later) to the end of its own, so steps never share a nanosecond and sum to at most the device's span; previous_overlap_ns is the step's work given to the previous step, next_host_overlap_ns its GPU time inside the next step's host range",
    "busy time is charged first come: each instant of the busy union goes to the running op that started first, so concurrent streams are counted once (hidden op time is reported as concurrent_ns)",
    "a kernel's bound is its T* scaled by its charged share, rounded to the nearest ns and capped at its charged time (the excess is reported as bound_capped_ns); shortfall = charged time - bound",
    "idle parts are the gaps `rooftrace gaps` classified, clipped to the window; outside_gpu_span is window time beyond the device's ops (host-range windows only)",
    "ncu launches match timeline kernels by base name (no namespace, template or parameters) and order within the step; a launch beyond the profiled ones of its name gets the name's fraction of roof (sum T* / sum T) times its time; T* with an unknown side is a lower bound (lower_bound_launches)",
    "one statistic, the median: the headline is the median step; fix first ranks each part by its median per step over the steps no longer than 3 × the median step (longer ones are outliers, named, left out)",
    HOST_BEFORE_METHOD,
];

/// The definition of `host_before_gpu_ns`, in [`METHOD`].
pub const HOST_BEFORE_METHOD: &str = "host_before_gpu_ns (beside the step, not a part: step_ns starts at the first GPU op) = the step's first GPU op start - the later of its range's host start and the end of the previous steps' GPU work; host_before_gpu is what the launching thread did there, judged as rooftrace gaps judges a host-bound gap; fix first weighs it by its median per step";

/// The definition a report whose bound comes from the op models adds to
/// [`METHOD`].
pub const OP_MODEL_METHOD: &str = "op models (no ncu counter for the kernel): an op call's bound max(FLOPs / F_path, bytes / B) from the shapes the trace recorded (convention rooftrace/1, docs/ops.md) is split over the kernels charged to it in proportion to their durations; each kernel's part is then scaled and capped as above; kernels no model covers are kernels_without_counters, by reason (without_counters)";

/// Per-name accumulator.
#[derive(Default)]
pub(crate) struct KernelAcc {
    pub(crate) launches: u64,
    pub(crate) matched: u64,
    pub(crate) per_name: u64,
    pub(crate) time_ns: i64,
    pub(crate) bound_ns: i64,
    pub(crate) shortfall_ns: i64,
    pub(crate) matched_ns: i64,
    pub(crate) per_name_ns: i64,
    pub(crate) op_model: u64,
    pub(crate) op_model_ns: i64,
    pub(crate) bound_by: Option<&'static str>,
    pub(crate) lower_bound_launches: u64,
    /// Shortfall per step it ran in: (index in the report's steps, ns),
    /// by step.
    pub(crate) shortfall_by_step: Vec<(usize, i64)>,
}

impl KernelAcc {
    /// Adds `ns` of shortfall in step `step` (steps come in order).
    pub(crate) fn add_step_shortfall(&mut self, step: usize, ns: i64) {
        match self.shortfall_by_step.last_mut() {
            Some(last) if last.0 == step => last.1 += ns,
            _ => self.shortfall_by_step.push((step, ns)),
        }
    }
}

/// What the summary phase takes.
pub(crate) struct SummaryInput {
    pub(crate) input: String,
    pub(crate) pattern: String,
    pub(crate) gpu: GpuInfo,
    pub(crate) dram_bytes_per_s: f64,
    pub(crate) bound_source: BoundSource,
    pub(crate) steps: Vec<StepBudget>,
    pub(crate) names: Vec<String>,
    pub(crate) kernels: HashMap<String, KernelAcc>,
    pub(crate) without_counters: Vec<UncoveredRow>,
    pub(crate) diagnostics: Vec<Diagnostic>,
    /// The input shows PyTorch's own ranges (its knobs may be named).
    pub(crate) terms: crate::gaps::FixTerms,
}
