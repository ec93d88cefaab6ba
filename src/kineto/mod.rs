//! PyTorch profiler (Kineto) Chrome-trace JSON, plain or gzip (told by
//! content, not extension) → [`Timeline`], read one event at a time.
//!
//! `input` turns the file into UTF-8 text (gzip, byte-order mark, UTF-16,
//! expansion bound), on a thread of its own when the text is over about
//! 1 MiB, and says by content whether a file is a trace; `stream` walks the
//! document piece by piece and scans each event in the buffer it lies in
//! with `lex`, a validating JSON scanner that builds nothing for what is
//! not read (strings checked for UTF-8 and the 1 MiB bound); `event` keeps
//! the raw value of each field read and decodes it liberally (one odd value
//! costs its event, never the trace); `time` reads JSON numbers exactly;
//! `meta` reads `deviceProperties`/`distributedInfo` fact by fact;
//! `collect` keeps what the analyses need (GPU ops, runtime calls joined by
//! `correlation`, syncs, host ranges, CUPTI counter ranges). Memory grows
//! with the ops kept, not with the JSON.

mod collect;
mod comm_args;
pub mod counters;
pub mod event;
pub mod input;
pub mod lex;
pub mod meta;
pub mod shapes;
pub mod stream;
pub mod time;

pub use collect::{Counts, Skip, SyncRecord};
pub use event::SyncKind;
pub use meta::{DeviceProps, DistributedInfo, MetaNote};

use crate::timeline::join::{mark_pageable_syncs, sort_and_join};
use crate::timeline::{
    Diagnostic, DiagnosticKind, ExportInfo, GpuRecord, Identity, NameSet, Names, Timeline,
};
use std::path::{Path, PathBuf};

/// Errors in a Kineto trace. Each names the file and says what to do.
#[derive(Debug, thiserror::Error)]
pub enum KinetoError {
    /// The file cannot be opened or read.
    #[error("{path}: cannot read: {source}{}", cut_short_hint(source))]
    Io {
        /// The input file.
        path: PathBuf,
        /// What the OS said.
        source: std::io::Error,
    },
    /// The JSON (or the gzip under it) is malformed or not a trace object.
    #[error("{path}: not a PyTorch profiler trace (line {line}, column {column}: {detail}); give the `.json` or `.json.gz` written by `torch.profiler` (`on_trace_ready=tensorboard_trace_handler(dir)` or `prof.export_chrome_trace(path)`)")]
    Malformed {
        /// The input file.
        path: PathBuf,
        /// Line of the JSON text (of the decompressed text for gzip).
        line: usize,
        /// Column.
        column: usize,
        /// What the parser said.
        detail: String,
    },
    /// A bound on the input was crossed.
    #[error("{path}: {what} (line {line}); this is not a trace `torch.profiler` writes — regenerate it, or decompress it yourself if it is a real trace that expands that much")]
    Overrun {
        /// The input file.
        path: PathBuf,
        /// Which bound.
        what: input::Overrun,
        /// Line where it was crossed.
        line: usize,
    },
    /// A JSON object without `traceEvents`.
    #[error("{path}: JSON without a `traceEvents` array: not a Chrome trace; give the file `torch.profiler` wrote")]
    NoTraceEvents {
        /// The input file.
        path: PathBuf,
    },
    /// No kernels, copies or memsets.
    #[error("{path}: no GPU activity ({events} events, no usable `kernel`, `gpu_memcpy` or `gpu_memset`){skipped}{hint}")]
    NoGpuActivity {
        /// The input file.
        path: PathBuf,
        /// Events read.
        events: u64,
        /// The events skipped as unusable, per reason ("; 1 events … were
        /// skipped: …"), or empty: a GPU op may be among them.
        skipped: String,
        /// What to do, by what the trace holds.
        hint: &'static str,
    },
}

/// What to do about a trace cut short, after "the file ends early".
macro_rules! cut_short_fix {
    () => {
        " (a trace copied or killed while torch.profiler was still writing it): let the profiler finish (leave the `with torch.profiler.profile(...)` block, or call `prof.stop()`) before `prof.export_chrome_trace(path)` or the `on_trace_ready` handler writes it, then copy the whole file"
    };
}
const CUT_SHORT_FIX: &str = cut_short_fix!();

