//! NCCL's own NVTX ranges in an export → the collectives' arguments
//! (`Timeline::collectives`), so `rooftrace comm` has sizes for an nsys
//! export as for a PyTorch trace.
//!
//! NCCL (2.19 and later) wraps each API call in a push/pop range of its
//! domain `NCCL` named after the function (`ncclAllReduce`, `ncclSend`,
//! `ncclGroupEnd`; RCCL's `…_impl`), with an extended payload whose schema
//! it registers (NCCL `src/include/nvtx_payload_schemas.h`): the
//! communicator's hash (`NCCL communicator ID`, u64), `Message size
//! [bytes]` (size_t: `count × type size` for all-reduce, broadcast, reduce
//! and send/recv; the send buffer for all-gather, the receive buffer for
//! reduce-scatter) and, on the communicator's creation, `No. of ranks` and
//! `Rank`. nsys writes the schemas to `NVTX_PAYLOAD_SCHEMA_ENTRIES` (entry
//! name, type, offset: read from the table, never assumed) and each
//! range's payload to `NVTX_EVENTS.binaryData` when exported with blobs.
//!
//! The blob's layout is not in NVIDIA's export documentation; it is read
//! as a 32-byte header (u64 domain id, u64 schema id, u64 payload size,
//! u64) then the payload, and only when the header agrees with the range
//! (its domain), the schema tables (a registered schema id, its payload
//! size) and the blob's length; any other blob leaves that range time only,
//! counted in a diagnostic.
//!
//! The join: a kernel launched inside an NCCL range on the same thread is
//! that call's (`CollectiveSite::Host`). Calls between `ncclGroupStart` and
//! `ncclGroupEnd` launch at the outermost `ncclGroupEnd`: its range carries
//! the group's merged arguments (one kind: the messages summed; sends and
//! receives: the bytes sent).

use super::schema::Schema;
use super::sql::{int, meta_value, NVTX};
use super::NsysError;
use crate::timeline::comm::{CollectiveArgs, CollectiveRecord, CollectiveSite};
use crate::timeline::limits::cap_name;
use crate::timeline::{Diagnostic, DiagnosticKind};
use rusqlite::types::ValueRef;
use rusqlite::Connection;
use std::collections::{HashMap, HashSet};
use std::path::Path;

const ENTRIES: &str = "NVTX_PAYLOAD_SCHEMA_ENTRIES";
const SCHEMAS: &str = "NVTX_PAYLOAD_SCHEMAS";
/// The blob header: domain, schema, payload size, one more u64.
const HEADER: usize = 32;
/// Payloads longer than this are not NCCL's (its largest is 40 bytes).
const MAX_BLOB: usize = 4096;
/// Schema entries read at most (an export registers tens; a hostile one
/// could hold millions).
const MAX_ENTRIES: usize = 1 << 16;

/// Entry names of NCCL's payload schemas.
const COMM: &str = "NCCL communicator ID";
const MSG: &str = "Message size [bytes]";
const NRANKS: &str = "No. of ranks";

/// What one NCCL call is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Call {
    /// A collective or point-to-point call, by the name `comm` maps.
    Op(&'static str),
    GroupStart,
    GroupEnd,
    /// Creating a communicator (its payload has the rank count).
    Init,
}

/// The call an NCCL range names (`ncclAllReduce`, RCCL's
/// `ncclAllReduce_impl`), `None` for other text.
fn call_of(text: &str) -> Option<Call> {
    let f = text.strip_prefix("nccl")?;
    let f = f.strip_suffix("_impl").unwrap_or(f);
    Some(match f {
        "AllReduce" => Call::Op("allreduce"),
        "AllGather" => Call::Op("allgather"),
        "ReduceScatter" => Call::Op("reducescatter"),
        "Broadcast" | "Bcast" => Call::Op("broadcast"),
        "Reduce" => Call::Op("reduce"),
        "AlltoAll" => Call::Op("alltoall"),
        "Send" => Call::Op("send"),
        "Recv" => Call::Op("recv"),
        "GroupStart" => Call::GroupStart,
        "GroupEnd" => Call::GroupEnd,
        f if f.starts_with("CommInit") || f.starts_with("CommSplit") => Call::Init,
        _ => return None,
    })
}

