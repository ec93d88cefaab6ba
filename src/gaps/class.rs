//! Why the GPU idled: the classes of an idle gap and the rules that assign
//! them ([`classify`], documented in `docs/gaps.md`).

use super::evidence::{FixTerms, Tool};
use crate::timeline::{ApiCall, SyncCall, NO_TID};
use serde::{Deserialize, Serialize};

/// The reason a gap happened, judged from the GPU op that ends it and the API
/// call that launched that op. Each class names its fix ([`GapClass::fix`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GapClass {
    /// The launch call started after the GPU went idle: the CPU could not keep up.
    HostBound,
    /// The launch call itself lasted most of the gap (or had started before
    /// it and returned after it): lazy module loading, JIT, a slow driver call.
    LaunchInFlight,
    /// The work was already queued and the gap is below the launch-latency threshold.
    LaunchLatency,
    /// The work was already queued yet the GPU idled: it waited on
    /// something (a `cudaStreamWaitEvent`, the op before on another stream,
    /// or a dependency the trace cannot see: another process or device, a
    /// host callback, a graph's own edges).
    QueuedDependency,
    /// A queued copy or memset while another copy occupied the copy engine
    /// of its direction (another process's copy on the device, another
    /// stream's copy for a stream gap): copy-engine scheduling.
    CopyScheduling,
    /// The launching thread was blocked in a synchronisation call over the gap.
    Synchronization,
    /// Host-bound, but after a sync drained the queue and before the host
    /// got ahead again: the sync's cost, not the host's.
    SyncDrain,
    /// The host was staging a copy from or to pageable memory over the gap.
    PageableCopy,
    /// No API row explains the op: graph replay, device-side launch, trimmed export.
    Unattributed,
}

/// A launch call lasting at least this many `--latency` (50 µs by default;
/// a `cudaLaunchKernel` takes 2-10 µs) that covers most of a gap is a slow
/// launch call (lazy module loading, JIT).
pub const SLOW_CALL_LATENCIES: i64 = 10;

/// Number of [`GapClass`]es.
pub const N_CLASSES: usize = 9;

impl GapClass {
    /// All classes in display order.
    pub const ALL: [GapClass; N_CLASSES] = [
        GapClass::HostBound,
        GapClass::LaunchInFlight,
        GapClass::LaunchLatency,
        GapClass::QueuedDependency,
        GapClass::CopyScheduling,
        GapClass::Synchronization,
        GapClass::SyncDrain,
        GapClass::PageableCopy,
        GapClass::Unattributed,
    ];

