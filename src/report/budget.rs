//! Renderers of the step budget: aligned table, CSV (one row per step, one
//! column per part), Markdown (verdict and "fix first" on top, fits a PR
//! comment) and versioned JSON (`rooftrace.budget/1`). Each returns bytes.

use super::table::{cells, Column, Table};
use super::{Format, Render, RenderOptions};
use crate::budget::{
    part_label, BoundSource, BudgetReport, KernelBudget, PartKind, Spread, StepBudget,
    UncoveredRow, OUTLIER_FACTOR,
};
use crate::units::{duration_ns, ellipsize, percent};

/// Renders the report; `opts.top` is the rows of the kernel and step
/// tables (0 = all).
impl Render for BudgetReport {
    fn render(&self, format: Format, opts: &RenderOptions) -> Vec<u8> {
        match format {
            Format::Table => table(self, opts).into_bytes(),
            Format::Csv => csv(self).into_bytes(),
            Format::Markdown => markdown(self, opts).into_bytes(),
            Format::Json => {
                let mut v = serde_json::to_vec_pretty(self).unwrap_or_default();
                v.push(b'\n');
                v
            }
        }
    }
}

fn dur(ns: f64) -> String {
    if ns == 0.0 {
        "0".to_string()
    } else {
        duration_ns(ns)
    }
}

fn share(a: f64, b: f64) -> String {
    percent(if b > 0.0 { a / b } else { 0.0 })
}

/// Where the bound came from, one phrase.
fn source_phrase(r: &BudgetReport) -> String {
    match &r.bound_source {
        BoundSource::Ncu { file } => format!("bound from the ncu counters in {file}"),
        BoundSource::BytesPerStep { bytes, bound_ns } => format!(
            "bound = {} per step / {} = {}",
            crate::units::si(*bytes, "B"),
            crate::units::si(r.dram_bytes_per_s, "B/s"),
            duration_ns(*bound_ns)
        ),
        BoundSource::OpModel { flop_convention } => format!(
            "bound from the op models: each kernel's share of its op call's bound, derived from the shapes the trace recorded (convention {flop_convention}, docs/ops.md)"
        ),
        BoundSource::NcuAndOpModel {
            file,
            flop_convention,
        } => format!(
            "bound from the ncu counters in {file} where they match a kernel, else from the op models (derived from the shapes the trace recorded, convention {flop_convention})"
        ),
        BoundSource::Unknown => "no bound (give --ncu or --bytes-per-step)".to_string(),
    }
}

/// One line: the median step and its parts, largest first.
pub fn verdict(r: &BudgetReport) -> String {
    let Some(m) = r.median_step.and_then(|i| r.steps.get(i)) else {
        return format!("no `{}` step to budget", r.pattern);
    };
    let mut parts: Vec<_> = m.parts.iter().filter(|p| p.ns != 0).collect();
    parts.sort_by(|a, b| {
        b.ns.cmp(&a.ns)
            .then_with(|| a.kind.key().cmp(&b.kind.key()))
    });
    let list: Vec<String> = parts
        .iter()
        .take(4)
        .map(|p| format!("{} {}", p.kind.label(), dur(p.ns as f64)))
        .collect();
    let bound = m.part(PartKind::Bound);
    let ratio = if bound > 0 {
        format!(", {:.2}× its bound", m.step_ns as f64 / bound as f64)
    } else {
        String::new()
    };
    format!(
        "median `{}` step {} on {}{ratio} (of {} steps): {}",
        r.pattern,
        dur(m.step_ns as f64),
        r.gpu.name,
        r.steps.len(),
        list.join(", ")
    )
}

