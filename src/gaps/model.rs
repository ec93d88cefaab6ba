//! The gap report: plain data, serialised as JSON schema `rooftrace.gaps/6`
//! (docs/json-schema-gaps.md) and rendered by `report::gaps`. Everything a
//! timeline or histogram drawer needs is public here.

use super::evidence::{CallFamily, FixTerms, HostDetail, RangeFamily, Scale};
pub use super::link::{HostLinkInfo, LinkCopy};
use super::onetime::OneTimeIdle;
use super::GapClass;
use crate::timeline::Source;
use crate::timeline::{CopyKind, GraphTrace, OpKind};
use serde::Serialize;
use std::collections::HashMap;

pub use super::totals::{
    ClassTotal, ClassTotals, DetailTotals, EvidenceTotal, HostAdvice, HostBefore, HostTotals,
    MedianP90, NonZero, Owned, OwnedIdle, RangeIdle, ScaleTotals, Tiling,
};

/// Version tag of the JSON document.
pub const SCHEMA: &str = "rooftrace.gaps/6";

/// An index into [`GapReport::names`].
pub type NameId = usize;

/// Builds [`GapReport::names`]: each distinct text once, in order of first
/// use, borrowed from the timeline until the report takes them.
#[derive(Debug, Default)]
pub(crate) struct Names<'t> {
    ids: HashMap<&'t str, NameId>,
    list: Vec<&'t str>,
}

impl<'t> Names<'t> {
    /// The id of `text`, given a new one on first use.
    pub(crate) fn id(&mut self, text: &'t str) -> NameId {
        *self.ids.entry(text).or_insert_with(|| {
            self.list.push(text);
            self.list.len() - 1
        })
    }

    /// The table, owned.
    pub(crate) fn into_table(self) -> Vec<String> {
        self.list.into_iter().map(str::to_string).collect()
    }
}

/// Busy/idle of one (process, device).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DeviceGaps {
    /// Process id.
    pub pid: u32,
    /// Device id.
    pub device: u16,
    /// First GPU op start, ns.
    pub start_ns: i64,
    /// Last GPU op end, ns.
    pub end_ns: i64,
    /// `end_ns - start_ns`.
    pub span_ns: i64,
    /// Union of kernels, memcpys, memsets and graph rows, ns.
    pub busy_ns: i64,
    /// Union of kernels (and graph rows) only, ns.
    pub kernel_busy_ns: i64,
    /// Union of memcpys only, ns.
    pub copy_busy_ns: i64,
    /// Union of memsets only, ns.
    pub memset_busy_ns: i64,
    /// Union of communication kernels (NCCL, NVSHMEM: by name), ns; part of
    /// `kernel_busy_ns`.
    pub comm_busy_ns: i64,
    /// Time when communication kernels and other kernels (or graph rows)
    /// ran at once: `comm ∪ + compute ∪ − (comm ∪ compute) ∪`, ns.
    pub comm_compute_overlap_ns: i64,
    /// Exposed communication: communication kernel time with no other
    /// kernel (or graph row) running on this device,
    /// `comm_busy_ns − comm_compute_overlap_ns`, ns.
    pub exposed_comm_ns: i64,
    /// `span_ns - busy_ns`; equals the sum of the class totals.
    pub idle_ns: i64,
    /// Number of gaps (all of them, whatever `--min-gap`).
    pub gap_count: u64,
    /// Kernels on this device.
    pub kernels: u64,
    /// Memcpys on this device.
    pub memcpys: u64,
    /// Memsets on this device.
    pub memsets: u64,
    /// Whole-graph rows on this device.
    pub graphs: u64,
    /// Gap count and time per class.
    pub classes: ClassTotals,
    /// The host-bound gaps by what the launching thread did meanwhile;
    /// sums to `classes.host_bound`.
    pub host_detail: DetailTotals,
    /// The host-bound gaps by length: launch-scale, mid, CPU stretches
    /// (docs/gaps.md, "Advice that fits the scale"); sums to
    /// `classes.host_bound`.
    pub host_scale: ScaleTotals,
    /// The host-bound gaps by their typed evidence (detail, call family,
    /// range family), in order of first sight: what the verdict's host fix
    /// is chosen from ([`HostTotals::advice`], the rule `budget` uses too);
    /// sums to `classes.host_bound`.
    pub host_evidence: Vec<EvidenceTotal>,
    /// The gaps paid once (`gaps::onetime`); the verdict advises on the rest.
    pub one_time: OneTimeIdle,
    /// The copies by direction and host memory kind, most time first
    /// (empty with `--stream`: the totals are per device).
    pub copies: Vec<CopySummary>,
}