/// What to do about a trace that ends early (a gzip stream cut short): it
/// was copied or killed while `torch.profiler` was writing it.
fn cut_short_hint(e: &std::io::Error) -> &'static str {
    // flate2 says "incomplete deflate stream" with this kind.
    if e.kind() == std::io::ErrorKind::UnexpectedEof {
        concat!("; the file ends early", cut_short_fix!())
    } else {
        ""
    }
}

/// Every Kineto error is the input's (exit code 2).
impl crate::error::BadInput for KinetoError {}

/// A kernel's CUPTI counter values (`cuda_profiler_range` event).
#[derive(Debug, Clone, PartialEq)]
pub struct CounterRange {
    /// Kernel name, cut at 4 KiB.
    pub kernel: String,
    /// Start of the profiled range, ns.
    pub start_ns: i64,
    /// End, ns (the range replays the kernel; not its run time).
    pub end_ns: i64,
    /// The event's `pid` (a device index), when it is one.
    pub device: Option<u16>,
    /// ncu metric name and value, in the metric's own unit.
    pub metrics: Vec<(String, f64)>,
}

/// One trace, read.
#[derive(Debug)]
pub struct KinetoTrace {
    /// The timeline every analysis reads (empty of ops for a counters-only
    /// trace read with [`read_counters`]).
    pub timeline: Timeline,
    /// `deviceProperties`.
    pub devices: Vec<DeviceProps>,
    /// `distributedInfo`, when present.
    pub distributed: Option<DistributedInfo>,
    /// `baseTimeNanoseconds`, when present (times stay as written, µs → ns).
    pub base_time_ns: Option<u64>,
    /// CUPTI counter ranges, in trace order.
    pub counters: Vec<CounterRange>,
    /// Every `cuda_sync` record, in trace order.
    pub sync_records: Vec<SyncRecord>,
    /// True when the file was gzip.
    pub gzip: bool,
    /// What was read and left out.
    pub counts: Counts,
    /// The op calls with shapes that launched something (read with
    /// [`Keep::OpCalls`] only; empty otherwise), and the counts of the rest.
    pub op_calls: crate::opmodel::OpCalls,
}

/// The NVIDIA GPUs of `deviceProperties` as the timeline's GPU records (one
/// identity for nsys exports and traces: `gaps` takes the host link and
/// `budget` the roofs from them). An AMD device is left out: ROCm writes its
/// gfx version as the compute capability (9.0 for an MI250), which would read
/// as a Hopper GPU. At most [`crate::timeline::MAX_GPUS`].
fn gpu_records(devices: &[DeviceProps]) -> Vec<GpuRecord> {
    let nvidia = |name: &str| {
        let n = name.to_ascii_lowercase();
        !(n.contains("amd") || n.contains("radeon") || n.contains("instinct"))
    };
    let mut v: Vec<GpuRecord> = devices
        .iter()
        .filter_map(|d| {
            let name = d.name.clone().filter(|n| nvidia(n))?;
            Some(GpuRecord {
                id: d.id.unwrap_or(0),
                name,
                compute_capability: d.compute_major.zip(d.compute_minor).and_then(|(a, b)| {
                    Some(crate::units::ComputeCapability::new(
                        u32::try_from(a).ok()?,
                        u32::try_from(b).ok()?,
                    ))
                }),
                sm_count: d.num_sms.and_then(|n| u32::try_from(n).ok()),
                ..Default::default()
            })
        })
        .take(crate::timeline::MAX_GPUS)
        .collect();
    v.sort_by_key(|g| g.id);
    v
}

/// What a reading keeps beyond what every timeline analysis reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keep {
    /// Everything: the collectives' arguments too (`comm`; `diff` reads a
    /// trace with [`Keep::OpCalls`], an export with this).
    All,
    /// No collectives' arguments (`Timeline::collectives` stays empty):
    /// for `gaps`, which does not read them (6,060 records, 1.6 MB at the
    /// peak on the V100 trace).
    NoCollectives,
    /// No collectives' arguments, and each `cpu_op`'s call with its
    /// recorded shapes ([`KinetoTrace::op_calls`]): for `ops`.
    OpCalls,
    /// The op calls with shapes and the collectives' arguments: for
    /// `path` over several ranks, which bounds kernels by the shapes and
    /// matches collectives across ranks by their sequence numbers.
    OpCallsAndCollectives,
}

