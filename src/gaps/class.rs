//! Why the GPU idled: the classes of an idle gap and the rules that assign
//! them ([`classify`], documented in `docs/gaps.md`).

use crate::nsys::{ApiCall, SyncCall};
use serde::{Deserialize, Serialize};

/// The reason a gap happened, judged from the GPU op that ends it and the API
/// call that launched that op.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GapClass {
    /// The launch call started after the GPU went idle: the CPU could not keep up.
    HostBound,
    /// The launch call started before the idle began but returned after it.
    LaunchInFlight,
    /// The work was already queued and the gap is below the launch-latency threshold.
    LaunchLatency,
    /// The work was already queued yet the GPU idled: stream/event waits, cross-stream dependencies.
    QueuedDependency,
    /// The host was blocked in a synchronisation call over the gap.
    Synchronization,
    /// No API row explains the op: graph replay, device-side launch, trimmed export.
    Unattributed,
}

impl GapClass {
    /// All classes in display order.
    pub const ALL: [GapClass; 6] = [
        GapClass::HostBound,
        GapClass::LaunchInFlight,
        GapClass::LaunchLatency,
        GapClass::QueuedDependency,
        GapClass::Synchronization,
        GapClass::Unattributed,
    ];

    /// The snake_case key used in JSON and CSV.
    pub fn key(self) -> &'static str {
        match self {
            GapClass::HostBound => "host_bound",
            GapClass::LaunchInFlight => "launch_in_flight",
            GapClass::LaunchLatency => "launch_latency",
            GapClass::QueuedDependency => "queued_dependency",
            GapClass::Synchronization => "synchronization",
            GapClass::Unattributed => "unattributed",
        }
    }

    /// A short human label.
    pub fn label(self) -> &'static str {
        match self {
            GapClass::HostBound => "host-bound",
            GapClass::LaunchInFlight => "launch in flight",
            GapClass::LaunchLatency => "launch latency",
            GapClass::QueuedDependency => "queued/dependency",
            GapClass::Synchronization => "synchronisation",
            GapClass::Unattributed => "unattributed",
        }
    }
}

/// Why the GPU idled over `[g0, g1)`, judged from `next` (the op whose start
/// ends the gap) and its launching call `api` (`blocking`: the call is a
/// blocking copy such as `cudaMemcpy`):
///
/// 1. no API row → unattributed (graph replay, device-side launch, trimmed export);
/// 2. the call started at or after `g0` (the GPU was idle before the host
///    even asked): synchronisation if the host spent that lateness blocked —
///    the process's latest sync call starting before the launch call
///    overlaps `[g0, call start)` and the host time between the sync's end
///    and the launch call is at most `max(latency_ns, time in the sync)` —
///    else host-bound (the host was busy elsewhere, e.g. `cudaMalloc` after a
///    sync);
/// 3. the call started before `g0` and returned after it → synchronisation
///    when the call is a blocking copy (it waited for earlier work: an
///    implicit sync), else launch in flight;
/// 4. the call had returned by `g0` (work queued, GPU idle anyway) → launch
///    latency when the gap is shorter than `latency_ns`, else
///    queued/dependency.
pub fn classify(
    g0: i64,
    g1: i64,
    api: Option<&ApiCall>,
    blocking: bool,
    syncs: &[SyncCall],
    latency_ns: i64,
) -> GapClass {
    let Some(a) = api else {
        return GapClass::Unattributed;
    };
    if a.start_ns >= g0 {
        // syncs: merged per process, sorted by (pid, start), disjoint: the
        // latest one starting strictly before the launch call is the only one
        // that can cover the end of the host's lateness [g0, a.start). Not
        // "at or before": a blocking copy (`cudaMemcpy`) is itself in `syncs`
        // and would hide the `cudaDeviceSynchronize` that returned just
        // before it, while covering nothing of [g0, a.start) itself.
        let j = syncs.partition_point(|s| (s.pid, s.start_ns) < (a.pid, a.start_ns));
        let blocked = j > 0 && {
            let s = &syncs[j - 1];
            let in_sync = overlap(s.start_ns, s.end_ns, g0, a.start_ns);
            let after_sync = a.start_ns - s.end_ns;
            s.pid == a.pid && in_sync > 0 && after_sync <= latency_ns.max(in_sync)
        };
        if blocked {
            GapClass::Synchronization
        } else {
            GapClass::HostBound
        }
    } else if a.end_ns > g0 {
        if blocking {
            GapClass::Synchronization
        } else {
            GapClass::LaunchInFlight
        }
    } else if g1 - g0 < latency_ns {
        GapClass::LaunchLatency
    } else {
        GapClass::QueuedDependency
    }
}

