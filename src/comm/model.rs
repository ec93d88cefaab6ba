//! The communication report: plain data, serialised as JSON schema
//! `rooftrace.comm/1` (docs/comm.md) and rendered by `report::comm`.

use super::kind::CollKind;
use serde::Serialize;

/// Version tag of the JSON document.
pub const SCHEMA: &str = "rooftrace.comm/1";

/// Where a kernel's collective arguments were found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ArgsFrom {
    /// On the NCCL kernel event itself.
    Kernel,
    /// On the host op its launch ran inside (`record_param_comms`,
    /// `nccl:*`).
    HostOp,
    /// Nowhere: time only.
    None,
}

/// One NCCL/RCCL kernel of one rank's timeline with its arguments.
#[derive(Debug, Clone, PartialEq)]
pub struct Collective {
    /// Kernel name (one shared copy per distinct name in a trace).
    pub kernel: std::sync::Arc<str>,
    /// Device.
    pub device: u16,
    /// Stream.
    pub stream: u32,
    /// Start on this rank's clock, ns.
    pub start_ns: i64,
    /// End on this rank's clock, ns.
    pub end_ns: i64,
    /// Its kind.
    pub kind: CollKind,
    /// Where the arguments came from.
    pub args_from: ArgsFrom,
    /// Size in `nccl-tests`' convention, byte; `None` when unknown.
    pub bytes: Option<u64>,
    /// How `bytes` was derived (`in_msg_nelems 2049000 × float32 (4 B) = …`).
    pub bytes_from: Option<std::sync::Arc<str>>,
    /// Element type.
    pub dtype: Option<&'static str>,
    /// Ranks in the process group (the length of `Process Group Ranks`
    /// when recorded, else `Group size`).
    pub group_size: Option<u32>,
    /// `Group size` as recorded when it contradicts `Process Group Ranks`
    /// (whose length is taken), to be said.
    pub group_size_said: Option<u32>,
    /// The group's global ranks, when recorded (one shared copy per
    /// distinct list in a trace: a 10,000-rank group is stored once, not
    /// once per collective).
    pub group_ranks: Option<std::sync::Arc<[u32]>>,
    /// Process group name.
    pub process_group: Option<std::sync::Arc<str>>,
    /// Sequence number in the group, when recorded.
    pub seq: Option<u64>,
}

/// What `comm` keeps of one trace.
#[derive(Debug, Clone, PartialEq)]
pub struct RankTrace {
    /// The trace as given.
    pub input: String,
    /// Its rank (`distributedInfo`).
    pub rank: Option<u32>,
    /// Ranks in its job, when the trace records it
    /// (`distributedInfo.world_size`).
    pub world_size: Option<u32>,
    /// Its NCCL/RCCL kernels with their arguments, by (device, start).
    pub collectives: Vec<Collective>,
    /// Communication kernel time (union per device, summed), ns.
    pub comm_ns: i64,
    /// Of which with no compute kernel running on that device, ns.
    pub exposed_ns: i64,
    /// What the reader said about the collectives' arguments (an nsys
    /// export's NCCL ranges without payloads), each sentence once.
    pub notes: Vec<String>,
    /// The file whose clock it shares with the other ranks read from it
    /// (one process of an nsys export holding several): ranks sharing one
    /// need no clock alignment.
    pub shared_clock: Option<String>,
}

/// Whether, and how surely, a collective has a last rank.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Arrival {
    /// Every member started at once: nobody waited.
    Together,
    /// The last rank's lead (the smallest wait of the others, each capped
    /// at its kernel time) is more than ten times the noise floor.
    Last,
    /// Its lead is more than the noise floor but within ten times it:
    /// named, and said to be near the noise.
    LastNearNoise,
    /// Its lead is within the noise floor: no rank is called last.
    WithinNoise,
}

impl Arrival {
    /// Its name in the JSON and CSV (`last_near_noise`).
    pub fn key(self) -> &'static str {
        match self {
            Arrival::Together => "together",
            Arrival::Last => "last",
            Arrival::LastNearNoise => "last_near_noise",
            Arrival::WithinNoise => "within_noise",
        }
    }
}

