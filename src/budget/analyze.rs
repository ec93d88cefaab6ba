//! Timeline × gap report × (ncu report or bytes per step) × roofs ->
//! [`BudgetReport`], by phase: group the ops per device, decompose each
//! `--nvtx` instance ([`step`]), then summarise ([`super::summary`]).

use super::bound::{split, Counters, KernelBound};
use super::charge::DeviceOps;
use super::model::*;
use super::opbound::{OpModels, UncoveredAcc};
use super::summary::summarise;
use super::weights_bound_ns;
use crate::gaps::{GapClass, GapReport, RangeRow};
use crate::roofline::RooflineReport;
use crate::roofs::{GpuInfo, Roofs};
use crate::timeline::{OpKind, Timeline};
use std::collections::{HashMap, HashSet};

/// What to budget against (plain config, no CLI types).
#[derive(Debug, Clone, Default)]
pub struct BudgetConfig {
    /// The timeline file as given, for the report.
    pub input: String,
    /// The ncu CSV as given, when the bound comes from ncu.
    pub ncu_file: Option<String>,
    /// `--bytes-per-step`: bytes every step must move (the weights), byte.
    pub bytes_per_step: Option<f64>,
}

/// Everything the steps share.
struct Ctx<'a> {
    /// Index in the report's steps of the step being decomposed.
    step_index: usize,
    tl: &'a Timeline,
    counters: Option<Counters<'a>>,
    /// The op models' per-kernel bounds, for kernels no counter matches.
    models: Option<OpModels<'a>>,
    /// Kernel time no counter and no op model bounds, by reason.
    uncovered: UncoveredAcc,
    /// `--bytes-per-step` bound, ns.
    weights_bound_ns: Option<f64>,
    kernels: HashMap<String, KernelAcc>,
    seen: HashSet<String>,
}

/// Budgets every `--nvtx` instance of `gaps` (which must have been
/// analysed with the NVTX pattern) on the timeline it came from.
pub fn analyze(
    tl: &Timeline,
    gaps: &GapReport,
    ncu: Option<&RooflineReport>,
    roofs: &Roofs,
    gpu: GpuInfo,
    cfg: &BudgetConfig,
) -> BudgetReport {
    analyze_with_ops(tl, gaps, ncu, None, roofs, gpu, cfg)
}

/// Where the bound comes from: ncu (and the op models for the kernels it
/// does not match), the op models, `--bytes-per-step` (only without
/// either), or nothing.
fn bound_source(
    ncu: Option<&RooflineReport>,
    models: bool,
    cfg: &BudgetConfig,
    weights_bound_ns: Option<f64>,
) -> BoundSource {
    let file = || cfg.ncu_file.clone().unwrap_or_default();
    let flop_convention = crate::ops::FLOP_CONVENTION;
    match (ncu, models, cfg.bytes_per_step, weights_bound_ns) {
        (Some(_), true, _, _) => BoundSource::NcuAndOpModel {
            file: file(),
            flop_convention,
        },
        (Some(_), false, _, _) => BoundSource::Ncu { file: file() },
        (None, true, _, _) => BoundSource::OpModel { flop_convention },
        (None, false, Some(bytes), Some(bound_ns)) => BoundSource::BytesPerStep { bytes, bound_ns },
        _ => BoundSource::Unknown,
    }
}

