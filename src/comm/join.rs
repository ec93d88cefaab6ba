//! Each NCCL/RCCL kernel of a timeline joined to its collective's
//! arguments: those on the kernel itself (newer PyTorch), else those of the
//! host ops its launch call ran inside on the same thread
//! (`record_param_comms`, then an `nccl:*` annotation for what the first
//! does not say), else none (time only).

use super::kind::CollKind;
use super::model::{ArgsFrom, Collective};
use crate::timeline::comm::{CollectiveArgs, CollectiveRecord, CollectiveSite};
use crate::timeline::{GpuOp, Timeline};
use crate::units::si;
use std::collections::HashMap;
use std::sync::Arc;

/// A `Process Group Ranks` list this long may have been cut by the reader
/// (`kineto::comm_args` keeps 2^17 ranks): then `Group size` says the size.
const RANKS_KEPT: usize = 1 << 17;

/// Host records are searched this far back from a launch for one that
/// holds it (nested annotations are few).
const HOST_LOOKBACK: usize = 64;

/// Every communication kernel of `tl` with its arguments, by (device,
/// start).
pub fn collectives(tl: &Timeline) -> Vec<Collective> {
    collectives_of(tl, None)
}

/// The communication kernels of process `pid` (every process when `None`)
/// with their arguments, by (device, start): one rank of an nsys export
/// holding several ranks' processes.
pub fn collectives_of(tl: &Timeline, pid: Option<u32>) -> Vec<Collective> {
    let mut on_kernel: HashMap<(u16, u32), &CollectiveArgs> = HashMap::new();
    let mut on_host: Vec<(u32, u32, i64, i64, &CollectiveArgs)> = Vec::new();
    for CollectiveRecord { site, args } in &tl.collectives {
        match *site {
            CollectiveSite::Kernel {
                device,
                correlation_id,
            } => {
                on_kernel.insert((device, correlation_id), args);
            }
            CollectiveSite::Host {
                pid,
                tid,
                start_ns,
                end_ns,
            } => on_host.push((pid, tid, start_ns, end_ns, args)),
        }
    }
    on_host.sort_by_key(|h| (h.0, h.1, h.2, h.3));
    let mut lists: HashMap<Vec<u32>, Arc<[u32]>> = HashMap::new();
    let mut kernels: HashMap<u32, Arc<str>> = HashMap::new();
    // One shared copy of each distinct text (the same size's derivation and
    // the same group recur at every step): what a rank keeps per collective
    // while the job's other traces are read stays small.
    let mut texts: std::collections::HashSet<Arc<str>> = std::collections::HashSet::new();
    let mut share = |t: Option<Arc<str>>| -> Option<Arc<str>> {
        let t = t?;
        if let Some(s) = texts.get(&t) {
            return Some(s.clone());
        }
        texts.insert(t.clone());
        Some(t)
    };
    let mut out: Vec<Collective> = tl
        .ops
        .iter()
        .filter(|o| tl.is_comm(o) && pid.is_none_or(|p| o.pid == p))
        .map(|op| {
            let (args, from) = match on_kernel.get(&(op.device, op.correlation_id)) {
                Some(a) if op.correlation_id != 0 => {
                    let mut a = (*a).clone();
                    // PyTorch writes Seq on record_param_comms, not on the
                    // kernel: the host op holding the launch names it.
                    if a.seq.is_none() || a.pg_name.is_none() {
                        let host = host_args(tl, op, &on_host).unwrap_or_default();
                        a.seq = a.seq.or(host.seq);
                        a.pg_name = a.pg_name.or(host.pg_name);
                    }
                    (Some(a), ArgsFrom::Kernel)
                }
                _ => match host_args(tl, op, &on_host) {
                    Some(a) => (Some(a), ArgsFrom::HostOp),
                    None => (None, ArgsFrom::None),
                },
            };
            let name = kernels
                .entry(op.name.0)
                .or_insert_with(|| Arc::from(tl.name(op.name)))
                .clone();
            let mut c = collective(name, op, args, from);
            // One shared copy of each distinct rank list.
            if let Some(g) = c.group_ranks.take() {
                let shared = lists.entry(g.to_vec()).or_insert_with(|| g.clone());
                c.group_ranks = Some(shared.clone());
            }
            c.bytes_from = share(c.bytes_from.take());
            c.process_group = share(c.process_group.take());
            c
        })
        .collect();
    out.sort_by_key(|c| (c.device, c.start_ns, c.end_ns));
    out.shrink_to_fit();
    out
}

