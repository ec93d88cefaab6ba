//! Across steps: the median step, each part's spread (nearest-rank p10,
//! median, p90), the per-kernel table, the coverage, and "fix first" (the
//! largest parts by mean time per step, each with its fix).

use super::analyze::{SummaryInput, METHOD};
use super::model::*;
use crate::gaps::GapClass;
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

/// The fix for an idle class: the gap analysis' own fix, with host-bound
/// gaps inside a step spelled out (the step's kernels are issued one by
/// one faster than the host can).
fn idle_fix(c: GapClass) -> &'static str {
    match c {
        GapClass::HostBound => "the CPU issues kernels slower than the GPU runs them: launch fewer, larger kernels (fuse) or capture the step in a CUDA graph",
        _ => c.fix(),
    }
}

/// What a part is called in "fix first" and its fix (not a kernel's
/// shortfall).
fn part_fix(name: &str) -> Option<(String, &'static str)> {
    if let Some(key) = name.strip_prefix(IDLE_PREFIX) {
        let c = GapClass::ALL.into_iter().find(|c| c.key() == key)?;
        return Some((format!("{} gaps", c.label()), idle_fix(c)));
    }
    let (what, fix) = match name {
        SHORTFALL => (
            "kernel time above the weights bound",
            "profile the step with ncu (--ncu) to split it per kernel",
        ),
        NO_COUNTERS => (
            "kernel time without counters",
            "profile these kernels with ncu (--nvtx-include on the step range) to bound them",
        ),
        GRAPH => (
            "CUDA graph rows without kernel rows",
            "re-profile with --cuda-graph-trace=node to match the graph's kernels",
        ),
        MEMCPY => (
            "copies",
            "keep the data on the GPU, or overlap the copies with compute on another stream",
        ),
        MEMSET => (
            "memsets",
            "fold the zeroing into the kernels that write the buffer",
        ),
        OUTSIDE => (
            "window time beyond the device's ops",
            "the range launched nothing; budget a range that launches the step",
        ),
        _ => return None,
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
                &p.name,
                steps.iter().map(|s| s.part(&p.name)).collect(),
            ));
        }
    }
    let mut kernels: Vec<KernelBudget> = si
        .kernels
        .iter()
        .map(|(name, a)| KernelBudget {
            name: name.clone(),
            launches: a.launches,
            matched: a.matched,
            per_name: a.per_name,
            time_ns: a.time_ns,
            bound_ns: (a.matched + a.per_name > 0).then_some(a.bound_ns),
            shortfall_ns: (a.matched + a.per_name > 0).then_some(a.shortfall_ns),
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
    let coverage = Coverage {
        kernel_ns,
        matched_ns,
        per_name_ns,
        none_ns: kernel_ns - matched_ns - per_name_ns,
        fraction: if kernel_ns > 0 {
            (matched_ns + per_name_ns) as f64 / kernel_ns as f64
        } else {
            0.0
        },
    };
    let fix_first = fix_first(&spreads, &kernels, n, &si.bound_source);
    BudgetReport {
        schema: SCHEMA,
        input: si.input,
        pattern: si.pattern,
        gpu: si.gpu,
        dram_bytes_per_s: si.dram_bytes_per_s,
        bound_source: si.bound_source,
        method: METHOD.to_vec(),
        steps,
        median_step,
        spread: spreads,
        kernels,
        coverage,
        fix_first,
        diagnostics: si.diagnostics,
        names: si.names,
    }
}

/// Most lines in "fix first".
pub const FIX_FIRST_MAX: usize = 5;

/// The largest parts by mean per step: every idle class, copies, memsets,
/// unbounded kernel time, and (with ncu) each kernel's shortfall, or (with
/// the weights bound) the step's shortfall. The bound itself is the floor
/// at these roofs, not something to fix, so it is left out.
fn fix_first(
    spreads: &[Spread],
    kernels: &[KernelBudget],
    n: usize,
    source: &BoundSource,
) -> Vec<FixLine> {
    let Some(step) = spreads.first().filter(|s| s.mean_ns > 0.0) else {
        return Vec::new();
    };
    let mut lines = Vec::new();
    for s in &spreads[1..] {
        if s.name == SHORTFALL && matches!(source, BoundSource::Ncu { .. }) {
            continue; // split per kernel below
        }
        if let Some((what, fix)) = part_fix(&s.name).filter(|_| s.mean_ns > 0.0) {
            lines.push(FixLine {
                what: s.name.clone(),
                ns_per_step: s.mean_ns,
                share_of_step: s.mean_ns / step.mean_ns,
                text: format!(
                    "{what} {} per step of {}: {fix}",
                    duration_ns(s.mean_ns),
                    duration_ns(step.mean_ns)
                ),
            });
        }
    }
    if matches!(source, BoundSource::Ncu { .. }) && n > 0 {
        for k in kernels.iter() {
            let (Some(bound), Some(short)) = (k.bound_ns, k.shortfall_ns) else {
                continue;
            };
            if short <= 0 {
                continue;
            }
            let per_step = short as f64 / n as f64;
            let how = match k.bound_by {
                Some("compute") => "compute-bound: a faster path (tensor cores, lower precision) or less padding",
                _ => "memory-bound: fewer bytes (fusion, smaller types) or a kernel that streams at full bandwidth for this shape",
            };
            let of_roof = if k.time_ns > 0 {
                percent(bound as f64 / k.time_ns as f64)
            } else {
                "-".to_string()
            };
            lines.push(FixLine {
                what: format!("{SHORTFALL}:{}", k.name),
                ns_per_step: per_step,
                share_of_step: per_step / step.mean_ns,
                text: format!(
                    "{} {}{} per step below its roof ({} launches, at {}{of_roof} of roof): {how}",
                    k.name,
                    if k.lower_bound_launches > 0 {
                        "up to "
                    } else {
                        ""
                    },
                    duration_ns(per_step),
                    k.launches,
                    if k.lower_bound_launches > 0 {
                        "≥"
                    } else {
                        ""
                    }
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
