//! Renders a [`DiffReport`]: aligned tables, CSV (one row per compared
//! row, SI units), JSON (`rooftrace.diff/2`, docs/json-schema-diff.md) and
//! Markdown for a pull-request comment (verdict line first, top regressions
//! and improvements, everything else folded in `<details>`; names in code
//! spans, other cells HTML-escaped, so GitHub renders every name as
//! written). Idle classes and host-bound detail print with the human names
//! of `rooftrace gaps`; CSV and JSON keep the keys.

use super::table::{md_fence, md_text, Table};
use super::{Format, Render, RenderOptions, MARKDOWN_LIMIT_CHARS};
use crate::diff::gaps::{host_detail_shown, ClassDiff, DeviceDiff, GapsDiff};
use crate::diff::ncu::{KernelDiff, NcuDiff};
use crate::diff::{Change, CoverageStatus, DiffReport, Quantity, Verdict};
use crate::gaps::{class_label, detail_label};
use crate::units::{duration_ns, ellipsize, si};

/// Kernel names in text-table cells are shortened to this many characters.
const NAME_CHARS: usize = 60;
/// In Markdown (code spans, which wrap) names keep up to this many.
const MD_NAME_CHARS: usize = 200;

/// How a figure prints.
#[derive(Clone, Copy)]
enum Unit {
    Ns,
    Bytes,
    Flop,
    Plain,
}

fn value(v: Option<f64>, u: Unit) -> String {
    match v {
        None => "unknown".to_string(),
        Some(0.0) if !matches!(u, Unit::Plain) => "0".to_string(),
        Some(x) => match u {
            Unit::Ns => duration_ns(x),
            Unit::Bytes => si(x, "B"),
            Unit::Flop => si(x, "FLOP"),
            Unit::Plain => format!("{x:.3}"),
        },
    }
}

fn arrow(c: &Change, u: Unit) -> String {
    format!("{} → {}", value(c.before, u), value(c.after, u))
}

/// Like [`arrow`], with `absent` for the side a one-sided (added or
/// removed) row is not in: absent, not unknown.
fn arrow_row(c: &Change, u: Unit, v: Verdict) -> String {
    match v {
        Verdict::Added => format!("absent → {}", value(c.after, u)),
        Verdict::Removed => format!("{} → absent", value(c.before, u)),
        _ => arrow(c, u),
    }
}

fn unit_of(q: Quantity) -> Unit {
    match q {
        Quantity::Time => Unit::Ns,
        Quantity::Bytes => Unit::Bytes,
        Quantity::Flop => Unit::Flop,
        Quantity::Fraction => Unit::Plain,
    }
}

/// `kind a → b` for each kind of busy time.
fn busy_kinds(d: &DeviceDiff) -> String {
    d.busy_by_kind
        .iter()
        .map(|k| format!("{} {}", k.kind, arrow_row(&k.busy_ns, Unit::Ns, d.verdict)))
        .collect::<Vec<_>>()
        .join(", ")
}

fn rel(c: &Change, u: Unit) -> String {
    match (c.delta, c.rel, u) {
        (None, _, _) => "-".to_string(),
        (Some(d), _, Unit::Plain) => format!("{d:+.3}"),
        (Some(_), Some(r), _) => format!("{:+.1} %", r * 100.0),
        (Some(0.0), None, _) => "0".to_string(),
        (Some(d), None, u) => format!("+{}", value(Some(d), u)),
    }
}

fn name_cell(k: &KernelDiff, name_chars: usize) -> String {
    format!("{} #{}", ellipsize(&k.name, name_chars), k.occurrence)
}

/// Kernel rows, names cut at `name_chars`.
fn kernel_table(rows: &[&KernelDiff], name_chars: usize) -> Table {
    let mut t = Table::new(
        &[
            "verdict",
            "kernel",
            "time",
            "Δ time",
            "Δ DRAM bytes",
            "fraction of roof",
            "why",
        ],
        &[0, 1, 6],
    )
    .with_code(&[1]);
    for k in rows {
        t.push(vec![
            k.verdict.key().to_string(),
            name_cell(k, name_chars),
            arrow_row(&k.duration_ns, Unit::Ns, k.verdict),
            rel(&k.duration_ns, Unit::Ns),
            rel(&k.dram_bytes, Unit::Bytes),
            arrow_row(&k.fraction_of_roof, Unit::Plain, k.verdict),
            k.why.clone(),
        ]);
    }
    t
}