fn parts_table(r: &BudgetReport) -> Table {
    let m = r.median_step.and_then(|i| r.steps.get(i));
    let step = m.map_or(0, |m| m.step_ns) as f64;
    // The part's time in the median step.
    let in_median = move |s: &Spread| {
        (match m {
            Some(m) if s.name == "step" => m.step_ns,
            Some(m) => PartKind::from_key(&s.name).map_or(0, |k| m.part(k)),
            None => 0,
        }) as f64
    };
    let columns: Vec<Column<&Spread>> = vec![
        Column::left("part", |s: &&Spread| part_label(&s.name)),
        Column::right("median step", move |s: &&Spread| dur(in_median(s))),
        Column::right("share", move |s: &&Spread| share(in_median(s), step)),
        Column::right("p10", |s: &&Spread| dur(s.p10_ns as f64)),
        Column::right("median", |s: &&Spread| dur(s.median_ns as f64)),
        Column::right("p90", |s: &&Spread| dur(s.p90_ns as f64)),
    ];
    Table::of_columns(&columns, &r.spread)
}

fn kernels_table(r: &BudgetReport, rows: usize, width: usize) -> (Table, usize) {
    // A lower bound on the bound (an unknown side in ncu) makes the
    // shortfall an upper bound.
    let marks = |k: &KernelBudget| {
        if k.lower_bound_launches > 0 {
            ("≥", "≤")
        } else {
            ("", "")
        }
    };
    let mut columns: Vec<Column<&KernelBudget>> = vec![
        Column::left("kernel", move |k: &&KernelBudget| ellipsize(&k.name, width)),
        Column::right("launches", |k: &&KernelBudget| k.launches.to_string()),
        Column::right("own counter", |k: &&KernelBudget| k.matched.to_string()),
        Column::right("name figure", |k: &&KernelBudget| k.per_name.to_string()),
        Column::right("time", |k: &&KernelBudget| dur(k.time_ns as f64)),
        Column::right("bound", move |k: &&KernelBudget| {
            k.bound_ns.map_or("unknown".into(), |b| {
                format!("{}{}", marks(k).0, dur(b as f64))
            })
        }),
        Column::right("shortfall", move |k: &&KernelBudget| {
            k.shortfall_ns.map_or("unknown".into(), |b| {
                format!("{}{}", marks(k).1, dur(b as f64))
            })
        }),
        Column::right("of roof", move |k: &&KernelBudget| {
            k.bound_ns.map_or("-".into(), |b| {
                format!("{}{}", marks(k).0, share(b as f64, k.time_ns as f64))
            })
        }),
        Column::left("bound by", |k: &&KernelBudget| {
            k.bound_by.unwrap_or("-").to_string()
        }),
    ];
    if r.coverage.op_model_ns.is_some() {
        // Launches bounded from the shapes, beside those with counters.
        columns.insert(
            4,
            Column::right("op model", |k: &&KernelBudget| {
                k.op_model.unwrap_or(0).to_string()
            }),
        );
    }
    let shown = if rows == 0 {
        r.kernels.len()
    } else {
        rows.min(r.kernels.len())
    };
    let t = Table::of_columns(&columns, &r.kernels[..shown]);
    (t, r.kernels.len() - shown)
}

/// A row of the steps table and CSV: the step's index and the step.
type StepRow<'a> = (usize, &'a StepBudget);

