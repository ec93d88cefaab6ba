//! Reading an export into a [`Timeline`]: rows are read in rowid order with
//! prepared statements into compact structs, names stay `StringIds` ids until
//! displayed, and sorting and joining happen in Rust. GPU activity is read on
//! a second thread while the main thread reads API calls and NVTX ranges.

use super::schema::{classify_open_error, Schema};
use super::*;
use rusqlite::types::ValueRef;
use rusqlite::{Connection, OpenFlags, Row};
use std::collections::HashSet;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

/// Progress callback: `(rows read so far, rows expected)`, called from the
/// reading threads every few thousand rows.
pub type ReadProgress<'a> = &'a (dyn Fn(u64, u64) + Sync);

const KERNEL: &str = "CUPTI_ACTIVITY_KIND_KERNEL";
const MEMCPY: &str = "CUPTI_ACTIVITY_KIND_MEMCPY";
const MEMSET: &str = "CUPTI_ACTIVITY_KIND_MEMSET";
const GRAPH: &str = "CUPTI_ACTIVITY_KIND_GRAPH_TRACE";
const RUNTIME: &str = "CUPTI_ACTIVITY_KIND_RUNTIME";
const DRIVER: &str = "CUPTI_ACTIVITY_KIND_DRIVER";
const SYNC: &str = "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION";
const NVTX: &str = "NVTX_EVENTS";
const PROGRESS_EVERY: u64 = 1 << 16;

/// Opens `path` read-only and immutable (SQLite writes nothing, not even a
/// journal), probes its schema and reads it. NVTX ranges are loaded only when
/// `want_nvtx`.
pub fn read_timeline(
    path: &Path,
    want_nvtx: bool,
    progress: ReadProgress,
) -> Result<Timeline, NsysError> {
    let conn = open(path)?;
    let schema = Schema::probe(&conn, path)?;
    if !schema.is_nsys() {
        return Err(NsysError::NotNsysExport {
            path: path.to_path_buf(),
        });
    }
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
    let mut expected = 0u64;
    for t in op_tables
        .iter()
        .map(|(t, _)| *t)
        .chain(api_tables.iter().copied())
    {
        expected += max_rowid(&conn, path, t)?;
    }
    let done = AtomicU64::new(0);
    let tick = |n: u64| {
        let d = done.fetch_add(n, Ordering::Relaxed) + n;
        progress(d.min(expected), expected);
    };

    let (ops_result, rest) = std::thread::scope(|s| {
        let gpu = s.spawn(|| -> Result<GpuRead, NsysError> {
            let c = open(path)?;
            let mut r = GpuRead::default();
            for (t, kind) in &op_tables {
                read_ops(&c, path, &schema, t, *kind, &mut r, &tick)?;
            }
            Ok(r)
        });
        let rest = read_host(&conn, path, &schema, &api_tables, want_nvtx, &tick);
        let ops = gpu.join().unwrap_or_else(|p| std::panic::resume_unwind(p));
        (ops, rest)
    });
    let mut gpu = ops_result?;
    let host = rest?;
    if gpu.ops.is_empty() {
        return Err(NsysError::NoGpuActivity {
            path: path.to_path_buf(),
        });
    }
    let info = ExportInfo {
        nsys_version: meta_value(&conn, &schema, "EXPORT_PRODUCT_VERSION"),
        flavor: schema.flavor(),
        graph_trace_option: capture_value(&conn, &schema, "CUDA_GRAPH_TRACE_OPTIONS:MODE"),
    };
    let mut diagnostics = gpu.diagnostics;
    diagnostics.extend(host.diagnostics);

    let mut api = host.api;
    api.sort_unstable_by_key(|a| {
        (
            a.pid,
            a.correlation_id,
            a.start_ns,
            std::cmp::Reverse(a.end_ns),
        )
    });
    let before = api.len();
    // Nested runtime rows (`cudaLaunchKernel` around `cudaLaunchKernel_v7000`)
    // share (pid, correlationId); the sort puts the outermost (earliest
    // start, latest end) first and dedup keeps it.
    api.dedup_by_key(|a| (a.pid, a.correlation_id));
    let nested_api_rows = (before - api.len()) as u64;
    let graph_launches = api
        .iter()
        .filter(|a| host.graph_launch_names.contains(&a.name.0))
        .count() as u64;

    join_ops_to_api(&mut gpu.ops, &api);
    gpu.ops
        .sort_unstable_by_key(|o| (o.pid, o.device, o.start_ns, o.end_ns));

    let graph_trace = if gpu.graph_rows > 0 {
        GraphTrace::Graph
    } else if gpu.graph_node_ops > 0 {
        GraphTrace::Node
    } else {
        GraphTrace::None
    };
    if graph_launches > 0 && graph_trace == GraphTrace::None {
        diagnostics.push(format!(
            "{graph_launches} CUDA graph launches but neither node kernels nor whole-graph rows: their GPU work is missing from the export"
        ));
    }
    let mut syncs = host.syncs;
    syncs.sort_unstable();
    let mut nvtx = host.nvtx;
    nvtx.sort_by(|a, b| (a.pid, a.start_ns, a.end_ns).cmp(&(b.pid, b.start_ns, b.end_ns)));
    Ok(Timeline {
        info,
        ops: gpu.ops,
        api,
        syncs,
        nvtx,
        graph_trace,
        graph_launches,
        nested_api_rows,
        diagnostics,
        strings: host.strings,
    })
}

