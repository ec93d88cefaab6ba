//! Reading an export into a [`Timeline`], by phase: open with every defence
//! ([`super::guard`]) and probe the schema (here), the small host tables on this thread
//! ([`super::host`]), the big activity and API tables in parallel rowid
//! chunks (`chunks`), then the sorts and the launch join in Rust
//! (`timeline::join`); NVTX ranges beside the big tables, or after them
//! when only those near an analysis's windows are kept
//! ([`read_timeline_near`]). Names stay `StringIds` ids until displayed.

use super::chunks::{read_big_tables, BigRead};
use super::guard::{Db, Deadline};
use super::host::{read_host_small, resolve_sync_rows};
use super::nvtx::{nvtx_rows_hint, read_nvtx, read_nvtx_near, sort_ranges, MIN_PART_ROWS};
use super::schema::Schema;
use super::sql::{
    capture_value, meta_value, ReadProgress, DRIVER, GRAPH, KERNEL, MEMCPY, MEMSET, NVTX, RUNTIME,
};
use super::*;
use crate::timeline::join::{mark_pageable_syncs, sort_and_join};
use crate::timeline::near::RangeFilter;
use crate::timeline::Names;
use std::path::Path;

/// Opens `path` read-only and immutable (SQLite writes nothing, not even a
/// journal), probes its schema and reads it; an export with a `-wal` or a
/// hot `-journal` beside it is read as SQLite reads it, from a copy with
/// the companion applied (`companion`). NVTX ranges are loaded whenever
/// the export has them (they say what a launching thread was doing);
/// `want_nvtx` only adds a diagnostic when it has none. Phases: the schema and the tables to read, the small host
/// tables, the big tables in parallel (`chunks`), then the sort and
/// the launch join (`timeline::join`).
pub fn read_timeline(
    path: &Path,
    want_nvtx: bool,
    progress: ReadProgress,
) -> Result<Timeline, NsysError> {
    read_with(path, want_nvtx, progress, Ranges::All)
}

/// [`read_timeline`] keeping only the NVTX ranges an analysis will look
/// at: `near` is given the timeline read without its ranges (every other
/// field as [`read_timeline`] fills it) and returns the windows the
/// ranges are then read through, after the big tables rather than beside
/// them. Diagnostics and collectives are those [`read_timeline`] gives;
/// the ranges are its ranges less those the filter drops.
/// `ROOFTRACE_ALL_RANGES=1` keeps every range (for a side-by-side bench).
pub fn read_timeline_near(
    path: &Path,
    want_nvtx: bool,
    progress: ReadProgress,
    near: &Near<'_>,
) -> Result<Timeline, NsysError> {
    let ranges = if std::env::var_os("ROOFTRACE_ALL_RANGES").is_some() {
        Ranges::All
    } else {
        Ranges::Near(near)
    };
    read_with(path, want_nvtx, progress, ranges)
}

/// What builds the range filter from a timeline without ranges.
pub type Near<'a> = dyn Fn(&Timeline) -> RangeFilter + Sync + 'a;

/// Which NVTX ranges the reader keeps.
#[derive(Clone, Copy)]
enum Ranges<'a> {
    /// Every closed range, read beside the pool of the big tables.
    All,
    /// Those the filter built from the rest of the timeline keeps, read
    /// after the big tables.
    Near(&'a Near<'a>),
}

