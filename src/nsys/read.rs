//! Reading an export into a [`Timeline`], by phase: open with every defence
//! ([`super::guard`]) and probe the schema (here), the small host tables on this thread
//! ([`super::host`]), the big activity and API tables in parallel rowid
//! chunks (`chunks`), then the sorts and the launch join in Rust
//! (`join`). Names stay `StringIds` ids until displayed.

use super::chunks::read_big_tables;
use super::guard::Deadline;
use super::host::{read_host_small, resolve_sync_rows};
use super::join::sort_and_join;
use super::schema::Schema;
use super::*;
use rusqlite::types::ValueRef;
use rusqlite::{Connection, Row};
use std::path::Path;

/// Progress callback: `(rows read so far, rows expected)`, called from the
/// reading threads every few thousand rows.
pub type ReadProgress<'a> = &'a (dyn Fn(u64, u64) + Sync);

const KERNEL: &str = "CUPTI_ACTIVITY_KIND_KERNEL";
const MEMCPY: &str = "CUPTI_ACTIVITY_KIND_MEMCPY";
const MEMSET: &str = "CUPTI_ACTIVITY_KIND_MEMSET";
const GRAPH: &str = "CUPTI_ACTIVITY_KIND_GRAPH_TRACE";
const RUNTIME: &str = "CUPTI_ACTIVITY_KIND_RUNTIME";
const DRIVER: &str = "CUPTI_ACTIVITY_KIND_DRIVER";
pub(super) const SYNC: &str = "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION";
pub(super) const NVTX: &str = "NVTX_EVENTS";
pub(super) const PROGRESS_EVERY: u64 = 1 << 16;

/// Opens `path` read-only and immutable (SQLite writes nothing, not even a
/// journal), probes its schema and reads it. NVTX ranges are loaded whenever
/// the export has them (they say what a launching thread was doing);
/// `want_nvtx` only adds a diagnostic when it has none. Phases: the schema and the tables to read, the small host
/// tables, the big tables in parallel (`chunks`), then the sort and
/// the launch join (`join`).
pub fn read_timeline(
    path: &Path,
    want_nvtx: bool,
    progress: ReadProgress,
) -> Result<Timeline, NsysError> {
    let deadline = Deadline::for_file(path);
    let conn = open(path, deadline)?;
    let schema = Schema::probe(&conn, path)?;
    if !schema.is_nsys() {
        return Err(NsysError::NotNsysExport {
            path: path.to_path_buf(),
        });
    }
    let (op_tables, api_tables) = tables_to_read(&schema, path)?;
    let host = read_host_small(&conn, path, &schema, want_nvtx)?;
    let rows = read_big_tables(
        &conn,
        path,
        &schema,
        (&op_tables, &api_tables),
        &host,
        progress,
        deadline,
    )?;
    if rows.ops.is_empty() {
        return Err(NsysError::NoGpuActivity {
            path: path.to_path_buf(),
        });
    }
    let info = ExportInfo {
        nsys_version: meta_value(&conn, &schema, "EXPORT_PRODUCT_VERSION"),
        flavor: schema.flavor(),
        graph_trace_option: capture_value(&conn, &schema, "CUDA_GRAPH_TRACE_OPTIONS:MODE"),
        identity: super::identity::read_identity(&conn, &schema),
    };
    let mut diagnostics = rows.diagnostics;
    diagnostics.extend(host.diagnostics.iter().cloned());
    let joined = sort_and_join(rows.ops, rows.api, rows.graph_rows, &host);
    diagnostics.extend(joined.diagnostics);
    let mut syncs = rows.syncs;
    mark_pageable_syncs(&mut syncs, &joined.ops, &joined.api);
    let table_syncs = resolve_sync_rows(&host.sync_rows, host.sync_decode, &joined.api, &syncs);
    syncs.extend(table_syncs);
    syncs.sort_unstable();
    let mut waits: Vec<(u32, i64)> = joined
        .api
        .iter()
        .filter(|a| host.wait_event_names.contains(&a.name.0))
        .map(|a| (a.pid, a.start_ns))
        .collect();
    waits.sort_unstable();
    let copies = super::copies::read_copy_totals(&conn, path, &schema, host.pageable_kind)?;
    let mut nvtx = host.nvtx;
    nvtx.sort_by_key(|r| (r.pid, r.start_ns, r.end_ns));
    Ok(Timeline {
        info,
        ops: joined.ops,
        api: joined.api,
        syncs,
        waits,
        host_spans: host.host_spans,
        nvtx,
        copies,
        graph_trace: joined.graph_trace,
        graph_launches: joined.graph_launches,
        nested_api_rows: joined.nested_api_rows,
        diagnostics,
        strings: host.strings,
        blocking_names: host.blocking_names,
        comm_names: host.comm_names,
        alloc_names: host.alloc_names,
    })
}