/// One row per step (the first `rows`; 0 = all): the parts grouped as
/// bound, shortfall, idle (every class), copies (memcpy + memset) and the
/// rest (kernels without counters, graph rows, outside the GPU span).
fn steps_table(r: &BudgetReport, rows: usize) -> (Table, usize) {
    let idle = |s: &StepBudget| -> i64 {
        s.parts
            .iter()
            .filter(|p| matches!(p.kind, PartKind::Idle(_)))
            .map(|p| p.ns)
            .sum()
    };
    let copies = |s: &StepBudget| s.part(PartKind::Memcpy) + s.part(PartKind::Memset);
    let (bound, shortfall) = (PartKind::Bound, PartKind::Shortfall);
    let lower = |s: &StepBudget, mark: &'static str| {
        if s.lower_bound_launches > 0 {
            mark
        } else {
            ""
        }
    };
    let mut columns: Vec<Column<StepRow>> = vec![
        Column::right("#", |&(i, _): &StepRow| {
            let mark = if r.median_step == Some(i) {
                " (median)"
            } else {
                ""
            };
            format!("{}{mark}", i + 1)
        }),
        Column::right("step", |(_, s): &StepRow| dur(s.step_ns as f64)),
        Column::right("bound", move |(_, s): &StepRow| {
            format!("{}{}", lower(s, "≥"), dur(s.part(bound) as f64))
        }),
        Column::right("shortfall", move |(_, s): &StepRow| {
            format!("{}{}", lower(s, "≤"), dur(s.part(shortfall) as f64))
        }),
        Column::right("idle", move |(_, s): &StepRow| dur(idle(s) as f64)),
        Column::right("copies", move |(_, s): &StepRow| dur(copies(s) as f64)),
        Column::right("other", move |(_, s): &StepRow| {
            let other = s.step_ns - s.part(bound) - s.part(shortfall) - idle(s) - copies(s);
            dur(other as f64)
        }),
        Column::right("kernels", |(_, s): &StepRow| s.kernels.to_string()),
    ];
    // Pipelined steps: the step's work before it owned the device, and its
    // GPU time inside the next step's host range.
    if r.steps
        .iter()
        .any(|s| s.previous_overlap_ns > 0 || s.next_host_overlap_ns > 0)
    {
        columns.push(Column::right("given to previous", |(_, s): &StepRow| {
            dur(s.previous_overlap_ns as f64)
        }));
        columns.push(Column::right("into next host", |(_, s): &StepRow| {
            dur(s.next_host_overlap_ns as f64)
        }));
    }
    let shown = if rows == 0 {
        r.steps.len()
    } else {
        rows.min(r.steps.len())
    };
    let t = Table::of_columns(&columns, r.steps[..shown].iter().enumerate());
    (t, r.steps.len() - shown)
}

/// The steps' overlap, when some step's GPU work ran into the next step:
/// how much of each step's GPU work ran during the next step's host time,
/// and how much of a step's work the previous step owns (charged once).
fn overlap_line(r: &BudgetReport) -> Option<String> {
    let into_next: Vec<i64> = r.steps.iter().map(|s| s.next_host_overlap_ns).collect();
    let ceded: i64 = r.steps.iter().map(|s| s.previous_overlap_ns).sum();
    let n_into = into_next.iter().filter(|&&x| x > 0).count();
    let n_ceded = r.steps.iter().filter(|s| s.previous_overlap_ns > 0).count();
    if n_into == 0 && n_ceded == 0 {
        return None;
    }
    let total: i64 = into_next.iter().sum();
    let max = into_next.iter().copied().max().unwrap_or(0);
    Some(format!(
        "steps overlap: {n_into} of {} steps' GPU work ran during the next step's host time ({} in all, at most {} in one step); {n_ceded} steps began on the GPU while the step before still ran, and that {} is charged to the step before (each step owns the device from the end of the previous step's GPU work)",
        r.steps.len(),
        dur(total as f64),
        dur(max as f64),
        dur(ceded as f64)
    ))
}

/// The host's time before the steps' first GPU ops, beside the steps:
/// how many steps have some, its median per step, and the median step
/// measured from its range's start; `None` when no step has any.
fn host_before_line(r: &BudgetReport) -> Option<String> {
    let with = r.steps.iter().filter(|s| s.host_before_gpu_ns > 0).count();
    let m = r.median_step.and_then(|i| r.steps.get(i))?;
    if with == 0 {
        return None;
    }
    let mut v: Vec<i64> = r.steps.iter().map(|s| s.host_before_gpu_ns).collect();
    v.sort_unstable();
    let median = v[v.len().div_ceil(2) - 1];
    Some(format!(
        "host time before the first GPU op (beside the step, not in it: host_before_gpu_ns): {with} of {} steps, median {} per step; the median step from its range's start is {} ({} + {} on the GPU)",
        r.steps.len(),
        dur(median as f64),
        dur((m.host_before_gpu_ns + m.step_ns) as f64),
        dur(m.host_before_gpu_ns as f64),
        dur(m.step_ns as f64)
    ))
}

