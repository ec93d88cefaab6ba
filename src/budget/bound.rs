//! Matching ncu launches to timeline kernels and the bound of each kernel.
//!
//! Names are compared by their base ([`kernel_key`]): `void gemv<float,
//! 4>(float const*, …)` from ncu and `gemv` from nsys' short name are the
//! same kernel. Within a step, the j-th launch of a name is matched to the
//! j-th profiled launch of that name in the ncu file (ncu profiles the same
//! program, so the launch order repeats; with `--nvtx-include` on the step
//! range it starts at a step). A launch beyond the profiled ones gets the
//! name's figure: its time times the name's fraction of roof Σ T* / Σ T
//! over the profiled launches (a name often covers several shapes, so the
//! fraction scales with each launch's size where a fixed T* would not).
//!
//! `T*` is the roofline report's `bound_time_ns` (`max(Σ W_p/F_p, Q/B)`,
//! computed once in `roofline`), never recomputed here.

use super::model::BoundBasis;
use crate::roofline::{KernelRoofline, RooflineReport};
use std::collections::HashMap;

/// The base of a kernel name: without a leading `void `, `(anonymous
/// namespace)::`, the parameter list, template arguments and namespaces,
/// trimmed (nsys' short name is the bare function name; ncu's may be the
/// full demangled one).
pub fn kernel_key(name: &str) -> &str {
    let n = name.trim();
    let n = n.strip_prefix("void ").unwrap_or(n);
    let n = n.rsplit("(anonymous namespace)::").next().unwrap_or(n);
    let cut = n.find(['(', '<']).unwrap_or(n.len());
    let n = &n[..cut];
    n.rsplit("::").next().unwrap_or(n).trim()
}

/// The profiled launches of one kernel name.
struct NameCounters<'a> {
    /// Launches in file order (process id, ID).
    launches: Vec<&'a KernelRoofline>,
    /// Σ T* / Σ T over them, capped at 1.
    fraction: f64,
}

/// The ncu side, indexed by kernel key.
pub(crate) struct Counters<'a> {
    by_key: HashMap<&'a str, NameCounters<'a>>,
}

/// A kernel's bound and how it was found.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct KernelBound {
    /// Bound for the whole kernel (its full timeline duration), ns.
    pub(crate) bound_ns: f64,
    /// How it was found.
    pub(crate) basis: BoundBasis,
    /// `memory`/`compute` of the launch used (`None` when not certain).
    pub(crate) bound_by: Option<&'static str>,
    /// The `T*` used is a lower bound (a side of the roofline unknown or
    /// incomplete), so the shortfall is an upper bound.
    pub(crate) lower: bool,
}

impl<'a> Counters<'a> {
    /// Indexes a per-launch roofline report.
    pub(crate) fn new(report: &'a RooflineReport) -> Counters<'a> {
        let mut rows: Vec<&KernelRoofline> = report.kernels.iter().collect();
        rows.sort_by_key(|k| (k.process_id, k.id));
        let mut by_key: HashMap<&str, NameCounters> = HashMap::new();
        for k in rows {
            by_key
                .entry(kernel_key(&k.name))
                .or_insert_with(|| NameCounters {
                    launches: Vec::new(),
                    fraction: 0.0,
                })
                .launches
                .push(k);
        }
        for c in by_key.values_mut() {
            let t: f64 = c.launches.iter().map(|k| k.duration_ns).sum();
            let b: f64 = c.launches.iter().map(|k| k.bound_time_ns).sum();
            c.fraction = if t > 0.0 {
                (b / t).clamp(0.0, 1.0)
            } else {
                0.0
            };
        }
        Counters { by_key }
    }

    /// The bound of the `occurrence`-th launch (0-based, within its step)
    /// of `name`, which ran `duration_ns` on the timeline.
    pub(crate) fn bound(&self, name: &str, occurrence: usize, duration_ns: i64) -> KernelBound {
        let Some(c) = self.by_key.get(kernel_key(name)) else {
            return KernelBound {
                bound_ns: 0.0,
                basis: BoundBasis::None,
                bound_by: None,
                lower: false,
            };
        };
        let by = |k: &KernelRoofline| k.bound.map(|b| b.key());
        match c.launches.get(occurrence) {
            Some(k) => KernelBound {
                bound_ns: k.bound_time_ns.max(0.0),
                basis: BoundBasis::Matched,
                bound_by: by(k),
                lower: k.lower_bound,
            },
            None => KernelBound {
                bound_ns: c.fraction * duration_ns as f64,
                basis: BoundBasis::PerName,
                bound_by: c.launches.first().and_then(|k| by(k)),
                lower: c.launches.iter().any(|k| k.lower_bound),
            },
        }
    }

    /// Keys of profiled names that none of `seen` matched, sorted.
    pub(crate) fn unseen(&self, seen: &std::collections::HashSet<String>) -> Vec<String> {
        let mut v: Vec<String> = self
            .by_key
            .iter()
            .filter(|(k, _)| !seen.contains(**k))
            .map(|(k, _)| k.to_string())
            .collect();
        v.sort();
        v
    }
}

/// The bound part of a kernel charged `charged_ns` of its `duration_ns`:
/// the bound scaled by the charged share, rounded to the nearest ns (half
/// away from zero) and capped to `[0, charged_ns]`. Returns (bound part,
/// capped excess): the shortfall part is `charged_ns - bound part`, so the
/// two sum to the charged time exactly.
pub(crate) fn split(bound_ns: f64, charged_ns: i64, duration_ns: i64) -> (i64, i64) {
    if charged_ns <= 0 || !bound_ns.is_finite() || bound_ns <= 0.0 {
        return (0, 0);
    }
    let share = if duration_ns > 0 {
        charged_ns as f64 / duration_ns as f64
    } else {
        1.0
    };
    let want = (bound_ns * share).round();
    if want >= charged_ns as f64 {
        // Saturating: `want` may be far beyond i64 on a corrupt counter.
        let excess = (want - charged_ns as f64).min(i64::MAX as f64) as i64;
        (charged_ns, excess)
    } else {
        (want as i64, 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_drop_void_templates_and_parameters() {
        assert_eq!(
            kernel_key("void gemm_v1<float>(float *, float *, float *, int, int, int)"),
            "gemm_v1"
        );
        assert_eq!(kernel_key("gemm_v1"), "gemm_v1");
        assert_eq!(kernel_key(" saxpy(int, float) "), "saxpy");
        assert_eq!(
            kernel_key("ampere_sgemm_128x64_nn"),
            "ampere_sgemm_128x64_nn"
        );
    }

    #[test]
    fn split_rounds_then_caps() {
        // 1234.5 ns bound on a kernel fully charged 2000 ns: 1235 + 765.
        assert_eq!(split(1234.5, 2000, 2000), (1235, 0));
        // Half charged (concurrent): 1234.5 × 0.5 = 617.25 → 617.
        assert_eq!(split(1234.5, 1000, 2000), (617, 0));
        // Above its roof: bound 2500 > 2000 → capped, 500 ns excess.
        assert_eq!(split(2500.0, 2000, 2000), (2000, 500));
        assert_eq!(split(f64::NAN, 10, 10), (0, 0));
        assert_eq!(split(5.0, 0, 10), (0, 0));
    }
}