    /// The snake_case key used in JSON and CSV.
    pub fn key(self) -> &'static str {
        match self {
            GapClass::HostBound => "host_bound",
            GapClass::LaunchInFlight => "launch_in_flight",
            GapClass::LaunchLatency => "launch_latency",
            GapClass::QueuedDependency => "queued_dependency",
            GapClass::CopyScheduling => "copy_scheduling",
            GapClass::Synchronization => "synchronization",
            GapClass::SyncDrain => "sync_drain",
            GapClass::PageableCopy => "pageable_copy",
            GapClass::Unattributed => "unattributed",
        }
    }

    /// A short human label.
    pub fn label(self) -> &'static str {
        match self {
            GapClass::HostBound => "host-bound",
            GapClass::LaunchInFlight => "slow launch call",
            GapClass::LaunchLatency => "launch latency",
            GapClass::QueuedDependency => "queued/dependency",
            GapClass::CopyScheduling => "copy-engine scheduling",
            GapClass::Synchronization => "synchronisation",
            GapClass::SyncDrain => "after a sync (queue drained)",
            GapClass::PageableCopy => "pageable-copy staging",
            GapClass::Unattributed => "unattributed",
        }
    }

    /// What to do about it, in a few words, in the terms of the tool that
    /// made the input (a PyTorch trace is told `torch.profiler` settings,
    /// an nsys export nsys flags).
    pub fn fix_in(self, terms: FixTerms) -> &'static str {
        match (self, terms.tool) {
            (GapClass::LaunchLatency, _) if terms.graphs => {
                "fewer, larger kernels, or more of the work inside the CUDA graphs the program already replays"
            }
            (GapClass::Unattributed, Tool::Nsys) => {
                "trace the launches (nsys --trace=cuda, the whole run; a CUDA graph replay or a device-side launch has no launch row)"
            }
            (GapClass::Unattributed, Tool::PyTorchProfiler) => {
                "record the launches: torch.profiler activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA] over the whole step (a CUDA graph replay has no launch rows)"
            }
            _ => self.fix(),
        }
    }

    /// What to do about it, in a few words, in no tool's terms (see
    /// [`fix_in`](GapClass::fix_in)).
    pub fn fix(self) -> &'static str {
        match self {
            GapClass::HostBound => "feed the GPU faster (see what the host did)",
            GapClass::LaunchInFlight => {
                "warm up, or set CUDA_MODULE_LOADING=EAGER (lazy module loading / JIT in the launch)"
            }
            GapClass::LaunchLatency => "fewer, larger kernels or CUDA graphs",
            GapClass::QueuedDependency => "find what the queued op waited for (an event, another stream, process or device) and overlap it (more streams, earlier events)",
            GapClass::CopyScheduling => "batch small copies into fewer, larger ones, or spread them over time so one direction's copy engine is not shared",
            GapClass::Synchronization => "remove or defer the sync",
            GapClass::SyncDrain => {
                "remove the sync that drained the queue (the host then runs ahead of the GPU)"
            }
            GapClass::PageableCopy => "pin the host buffer (cudaHostAlloc / pin_memory)",
            GapClass::Unattributed => "trace the launches over the whole run (a CUDA graph replay or a device-side launch has no launch row)",
        }
    }
}

impl GapClass {
    /// The class whose [`key`](GapClass::key) is `key`, if any.
    pub fn from_key(key: &str) -> Option<GapClass> {
        GapClass::ALL.into_iter().find(|c| c.key() == key)
    }
}

/// The human name of an idle class key, as `rooftrace gaps` prints it: the
/// class's [`label`](GapClass::label), or for a key this version does not
/// know (a later report's class) the key with spaces for underscores. The
/// one vocabulary for every renderer that shows classes to people; JSON
/// and CSV keep the keys.
pub fn class_label(key: &str) -> String {
    GapClass::from_key(key).map_or_else(|| key.replace('_', " "), |c| c.label().to_string())
}

/// What the gap-ending op brings to [`classify`].
#[derive(Debug, Clone, Copy)]
pub struct NextOp<'a> {
    /// The call that launched the op, if in the export.
    pub api: Option<&'a ApiCall>,
    /// The call is a blocking copy (`cudaMemcpy`).
    pub blocking: bool,
    /// The op is a memcpy from or to pageable host memory.
    pub pageable: bool,
    /// The op is a memcpy or memset.
    pub copy: bool,
    /// Another copy (or memset) occupied the engine of this op's direction
    /// during the gap: another process's on the device, or for a stream
    /// gap another stream's (see `gaps::engines`).
    pub engine_busy: bool,
    /// The op before the gap ran on another stream (a cross-stream dependency is possible).
    pub cross_stream: bool,
    /// Start of the call that launched the op before the gap, when known.
    pub before_call_ns: Option<i64>,
}

/// The host-side rows [`classify`] looks up, and the threshold.
#[derive(Debug, Clone, Copy)]
pub struct Evidence<'a> {
    /// Sync intervals merged per (pid, tid) by [`merge_syncs`], sorted.
    pub syncs: &'a [SyncCall],
    /// `cudaStreamWaitEvent` calls as (pid, start), sorted.
    pub waits: &'a [(u32, i64)],
    /// Queued gaps shorter than this are launch latency, ns.
    pub latency_ns: i64,
    /// Where the previous look-up into `syncs` landed, for a sweep that
    /// asks in time order (`None`: a plain binary search each time).
    pub hints: Option<&'a SyncHints>,
}

