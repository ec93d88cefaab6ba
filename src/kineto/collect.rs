//! Events → the parts of a [`Timeline`], one event at a time: GPU ops
//! (`kernel`, `gpu_memcpy`, `gpu_memset`), API calls (`cuda_runtime`,
//! `cuda_driver`; HIP names too), syncs (`*Synchronize` calls, blocking
//! copies, and `cuda_sync` records without their call), host ranges
//! (`user_annotation`, `cpu_op`), CUPTI counter ranges, and memcpy totals
//! with the bytes of `args.bytes` (per direction and host memory). Names are
//! interned once; a range text is shared by every range that has it.

use super::event::{Cat, Event, SyncKind};
use super::time::micros_to_ns;
use super::CounterRange;
use crate::timeline::comm::{CollectiveArgs, CollectiveRecord, CollectiveSite};
use crate::timeline::limits::{cap_name, checked_interval, MAX_NAME_BYTES};
use crate::timeline::names::{is_blocking_copy_name, is_sync_name, is_wait_event_name};
use crate::timeline::{
    ApiCall, CopyTotal, GpuOp, NameRef, NvtxRange, OpKind, SyncCall, NO_API, NO_TID, OP_PAGEABLE,
};
use std::collections::{HashMap, HashSet};
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

/// Counts of what was read and what was left out, for the diagnostics.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Counts {
    /// Elements of `traceEvents`.
    pub events: u64,
    /// Events of a category rooftrace reads that lacked a usable time or id.
    pub bad: u64,
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
    intern: HashMap<Arc<str>, u32>,
    texts: HashSet<Arc<str>>,
    sync_names: HashSet<u32>,
    blocking_names: HashSet<u32>,
    wait_names: HashSet<u32>,
}

impl Collector {
    /// Takes one event.
    pub(super) fn take(&mut self, ev: Event) {
        self.counts.events += 1;
        match ev.cat {
            Cat::Flow => self.counts.flows += 1,
            Cat::GpuAnnotation => self.counts.gpu_annotations += 1,
            Cat::Other => {}
            _ if ev.ph.is_some_and(|p| p.0 == b'X') && self.take_complete(&ev).is_none() => {
                self.counts.bad += 1;
            }
            _ => {}
        }
    }

    /// A complete (`X`) event of a category rooftrace reads; `None` when a
    /// time or id is unusable.
    fn take_complete(&mut self, ev: &Event) -> Option<()> {
        let start = micros_to_ns(ev.ts.as_ref()?.get())?;
        let dur = match &ev.dur {
            Some(d) => micros_to_ns(d.get())?,
            None => 0,
        };
        let (start_ns, end_ns) = checked_interval(start, start.checked_add(dur)?)?;
        let name = ev.name.as_deref().unwrap_or("?");
        match ev.cat {
            Cat::Kernel | Cat::Memcpy | Cat::Memset => {
                let op = self.gpu_op(ev, name, start_ns, end_ns)?;
                // A copy's bytes are kept at the boundary, in its totals.
                CopyTotal::add_op(&mut self.copies, &op, ev.args.bytes);
                if let Some(keys) = &ev.args.comm.keys {
                    let site = CollectiveSite::Kernel {
                        device: op.device,
                        correlation_id: op.correlation_id,
                    };
                    self.collective(site, keys, ev, name);
                }
                self.ops.push(op);
            }
            Cat::Runtime | Cat::Driver => self.api_call(ev, name, start_ns, end_ns)?,
            Cat::Sync => self.sync_records.push(SyncRecord {
                correlation_id: u32::try_from(ev.args.correlation.0.unwrap_or(0)).ok()?,
                start_ns,
                end_ns,
                stream: ev.args.stream.0,
                kind: ev.args.sync_kind,
            }),
            Cat::CpuOp | Cat::Annotation => {
                let text = self.share(name);
                let (pid, tid) = (
                    u32::try_from(ev.pid.0?).ok()?,
                    u32::try_from(ev.tid.0.unwrap_or(0)).unwrap_or(0),
                );
                self.ranges.push(NvtxRange {
                    start_ns,
                    end_ns,
                    pid,
                    tid,
                    text,
                });
                if is_comm_host_op(name) || ev.args.comm.keys.is_some() {
                    let site = CollectiveSite::Host {
                        pid,
                        tid,
                        start_ns,
                        end_ns,
                    };
                    let keys = ev.args.comm.keys.clone().unwrap_or_default();
                    self.collective(site, &keys, ev, name);
                }
            }
            Cat::ProfilerRange => self.counters.push(CounterRange {
                kernel: cap_name(name.as_bytes()),
                start_ns,
                end_ns,
                device: ev.pid.0.and_then(|p| u16::try_from(p).ok()),
                metrics: ev.args.metrics.clone(),
            }),
            _ => {}
        }
        Some(())
    }

