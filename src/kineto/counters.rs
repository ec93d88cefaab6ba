//! CUPTI counter ranges (`cuda_profiler_range` events, one per profiled
//! kernel, args = ncu metric name → value) written as the raw page of an
//! ncu CSV export (one row per launch, one column per metric), so the ncu
//! reader turns them into launches with the same units, derivations and
//! unknowns as an `ncu --csv --page raw` file. The range's own `dur` is the
//! profiling pass (kernel replays included), not the kernel's run time, so
//! no duration column is written: the time side stays unknown.

use super::KinetoTrace;
use std::collections::BTreeSet;
use std::fmt::Write;

/// The raw-page CSV text of the trace's counter ranges; `None` when it has
/// none. `CC` comes from `deviceProperties` when the trace has exactly one
/// device (the ranges do not say which device they ran on otherwise).
pub fn raw_page_csv(trace: &KinetoTrace) -> Option<String> {
    if trace.counters.is_empty() {
        return None;
    }
    let metrics: BTreeSet<&str> = trace
        .counters
        .iter()
        .flat_map(|c| c.metrics.iter().map(|(m, _)| m.as_str()))
        .collect();
    let (device, cc) = match trace.devices.as_slice() {
        [d] => (
            d.name.clone().unwrap_or_default(),
            match (d.compute_major, d.compute_minor) {
                (Some(a), Some(b)) => format!("{a}.{b}"),
                _ => String::new(),
            },
        ),
        _ => (String::new(), String::new()),
    };
    let pid = trace.timeline.api.first().map_or(0, |a| a.pid);
    let mut out = String::from("\"ID\",\"Process ID\",\"Kernel Name\",\"Device\",\"CC\"");
    for m in &metrics {
        let _ = write!(out, ",{}", quote(m));
    }
    out.push('\n');
    for (id, c) in trace.counters.iter().enumerate() {
        let _ = write!(
            out,
            "\"{id}\",\"{pid}\",{},{},{}",
            quote(&c.kernel),
            quote(&device),
            quote(&cc)
        );
        for m in &metrics {
            match c.metrics.iter().find(|(name, _)| name == m) {
                Some((_, v)) => {
                    let _ = write!(out, ",\"{v}\"");
                }
                None => out.push_str(",\"\""),
            }
        }
        out.push('\n');
    }
    Some(out)
}

/// A CSV field, quoted, inner quotes doubled.
fn quote(s: &str) -> String {
    format!("\"{}\"", s.replace('"', "\"\""))
}
