//! Renders a [`ProjectedBudget`] (`rooftrace budget --project-to`): the
//! budget as `rooftrace budget` prints it, then per target the answer to
//! "would this step get faster there, and by how much" for the median step,
//! with the parts that do not move named; CSV one row per (target, step,
//! part); JSON the budget's with a `projection` list.

use super::table::Table;
use super::{Format, Render, RenderOptions};
use crate::projection::budget::{BudgetProjection, PartRule, ProjectedBudget, StepProjection};
use crate::units::duration_ns;

fn rule_label(r: PartRule) -> &'static str {
    match r {
        PartRule::Kernels => "scaled by the kernel model",
        PartRule::Idle => "unchanged: idle (host, sync, dependency)",
        PartRule::CopyLinkUnknown => "unchanged: target link bandwidth unknown",
        PartRule::NoCounters => "unchanged: nothing to scale by",
    }
}

fn rule_key(r: PartRule) -> &'static str {
    match r {
        PartRule::Kernels => "kernels",
        PartRule::Idle => "idle",
        PartRule::CopyLinkUnknown => "copy_link_unknown",
        PartRule::NoCounters => "no_counters",
    }
}

fn median(p: &BudgetProjection) -> Option<&StepProjection> {
    p.median_step.and_then(|i| p.steps.get(i))
}

/// The answer for the median step, with what does not move.
pub fn verdict(b: &ProjectedBudget, p: &BudgetProjection) -> String {
    let name = p.gpu.key.as_deref().unwrap_or(&p.gpu.name);
    let Some(s) = median(p) else {
        return format!("{name}: no step to project.");
    };
    let text = b
        .budget
        .steps
        .get(s.step)
        .map_or("", |st| b.budget.text(st));
    let change = if s.source_ns > 0 {
        let r = s.target_ns as f64 / s.source_ns as f64;
        if r <= 1.0 {
            format!("{:.1} % faster", (1.0 - r) * 100.0)
        } else {
            format!("{:.1} % slower", (r - 1.0) * 100.0)
        }
    } else {
        "no change".into()
    };
    let mut still: Vec<(i64, String)> = s
        .parts
        .iter()
        .filter(|x| x.rule != PartRule::Kernels && x.source_ns > 0)
        .map(|x| {
            (
                x.source_ns,
                format!("{} {}", x.kind.label(), duration_ns(x.source_ns as f64)),
            )
        })
        .collect();
    still.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let fixed: i64 = still.iter().map(|x| x.0).sum();
    let mut v = format!(
        "median step {text:?} on {name}: {} → {} ({change}; kernels × {:.3}, {} model).",
        duration_ns(s.source_ns as f64),
        duration_ns(s.target_ns as f64),
        p.kernel_factor,
        p.model.key()
    );
    if fixed > 0 {
        let list: Vec<String> = still.into_iter().map(|x| x.1).collect();
        v.push_str(&format!(
            " Does not move: {} of the step ({}): {}.",
            duration_ns(fixed as f64),
            crate::units::percent(fixed as f64 / s.source_ns.max(1) as f64),
            list.join(", ")
        ));
    }
    v
}

fn parts_table(s: &StepProjection) -> Table {
    // Parts that are zero before and after say nothing; the JSON and CSV keep them.
    let mut t = Table::new(&["part", "source", "target", "rule"], &[0, 3]);
    for p in s
        .parts
        .iter()
        .filter(|p| p.source_ns != 0 || p.target_ns != 0)
    {
        t.push(vec![
            p.kind.label(),
            duration_ns(p.source_ns as f64),
            duration_ns(p.target_ns as f64),
            rule_label(p.rule).into(),
        ]);
    }
    t.push(vec![
        "step".into(),
        duration_ns(s.source_ns as f64),
        duration_ns(s.target_ns as f64),
        String::new(),
    ]);
    t
}

fn section(b: &ProjectedBudget, p: &BudgetProjection, markdown: bool) -> String {
    let mut out = if markdown {
        format!(
            "### Projection onto {}\n\n{}\n\n",
            p.gpu.name,
            verdict(b, p)
        )
    } else {
        format!(
            "\nprojection onto {} (chosen by {}):\n{}\n\n",
            p.gpu.name,
            crate::report::gpu_choice::chosen_by(&p.gpu.chosen_by),
            verdict(b, p)
        )
    };
    if let Some(s) = median(p) {
        let t = parts_table(s);
        out.push_str(&if markdown {
            t.to_markdown()
        } else {
            t.to_text()
        });
    }
    out
}

fn render_csv(b: &ProjectedBudget) -> Vec<u8> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record([
        "target",
        "step",
        "range",
        "part",
        "rule",
        "source_ns",
        "target_ns",
    ])
    .expect("write to Vec");
    for p in &b.projections {
        let target = p.gpu.key.clone().unwrap_or_else(|| p.gpu.name.clone());
        for s in &p.steps {
            let text = b
                .budget
                .steps
                .get(s.step)
                .map_or("", |st| b.budget.text(st));
            for x in &s.parts {
                w.write_record([
                    target.as_str(),
                    &s.step.to_string(),
                    text,
                    &x.kind.key(),
                    rule_key(x.rule),
                    &x.source_ns.to_string(),
                    &x.target_ns.to_string(),
                ])
                .expect("write to Vec");
            }
            w.write_record([
                target.as_str(),
                &s.step.to_string(),
                text,
                "step",
                "",
                &s.source_ns.to_string(),
                &s.target_ns.to_string(),
            ])
            .expect("write to Vec");
        }
    }
    w.into_inner().expect("flush to Vec")
}

fn render_json(b: &ProjectedBudget) -> Vec<u8> {
    let mut v = serde_json::to_value(&b.budget).expect("budget serializes");
    if let serde_json::Value::Object(m) = &mut v {
        m.insert(
            "projection".into(),
            serde_json::to_value(&b.projections).expect("projection serializes"),
        );
    }
    let mut out = serde_json::to_vec_pretty(&v).expect("value serializes");
    out.push(b'\n');
    out
}

impl Render for ProjectedBudget {
    fn render(&self, format: Format, opts: &RenderOptions) -> Vec<u8> {
        match format {
            Format::Csv => render_csv(self),
            Format::Json => render_json(self),
            Format::Table | Format::Markdown => {
                let markdown = format == Format::Markdown;
                let mut out =
                    String::from_utf8(self.budget.render(format, opts)).unwrap_or_default();
                for p in &self.projections {
                    out.push_str(&section(self, p, markdown));
                }
                out.into_bytes()
            }
        }
    }
}
