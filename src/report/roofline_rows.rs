//! The `rooftrace ncu` report's CSV and JSON, every row, written to the
//! output row by row as they are rendered (a details page of 100,000
//! launches is 100,000 rows; issue 32): CSV cells formatted into one reused
//! buffer, JSON serialised straight to the writer, the unknowns of a report
//! without roofs or of rate-only rows blanked one row at a time.

use super::roofline_clock::clock_line;
use crate::ncu::Source;
use crate::roofline::{Bound, KernelRoofline, RooflineReport};
use crate::roofs::ComputePath;
use std::fmt::Write as _;
use std::io::{self, Write};

fn source_key(s: Option<Source>) -> &'static str {
    s.map_or("", Source::key)
}

/// A CSV writer that formats numbers into one reused buffer: no `String`
/// per cell.
struct Cells<W: Write> {
    w: csv::Writer<W>,
    buf: String,
}

impl<W: Write> Cells<W> {
    fn text(&mut self, s: &str) -> csv::Result<()> {
        self.w.write_field(s)
    }

    /// `f64`'s `Display` (shortest round-trip, no exponent).
    fn num(&mut self, v: f64) -> csv::Result<()> {
        self.buf.clear();
        let _ = write!(self.buf, "{v}");
        self.w.write_field(&self.buf)
    }

    /// A number, or a blank cell (unknown).
    fn opt(&mut self, v: Option<f64>) -> csv::Result<()> {
        match v {
            Some(v) => self.num(v),
            None => self.w.write_field(""),
        }
    }

    fn int(&mut self, v: u64) -> csv::Result<()> {
        self.buf.clear();
        let _ = write!(self.buf, "{v}");
        self.w.write_field(&self.buf)
    }

    fn flag(&mut self, v: bool) -> csv::Result<()> {
        self.w.write_field(if v { "true" } else { "false" })
    }

    fn end(&mut self) -> csv::Result<()> {
        self.w.write_record(None::<&[u8]>)
    }
}

/// A `csv` error as the I/O error it carries (a closed pipe stays a
/// broken pipe).
fn csv_io(e: csv::Error) -> io::Error {
    match e.into_kind() {
        csv::ErrorKind::Io(e) => e,
        other => io::Error::other(format!("{other:?}")),
    }
}

