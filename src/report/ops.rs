//! Renderers of the ops report: aligned table, CSV (one row per op and
//! shapes, or per kernel), Markdown (fits a PR comment) and versioned JSON
//! (`rooftrace.ops/1`), each with "fix first" (the rows losing the most
//! time and what would help) and the rows above the DRAM roof. One list
//! of columns feeds the table and Markdown; unknown figures print as
//! `unknown` (empty in CSV, `null` in JSON), never as 0.

use super::gpu_choice::chosen_by;
use super::table::{cells, md_text, Column, Table};
use super::{dur, or_unknown, push_fitting, Format, Render, RenderOptions};
use crate::ops::{GroupBy, OpRow, OpsReport, UnmodelledRow, FLOP_CONVENTION};
use crate::units::{ellipsize, percent, si};
use serde_json::json;

/// The JSON schema of the report.
pub const OPS_SCHEMA: &str = "rooftrace.ops/1";

impl Render for OpsReport {
    fn render(&self, format: Format, opts: &RenderOptions) -> Vec<u8> {
        match format {
            Format::Table => table(self, opts).into_bytes(),
            Format::Csv => csv(self).into_bytes(),
            Format::Markdown => markdown(self, opts).into_bytes(),
            Format::Json => {
                let mut v = serde_json::to_vec_pretty(&to_json(self)).unwrap_or_default();
                v.push(b'\n');
                v
            }
        }
    }
}

/// The headline: kernel time, what the models cover, and where the most
/// time is lost.
pub fn verdict(r: &OpsReport) -> String {
    let mut s = format!(
        "{} kernels, {} of kernel time; {} modelled from the trace's shapes ({} op shapes, {} convention, docs/ops.md)",
        r.kernels,
        dur(r.kernel_time_ns),
        or_unknown(r.coverage(), percent),
        r.rows.len(),
        FLOP_CONVENTION,
    );
    if let Some(first) = r.fix_first.first() {
        let top = &r.rows[first.row];
        s.push_str(&format!(
            "; fix first: {} loses {} ({} of kernel time) against its bound",
            row_title(top),
            dur(top.time_lost_ns().unwrap_or(0)),
            percent(first.share_of_kernel_time),
        ));
    }
    s
}

/// A row as one phrase: `aten::mm (f32[64,128], f32[128,256])`, or a
/// kernel's name with its ops.
fn row_title(x: &OpRow) -> String {
    if x.shapes.is_empty() {
        ellipsize(&x.name, 96)
    } else {
        format!("{} ({})", ellipsize(&x.name, 96), ellipsize(&x.shapes, 96))
    }
}

/// "Fix first" as lines: each row, its time lost and share of the kernel
/// time, and what would help.
fn fix_first_lines(r: &OpsReport) -> Vec<String> {
    r.fix_first
        .iter()
        .map(|f| {
            let x = &r.rows[f.row];
            format!(
                "{} loses {} ({} of kernel time, {} of its roof): {}",
                row_title(x),
                dur(x.time_lost_ns().unwrap_or(0)),
                percent(f.share_of_kernel_time),
                or_unknown(x.fraction_of_roof(), percent),
                f.remedy.advice()
            )
        })
        .collect()
}

/// Most rows above the DRAM roof named in the notes (the JSON flags each).
const ABOVE_NAMED: usize = 5;

/// The rows above the DRAM roof, one line each (at most
/// [`ABOVE_NAMED`]), with the count first.
fn above_memory_roof_lines(r: &OpsReport) -> Vec<String> {
    let above: Vec<&OpRow> = r.above_memory_roof_rows().collect();
    let Some(roof) = r.dram_bytes_per_s.filter(|_| !above.is_empty()) else {
        return Vec::new();
    };
    let mut v = vec![format!(
        "{} of {} rows moved their compulsory bytes faster than the DRAM roof ({}/s): the model undercounts their bytes, or their data came from cache, not DRAM",
        above.len(),
        r.rows.len(),
        si(roof, "B")
    )];
    for x in above.iter().take(ABOVE_NAMED) {
        v.push(format!(
            "above the DRAM roof: {} at {}/s",
            row_title(x),
            or_unknown(x.achieved_bytes_per_s(), |b| si(b, "B"))
        ));
    }
    if above.len() > ABOVE_NAMED {
        let more = above.len() - ABOVE_NAMED;
        v.push(format!(
            "{more} more {} above the DRAM roof (`above_memory_roof` in the JSON)",
            if more == 1 { "row" } else { "rows" }
        ));
    }
    v
}

