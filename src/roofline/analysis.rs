//! Roofs x launches -> [`RooflineReport`]: per kernel (or launch) intensity,
//! achieved rates, the time bound `T* = max(sum_p W_p / F_p, Q / B)`, the
//! fraction of the roof `T* / T` and the time lost `T - T*`, plus
//! diagnostics as data.
//!
//! The report is the model every renderer and the roofline plot read: each
//! row carries its intensity, achieved FLOP/s, duration, time lost, compute
//! path(s) and above-roof flag; [`RooflineReport::roofs_used`] names the
//! roofs actually needed.

use crate::ncu::{LaunchMetrics, NcuCsv};
use crate::roofs::{ComputePath, GpuInfo, MemoryLevel, Roofs};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// Schema tag of the JSON report.
pub const NCU_SCHEMA: &str = "rooftrace.ncu/1";

/// A point is "above the roof" when it beats the bound by more than this
/// fraction (5 %).
pub const ABOVE_ROOF_TOLERANCE: f64 = 0.05;

/// How rows are formed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum GroupBy {
    /// One row per launch.
    Launch,
    /// One row per kernel name: times, bytes and FLOPs summed over launches.
    Kernel,
}

/// Which term of the time bound is larger.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Bound {
    /// `Q / B` (DRAM) is the larger term.
    Memory,
    /// `sum_p W_p / F_p` is the larger term.
    Compute,
}

impl Bound {
    /// `memory` or `compute`.
    pub fn key(self) -> &'static str {
        match self {
            Bound::Memory => "memory",
            Bound::Compute => "compute",
        }
    }
}

/// One row of the report: a launch, or all launches of one kernel name.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct KernelRoofline {
    /// ncu `ID` of the launch (for a kernel group: of its first launch).
    pub id: u64,
    /// `Process ID`; `None` for a kernel group spanning several processes.
    pub process_id: Option<u64>,
    /// Kernel name.
    pub name: String,
    /// Readable label, unique among the report's kernels
    /// ([`super::names::labels`]); what tables and plots show.
    pub label: String,
    /// Number of launches in this row.
    pub launches: u64,
    /// Measured time T, ns.
    pub duration_ns: f64,
    /// DRAM bytes Q.
    pub dram_bytes: f64,
    /// L2 bytes, when collected for every launch of the row.
    pub l2_bytes: Option<f64>,
    /// L1 bytes, when collected for every launch of the row.
    pub l1_bytes: Option<f64>,
    /// Total FLOPs W over all counted paths (0 when no counter).
    pub flop: f64,
    /// FLOPs per compute path with a nonzero count.
    pub flop_by_path: BTreeMap<ComputePath, f64>,
    /// Intensity on DRAM, FLOP/byte (`None`: no FLOP counters, or Q = 0).
    pub intensity: Option<f64>,
    /// Intensity on L2, FLOP/byte.
    pub intensity_l2: Option<f64>,
    /// Intensity on L1, FLOP/byte.
    pub intensity_l1: Option<f64>,
    /// W / T, FLOP/s (`None` without FLOP counters).
    pub achieved_flop_per_s: Option<f64>,
    /// Q / T, byte/s.
    pub achieved_dram_bytes_per_s: f64,
    /// sum_p W_p / F_p, ns (paths without a roof are left out and diagnosed).
    pub compute_time_ns: f64,
    /// Q / B_dram, ns.
    pub memory_time_ns: f64,
    /// T* = max(compute_time_ns, memory_time_ns), ns.
    pub bound_time_ns: f64,
    /// Which term is larger.
    pub bound: Bound,
    /// Attainable FLOP/s at this intensity, W / T* (for one path exactly
    /// min(F, B * I)); `None` without FLOP counters.
    pub roof_flop_per_s: Option<f64>,
    /// T* / T (1 = on the roof).
    pub fraction_of_roof: f64,
    /// T - T*, ns (negative above the roof).
    pub time_lost_ns: f64,
    /// fraction_of_roof > 1 + 5 %.
    pub above_roof: bool,
    /// No FLOP counter was collected: analysed against the bandwidth roof
    /// alone.
    pub bandwidth_only: bool,
}

impl KernelRoofline {
    /// Compute paths with work, in display order.
    pub fn paths(&self) -> Vec<ComputePath> {
        self.flop_by_path.keys().copied().collect()
    }
}