fn coverage_line(r: &BudgetReport) -> String {
    let c = &r.coverage;
    let k = c.kernel_ns as f64;
    if let Some(op_model_ns) = c.op_model_ns {
        return format!(
            "coverage: {} of kernel time bounded ({} its own ncu launch, {} the name's ncu figure, {} the op models from the recorded shapes), {} without (by reason below)",
            share((c.matched_ns + c.per_name_ns + op_model_ns) as f64, k),
            share(c.matched_ns as f64, k),
            share(c.per_name_ns as f64, k),
            share(op_model_ns as f64, k),
            share(c.none_ns as f64, k)
        );
    }
    format!(
        "coverage: {} of kernel time backed by a counter of the same kernel ({} its own launch, {} the name's figure for unprofiled launches), {} without",
        share((c.matched_ns + c.per_name_ns) as f64, k),
        share(c.matched_ns as f64, k),
        share(c.per_name_ns as f64, k),
        share(c.none_ns as f64, k)
    )
}

/// The kernel time no op model or counter bounds, one row per reason.
fn uncovered_table(r: &BudgetReport) -> Table {
    let kernel_ns = r.coverage.kernel_ns as f64;
    let columns: Vec<Column<&UncoveredRow>> = vec![
        Column::left("reason", |u: &&UncoveredRow| u.reason.reason()),
        Column::right("kernels", |u: &&UncoveredRow| u.kernels.to_string()),
        Column::right("time", |u: &&UncoveredRow| dur(u.time_ns as f64)),
        Column::right("of kernel time", move |u: &&UncoveredRow| {
            share(u.time_ns as f64, kernel_ns)
        }),
        Column::left("ops", |u: &&UncoveredRow| {
            let ops: Vec<String> = u
                .ops
                .iter()
                .map(|o| format!("{} {}", o.name, dur(o.time_ns as f64)))
                .collect();
            if ops.is_empty() {
                "-".to_string()
            } else {
                ops.join(", ")
            }
        }),
        Column::left("how to bound them", |u: &&UncoveredRow| u.fix.to_string()),
    ];
    Table::of_columns(&columns, &r.without_counters)
}

/// The heading of the uncovered kernels' table.
const UNCOVERED_HEADING: &str = "kernels without counters (no op model covers them), by reason";

fn fix_lines(r: &BudgetReport) -> Vec<String> {
    let mut lines: Vec<String> = r
        .fix_first
        .iter()
        .enumerate()
        .map(|(i, f)| format!("{}. {}", i + 1, f.text))
        .collect();
    if let Some(o) = outlier_line(r) {
        lines.push(o);
    }
    lines
}

/// The outlier steps by name, or `None` when there are none.
fn outlier_line(r: &BudgetReport) -> Option<String> {
    let m = r.median_step.and_then(|i| r.steps.get(i))?;
    if r.outlier_steps.is_empty() {
        return None;
    }
    let named: Vec<String> = r
        .outlier_steps
        .iter()
        .take(5)
        .filter_map(|&i| r.steps.get(i).map(|s| (i, s)))
        .map(|(i, s)| {
            format!(
                "#{i} `{}` {}",
                ellipsize(r.text(s), 40),
                dur(s.step_ns as f64)
            )
        })
        .collect();
    let more = r.outlier_steps.len().saturating_sub(named.len());
    Some(format!(
        "left out: {} outlier step{} longer than {} × the median step ({}): {}{}",
        r.outlier_steps.len(),
        if r.outlier_steps.len() == 1 { "" } else { "s" },
        OUTLIER_FACTOR,
        dur(m.step_ns as f64),
        named.join(", "),
        if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        }
    ))
}

