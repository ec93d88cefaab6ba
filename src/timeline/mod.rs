//! The model every timeline reader fills and every analysis reads: GPU ops,
//! API calls, syncs, host spans and ranges ([`Timeline`]), with the pieces
//! the readers share (`names`: which names are syncs, blocking copies,
//! communication kernels, allocations; `join`: ops sorted and joined to the
//! call that launched them; `limits`: the bounds every reader applies to
//! untrusted values; `near`: which NVTX ranges a reader keeps when the
//! analysis looks at some windows only). The nsys SQLite reader and the Kineto JSON reader both
//! build a [`Timeline`], its names through [`Names::new`]; neither knows
//! the other, and this module knows neither.

pub mod comm;
pub mod join;
pub mod limits;
pub mod names;
pub mod near;
pub mod order;

pub use names::{CallFamily, CallKind, CopyKind, NameSet};

use std::collections::HashMap;

/// What a reader's warning is about (the figures in it are what code may
/// decide on; the sentence is for people).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiagnosticKind {
    /// Rows of `table` skipped: a NULL or out-of-range time, an end before
    /// its start, or an id beyond its range.
    SkippedRows {
        /// The table (`CUPTI_ACTIVITY_KIND_KERNEL`, `NVTX_EVENTS`, …).
        table: &'static str,
        /// Rows skipped.
        rows: u64,
    },
    /// `StringIds` rows with an id out of range: their users print as `?`.
    BadNameIds {
        /// Names ignored.
        names: u64,
    },
    /// NVTX ranges with neither text nor text id, ignored.
    UnnamedRanges {
        /// Ranges ignored.
        ranges: u64,
    },
    /// NVTX ranges were asked for but the export has no NVTX table.
    NoNvtxTable,
    /// NCCL's NVTX ranges whose payload (message size, communicator) the
    /// export lacks or does not match its payload schemas (nsys).
    NcclPayloads {
        /// Ranges read without a payload.
        ranges: u64,
    },
    /// CUDA graph launches whose GPU work (node kernels or whole-graph
    /// rows) is not in the input.
    GraphWorkMissing {
        /// Graph launch calls.
        launches: u64,
    },
    /// Trace events of a category the reader reads, skipped (Kineto): one
    /// per field whose value was unusable.
    SkippedEvents {
        /// Events skipped.
        events: u64,
        /// The field (`ts`, `pid`, `args.correlation`, `element`).
        reason: &'static str,
    },
    /// GPU ops whose `args.device`/`args.stream` was unusable, placed by
    /// their row's `pid`/`tid` (Kineto).
    PlacedByRow {
        /// Ops placed so.
        ops: u64,
    },
    /// A metadata fact present but unusable, left unknown (Kineto
    /// `deviceProperties`, `distributedInfo`, `baseTimeNanoseconds`).
    UnusableMetadata {
        /// The top-level key.
        key: &'static str,
        /// The field (empty: the whole value).
        field: &'static str,
    },
    /// More than one `traceEvents` array: the last was read (Kineto).
    RepeatedEventArrays {
        /// Arrays in the document.
        arrays: u32,
    },
    /// Runtime calls from several processes (Kineto): GPU ops are joined
    /// to the calls of the first.
    SeveralProcesses {
        /// Processes seen on runtime rows.
        processes: usize,
    },
    /// A `-wal` file beside the export (nsys): its committed frames were
    /// applied, as SQLite applies them, to a copy that was read instead.
    WalApplied {
        /// WAL frames (pages) written into the copy; 0 when the WAL held
        /// no committed transaction.
        frames: u64,
    },
    /// A hot `-journal` beside the export (nsys): the transaction it
    /// belongs to never committed and was rolled back, as SQLite rolls it
    /// back, in a copy that was read instead.
    JournalRolledBack,
}

/// A reader's warning, typed.
pub type Diagnostic = crate::diagnostic::Diagnostic<DiagnosticKind>;

