//! Diagnostics of the roofline analysis, as data: what is wrong with a
//! launch's counters (and whether it can be analysed at all), and what is
//! worth saying about the rows (unknown sides, derived figures, points
//! above the roof, paths without a roof). One [`Diagnostic`] per kind, with
//! a count, the fix and up to three examples.

use super::model::{Diagnostic, DiagnosticKind, KernelRoofline};
use crate::ncu::{FlopGroups, LaunchMetrics, NcuCsv, Source};
use crate::roofs::{ComputePath, Roofs};
use crate::units::ellipsize;
use std::collections::{BTreeMap, BTreeSet};

/// Collects diagnostics by kind: count, examples.
#[derive(Default)]
pub(super) struct Diags {
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
    format!("{} (ID {}, line {})", ellipsize(&l.name, 60), l.id, l.line)
}

fn row_example(k: &KernelRoofline) -> String {
    format!("{} (ID {})", ellipsize(&k.name, 60), k.id)
}

/// The fix for a file exported from a report without the counters a
/// figure needs (a rate-only roofline-section export).
pub const REIMPORT: &str = "re-import the report with every counter: `ncu --import R.ncu-rep --csv --page raw --print-units base > R.csv` (`--metrics` cannot add counters to an existing report)";

/// The DRAM metrics to collect, for messages.
pub const DRAM_METRICS: &str = "dram__bytes_read.sum,dram__bytes_write.sum";