/// Which link a collective's bus bandwidth is compared with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LinkKind {
    /// The card's NVLink (the GPU table's `nvlink` fact).
    Nvlink,
    /// The links between one pair of GPUs on a mesh board without an
    /// NVSwitch (DGX-1): a 2-GPU group crosses only those.
    NvlinkPair,
    /// The card's PCIe link (the GPU table's host-link fact): a card
    /// without NVLink exchanges over PCIe.
    Pcie,
    /// The network between nodes (`--net-bw`).
    Network,
}

/// One link fact, per direction.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LinkFact {
    /// Which link.
    pub kind: LinkKind,
    /// `NVLink 4, 18 links`, `PCIe Gen4 x16`, `--net-bw`.
    pub interface: String,
    /// Peak per direction, byte/s.
    pub bytes_per_s: f64,
    /// Where the figure comes from.
    pub source: String,
}

/// One collective: a kernel of one trace, or, with several ranks, the
/// same collective matched across them.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CollectiveRow {
    /// Order of its first start (reference clock).
    pub index: usize,
    /// The rank of the trace (one trace), `None` for a matched row.
    pub rank: Option<u32>,
    /// Kind.
    pub kind: CollKind,
    /// Kernel name: an index into [`CommReport::names`].
    pub kernel_id: usize,
    /// Where the arguments came from.
    pub args_from: ArgsFrom,
    /// Process group name.
    pub process_group: Option<String>,
    /// Sequence number in the group.
    pub seq: Option<u64>,
    /// Element type.
    pub dtype: Option<&'static str>,
    /// Ranks in the group (`None`: unknown).
    pub group_size: Option<u32>,
    /// Ranks given whose trace holds it.
    pub ranks_given: u32,
    /// Start, ns (the reference rank's clock).
    pub start_ns: i64,
    /// Kernel time, ns: one trace's kernel (its wait included), or the last
    /// rank's (the transfer) for a matched row.
    pub duration_ns: i64,
    /// Size in `nccl-tests`' convention, byte (`None`: unknown).
    pub bytes: Option<u64>,
    /// How `bytes` was derived.
    pub bytes_from: Option<String>,
    /// `bytes / duration`, byte/s.
    pub algbw_bytes_per_s: Option<f64>,
    /// `nccl-tests`' factor for the kind and group size.
    pub busbw_factor: Option<f64>,
    /// `algbw × busbw_factor`, byte/s.
    pub busbw_bytes_per_s: Option<f64>,
    /// The link the group crossed, when known.
    pub link: Option<LinkKind>,
    /// `busbw / link per direction`.
    pub link_fraction: Option<f64>,
    /// Why the link (or the fraction) is unknown.
    pub link_unknown: Option<String>,
    /// NVLS (NVLink SHARP) kernel: the NVSwitch reduces, so busbw can
    /// exceed the link's per-direction peak (`link_fraction` above 1).
    pub nvls: bool,
    /// The rank that arrived last (several ranks).
    pub last_rank: Option<u32>,
    /// The input of the rank that arrived last (its trace as given, or
    /// `file (pid N)` for one process of an export): its label when its
    /// rank is not recorded.
    pub last_input: Option<String>,
    /// Σ over the other ranks given of their wait for the last rank, ns.
    pub wait_ns: Option<i64>,
    /// The transfer: the last rank's kernel time, ns (several ranks).
    pub transfer_ns: Option<i64>,
    /// True when some ranks of the group were not given: the last rank may
    /// be one of them, so waits are lower bounds.
    pub waits_lower_bound: bool,
    /// Whether, and how surely, a rank was last (several ranks).
    pub arrival: Option<Arrival>,
    /// The largest clock error of the ranks given at it, ns: a lead in
    /// arrival below it is not told from the alignment's error (several
    /// ranks).
    pub noise_floor_ns: Option<i64>,
}

