//! Renders a [`ProjectedReport`] (`rooftrace ncu --project-to`): per
//! target a verdict, the per-row table (source time, target bound and
//! side, expected time, ratio) and the total; CSV one row per (target,
//! row) plus a total row per target; JSON the roofline report with the
//! versioned `projection` block; Markdown for a pull-request comment.

use super::table::Table;
use super::{push_fitting, Format, Render, RenderOptions};
use crate::projection::{KernelProjection, Model, ProjectedReport, Projection, TargetProjection};
use crate::roofline::Bound;
use crate::units::{duration_ns, si};

fn side(b: Option<Bound>) -> &'static str {
    b.map_or("unknown", Bound::key)
}

fn at_least(k: &KernelProjection) -> &'static str {
    if k.lower_bound {
        "≥"
    } else {
        ""
    }
}

/// A bound and the side that binds it: `46.9 µs memory`; for a lower
/// bound whose side is not known, `≥46.9 µs` alone (the side is said
/// unknown once, in the notes, not as a unit after the number).
fn bound_cell(k: &KernelProjection, ns: f64, b: Option<Bound>) -> String {
    match b {
        Some(b) => format!("{}{} {}", at_least(k), duration_ns(ns), b.key()),
        None => format!("{}{}", at_least(k), duration_ns(ns)),
    }
}

/// Arithmetic intensity with three significant figures (`60.0`, `0.0312`);
/// a lower bound of zero says nothing and reads `unknown`.
fn intensity(k: &KernelProjection) -> String {
    match k.intensity {
        None => "-".into(),
        Some(i) if k.lower_bound && i <= 0.0 => "unknown".into(),
        Some(i) => {
            let digits = if i >= 100.0 {
                0
            } else if i >= 10.0 {
                1
            } else if i >= 1.0 {
                2
            } else {
                // Three significant figures below 1 (at most 6 decimals).
                (2 - i.log10().floor() as i32).clamp(3, 6) as usize
            };
            format!("{}{i:.digits$}", at_least(k))
        }
    }
}

/// What a row's notes column says, from its typed fields.
fn notes(k: &KernelProjection) -> String {
    let mut n: Vec<String> = Vec::new();
    if k.rate_only {
        n.push("rates only: bounds per second of run, no time".into());
    }
    if k.source_bound.is_none() || k.target_bound.is_none() {
        n.push("binding side unknown (a side's counters are missing)".into());
    }
    if k.class_change {
        n.push(format!(
            "{} → {}",
            side(k.source_bound),
            side(k.target_bound)
        ));
    }
    if !k.unmapped_paths.is_empty() {
        let p: Vec<&str> = k.unmapped_paths.iter().map(|p| p.label()).collect();
        n.push(format!("not mapped: {}", p.join(", ")));
    }
    n.join("; ")
}

fn ratio(k: &KernelProjection, model: Model) -> Option<f64> {
    k.expected(model)
        .filter(|_| k.source_ns > 0.0)
        .map(|e| e / k.source_ns)
}

fn times(v: f64) -> String {
    format!("{v:.2}×")
}