/// Opens read-only with `immutable=1`: no locks, no journal, no writes.
fn open(path: &Path) -> Result<Connection, NsysError> {
    let uri = format!("file:{}?immutable=1", uri_escape(&path.to_string_lossy()));
    let conn = Connection::open_with_flags(
        uri,
        OpenFlags::SQLITE_OPEN_READ_ONLY
            | OpenFlags::SQLITE_OPEN_URI
            | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(|e| classify_open_error(e, path))?;
    // Larger page cache and memory-mapped reads; both only affect this
    // connection.
    let _ = conn.execute_batch("PRAGMA cache_size = -65536; PRAGMA mmap_size = 1073741824;");
    Ok(conn)
}

/// Percent-encodes what a SQLite URI path may not contain literally
/// (`?`, `#`, `%` and non-ASCII bytes).
fn uri_escape(p: &str) -> String {
    let mut s = String::with_capacity(p.len());
    for b in p.bytes() {
        if b.is_ascii() && !matches!(b, b'?' | b'#' | b'%') {
            s.push(b as char);
        } else {
            s.push_str(&format!("%{b:02X}"));
        }
    }
    s
}

fn sql_err<'a>(path: &'a Path, table: &str) -> impl Fn(rusqlite::Error) -> NsysError + 'a {
    let table = table.to_string();
    move |source| NsysError::Sqlite {
        path: path.to_path_buf(),
        table: table.clone(),
        source,
    }
}

fn max_rowid(conn: &Connection, path: &Path, table: &str) -> Result<u64, NsysError> {
    conn.query_row(&format!("SELECT max(rowid) FROM \"{table}\""), [], |r| {
        r.get::<_, Option<i64>>(0)
    })
    .map(|v| v.unwrap_or(0).max(0) as u64)
    .map_err(sql_err(path, table))
}

/// An integer cell, `None` for NULL (and for non-integer values).
fn int(row: &Row, i: usize) -> Option<i64> {
    match row.get_ref(i) {
        Ok(ValueRef::Integer(v)) => Some(v),
        Ok(ValueRef::Real(v)) => Some(v as i64),
        _ => None,
    }
}

#[derive(Default)]
struct GpuRead {
    ops: Vec<GpuOp>,
    graph_rows: u64,
    graph_node_ops: u64,
    diagnostics: Vec<String>,
}

fn col_or_null(schema: &Schema, table: &str, col: &str) -> String {
    if schema.has_column(table, col) {
        format!("\"{col}\"")
    } else {
        "NULL".to_string()
    }
}

