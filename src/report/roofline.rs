//! Renderers of the `rooftrace ncu` report: aligned table, CSV, Markdown and
//! JSON, each returning bytes. Table and Markdown show the top N rows; CSV
//! and JSON carry every row.

pub use super::gpu_list::render_gpu_list;
use super::roofline_clock::clock_line;
use super::table::Table;
use super::{Format, Render, RenderOptions, MARKDOWN_LIMIT_CHARS};
use crate::ncu::Source;
use crate::roofline::{Bound, KernelRoofline, RooflineReport};
use crate::roofs::ComputePath;
use crate::units::{duration_ns, percent, si};

fn paths_label(k: &KernelRoofline) -> String {
    if k.bandwidth_only {
        return UNKNOWN.into();
    }
    let mut p: Vec<&str> = k.paths().iter().map(|p| p.label()).collect();
    if k.flop_incomplete() {
        p.push("?");
    }
    if p.is_empty() {
        "none".into()
    } else {
        p.join(" + ")
    }
}

fn notes(k: &KernelRoofline) -> String {
    let mut n: Vec<String> = Vec::new();
    if k.above_roof {
        n.push("above roof".into());
    }
    if k.bandwidth_only {
        n.push("FLOPs unknown".into());
    } else if k.flop_incomplete() {
        n.push("FLOPs partial".into());
    }
    if k.dram_bytes.is_none() {
        n.push("DRAM unknown".into());
    }
    if let Some(u) = &k.useful {
        n.push(format!(
            "useful (--useful-flops): {}, {} of roof{}",
            u.intensity
                .map_or("FLOP/B unknown".into(), |i| format!("{i:.2} FLOP/B")),
            percent(u.fraction_of_roof),
            u.bound
                .map_or(String::new(), |b| format!(", {}-bound", b.key()))
        ));
    } else if let Some(p) = &k.padding {
        n.push(if p.certain {
            "GEMV: tensor FLOPs padded".into()
        } else {
            format!("padding? {:.0} rows", p.implied_rows)
        });
    }
    n.join(", ")
}

/// How a figure not collected prints.
const UNKNOWN: &str = "unknown";

fn opt(v: Option<f64>, unit: &str) -> String {
    v.map_or("-".into(), |v| si(v, unit))
}

/// `>=` before a lower bound.
fn at_least(lower: bool) -> &'static str {
    if lower {
        "≥"
    } else {
        ""
    }
}

/// A figure with its derivation mark (`143 kB r`), or `unknown`.
fn marked(v: Option<f64>, unit: &str, source: Option<Source>, lower: bool) -> String {
    match v {
        None => UNKNOWN.into(),
        Some(v) => {
            let mark = source.map_or("", Source::mark);
            let sep = if mark.is_empty() { "" } else { " " };
            format!("{}{}{sep}{mark}", at_least(lower), si(v, unit))
        }
    }
}

/// The legend of the derivation marks and bounds used in `rows`.
fn legend(rows: &[KernelRoofline]) -> String {
    let mut used: Vec<Source> = rows
        .iter()
        .flat_map(|k| [k.dram_source, k.flop_source])
        .flatten()
        .filter(|s| *s != Source::Counter)
        .collect();
    used.sort();
    used.dedup();
    let mut parts: Vec<String> = used
        .iter()
        .map(|s| format!("{}: {}", s.mark(), s.meaning()))
        .collect();
    if rows.iter().any(|k| k.lower_bound) {
        parts.push(
            "≥ / ≤: bound over the known side only (a side not collected; see diagnostics)".into(),
        );
    }
    if parts.is_empty() {
        String::new()
    } else {
        format!("marks: {}\n", parts.join("; "))
    }
}

/// The roof a row is measured against, in words (`DRAM`, `BF16 tensor`);
/// `unknown` when the bound is not certain.
pub fn roof_label(k: &KernelRoofline) -> String {
    match k.bound {
        Some(Bound::Memory) => "DRAM".into(),
        Some(Bound::Compute) => {
            let p: Vec<&str> = k.paths().iter().map(|p| p.label()).collect();
            p.join(" + ")
        }
        None if k.memory_time_ns.is_some() => "DRAM".into(),
        None => {
            let p: Vec<&str> = k.paths().iter().map(|p| p.label()).collect();
            p.join(" + ")
        }
    }
}

