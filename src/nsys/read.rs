//! Reading an export into a [`Timeline`]: rows are read in rowid order with
//! prepared statements into compact structs, names stay `StringIds` ids until
//! displayed, and sorting and joining happen in Rust. GPU activity is read on
//! a second thread while the main thread reads API calls and NVTX ranges.

use super::raw::RawStmt;
use super::schema::{classify_open_error, Schema};
use super::*;
use rusqlite::types::ValueRef;
use rusqlite::{Connection, OpenFlags, Row};
use std::path::Path;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;

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
    let host = read_host_small(&conn, path, &schema, want_nvtx)?;

    // Every activity table is cut into rowid ranges; a pool of threads, each
    // with its own read-only connection, reads them into compact structs.
    let mut chunks = Vec::new();
    for (t, kind) in &op_tables {
        let (lo, hi) = rowid_range(&conn, path, t)?;
        push_chunks(&mut chunks, t, Some(*kind), lo, hi);
    }
    for t in &api_tables {
        let (lo, hi) = rowid_range(&conn, path, t)?;
        push_chunks(&mut chunks, t, None, lo, hi);
    }
    let expected: u64 = chunks.iter().map(|c| c.hi - c.lo).sum::<i64>().max(0) as u64;
    let done = AtomicU64::new(0);
    let tick = |n: u64| {
        let d = done.fetch_add(n, Ordering::Relaxed) + n;
        progress(d.min(expected), expected);
    };
    // Rows land directly in two buffers sized by rowid span, one slot per
    // chunk, and are compacted afterwards: no per-chunk vectors, no copy of
    // the whole, a peak of one op and one call struct per row.
    let slot_len = |c: &Chunk| (c.hi - c.lo) as usize;
    let op_rows: usize = chunks
        .iter()
        .filter(|c| c.kind.is_some())
        .map(slot_len)
        .sum();
    let api_rows_total: usize = chunks
        .iter()
        .filter(|c| c.kind.is_none())
        .map(slot_len)
        .sum();
    let mut ops_buf = vec![EMPTY_OP; op_rows];
    let mut api_buf = vec![EMPTY_API; api_rows_total];
    let mut filled: Vec<(usize, u64)> = vec![(0, 0); chunks.len()];
    let mut chunk_syncs: Vec<SyncCall> = Vec::new();
    {
        let mut op_rest: &mut [GpuOp] = &mut ops_buf;
        let mut api_rest: &mut [ApiCall] = &mut api_buf;
        let mut slots: Vec<Mutex<Slot>> = Vec::with_capacity(chunks.len());
        for c in &chunks {
            let n = slot_len(c);
            if c.kind.is_some() {
                let (a, b) = std::mem::take(&mut op_rest).split_at_mut(n);
                slots.push(Mutex::new(Slot::Ops(a)));
                op_rest = b;
            } else {
                let (a, b) = std::mem::take(&mut api_rest).split_at_mut(n);
                slots.push(Mutex::new(Slot::Api(a)));
                api_rest = b;
            }
        }
        let next = AtomicUsize::new(0);
        let results: Mutex<Vec<ChunkResult>> = Mutex::new(Vec::new());
        let threads = std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .clamp(1, 8)
            .min(chunks.len().max(1));
        let worker = || -> Result<(), NsysError> {
            let c = open(path)?;
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(ch) = chunks.get(i) else {
                    return Ok(());
                };
                let mut slot = slots[i].lock().unwrap_or_else(|p| p.into_inner());
                let (n, bad, syncs) = match &mut *slot {
                    Slot::Ops(buf) => {
                        let kind = ch.kind.unwrap_or(OpKind::Kernel);
                        let (n, bad) = read_ops(&c, path, &schema, ch, kind, buf, &tick)?;
                        (n, bad, Vec::new())
                    }
                    Slot::Api(buf) => {
                        let (n, syncs) = read_api(&c, path, &schema, ch, &host, buf, &tick)?;
                        (n, 0, syncs)
                    }
                };
                results
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .push((i, n, bad, syncs));
            }
        };
        std::thread::scope(|s| {
            let handles: Vec<_> = (0..threads).map(|_| s.spawn(worker)).collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
                .collect::<Result<Vec<()>, NsysError>>()
        })?;
        for (i, n, bad, syncs) in results.into_inner().unwrap_or_else(|p| p.into_inner()) {
            filled[i] = (n, bad);
            chunk_syncs.extend(syncs);
        }
    }
    let (mut op_at, mut op_to, mut api_at, mut api_to) = (0usize, 0usize, 0usize, 0usize);
    let mut gpu = GpuRead::default();
    let mut skipped: Vec<(&str, u64)> = Vec::new();
    for (c, &(n, bad)) in chunks.iter().zip(&filled) {
        if c.kind.is_some() {
            if op_at != op_to {
                ops_buf.copy_within(op_at..op_at + n, op_to);
            }
            op_at += slot_len(c);
            op_to += n;
            if c.kind == Some(OpKind::Graph) {
                gpu.graph_rows += n as u64;
            }
        } else {
            if api_at != api_to {
                api_buf.copy_within(api_at..api_at + n, api_to);
            }
            api_at += slot_len(c);
            api_to += n;
        }
        if bad > 0 {
            match skipped.iter_mut().find(|s| s.0 == c.table) {
                Some(s) => s.1 += bad,
                None => skipped.push((c.table, bad)),
            }
        }
    }
    ops_buf.truncate(op_to);
    api_buf.truncate(api_to);
    gpu.ops = ops_buf;
    let api_rows = api_buf;
    let mut syncs = host.syncs.clone();
    syncs.extend(chunk_syncs);
    for (table, bad) in skipped {
        gpu.diagnostics.push(format!(
            "{table}: skipped {bad} rows with a NULL start/end or end before start"
        ));
    }
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

    let mut api = api_rows;
    // The two big sorts are independent (the join below works on any op
    // order), so they run side by side: about 12 % of the CPU time on 5 M
    // kernels, otherwise spent on one core.
    let mut ops = std::mem::take(&mut gpu.ops);
    std::thread::scope(|s| {
        s.spawn(|| sort_ops(&mut ops));
        api.sort_unstable_by_key(|a| {
            (
                a.pid,
                a.correlation_id,
                a.start_ns,
                std::cmp::Reverse(a.end_ns),
            )
        });
    });
    gpu.ops = ops;
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

    // Node-traced graphs: kernels whose launching call is a graph launch.
    let graph_node_ops = if graph_launches > 0 {
        gpu.ops
            .iter()
            .filter(|o| o.kind != OpKind::Graph && o.api != NO_API)
            .filter(|o| {
                host.graph_launch_names
                    .contains(&api[o.api as usize].name.0)
            })
            .count()
    } else {
        0
    };
    let graph_trace = if gpu.graph_rows > 0 {
        GraphTrace::Graph
    } else if graph_node_ops > 0 {
        GraphTrace::Node
    } else {
        GraphTrace::None
    };
    if graph_launches > 0 && graph_trace == GraphTrace::None {
        diagnostics.push(format!(
            "{graph_launches} CUDA graph launches but neither node kernels nor whole-graph rows: their GPU work is missing from the export"
        ));
    }
    syncs.sort_unstable();
    let mut nvtx = host.nvtx;
    nvtx.sort_by_key(|r| (r.pid, r.start_ns, r.end_ns));
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
        blocking_names: host.blocking_names.0,
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
    let _ = conn.execute_batch("PRAGMA cache_size = -16384;");
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

