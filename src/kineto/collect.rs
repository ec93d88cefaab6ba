//! Events → the parts of a [`Timeline`], one event at a time: GPU ops
//! (`kernel`, `gpu_memcpy`, `gpu_memset`), API calls (`cuda_runtime`,
//! `cuda_driver`; HIP names too), syncs (`*Synchronize` calls, blocking
//! copies, and `cuda_sync` records without their call), host ranges
//! (`user_annotation`, `cpu_op`), CUPTI counter ranges, and memcpy totals
//! with the bytes of `args.bytes` (per direction and host memory), and,
//! when asked, each `cpu_op`'s call with its recorded shapes. Names are
//! interned once; a range text is shared by every range that has it.

use super::comm_args::CommArgs;
use super::event::{self as ev, ArgKey, Args, Cat, Event, Field, SyncKind};
use super::shapes::{op_call, RecordedText};
use super::time::micros_to_ns;
use super::CounterRange;
use crate::opmodel::record::{OpCalls, OpRecord, MAX_OP_CALLS};
use crate::timeline::comm::{CollectiveArgs, CollectiveRecord, CollectiveSite};
use crate::timeline::limits::{cap_name, checked_interval, MAX_NAME_BYTES};
use crate::timeline::names::{is_blocking_copy_name, is_sync_name, is_wait_event_name};
use crate::timeline::{
    ApiCall, CopyKind, CopyTotal, GpuOp, NameRef, NvtxRange, OpKind, SyncCall, NO_API, NO_TID,
    OP_PAGEABLE,
};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

/// A `cuda_sync` record (drawn on a stream's row): where the GPU side of a
/// synchronisation was recorded. Kept as read (the timeline takes the call
/// instead when there is one); HTA counts these in its spans.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SyncRecord {
    /// `correlation` of the call.
    pub correlation_id: u32,
    /// Start, ns.
    pub start_ns: i64,
    /// End, ns.
    pub end_ns: i64,
    /// `args.stream` as written (`4294967295` for a context sync), if any.
    pub stream: Option<i64>,
    /// `cuda_sync_kind`.
    pub kind: Option<SyncKind>,
}

/// Why an event of a category rooftrace reads was skipped: the field whose
/// value could not be used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Skip {
    /// An element of `traceEvents` that is JSON but not an object.
    NotAnEvent,
    /// `ts` absent, not a JSON number, or beyond ±2^61 ns.
    Ts,
    /// `dur` not a JSON number, negative, or its end beyond ±2^61 ns.
    Dur,
    /// `name` not a string.
    Name,
    /// `pid` absent (where needed), not an integer, or beyond its range.
    Pid,
    /// `tid` not an integer, or beyond its range.
    Tid,
    /// No usable `args.device` nor `pid` for a GPU op.
    Device,
    /// No usable `args.stream` nor `tid` for a GPU op.
    Stream,
    /// `args.correlation` not an integer below 2^32.
    Correlation,
    /// `args.cuda_sync_kind` not a string.
    SyncKind,
}

impl Skip {
    /// The field, as the diagnostic names it.
    pub fn field(self) -> &'static str {
        match self {
            Skip::NotAnEvent => "element",
            Skip::Ts => "ts",
            Skip::Dur => "dur",
            Skip::Name => "name",
            Skip::Pid => "pid",
            Skip::Tid => "tid",
            Skip::Device => "args.device",
            Skip::Stream => "args.stream",
            Skip::Correlation => "args.correlation",
            Skip::SyncKind => "args.cuda_sync_kind",
        }
    }
}

/// Counts of what was read and what was left out, for the diagnostics.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Counts {
    /// Elements of `traceEvents`.
    pub events: u64,
    /// Events skipped (the sum of `skipped`).
    pub bad: u64,
    /// Events skipped, per reason.
    pub skipped: BTreeMap<Skip, u64>,
    /// GPU ops whose `args.device` (or `args.stream`) was present but
    /// unusable, placed by their `pid` (`tid`) instead.
    pub placed_by_row: u64,
    /// `ac2g` flow events (the correlation in `args` carries the same link).
    pub flows: u64,
    /// `gpu_user_annotation` spans (the host-side annotation is used).
    pub gpu_annotations: u64,
}