/// One line: the best change on the median step's critical path, when
/// the command walked it (`rooftrace path` shows the whole path).
pub fn critical_path_line(r: &BudgetReport) -> Option<String> {
    let c = r.critical_path.as_ref()?;
    let step = r.steps.get(c.step).map_or(0, |s| s.step_ns);
    Some(match (&c.change, c.saved_ns) {
        (Some(change), Some(saved)) => format!(
            "critical path: `{change}` shortens the median step most, by {} ({}): {} (`rooftrace path` shows the whole path)",
            dur(saved as f64),
            share(saved as f64, step as f64),
            c.why
        ),
        _ => format!("critical path: {} (`rooftrace path` shows the whole path)", c.why),
    })
}

fn table(r: &BudgetReport, o: &RenderOptions) -> String {
    let mut out = format!(
        "{}\n{}; roofs: {} ({})\n",
        verdict(r),
        source_phrase(r),
        r.gpu.name,
        crate::report::gpu_choice::chosen_by(&r.gpu.chosen_by)
    );
    if let Some(l) = critical_path_line(r) {
        out.push_str(&format!("{l}\n"));
    }
    out.push('\n');
    out.push_str(&parts_table(r).to_text());
    if let Some(l) = overlap_line(r) {
        out.push_str(&format!("\n{l}\n"));
    }
    if let Some(l) = host_before_line(r) {
        out.push_str(&format!("\n{l}\n"));
    }
    if !r.steps.is_empty() {
        let (t, more) = steps_table(r, o.top);
        out.push_str("\nsteps:\n");
        out.push_str(&t.to_text());
        if more > 0 {
            out.push_str(&format!(
                "({more} more steps; --top 0 shows all, CSV and JSON have every part)\n"
            ));
        }
    }
    if !r.fix_first.is_empty() || !r.outlier_steps.is_empty() {
        out.push_str("\nfix first:\n");
        for l in fix_lines(r) {
            out.push_str(&format!("  {l}\n"));
        }
    }
    if !r.kernels.is_empty() {
        let (t, more) = kernels_table(r, o.top, 64);
        out.push_str("\nkernels in the steps, largest shortfall first, then by time:\n");
        out.push_str(&t.to_text());
        if more > 0 {
            out.push_str(&format!("({more} more kernels; --top 0 shows all)\n"));
        }
        out.push_str(&format!("{}\n", coverage_line(r)));
    }
    if !r.without_counters.is_empty() {
        out.push_str(&format!("\n{UNCOVERED_HEADING}:\n"));
        out.push_str(&uncovered_table(r).to_text());
    }
    for d in &r.diagnostics {
        out.push_str(&format!("warning: {d}\n"));
    }
    out
}

/// The CSV's columns: where the step is, then one `<part>_ns` per part
/// (`names`, the first step's parts), then the figures that are not parts.
fn csv_columns<'a>(r: &'a BudgetReport, kinds: &[PartKind]) -> Vec<Column<'a, StepRow<'a>>> {
    let mut columns: Vec<Column<StepRow>> = vec![
        Column::left("step", |&(i, _): &StepRow| i.to_string()),
        Column::left("text", |(_, s): &StepRow| {
            let text = r.text(s);
            if text.contains([',', '"', '\n']) {
                format!("\"{}\"", text.replace('"', "\"\""))
            } else {
                text.to_string()
            }
        }),
        Column::left("pid", |(_, s): &StepRow| s.pid.to_string()),
        Column::left("device", |(_, s): &StepRow| s.device.to_string()),
        Column::left("gpu_start_ns", |(_, s): &StepRow| {
            s.gpu_start_ns.to_string()
        }),
        Column::left("gpu_end_ns", |(_, s): &StepRow| s.gpu_end_ns.to_string()),
        Column::left("projected", |(_, s): &StepRow| s.projected.to_string()),
        Column::left("kernels", |(_, s): &StepRow| s.kernels.to_string()),
        Column::left("step_ns", |(_, s): &StepRow| s.step_ns.to_string()),
    ];
    for &k in kinds {
        columns.push(Column::left(
            format!("{}_ns", k.key()),
            move |(_, s): &StepRow| s.part(k).to_string(),
        ));
    }
    columns.push(Column::left("gpu_work_start_ns", |(_, s): &StepRow| {
        s.gpu_work_start_ns.to_string()
    }));
    columns.push(Column::left("previous_overlap_ns", |(_, s): &StepRow| {
        s.previous_overlap_ns.to_string()
    }));
    columns.push(Column::left("next_host_overlap_ns", |(_, s): &StepRow| {
        s.next_host_overlap_ns.to_string()
    }));
    columns.push(Column::left("host_before_gpu_ns", |(_, s): &StepRow| {
        s.host_before_gpu_ns.to_string()
    }));
    columns.push(Column::left("concurrent_ns", |(_, s): &StepRow| {
        s.concurrent_ns.to_string()
    }));
    columns.push(Column::left("bound_capped_ns", |(_, s): &StepRow| {
        s.bound_capped_ns.to_string()
    }));
    columns.push(Column::left("lower_bound_launches", |(_, s): &StepRow| {
        s.lower_bound_launches.to_string()
    }));
    columns
}