    fn gpu_op(&mut self, ev: &Event, name: &str, start_ns: i64, end_ns: i64) -> Option<GpuOp> {
        let device = ev.args.device.0.or(ev.pid.0)?;
        let stream = ev.args.stream.0.or(ev.tid.0)?;
        let (kind, name_ref, flags) = match ev.cat {
            Cat::Kernel => (OpKind::Kernel, NameRef(self.intern(name)), 0),
            Cat::Memcpy => {
                let pageable = if name.contains("Pageable") {
                    OP_PAGEABLE
                } else {
                    0
                };
                (OpKind::Memcpy, NameRef::memcpy(memcpy_kind(name)), pageable)
            }
            _ => (OpKind::Memset, NameRef::MEMSET, 0),
        };
        Some(GpuOp {
            start_ns,
            end_ns,
            pid: 0, // the host process, set when the trace is finished
            stream: u32::try_from(stream).ok()?,
            correlation_id: u32::try_from(ev.args.correlation.0.unwrap_or(0)).ok()?,
            name: name_ref,
            api: NO_API,
            device: u16::try_from(device).ok()?,
            kind,
            flags,
        })
    }

    fn api_call(&mut self, ev: &Event, name: &str, start_ns: i64, end_ns: i64) -> Option<()> {
        let pid = u32::try_from(ev.pid.0?).ok()?;
        let tid = u32::try_from(ev.tid.0.unwrap_or(0)).ok()?;
        let correlation_id = u32::try_from(ev.args.correlation.0.unwrap_or(0)).ok()?;
        let id = self.intern(name);
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
        if self.sync_names.contains(&id) {
            self.syncs.push(sync);
            return Some(());
        }
        if self.blocking_names.contains(&id) {
            // A blocking copy is a sync and a launch (as in the nsys reader).
            self.syncs.push(sync);
        }
        if self.wait_names.contains(&id) {
            self.waits.push((pid, start_ns));
        }
        if correlation_id == 0 {
            return Some(()); // launches nothing that can be joined
        }
        self.api.push(ApiCall {
            start_ns,
            end_ns,
            pid,
            tid,
            correlation_id,
            name: NameRef(id),
        });
        Some(())
    }

    /// Keeps a collective's arguments: its own keys, with the first
    /// input's size and type and the annotation's name (`nccl:all_reduce`)
    /// where the keys do not say.
    fn collective(&mut self, site: CollectiveSite, keys: &CollectiveArgs, ev: &Event, name: &str) {
        let mut args = keys.clone();
        args.input_elems = ev.args.comm.input_elems;
        if args.dtype.is_none() && args.dtype_text.is_none() {
            args.dtype = ev.args.comm.input_type;
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
        if is_sync_name(&text) {
            self.sync_names.insert(id);
        }
        if is_blocking_copy_name(&text) {
            self.blocking_names.insert(id);
        }
        if is_wait_event_name(&text) {
            self.wait_names.insert(id);
        }
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
    use super::memcpy_kind;

    #[test]
    fn copy_directions_come_from_the_second_word() {
        assert_eq!(memcpy_kind("Memcpy HtoD (Pageable -> Device)"), 1);
        assert_eq!(memcpy_kind("Memcpy DtoH (Device -> Pinned)"), 2);
        assert_eq!(memcpy_kind("Memcpy PtoP (Device -> Device)"), 10);
        assert_eq!(memcpy_kind("Memcpy"), 0);
    }
}
