//! Whether two sides are runs of the same work (docs/diff.md,
//! "Comparable or refused"). Every input kind describes what it ran as a
//! [`Workload`]: named items (kernels by normalised name, NVTX ranges by
//! text) with the time each took on the GPU where the input knows it. The
//! rule, the same for every kind:
//!
//! - sides that share no name at all are not two runs of one program: bad
//!   input ([`NothingShared`], exit 2);
//! - when the items both sides ran hold less than [`MIN_MATCHED_SHARE`] of
//!   either side's time, most of the work is unmatched: the comparison is
//!   inconclusive, and the gate fails unless `--allow-unmatched`.
//!
//! A new input kind (a PyTorch trace) plugs in by building a `Workload`.

use crate::error::BadInput;
use serde::Serialize;
use std::collections::BTreeMap;

/// The least share of each side's time that the matched items must hold
/// for the sides to count as comparable: a majority.
pub const MIN_MATCHED_SHARE: f64 = 0.5;

/// What kind of named work an item is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum WorkKind {
    /// A GPU kernel, by normalised name.
    Kernel,
    /// An NVTX (or framework) range, by text.
    Range,
}

impl WorkKind {
    fn plural(self) -> &'static str {
        match self {
            WorkKind::Kernel => "kernels",
            WorkKind::Range => "ranges",
        }
    }
}

/// What one side ran, by name: the input to the comparability check.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Workload {
    /// Time per kind and matching key, ns; `None` where the input names the
    /// item without its time (a gaps JSON names the kernels around its
    /// longest gaps only).
    pub items: BTreeMap<WorkKind, BTreeMap<String, Option<f64>>>,
}

impl Workload {
    /// Adds `time_ns` (or an unknown time) to the item `key` of `kind`.
    pub fn add(&mut self, kind: WorkKind, key: &str, time_ns: Option<f64>) {
        let by_key = self.items.entry(kind).or_default();
        // Looked up by &str first: one allocation per distinct name, not per launch.
        let slot = match by_key.get_mut(key) {
            Some(slot) => slot,
            None => by_key.entry(key.to_string()).or_insert(Some(0.0)),
        };
        *slot = match (*slot, time_ns) {
            (Some(sum), Some(t)) => Some(sum + t),
            _ => None,
        };
    }

    fn names(&self, kind: WorkKind) -> usize {
        self.items.get(&kind).map_or(0, BTreeMap::len)
    }

    /// Share of this side's `kind` time in items `other` also ran; `None`
    /// when an item's time is unknown or the side has no time of that kind.
    fn matched_share(&self, other: &Workload, kind: WorkKind) -> Option<f64> {
        let mut total = 0.0;
        let mut matched = 0.0;
        let theirs = other.items.get(&kind);
        for (key, time) in self.items.get(&kind)? {
            let t = (*time)?;
            total += t;
            if theirs.is_some_and(|names| names.contains_key(key)) {
                matched += t;
            }
        }
        (total > 0.0).then(|| matched / total)
    }
}

/// Names on each side and on both.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct NameCounts {
    /// Distinct names in the base run.
    pub before: u64,
    /// Distinct names in the new run.
    pub after: u64,
    /// Distinct names in both.
    pub shared: u64,
}

/// How the matched part compares with the whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CoverageStatus {
    /// The matched items hold at least [`MIN_MATCHED_SHARE`] of both sides' time.
    Comparable,
    /// They hold less on a side: most of the work is unmatched.
    MostlyUnmatched,
    /// The share could not be computed (a side lacks the items' times).
    Unknown,
}

/// The comparability check's findings, carried in the report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Coverage {
    /// Kernel names.
    pub kernels: NameCounts,
    /// Range names.
    pub ranges: NameCounts,
    /// What the shares are measured on: `kernels` (GPU time of kernels)
    /// or `ranges` (wall time of ranges); `null` when neither side knows
    /// its times.
    pub measured_on: Option<WorkKind>,
    /// Share of the base run's time in items the new run also ran.
    pub matched_share_before: Option<f64>,
    /// Share of the new run's time in items the base run also ran.
    pub matched_share_after: Option<f64>,
    /// The least share that counts as comparable ([`MIN_MATCHED_SHARE`]).
    pub min_share: f64,
    /// The finding.
    pub status: CoverageStatus,
    /// True with `--allow-unmatched`: a mostly unmatched comparison does
    /// not fail the gate by itself.
    pub allowed: bool,
}

impl Coverage {
    /// The phrase a headline carries when most of the work is unmatched.
    pub fn unmatched_phrase(&self) -> Option<String> {
        if self.status != CoverageStatus::MostlyUnmatched {
            return None;
        }
        let pct =
            |s: Option<f64>| s.map_or("unknown".to_string(), |x| format!("{:.1} %", x * 100.0));
        let what = self.measured_on.map_or("items", WorkKind::plural);
        Some(format!(
            "most of the work is unmatched (the {what} both runs ran are {} of the base's time and {} of the new's; less than {:.0} % is not a like-for-like comparison)",
            pct(self.matched_share_before),
            pct(self.matched_share_after),
            self.min_share * 100.0
        ))
    }
}

