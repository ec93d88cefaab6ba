//! The path report, by phase: the graph built and ordered once for the
//! timeline (`graph`, `topo`), then per step of `budget`: its nodes, the
//! walk (`walk`), each change replayed (`replay`), and last the median
//! step's best single change with the evidence for it.

use super::change::{Change, Editor};
use super::model::{
    Best, PartName, PathReport, ReplayCheck, Segment, StepPath, WhatIf, KERNEL_FLOOR_NS, SCHEMA,
};
use super::node::{end_event, start_event, Graph, NodeKind};
use super::ranks::Arrivals;
use super::replay::{Replayer, StepNodes};
use super::roofs::KernelRoofs;
use super::walk::{parts, Walker};
use super::PathConfig;
use crate::budget::BudgetReport;
use crate::timeline::{NameRef, OpKind, Timeline};
use std::collections::HashMap;

/// Ops looked at before a step's window for one that ends inside it (a
/// long op from the step before).
const MAX_BEFORE_SCAN: usize = 4096;

/// Each step of `budget` on its critical path, with the changes replayed;
/// `arrivals`: its collectives' last rank's arrivals (several ranks).
pub fn analyze(
    tl: &Timeline,
    budget: &BudgetReport,
    kernels: &KernelRoofs,
    cfg: &PathConfig,
    arrivals: &Arrivals,
) -> PathReport {
    let mut graph = super::graph::build(tl);
    super::topo::order(&mut graph);
    let by_start = nodes_by_start(&graph);
    let walker = Walker {
        tl,
        graph: &graph,
        roofs: kernels,
        arrivals,
    };
    let mut replayer = Replayer::new(Editor {
        tl,
        graph: &graph,
        roofs: kernels,
        arrivals,
    });
    let mut overlapping = 0usize;
    let mut steps = Vec::with_capacity(budget.steps.len());
    for s in &budget.steps {
        let window = StepWindow {
            pid: s.pid,
            device: s.device,
            start_ns: s.gpu_start_ns,
            end_ns: s.gpu_end_ns,
            previous_overlap_ns: s.previous_overlap_ns,
        };
        let (segments, what_if) =
            step_path(&walker, &mut replayer, &by_start, &window, cfg.top_kernels);
        overlapping += usize::from(overclaims(&what_if));
        steps.push(StepPath {
            name: budget.text(s).to_string(),
            pid: s.pid,
            device: s.device,
            start_ns: s.gpu_start_ns,
            step_ns: s.step_ns,
            path_ns: segments.iter().map(|g| g.end_ns - g.start_ns).sum(),
            parts: parts(&segments),
            what_if,
            segments,
        });
    }
    let best = budget.median_step.and_then(|m| steps.get(m)).and_then(best);
    PathReport {
        schema: SCHEMA,
        input: cfg.input.clone(),
        gpu: budget.gpu.clone(),
        pattern: budget.pattern.clone(),
        kernel_floor_ns: KERNEL_FLOOR_NS,
        median_step: budget.median_step,
        steps,
        best,
        diagnostics: diagnostics(&graph, kernels, overlapping),
    }
}

/// A step's window on its device.
#[derive(Debug, Clone, Copy)]
pub(super) struct StepWindow {
    /// Process id.
    pub pid: u32,
    /// Device.
    pub device: u16,
    /// `gpu_start_ns`.
    pub start_ns: i64,
    /// `gpu_end_ns`.
    pub end_ns: i64,
    /// Budget's `previous_overlap_ns`: > 0 when the window starts at the
    /// previous step's work end.
    pub previous_overlap_ns: i64,
}

impl StepWindow {
    /// The window's length, ns.
    fn step_ns(&self) -> i64 {
        self.end_ns - self.start_ns
    }
}

/// One step's path (in time order) and its changes replayed.
pub(super) fn step_path(
    walker: &Walker,
    replayer: &mut Replayer,
    by_start: &[u32],
    w: &StepWindow,
    top: usize,
) -> (Vec<Segment>, Vec<WhatIf>) {
    let nodes = step_nodes(walker.tl, walker.graph, by_start, w);
    let last = last_op(walker.tl, walker.graph, &nodes, w);
    let segments = walker.walk(last, w.start_ns, w.end_ns);
    (segments, what_ifs(replayer, &nodes, w, top))
}