/// What a diagnostic is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DiagnosticKind {
    /// ncu printed `==ERROR==`/`==WARNING==` lines into the file.
    NcuLog,
    /// Launches without a duration (skipped).
    MissingDuration,
    /// Launches with a zero duration (skipped).
    ZeroDuration,
    /// Launches without DRAM bytes (skipped).
    MissingDram,
    /// Only one of DRAM read/write bytes collected (undercounted).
    PartialDram,
    /// Metrics read as `nan` (failed launch?).
    NanMetrics,
    /// No FLOP counters: analysed against bandwidth only.
    BandwidthOnly,
    /// Tensor instructions executed but no tensor op counters collected.
    TensorNotCounted,
    /// FLOPs on a path the roofs have no value for.
    NoRoofForPath,
    /// Points above the roof by more than 5 %.
    AboveRoof,
    /// Several devices in one file; roofs of one GPU applied to all.
    SeveralDevices,
    /// The input disagrees with the chosen GPU (SM count, device name).
    GpuMismatch,
}

/// A warning carried as data and shown once.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Diagnostic {
    /// What it is about.
    pub kind: DiagnosticKind,
    /// How many launches (or rows, or lines) it concerns.
    pub count: u64,
    /// One sentence with the fix.
    pub message: String,
    /// Up to three examples (`name (ID n)`).
    pub examples: Vec<String>,
}

/// The roofs a report actually used.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RoofsUsed {
    /// Memory levels (always DRAM; L2/L1 when the roofs have them and the
    /// CSV has bytes for them, for plotting).
    pub memory: Vec<MemoryLevel>,
    /// Compute paths with FLOPs in some row and a roof.
    pub compute: Vec<ComputePath>,
}

/// The whole analysis: what every renderer prints.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RooflineReport {
    /// Always [`NCU_SCHEMA`].
    pub schema: &'static str,
    /// Input file as given.
    pub input: String,
    /// `details` or `raw`.
    pub page: String,
    /// Rows per launch or per kernel.
    pub group_by: GroupBy,
    /// The GPU and how it was chosen.
    pub gpu: GpuInfo,
    /// The roofs, each with origin and source.
    pub roofs: Roofs,
    /// Which of them were used.
    pub roofs_used: RoofsUsed,
    /// Launches in the file.
    pub launches_total: u64,
    /// Launches with a duration and DRAM bytes (the rest are diagnosed).
    pub launches_analysed: u64,
    /// Sum of analysed durations, ns.
    pub total_duration_ns: f64,
    /// Sum of positive time lost over rows, ns.
    pub total_time_lost_ns: f64,
    /// Rows, biggest time lost first (ties: longer, then name, then ID).
    pub kernels: Vec<KernelRoofline>,
    /// Warnings, one per kind.
    pub diagnostics: Vec<Diagnostic>,
}

impl RooflineReport {
    /// The memory roofs used, slowest level first (for plots: one slope each).
    pub fn used_memory_roofs(&self) -> Vec<(MemoryLevel, &crate::roofs::MemoryRoof)> {
        self.roofs_used
            .memory
            .iter()
            .filter_map(|l| self.roofs.memory.get(l).map(|r| (*l, r)))
            .collect()
    }

    /// The path that dominates a row's compute time (largest W_p / F_p; the
    /// largest W_p when no path has a roof); `None` without FLOPs.
    pub fn dominant_path(&self, k: &KernelRoofline) -> Option<ComputePath> {
        let time = |(p, w): (&ComputePath, &f64)| match self.roofs.compute.get(p) {
            Some(r) => (1, w / r.flop_per_s),
            None => (0, *w),
        };
        k.flop_by_path
            .iter()
            .max_by(|a, b| {
                let (ra, ta) = time(*a);
                let (rb, tb) = time(*b);
                ra.cmp(&rb).then(ta.total_cmp(&tb))
            })
            .map(|(p, _)| *p)
    }

    /// The compute roofs used, in display order (for plots: one flat roof each).
    pub fn used_compute_roofs(&self) -> Vec<(ComputePath, &crate::roofs::ComputeRoof)> {
        self.roofs_used
            .compute
            .iter()
            .filter_map(|p| self.roofs.compute.get(p).map(|r| (*p, r)))
            .collect()
    }
}