/// One entry of a registered schema: its name, byte offset and width.
#[derive(Debug, Clone)]
struct Entry {
    name: String,
    offset: usize,
    width: usize,
}

/// A registered schema: its entries and declared payload size.
#[derive(Debug, Clone, Default)]
struct PayloadSchema {
    entries: Vec<Entry>,
    payload_size: Option<usize>,
}

/// Width of an NVTX payload entry type (`nvToolsExtPayload.h`: INT 5,
/// UINT 6, INT32 15, UINT32 16 are 4 bytes; LONG 7, ULONG 8, LONGLONG 9,
/// ULONGLONG 10, INT64 17, UINT64 18, SIZE 22, ADDRESS 23 are 8 on LP64;
/// an enum schema id (≥ 2^24, NCCL's reduction operation) is an int).
fn width(ty: i64) -> Option<usize> {
    match ty {
        5 | 6 | 15 | 16 => Some(4),
        7..=10 | 17 | 18 | 22 | 23 => Some(8),
        t if t >= 1 << 24 => Some(4),
        _ => None,
    }
}

/// The registered schemas by (domain, schema id), from the export.
fn read_schemas(
    conn: &Connection,
    path: &Path,
    schema: &Schema,
) -> Result<HashMap<(i64, i64), PayloadSchema>, NsysError> {
    let mut out: HashMap<(i64, i64), PayloadSchema> = HashMap::new();
    let need = ["domainId", "schemaId", "idx", "type", "name", "offset"];
    if !need.iter().all(|c| schema.has_column(ENTRIES, c)) {
        return Ok(out);
    }
    let err = super::guard::sql_err(path, ENTRIES);
    let sql = format!(
        "SELECT DISTINCT domainId, schemaId, idx, type, name, \"offset\" FROM {ENTRIES} ORDER BY 1, 2, 3"
    );
    let mut st = conn.prepare(&sql).map_err(&err)?;
    let mut rows = st.query([]).map_err(&err)?;
    let mut seen: HashSet<(i64, i64, i64)> = HashSet::new();
    while let Some(row) = rows.next().map_err(&err)? {
        let (Some(d), Some(s), Some(i), Some(ty)) =
            (int(row, 0), int(row, 1), int(row, 2), int(row, 3))
        else {
            continue;
        };
        let Ok(ValueRef::Text(name)) = row.get_ref(4) else {
            continue;
        };
        if seen.len() >= MAX_ENTRIES {
            break;
        }
        if !seen.insert((d, s, i)) {
            continue;
        }
        let sch = out.entry((d, s)).or_default();
        let w = width(ty);
        // An unwritten offset is the natural one: after the previous
        // entry, aligned to this entry's width.
        let implicit = sch.entries.last().map_or(0, |e| {
            let end = e.offset + e.width;
            let a = w.unwrap_or(1);
            end.div_ceil(a) * a
        });
        let offset = int(row, 5)
            .and_then(|o| usize::try_from(o).ok())
            .unwrap_or(implicit);
        sch.entries.push(Entry {
            name: cap_name(name),
            offset,
            width: w.unwrap_or(0),
        });
    }
    if schema.has_column(SCHEMAS, "payloadSize") && schema.has_column(SCHEMAS, "schemaId") {
        let err = super::guard::sql_err(path, SCHEMAS);
        let mut st = conn
            .prepare(&format!(
                "SELECT DISTINCT domainId, schemaId, payloadSize FROM {SCHEMAS}"
            ))
            .map_err(&err)?;
        let mut rows = st.query([]).map_err(&err)?;
        while let Some(row) = rows.next().map_err(&err)? {
            if let (Some(d), Some(s), Some(n)) = (int(row, 0), int(row, 1), int(row, 2)) {
                if let Some(sch) = out.get_mut(&(d, s)) {
                    sch.payload_size = usize::try_from(n).ok();
                }
            }
        }
    }
    Ok(out)
}