/// What a worker reports for one chunk: (chunk index, rows kept, rows
/// skipped, sync calls found).
type ChunkResult = (usize, usize, u64, Vec<SyncCall>);

/// A chunk's place in the output buffers.
enum Slot<'a> {
    Ops(&'a mut [GpuOp]),
    Api(&'a mut [ApiCall]),
}

const EMPTY_OP: GpuOp = GpuOp {
    start_ns: 0,
    end_ns: 0,
    pid: 0,
    stream: 0,
    correlation_id: 0,
    name: NameRef::UNKNOWN,
    api: NO_API,
    device: 0,
    kind: OpKind::Kernel,
};

const EMPTY_API: ApiCall = ApiCall {
    start_ns: 0,
    end_ns: 0,
    pid: 0,
    tid: 0,
    correlation_id: 0,
    name: NameRef::UNKNOWN,
};

/// Rows per chunk handed to one reader thread.
const CHUNK_ROWS: i64 = 1 << 19;

/// A rowid range `[lo, hi)` of one table.
struct Chunk {
    table: &'static str,
    /// `Some` for GPU activity tables, `None` for API tables.
    kind: Option<OpKind>,
    lo: i64,
    hi: i64,
}

fn push_chunks(out: &mut Vec<Chunk>, table: &'static str, kind: Option<OpKind>, lo: i64, hi: i64) {
    let mut a = lo;
    while a < hi {
        let b = (a + CHUNK_ROWS).min(hi);
        out.push(Chunk {
            table,
            kind,
            lo: a,
            hi: b,
        });
        a = b;
    }
}

/// `[min rowid, max rowid + 1)` of a table (empty for an empty table). Two
/// queries: `min` and `max` together would scan the table, each alone is a
/// b-tree lookup.
fn rowid_range(conn: &Connection, path: &Path, table: &str) -> Result<(i64, i64), NsysError> {
    let one = |f: &str| {
        conn.query_row(&format!("SELECT {f}(rowid) FROM \"{table}\""), [], |r| {
            r.get::<_, Option<i64>>(0)
        })
        .map_err(sql_err(path, table))
    };
    Ok(match (one("min")?, one("max")?) {
        (Some(lo), Some(hi)) => (lo, hi + 1),
        _ => (0, 0),
    })
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
    ch: &Chunk,
    kind: OpKind,
    buf: &mut [GpuOp],
    tick: &(dyn Fn(u64) + Sync),
) -> Result<(usize, u64), NsysError> {
    let table = ch.table;
    let name_col = match kind {
        OpKind::Kernel if schema.has_column(table, "shortName") => "shortName".to_string(),
        OpKind::Kernel => col_or_null(schema, table, "demangledName"),
        OpKind::Memcpy => col_or_null(schema, table, "copyKind"),
        _ => "NULL".to_string(),
    };
    let zero_if_absent = |c: &str| {
        if schema.has_column(table, c) {
            format!("\"{c}\"")
        } else {
            "0".to_string()
        }
    };
    // Plain columns: SQL expressions (packing ids, coalesce) cost more VDBE
    // time per row than the extra column reads they would save.
    let sql = format!(
        "SELECT start, \"end\", deviceId, streamId, {}, {}, {} FROM \"{table}\" \
         WHERE rowid >= ?1 AND rowid < ?2",
        zero_if_absent("globalPid"),
        zero_if_absent("correlationId"),
        name_col,
    );
    let err = sql_err(path, table);
    let mut row = RawStmt::prepare(conn, &sql).map_err(&err)?;
    row.bind(1, ch.lo).map_err(&err)?;
    row.bind(2, ch.hi).map_err(&err)?;
    let (mut n, mut kept, mut bad) = (0u64, 0usize, 0u64);
    let bad_value = |ordinal: u64, what: &str| {
        // The rowid is looked up only for the error message.
        let rowid = conn
            .query_row(
                &format!(
                    "SELECT rowid FROM \"{table}\" WHERE rowid >= ?1 LIMIT 1 OFFSET {}",
                    ordinal.saturating_sub(1)
                ),
                [ch.lo],
                |r| r.get::<_, i64>(0),
            )
            .unwrap_or(-1);
        NsysError::BadValue {
            path: path.to_path_buf(),
            table: table.to_string(),
            rowid,
            what: what.to_string(),
        }
    };
    while row.step().map_err(&err)? {
        n += 1;
        if n % PROGRESS_EVERY == 0 {
            tick(PROGRESS_EVERY);
        }
        let (Some(start), Some(end)) = (row.int(0), row.int(1)) else {
            bad += 1;
            continue;
        };
        if end < start {
            bad += 1;
            continue;
        }
        let device = row.int(2).ok_or_else(|| bad_value(n, "deviceId is NULL"))?;
        let device = u16::try_from(device)
            .map_err(|_| bad_value(n, &format!("deviceId {device} out of range")))?;
        // NULL stream, globalPid or correlationId read as 0 (none).
        let stream = row.int_or_zero(3) as u32;
        let pid = pid_of(row.int_or_zero(4));
        let correlation_id = row.int_or_zero(5) as u32;
        let name = match kind {
            OpKind::Kernel => row
                .int(6)
                .map(|v| NameRef(v as u32))
                .unwrap_or(NameRef::UNKNOWN),
            OpKind::Memcpy => NameRef::memcpy(row.int(6).unwrap_or(0).clamp(0, 15) as u8),
            OpKind::Memset => NameRef::MEMSET,
            OpKind::Graph => NameRef::GRAPH,
        };
        let Some(slot) = buf.get_mut(kept) else {
            break; // cannot happen: rowids in [lo, hi) are at most hi - lo rows
        };
        kept += 1;
        *slot = GpuOp {
            start_ns: start,
            end_ns: end,
            pid,
            stream,
            correlation_id,
            name,
            api: NO_API,
            device,
            kind,
        };
    }
    tick(n % PROGRESS_EVERY);
    Ok((kept, bad))
}

/// Runtime/driver rows of one chunk: launches go to `api`, sync calls to `syncs`.
fn read_api(
    conn: &Connection,
    path: &Path,
    schema: &Schema,
    ch: &Chunk,
    host: &HostRead,
    buf: &mut [ApiCall],
    tick: &(dyn Fn(u64) + Sync),
) -> Result<(usize, Vec<SyncCall>), NsysError> {
    let table = ch.table;
    let gtid = if schema.has_column(table, "globalTid") {
        "globalTid"
    } else {
        "0"
    };
    let sql = format!(
        "SELECT start, \"end\", {gtid}, correlationId, nameId \
         FROM \"{table}\" WHERE rowid >= ?1 AND rowid < ?2"
    );
    let err = sql_err(path, table);
    let mut row = RawStmt::prepare(conn, &sql).map_err(&err)?;
    row.bind(1, ch.lo).map_err(&err)?;
    row.bind(2, ch.hi).map_err(&err)?;
    let (mut n, mut kept) = (0u64, 0usize);
    let mut syncs = Vec::new();
    while row.step().map_err(&err)? {
        n += 1;
        if n % PROGRESS_EVERY == 0 {
            tick(PROGRESS_EVERY);
        }
        let (Some(start), Some(end)) = (row.int(0), row.int(1)) else {
            continue;
        };
        let gtid = row.int_or_zero(2);
        let name = row.int(4).map_or(u32::MAX, |v| v as u32);
        if host.sync_names.contains(&name) {
            syncs.push(SyncCall {
                pid: pid_of(gtid),
                start_ns: start,
                end_ns: end.max(start),
            });
            continue;
        }
        if host.blocking_names.contains(&name) {
            // A blocking copy (`cudaMemcpy`) holds the host until the copy and
            // all work before it on the stream are done: it is a sync *and* a
            // launch.
            syncs.push(SyncCall {
                pid: pid_of(gtid),
                start_ns: start,
                end_ns: end.max(start),
            });
        }
        let correlation_id = row.int_or_zero(3) as u32;
        if correlation_id == 0 {
            continue;
        }
        let Some(slot) = buf.get_mut(kept) else {
            break; // cannot happen: rowids in [lo, hi) are at most hi - lo rows
        };
        kept += 1;
        *slot = ApiCall {
            start_ns: start,
            end_ns: end.max(start),
            pid: pid_of(gtid),
            tid: tid_of(gtid),
            correlation_id,
            name: NameRef(name),
        };
    }
    tick(n % PROGRESS_EVERY);
    Ok((kept, syncs))
}

/// Small host-side tables read before the pool: StringIds (and which names
/// are sync calls or graph launches), the SYNCHRONIZATION table, NVTX.
#[derive(Default)]
struct HostRead {
    syncs: Vec<SyncCall>,
    nvtx: Vec<NvtxRange>,
    strings: HashMap<u32, String>,
    sync_names: NameSet,
    blocking_names: NameSet,
    graph_launch_names: NameSet,
    diagnostics: Vec<String>,
}

fn read_host_small(
    conn: &Connection,
    path: &Path,
    schema: &Schema,
    want_nvtx: bool,
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
    h.sync_names = NameSet::matching(&h.strings, is_sync_name);
    h.blocking_names = NameSet::matching(&h.strings, is_blocking_copy_name);
    h.graph_launch_names = NameSet::matching(&h.strings, |v| {
        v.starts_with("cu") && v.contains("GraphLaunch")
    });

    if schema.has_table(SYNC) {
        schema.require(path, SYNC, &["start", "end"])?;
        // syncType 2 (CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT)
        // is `cudaStreamWaitEvent`: a GPU-side dependency, the host does not
        // wait in it (it returns in ~2 µs), so it cannot explain host
        // lateness. Types 1, 3, 4 (event, stream, context synchronize) block.
        let not_wait_event = if schema.has_column(SYNC, "syncType") {
            "WHERE syncType IS NOT 2"
        } else {
            ""
        };
        let sql = format!(
            "SELECT start, \"end\", {} FROM \"{SYNC}\" {not_wait_event}",
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

/// A set of `StringIds` ids, as a bitmap: looked up once per runtime row.
#[derive(Default)]
struct NameSet(Vec<bool>);

impl NameSet {
    fn matching(strings: &HashMap<u32, String>, f: impl Fn(&str) -> bool) -> NameSet {
        let ids: Vec<u32> = strings
            .iter()
            .filter(|(_, v)| f(v))
            .map(|(k, _)| *k)
            .collect();
        let mut bits = vec![false; ids.iter().max().map_or(0, |m| *m as usize + 1)];
        for i in ids {
            bits[i as usize] = true;
        }
        NameSet(bits)
    }

    fn contains(&self, id: &u32) -> bool {
        self.0.get(*id as usize).copied().unwrap_or(false)
    }
}

/// `cudaDeviceSynchronize`, `cudaStreamSynchronize_v3020`, `cuCtxSynchronize`, …
fn is_sync_name(name: &str) -> bool {
    name.starts_with("cu") && name.contains("Synchronize")
}

/// Copies that block the host until they (and the work queued before them)
/// complete: `cudaMemcpy`, `cudaMemcpy2D`, `cuMemcpyDtoH_v2`, … — every
/// runtime/driver copy without `Async` in its name.
pub fn is_blocking_copy_name(name: &str) -> bool {
    (name.starts_with("cudaMemcpy") || name.starts_with("cuMemcpy")) && !name.contains("Async")
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

/// Sort key (pid, device, start) packed in one integer: one comparison per
/// step instead of a tuple's three.
/// Sorts ops by [`op_order`]: an in-place bucket pass by (pid, device) (few
/// distinct values), then each bucket by start on its own thread, skipped
/// when already in order (exports usually are, per device). A single
/// `sort_unstable` of 5 M ops cost ~0.5 s on one core.
fn sort_ops(ops: &mut [GpuOp]) {
    if ops.is_sorted_by_key(op_order) {
        return;
    }
    const MAX_BUCKETS: usize = 64;
    let mut keys: Vec<(u32, u16)> = Vec::new();
    for o in ops.iter() {
        let k = (o.pid, o.device);
        if !keys.contains(&k) {
            if keys.len() == MAX_BUCKETS {
                ops.sort_unstable_by_key(op_order);
                return;
            }
            keys.push(k);
        }
    }
    keys.sort_unstable();
    let bucket = |o: &GpuOp| keys.partition_point(|k| *k < (o.pid, o.device));
    let mut counts = vec![0usize; keys.len()];
    for o in ops.iter() {
        counts[bucket(o)] += 1;
    }
    let mut ends = Vec::with_capacity(keys.len());
    let mut acc = 0usize;
    for c in &counts {
        acc += c;
        ends.push(acc);
    }
    // American flag sort: swap each op into the next free slot of its bucket.
    let mut next: Vec<usize> = ends.iter().zip(&counts).map(|(e, c)| e - c).collect();
    for b in 0..keys.len() {
        while next[b] < ends[b] {
            let target = bucket(&ops[next[b]]);
            if target == b {
                next[b] += 1;
            } else {
                ops.swap(next[b], next[target]);
                next[target] += 1;
            }
        }
    }
    let mut slices: Vec<&mut [GpuOp]> = Vec::with_capacity(keys.len());
    let mut rest = ops;
    for c in counts {
        let (head, tail) = rest.split_at_mut(c);
        slices.push(head);
        rest = tail;
    }
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(slices.len())
        .max(1);
    let mut per_thread: Vec<Vec<&mut [GpuOp]>> = (0..threads).map(|_| Vec::new()).collect();
    for (i, sl) in slices.into_iter().enumerate() {
        per_thread[i % threads].push(sl);
    }
    std::thread::scope(|s| {
        for work in per_thread {
            s.spawn(move || {
                for sl in work {
                    if !sl.is_sorted_by_key(|o| o.start_ns) {
                        sl.sort_unstable_by_key(|o| o.start_ns);
                    }
                }
            });
        }
    });
}

fn op_order(o: &GpuOp) -> u128 {
    (u128::from(o.pid) << 80)
        | (u128::from(o.device) << 64)
        | u128::from((o.start_ns as u64) ^ (1 << 63))
}

/// Sets `op.api` for every op whose (pid, correlationId) has an API call.
/// `api` is sorted by (pid, correlation id) and deduplicated.
fn join_ops_to_api(ops: &mut [GpuOp], api: &[ApiCall]) {
    // Per process, correlation ids are dense counters: a direct index
    // (corr - min -> call) makes the join O(1) per op without sorting the
    // ops; sparse ranges fall back to binary search.
    // (pid, lowest correlation id, call index by corr - lowest); few processes.
    let mut index: Vec<(u32, u32, Vec<u32>)> = Vec::new();
    let mut next_first = 0usize;
    for group in api.chunk_by(|a, b| a.pid == b.pid) {
        let first = next_first;
        next_first += group.len();
        let (lo, hi) = (
            group[0].correlation_id,
            group[group.len() - 1].correlation_id,
        );
        let span = (hi - lo) as usize + 1;
        if span <= 4 * group.len() + 1024 {
            let mut v = vec![NO_API; span];
            for (k, a) in group.iter().enumerate() {
                v[(a.correlation_id - lo) as usize] = (first + k) as u32;
            }
            index.push((group[0].pid, lo, v));
        }
    }
    for op in ops.iter_mut() {
        if op.correlation_id == 0 {
            continue;
        }
        op.api = match index.iter().find(|x| x.0 == op.pid) {
            Some((_, lo, v)) => op
                .correlation_id
                .checked_sub(*lo)
                .and_then(|k| v.get(k as usize).copied())
                .unwrap_or(NO_API),
            None => api
                .binary_search_by_key(&(op.pid, op.correlation_id), |a| (a.pid, a.correlation_id))
                .map_or(NO_API, |k| k as u32),
        };
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bucketed_sort_orders_like_a_plain_sort() {
        // Three processes x two devices, starts from a fixed LCG so the
        // input is neither sorted nor grouped; compare the (pid, device,
        // start) sequence with a plain sort of the same ops.
        let mut x: u64 = 12345;
        let mut ops: Vec<GpuOp> = (0..5000)
            .map(|i| {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                GpuOp {
                    start_ns: (x >> 20) as i64 % 1_000_000 - 500_000,
                    end_ns: 0,
                    pid: (x >> 60) as u32 % 3,
                    stream: 0,
                    correlation_id: i,
                    name: NameRef(0),
                    api: NO_API,
                    device: (x >> 50) as u16 % 2,
                    kind: OpKind::Kernel,
                }
            })
            .collect();
        let mut expect = ops.clone();
        expect.sort_unstable_by_key(op_order);
        sort_ops(&mut ops);
        let key = |o: &GpuOp| (o.pid, o.device, o.start_ns);
        assert_eq!(
            ops.iter().map(key).collect::<Vec<_>>(),
            expect.iter().map(key).collect::<Vec<_>>()
        );
        // Already sorted input stays as it is.
        let before = ops.clone();
        sort_ops(&mut ops);
        assert_eq!(ops, before);
    }
}