#[derive(Default)]
struct Acc {
    id: u64,
    pid: Option<u64>,
    mixed_pid: bool,
    name: String,
    launches: u64,
    duration_ns: f64,
    dram: f64,
    l2: Option<f64>,
    l2_all: bool,
    l1: Option<f64>,
    l1_all: bool,
    flop: BTreeMap<ComputePath, f64>,
    counted: bool,
}

impl Acc {
    fn new(l: &LaunchMetrics) -> Acc {
        Acc {
            id: l.id,
            pid: Some(l.process_id),
            name: l.name.to_string(),
            l2_all: true,
            l1_all: true,
            ..Acc::default()
        }
    }

    fn add(&mut self, l: &LaunchMetrics, duration: f64, dram: f64) {
        if self.pid != Some(l.process_id) {
            self.mixed_pid = true;
        }
        self.id = self.id.min(l.id);
        self.launches += 1;
        self.duration_ns += duration;
        self.dram += dram;
        let sum = |acc: &mut Option<f64>, all: &mut bool, v: Option<f64>| match v {
            Some(v) => *acc = Some(acc.unwrap_or(0.0) + v),
            None => *all = false,
        };
        sum(&mut self.l2, &mut self.l2_all, l.l2_bytes);
        sum(&mut self.l1, &mut self.l1_all, l.l1_bytes);
        if l.flop.any_counted() {
            self.counted = true;
        }
        for (p, f) in l.flop.iter() {
            if f > 0.0 {
                *self.flop.entry(p).or_insert(0.0) += f;
            }
        }
    }
}

/// Collects diagnostics by kind: count, examples.
#[derive(Default)]
struct Diags {
    by_kind: BTreeMap<DiagnosticKind, (u64, Vec<String>, String)>,
}

impl Diags {
    fn note(
        &mut self,
        kind: DiagnosticKind,
        example: impl FnOnce() -> String,
        message: impl FnOnce() -> String,
    ) {
        let e = self
            .by_kind
            .entry(kind)
            .or_insert_with(|| (0, Vec::new(), message()));
        e.0 += 1;
        if e.1.len() < 3 {
            e.1.push(example());
        }
    }
}

fn example(l: &LaunchMetrics) -> String {
    format!(
        "{} (ID {}, line {})",
        crate::units::ellipsize(&l.name, 60),
        l.id,
        l.line
    )
}

/// Analyses every launch of `csv` against `roofs`: group the launches
/// (diagnosing those that cannot be analysed), compute each row, then
/// summarise (diagnostics, order, roofs used, totals).
pub fn analyze(csv: &NcuCsv, roofs: &Roofs, gpu: GpuInfo, group_by: GroupBy) -> RooflineReport {
    let mut d = Diags::default();
    let (groups, analysed) = group_launches(csv, group_by, &mut d);
    let dram_bw = roofs.dram().map(|r| r.bytes_per_s);
    let mut unroofed: BTreeSet<ComputePath> = BTreeSet::new();
    let mut kernels: Vec<KernelRoofline> = groups
        .into_iter()
        .map(|g| row(g, roofs, dram_bw, &mut unroofed))
        .collect();
    let labels = super::names::labels(kernels.iter().map(|k| k.name.as_str()));
    for (k, label) in kernels.iter_mut().zip(labels) {
        k.label = label;
    }
    let mut diagnostics = diagnose_rows(csv, roofs, &kernels, &unroofed, d);
    for note in &gpu.notes {
        diagnostics.push(Diagnostic {
            kind: DiagnosticKind::GpuMismatch,
            count: 1,
            message: note.clone(),
            examples: Vec::new(),
        });
    }
    kernels.sort_by(|a, b| {
        b.time_lost_ns
            .total_cmp(&a.time_lost_ns)
            .then(b.duration_ns.total_cmp(&a.duration_ns))
            .then_with(|| a.name.cmp(&b.name))
            .then(a.process_id.cmp(&b.process_id))
            .then(a.id.cmp(&b.id))
    });
    RooflineReport {
        schema: NCU_SCHEMA,
        input: csv.file.clone(),
        page: format!("{}, {} columns", csv.page.key(), csv.columns),
        group_by,
        gpu,
        roofs: roofs.clone(),
        roofs_used: roofs_used(roofs, &kernels),
        launches_total: csv.launches.len() as u64,
        launches_analysed: analysed,
        total_duration_ns: kernels.iter().fold(0.0, |a, k| a + k.duration_ns),
        total_time_lost_ns: kernels.iter().fold(0.0, |a, k| a + k.time_lost_ns.max(0.0)),
        kernels,
        diagnostics,
    }
}

