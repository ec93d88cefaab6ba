//! The big tables, read in parallel: every GPU activity table and API table
//! is cut into rowid ranges ([`Chunk`]); a pool of threads, each with its own
//! connection from [`super::guard::open`], reads them straight into two
//! buffers, compacted afterwards. Buffers are sized by the rows that exist:
//! by the rowid span only when the span is dense (as nsys writes it), else by
//! `count(*)` in one chunk, so a lone rowid of 4e12 costs nothing.

use super::guard::{checked_interval, sql_err, string_id, Db};
use super::host::HostRead;
use super::rows::{col_or, scan, Column, Pick, Rows, Select};
use super::schema::Schema;
use super::sql::{ReadProgress, KERNEL, MEMCPY, PROGRESS_EVERY};
use super::*;
use rusqlite::Connection;
use std::path::Path;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;

/// What a worker reports for one chunk: (chunk index, rows kept, rows
/// skipped, sync calls found).
pub(super) type ChunkResult = (usize, usize, u64, Vec<SyncCall>);

/// A chunk's place in the output buffers.
pub(super) enum Slot<'a> {
    Ops(&'a mut [GpuOp]),
    Api(&'a mut [ApiCall]),
}

pub(super) const EMPTY_OP: GpuOp = GpuOp {
    start_ns: 0,
    end_ns: 0,
    pid: 0,
    stream: 0,
    correlation_id: 0,
    name: NameRef::UNKNOWN,
    api: NO_API,
    device: 0,
    kind: OpKind::Kernel,
    flags: 0,
};

pub(super) const EMPTY_API: ApiCall = ApiCall {
    start_ns: 0,
    end_ns: 0,
    pid: 0,
    tid: 0,
    correlation_id: 0,
    name: NameRef::UNKNOWN,
};

/// Rows per chunk handed to one reader thread.
pub(super) const CHUNK_ROWS: i64 = 1 << 19;

/// A rowid range `[lo, hi]` (inclusive, so `i64::MAX` needs no `+ 1`) of
/// one table, and the rows reserved for it.
pub(super) struct Chunk {
    pub(super) table: &'static str,
    /// `Some` for GPU activity tables, `None` for API tables.
    pub(super) kind: Option<OpKind>,
    pub(super) lo: i64,
    pub(super) hi: i64,
    /// Slots reserved: at least the rows in `[lo, hi]`.
    pub(super) cap: usize,
}

/// Cuts `[lo, hi]` into chunks of [`CHUNK_ROWS`] rowids, each reserving
/// one slot per rowid (the caller checked that the span is dense).
pub(super) fn push_chunks(
    out: &mut Vec<Chunk>,
    table: &'static str,
    kind: Option<OpKind>,
    lo: i64,
    hi: i64,
) {
    let mut a = lo;
    while a <= hi {
        let b = a.saturating_add(CHUNK_ROWS - 1).min(hi);
        out.push(Chunk {
            table,
            kind,
            lo: a,
            hi: b,
            cap: usize::try_from(i128::from(b) - i128::from(a) + 1).unwrap_or(0),
        });
        match b.checked_add(1) {
            Some(n) => a = n,
            None => break,
        }
    }
}

/// Plans the chunks of one table. Dense rowids (span at most a 64th of the
/// file's bytes, or at most twice the row count) are cut into parallel
/// chunks; sparse ones are read as one chunk sized by `count(*)`.
pub(super) fn plan_table(
    conn: &Connection,
    path: &Path,
    file_bytes: u64,
    table: &'static str,
    kind: Option<OpKind>,
    out: &mut Vec<Chunk>,
) -> Result<(), NsysError> {
    let one = |sql: String| {
        conn.query_row(&sql, [], |r| r.get::<_, Option<i64>>(0))
            .map_err(sql_err(path, table))
    };
    // `min` and `max` together would scan the table, each alone is a
    // b-tree lookup.
    let (Some(lo), Some(hi)) = (
        one(format!("SELECT min(rowid) FROM \"{table}\""))?,
        one(format!("SELECT max(rowid) FROM \"{table}\""))?,
    ) else {
        return Ok(());
    };
    let span = i128::from(hi) - i128::from(lo) + 1;
    if span <= i128::from(file_bytes / 64) {
        push_chunks(out, table, kind, lo, hi);
        return Ok(());
    }
    let count = one(format!("SELECT count(*) FROM \"{table}\""))?.unwrap_or(0);
    if span <= 2 * i128::from(count) {
        push_chunks(out, table, kind, lo, hi);
    } else {
        out.push(Chunk {
            table,
            kind,
            lo,
            hi,
            cap: usize::try_from(count).unwrap_or(0),
        });
    }
    Ok(())
}

/// The error for a chunk holding more rows than `count(*)` said.
fn overfull(path: &Path, ch: &Chunk) -> NsysError {
    NsysError::BadValue {
        path: path.to_path_buf(),
        table: ch.table.to_string(),
        rowid: ch.lo,
        what: format!(
            "rowids {}..={} hold more rows than the table counts; the file is corrupt",
            ch.lo, ch.hi
        ),
    }
}

/// The columns of a GPU activity table a chunk reads, in SELECT order.
#[derive(Clone, Copy, Debug)]
pub(super) enum OpCol {
    Start,
    End,
    Device,
    Stream,
    GlobalPid,
    Correlation,
    /// The kernel's name id (`shortName`, else `demangledName`), a copy's
    /// `copyKind`; NULL for memsets and graphs.
    Name,
    /// A copy's source and destination memory kinds (NULL reads as "not
    /// pageable"); NULL for other tables.
    SrcKind,
    DstKind,
}

impl Column for OpCol {
    const ALL: &'static [OpCol] = &[
        OpCol::Start,
        OpCol::End,
        OpCol::Device,
        OpCol::Stream,
        OpCol::GlobalPid,
        OpCol::Correlation,
        OpCol::Name,
        OpCol::SrcKind,
        OpCol::DstKind,
    ];

    fn at(self) -> i32 {
        self as i32
    }

    fn pick(self, schema: &Schema, table: &str) -> Pick {
        let col = |c, or| col_or(schema, table, c, or);
        let copy = table == MEMCPY;
        match self {
            OpCol::Start => col("start", None),
            OpCol::End => col("end", None),
            OpCol::Device => col("deviceId", None),
            OpCol::Stream => col("streamId", None),
            OpCol::GlobalPid => col("globalPid", Some(0)),
            OpCol::Correlation => col("correlationId", Some(0)),
            OpCol::Name if table == KERNEL && schema.has_column(table, "shortName") => {
                col("shortName", None)
            }
            OpCol::Name if table == KERNEL => col("demangledName", None),
            OpCol::Name if copy => col("copyKind", None),
            OpCol::SrcKind if copy => col("srcKind", None),
            OpCol::DstKind if copy => col("dstKind", None),
            OpCol::Name | OpCol::SrcKind | OpCol::DstKind => Pick::Const(None),
        }
    }
}

