//! The rows of one big table, read from its b-tree pages where the file
//! allows (`btree`) and through SQLite otherwise: a [`Select`] names the
//! columns once, [`scan`] runs the reading loop over the page cursor and,
//! if the cursor refuses anything, runs it again over an SQLite statement
//! (`raw`) from the start, so what a loop sees never depends on which
//! reader gave it.

use super::btree::{Cursor, Field, PageFile};
use super::guard::sql_err;
use super::raw::RawStmt;
use super::NsysError;
use rusqlite::Connection;
use std::path::Path;

/// How a column is read: as an integer (a real, a blob or text there
/// sends the table to SQLite, which converts them) or as text.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Kind {
    Int,
    Text,
}

/// One output column.
#[derive(Clone, Debug)]
pub(super) enum Pick {
    /// A column of the table, by name.
    Col(String, Kind),
    /// The rowid.
    RowId,
    /// A constant (`None` is NULL), for a column the table lacks.
    Const(Option<i64>),
}

/// The column when the schema has it, else the constant.
pub(super) fn col_or(
    schema: &super::Schema,
    table: &str,
    col: &str,
    kind: Kind,
    or: Option<i64>,
) -> Pick {
    if schema.has_column(table, col) {
        Pick::Col(col.to_string(), kind)
    } else {
        Pick::Const(or)
    }
}

/// The rows a loop reads: one table, its output columns, and the rows
/// skipped where one column is NULL.
pub(super) struct Select {
    pub(super) table: &'static str,
    pub(super) picks: Vec<Pick>,
    /// Rows whose column here is NULL are left out (`IS NOT NULL`).
    pub(super) not_null: Option<usize>,
}

impl Select {
    /// The SQL of the same rows, `rowid BETWEEN ?1 AND ?2`.
    fn sql(&self) -> String {
        let cols: Vec<String> = self
            .picks
            .iter()
            .map(|p| match p {
                Pick::Col(c, _) => format!("\"{c}\""),
                Pick::RowId => "rowid".to_string(),
                Pick::Const(Some(v)) => v.to_string(),
                Pick::Const(None) => "NULL".to_string(),
            })
            .collect();
        let mut sql = format!(
            "SELECT {} FROM \"{}\" WHERE rowid BETWEEN ?1 AND ?2",
            cols.join(", "),
            self.table
        );
        if let Some(Pick::Col(c, _)) = self.not_null.and_then(|i| self.picks.get(i)) {
            sql.push_str(&format!(" AND \"{c}\" IS NOT NULL"));
        }
        sql
    }

    /// The b-tree cursor's fields and the table's root page, when every
    /// column is a plain stored one: `None` (SQLite reads it) for a
    /// generated or hidden column anywhere in the table (the record then
    /// skips it), a picked column in the primary key (an `INTEGER PRIMARY
    /// KEY` is stored as the rowid), with a default (a record written
    /// before the column was added holds the default), or beyond the
    /// cursor's field limit, or a column named like the rowid.
    fn fields(&self, conn: &Connection) -> Option<(u32, Vec<Field>)> {
        let root: i64 = conn
            .query_row(
                "SELECT rootpage FROM sqlite_schema WHERE type = 'table' AND name = ?1",
                [self.table],
                |r| r.get(0),
            )
            .ok()?;
        let mut st = conn
            .prepare("SELECT name, pk, dflt_value IS NULL, hidden FROM pragma_table_xinfo(?1)")
            .ok()?;
        let cols: Vec<(String, i64, bool, i64)> = st
            .query_map([self.table], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
            })
            .ok()?
            .collect::<Result<_, _>>()
            .ok()?;
        let rowid_named = |n: &str| {
            ["rowid", "_rowid_", "oid"]
                .iter()
                .any(|r| n.eq_ignore_ascii_case(r))
        };
        if cols.iter().any(|c| c.3 != 0) {
            return None;
        }
        let mut fields = Vec::with_capacity(self.picks.len());
        for p in &self.picks {
            fields.push(match p {
                Pick::RowId if cols.iter().any(|c| rowid_named(&c.0)) => return None,
                Pick::RowId => Field::RowId,
                Pick::Const(v) => Field::Const(*v),
                Pick::Col(name, kind) => {
                    let i = cols.iter().position(|c| c.0.eq_ignore_ascii_case(name))?;
                    let (_, pk, no_default, _) = &cols[i];
                    if *pk != 0 || !no_default || i >= super::btree::MAX_FIELDS {
                        return None;
                    }
                    let i = u16::try_from(i).ok()?;
                    match kind {
                        Kind::Int => Field::Int(i),
                        Kind::Text => Field::Text(i),
                    }
                }
            });
        }
        Some((u32::try_from(root).ok()?, fields))
    }
}