/// The arguments of the host ops holding `op`'s launch call on its thread:
/// the one with message sizes first, the others filling what it lacks.
fn host_args(
    tl: &Timeline,
    op: &GpuOp,
    on_host: &[(u32, u32, i64, i64, &CollectiveArgs)],
) -> Option<CollectiveArgs> {
    let call = tl.api_of(op)?;
    let (pid, tid, t) = (call.pid, call.tid, call.start_ns);
    let hi = on_host.partition_point(|h| (h.0, h.1, h.2) <= (pid, tid, t));
    let mut holding: Vec<&CollectiveArgs> = on_host[hi.saturating_sub(HOST_LOOKBACK)..hi]
        .iter()
        .filter(|h| h.0 == pid && h.1 == tid && h.2 <= t && t <= h.3)
        .map(|h| h.4)
        .collect();
    // Message sizes first (record_param_comms), then the innermost.
    holding
        .sort_by_key(|a| a.in_nelems.is_none() && a.out_nelems.is_none() && a.msg_bytes.is_none());
    let mut merged = (*holding.first()?).clone();
    for a in &holding[1..] {
        merged.name = merged.name.or_else(|| a.name.clone());
        merged.in_nelems = merged.in_nelems.or(a.in_nelems);
        merged.out_nelems = merged.out_nelems.or(a.out_nelems);
        merged.dtype = merged.dtype.or(a.dtype);
        merged.group_size = merged.group_size.or(a.group_size);
        merged.ranks = merged.ranks.or_else(|| a.ranks.clone());
        merged.pg_name = merged.pg_name.or_else(|| a.pg_name.clone());
        merged.pg_desc = merged.pg_desc.or_else(|| a.pg_desc.clone());
        merged.seq = merged.seq.or(a.seq);
        merged.input_elems = merged.input_elems.or(a.input_elems);
        merged.msg_bytes = merged.msg_bytes.or(a.msg_bytes);
    }
    Some(merged)
}

/// One kernel with its arguments: the kind from its `Collective name` (or
/// annotation name) when that maps, else from the kernel's name; the size
/// in `nccl-tests`' convention from the message element count × the
/// element size, or, for a kind whose buffer is the first input
/// (all-reduce, broadcast, reduce, all-to-all, send/recv), from an older
/// trace's `Input Dims`; unknown otherwise.
fn collective(
    kernel: Arc<str>,
    op: &GpuOp,
    args: Option<CollectiveArgs>,
    from: ArgsFrom,
) -> Collective {
    let kind = args
        .as_ref()
        .and_then(|a| a.name.as_deref())
        .and_then(CollKind::from_collective_name)
        .unwrap_or_else(|| CollKind::from_kernel(&kernel));
    let a = args.unwrap_or_default();
    let dtype = a.dtype;
    let (group_size, group_size_said) = group_size_of(&a);
    let count = kind
        .size_count(a.in_nelems, a.out_nelems)
        .map(|(n, field)| (n, format!("{field} {n}")))
        .or_else(|| {
            let first_input = matches!(
                kind,
                CollKind::AllReduce
                    | CollKind::Broadcast
                    | CollKind::Reduce
                    | CollKind::AllToAll
                    | CollKind::SendRecv
            );
            a.input_elems
                .filter(|_| first_input)
                .map(|n| (n, format!("input_dims {n}")))
        })
        .or_else(|| kind.group_size_count(a.in_nelems, a.out_nelems, group_size));
    let (bytes, bytes_from) = match (count, dtype) {
        (Some((n, field)), Some(d)) => match n.checked_mul(u64::from(d.bytes)) {
            Some(b) => (
                Some(b),
                Some(format!(
                    "{field} × {} ({} B) = {}",
                    d.name,
                    d.bytes,
                    si(b as f64, "B")
                )),
            ),
            None => (None, None),
        },
        _ => a
            .msg_bytes
            .and_then(|m| nccl_bytes(kind, m, group_size))
            .map_or((None, None), |(b, from)| (Some(b), Some(from))),
    };
    Collective {
        kernel,
        device: op.device,
        stream: op.stream,
        start_ns: op.start_ns,
        end_ns: op.end_ns,
        kind,
        args_from: from,
        bytes,
        bytes_from: bytes_from.map(Arc::from),
        dtype: dtype.map(|d| d.name),
        group_size,
        group_size_said,
        group_ranks: a.ranks.map(Arc::from),
        process_group: a.pg_name.map(Arc::from),
        seq: a.seq,
    }
}

/// The group's size: the length of `Process Group Ranks` when recorded
/// (the list names each rank; a `Group size` contradicting it is kept as
/// the second value, to be said), else `Group size`; a list the reader
/// may have cut leaves the size to `Group size`.
fn group_size_of(a: &CollectiveArgs) -> (Option<u32>, Option<u32>) {
    let listed = a
        .ranks
        .as_ref()
        .filter(|r| !r.is_empty() && r.len() < RANKS_KEPT)
        .and_then(|r| u32::try_from(r.len()).ok());
    match (listed, a.group_size) {
        (Some(l), Some(g)) if l != g => (Some(l), Some(g)),
        (Some(l), _) => (Some(l), None),
        (None, g) => {
            let cut = a.ranks.as_ref().filter(|r| !r.is_empty());
            (g.or_else(|| cut.map(|r| r.len() as u32)), None)
        }
    }
}

/// `nccl-tests`' size from NCCL's own `Message size [bytes]` (its NVTX
/// payload): the message itself, except for all-gather (one rank's send
/// buffer: the whole output is `n` of them) and reduce-scatter (one rank's
/// receive buffer: the whole input is `n`), which need the group's size.
fn nccl_bytes(kind: CollKind, msg: u64, n: Option<u32>) -> Option<(u64, String)> {
    match kind {
        CollKind::AllGather | CollKind::ReduceScatter => {
            let n = n?;
            let b = msg.checked_mul(u64::from(n))?;
            Some((
                b,
                format!("nccl message {msg} B × {n} ranks = {}", si(b as f64, "B")),
            ))
        }
        CollKind::Other => None,
        _ => Some((msg, format!("nccl message = {}", si(msg as f64, "B")))),
    }
}