/// What the events filled in.
#[derive(Debug, Default)]
pub struct Collector {
    pub(super) ops: Vec<GpuOp>,
    pub(super) api: Vec<ApiCall>,
    pub(super) syncs: Vec<SyncCall>,
    pub(super) waits: Vec<(u32, i64)>,
    pub(super) ranges: Vec<NvtxRange>,
    pub(super) counters: Vec<CounterRange>,
    pub(super) strings: HashMap<u32, String>,
    pub(super) counts: Counts,
    /// The process that made the CUDA/HIP calls (the first seen); GPU rows
    /// carry a device index as `pid`, so their ops take this one.
    pub(super) host_pid: Option<u32>,
    /// Processes seen on runtime rows.
    pub(super) api_pids: Vec<u32>,
    pub(super) sync_records: Vec<SyncRecord>,
    /// Memcpy totals with the bytes of each copy's `args.bytes` (the ops
    /// keep no byte count); their `pid` is set with the ops'.
    pub(super) copies: Vec<CopyTotal>,
    /// The collectives' arguments, from NCCL kernels and from
    /// `record_param_comms`/`nccl:*` host events ([`Self::collective`]).
    pub(super) collectives: Vec<CollectiveRecord>,
    /// Keep no collectives (`Keep::NoCollectives`).
    pub(super) skip_collectives: bool,
    /// The op calls with shapes (`Keep::OpCalls`), and the counts of those
    /// without.
    pub(super) op_calls: OpCalls,
    /// Keep op calls with their shapes (`Keep::OpCalls`).
    pub(super) keep_op_calls: bool,
    intern: HashMap<Arc<str>, u32>,
    texts: HashSet<Arc<str>>,
    /// What each interned name is, by its id ([`NAME_SYNC`] and the rest):
    /// ids are dense, so a byte per name and no hashing per call.
    name_kinds: Vec<u8>,
}

/// A `*Synchronize` call.
const NAME_SYNC: u8 = 1;
/// A blocking copy (a sync and a launch).
const NAME_BLOCKING_COPY: u8 = 2;
/// A stream wait on an event.
const NAME_WAIT_EVENT: u8 = 4;

/// An id that must fit `T` when present: absent gives `default`.
fn fitting<T: TryFrom<i64>>(v: Field<i64>, default: Option<T>, why: Skip) -> Result<T, Skip> {
    match v {
        Field::Value(n) => T::try_from(n).map_err(|_| why),
        Field::Absent => default.ok_or(why),
        Field::Unusable => Err(why),
    }
}

impl Collector {
    /// Takes one element of `traceEvents` (`None`: not an event object).
    /// Only the category is decoded for the categories rooftrace does not
    /// read.
    pub(super) fn take(&mut self, event: Option<Event<'_>>) {
        self.counts.events += 1;
        let Some(mut event) = event else {
            self.skip(Skip::NotAnEvent);
            return;
        };
        // `cat(event.cat)`, decoded once by the scan.
        match event.category.unwrap_or(Cat::Other) {
            Cat::Flow => self.counts.flows += 1,
            Cat::GpuAnnotation => self.counts.gpu_annotations += 1,
            Cat::Other => {}
            cat if ev::phase(event.ph) == Some(b'X') => {
                if let Err(why) = self.take_complete(cat, &mut event) {
                    self.skip(why);
                }
            }
            _ => {}
        }
    }

    fn skip(&mut self, why: Skip) {
        self.counts.bad += 1;
        *self.counts.skipped.entry(why).or_default() += 1;
    }

