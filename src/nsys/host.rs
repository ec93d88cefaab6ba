//! The small host-side tables, read on the main thread before the pool:
//! StringIds (which names are sync calls, blocking copies or graph
//! launches), the memory-kind enum, the SYNCHRONIZATION table (resolved
//! against the API rows after the join, [`resolve_sync_rows`]); NVTX
//! ranges are `nvtx`'s, read beside the pool.

use super::guard::sql_err;
use super::guard::{cap_name, checked_interval, string_id};
use super::schema::Schema;
use super::sql::{col_or_null, export_year, int, SYNC};
use super::*;
use crate::timeline::join::CallIndex;
use crate::timeline::names::{
    is_blocking_copy_name, is_graph_launch_name, is_sync_name, is_wait_event_name, NameSet,
};
use rusqlite::types::ValueRef;
use rusqlite::Connection;
use std::collections::HashMap;
use std::path::Path;

/// Small host-side tables read before the pool: StringIds (and which names
/// are sync calls or graph launches), the SYNCHRONIZATION table.
#[derive(Default)]
pub(super) struct HostRead {
    /// Rows of `CUPTI_ACTIVITY_KIND_SYNCHRONIZATION`, not yet resolved.
    pub(super) sync_rows: Vec<SyncRow>,
    /// How this export codes `syncType`.
    pub(super) sync_decode: SyncDecode,
    /// Memory-kind code of pageable host memory (`ENUM_CUDA_MEM_KIND`, 0
    /// when the export has no enum table).
    pub(super) pageable_kind: i64,
    pub(super) strings: HashMap<u32, String>,
    pub(super) sync_names: NameSet,
    pub(super) blocking_names: NameSet,
    pub(super) graph_launch_names: NameSet,
    /// `cudaStreamWaitEvent`, `cuStreamWaitEvent`: evidence of a dependency.
    pub(super) wait_event_names: NameSet,
    /// OS runtime calls and profiler overhead.
    pub(super) host_spans: Vec<HostSpan>,
    pub(super) diagnostics: Vec<Diagnostic>,
}

/// A raw `CUPTI_ACTIVITY_KIND_SYNCHRONIZATION` row (the table has a process
/// but no thread: the thread comes from the call it belongs to).
#[derive(Debug, Clone, Copy)]
pub(super) struct SyncRow {
    pid: u32,
    correlation_id: u32,
    start_ns: i64,
    end_ns: i64,
    sync_type: Option<i64>,
}

/// How `syncType` is coded. Observed in the corpus (joined to the runtime
/// call by correlationId): 2023.1 writes 2 for `cudaEventQuery` and 3 for
/// `cudaStreamSynchronize`, 2024.5 writes 1 for `cudaDeviceSynchronize`
/// (the legacy 1/2/3 = device/event/stream synchronize, none a wait); from
/// 2025.5 the CUPTI enum (`ENUM_CUPTI_SYNC_TYPE`: 1 event, 2 stream wait
/// event, 3 stream, 4 context synchronize) holds, and 2026.2 adds a
/// `deprecatedSyncType` column beside it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) enum SyncDecode {
    /// Before 2025: every code is a blocking synchronize.
    #[default]
    Legacy,
    /// 2025 and later: the code of `STREAM_WAIT_EVENT` does not block.
    Cupti {
        /// `CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT`.
        wait_event: i64,
    },
}