/// The replay of nothing over a whole timeline, every event at once:
/// how many events it moved (0 when exact) and the edges the graph left out.
pub fn check_replay(tl: &Timeline) -> ReplayCheck {
    let mut graph = super::graph::build(tl);
    super::topo::order(&mut graph);
    let mut events: Vec<u32> = (0..graph.rank.len() as u32).collect();
    events.sort_unstable_by_key(|&e| graph.rank[e as usize]);
    let none = KernelRoofs::default();
    let one_rank = Arrivals::one_rank();
    let mut replayer = Replayer::new(Editor {
        tl,
        graph: &graph,
        roofs: &none,
        arrivals: &one_rank,
    });
    let moved_events = replayer.moved_by_nothing(&events);
    ReplayCheck {
        nodes: graph.nodes.len() as u64,
        moved_events,
        contradicted_edges: graph.contradicted_edges,
        dropped_edges: graph.dropped_edges,
    }
}

/// Every node, sorted by (pid, observed start).
pub(super) fn nodes_by_start(graph: &Graph) -> Vec<u32> {
    let mut v: Vec<u32> = (0..graph.nodes.len() as u32).collect();
    v.sort_unstable_by_key(|&n| {
        let node = &graph.nodes[n as usize];
        (node.pid, node.start_ns, n)
    });
    v
}

/// The nodes of step `s`: those of its process starting in the window
/// (replayed), and the step's ops (on its device, ending in the window).
pub(super) fn step_nodes(
    tl: &Timeline,
    graph: &Graph,
    by_start: &[u32],
    s: &StepWindow,
) -> StepNodes {
    let (w0, w1) = (s.start_ns, s.end_ns);
    let key = |n: &u32| {
        let node = &graph.nodes[*n as usize];
        (node.pid, node.start_ns)
    };
    let lo = by_start.partition_point(|n| key(n) < (s.pid, w0));
    let hi = by_start.partition_point(|n| key(n) <= (s.pid, w1));
    let free = &by_start[lo..hi];
    let mut events: Vec<u32> = free
        .iter()
        .flat_map(|&n| [start_event(n) as u32, end_event(n) as u32])
        .collect();
    events.sort_unstable_by_key(|&e| graph.rank[e as usize]);
    let on_device = |n: u32| match graph.nodes[n as usize].kind {
        NodeKind::Op { index } => tl.ops[index as usize].device == s.device,
        NodeKind::Host { .. } => false,
    };
    let in_window = |end: i64| end > w0 && end <= w1;
    let ends: Vec<u32> = free
        .iter()
        .copied()
        .filter(|&n| on_device(n) && in_window(graph.nodes[n as usize].end_ns))
        .collect();
    // Ops of the device that began before the window and end in it keep
    // their observed end; they are found just before the window's start.
    let at = tl
        .ops
        .partition_point(|o| (o.pid, o.device, o.start_ns) < (s.pid, s.device, w0));
    let fixed_end_ns = tl.ops[..at]
        .iter()
        .rev()
        .take(MAX_BEFORE_SCAN)
        .take_while(|o| (o.pid, o.device) == (s.pid, s.device))
        .map(|o| o.end_ns)
        .filter(|&e| in_window(e))
        .max();
    let observed_end_ns = ends
        .iter()
        .map(|&n| graph.nodes[n as usize].end_ns)
        .chain(fixed_end_ns)
        .max();
    let mut nodes = StepNodes {
        events,
        ends,
        fixed_end_ns,
        observed_end_ns,
        window_start_ns: w0,
        start_floor_ns: (s.previous_overlap_ns > 0 || fixed_end_ns.is_some()).then_some(w0),
        observed_start_ns: None,
    };
    let first = nodes
        .ends
        .iter()
        .map(|&n| graph.nodes[n as usize].start_ns)
        .min();
    nodes.observed_start_ns = nodes.step_start(first);
    nodes
}

/// The step's last-ending op (ties: lowest stream, then start), where the
/// walk begins; ops that began before the window count too.
fn last_op(tl: &Timeline, graph: &Graph, nodes: &StepNodes, s: &StepWindow) -> Option<u32> {
    let end = nodes.observed_end_ns?;
    let at = tl
        .ops
        .partition_point(|o| (o.pid, o.device, o.start_ns) < (s.pid, s.device, s.start_ns));
    let before = tl.ops[..at]
        .iter()
        .enumerate()
        .rev()
        .take(MAX_BEFORE_SCAN)
        .take_while(|(_, o)| (o.pid, o.device) == (s.pid, s.device))
        .map(|(i, _)| i as u32);
    nodes
        .ends
        .iter()
        .copied()
        .chain(before)
        .filter(|&n| graph.nodes[n as usize].end_ns == end)
        .min_by_key(|&n| {
            let op = &tl.ops[n as usize];
            (op.device, op.stream, op.start_ns, n)
        })
}

