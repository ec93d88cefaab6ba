//! What changed, kernel by kernel, between two timelines: each kernel
//! name (normalised, [`super::name`]) with its launches and its total GPU
//! time on each side. A name only in the new run is *added*, only in the
//! base *removed*; a name in both whose launch count moved is *changed*
//! unless its time regressed or improved (the time decides, as for every
//! row). These are the sets HTA's `TraceDiff.ops_diff` reports (added,
//! deleted, increased, decreased) for GPU kernels.

use super::gaps_side::KernelTime;
use super::name::normalize;
use super::noise::{Change, Limit, Thresholds, Verdict, Worse};
use serde::Serialize;
use std::collections::BTreeMap;

/// One kernel name before → after.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TimelineKernelDiff {
    /// The name as the timeline writes it (the base's, else the new's).
    pub name: String,
    /// Matching key (normalised name).
    pub key: String,
    /// The row's verdict: added, removed, its total time's when that
    /// regressed or improved, else `changed` when the launch count moved.
    pub verdict: Verdict,
    /// Launches (a side without the kernel: `before`/`after` 0 and the
    /// verdict added/removed). Any change in the count is `changed`.
    pub launches: Change,
    /// Sum of the launches' durations, ns (higher is worse; judged
    /// against the timeline thresholds, no spread: a sum, not a sample).
    pub time_ns: Change,
}

/// Groups one side's kernels by key: (name as written, launches, ns).
fn by_key(side: &[KernelTime]) -> Option<BTreeMap<String, (String, u64, f64)>> {
    let mut m: BTreeMap<String, (String, u64, f64)> = BTreeMap::new();
    for k in side {
        let (launches, ns) = (k.launches?, k.time_ns?);
        let e = m
            .entry(normalize(&k.name))
            .or_insert_with(|| (k.name.clone(), 0, 0.0));
        e.1 += launches;
        e.2 += ns;
    }
    Some(m)
}

/// Compares the kernels of two timelines; `None` when a side does not
/// know its kernels' launches and times (a `rooftrace.gaps` JSON report).
pub fn diff(
    before: &[KernelTime],
    after: &[KernelTime],
    t: &Thresholds,
) -> Option<Vec<TimelineKernelDiff>> {
    let (b, a) = (by_key(before)?, by_key(after)?);
    let limit = Limit {
        rel: t.time_rel,
        abs: t.timeline_abs_ns,
    };
    let any = Limit { rel: 0.0, abs: 0.0 };
    let mut keys: Vec<&String> = b.keys().chain(a.keys()).collect();
    keys.sort();
    keys.dedup();
    let mut rows: Vec<TimelineKernelDiff> = keys
        .into_iter()
        .map(|k| {
            let (kb, ka) = (b.get(k), a.get(k));
            let n = |s: Option<&(String, u64, f64)>| s.map_or(0.0, |x| x.1 as f64);
            let ns = |s: Option<&(String, u64, f64)>| s.map_or(0.0, |x| x.2);
            let launches = Change::judge(Some(n(kb)), Some(n(ka)), any, 0.0, Worse::Neither);
            let time_ns = Change::judge(Some(ns(kb)), Some(ns(ka)), limit, 0.0, Worse::Higher);
            let verdict = match (kb, ka) {
                (Some(_), None) => Verdict::Removed,
                (None, Some(_)) => Verdict::Added,
                _ if matches!(
                    time_ns.verdict,
                    Verdict::Regression | Verdict::Improvement | Verdict::Inconclusive
                ) =>
                {
                    time_ns.verdict
                }
                _ if launches.verdict == Verdict::Changed => Verdict::Changed,
                _ => time_ns.verdict,
            };
            TimelineKernelDiff {
                name: kb.or(ka).map(|x| x.0.clone()).unwrap_or_default(),
                key: k.clone(),
                verdict,
                launches,
                time_ns,
            }
        })
        .collect();
    rows.sort_by(|x, y| {
        order(x.verdict)
            .cmp(&order(y.verdict))
            .then_with(|| {
                let d = |r: &TimelineKernelDiff| r.time_ns.delta.unwrap_or(0.0).abs();
                d(y).total_cmp(&d(x))
            })
            .then_with(|| x.key.cmp(&y.key))
    });
    Some(rows)
}

/// Rows by what a reader looks at first.
fn order(v: Verdict) -> u8 {
    match v {
        Verdict::Regression => 0,
        Verdict::Improvement => 1,
        Verdict::Added => 2,
        Verdict::Removed => 3,
        Verdict::Changed => 4,
        Verdict::Inconclusive => 5,
        Verdict::Unchanged => 6,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn k(name: &str, launches: u64, ns: f64) -> KernelTime {
        KernelTime {
            name: name.to_string(),
            time_ns: Some(ns),
            launches: Some(launches),
        }
    }

    #[test]
    fn added_removed_and_count_changed_kernels() {
        let t = Thresholds::default();
        let before = [
            k("gemm<128>", 10, 1e6),
            k("gone", 2, 5e4),
            k("relu", 4, 4e4),
            // A second spelling of one kernel: normalised together (5 + 1 launches).
            k("void  f< int >(float *)", 5, 5e4),
            k("void f<int>(float*)", 1, 1e4),
        ];
        let after = [
            k("gemm<128>", 10, 1.2e6),
            k("new_one", 1, 3e4),
            k("relu", 5, 4.1e4),
            k("void f<int>(float*)", 6, 6e4),
        ];
        let rows = diff(&before, &after, &t).unwrap();
        let v: Vec<(&str, Verdict)> = rows.iter().map(|r| (r.key.as_str(), r.verdict)).collect();
        assert_eq!(
            v,
            [
                // +200 µs, +20 %: beyond 5 % and 10 µs.
                ("gemm<128>", Verdict::Regression),
                ("new_one", Verdict::Added),
                ("gone", Verdict::Removed),
                // 4 -> 5 launches, +1 µs: the count moved, the time did not.
                ("relu", Verdict::Changed),
                ("void f<int>(float*)", Verdict::Unchanged),
            ]
        );
        assert_eq!(rows[1].launches.before, Some(0.0));
        assert_eq!(rows[4].launches.before, Some(6.0));
        // A JSON side without launches: no kernel rows.
        let unknown = [KernelTime {
            name: "x".into(),
            time_ns: None,
            launches: None,
        }];
        assert!(diff(&unknown, &after, &t).is_none());
    }
}