fn ncu_totals_table(n: &NcuDiff) -> Table {
    let t = &n.totals;
    let mut tab = Table::new(&["total", "before → after", "change", "verdict"], &[0, 3]);
    for (label, c, quantity) in t.rows() {
        let u = unit_of(quantity);
        tab.push(vec![
            label.to_string(),
            arrow(c, u),
            rel(c, u),
            c.verdict.key().to_string(),
        ]);
    }
    tab.push(vec![
        "rows (launches)".to_string(),
        format!("{} → {}", t.rows_before, t.rows_after),
        String::new(),
        String::new(),
    ]);
    tab
}

fn device_label(d: &DeviceDiff) -> String {
    match d.device {
        None => "all devices".to_string(),
        Some(n) => match (d.pid_before, d.pid_after) {
            (Some(b), Some(a)) if a == b => format!("device {n} (pid {b})"),
            (Some(b), Some(a)) => format!("device {n} (pid {b} → {a})"),
            (b, a) => format!("device {n} (pid {})", b.or(a).unwrap_or(0)),
        },
    }
}

fn device_table(g: &GapsDiff) -> Table {
    let mut t = Table::new(
        &[
            "verdict",
            "device",
            "span",
            "busy",
            "idle",
            "Δ idle",
            "busy by kind",
            "why",
        ],
        &[0, 1, 6, 7],
    );
    for d in g.devices.iter().chain(std::iter::once(&g.total)) {
        t.push(vec![
            d.verdict.key().to_string(),
            device_label(d),
            arrow_row(&d.span_ns, Unit::Ns, d.verdict),
            arrow_row(&d.busy_ns, Unit::Ns, d.verdict),
            arrow_row(&d.idle_ns, Unit::Ns, d.verdict),
            rel(&d.idle_ns, Unit::Ns),
            busy_kinds(d),
            d.why.clone(),
        ]);
    }
    t
}

fn class_table(d: &DeviceDiff) -> Table {
    totals_table("idle class", &d.classes, class_label)
}

/// Host-bound idle by what the host was doing, when a report splits it.
fn detail_table(d: &DeviceDiff) -> Option<Table> {
    host_detail_shown(d)
        .then(|| totals_table("host-bound: the host was", &d.host_detail, detail_label))
}

fn totals_table(what: &str, rows: &[ClassDiff], label: fn(&str) -> String) -> Table {
    let mut t = Table::new(&[what, "gaps", "idle", "change", "verdict"], &[0, 4]);
    for c in rows {
        t.push(vec![
            label(&c.class),
            format!("{} → {}", c.count_before, c.count_after),
            arrow(&c.total_ns, Unit::Ns),
            rel(&c.total_ns, Unit::Ns),
            c.total_ns.verdict.key().to_string(),
        ]);
    }
    t
}

fn range_table(g: &GapsDiff) -> Option<Table> {
    let ranges = g.ranges.as_ref()?;
    let mut t = Table::new(
        &[
            "verdict",
            "NVTX range",
            "instances",
            "median",
            "Δ median",
            "p90",
            "idle (median)",
        ],
        &[0, 1],
    )
    .with_code(&[1]);
    for r in ranges {
        t.push(vec![
            r.verdict.key().to_string(),
            ellipsize(&r.name, NAME_CHARS),
            format!("{} → {}", r.instances_before, r.instances_after),
            arrow_row(&r.median_ns, Unit::Ns, r.verdict),
            rel(&r.median_ns, Unit::Ns),
            arrow_row(&r.p90_ns, Unit::Ns, r.verdict),
            arrow_row(&r.idle_median_ns, Unit::Ns, r.verdict),
        ]);
    }
    Some(t)
}

fn gap_table(g: &GapsDiff, top: usize) -> Table {
    let mut t = Table::new(
        &["verdict", "device", "between", "class", "length", "change"],
        &[0, 2, 3],
    )
    .with_code(&[2]);
    let n = if top == 0 {
        g.gaps.len()
    } else {
        top.min(g.gaps.len())
    };
    for x in &g.gaps[..n] {
        let class = match (&x.class_before, &x.class_after) {
            (Some(b), Some(a)) if a != b => format!("{} → {}", class_label(b), class_label(a)),
            (b, a) => a
                .as_deref()
                .or(b.as_deref())
                .map(class_label)
                .unwrap_or_default(),
        };
        t.push(vec![
            x.verdict.key().to_string(),
            x.device.to_string(),
            format!(
                "{} → {}",
                ellipsize(&x.before_op, 30),
                ellipsize(&x.after_op, 30)
            ),
            class,
            arrow_row(&x.duration_ns, Unit::Ns, x.verdict),
            rel(&x.duration_ns, Unit::Ns),
        ]);
    }
    t
}