/// Reads a trace for the timeline analyses: an error when it has no GPU
/// activity.
pub fn read_timeline(path: &Path) -> Result<KinetoTrace, KinetoError> {
    read_timeline_keeping(path, Keep::All)
}

/// [`read_timeline`], keeping what `keep` says.
pub fn read_timeline_keeping(path: &Path, keep: Keep) -> Result<KinetoTrace, KinetoError> {
    let trace = read_with(path, input::PIECE_BYTES, input::pieces, keep)?;
    if trace.timeline.ops.is_empty() {
        let hint = if trace.counters.is_empty() {
            "; profile with `activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]`"
        } else {
            "; it holds CUPTI counter ranges instead: read them with `rooftrace ncu TRACE.json`"
        };
        let skipped: String = (trace.timeline.diagnostics.iter())
            .filter(|d| matches!(d.kind, DiagnosticKind::SkippedEvents { .. }))
            .map(|d| format!("; {}", d.message))
            .collect();
        return Err(KinetoError::NoGpuActivity {
            path: path.to_path_buf(),
            events: trace.counts.events,
            skipped,
            hint,
        });
    }
    Ok(trace)
}

/// The walk's receiver: events to the collector, metadata to `meta`.
#[derive(Default)]
struct Reading {
    collector: collect::Collector,
    meta: meta::Meta,
    event_arrays: u32,
}

impl stream::Sink for Reading {
    fn events_start(&mut self) {
        self.event_arrays += 1;
        if self.event_arrays > 1 {
            // The last of duplicate keys wins, as in every JSON reader.
            let skip = self.collector.skip_collectives;
            let keep_op_calls = self.collector.keep_op_calls;
            self.collector = collect::Collector::default();
            self.collector.skip_collectives = skip;
            self.collector.keep_op_calls = keep_op_calls;
        }
    }
    fn event(&mut self, ev: Option<event::Event<'_>>) {
        self.collector.take(ev);
    }
    fn meta(&mut self, key: stream::MetaKey, raw: lex::Raw<'_>) {
        match key {
            stream::MetaKey::Devices => self.meta.read_devices(raw),
            stream::MetaKey::Distributed => self.meta.read_distributed(raw),
            stream::MetaKey::BaseTime => self.meta.read_base_time(raw),
        }
    }
}

/// Reads a trace whatever it holds (the `ncu` command reads counter ranges
/// from traces that have no GPU activity rows).
pub fn read_counters(path: &Path) -> Result<KinetoTrace, KinetoError> {
    read_with(path, input::PIECE_BYTES, input::pieces, Keep::All)
}

/// [`read_counters`] with the text handed over in pieces of `piece_bytes`
/// (the tests cut every value somewhere with a few bytes), read on the
/// caller's thread.
pub fn read_in_pieces(path: &Path, piece_bytes: usize) -> Result<KinetoTrace, KinetoError> {
    read_with(path, piece_bytes, input::inline, Keep::All)
}

/// A trace read in pieces of `piece_bytes`, handed over by `pieces`.
fn read_with(
    path: &Path,
    piece_bytes: usize,
    pieces: fn(input::Source) -> input::Pieces,
    keep: Keep,
) -> Result<KinetoTrace, KinetoError> {
    let source = input::Source::open(path)
        .map_err(|source| KinetoError::Io {
            path: path.to_path_buf(),
            source,
        })?
        .with_piece_bytes(piece_bytes);
    let gzip = source.is_gzip();
    let mut reading = Reading::default();
    reading.collector.skip_collectives = !matches!(keep, Keep::All | Keep::OpCallsAndCollectives);
    reading.collector.keep_op_calls = matches!(keep, Keep::OpCalls | Keep::OpCallsAndCollectives);
    stream::walk(pieces(source), &mut reading).map_err(|e| walk_error(path, e))?;
    if reading.event_arrays == 0 {
        return Err(KinetoError::NoTraceEvents {
            path: path.to_path_buf(),
        });
    }
    Ok(finish(reading, gzip))
}

