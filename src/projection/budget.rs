//! A step budget projected onto a target: each step's kernel parts with
//! counters (bound + shortfall) scale by the per-kernel model, every other
//! part stays to the nanosecond (idle gaps and host time are the CPU's;
//! copies stay because no link bandwidth of the target is known; kernels
//! without counters and memsets have nothing to scale by), and each part
//! says which rule moved it.

use super::kernel::expected;
use super::model::Model;
use super::Target;
use crate::budget::{kernel_key, BudgetReport, Part, PartKind};
use crate::roofline::RooflineReport;
use crate::roofs::GpuInfo;
use serde::Serialize;
use std::collections::HashMap;

/// Version tag of the budget `projection` JSON block.
pub const BUDGET_PROJECTION_SCHEMA: &str = "rooftrace.budget-projection/1";

/// Why a part moved or did not.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PartRule {
    /// Kernel time with counters: scaled by the step's kernel factor.
    Kernels,
    /// Idle time between ops (the host's, a sync, a dependency): unchanged.
    Idle,
    /// Copies: unchanged, no link bandwidth of the target is known.
    CopyLinkUnknown,
    /// Kernels without counters, whole graphs, memsets, exposed
    /// communication (no link of the target is known), window time outside
    /// the ops: nothing to scale by, unchanged.
    NoCounters,
}

impl PartRule {
    /// The rule of a budget part, by its kind.
    pub fn of(kind: PartKind) -> PartRule {
        match kind {
            PartKind::Bound | PartKind::Shortfall => PartRule::Kernels,
            PartKind::Memcpy => PartRule::CopyLinkUnknown,
            PartKind::Idle(_) => PartRule::Idle,
            PartKind::NoCounters
            | PartKind::Graph
            | PartKind::Memset
            | PartKind::ExposedComm
            | PartKind::Outside => PartRule::NoCounters,
        }
    }
}

/// One part of one step, before and after.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ProjectedPart {
    /// What the part is; in the JSON its key as `name`, as in the budget.
    #[serde(rename = "name")]
    pub kind: PartKind,
    /// On the source, ns.
    pub source_ns: i64,
    /// On the target, ns.
    pub target_ns: i64,
    /// The rule applied.
    pub rule: PartRule,
}

/// One step projected.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StepProjection {
    /// Index into the budget's `steps`.
    pub step: usize,
    /// Measured step, ns.
    pub source_ns: i64,
    /// Projected step: the sum of the projected parts, ns.
    pub target_ns: i64,
    /// The parts, in the budget's order.
    pub parts: Vec<ProjectedPart>,
}

/// One kernel name's projection over all steps.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct KernelFactor {
    /// Kernel name as on the timeline.
    pub name: String,
    /// Its time in the steps, ns.
    pub source_ns: i64,
    /// Its expected time on the target, ns.
    pub target_ns: f64,
    /// `T*'/T*` from the ncu rows of the same name; `None`: no counter, or
    /// a path the target has no roof for (the kernel's time then stays).
    pub bound_ratio: Option<f64>,
}

/// The budget projected onto one target.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BudgetProjection {
    /// Always [`BUDGET_PROJECTION_SCHEMA`].
    pub schema: &'static str,
    /// The target.
    pub gpu: GpuInfo,
    /// The per-kernel model.
    pub model: Model,
    /// The kernel factor: Σ expected / Σ time over the kernels with a
    /// bound (those in the bound and shortfall parts, which scale by it; a
    /// kernel without a bound ratio counts with its own time).
    pub kernel_factor: f64,
    /// Per kernel name, largest time first.
    pub kernels: Vec<KernelFactor>,
    /// Per step, in the budget's order.
    pub steps: Vec<StepProjection>,
    /// Index in `steps` of the budget's median step.
    pub median_step: Option<usize>,
}

/// `T*'/T*` per kernel key from the ncu rows: Σ target bounds over Σ
/// source bounds of the rows with that key (`None` for a key with an
/// unmapped path or no bound).
fn bound_ratios(ncu: &RooflineReport, target: &Target, c: f64) -> HashMap<String, Option<f64>> {
    let mut acc: HashMap<String, (f64, f64, bool)> = HashMap::new();
    for k in &ncu.kernels {
        let p = super::kernel::project(k, &ncu.roofs, &target.roofs, c, target.launch_ns);
        let e = acc.entry(kernel_key(&k.name).to_string()).or_default();
        e.0 += p.source_bound_ns;
        e.1 += p.target_bound_ns;
        e.2 |= !p.unmapped_paths.is_empty();
    }
    acc.into_iter()
        .map(|(key, (s, t, unmapped))| (key, (!unmapped && s > 0.0).then(|| t / s)))
        .collect()
}