/// [`analyze`], with each kernel's bound from the op models of a PyTorch
/// trace with shapes (`models`) where no ncu counter matches it.
pub fn analyze_with_ops(
    tl: &Timeline,
    gaps: &GapReport,
    ncu: Option<&RooflineReport>,
    models: Option<OpModels>,
    roofs: &Roofs,
    gpu: GpuInfo,
    cfg: &BudgetConfig,
) -> BudgetReport {
    let dram = roofs.dram().map_or(0.0, |r| r.bytes_per_s);
    let weights_bound_ns = cfg.bytes_per_step.and_then(|b| weights_bound_ns(b, roofs));
    let bound_source = bound_source(ncu, models.is_some(), cfg, weights_bound_ns);
    let mut diagnostics: Vec<Diagnostic> = gaps
        .diagnostics
        .iter()
        .map(|d| d.clone().wrap(DiagnosticKind::Gaps))
        .collect();
    let scope = gaps.settings.scope();
    let devices = DeviceOps::group(&tl.ops, |o| scope.selects(o));
    let mut ctx = Ctx {
        step_index: 0,
        tl,
        counters: ncu.map(Counters::new),
        models,
        uncovered: UncoveredAcc::default(),
        weights_bound_ns: if ncu.is_some() || models.is_some() {
            None
        } else {
            weights_bound_ns
        },
        kernels: HashMap::new(),
        seen: HashSet::new(),
    };
    let mut steps = Vec::new();
    let mut names = crate::gaps::model::Names::default();
    let (mut multi, mut empty, mut unaccounted, mut under) = (0u64, 0u64, 0u64, 0u64);
    let instances: &[RangeRow] = gaps.ranges.as_ref().map_or(&[], |r| &r.instances);
    for r in instances {
        if r.gpu_end_ns <= r.gpu_start_ns {
            empty += 1;
            continue;
        }
        if r.gpu_end_ns <= r.tiling.owned_start_ns {
            // Its work ran entirely under the steps before it: the device
            // time is theirs (each nanosecond charged once).
            under += 1;
            continue;
        }
        let on: Vec<&DeviceOps> = devices
            .iter()
            .filter(|d| d.pid == r.pid && d.overlaps(r.gpu_start_ns, r.gpu_end_ns))
            .collect();
        // Unprojected, the gap analysis clipped the gaps of every device of
        // the process: one device only, or the idle parts would mix devices.
        let pid_devices = devices.iter().filter(|d| d.pid == r.pid).count();
        if on.len() > 1 || (!r.projected && pid_devices > 1) {
            multi += 1;
            continue;
        }
        let text_id = names.id(gaps.name(r.text_id));
        ctx.step_index = steps.len();
        let s = step(&mut ctx, text_id, r, on.first().copied());
        if s.projected && s.part(PartKind::Outside) != 0 {
            unaccounted += 1;
        }
        steps.push(s);
    }
    diagnostics.extend(notes(
        gaps,
        Dropped {
            multi,
            empty,
            unaccounted,
            under,
        },
        &ctx,
        &steps,
        &bound_source,
        ncu,
    ));
    summarise(SummaryInput {
        input: cfg.input.clone(),
        pattern: gaps
            .ranges
            .as_ref()
            .map(|r| r.pattern.clone())
            .unwrap_or_default(),
        gpu,
        dram_bytes_per_s: dram,
        bound_source,
        steps,
        names: names.into_table(),
        kernels: ctx.kernels,
        without_counters: ctx.uncovered.rows(),
        diagnostics,
        terms: gaps.fix_terms(),
    })
}

/// Instances left out of the budget, by reason.
struct Dropped {
    /// On several devices.
    multi: u64,
    /// With an empty GPU window.
    empty: u64,
    /// Projected, with time outside their device's ops.
    unaccounted: u64,
    /// With work that ran entirely under the steps before them.
    under: u64,
}

