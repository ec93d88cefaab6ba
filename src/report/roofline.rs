//! Renderers of the `rooftrace ncu` report: aligned table, CSV, Markdown and
//! JSON, each returning bytes. Table and Markdown show the top N rows; CSV
//! and JSON carry every row.

pub use super::gpu_list::render_gpu_list;
use super::roofline_clock::clock_line;
use super::table::Table;
use super::{Format, Render, RenderOptions, MARKDOWN_LIMIT_CHARS};
use crate::ncu::Source;
use crate::roofline::{Bound, KernelRoofline, RooflineReport};
use crate::units::{duration_ns, percent, si};
use std::io::{self, Write};

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
            k.label.to_string(),
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
            None if r.gpu.undecided() && !r.gpu.candidates().is_empty() => {
                format!("{}, candidates {}", r.gpu.name, r.gpu.candidates().join(", "))
            }
            None => r.gpu.name.clone(),
        },
        crate::report::gpu_choice::chosen_by(&r.gpu.chosen_by),
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
            if r.gpu.candidates().is_empty() {
                String::new()
            } else {
                format!(": {}", r.gpu.candidates().join(" or "))
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
        let mut out = Vec::new();
        self.render_to(format, opts, &mut out)
            .expect("writing to a Vec cannot fail");
        out
    }

    /// CSV and JSON rows go to `out` one at a time, never all as text at
    /// once (a details page of 100,000 launches is 100,000 rows).
    fn render_to(
        &self,
        format: Format,
        opts: &RenderOptions,
        out: &mut dyn Write,
    ) -> io::Result<()> {
        match format {
            Format::Table => out.write_all(&render_table(self, opts.top)),
            Format::Json => super::roofline_rows::write_json(self, out),
            Format::Csv => super::roofline_rows::write_csv(self, out),
            Format::Markdown => out.write_all(&render_markdown(self, opts)),
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
        crate::report::gpu_choice::chosen_by(&r.gpu.chosen_by),
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
