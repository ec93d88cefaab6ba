//! Roofs at the clock the kernels ran (docs/ncu.md, "Clocks").
//!
//! A compute peak is FLOP per cycle times the SM clock, a DRAM peak bytes
//! per cycle times the memory clock. Datasheet peaks assume the boost
//! clock; Nsight Compute locks the SM clock to base by default
//! (`--clock-control base`), so a launch profiled that way is compared
//! against roofs it could not reach. With `--roof-clock run` (the default)
//! the roofs are scaled once to the clocks the launches ran at: compute
//! roofs by `f_run / f_roof` (SM clock), the DRAM roof by the memory-clock
//! ratio where it differs by more than [`DRAM_CLOCK_TOLERANCE`]. The run
//! clock is the time-weighted mean over the analysed launches. Roofs whose
//! clock is unknown are not scaled, and the report says so.

use super::model::{ClockInfo, ClockRange, Diagnostic, DiagnosticKind, RoofClock};
use crate::ncu::{LaunchMetrics, NcuCsv};
use crate::roofs::Roofs;

/// A DRAM clock within 2 % of the roof's is the same clock reported with
/// other rounding (`cudaDevAttrMemoryClockRate` against ncu's measured
/// `dram__cycles_elapsed.avg.per_second`): not scaled.
pub const DRAM_CLOCK_TOLERANCE: f64 = 0.02;

/// Clocks within 0.1 % are the same clock (ncu's own peaks at the clock of
/// the run): nothing to scale.
pub const SAME_CLOCK: f64 = 1e-3;

/// An SM clock below 90 % of the roofs' is a lock (ncu's base clock), not
/// boost jitter: diagnosed once.
pub const BELOW_ROOF_CLOCK: f64 = 0.9;

/// Launches' clocks: the time-weighted mean (equal weights where a launch
/// has no duration) and the range.
fn run_clock(
    launches: &[&LaunchMetrics],
    clock: impl Fn(&LaunchMetrics) -> Option<f64>,
) -> Option<(f64, ClockRange)> {
    let mut sum = 0.0;
    let mut weight = 0.0;
    let mut range: Option<ClockRange> = None;
    for l in launches {
        let Some(c) = clock(l) else { continue };
        let w = l.duration_ns.filter(|d| *d > 0.0).unwrap_or(1.0);
        sum += c * w;
        weight += w;
        let r = range.get_or_insert(ClockRange {
            min_hz: c,
            max_hz: c,
        });
        r.min_hz = r.min_hz.min(c);
        r.max_hz = r.max_hz.max(c);
    }
    Some((sum / weight, range?))
}

fn mhz(hz: f64) -> String {
    format!("{:.0} MHz", hz / 1e6)
}