/// Which metadata table an nsys export has: a rough era marker (nsys's own
/// detail, carried in [`Source::Nsys`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SchemaFlavor {
    /// No metadata table (nsys 2021.x).
    NoMetadata,
    /// `EXPORT_META_DATA` (nsys 2022.x to 2023.2).
    ExportMetaData,
    /// `META_DATA_EXPORT` (nsys 2023.3 and later).
    MetaDataExport,
}

/// The tool that recorded a timeline: whose words a report uses (NVTX
/// ranges or PyTorch's, `nsys` flags or `torch.profiler` settings).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum Tool {
    /// Nsight Systems (an `.nsys-rep` or its SQLite export).
    #[default]
    Nsys,
    /// The PyTorch profiler (a Kineto Chrome-trace JSON).
    PyTorchProfiler,
}

/// Where a timeline came from: the tool, with what its reader learnt about
/// the file. Code that words a report asks [`Source::tool`]; the nsys
/// schema flavour stays nsys's detail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// An Nsight Systems export.
    Nsys {
        /// `EXPORT_PRODUCT_VERSION` from the metadata table, when there is one.
        version: Option<String>,
        /// Which metadata table the export has.
        schema: SchemaFlavor,
    },
    /// A PyTorch profiler (Kineto) trace.
    PyTorchProfiler,
}

impl Source {
    /// The tool that recorded the timeline.
    pub fn tool(&self) -> Tool {
        match self {
            Source::Nsys { .. } => Tool::Nsys,
            Source::PyTorchProfiler => Tool::PyTorchProfiler,
        }
    }

    /// The recording tool's version, when the input records it.
    pub fn version(&self) -> Option<&str> {
        match self {
            Source::Nsys { version, .. } => version.as_deref(),
            Source::PyTorchProfiler => None,
        }
    }
}

/// A gaps report's JSON names the source by two keys, `nsys_version` and
/// `schema_flavor` (`kineto` for a trace), as it did before `Source`.
impl serde::Serialize for Source {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut keys = serializer.serialize_struct("Source", 2)?;
        keys.serialize_field("nsys_version", &self.version())?;
        match self {
            Source::Nsys { schema, .. } => keys.serialize_field("schema_flavor", schema)?,
            Source::PyTorchProfiler => keys.serialize_field("schema_flavor", "kineto")?,
        }
        keys.end()
    }
}

/// Host and rank of the process that recorded an export.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Identity {
    /// `Hostname` (or `DEVICE_DISPLAY_NAME`), when recorded.
    pub host: Option<String>,
    /// The rank and where it came from (an environment variable of
    /// `nsys::identity::RANK_VARS`, or Kineto's `distributedInfo`).
    pub rank: Option<(u32, &'static str)>,
    /// Ranks in the job, when recorded (Kineto's
    /// `distributedInfo.world_size`).
    pub world_size: Option<u32>,
    /// The GPUs the export records (nsys `TARGET_INFO_GPU`), in device-id
    /// order (at most [`MAX_GPUS`]); empty when not recorded.
    pub gpus: Vec<GpuRecord>,
}

/// Most GPU rows read (a hostile export may hold millions).
pub const MAX_GPUS: usize = 64;

/// What an export says about one GPU (nsys `TARGET_INFO_GPU`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GpuRecord {
    /// `id`: the device id.
    pub id: i64,
    /// `name` (`NVIDIA A100-SXM4-40GB`).
    pub name: String,
    /// `computeMajor`.`computeMinor`, when both are recorded.
    pub compute_capability: Option<crate::units::ComputeCapability>,
    /// `smCount`.
    pub sm_count: Option<u32>,
    /// `l2CacheSize`, bytes.
    pub l2_bytes: Option<u64>,
    /// `memoryBandwidth`, byte/s (the CUDA runtime's theoretical figure).
    pub memory_bandwidth_bytes_per_s: Option<u64>,
    /// `clockRate`, Hz (the boost clock the runtime reports).
    pub clock_hz: Option<u64>,
}

