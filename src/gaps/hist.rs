//! The one binning of gap durations, used by the report's histogram table
//! and by the histogram chart: 1-2-5 steps from 1 µs to 1 s (round numbers
//! a performance engineer reads at a glance: 2 µs, 50 µs, 1 ms), plus
//! `[0, 1 µs)` and `[1 s, ∞)`.

/// Histogram edges, ns: 1-2-5 steps from 1 µs to 1 s, plus `[0, 1 µs)` and `[1 s, ∞)`.
pub const HIST_EDGES_NS: [i64; 20] = [
    0,
    1_000,
    2_000,
    5_000,
    10_000,
    20_000,
    50_000,
    100_000,
    200_000,
    500_000,
    1_000_000,
    2_000_000,
    5_000_000,
    10_000_000,
    20_000_000,
    50_000_000,
    100_000_000,
    200_000_000,
    500_000_000,
    1_000_000_000,
];

/// Index of the bin of `HIST_EDGES_NS` holding a gap of `duration_ns`
/// (negative durations land in the first bin).
pub fn hist_bin(duration_ns: i64) -> usize {
    HIST_EDGES_NS
        .partition_point(|&e| e <= duration_ns)
        .saturating_sub(1)
}

/// The bin `i` as `[lo_ns, hi_ns)`; `hi_ns` is `None` for the last, open bin.
pub fn hist_range(i: usize) -> (i64, Option<i64>) {
    (HIST_EDGES_NS[i], HIST_EDGES_NS.get(i + 1).copied())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edges_start_their_bin() {
        // 999 ns is under the 1 µs edge; 1000 ns starts [1 µs, 2 µs); 5 s is
        // in the open last bin [1 s, ∞).
        assert_eq!(hist_bin(999), 0);
        assert_eq!(hist_bin(1_000), 1);
        assert_eq!(hist_bin(1_999), 1);
        assert_eq!(hist_bin(5_000_000_000), HIST_EDGES_NS.len() - 1);
        assert_eq!(hist_range(1), (1_000, Some(2_000)));
        assert_eq!(hist_range(HIST_EDGES_NS.len() - 1), (1_000_000_000, None));
    }
}