/// A CSV cell that needs the row's time: blank (unknown) for a rate-only row.
fn timed_csv(k: &KernelRoofline, cell: String) -> String {
    if k.rate_only {
        String::new()
    } else {
        cell
    }
}

/// A cell that needs the row's time: unknown for a rate-only row.
fn timed(k: &KernelRoofline, cell: String) -> String {
    if k.rate_only {
        UNKNOWN.into()
    } else {
        cell
    }
}

fn main_table(rows: &[KernelRoofline], roofless: bool) -> Table {
    let mut t = Table::new(
        &[
            "#",
            "kernel",
            "launches",
            "time",
            "DRAM",
            "FLOP",
            "FLOP/B",
            "FLOP/s",
            "DRAM/s",
            "path",
            "bound",
            "of roof",
            "time lost",
            "notes",
        ],
        &[1, 9, 10, 13],
    )
    // On a narrow terminal: time, intensity, bound, fraction and time lost stay longest.
    .with_drop_order(&[13, 8, 7, 2, 9, 4, 5]);
    for (i, k) in rows.iter().enumerate() {
        t.push(vec![
            (i + 1).to_string(),
            k.label.clone(),
            k.launches.to_string(),
            timed(k, duration_ns(k.duration_ns)),
            timed(k, marked(k.dram_bytes, "B", k.dram_source, false)),
            timed(
                k,
                marked(k.flop, "FLOP", k.flop_source, k.flop_incomplete()),
            ),
            k.intensity.map_or("-".into(), |i| {
                format!("{}{i:.2}", at_least(k.flop_incomplete()))
            }),
            k.achieved_flop_per_s.map_or("-".into(), |v| {
                format!("{}{}", at_least(k.flop_incomplete()), si(v, "FLOP/s"))
            }),
            opt(k.achieved_dram_bytes_per_s, "B/s"),
            paths_label(k),
            k.bound.map_or(UNKNOWN, Bound::key).into(),
            if roofless {
                UNKNOWN.into()
            } else {
                format!("{}{}", at_least(k.lower_bound), percent(k.fraction_of_roof))
            },
            if roofless || k.rate_only {
                UNKNOWN.into()
            } else {
                format!(
                    "{}{}",
                    if k.lower_bound { "≤" } else { "" },
                    duration_ns(k.time_lost_ns)
                )
            },
            notes(k),
        ]);
    }
    t
}

fn roofs_table(r: &RooflineReport) -> Table {
    let mut t = Table::new(&["roof", "value", "origin", "source"], &[0, 2, 3]);
    if r.roofless() {
        t.push(vec![
            "none".into(),
            "-".into(),
            "-".into(),
            "the GPU was not decided and the file carries no ncu peaks (see diagnostics)".into(),
        ]);
    }
    for (level, m) in r.used_memory_roofs() {
        t.push(vec![
            level.label().into(),
            si(m.bytes_per_s, "B/s"),
            m.origin.key().into(),
            m.source.clone(),
        ]);
    }
    for (p, c) in r.used_compute_roofs() {
        t.push(vec![
            p.label().into(),
            si(c.flop_per_s, "FLOP/s"),
            c.origin.key().into(),
            c.source.clone(),
        ]);
    }
    t
}

fn header_lines(r: &RooflineReport) -> String {
    let by = match r.group_by {
        crate::roofline::GroupBy::Launch => "launch",
        crate::roofline::GroupBy::Kernel => "kernel",
    };
    format!(
        "input: {} ({}), {} of {} launches analysed, one row per {by}\nGPU: {} (chosen by {})\nroofs: {}\n{}\n",
        r.input,
        r.page,
        r.launches_analysed,
        r.launches_total,
        match &r.gpu.key {
            Some(k) => format!("{k}, {}", r.gpu.name),
            None if r.gpu.undecided() && !r.gpu.candidates.is_empty() => {
                format!("{}, candidates {}", r.gpu.name, r.gpu.candidates.join(", "))
            }
            None => r.gpu.name.clone(),
        },
        r.gpu.chosen_by,
        r.roofs.source,
        clock_line(r),
    )
}