/// A walk error as a [`KinetoError`] naming the file.
fn walk_error(path: &Path, e: stream::WalkError) -> KinetoError {
    let path = path.to_path_buf();
    match e {
        stream::WalkError::Syntax {
            line,
            column,
            detail,
        } => KinetoError::Malformed {
            path,
            line,
            column,
            // A text that stops mid-value was cut short (serde_json's words).
            detail: if detail.starts_with("EOF while parsing") {
                format!("{detail}: the file ends early{CUT_SHORT_FIX}")
            } else {
                detail
            },
        },
        stream::WalkError::Read(input::ReadError::Io(source)) => KinetoError::Io { path, source },
        // A gzip stream cut short: said once, with how to write a whole one.
        stream::WalkError::Read(input::ReadError::Gzip(source))
            if source.kind() == std::io::ErrorKind::UnexpectedEof =>
        {
            KinetoError::Io { path, source }
        }
        stream::WalkError::Read(input::ReadError::Gzip(e)) => KinetoError::Malformed {
            path,
            line: 0,
            column: 0,
            detail: format!("gzip: {e}"),
        },
        stream::WalkError::Read(input::ReadError::Overrun(what)) => KinetoError::Overrun {
            path,
            what,
            line: 0,
        },
    }
}

/// Sorts, joins and assembles the timeline.
fn finish(reading: Reading, gzip: bool) -> KinetoTrace {
    let Reading {
        collector: mut c,
        meta: top,
        event_arrays,
    } = reading;
    let host_pid = c.host_pid.unwrap_or(0);
    for op in &mut c.ops {
        op.pid = host_pid;
    }
    for copy in &mut c.copies {
        copy.pid = host_pid;
    }
    c.resolve_sync_records();
    let graph_launch_names =
        NameSet::matching(&c.strings, crate::timeline::names::is_graph_launch_name);
    let joined = sort_and_join(
        std::mem::take(&mut c.ops),
        std::mem::take(&mut c.api),
        0,
        &graph_launch_names,
    );
    let mut diagnostics = joined.diagnostics;
    drop(joined.calls);
    let op_calls = launching_calls(std::mem::take(&mut c.op_calls), &joined.api);
    diagnostics.extend(diagnostics_of(&c, &top, event_arrays));
    let mut syncs = std::mem::take(&mut c.syncs);
    mark_pageable_syncs(&mut syncs, &joined.ops, &joined.api);
    syncs.sort_unstable();
    c.waits.sort_unstable();
    c.ranges.sort_by_key(|r| (r.pid, r.start_ns, r.end_ns));
    let rank = top
        .distributed
        .as_ref()
        .and_then(|d| d.rank)
        .map(|r| (r, "distributedInfo"));
    let info = ExportInfo {
        source: crate::timeline::Source::PyTorchProfiler,
        graph_trace_option: None,
        identity: Identity {
            host: None,
            rank,
            world_size: top.distributed.as_ref().and_then(|d| d.world_size),
            gpus: gpu_records(&top.devices),
        },
    };
    let mut copies = std::mem::take(&mut c.copies);
    copies.sort_unstable();
    let timeline = Timeline {
        info,
        ops: joined.ops,
        api: joined.api,
        syncs,
        waits: std::mem::take(&mut c.waits),
        host_spans: Vec::new(),
        nvtx: std::mem::take(&mut c.ranges),
        // From each `gpu_memcpy` event's `args.bytes`: unknown for a
        // direction where a copy has none (ROCm traces write `kind` only).
        copies,
        graph_trace: joined.graph_trace,
        graph_launches: joined.graph_launches,
        nested_api_rows: joined.nested_api_rows,
        diagnostics,
        collectives: std::mem::take(&mut c.collectives),
        names: Names::new(std::mem::take(&mut c.strings)),
    };
    KinetoTrace {
        timeline,
        devices: top.devices,
        distributed: top.distributed,
        base_time_ns: top.base_time_ns,
        counters: std::mem::take(&mut c.counters),
        sync_records: std::mem::take(&mut c.sync_records),
        gzip,
        counts: c.counts.clone(),
        op_calls,
    }
}

