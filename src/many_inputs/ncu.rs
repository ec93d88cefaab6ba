//! Cross-input summary of roofline reports (schema `rooftrace.multi-ncu/1`):
//! per kernel name, launches, time and fraction of the roof across inputs
//! (time-weighted: sum of T* over sum of T, as `--group-by kernel` does within
//! one input), and the spread of that fraction between inputs.

use super::{InputFailure, InputTag};
use crate::roofline::RooflineReport;
use serde::Serialize;
use std::collections::BTreeMap;

/// Version tag of the JSON document.
pub const SCHEMA: &str = "rooftrace.multi-ncu/1";

/// One analysed CSV: its tag and its report as a single run makes it.
#[derive(Debug, Clone, Serialize)]
pub struct NcuInput {
    /// Input, host, rank.
    #[serde(flatten)]
    pub tag: InputTag,
    /// The single-input report (`rooftrace.roofline/…`), unchanged.
    pub report: RooflineReport,
}

/// One kernel name across inputs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NcuKernelAcross {
    /// Kernel name.
    pub name: String,
    /// Inputs with the kernel.
    pub inputs: u64,
    /// Launches over all inputs.
    pub launches: u64,
    /// Measured time T summed, ns; `None` when some row has rates but no
    /// time (ncu's roofline section exported alone).
    pub duration_ns: Option<f64>,
    /// Roofline time T* summed, ns; `None` unless every row has a time and
    /// its input has roofs (no GPU decided: no roof, so no T*, never 0).
    pub bound_time_ns: Option<f64>,
    /// `bound_time_ns / duration_ns` (T*/T over all inputs); `None` when
    /// either is unknown or `duration_ns` is 0.
    pub fraction_of_roof: Option<f64>,
    /// `duration_ns - bound_time_ns`, ns; `None` when either is unknown.
    pub time_lost_ns: Option<f64>,
    /// DRAM bytes summed; `None` when unknown for some row.
    pub dram_bytes: Option<f64>,
    /// True when some row's T* is a lower bound (a side unknown): then
    /// `bound_time_ns` and the fractions are lower bounds, `time_lost_ns` an
    /// upper bound.
    pub lower_bound: bool,
    /// The lowest per-input fraction of the roof (T*/T of that input),
    /// over the inputs where it is known.
    pub min_fraction_of_roof: Option<f64>,
    /// The input with that lowest fraction.
    pub min_input: String,
    /// The highest per-input fraction of the roof.
    pub max_fraction_of_roof: Option<f64>,
}

/// The cross-input roofline report.
#[derive(Debug, Clone, Serialize)]
pub struct MultiNcuReport {
    /// [`SCHEMA`].
    pub schema: &'static str,
    /// Per kernel name, most time lost first (those whose time lost is
    /// unknown after, longest first).
    pub kernels: Vec<NcuKernelAcross>,
    /// Inputs that failed, in input order.
    pub failures: Vec<InputFailure>,
    /// Every analysed input with its single-input report, in input order.
    pub inputs: Vec<NcuInput>,
    /// Files the directories given held that are no input by their ending
    /// or content, as paths (empty when none, or when the inputs were
    /// named one by one).
    pub skipped: Vec<String>,
}

#[derive(Default)]
struct Acc {
    launches: u64,
    t: f64,
    tstar: f64,
    dram: Option<f64>,
    lower_bound: bool,
    /// Some row has rates but no time: `t` and `tstar` are placeholders.
    untimed: bool,
    /// The input has no roofs: `tstar` is no roofline time.
    roofless: bool,
}

impl Acc {
    /// T, when every row has one.
    fn time(&self) -> Option<f64> {
        (!self.untimed).then_some(self.t)
    }

    /// T*, when every row has a time and the input has roofs.
    fn bound_time(&self) -> Option<f64> {
        (!self.untimed && !self.roofless).then_some(self.tstar)
    }

    /// T*/T of this input, when both are known and T > 0.
    fn fraction(&self) -> Option<f64> {
        ratio(self.bound_time(), self.time())
    }
}

/// `num / den` when both are known and `den` > 0.
fn ratio(num: Option<f64>, den: Option<f64>) -> Option<f64> {
    num.zip(den).filter(|(_, d)| *d > 0.0).map(|(n, d)| n / d)
}

/// A sum over inputs that is known only when every term is.
fn known_sum<'a>(
    per: impl Iterator<Item = &'a Acc>,
    f: impl Fn(&Acc) -> Option<f64>,
) -> Option<f64> {
    per.map(f).sum()
}

/// Builds the summary. `inputs` in input order.
pub fn summarize_ncu(inputs: Vec<NcuInput>, failures: Vec<InputFailure>) -> MultiNcuReport {
    let mut by: BTreeMap<&str, BTreeMap<usize, Acc>> = BTreeMap::new();
    for (ix, i) in inputs.iter().enumerate() {
        let roofless = i.report.roofless();
        for k in &i.report.kernels {
            let a = by.entry(&*k.name).or_default().entry(ix).or_default();
            a.launches += k.launches;
            a.t += k.duration_ns;
            a.tstar += k.bound_time_ns;
            a.dram = a.dram.zip(k.dram_bytes).map(|(x, y)| x + y);
            a.lower_bound |= k.lower_bound;
            a.untimed |= k.rate_only;
            a.roofless |= roofless;
        }
    }
    let mut kernels: Vec<NcuKernelAcross> = by
        .into_iter()
        .map(|(name, per)| {
            let t = known_sum(per.values(), Acc::time);
            let tstar = known_sum(per.values(), Acc::bound_time);
            let fracs: Vec<(usize, f64)> = per
                .iter()
                .filter_map(|(ix, a)| a.fraction().map(|f| (*ix, f)))
                .collect();
            let min = fracs.iter().min_by(|a, b| a.1.total_cmp(&b.1));
            let max = fracs.iter().map(|f| f.1).max_by(f64::total_cmp);
            NcuKernelAcross {
                name: name.to_string(),
                inputs: per.len() as u64,
                launches: per.values().map(|a| a.launches).sum(),
                duration_ns: t,
                bound_time_ns: tstar,
                fraction_of_roof: ratio(tstar, t),
                time_lost_ns: t.zip(tstar).map(|(t, tstar)| t - tstar),
                dram_bytes: if per.values().any(|a| a.untimed) {
                    None
                } else {
                    per.values().map(|a| a.dram).sum()
                },
                lower_bound: per.values().any(|a| a.lower_bound),
                min_fraction_of_roof: min.map(|m| m.1),
                min_input: min
                    .map(|m| inputs[m.0].tag.input.clone())
                    .unwrap_or_default(),
                max_fraction_of_roof: max,
            }
        })
        .collect();
    // Known time lost first, most first; then the unknown, longest first.
    let rank = |k: &NcuKernelAcross| {
        (
            k.time_lost_ns.is_some(),
            k.time_lost_ns.unwrap_or(f64::NEG_INFINITY),
            k.duration_ns.unwrap_or(f64::NEG_INFINITY),
        )
    };
    kernels.sort_by(|a, b| {
        let (x, y) = (rank(a), rank(b));
        y.0.cmp(&x.0)
            .then(y.1.total_cmp(&x.1))
            .then(y.2.total_cmp(&x.2))
            .then_with(|| a.name.cmp(&b.name))
    });
    MultiNcuReport {
        schema: SCHEMA,
        kernels,
        failures,
        inputs,
        skipped: Vec::new(),
    }
}
