//! Roofs x launches -> [`RooflineReport`]: per kernel (or launch) intensity,
//! achieved rates, the time bound `T* = max(sum_p W_p / F_p, Q / B)`, the
//! fraction of the roof `T* / T` and the time lost `T - T*`, plus
//! diagnostics as data ([`super::diagnose`]).
//!
//! Unknown is not zero: a side (DRAM bytes, FLOPs of a path) that was not
//! collected is `None`, and `T*` is then a lower bound over the known side;
//! `bound` is claimed only when it is certain.
//!
//! The report it fills is [`super::model`]: each row carries its intensity,
//! achieved FLOP/s, duration, time lost, compute path(s) and above-roof
//! flag; `roofs_used` names the roofs actually needed.

use super::diagnose::{self, Diags};
use super::model::{
    Bound, ClockInfo, Diagnostic, DiagnosticKind, GroupBy, KernelRoofline, RoofClock,
    RooflineReport, RoofsUsed, ABOVE_ROOF_TOLERANCE, NCU_SCHEMA,
};
use crate::ncu::{FlopGroups, LaunchMetrics, NcuCsv, Source};
use crate::roofs::{ComputePath, GpuInfo, MemoryLevel, Roofs};
use crate::units::ComputeCapability;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

#[derive(Default)]
struct Acc {
    id: u64,
    pid: Option<u64>,
    mixed_pid: bool,
    name: Arc<str>,
    launches: u64,
    duration_ns: f64,
    dram: Option<f64>,
    dram_all: bool,
    dram_source: Option<Source>,
    l2: Option<f64>,
    l2_all: bool,
    l2_source: Option<Source>,
    l1: Option<f64>,
    l1_all: bool,
    flop: BTreeMap<ComputePath, f64>,
    counted: bool,
    flop_source: Option<Source>,
    flop_unknown: FlopGroups,
    /// Some launch of the row has rates only (no duration).
    rate_only: bool,
    /// Σ t x SM clock and Σ t over launches with an SM clock.
    sm_clock: (f64, f64),
    /// Σ t x DRAM clock and Σ t over launches with a DRAM clock.
    dram_clock: (f64, f64),
}

impl Acc {
    fn new(l: &LaunchMetrics) -> Acc {
        Acc {
            id: l.id,
            pid: Some(l.process_id),
            name: Arc::clone(&l.name),
            dram_all: true,
            l2_all: true,
            l1_all: true,
            ..Acc::default()
        }
    }

    fn add(&mut self, l: &LaunchMetrics, duration: f64, dram: Option<(f64, Source)>) {
        if self.pid != Some(l.process_id) {
            self.mixed_pid = true;
        }
        self.id = self.id.min(l.id);
        self.launches += 1;
        self.duration_ns += duration;
        let sum = |acc: &mut Option<f64>, all: &mut bool, v: Option<f64>| match v {
            Some(v) => *acc = Some(acc.unwrap_or(0.0) + v),
            None => *all = false,
        };
        sum(&mut self.dram, &mut self.dram_all, dram.map(|d| d.0));
        self.dram_source = self.dram_source.max(dram.map(|d| d.1));
        sum(&mut self.l2, &mut self.l2_all, l.l2_bytes);
        self.l2_source = self.l2_source.max(l.l2_derivation);
        sum(&mut self.l1, &mut self.l1_all, l.l1_bytes);
        if l.flop.any_counted() {
            self.counted = true;
        }
        self.flop_source = self.flop_source.max(l.flop_derivation);
        self.flop_unknown = self.flop_unknown.union(l.flop_unknown);
        for (p, f) in l.flop.iter() {
            if f > 0.0 {
                *self.flop.entry(p).or_insert(0.0) += f;
            }
        }
        self.rate_only |= l.rate_only;
        let w = if duration > 0.0 { duration } else { 1.0 };
        for (acc, c) in [
            (&mut self.sm_clock, l.sm_clock_hz),
            (&mut self.dram_clock, l.dram_clock_hz),
        ] {
            if let Some(c) = c {
                acc.0 += w * c;
                acc.1 += w;
            }
        }
    }
}