fn u64_at(b: &[u8], at: usize, width: usize) -> Option<u64> {
    let s = b.get(at..at.checked_add(width)?)?;
    Some(match width {
        4 => u64::from(u32::from_le_bytes(s.try_into().ok()?)),
        8 => u64::from_le_bytes(s.try_into().ok()?),
        _ => return None,
    })
}

/// The payload values of one range's blob by entry name, `None` when the
/// blob does not agree with its header, its domain and the schema tables.
fn decode(
    blob: &[u8],
    domain: i64,
    schemas: &HashMap<(i64, i64), PayloadSchema>,
) -> Option<HashMap<String, u64>> {
    let sid = i64::try_from(u64_at(blob, 8, 8)?).ok()?;
    let size = usize::try_from(u64_at(blob, 16, 8)?).ok()?;
    let sch = schemas.get(&(domain, sid))?;
    let fits = u64_at(blob, 0, 8)? == domain as u64
        && blob.len() == HEADER.checked_add(size)?
        && sch.payload_size.is_none_or(|p| p == size);
    if !fits {
        return None;
    }
    let payload = &blob[HEADER..];
    sch.entries
        .iter()
        .filter(|e| e.width > 0)
        .map(|e| u64_at(payload, e.offset, e.width).map(|v| (e.name.clone(), v)))
        .collect()
}

/// One NCCL range of the export.
#[derive(Debug, Clone)]
struct Range {
    tid_global: i64,
    start: i64,
    end: i64,
    call: Call,
    values: Option<HashMap<String, u64>>,
}

/// What the export says about NCCL's calls.
#[derive(Debug, Default)]
pub(super) struct NcclRead {
    /// One record per call or group that can launch a kernel.
    pub records: Vec<CollectiveRecord>,
    /// Ranges read without their payload, said once.
    pub diagnostics: Vec<Diagnostic>,
}

/// Reads NCCL's ranges and their payloads: the rows at `rowids`, which the
/// scan of `NVTX_EVENTS` (`nvtx`) found in a domain other than 0 with a
/// text starting `nccl` (nothing to read when it found none).
pub(super) fn read_nccl(
    conn: &Connection,
    path: &Path,
    schema: &Schema,
    strings: &HashMap<u32, String>,
    rowids: &[i64],
) -> Result<NcclRead, NsysError> {
    if rowids.is_empty()
        || !schema.has_column(NVTX, "domainId")
        || !schema.has_column(NVTX, "globalTid")
    {
        return Ok(NcclRead::default());
    }
    let schemas = read_schemas(conn, path, schema)?;
    let col = |c: &str| {
        if schema.has_column(NVTX, c) {
            format!("\"{c}\"")
        } else {
            "NULL".to_string()
        }
    };
    let sql = format!(
        "SELECT start, \"end\", globalTid, {}, {}, domainId, {} FROM {NVTX}
         WHERE rowid = ?1 AND \"end\" IS NOT NULL AND domainId IS NOT NULL AND domainId != 0",
        col("text"),
        col("textId"),
        col("binaryData"),
    );
    let err = super::guard::sql_err(path, NVTX);
    let mut st = conn.prepare(&sql).map_err(&err)?;
    let mut ranges = Vec::new();
    let (mut undecoded, mut without) = (0u64, 0u64);
    for &rowid in rowids {
        let mut rows = st.query([rowid]).map_err(&err)?;
        let Some(row) = rows.next().map_err(&err)? else {
            continue;
        };
        let text = match row.get_ref(3) {
            Ok(ValueRef::Text(t)) => Some(cap_name(t)),
            _ => int(row, 4)
                .and_then(|i| u32::try_from(i).ok())
                .and_then(|i| strings.get(&i).cloned()),
        };
        let Some(call) = text.as_deref().and_then(call_of) else {
            continue;
        };
        let (Some(start), Some(end), Some(gtid), Some(domain)) =
            (int(row, 0), int(row, 1), int(row, 2), int(row, 5))
        else {
            continue;
        };
        let values = match row.get_ref(6) {
            Ok(ValueRef::Blob(b)) if b.len() <= MAX_BLOB => {
                let v = decode(b, domain, &schemas);
                undecoded += u64::from(v.is_none());
                v
            }
            Ok(ValueRef::Blob(_)) => {
                undecoded += 1;
                None
            }
            _ => {
                without += u64::from(matches!(call, Call::Op(_)));
                None
            }
        };
        ranges.push(Range {
            tid_global: gtid,
            start,
            end: end.max(start),
            call,
            values,
        });
    }
    ranges.sort_by_key(|r| (r.tid_global, r.start, std::cmp::Reverse(r.end)));
    let mut out = NcclRead {
        records: records(&ranges),
        diagnostics: Vec::new(),
    };
    if without > 0 {
        let blobs = meta_value(conn, schema, "EXPORT_PARAM_INCLUDE_BLOBS");
        let why = match blobs.as_deref() {
            Some("false") => " (META_DATA_EXPORT: EXPORT_PARAM_INCLUDE_BLOBS=false): export again with blobs included (`nsys export --type=sqlite --include-blobs=true`)".to_string(),
            _ => ": export again with a current `nsys export --type=sqlite` that includes NVTX payloads".to_string(),
        };
        out.diagnostics.push(Diagnostic::new(
            DiagnosticKind::NcclPayloads { ranges: without },
            format!("{without} NCCL calls' NVTX ranges carry no payload in the export, so their message sizes are unknown{why}"),
        ));
    }
    if undecoded > 0 {
        out.diagnostics.push(Diagnostic::new(
            DiagnosticKind::NcclPayloads { ranges: undecoded },
            format!("{undecoded} NCCL calls' NVTX payloads do not match the export's payload schemas (NVTX_PAYLOAD_SCHEMAS, NVTX_PAYLOAD_SCHEMA_ENTRIES) and were left unread: their sizes are unknown"),
        ));
    }
    Ok(out)
}

