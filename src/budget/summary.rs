//! Across steps: the median step, the outlier steps (longer than
//! [`OUTLIER_FACTOR`] × the median: warm-up, a checkpoint), each part's
//! spread (nearest-rank p10, median, p90), the per-kernel table, the
//! coverage, and "fix first" (the largest parts by their median per step
//! over the steps that are not outliers, each with its fix): one statistic,
//! the median, throughout.

use super::model::*;
use crate::gaps::{GapClass, HostTotals};
use crate::units::{duration_ns, percent};

/// Nearest-rank percentile of sorted values.
fn rank(sorted: &[i64], p: f64) -> i64 {
    let n = sorted.len();
    if n == 0 {
        return 0;
    }
    let i = (((p * n as f64).ceil() as usize).max(1) - 1).min(n - 1);
    sorted[i]
}

fn spread(name: &str, mut v: Vec<i64>) -> Spread {
    v.sort_unstable();
    let mean = if v.is_empty() {
        0.0
    } else {
        v.iter().map(|&x| x as f64).sum::<f64>() / v.len() as f64
    };
    Spread {
        name: name.to_string(),
        p10_ns: rank(&v, 0.1),
        median_ns: rank(&v, 0.5),
        p90_ns: rank(&v, 0.9),
        mean_ns: mean,
    }
}