/// Notes what is wrong with one launch's counters; returns its duration and
/// DRAM bytes with their source (`None`: not known in any form; from a
/// percentage of `percent_roof` byte/s when that is all the file has) when
/// it can be analysed: a positive duration and DRAM bytes or FLOPs.
/// Otherwise it is skipped, and diagnosed.
pub(super) fn launch(
    l: &LaunchMetrics,
    percent_roof: Option<f64>,
    d: &mut Diags,
) -> Option<(f64, Option<(f64, Source)>)> {
    use DiagnosticKind::*;
    if l.nan_metrics > 0 {
        d.note(NanMetrics, || example(l), || {
            "launches with metrics read as `nan` (ncu could not read the counters; did the kernel fail?); those metrics are treated as missing".into()
        });
    }
    if l.dram_partial {
        d.note(PartialDram, || example(l), || {
            format!("launches with only one of DRAM read/write bytes: DRAM traffic is undercounted; collect both with `--metrics {DRAM_METRICS}`")
        });
    }
    if l.tensor_inst.is_some_and(|t| t > 0.0)
        && !ComputePath::ALL
            .iter()
            .any(|p| p.is_tensor() && l.flop.get(*p).is_some())
    {
        d.note(TensorNotCounted, || example(l), || {
            "launches executed tensor-core instructions but no sm__ops_path_tensor_* counter was collected: their tensor FLOPs are unknown (FLOPs per instruction depend on the MMA shape); add e.g. --metrics sm__ops_path_tensor_src_fp16_dst_fp32.sum".into()
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
    let dram = match (l.dram_bytes, l.dram_derivation, l.dram_percent_of_peak) {
        (Some(b), Some(s), _) => Some((b, s)),
        (Some(b), None, _) => Some((b, Source::Counter)),
        (None, _, Some(pct)) => {
            percent_roof.map(|bw| (pct / 100.0 * bw * duration * 1e-9, Source::PercentOfPeak))
        }
        (None, _, None) => None,
    };
    if dram.is_none() && !l.flop.any_counted() {
        d.note(MissingWork, || example(l), || {
            format!("launches with neither DRAM bytes nor FLOPs in any form were skipped; add --metrics {DRAM_METRICS} and the FLOP counters of `rooftrace ncu --print-metrics`")
        });
        return None;
    }
    Some((duration, dram))
}

/// The diagnostics of the report, one per kind: the launch-level ones in
/// `d`, then those about rows, paths without a roof and several devices;
/// ncu's own log lines first.
pub(super) fn rows(
    csv: &NcuCsv,
    roofs: &Roofs,
    kernels: &[KernelRoofline],
    unroofed: &BTreeSet<ComputePath>,
    percent_roof: Option<(f64, &'static str)>,
    cc: Option<crate::units::ComputeCapability>,
    mut d: Diags,
) -> Vec<Diagnostic> {
    use DiagnosticKind::*;
    let mut missing = FlopGroups::default();
    for k in kernels {
        for g in &k.flop_unknown {
            missing.insert(*g);
        }
    }
    // A rate-only file is an `--import` of ncu's roofline section: its
    // report holds counters that `--metrics` cannot add after the fact, but
    // a raw-page re-import prints them.
    let rate_only = kernels.iter().any(|k| k.rate_only);
    let fix = |metrics: &str| {
        if rate_only {
            REIMPORT.to_string()
        } else {
            format!("add --metrics {metrics}")
        }
    };
    // Only counters that exist on the file's architecture, and which ones
    // were left out on what evidence.
    let (flop_metrics, left_out) = missing.metrics_on(cc);
    let mut add = fix(&flop_metrics);
    if let (Some(cc), false, false) = (cc, left_out.is_empty(), rate_only) {
        let paths: Vec<&str> = left_out
            .iter()
            .map(|p| p.label().trim_end_matches(" tensor"))
            .collect();
        add.push_str(&format!(
            " (no {} tensor counters: compute capability {cc} has no such tensor path)",
            paths.join("/")
        ));
    }
    let add_dram = fix(DRAM_METRICS);
    for k in kernels {
        if k.rate_only {
            d.note(RateOnly, || row_example(k), || {
                format!("rows from rates alone (the file has no duration: ncu's roofline section exported by itself): intensity = FLOP/s / B/s, FLOP/s, B/s, fraction of roof and bound hold; time, bytes, FLOPs and time lost are unknown; for them, {REIMPORT}")
            });
        }

        if k.bandwidth_only {
            d.note(BandwidthOnly, || row_example(k), || {
                format!("rows without FLOP counters: compute is unknown, so only the memory side is known (a lower bound on the time, no bound claimed); {add}")
            });
        } else if k.flop_incomplete() {
            d.note(FlopIncomplete, || {
                let g: Vec<&str> = k.flop_unknown.iter().map(|g| g.key()).collect();
                format!("{}: {} unknown", row_example(k), g.join(", "))
            }, || {
                format!("rows whose FLOP counters cover only some paths: FLOPs, intensity and fraction of roof are lower bounds (marked ≥), the bound is claimed only when the counted FLOPs already exceed the memory time; {add}")
            });
        }
        if k.dram_bytes.is_none() {
            d.note(DramUnknown, || row_example(k), || {
                format!("rows without DRAM bytes in any form: only the compute side is known (a lower bound on the time, no bound claimed); {add_dram}")
            });
        }
        if k.dram_source == Some(Source::PercentOfPeak) {
            let reference = percent_roof.map_or("the DRAM roof", |p| p.1);
            d.note(DramFromPercent, || row_example(k), || {
                format!("DRAM bytes derived from ncu's DRAM throughput in % of peak x {reference} x duration: approximate (marked %); collect the bytes with --metrics {DRAM_METRICS}")
            });
        }
        let derived: Vec<Source> = [k.dram_source, k.l2_source, k.flop_source]
            .into_iter()
            .flatten()
            .filter(|s| !matches!(s, Source::Counter | Source::PercentOfPeak))
            .collect();
        if !derived.is_empty() {
            d.note(Derived, || row_example(k), || {
                "figures derived from ncu's other forms of the same quantity (marked s: sectors x 32 B, c: per-cycle rate x elapsed cycles, r: per-second rate x duration); exact up to ncu's printed precision".into()
            });
        }
        if k.above_roof {
            d.note(AboveRoof, || format!("{}: {:.0} % of roof", row_example(k), k.fraction_of_roof * 100.0), || {
                "rows above the roof by more than 5 %: likely an L2-resident working set (DRAM bytes below the algorithmic minimum) or roofs below this GPU's real peaks (check --gpu / --roofs)".into()
            });
        }
    }
    // A report without any roof says so once (`gpu_undecided`).
    let roofless = roofs.memory.is_empty() && roofs.compute.is_empty();
    for p in unroofed.iter().filter(|_| !roofless) {
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
