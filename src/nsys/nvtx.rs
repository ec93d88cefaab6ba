//! NVTX ranges (`NVTX_EVENTS`) in one scan: the closed push/pop and
//! start/end ranges the gaps and budget read, and the rowids of NCCL's own
//! ranges (domain not 0, text `nccl…`) for `nccl` to read with their
//! payloads, so the table (tens of millions of rows under PyTorch's
//! `emit_nvtx`) is scanned once. Every range: read on its own thread and
//! connection beside the pool of the big tables (`read`). Only those near
//! an analysis's windows (`timeline::near`): read after the big tables, in
//! rowid parts on the pool's threads, the others counted and dropped.

use super::guard::{cap_name, checked_interval, sql_err, string_id, Db, MAX_NAME_BYTES};
use super::rows::{col_or, scan, Column, Pick, Rows, Select};
use super::schema::Schema;
use super::sql::NVTX;
use super::*;
use crate::timeline::near::{Keeper, RangeFilter};
use crate::timeline::order::split_by_process;
use rusqlite::Connection;
use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::Arc;

/// What the scan of `NVTX_EVENTS` (or of a rowid part of it) gives.
#[derive(Default)]
pub(super) struct NvtxRead {
    /// Closed ranges, in table order (sorted by [`sort_ranges`]).
    pub(super) ranges: Vec<NvtxRange>,
    /// Rowids of the rows NCCL may have written (domain not 0, text
    /// starting `nccl`), in table order.
    pub(super) nccl_rowids: Vec<i64>,
    /// Ranges skipped: a NULL start or a time out of bounds.
    bad: u64,
    /// Ranges without text or text id.
    unnamed: u64,
}

impl NvtxRead {
    /// Appends the read of the rowid part after this one's.
    fn append(&mut self, mut next: NvtxRead) {
        self.ranges.append(&mut next.ranges);
        self.nccl_rowids.append(&mut next.nccl_rowids);
        self.bad += next.bad;
        self.unnamed += next.unnamed;
    }

    /// The rows skipped, said once each.
    pub(super) fn diagnostics(&self) -> Vec<Diagnostic> {
        let mut out = Vec::new();
        let (bad, unnamed) = (self.bad, self.unnamed);
        if bad > 0 {
            out.push(Diagnostic::new(
                DiagnosticKind::SkippedRows {
                    table: NVTX,
                    rows: bad,
                },
                format!("{NVTX}: skipped {bad} ranges with a NULL start or a time beyond ±2^61 ns"),
            ));
        }
        if unnamed > 0 {
            out.push(Diagnostic::new(
                DiagnosticKind::UnnamedRanges { ranges: unnamed },
                format!("{NVTX}: {unnamed} ranges without text or textId ignored"),
            ));
        }
        out
    }
}

/// Push/pop and start/end ranges (NvtxPushPopRange 59, NvtxStartEndRange
/// 60, and their NVTXT twins 70/71); marks and domain rows have no end.
fn is_range_type(t: i64) -> bool {
    matches!(t, 59 | 60 | 70 | 71)
}

/// About how many rows `NVTX_EVENTS` holds, from its rowid span (two
/// b-tree lookups, no scan); 0 without the table.
pub(super) fn nvtx_rows_hint(conn: &Connection, schema: &Schema) -> u64 {
    if !schema.has_table(NVTX) {
        return 0;
    }
    conn.query_row(
        &format!("SELECT (SELECT max(rowid) FROM {NVTX}) - (SELECT min(rowid) FROM {NVTX})"),
        [],
        |r| r.get::<_, Option<i64>>(0),
    )
    .ok()
    .flatten()
    .map_or(0, |d| u64::try_from(d).unwrap_or(0).saturating_add(1))
}

/// The columns of `NVTX_EVENTS` the scan reads, in SELECT order.
#[derive(Clone, Copy, Debug)]
enum NvtxCol {
    Start,
    End,
    GlobalTid,
    Text,
    TextId,
    /// NULL unless the table has both `domainId` and `globalTid` (NCCL's
    /// ranges need their domain and thread: `nccl::read_nccl`).
    Domain,
    RowId,
    /// 59 (a push/pop range) when the table has no `eventType`.
    EventType,
}

