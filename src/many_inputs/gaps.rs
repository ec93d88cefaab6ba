//! Cross-input summary of gap reports (schema `rooftrace.multi-gaps/1`):
//! per input (one rank each) busy/idle and idle classes, per NVTX range name
//! the slowest and fastest rank (the straggler and the spread), per kernel
//! name the time across inputs. Built from the unchanged per-input reports.

use super::kernels::KernelTotal;
use super::{median_sorted, InputFailure, InputTag};
use crate::gaps::{
    no_match_sentence, range_words, sort_counts, ClassTotals, GapClass, GapReport, RangeWords,
};
use crate::timeline::Tool;
use serde::Serialize;
use std::collections::BTreeMap;

/// Version tag of the JSON document.
pub const SCHEMA: &str = "rooftrace.multi-gaps/1";

/// One analysed input: its tag, its report as a single run makes it, and
/// its kernel totals.
#[derive(Debug, Clone, Serialize)]
pub struct GapsInput {
    /// Input, host, rank.
    #[serde(flatten)]
    pub tag: InputTag,
    /// The single-input report (`rooftrace.gaps/1`), unchanged.
    pub report: GapReport,
    /// Kernel totals (summed into [`MultiGapReport::kernels`]; in Parquet
    /// `kernels/`).
    #[serde(skip)]
    pub kernels: Vec<KernelTotal>,
    /// The input's range texts with their instance counts, most first,
    /// when `--nvtx` matched none of them (else empty): the names
    /// [`MultiGapReport::ranges_note`] offers instead.
    #[serde(skip)]
    pub range_counts: Vec<(String, u64)>,
    /// Ranks in its job as the input records them
    /// (`distributedInfo.world_size`); `None`: not recorded. One of the
    /// facts that tell jobs apart ([`super::jobs`]).
    pub world_size: Option<u32>,
}

/// Busy/idle of one input, summed over its (process, device) rows.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RankRow {
    /// Input, host, rank.
    #[serde(flatten)]
    pub tag: InputTag,
    /// (process, device) rows summed.
    pub devices: u64,
    /// Sum of the device spans, ns.
    pub span_ns: i64,
    /// Sum of device busy time (all op kinds), ns.
    pub busy_ns: i64,
    /// Sum of kernel-only busy time, ns.
    pub kernel_busy_ns: i64,
    /// Sum of device idle time, ns (= sum of the class totals).
    pub idle_ns: i64,
    /// `idle_ns / span_ns`; `None` when the span is 0.
    pub idle_fraction: Option<f64>,
    /// Idle time per class.
    pub classes: ClassTotals,
    /// The class with the most idle time.
    pub dominant: Option<GapClass>,
}

/// One input's instances of an NVTX range name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RangeAt {
    /// The input.
    pub input: String,
    /// Its rank, when known.
    pub rank: Option<u32>,
    /// Instances of the range in the input.
    pub instances: u64,
    /// Median wall time of those instances, ns.
    pub median_wall_ns: i64,
}

/// One NVTX range name across inputs: who is slowest (the straggler) and by
/// how much.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RangeAcross {
    /// Range text.
    pub name: String,
    /// Inputs with at least one instance.
    pub inputs: u64,
    /// Instances over all inputs.
    pub instances: u64,
    /// Median over inputs of the per-input median wall time, ns.
    pub median_wall_ns: i64,
    /// The input with the largest median wall time.
    pub slowest: RangeAt,
    /// The input with the smallest median wall time.
    pub fastest: RangeAt,
    /// `slowest.median_wall_ns - fastest.median_wall_ns`, ns.
    pub spread_ns: i64,
    /// `spread_ns / fastest.median_wall_ns`; `None` when that is 0.
    pub spread_fraction: Option<f64>,
}

/// One kernel name across inputs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct KernelAcross {
    /// Kernel name.
    pub name: String,
    /// Inputs that ran it.
    pub inputs: u64,
    /// Launches over all inputs.
    pub launches: u64,
    /// Launch durations summed over all inputs, ns.
    pub total_ns: i64,
    /// `total_ns` over the sum of every kernel's `total_ns`.
    pub fraction_of_kernel_time: Option<f64>,
    /// The input that spent the most time in it.
    pub max_input: String,
    /// Its rank.
    pub max_rank: Option<u32>,
    /// Its time in the kernel, ns.
    pub max_input_ns: i64,
    /// The least time one input spent in it, ns.
    pub min_input_ns: i64,
}