impl SyncDecode {
    /// True when a row of this `syncType` blocked the host.
    pub(super) fn blocks(self, sync_type: Option<i64>) -> bool {
        match (self, sync_type) {
            (SyncDecode::Cupti { wait_event }, Some(t)) => t != wait_event,
            _ => true,
        }
    }
}
pub(super) fn read_host_small(
    conn: &Connection,
    path: &Path,
    schema: &Schema,
) -> Result<HostRead, NsysError> {
    let mut h = HostRead::default();
    if schema.has_table("StringIds") {
        schema.require(path, "StringIds", &["id", "value"])?;
        let err = sql_err(path, "StringIds");
        let mut st = conn
            .prepare("SELECT id, value FROM StringIds")
            .map_err(&err)?;
        let mut rows = st.query([]).map_err(&err)?;
        // A name longer than MAX_NAME_BYTES is cut, the cut noted in the
        // name itself (`cap_name`).
        let mut bad_ids = 0u64;
        while let Some(row) = rows.next().map_err(&err)? {
            if let (Some(id), Ok(ValueRef::Text(t))) = (int(row, 0), row.get_ref(1)) {
                let Some(id) = string_id(id) else {
                    bad_ids += 1;
                    continue;
                };
                h.strings.insert(id, cap_name(t));
            }
        }
        if bad_ids > 0 {
            h.diagnostics.push(Diagnostic::new(
                DiagnosticKind::BadNameIds { names: bad_ids },
                format!(
                    "StringIds: {bad_ids} names with an id outside 0..={} ignored (their users print as \"?\")",
                    super::guard::MAX_STRING_ID
                ),
            ));
        }
    }
    h.sync_names = NameSet::matching(&h.strings, is_sync_name);
    h.blocking_names = NameSet::matching(&h.strings, is_blocking_copy_name);
    h.graph_launch_names = NameSet::matching(&h.strings, is_graph_launch_name);
    h.wait_event_names = NameSet::matching(&h.strings, is_wait_event_name);
    for (table, kind) in [
        ("OSRT_API", HostSpanKind::OsRuntime),
        ("PROFILER_OVERHEAD", HostSpanKind::ProfilerOverhead),
    ] {
        if schema.has_table(table) {
            read_host_spans(conn, path, schema, table, kind, &mut h.host_spans)?;
        }
    }
    h.host_spans.sort_unstable();
    h.pageable_kind = enum_code(conn, schema, "ENUM_CUDA_MEM_KIND", "PAGEABLE").unwrap_or(0);
    if schema.has_table(SYNC) {
        read_sync_rows(conn, path, schema, &mut h)?;
    }

    Ok(h)
}

/// The code of the `ENUM_*` row whose name ends with `_{suffix}`, when the
/// export has the enum table (2023 and later).
fn enum_code(conn: &Connection, schema: &Schema, table: &str, suffix: &str) -> Option<i64> {
    if !(schema.has_column(table, "id") && schema.has_column(table, "name")) {
        return None;
    }
    conn.query_row(
        &format!("SELECT id FROM \"{table}\" WHERE name LIKE ?1 LIMIT 1"),
        [format!("%_{suffix}")],
        |r| r.get::<_, i64>(0),
    )
    .ok()
}

/// Reads the SYNCHRONIZATION rows raw and decides how their `syncType` is
/// coded ([`SyncDecode`], from the export version and columns).
fn read_sync_rows(
    conn: &Connection,
    path: &Path,
    schema: &Schema,
    h: &mut HostRead,
) -> Result<(), NsysError> {
    schema.require(path, SYNC, &["start", "end"])?;
    let year = export_year(conn, schema);
    h.sync_decode = if schema.has_column(SYNC, "deprecatedSyncType") || year >= Some(2025) {
        SyncDecode::Cupti {
            wait_event: enum_code(conn, schema, "ENUM_CUPTI_SYNC_TYPE", "STREAM_WAIT_EVENT")
                .unwrap_or(2),
        }
    } else {
        SyncDecode::Legacy
    };
    let sql = format!(
        "SELECT start, \"end\", {}, {}, {} FROM \"{SYNC}\"",
        col_or_null(schema, SYNC, "globalPid"),
        col_or_null(schema, SYNC, "correlationId"),
        col_or_null(schema, SYNC, "syncType"),
    );
    let err = sql_err(path, SYNC);
    let mut st = conn.prepare(&sql).map_err(&err)?;
    let mut rows = st.query([]).map_err(&err)?;
    let mut bad = 0u64;
    while let Some(row) = rows.next().map_err(&err)? {
        let times = int(row, 0).zip(int(row, 1));
        let times = times.and_then(|(s, e)| checked_interval(s, e.max(s)));
        let corr = u32::try_from(int(row, 3).unwrap_or(0));
        let (Some((start, end)), Ok(correlation_id)) = (times, corr) else {
            bad += 1;
            continue;
        };
        h.sync_rows.push(SyncRow {
            pid: int(row, 2).map(pid_of).unwrap_or(0),
            correlation_id,
            start_ns: start,
            end_ns: end,
            sync_type: int(row, 4),
        });
    }
    if bad > 0 {
        h.diagnostics.push(Diagnostic::new(
            DiagnosticKind::SkippedRows {
                table: SYNC,
                rows: bad,
            },
            format!("{SYNC}: skipped {bad} rows with a NULL start/end, a time beyond ±2^61 ns or an id beyond 32 bits"),
        ));
    }
    Ok(())
}