fn shown(r: &RooflineReport, top: usize) -> usize {
    if top == 0 {
        r.kernels.len()
    } else {
        top.min(r.kernels.len())
    }
}

/// The one-line verdict on the biggest opportunity.
pub fn verdict(r: &RooflineReport) -> String {
    let Some(k) = r.kernels.first() else {
        return "no launch could be analysed (see diagnostics)".into();
    };
    if r.roofless() {
        return format!(
            "{}: {} at {} FLOP/byte, {} DRAM; no roofs, so fraction of roof and time lost unknown (GPU not decided{}; pass --gpu) ({})",
            k.label,
            k.achieved_flop_per_s.map_or(UNKNOWN.into(), |v| si(v, "FLOP/s")),
            k.intensity.map_or(UNKNOWN.into(), |i| format!("{i:.2}")),
            opt(k.achieved_dram_bytes_per_s, "B/s"),
            if r.gpu.candidates.is_empty() {
                String::new()
            } else {
                format!(": {}", r.gpu.candidates.join(" or "))
            },
            r.input,
        );
    }
    let roof = roof_label(k);
    let what = match (k.bound, k.flop.is_some(), k.dram_bytes.is_some()) {
        (Some(b), _, _) => format!(
            "{}{} of the {roof} roof, {}-bound",
            at_least(k.lower_bound),
            percent(k.fraction_of_roof),
            b.key()
        ),
        (None, false, _) => format!(
            "at least {} of the DRAM roof (compute unknown: no FLOP counters)",
            percent(k.fraction_of_roof)
        ),
        (None, true, false) => format!(
            "at least {} of the {roof} roof (DRAM bytes unknown)",
            percent(k.fraction_of_roof)
        ),
        (None, true, true) => format!(
            "at least {} of the {roof} roof (bound unknown: FLOPs of some paths not collected)",
            percent(k.fraction_of_roof)
        ),
    };
    // A row whose bound is a lower bound loses at most its time lost: so
    // does the total (the table prints those rows with ≤).
    let at_most = if !r.roofless() && r.kernels.iter().any(|k| k.lower_bound && !k.rate_only) {
        "at most "
    } else {
        ""
    };
    format!(
        "{}: {what}; {at_most}{} of {} lost to the roofline over {} row{} ({} on {})",
        k.label,
        duration_ns(r.total_time_lost_ns),
        duration_ns(r.total_duration_ns),
        r.kernels.len(),
        if r.kernels.len() == 1 { "" } else { "s" },
        r.input,
        r.gpu.key.as_deref().unwrap_or(&r.gpu.name),
    )
}

impl Render for RooflineReport {
    /// Table and Markdown show the top `opts.top` rows (Markdown embeds
    /// `opts.images` under the verdict); CSV and JSON carry every row.
    fn render(&self, format: Format, opts: &RenderOptions) -> Vec<u8> {
        match format {
            Format::Table => render_table(self, opts.top),
            Format::Json => render_json(self),
            Format::Csv => render_csv(self),
            Format::Markdown => render_markdown(self, opts),
        }
    }
}

/// Aligned text with human units.
fn render_table(r: &RooflineReport, top: usize) -> Vec<u8> {
    let n = shown(r, top);
    let mut out = header_lines(r);
    out.push('\n');
    out.push_str(&main_table(&r.kernels[..n], r.roofless()).to_text());
    if n < r.kernels.len() {
        out.push_str(&format!(
            "... {} more rows (--top 0 shows all)\n",
            r.kernels.len() - n
        ));
    }
    out.push_str(&legend(&r.kernels[..n]));
    out.push_str("\nroofs used:\n");
    out.push_str(&roofs_table(r).to_text());
    if !r.diagnostics.is_empty() {
        out.push_str("\ndiagnostics:\n");
        for d in &r.diagnostics {
            out.push_str(&format!("- {} ({}x)", d.message, d.count));
            if !d.examples.is_empty() {
                out.push_str(&format!(": {}", d.examples.join("; ")));
            }
            out.push('\n');
        }
    }
    out.into_bytes()
}