/// The copies of one device in one direction, from one kind of host
/// memory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CopySummary {
    /// Direction (`HtoD`, `DtoH`, `DtoD`, `PtoP`, …), as the reader decoded it.
    pub direction: CopyKind,
    /// The host side is pageable memory (the copy is staged by the host).
    pub pageable: bool,
    /// Number of copies.
    pub count: u64,
    /// Bytes moved, byte (`None` when the export has no `bytes` column).
    pub bytes: Option<u64>,
    /// Sum of the copies' durations, ns.
    pub duration_ns: i64,
    /// Achieved bandwidth while copying: `bytes / duration`, byte/s,
    /// rounded down (`None` without bytes or time).
    pub bytes_per_s: Option<u64>,
}

/// The same view for one stream (its gaps are not device idle: another
/// stream may run meanwhile).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StreamGaps {
    /// Process id.
    pub pid: u32,
    /// Device id.
    pub device: u16,
    /// Stream id.
    pub stream: u32,
    /// First op start on the stream, ns.
    pub start_ns: i64,
    /// Last op end on the stream, ns.
    pub end_ns: i64,
    /// `end_ns - start_ns`.
    pub span_ns: i64,
    /// Union of the stream's ops, ns.
    pub busy_ns: i64,
    /// `span_ns - busy_ns`.
    pub idle_ns: i64,
    /// Gaps on the stream.
    pub gap_count: u64,
    /// GPU ops on the stream.
    pub ops: u64,
    /// Gap count and time per class.
    pub classes: ClassTotals,
}

/// Summary of a distribution of durations (nearest-rank percentiles).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Dist {
    /// Number of values.
    pub count: u64,
    /// Smallest, ns.
    pub min_ns: i64,
    /// Median, ns.
    pub p50_ns: i64,
    /// 90th percentile, ns.
    pub p90_ns: i64,
    /// 99th percentile, ns.
    pub p99_ns: i64,
    /// Largest, ns.
    pub max_ns: i64,
    /// Sum, ns.
    pub total_ns: i64,
}

/// Launch statistics over the API calls that launched GPU work.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct LaunchStats {
    /// API calls that launched at least one op (a graph launch counts once).
    pub launches: u64,
    /// GPU ops joined to their API call.
    pub ops_with_api: u64,
    /// GPU ops without an API row in the export.
    pub ops_without_api: u64,
    /// Duration of the launching calls on the host, ns.
    pub api_duration: Dist,
    /// Op start minus API call end, ns (negative when the op started before the call returned).
    pub queue_delay: Dist,
}

/// One bin of the gap histogram: gaps with `lo_ns <= duration < hi_ns`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct HistBin {
    /// Lower edge, ns (inclusive).
    pub lo_ns: i64,
    /// Upper edge, ns (exclusive); `None` for the last, open bin.
    pub hi_ns: Option<i64>,
    /// Gaps in the bin.
    pub count: u64,
    /// Their total duration, ns.
    pub total_ns: i64,
}

/// Distribution of device gaps at least `--min-gap` long.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct GapDistribution {
    /// Percentiles of gap duration.
    pub duration: Dist,
    /// Log-binned histogram (1-2-5 edges from 1 µs to 1 s).
    pub histogram: Vec<HistBin>,
}

/// A GPU op as shown next to a gap.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OpRef {
    /// Kernel, memcpy, memset or graph.
    pub kind: OpKind,
    /// Kernel short name, memcpy direction, …: an index into
    /// [`GapReport::names`].
    pub name_id: NameId,
    /// Stream id.
    pub stream: u32,
    /// Start, ns.
    pub start_ns: i64,
    /// End, ns.
    pub end_ns: i64,
}

/// An API call as shown next to a gap.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ApiRef {
    /// Function name (`cudaLaunchKernel_v7000`): an index into
    /// [`GapReport::names`].
    pub name_id: NameId,
    /// Thread id.
    pub tid: u32,
    /// Start on the host, ns.
    pub start_ns: i64,
    /// End on the host, ns.
    pub end_ns: i64,
}