/// Every change replayed on one step, most saved first (then by key).
fn what_ifs(replayer: &mut Replayer, nodes: &StepNodes, s: &StepWindow, top: usize) -> Vec<WhatIf> {
    let (Some(observed_end), Some(observed_start)) =
        (nodes.observed_end_ns, nodes.observed_start_ns)
    else {
        return Vec::new();
    };
    let tl = replayer.editor.tl;
    let mut run = |replayer: &mut Replayer, change: Change| {
        let out = replayer.replay(nodes, change);
        // New step = step_ns less what the end moved earlier, plus what the
        // start moved earlier (a step that only shifted saves nothing); a
        // head or tail of the window past the ops stays.
        let shorter = (observed_end - out.end_ns) - (observed_start - out.start_ns);
        WhatIf {
            change: change.key(tl),
            // The new step itself (longer than the step when the first op
            // moved earlier by more than the last end), the saving never
            // negative.
            saved_ns: shorter.max(0),
            new_step_ns: s.step_ns() - shorter,
            shortfall_ns: out.shortfall_ns,
            moved: out.moved,
        }
    };
    // straggler_on_time is listed only when several ranks were given.
    let ranks: &[Change] = if replayer.editor.arrivals.several_ranks() {
        &[Change::StragglerOnTime]
    } else {
        &[]
    };
    let mut out: Vec<WhatIf> = Change::SINGLE
        .iter()
        .chain(ranks)
        .chain(&[Change::All])
        .map(|&c| run(replayer, c))
        .collect();
    out.extend(top_kernels(replayer, nodes, top, &mut run));
    out.sort_by(|a, b| {
        b.saved_ns
            .cmp(&a.saved_ns)
            .then_with(|| a.change.cmp(&b.change))
    });
    out
}

/// The `kernel:<name>` changes that save most, at most `top`: names are
/// replayed by their shortfall, largest first, and the search stops once
/// no name left can beat the `top`-th saved (a change never saves more
/// than its shortfall).
fn top_kernels(
    replayer: &mut Replayer,
    nodes: &StepNodes,
    top: usize,
    run: &mut impl FnMut(&mut Replayer, Change) -> WhatIf,
) -> Vec<WhatIf> {
    if top == 0 {
        return Vec::new();
    }
    let editor = &replayer.editor;
    let mut by_name: HashMap<NameRef, i64> = HashMap::new();
    for &e in nodes.events.iter().filter(|&&e| e % 2 == 0) {
        let n = e / 2;
        let NodeKind::Op { index } = editor.graph.nodes[n as usize].kind else {
            continue;
        };
        let op = &editor.tl.ops[index as usize];
        if op.kind != OpKind::Kernel {
            continue;
        }
        let cut = editor.graph.nodes[n as usize].duration_ns()
            - editor.edit(Change::KernelsAtRoof, n).duration_ns;
        if cut > 0 {
            *by_name.entry(op.name).or_default() += cut;
        }
    }
    let tl = editor.tl;
    let mut names: Vec<(NameRef, i64)> = by_name.into_iter().collect();
    names.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| tl.name(a.0).cmp(tl.name(b.0))));
    let mut kept: Vec<WhatIf> = Vec::new();
    for (name, shortfall) in names {
        if kept.len() >= top && kept.iter().map(|w| w.saved_ns).min().unwrap_or(0) >= shortfall {
            break;
        }
        kept.push(run(replayer, Change::Kernel(name)));
        kept.sort_by(|a, b| {
            b.saved_ns
                .cmp(&a.saved_ns)
                .then_with(|| a.change.cmp(&b.change))
        });
        kept.truncate(top);
    }
    kept
}

/// True when the single changes' saved times sum to more than `all` saves.
pub(super) fn overclaims(what_if: &[WhatIf]) -> bool {
    let singles: i64 = what_if
        .iter()
        .filter(|w| is_single(&w.change))
        .map(|w| w.saved_ns)
        .sum();
    what_if
        .iter()
        .find(|w| w.change == "all")
        .is_some_and(|all| singles > all.saved_ns)
}

/// True for the keys of [`Change::SINGLE`] (not `kernel:<name>`, a part
/// of `kernels_at_roof`, nor `all`).
fn is_single(key: &str) -> bool {
    !key.starts_with("kernel:") && key != "all"
}

