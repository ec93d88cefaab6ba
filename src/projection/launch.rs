//! The fixed per-launch cost `c`, fitted from the source profile: the time
//! a launch takes whatever its work (launch, block scheduling, the tail of
//! the last wave), which more bandwidth or FLOP/s does not shorten.
//!
//! The rule: among the launches whose bound is under [`DOMINATED_BELOW`]
//! of their time (launch-dominated: their time is not the roofs') and that
//! last under [`CEILING_NS`], `c` is the [`QUANTILE`] nearest-rank quantile
//! of the time per launch. A low quantile rather than the minimum, so that
//! one odd launch does not set it; not the median, which carries work the
//! bound does not see. The ceiling keeps out long kernels far from their
//! bound for another reason (work no counter saw): a fixed launch cost is
//! microseconds (the study measures 4.5 µs for the smallest H100 GEMMs).

use super::model::LaunchCost;
use crate::roofline::KernelRoofline;

/// A launch is launch-dominated when its bound is below this fraction of
/// its time.
pub const DOMINATED_BELOW: f64 = 0.10;

/// The nearest-rank quantile of launch-dominated times taken as `c`.
pub const QUANTILE: f64 = 0.05;

/// Launches longer than this (per launch) are not evidence of a fixed
/// per-launch cost, whatever their bound: 50 µs.
pub const CEILING_NS: f64 = 50_000.0;

/// Fits `c` over the rows of a report. A row of several launches counts
/// each launch with the row's mean time per launch.
pub fn fit(kernels: &[KernelRoofline]) -> LaunchCost {
    let mut times: Vec<(f64, u64)> = kernels
        .iter()
        .filter(|k| k.launches > 0 && k.duration_ns > 0.0)
        .filter(|k| k.bound_time_ns < DOMINATED_BELOW * k.duration_ns)
        .map(|k| (k.duration_ns / k.launches as f64, k.launches))
        .filter(|(per_launch, _)| *per_launch < CEILING_NS)
        .collect();
    times.sort_by(|a, b| a.0.total_cmp(&b.0));
    let used: u64 = times.iter().map(|t| t.1).sum();
    let rule = format!(
        "{:.0}th percentile (nearest rank) of the time per launch over the {used} launches shorter than {:.0} µs whose bound is under {:.0} % of their time",
        QUANTILE * 100.0,
        CEILING_NS / 1e3,
        DOMINATED_BELOW * 100.0
    );
    if used == 0 {
        return LaunchCost {
            per_launch_ns: 0.0,
            launches_used: 0,
            rule: format!("no launch-dominated launch in the profile: c = 0 ({rule})"),
        };
    }
    // Nearest rank: the smallest time with at least ⌈q·n⌉ launches at or below it.
    let rank = ((QUANTILE * used as f64).ceil() as u64).max(1);
    let mut seen = 0;
    let mut per_launch_ns = times[times.len() - 1].0;
    for (t, n) in &times {
        seen += n;
        if seen >= rank {
            per_launch_ns = *t;
            break;
        }
    }
    LaunchCost {
        per_launch_ns,
        launches_used: used,
        rule,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::projection::kernel::tests::row;
    use crate::roofs::ComputePath;

    fn with_bound(t_ns: f64, bound_ns: f64, launches: u64) -> KernelRoofline {
        let mut k = row(&[(ComputePath::TensorBf16, 1.0)], 1.0, t_ns, launches);
        k.bound_time_ns = bound_ns;
        k
    }

    #[test]
    fn c_is_a_low_quantile_of_the_launch_dominated_launches() {
        // 40 launch-dominated launches: one row of 20 at 3 µs each (60 µs),
        // 19 single launches at 2.5 µs .. 4.3 µs, one at 2.0 µs; and a
        // GEMM far from launch-dominated (bound 50 of 60 µs) that must not
        // count. 5 % of 40 = 2: the 2nd-smallest launch time, 2.5 µs.
        let mut rows = vec![
            with_bound(60_000.0, 100.0, 20),
            with_bound(2_000.0, 10.0, 1),
        ];
        for i in 0..19 {
            rows.push(with_bound(2_500.0 + 100.0 * i as f64, 50.0, 1));
        }
        rows.push(with_bound(60_000.0, 50_000.0, 1));
        let c = fit(&rows);
        assert_eq!(c.launches_used, 40);
        assert_eq!(c.per_launch_ns, 2_500.0);
        // No launch-dominated launch: c = 0, said so. A 6.7 s launch at 0.04 %
        // of its bound (the A100 SGEMM export's randomInit) is not one.
        let c = fit(&[
            with_bound(60_000.0, 50_000.0, 1),
            with_bound(6.7e9, 2.6e6, 1),
        ]);
        assert_eq!((c.per_launch_ns, c.launches_used), (0.0, 0));
        assert!(
            c.rule.starts_with("no launch-dominated launch"),
            "{}",
            c.rule
        );
    }
}