fn gate_lines(r: &DiffReport) -> String {
    let g = &r.gate;
    let mut s = String::new();
    if !g.enabled {
        s.push_str("gate: off (--no-gate)\n");
        return s;
    }
    let rules = if g.rules.is_empty() {
        "default (any row called a regression)".to_string()
    } else {
        g.rules.join(", ")
    };
    s.push_str(&format!(
        "gate: {} — rules: {rules}\n",
        if g.failed {
            "FAILED (exit 3)"
        } else {
            "passed"
        }
    ));
    if g.unmatched {
        s.push_str("  failed: most of the work is unmatched (--allow-unmatched to judge the matched part)\n");
    }
    for t in &g.tripped {
        s.push_str(&format!(
            "  tripped {}: {} ({})\n",
            t.rule,
            ellipsize(&t.row, 90),
            rel(&t.change, unit_of(t.quantity))
        ));
    }
    if g.unknown > 0 {
        s.push_str(&format!(
            "  {} row(s) not judged: a side lacks the figure\n",
            g.unknown
        ));
    }
    s
}

/// What the two runs share: names in common and the share of time they hold.
fn coverage_line(r: &DiffReport) -> String {
    let c = &r.coverage;
    let names = |what: &str, n: crate::diff::cover::NameCounts| {
        (n.before + n.after > 0).then(|| {
            format!(
                "{} {what} names in both runs ({} in the base, {} in the new)",
                n.shared, n.before, n.after
            )
        })
    };
    let mut parts: Vec<String> = [names("kernel", c.kernels), names("range", c.ranges)]
        .into_iter()
        .flatten()
        .collect();
    let pct = |s: Option<f64>| s.map_or("unknown".to_string(), |x| format!("{:.1} %", x * 100.0));
    parts.push(match c.status {
        CoverageStatus::Unknown => "share of time in them unknown".to_string(),
        _ => format!(
            "they hold {} of the base's time and {} of the new's (at least {:.0} % to compare{})",
            pct(c.matched_share_before),
            pct(c.matched_share_after),
            c.min_share * 100.0,
            if c.allowed { "; --allow-unmatched" } else { "" }
        ),
    });
    format!("matched: {}\n", parts.join("; "))
}

fn head_lines(r: &DiffReport) -> String {
    let t = &r.thresholds;
    format!(
        "base: {} ({})\nnew:  {} ({})\n{}thresholds: time ±{:.1} % and > {} (kernels) / {} (timeline), bytes ±{:.1} %, fraction ±{:.3}; changes must also exceed the spread of repeated launches/instances\n",
        r.base.input,
        r.base.source,
        r.new.input,
        r.new.source,
        coverage_line(r),
        t.time_rel * 100.0,
        duration_ns(t.kernel_abs_ns),
        duration_ns(t.timeline_abs_ns),
        t.bytes_rel * 100.0,
        t.fraction_abs
    )
}

fn kernels_shown(n: &NcuDiff, top: usize, changed_only: bool) -> Vec<&KernelDiff> {
    let it = n
        .kernels
        .iter()
        .filter(|k| !changed_only || k.verdict != Verdict::Unchanged);
    if top == 0 {
        it.collect()
    } else {
        it.take(top).collect()
    }
}

fn render_table(r: &DiffReport, top: usize) -> Vec<u8> {
    let mut out = format!("{}\n\n{}\n", r.headline(), head_lines(r));
    if let Some(n) = &r.ncu {
        if !n.same_roofs {
            out.push_str(&format!(
                "roofs: each side its own ({} → {})\n",
                n.gpu_before.as_deref().unwrap_or("?"),
                n.gpu_after.as_deref().unwrap_or("?")
            ));
        }
        out.push_str(&ncu_totals_table(n).to_text());
        out.push('\n');
        out.push_str(&kernel_table(&kernels_shown(n, top, false), NAME_CHARS).to_text());
        if top != 0 && n.kernels.len() > top {
            out.push_str(&format!(
                "({} of {} rows; --top 0 for all)\n",
                top,
                n.kernels.len()
            ));
        }
    }
    if let Some(g) = &r.nsys {
        out.push_str(&device_table(g).to_text());
        out.push('\n');
        out.push_str(&class_table(&g.total).to_text());
        if let Some(t) = detail_table(&g.total) {
            out.push('\n');
            out.push_str(&t.to_text());
        }
        if let Some(t) = range_table(g) {
            out.push('\n');
            out.push_str(&t.to_text());
        }
        if !g.gaps.is_empty() {
            out.push_str("\nlongest gaps, both runs:\n");
            out.push_str(&gap_table(g, top).to_text());
        }
    }
    out.push('\n');
    out.push_str(&gate_lines(r));
    for d in &r.diagnostics {
        out.push_str(&format!("note: {d}\n"));
    }
    out.into_bytes()
}

