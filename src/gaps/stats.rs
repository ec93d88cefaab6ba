//! Summary statistics: nearest-rank percentiles of durations and the
//! launch statistics (API call durations, queue delays).

use super::model::{Dist, LaunchStats};
use crate::timeline::{GpuOp, Timeline};

/// Nearest-rank percentiles; reorders `v`.
pub(crate) fn dist(v: &mut [i64]) -> Dist {
    if v.is_empty() {
        return Dist::default();
    }
    let n = v.len();
    let total = v.iter().sum();
    let rank = |p: f64| (((p * n as f64).ceil() as usize).max(1) - 1).min(n - 1);
    let idx = [0, rank(0.5), rank(0.9), rank(0.99), n - 1];
    // Successive selections on the shrinking tail: O(n) overall.
    let mut vals = [0i64; 5];
    let mut lo = 0usize;
    for (k, &i) in idx.iter().enumerate() {
        if i < lo {
            vals[k] = v[i];
            continue;
        }
        let (_, x, _) = v[lo..].select_nth_unstable(i - lo);
        vals[k] = *x;
        lo = i;
    }
    Dist {
        count: n as u64,
        min_ns: vals[0],
        p50_ns: vals[1],
        p90_ns: vals[2],
        p99_ns: vals[3],
        max_ns: vals[4],
        total_ns: total,
    }
}

/// Launch statistics of the analysed ops (already in scope).
pub(crate) fn launch_stats(tl: &Timeline, ops: &[GpuOp]) -> LaunchStats {
    // A call that launched several ops (a graph launch) counts once: mark
    // the calls used instead of sorting their ids.
    let mut used = vec![false; tl.api.len()];
    let (mut ops_with_api, mut ops_without_api) = (0u64, 0u64);
    let mut buf: Vec<i64> = Vec::new();
    for o in ops {
        match tl.api_of(o) {
            Some(a) => {
                ops_with_api += 1;
                used[o.api as usize] = true;
                // A blocking copy returns after its op started (it waits for
                // it): its "queue delay" is not a queue delay.
                if !tl.is_blocking(a) {
                    buf.push(o.start_ns - a.end_ns);
                }
            }
            None => ops_without_api += 1,
        }
    }
    let queue_delay = dist(&mut buf);
    buf.clear();
    buf.extend(
        tl.api
            .iter()
            .zip(&used)
            .filter(|(_, u)| **u)
            .map(|(a, _)| a.end_ns - a.start_ns),
    );
    LaunchStats {
        launches: buf.len() as u64,
        ops_with_api,
        ops_without_api,
        api_duration: dist(&mut buf),
        queue_delay,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_are_nearest_rank() {
        let mut v: Vec<i64> = (1..=10).rev().collect();
        let d = dist(&mut v);
        assert_eq!(
            (d.min_ns, d.p50_ns, d.p90_ns, d.p99_ns, d.max_ns, d.total_ns),
            (1, 5, 9, 10, 10, 55)
        );
    }
}