fn read_ops(
    conn: &Connection,
    path: &Path,
    schema: &Schema,
    table: &str,
    kind: OpKind,
    out: &mut GpuRead,
    tick: &(dyn Fn(u64) + Sync),
) -> Result<(), NsysError> {
    let name_col = match kind {
        OpKind::Kernel if schema.has_column(table, "shortName") => "shortName".to_string(),
        OpKind::Kernel => col_or_null(schema, table, "demangledName"),
        OpKind::Memcpy => col_or_null(schema, table, "copyKind"),
        _ => "NULL".to_string(),
    };
    let sql = format!(
        "SELECT rowid, start, \"end\", deviceId, streamId, {}, {}, {}, {} FROM \"{table}\"",
        col_or_null(schema, table, "globalPid"),
        col_or_null(schema, table, "correlationId"),
        name_col,
        col_or_null(schema, table, "graphNodeId"),
    );
    let err = sql_err(path, table);
    let mut st = conn.prepare(&sql).map_err(&err)?;
    let mut rows = st.query([]).map_err(&err)?;
    let (mut bad, mut n) = (0u64, 0u64);
    let bad_value = |rowid: i64, what: String| NsysError::BadValue {
        path: path.to_path_buf(),
        table: table.to_string(),
        rowid,
        what,
    };
    while let Some(row) = rows.next().map_err(&err)? {
        n += 1;
        if n % PROGRESS_EVERY == 0 {
            tick(PROGRESS_EVERY);
        }
        let rowid = int(row, 0).unwrap_or(0);
        let (Some(start), Some(end)) = (int(row, 1), int(row, 2)) else {
            bad += 1;
            continue;
        };
        if end < start {
            bad += 1;
            continue;
        }
        let device = int(row, 3).ok_or_else(|| bad_value(rowid, "deviceId is NULL".into()))?;
        let device = u16::try_from(device)
            .map_err(|_| bad_value(rowid, format!("deviceId {device} out of range")))?;
        let stream = int(row, 4).unwrap_or(0) as u32;
        let pid = int(row, 5).map(pid_of).unwrap_or(0);
        let correlation_id = int(row, 6).unwrap_or(0) as u32;
        let name = match kind {
            OpKind::Kernel => int(row, 7)
                .map(|v| NameRef(v as u32))
                .unwrap_or(NameRef::UNKNOWN),
            OpKind::Memcpy => NameRef::memcpy(int(row, 7).unwrap_or(0).clamp(0, 15) as u8),
            OpKind::Memset => NameRef::MEMSET,
            OpKind::Graph => NameRef::GRAPH,
        };
        if kind == OpKind::Graph {
            out.graph_rows += 1;
        } else if int(row, 8).is_some() {
            out.graph_node_ops += 1;
        }
        out.ops.push(GpuOp {
            start_ns: start,
            end_ns: end,
            pid,
            stream,
            correlation_id,
            name,
            api: NO_API,
            device,
            kind,
        });
    }
    tick(n % PROGRESS_EVERY);
    if bad > 0 {
        out.diagnostics.push(format!(
            "{table}: skipped {bad} rows with a NULL start/end or end before start"
        ));
    }
    Ok(())
}

#[derive(Default)]
struct HostRead {
    api: Vec<ApiCall>,
    syncs: Vec<SyncCall>,
    nvtx: Vec<NvtxRange>,
    strings: HashMap<u32, String>,
    graph_launch_names: HashSet<u32>,
    diagnostics: Vec<String>,
}

fn read_host(
    conn: &Connection,
    path: &Path,
    schema: &Schema,
    api_tables: &[&str],
    want_nvtx: bool,
    tick: &(dyn Fn(u64) + Sync),
) -> Result<HostRead, NsysError> {
    let mut h = HostRead::default();
    if schema.has_table("StringIds") {
        schema.require(path, "StringIds", &["id", "value"])?;
        let err = sql_err(path, "StringIds");
        let mut st = conn
            .prepare("SELECT id, value FROM StringIds")
            .map_err(&err)?;
        let mut rows = st.query([]).map_err(&err)?;
        while let Some(row) = rows.next().map_err(&err)? {
            if let (Some(id), Ok(ValueRef::Text(t))) = (int(row, 0), row.get_ref(1)) {
                h.strings
                    .insert(id as u32, String::from_utf8_lossy(t).into_owned());
            }
        }
    }
    let sync_names: HashSet<u32> = h
        .strings
        .iter()
        .filter(|(_, v)| is_sync_name(v))
        .map(|(k, _)| *k)
        .collect();
    h.graph_launch_names = h
        .strings
        .iter()
        .filter(|(_, v)| v.starts_with("cu") && v.contains("GraphLaunch"))
        .map(|(k, _)| *k)
        .collect();

    for table in api_tables {
        let tid_col = col_or_null(schema, table, "globalTid");
        let sql =
            format!("SELECT start, \"end\", {tid_col}, correlationId, nameId FROM \"{table}\"");
        let err = sql_err(path, table);
        let mut st = conn.prepare(&sql).map_err(&err)?;
        let mut rows = st.query([]).map_err(&err)?;
        let mut n = 0u64;
        while let Some(row) = rows.next().map_err(&err)? {
            n += 1;
            if n % PROGRESS_EVERY == 0 {
                tick(PROGRESS_EVERY);
            }
            let (Some(start), Some(end)) = (int(row, 0), int(row, 1)) else {
                continue;
            };
            let gtid = int(row, 2).unwrap_or(0);
            let name = int(row, 4).map(|v| v as u32).unwrap_or(u32::MAX);
            if sync_names.contains(&name) {
                h.syncs.push(SyncCall {
                    pid: pid_of(gtid),
                    start_ns: start,
                    end_ns: end.max(start),
                });
                continue;
            }
            let correlation_id = int(row, 3).unwrap_or(0) as u32;
            if correlation_id == 0 {
                continue;
            }
            h.api.push(ApiCall {
                start_ns: start,
                end_ns: end.max(start),
                pid: pid_of(gtid),
                tid: tid_of(gtid),
                correlation_id,
                name: NameRef(name),
            });
        }
        tick(n % PROGRESS_EVERY);
    }

    if schema.has_table(SYNC) {
        schema.require(path, SYNC, &["start", "end"])?;
        let sql = format!(
            "SELECT start, \"end\", {} FROM \"{SYNC}\"",
            col_or_null(schema, SYNC, "globalPid")
        );
        let err = sql_err(path, SYNC);
        let mut st = conn.prepare(&sql).map_err(&err)?;
        let mut rows = st.query([]).map_err(&err)?;
        while let Some(row) = rows.next().map_err(&err)? {
            if let (Some(start), Some(end)) = (int(row, 0), int(row, 1)) {
                h.syncs.push(SyncCall {
                    pid: int(row, 2).map(pid_of).unwrap_or(0),
                    start_ns: start,
                    end_ns: end.max(start),
                });
            }
        }
    }

    if want_nvtx && schema.has_table(NVTX) {
        read_nvtx(conn, path, schema, &mut h)?;
    } else if want_nvtx {
        h.diagnostics
            .push("no NVTX_EVENTS table: profile with `nsys profile --trace=cuda,nvtx`".into());
    }
    Ok(h)
}