/// The GPU and roofs line.
fn gpu_line(r: &OpsReport) -> String {
    format!(
        "GPU: {} (chosen by {}); roofs: {}",
        r.gpu.name,
        chosen_by(&r.gpu.chosen_by),
        if r.roofs_source.is_empty() {
            "none"
        } else {
            &r.roofs_source
        }
    )
}

/// The notes under the tables: what was left out, what the figures mean.
fn notes(r: &OpsReport) -> Vec<String> {
    let mut v = Vec::new();
    if r.ops_without_shapes > 0 {
        v.push(format!(
            "{} ops without recorded shapes (profile with record_shapes=True)",
            r.ops_without_shapes
        ));
    }
    if r.ops_dropped > 0 {
        v.push(format!(
            "{} ops with shapes beyond the reader's bound were not kept; their kernels count as without an op",
            r.ops_dropped
        ));
    }
    let above = r
        .rows
        .iter()
        .filter(|x| x.fraction_of_roof().is_some_and(|f| f > 1.0))
        .count();
    if above > 0 {
        v.push(format!(
            "{above} rows ran faster than their bound: the model's bytes or FLOPs, or the roofs, are wrong for them (the bytes are compulsory traffic, a lower bound)"
        ));
    }
    v.extend(above_memory_roof_lines(r));
    if r.rows.iter().any(|x| x.dtype_from.is_some()) {
        v.push("the input records no element types: each row's type is read off its kernels' names, or assumed (--dtype) where the row says so".into());
    }
    if r.dram_bytes_per_s.is_none() {
        v.push("no DRAM roof for this GPU: bounds and fractions are unknown; give --gpu KEY or --roofs FILE".into());
    }
    v.push("intensity is FLOPs per compulsory byte (each input read once, each output written once): an upper bound on the kernels' own".into());
    v
}

/// A row's element type, and where it came from when the input records
/// none (`bf16 (kernel name)`, `fp32 (assumed)`).
fn dtype_text(x: &OpRow) -> String {
    match x.dtype_from {
        None => x.dtype.key().to_string(),
        Some(from) => format!("{} ({})", x.dtype.key(), from.key().replace('_', " ")),
    }
}

/// The rows' columns; the element type only where the input records none
/// (its rows say where each type came from).
fn op_columns<'a>(width: usize, r: &OpsReport) -> Vec<Column<'a, &'a OpRow>> {
    let (name, shapes) = match r.group_by {
        GroupBy::OpShapes => ("op", "shapes"),
        GroupBy::Kernel => ("kernel", "ops"),
    };
    let mut columns = vec![
        Column::left(name, move |x: &&OpRow| ellipsize(&x.name, width)),
        Column::left(shapes, move |x: &&OpRow| ellipsize(&x.shapes, width)),
    ];
    if r.rows.iter().any(|x| x.dtype_from.is_some()) {
        columns.push(Column::left("type", |x: &&OpRow| dtype_text(x)));
    }
    columns.extend([
        Column::right("launches", |x: &&OpRow| x.launches.to_string()),
        Column::right("kernels", |x: &&OpRow| x.kernels.to_string()),
        Column::right("time", |x: &&OpRow| dur(x.time_ns)),
        Column::right("FLOPs", |x: &&OpRow| si(x.flops as f64, "FLOP")),
        Column::right("bytes", |x: &&OpRow| si(x.bytes as f64, "B")),
        Column::right("FLOP/B", |x: &&OpRow| {
            or_unknown(x.intensity(), |i| format!("{i:.2}"))
        }),
        Column::left("bound", |x: &&OpRow| {
            or_unknown(x.bound, |b| b.key().to_string())
        }),
        Column::right("of roof", |x: &&OpRow| {
            or_unknown(x.fraction_of_roof(), percent)
        }),
        Column::right("lost", |x: &&OpRow| or_unknown(x.time_lost_ns(), dur)),
        Column::left("model", |x: &&OpRow| x.model.to_string()),
    ]);
    columns
}

fn unmodelled_columns<'a>() -> Vec<Column<'a, &'a UnmodelledRow>> {
    vec![
        Column::left("reason", |x: &&UnmodelledRow| x.reason.reason()),
        Column::right("kernels", |x: &&UnmodelledRow| x.kernels.to_string()),
        Column::right("time", |x: &&UnmodelledRow| dur(x.time_ns)),
        Column::left("ops", |x: &&UnmodelledRow| {
            let ops: Vec<String> = x
                .top_ops
                .iter()
                .map(|(n, t)| format!("{} {}", ellipsize(n, 48), dur(*t)))
                .collect();
            ops.join(", ")
        }),
    ]
}