/// Marks the blocking copies that moved pageable memory: the syncs whose
/// (pid, correlation id) launched a pageable memcpy.
fn mark_pageable_syncs(syncs: &mut [SyncCall], ops: &[GpuOp], api: &[ApiCall]) {
    let mut pageable: Vec<(u32, u32)> = ops
        .iter()
        .filter(|o| o.is_pageable() && o.api != NO_API)
        .map(|o| (o.pid, api[o.api as usize].correlation_id))
        .collect();
    if pageable.is_empty() {
        return;
    }
    pageable.sort_unstable();
    for s in syncs.iter_mut() {
        s.pageable = pageable.binary_search(&(s.pid, s.correlation_id)).is_ok();
    }
}

/// The year of the nsys release that wrote the export
/// (`EXPORT_PRODUCT_VERSION` `2024.5.1.113` → 2024), when recorded.
pub(super) fn export_year(conn: &Connection, schema: &Schema) -> Option<u32> {
    meta_value(conn, schema, "EXPORT_PRODUCT_VERSION")?
        .split('.')
        .next()?
        .parse()
        .ok()
}

/// GPU activity tables with their op kind, and API tables.
type Tables = (Vec<(&'static str, OpKind)>, Vec<&'static str>);

/// The GPU activity tables (with their op kind) and API tables present,
/// each checked for the columns the reader needs.
fn tables_to_read(schema: &Schema, path: &Path) -> Result<Tables, NsysError> {
    let op_tables: Vec<(&str, OpKind)> = [
        (KERNEL, OpKind::Kernel),
        (MEMCPY, OpKind::Memcpy),
        (MEMSET, OpKind::Memset),
        (GRAPH, OpKind::Graph),
    ]
    .into_iter()
    .filter(|(t, _)| schema.has_table(t))
    .collect();
    for (t, _) in &op_tables {
        schema.require(path, t, &["start", "end", "deviceId", "streamId"])?;
    }
    let api_tables: Vec<&str> = [RUNTIME, DRIVER]
        .into_iter()
        .filter(|t| schema.has_table(t))
        .collect();
    for t in &api_tables {
        schema.require(path, t, &["start", "end", "correlationId", "nameId"])?;
    }
    Ok((op_tables, api_tables))
}

pub(super) use super::guard::{open, sql_err};

/// An integer cell, `None` for NULL (and for non-integer values).
pub(super) fn int(row: &Row, i: usize) -> Option<i64> {
    match row.get_ref(i) {
        Ok(ValueRef::Integer(v)) => Some(v),
        Ok(ValueRef::Real(v)) => Some(v as i64),
        _ => None,
    }
}

/// A text cell cut to [`super::guard::MAX_NAME_BYTES`]; `None` unless text.
fn text_capped(r: &Row) -> rusqlite::Result<Option<String>> {
    Ok(match r.get_ref(0)? {
        ValueRef::Text(t) => Some(super::guard::cap_name(t)),
        _ => None,
    })
}

fn meta_value(conn: &Connection, schema: &Schema, name: &str) -> Option<String> {
    let table = ["META_DATA_EXPORT", "EXPORT_META_DATA"]
        .into_iter()
        .find(|t| schema.has_column(t, "name") && schema.has_column(t, "value"))?;
    conn.query_row(
        &format!("SELECT value FROM {table} WHERE name = ?1"),
        [name],
        text_capped,
    )
    .ok()
    .flatten()
}

fn capture_value(conn: &Connection, schema: &Schema, name: &str) -> Option<String> {
    if !(schema.has_column("META_DATA_CAPTURE", "name")
        && schema.has_column("META_DATA_CAPTURE", "value"))
    {
        return None;
    }
    conn.query_row(
        "SELECT value FROM META_DATA_CAPTURE WHERE name = ?1",
        [name],
        text_capped,
    )
    .ok()
    .flatten()
}

/// The column quoted, or `NULL` when the table lacks it.
pub(super) fn col_or_null(schema: &Schema, table: &str, col: &str) -> String {
    if schema.has_column(table, col) {
        format!("\"{col}\"")
    } else {
        "NULL".to_string()
    }
}