/// Turns the SYNCHRONIZATION rows into syncs. A row whose call is in the API
/// tables takes its meaning from the call's name: a `*Synchronize` or
/// blocking copy is already a sync (with its thread), a query
/// (`cudaEventQuery`, which nsys records as an event synchronisation) or
/// `cudaStreamWaitEvent` never blocks. Only rows without their call are
/// kept, thread unknown ([`NO_TID`]), when their `syncType` blocks: what a
/// code means is learnt from the export itself — the rows of that code
/// whose call is present say whether it is a synchronize (a sync call) or
/// not (any other call), the majority deciding — and only a code with no
/// such row falls back to the per-version table ([`SyncDecode`]). `api` is
/// sorted by (pid, correlation id), `calls` its index; `runtime` holds the
/// syncs read from the API tables.
pub(super) fn resolve_sync_rows(
    rows: &[SyncRow],
    decode: SyncDecode,
    (api, calls): (&[ApiCall], &CallIndex),
    runtime: &[SyncCall],
) -> Vec<SyncCall> {
    let mut known: Vec<(u32, u32)> = runtime.iter().map(|s| (s.pid, s.correlation_id)).collect();
    known.sort_unstable();
    // Per row: Some(true) joined to a sync call, Some(false) joined to
    // another call, None without its call. Looked up once per row (a real
    // export grown to 5 M kernels has 354 k rows against 8.4 M calls).
    let joined: Vec<Option<bool>> = rows
        .iter()
        .map(|r| {
            let key = (r.pid, r.correlation_id);
            if r.correlation_id == 0 {
                None
            } else if known.binary_search(&key).is_ok() {
                Some(true)
            } else if calls.find(api, r.pid, r.correlation_id) != NO_API {
                Some(false)
            } else {
                None
            }
        })
        .collect();
    let learnt = learn_sync_codes(rows.iter().zip(&joined).map(|(r, j)| (r.sync_type, *j)));
    rows.iter()
        .zip(&joined)
        .filter(|(r, j)| {
            j.is_none()
                && learnt
                    .iter()
                    .find(|c| c.0 == r.sync_type)
                    .map_or_else(|| decode.blocks(r.sync_type), |c| c.1 > c.2)
        })
        .map(|(r, _)| SyncCall {
            pid: r.pid,
            tid: NO_TID,
            start_ns: r.start_ns,
            end_ns: r.end_ns,
            correlation_id: r.correlation_id,
            pageable: false,
            name: NameRef::UNKNOWN,
        })
        .collect()
}

/// What the export says each `syncType` code means, from its rows whose
/// call is present: (code, rows joined to a sync call, rows joined to
/// another call), for the codes with at least one such row.
fn learn_sync_codes(
    rows: impl Iterator<Item = (Option<i64>, Option<bool>)>,
) -> Vec<(Option<i64>, u64, u64)> {
    let mut codes: Vec<(Option<i64>, u64, u64)> = Vec::new();
    for (code, joined) in rows {
        let Some(is_sync) = joined else { continue };
        let i = match codes.iter().position(|c| c.0 == code) {
            Some(i) => i,
            None => {
                codes.push((code, 0, 0));
                codes.len() - 1
            }
        };
        if is_sync {
            codes[i].1 += 1;
        } else {
            codes[i].2 += 1;
        }
    }
    codes
}