/// One column of the per-row table: header and cell together.
type Column = (&'static str, fn(&KernelProjection, Model) -> String);

const COLUMNS: &[Column] = &[
    ("kernel", |k, _| k.label.clone()),
    ("launches", |k, _| k.launches.to_string()),
    ("FLOP/B", |k, _| intensity(k)),
    ("time", |k, _| {
        if k.rate_only {
            "unknown (rates)".into()
        } else {
            duration_ns(k.source_ns)
        }
    }),
    ("bound", |k, _| {
        bound_cell(k, k.source_bound_ns, k.source_bound)
    }),
    ("target bound", |k, _| {
        bound_cell(k, k.target_bound_ns, k.target_bound)
    }),
    ("expected", |k, m| {
        k.expected(m).map_or("unknown".into(), duration_ns)
    }),
    ("ratio", |k, m| ratio(k, m).map_or("-".into(), times)),
    ("notes", |k, _| notes(k)),
];

fn kernel_table(t: &TargetProjection, model: Model, top: usize) -> Table {
    let header: Vec<&str> = COLUMNS.iter().map(|c| c.0).collect();
    let mut table = Table::new(&header, &[0, header.len() - 1]);
    let n = if top == 0 { t.kernels.len() } else { top };
    for k in t.kernels.iter().take(n) {
        table.push(COLUMNS.iter().map(|c| (c.1)(k, model)).collect());
    }
    table
}

fn roofs_line(t: &TargetProjection) -> String {
    let mut parts: Vec<String> = Vec::new();
    if let Some(d) = t.roofs.dram() {
        parts.push(format!("DRAM {}", si(d.bytes_per_s, "B/s")));
    }
    for (p, r) in &t.roofs.compute {
        parts.push(format!("{} {}", p.label(), si(r.flop_per_s, "FLOP/s")));
    }
    parts.join(", ")
}

/// The sentence that answers "would these kernels get faster on X".
pub fn verdict(p: &Projection, t: &TargetProjection) -> String {
    let s = &t.totals;
    let name = t.gpu.key.as_deref().unwrap_or(&t.gpu.name);
    let Some(r) = s.ratio else {
        return format!("{name}: no row has a known expected time (every row uses a path {name} has no roof for, or has rates without a duration).");
    };
    let launches: u64 = t.kernels.iter().map(|k| k.launches).sum();
    let fixed: f64 = t.kernels.iter().map(|k| k.target_launch_cost_ns).sum();
    let c = t.target_launch_ns.unwrap_or(p.launch_cost.per_launch_ns);
    let mut v = format!(
        "{name}: {} instead of {} ({}, {} model); bound {} → {}. Not scaled by the roofs: the per-launch cost, {} launches × {} = {} ({})",
        duration_ns(s.expected_ns),
        duration_ns(s.source_known_ns),
        if r < 1.0 {
            format!("{:.1} % faster", (1.0 - r) * 100.0)
        } else {
            format!("{:.1} % slower", (r - 1.0) * 100.0)
        },
        p.model.key(),
        duration_ns(t.kernels.iter().map(|k| k.source_bound_ns).sum()),
        duration_ns(s.target_bound_ns),
        launches,
        duration_ns(c),
        duration_ns(fixed),
        if t.target_launch_ns.is_some() {
            "the target's, as given"
        } else {
            "the source's, fitted from its profile"
        },
    );
    if p.model == Model::BoundScales {
        let lost: f64 = t
            .kernels
            .iter()
            .filter(|k| k.expected(Model::BoundScales).is_some())
            .map(|k| (k.source_ns - k.source_bound_ns - k.launch_cost_ns).max(0.0))
            .sum();
        v.push_str(&format!(
            ", and the time lost beyond the bounds, {}",
            duration_ns(lost)
        ));
    }
    v.push('.');
    if s.class_changes > 0 {
        v.push_str(&format!(
            " {} row(s) change binding side (intensity between the two ridge points).",
            s.class_changes
        ));
    }
    if !t.unmapped_paths.is_empty() {
        let p: Vec<&str> = t.unmapped_paths.iter().map(|p| p.label()).collect();
        v.push_str(&format!(
            " {} row(s) use {} that {name} has no roof for: not mapped, expected time unknown.",
            s.unknown_rows,
            p.join(", ")
        ));
    }
    v
}

fn header(r: &ProjectedReport) -> String {
    let p = &r.projection;
    let mut s = format!(
        "input: {} on {} (roofs: {})\nmodel: {} ({})\n",
        p.input,
        p.source_gpu.key.as_deref().unwrap_or(&p.source_gpu.name),
        p.source_roofs,
        p.model.key(),
        p.model.formula(),
    );
    s.push_str(&format!(
        "per-launch cost c = {}: {}\n",
        duration_ns(p.launch_cost.per_launch_ns),
        p.launch_cost.rule
    ));
    s
}

fn render_table(r: &ProjectedReport, top: usize) -> Vec<u8> {
    let p = &r.projection;
    let mut out = header(r);
    for t in &p.targets {
        out.push_str(&format!(
            "\ntarget: {} (chosen by {}): {}\n{}\n\n",
            t.gpu.name,
            crate::report::gpu_choice::chosen_by(&t.gpu.chosen_by),
            roofs_line(t),
            verdict(p, t)
        ));
        out.push_str(&kernel_table(t, p.model, top).to_text());
        let hidden = t
            .kernels
            .len()
            .saturating_sub(if top == 0 { usize::MAX } else { top });
        if hidden > 0 {
            out.push_str(&format!("... {hidden} more rows (--top 0 shows all)\n"));
        }
    }
    out.push_str("\nmethod:\n");
    for m in &p.method {
        out.push_str(&format!("- {m}\n"));
    }
    out.into_bytes()
}

fn opt(v: Option<f64>) -> String {
    v.map(|x| format!("{x}")).unwrap_or_default()
}

fn render_csv(r: &ProjectedReport) -> Vec<u8> {
    let p = &r.projection;
    let mut w = csv::Writer::from_writer(Vec::new());
    let mut head: Vec<String> = [
        "target",
        "row",
        "id",
        "name",
        "launches",
        "intensity_flop_per_byte",
        "source_ns",
        "source_bound_ns",
        "source_bound",
        "target_compute_ns",
        "target_memory_ns",
        "target_bound_ns",
        "target_bound",
        "class_change",
        "lower_bound",
        "unmapped_paths",
        "launch_cost_ns",
        "target_launch_cost_ns",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    head.extend(
        Model::ALL
            .iter()
            .map(|m| format!("expected_{}_ns", m.key())),
    );
    head.push("ratio".into());
    w.write_record(&head).expect("write to Vec");
    for t in &p.targets {
        let target = t.gpu.key.clone().unwrap_or_else(|| t.gpu.name.clone());
        for k in &t.kernels {
            let mut row = vec![
                target.clone(),
                "kernel".into(),
                k.id.to_string(),
                k.label.clone(),
                k.launches.to_string(),
                opt(k.intensity),
                format!("{}", k.source_ns),
                format!("{}", k.source_bound_ns),
                k.source_bound.map_or("", Bound::key).into(),
                opt(k.target_compute_ns),
                opt(k.target_memory_ns),
                format!("{}", k.target_bound_ns),
                k.target_bound.map_or("", Bound::key).into(),
                k.class_change.to_string(),
                k.lower_bound.to_string(),
                k.unmapped_paths
                    .iter()
                    .map(|p| p.key())
                    .collect::<Vec<_>>()
                    .join(" "),
                format!("{}", k.launch_cost_ns),
                format!("{}", k.target_launch_cost_ns),
            ];
            row.extend(Model::ALL.iter().map(|m| opt(k.expected(*m))));
            row.push(opt(ratio(k, p.model)));
            w.write_record(&row).expect("write to Vec");
        }
        let s = &t.totals;
        let mut row = vec![target.clone(), "total".into()];
        row.extend(std::iter::repeat_n(String::new(), 4));
        row.push(format!("{}", s.source_ns));
        row.extend(std::iter::repeat_n(String::new(), 4));
        row.push(format!("{}", s.target_bound_ns));
        row.extend(std::iter::repeat_n(String::new(), 6));
        row.extend(Model::ALL.iter().map(|m| {
            if *m == p.model {
                format!("{}", s.expected_ns)
            } else {
                String::new()
            }
        }));
        row.push(opt(s.ratio));
        w.write_record(&row).expect("write to Vec");
    }
    w.into_inner().expect("flush to Vec")
}

fn render_json(r: &ProjectedReport) -> Vec<u8> {
    let mut v = serde_json::to_value(&r.roofline).expect("report serializes");
    if let serde_json::Value::Object(m) = &mut v {
        m.insert(
            "projection".into(),
            serde_json::to_value(&r.projection).expect("projection serializes"),
        );
    }
    let mut out = serde_json::to_vec_pretty(&v).expect("value serializes");
    out.push(b'\n');
    out
}

fn render_markdown(r: &ProjectedReport, opts: &RenderOptions) -> Vec<u8> {
    let p = &r.projection;
    let mut out = String::from("### Projection\n\n");
    for t in &p.targets {
        out.push_str(&format!("- {}\n", verdict(p, t)));
    }
    out.push('\n');
    for (alt, link) in &opts.images {
        out.push_str(&format!("![{alt}]({link})\n\n"));
    }
    let top = if opts.top == 0 { 20 } else { opts.top };
    let mut sections: Vec<String> = p
        .targets
        .iter()
        .map(|t| {
            format!(
                "#### {} ({})\n\n{}",
                t.gpu.name,
                roofs_line(t),
                kernel_table(t, p.model, top).to_markdown()
            )
        })
        .collect();
    sections.push(super::md_bullets("Method", &p.method));
    push_fitting(&mut out, sections);
    out.into_bytes()
}

impl Render for ProjectedReport {
    fn render(&self, format: Format, opts: &RenderOptions) -> Vec<u8> {
        match format {
            Format::Table => render_table(self, opts.top),
            Format::Csv => render_csv(self),
            Format::Json => render_json(self),
            Format::Markdown => render_markdown(self, opts),
        }
    }
}