/// The fix for an idle class: the gap analysis' own fix, and for
/// host-bound gaps the one drawn from the gap report's evidence.
fn idle_fix(c: GapClass, host_fix: &'static str) -> &'static str {
    match c {
        GapClass::HostBound => host_fix,
        _ => c.fix(),
    }
}

/// What a part is called in "fix first" and its fix (not a kernel's
/// shortfall, nor the bound: the floor at these roofs, not a fix).
fn part_fix(kind: PartKind, host_fix: &'static str) -> Option<(String, &'static str)> {
    let (what, fix) = match kind {
        PartKind::Idle(c) => return Some((format!("{} gaps", c.label()), idle_fix(c, host_fix))),
        PartKind::Bound => return None,
        PartKind::Shortfall => (
            "kernel time above the weights bound",
            "profile the step with ncu (--ncu) to split it per kernel",
        ),
        PartKind::NoCounters => (
            "kernel time without counters",
            "profile these kernels with ncu (--nvtx-include on the step range) to bound them",
        ),
        PartKind::Graph => (
            "CUDA graph rows without kernel rows",
            "re-profile with --cuda-graph-trace=node to match the graph's kernels",
        ),
        PartKind::Memcpy => ("copies", GENERAL_COPY_FIX),
        PartKind::Memset => (
            "memsets",
            "fold the zeroing into the kernels that write the buffer",
        ),
        PartKind::ExposedComm => (
            "exposed communication",
            "overlap the collectives with compute (bucketed gradients during backward, communication on its own stream) or move fewer bytes; `rooftrace comm` shows each collective's bus bandwidth against its link and, given every rank, who was late",
        ),
        PartKind::Outside => (
            "window time beyond the device's ops",
            "the range launched nothing; budget a range that launches the step",
        ),
    };
    Some((what.to_string(), fix))
}

/// Builds the report from the decomposed steps.
pub(crate) fn summarise(si: SummaryInput) -> BudgetReport {
    let steps = si.steps;
    let n = steps.len();
    let median_step = (n > 0).then(|| {
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by_key(|&i| (steps[i].step_ns, i));
        order[((n as f64 * 0.5).ceil() as usize).max(1) - 1]
    });
    let mut spreads = vec![spread("step", steps.iter().map(|s| s.step_ns).collect())];
    if let Some(first) = steps.first() {
        for p in &first.parts {
            spreads.push(spread(
                &p.kind.key(),
                steps.iter().map(|s| s.part(p.kind)).collect(),
            ));
        }
    }
    let models = si.bound_source.uses_op_models();
    let mut kernels: Vec<KernelBudget> = si
        .kernels
        .iter()
        .map(|(name, a)| KernelBudget {
            name: name.clone(),
            launches: a.launches,
            matched: a.matched,
            per_name: a.per_name,
            op_model: models.then_some(a.op_model),
            time_ns: a.time_ns,
            bound_ns: (a.matched + a.per_name + a.op_model > 0).then_some(a.bound_ns),
            shortfall_ns: (a.matched + a.per_name + a.op_model > 0).then_some(a.shortfall_ns),
            bound_by: a.bound_by,
            lower_bound_launches: a.lower_bound_launches,
        })
        .collect();
    kernels.sort_by(|a, b| {
        (b.shortfall_ns, b.time_ns)
            .cmp(&(a.shortfall_ns, a.time_ns))
            .then_with(|| a.name.cmp(&b.name))
    });
    let kernel_ns: i64 = si.kernels.values().map(|a| a.time_ns).sum();
    let matched_ns: i64 = si.kernels.values().map(|a| a.matched_ns).sum();
    let per_name_ns: i64 = si.kernels.values().map(|a| a.per_name_ns).sum();
    let op_model_ns: i64 = si.kernels.values().map(|a| a.op_model_ns).sum();
    let coverage = Coverage {
        kernel_ns,
        matched_ns,
        per_name_ns,
        op_model_ns: models.then_some(op_model_ns),
        none_ns: kernel_ns - matched_ns - per_name_ns - op_model_ns,
        fraction: if kernel_ns > 0 {
            (matched_ns + per_name_ns + op_model_ns) as f64 / kernel_ns as f64
        } else {
            0.0
        },
    };
    let median_ns = median_step.map_or(0, |i| steps[i].step_ns);
    let outlier_steps: Vec<usize> = (0..n)
        .filter(|&i| median_ns > 0 && steps[i].step_ns > OUTLIER_FACTOR * median_ns)
        .collect();
    let typical: Vec<usize> = (0..n).filter(|i| !outlier_steps.contains(i)).collect();
    let typical = Typical {
        steps: &steps,
        indices: &typical,
        median_step_ns: median_ns,
        host: host_fix(&steps, &typical, si.terms),
        copies: copy_fix(&steps, &typical),
    };
    let fix_first = fix_first(
        &typical,
        &si.kernels,
        &kernels,
        &si.bound_source,
        &si.without_counters,
        host_before_line(&typical, si.terms),
    );
    let mut method = METHOD.to_vec();
    if models {
        method.push(OP_MODEL_METHOD);
    }
    BudgetReport {
        schema: SCHEMA,
        input: si.input,
        pattern: si.pattern,
        gpu: si.gpu,
        dram_bytes_per_s: si.dram_bytes_per_s,
        bound_source: si.bound_source,
        method,
        steps,
        median_step,
        outlier_steps,
        spread: spreads,
        kernels,
        coverage,
        without_counters: si.without_counters,
        fix_first,
        diagnostics: si.diagnostics,
        names: si.names,
        critical_path: None,
    }
}

/// Most lines in "fix first".
pub const FIX_FIRST_MAX: usize = 5;

/// The steps "fix first" reads: every step but the outliers.
struct Typical<'a> {
    steps: &'a [StepBudget],
    /// Indices of the steps that are not outliers.
    indices: &'a [usize],
    /// The median step's length (the headline's), ns.
    median_step_ns: i64,
    /// The fix for host-bound idle time and its evidence.
    host: FixWithEvidence,
    /// The fix for the copies and its evidence.
    copies: FixWithEvidence,
}

/// The copies' fix from where the copies of the typical steps ran, the
/// side with the most time deciding as in the gap verdict
/// (`gaps::fixes::copy_fix`: pageable host memory → pin it; device to
/// device → avoid the copies; pinned host memory → keep the data on the
/// GPU, overlap the copies); the general fix when copies of an unknown
/// direction hold the most.
fn copy_fix(steps: &[StepBudget], typical: &[usize]) -> FixWithEvidence {
    let mut sides = CopySides::default();
    for &i in typical {
        sides.merge(&steps[i].memcpy_by_side);
    }
    let total = sides.device_ns + sides.pageable_ns + sides.pinned_ns + sides.unknown_ns;
    let largest = [
        (
            sides.pageable_ns,
            Some((true, false)),
            "from or to pageable host memory",
        ),
        (
            sides.device_ns,
            Some((false, true)),
            "on the device (device to device, peer or array copies)",
        ),
        (
            sides.pinned_ns,
            Some((false, false)),
            "from or to pinned host memory",
        ),
        (sides.unknown_ns, None, "of an unknown direction"),
    ]
    .into_iter()
    .rev()
    .max_by_key(|x| x.0);
    match largest {
        Some((ns, side, what)) if ns > 0 => FixWithEvidence {
            fix: side.map_or(GENERAL_COPY_FIX, |(pageable, on_device)| {
                crate::gaps::fixes::copy_fix(pageable, on_device)
            }),
            evidence: Some(format!(
                "in the {} ranked: {} of the copy time {what}",
                plural(typical.len(), "step", "steps"),
                percent(ns as f64 / total as f64)
            )),
        },
        _ => FixWithEvidence {
            fix: GENERAL_COPY_FIX,
            evidence: None,
        },
    }
}