/// The compute capability the advice is for: the file's own when it names
/// one, else the chosen table GPU's; `None` when neither says (advice then
/// names every counter).
fn compute_capability(csv: &NcuCsv, gpu: &GpuInfo) -> Option<ComputeCapability> {
    match csv.compute_capabilities.as_slice() {
        [one] => Some(*one),
        [] => gpu
            .key
            .as_deref()
            .and_then(crate::roofs::gpus::by_key)
            .map(|g| g.compute_capability),
        _ => None,
    }
}

/// Analyses every launch of `csv` against `roofs` at the clocks the
/// launches ran at ([`analyze_at`] with [`RoofClock::Run`]).
pub fn analyze(csv: &NcuCsv, roofs: &Roofs, gpu: GpuInfo, group_by: GroupBy) -> RooflineReport {
    analyze_at(csv, roofs, gpu, group_by, RoofClock::Run)
}

/// Analyses every launch of `csv` against `roofs` taken at `clock`: scale
/// the roofs ([`super::clocks`]), group the launches (diagnosing those that
/// cannot be analysed), compute each row, then summarise (diagnostics,
/// order, roofs used, totals).
pub fn analyze_at(
    csv: &NcuCsv,
    roofs: &Roofs,
    gpu: GpuInfo,
    group_by: GroupBy,
    clock: RoofClock,
) -> RooflineReport {
    let (roofs, clock, below_clock) = scaled(csv, roofs, clock);
    let mut d = Diags::default();
    let dram_bw = roofs.dram().map(|r| r.bytes_per_s);
    let percent_roof = percent_reference(csv, dram_bw);
    let grouped = group_launches(csv.launches.iter(), group_by, percent_roof, &mut d);
    let total = csv.launches.len() as u64;
    summarise(
        csv,
        &roofs,
        (clock, below_clock),
        gpu,
        grouped,
        total,
        d,
        group_by,
    )
}

/// [`analyze_at`] of a CSV it takes: each launch is dropped once its row
/// holds what it needs, and the launches' memory is given back as they go,
/// so a row per launch never holds every parsed launch and every row at
/// once (`rooftrace ncu` on a details page of 100,000 launches).
pub fn analyze_owned_at(
    mut csv: NcuCsv,
    roofs: &Roofs,
    gpu: GpuInfo,
    group_by: GroupBy,
    clock: RoofClock,
) -> RooflineReport {
    let (roofs, clock, below_clock) = scaled(&csv, roofs, clock);
    let mut d = Diags::default();
    let dram_bw = roofs.dram().map(|r| r.bytes_per_s);
    let percent_roof = percent_reference(&csv, dram_bw);
    let launches = std::mem::take(&mut csv.launches);
    let total = launches.len() as u64;
    let grouped = group_launches(Consume::new(launches), group_by, percent_roof, &mut d);
    summarise(
        &csv,
        &roofs,
        (clock, below_clock),
        gpu,
        grouped,
        total,
        d,
        group_by,
    )
}

/// The roofs at the clock asked for, the clock facts, and the diagnostic
/// of launches below the roofs' clock.
fn scaled(csv: &NcuCsv, roofs: &Roofs, clock: RoofClock) -> (Roofs, ClockInfo, Option<Diagnostic>) {
    let weighed = super::clocks::weighed(csv);
    let (roofs, clock) = super::clocks::at_run_clock(roofs, &weighed, clock);
    let below_clock = super::clocks::below_roof(&clock, &weighed);
    (roofs, clock, below_clock)
}

/// Yields a vector's items in order, giving its memory back as it goes
/// (the items are kept reversed and popped; the vector shrinks every 4096).
struct Consume<T>(Vec<T>);

impl<T> Consume<T> {
    fn new(mut v: Vec<T>) -> Consume<T> {
        v.reverse();
        Consume(v)
    }
}

impl<T> Iterator for Consume<T> {
    type Item = T;

    fn next(&mut self) -> Option<T> {
        let item = self.0.pop();
        if self.0.len() % 4096 == 0 {
            self.0.shrink_to_fit();
        }
        item
    }
}