/// The GPU ops of one chunk; `pageable_kind` is the memory-kind code of
/// pageable host memory in this export (`ENUM_CUDA_MEM_KIND`).
#[allow(clippy::too_many_arguments)]
pub(super) fn read_ops(
    conn: &Connection,
    path: &Path,
    schema: &Schema,
    ch: &Chunk,
    kind: OpKind,
    pageable_kind: i64,
    buf: &mut [GpuOp],
    tick: &(dyn Fn(u64) + Sync),
) -> Result<(usize, u64), NsysError> {
    let select = Select::<OpCol>::new(schema, ch.table, None);
    scan(conn, path, &select, (ch.lo, ch.hi), |row| {
        fill_ops(conn, path, ch, (kind, pageable_kind), row, buf, tick)
    })
}

/// The reading loop of [`read_ops`].
fn fill_ops(
    conn: &Connection,
    path: &Path,
    ch: &Chunk,
    (kind, pageable_kind): (OpKind, i64),
    row: &mut Rows<OpCol>,
    buf: &mut [GpuOp],
    tick: &(dyn Fn(u64) + Sync),
) -> Result<(usize, u64), NsysError> {
    let table = ch.table;
    let err = sql_err(path, table);
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
        let Some((start, end)) = row
            .int(OpCol::Start)
            .zip(row.int(OpCol::End))
            .and_then(|(s, e)| checked_interval(s, e))
        else {
            bad += 1;
            continue;
        };
        let device = row
            .int(OpCol::Device)
            .ok_or_else(|| bad_value(n, "deviceId is NULL"))?;
        let device = u16::try_from(device)
            .map_err(|_| bad_value(n, &format!("deviceId {device} out of range")))?;
        // NULL stream, globalPid or correlationId read as 0 (none); a
        // stream or correlation id beyond 32 bits is a bad row.
        let (Ok(stream), Ok(correlation_id)) = (
            u32::try_from(row.int_or_zero(OpCol::Stream)),
            u32::try_from(row.int_or_zero(OpCol::Correlation)),
        ) else {
            bad += 1;
            continue;
        };
        let pid = pid_of(row.int_or_zero(OpCol::GlobalPid));
        let name = match kind {
            OpKind::Kernel => row
                .int(OpCol::Name)
                .and_then(string_id)
                .map_or(NameRef::UNKNOWN, NameRef),
            OpKind::Memcpy => NameRef::memcpy(CopyKind::from_code(row.int_or_zero(OpCol::Name))),
            OpKind::Memset => NameRef::MEMSET,
            OpKind::Graph => NameRef::GRAPH,
        };
        let pageable = kind == OpKind::Memcpy
            && (row.int(OpCol::SrcKind) == Some(pageable_kind)
                || row.int(OpCol::DstKind) == Some(pageable_kind));
        let Some(slot) = buf.get_mut(kept) else {
            return Err(overfull(path, ch));
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
            flags: if pageable { OP_PAGEABLE } else { 0 },
        };
    }
    tick(n % PROGRESS_EVERY);
    Ok((kept, bad))
}