impl Column for NvtxCol {
    const ALL: &'static [NvtxCol] = &[
        NvtxCol::Start,
        NvtxCol::End,
        NvtxCol::GlobalTid,
        NvtxCol::Text,
        NvtxCol::TextId,
        NvtxCol::Domain,
        NvtxCol::RowId,
        NvtxCol::EventType,
    ];

    fn at(self) -> i32 {
        self as i32
    }

    fn pick(self, schema: &Schema, table: &str) -> Pick {
        let col = |c, or| col_or(schema, table, c, or);
        match self {
            NvtxCol::Start => col("start", None),
            NvtxCol::End => col("end", None),
            NvtxCol::GlobalTid => col("globalTid", None),
            NvtxCol::Text => col("text", None),
            NvtxCol::TextId => col("textId", None),
            NvtxCol::Domain if schema.has_column(table, "globalTid") => col("domainId", None),
            NvtxCol::Domain => Pick::Const(None),
            NvtxCol::RowId => Pick::RowId,
            NvtxCol::EventType => col("eventType", Some(59)),
        }
    }
}

/// Reads the closed ranges and the NCCL candidates' rowids of the rows in
/// `rowids` in one scan.
/// `strings`: the export's `StringIds`, for ranges named by `textId`.
pub(super) fn read_nvtx(
    conn: &Connection,
    path: &Path,
    schema: &Schema,
    strings: &HashMap<u32, String>,
    keep: Option<&RangeFilter>,
    rowids: (i64, i64),
) -> Result<NvtxRead, NsysError> {
    schema.require(path, NVTX, &["start", "end"])?;
    // The event type is tested here, not in SQL: SQLite answers `eventType
    // IN (…)` with a lookup in a temporary index per row, which cost more
    // than the rest of the row (callgrind, 4.9 M rows). Marks and domain
    // rows have no end.
    let select = Select::new(schema, NVTX, Some(NvtxCol::End));
    scan(conn, path, &select, rowids, |row| {
        fill_nvtx(path, strings, row, keep)
    })
}

/// Fewest rows a part of the table gets in [`read_nvtx_near`].
pub(super) const MIN_PART_ROWS: u64 = 1 << 20;

/// [`read_nvtx`] of the ranges `keep` keeps, the table cut into rowid
/// parts of at least `min_rows` rowids read on up to `threads` threads
/// (each with its own connection, the first on `conn`) and put back in
/// table order: what one scan gives, but for the first range of a text
/// class, which each part may keep.
pub(super) fn read_nvtx_near(
    conn: &Connection,
    db: Db,
    schema: &Schema,
    strings: &HashMap<u32, String>,
    (keep, threads, min_rows): (&RangeFilter, usize, u64),
) -> Result<NvtxRead, NsysError> {
    let path = db.path;
    let bound = |f: &str| {
        conn.query_row(&format!("SELECT {f}(rowid) FROM {NVTX}"), [], |r| {
            r.get::<_, Option<i64>>(0)
        })
        .map_err(sql_err(path, NVTX))
    };
    let (Some(lo), Some(hi)) = (bound("min")?, bound("max")?) else {
        return Ok(NvtxRead::default());
    };
    let span = i128::from(hi) - i128::from(lo) + 1;
    let parts = (span / i128::from(min_rows.max(1))).clamp(1, threads.max(1) as i128);
    // In i128: a part ending at `i64::MAX` has its next cut past it. The
    // first part starts at `i64::MIN` and the last ends at `i64::MAX`, as
    // the one scan of every range does: where a damaged tree holds keys
    // out of order (SQLite's `integrity_check` says so), a scan bounded
    // by the rowids `min` and `max` found can see other rows than the
    // whole scan (a fuzzed export did), and so, in principle, can parts.
    let cut = |k: i128| i128::from(lo) + span * k / parts;
    let part = |k: i128| {
        let from = if k == 0 { i64::MIN } else { cut(k) as i64 };
        let to = if k + 1 == parts {
            i64::MAX
        } else {
            (cut(k + 1) - 1) as i64
        };
        (from, to)
    };
    let read = |c: &Connection, k: i128| read_nvtx(c, path, schema, strings, Some(keep), part(k));
    let (first, others) = std::thread::scope(|s| {
        let handles: Vec<_> = (1..parts)
            .map(|k| s.spawn(move || read(&db.open()?, k)))
            .collect();
        let first = read(conn, 0);
        let others: Vec<_> = handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect();
        (first, others)
    });
    let mut out = first?;
    for r in others {
        out.append(r?);
    }
    Ok(out)
}

