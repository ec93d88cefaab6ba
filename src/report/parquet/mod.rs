//! Parquet datasets: one file per (entity, input), written with the Apache
//! Arrow project's `parquet` crate through its low-level column writers (no
//! Arrow arrays, no compression codecs: dictionary and RLE encodings only).
//!
//! A [`Dataset`] is columns of one entity (`devices`, `streams`, `gaps`,
//! `nvtx`, `kernels`): the tag columns every row carries (`input_path`,
//! `host`, `rank`, `rank_source`), then the entity's own, typed, with the
//! unit in the name (`idle_ns`, `dram_bytes`). The schema version
//! ([`SCHEMA_VERSION`]) and entity are in the file's key-value metadata.
//! Columns are documented in `docs/parquet-schema.md`; [`gaps`] and [`ncu`]
//! build them from the reports.

pub mod comm;
pub mod gaps;
pub mod ncu;
pub mod ops;
pub mod path;

use crate::many_inputs::InputTag;
use parquet::basic::Type as Physical;
use parquet::data_type::{BoolType, ByteArray, ByteArrayType, DoubleType, Int64Type};
use parquet::errors::ParquetError;
use parquet::file::metadata::KeyValue;
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::types::Type;
use std::io::Write;
use std::sync::Arc;

/// Version of the column layout, in every file's key-value metadata under
/// `rooftrace.schema_version`. Adding a column keeps it; renaming, removing
/// or retyping one bumps it.
pub const SCHEMA_VERSION: &str = "1";

/// Rows per row group: bounds the writer's buffers on big `gaps` files.
const ROW_GROUP_ROWS: usize = 1 << 20;

/// The values of one column; `None` is a null.
#[derive(Debug, Clone)]
pub enum Values {
    /// 64-bit integers.
    I64(Vec<Option<i64>>),
    /// Doubles.
    F64(Vec<Option<f64>>),
    /// UTF-8 strings.
    Str(Vec<Option<String>>),
    /// Booleans.
    Bool(Vec<Option<bool>>),
    /// One string (or null) repeated on every row: the tag columns.
    Repeat(Option<String>, usize),
}

impl Values {
    fn len(&self) -> usize {
        match self {
            Values::I64(v) => v.len(),
            Values::F64(v) => v.len(),
            Values::Str(v) => v.len(),
            Values::Bool(v) => v.len(),
            Values::Repeat(_, n) => *n,
        }
    }
}

/// One named column; `nullable` says whether the schema allows nulls.
#[derive(Debug, Clone)]
pub struct Column {
    /// Column name, with its unit (`idle_ns`).
    pub name: String,
    /// Declared nullable (OPTIONAL) or not (REQUIRED).
    pub nullable: bool,
    /// The values.
    pub values: Values,
}

/// Builds the columns of a range of rows (one row group).
pub type ColumnsOf<'a> = Box<dyn Fn(std::ops::Range<usize>) -> Vec<Column> + Send + Sync + 'a>;

/// The rows of one entity of one input, built one row group at a time, so
/// a big entity (millions of gaps) never exists as columns all at once.
pub struct Dataset<'a> {
    /// The entity: the directory under the output (`devices`).
    pub entity: &'static str,
    /// The subcommand that made it (`gaps`, `ncu`).
    pub command: &'static str,
    /// Rows in all.
    pub rows: usize,
    /// The columns of a range of rows (`0..0` gives the schema).
    pub columns: ColumnsOf<'a>,
}

impl<'a> Dataset<'a> {
    /// A dataset of `rows` rows whose row groups `columns` builds.
    pub fn new(
        command: &'static str,
        entity: &'static str,
        rows: usize,
        columns: impl Fn(std::ops::Range<usize>) -> Vec<Column> + Send + Sync + 'a,
    ) -> Dataset<'a> {
        Dataset {
            entity,
            command,
            rows,
            columns: Box::new(columns),
        }
    }
}

/// Builds the columns of a row group, the tag columns first.
pub struct Builder {
    columns: Vec<Column>,
    rows: usize,
}

impl Builder {
    /// Columns for `rows` rows of `tag`'s input, starting with the tag
    /// columns: `input_path`, `host`, `rank`, `rank_source`.
    pub fn new(tag: &InputTag, rows: usize) -> Builder {
        let mut b = Builder {
            columns: Vec::new(),
            rows,
        };
        b.push(
            "input_path",
            false,
            Values::Repeat(Some(tag.input.clone()), rows),
        );
        b.push("host", true, Values::Repeat(tag.host.clone(), rows));
        b.i64("rank", true, vec![tag.rank.map(i64::from); rows]);
        b.push(
            "rank_source",
            false,
            Values::Repeat(Some(tag.rank_source.text()), rows),
        );
        b
    }

    fn push(&mut self, name: &str, nullable: bool, values: Values) -> &mut Self {
        debug_assert_eq!(values.len(), self.rows, "column {name}");
        self.columns.push(Column {
            name: name.to_string(),
            nullable,
            values,
        });
        self
    }