/// Notes what is wrong with one launch's counters; returns its duration
/// and DRAM bytes when it can be analysed (otherwise it is skipped, and
/// diagnosed).
fn check_launch(l: &LaunchMetrics, d: &mut Diags) -> Option<(f64, f64)> {
    use DiagnosticKind::*;
    if l.nan_metrics > 0 {
        d.note(NanMetrics, || example(l), || {
            "launches with metrics read as `nan` (ncu could not read the counters; did the kernel fail?); those metrics are treated as missing".into()
        });
    }
    if l.dram_partial {
        d.note(PartialDram, || example(l), || {
            "launches with only one of DRAM read/write bytes: DRAM traffic is undercounted; collect both dram__bytes_read.sum and dram__bytes_write.sum".into()
        });
    }
    if l.tensor_inst.is_some_and(|t| t > 0.0)
        && !ComputePath::ALL
            .iter()
            .any(|p| p.is_tensor() && l.flop.get(*p).is_some())
    {
        d.note(TensorNotCounted, || example(l), || {
            "launches executed tensor-core instructions but no sm__ops_path_tensor_* counter was collected: their tensor FLOPs are not counted (FLOPs per instruction depend on the MMA shape); add e.g. --metrics sm__ops_path_tensor_src_fp16_dst_fp32.sum".into()
        });
    }
    let Some(duration) = l.duration_ns else {
        d.note(
            MissingDuration,
            || example(l),
            || {
                "launches without a duration were skipped; add --metrics gpu__time_duration.sum"
                    .into()
            },
        );
        return None;
    };
    if duration <= 0.0 {
        d.note(
            ZeroDuration,
            || example(l),
            || "launches with a zero duration were skipped".into(),
        );
        return None;
    }
    let Some(dram) = l.dram_bytes else {
        d.note(MissingDram, || example(l), || {
            "launches without DRAM bytes were skipped; add --metrics dram__bytes_read.sum,dram__bytes_write.sum".into()
        });
        return None;
    };
    Some((duration, dram))
}

/// Groups the analysable launches into rows (one per launch, or one per
/// kernel name in order of first appearance); returns the rows and the
/// number of launches in them.
fn group_launches(csv: &NcuCsv, group_by: GroupBy, d: &mut Diags) -> (Vec<Acc>, u64) {
    let mut groups: Vec<Acc> = Vec::new();
    let mut index: HashMap<&str, usize> = HashMap::new();
    let mut analysed = 0u64;
    for l in &csv.launches {
        let Some((duration, dram)) = check_launch(l, d) else {
            continue;
        };
        analysed += 1;
        let gi = match group_by {
            GroupBy::Launch => {
                groups.push(Acc::new(l));
                groups.len() - 1
            }
            GroupBy::Kernel => *index.entry(&*l.name).or_insert_with(|| {
                groups.push(Acc::new(l));
                groups.len() - 1
            }),
        };
        groups[gi].add(l, duration, dram);
    }
    (groups, analysed)
}