/// The columns of a runtime or driver table a chunk reads, in SELECT
/// order.
#[derive(Clone, Copy, Debug)]
pub(super) enum ApiCol {
    Start,
    End,
    GlobalTid,
    Correlation,
    NameId,
}

impl Column for ApiCol {
    const ALL: &'static [ApiCol] = &[
        ApiCol::Start,
        ApiCol::End,
        ApiCol::GlobalTid,
        ApiCol::Correlation,
        ApiCol::NameId,
    ];

    fn at(self) -> i32 {
        self as i32
    }

    fn pick(self, schema: &Schema, table: &str) -> Pick {
        let col = |c, or| col_or(schema, table, c, or);
        match self {
            ApiCol::Start => col("start", None),
            ApiCol::End => col("end", None),
            ApiCol::GlobalTid => col("globalTid", Some(0)),
            ApiCol::Correlation => col("correlationId", None),
            ApiCol::NameId => col("nameId", None),
        }
    }
}

/// Runtime/driver rows of one chunk: launches go to `api`, sync calls to `syncs`.
pub(super) fn read_api(
    conn: &Connection,
    path: &Path,
    schema: &Schema,
    ch: &Chunk,
    host: &HostRead,
    buf: &mut [ApiCall],
    tick: &(dyn Fn(u64) + Sync),
) -> Result<(usize, u64, Vec<SyncCall>), NsysError> {
    let select = Select::<ApiCol>::new(schema, ch.table, None);
    scan(conn, path, &select, (ch.lo, ch.hi), |row| {
        fill_api(path, ch, host, row, buf, tick)
    })
}