/// The cross-input gap report.
#[derive(Debug, Clone, Serialize)]
pub struct MultiGapReport {
    /// [`SCHEMA`].
    pub schema: &'static str,
    /// Per input (sorted by rank, then input), busy/idle.
    pub ranks: Vec<RankRow>,
    /// Per NVTX range name (with `--nvtx`), largest spread first. In a
    /// PyTorch trace the ranges are its ops and `record_function`
    /// annotations; the key is the same.
    pub ranges: Vec<RangeAcross>,
    /// Why `ranges` is empty although `--nvtx` was given: the pattern
    /// matched no range in any input; the sentence names the closest and
    /// the most frequent range texts of the inputs (instances summed).
    /// `null` without `--nvtx` or when a range matched.
    pub ranges_note: Option<String>,
    /// Per kernel name, most time first.
    pub kernels: Vec<KernelAcross>,
    /// Inputs that failed, in input order.
    pub failures: Vec<InputFailure>,
    /// Every analysed input with its single-input report, in input order.
    pub inputs: Vec<GapsInput>,
    /// Files the directories given held that are no input by their ending
    /// or content, as paths (empty when none, or when the inputs were
    /// named one by one).
    pub skipped: Vec<String>,
}

/// Sums per-class totals.
pub fn add_classes(into: &mut ClassTotals, c: &ClassTotals) {
    into.merge(c);
}

/// Builds the summary. `inputs` in input order.
pub fn summarize_gaps(inputs: Vec<GapsInput>, failures: Vec<InputFailure>) -> MultiGapReport {
    let mut ranks: Vec<RankRow> = inputs.iter().map(rank_row).collect();
    ranks.sort_by(|a, b| {
        (a.tag.rank.is_none(), a.tag.rank, &a.tag.input).cmp(&(
            b.tag.rank.is_none(),
            b.tag.rank,
            &b.tag.input,
        ))
    });
    let ranges = ranges_across(&inputs);
    MultiGapReport {
        schema: SCHEMA,
        ranks,
        ranges_note: ranges.is_empty().then(|| no_match_note(&inputs)).flatten(),
        ranges,
        kernels: kernels_across(&inputs),
        failures,
        inputs,
        skipped: Vec::new(),
    }
}

fn rank_row(i: &GapsInput) -> RankRow {
    let mut classes = ClassTotals::default();
    let (mut span, mut busy, mut kbusy, mut idle) = (0i64, 0i64, 0i64, 0i64);
    for d in &i.report.devices {
        span = span.saturating_add(d.span_ns);
        busy = busy.saturating_add(d.busy_ns);
        kbusy = kbusy.saturating_add(d.kernel_busy_ns);
        idle = idle.saturating_add(d.idle_ns);
        add_classes(&mut classes, &d.classes);
    }
    RankRow {
        tag: i.tag.clone(),
        devices: i.report.devices.len() as u64,
        span_ns: span,
        busy_ns: busy,
        kernel_busy_ns: kbusy,
        idle_ns: idle,
        idle_fraction: (span > 0).then(|| idle as f64 / span as f64),
        dominant: classes.dominant(),
        classes,
    }
}

impl MultiGapReport {
    /// What the inputs call their ranges: PyTorch's when every input is a
    /// PyTorch trace, else NVTX ([`crate::gaps::range_words`]).
    pub fn range_words(&self) -> RangeWords {
        range_words(words_tool(&self.inputs))
    }
}

/// The PyTorch profiler when every input is a PyTorch trace, else nsys:
/// whose words name the ranges.
fn words_tool(inputs: &[GapsInput]) -> Tool {
    let all_traces = !inputs.is_empty()
        && inputs
            .iter()
            .all(|i| i.report.input.source.tool() == Tool::PyTorchProfiler);
    if all_traces {
        Tool::PyTorchProfiler
    } else {
        Tool::Nsys
    }
}