/// What the budget says about its own inputs: instances left out, ncu
/// names unmatched, lower and capped bounds, no bound, and the ncu
/// report's own diagnostics.
fn notes(
    gaps: &GapReport,
    Dropped {
        multi,
        empty,
        unaccounted,
        under,
    }: Dropped,
    ctx: &Ctx,
    steps: &[StepBudget],
    bound_source: &BoundSource,
    ncu: Option<&RooflineReport>,
) -> Vec<Diagnostic> {
    let mut diagnostics = Vec::new();
    let instances: &[RangeRow] = gaps.ranges.as_ref().map_or(&[], |r| &r.instances);
    if let Some(rr) = &gaps.ranges {
        if instances.is_empty() && !rr.pattern.is_empty() {
            diagnostics.push(Diagnostic::new(
                DiagnosticKind::NoInstance,
                format!(
                    "--nvtx `{}`: no instance to budget; check the pattern against `rooftrace gaps --nvtx`",
                    rr.pattern
                ),
            ));
        }
    }
    if multi > 0 {
        diagnostics.push(Diagnostic::new(
            DiagnosticKind::SeveralDevices { instances: multi },
            format!("{multi} instances ran on several devices and are left out: budget one device at a time with --device N"),
        ));
    }
    if empty > 0 {
        diagnostics.push(Diagnostic::new(
            DiagnosticKind::EmptyWindow { instances: empty },
            format!("{empty} instances have an empty GPU window and are left out"),
        ));
    }
    if under > 0 {
        diagnostics.push(Diagnostic::new(
            DiagnosticKind::UnderPrevious { instances: under },
            format!("{under} instances ran all their GPU work while the steps before them still ran; that device time is charged to those steps and these are left out"),
        ));
    }
    let overlapping: Vec<&StepBudget> =
        steps.iter().filter(|s| s.previous_overlap_ns > 0).collect();
    if !overlapping.is_empty() {
        diagnostics.push(Diagnostic::new(
            DiagnosticKind::StepsOverlap {
                steps: overlapping.len(),
            },
            format!(
                "{} steps began on the GPU while the step before still ran ({} ns in all): each step owns the device from the end of the previous step's GPU work to the end of its own, so no nanosecond is charged twice; the overlap is reported per step (previous_overlap_ns, next_host_overlap_ns)",
                overlapping.len(),
                overlapping.iter().map(|s| s.previous_overlap_ns).sum::<i64>()
            ),
        ));
    }
    if unaccounted > 0 {
        diagnostics.push(Diagnostic::new(
            DiagnosticKind::OutsideSpan {
                instances: unaccounted,
            },
            format!("{unaccounted} projected instances have time outside their device's ops (a bug: please report it with the export)"),
        ));
    }
    if let Some(c) = &ctx.counters {
        let unseen = c.unseen(&ctx.seen);
        if !unseen.is_empty() {
            let shown: Vec<&str> = unseen.iter().take(5).map(String::as_str).collect();
            diagnostics.push(Diagnostic::new(
                DiagnosticKind::UnmatchedCounters {
                    names: unseen.len(),
                },
                format!(
                    "{} kernel names in the ncu CSV match no kernel in the steps (e.g. {}): was ncu run on the same program and range?",
                    unseen.len(),
                    shown.join(", ")
                ),
            ));
        }
    }
    let lower: u64 = ctx.kernels.values().map(|a| a.lower_bound_launches).sum();
    if lower > 0 {
        diagnostics.push(Diagnostic::new(
            DiagnosticKind::LowerBound { launches: lower },
            format!("the bound of {lower} launches is a lower bound (their ncu row has an unknown or incomplete side: FLOPs or bytes not collected), so their shortfall is an upper bound: collect the missing counters (see `rooftrace ncu`)"),
        ));
    }
    let capped: Vec<&StepBudget> = steps.iter().filter(|s| s.bound_capped_ns > 0).collect();
    if !capped.is_empty() {
        diagnostics.push(Diagnostic::new(
            DiagnosticKind::BoundCapped {
                steps: capped.len(),
            },
            format!(
                "{} steps have kernels faster than their bound (capped at their time, {} ns in all): the bound's bytes or roofs are too high, or the data came from L2",
                capped.len(),
                capped.iter().map(|s| s.bound_capped_ns).sum::<i64>()
            ),
        ));
    }
    if matches!(bound_source, BoundSource::Unknown) {
        diagnostics.push(Diagnostic::new(
            DiagnosticKind::NoBound,
            "no bound: give --ncu decode.csv (per-kernel counters) or --bytes-per-step SIZE (the weights bound)",
        ));
    }
    if let Some(n) = ncu {
        diagnostics.extend(
            n.diagnostics.iter().map(|d| {
                Diagnostic::new(DiagnosticKind::Ncu(d.kind), format!("ncu: {}", d.message))
            }),
        );
    }
    diagnostics
}

/// Sums of one step's charged time by part.
#[derive(Default)]
struct Sums {
    bound: i64,
    shortfall: i64,
    no_counters: i64,
    graph: i64,
    memcpy: i64,
    /// The copies' time by where they ran.
    copy_sides: CopySides,
    memset: i64,
    /// Communication kernels' charged time (exposed communication).
    exposed_comm: i64,
    /// Kernel (and graph) time, for the weights bound.
    kernel_time: i64,
    concurrent: i64,
    capped: i64,
    kernels: u64,
    lower: u64,
}

/// Charges one kernel of a step: its bound from its ncu launch (or its
/// name's figure), else from the op models, else "without counters".
fn kernel<'a>(
    ctx: &mut Ctx<'a>,
    s: &mut Sums,
    c: &super::charge::Charged<'_>,
    occurrences: &mut HashMap<&'a str, usize>,
) {
    s.kernels += 1;
    s.kernel_time += c.charged_ns;
    let tl = ctx.tl;
    let name = tl.name(c.op.name);
    let occ = occurrences.entry(super::kernel_key(name)).or_insert(0);
    let duration = c.op.end_ns - c.op.start_ns;
    let mut kb = ctx.counters.as_ref().map(|k| k.bound(name, *occ, duration));
    *occ += 1;
    if let (
        Some(models),
        None
        | Some(KernelBound {
            basis: BoundBasis::None,
            ..
        }),
    ) = (ctx.models, kb)
    {
        match models.bound(c.index) {
            Ok(b) => kb = Some(b),
            Err((why, op)) => ctx.uncovered.add(why, op, c.charged_ns),
        }
    }
    let acc = ctx.kernels.entry(name.to_string()).or_default();
    acc.launches += 1;
    acc.time_ns += c.charged_ns;
    match kb {
        Some(kb) if kb.basis != BoundBasis::None => {
            if kb.basis != BoundBasis::OpModel {
                ctx.seen.insert(super::kernel_key(name).to_string());
            }
            let (b, capped) = split(kb.bound_ns, c.charged_ns, duration);
            s.bound += b;
            s.shortfall += c.charged_ns - b;
            s.capped += capped;
            acc.bound_ns += b;
            acc.shortfall_ns += c.charged_ns - b;
            acc.add_step_shortfall(ctx.step_index, c.charged_ns - b);
            acc.bound_by = acc.bound_by.or(kb.bound_by);
            acc.lower_bound_launches += u64::from(kb.lower);
            s.lower += u64::from(kb.lower);
            match kb.basis {
                BoundBasis::Matched => {
                    acc.matched += 1;
                    acc.matched_ns += c.charged_ns;
                }
                BoundBasis::PerName => {
                    acc.per_name += 1;
                    acc.per_name_ns += c.charged_ns;
                }
                _ => {
                    acc.op_model += 1;
                    acc.op_model_ns += c.charged_ns;
                }
            }
        }
        _ if ctx.weights_bound_ns.is_none() => s.no_counters += c.charged_ns,
        _ => {}
    }
}