/// Scales `roofs` to the clocks `launches` ran at (under `RoofClock::Run`)
/// and says what was done. Returns the roofs to analyse against.
pub(super) fn at_run_clock(
    roofs: &Roofs,
    launches: &[&LaunchMetrics],
    rule: RoofClock,
) -> (Roofs, ClockInfo) {
    let run_sm = run_clock(launches, |l| l.sm_clock_hz);
    let run_dram = run_clock(launches, |l| l.dram_clock_hz);
    let mut info = ClockInfo {
        roof_clock: rule,
        roof_sm_clock_hz: roofs.clocks.sm_clock_hz,
        roof_sm_clock_source: roofs.clocks.sm_clock_source.clone(),
        roof_memory_clock_hz: roofs.clocks.memory_clock_hz,
        roof_memory_clock_source: roofs.clocks.memory_clock_source.clone(),
        run_sm_clock_hz: run_sm.map(|r| r.1),
        run_dram_clock_hz: run_dram.map(|r| r.1),
        compute_scaled: false,
        memory_scaled: false,
        roofs_as_stated: None,
    };
    let mut scaled = roofs.clone();
    if rule == RoofClock::Boost {
        return (scaled, info);
    }
    if let Some((run, _)) = run_sm {
        for (p, r) in scaled.compute.iter_mut() {
            let Some(at) = roofs.compute_clock_hz(*p) else {
                continue;
            };
            let f = run / at;
            if (f - 1.0).abs() < SAME_CLOCK {
                continue;
            }
            r.flop_per_s *= f;
            r.source = format!(
                "{} x {} / {} (scaled to the SM clock the launches ran at)",
                r.source,
                mhz(run),
                mhz(at)
            );
            info.compute_scaled = true;
        }
        if info.compute_scaled {
            scaled.clocks.sm_clock_hz = Some(run);
            scaled.clocks.sm_clock_source =
                "the launches' SM clock (time-weighted mean), from the profile".into();
        }
    }
    if let (Some((run, _)), Some(at)) = (run_dram, roofs.dram_clock_hz()) {
        let f = run / at;
        if (f - 1.0).abs() > DRAM_CLOCK_TOLERANCE {
            if let Some(r) = scaled.memory.get_mut(&crate::roofs::MemoryLevel::Dram) {
                r.bytes_per_s *= f;
                r.source = format!(
                    "{} x {} / {} (scaled to the DRAM clock the launches ran at)",
                    r.source,
                    mhz(run),
                    mhz(at)
                );
                info.memory_scaled = true;
                scaled.clocks.memory_clock_hz = Some(run);
                scaled.clocks.memory_clock_source =
                    "the launches' DRAM clock (time-weighted mean), from the profile".into();
            }
        }
    }
    if info.compute_scaled || info.memory_scaled {
        info.roofs_as_stated = Some(roofs.clone());
    }
    (scaled, info)
}

/// The launches `at_run_clock` weighs: those with a positive duration, or
/// every launch of a file without durations (rates only).
pub(super) fn weighed(csv: &NcuCsv) -> Vec<&LaunchMetrics> {
    let timed: Vec<&LaunchMetrics> = csv
        .launches
        .iter()
        .filter(|l| l.duration_ns.is_some_and(|d| d > 0.0))
        .collect();
    if timed.is_empty() {
        csv.launches.iter().collect()
    } else {
        timed
    }
}

/// One diagnostic when the launches ran well below the SM clock the roofs
/// assume (ncu's default base-clock lock), with the fix.
pub(super) fn below_roof(info: &ClockInfo, launches: &[&LaunchMetrics]) -> Option<Diagnostic> {
    let roof = info.roof_sm_clock_hz?;
    let below: Vec<&&LaunchMetrics> = launches
        .iter()
        .filter(|l| l.sm_clock_hz.is_some_and(|c| c < BELOW_ROOF_CLOCK * roof))
        .collect();
    let low = below
        .iter()
        .filter_map(|l| l.sm_clock_hz)
        .fold(f64::INFINITY, f64::min);
    if below.is_empty() {
        return None;
    }
    let what = match info.roof_clock {
        RoofClock::Run => "the compute roofs are scaled to the clock the launches ran at (their time-weighted mean: fractions of what the GPU could do at that clock); pass --roof-clock boost for the fraction of the boost-clock roof".to_string(),
        RoofClock::Boost => format!(
            "--roof-clock boost compares them against the unscaled roofs, so their compute fractions read up to {:.1}x low; drop it to scale the roofs to the clock they ran at",
            roof / low
        ),
    };
    Some(Diagnostic {
        kind: DiagnosticKind::ClockBelowRoof,
        count: below.len() as u64,
        message: format!(
            "launches ran at an SM clock down to {} ({:.0} % of the {} the roofs assume), as under Nsight Compute's default lock to the base clock (--clock-control base); {what}. To profile at application clocks, rerun ncu with --clock-control none",
            mhz(low),
            low / roof * 100.0,
            mhz(roof)
        ),
        examples: below
            .iter()
            .take(3)
            .map(|l| {
                format!(
                    "{} (ID {}): {}",
                    crate::units::ellipsize(&l.name, 60),
                    l.id,
                    mhz(l.sm_clock_hz.unwrap_or(0.0))
                )
            })
            .collect(),
    })
}