/// One of the longest device gaps.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TopGap {
    /// Process id.
    pub pid: u32,
    /// Device id.
    pub device: u16,
    /// Gap start (end of the busy run before it), ns.
    pub start_ns: i64,
    /// Gap end (start of the op after it), ns.
    pub end_ns: i64,
    /// `end_ns - start_ns`.
    pub duration_ns: i64,
    /// Why the GPU idled.
    pub class: GapClass,
    /// The op whose end started the gap.
    pub before: OpRef,
    /// The op whose start ended the gap.
    pub after: OpRef,
    /// The API call that launched `after`, if in the export.
    pub api: Option<ApiRef>,
    /// What the host did, in words: for host-bound gaps the detail and the
    /// call or range that covered most of the host's lateness
    /// (`cudaMalloc_v3020 (cudaMalloc/cudaFree, 1.02 ms)`), for
    /// synchronisation and staging the sync call, after a drained queue the
    /// sync before it.
    pub host: Option<String>,
    /// The innermost NVTX range of the launching thread around the call
    /// start: an index into [`GapReport::names`].
    pub nvtx_id: Option<NameId>,
    /// For a host-bound gap, what the launching thread did, typed: the
    /// advice is chosen from this, never from the words in `host`.
    pub host_evidence: Option<HostEvidence>,
    /// The NVTX ranges of the launching thread overlapping the gap, each
    /// text's time the union of its ranges in the gap (nested ranges of one
    /// text count once), most time first (at most 3).
    pub ranges: Vec<RangeShare>,
    /// For a queued gap (queued/dependency, copy-engine scheduling), what
    /// the queued op waited for, as far as the input shows.
    pub queued: Option<QueuedEvidence>,
}

/// What a queued op waited for (docs/gaps.md, the classes).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct QueuedEvidence {
    /// How long before the gap the launching call returned, ns.
    pub launched_before_ns: i64,
    /// A dependency is in the input: the op before the gap ran on another
    /// stream, or the process called `cudaStreamWaitEvent` between the two
    /// launches. `false`: the op waited on something the input cannot
    /// show (another process or device, a host callback, a graph's edges).
    pub dependency_seen: bool,
    /// For copy-engine scheduling, the copy that occupied the engine of
    /// the op's direction during the gap (its process is `engine_busy_pid`).
    pub engine_busy_with: Option<OpRef>,
    /// The process of `engine_busy_with`.
    pub engine_busy_pid: Option<u32>,
    /// What the launching thread did over the gap.
    pub host_meanwhile: HostDetail,
    /// The time of the gap that covered, ns.
    pub host_meanwhile_ns: i64,
}

/// What the host-bound time inside NVTX ranges means in one report
/// ([`GapReport::nvtx_hint`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NvtxHint<'r> {
    /// Whose ranges they are.
    pub family: RangeFamily,
    /// A range text of the family, from the longest such gap.
    pub example: &'r str,
    /// Length of the longest gaps spent inside ranges of the family, ns.
    pub gaps_ns: i64,
    /// The part of those gaps the family's ranges cover (per gap, the
    /// range text with the most overlap), ns.
    pub in_ranges_ns: i64,
}

/// What the launching thread did inside a host-bound gap, typed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct HostEvidence {
    /// The host detail (what covered most of the host's lateness).
    pub detail: HostDetail,
    /// The family of the CUDA call named, for the launch call, allocation
    /// and other CUDA calls.
    pub call_family: Option<CallFamily>,
    /// The family of the NVTX range named, for a gap inside a range.
    pub range_family: Option<RangeFamily>,
    /// The gap's length class.
    pub scale: Scale,
}

/// An NVTX range overlapping a gap on the launching thread.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct RangeShare {
    /// Range text: an index into [`GapReport::names`].
    pub text_id: NameId,
    /// Time of the gap inside ranges of this text, ns.
    pub ns: i64,
    /// Whose range it is (PyTorch, MPI, NCCL), when known.
    pub family: Option<RangeFamily>,
}