/// The positions in `Evidence::syncs` that [`blocking_sync`]'s two
/// look-ups (the launching thread's syncs, then the process's syncs of
/// unknown thread) last found. A device's gaps come in time order, so the
/// next answer is at or just after the last one: searched outward from it,
/// a look-up costs O(1) amortised instead of a binary search per gap.
#[derive(Debug, Default)]
pub struct SyncHints([std::cell::Cell<usize>; 2]);

/// `s.partition_point(pred)`, searched outward from `hint` (the previous
/// answer, updated) in doubling steps, then by bisection: O(log d) for an
/// answer `d` rows from the hint, so O(1) when successive look-ups move a
/// little, and never more than about twice a binary search.
fn partition_point_near<T>(
    s: &[T],
    hint: &std::cell::Cell<usize>,
    pred: impl Fn(&T) -> bool,
) -> usize {
    let h = hint.get().min(s.len());
    // Every row before `lo` passes `pred`, none from `hi` on.
    let (mut lo, mut hi) = (0, s.len());
    let mut step = 1;
    if h < s.len() && pred(&s[h]) {
        lo = h + 1;
        while h + step < s.len() {
            if !pred(&s[h + step]) {
                hi = h + step;
                break;
            }
            lo = h + step + 1;
            step *= 2;
        }
    } else {
        hi = h;
        while step <= h {
            if pred(&s[h - step]) {
                lo = h - step + 1;
                break;
            }
            hi = h - step;
            step *= 2;
        }
    }
    let at = lo + s[lo..hi].partition_point(pred);
    hint.set(at);
    at
}

/// Why the GPU idled over `[g0, g1)`, judged from `next` (the op whose start
/// ends the gap, and its launching call `a`). Rules, top to bottom:
///
/// 1. no API row → unattributed (graph replay, device-side launch, trimmed export);
/// 2. `a` started at or after `g0` (the GPU was idle before the host asked):
///    the latest sync of the *launching thread* that started before `a`
///    explains the gap when it overlaps `[g0, a.start)` and the host time
///    between its end and `a` is at most `max(latency_ns, time in the sync)`:
///    pageable-copy staging when that sync is a pageable blocking copy, else
///    synchronisation. Otherwise, when `a` itself covers more than half the
///    gap, the call is the cause: pageable-copy staging for a pageable copy,
///    a slow launch call when it lasted at least [`SLOW_CALL_LATENCIES`] ×
///    `latency_ns`. Otherwise host-bound;
/// 3. `a` started before `g0` and returned after it → a blocking copy
///    waited for earlier work (pageable-copy staging when pageable, else
///    synchronisation); any other call: a slow launch call when it lasted at
///    least [`SLOW_CALL_LATENCIES`] × `latency_ns`, else host-bound (launch
///    overhead: the host issues one launch at a time);
/// 4. `a` had returned by `g0` (work queued, GPU idle anyway) → launch
///    latency below `latency_ns`; else copy-engine scheduling when the op is
///    a copy or memset and another copy occupied the engine of its
///    direction during the gap (the evidence, named in the report); else
///    queued/dependency, with or without evidence of what it waited for (a
///    dependency the trace cannot see is still a dependency, never a copy
///    engine's).
pub fn classify(g0: i64, g1: i64, next: &NextOp, ev: &Evidence) -> GapClass {
    let Some(a) = next.api else {
        return GapClass::Unattributed;
    };
    if a.start_ns >= g0 {
        if let Some(s) = blocking_sync(ev, a, g0) {
            return if s.pageable {
                GapClass::PageableCopy
            } else {
                GapClass::Synchronization
            };
        }
        if 2 * overlap(a.start_ns, a.end_ns, g0, g1) > g1 - g0 {
            if next.pageable {
                return GapClass::PageableCopy;
            }
            // A launch of ordinary cost covering a short gap is launch
            // overhead (host-bound); only an unusually long call is slow.
            if a.end_ns - a.start_ns >= SLOW_CALL_LATENCIES * ev.latency_ns {
                return GapClass::LaunchInFlight;
            }
        }
        GapClass::HostBound
    } else if a.end_ns > g0 {
        match (next.blocking, next.pageable) {
            (true, true) => GapClass::PageableCopy,
            (true, false) => GapClass::Synchronization,
            _ if a.end_ns - a.start_ns >= SLOW_CALL_LATENCIES * ev.latency_ns => {
                GapClass::LaunchInFlight
            }
            // An ordinary launch still running when the GPU ran dry: the
            // host issues work no faster than one launch at a time.
            _ => GapClass::HostBound,
        }
    } else if g1 - g0 < ev.latency_ns {
        GapClass::LaunchLatency
    } else if next.copy && next.engine_busy {
        GapClass::CopyScheduling
    } else {
        GapClass::QueuedDependency
    }
}