/// The CSV header: SI units in the column names.
fn csv_header() -> Vec<String> {
    let mut header: Vec<String> = [
        "rank",
        "id",
        "process_id",
        "name",
        "launches",
        "duration_ns",
        "dram_bytes",
        "dram_source",
        "l2_bytes",
        "l2_source",
        "l1_bytes",
        "flop",
        "flop_source",
        "flop_unknown",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    header.extend(ComputePath::ALL.iter().map(|p| format!("flop_{}", p.key())));
    header.extend(
        [
            "intensity_flop_per_byte",
            "intensity_l2_flop_per_byte",
            "intensity_l1_flop_per_byte",
            "achieved_flop_per_s",
            "achieved_dram_bytes_per_s",
            "compute_time_ns",
            "memory_time_ns",
            "bound_time_ns",
            "lower_bound",
            "bound",
            "roof_flop_per_s",
            "fraction_of_roof",
            "time_lost_ns",
            "above_roof",
            "bandwidth_only",
            "label",
            "padding_implied_rows",
            "useful_flop",
            "useful_intensity_flop_per_byte",
            "useful_fraction_of_roof",
            "useful_source",
            "sm_clock_hz",
            "dram_clock_hz",
            "gpu",
            "roofs",
        ]
        .iter()
        .map(|s| s.to_string()),
    );
    header
}

/// CSV, one row per kernel (all rows), SI units in the column names,
/// written to `out` row by row.
pub(super) fn write_csv(r: &RooflineReport, out: &mut dyn Write) -> io::Result<()> {
    let mut c = Cells {
        w: csv::Writer::from_writer(out),
        buf: String::new(),
    };
    c.w.write_record(csv_header()).map_err(csv_io)?;
    // Every output names its roofs: here as two columns repeated per row,
    // so the file stays one tidy table.
    let gpu = format!(
        "{} (chosen by {})",
        r.gpu.key.as_deref().unwrap_or(&r.gpu.name),
        crate::report::gpu_choice::chosen_by(&r.gpu.chosen_by)
    );
    let mut used: Vec<String> = r
        .used_memory_roofs()
        .iter()
        .map(|(l, m)| format!("{}={} byte/s {}", l.key(), m.bytes_per_s, m.origin.key()))
        .collect();
    used.extend(
        r.used_compute_roofs()
            .iter()
            .map(|(p, c)| format!("{}={} FLOP/s {}", p.key(), c.flop_per_s, c.origin.key())),
    );
    let roofs = format!("{}: {}; {}", r.roofs.source, used.join("; "), clock_line(r));
    for (i, k) in r.kernels.iter().enumerate() {
        csv_row(&mut c, r, i, k, &gpu, &roofs).map_err(csv_io)?;
    }
    c.w.flush()
}

/// One CSV row. A cell that needs the row's time is blank (unknown) in a
/// rate-only row; one that needs a roof is blank in a report without roofs.
fn csv_row<W: Write>(
    c: &mut Cells<W>,
    r: &RooflineReport,
    i: usize,
    k: &KernelRoofline,
    gpu: &str,
    roofs: &str,
) -> csv::Result<()> {
    let timed = !k.rate_only;
    let roofed = !r.roofless();
    c.int(i as u64 + 1)?;
    c.int(k.id)?;
    match k.process_id {
        Some(p) => c.int(p)?,
        None => c.text("")?,
    }
    c.text(&k.name)?;
    c.int(k.launches)?;
    c.opt(Some(k.duration_ns).filter(|_| timed))?;
    c.opt(k.dram_bytes.filter(|_| timed))?;
    c.text(source_key(k.dram_source))?;
    c.opt(k.l2_bytes.filter(|_| timed))?;
    c.text(source_key(k.l2_source))?;
    c.opt(k.l1_bytes.filter(|_| timed))?;
    c.opt(k.flop.filter(|_| timed))?;
    c.text(source_key(k.flop_source))?;
    c.buf.clear();
    for (n, g) in k.flop_unknown.iter().enumerate() {
        if n > 0 {
            c.buf.push(' ');
        }
        c.buf.push_str(g.key());
    }
    c.w.write_field(&c.buf)?;
    for p in ComputePath::ALL {
        c.opt(k.flop_by_path.get(&p).copied().filter(|_| timed))?;
    }
    c.opt(k.intensity)?;
    c.opt(k.intensity_l2)?;
    c.opt(k.intensity_l1)?;
    c.opt(k.achieved_flop_per_s)?;
    c.opt(k.achieved_dram_bytes_per_s)?;
    c.opt(k.compute_time_ns.filter(|_| roofed && timed))?;
    c.opt(k.memory_time_ns.filter(|_| roofed && timed))?;
    c.opt(Some(k.bound_time_ns).filter(|_| roofed && timed))?;
    c.flag(k.lower_bound)?;
    c.text(if roofed {
        k.bound.map_or("", Bound::key)
    } else {
        ""
    })?;
    c.opt(k.roof_flop_per_s.filter(|_| roofed))?;
    c.opt(Some(k.fraction_of_roof).filter(|_| roofed))?;
    c.opt(Some(k.time_lost_ns).filter(|_| roofed && timed))?;
    if roofed {
        c.flag(k.above_roof)?;
    } else {
        c.text("")?;
    }
    c.flag(k.bandwidth_only)?;
    c.text(&k.label)?;
    c.opt(k.padding.as_ref().map(|p| p.implied_rows))?;
    c.opt(k.useful.as_ref().map(|u| u.flop))?;
    c.opt(k.useful.as_ref().and_then(|u| u.intensity))?;
    c.opt(k.useful.as_ref().map(|u| u.fraction_of_roof))?;
    c.text(k.useful.as_ref().map_or("", |u| u.source.as_str()))?;
    c.opt(k.sm_clock_hz)?;
    c.opt(k.dram_clock_hz)?;
    c.text(gpu)?;
    c.text(roofs)?;
    c.end()
}

/// Row fields that need a roof: unknown (`null`, blank) in a report
/// without roofs ([`RooflineReport::roofless`]).
const ROOF_DEPENDENT: [&str; 8] = [
    "compute_time_ns",
    "memory_time_ns",
    "bound_time_ns",
    "bound",
    "roof_flop_per_s",
    "fraction_of_roof",
    "time_lost_ns",
    "above_roof",
];

/// Row fields that need the row's time: unknown in a rate-only row.
const TIME_DEPENDENT: [&str; 11] = [
    "duration_ns",
    "dram_bytes",
    "l2_bytes",
    "l1_bytes",
    "flop",
    "flop_by_path",
    "compute_time_ns",
    "memory_time_ns",
    "bound_time_ns",
    "time_lost_ns",
    "useful",
];

/// Pretty JSON (schema `rooftrace.ncu/1`, documented in
/// docs/json-schema-ncu.md), newline-terminated, written to `out` as it is
/// serialised.
pub(super) fn write_json(r: &RooflineReport, out: &mut dyn Write) -> io::Result<()> {
    // A concrete buffer: serde's many small writes stay inlined instead of
    // each crossing `dyn Write`.
    let mut w = io::BufWriter::with_capacity(1 << 16, out);
    serde_json::to_writer_pretty(&mut w, &AsWritten(r))?;
    w.write_all(b"\n")?;
    w.flush()
}

/// A report as its JSON shows it, wherever it is written (alone, or inside
/// `rooftrace.multi-ncu/1`): its unknowns (no roofs, rate-only rows) `null`,
/// never the model's placeholders (0 for no roof, a second for no time).
pub(super) struct AsWritten<'a>(pub(super) &'a RooflineReport);