fn cells(c: &Change) -> [String; 5] {
    let o = |v: Option<f64>| v.map(|x| format!("{x}")).unwrap_or_default();
    [
        o(c.before),
        o(c.after),
        o(c.delta),
        o(c.rel),
        c.verdict.key().to_string(),
    ]
}

/// Column names `<metric>_before`, `_after`, `_delta`, `_rel`, `_verdict`.
fn metric_cols(m: &str) -> [String; 5] {
    ["before", "after", "delta", "rel", "verdict"].map(|s| format!("{m}_{s}"))
}

/// The ncu rows of the CSV: one per kernel row, then the totals.
fn csv_ncu(n: &NcuDiff, write: &mut dyn FnMut(Vec<String>)) {
    let mut h = vec![
        "row".to_string(),
        "name".into(),
        "occurrence".into(),
        "verdict".into(),
    ];
    for m in [
        "duration_ns",
        "dram_bytes",
        "flop",
        "intensity",
        "fraction_of_roof",
        "time_lost_ns",
    ] {
        h.extend(metric_cols(m));
    }
    h.push("why".into());
    write(h);
    for k in &n.kernels {
        let mut rec = vec![
            "kernel".to_string(),
            k.name.clone(),
            k.occurrence.to_string(),
            k.verdict.key().into(),
        ];
        for c in [
            &k.duration_ns,
            &k.dram_bytes,
            &k.flop,
            &k.intensity,
            &k.fraction_of_roof,
            &k.time_lost_ns,
        ] {
            rec.extend(cells(c));
        }
        rec.push(k.why.clone());
        write(rec);
    }
    let t = &n.totals;
    let mut rec = vec![
        "total".to_string(),
        String::new(),
        String::new(),
        t.duration_ns.verdict.key().into(),
    ];
    let none = Change::judge(
        None,
        None,
        crate::diff::noise::Limit { rel: 0.0, abs: 0.0 },
        0.0,
        crate::diff::noise::Worse::Neither,
    );
    for c in [
        &t.duration_ns,
        &t.dram_bytes,
        &t.flop,
        &none,
        &t.fraction_of_roof,
        &t.time_lost_ns,
    ] {
        rec.extend(cells(c));
    }
    rec.push(String::new());
    write(rec);
}

/// The nsys rows of the CSV: devices with their figures, classes and host
/// detail, ranges, gaps.
fn csv_nsys(g: &GapsDiff, write: &mut dyn FnMut(Vec<String>)) {
    let mut h = vec![
        "row".to_string(),
        "device".into(),
        "name".into(),
        "verdict".into(),
    ];
    h.extend(metric_cols("ns"));
    write(h);
    let dev = |d: &DeviceDiff| {
        d.device
            .map(|x| x.to_string())
            .unwrap_or_else(|| "all".into())
    };
    for d in g.devices.iter().chain(std::iter::once(&g.total)) {
        let kinds = d
            .busy_by_kind
            .iter()
            .map(|k| (format!("busy.{}", k.kind), &k.busy_ns));
        let figures = [
            ("span".to_string(), &d.span_ns),
            ("busy".to_string(), &d.busy_ns),
            ("idle".to_string(), &d.idle_ns),
        ];
        for (name, c) in figures.into_iter().chain(kinds) {
            let mut rec = vec!["device".to_string(), dev(d), name, c.verdict.key().into()];
            rec.extend(cells(c));
            write(rec);
        }
        let rows = d
            .classes
            .iter()
            .map(|c| ("class", c))
            .chain(d.host_detail.iter().map(|c| ("host_detail", c)));
        for (section, c) in rows {
            let mut rec = vec![
                section.to_string(),
                dev(d),
                c.class.clone(),
                c.total_ns.verdict.key().into(),
            ];
            rec.extend(cells(&c.total_ns));
            write(rec);
        }
    }
    for x in g.ranges.iter().flatten() {
        for (what, c) in [
            ("median", &x.median_ns),
            ("p90", &x.p90_ns),
            ("idle_median", &x.idle_median_ns),
        ] {
            let mut rec = vec![
                format!("range_{what}"),
                String::new(),
                x.name.clone(),
                x.verdict.key().into(),
            ];
            rec.extend(cells(c));
            write(rec);
        }
    }
    for x in &g.gaps {
        let mut rec = vec![
            "gap".to_string(),
            x.device.to_string(),
            format!("{} -> {}", x.before_op, x.after_op),
            x.verdict.key().into(),
        ];
        rec.extend(cells(&x.duration_ns));
        write(rec);
    }
}