/// One instance of an NVTX range matching `--nvtx`. Serialised with every
/// field; `classes`, `host.detail` and `host.scale` hold only the keys with
/// a gap (empty objects when the window had no idle time); in memory those two are held only for windows with idle time, so
/// a million instances of PyTorch's one-range-per-op cost about 100 bytes
/// each (issue 32).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RangeRow {
    /// Range text: an index into [`GapReport::names`].
    pub text_id: NameId,
    /// Process id.
    pub pid: u32,
    /// Thread id.
    pub tid: u32,
    /// Range start on the host, ns.
    pub start_ns: i64,
    /// Range end on the host, ns.
    pub end_ns: i64,
    /// `end_ns - start_ns`.
    pub wall_ns: i64,
    /// True when the GPU window is the projection of the work launched in
    /// the range; false when no launch was found and the host range is used.
    pub projected: bool,
    /// GPU window start, ns.
    pub gpu_start_ns: i64,
    /// GPU window end, ns.
    pub gpu_end_ns: i64,
    /// Busy time (all op kinds) of the range's devices inside the GPU window, ns.
    pub busy_ns: i64,
    /// Kernel-only busy time inside the GPU window, ns.
    pub kernel_busy_ns: i64,
    /// Idle time inside the GPU window (within the device spans), ns.
    pub idle_ns: i64,
    /// Kernels launched from the range (projected) or starting in it.
    pub kernels: u64,
    /// The idle time's classes and host evidence; `None` when both are
    /// empty ([`RangeRow::classes`], [`RangeRow::host`] read it).
    pub idle_detail: Option<Box<RangeIdle>>,
    /// The window's share of the device when consecutive instances' GPU
    /// windows overlap (pipelined steps): what `budget` charges. Not in
    /// the JSON.
    pub tiling: Tiling,
}

static NO_IDLE: RangeIdle = RangeIdle::NONE;

impl RangeRow {
    /// Idle time inside the window by class (gaps clipped to the window).
    pub fn classes(&self) -> &ClassTotals {
        &self.idle_detail.as_deref().unwrap_or(&NO_IDLE).classes
    }

    /// The host-bound time inside the window by its typed evidence.
    pub fn host(&self) -> &HostTotals {
        &self.idle_detail.as_deref().unwrap_or(&NO_IDLE).host
    }
}

impl Serialize for RangeRow {
    /// The fields in order, `classes` and `host` as if held inline.
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut st = s.serialize_struct("RangeRow", 15)?;
        st.serialize_field("text_id", &self.text_id)?;
        st.serialize_field("pid", &self.pid)?;
        st.serialize_field("tid", &self.tid)?;
        st.serialize_field("start_ns", &self.start_ns)?;
        st.serialize_field("end_ns", &self.end_ns)?;
        st.serialize_field("wall_ns", &self.wall_ns)?;
        st.serialize_field("projected", &self.projected)?;
        st.serialize_field("gpu_start_ns", &self.gpu_start_ns)?;
        st.serialize_field("gpu_end_ns", &self.gpu_end_ns)?;
        st.serialize_field("busy_ns", &self.busy_ns)?;
        st.serialize_field("kernel_busy_ns", &self.kernel_busy_ns)?;
        st.serialize_field("idle_ns", &self.idle_ns)?;
        st.serialize_field("kernels", &self.kernels)?;
        st.serialize_field("classes", &NonZero(self.classes()))?;
        st.serialize_field("host", &self.host().sparse())?;
        st.end()
    }
}

/// `--nvtx` results.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct RangeReport {
    /// The regular expression.
    pub pattern: String,
    /// Matching instances (sorted by pid, start).
    pub instances: Vec<RangeRow>,
    /// Wall time across instances, ns.
    pub wall_ns: MedianP90,
    /// GPU window across instances, ns.
    pub gpu_window_ns: MedianP90,
    /// Kernel-busy time across instances, ns.
    pub kernel_busy_ns: MedianP90,
    /// Idle time across instances, ns.
    pub idle_ns: MedianP90,
    /// Kernel count across instances.
    pub kernels: MedianP90,
    /// Sum of class totals over all instances.
    pub classes: ClassTotals,
}