impl serde::Serialize for AsWritten<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let r = self.0;
        if !r.roofless() && !r.kernels.iter().any(|k| k.rate_only) {
            // Nothing to blank: the fields in the model's order.
            r.serialize(s)
        } else {
            Blanked(r).serialize(s)
        }
    }
}

/// A report with unknowns to blank (no roofs, rate-only rows), serialised
/// as a JSON object in the order of `serde_json::Value` (its keys sorted,
/// the shape this output has always had): the report without its rows made
/// a `Value`, the rows made one `Value` each as they are written.
struct Blanked<'a>(&'a RooflineReport);

impl serde::Serialize for Blanked<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{Error, SerializeMap};
        let r = self.0;
        let head = RooflineReport {
            schema: r.schema,
            input: r.input.clone(),
            page: r.page.clone(),
            group_by: r.group_by,
            gpu: r.gpu.clone(),
            clock: r.clock.clone(),
            roofs: r.roofs.clone(),
            roofs_used: r.roofs_used.clone(),
            launches_total: r.launches_total,
            launches_analysed: r.launches_analysed,
            total_duration_ns: r.total_duration_ns,
            total_time_lost_ns: r.total_time_lost_ns,
            kernels: Vec::new(),
            diagnostics: r.diagnostics.clone(),
        };
        let mut value = serde_json::to_value(&head).map_err(S::Error::custom)?;
        if r.roofless() {
            // No roofs: what depends on them is unknown, not zero.
            value["total_time_lost_ns"] = serde_json::Value::Null;
        }
        if !r.kernels.is_empty() && r.kernels.iter().all(|k| k.rate_only) {
            value["total_duration_ns"] = serde_json::Value::Null;
            value["total_time_lost_ns"] = serde_json::Value::Null;
        }
        let serde_json::Value::Object(fields) = value else {
            return Err(S::Error::custom("the report serialises as an object"));
        };
        let mut m = s.serialize_map(Some(fields.len()))?;
        for (key, v) in &fields {
            if key == "kernels" {
                m.serialize_entry(key, &BlankedRows(r))?;
            } else {
                m.serialize_entry(key, v)?;
            }
        }
        m.end()
    }
}

/// The rows of [`Blanked`], each a `Value` with its unknowns `null`.
struct BlankedRows<'a>(&'a RooflineReport);

impl serde::Serialize for BlankedRows<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{Error, SerializeSeq};
        let r = self.0;
        let mut seq = s.serialize_seq(Some(r.kernels.len()))?;
        for k in &r.kernels {
            let mut row = serde_json::to_value(k).map_err(S::Error::custom)?;
            if r.roofless() {
                for f in ROOF_DEPENDENT {
                    row[f] = serde_json::Value::Null;
                }
            }
            if k.rate_only {
                // Rates only: no time, so no amounts either.
                for f in TIME_DEPENDENT {
                    row[f] = serde_json::Value::Null;
                }
            }
            seq.serialize_element(&row)?;
        }
        seq.end()
    }
}