/// One rank (one trace).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RankRow {
    /// Rank (`distributedInfo`), `None` when the trace does not say.
    pub rank: Option<u32>,
    /// The trace as given.
    pub input: String,
    /// NCCL kernel time (union per device, summed), ns.
    pub comm_ns: i64,
    /// Communication kernel time with no compute kernel running on that
    /// device, ns.
    pub exposed_ns: i64,
    /// Communication time with a compute kernel running, ns.
    pub overlap_ns: i64,
    /// Time its NCCL kernels ran before the last rank arrived, ns (several
    /// ranks; `None` otherwise).
    pub wait_ns: Option<i64>,
    /// Its NCCL kernel time of matched collectives less the wait, ns.
    pub transfer_ns: Option<i64>,
    /// Collectives at which it arrived last.
    pub last_in: u64,
    /// What its late arrivals cost the other ranks given, ns.
    pub caused_wait_ns: i64,
    /// Added to its clock to put it on the reference rank's, ns.
    pub clock_offset_ns: Option<i64>,
    /// Largest residual of the alignment (its collectives' aligned ends
    /// against the lowest other member's), ns.
    pub clock_error_ns: Option<i64>,
    /// The ranks its clock was aligned through, from the reference (the
    /// first given of the ranks it shares collectives with, directly or
    /// through others) to it, itself left out: `[0, 2]` for rank 3 aligned
    /// through rank 2 to rank 0; empty for the reference; `null` entries
    /// are traces that record no rank.
    pub clock_path: Vec<Option<u32>>,
    /// True when the trace records no rank and `rank` is the one rank of
    /// its process groups that no other trace given claims.
    pub rank_inferred: bool,
}

impl RankRow {
    /// The row of one trace before the ranks are compared: its rank as
    /// given, its communication time `comm_ns` of which `exposed_ns` ran
    /// with no compute kernel (the rest overlapped); the cross-rank figures
    /// (wait, transfer, arrivals, clock) unknown or none until `ranks`
    /// fills them, the rank not inferred until `given` infers it.
    pub fn new(rank: Option<u32>, input: &str, comm_ns: i64, exposed_ns: i64) -> RankRow {
        RankRow {
            rank,
            input: input.to_string(),
            comm_ns,
            exposed_ns,
            overlap_ns: comm_ns - exposed_ns,
            wait_ns: None,
            transfer_ns: None,
            last_in: 0,
            caused_wait_ns: 0,
            clock_offset_ns: None,
            clock_error_ns: None,
            clock_path: Vec::new(),
            rank_inferred: false,
        }
    }
}

/// What a communication warning is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiagnosticKind {
    /// No NCCL/RCCL kernel in the input.
    NoCollectives,
    /// Kernels without arguments: time only.
    NoArgs {
        /// Kernels.
        kernels: usize,
    },
    /// One trace: its kernel time includes its wait for the others.
    OneRank,
    /// Ranks not aligned (no matched collective shared with any other).
    Unaligned {
        /// Ranks.
        ranks: usize,
    },
    /// The ranks fall into sets sharing no collective, each aligned to its
    /// own reference.
    ClockGroups {
        /// Sets.
        groups: usize,
    },
    /// Some ranks of a group were not given.
    PartialGroups,
    /// Collectives seen on one rank only.
    Unmatched {
        /// Collectives.
        collectives: usize,
    },
    /// Collectives matched by order of occurrence (no sequence number).
    MatchedByOrder {
        /// Collectives.
        collectives: usize,
    },
    /// Collectives whose last rank's lead is within (or near) the clock
    /// alignment's noise floor.
    Noise {
        /// Collectives with no rank called last for it.
        within: usize,
        /// Collectives whose named last rank is near it.
        near: usize,
    },
    /// Ranks inferred from the process groups (the traces record none).
    RankInferred {
        /// Ranks.
        ranks: usize,
    },
    /// What a reader said about the arguments (an nsys export's NCCL
    /// ranges without payloads).
    ReaderNote,
    /// The ranks or files given contradict each other or the job (two
    /// traces claim one rank, a file given twice, a rank outside its
    /// groups).
    RanksGiven,
    /// Collectives whose `Group size` contradicts `Process Group Ranks`.
    GroupSize {
        /// Collectives.
        collectives: usize,
    },
    /// NVLS kernels: their busbw can exceed the link.
    Nvls {
        /// Collectives.
        collectives: usize,
    },
}