/// The diagnostics of the report, one per kind: the launch-level ones in
/// `d`, then those about rows, paths without a roof and several devices;
/// ncu's own log lines first.
fn diagnose_rows(
    csv: &NcuCsv,
    roofs: &Roofs,
    kernels: &[KernelRoofline],
    unroofed: &BTreeSet<ComputePath>,
    mut d: Diags,
) -> Vec<Diagnostic> {
    use DiagnosticKind::*;
    for k in kernels {
        if k.bandwidth_only {
            d.note(BandwidthOnly, || format!("{} (ID {})", crate::units::ellipsize(&k.name, 60), k.id), || {
                "rows without FLOP counters are analysed against the DRAM roof alone; add the SASS and tensor counters from `rooftrace ncu --print-metrics`".into()
            });
        }
        if k.above_roof {
            d.note(AboveRoof, || format!("{} (ID {}): {:.0} % of roof", crate::units::ellipsize(&k.name, 60), k.id, k.fraction_of_roof * 100.0), || {
                "rows above the roof by more than 5 %: likely an L2-resident working set (DRAM bytes below the algorithmic minimum) or roofs below this GPU's real peaks (check --gpu / --roofs)".into()
            });
        }
    }
    for p in unroofed {
        d.note(NoRoofForPath, || p.label().to_string(), || {
            format!("FLOPs on paths the roofs ({}) have no value for were left out of the compute time; give a roofs file with them (--roofs FILE)", roofs.gpu)
        });
    }
    if csv.device_names.len() > 1 {
        d.note(
            SeveralDevices,
            || csv.device_names.join(", "),
            || {
                "the file holds launches from several devices; one GPU's roofs were applied to all"
                    .into()
            },
        );
    }
    let mut diagnostics: Vec<Diagnostic> = d
        .by_kind
        .into_iter()
        .map(|(kind, (count, examples, message))| Diagnostic {
            kind,
            count,
            message,
            examples,
        })
        .collect();
    if !csv.log.is_empty() {
        diagnostics.insert(
            0,
            Diagnostic {
                kind: NcuLog,
                count: csv.log.len() as u64,
                message: "ncu printed warnings or errors into the file".into(),
                examples: csv.log.iter().take(3).cloned().collect(),
            },
        );
    }
    diagnostics
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

/// The roofline math of one row.
fn row(
    g: Acc,
    roofs: &Roofs,
    dram_bw: Option<f64>,
    unroofed: &mut BTreeSet<ComputePath>,
) -> KernelRoofline {
    let t = g.duration_ns;
    let q = g.dram;
    // fold from +0.0: `Sum for f64` starts at -0.0, which prints as "-0".
    let w: f64 = g.flop.values().fold(0.0, |a, b| a + b);
    // sum_p W_p / F_p: a kernel using several paths is bounded by the sum of
    // their compute times (the units share issue slots and registers).
    let mut compute_s = 0.0;
    for (p, f) in &g.flop {
        match roofs.compute.get(p) {
            Some(r) => compute_s += f / r.flop_per_s,
            None => {
                unroofed.insert(*p);
            }
        }
    }
    let memory_s = dram_bw.map_or(0.0, |b| q / b);
    let compute_time_ns = compute_s * 1e9;
    let memory_time_ns = memory_s * 1e9;
    let bound_time_ns = compute_time_ns.max(memory_time_ns);
    let bound = if compute_time_ns > memory_time_ns {
        Bound::Compute
    } else {
        Bound::Memory
    };
    let counted = g.counted;
    let per = |x: f64, y: f64| (y > 0.0).then(|| x / y);
    let fraction_of_roof = bound_time_ns / t;
    KernelRoofline {
        id: g.id,
        process_id: if g.mixed_pid { None } else { g.pid },
        label: String::new(),
        name: g.name,
        launches: g.launches,
        duration_ns: t,
        dram_bytes: q,
        l2_bytes: g.l2.filter(|_| g.l2_all),
        l1_bytes: g.l1.filter(|_| g.l1_all),
        flop: w,
        intensity: if counted { per(w, q) } else { None },
        intensity_l2: if counted && g.l2_all {
            g.l2.and_then(|b| per(w, b))
        } else {
            None
        },
        intensity_l1: if counted && g.l1_all {
            g.l1.and_then(|b| per(w, b))
        } else {
            None
        },
        flop_by_path: g.flop,
        achieved_flop_per_s: counted.then(|| w / (t * 1e-9)),
        achieved_dram_bytes_per_s: q / (t * 1e-9),
        compute_time_ns,
        memory_time_ns,
        bound_time_ns,
        bound,
        roof_flop_per_s: if counted {
            Some(if bound_time_ns > 0.0 {
                w / (bound_time_ns * 1e-9)
            } else {
                0.0
            })
        } else {
            None
        },
        fraction_of_roof,
        time_lost_ns: t - bound_time_ns,
        above_roof: fraction_of_roof > 1.0 + ABOVE_ROOF_TOLERANCE,
        bandwidth_only: !counted,
    }
}
