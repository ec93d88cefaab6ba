//! Schema probing: which tables exist (nsys exports a table only when it has
//! data, unless `--lazy=false`) and which columns each has (columns were
//! added across versions, and users sometimes add their own).

use super::NsysError;
use rusqlite::Connection;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Which metadata table the export carries: a rough era marker.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SchemaFlavor {
    /// No metadata table (nsys 2021.x).
    NoMetadata,
    /// `EXPORT_META_DATA` (nsys 2022.x to 2023.2).
    ExportMetaData,
    /// `META_DATA_EXPORT` (nsys 2023.3 and later).
    MetaDataExport,
}

/// Tables and their columns.
#[derive(Debug, Clone, Default)]
pub struct Schema {
    tables: BTreeMap<String, BTreeSet<String>>,
}

impl Schema {
    /// Reads the table list and each relevant table's columns.
    pub fn probe(conn: &Connection, path: &Path) -> Result<Schema, NsysError> {
        let names: Vec<String> = conn
            .prepare("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")
            .and_then(|mut st| {
                st.query_map([], |r| r.get::<_, String>(0))?
                    .collect::<Result<Vec<_>, _>>()
            })
            .map_err(|e| classify_open_error(e, path))?;
        let mut tables = BTreeMap::new();
        for name in names {
            let interesting = name == "StringIds"
                || name.starts_with("CUPTI_ACTIVITY_KIND_")
                || name.starts_with("NVTX_EVENTS")
                || name.contains("META_DATA")
                || matches!(
                    name.as_str(),
                    "OSRT_API"
                        | "PROFILER_OVERHEAD"
                        | "ENUM_CUDA_MEM_KIND"
                        | "ENUM_CUPTI_SYNC_TYPE"
                );
            if !interesting {
                tables.insert(name, BTreeSet::new());
                continue;
            }
            let cols: BTreeSet<String> = conn
                .prepare(&format!("PRAGMA table_info(\"{name}\")"))
                .and_then(|mut st| {
                    st.query_map([], |r| r.get::<_, String>(1))?
                        .collect::<Result<BTreeSet<_>, _>>()
                })
                .map_err(|source| NsysError::Sqlite {
                    path: path.to_path_buf(),
                    table: name.clone(),
                    source,
                })?;
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

/// "file is not a database" and friends become [`NsysError::NotSqlite`].
pub(super) fn classify_open_error(e: rusqlite::Error, path: &Path) -> NsysError {
    match &e {
        rusqlite::Error::SqliteFailure(f, _)
            if matches!(
                f.code,
                rusqlite::ErrorCode::NotADatabase | rusqlite::ErrorCode::DatabaseCorrupt
            ) =>
        {
            NsysError::NotSqlite {
                path: path.to_path_buf(),
                detail: e.to_string(),
            }
        }
        _ => NsysError::Sqlite {
            path: path.to_path_buf(),
            table: "sqlite_master".into(),
            source: e,
        },
    }
}
