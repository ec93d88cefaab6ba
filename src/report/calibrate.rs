//! Presents a calibration: measured roofs vs datasheet, ridge points and
//! notes, as a table, Markdown, CSV or JSON. Returns bytes.

use super::table::Table;
use super::{Format, Render, RenderOptions, MARKDOWN_LIMIT_CHARS};
use crate::calibrate::CalibrateReport;
use crate::units::{percent, si};
use serde_json::json;

/// Schema tag of `rooftrace calibrate --format json`.
pub const CALIBRATE_REPORT_SCHEMA: &str = "rooftrace.calibrate-report/1";

fn opt_si(v: Option<f64>, unit: &str) -> String {
    v.map(|v| si(v, unit)).unwrap_or_else(|| "-".to_string())
}

fn opt_pct(v: Option<f64>) -> String {
    v.map(percent).unwrap_or_else(|| "-".to_string())
}

fn ridge_cell(v: Option<f64>) -> String {
    v.map(|v| format!("{v:.1}"))
        .unwrap_or_else(|| "-".to_string())
}

/// The SM clock a roof ran at, with any throttle reason: `1755 MHz
/// (sw_power_cap)`; `unknown` when the run did not record it.
fn clock_cell(row: &crate::calibrate::compare::RoofRow) -> String {
    let Some(hz) = row.sm_clock_hz else {
        return "unknown".to_string();
    };
    let mut s = format!("{:.0} MHz", hz / 1e6);
    if !row.throttle_reasons.is_empty() {
        s.push_str(&format!(" ({})", row.throttle_reasons.join(", ")));
    }
    s
}

fn tables(r: &CalibrateReport) -> (Table, Table) {
    let mut roofs = Table::new(
        &[
            "roof",
            "measured",
            "datasheet",
            "% of datasheet",
            "IQR",
            "kernel",
            "shape",
            "SM clock",
        ],
        &[0, 5, 6, 7],
    );
    for row in &r.comparison.roofs {
        let unit = row.roof.unit();
        roofs.push(vec![
            row.roof.label().to_string(),
            si(row.measured, unit),
            opt_si(row.datasheet, unit),
            opt_pct(row.fraction_of_datasheet),
            opt_pct(row.iqr_fraction),
            row.kernel.clone(),
            row.shape.clone(),
            clock_cell(row),
        ]);
    }
    let mut ridges = Table::new(
        &[
            "compute path",
            "ridge measured (FLOP/B)",
            "ridge datasheet (FLOP/B)",
        ],
        &[0],
    );
    for row in &r.comparison.ridges {
        ridges.push(vec![
            row.path.label().to_string(),
            ridge_cell(row.measured_flop_per_byte),
            ridge_cell(row.datasheet_flop_per_byte),
        ]);
    }
    (roofs, ridges)
}

fn header(r: &CalibrateReport) -> Vec<String> {
    let d = &r.calibration.device;
    let mut v = vec![
        format!(
            "GPU: {} (cc {}, {} SMs, L2 {:.0} MiB)",
            d.name,
            d.cc,
            d.sm_count,
            d.l2_bytes as f64 / (1u64 << 20) as f64
        ),
        format!("Roofs: {}", r.calibration.roofs.source),
    ];
    match &r.datasheet_source {
        Some(s) => v.push(format!("Datasheet: {s}")),
        None => v.push(format!(
            "Datasheet: {} is not in the built-in GPU table, so no % of datasheet (compare with a file: --datasheet roofs.json)",
            d.name
        )),
    }
    v
}

/// Percent with no decimal, for the one-line verdict: `92 %`.
fn whole_percent(fraction: f64) -> String {
    format!("{:.0} %", fraction * 100.0)
}

/// The one-line verdict that opens the Markdown report: every measured roof
/// with its share of the datasheet, e.g. `NVIDIA H100 80GB HBM3: DRAM
/// 3.08 TB/s (92 % of datasheet), FP32 cores 61.5 TFLOP/s (92 %), …`.
pub fn verdict(r: &CalibrateReport) -> String {
    let gpu = &r.calibration.device.name;
    if r.comparison.roofs.is_empty() {
        return format!("{gpu}: no roof could be measured (see the notes)");
    }
    let mut first_pct = true;
    let parts: Vec<String> = r
        .comparison
        .roofs
        .iter()
        .map(|row| {
            let value = si(row.measured, row.roof.unit());
            match row.fraction_of_datasheet {
                Some(f) if first_pct => {
                    first_pct = false;
                    format!(
                        "{} {value} ({} of datasheet)",
                        row.roof.label(),
                        whole_percent(f)
                    )
                }
                Some(f) => format!("{} {value} ({})", row.roof.label(), whole_percent(f)),
                None => format!("{} {value}", row.roof.label()),
            }
        })
        .collect();
    let mut v = format!("{gpu}: {}", parts.join(", "));
    if r.datasheet_source.is_none() {
        v.push_str(" (no datasheet to compare with)");
    }
    match r.calibration.notes.len() {
        0 => {}
        1 => v.push_str("; 1 note"),
        n => v.push_str(&format!("; {n} notes")),
    }
    v
}