/// The change that saves most on `step` (not `all`), with why.
fn best(step: &StepPath) -> Option<Best> {
    let w = step
        .what_if
        .iter()
        .find(|w| w.change != "all" && w.saved_ns > 0)?;
    Some(Best {
        change: w.change.clone(),
        saved_ns: w.saved_ns,
        why: why(step, w),
    })
}

/// One sentence from the evidence on the path for change `w`.
fn why(step: &StepPath, w: &WhatIf) -> String {
    let on = |parts: &[PartName]| -> (i64, usize) {
        let segs: Vec<&Segment> = step
            .segments
            .iter()
            .filter(|s| parts.contains(&s.part))
            .collect();
        (segs.iter().map(|s| s.end_ns - s.start_ns).sum(), segs.len())
    };
    let pct = |ns: i64| {
        if step.step_ns > 0 {
            format!("{:.1} %", ns as f64 * 100.0 / step.step_ns as f64)
        } else {
            "0 %".into()
        }
    };
    let saves = format!(
        "replayed, the step is {} shorter ({} of its own shortfall)",
        crate::units::duration_ns(w.saved_ns as f64),
        crate::units::duration_ns(w.shortfall_ns as f64)
    );
    match w.change.as_str() {
        "launch_overhead_removed" => {
            let (ns, n) = on(&[PartName::LaunchOverhead]);
            format!("launch overhead is {} of the median step's critical path: {n} launches wait on their call; {saves}", pct(ns))
        }
        "host_work_removed" => {
            let (ns, n) = on(&[PartName::HostWork]);
            format!("host work between runtime calls is {} of the median step's critical path ({n} gaps on it); {saves}", pct(ns))
        }
        "gpu_gaps_removed" => {
            let (ns, n) = on(&[PartName::GpuGap]);
            format!("idle time between ops on a stream is {} of the median step's critical path ({n} gaps on it); {saves}", pct(ns))
        }
        "collectives_at_link" => {
            let (ns, n) = on(&[PartName::Collective]);
            format!("collectives are {} of the median step's critical path ({n} on it), slower than their link; {saves}", pct(ns))
        }
        "straggler_on_time" => {
            let (ns, n) = on(&[PartName::WaitingForRank]);
            format!("waiting for a later rank's arrival is {} of the median step's critical path ({n} collectives on it); {saves}", pct(ns))
        }
        "kernels_at_roof" => {
            let (ns, n) = on(&[PartName::KernelMemory, PartName::KernelCompute]);
            format!("kernels with a known bound are {} of the median step's critical path ({n} on it), {} of them moved to their roofs; {saves}", pct(ns), w.moved)
        }
        key => {
            let name = key.strip_prefix("kernel:").unwrap_or(key);
            let segs: Vec<&Segment> = step
                .segments
                .iter()
                .filter(|s| {
                    s.label == name
                        && matches!(s.part, PartName::KernelMemory | PartName::KernelCompute)
                })
                .collect();
            let ns: i64 = segs.iter().map(|s| s.end_ns - s.start_ns).sum();
            format!("kernel `{name}` is {} of the median step's critical path ({} launches on it, {} moved to its roof); {saves}", pct(ns), segs.len(), w.moved)
        }
    }
}

/// The report's notes: edges the graph dropped, no bound known, and
/// single changes that overlap.
fn diagnostics(graph: &Graph, kernels: &KernelRoofs, overlapping: usize) -> Vec<String> {
    let mut out = Vec::new();
    if overlapping > 0 {
        out.push(format!("on {overlapping} steps the single changes' saved times sum to more than `all` saves: they shorten the same stretch of the path, so add no two of them up"));
    }
    if !kernels.by_op.iter().any(Option::is_some) {
        out.push("no kernel has a known bound, so `kernels_at_roof` moves nothing: give the ncu CSV of the run's kernels, or a PyTorch trace recorded with shapes (record_shapes=True)".into());
    }
    if graph.contradicted_edges > 0 {
        out.push(format!("{} edges left out of the graph: their constraint came after the event it constrains (host and device clocks disagree, or two ops overlap on one stream), so the observed run shows they did not bind", graph.contradicted_edges));
    }
    if graph.dropped_edges > 0 {
        out.push(format!(
            "{} edges dropped to break a cycle of zero-length events at one timestamp",
            graph.dropped_edges
        ));
    }
    out
}