/// What the rows are, for the table's heading.
fn rows_word(r: &OpsReport) -> &'static str {
    match r.group_by {
        GroupBy::OpShapes => "ops",
        GroupBy::Kernel => "kernels",
    }
}

fn shown<T>(v: &[T], top: usize) -> (&[T], usize) {
    let n = if top == 0 { v.len() } else { top.min(v.len()) };
    (&v[..n], v.len() - n)
}

fn table(r: &OpsReport, o: &RenderOptions) -> String {
    let mut out = format!("{}\n{}\n\n", verdict(r), gpu_line(r));
    let rows: Vec<&OpRow> = r.rows.iter().collect();
    let (rows, more) = shown(&rows, o.top);
    let fix = fix_first_lines(r);
    if !fix.is_empty() {
        out.push_str("fix first:\n");
        for (i, line) in fix.iter().enumerate() {
            out.push_str(&format!("  {}. {line}\n", i + 1));
        }
        out.push('\n');
    }
    out.push_str(&format!("{}, most time lost first:\n", rows_word(r)));
    out.push_str(&Table::of_columns(&op_columns(64, r), rows.iter().copied()).to_text());
    if more > 0 {
        out.push_str(&format!(
            "({more} more rows; --top 0 shows all, CSV and JSON have every one)\n"
        ));
    }
    if !r.unmodelled.is_empty() {
        out.push_str("\nkernels without a model:\n");
        out.push_str(&Table::of_columns(&unmodelled_columns(), r.unmodelled.iter()).to_text());
    }
    for n in notes(r) {
        out.push_str(&format!("note: {n}\n"));
    }
    out
}

fn markdown(r: &OpsReport, o: &RenderOptions) -> String {
    let mut out = format!(
        "## rooftrace ops\n\n{}\n\n{}\n\n",
        md_text(&verdict(r)),
        md_text(&gpu_line(r))
    );
    let rows: Vec<&OpRow> = r.rows.iter().collect();
    let (rows, more) = shown(&rows, o.top);
    let mut sections = Vec::new();
    let fix = fix_first_lines(r);
    if !fix.is_empty() {
        let items: Vec<String> = fix
            .iter()
            .enumerate()
            .map(|(i, l)| format!("{}. {}\n", i + 1, md_text(l)))
            .collect();
        sections.push(format!("### Fix first\n\n{}", items.concat()));
    }
    sections.push(format!(
        "### {}, most time lost first\n\n{}{}",
        match r.group_by {
            GroupBy::OpShapes => "Ops",
            GroupBy::Kernel => "Kernels",
        },
        Table::of_columns(&op_columns(64, r), rows.iter().copied()).to_markdown(),
        if more > 0 {
            format!("\n_{more} more rows in the JSON output._\n")
        } else {
            String::new()
        }
    ));
    if !r.unmodelled.is_empty() {
        sections.push(format!(
            "### Kernels without a model\n\n{}",
            Table::of_columns(&unmodelled_columns(), r.unmodelled.iter()).to_markdown()
        ));
    }
    sections.push(super::md_bullets("Notes", &notes(r)));
    push_fitting(&mut out, sections);
    out
}