    /// An integer column.
    pub fn i64(&mut self, name: &str, nullable: bool, v: Vec<Option<i64>>) -> &mut Self {
        self.push(name, nullable, Values::I64(v))
    }

    /// A double column.
    pub fn f64(&mut self, name: &str, nullable: bool, v: Vec<Option<f64>>) -> &mut Self {
        self.push(name, nullable, Values::F64(v))
    }

    /// A string column.
    pub fn str(&mut self, name: &str, nullable: bool, v: Vec<Option<String>>) -> &mut Self {
        self.push(name, nullable, Values::Str(v))
    }

    /// A boolean column.
    pub fn bool(&mut self, name: &str, nullable: bool, v: Vec<Option<bool>>) -> &mut Self {
        self.push(name, nullable, Values::Bool(v))
    }

    /// The columns.
    pub fn finish(self) -> Vec<Column> {
        self.columns
    }
}

fn schema_of(columns: &[Column]) -> Result<Type, ParquetError> {
    let fields = columns
        .iter()
        .map(|c| {
            let (physical, logical) = match c.values {
                Values::I64(_) => (Physical::INT64, None),
                Values::F64(_) => (Physical::DOUBLE, None),
                Values::Str(_) | Values::Repeat(..) => (
                    Physical::BYTE_ARRAY,
                    Some(parquet::basic::LogicalType::String),
                ),
                Values::Bool(_) => (Physical::BOOLEAN, None),
            };
            let rep = if c.nullable {
                parquet::basic::Repetition::OPTIONAL
            } else {
                parquet::basic::Repetition::REQUIRED
            };
            Type::primitive_type_builder(&c.name, physical)
                .with_repetition(rep)
                .with_logical_type(logical)
                .build()
                .map(Arc::new)
        })
        .collect::<Result<Vec<_>, _>>()?;
    Type::group_type_builder("schema")
        .with_fields(fields)
        .build()
}

/// Writes `ds` as one Parquet file to `out`; returns `out`, flushed.
pub fn write_dataset<W: Write + Send>(out: W, ds: &Dataset) -> Result<W, ParquetError> {
    let props = WriterProperties::builder()
        .set_created_by(format!("rooftrace {}", env!("CARGO_PKG_VERSION")))
        .set_max_row_group_row_count(Some(ROW_GROUP_ROWS))
        .set_key_value_metadata(Some(vec![
            KeyValue::new(
                "rooftrace.schema_version".into(),
                SCHEMA_VERSION.to_string(),
            ),
            KeyValue::new("rooftrace.entity".into(), ds.entity.to_string()),
            KeyValue::new("rooftrace.command".into(), ds.command.to_string()),
        ]))
        .build();
    let schema = schema_of(&(ds.columns)(0..0))?;
    let mut w = SerializedFileWriter::new(out, Arc::new(schema), Arc::new(props))?;
    let rows = ds.rows;
    let mut start = 0;
    // At least one row group, so a zero-row file still carries the schema.
    loop {
        let end = (start + ROW_GROUP_ROWS).min(rows);
        let mut rg = w.next_row_group()?;
        for c in (ds.columns)(start..end) {
            let Some(mut cw) = rg.next_column()? else {
                break;
            };
            write_column(&mut cw, &c.values, c.nullable)?;
            cw.close()?;
        }
        rg.close()?;
        start = end;
        if start >= rows {
            break;
        }
    }
    // Writes the footer.
    let mut out = w.into_inner()?;
    out.flush()?;
    Ok(out)
}

/// Values and definition levels (1 = present, 0 = null) of a slice.
fn split<T: Clone>(v: &[Option<T>]) -> (Vec<T>, Vec<i16>) {
    let mut vals = Vec::with_capacity(v.len());
    let mut defs = Vec::with_capacity(v.len());
    for x in v {
        match x {
            Some(x) => {
                vals.push(x.clone());
                defs.push(1);
            }
            None => defs.push(0),
        }
    }
    (vals, defs)
}

fn write_column(
    cw: &mut parquet::file::writer::SerializedColumnWriter<'_>,
    values: &Values,
    nullable: bool,
) -> Result<(), ParquetError> {
    macro_rules! put {
        ($ty:ty, $v:expr, $map:expr) => {{
            let (vals, defs) = split(&$v[..]);
            let vals: Vec<_> = vals.into_iter().map($map).collect();
            if !nullable && defs.contains(&0) {
                return Err(ParquetError::General("null in a required column".into()));
            }
            cw.typed::<$ty>()
                .write_batch(&vals, nullable.then_some(defs.as_slice()), None)?;
        }};
    }
    match values {
        Values::I64(v) => put!(Int64Type, v, |x| x),
        Values::F64(v) => put!(DoubleType, v, |x| x),
        Values::Bool(v) => put!(BoolType, v, |x| x),
        Values::Str(v) => put!(ByteArrayType, v, |s: String| ByteArray::from(
            s.into_bytes()
        )),
        Values::Repeat(v, n) => {
            let one = v.as_ref().map(|s| ByteArray::from(s.as_bytes().to_vec()));
            // The clones share one buffer.
            put!(ByteArrayType, vec![one; *n], |b| b)
        }
    }
    Ok(())
}