/// The reading loop of [`read_api`].
fn fill_api(
    path: &Path,
    ch: &Chunk,
    host: &HostRead,
    row: &mut Rows<ApiCol>,
    buf: &mut [ApiCall],
    tick: &(dyn Fn(u64) + Sync),
) -> Result<(usize, u64, Vec<SyncCall>), NsysError> {
    let err = sql_err(path, ch.table);
    let (mut n, mut kept, mut bad) = (0u64, 0usize, 0u64);
    let mut syncs = Vec::new();
    while row.step().map_err(&err)? {
        n += 1;
        if n % PROGRESS_EVERY == 0 {
            tick(PROGRESS_EVERY);
        }
        let Some((start, end)) = row
            .int(ApiCol::Start)
            .zip(row.int(ApiCol::End))
            .and_then(|(s, e)| checked_interval(s, e))
        else {
            bad += 1;
            continue;
        };
        let gtid = row.int_or_zero(ApiCol::GlobalTid);
        let name = row
            .int(ApiCol::NameId)
            .and_then(string_id)
            .unwrap_or(u32::MAX);
        let Ok(correlation_id) = u32::try_from(row.int_or_zero(ApiCol::Correlation)) else {
            bad += 1;
            continue;
        };
        let sync = SyncCall {
            pid: pid_of(gtid),
            tid: tid_of(gtid),
            start_ns: start,
            end_ns: end,
            correlation_id,
            pageable: false,
            name: NameRef(name),
        };
        if host.sync_names.contains(&name) {
            syncs.push(sync);
            continue;
        }
        if host.blocking_names.contains(&name) {
            // A blocking copy (`cudaMemcpy`) holds the host until the copy and
            // all work before it on the stream are done: it is a sync *and* a
            // launch.
            syncs.push(sync);
        }
        if correlation_id == 0 {
            continue;
        }
        let Some(slot) = buf.get_mut(kept) else {
            return Err(overfull(path, ch));
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
    Ok((kept, bad, syncs))
}

/// The rows of the big tables, compacted, in table and rowid order.
pub(super) struct BigRows {
    /// GPU ops, unsorted.
    pub(super) ops: Vec<GpuOp>,
    /// API calls, unsorted, nested rows included.
    pub(super) api: Vec<ApiCall>,
    /// Sync calls found among the API rows.
    pub(super) syncs: Vec<SyncCall>,
    /// Rows of the whole-graph table.
    pub(super) graph_rows: u64,
    /// Rows skipped per table.
    pub(super) diagnostics: Vec<Diagnostic>,
}

/// How the pool reads: its progress callback, the export's file and
/// deadline (each thread opens its own connection), and the rows another
/// thread reads beside it meanwhile (NVTX).
#[derive(Clone, Copy)]
pub(super) struct BigRead<'a> {
    pub(super) progress: ReadProgress<'a>,
    pub(super) db: Db<'a>,
    pub(super) beside_rows: u64,
}

/// Reads every GPU activity and API table in parallel rowid chunks.
pub(super) fn read_big_tables(
    conn: &Connection,
    path: &Path,
    schema: &Schema,
    (op_tables, api_tables): (&[(&'static str, OpKind)], &[&'static str]),
    host: &HostRead,
    how: BigRead<'_>,
) -> Result<BigRows, NsysError> {
    let file_bytes = std::fs::metadata(how.db.file).map_or(0, |m| m.len());
    let mut chunks = Vec::new();
    for (t, kind) in op_tables {
        plan_table(conn, path, file_bytes, t, Some(*kind), &mut chunks)?;
    }
    for t in api_tables {
        plan_table(conn, path, file_bytes, t, None, &mut chunks)?;
    }
    // Rows land directly in two buffers sized by the plan, one slot per
    // chunk, and are compacted afterwards: no per-chunk vectors, no copy of
    // the whole, a peak of one op and one call struct per row.
    let op_rows: usize = chunks
        .iter()
        .filter(|c| c.kind.is_some())
        .map(slot_len)
        .sum();
    let api_rows: usize = chunks
        .iter()
        .filter(|c| c.kind.is_none())
        .map(slot_len)
        .sum();
    let mut ops = vec![EMPTY_OP; op_rows];
    let mut api = vec![EMPTY_API; api_rows];
    let bufs = (&mut ops[..], &mut api[..]);
    // The thread beside the pool keeps a core to itself when it reads at
    // least a quarter as many rows as the pool (24 M NVTX ranges beside 13 M
    // kernels and calls: sharing two cores three ways slowed the longest
    // reader, which the run waits for).
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let pool_rows = (op_rows + api_rows) as u64;
    let threads = if cores > 1 && how.beside_rows >= pool_rows / 4 {
        cores - 1
    } else {
        cores
    };
    let (filled, syncs) = read_pool(path, schema, &chunks, host, bufs, how, threads)?;
    let (graph_rows, diagnostics) = compact(&chunks, &filled, &mut ops, &mut api);
    Ok(BigRows {
        ops,
        api,
        syncs,
        graph_rows,
        diagnostics,
    })
}

/// Rows of the output buffer reserved for a chunk.
fn slot_len(c: &Chunk) -> usize {
    c.cap
}

/// (rows kept, rows skipped) per chunk, and the sync calls found.
type PoolResult = (Vec<(usize, u64)>, Vec<SyncCall>);

/// Reads the chunks on a pool of threads (each with its own connection) into
/// their slots of `ops_buf` / `api_buf`. Returns (rows kept, rows skipped)
/// per chunk and the sync calls found.
fn read_pool(
    path: &Path,
    schema: &Schema,
    chunks: &[Chunk],
    host: &HostRead,
    (ops_buf, api_buf): (&mut [GpuOp], &mut [ApiCall]),
    BigRead { progress, db, .. }: BigRead<'_>,
    threads: usize,
) -> Result<PoolResult, NsysError> {
    let expected: u64 = chunks.iter().map(|c| c.cap as u64).sum();
    let done = AtomicU64::new(0);
    let tick = |n: u64| {
        let d = done.fetch_add(n, Ordering::Relaxed) + n;
        progress(d.min(expected), expected);
    };
    let mut op_rest: &mut [GpuOp] = ops_buf;
    let mut api_rest: &mut [ApiCall] = api_buf;
    let mut slots: Vec<Mutex<Slot>> = Vec::with_capacity(chunks.len());
    for c in chunks {
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
    let threads = threads.clamp(1, 8).min(chunks.len().max(1));
    // The error of the first failing chunk in table order, whichever
    // thread met it first: a damaged file gives the same error on every
    // run. A chunk after one that failed is not read.
    let first_failed = AtomicUsize::new(usize::MAX);
    let failed: Mutex<Vec<(usize, NsysError)>> = Mutex::new(Vec::new());
    let worker = || -> Result<(), NsysError> {
        let c = db.open()?;
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(ch) = chunks.get(i) else {
                return Ok(());
            };
            if i > first_failed.load(Ordering::Relaxed) {
                continue;
            }
            let mut slot = slots[i].lock().unwrap_or_else(|p| p.into_inner());
            let read = match &mut *slot {
                Slot::Ops(buf) => {
                    let kind = ch.kind.unwrap_or(OpKind::Kernel);
                    read_ops(&c, path, schema, ch, kind, host.pageable_kind, buf, &tick)
                        .map(|(n, bad)| (n, bad, Vec::new()))
                }
                Slot::Api(buf) => read_api(&c, path, schema, ch, host, buf, &tick),
            };
            match read {
                Ok((n, bad, syncs)) => results
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .push((i, n, bad, syncs)),
                Err(e) => {
                    first_failed.fetch_min(i, Ordering::Relaxed);
                    failed
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .push((i, e));
                }
            }
        }
    };
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads).map(|_| s.spawn(worker)).collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect::<Result<Vec<()>, NsysError>>()
    })?;
    let failed = failed.into_inner().unwrap_or_else(|p| p.into_inner());
    if let Some((_, e)) = failed.into_iter().min_by_key(|(i, _)| *i) {
        return Err(e);
    }
    let mut filled: Vec<(usize, u64)> = vec![(0, 0); chunks.len()];
    let mut chunk_syncs: Vec<SyncCall> = Vec::new();
    for (i, n, bad, syncs) in results.into_inner().unwrap_or_else(|p| p.into_inner()) {
        filled[i] = (n, bad);
        chunk_syncs.extend(syncs);
    }
    Ok((filled, chunk_syncs))
}