    /// A complete (`X`) event of a category rooftrace reads; the field that
    /// made it unusable otherwise.
    fn take_complete(&mut self, cat: Cat, event: &mut Event<'_>) -> Result<(), Skip> {
        let start = event
            .ts
            .and_then(|t| micros_to_ns(t.get()))
            .ok_or(Skip::Ts)?;
        let dur = match event.dur {
            Some(d) => micros_to_ns(d.get()).ok_or(Skip::Dur)?,
            None => 0,
        };
        let end = start.checked_add(dur).ok_or(Skip::Dur)?;
        let (start_ns, end_ns) = checked_interval(start, end).ok_or(Skip::Dur)?;
        let name = match ev::text(event.name) {
            Field::Value(n) => n,
            Field::Absent => "?".into(),
            Field::Unusable => return Err(Skip::Name),
        };
        let args = event.take_args(cat);
        match cat {
            Cat::Kernel | Cat::Memcpy | Cat::Memset => {
                let op = self.gpu_op(cat, event, &args, &name, start_ns, end_ns)?;
                // A copy's bytes are kept at the boundary, in its totals
                // (unknown when `args.bytes` is absent or unusable).
                let bytes = ev::unsigned(args.get(ArgKey::Bytes)).ok();
                CopyTotal::add_op(&mut self.copies, &op, bytes);
                if let Some(keys) = &args.comm.keys {
                    let site = CollectiveSite::Kernel {
                        device: op.device,
                        correlation_id: op.correlation_id,
                    };
                    self.collective(site, keys, &args.comm, &name);
                }
                self.ops.push(op);
            }
            Cat::Runtime | Cat::Driver => {
                self.api_call(event, &args, &name, start_ns, end_ns)?;
            }
            Cat::Sync => {
                let kind = match ev::sync_kind(args.get(ArgKey::SyncKind)) {
                    Field::Value(k) => Some(k),
                    Field::Absent => None,
                    Field::Unusable => return Err(Skip::SyncKind),
                };
                let correlation = ev::id(args.get(ArgKey::Correlation));
                self.sync_records.push(SyncRecord {
                    correlation_id: fitting(correlation, Some(0), Skip::Correlation)?,
                    start_ns,
                    end_ns,
                    stream: ev::id(args.get(ArgKey::Stream)).ok(),
                    kind,
                });
            }
            Cat::CpuOp | Cat::Annotation => {
                let pid = fitting(ev::id(event.pid), None, Skip::Pid)?;
                let tid = match ev::id(event.tid) {
                    Field::Unusable => return Err(Skip::Tid),
                    t => thread_id(t.ok().unwrap_or(0)).unwrap_or(0),
                };
                if cat == Cat::CpuOp && self.keep_op_calls {
                    let comm = args.comm.keys.as_deref();
                    self.op_call(&name, (args.shapes, comm), (pid, tid), (start_ns, end_ns));
                }
                let text = self.share(&name);
                self.ranges.push(NvtxRange {
                    start_ns,
                    end_ns,
                    pid,
                    tid,
                    text,
                });
                if is_comm_host_op(&name) || args.comm.keys.is_some() {
                    let site = CollectiveSite::Host {
                        pid,
                        tid,
                        start_ns,
                        end_ns,
                    };
                    let keys = args.comm.keys.clone().unwrap_or_default();
                    self.collective(site, &keys, &args.comm, &name);
                }
            }
            Cat::ProfilerRange => self.counters.push(CounterRange {
                kernel: cap_name(name.as_bytes()),
                start_ns,
                end_ns,
                device: ev::id(event.pid).ok().and_then(|p| u16::try_from(p).ok()),
                metrics: args.metrics,
            }),
            _ => {}
        }
        Ok(())
    }