/// The sentence for a `--nvtx` pattern that matched no range in any input
/// (`None` without `--nvtx`): the range texts of all inputs, instances
/// summed, closest to the pattern first ([`no_match_sentence`]).
fn no_match_note(inputs: &[GapsInput]) -> Option<String> {
    let pattern = inputs
        .iter()
        .find_map(|i| i.report.ranges.as_ref())?
        .pattern
        .clone();
    let mut summed: BTreeMap<&str, u64> = BTreeMap::new();
    for i in inputs {
        for (t, c) in &i.range_counts {
            *summed.entry(t).or_insert(0) += c;
        }
    }
    let mut counts: Vec<(String, u64)> = summed
        .into_iter()
        .map(|(t, c)| (t.to_string(), c))
        .collect();
    sort_counts(&mut counts);
    let scope = if inputs.len() > 1 {
        format!(" in any of the {} inputs", inputs.len())
    } else {
        String::new()
    };
    Some(no_match_sentence(
        &pattern,
        &counts,
        words_tool(inputs),
        &scope,
    ))
}

fn ranges_across(inputs: &[GapsInput]) -> Vec<RangeAcross> {
    let mut by_name: BTreeMap<&str, Vec<RangeAt>> = BTreeMap::new();
    for i in inputs {
        let Some(r) = &i.report.ranges else { continue };
        let mut walls: BTreeMap<&str, Vec<i64>> = BTreeMap::new();
        for inst in &r.instances {
            walls
                .entry(i.report.name(inst.text_id))
                .or_default()
                .push(inst.wall_ns);
        }
        for (name, mut w) in walls {
            w.sort_unstable();
            by_name.entry(name).or_default().push(RangeAt {
                input: i.tag.input.clone(),
                rank: i.tag.rank,
                instances: w.len() as u64,
                median_wall_ns: median_sorted(&w),
            });
        }
    }
    let mut out: Vec<RangeAcross> = by_name
        .into_iter()
        .filter_map(|(name, ats)| {
            // Ties go to the first input in input order.
            let slowest = ats.iter().rev().max_by_key(|a| a.median_wall_ns)?.clone();
            let fastest = ats.iter().min_by_key(|a| a.median_wall_ns)?.clone();
            let mut meds: Vec<i64> = ats.iter().map(|a| a.median_wall_ns).collect();
            meds.sort_unstable();
            let spread = slowest.median_wall_ns - fastest.median_wall_ns;
            Some(RangeAcross {
                name: name.to_string(),
                inputs: ats.len() as u64,
                instances: ats.iter().map(|a| a.instances).sum(),
                median_wall_ns: median_sorted(&meds),
                spread_fraction: (fastest.median_wall_ns > 0)
                    .then(|| spread as f64 / fastest.median_wall_ns as f64),
                spread_ns: spread,
                slowest,
                fastest,
            })
        })
        .collect();
    out.sort_by(|a, b| {
        (b.spread_ns, b.inputs)
            .cmp(&(a.spread_ns, a.inputs))
            .then_with(|| a.name.cmp(&b.name))
    });
    out
}

fn kernels_across(inputs: &[GapsInput]) -> Vec<KernelAcross> {
    // name -> per input (index) time and launches.
    let mut by: BTreeMap<&str, BTreeMap<usize, (u64, i64)>> = BTreeMap::new();
    for (ix, i) in inputs.iter().enumerate() {
        for k in &i.kernels {
            let e = by
                .entry(k.name.as_str())
                .or_default()
                .entry(ix)
                .or_default();
            e.0 += k.launches;
            e.1 = e.1.saturating_add(k.total_ns);
        }
    }
    let all_ns: i64 = by.values().flat_map(|m| m.values()).map(|v| v.1).sum();
    let mut out: Vec<KernelAcross> = by
        .into_iter()
        .filter_map(|(name, per)| {
            let (max_ix, max) = per
                .iter()
                .max_by_key(|(ix, v)| (v.1, std::cmp::Reverse(**ix)))?;
            let total: i64 = per.values().map(|v| v.1).sum();
            Some(KernelAcross {
                name: name.to_string(),
                inputs: per.len() as u64,
                launches: per.values().map(|v| v.0).sum(),
                total_ns: total,
                fraction_of_kernel_time: (all_ns > 0).then(|| total as f64 / all_ns as f64),
                max_input: inputs[*max_ix].tag.input.clone(),
                max_rank: inputs[*max_ix].tag.rank,
                max_input_ns: max.1,
                min_input_ns: per.values().map(|v| v.1).min().unwrap_or(0),
            })
        })
        .collect();
    out.sort_by(|a, b| {
        b.total_ns
            .cmp(&a.total_ns)
            .then_with(|| a.name.cmp(&b.name))
    });
    out
}