fn csv(r: &BudgetReport) -> String {
    let kinds: Vec<PartKind> = r
        .steps
        .first()
        .map(|s| s.parts.iter().map(|p| p.kind).collect())
        .unwrap_or_default();
    let columns = csv_columns(r, &kinds);
    let headers: Vec<&str> = columns.iter().map(|c| c.header.as_str()).collect();
    let mut out = headers.join(",");
    out.push('\n');
    for row in r.steps.iter().enumerate() {
        out.push_str(&cells(&columns, &row).join(","));
        out.push('\n');
    }
    out
}

fn markdown(r: &BudgetReport, o: &RenderOptions) -> String {
    let mut out = format!("**{}**\n\n{}\n\n", verdict(r), source_phrase(r));
    if let Some(l) = critical_path_line(r) {
        out.push_str(&format!("{l}\n\n"));
    }
    if let Some(l) = overlap_line(r) {
        out.push_str(&format!("{l}\n\n"));
    }
    if let Some(l) = host_before_line(r) {
        out.push_str(&format!("{l}\n\n"));
    }
    if !r.fix_first.is_empty() || !r.outlier_steps.is_empty() {
        out.push_str("**Fix first**\n\n");
        for l in fix_lines(r) {
            out.push_str(&format!("{l}\n"));
        }
        out.push('\n');
    }
    for (alt, link) in &o.images {
        out.push_str(&format!("![{alt}]({link})\n\n"));
    }
    let mut sections = vec![format!(
        "### Median step and spread\n\n{}",
        parts_table(r).to_markdown()
    )];
    if !r.steps.is_empty() {
        let (t, more) = steps_table(r, if o.top == 0 { 50 } else { o.top.min(50) });
        let note = if more > 0 {
            format!("\n_{more} more steps in the CSV and JSON reports._\n")
        } else {
            String::new()
        };
        sections.push(format!("### Steps\n\n{}{note}", t.to_markdown()));
    }
    if !r.kernels.is_empty() {
        let (t, more) = kernels_table(r, if o.top == 0 { 50 } else { o.top.min(50) }, 40);
        let note = if more > 0 {
            format!("\n_{more} more kernels in the JSON report._\n")
        } else {
            String::new()
        };
        sections.push(format!(
            "### Kernels in the steps, largest shortfall first, then by time\n\n{}{note}\n{}\n",
            t.to_markdown(),
            coverage_line(r)
        ));
    }
    if !r.without_counters.is_empty() {
        sections.push(format!(
            "### {}{}\n\n{}",
            UNCOVERED_HEADING[..1].to_uppercase(),
            &UNCOVERED_HEADING[1..],
            uncovered_table(r).to_markdown()
        ));
    }
    sections.push(super::md_bullets("Method", &r.method));
    if !r.diagnostics.is_empty() {
        sections.push(super::md_bullets("Diagnostics", &r.diagnostics));
    }
    super::push_fitting(&mut out, sections);
    out
}