/// Kind of a GPU operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
#[repr(u8)]
pub enum OpKind {
    /// A kernel (`CUPTI_ACTIVITY_KIND_KERNEL`).
    Kernel,
    /// A memory copy (`CUPTI_ACTIVITY_KIND_MEMCPY`).
    Memcpy,
    /// A memset (`CUPTI_ACTIVITY_KIND_MEMSET`).
    Memset,
    /// A whole CUDA graph traced as one row (`CUPTI_ACTIVITY_KIND_GRAPH_TRACE`).
    Graph,
}

impl OpKind {
    /// The snake_case key used in JSON and CSV.
    pub fn key(self) -> &'static str {
        match self {
            OpKind::Kernel => "kernel",
            OpKind::Memcpy => "memcpy",
            OpKind::Memset => "memset",
            OpKind::Graph => "graph",
        }
    }
}

/// "No API call" in [`GpuOp::api`].
pub const NO_API: u32 = u32::MAX;

/// "Thread unknown" in [`SyncCall::tid`]: a `CUPTI_ACTIVITY_KIND_SYNCHRONIZATION`
/// row whose call is not in the runtime/driver tables (the row has no thread).
pub const NO_TID: u32 = u32::MAX;

/// [`GpuOp::flags`] bit: a memcpy whose host side is pageable memory
/// (`srcKind` or `dstKind` is `CUDA_MEMOPR_MEMORY_KIND_PAGEABLE`): the host
/// stages it through a pinned buffer while the GPU waits.
pub const OP_PAGEABLE: u8 = 1;

/// One GPU operation, 40 bytes. Times are ns on the export's session
/// timeline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GpuOp {
    /// Start, ns.
    pub start_ns: i64,
    /// End, ns (≥ `start_ns`).
    pub end_ns: i64,
    /// Process id, `(globalPid >> 24) & 0xFFFFFF`.
    pub pid: u32,
    /// CUDA stream id.
    pub stream: u32,
    /// CUPTI correlation id (0 = none), unique only within a process.
    pub correlation_id: u32,
    /// Name, see [`Timeline::name`].
    pub name: NameRef,
    /// Index into [`Timeline::api`] of the launching call, or [`NO_API`].
    pub api: u32,
    /// Device id, from the activity row itself.
    pub device: u16,
    /// Kernel, memcpy, memset or graph.
    pub kind: OpKind,
    /// Bits: [`OP_PAGEABLE`].
    pub flags: u8,
}

impl GpuOp {
    /// True for a memcpy from or to pageable host memory.
    pub fn is_pageable(&self) -> bool {
        self.flags & OP_PAGEABLE != 0
    }

    /// The direction of a memcpy (the reader stored it in the name, see
    /// [`NameRef::memcpy`]); `None` for other ops.
    pub fn copy_kind(&self) -> Option<CopyKind> {
        (self.kind == OpKind::Memcpy).then(|| self.name.copy_kind().unwrap_or(CopyKind::Unknown))
    }
}

/// One CUDA runtime/driver API call (the outermost one of a nested group).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ApiCall {
    /// Start on the host, ns.
    pub start_ns: i64,
    /// End on the host, ns.
    pub end_ns: i64,
    /// Process id.
    pub pid: u32,
    /// Thread id, `globalTid & 0xFFFFFF`.
    pub tid: u32,
    /// CUPTI correlation id (0 = none).
    pub correlation_id: u32,
    /// Function name, see [`Timeline::name`].
    pub name: NameRef,
}