/// The reading loop of [`read_nvtx`]. With a
/// filter, a range outside its thread's windows is counted (skipped and
/// unnamed rows are said as without one) but not kept, its text never
/// copied, unless it is the first of its text class.
fn fill_nvtx(
    path: &Path,
    strings: &HashMap<u32, String>,
    row: &mut Rows<NvtxCol>,
    keep: Option<&RangeFilter>,
) -> Result<NvtxRead, NsysError> {
    let err = sql_err(path, NVTX);
    // A borrowed text looked up before any copy: one export per PyTorch op
    // (`emit_nvtx`) has tens of millions of rows and a few thousand
    // distinct texts.
    let mut out = NvtxRead::default();
    let (mut unnamed, mut bad) = (0u64, 0u64);
    // Each distinct text once: the rows share it.
    let mut texts: HashSet<Arc<str>, BuildFx> = HashSet::default();
    let mut share = |t: &str| -> Arc<str> {
        if let Some(a) = texts.get(t) {
            return a.clone();
        }
        let a: Arc<str> = Arc::from(t);
        texts.insert(a.clone());
        a
    };
    let mut keeper = keep.map(RangeFilter::keeper);
    while row.step().map_err(&err)? {
        let range = row.int(NvtxCol::EventType).is_some_and(is_range_type);
        let nccl = row.int(NvtxCol::Domain).is_some_and(|d| d != 0);
        if !(range || nccl) {
            continue;
        }
        let inline: Option<&[u8]> = row.text(NvtxCol::Text);
        let by_id: Option<&str> = match inline {
            Some(_) => None,
            None => row
                .int(NvtxCol::TextId)
                .and_then(string_id)
                .and_then(|id| strings.get(&id))
                .map(String::as_str),
        };
        if nccl {
            let text = inline.map(as_text);
            if text
                .as_deref()
                .or(by_id)
                .is_some_and(|t| t.starts_with("nccl"))
            {
                out.nccl_rowids.push(row.int_or_zero(NvtxCol::RowId));
            }
        }
        if !range {
            continue; // an NCCL row that is no range
        }
        let times = row.int(NvtxCol::Start).zip(row.int(NvtxCol::End));
        let Some((start, end)) = times.and_then(|(s, e)| checked_interval(s, e.max(s))) else {
            bad += 1;
            continue;
        };
        let gtid = row.int_or_zero(NvtxCol::GlobalTid);
        if inline.is_none() && by_id.is_none() {
            unnamed += 1;
            continue;
        }
        let (pid, tid) = (pid_of(gtid), tid_of(gtid));
        if let Some(k) = &mut keeper {
            // A range kept for its window shows its class already; one of
            // a class kept twice costs a range. A text not kept is never
            // made UTF-8: its class is read off its bytes (ASCII patterns),
            // unless it is cut, which may cut the pattern off.
            let first_of_class = |k: &mut Keeper| match (inline, by_id) {
                (Some(t), _) if t.len() <= MAX_NAME_BYTES => k.first_of_class(t),
                (Some(t), _) => k.first_of_class(cap_name(t).as_bytes()),
                (None, t) => k.first_of_class(t.unwrap_or_default().as_bytes()),
            };
            if !(k.overlaps(pid, tid, start, end) || first_of_class(k)) {
                continue;
            }
        }
        let inline = inline.map(as_text);
        let Some(text) = inline.as_deref().or(by_id) else {
            continue;
        };
        // A million ranges (one per op, PyTorch's `emit_nvtx`) grow this
        // vector past 40 MB: a failed growth is an error naming the input.
        let v = &mut out.ranges;
        if v.len() == v.capacity() {
            let want = v.capacity().max(1024);
            v.try_reserve(want).map_err(|_| NsysError::OutOfMemory {
                path: path.to_path_buf(),
                table: NVTX.into(),
                rows: v.len(),
            })?;
        }
        v.push(NvtxRange {
            start_ns: start,
            end_ns: end,
            pid,
            tid,
            text: share(text),
        });
    }
    out.bad = bad;
    out.unnamed = unnamed;
    Ok(out)
}

/// A stored text as it is kept: cut, or made valid UTF-8, once.
fn as_text(t: &[u8]) -> Cow<'_, str> {
    match std::str::from_utf8(t) {
        Ok(t) if t.len() <= MAX_NAME_BYTES => Cow::Borrowed(t),
        _ => Cow::Owned(cap_name(t)),
    }
}

/// A multiply-rotate hasher (the Fx hash of rustc) for the NVTX texts:
/// SipHash's resistance to chosen collisions buys nothing against one
/// export's few thousand distinct texts, and cost ~1.4 % of `gaps` on 24 M
/// ranges.
#[derive(Default, Clone, Copy)]
pub(super) struct Fx(u64);