/// `cudaDeviceSynchronize`, `cudaStreamSynchronize_v3020`, `cuCtxSynchronize`, …
fn is_sync_name(name: &str) -> bool {
    name.starts_with("cu") && name.contains("Synchronize")
}

fn read_nvtx(
    conn: &Connection,
    path: &Path,
    schema: &Schema,
    h: &mut HostRead,
) -> Result<(), NsysError> {
    schema.require(path, NVTX, &["start", "end"])?;
    // Push/pop and start/end ranges (NvtxPushPopRange 59, NvtxStartEndRange
    // 60, and their NVTXT twins 70/71); marks and domain rows have no end.
    let filter = if schema.has_column(NVTX, "eventType") {
        "AND eventType IN (59, 60, 70, 71)"
    } else {
        ""
    };
    let sql = format!(
        "SELECT start, \"end\", {}, {}, {} FROM {NVTX} WHERE \"end\" IS NOT NULL {filter}",
        col_or_null(schema, NVTX, "globalTid"),
        col_or_null(schema, NVTX, "text"),
        col_or_null(schema, NVTX, "textId"),
    );
    let err = sql_err(path, NVTX);
    let mut st = conn.prepare(&sql).map_err(&err)?;
    let mut rows = st.query([]).map_err(&err)?;
    let mut unnamed = 0u64;
    while let Some(row) = rows.next().map_err(&err)? {
        let (Some(start), Some(end)) = (int(row, 0), int(row, 1)) else {
            continue;
        };
        let gtid = int(row, 2).unwrap_or(0);
        let text = match row.get_ref(3) {
            Ok(ValueRef::Text(t)) => Some(String::from_utf8_lossy(t).into_owned()),
            _ => int(row, 4).and_then(|id| h.strings.get(&(id as u32)).cloned()),
        };
        let Some(text) = text else {
            unnamed += 1;
            continue;
        };
        h.nvtx.push(NvtxRange {
            start_ns: start,
            end_ns: end.max(start),
            pid: pid_of(gtid),
            tid: tid_of(gtid),
            text,
        });
    }
    if unnamed > 0 {
        h.diagnostics.push(format!(
            "{NVTX}: {unnamed} ranges without text or textId ignored"
        ));
    }
    Ok(())
}

/// Sets `op.api` for every op whose (pid, correlationId) has an API call.
/// `api` is sorted by (pid, correlation id) and deduplicated.
fn join_ops_to_api(ops: &mut [GpuOp], api: &[ApiCall]) {
    ops.sort_unstable_by_key(|o| (o.pid, o.correlation_id));
    let mut j = 0usize;
    for op in ops.iter_mut() {
        if op.correlation_id == 0 {
            continue;
        }
        let key = (op.pid, op.correlation_id);
        while j < api.len() && (api[j].pid, api[j].correlation_id) < key {
            j += 1;
        }
        if j < api.len() && (api[j].pid, api[j].correlation_id) == key {
            op.api = j as u32;
        }
    }
}

fn meta_value(conn: &Connection, schema: &Schema, name: &str) -> Option<String> {
    let table = ["META_DATA_EXPORT", "EXPORT_META_DATA"]
        .into_iter()
        .find(|t| schema.has_column(t, "name") && schema.has_column(t, "value"))?;
    conn.query_row(
        &format!("SELECT value FROM {table} WHERE name = ?1"),
        [name],
        |r| r.get::<_, Option<String>>(0),
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
        |r| r.get::<_, Option<String>>(0),
    )
    .ok()
    .flatten()
}