/// The evidence that a queued op waited on something: the op before ran
/// on another stream, or the process called `cudaStreamWaitEvent` between
/// the two launches. Without it the dependency is one the trace cannot see.
pub fn dependency_seen(next: &NextOp, ev: &Evidence) -> bool {
    next.api
        .is_some_and(|a| next.cross_stream || waited(ev, a, next.before_call_ns))
}

/// True when the process called `cudaStreamWaitEvent` between the launch of
/// the op before the gap (`from`, when known) and `a`.
fn waited(ev: &Evidence, a: &ApiCall, from: Option<i64>) -> bool {
    let from = from.unwrap_or(i64::MIN);
    let i = ev.waits.partition_point(|w| *w < (a.pid, from));
    ev.waits
        .get(i)
        .is_some_and(|w| w.0 == a.pid && w.1 <= a.start_ns)
}

/// The sync that kept the launching thread of `a` blocked over the start of
/// the gap (see [`classify`] rule 2): the thread's own syncs, then the
/// process's syncs of unknown thread.
pub fn blocking_sync<'s>(ev: &Evidence<'s>, a: &ApiCall, g0: i64) -> Option<&'s SyncCall> {
    [a.tid, NO_TID]
        .into_iter()
        .enumerate()
        .find_map(|(k, tid)| {
            // Merged per (pid, tid), sorted by (pid, tid, start), disjoint: the
            // latest one starting strictly before the launch call is the only
            // one that can cover the end of the host's lateness [g0, a.start).
            // Not "at or before": a blocking copy (`cudaMemcpy`) is itself a
            // sync and would hide the `cudaDeviceSynchronize` that returned just
            // before it, while covering nothing of [g0, a.start) itself.
            let before = |s: &SyncCall| (s.pid, s.tid, s.start_ns) < (a.pid, tid, a.start_ns);
            let j = match ev.hints {
                Some(h) => partition_point_near(ev.syncs, &h.0[k], before),
                None => ev.syncs.partition_point(before),
            };
            let s = ev.syncs.get(j.checked_sub(1)?)?;
            let in_sync = overlap(s.start_ns, s.end_ns, g0, a.start_ns);
            let after_sync = a.start_ns - s.end_ns;
            (s.pid == a.pid
                && s.tid == tid
                && in_sync > 0
                && after_sync <= ev.latency_ns.max(in_sync))
            .then_some(s)
        })
}