/// The sides share no name: not two runs of one program.
#[derive(Debug, thiserror::Error)]
#[error("{base} and {new} share no kernel or range name ({what}): they are not two runs of one program, and a diff of them would compare nothing; give two runs of the same program (names are matched after normalisation, docs/diff.md)")]
pub struct NothingShared {
    /// The base file.
    pub base: String,
    /// The new file.
    pub new: String,
    /// The names on each side, in words.
    pub what: String,
}

impl BadInput for NothingShared {}

fn counts(base: &Workload, new: &Workload, kind: WorkKind) -> NameCounts {
    let shared = match (base.items.get(&kind), new.items.get(&kind)) {
        (Some(mine), Some(theirs)) => mine.keys().filter(|k| theirs.contains_key(*k)).count(),
        _ => 0,
    };
    NameCounts {
        before: base.names(kind) as u64,
        after: new.names(kind) as u64,
        shared: shared as u64,
    }
}

/// Checks two workloads (`base_file`, `new_file` name them in the error):
/// an error when both name work and share none of it, else the coverage.
pub fn check(
    base_file: &str,
    new_file: &str,
    base: &Workload,
    new: &Workload,
    allowed: bool,
) -> Result<Coverage, NothingShared> {
    let kernels = counts(base, new, WorkKind::Kernel);
    let ranges = counts(base, new, WorkKind::Range);
    let named = |c: NameCounts| c.before > 0 && c.after > 0;
    if (named(kernels) || named(ranges)) && kernels.shared == 0 && ranges.shared == 0 {
        let side = |c: NameCounts, r: NameCounts, before: bool| {
            let (k, n) = if before {
                (c.before, r.before)
            } else {
                (c.after, r.after)
            };
            format!("{k} kernel and {n} range names")
        };
        return Err(NothingShared {
            base: base_file.to_string(),
            new: new_file.to_string(),
            what: format!(
                "{} in the base run, {} in the new run, none in common",
                side(kernels, ranges, true),
                side(kernels, ranges, false)
            ),
        });
    }
    // Kernels when both sides time them, else ranges.
    let measured = [WorkKind::Kernel, WorkKind::Range]
        .into_iter()
        .find_map(|kind| {
            let b = base.matched_share(new, kind)?;
            let a = new.matched_share(base, kind)?;
            Some((kind, b, a))
        });
    let (measured_on, before, after, status) = match measured {
        Some((kind, b, a)) => {
            let status = if b < MIN_MATCHED_SHARE || a < MIN_MATCHED_SHARE {
                CoverageStatus::MostlyUnmatched
            } else {
                CoverageStatus::Comparable
            };
            (Some(kind), Some(b), Some(a), status)
        }
        None => (None, None, None, CoverageStatus::Unknown),
    };
    Ok(Coverage {
        kernels,
        ranges,
        measured_on,
        matched_share_before: before,
        matched_share_after: after,
        min_share: MIN_MATCHED_SHARE,
        status,
        allowed,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(items: &[(&str, Option<f64>)]) -> Workload {
        let mut w = Workload::default();
        for (k, t) in items {
            w.add(WorkKind::Kernel, k, *t);
        }
        w
    }

    #[test]
    fn the_share_is_the_matched_time_over_each_sides_time() {
        // Base: a 10 + b 30 (a is 25 %); new: a 10 + c 10 (a is 50 %).
        let base = load(&[("a", Some(10.0)), ("b", Some(30.0))]);
        let new = load(&[("a", Some(10.0)), ("c", Some(10.0))]);
        let c = check("b", "n", &base, &new, false).unwrap();
        assert_eq!(c.matched_share_before, Some(0.25));
        assert_eq!(c.matched_share_after, Some(0.5));
        assert_eq!(c.status, CoverageStatus::MostlyUnmatched);
        assert_eq!(
            c.kernels,
            NameCounts {
                before: 2,
                after: 2,
                shared: 1
            }
        );
        // Exactly half on each side is not less than half: comparable.
        let base = load(&[("a", Some(10.0)), ("b", Some(10.0))]);
        let c = check("b", "n", &base, &new, false).unwrap();
        assert_eq!(c.matched_share_before, Some(0.5));
        assert_eq!(c.status, CoverageStatus::Comparable);
    }

    #[test]
    fn nothing_shared_is_an_error_and_unknown_times_are_unknown() {
        let e = check(
            "b.csv",
            "n.csv",
            &load(&[("a", Some(1.0))]),
            &load(&[("z", Some(1.0))]),
            false,
        )
        .unwrap_err();
        assert!(
            e.to_string().starts_with("b.csv and n.csv share no kernel"),
            "{e}"
        );
        let c = check(
            "b",
            "n",
            &load(&[("a", None)]),
            &load(&[("a", Some(1.0))]),
            false,
        )
        .unwrap();
        assert_eq!((c.status, c.measured_on), (CoverageStatus::Unknown, None));
    }
}