/// What the export contained.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct InputSummary {
    /// The tool that recorded the input (in the JSON: `nsys_version`, and
    /// `schema_flavor`, `kineto` for a PyTorch trace).
    #[serde(flatten)]
    pub source: Source,
    /// How CUDA graphs were traced, judged from the rows.
    pub graph_trace: GraphTrace,
    /// `CUDA_GRAPH_TRACE_OPTIONS:MODE` from the capture metadata.
    pub graph_trace_option: Option<String>,
    /// `cudaGraphLaunch*` calls (each counted once).
    pub graph_launches: u64,
    /// The text of the longest warm-up range (`gaps::onetime`), if any.
    pub warmup_range: Option<String>,
    /// Nested runtime rows merged into their outermost call.
    pub nested_api_rows: u64,
    /// GPU ops analysed (after `--device`/`--stream`).
    pub ops: u64,
    /// Families of the export's NVTX ranges (PyTorch, MPI, NCCL): the
    /// evidence framework or communication advice needs.
    pub range_families: Vec<RangeFamily>,
}

/// The analysis settings, echoed in the report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SettingsEcho {
    /// Gaps shorter than this are idle time but left out of the distribution and top list, ns.
    pub min_gap_ns: i64,
    /// Queued gaps shorter than this are launch latency, ns.
    pub launch_latency_ns: i64,
    /// `--device`.
    pub device: Option<u16>,
    /// `--stream`.
    pub stream: Option<u32>,
}

/// What a gap report's warning is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiagnosticKind {
    /// A warning of the timeline's reader.
    Timeline(crate::timeline::DiagnosticKind),
    /// GPU ops without their launching API row: the gaps they end are
    /// unattributed.
    OpsWithoutApi {
        /// Ops without an API row.
        ops: u64,
    },
    /// No API rows at all: every gap is unattributed.
    NoApiRows,
    /// `--device`/`--stream` left no GPU op.
    NoOpsInScope,
    /// `--nvtx` matched no range (the sentence names the most frequent).
    NvtxNoMatch,
}

/// A gap report's warning, typed; in the JSON, its sentence.
pub type Diagnostic = crate::diagnostic::Diagnostic<DiagnosticKind>;

/// The whole `rooftrace gaps` report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GapReport {
    /// [`SCHEMA`].
    pub schema: &'static str,
    /// What the export contained.
    pub input: InputSummary,
    /// Settings used.
    pub settings: SettingsEcho,
    /// One row per (process, device), sorted.
    pub devices: Vec<DeviceGaps>,
    /// One row per (process, device, stream), sorted.
    pub streams: Vec<StreamGaps>,
    /// Launch statistics.
    pub launch: LaunchStats,
    /// Gap duration distribution.
    pub distribution: GapDistribution,
    /// `--nvtx` results, when asked for.
    pub ranges: Option<RangeReport>,
    /// The longest gaps, longest first.
    pub top_gaps: Vec<TopGap>,
    /// Warnings, each once.
    pub diagnostics: Vec<Diagnostic>,
    /// The host link the copies crossed and their share of it, or why it
    /// is unknown ([`GapReport::set_host_link`]; unknown until set).
    pub host_link: HostLinkInfo,
    /// Every op, API call and NVTX range name the report refers to, once
    /// each, in order of first use: `top_gaps` and `ranges.instances` hold
    /// indices into it, so a long name (up to the reader's 4 KiB cut) costs
    /// its bytes once, not once per gap.
    pub names: Vec<String>,
    /// Every classified device gap (after `--device`/`--stream`), by (pid,
    /// device, start): what the timeline and histogram charts draw. `None`
    /// unless the analysis was asked to keep them
    /// ([`GapConfig::keep_gaps`](super::GapConfig::keep_gaps)). Not in the
    /// JSON.
    #[serde(skip)]
    pub gaps: Option<Vec<ClassifiedGap>>,
}

/// A classified device gap.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ClassifiedGap {
    /// Process id.
    pub pid: u32,
    /// Device id.
    pub device: u16,
    /// Start, ns.
    pub start_ns: i64,
    /// End, ns.
    pub end_ns: i64,
    /// Why the GPU idled.
    pub class: GapClass,
}

impl GapReport {
    /// Sets the host link and each crossing copy's achieved share of it.
    pub fn set_host_link(&mut self, mut link: HostLinkInfo) {
        link.copies = self
            .devices
            .iter()
            .flat_map(|d| d.copies.iter().map(move |c| (d, c)))
            .filter(|(_, c)| c.direction.crosses_host_link())
            .map(|(d, c)| LinkCopy {
                pid: d.pid,
                device: d.device,
                direction: c.direction,
                pageable: c.pageable,
                bytes_per_s: c.bytes_per_s,
                link_fraction: link.fraction(c.direction, c.bytes_per_s),
            })
            .collect();
        self.host_link = link;
    }

