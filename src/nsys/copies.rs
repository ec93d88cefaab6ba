//! Memcpy totals per (process, device, direction, host memory kind): the
//! bytes and time a copy-bound verdict needs, summed here over one plain
//! scan of the table (the per-op rows do not carry bytes: a kernel row
//! stays 40 bytes). SQLite's `GROUP BY` sorted every row first: 8,500
//! instructions a row, 9 % of `gaps` on an export grown from a real one
//! (callgrind; docs/bench-gaps.md).

use super::guard::sql_err;
use super::rows::{col_or, scan, Column, Pick, Select};
use super::schema::Schema;
use super::{pid_of, NsysError};
use crate::timeline::{CopyKind, CopyTotal};
use rusqlite::Connection;
use std::collections::BTreeMap;
use std::path::Path;

const MEMCPY: &str = "CUPTI_ACTIVITY_KIND_MEMCPY";

/// A total's key: (pid, device, direction, pageable); its value (count,
/// bytes, ns).
type Key = (u32, u16, CopyKind, bool);

/// The columns of the memcpy table the scan reads, in SELECT order.
#[derive(Clone, Copy, Debug)]
enum CopyCol {
    GlobalPid,
    Device,
    CopyKind,
    SrcKind,
    DstKind,
    Bytes,
    Start,
    End,
}

impl Column for CopyCol {
    const ALL: &'static [CopyCol] = &[
        CopyCol::GlobalPid,
        CopyCol::Device,
        CopyCol::CopyKind,
        CopyCol::SrcKind,
        CopyCol::DstKind,
        CopyCol::Bytes,
        CopyCol::Start,
        CopyCol::End,
    ];

    fn at(self) -> i32 {
        self as i32
    }

    fn pick(self, schema: &Schema, table: &str) -> Pick {
        let col = |c| col_or(schema, table, c, None);
        match self {
            CopyCol::GlobalPid => col("globalPid"),
            CopyCol::Device => col("deviceId"),
            CopyCol::CopyKind => col("copyKind"),
            CopyCol::SrcKind => col("srcKind"),
            CopyCol::DstKind => col("dstKind"),
            CopyCol::Bytes => col("bytes"),
            CopyCol::Start => col("start"),
            CopyCol::End => col("end"),
        }
    }
}

/// Reads the memcpy totals; empty without a memcpy table. Rows with a
/// negative or NULL size count as zero bytes, rows with a NULL time or an
/// end before the start as zero time, rows with a NULL or out-of-range
/// device not at all (the op reader reports them); sums saturate.
pub(super) fn read_copy_totals(
    conn: &Connection,
    path: &Path,
    schema: &Schema,
    pageable_kind: i64,
) -> Result<Vec<CopyTotal>, NsysError> {
    if !schema.has_table(MEMCPY) {
        return Ok(Vec::new());
    }
    let has_bytes = schema.has_column(MEMCPY, "bytes");
    let err = sql_err(path, MEMCPY);
    let select = Select::new(schema, MEMCPY, None);
    let every = (i64::MIN, i64::MAX);
    // A handful of keys however many rows.
    let mut sums: BTreeMap<Key, (u64, u64, i64)> = BTreeMap::new();
    scan(conn, path, &select, every, |row| {
        while row.step().map_err(&err)? {
            let Some(device) = row.int(CopyCol::Device).and_then(|d| u16::try_from(d).ok()) else {
                continue;
            };
            let pageable = row.int(CopyCol::SrcKind) == Some(pageable_kind)
                || row.int(CopyCol::DstKind) == Some(pageable_kind);
            let key = (
                pid_of(row.int_or_zero(CopyCol::GlobalPid)),
                device,
                CopyKind::from_code(row.int_or_zero(CopyCol::CopyKind)),
                pageable,
            );
            let bytes = u64::try_from(row.int_or_zero(CopyCol::Bytes)).unwrap_or(0);
            let ns = match (row.int(CopyCol::Start), row.int(CopyCol::End)) {
                (Some(s), Some(e)) => e.saturating_sub(s).max(0),
                _ => 0,
            };
            let t = sums.entry(key).or_insert((0, 0, 0));
            t.0 = t.0.saturating_add(1);
            t.1 = t.1.saturating_add(bytes);
            t.2 = t.2.saturating_add(ns);
        }
        Ok(())
    })?;
    let mut out: Vec<CopyTotal> = sums
        .into_iter()
        .map(
            |((pid, device, copy_kind, pageable), (count, bytes, ns))| CopyTotal {
                pid,
                device,
                copy_kind,
                pageable,
                count,
                bytes: has_bytes.then_some(bytes),
                duration_ns: ns,
            },
        )
        .collect();
    out.sort_unstable();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The scan names its columns in the order its SELECT reads them.
    #[test]
    fn the_column_list_is_in_select_order() {
        assert!(super::super::rows::in_order::<CopyCol>());
    }
}