fn num(v: f64) -> String {
    format!("{v}")
}

fn opt_num(v: Option<f64>) -> String {
    v.map(num).unwrap_or_default()
}

fn source_key(s: Option<Source>) -> String {
    s.map_or("", Source::key).to_string()
}

/// CSV, one row per kernel (all rows), SI units in the column names.
fn render_csv(r: &RooflineReport) -> Vec<u8> {
    let mut w = csv::Writer::from_writer(Vec::new());
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
    w.write_record(&header).expect("write to Vec");
    // Every output names its roofs: here as two columns repeated per row,
    // so the file stays one tidy table.
    let gpu = format!(
        "{} (chosen by {})",
        r.gpu.key.as_deref().unwrap_or(&r.gpu.name),
        r.gpu.chosen_by
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
    // No roofs: the roof-dependent cells are blank (unknown), not zero.
    let roofless = r.roofless();
    let roofed = |s: String| if roofless { String::new() } else { s };
    for (i, k) in r.kernels.iter().enumerate() {
        let mut row = vec![
            (i + 1).to_string(),
            k.id.to_string(),
            k.process_id.map(|p| p.to_string()).unwrap_or_default(),
            k.name.clone(),
            k.launches.to_string(),
            timed_csv(k, num(k.duration_ns)),
            timed_csv(k, opt_num(k.dram_bytes)),
            source_key(k.dram_source),
            timed_csv(k, opt_num(k.l2_bytes)),
            source_key(k.l2_source),
            timed_csv(k, opt_num(k.l1_bytes)),
            timed_csv(k, opt_num(k.flop)),
            source_key(k.flop_source),
            k.flop_unknown
                .iter()
                .map(|g| g.key())
                .collect::<Vec<_>>()
                .join(" "),
        ];
        row.extend(
            ComputePath::ALL
                .iter()
                .map(|p| timed_csv(k, opt_num(k.flop_by_path.get(p).copied()))),
        );
        row.extend([
            opt_num(k.intensity),
            opt_num(k.intensity_l2),
            opt_num(k.intensity_l1),
            opt_num(k.achieved_flop_per_s),
            opt_num(k.achieved_dram_bytes_per_s),
            roofed(timed_csv(k, opt_num(k.compute_time_ns))),
            roofed(timed_csv(k, opt_num(k.memory_time_ns))),
            roofed(timed_csv(k, num(k.bound_time_ns))),
            k.lower_bound.to_string(),
            roofed(k.bound.map_or("", Bound::key).to_string()),
            roofed(opt_num(k.roof_flop_per_s)),
            roofed(num(k.fraction_of_roof)),
            roofed(timed_csv(k, num(k.time_lost_ns))),
            roofed(k.above_roof.to_string()),
            k.bandwidth_only.to_string(),
            k.label.clone(),
            opt_num(k.padding.as_ref().map(|p| p.implied_rows)),
            opt_num(k.useful.as_ref().map(|u| u.flop)),
            opt_num(k.useful.as_ref().and_then(|u| u.intensity)),
            opt_num(k.useful.as_ref().map(|u| u.fraction_of_roof)),
            k.useful
                .as_ref()
                .map(|u| u.source.clone())
                .unwrap_or_default(),
            opt_num(k.sm_clock_hz),
            opt_num(k.dram_clock_hz),
            gpu.clone(),
            roofs.clone(),
        ]);
        w.write_record(&row).expect("write to Vec");
    }
    w.into_inner().expect("flush to Vec")
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
/// docs/json-schema-ncu.md), newline-terminated.
fn render_json(r: &RooflineReport) -> Vec<u8> {
    if !r.roofless() && !r.kernels.iter().any(|k| k.rate_only) {
        // Nothing to blank: the fields in the model's order.
        let mut v = serde_json::to_vec_pretty(r).expect("report serializes");
        v.push(b'\n');
        return v;
    }
    let mut value = serde_json::to_value(r).expect("report serializes");
    if r.roofless() {
        // No roofs: what depends on them is unknown, not zero.
        for k in value["kernels"].as_array_mut().into_iter().flatten() {
            for f in ROOF_DEPENDENT {
                k[f] = serde_json::Value::Null;
            }
        }
        value["total_time_lost_ns"] = serde_json::Value::Null;
    }
    if !r.kernels.is_empty() && r.kernels.iter().all(|k| k.rate_only) {
        value["total_duration_ns"] = serde_json::Value::Null;
        value["total_time_lost_ns"] = serde_json::Value::Null;
    }
    for (k, row) in r
        .kernels
        .iter()
        .zip(value["kernels"].as_array_mut().into_iter().flatten())
    {
        if k.rate_only {
            // Rates only: no time, so no amounts either.
            for f in TIME_DEPENDENT {
                row[f] = serde_json::Value::Null;
            }
        }
    }
    let mut v = serde_json::to_vec_pretty(&value).expect("report serializes");
    v.push(b'\n');
    v
}

/// Markdown for a pull-request comment: the verdict line first, an optional
/// plot, the top-N table, the roofs used and the diagnostics; never longer
/// than [`MARKDOWN_LIMIT_CHARS`] (rows are dropped, with a note).
fn render_markdown(r: &RooflineReport, opts: &RenderOptions) -> Vec<u8> {
    let mut head = verdict(r);
    head.push_str("\n\n");
    for (alt, link) in &opts.images {
        head.push_str(&format!("![{alt}]({link})\n\n"));
    }
    let mut tail = String::from("\n**Roofs used** (");
    tail.push_str(&r.roofs.source.replace('|', "\\|"));
    tail.push_str(")\n\n");
    tail.push_str(&roofs_table(r).to_markdown());
    if !r.diagnostics.is_empty() {
        tail.push_str("\n**Diagnostics**\n\n");
        for d in &r.diagnostics {
            tail.push_str(&format!("- {} ({}x)", d.message, d.count));
            if !d.examples.is_empty() {
                let ex: Vec<String> = d
                    .examples
                    .iter()
                    .map(|e| format!("`{}`", e.replace('`', "'")))
                    .collect();
                tail.push_str(&format!(": {}", ex.join(", ")));
            }
            tail.push('\n');
        }
    }
    tail.push_str(&format!(
        "\n<sub>rooftrace ncu · {} ({}) · {} of {} launches · GPU {} (chosen by {}) · {}</sub>\n",
        r.input,
        r.page,
        r.launches_analysed,
        r.launches_total,
        r.gpu.key.as_deref().unwrap_or(&r.gpu.name),
        r.gpu.chosen_by,
        clock_line(r)
    ));
    let want = shown(r, opts.top);
    let chars = |s: &str| s.chars().count();
    // Header row and rule of the table cost about one row; leave room for the
    // truncation note.
    let budget = MARKDOWN_LIMIT_CHARS.saturating_sub(chars(&head) + chars(&tail) + 200);
    let mut n = want;
    let mut table = main_table(&r.kernels[..n], r.roofless()).to_markdown();
    while n > 0 && chars(&table) > budget {
        // Shrink geometrically, then fine-tune: keeps this O(log n) renders.
        let over = chars(&table) as f64 / budget.max(1) as f64;
        n = if over > 1.1 {
            ((n as f64) / over) as usize
        } else {
            n - 1
        };
        table = main_table(&r.kernels[..n], r.roofless()).to_markdown();
    }
    let mut out = head;
    out.push_str(&table);
    let legend = legend(&r.kernels[..n]);
    if !legend.is_empty() {
        out.push('\n');
        out.push_str(&legend);
    }
    if n < r.kernels.len() {
        let why = if n < want {
            "to fit a PR comment"
        } else {
            "--top"
        };
        out.push_str(&format!(
            "\n_{} of {} rows shown ({why}); the JSON and CSV outputs carry all of them._\n",
            n,
            r.kernels.len()
        ));
    }
    out.push_str(&tail);
    out.into_bytes()
}