    /// The text of name `id` (empty for an id the table does not have,
    /// which a report this crate built never holds).
    pub fn name(&self, id: NameId) -> &str {
        self.names.get(id).map_or("", String::as_str)
    }

    /// Among the longest host-bound gaps spent inside an NVTX range, the
    /// range family with the most time: what "inside an NVTX range" means
    /// in this export. Read from the typed evidence
    /// ([`TopGap::host_evidence`], [`TopGap::ranges`]).
    pub fn nvtx_hint(&self) -> Option<NvtxHint<'_>> {
        let mut by_family: Vec<NvtxHint<'_>> = Vec::new();
        for g in &self.top_gaps {
            let Some(HostEvidence {
                detail: HostDetail::Nvtx,
                range_family: Some(family),
                ..
            }) = g.host_evidence
            else {
                continue;
            };
            // The range named is the family range with the most overlap.
            let named = g.ranges.iter().find(|r| r.family == Some(family));
            let Some(text) = named
                .map(|r| self.name(r.text_id))
                .or_else(|| g.nvtx_id.map(|id| self.name(id)))
            else {
                continue;
            };
            // The largest one (nested ranges of a family overlap each other).
            let in_ranges: i64 = g
                .ranges
                .iter()
                .filter(|r| r.family == Some(family))
                .map(|r| r.ns)
                .max()
                .unwrap_or(0);
            match by_family.iter_mut().find(|x| x.family == family) {
                Some(x) => {
                    x.gaps_ns += g.duration_ns;
                    x.in_ranges_ns += in_ranges;
                }
                None => by_family.push(NvtxHint {
                    family,
                    example: text,
                    gaps_ns: g.duration_ns,
                    in_ranges_ns: in_ranges,
                }),
            }
        }
        // Most time first; on a tie, the family met first (longest gap).
        by_family.into_iter().rev().max_by_key(|x| x.gaps_ns)
    }

    /// True when the export shows PyTorch (its NVTX ranges).
    pub fn has_pytorch(&self) -> bool {
        self.input.range_families.contains(&RangeFamily::PyTorch)
    }

    /// Whose words the fixes are given in: the tool that made the input
    /// (a PyTorch trace, an nsys export) and whether it shows PyTorch.
    pub fn fix_terms(&self) -> FixTerms {
        FixTerms {
            tool: self.input.source.tool(),
            pytorch: self.has_pytorch(),
            graphs: self.input.graph_launches > 0 || self.devices.iter().any(|d| d.graphs > 0),
        }
    }

    /// The host-bound gaps of every device by their typed evidence: what
    /// the host fix is chosen from, by the one rule
    /// ([`HostTotals::advice`]) `budget` applies to its steps too.
    pub fn host_totals(&self) -> HostTotals {
        let mut t = HostTotals::default();
        for d in &self.devices {
            t.merge(&HostTotals {
                detail: d.host_detail,
                scale: d.host_scale,
                evidence: d.host_evidence.clone(),
            });
        }
        t
    }

    /// The fix for one of the longest gaps, from its typed evidence: the
    /// CUDA call's family, the NVTX range's family, the OS or profiler
    /// detail, else (CPU work) the fix for its length; other classes their
    /// class's fix.
    pub fn gap_fix(&self, g: &TopGap) -> &'static str {
        let terms = self.fix_terms();
        let Some(e) = g.host_evidence.filter(|_| g.class == GapClass::HostBound) else {
            return g.class.fix_in(terms);
        };
        match e.detail {
            HostDetail::LaunchCall | HostDetail::Alloc | HostDetail::CudaApi => e
                .call_family
                .map_or(e.detail.fix(terms), |f| f.fix_in(terms)),
            HostDetail::OsRuntime | HostDetail::InputWait | HostDetail::ProfilerOverhead => {
                e.detail.fix(terms)
            }
            HostDetail::Nvtx => e
                .range_family
                .map_or_else(|| e.scale.fix(terms), |f| f.fix_in(terms)),
            HostDetail::CpuWork => e.scale.fix(terms),
        }
    }
}

impl SettingsEcho {
    /// The `--device`/`--stream` filter the report was made with.
    pub fn scope(&self) -> super::Scope {
        super::Scope {
            device: self.device,
            stream: self.stream,
        }
    }
}