/// The arguments one NCCL call's payload gives.
fn args_of(r: &Range, name: &str, nranks: &HashMap<u64, u32>) -> CollectiveArgs {
    let v = r.values.as_ref();
    let comm = v.and_then(|v| v.get(COMM)).copied();
    CollectiveArgs {
        name: Some(name.to_string()),
        msg_bytes: v.and_then(|v| v.get(MSG)).copied(),
        group_size: comm.and_then(|c| nranks.get(&c)).copied(),
        pg_name: comm.map(|c| format!("nccl:{c:016x}")),
        ..CollectiveArgs::default()
    }
}

/// The merged arguments of a group's calls: one kind, the messages summed;
/// sends and receives (a point-to-point group), the bytes sent (received
/// when it only receives); a sum with an unknown part is unknown.
fn merge(members: &[CollectiveArgs]) -> Option<CollectiveArgs> {
    let first = members.first()?;
    let p2p = |a: &CollectiveArgs| matches!(a.name.as_deref(), Some("send" | "recv"));
    let mut out = first.clone();
    if members.iter().all(p2p) {
        let sends: Vec<&CollectiveArgs> = members
            .iter()
            .filter(|a| a.name.as_deref() == Some("send"))
            .collect();
        let counted: Vec<&CollectiveArgs> = if sends.is_empty() {
            members.iter().collect()
        } else {
            sends
        };
        out.name = Some("send".into());
        out.msg_bytes = counted.iter().map(|a| a.msg_bytes).sum();
    } else if members.iter().all(|a| a.name == first.name) {
        out.msg_bytes = members.iter().map(|a| a.msg_bytes).sum();
    } else {
        // Mixed kinds in one launch: time only.
        out.name = None;
        out.msg_bytes = None;
    }
    if members.iter().any(|a| a.pg_name != first.pg_name) {
        out.pg_name = None;
        out.group_size = None;
    }
    Some(out)
}