/// Rows from the groups, then labels, diagnostics, order, roofs used and
/// totals.
#[allow(clippy::too_many_arguments)]
fn summarise(
    csv: &NcuCsv,
    roofs: &Roofs,
    (clock, below_clock): (ClockInfo, Option<Diagnostic>),
    gpu: GpuInfo,
    (groups, analysed): (Vec<Acc>, u64),
    launches_total: u64,
    d: Diags,
    group_by: GroupBy,
) -> RooflineReport {
    let dram_bw = roofs.dram().map(|r| r.bytes_per_s);
    let percent_roof = percent_reference(csv, dram_bw);
    let mut unroofed: BTreeSet<ComputePath> = BTreeSet::new();
    let mut kernels = rows(groups, roofs, dram_bw, &mut unroofed);
    let labels = super::names::shared_labels(kernels.iter().map(|k| &*k.name));
    for (k, label) in kernels.iter_mut().zip(labels) {
        k.label = label;
    }
    let padding = super::useful::flag_padding(&mut kernels);
    let cc = compute_capability(csv, &gpu);
    let mut diagnostics = diagnose::rows(csv, roofs, &kernels, &unroofed, percent_roof, cc, d);
    diagnostics.extend(padding);
    diagnostics.extend(below_clock);
    if let crate::roofs::GpuChoice::Undecided { seen, .. } = &gpu.chosen_by {
        diagnostics.push(Diagnostic {
            kind: DiagnosticKind::GpuUndecided,
            count: 1,
            message: format!(
                "the GPU was not decided (the file states {seen}): {}; pass --gpu with {}",
                if roofs.memory.is_empty() && roofs.compute.is_empty() {
                    "bound, fraction of roof and time lost are unknown (the roof-free columns stand)"
                } else {
                    "fractions are of ncu's theoretical peaks for the clocks in the file"
                },
                if gpu.candidates().is_empty() {
                    "a key of `rooftrace ncu --list-gpus`, or --roofs FILE for a GPU not in the table (docs/roofs-format.md)".to_string()
                } else {
                    format!("one of the GPUs that fit: {}", gpu.candidates().join(", "))
                }
            ),
            examples: Vec::new(),
        });
    }
    for note in &gpu.notes {
        diagnostics.push(Diagnostic {
            kind: DiagnosticKind::GpuMismatch,
            count: 1,
            message: note.clone(),
            examples: Vec::new(),
        });
    }
    sort_rows(&mut kernels);
    RooflineReport {
        schema: NCU_SCHEMA,
        input: csv.file.clone(),
        page: format!("{}, {} columns", csv.page.key(), csv.columns),
        group_by,
        gpu,
        clock,
        roofs: roofs.clone(),
        roofs_used: roofs_used(roofs, &kernels),
        launches_total,
        launches_analysed: analysed,
        // Rate-only rows have no time: they are left out of the totals.
        total_duration_ns: timed(&kernels).fold(0.0, |a, k| a + k.duration_ns),
        total_time_lost_ns: timed(&kernels).fold(0.0, |a, k| a + k.time_lost_ns.max(0.0)),
        kernels,
        diagnostics,
    }
}

/// Orders the rows, biggest time lost first (ties: longer, then name, then
/// process, then ID, then as they came). Sorts indices, then moves the rows
/// in place: a stable sort of the rows themselves would take a buffer of
/// half of them.
fn sort_rows(kernels: &mut [KernelRoofline]) {
    let mut order: Vec<u32> = (0..kernels.len() as u32).collect();
    order.sort_by(|&i, &j| {
        let (a, b) = (&kernels[i as usize], &kernels[j as usize]);
        b.time_lost_ns
            .total_cmp(&a.time_lost_ns)
            .then(b.duration_ns.total_cmp(&a.duration_ns))
            .then_with(|| a.name.cmp(&b.name))
            .then(a.process_id.cmp(&b.process_id))
            .then(a.id.cmp(&b.id))
    });
    // order[k] is the row that goes to k; dest[i] is where row i goes.
    let mut dest = vec![0u32; order.len()];
    for (k, &i) in order.iter().enumerate() {
        dest[i as usize] = k as u32;
    }
    drop(order);
    for i in 0..kernels.len() {
        while dest[i] as usize != i {
            let d = dest[i] as usize;
            kernels.swap(i, d);
            dest.swap(i, d);
        }
    }
}