    /// Keeps an op call with its shapes (read by `shapes::op_call`), or
    /// counts it as one without; beyond [`MAX_OP_CALLS`] counts it dropped.
    fn op_call(
        &mut self,
        name: &str,
        (shapes, comm): (RecordedText<'_>, Option<&CollectiveArgs>),
        (pid, tid): (u32, u32),
        (start_ns, end_ns): (i64, i64),
    ) {
        let calls = &mut self.op_calls;
        let Some(call) = op_call(&cap_name(name.as_bytes()), shapes, comm) else {
            calls.without_shapes += 1;
            return;
        };
        if calls.records.len() >= MAX_OP_CALLS {
            calls.dropped += 1;
            return;
        }
        calls.records.push(OpRecord {
            call,
            pid,
            tid,
            start_ns,
            end_ns,
        });
    }

    /// Where a GPU op ran: `args.device`/`args.stream`, else the row
    /// (`pid`/`tid`); a present but unusable arg falls back to the row and
    /// is counted.
    fn place(&mut self, arg: Field<i64>, row: Field<i64>) -> Option<i64> {
        match arg {
            Field::Value(v) => Some(v),
            Field::Absent => row.ok(),
            Field::Unusable => {
                self.counts.placed_by_row += 1;
                row.ok()
            }
        }
    }

    fn gpu_op(
        &mut self,
        cat: Cat,
        event: &Event<'_>,
        args: &Args<'_>,
        name: &str,
        start_ns: i64,
        end_ns: i64,
    ) -> Result<GpuOp, Skip> {
        let device = self.place(ev::id(args.get(ArgKey::Device)), ev::id(event.pid));
        let stream = self.place(ev::id(args.get(ArgKey::Stream)), ev::id(event.tid));
        let device = fitting(
            device.map_or(Field::Absent, Field::Value),
            None,
            Skip::Device,
        )?;
        let stream = fitting(
            stream.map_or(Field::Absent, Field::Value),
            None,
            Skip::Stream,
        )?;
        let correlation = ev::id(args.get(ArgKey::Correlation));
        let correlation_id = fitting(correlation, Some(0), Skip::Correlation)?;
        let (kind, name_ref, flags) = match cat {
            Cat::Kernel => (OpKind::Kernel, NameRef(self.intern(name)), 0),
            Cat::Memcpy => {
                let pageable = if name.contains("Pageable") {
                    OP_PAGEABLE
                } else {
                    0
                };
                (
                    OpKind::Memcpy,
                    NameRef::memcpy(CopyKind::from_code(i64::from(memcpy_kind(name)))),
                    pageable,
                )
            }
            _ => (OpKind::Memset, NameRef::MEMSET, 0),
        };
        Ok(GpuOp {
            start_ns,
            end_ns,
            pid: 0, // the host process, set when the trace is finished
            stream,
            correlation_id,
            name: name_ref,
            api: NO_API,
            device,
            kind,
            flags,
        })
    }

    fn api_call(
        &mut self,
        event: &Event<'_>,
        args: &Args<'_>,
        name: &str,
        start_ns: i64,
        end_ns: i64,
    ) -> Result<(), Skip> {
        let pid: u32 = fitting(ev::id(event.pid), None, Skip::Pid)?;
        // A negative tid is Kineto's wrapped 32-bit thread id: read, not skipped.
        let tid: u32 = match ev::id(event.tid) {
            Field::Value(n) => thread_id(n).ok_or(Skip::Tid)?,
            Field::Absent => 0,
            Field::Unusable => return Err(Skip::Tid),
        };
        let correlation = ev::id(args.get(ArgKey::Correlation));
        let correlation_id: u32 = fitting(correlation, Some(0), Skip::Correlation)?;
        let id = self.intern(name);
        let kind = self.name_kinds.get(id as usize).copied().unwrap_or(0);
        if self.host_pid.is_none() {
            self.host_pid = Some(pid);
        }
        if !self.api_pids.contains(&pid) && self.api_pids.len() < 64 {
            self.api_pids.push(pid);
        }
        let sync = SyncCall {
            pid,
            tid,
            start_ns,
            end_ns,
            correlation_id,
            pageable: false,
            name: NameRef(id),
        };
        if kind & NAME_SYNC != 0 {
            self.syncs.push(sync);
            return Ok(());
        }
        if kind & NAME_BLOCKING_COPY != 0 {
            // A blocking copy is a sync and a launch (as in the nsys reader).
            self.syncs.push(sync);
        }
        if kind & NAME_WAIT_EVENT != 0 {
            self.waits.push((pid, start_ns));
        }
        if correlation_id == 0 {
            return Ok(()); // launches nothing that can be joined
        }
        self.api.push(ApiCall {
            start_ns,
            end_ns,
            pid,
            tid,
            correlation_id,
            name: NameRef(id),
        });
        Ok(())
    }

    /// Keeps a collective's arguments: its own keys, with the first
    /// input's size and type and the annotation's name (`nccl:all_reduce`)
    /// where the keys do not say.
    fn collective(
        &mut self,
        site: CollectiveSite,
        keys: &CollectiveArgs,
        comm: &CommArgs,
        name: &str,
    ) {
        if self.skip_collectives {
            return;
        }
        let mut args = keys.clone();
        args.input_elems = comm.input_elems;
        if args.dtype.is_none() && args.dtype_text.is_none() {
            args.dtype = comm.input_type;
        }
        if args.name.is_none() {
            args.name = name
                .strip_prefix("nccl:")
                .or_else(|| name.strip_prefix("rccl:"))
                .map(|n| cap_name(n.as_bytes()));
        }
        self.collectives.push(CollectiveRecord { site, args });
    }

    /// The id of a kernel or call name, cut at 4 KiB; classified (sync,
    /// blocking copy, stream wait) the first time it is seen.
    fn intern(&mut self, name: &str) -> u32 {
        let cut;
        let name = if name.len() > MAX_NAME_BYTES {
            cut = cap_name(name.as_bytes());
            cut.as_str()
        } else {
            name
        };
        if let Some(id) = self.intern.get(name) {
            return *id;
        }
        let text = name.to_string();
        let id = self.strings.len() as u32;
        let mut kind = 0;
        if is_sync_name(&text) {
            kind |= NAME_SYNC;
        }
        if is_blocking_copy_name(&text) {
            kind |= NAME_BLOCKING_COPY;
        }
        if is_wait_event_name(&text) {
            kind |= NAME_WAIT_EVENT;
        }
        self.name_kinds.push(kind);
        self.intern.insert(Arc::from(name), id);
        self.strings.insert(id, text);
        id
    }

    /// A range text, shared by every range with the same text.
    fn share(&mut self, name: &str) -> Arc<str> {
        if let Some(t) = self.texts.get(name) {
            return t.clone();
        }
        let t: Arc<str> = Arc::from(cap_name(name.as_bytes()));
        self.texts.insert(t.clone());
        t
    }

    /// `cuda_sync` records whose call is not among the runtime rows become
    /// syncs of unknown thread (a stream wait event never blocks the host);
    /// records whose call is there add nothing (the call is the sync).
    pub(super) fn resolve_sync_records(&mut self) {
        let mut known: Vec<u32> = self.syncs.iter().map(|s| s.correlation_id).collect();
        known.extend(self.api.iter().map(|a| a.correlation_id));
        known.sort_unstable();
        let pid = self.host_pid.unwrap_or(0);
        for r in &self.sync_records {
            let has_call = r.correlation_id != 0 && known.binary_search(&r.correlation_id).is_ok();
            if has_call || r.kind == Some(SyncKind::WaitEvent) {
                continue;
            }
            self.syncs.push(SyncCall {
                pid,
                tid: NO_TID,
                start_ns: r.start_ns,
                end_ns: r.end_ns,
                correlation_id: r.correlation_id,
                pageable: false,
                name: NameRef::UNKNOWN,
            });
        }
    }
}

/// A host op that stands for a collective: PyTorch's `record_param_comms`
/// and the `nccl:*` (`rccl:*`) annotations around a collective call.
fn is_comm_host_op(name: &str) -> bool {
    name == "record_param_comms" || name.starts_with("nccl:") || name.starts_with("rccl:")
}

/// The CUPTI copy kind of a Kineto memcpy name (`Memcpy HtoD (Pageable ->
/// Device)`): 1 HtoD, 2 DtoH, 8 DtoD, 9 HtoH, 10 PtoP, 0 unknown.
/// A thread id as the trace writes it: Kineto writes the system thread id
/// as a signed 32-bit number, so ids above 2^31 appear negative
/// (`"tid": -1467877632` on `cudaEventQuery` rows of the NCCL watchdog
/// thread); read as the unsigned id they wrap. `None` beyond 32 bits.
pub(super) fn thread_id(tid: i64) -> Option<u32> {
    u32::try_from(tid)
        .ok()
        .or_else(|| i32::try_from(tid).ok().map(|t| t as u32))
}

fn memcpy_kind(name: &str) -> u8 {
    let word = name.split_whitespace().nth(1).unwrap_or("");
    match word {
        "HtoD" => 1,
        "DtoH" => 2,
        "HtoA" => 3,
        "AtoH" => 4,
        "AtoA" => 5,
        "AtoD" => 6,
        "DtoA" => 7,
        "DtoD" => 8,
        "HtoH" => 9,
        "PtoP" => 10,
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::{memcpy_kind, thread_id};

    #[test]
    fn negative_thread_ids_are_wrapped_32_bit_ids() {
        // -1467877632 is the 32-bit pattern of 2827089664.
        assert_eq!(thread_id(-1_467_877_632), Some(2_827_089_664));
        assert_eq!(thread_id(-1), Some(u32::MAX));
        assert_eq!(thread_id(12), Some(12));
        // Beyond 32 bits either way: not a thread id.
        assert_eq!(thread_id(i64::from(i32::MIN) - 1), None);
        assert_eq!(thread_id(i64::from(u32::MAX) + 1), None);
    }

    #[test]
    fn copy_directions_come_from_the_second_word() {
        assert_eq!(memcpy_kind("Memcpy HtoD (Pageable -> Device)"), 1);
        assert_eq!(memcpy_kind("Memcpy DtoH (Device -> Pinned)"), 2);
        assert_eq!(memcpy_kind("Memcpy PtoP (Device -> Device)"), 10);
        assert_eq!(memcpy_kind("Memcpy"), 0);
    }
}
