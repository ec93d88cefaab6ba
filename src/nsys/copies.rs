//! Memcpy totals per (process, device, direction, host memory kind): the
//! bytes and time a copy-bound verdict needs, read with one aggregate
//! query (the per-op rows do not carry bytes: a kernel row stays 40 bytes).

use super::guard::sql_err;
use super::schema::Schema;
use super::{pid_of, NsysError};
use crate::timeline::CopyTotal;
use rusqlite::Connection;
use std::path::Path;

const MEMCPY: &str = "CUPTI_ACTIVITY_KIND_MEMCPY";

/// Reads the memcpy totals; empty without a memcpy table. Rows with a
/// negative or NULL size count as zero bytes; sums saturate.
pub(super) fn read_copy_totals(
    conn: &Connection,
    path: &Path,
    schema: &Schema,
    pageable_kind: i64,
) -> Result<Vec<CopyTotal>, NsysError> {
    if !schema.has_table(MEMCPY) {
        return Ok(Vec::new());
    }
    let has = |c: &str| schema.has_column(MEMCPY, c);
    let col = |c: &str| {
        if has(c) {
            format!("\"{c}\"")
        } else {
            "NULL".to_string()
        }
    };
    let (pid, kind, src, dst) = (
        if has("globalPid") {
            "globalPid".to_string()
        } else {
            "0".to_string()
        },
        col("copyKind"),
        col("srcKind"),
        col("dstKind"),
    );
    let bytes = if has("bytes") {
        "TOTAL(MAX(COALESCE(bytes, 0), 0))"
    } else {
        "NULL"
    };
    // Grouped by the raw columns: a handful of groups however many rows.
    let sql = format!(
        "SELECT {pid}, deviceId, {kind}, ({src} = ?1 OR {dst} = ?1), COUNT(*), {bytes}, \
         TOTAL(MAX(\"end\" - start, 0)) FROM {MEMCPY} GROUP BY 1, 2, 3, 4"
    );
    let err = sql_err(path, MEMCPY);
    let mut stmt = conn.prepare(&sql).map_err(&err)?;
    let rows = stmt
        .query_map([pageable_kind], |r| {
            Ok((
                r.get::<_, Option<i64>>(0)?,
                r.get::<_, Option<i64>>(1)?,
                r.get::<_, Option<i64>>(2)?,
                r.get::<_, Option<i64>>(3)?,
                r.get::<_, i64>(4)?,
                r.get::<_, Option<f64>>(5)?,
                r.get::<_, f64>(6)?,
            ))
        })
        .map_err(&err)?;
    let mut out: Vec<CopyTotal> = Vec::new();
    for row in rows {
        let (gpid, device, kind, pageable, count, bytes, duration) = row.map_err(&err)?;
        let Some(device) = device.and_then(|d| u16::try_from(d).ok()) else {
            continue; // the op reader reports bad device ids
        };
        let total = CopyTotal {
            pid: pid_of(gpid.unwrap_or(0)),
            device,
            copy_kind: crate::timeline::CopyKind::from_code(kind.unwrap_or(0)),
            pageable: pageable.unwrap_or(0) != 0,
            count: u64::try_from(count).unwrap_or(0),
            bytes: bytes.map(|b| b.min(u64::MAX as f64) as u64),
            duration_ns: duration.min(i64::MAX as f64) as i64,
        };
        // Rows of one (pid, device, kind, pageable) from different raw
        // globalPid values of one process merge here.
        match out.iter_mut().find(|t| {
            (t.pid, t.device, t.copy_kind, t.pageable)
                == (total.pid, total.device, total.copy_kind, total.pageable)
        }) {
            Some(t) => {
                t.count = t.count.saturating_add(total.count);
                t.bytes = t.bytes.zip(total.bytes).map(|(a, b)| a.saturating_add(b));
                t.duration_ns = t.duration_ns.saturating_add(total.duration_ns);
            }
            None => out.push(total),
        }
    }
    out.sort_unstable();
    Ok(out)
}