impl std::hash::Hasher for Fx {
    fn write(&mut self, bytes: &[u8]) {
        const K: u64 = 0x51_7c_c1_b7_27_22_0a_95;
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let w = u64::from_le_bytes(c.try_into().unwrap_or_default());
            self.0 = (self.0.rotate_left(5) ^ w).wrapping_mul(K);
        }
        for &b in chunks.remainder() {
            self.0 = (self.0.rotate_left(5) ^ u64::from(b)).wrapping_mul(K);
        }
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

/// Builds [`Fx`] hashers.
pub(super) type BuildFx = std::hash::BuildHasherDefault<Fx>;

/// Sorts NVTX ranges by (pid, start, end), stably (ranges of one key stay
/// in rowid order): the order `sort_by_key` gives. Exports write the table
/// in start order (every corpus export does), so when the rows come sorted
/// by start a split by process (a few) and a sort of each run of one
/// (process, start) by end give that order in linear time; a 24 M-range
/// export spent 14 % of `gaps` in the general sort.
pub(super) fn sort_ranges(v: &mut Vec<NvtxRange>) {
    let key = |r: &NvtxRange| (r.pid, r.start_ns, r.end_ns);
    if !v.is_sorted_by_key(|r| r.start_ns) || !split_by_process(v, |r| r.pid) {
        v.sort_by_key(key);
        return;
    }
    for run in v.chunk_by_mut(|a, b| (a.pid, a.start_ns) == (b.pid, b.start_ns)) {
        if run.len() > 1 {
            run.sort_by_key(|r| r.end_ns);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::guard::Deadline;
    use super::*;

    /// The scan names its columns in the order its SELECT reads them.
    #[test]
    fn the_column_list_is_in_select_order() {
        assert!(super::super::rows::in_order::<NvtxCol>());
    }

    /// Cut into rowid parts read on threads, the ranges near windows are
    /// those one scan keeps, in the same order, with the same NCCL rowids
    /// and skipped rows, on every bundled export with ranges; and the
    /// windows drop ranges there.
    #[test]
    fn parts_read_on_threads_give_one_scan() {
        let mut dropped = 0;
        for p in super::super::bundled_exports() {
            let db = Db {
                file: &p,
                path: &p,
                deadline: Deadline::for_file(&p),
            };
            let conn = db.open().unwrap();
            let schema = Schema::probe(&conn, &p).unwrap();
            if !schema.has_table(NVTX) {
                continue;
            }
            let strings = HashMap::new();
            let every = (i64::MIN, i64::MAX);
            let all = read_nvtx(&conn, &p, &schema, &strings, None, every).unwrap();
            // Windows over every other range's first half, no text class.
            let mut keep = RangeFilter::new(|_| None);
            for r in all.ranges.iter().step_by(2) {
                keep.add(
                    r.pid,
                    r.tid,
                    r.start_ns,
                    r.start_ns + (r.end_ns - r.start_ns) / 2,
                );
            }
            keep.finish();
            let one = read_nvtx(&conn, &p, &schema, &strings, Some(&keep), every).unwrap();
            let parts = (&keep, 3, 7);
            let got = read_nvtx_near(&conn, db, &schema, &strings, parts).unwrap();
            let show = |r: &NvtxRead| {
                let ranges: Vec<_> = r
                    .ranges
                    .iter()
                    .map(|x| (x.pid, x.tid, x.start_ns, x.end_ns, x.text.to_string()))
                    .collect();
                format!("{ranges:?} {:?} {} {}", r.nccl_rowids, r.bad, r.unnamed)
            };
            assert_eq!(show(&got), show(&one), "{}", p.display());
            assert!(one.ranges.len() <= all.ranges.len());
            dropped += all.ranges.len() - one.ranges.len();
        }
        assert!(dropped > 0);
    }

    /// The linear path of `sort_ranges` (rows in start order, split by
    /// process, runs of one start sorted by end) gives `sort_by_key`'s
    /// stable order, ties kept in row order (the texts say which row
    /// came first); unsorted rows take the general sort.
    #[test]
    fn sort_ranges_equals_a_stable_sort() {
        let mut rows: Vec<NvtxRange> = Vec::new();
        for k in 0..400i64 {
            rows.push(NvtxRange {
                start_ns: k / 4 * 10,
                end_ns: k / 4 * 10 + (3 - k % 3) * 7,
                pid: [30, 10, 20][(k % 3) as usize],
                tid: (k % 2) as u32,
                text: k.to_string().into(),
            });
        }
        let key = |r: &NvtxRange| (r.pid, r.start_ns, r.end_ns);
        let texts = |v: &[NvtxRange]| v.iter().map(|r| r.text.to_string()).collect::<Vec<_>>();
        let mut want = rows.clone();
        want.sort_by_key(key);
        let mut got = rows.clone();
        sort_ranges(&mut got);
        assert_eq!(texts(&got), texts(&want));
        rows.swap(0, 399);
        let mut want = rows.clone();
        want.sort_by_key(key);
        sort_ranges(&mut rows);
        assert_eq!(texts(&rows), texts(&want));
    }
}