/// The copies' fix when where they ran is not known.
const GENERAL_COPY_FIX: &str =
    "keep the data on the GPU, or overlap the copies with compute on another stream";

/// The fix for the host-bound gaps of the steps "fix first" ranks, and
/// the evidence it rests on, in words.
struct FixWithEvidence {
    fix: &'static str,
    evidence: Option<String>,
}

/// The host-bound fix from the typed evidence of the gaps inside the
/// typical steps (not the whole report: between steps the host may do
/// something else for seconds), by the gap verdict's rule
/// ([`HostTotals::advice`]); the class's own fix when no gap has evidence.
fn host_fix(
    steps: &[StepBudget],
    typical: &[usize],
    terms: crate::gaps::FixTerms,
) -> FixWithEvidence {
    let mut host = HostTotals::default();
    for &i in typical {
        host.merge(&steps[i].host);
    }
    match host.advice() {
        Some(a) => FixWithEvidence {
            fix: a.fix(terms),
            evidence: Some(format!(
                "in the {} steps ranked: {}",
                typical.len(),
                a.evidence()
            )),
        },
        None => FixWithEvidence {
            fix: GapClass::HostBound.fix(),
            evidence: None,
        },
    }
}

/// The "fix first" line for the host's time inside the steps' ranges
/// before their first GPU op (beside the step, not a part; weighed by its
/// median per step over the typical steps, as a share of the median step,
/// which it can exceed), with the fix for what the host did there: the
/// advice of that stretch's evidence by the gap verdict's rule
/// ([`HostTotals::advice`]); `None` when the median is 0.
fn host_before_line(typical: &Typical, terms: crate::gaps::FixTerms) -> Option<FixLine> {
    let step = typical.median_step_ns;
    let ns = typical.median(|i| typical.steps[i].host_before_gpu_ns);
    if ns <= 0 || step <= 0 {
        return None;
    }
    let mut host = HostTotals::default();
    for &i in typical.indices {
        host.merge(&typical.steps[i].host_before_gpu);
    }
    let (fix, evidence) = match host.advice() {
        Some(a) => (
            a.fix(terms),
            format!(
                " (in the {} ranked: {})",
                plural(typical.indices.len(), "step", "steps"),
                stretch_evidence(&a)
            ),
        ),
        None => (
            "the first GPU op was launched before the stretch began: it waited on the GPU side (a dependency or the queue), see `rooftrace gaps`",
            String::new(),
        ),
    };
    Some(FixLine {
        what: HOST_BEFORE_GPU.to_string(),
        ns_per_step: ns as f64,
        share_of_step: ns as f64 / step as f64,
        text: format!(
            "host time before the step's first GPU op {} per step, beside the {} step (which starts at that op): {fix}{evidence}",
            duration_ns(ns as f64),
            duration_ns(step as f64)
        ),
    })
}

/// `1 step`, `3 steps`.
fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// What the host did before the steps' first GPU ops (the advice drawn
/// from their evidence), in words: `3 stretches in stream-ordered
/// allocation calls hold 3.27 ms`. Advice by length class is CPU work
/// (inside a user's range, as the step's own, or none).
fn stretch_evidence(a: &crate::gaps::HostAdvice) -> String {
    use crate::gaps::HostAdvice as A;
    let (what, t) = match *a {
        A::Range(f, t) => (format!("inside {} ranges", f.label()), t),
        A::Call(f, t) => (format!("in {} calls", f.label()), t),
        A::Detail(d, t) => (format!("in {}", d.label()), t),
        A::Scale(_, t) => ("in CPU work (no API call)".to_string(), t),
    };
    format!(
        "{} {what} {} {}",
        plural(t.count as usize, "stretch", "stretches"),
        if t.count == 1 { "holds" } else { "hold" },
        duration_ns(t.total_ns as f64)
    )
}