/// A host interval during which a thread was blocked in a synchronisation
/// call: `cuda*Synchronize`/`cu*Synchronize` runtime and driver rows,
/// blocking copies (`cudaMemcpy`), and `CUPTI_ACTIVITY_KIND_SYNCHRONIZATION`
/// rows whose call is in neither API table (decoded per export version,
/// stream-wait-event rows left out). Queries (`cudaEventQuery`,
/// `cudaStreamQuery`) never block and are not syncs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct SyncCall {
    /// Process id.
    pub pid: u32,
    /// Thread that was blocked, `globalTid & 0xFFFFFF`, or [`NO_TID`].
    pub tid: u32,
    /// Start, ns.
    pub start_ns: i64,
    /// End, ns.
    pub end_ns: i64,
    /// CUPTI correlation id of the call (0 = none).
    pub correlation_id: u32,
    /// The call (a blocking copy) moved pageable host memory: the host was
    /// staging data, not waiting for the GPU.
    pub pageable: bool,
    /// Function name, see [`Timeline::name`] ([`NameRef::UNKNOWN`] for a
    /// synchronisation-table row without its call).
    pub name: NameRef,
}

/// Where a [`HostSpan`] comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum HostSpanKind {
    /// An OS runtime call (`OSRT_API`, traced with `--trace=osrt`).
    OsRuntime,
    /// Profiler overhead (`PROFILER_OVERHEAD`: buffer flushes, "command buffer full").
    ProfilerOverhead,
}

/// A host interval on one thread that is not a CUDA call: an OS runtime call
/// or profiler overhead.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct HostSpan {
    /// Process id.
    pub pid: u32,
    /// Thread id.
    pub tid: u32,
    /// Start, ns.
    pub start_ns: i64,
    /// End, ns.
    pub end_ns: i64,
    /// OS runtime call or profiler overhead.
    pub kind: HostSpanKind,
    /// Function or overhead name, see [`Timeline::name`].
    pub name: NameRef,
}

/// One closed NVTX range (push/pop or start/end).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NvtxRange {
    /// Start, ns.
    pub start_ns: i64,
    /// End, ns.
    pub end_ns: i64,
    /// Process id.
    pub pid: u32,
    /// Thread id that opened the range.
    pub tid: u32,
    /// The range text (inline `text`, or the registered string of `textId`),
    /// shared by every range with the same text: a million ranges of one
    /// registered 4 KiB string hold it once.
    pub text: std::sync::Arc<str>,
}

/// A name: a `StringIds` id, or one of the built-in names for ops that have
/// no string (memcpy directions, memset, graph).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NameRef(pub u32);

impl NameRef {
    /// The `StringIds` id was NULL or unknown.
    pub const UNKNOWN: NameRef = NameRef(u32::MAX);
    /// A memset.
    pub const MEMSET: NameRef = NameRef(u32::MAX - 1);
    /// A whole-graph row.
    pub const GRAPH: NameRef = NameRef(u32::MAX - 2);
    /// A memcpy of direction `k`.
    pub fn memcpy(k: CopyKind) -> NameRef {
        NameRef(u32::MAX - 16 - u32::from(k.code()))
    }

    /// The direction of a memcpy name made by [`NameRef::memcpy`].
    pub fn copy_kind(self) -> Option<CopyKind> {
        (u32::MAX - 31..=u32::MAX - 16)
            .contains(&self.0)
            .then(|| CopyKind::from_code(i64::from(u32::MAX - 16 - self.0)))
    }
}

/// How CUDA graphs appear in the export.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum GraphTrace {
    /// No graph launches or graph rows.
    None,
    /// Traced per node (`--cuda-graph-trace=node`): node kernels carry the
    /// correlation id of their `cudaGraphLaunch`.
    Node,
    /// Traced as whole graphs (`--cuda-graph-trace=graph`, the default):
    /// one `CUPTI_ACTIVITY_KIND_GRAPH_TRACE` row per launch.
    Graph,
}

/// Facts about the export itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExportInfo {
    /// The tool that recorded it, and what its reader learnt about the file.
    pub source: Source,
    /// `CUDA_GRAPH_TRACE_OPTIONS:MODE` from `META_DATA_CAPTURE`, when present.
    pub graph_trace_option: Option<String>,
    /// Host and rank of the recording process, when the export says.
    pub identity: Identity,
}