/// Decomposes one instance on its device (`None`: no op in the window).
fn step(ctx: &mut Ctx, text_id: usize, r: &RangeRow, dev: Option<&DeviceOps>) -> StepBudget {
    // The window the step owns (docs/budget.md, "Overlapping steps").
    let (w0, w1) = (r.tiling.owned_start_ns, r.gpu_end_ns);
    let (classes, host) = match r.tiling.owned.idle() {
        Some(o) => (&o.classes, &o.host),
        None => (r.classes(), r.host()),
    };
    let mut s = Sums::default();
    let mut occurrences: HashMap<&str, usize> = HashMap::new();
    let is_comm = |o: &crate::timeline::GpuOp| ctx.tl.is_comm(o);
    let charged = dev.map(|d| d.charge(w0, w1, is_comm)).unwrap_or_default();
    for c in charged {
        s.concurrent += c.in_window_ns - c.charged_ns;
        match c.op.kind {
            // No roofline bound, never shortfall: exposed communication.
            OpKind::Kernel if ctx.tl.is_comm(c.op) => {
                s.kernels += 1;
                s.exposed_comm += c.charged_ns;
            }
            OpKind::Memcpy => {
                s.memcpy += c.charged_ns;
                s.copy_sides.add(c.op, c.charged_ns);
            }
            OpKind::Memset => s.memset += c.charged_ns,
            OpKind::Graph => {
                s.graph += c.charged_ns;
                s.kernel_time += c.charged_ns;
            }
            OpKind::Kernel => kernel(ctx, &mut s, &c, &mut occurrences),
        }
    }
    if let Some(wb) = ctx.weights_bound_ns {
        // The weights bound covers the step's kernels as a whole (graph
        // rows included: their kernels read the weights too).
        let (b, capped) = split(wb, s.kernel_time, s.kernel_time);
        s.bound = b;
        s.shortfall = s.kernel_time - b;
        s.graph = 0;
        s.capped = capped;
    }
    let step_ns = w1 - w0;
    let mut host_before_gpu = crate::gaps::HostTotals::default();
    let host_before_gpu_ns = r.tiling.host_before.as_deref().map_or(0, |h| {
        if let Some(facts) = h.facts {
            host_before_gpu.add(facts, h.ns, h.ns);
        }
        h.ns
    });
    let mut parts = vec![
        Part::new(PartKind::Bound, s.bound),
        Part::new(PartKind::Shortfall, s.shortfall),
        Part::new(PartKind::NoCounters, s.no_counters),
        Part::new(PartKind::Graph, s.graph),
        Part::new(PartKind::Memcpy, s.memcpy),
        Part::new(PartKind::Memset, s.memset),
        Part::new(PartKind::ExposedComm, s.exposed_comm),
    ];
    for c in GapClass::ALL {
        parts.push(Part::new(PartKind::Idle(c), classes.get(c).total_ns));
    }
    let so_far: i64 = parts.iter().map(|p| p.ns).sum();
    parts.push(Part::new(PartKind::Outside, step_ns - so_far));
    StepBudget {
        text_id,
        pid: r.pid,
        device: dev.map_or(0, |d| d.device),
        gpu_start_ns: w0,
        gpu_end_ns: w1,
        gpu_work_start_ns: r.gpu_start_ns,
        previous_overlap_ns: w0 - r.gpu_start_ns,
        next_host_overlap_ns: r.tiling.next_host_overlap_ns,
        host_before_gpu_ns,
        projected: r.projected,
        step_ns,
        parts,
        kernels: s.kernels,
        concurrent_ns: s.concurrent,
        bound_capped_ns: s.capped,
        lower_bound_launches: s.lower,
        host: host.clone(),
        host_before_gpu,
        memcpy_by_side: s.copy_sides,
    }
}

impl Part {
    fn new(kind: PartKind, ns: i64) -> Part {
        Part { kind, ns }
    }
}