/// Merges each thread's sync intervals (sorted by (pid, tid, start)) so that
/// ends are monotonic within a thread (needed by [`classify`]'s binary
/// search). Overlaps on one thread are nested rows of one call
/// (`cudaMemcpy` around `cudaMemcpy_v3020`): the merged interval is
/// pageable when either is.
pub fn merge_syncs(syncs: &[SyncCall]) -> Vec<SyncCall> {
    let mut out: Vec<SyncCall> = Vec::with_capacity(syncs.len());
    for s in syncs {
        match out.last_mut() {
            Some(l) if (l.pid, l.tid) == (s.pid, s.tid) && s.start_ns <= l.end_ns => {
                l.end_ns = l.end_ns.max(s.end_ns);
                l.pageable |= s.pageable;
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
    use crate::timeline::NameRef;

    fn api(start: i64, end: i64) -> ApiCall {
        ApiCall {
            start_ns: start,
            end_ns: end,
            pid: 1,
            tid: 1,
            correlation_id: 1,
            name: NameRef(0),
        }
    }

    fn sync(pid: u32, tid: u32, start: i64, end: i64) -> SyncCall {
        SyncCall {
            pid,
            tid,
            start_ns: start,
            end_ns: end,
            correlation_id: 0,
            pageable: false,
            name: NameRef(0),
        }
    }

    fn next(a: Option<&ApiCall>) -> NextOp<'_> {
        NextOp {
            api: a,
            blocking: false,
            pageable: false,
            copy: false,
            engine_busy: false,
            cross_stream: false,
            before_call_ns: None,
        }
    }

    fn ev(syncs: &[SyncCall]) -> Evidence<'_> {
        Evidence {
            syncs,
            waits: &[],
            latency_ns: 5,
            hints: None,
        }
    }

    /// The search from a hint answers what a binary search does, from any
    /// hint (before, at, after the answer, past the end), on slices with
    /// the answer at every place, and leaves the answer as the next hint.
    #[test]
    fn partition_point_near_equals_partition_point() {
        let hint = std::cell::Cell::new(0);
        for n in 0..40usize {
            let v: Vec<usize> = (0..n).collect();
            for cut in 0..=n {
                for h in 0..=n + 3 {
                    hint.set(h);
                    let got = partition_point_near(&v, &hint, |&x| x < cut);
                    assert_eq!(got, cut, "n {n} cut {cut} hint {h}");
                    assert_eq!(hint.get(), cut);
                }
            }
        }
    }

    #[test]
    fn classes_follow_the_documented_rules() {
        // Gap [100, 200); a sync on the launching thread from 50 to 150 (the
        // host was blocked for 50 ns of the gap).
        let s = [sync(1, 1, 50, 150)];
        let c = |a: ApiCall, syncs: &[SyncCall]| classify(100, 200, &next(Some(&a)), &ev(syncs));
        assert_eq!(
            classify(100, 200, &next(None), &ev(&[])),
            GapClass::Unattributed
        );
        assert_eq!(c(api(120, 130), &[]), GapClass::HostBound);
        // Launch 10 ns after the sync returned: 10 <= max(5, 50 in sync).
        assert_eq!(c(api(160, 170), &s), GapClass::Synchronization);
        // Launch 60 ns after the sync returned: the host was busy elsewhere
        // for longer than it was blocked (60 > max(5, 50)).
        assert_eq!(c(api(210, 220), &s), GapClass::HostBound);
        // A sync that ended before the gap began explains nothing.
        assert_eq!(c(api(101, 110), &[sync(1, 1, 50, 99)]), GapClass::HostBound);
        // Another process's or another thread's sync explains nothing (the
        // NCCL watchdog thread's syncs do not block the launching thread).
        assert_eq!(
            c(api(160, 170), &[sync(2, 1, 50, 150)]),
            GapClass::HostBound
        );
        assert_eq!(
            c(api(160, 170), &[sync(1, 2, 50, 150)]),
            GapClass::HostBound
        );
        // A sync row of unknown thread still counts for its process.
        assert_eq!(
            c(api(160, 170), &[sync(1, NO_TID, 50, 150)]),
            GapClass::Synchronization
        );
        // A call in flight over g0: slow when it lasts 10 x 5 ns or more,
        // else ordinary launch overhead (host-bound).
        assert_eq!(c(api(90, 140), &s), GapClass::LaunchInFlight);
        assert_eq!(c(api(90, 130), &s), GapClass::HostBound);
        // The same call as a blocking cudaMemcpy: it waited for earlier work.
        let a = api(90, 130);
        let blocking = NextOp {
            blocking: true,
            ..next(Some(&a))
        };
        assert_eq!(
            classify(100, 200, &blocking, &ev(&s)),
            GapClass::Synchronization
        );
        let pageable = NextOp {
            pageable: true,
            ..blocking
        };
        assert_eq!(
            classify(100, 200, &pageable, &ev(&s)),
            GapClass::PageableCopy
        );
        // Queued work.
        assert_eq!(c(api(10, 20), &s), GapClass::QueuedDependency);
        let a = api(10, 20);
        assert_eq!(
            classify(100, 104, &next(Some(&a)), &ev(&[])),
            GapClass::LaunchLatency
        );
    }

    #[test]
    fn a_call_covering_most_of_the_gap_is_the_cause() {
        // Gap [100, 200): a launch call 110..195 covers 85 of 100 ns.
        let a = api(110, 195);
        assert_eq!(
            classify(100, 200, &next(Some(&a)), &ev(&[])),
            GapClass::LaunchInFlight
        );
        // The same as a pageable copy: the host staged the data.
        let p = NextOp {
            pageable: true,
            blocking: true,
            ..next(Some(&a))
        };
        assert_eq!(classify(100, 200, &p, &ev(&[])), GapClass::PageableCopy);
        // A call of ordinary cost (20 ns < 10 x 5 ns) covering 20 of 25 ns
        // is launch overhead: host-bound.
        let a = api(105, 125);
        assert_eq!(
            classify(100, 125, &next(Some(&a)), &ev(&[])),
            GapClass::HostBound
        );
        // A call covering 40 of 100 ns: the host was busy before it.
        let a = api(160, 240);
        assert_eq!(
            classify(100, 200, &next(Some(&a)), &ev(&[])),
            GapClass::HostBound
        );
    }

    #[test]
    fn a_pageable_copy_before_the_launch_is_staging() {
        // A DtoH cudaMemcpy from pageable memory 50..150 (its copy ended at
        // 100, the host copied out of the staging buffer until 150), then a
        // launch at 155.
        let mut s = sync(1, 1, 50, 150);
        s.pageable = true;
        let a = api(155, 160);
        assert_eq!(
            classify(100, 200, &next(Some(&a)), &ev(&[s])),
            GapClass::PageableCopy
        );
    }

    #[test]
    fn a_queued_copy_is_copy_scheduling_only_when_an_engine_was_busy() {
        // A memset launched long before the gap (10..20), the gap [100,
        // 200): without another copy in its direction during the gap it
        // waited on something the trace cannot see (queued/dependency),
        // whatever the streams and wait events say.
        let a = api(10, 20);
        let copy = NextOp {
            copy: true,
            before_call_ns: Some(5),
            ..next(Some(&a))
        };
        assert_eq!(
            classify(100, 200, &copy, &ev(&[])),
            GapClass::QueuedDependency
        );
        let e = Evidence {
            waits: &[],
            ..ev(&[])
        };
        assert!(!dependency_seen(&copy, &e));
        // Another copy in its direction ran during the gap: copy-engine
        // scheduling, even across streams.
        let busy = NextOp {
            engine_busy: true,
            ..copy
        };
        assert_eq!(
            classify(100, 200, &busy, &ev(&[])),
            GapClass::CopyScheduling
        );
        let busy_other_stream = NextOp {
            cross_stream: true,
            ..busy
        };
        assert_eq!(
            classify(100, 200, &busy_other_stream, &ev(&[])),
            GapClass::CopyScheduling
        );
        // A kernel is never copy scheduling.
        let kernel = NextOp {
            copy: false,
            ..busy
        };
        assert_eq!(
            classify(100, 200, &kernel, &ev(&[])),
            GapClass::QueuedDependency
        );
        // A cudaStreamWaitEvent at 8, between the two launches (5 and
        // 10..20): a dependency seen.
        let waits = [(1, 8)];
        let e = Evidence {
            waits: &waits,
            ..ev(&[])
        };
        assert!(dependency_seen(&copy, &e));
        // One before the earlier launch is no evidence.
        let waits = [(1, 2)];
        let e = Evidence {
            waits: &waits,
            ..ev(&[])
        };
        assert!(!dependency_seen(&copy, &e));
    }

    #[test]
    fn a_blocking_copy_after_a_sync_is_synchronisation() {
        // `cudaDeviceSynchronize` 30..1000, then `cudaMemcpy` 1001..1600
        // whose copy starts at 1500; the last kernel ended at 900, so the gap
        // is [900, 1500). The host was blocked in the sync for 100 ns of the
        // gap and called the copy 1 ns after the sync returned (1 <= max(5000,
        // 100)): synchronisation. The copy is itself a sync interval (it
        // blocks); it must not hide the earlier sync.
        let syncs = merge_syncs(&[sync(1, 1, 30, 1000), sync(1, 1, 1001, 1600)]);
        assert_eq!(syncs.len(), 2);
        let a = api(1001, 1600);
        let n = NextOp {
            blocking: true,
            ..next(Some(&a))
        };
        let e = |s| Evidence {
            syncs: s,
            waits: &[],
            latency_ns: 5000,
            hints: None,
        };
        assert_eq!(
            classify(900, 1500, &n, &e(&syncs)),
            GapClass::Synchronization
        );
        // Without the earlier sync the same copy is host-bound: the host
        // called it 101 ns after the GPU went idle and was not blocked; the
        // call covers 499 of 600 ns but lasts 599 ns, far below 10 x 5 us:
        // ordinary call cost, not a slow call.
        assert_eq!(
            classify(900, 1500, &n, &e(&syncs[1..])),
            GapClass::HostBound
        );
    }

    #[test]
    fn the_launching_threads_own_sync_ranks_before_a_thread_less_one() {
        // Gap [100, 200), launch at 160. The thread's own sync 50..150 and
        // a SYNCHRONIZATION row without a thread 40..158 both explain it;
        // the thread's own is tried first and is the one named.
        let own = SyncCall {
            pageable: true,
            ..sync(1, 1, 50, 150)
        };
        let threadless = sync(1, NO_TID, 40, 158);
        let syncs = merge_syncs(&[own, threadless]);
        let a = api(160, 170);
        let found = blocking_sync(&ev(&syncs), &a, 100).unwrap();
        assert_eq!(found.tid, 1);
        // So a pageable blocking copy on the thread makes it staging, not
        // synchronisation, although the thread-less row covers more.
        assert_eq!(
            classify(100, 200, &next(Some(&a)), &ev(&syncs)),
            GapClass::PageableCopy
        );
        // Without the thread's own sync the thread-less row explains it.
        assert_eq!(
            classify(100, 200, &next(Some(&a)), &ev(&[threadless])),
            GapClass::Synchronization
        );
    }

    #[test]
    fn a_pageable_async_copy_is_staging_only_when_it_covers_the_gap() {
        // `cudaMemcpyAsync` from pageable memory: CUDA stages it through a
        // pinned buffer and returns when the host copy is done, so it holds
        // the host like a blocking copy. Covering 85 of 100 ns of the gap
        // (called after g0): staging.
        let a = api(110, 195);
        let async_pageable = NextOp {
            pageable: true,
            blocking: false,
            ..next(Some(&a))
        };
        assert_eq!(
            classify(100, 200, &async_pageable, &ev(&[])),
            GapClass::PageableCopy
        );
        // Called before g0 and returning after it, it is not a blocking
        // copy: it did not wait for the work queued before it, so it is
        // launch overhead (host-bound) or, when long, a slow launch call.
        let a = api(90, 130);
        let straddling = NextOp {
            api: Some(&a),
            ..async_pageable
        };
        assert_eq!(
            classify(100, 200, &straddling, &ev(&[])),
            GapClass::HostBound
        );
    }

    #[test]
    fn without_a_launch_before_the_gap_any_earlier_wait_is_evidence() {
        // The op before the gap has no launch row (trimmed export, graph
        // replay): "between the two launches" runs from the start of the
        // trace, so a cudaStreamWaitEvent of the process at any time before
        // this launch (10..20) is evidence of a dependency.
        let a = api(10, 20);
        let copy = NextOp {
            copy: true,
            before_call_ns: None,
            ..next(Some(&a))
        };
        let waits = [(1, 2)];
        let e = Evidence {
            waits: &waits,
            ..ev(&[])
        };
        assert!(dependency_seen(&copy, &e));
        // A wait after this launch is not.
        let waits = [(1, 25)];
        let e = Evidence {
            waits: &waits,
            ..ev(&[])
        };
        assert!(!dependency_seen(&copy, &e));
    }
}