/// Merges each process's sync intervals so that ends are monotonic within a
/// process (needed by [`classify`]'s binary search).
pub fn merge_syncs(syncs: &[SyncCall]) -> Vec<SyncCall> {
    let mut out: Vec<SyncCall> = Vec::with_capacity(syncs.len());
    for s in syncs {
        match out.last_mut() {
            Some(l) if l.pid == s.pid && s.start_ns <= l.end_ns => {
                l.end_ns = l.end_ns.max(s.end_ns)
            }
            _ => out.push(*s),
        }
    }
    out
}

/// Length of `[a0, a1) ∩ [b0, b1)`.
pub(crate) fn overlap(a0: i64, a1: i64, b0: i64, b1: i64) -> i64 {
    (a1.min(b1) - a0.max(b0)).max(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn api(start: i64, end: i64) -> ApiCall {
        ApiCall {
            start_ns: start,
            end_ns: end,
            pid: 1,
            tid: 1,
            correlation_id: 1,
            name: crate::nsys::NameRef(0),
        }
    }

    #[test]
    fn classes_follow_the_documented_rules() {
        // Gap [100, 200); a sync from 50 to 150 (the host was blocked for 50
        // ns of the gap).
        let sync = [SyncCall {
            pid: 1,
            start_ns: 50,
            end_ns: 150,
        }];
        assert_eq!(
            classify(100, 200, None, false, &[], 5),
            GapClass::Unattributed
        );
        assert_eq!(
            classify(100, 200, Some(&api(120, 130)), false, &[], 5),
            GapClass::HostBound
        );
        // Launch 10 ns after the sync returned: 10 <= max(5, 50 in sync).
        assert_eq!(
            classify(100, 200, Some(&api(160, 170)), false, &sync, 5),
            GapClass::Synchronization
        );
        // Launch 60 ns after the sync returned: the host was busy elsewhere
        // for longer than it was blocked (60 > max(5, 50)).
        assert_eq!(
            classify(100, 200, Some(&api(210, 220)), false, &sync, 5),
            GapClass::HostBound
        );
        // A sync that ended before the gap began explains nothing.
        let early = [SyncCall {
            pid: 1,
            start_ns: 50,
            end_ns: 99,
        }];
        assert_eq!(
            classify(100, 200, Some(&api(101, 110)), false, &early, 5),
            GapClass::HostBound
        );
        // Another process's sync explains nothing.
        let other = [SyncCall {
            pid: 2,
            start_ns: 50,
            end_ns: 150,
        }];
        assert_eq!(
            classify(100, 200, Some(&api(160, 170)), false, &other, 5),
            GapClass::HostBound
        );
        assert_eq!(
            classify(100, 200, Some(&api(90, 130)), false, &sync, 5),
            GapClass::LaunchInFlight
        );
        // The same call as a blocking cudaMemcpy: it waited for earlier work.
        assert_eq!(
            classify(100, 200, Some(&api(90, 130)), true, &sync, 5),
            GapClass::Synchronization
        );
        assert_eq!(
            classify(100, 200, Some(&api(10, 20)), false, &sync, 5),
            GapClass::QueuedDependency
        );
        assert_eq!(
            classify(100, 104, Some(&api(10, 20)), false, &[], 5),
            GapClass::LaunchLatency
        );
    }

    #[test]
    fn a_blocking_copy_after_a_sync_is_synchronisation() {
        // `cudaDeviceSynchronize` 30..1000, then `cudaMemcpy` 1001..1600
        // whose copy starts at 1500; the last kernel ended at 900, so the gap
        // is [900, 1500). The host was blocked in the sync for 100 ns of the
        // gap and called the copy 1 ns after the sync returned (1 <= max(5000,
        // 100)): synchronisation. The copy is itself a sync interval (it
        // blocks); it must not hide the earlier sync (it used to: the gap
        // read as host-bound).
        let syncs = merge_syncs(&[
            SyncCall {
                pid: 1,
                start_ns: 30,
                end_ns: 1000,
            },
            SyncCall {
                pid: 1,
                start_ns: 1001,
                end_ns: 1600,
            },
        ]);
        assert_eq!(syncs.len(), 2);
        assert_eq!(
            classify(900, 1500, Some(&api(1001, 1600)), true, &syncs, 5000),
            GapClass::Synchronization
        );
        // Without the earlier sync the same copy is host-bound: the host
        // called it 101 ns after the GPU went idle and was not blocked.
        assert_eq!(
            classify(900, 1500, Some(&api(1001, 1600)), true, &syncs[1..], 5000),
            GapClass::HostBound
        );
    }
}