/// Moves each chunk's kept rows down over the unused tail of its slot and
/// truncates both buffers. Returns the whole-graph row count and one
/// diagnostic per table with skipped rows.
fn compact(
    chunks: &[Chunk],
    filled: &[(usize, u64)],
    ops: &mut Vec<GpuOp>,
    api: &mut Vec<ApiCall>,
) -> (u64, Vec<Diagnostic>) {
    let (mut op_at, mut op_to, mut api_at, mut api_to) = (0usize, 0usize, 0usize, 0usize);
    let mut graph_rows = 0u64;
    let mut skipped: Vec<(&'static str, u64)> = Vec::new();
    for (c, &(n, bad)) in chunks.iter().zip(filled) {
        if c.kind.is_some() {
            if op_at != op_to {
                ops.copy_within(op_at..op_at + n, op_to);
            }
            op_at += slot_len(c);
            op_to += n;
            if c.kind == Some(OpKind::Graph) {
                graph_rows += n as u64;
            }
        } else {
            if api_at != api_to {
                api.copy_within(api_at..api_at + n, api_to);
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
    ops.truncate(op_to);
    api.truncate(api_to);
    let diagnostics = skipped
        .into_iter()
        .map(|(table, bad)| {
            Diagnostic::new(
                DiagnosticKind::SkippedRows { table, rows: bad },
                format!("{table}: skipped {bad} rows with a NULL start/end, end before start, a time beyond ±2^61 ns or an id beyond 32 bits"),
            )
        })
        .collect();
    (graph_rows, diagnostics)
}

#[cfg(test)]
mod tests {
    use super::super::rows::in_order;
    use super::*;

    /// Each column list names its columns in the order its SELECT reads
    /// them.
    #[test]
    fn the_column_lists_are_in_select_order() {
        assert!(in_order::<OpCol>());
        assert!(in_order::<ApiCol>());
    }
}
