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
use crate::diff::kernels::TimelineKernelDiff;
use crate::diff::ncu::{KernelDiff, NcuDiff};
use crate::diff::ops::OpRowDiff;
use crate::diff::{Change, CoverageStatus, DiffReport, Quantity, Verdict};
use crate::gaps::{class_label, detail_label, range_words, Tool};
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
    Count,
}

/// How a row's verdict prints: its key, and on a cross-GPU report
/// `(cross-GPU)` after it, so that no verdict reads as a code change alone.
#[derive(Clone, Copy)]
struct Vw(bool);

impl Vw {
    fn of(r: &DiffReport) -> Vw {
        Vw(r.identity.cross_gpu)
    }

    fn w(self, v: Verdict) -> String {
        match self.0 {
            true => format!("{} (cross-GPU)", v.key()),
            false => v.key().to_string(),
        }
    }
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
            Unit::Count => format!("{x:.0}"),
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
        Quantity::Count => Unit::Count,
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
        (Some(d), _, Unit::Count) => format!("{d:+.0}"),
        (Some(_), Some(r), _) => format!("{:+.1} %", r * 100.0),
        (Some(0.0), None, _) => "0".to_string(),
        (Some(d), None, u) => format!("+{}", value(Some(d), u)),
    }
}

fn name_cell(k: &KernelDiff, name_chars: usize) -> String {
    format!("{} #{}", ellipsize(&k.name, name_chars), k.occurrence)
}

