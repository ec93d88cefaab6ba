//! Renderers of the critical-path report (`rooftrace path`): aligned table
//! and Markdown (first the single change that shortens the median step
//! most, by how much and why; then the parts on the path with their share
//! of the step, per step or as the median step and the spread when there
//! are many; then the what-if table on the median step and the reminder
//! that single changes do not add up), CSV (one row per step × part) and
//! versioned JSON (`rooftrace.path/1`, the model as it is). Parquet is
//! `report::parquet::path`. A path that holds kernels with no bound says
//! their roof time is unknown, never 0.

use super::gpu_choice::chosen_by;
use super::table::{cells, md_code, md_text, Column, Table};
use super::{dur, push_fitting, Format, Render, RenderOptions};
use crate::path::{PartName, PathPart, PathReport, StepPath, WhatIf};
use crate::units::{ellipsize, percent};

impl Render for PathReport {
    fn render(&self, format: Format, opts: &RenderOptions) -> Vec<u8> {
        match format {
            Format::Table => table(self).into_bytes(),
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

/// Steps shown one by one in the parts table; more are summarised as the
/// median step and the spread across steps.
pub const STEPS_SHOWN_EACH: usize = 3;

/// The key of the change that applies every other one.
const ALL: &str = "all";

/// `part / whole` as a percentage; `whole` 0 gives 0 % (an empty step).
fn share(part: i64, whole: i64) -> String {
    percent(if whole > 0 {
        part as f64 / whole as f64
    } else {
        0.0
    })
}

/// A part's time in a step (0: not on its path).
fn part_ns(s: &StepPath, name: PartName) -> i64 {
    s.parts
        .iter()
        .filter(|p| p.name == name)
        .map(|p| p.ns)
        .sum()
}

/// The median step, when there is one.
fn median(r: &PathReport) -> Option<&StepPath> {
    r.median_step.and_then(|i| r.steps.get(i))
}

/// How a line quotes what came from the input: a name as code, other
/// input text as text (plain in the table; escaped in Markdown, where a
/// `\` or `|` in a code span and a `<` in text must stay themselves).
struct Quote {
    code: fn(&str) -> String,
    text: fn(&str) -> String,
}

/// The table's quoting: backticks, text as it is.
const PLAIN: Quote = Quote {
    code: |s| format!("`{s}`"),
    text: str::to_string,
};

/// Markdown's quoting: [`md_code`] outside a table, where a `|` needs no
/// escape (md_code adds one `\` before each `|`, taken off here), and
/// [`md_text`].
const MARKDOWN: Quote = Quote {
    code: |s| md_code(s).replace("\\|", "|"),
    text: md_text,
};

/// A step as a phrase: its range text, length, process and device.
fn step_title(s: &StepPath, q: &Quote) -> String {
    format!(
        "{} ({}, process {}, GPU {})",
        (q.code)(&s.name),
        dur(s.step_ns),
        s.pid,
        s.device
    )
}

/// The first line: which single change shortens the median step most,
/// by how much and why (from `best`); when none is known, why not.
pub fn verdict(r: &PathReport) -> String {
    verdict_in(r, &PLAIN)
}

fn verdict_in(r: &PathReport, q: &Quote) -> String {
    let Some(m) = median(r) else {
        return format!("no {} step to walk", (q.code)(&r.pattern));
    };
    match &r.best {
        Some(b) => format!(
            "best single change: {} shortens the median step {} by {} ({} of it): {}",
            (q.code)(&b.change),
            step_title(m, q),
            dur(b.saved_ns),
            share(b.saved_ns, m.step_ns),
            (q.text)(&b.why)
        ),
        None if m.what_if.is_empty() => format!(
            "no single change is known to shorten the median step {}: no change was replayed on it",
            step_title(m, q)
        ),
        None => format!(
            "no single change is known to shorten the median step {}: none of the {} changes replayed on it saves time",
            step_title(m, q),
            m.what_if.len()
        ),
    }
}

/// The second line: how many steps, on which GPU, the kernel floor.
fn context_line(r: &PathReport, q: &Quote) -> String {
    format!(
        "{} step{} of {}; roofs: {} ({}); a kernel at its roof takes at least {} (kernel floor)",
        r.steps.len(),
        if r.steps.len() == 1 { "" } else { "s" },
        (q.code)(&r.pattern),
        (q.text)(&r.gpu.name),
        (q.text)(&chosen_by(&r.gpu.chosen_by)),
        dur(r.kernel_floor_ns)
    )
}

/// The parts that lie on some step's path, in the contract's order.
fn parts_present(steps: &[&StepPath]) -> Vec<PartName> {
    PartName::ALL
        .into_iter()
        .filter(|&n| steps.iter().any(|s| part_ns(s, n) != 0))
        .collect()
}

/// Nearest-rank percentile `q` of `v` (sorted here), as `budget` spreads
/// its parts.
fn rank(mut v: Vec<i64>, q: f64) -> i64 {
    v.sort_unstable();
    if v.is_empty() {
        return 0;
    }
    let i = ((v.len() as f64 * q).ceil() as usize).clamp(1, v.len()) - 1;
    v[i]
}

/// The parts on the path: one column per step for a few steps, else the
/// median step beside each part's spread across steps (p10, median, p90).
fn parts_table(r: &PathReport) -> Table {
    let all: Vec<&StepPath> = r.steps.iter().collect();
    let names = parts_present(&all);
    let mut columns: Vec<Column<PartName>> =
        vec![Column::left("part", |n: &PartName| n.key().to_string())];
    if r.steps.len() <= STEPS_SHOWN_EACH {
        for (i, s) in r.steps.iter().enumerate() {
            let mark = if r.median_step == Some(i) {
                " (median)"
            } else {
                ""
            };
            columns.push(Column::right(
                format!("step {}{mark}", i + 1),
                move |&n: &PartName| {
                    let ns = part_ns(s, n);
                    format!("{} ({})", dur(ns), share(ns, s.step_ns))
                },
            ));
        }
    } else {
        let m = median(r);
        columns.push(Column::right("median step", move |&n: &PartName| {
            m.map_or("0".into(), |m| dur(part_ns(m, n)))
        }));
        columns.push(Column::right("share", move |&n: &PartName| {
            m.map_or("0 %".into(), |m| share(part_ns(m, n), m.step_ns))
        }));
        for (head, q) in [("p10", 0.1), ("median", 0.5), ("p90", 0.9)] {
            let steps = all.clone();
            columns.push(Column::right(head, move |&n: &PartName| {
                dur(rank(steps.iter().map(|s| part_ns(s, n)).collect(), q))
            }));
        }
    }
    Table::of_columns(&columns, names)
}

/// Widest `change` cell: a `kernel:<name>` change holds a whole
/// demangled kernel name (the JSON keeps it whole).
const CHANGE_WIDTH: usize = 64;

/// The what-if table of a step: each change replayed, most saved first.
fn what_if_table(s: &StepPath, rows: usize) -> Table {
    let step = s.step_ns;
    let columns: Vec<Column<&WhatIf>> = vec![
        Column::left("change", |w: &&WhatIf| ellipsize(&w.change, CHANGE_WIDTH)),
        Column::right("saved", |w: &&WhatIf| dur(w.saved_ns)),
        Column::right("of step", move |w: &&WhatIf| share(w.saved_ns, step)),
        Column::right("new step", |w: &&WhatIf| dur(w.new_step_ns)),
        Column::right("shortfall", |w: &&WhatIf| dur(w.shortfall_ns)),
        Column::right("moved", |w: &&WhatIf| w.moved.to_string()),
    ];
    Table::of_columns(&columns, s.what_if.iter().take(rows))
}

/// "single changes do not add up": what all changes together save beside
/// the sum of the single class changes (`kernel:<name>` changes are parts
/// of `kernels_at_roof`, so they are left out of the sum).
fn add_up_line(s: &StepPath) -> Option<String> {
    let all = s.what_if.iter().find(|w| w.change == ALL)?;
    let singles: i64 = s
        .what_if
        .iter()
        .filter(|w| w.change != ALL && !w.change.starts_with("kernel:"))
        .map(|w| w.saved_ns)
        .sum();
    Some(format!(
        "single changes do not add up: all together save {} ({} of the step), the single changes' savings sum to {} (each replayed alone on the step's graph; `kernel:<name>` changes are parts of kernels_at_roof and left out of the sum)",
        dur(all.saved_ns),
        share(all.saved_ns, s.step_ns),
        dur(singles)
    ))
}

/// Where the path holds kernels with no bound: their roof time is
/// unknown, so no change moves them.
fn unknown_line(s: &StepPath) -> Option<String> {
    let ns = part_ns(s, PartName::KernelNoModel);
    (ns > 0).then(|| {
        format!(
            "{} of this step's path ({}) is kernels with no bound known (kernel_no_model): their roof time is unknown, so kernels_at_roof leaves them at their measured time; give --ncu, or a trace recorded with record_shapes=True",
            dur(ns),
            share(ns, s.step_ns)
        )
    })
}

/// The what-if rows the table and Markdown show (`kernel:<name>` rows are
/// already cut to `--top` by the analysis).
const WHAT_IF_ROWS: usize = 50;

fn table(r: &PathReport) -> String {
    let mut out = format!("{}\n{}\n", verdict(r), context_line(r, &PLAIN));
    if !r.steps.is_empty() {
        let head = if r.steps.len() <= STEPS_SHOWN_EACH {
            "the critical path of each step, by part (share of the step):".to_string()
        } else {
            format!(
                "the critical path of the median step and the spread over {} steps, by part:",
                r.steps.len()
            )
        };
        out.push_str(&format!("\n{head}\n{}", parts_table(r).to_text()));
    }
    if let Some(m) = median(r) {
        if let Some(l) = unknown_line(m) {
            out.push_str(&format!("{l}\n"));
        }
        if !m.what_if.is_empty() {
            out.push_str(
                "\nwhat-if on the median step (each change replayed on the step's graph):\n",
            );
            out.push_str(&what_if_table(m, WHAT_IF_ROWS).to_text());
        }
        if let Some(l) = add_up_line(m) {
            out.push_str(&format!("{l}\n"));
        }
    }
    for d in &r.diagnostics {
        out.push_str(&format!("warning: {d}\n"));
    }
    out
}

fn markdown(r: &PathReport, _opts: &RenderOptions) -> String {
    let mut out = format!(
        "**{}**\n\n{}\n\n",
        verdict_in(r, &MARKDOWN),
        context_line(r, &MARKDOWN)
    );
    let mut sections = Vec::new();
    if !r.steps.is_empty() {
        let title = if r.steps.len() <= STEPS_SHOWN_EACH {
            "Critical path of each step".to_string()
        } else {
            format!(
                "Critical path: median step and spread over {} steps",
                r.steps.len()
            )
        };
        sections.push(format!("### {title}\n\n{}", parts_table(r).to_markdown()));
    }
    if let Some(m) = median(r) {
        let mut s = String::new();
        if !m.what_if.is_empty() {
            s.push_str(&format!(
                "### What-if on the median step\n\n{}",
                what_if_table(m, WHAT_IF_ROWS).to_markdown()
            ));
        }
        for l in add_up_line(m).into_iter().chain(unknown_line(m)) {
            s.push_str(&format!("\n{l}\n"));
        }
        if !s.is_empty() {
            sections.push(s);
        }
    }
    if !r.diagnostics.is_empty() {
        sections.push(super::md_bullets("Diagnostics", &r.diagnostics));
    }
    push_fitting(&mut out, sections);
    out
}

/// One CSV row: a step (index and model) and one part on its path.
type PartRow<'a> = (usize, &'a StepPath, &'a PathPart);

/// CSV-quoted `s` (a range text may hold commas and quotes).
fn quoted(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// The CSV's columns, one list for header and cells.
fn csv_columns<'a>(r: &'a PathReport) -> Vec<Column<'a, PartRow<'a>>> {
    vec![
        Column::left("step", |&(i, _, _): &PartRow| i.to_string()),
        Column::left("name", |(_, s, _): &PartRow| quoted(&s.name)),
        Column::left("pid", |(_, s, _): &PartRow| s.pid.to_string()),
        Column::left("device", |(_, s, _): &PartRow| s.device.to_string()),
        Column::left("start_ns", |(_, s, _): &PartRow| s.start_ns.to_string()),
        Column::left("step_ns", |(_, s, _): &PartRow| s.step_ns.to_string()),
        Column::left("path_ns", |(_, s, _): &PartRow| s.path_ns.to_string()),
        Column::left("median_step", move |&(i, _, _): &PartRow| {
            (r.median_step == Some(i)).to_string()
        }),
        Column::left("part", |(_, _, p): &PartRow| p.name.key().to_string()),
        Column::left("part_ns", |(_, _, p): &PartRow| p.ns.to_string()),
        // part_ns / step_ns, 6 decimals.
        Column::left("share_of_step", |(_, s, p): &PartRow| {
            if s.step_ns > 0 {
                format!("{:.6}", p.ns as f64 / s.step_ns as f64)
            } else {
                String::new()
            }
        }),
    ]
}

fn csv(r: &PathReport) -> String {
    let columns = csv_columns(r);
    let headers: Vec<&str> = columns.iter().map(|c| c.header.as_str()).collect();
    let mut out = headers.join(",");
    out.push('\n');
    for (i, s) in r.steps.iter().enumerate() {
        for p in &s.parts {
            out.push_str(&cells(&columns, &(i, s, p)).join(","));
            out.push('\n');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::path::{Best, KERNEL_FLOOR_NS, SCHEMA};

    fn what_if(change: &str, saved_ns: i64, step_ns: i64, shortfall_ns: i64) -> WhatIf {
        WhatIf {
            change: change.into(),
            saved_ns,
            new_step_ns: step_ns - saved_ns,
            shortfall_ns,
            moved: 1,
        }
    }

    /// A step of 10 µs: 6 µs of kernels with no bound, 3 µs of memory-bound
    /// kernels, 1 µs of launch overhead; `all` saves 1.5 µs, less than the
    /// 1 µs + 0.8 µs the two single changes save alone.
    fn step(name: &str, step_ns: i64) -> StepPath {
        StepPath {
            name: name.into(),
            pid: 7,
            device: 0,
            start_ns: 1_000,
            step_ns,
            path_ns: step_ns,
            parts: vec![
                PathPart {
                    name: PartName::KernelMemory,
                    ns: 3_000,
                },
                PathPart {
                    name: PartName::KernelNoModel,
                    ns: step_ns - 4_000,
                },
                PathPart {
                    name: PartName::LaunchOverhead,
                    ns: 1_000,
                },
            ],
            what_if: vec![
                what_if(ALL, 1_500, step_ns, 2_500),
                what_if("launch_overhead_removed", 1_000, step_ns, 1_000),
                what_if("kernels_at_roof", 800, step_ns, 1_500),
                what_if("kernel:gemv", 800, step_ns, 1_500),
            ],
            segments: Vec::new(),
        }
    }

    fn report(steps: Vec<StepPath>) -> PathReport {
        PathReport {
            schema: SCHEMA,
            input: vec!["run.json".into()],
            gpu: crate::roofs::GpuInfo {
                key: Some("h100-sxm".into()),
                name: "H100 SXM".into(),
                chosen_by: crate::roofs::GpuChoice::Flag,
                notes: Vec::new(),
            },
            pattern: "step".into(),
            kernel_floor_ns: KERNEL_FLOOR_NS,
            median_step: Some(0),
            steps,
            best: Some(Best {
                change: "launch_overhead_removed".into(),
                saved_ns: 1_000,
                why: "1 µs of launch overhead lies on the path".into(),
            }),
            diagnostics: Vec::new(),
        }
    }

    #[test]
    fn a_kernel_change_keeps_the_table_narrow_and_the_json_whole() {
        let long = format!(
            "kernel:void cub::DeviceScanKernel<{}>(int*)",
            "x".repeat(300)
        );
        let mut s = step("s#1", 10_000);
        s.what_if.push(what_if(&long, 500, 10_000, 900));
        let r = report(vec![s]);
        let text = String::from_utf8(r.render(Format::Table, &RenderOptions::default())).unwrap();
        let row = text
            .lines()
            .find(|l| l.starts_with("kernel:void cub"))
            .unwrap();
        // The change cell is cut to CHANGE_WIDTH (64) characters, start and
        // end kept around one `…`; the other five columns follow it.
        let cell: String = row.chars().take(CHANGE_WIDTH).collect();
        assert!(cell.contains('…') && cell.ends_with("(int*)"), "{row}");
        let json = String::from_utf8(r.render(Format::Json, &RenderOptions::default())).unwrap();
        assert!(json.contains(&long), "the JSON keeps the whole name");
    }

    #[test]
    fn the_first_line_names_the_best_change_by_how_much_and_why() {
        let r = report(vec![step("s#1", 10_000)]);
        let text = String::from_utf8(r.render(Format::Table, &RenderOptions::default())).unwrap();
        let first = text.lines().next().unwrap();
        // 1 µs of a 10 µs step: 10.0 % (durations print three significant
        // digits).
        assert!(
            first.starts_with("best single change: `launch_overhead_removed` shortens the median step `s#1` (10.0 µs, process 7, GPU 0) by 1.00 µs (10.0 % of it): 1 µs of launch overhead"),
            "{first}"
        );
        // The singles (1 µs + 0.8 µs, kernel:gemv left out) exceed all's 1.5 µs.
        assert!(
            text.contains("single changes do not add up: all together save 1.50 µs (15.0 % of the step), the single changes' savings sum to 1.80 µs"),
            "{text}"
        );
        // 6 µs of kernel_no_model: unknown, not 0.
        assert!(
            text.contains("6.00 µs of this step's path (60.0 %) is kernels with no bound known"),
            "{text}"
        );
    }

    #[test]
    fn markdown_quotes_names_from_the_input_as_themselves() {
        let mut r = report(vec![step("a|b <c> `d`", 10_000)]);
        r.best.as_mut().unwrap().why = "`k<float>` & more".into();
        let md = String::from_utf8(r.render(Format::Markdown, &RenderOptions::default())).unwrap();
        // The name in a code span fenced by two backticks (it holds one),
        // padded (it ends with one); the why as text: `<`, `>`, `&` as
        // entities.
        assert!(
            md.starts_with("**best single change: `launch_overhead_removed` shortens the median step `` a|b <c> `d` `` (10.0 µs, process 7, GPU 0) by 1.00 µs (10.0 % of it): `k&lt;float&gt;` &amp; more**\n"),
            "{md}"
        );
    }

    #[test]
    fn no_best_says_why_none_is_known() {
        let mut r = report(vec![step("s#1", 10_000)]);
        r.best = None;
        r.steps[0].what_if.clear();
        assert!(
            verdict(&r).ends_with("no change was replayed on it"),
            "{}",
            verdict(&r)
        );
        r.steps.clear();
        r.median_step = None;
        assert_eq!(verdict(&r), "no `step` step to walk");
    }

    #[test]
    fn csv_rows_are_steps_by_parts_and_sum_to_each_step() {
        let r = report(vec![step("a,\"b\"", 10_000), step("c", 12_000)]);
        let csv = String::from_utf8(r.render(Format::Csv, &RenderOptions::default())).unwrap();
        let mut lines = csv.lines();
        assert_eq!(
            lines.next().unwrap(),
            "step,name,pid,device,start_ns,step_ns,path_ns,median_step,part,part_ns,share_of_step"
        );
        let rows: Vec<&str> = lines.collect();
        assert_eq!(rows.len(), 6);
        assert!(
            rows[0].starts_with(
                "0,\"a,\"\"b\"\"\",7,0,1000,10000,10000,true,kernel_memory,3000,0.300000"
            ),
            "{}",
            rows[0]
        );
        // Step 1: 3000 + 8000 + 1000 = 12000.
        let sum: i64 = rows[3..]
            .iter()
            .map(|l| l.rsplit(',').nth(1).unwrap().parse::<i64>().unwrap())
            .sum();
        assert_eq!(sum, 12_000);
    }

    #[test]
    fn many_steps_show_the_median_and_the_spread() {
        let steps: Vec<StepPath> = (0..5).map(|i| step("s", 10_000 + 1_000 * i)).collect();
        let mut r = report(steps);
        r.median_step = Some(2);
        let text = String::from_utf8(r.render(Format::Table, &RenderOptions::default())).unwrap();
        assert!(text.contains("spread over 5 steps"), "{text}");
        // kernel_no_model over the steps: 6, 7, 8, 9, 10 µs; nearest-rank
        // p10 = 6 µs (rank 1), median = 8 µs (rank 3), p90 = 10 µs (rank 5).
        let row = text
            .lines()
            .find(|l| l.starts_with("kernel_no_model"))
            .unwrap();
        let cells: Vec<&str> = row.split_whitespace().collect();
        assert_eq!(
            cells,
            [
                "kernel_no_model",
                "8.00",
                "µs",
                "66.7",
                "%",
                "6.00",
                "µs",
                "8.00",
                "µs",
                "10.0",
                "µs"
            ]
        );
    }
}
