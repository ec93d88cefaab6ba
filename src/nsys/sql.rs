//! The SQL helpers every phase of the reader shares (table names, cells,
//! metadata values, the progress callback): a leaf the phases use and which
//! uses none of them.

use super::schema::Schema;
use crate::timeline::limits::cap_name;
use rusqlite::types::ValueRef;
use rusqlite::{Connection, Row};

/// Progress callback: `(rows read so far, rows expected)`, called from the
/// reading threads every few thousand rows.
pub type ReadProgress<'a> = &'a (dyn Fn(u64, u64) + Sync);

pub(super) const KERNEL: &str = "CUPTI_ACTIVITY_KIND_KERNEL";
pub(super) const MEMCPY: &str = "CUPTI_ACTIVITY_KIND_MEMCPY";
pub(super) const MEMSET: &str = "CUPTI_ACTIVITY_KIND_MEMSET";
pub(super) const GRAPH: &str = "CUPTI_ACTIVITY_KIND_GRAPH_TRACE";
pub(super) const RUNTIME: &str = "CUPTI_ACTIVITY_KIND_RUNTIME";
pub(super) const DRIVER: &str = "CUPTI_ACTIVITY_KIND_DRIVER";
pub(super) const SYNC: &str = "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION";
pub(super) const NVTX: &str = "NVTX_EVENTS";
pub(super) const PROGRESS_EVERY: u64 = 1 << 16;

/// The year of the nsys release that wrote the export
/// (`EXPORT_PRODUCT_VERSION` `2024.5.1.113` → 2024), when recorded.
pub(super) fn export_year(conn: &Connection, schema: &Schema) -> Option<u32> {
    meta_value(conn, schema, "EXPORT_PRODUCT_VERSION")?
        .split('.')
        .next()?
        .parse()
        .ok()
}

/// An integer cell, `None` for NULL (and for non-integer values).
pub(super) fn int(row: &Row, i: usize) -> Option<i64> {
    match row.get_ref(i) {
        Ok(ValueRef::Integer(v)) => Some(v),
        Ok(ValueRef::Real(v)) => Some(v as i64),
        _ => None,
    }
}

/// A text cell cut to [`crate::timeline::limits::MAX_NAME_BYTES`]; `None` unless text.
pub(super) fn text_capped(r: &Row) -> rusqlite::Result<Option<String>> {
    Ok(match r.get_ref(0)? {
        ValueRef::Text(t) => Some(cap_name(t)),
        _ => None,
    })
}

/// A value of the export metadata table (`META_DATA_EXPORT` or
/// `EXPORT_META_DATA`), when there is one.
pub(super) fn meta_value(conn: &Connection, schema: &Schema, name: &str) -> Option<String> {
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

/// A value of `META_DATA_CAPTURE`, when there is one.
pub(super) fn capture_value(conn: &Connection, schema: &Schema, name: &str) -> Option<String> {
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