/// A communication warning, typed; in the JSON, its sentence.
pub type Diagnostic = crate::diagnostic::Diagnostic<DiagnosticKind>;

/// The whole `rooftrace comm` report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CommReport {
    /// [`SCHEMA`].
    pub schema: &'static str,
    /// The traces as given.
    pub inputs: Vec<String>,
    /// The GPU the link facts are of, when known.
    pub gpu: Option<String>,
    /// The links a collective can cross, per direction.
    pub links: Vec<LinkFact>,
    /// GPUs per node, and where that comes from.
    pub gpus_per_node: Option<u32>,
    /// Where `gpus_per_node` comes from (`--gpus-per-node`, the host
    /// names, the devices listed), or, when it is unknown, why and the flag
    /// to pass.
    pub gpus_per_node_from: String,
    /// The definitions, one sentence each.
    pub method: Vec<&'static str>,
    /// The collectives, by start.
    pub collectives: Vec<CollectiveRow>,
    /// One row per rank, most wait first.
    pub ranks: Vec<RankRow>,
    /// Warnings, each once.
    pub diagnostics: Vec<Diagnostic>,
    /// Kernel names, each once (`collectives[].kernel_id` indexes this).
    pub names: Vec<String>,
}

/// The one-sentence definitions carried in every report.
pub const METHOD: [&str; 7] = [
    "join: each NCCL/RCCL kernel takes the collective arguments on the kernel event, else those of the record_param_comms / nccl:* host ops its launch call ran inside on the same thread, else none (time only)",
    "bytes follow nccl-tests: all-gather the output (out_msg_nelems), reduce-scatter the input (in_msg_nelems), other kinds the message, × the element size; algbw = bytes / time; busbw = algbw × 2(n-1)/n (all-reduce), (n-1)/n (all-gather, reduce-scatter, all-to-all), 1 (broadcast, reduce, send/recv)",
    "link: NVLink per direction from the GPU table when the group's ranks share a node (gpus per node from --gpus-per-node or the trace's deviceProperties), the card's PCIe link when it has no NVLink (the table's row follows the device name's form factor: a PCIe card gets PCIe), the links of one pair for a 2-GPU group on a mesh board without NVSwitch (nvlink_pair: DGX-1 V100), --net-bw when the group spans nodes; link_fraction = busbw / that link, above 1 for NVLS kernels (the NVSwitch reduces: nvls)",
    "exposed communication = communication kernel time with no compute kernel running on that device (union per device); overlap = communication time with one running",
    "several ranks: collectives match by (process group, collective or point-to-point counter, sequence number: the Seq of the kernel or of the record_param_comms op around its launch), else by (process group, counter, kind, bytes) and order, said with the count per rank; each matched collective ties each member's clock to its lowest member's by the difference of their ends (a collective completes on every rank at once), the median per pair of ranks is an edge, and each rank's clock_offset_ns to its reference (the first rank given of those it is connected to) is summed along the fewest edges (clock_path); clock_error_ns is its largest end residual on aligned clocks",
    "noise floor: a collective's noise_floor_ns is the largest clock_error_ns of its ranks; its last rank is named only when every other rank's wait (capped at its kernel time) exceeds it (arrival last), said near the noise when within ten times it (last_near_noise), and not named within it (within_noise)",
    "wait: a rank's NCCL kernel time before the last rank's kernel started (aligned clocks); transfer = its kernel time less the wait; a matched collective's algbw and busbw use the last rank's kernel time (the transfer, no wait)",
];