fn read_with(
    path: &Path,
    want_nvtx: bool,
    progress: ReadProgress,
    ranges: Ranges,
) -> Result<Timeline, NsysError> {
    let deadline = Deadline::for_file(path);
    // Kept until the read ends: the copy, when one was made, lives in it.
    let export = super::companion::prepare(path, deadline)?;
    let db = Db {
        file: export.file(),
        path,
        deadline,
    };
    let conn = db.open()?;
    let schema = Schema::probe(&conn, path)?;
    if !schema.is_nsys() {
        return Err(NsysError::NotNsysExport {
            path: path.to_path_buf(),
        });
    }
    let (op_tables, api_tables) = tables_to_read(&schema, path)?;
    let host = read_host_small(&conn, path, &schema)?;
    // All ranges: NVTX (tens of millions of rows under `emit_nvtx`) on its
    // own thread and connection beside the pool of the big tables, which
    // then leaves it a core when it is large; the launch join and
    // everything else that does not need the ranges runs here while that
    // thread still reads. Ranges near windows: after the rest.
    let beside = matches!(ranges, Ranges::All) && schema.has_table(NVTX);
    let nvtx_rows = if beside {
        nvtx_rows_hint(&conn, &schema)
    } else {
        0
    };
    let (rest, nvtx) = std::thread::scope(|s| {
        let nvtx = beside.then(|| {
            s.spawn(|| {
                let c = db.open()?;
                let every = (i64::MIN, i64::MAX);
                let mut read = read_nvtx(&c, path, &schema, &host.strings, None, every)?;
                sort_ranges(&mut read.ranges);
                Ok::<_, NsysError>(read)
            })
        });
        let rest = read_big_tables(
            &conn,
            path,
            &schema,
            (&op_tables, &api_tables),
            &host,
            BigRead {
                progress,
                db,
                beside_rows: nvtx_rows,
            },
        )
        .and_then(|rows| without_ranges(&conn, db, &schema, &host, rows));
        let nvtx = nvtx
            .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .transpose();
        (rest, nvtx)
    });
    let (rest, nvtx) = (rest?, nvtx?);
    let mut diagnostics = export.diagnostics();
    diagnostics.extend(rest.diagnostics);
    // Where the ranges' diagnostics go, read now or later.
    let nvtx_at = diagnostics.len();
    let mut nvtx = nvtx.unwrap_or_default();
    diagnostics.extend(nvtx.diagnostics());
    if want_nvtx && !schema.has_table(NVTX) {
        diagnostics.push(Diagnostic::new(
            DiagnosticKind::NoNvtxTable,
            "no NVTX_EVENTS table: profile with `nsys profile --trace=cuda,nvtx`",
        ));
    }
    let (info, mut joined, syncs, waits, copies) =
        (rest.info, rest.joined, rest.syncs, rest.waits, rest.copies);
    diagnostics.append(&mut joined.diagnostics);
    // The join's call index served the sync rows; it is not kept through
    // the ranges' read.
    drop(joined.calls);
    let mut tl = Timeline {
        info,
        ops: joined.ops,
        api: joined.api,
        syncs,
        waits,
        host_spans: host.host_spans,
        nvtx: Vec::new(),
        copies,
        graph_trace: joined.graph_trace,
        graph_launches: joined.graph_launches,
        nested_api_rows: joined.nested_api_rows,
        diagnostics,
        collectives: Vec::new(),
        names: Names::new(host.strings),
    };
    if let (Ranges::Near(near), true) = (ranges, schema.has_table(NVTX)) {
        let filter = near(&tl);
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        let strings = tl.string_table();
        let parts = (&filter, threads, MIN_PART_ROWS);
        nvtx = read_nvtx_near(&conn, db, &schema, strings, parts)?;
        sort_ranges(&mut nvtx.ranges);
        tl.diagnostics.splice(nvtx_at..nvtx_at, nvtx.diagnostics());
    }
    let strings = tl.string_table();
    let nccl = super::nccl::read_nccl(&conn, path, &schema, strings, &nvtx.nccl_rowids)?;
    tl.diagnostics.extend(nccl.diagnostics);
    tl.nvtx = nvtx.ranges;
    tl.collectives = nccl.records;
    Ok(tl)
}

/// What the reader makes of everything but the NVTX ranges.
struct WithoutRanges {
    info: ExportInfo,
    joined: crate::timeline::join::Joined,
    syncs: Vec<SyncCall>,
    waits: Vec<(u32, i64)>,
    copies: Vec<CopyTotal>,
    /// The big tables' and the host tables' (the join's are in `joined`).
    diagnostics: Vec<Diagnostic>,
}

/// The export's facts, the launch join, the sync calls, the waits and the
/// copy totals: the work that does not need the ranges. The copy totals
/// (one scan of the memcpy table through SQLite, on its own connection)
/// are read beside the rest, which is one thread's work after the join.
fn without_ranges(
    conn: &rusqlite::Connection,
    db: Db,
    schema: &Schema,
    host: &super::host::HostRead,
    rows: super::chunks::BigRows,
) -> Result<WithoutRanges, NsysError> {
    let path = db.path;
    if rows.ops.is_empty() {
        return Err(NsysError::NoGpuActivity {
            path: path.to_path_buf(),
        });
    }
    let info = ExportInfo {
        source: crate::timeline::Source::Nsys {
            version: meta_value(conn, schema, "EXPORT_PRODUCT_VERSION"),
            schema: schema.flavor(),
        },
        graph_trace_option: capture_value(conn, schema, "CUDA_GRAPH_TRACE_OPTIONS:MODE"),
        identity: super::identity::read_identity(conn, schema),
    };
    let mut diagnostics = rows.diagnostics;
    diagnostics.extend(host.diagnostics.iter().cloned());
    let (copies, (joined, syncs, waits)) = std::thread::scope(|s| {
        let copies = s.spawn(|| {
            let c = db.open()?;
            super::copies::read_copy_totals(&c, path, schema, host.pageable_kind)
        });
        let rest = join_and_syncs(rows.ops, rows.api, rows.graph_rows, rows.syncs, host);
        let copies = copies
            .join()
            .unwrap_or_else(|p| std::panic::resume_unwind(p));
        (copies, rest)
    });
    Ok(WithoutRanges {
        info,
        joined,
        syncs,
        waits,
        copies: copies?,
        diagnostics,
    })
}

/// The launch join, the sync calls (the API tables' and the
/// SYNCHRONIZATION rows without their call) and the waits.
fn join_and_syncs(
    ops: Vec<GpuOp>,
    api: Vec<ApiCall>,
    graph_rows: u64,
    mut syncs: Vec<SyncCall>,
    host: &super::host::HostRead,
) -> (
    crate::timeline::join::Joined,
    Vec<SyncCall>,
    Vec<(u32, i64)>,
) {
    let joined = sort_and_join(ops, api, graph_rows, &host.graph_launch_names);
    mark_pageable_syncs(&mut syncs, &joined.ops, &joined.api);
    let table_syncs = resolve_sync_rows(
        &host.sync_rows,
        host.sync_decode,
        (&joined.api, &joined.calls),
        &syncs,
    );
    syncs.extend(table_syncs);
    syncs.sort_unstable();
    let mut waits: Vec<(u32, i64)> = joined
        .api
        .iter()
        .filter(|a| host.wait_event_names.contains(&a.name.0))
        .map(|a| (a.pid, a.start_ns))
        .collect();
    waits.sort_unstable();
    (joined, syncs, waits)
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