fn render_csv(r: &DiffReport) -> Vec<u8> {
    let mut w = csv::Writer::from_writer(Vec::new());
    let mut write = |rec: Vec<String>| {
        // Writing into a Vec cannot fail.
        let _ = w.write_record(&rec);
    };
    if let Some(n) = &r.ncu {
        csv_ncu(n, &mut write);
    }
    if let Some(g) = &r.nsys {
        csv_nsys(g, &mut write);
    }
    let mut bytes = w.into_inner().unwrap_or_default();
    if bytes.last() != Some(&b'\n') {
        bytes.push(b'\n');
    }
    bytes
}

fn render_json(r: &DiffReport) -> Vec<u8> {
    let mut v = serde_json::to_vec_pretty(r).unwrap_or_default();
    v.push(b'\n');
    v
}

fn md_section(title: &str, t: &Table) -> String {
    format!("**{title}**\n\n{}\n", t.to_markdown())
}

fn render_markdown(r: &DiffReport, opts: &RenderOptions) -> Vec<u8> {
    let mark = match r.verdict {
        Verdict::Regression => "🔴",
        Verdict::Improvement => "🟢",
        Verdict::Inconclusive => "🟡",
        _ => "⚪",
    };
    let mut out = format!("{mark} **{}**\n\n", md_text(&r.headline()));
    for (alt, link) in &opts.images {
        out.push_str(&format!("![{alt}]({link})\n\n"));
    }
    let top = if opts.top == 0 { 10 } else { opts.top };
    let mut details: Vec<String> = Vec::new();
    if let Some(n) = &r.ncu {
        for (v, title) in [
            (Verdict::Regression, "Top regressions"),
            (Verdict::Improvement, "Top improvements"),
        ] {
            let rows: Vec<&KernelDiff> = n
                .kernels
                .iter()
                .filter(|k| k.verdict == v)
                .take(top)
                .collect();
            if !rows.is_empty() {
                out.push_str(&md_section(title, &kernel_table(&rows, MD_NAME_CHARS)));
            }
        }
        out.push_str(&md_section("Totals", &ncu_totals_table(n)));
        let changed = kernels_shown(n, 0, true);
        if !changed.is_empty() {
            details.push(md_section(
                "Every changed row",
                &kernel_table(&changed, MD_NAME_CHARS),
            ));
        }
    }
    if let Some(g) = &r.nsys {
        out.push_str(&md_section("Devices", &device_table(g)));
        out.push_str(&md_section(
            "Idle by class (all devices)",
            &class_table(&g.total),
        ));
        if let Some(t) = detail_table(&g.total) {
            details.push(md_section("Host-bound idle by what the host was doing", &t));
        }
        if let Some(t) = range_table(g) {
            details.push(md_section("NVTX ranges", &t));
        }
        if !g.gaps.is_empty() {
            details.push(md_section("Longest gaps, both runs", &gap_table(g, 0)));
        }
    }
    let block = format!("{}{}", head_lines(r), gate_lines(r));
    let fence = md_fence(&block);
    let mut tail = format!("\n{fence}\n{block}{fence}\n");
    for d in &r.diagnostics {
        tail.push_str(&format!("- {}\n", md_text(d)));
    }
    // Whole sections only (a cut table or code span would render as
    // something else); the rest is in the JSON and CSV outputs.
    let mut room =
        MARKDOWN_LIMIT_CHARS.saturating_sub(out.chars().count() + tail.chars().count() + 200);
    let mut kept = String::new();
    for section in details {
        let n = section.chars().count();
        if n > room {
            kept.push_str(
                "_(more rows than fit a PR comment; the JSON and CSV outputs carry every row)_\n",
            );
            break;
        }
        room -= n;
        kept.push_str(&section);
    }
    if !kept.is_empty() {
        out.push_str(&format!(
            "<details><summary>Details</summary>\n\n{kept}\n</details>\n"
        ));
    }
    out.push_str(&tail);
    out.into_bytes()
}

impl Render for DiffReport {
    fn render(&self, format: Format, opts: &RenderOptions) -> Vec<u8> {
        match format {
            Format::Table => render_table(self, opts.top),
            Format::Csv => render_csv(self),
            Format::Json => render_json(self),
            Format::Markdown => render_markdown(self, opts),
        }
    }
}