/// The op calls whose interval holds the start of a launch call on their
/// thread (the others launched nothing and are counted), sorted by
/// (pid, tid, start, longest first): the bound on what `ops` keeps.
fn launching_calls(
    mut calls: crate::opmodel::OpCalls,
    api: &[crate::timeline::ApiCall],
) -> crate::opmodel::OpCalls {
    let mut starts: Vec<(u32, u32, i64)> = api.iter().map(|a| (a.pid, a.tid, a.start_ns)).collect();
    starts.sort_unstable();
    let before = calls.records.len();
    calls.records.retain(|r| {
        let first = starts.partition_point(|&s| s < (r.pid, r.tid, r.start_ns));
        starts
            .get(first)
            .is_some_and(|&(pid, tid, t)| pid == r.pid && tid == r.tid && t <= r.end_ns)
    });
    calls.launched_nothing += (before - calls.records.len()) as u64;
    calls
        .records
        .sort_by_key(|r| (r.pid, r.tid, r.start_ns, std::cmp::Reverse(r.end_ns)));
    calls
}

/// What was left out, as diagnostics: one per reason.
fn diagnostics_of(c: &collect::Collector, meta: &meta::Meta, event_arrays: u32) -> Vec<Diagnostic> {
    let mut d = Vec::new();
    for (why, &events) in &c.counts.skipped {
        let field = why.field();
        let what = match why {
            Skip::NotAnEvent => "elements of `traceEvents` are JSON but not event objects".to_string(),
            Skip::Ts => format!("events of a category rooftrace reads were skipped: their `{field}` is absent, not a JSON number or beyond ±2^61 ns"),
            Skip::Dur => format!("events of a category rooftrace reads were skipped: their `{field}` is not a JSON number, is negative, or ends beyond ±2^61 ns"),
            Skip::Name => format!("events of a category rooftrace reads were skipped: their `{field}` is not a string"),
            Skip::SyncKind => format!("`cuda_sync` records were skipped: their `{field}` is not a string"),
            Skip::Tid => format!("events of a category rooftrace reads were skipped: their `{field}` is not an integer or beyond 32 bits (a negative tid is Kineto's wrapped 32-bit thread id: read, not skipped)"),
            _ => format!("events of a category rooftrace reads were skipped: their `{field}` is absent where needed, not an integer, or beyond its range"),
        };
        d.push(Diagnostic::new(
            DiagnosticKind::SkippedEvents {
                events,
                reason: field,
            },
            format!("{events} {what}"),
        ));
    }
    if c.counts.placed_by_row > 0 {
        d.push(Diagnostic::new(
            DiagnosticKind::PlacedByRow {
                ops: c.counts.placed_by_row,
            },
            format!(
                "{} GPU ops have an `args.device` or `args.stream` that is not an integer; each was placed by its row (`pid` as the device, `tid` as the stream)",
                c.counts.placed_by_row
            ),
        ));
    }
    for (note, times) in &meta.notes {
        let at = if note.field.is_empty() {
            format!("`{}`", note.key)
        } else {
            format!("`{}.{}`", note.key, note.field)
        };
        let times = if *times > 1 {
            format!(" ({times} entries)")
        } else {
            String::new()
        };
        d.push(Diagnostic::new(
            DiagnosticKind::UnusableMetadata {
                key: note.key,
                field: note.field,
            },
            format!("{at} is not a usable value{times}: left unknown"),
        ));
    }
    if event_arrays > 1 {
        d.push(Diagnostic::new(
            DiagnosticKind::RepeatedEventArrays {
                arrays: event_arrays,
            },
            format!(
                "the trace has {event_arrays} `traceEvents` arrays; the last was read (a repeated key keeps its last value, as in Python's `json`)"
            ),
        ));
    }
    if c.api_pids.len() > 1 {
        d.push(Diagnostic::new(
            DiagnosticKind::SeveralProcesses {
                processes: c.api_pids.len(),
            },
            format!(
                "runtime calls from {} processes; GPU ops are joined to the calls of process {} (the first seen)",
                c.api_pids.len(),
                c.host_pid.unwrap_or(0)
            ),
        ));
    }
    d
}
