//! The rows of one big table, read through a prepared SQLite statement
//! (`raw`): a reader lists its output columns once, as an enum whose
//! variants' order is the order of the SELECT ([`Column`]), so a loop
//! reads `row.int(OpCol::Start)`, never a column number, and the SQL
//! ([`Select`]) is built from the same list: order and names cannot drift.

use super::guard::sql_err;
use super::raw::RawStmt;
use super::schema::Schema;
use super::NsysError;
use rusqlite::Connection;
use std::marker::PhantomData;
use std::path::Path;

/// What the SELECT reads for one output column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Pick {
    /// A column of the table, by name.
    Col(&'static str),
    /// The rowid.
    RowId,
    /// A constant (`None` is NULL), for a column the table lacks.
    Const(Option<i64>),
}

/// The column when the schema has it, else the constant.
pub(super) fn col_or(schema: &Schema, table: &str, col: &'static str, or: Option<i64>) -> Pick {
    if schema.has_column(table, col) {
        Pick::Col(col)
    } else {
        Pick::Const(or)
    }
}

/// A reader's output columns: an enum whose variants, in declaration
/// order, are the SELECT's columns (`at` is the variant's discriminant).
pub(super) trait Column: Copy + 'static {
    /// Every column, in declaration order: the SELECT's order.
    const ALL: &'static [Self];
    /// The column's place in the row.
    fn at(self) -> i32;
    /// What the SELECT reads for it from `table`.
    fn pick(self, schema: &Schema, table: &str) -> Pick;
}

/// Whether `C::ALL` lists the variants in their order (each at its own
/// place): the unit test each reader runs on its column list.
#[cfg(test)]
pub(super) fn in_order<C: Column>() -> bool {
    C::ALL.iter().enumerate().all(|(i, c)| c.at() as usize == i)
}

/// The rows a loop reads: one table, its columns, and the rows left out
/// where one column is NULL.
pub(super) struct Select<C> {
    table: &'static str,
    picks: Vec<Pick>,
    /// Rows whose column here is NULL are left out (`IS NOT NULL`).
    not_null: Option<C>,
}

impl<C: Column> Select<C> {
    /// The columns of `C` read from `table` of this `schema`.
    pub(super) fn new(schema: &Schema, table: &'static str, not_null: Option<C>) -> Select<C> {
        Select {
            table,
            picks: C::ALL.iter().map(|c| c.pick(schema, table)).collect(),
            not_null,
        }
    }

    /// The SQL of the rows with rowids in `?1 ..= ?2`.
    pub(super) fn sql(&self) -> String {
        let cols: Vec<String> = self
            .picks
            .iter()
            .map(|p| match p {
                Pick::Col(c) => format!("\"{c}\""),
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
        let not_null = self.not_null.and_then(|c| self.picks.get(c.at() as usize));
        if let Some(Pick::Col(c)) = not_null {
            sql.push_str(&format!(" AND \"{c}\" IS NOT NULL"));
        }
        sql
    }
}

/// A statement's rows, read by the reader's named columns.
pub(super) struct Rows<'c, C> {
    stmt: RawStmt<'c>,
    columns: PhantomData<C>,
}

impl<C: Column> Rows<'_, C> {
    /// Advances to the next row; `false` when done.
    #[inline]
    pub(super) fn step(&mut self) -> Result<bool, rusqlite::Error> {
        self.stmt.step()
    }

    /// The column as an integer, `None` when NULL.
    #[inline]
    pub(super) fn int(&self, c: C) -> Option<i64> {
        self.stmt.int(c.at())
    }

    /// The column as an integer, 0 when NULL.
    #[inline]
    pub(super) fn int_or_zero(&self, c: C) -> i64 {
        self.stmt.int_or_zero(c.at())
    }

    /// The column's bytes when it holds text.
    #[inline]
    pub(super) fn text(&self, c: C) -> Option<&[u8]> {
        self.stmt.text(c.at())
    }
}

/// Runs `body` over the rows of `select` with rowids in `[lo, hi]`.
pub(super) fn scan<C: Column, T>(
    conn: &Connection,
    path: &Path,
    select: &Select<C>,
    (lo, hi): (i64, i64),
    body: impl FnOnce(&mut Rows<C>) -> Result<T, NsysError>,
) -> Result<T, NsysError> {
    let err = sql_err(path, select.table);
    let mut stmt = RawStmt::prepare(conn, &select.sql()).map_err(&err)?;
    stmt.bind(1, lo).map_err(&err)?;
    stmt.bind(2, hi).map_err(&err)?;
    body(&mut Rows {
        stmt,
        columns: PhantomData,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Copy)]
    enum Two {
        B,
        A,
    }

    impl Column for Two {
        const ALL: &'static [Two] = &[Two::B, Two::A];
        fn at(self) -> i32 {
            self as i32
        }
        fn pick(self, schema: &Schema, table: &str) -> Pick {
            match self {
                Two::B => col_or(schema, table, "b", Some(7)),
                Two::A => col_or(schema, table, "a", None),
            }
        }
    }

    /// The SQL reads the columns in the enum's order, a missing one as its
    /// constant, and leaves out rows whose `not_null` column is NULL; the
    /// loop reads each by name.
    #[test]
    fn a_select_reads_its_columns_by_name_in_their_order() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t.sqlite");
        Connection::open(&p)
            .unwrap()
            .execute_batch(
                "CREATE TABLE NVTX_EVENTS (a INTEGER);
                 INSERT INTO NVTX_EVENTS VALUES (1), (NULL), (3);",
            )
            .unwrap();
        let conn =
            super::super::guard::open(&p, super::super::guard::Deadline::for_file(&p)).unwrap();
        let schema = Schema::probe(&conn, &p).unwrap();
        assert!(in_order::<Two>());
        let select = Select::new(&schema, "NVTX_EVENTS", Some(Two::A));
        assert_eq!(
            select.sql(),
            "SELECT 7, \"a\" FROM \"NVTX_EVENTS\" WHERE rowid BETWEEN ?1 AND ?2 AND \"a\" IS NOT NULL"
        );
        let got = scan(&conn, &p, &select, (2, 3), |rows| {
            let mut v = Vec::new();
            while rows.step().map_err(sql_err(&p, "NVTX_EVENTS"))? {
                v.push((rows.int(Two::A), rows.int(Two::B)));
            }
            Ok(v)
        })
        .unwrap();
        // Rowid 2 is NULL (left out), rowid 3 holds 3; `b` is the constant.
        assert_eq!(got, vec![(Some(3), Some(7))]);
    }
}