/// Each group's row, in the groups' order. The groups are taken from the
/// back and their vector shrunk as it empties, so a row per launch does
/// not hold every group and every row at once.
fn rows(
    mut groups: Vec<Acc>,
    roofs: &Roofs,
    dram_bw: Option<f64>,
    unroofed: &mut BTreeSet<ComputePath>,
) -> Vec<KernelRoofline> {
    let mut kernels = Vec::with_capacity(groups.len());
    while let Some(g) = groups.pop() {
        kernels.push(row(g, roofs, dram_bw, unroofed));
        if groups.len() % 4096 == 0 {
            groups.shrink_to_fit();
        }
    }
    kernels.reverse();
    kernels
}

/// The rows with a measured time (not rate-only).
fn timed(kernels: &[KernelRoofline]) -> impl Iterator<Item = &KernelRoofline> {
    kernels.iter().filter(|k| !k.rate_only)
}

/// The DRAM bandwidth a "DRAM Throughput" percentage refers to: ncu's own
/// peak when the file carries it (`dram__bytes.sum.peak_sustained x
/// dram__cycles_elapsed.avg.per_second`), else the DRAM roof in use. With
/// the name of that reference, for the diagnostic.
fn percent_reference(csv: &NcuCsv, dram_bw: Option<f64>) -> Option<(f64, &'static str)> {
    use crate::ncu::metrics::Peak;
    let p = &csv.peaks;
    match (p.get(Peak::DramBytesPerCycle), p.get(Peak::DramClock)) {
        (Some(b), Some(c)) if b > 0.0 && c > 0.0 => Some((b * c, "ncu's DRAM peak in the file")),
        _ => dram_bw.map(|b| (b, "the DRAM roof in use")),
    }
}

