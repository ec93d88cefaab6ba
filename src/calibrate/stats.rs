//! Sample statistics: quantiles by linear interpolation between order
//! statistics (Hyndman-Fan type 7, numpy's default), and rate statistics
//! computed over per-sample rates.

/// The `q`-quantile (0 ≤ q ≤ 1) of `samples` by linear interpolation between
/// the closest ranks. `samples` must be non-empty.
pub fn quantile(samples: &[f64], q: f64) -> f64 {
    let mut s = samples.to_vec();
    s.sort_by(f64::total_cmp);
    let h = (s.len() - 1) as f64 * q.clamp(0.0, 1.0);
    let lo = h.floor() as usize;
    let hi = h.ceil() as usize;
    s[lo] + (h - lo as f64) * (s[hi] - s[lo])
}

/// Median and quartiles of a rate (bytes/s or FLOP/s), over the per-sample
/// rates `work / time`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RateStats {
    /// Median rate, in the rate's unit per second.
    pub median: f64,
    /// First quartile.
    pub q1: f64,
    /// Third quartile.
    pub q3: f64,
    /// Number of samples.
    pub samples: u32,
}

impl RateStats {
    /// Statistics of `work / t` over sample times `times_ns` (ns); `work` in
    /// bytes or FLOP per launch.
    pub fn from_times_ns(work: f64, times_ns: &[f64]) -> RateStats {
        let rates: Vec<f64> = times_ns.iter().map(|t| work * 1e9 / t).collect();
        RateStats {
            median: quantile(&rates, 0.5),
            q1: quantile(&rates, 0.25),
            q3: quantile(&rates, 0.75),
            samples: rates.len() as u32,
        }
    }

    /// Interquartile range q3 - q1, same unit as the median.
    pub fn iqr(&self) -> f64 {
        self.q3 - self.q1
    }

    /// IQR / median: the spread the stability rule compares with 10 %.
    pub fn iqr_fraction(&self) -> f64 {
        self.iqr() / self.median
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_interpolate_like_numpy() {
        // numpy.quantile([1,2,3,4], [.25,.5,.75]) = [1.75, 2.5, 3.25]
        let s = [4.0, 1.0, 3.0, 2.0];
        assert_eq!(quantile(&s, 0.25), 1.75);
        assert_eq!(quantile(&s, 0.5), 2.5);
        assert_eq!(quantile(&s, 0.75), 3.25);
        assert_eq!(quantile(&[7.0], 0.75), 7.0);
    }

    #[test]
    fn rate_stats_use_per_sample_rates() {
        // 1e9 bytes in 1, 2, 4 ms -> 1e12, 5e11, 2.5e11 B/s; median 5e11,
        // q1 = 2.5e11 + 0.5 * 2.5e11 = 3.75e11, q3 = 5e11 + 0.5 * 5e11 = 7.5e11.
        let r = RateStats::from_times_ns(1e9, &[1e6, 2e6, 4e6]);
        assert_eq!(r.median, 5e11);
        assert_eq!(r.q1, 3.75e11);
        assert_eq!(r.q3, 7.5e11);
        assert_eq!(r.iqr_fraction(), 0.75);
        assert_eq!(r.samples, 3);
    }
}