/// Kernel rows, names cut at `name_chars`.
fn kernel_table(rows: &[&KernelDiff], name_chars: usize, vw: Vw) -> Table {
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
            vw.w(k.verdict),
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

fn ncu_totals_table(n: &NcuDiff, vw: Vw) -> Table {
    let t = &n.totals;
    let mut tab = Table::new(&["total", "before → after", "change", "verdict"], &[0, 3]);
    for (label, c, quantity) in t.rows() {
        let u = unit_of(quantity);
        tab.push(vec![
            label.to_string(),
            arrow(c, u),
            rel(c, u),
            vw.w(c.verdict),
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
    let Some(n) = d.device else {
        return "all devices".to_string();
    };
    let id = match d.device_after {
        Some(a) if a != n => format!("device {n} → {a}"),
        _ => format!("device {n}"),
    };
    let gpu = d
        .gpu
        .as_deref()
        .map(|g| format!(" {}", ellipsize(g, 30)))
        .unwrap_or_default();
    match (d.pid_before, d.pid_after) {
        (Some(b), Some(a)) if a == b => format!("{id}{gpu} (pid {b})"),
        (Some(b), Some(a)) => format!("{id}{gpu} (pid {b} → {a})"),
        (b, a) => format!("{id}{gpu} (pid {})", b.or(a).unwrap_or(0)),
    }
}

/// Every kernel name of two timelines: launches and total time.
fn timeline_kernel_table(rows: &[&TimelineKernelDiff], name_chars: usize, vw: Vw) -> Table {
    let mut t = Table::new(
        &["verdict", "kernel", "launches", "time", "Δ time"],
        &[0, 1],
    )
    .with_code(&[1]);
    for k in rows {
        let launches = match k.verdict {
            Verdict::Added => format!("absent → {}", value(k.launches.after, Unit::Count)),
            Verdict::Removed => format!("{} → absent", value(k.launches.before, Unit::Count)),
            _ => arrow(&k.launches, Unit::Count),
        };
        t.push(vec![
            vw.w(k.verdict),
            ellipsize(&k.name, name_chars),
            launches,
            arrow_row(&k.time_ns, Unit::Ns, k.verdict),
            rel(&k.time_ns, Unit::Ns),
        ]);
    }
    t
}

/// The op rows of two PyTorch traces with shapes: fraction of roof (the
/// op models' bound / time) before → after, and the time.
fn ops_table(rows: &[&OpRowDiff], name_chars: usize, vw: Vw) -> Table {
    let mut t = Table::new(
        &["verdict", "op", "shapes", "fraction of roof", "time"],
        &[0, 1, 2],
    )
    .with_code(&[1, 2]);
    for o in rows {
        t.push(vec![
            vw.w(o.verdict),
            o.name.clone(),
            ellipsize(&o.shapes, name_chars),
            arrow_row(&o.fraction_of_roof, Unit::Plain, o.verdict),
            arrow_row(&o.time_ns, Unit::Ns, o.verdict),
        ]);
    }
    t
}

/// The op rows worth a reader's eye: every row but the unchanged.
fn ops_changed(g: &GapsDiff) -> Vec<&OpRowDiff> {
    let rows = g.ops.iter().flatten();
    rows.filter(|o| o.verdict != Verdict::Unchanged).collect()
}

/// The timeline kernels worth a reader's eye: every row but the unchanged.
fn kernels_changed(g: &GapsDiff) -> Vec<&TimelineKernelDiff> {
    g.kernels
        .iter()
        .flatten()
        .filter(|k| k.verdict != Verdict::Unchanged)
        .collect()
}

fn device_table(g: &GapsDiff, vw: Vw) -> Table {
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
            vw.w(d.verdict),
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

fn class_table(d: &DeviceDiff, vw: Vw) -> Table {
    totals_table("idle class", &d.classes, &class_label, vw)
}

/// Host-bound idle by what the host was doing, when a report splits it.
fn detail_table(d: &DeviceDiff, tool: Tool, vw: Vw) -> Option<Table> {
    let label = |key: &str| detail_label(key, tool);
    host_detail_shown(d)
        .then(|| totals_table("host-bound: the host was", &d.host_detail, &label, vw))
}

/// The words for ranges of the runs' tool.
fn ranges_named(tool: Tool) -> crate::gaps::RangeWords {
    range_words(tool)
}

fn totals_table(what: &str, rows: &[ClassDiff], label: &dyn Fn(&str) -> String, vw: Vw) -> Table {
    let mut t = Table::new(&[what, "gaps", "idle", "change", "verdict"], &[0, 4]);
    for c in rows {
        t.push(vec![
            label(&c.class),
            format!("{} → {}", c.count_before, c.count_after),
            arrow(&c.total_ns, Unit::Ns),
            rel(&c.total_ns, Unit::Ns),
            vw.w(c.total_ns.verdict),
        ]);
    }
    t
}

fn range_table(g: &GapsDiff, vw: Vw) -> Option<Table> {
    let ranges = g.ranges.as_ref()?;
    let mut t = Table::new(
        &[
            "verdict",
            ranges_named(g.tool).one,
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
            vw.w(r.verdict),
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

fn gap_table(g: &GapsDiff, top: usize, vw: Vw) -> Table {
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
            vw.w(x.verdict),
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

/// Who ran each side: `gpus: A100 → MI250 (cross-GPU: …)` with ranks.
fn identity_line(r: &DiffReport) -> String {
    let id = &r.identity;
    let (b, a) = (&id.base, &id.new);
    if b.gpus.is_empty()
        && a.gpus.is_empty()
        && b.rank_words().is_none()
        && a.rank_words().is_none()
    {
        return String::new();
    }
    let verdict = match (id.cross_gpu, id.gpus_checked) {
        (true, _) => {
            "CROSS-GPU: every verdict compares two GPU models, not two versions of the code"
        }
        (false, true) => "one GPU model",
        (false, false) => "GPU model not checked",
    };
    format!("gpus: {} → {} ({verdict})\n", b.words(), a.words())
}

fn head_lines(r: &DiffReport) -> String {
    let t = &r.thresholds;
    format!(
        "base: {} ({})\nnew:  {} ({})\n{}{}thresholds: time ±{:.1} % and > {} (kernels) / {} (timeline), bytes ±{:.1} %, fraction ±{:.3}; changes must also exceed the spread of repeated launches/instances\n",
        r.base.input,
        r.base.source,
        r.new.input,
        r.new.source,
        identity_line(r),
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
    let vw = Vw::of(r);
    let mut out = format!("{}\n\n{}\n", r.headline(), head_lines(r));
    if let Some(n) = &r.ncu {
        if !n.same_roofs {
            out.push_str(&format!(
                "roofs: each side its own ({} → {})\n",
                n.gpu_before.as_deref().unwrap_or("?"),
                n.gpu_after.as_deref().unwrap_or("?")
            ));
        }
        out.push_str(&ncu_totals_table(n, vw).to_text());
        out.push('\n');
        out.push_str(&kernel_table(&kernels_shown(n, top, false), NAME_CHARS, vw).to_text());
        if top != 0 && n.kernels.len() > top {
            out.push_str(&format!(
                "({} of {} rows; --top 0 for all)\n",
                top,
                n.kernels.len()
            ));
        }
    }
    if let Some(g) = &r.nsys {
        out.push_str(&device_table(g, vw).to_text());
        out.push('\n');
        out.push_str(&class_table(&g.total, vw).to_text());
        if let Some(t) = detail_table(&g.total, g.tool, vw) {
            out.push('\n');
            out.push_str(&t.to_text());
        }
        if let Some(t) = range_table(g, vw) {
            out.push('\n');
            out.push_str(&t.to_text());
        }
        if let Some(all) = &g.kernels {
            let changed = kernels_changed(g);
            let shown = if top == 0 {
                changed.len()
            } else {
                top.min(changed.len())
            };
            out.push_str(&format!(
                "\nkernels: {} names, {} changed (added, removed, run more or less often, or time beyond the threshold):\n",
                all.len(),
                changed.len()
            ));
            if !changed.is_empty() {
                out.push_str(&timeline_kernel_table(&changed[..shown], NAME_CHARS, vw).to_text());
            }
            if shown < changed.len() {
                out.push_str(&format!(
                    "({shown} of {} rows; --top 0 for all)\n",
                    changed.len()
                ));
            }
        }
        if let Some(all) = &g.ops {
            let changed = ops_changed(g);
            let shown = if top == 0 {
                changed.len()
            } else {
                top.min(changed.len())
            };
            out.push_str(&format!(
                "\nops (name and shapes, fraction of roof from the op models): {} rows, {} changed:\n",
                all.len(),
                changed.len()
            ));
            if !changed.is_empty() {
                out.push_str(&ops_table(&changed[..shown], NAME_CHARS, vw).to_text());
            }
        }
        if !g.gaps.is_empty() {
            out.push_str("\nlongest gaps, both runs:\n");
            out.push_str(&gap_table(g, top, vw).to_text());
        }
    }
    out.push('\n');
    out.push_str(&gate_lines(r));
    for d in &r.diagnostics {
        out.push_str(&format!("note: {d}\n"));
    }
    out.into_bytes()
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
    let vw = Vw::of(r);
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
                out.push_str(&md_section(title, &kernel_table(&rows, MD_NAME_CHARS, vw)));
            }
        }
        out.push_str(&md_section("Totals", &ncu_totals_table(n, vw)));
        let changed = kernels_shown(n, 0, true);
        if !changed.is_empty() {
            details.push(md_section(
                "Every changed row",
                &kernel_table(&changed, MD_NAME_CHARS, vw),
            ));
        }
    }
    if let Some(g) = &r.nsys {
        out.push_str(&md_section("Devices", &device_table(g, vw)));
        out.push_str(&md_section(
            "Idle by class (all devices)",
            &class_table(&g.total, vw),
        ));
        let changed = kernels_changed(g);
        if !changed.is_empty() {
            let first = &changed[..top.min(changed.len())];
            out.push_str(&md_section(
                "Kernels that changed (added, removed, run more or less often, time)",
                &timeline_kernel_table(first, MD_NAME_CHARS, vw),
            ));
            if first.len() < changed.len() {
                details.push(md_section(
                    "Every kernel that changed",
                    &timeline_kernel_table(&changed, MD_NAME_CHARS, vw),
                ));
            }
        }
        let ops = ops_changed(g);
        if !ops.is_empty() {
            out.push_str(&md_section(
                "Ops whose fraction of roof changed (op models, name and shapes)",
                &ops_table(&ops[..top.min(ops.len())], MD_NAME_CHARS, vw),
            ));
        }
        if let Some(t) = detail_table(&g.total, g.tool, vw) {
            details.push(md_section("Host-bound idle by what the host was doing", &t));
        }
        if let Some(t) = range_table(g, vw) {
            details.push(md_section(ranges_named(g.tool).many, &t));
        }
        if !g.gaps.is_empty() {
            details.push(md_section("Longest gaps, both runs", &gap_table(g, 0, vw)));
        }
    }
    let block = format!("{}{}", head_lines(r), gate_lines(r));
    let fence = md_fence(&block);
    let mut tail = format!("\n{fence}\n{block}{fence}\n");
    for d in &r.diagnostics {
        tail.push_str(&format!("- {}\n", md_text(&d.message)));
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
            Format::Csv => super::diff_csv::render_csv(self),
            Format::Json => render_json(self),
            Format::Markdown => render_markdown(self, opts),
        }
    }
}