impl Typical<'_> {
    /// Median over the typical steps of `value(step index)`.
    fn median(&self, value: impl Fn(usize) -> i64) -> i64 {
        let mut v: Vec<i64> = self.indices.iter().map(|&i| value(i)).collect();
        v.sort_unstable();
        rank(&v, 0.5)
    }
}

/// The largest parts by their median per step over the typical steps:
/// every idle class, copies, memsets, unbounded kernel time, and (with ncu)
/// each kernel's shortfall, or (with the weights bound) the step's
/// shortfall. The bound itself is the floor at these roofs, not something
/// to fix, so it is left out. Shares are of the median step.
fn fix_first(
    typical: &Typical,
    accs: &std::collections::HashMap<String, KernelAcc>,
    kernels: &[KernelBudget],
    source: &BoundSource,
    uncovered: &[UncoveredRow],
    host_before: Option<FixLine>,
) -> Vec<FixLine> {
    let step = typical.median_step_ns;
    let Some(first) = typical.steps.first().filter(|_| step > 0) else {
        return Vec::new();
    };
    let step_f = step as f64;
    let mut lines: Vec<FixLine> = host_before.into_iter().collect();
    for p in &first.parts {
        if p.kind == PartKind::Shortfall && source.per_kernel() {
            continue; // split per kernel below
        }
        let ns = typical.median(|i| typical.steps[i].part(p.kind));
        let fix = match (p.kind, uncovered.first()) {
            (PartKind::Memcpy, _) => Some(("copies".to_string(), typical.copies.fix)),
            (PartKind::NoCounters, Some(top)) if source.uses_op_models() => {
                let what = format!(
                    "kernel time no op model bounds (most of it: {})",
                    top.reason.reason()
                );
                Some((what, top.fix))
            }
            _ => part_fix(p.kind, typical.host.fix),
        };
        if let Some((what, fix)) = fix.filter(|_| ns > 0) {
            let evidence = match (p.kind, &typical.host.evidence, &typical.copies.evidence) {
                (PartKind::Idle(GapClass::HostBound), Some(e), _)
                | (PartKind::Memcpy, _, Some(e)) => format!(" ({e})"),
                _ => String::new(),
            };
            lines.push(FixLine {
                what: p.kind.key(),
                ns_per_step: ns as f64,
                share_of_step: ns as f64 / step_f,
                text: format!(
                    "{what} {} per step of {}: {fix}{evidence}",
                    duration_ns(ns as f64),
                    duration_ns(step_f)
                ),
            });
        }
    }
    if source.per_kernel() {
        for k in kernels.iter() {
            let (Some(bound), Some(short)) = (k.bound_ns, k.shortfall_ns) else {
                continue;
            };
            let Some(acc) = accs.get(&k.name).filter(|_| short > 0) else {
                continue;
            };
            let per_step = typical.median(|i| {
                acc.shortfall_by_step
                    .binary_search_by_key(&i, |x| x.0)
                    .map_or(0, |j| acc.shortfall_by_step[j].1)
            });
            if per_step <= 0 {
                continue;
            }
            let how = match k.bound_by {
                Some("compute") => "compute-bound: a faster path (tensor cores, lower precision) or less padding",
                Some("link") => "link-bound (a collective): fewer or larger messages, or overlap it with compute",
                _ => "memory-bound: fewer bytes (fusion, smaller types) or a kernel that streams at full bandwidth for this shape",
            };
            let of_roof = if k.time_ns > 0 {
                percent(bound as f64 / k.time_ns as f64)
            } else {
                "-".to_string()
            };
            let lower = k.lower_bound_launches > 0;
            lines.push(FixLine {
                what: format!("{}:{}", PartKind::Shortfall.key(), k.name),
                ns_per_step: per_step as f64,
                share_of_step: per_step as f64 / step_f,
                text: format!(
                    "{} {}{} per step below its roof ({} launches, at {}{of_roof} of roof): {how}",
                    k.name,
                    if lower { "up to " } else { "" },
                    duration_ns(per_step as f64),
                    k.launches,
                    if lower { "≥" } else { "" }
                ),
            });
        }
    }
    lines.sort_by(|a, b| {
        b.ns_per_step
            .total_cmp(&a.ns_per_step)
            .then_with(|| a.what.cmp(&b.what))
    });
    lines.truncate(FIX_FIRST_MAX);
    lines
}