/// One record per call outside a group, one per outermost group (at its
/// `ncclGroupEnd`, where NCCL launches the group's kernels).
fn records(ranges: &[Range]) -> Vec<CollectiveRecord> {
    let mut nranks: HashMap<u64, u32> = HashMap::new();
    for r in ranges.iter().filter(|r| r.call == Call::Init) {
        let v = r.values.as_ref();
        if let (Some(c), Some(n)) = (v.and_then(|v| v.get(COMM)), v.and_then(|v| v.get(NRANKS))) {
            nranks.insert(*c, u32::try_from(*n).unwrap_or(0));
        }
    }
    let site = |r: &Range| CollectiveSite::Host {
        pid: super::pid_of(r.tid_global),
        tid: super::tid_of(r.tid_global),
        start_ns: r.start,
        end_ns: r.end,
    };
    let mut out = Vec::new();
    for thread in ranges.chunk_by(|a, b| a.tid_global == b.tid_global) {
        let mut depth = 0u32;
        let mut members: Vec<CollectiveArgs> = Vec::new();
        for r in thread {
            match r.call {
                Call::GroupStart => depth += 1,
                Call::GroupEnd if depth > 0 => {
                    depth -= 1;
                    if depth == 0 {
                        if let Some(args) = merge(&members) {
                            out.push(CollectiveRecord {
                                site: site(r),
                                args,
                            });
                        }
                        members.clear();
                    }
                }
                Call::Op(name) if depth > 0 => members.push(args_of(r, name, &nranks)),
                Call::Op(name) => out.push(CollectiveRecord {
                    site: site(r),
                    args: args_of(r, name, &nranks),
                }),
                Call::GroupEnd | Call::Init => {}
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_function_name_maps_to_its_call_and_others_to_none() {
        assert_eq!(call_of("ncclAllReduce"), Some(Call::Op("allreduce")));
        assert_eq!(call_of("ncclAllGather_impl"), Some(Call::Op("allgather")));
        assert_eq!(call_of("ncclGroupEnd"), Some(Call::GroupEnd));
        assert_eq!(call_of("ncclCommInitRankConfig"), Some(Call::Init));
        assert_eq!(call_of("ncclCommCount"), None);
        assert_eq!(call_of("aten::mm"), None);
    }

    #[test]
    fn a_blob_is_read_only_when_its_header_agrees_with_the_schema() {
        // Schema 16777223 of domain 1: u64 comm at 0, size at 8, int at 16
        // (NCCL's AllReduce payload, 24 bytes).
        let mut schemas = HashMap::new();
        let e = |name: &str, offset, width| Entry {
            name: name.into(),
            offset,
            width,
        };
        schemas.insert(
            (1, 16_777_223),
            PayloadSchema {
                entries: vec![e(COMM, 0, 8), e(MSG, 8, 8), e("Reduction operation", 16, 4)],
                payload_size: Some(24),
            },
        );
        let blob = |dom: u64, sid: u64, size: u64, payload_len: usize| {
            let mut b = Vec::new();
            for v in [dom, sid, size, 32 + size] {
                b.extend_from_slice(&v.to_le_bytes());
            }
            let mut p = vec![0u8; payload_len];
            p[..8].copy_from_slice(&0xabcu64.to_le_bytes());
            p[8..16].copy_from_slice(&4096u64.to_le_bytes());
            b.extend_from_slice(&p);
            b
        };
        let v = decode(&blob(1, 16_777_223, 24, 24), 1, &schemas).unwrap();
        assert_eq!(v[COMM], 0xabc);
        assert_eq!(v[MSG], 4096);
        // Another domain, an unregistered schema, a size the schema does
        // not declare, a blob cut short: unread.
        assert!(decode(&blob(1, 16_777_223, 24, 24), 2, &schemas).is_none());
        assert!(decode(&blob(1, 16_777_224, 24, 24), 1, &schemas).is_none());
        assert!(decode(&blob(1, 16_777_223, 16, 16), 1, &schemas).is_none());
        assert!(decode(&blob(1, 16_777_223, 24, 20), 1, &schemas).is_none());
    }
}