fn csv(r: &OpsReport) -> String {
    let q = |s: &str| {
        if s.contains([',', '"', '\n']) {
            format!("\"{}\"", s.replace('"', "\"\""))
        } else {
            s.to_string()
        }
    };
    let num = |v: Option<f64>| v.map_or(String::new(), |x| format!("{x:.6e}"));
    let columns: Vec<Column<&OpRow>> = vec![
        Column::left("name", move |x: &&OpRow| q(&x.name)),
        Column::left("shapes", move |x: &&OpRow| q(&x.shapes)),
        Column::left("model", |x: &&OpRow| x.model.to_string()),
        Column::left("dtype", |x: &&OpRow| x.dtype.key().to_string()),
        Column::left("dtype_from", |x: &&OpRow| {
            x.dtype_from.map_or(String::new(), |d| d.key().to_string())
        }),
        Column::left("compute_path", |x: &&OpRow| {
            x.path.map_or(String::new(), |p| p.key().to_string())
        }),
        Column::left("launches", |x: &&OpRow| x.launches.to_string()),
        Column::left("kernels", |x: &&OpRow| x.kernels.to_string()),
        Column::left("time_ns", |x: &&OpRow| x.time_ns.to_string()),
        Column::left("flops", |x: &&OpRow| x.flops.to_string()),
        Column::left("bytes", |x: &&OpRow| x.bytes.to_string()),
        Column::left("intensity_flop_per_byte", move |x: &&OpRow| {
            num(x.intensity())
        }),
        Column::left("bound", |x: &&OpRow| {
            x.bound.map_or(String::new(), |b| b.key().to_string())
        }),
        Column::left("bound_ns", move |x: &&OpRow| num(x.bound_ns)),
        Column::left("fraction_of_roof", move |x: &&OpRow| {
            num(x.fraction_of_roof())
        }),
        Column::left("time_lost_ns", |x: &&OpRow| {
            x.time_lost_ns().map_or(String::new(), |l| l.to_string())
        }),
        Column::left("above_memory_roof", |x: &&OpRow| {
            r.above_memory_roof(x).to_string()
        }),
    ];
    let mut out = columns
        .iter()
        .map(|c| c.header.clone())
        .collect::<Vec<_>>()
        .join(",");
    out.push('\n');
    for row in &r.rows {
        out.push_str(&cells(&columns, &row).join(","));
        out.push('\n');
    }
    out
}

fn to_json(r: &OpsReport) -> serde_json::Value {
    let ops: Vec<serde_json::Value> = r
        .rows
        .iter()
        .map(|x| {
            json!({
                "name": x.name,
                "shapes": x.shapes,
                "model": x.model,
                "dtype": x.dtype.key(),
                "dtype_from": x.dtype_from.map(|d| d.key()),
                "compute_path": x.path.map(|p| p.key()),
                "launches": x.launches,
                "kernels": x.kernels,
                "time_ns": x.time_ns,
                "flops": x.flops,
                "bytes": x.bytes,
                "intensity_flop_per_byte": x.intensity(),
                "bound": x.bound.map(|b| b.key()),
                "bound_ns": x.bound_ns,
                "fraction_of_roof": x.fraction_of_roof(),
                "time_lost_ns": x.time_lost_ns(),
                "achieved_flop_per_s": x.achieved_flop_per_s(),
                "achieved_bytes_per_s": x.achieved_bytes_per_s(),
                "above_memory_roof": r.above_memory_roof(x),
                "link": x.link.as_ref().map(|l| json!({
                    "kind": l.kind.0,
                    "kind_from": l.kind.1,
                    "group_size": l.group_size,
                    "bus_bytes": l.bus_bytes,
                    "link": l.link.as_ref().ok().map(|(name, _)| name),
                    "link_bytes_per_s": l.link.as_ref().ok().map(|(_, bw)| bw),
                    "link_unknown": l.link.as_ref().err(),
                })),
            })
        })
        .collect();
    let fix_first: Vec<serde_json::Value> = r
        .fix_first
        .iter()
        .map(|f| {
            let x = &r.rows[f.row];
            json!({
                "name": x.name,
                "shapes": x.shapes,
                "time_lost_ns": x.time_lost_ns(),
                "share_of_kernel_time": f.share_of_kernel_time,
                "remedy": f.remedy.key(),
                "advice": f.remedy.advice(),
            })
        })
        .collect();
    let unmodelled: Vec<serde_json::Value> = r
        .unmodelled
        .iter()
        .map(|x| {
            json!({
                "reason": x.reason.reason(),
                "kernels": x.kernels,
                "time_ns": x.time_ns,
                "top_ops": x.top_ops.iter().map(|(n, t)| json!({"name": n, "time_ns": t})).collect::<Vec<_>>(),
            })
        })
        .collect();
    json!({
        "schema": OPS_SCHEMA,
        "flop_convention": FLOP_CONVENTION,
        "flop_convention_doc": "docs/ops.md",
        "input": r.input,
        "gpu": r.gpu,
        "roofs_source": r.roofs_source,
        "dram_bytes_per_s": r.dram_bytes_per_s,
        "kernels": r.kernels,
        "kernel_time_ns": r.kernel_time_ns,
        "modelled_time_ns": r.modelled_time_ns,
        "coverage": r.coverage(),
        "ops_without_shapes": r.ops_without_shapes,
        "ops_dropped": r.ops_dropped,
        "group_by": r.group_by.key(),
        "fix_first": fix_first,
        "above_memory_roof": r.above_memory_roof_rows().count(),
        "ops": ops,
        "unmodelled": unmodelled,
    })
}