/// Groups the analysable launches into rows (one per launch, or one per
/// kernel name in order of first appearance); returns the rows and the
/// number of launches in them.
fn group_launches<L: std::borrow::Borrow<LaunchMetrics>>(
    launches: impl Iterator<Item = L>,
    group_by: GroupBy,
    percent_roof: Option<(f64, &'static str)>,
    d: &mut Diags,
) -> (Vec<Acc>, u64) {
    let mut groups: Vec<Acc> = Vec::new();
    let mut index: HashMap<Arc<str>, usize> = HashMap::new();
    let mut analysed = 0u64;
    for l in launches {
        let l = l.borrow();
        let Some((duration, dram)) = diagnose::launch(l, percent_roof.map(|p| p.0), d) else {
            continue;
        };
        analysed += 1;
        let gi = match group_by {
            GroupBy::Launch => {
                groups.push(Acc::new(l));
                groups.len() - 1
            }
            GroupBy::Kernel => *index.entry(Arc::clone(&l.name)).or_insert_with(|| {
                groups.push(Acc::new(l));
                groups.len() - 1
            }),
        };
        groups[gi].add(l, duration, dram);
    }
    (groups, analysed)
}

/// The roofs the rows need: DRAM always, L2/L1 when the roofs have them and
/// some row has bytes for them; compute paths with FLOPs and a roof.
fn roofs_used(roofs: &Roofs, kernels: &[KernelRoofline]) -> RoofsUsed {
    let mut compute_used: BTreeSet<ComputePath> = BTreeSet::new();
    let mut l2 = false;
    let mut l1 = false;
    for k in kernels {
        compute_used.extend(
            k.flop_by_path
                .keys()
                .filter(|p| roofs.compute.contains_key(p)),
        );
        l2 |= k.l2_bytes.is_some();
        l1 |= k.l1_bytes.is_some();
    }
    let mut memory = vec![MemoryLevel::Dram];
    if l2 && roofs.memory.contains_key(&MemoryLevel::L2) {
        memory.push(MemoryLevel::L2);
    }
    if l1 && roofs.memory.contains_key(&MemoryLevel::L1) {
        memory.push(MemoryLevel::L1);
    }
    RoofsUsed {
        memory,
        compute: compute_used.into_iter().collect(),
    }
}

/// The roofline math of one row. Each side is `None` when unknown; T* is
/// the larger known term, a lower bound unless both sides are known and
/// complete; the bound is claimed only when certain.
fn row(
    g: Acc,
    roofs: &Roofs,
    dram_bw: Option<f64>,
    unroofed: &mut BTreeSet<ComputePath>,
) -> KernelRoofline {
    let t = g.duration_ns;
    let q = g.dram.filter(|_| g.dram_all);
    // fold from +0.0: `Sum for f64` starts at -0.0, which prints as "-0".
    let w = g.counted.then(|| g.flop.values().fold(0.0, |a, b| a + b));
    // sum_p W_p / F_p: a kernel using several paths is bounded by the sum of
    // their compute times (the units share issue slots and registers).
    let mut compute_s = 0.0;
    let mut all_roofed = true;
    for (p, f) in &g.flop {
        match roofs.compute.get(p) {
            Some(r) => compute_s += f / r.flop_per_s,
            None => {
                unroofed.insert(*p);
                all_roofed = false;
            }
        }
    }
    let compute_time_ns = w.map(|_| compute_s * 1e9);
    let memory_time_ns = match (q, dram_bw) {
        (Some(q), Some(b)) => Some(q / b * 1e9),
        _ => None,
    };
    let compute_complete = w.is_some() && g.flop_unknown.is_empty() && all_roofed;
    let bound_time_ns = compute_time_ns
        .unwrap_or(0.0)
        .max(memory_time_ns.unwrap_or(0.0));
    let lower_bound = !(compute_complete && memory_time_ns.is_some());
    let bound = match (compute_time_ns, memory_time_ns) {
        (Some(c), Some(m)) if c > m => Some(Bound::Compute),
        (Some(_), Some(_)) if compute_complete => Some(Bound::Memory),
        _ => None,
    };
    let per = |x: f64, y: f64| (y > 0.0).then(|| x / y);
    let fraction_of_roof = bound_time_ns / t;
    let l2 = g.l2.filter(|_| g.l2_all);
    let l1 = g.l1.filter(|_| g.l1_all);
    KernelRoofline {
        id: g.id,
        process_id: if g.mixed_pid { None } else { g.pid },
        label: Arc::from(""),
        name: g.name,
        launches: g.launches,
        duration_ns: t,
        dram_bytes: q,
        dram_source: q.and(g.dram_source),
        l2_bytes: l2,
        l2_source: l2.and(g.l2_source),
        l1_bytes: l1,
        flop: w,
        flop_source: w.and(g.flop_source),
        flop_unknown: g.flop_unknown.iter().collect(),
        intensity: w.zip(q).and_then(|(w, q)| per(w, q)),
        intensity_l2: w.zip(l2).and_then(|(w, b)| per(w, b)),
        intensity_l1: w.zip(l1).and_then(|(w, b)| per(w, b)),
        flop_by_path: g.flop,
        achieved_flop_per_s: w.map(|w| w / (t * 1e-9)),
        achieved_dram_bytes_per_s: q.map(|q| q / (t * 1e-9)),
        compute_time_ns,
        memory_time_ns,
        bound_time_ns,
        lower_bound,
        bound,
        roof_flop_per_s: match w {
            Some(w) if !lower_bound && bound_time_ns > 0.0 => Some(w / (bound_time_ns * 1e-9)),
            Some(_) if !lower_bound => Some(0.0),
            _ => None,
        },
        fraction_of_roof,
        time_lost_ns: t - bound_time_ns,
        above_roof: fraction_of_roof > 1.0 + ABOVE_ROOF_TOLERANCE,
        bandwidth_only: w.is_none(),
        rate_only: g.rate_only,
        sm_clock_hz: (g.sm_clock.1 > 0.0).then(|| g.sm_clock.0 / g.sm_clock.1),
        dram_clock_hz: (g.dram_clock.1 > 0.0).then(|| g.dram_clock.0 / g.dram_clock.1),
        padding: None,
        useful: None,
    }
}
