//! When an input's facts fit several GPUs of the table: which few to name
//! (the closest, never the whole list) and which fact, had the input
//! recorded it, would have decided among them.
//!
//! "Closest" is by the one figure an input may state that is near the
//! card's own value on either side: its memory clock (nearest first).
//! The DRAM peak a throughput percentage implies is a lower bound, which
//! rules GPUs out but ranks none of those left above another (the HBM
//! A100 at 2039 GB/s is no less likely than a 1935 GB/s card for a bound
//! of 1888.6), so without a clock the table's order stands, and the words
//! say so ([`order_words`]).

use super::gpus::GpuSpec;
use super::hints::DeviceHints;

/// Most GPUs a sentence names when the facts fit several.
pub const NAMED: usize = 3;

/// `candidates` ordered closest first (see the module header): by the
/// memory clocks of `hints` when `by_clock` (the clock narrowed the table:
/// a clock no GPU fits, measured under some power state, ranks nothing);
/// ties keep the table's order.
pub fn closest_first(
    candidates: &[&'static GpuSpec],
    hints: &DeviceHints,
    by_clock: bool,
) -> Vec<&'static GpuSpec> {
    let mut c = candidates.to_vec();
    if by_clock {
        // Every clock the file states counts: the worst one; an unknown
        // clock last.
        let key = |g: &GpuSpec| {
            g.memory_clock_mhz.map_or(f64::INFINITY, |m| {
                hints
                    .memory_clocks_mhz
                    .iter()
                    .map(|&f| (f as f64 - m).abs() / m)
                    .fold(0.0, f64::max)
            })
        };
        c.sort_by(|a, b| key(a).total_cmp(&key(b)));
    }
    c
}

/// How [`closest_first`] ordered the candidates, in words:
/// `closest by memory clock` or `first in the table`.
pub fn order_words(by_clock: bool) -> &'static str {
    if by_clock {
        "closest by memory clock"
    } else {
        "first in the table"
    }
}

/// A device fact an ncu CSV can record, with the metric that records it.
struct Decider {
    /// Its words: `the SM count`.
    words: &'static str,
    /// The metric to collect.
    metric: &'static str,
    /// Whether the input stated it (once).
    stated: fn(&DeviceHints) -> bool,
    /// A GPU's value in the table, as a comparable number.
    value: fn(&GpuSpec) -> Option<u64>,
}

const DECIDERS: &[Decider] = &[
    Decider {
        words: "the SM count",
        metric: "device__attribute_multiprocessor_count",
        stated: |h| h.sm_counts.len() == 1,
        value: |g| g.sm_count.map(u64::from),
    },
    Decider {
        words: "the L2 size",
        metric: "device__attribute_l2_cache_size",
        stated: |h| h.l2_bytes.len() == 1,
        value: |g| g.l2_bytes,
    },
    Decider {
        words: "the memory bus width",
        metric: "device__attribute_global_memory_bus_width",
        stated: |h| h.bus_widths_bits.len() == 1,
        value: |g| g.bus_width_bits.map(u64::from),
    },
    Decider {
        words: "the memory clock",
        metric: "device__attribute_memory_clock_rate",
        stated: |h| !h.memory_clocks_mhz.is_empty(),
        value: |g| g.memory_clock_mhz.map(|m| m.round() as u64),
    },
];

/// The sentence naming what would decide among `candidates` (two or
/// more): the first device fact the input did not state whose table
/// values are known and differ for every candidate, with its metric; else
/// the device name, which names every GPU of the table.
pub fn what_would_decide(candidates: &[&'static GpuSpec], hints: &DeviceHints) -> String {
    for d in DECIDERS.iter().filter(|d| !(d.stated)(hints)) {
        let values: Option<Vec<u64>> = candidates.iter().map(|g| (d.value)(g)).collect();
        let Some(mut values) = values else { continue };
        values.sort_unstable();
        values.dedup();
        if values.len() == candidates.len() {
            return format!(
                "{} would decide (collect `{}`, or the device name: `device__attribute_display_name`)",
                d.words, d.metric
            );
        }
    }
    format!(
        "the device name would decide (collect `device__attribute_display_name`): no SM count, L2 size, bus width or memory clock of the table tells these {} apart",
        candidates.len()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::roofs::gpus;

    fn specs(keys: &[&str]) -> Vec<&'static GpuSpec> {
        keys.iter().map(|k| gpus::by_key(k).unwrap()).collect()
    }

    /// The RTX 5090 (170 SMs) and the RTX PRO 6000 (188 SMs), one silicon
    /// and one memory: the DRAM peak cannot split them, the SM count can.
    #[test]
    fn the_sm_count_splits_the_two_gb202_cards() {
        let c = specs(&["rtx5090", "rtx-pro-6000"]);
        let w = what_would_decide(&c, &DeviceHints::default());
        assert!(w.starts_with("the SM count would decide"), "{w}");
        // Stated already: the next fact that splits them, or the name.
        let h = DeviceHints {
            sm_counts: vec![170],
            ..DeviceHints::default()
        };
        assert!(!what_would_decide(&c, &h).starts_with("the SM count"));
    }

    /// A memory clock of 1512 MHz against the A100s' HBM2e clocks in the
    /// table (40 GB parts 1215 MHz, 80 GB SXM 1593, 80 GB PCIe 1512):
    /// errors 0, 81/1593 = 5.1 % and 297/1215 = 24.4 %; a lower bound on
    /// the DRAM peak alone keeps the table's order.
    #[test]
    fn closest_first_orders_by_memory_clock_only() {
        let c = specs(&["a100-40gb", "a100-80gb", "a100-80gb-pcie"]);
        let h = DeviceHints {
            memory_clocks_mhz: vec![1512],
            ..DeviceHints::default()
        };
        let keys: Vec<&str> = closest_first(&c, &h, true).iter().map(|g| g.key).collect();
        assert_eq!(keys, ["a100-80gb-pcie", "a100-80gb", "a100-40gb"]);
        assert_eq!(order_words(true), "closest by memory clock");
        let bound = DeviceHints {
            implied_dram_peak_bytes_per_s: Some(1.9e12),
            ..DeviceHints::default()
        };
        let keys: Vec<&str> = closest_first(&c, &bound, false)
            .iter()
            .map(|g| g.key)
            .collect();
        assert_eq!(keys, ["a100-40gb", "a100-80gb", "a100-80gb-pcie"]);
        assert_eq!(order_words(false), "first in the table");
    }
}