/// Markdown for a pull-request comment: the verdict line, the plots
/// (`images`), the roofs beside the datasheet, the ridge points and the
/// notes; notes are cut, with a count, so the whole stays within
/// [`MARKDOWN_LIMIT_CHARS`].
fn render_markdown(r: &CalibrateReport, images: &[(String, String)]) -> Vec<u8> {
    let (roofs, ridges) = tables(r);
    let mut s = verdict(r);
    s.push_str("\n\n");
    for (alt, link) in images {
        s.push_str(&format!("![{alt}]({link})\n\n"));
    }
    s.push_str("## Measured roofs\n\n");
    for h in header(r) {
        s.push_str(&format!("{h}  \n"));
    }
    s.push('\n');
    s.push_str(&roofs.to_markdown());
    s.push_str("\n### Ridge points\n\n");
    s.push_str(&ridges.to_markdown());
    let notes = &r.calibration.notes;
    if !notes.is_empty() {
        s.push_str("\n### Notes\n\n");
        // Room for the "more notes" line.
        let budget = MARKDOWN_LIMIT_CHARS.saturating_sub(120);
        let mut len = s.chars().count();
        for (i, n) in notes.iter().enumerate() {
            let line = format!("- {n}\n");
            let l = line.chars().count();
            if len + l > budget {
                s.push_str(&format!(
                    "- … {} more notes left out to fit a comment (`--format table` shows all)\n",
                    notes.len() - i
                ));
                break;
            }
            len += l;
            s.push_str(&line);
        }
    }
    s.into_bytes()
}

impl Render for CalibrateReport {
    /// Every roof in every format (`opts.top` does not apply); Markdown
    /// embeds `opts.images` under the verdict.
    fn render(&self, format: Format, opts: &RenderOptions) -> Vec<u8> {
        match format {
            Format::Table => render_table(self),
            Format::Markdown => render_markdown(self, &opts.images),
            Format::Csv => render_csv(self),
            Format::Json => render_json(self),
        }
    }
}

fn render_table(r: &CalibrateReport) -> Vec<u8> {
    let (roofs, ridges) = tables(r);
    let mut s = header(r).join("\n");
    s.push_str("\n\n");
    s.push_str(&roofs.to_text());
    s.push('\n');
    s.push_str(&ridges.to_text());
    if !r.calibration.notes.is_empty() {
        s.push_str("\nNotes:\n");
        for n in &r.calibration.notes {
            s.push_str(&format!("  {n}\n"));
        }
    }
    s.into_bytes()
}

fn render_csv(r: &CalibrateReport) -> Vec<u8> {
    let mut w = csv::Writer::from_writer(Vec::new());
    let _ = w.write_record([
        "roof",
        "unit",
        "measured",
        "datasheet",
        "fraction_of_datasheet",
        "iqr_fraction",
        "kernel",
        "shape",
        "sm_clock_hz",
    ]);
    let num = |v: Option<f64>| v.map(|v| format!("{v:.6e}")).unwrap_or_default();
    for row in &r.comparison.roofs {
        let _ = w.write_record([
            row.roof.key().to_string(),
            row.roof.unit().to_string(),
            format!("{:.6e}", row.measured),
            num(row.datasheet),
            row.fraction_of_datasheet
                .map(|f| format!("{f:.4}"))
                .unwrap_or_default(),
            row.iqr_fraction
                .map(|f| format!("{f:.4}"))
                .unwrap_or_default(),
            row.kernel.clone(),
            row.shape.clone(),
            num(row.sm_clock_hz),
        ]);
    }
    w.into_inner().unwrap_or_default()
}

fn render_json(r: &CalibrateReport) -> Vec<u8> {
    let rows: Vec<_> = r
        .comparison
        .roofs
        .iter()
        .map(|row| {
            json!({
                "roof": row.roof.key(),
                "unit": row.roof.unit(),
                "measured": row.measured,
                "datasheet": row.datasheet,
                "fraction_of_datasheet": row.fraction_of_datasheet,
                "iqr_fraction": row.iqr_fraction,
                "kernel": row.kernel,
                "shape": row.shape,
                "sm_clock_hz": row.sm_clock_hz,
                "throttle_reasons": row.throttle_reasons,
            })
        })
        .collect();
    let ridges: Vec<_> = r
        .comparison
        .ridges
        .iter()
        .map(|row| {
            json!({
                "path": row.path.key(),
                "measured_flop_per_byte": row.measured_flop_per_byte,
                "datasheet_flop_per_byte": row.datasheet_flop_per_byte,
            })
        })
        .collect();
    let v = json!({
        "schema": CALIBRATE_REPORT_SCHEMA,
        "gpu": r.calibration.device.name,
        "roofs": r.calibration.roofs,
        "comparison": rows,
        "ridges": ridges,
        "notes": r.calibration.notes,
        "missing": r.calibration.missing,
    });
    let mut s = serde_json::to_string_pretty(&v).unwrap_or_default();
    s.push('\n');
    s.into_bytes()
}
