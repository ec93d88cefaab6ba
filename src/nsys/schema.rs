//! Schema probing: which tables exist (nsys exports a table only when it has
//! data, unless `--lazy=false`) and which columns each has (columns were
//! added across versions, and users sometimes add their own).

use super::NsysError;
use rusqlite::Connection;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

pub use crate::timeline::SchemaFlavor;

/// Tables and their columns.
#[derive(Debug, Clone, Default)]
pub struct Schema {
    tables: BTreeMap<String, BTreeSet<String>>,
}

impl Schema {
    /// Reads the table list and each relevant table's columns. A name the
    /// reader may use (`StringIds`, `CUPTI_ACTIVITY_KIND_*`, `NVTX_EVENTS*`,
    /// `*META_DATA*`) must be a plain table: a view or a virtual table there
    /// is [`NsysError::NotATable`] (a view can ask for endless work, and has
    /// no rowid). Column lists come from `pragma_table_info(?1)` with the
    /// name bound, never spliced into SQL.
    pub fn probe(conn: &Connection, path: &Path) -> Result<Schema, NsysError> {
        let entries: Vec<(String, String, String)> = conn
            .prepare(
                "SELECT name, type, coalesce(sql, '') FROM sqlite_master \
                 WHERE type IN ('table', 'view')",
            )
            .and_then(|mut st| {
                st.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
                    .collect::<Result<Vec<_>, _>>()
            })
            .map_err(|e| super::guard::classify_open_error(e, path))?;
        let mut tables = BTreeMap::new();
        for (name, kind, sql) in entries {
            if !is_read_by_rooftrace(&name) {
                tables.insert(name, BTreeSet::new());
                continue;
            }
            let is_virtual = sql
                .trim_start()
                .get(..20)
                .is_some_and(|p| p.eq_ignore_ascii_case("CREATE VIRTUAL TABLE"));
            if kind != "table" || is_virtual {
                return Err(NsysError::NotATable {
                    path: path.to_path_buf(),
                    table: crate::units::ellipsize(&name, 80),
                    kind: if is_virtual {
                        "virtual table".into()
                    } else {
                        kind
                    },
                });
            }
            let cols: BTreeSet<String> = conn
                .prepare("SELECT name FROM pragma_table_info(?1)")
                .and_then(|mut st| {
                    st.query_map([&name], |r| r.get::<_, String>(0))?
                        .collect::<Result<BTreeSet<_>, _>>()
                })
                .map_err(|e| super::guard::classify(e, path, &name))?;
            tables.insert(name, cols);
        }
        Ok(Schema { tables })
    }

    /// True when the table exists.
    pub fn has_table(&self, table: &str) -> bool {
        self.tables.contains_key(table)
    }

    /// True when the table exists and has the column.
    pub fn has_column(&self, table: &str, column: &str) -> bool {
        self.tables.get(table).is_some_and(|c| c.contains(column))
    }

    /// Errors unless the table has every column in `cols`.
    pub fn require(&self, path: &Path, table: &str, cols: &[&str]) -> Result<(), NsysError> {
        for c in cols {
            if !self.has_column(table, c) {
                return Err(NsysError::MissingColumn {
                    path: path.to_path_buf(),
                    table: table.to_string(),
                    column: c.to_string(),
                });
            }
        }
        Ok(())
    }

    /// Which metadata table the export has.
    pub fn flavor(&self) -> SchemaFlavor {
        if self.has_table("META_DATA_EXPORT") {
            SchemaFlavor::MetaDataExport
        } else if self.has_table("EXPORT_META_DATA") {
            SchemaFlavor::ExportMetaData
        } else {
            SchemaFlavor::NoMetadata
        }
    }

    /// True when this looks like an nsys export at all.
    pub fn is_nsys(&self) -> bool {
        self.has_table("StringIds")
            || self
                .tables
                .keys()
                .any(|t| t.starts_with("CUPTI_ACTIVITY_KIND_") || t == "NVTX_EVENTS")
    }
}

/// True for the names a reader of ours may open: these must be plain tables.
fn is_read_by_rooftrace(name: &str) -> bool {
    name == "StringIds"
        || name.starts_with("CUPTI_ACTIVITY_KIND_")
        || name.starts_with("NVTX_EVENTS")
        || name.starts_with("NVTX_PAYLOAD_SCHEMA")
        || name.contains("META_DATA")
        || name.starts_with("OSRT_")
        || name.starts_with("PROFILER_OVERHEAD")
        || name.starts_with("TARGET_INFO")
        || name.starts_with("ENUM_")
}