/// Everything the gap analysis needs from one export or trace.
#[derive(Debug, Clone)]
pub struct Timeline {
    /// Export facts.
    pub info: ExportInfo,
    /// GPU ops sorted by (pid, device, start, end).
    pub ops: Vec<GpuOp>,
    /// Outermost API calls, sorted by (pid, correlation id).
    pub api: Vec<ApiCall>,
    /// Synchronisation intervals sorted by (pid, tid, start).
    pub syncs: Vec<SyncCall>,
    /// `cudaStreamWaitEvent`/`cuStreamWaitEvent` calls as (pid, start ns),
    /// sorted: evidence of a GPU-side dependency.
    pub waits: Vec<(u32, i64)>,
    /// OS runtime calls and profiler overhead, sorted by (pid, tid, start);
    /// empty when the export has neither table.
    pub host_spans: Vec<HostSpan>,
    /// Closed NVTX ranges sorted by (pid, start) (whenever the export has them).
    pub nvtx: Vec<NvtxRange>,
    /// Memcpy totals per (pid, device, `copyKind`, pageable), sorted; empty
    /// when the reader has no per-copy bytes.
    pub copies: Vec<CopyTotal>,
    /// How graphs were traced.
    pub graph_trace: GraphTrace,
    /// Number of API calls that are `cudaGraphLaunch*`/`cuGraphLaunch*`.
    pub graph_launches: u64,
    /// Runtime rows dropped because an outer call shares their (pid, correlation id).
    pub nested_api_rows: u64,
    /// Warnings found while reading.
    pub diagnostics: Vec<Diagnostic>,
    /// The collectives' arguments the reader found (Kineto traces; NCCL's
    /// NVTX ranges in an nsys export), in reading order.
    pub collectives: Vec<comm::CollectiveRecord>,
    /// Name id → text, and the name sets derived from it ([`Names::new`]).
    pub names: Names,
}

/// A timeline's names: id → text, and the sets of ids the analyses ask
/// about (blocking copies, communication kernels, allocations), derived
/// once from the texts by [`Names::new`], the only way to make one: no
/// reader can give a timeline sets that disagree with its names, and
/// both readers classify names the same way.
#[derive(Debug, Clone, Default)]
pub struct Names {
    strings: HashMap<u32, String>,
    /// `StringIds` ids of blocking copies (`cudaMemcpy`).
    blocking: NameSet,
    /// `StringIds` ids of communication kernels (NCCL, NVSHMEM).
    comm: NameSet,
    /// `StringIds` ids of memory allocation calls (`cudaMalloc`, `cudaFree`, …).
    alloc: NameSet,
}

impl Names {
    /// The names of `strings` (id → text), with their sets derived.
    pub fn new(strings: HashMap<u32, String>) -> Names {
        Names {
            blocking: NameSet::matching(&strings, names::is_blocking_copy_name),
            comm: NameSet::matching(&strings, names::is_comm_kernel_name),
            alloc: NameSet::matching(&strings, names::is_alloc_name),
            strings,
        }
    }
}

impl Timeline {
    /// True when `call` blocks the host until its GPU work and all work
    /// queued before it completes (`cudaMemcpy` and other non-`Async`
    /// copies): an implicit synchronisation.
    pub fn is_blocking(&self, call: &ApiCall) -> bool {
        self.is_blocking_name(call.name)
    }

    /// True when `name` is a blocking copy (see [`Timeline::is_blocking`]).
    pub fn is_blocking_name(&self, name: NameRef) -> bool {
        self.names.blocking.contains(&name.0)
    }

    /// True for a communication kernel (its name contains `nccl` or
    /// `nvshmem`, any case: `ncclDevKernel_AllReduce_Sum_f32_RING_LL`).
    pub fn is_comm(&self, op: &GpuOp) -> bool {
        op.kind == OpKind::Kernel && self.names.comm.contains(&op.name.0)
    }

    /// True for a memory allocation or release call (`cudaMalloc*`,
    /// `cudaFree*`, `cuMemAlloc*`, `cuMemFree*`, `cudaHostAlloc`, …).
    pub fn is_alloc(&self, name: NameRef) -> bool {
        self.names.alloc.contains(&name.0)
    }