/// A row source: the page cursor or an SQLite statement.
pub(super) enum Rows<'a> {
    /// Boxed: one per chunk, and ten times the statement's size.
    Pages(Box<Cursor<'a>>),
    Sql(RawStmt<'a>),
}

impl Rows<'_> {
    /// Advances to the next row; `false` when done (or, on pages, refused).
    pub(super) fn step(&mut self) -> Result<bool, rusqlite::Error> {
        match self {
            Rows::Pages(c) => Ok(c.step()),
            Rows::Sql(s) => s.step(),
        }
    }

    /// Column `i` as an integer, `None` when NULL.
    #[inline]
    pub(super) fn int(&self, i: usize) -> Option<i64> {
        match self {
            Rows::Pages(c) => c.int(i),
            Rows::Sql(s) => s.int(i as i32),
        }
    }

    /// Column `i` as an integer, 0 when NULL.
    #[inline]
    pub(super) fn int_or_zero(&self, i: usize) -> i64 {
        self.int(i).unwrap_or(0)
    }

    /// Column `i`'s bytes when it holds text.
    #[inline]
    pub(super) fn text(&self, i: usize) -> Option<&[u8]> {
        match self {
            Rows::Pages(c) => c.text(i),
            Rows::Sql(s) => s.text(i as i32),
        }
    }

    fn refused(&self) -> bool {
        matches!(self, Rows::Pages(c) if c.refused())
    }
}

/// Runs `body` over the rows of `select` with rowids in `[lo, hi]`: over
/// the pages when `pages` is given and the table's columns allow, and
/// again from the start over SQLite when the page cursor refused (what
/// the first run returned is dropped). `body` is called at most twice and
/// keeps no state between calls.
pub(super) fn scan<T>(
    conn: &Connection,
    path: &Path,
    pages: Option<&PageFile>,
    select: &Select,
    (lo, hi): (i64, i64),
    mut body: impl FnMut(&mut Rows) -> Result<T, NsysError>,
) -> Result<T, NsysError> {
    if let Some(file) = pages {
        if let Some((root, fields)) = select.fields(conn) {
            let mut rows = Rows::Pages(Box::new(Cursor::new(
                file,
                root,
                fields,
                select.not_null,
                (lo, hi),
            )));
            let got = body(&mut rows)?;
            if !rows.refused() {
                return Ok(got);
            }
        }
    }
    let err = sql_err(path, select.table);
    let mut st = RawStmt::prepare(conn, &select.sql()).map_err(&err)?;
    st.bind(1, lo).map_err(&err)?;
    st.bind(2, hi).map_err(&err)?;
    body(&mut Rows::Sql(st))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rows of `select` from the pages (and whether the cursor refused)
    /// and through SQLite, as (integers, texts) per row.
    type Got = Vec<Vec<(Option<i64>, Option<Vec<u8>>)>>;

    fn rows(
        conn: &Connection,
        path: &Path,
        file: Option<&PageFile>,
        select: &Select,
    ) -> (Got, bool) {
        let mut refused = false;
        let got = scan(conn, path, file, select, (i64::MIN, i64::MAX), |r| {
            let mut v = Vec::new();
            while r.step().map_err(sql_err(path, select.table))? {
                v.push(
                    (0..select.picks.len())
                        .map(|i| (r.int(i), r.text(i).map(<[u8]>::to_vec)))
                        .collect(),
                );
            }
            refused |= r.refused();
            Ok(v)
        })
        .unwrap();
        (got, refused)
    }

    /// On the bundled real exports the page cursor reads the kernel,
    /// runtime and NVTX tables itself (it never refuses) and gives what
    /// SQLite gives: the end-to-end comparison in `tests/it/nsys_pages.rs`
    /// is therefore not a comparison of SQLite with itself.
    #[test]
    fn real_exports_are_read_from_their_pages() {
        let mut tables_read = 0;
        for p in super::super::bundled_exports() {
            let conn =
                super::super::guard::open(&p, super::super::guard::Deadline::for_file(&p)).unwrap();
            let schema = super::super::Schema::probe(&conn, &p).unwrap();
            let file = PageFile::open(&p).expect("a plain rollback-journal export");
            for (table, cols) in [
                (
                    "CUPTI_ACTIVITY_KIND_KERNEL",
                    &["start", "end", "deviceId", "shortName"][..],
                ),
                (
                    "CUPTI_ACTIVITY_KIND_RUNTIME",
                    &["start", "end", "globalTid", "nameId"][..],
                ),
                ("NVTX_EVENTS", &["start", "end", "globalTid", "textId"][..]),
            ] {
                if !schema.has_table(table) {
                    continue;
                }
                let table: &'static str = match table {
                    "NVTX_EVENTS" => "NVTX_EVENTS",
                    "CUPTI_ACTIVITY_KIND_KERNEL" => "CUPTI_ACTIVITY_KIND_KERNEL",
                    _ => "CUPTI_ACTIVITY_KIND_RUNTIME",
                };
                let mut picks: Vec<Pick> = cols
                    .iter()
                    .map(|c| col_or(&schema, table, c, Kind::Int, None))
                    .collect();
                picks.push(Pick::RowId);
                if table == "NVTX_EVENTS" {
                    picks.push(col_or(&schema, table, "text", Kind::Text, None));
                }
                let select = Select {
                    table,
                    picks,
                    not_null: Some(1),
                };
                let (fast, refused) = rows(&conn, &p, Some(&file), &select);
                let (slow, _) = rows(&conn, &p, None, &select);
                assert!(!refused, "{}: {table} refused", p.display());
                assert!(!fast.is_empty(), "{}: {table}", p.display());
                assert_eq!(fast, slow, "{}: {table}", p.display());
                tables_read += 1;
            }
        }
        assert!(tables_read >= 10, "{tables_read}");
    }
}