/// Projects `budget` (whose bound came from `ncu`) onto `target` with the
/// per-launch cost `c` (ns) fitted on the ncu report.
pub fn project_budget(
    budget: &BudgetReport,
    ncu: &RooflineReport,
    target: &Target,
    model: Model,
    c: f64,
) -> BudgetProjection {
    let ratios = bound_ratios(ncu, target, c);
    let mut kernels: Vec<KernelFactor> = Vec::new();
    let (mut with_ratio_src, mut with_ratio_tgt) = (0.0, 0.0);
    for k in &budget.kernels {
        let t = k.time_ns as f64;
        let ratio = ratios.get(kernel_key(&k.name)).copied().flatten();
        let target_ns = match (ratio, k.bound_ns) {
            (Some(r), Some(b)) => {
                let n = k.launches as f64;
                let cs = (c * n).min(t);
                let ct = target.launch_ns.map_or(cs, |x| x * n);
                let b = b as f64;
                expected(t, b, b * r, cs, ct)[&model]
            }
            _ => t,
        };
        // Every kernel in the bound and shortfall parts (those with a
        // bound) weighs in the factor; one without a ratio (a path the
        // target lacks) keeps its time.
        if k.bound_ns.is_some() {
            with_ratio_src += t;
            with_ratio_tgt += target_ns;
        }
        kernels.push(KernelFactor {
            name: k.name.clone(),
            source_ns: k.time_ns,
            target_ns,
            bound_ratio: ratio.filter(|_| k.bound_ns.is_some()),
        });
    }
    let kernel_factor = if with_ratio_src > 0.0 {
        with_ratio_tgt / with_ratio_src
    } else {
        1.0
    };
    let steps = budget
        .steps
        .iter()
        .enumerate()
        .map(|(i, s)| step(i, s.step_ns, &s.parts, kernel_factor))
        .collect();
    BudgetProjection {
        schema: BUDGET_PROJECTION_SCHEMA,
        gpu: target.gpu.clone(),
        model,
        kernel_factor,
        kernels,
        steps,
        median_step: budget.median_step,
    }
}

fn step(i: usize, step_ns: i64, parts: &[Part], factor: f64) -> StepProjection {
    let parts: Vec<ProjectedPart> = parts
        .iter()
        .map(|p| {
            let rule = PartRule::of(p.kind);
            let target_ns = match rule {
                PartRule::Kernels => (p.ns as f64 * factor).round() as i64,
                _ => p.ns,
            };
            ProjectedPart {
                kind: p.kind,
                source_ns: p.ns,
                target_ns,
                rule,
            }
        })
        .collect();
    StepProjection {
        step: i,
        source_ns: step_ns,
        target_ns: parts.iter().map(|p| p.target_ns).sum(),
        parts,
    }
}

/// A budget with its projections: what `rooftrace budget --project-to`
/// renders (its JSON is the budget's with a `projection` list).
#[derive(Debug, Clone, PartialEq)]
pub struct ProjectedBudget {
    /// The source budget.
    pub budget: BudgetReport,
    /// One projection per target.
    pub projections: Vec<BudgetProjection>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_part_has_its_rule_and_only_kernel_parts_move() {
        assert_eq!(PartRule::of(PartKind::Bound), PartRule::Kernels);
        assert_eq!(PartRule::of(PartKind::Shortfall), PartRule::Kernels);
        assert_eq!(
            PartRule::of(PartKind::Idle(crate::gaps::GapClass::HostBound)),
            PartRule::Idle
        );
        assert_eq!(PartRule::of(PartKind::Memcpy), PartRule::CopyLinkUnknown);
        assert_eq!(PartRule::of(PartKind::Memset), PartRule::NoCounters);
        assert_eq!(PartRule::of(PartKind::NoCounters), PartRule::NoCounters);
        let parts = [
            Part {
                kind: PartKind::Bound,
                ns: 1_000,
            },
            Part {
                kind: PartKind::Shortfall,
                ns: 501,
            },
            Part {
                kind: PartKind::Idle(crate::gaps::GapClass::HostBound),
                ns: 7_777,
            },
            Part {
                kind: PartKind::Memcpy,
                ns: 333,
            },
        ];
        // × 0.5: 500 and 250.5 → 251 (rounded half away from zero); the rest
        // unchanged; the step is the sum of its parts.
        let s = step(3, 9_611, &parts, 0.5);
        let got: Vec<i64> = s.parts.iter().map(|p| p.target_ns).collect();
        assert_eq!(got, vec![500, 251, 7_777, 333]);
        assert_eq!((s.step, s.source_ns, s.target_ns), (3, 9_611, 8_861));
    }
}