/// Reads an OS-runtime or profiler-overhead table (`start`, `end`,
/// `globalTid`, `nameId`); nested OS runtime rows (`nestingLevel` > 0) are
/// left out, their outer call covers them.
fn read_host_spans(
    conn: &Connection,
    path: &Path,
    schema: &Schema,
    table: &str,
    kind: HostSpanKind,
    out: &mut Vec<HostSpan>,
) -> Result<(), NsysError> {
    if !["start", "end", "globalTid"]
        .iter()
        .all(|c| schema.has_column(table, c))
    {
        return Ok(()); // an old layout: no thread, nothing to attribute
    }
    let outer = if schema.has_column(table, "nestingLevel") {
        "WHERE coalesce(nestingLevel, 0) = 0"
    } else {
        ""
    };
    let sql = format!(
        "SELECT start, \"end\", globalTid, {} FROM \"{table}\" {outer}",
        col_or_null(schema, table, "nameId")
    );
    let err = sql_err(path, table);
    let mut st = conn.prepare(&sql).map_err(&err)?;
    let mut rows = st.query([]).map_err(&err)?;
    while let Some(row) = rows.next().map_err(&err)? {
        let times = int(row, 0).zip(int(row, 1));
        let (Some((start, end)), Some(gtid)) = (
            times.and_then(|(s, e)| checked_interval(s, e.max(s))),
            int(row, 2),
        ) else {
            continue; // no thread or no usable time: nothing to attribute
        };
        out.push(HostSpan {
            pid: pid_of(gtid),
            tid: tid_of(gtid),
            start_ns: start,
            end_ns: end,
            kind,
            name: int(row, 3)
                .and_then(string_id)
                .map_or(NameRef::UNKNOWN, NameRef),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(code: i64, correlation_id: u32) -> SyncRow {
        SyncRow {
            pid: 1,
            correlation_id,
            start_ns: 100,
            end_ns: 200,
            sync_type: Some(code),
        }
    }

    fn call(correlation_id: u32) -> ApiCall {
        ApiCall {
            start_ns: 90,
            end_ns: 210,
            pid: 1,
            tid: 1,
            correlation_id,
            name: NameRef(0),
        }
    }

    #[test]
    fn a_sync_type_means_what_the_export_joins_it_to() {
        let sync = SyncCall {
            pid: 1,
            tid: 1,
            start_ns: 90,
            end_ns: 210,
            correlation_id: 1,
            pageable: false,
            name: NameRef(0),
        };
        // Code 2 joins to a sync call (corr 1: `cudaStreamSynchronize`, as
        // in the 2025.1.1 and 2025.5.2 exports), code 1 to another call
        // (corr 2: `cudaEventQuery`, as 2 does in 2023.1.2); rows 3 and 4
        // have no call. The CUPTI table would call 2 a stream-wait-event
        // (not blocking): the join says it blocks, so row 3 is kept; row 4
        // (code 1) does not block. A code no joined row explains (5) falls
        // back to the table (CUPTI: every code but 2 blocks).
        let rows = [row(2, 1), row(1, 2), row(2, 3), row(1, 4), row(5, 0)];
        let api = [call(2)];
        let cupti = SyncDecode::Cupti { wait_event: 2 };
        let kept: Vec<u32> =
            resolve_sync_rows(&rows, cupti, (&api, &CallIndex::new(&api)), &[sync])
                .iter()
                .map(|s| s.correlation_id)
                .collect();
        assert_eq!(kept, vec![3, 0]);
        // The legacy table calls every code blocking; the join still says
        // code 1 is a query.
        let kept: Vec<u32> = resolve_sync_rows(
            &rows,
            SyncDecode::Legacy,
            (&api, &CallIndex::new(&api)),
            &[sync],
        )
        .iter()
        .map(|s| s.correlation_id)
        .collect();
        assert_eq!(kept, vec![3, 0]);
    }
}