    /// The reader's string table (`StringIds`, or the names a trace
    /// reader gave ids), by id.
    pub fn string_table(&self) -> &HashMap<u32, String> {
        &self.names.strings
    }

    /// The text of a name.
    pub fn name(&self, n: NameRef) -> &str {
        match n {
            NameRef::UNKNOWN => "?",
            NameRef::MEMSET => "memset",
            NameRef::GRAPH => "graph",
            NameRef(x) if (u32::MAX - 31..=u32::MAX - 16).contains(&x) => {
                memcpy_kind_name(CopyKind::from_code(i64::from(u32::MAX - 16 - x)))
            }
            NameRef(x) => self
                .names
                .strings
                .get(&x)
                .map(String::as_str)
                .unwrap_or("?"),
        }
    }

    /// The API call that launched `op`, if the export has it.
    pub fn api_of(&self, op: &GpuOp) -> Option<&ApiCall> {
        (op.api != NO_API).then(|| &self.api[op.api as usize])
    }
}

/// The name of a memcpy op of direction `k` (`memcpy HtoD`).
fn memcpy_kind_name(k: CopyKind) -> &'static str {
    match k {
        CopyKind::Unknown => "memcpy",
        CopyKind::HtoD => "memcpy HtoD",
        CopyKind::DtoH => "memcpy DtoH",
        CopyKind::HtoA => "memcpy HtoA",
        CopyKind::AtoH => "memcpy AtoH",
        CopyKind::AtoA => "memcpy AtoA",
        CopyKind::AtoD => "memcpy AtoD",
        CopyKind::DtoA => "memcpy DtoA",
        CopyKind::DtoD => "memcpy DtoD",
        CopyKind::HtoH => "memcpy HtoH",
        CopyKind::PtoP => "memcpy PtoP",
    }
}

/// The copies of one (process, device, `copyKind`, pageable or not).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct CopyTotal {
    /// Process id.
    pub pid: u32,
    /// Device id.
    pub device: u16,
    /// Direction (`copyKind`, `ENUM_CUDA_MEMCPY_OPER`: 1 HtoD, 2 DtoH, 8 DtoD, 10 PtoP, …).
    pub copy_kind: CopyKind,
    /// The host side is pageable memory (`srcKind` or `dstKind` is the
    /// pageable code of `ENUM_CUDA_MEM_KIND`).
    pub pageable: bool,
    /// Number of copies.
    pub count: u64,
    /// Bytes moved, byte (`None` when the export has no `bytes` column).
    pub bytes: Option<u64>,
    /// Sum of the copies' durations on the GPU, ns.
    pub duration_ns: i64,
}

impl CopyTotal {
    /// Adds one copy `op` moving `bytes` (`None`: unknown) to `totals`,
    /// under its (pid, device, `copyKind`, pageable) key. A total's bytes
    /// are known only while every copy in it has a byte count (unknown is
    /// not zero). Ops that are not copies are ignored.
    pub fn add_op(totals: &mut Vec<CopyTotal>, op: &GpuOp, bytes: Option<u64>) {
        if op.kind != OpKind::Memcpy {
            return;
        }
        let copy_kind = op.copy_kind().unwrap_or(CopyKind::Unknown);
        let key = (op.pid, op.device, copy_kind, op.is_pageable());
        let ns = op.end_ns - op.start_ns;
        match totals
            .iter_mut()
            .find(|c| (c.pid, c.device, c.copy_kind, c.pageable) == key)
        {
            Some(c) => {
                c.count += 1;
                c.bytes = c.bytes.zip(bytes).map(|(a, b)| a.saturating_add(b));
                c.duration_ns = c.duration_ns.saturating_add(ns);
            }
            None => totals.push(CopyTotal {
                pid: op.pid,
                device: op.device,
                copy_kind,
                pageable: op.is_pageable(),
                count: 1,
                bytes,
                duration_ns: ns,
            }),
        }
    }
}
