//! What the host did during a host-bound gap: the finer level under the
//! host-bound class ([`HostDetail`]), judged on the launching thread over
//! the host's lateness `[gap start, launch call start)` from the CUDA API
//! rows, OS runtime rows (`OSRT_API`), profiler overhead rows and NVTX
//! ranges. Documented in `docs/gaps.md`.

use super::class::{blocking_sync, overlap};
use super::evidence::{CallFamily, HostDetail, RangeFamily, N_DETAILS};
use super::GapClass;
use crate::nsys::{GpuOp, HostSpanKind, NameRef, NvtxRange, SyncCall, Timeline, NO_API};

/// The verdict on one host window: the detail, what it names (call,
/// OS function or range text) and the time it covered, ns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HostVerdict {
    /// What the host did.
    pub detail: HostDetail,
    /// The longest call of that kind, or the NVTX range.
    pub what: Option<What>,
    /// Time of the window it covered, ns.
    pub covered_ns: i64,
}

impl HostVerdict {
    /// The family of the CUDA call the verdict names (launch, allocation,
    /// other CUDA calls); `None` for OS calls, ranges and CPU work.
    pub fn family(&self, tl: &Timeline) -> Option<CallFamily> {
        match (self.detail, self.what) {
            (
                HostDetail::LaunchCall | HostDetail::Alloc | HostDetail::CudaApi,
                Some(What::Name(n)),
            ) => Some(CallFamily::of(tl.name(n))),
            _ => None,
        }
    }

    /// The family of the NVTX range the verdict names (PyTorch, MPI,
    /// NCCL); `None` for calls, CPU work and a user's own range.
    pub fn range_family(&self, tl: &Timeline) -> Option<RangeFamily> {
        match self.what {
            Some(What::Range(i)) => RangeFamily::of(&tl.nvtx[i].text),
            _ => None,
        }
    }

    /// The verdict typed: (detail, call family, range family).
    pub fn typed(&self, tl: &Timeline) -> (HostDetail, Option<CallFamily>, Option<RangeFamily>) {
        (self.detail, self.family(tl), self.range_family(tl))
    }
}

/// The typed evidence of the host-bound gap `[g0, g1)` ended by `op`, as
/// the sweep judges it (over the host's lateness, up to the end of the
/// launch call); `None` when the op has no launching call.
pub(crate) fn gap_evidence(
    tl: &Timeline,
    syncs: &[SyncCall],
    nvtx: &NvtxIndex,
    op: &GpuOp,
    g0: i64,
    g1: i64,
) -> Option<(HostDetail, Option<CallFamily>, Option<RangeFamily>)> {
    let a = tl.api_of(op)?;
    Some(host_verdict(tl, syncs, nvtx, op.api, g0, a.end_ns.min(g1)).typed(tl))
}

/// A thing named in a [`HostVerdict`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum What {
    /// A function name.
    Name(NameRef),
    /// The index of an NVTX range in [`Timeline::nvtx`].
    Range(usize),
}

/// One NVTX range in the index: its thread, interval and place in
/// [`Timeline::nvtx`]; ordered by (pid, tid, start, end, index).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct IndexedRange {
    pid: u32,
    tid: u32,
    start_ns: i64,
    end_ns: i64,
    index: usize,
}

/// NVTX ranges by (pid, tid, start): the index the detail looks up.
pub(crate) struct NvtxIndex {
    ranges: Vec<IndexedRange>,
    /// `reach[i]`: the latest end of the ranges of `ranges[i]`'s thread up
    /// to `i`. A look back from a time stops at the first range whose reach
    /// is at or before the times it needs: no earlier range of that thread
    /// is still open then. Disjoint ranges (one per step) are thus passed
    /// over in O(1) per gap, not [`MAX_RANGES_BACK`] each.
    reach: Vec<i64>,
}

/// Ranges looked at, back from a time, on one thread (nesting deeper than
/// this is not real; the bound keeps a hostile export's work linear).
const MAX_RANGES_BACK: usize = 256;

impl NvtxIndex {
    /// Indexes the timeline's closed NVTX ranges.
    pub(crate) fn new(tl: &Timeline) -> NvtxIndex {
        NvtxIndex::of(&tl.nvtx)
    }

    /// Indexes `ranges` (closed NVTX ranges, in any order).
    fn of(ranges: &[NvtxRange]) -> NvtxIndex {
        let mut v: Vec<IndexedRange> = ranges
            .iter()
            .enumerate()
            .map(|(index, r)| IndexedRange {
                pid: r.pid,
                tid: r.tid,
                start_ns: r.start_ns,
                end_ns: r.end_ns,
                index,
            })
            .collect();
        v.sort_unstable();
        let mut reach = Vec::with_capacity(v.len());
        let mut prev: Option<&IndexedRange> = None;
        for x in &v {
            let r = match (prev, reach.last()) {
                (Some(p), Some(&r)) if (p.pid, p.tid) == (x.pid, x.tid) => x.end_ns.max(r),
                _ => x.end_ns,
            };
            reach.push(r);
            prev = Some(x);
        }
        NvtxIndex { ranges: v, reach }
    }

    /// The ranges of thread (pid, tid) starting at or before `t`, latest
    /// first (at most [`MAX_RANGES_BACK`]), up to the last one that some
    /// range of the thread (it or an earlier one) is open after `open_after`:
    /// the ranges left out all end at or before `open_after`.
    fn back_from(
        &self,
        pid: u32,
        tid: u32,
        t: i64,
        open_after: i64,
    ) -> impl Iterator<Item = &IndexedRange> {
        let j = self
            .ranges
            .partition_point(|x| (x.pid, x.tid, x.start_ns) <= (pid, tid, t));
        self.ranges[..j]
            .iter()
            .zip(&self.reach[..j])
            .rev()
            .take(MAX_RANGES_BACK)
            .take_while(move |(x, &reach)| (x.pid, x.tid) == (pid, tid) && reach > open_after)
            .map(|x| x.0)
    }

    /// The innermost range of thread (pid, tid) that contains `t` (the
    /// latest-starting one among the last 256 starting at or before `t`).
    pub(crate) fn innermost(&self, pid: u32, tid: u32, t: i64) -> Option<usize> {
        self.back_from(pid, tid, t, t)
            .find(|x| x.end_ns > t)
            .map(|x| x.index)
    }

    /// The ranges of thread (pid, tid) overlapping `[w0, w1)`, each with
    /// its overlap, ns (latest-starting first).
    pub(crate) fn overlapping(
        &self,
        pid: u32,
        tid: u32,
        w0: i64,
        w1: i64,
    ) -> impl Iterator<Item = (usize, i64)> + '_ {
        self.back_from(pid, tid, w1 - 1, w0)
            .map(move |x| (x.index, overlap(x.start_ns, x.end_ns, w0, w1)))
            .filter(|x| x.1 > 0)
    }
}

/// Longest scan back through the process's API calls for one window.
const MAX_SCAN: usize = 4096;

/// What the thread of the call `tl.api[call]` did over `[w0, w1)` (`syncs`
/// merged per thread; the window runs from the gap start to the launch
/// call's end or the gap end): the launch call itself, the other CUDA calls
/// (allocation or other), OS runtime calls outside those CUDA calls (an OS
/// call nested in a CUDA call is that call's time: the `ioctl` inside a
/// `cudaMallocAsync` growing its pool is the allocation) and profiler
/// overhead of that thread that overlap the window, each summed; the
/// largest wins, and the rest of the window is CPU work — named by the NVTX
/// range of the thread that overlaps the window most (a PyTorch, MPI or
/// NCCL range first), or the innermost one around the launch call's start.
pub(crate) fn host_verdict(
    tl: &Timeline,
    syncs: &[SyncCall],
    nvtx: &NvtxIndex,
    call: u32,
    w0: i64,
    w1: i64,
) -> HostVerdict {
    let mut sums = [0i64; N_DETAILS];
    let mut longest: [(i64, Option<What>); N_DETAILS] = [(0, None); N_DETAILS];
    let mut note = |d: HostDetail, ns: i64, w: What| {
        sums[d as usize] += ns;
        if ns > longest[d as usize].0 {
            longest[d as usize] = (ns, Some(w));
        }
    };
    if call != NO_API && w1 > w0 {
        let a = &tl.api[call as usize];
        // CUDA calls of the thread in the window, kept only when OS rows
        // exist to be nested in them.
        let mut cuda: Vec<(i64, i64)> = Vec::new();
        let keep_cuda = !tl.host_spans.is_empty();
        let mut cuda_call = |d: HostDetail, c0: i64, c1: i64, name: NameRef| {
            let ns = overlap(c0, c1, w0, w1);
            if ns > 0 {
                note(d, ns, What::Name(name));
                if keep_cuda {
                    cuda.push((c0, c1));
                }
            }
        };
        cuda_call(HostDetail::LaunchCall, a.start_ns, a.end_ns, a.name);
        // Correlation ids grow with call start within a process: walk back
        // until this thread's first call starting before the window (calls
        // on one thread do not overlap, so none earlier can reach into it).
        for c in tl.api[..call as usize].iter().rev().take(MAX_SCAN) {
            if c.pid != a.pid {
                break;
            }
            if c.tid != a.tid {
                continue;
            }
            let d = if tl.is_alloc(c.name) {
                HostDetail::Alloc
            } else {
                HostDetail::CudaApi
            };
            cuda_call(d, c.start_ns, c.end_ns, c.name);
            if c.start_ns < w0 {
                break;
            }
        }
        for s in thread_slice(syncs, a.pid, a.tid, |s| (s.pid, s.tid, s.start_ns), w0) {
            if s.start_ns >= w1 {
                break;
            }
            if tl.is_blocking_name(s.name) {
                continue; // a blocking copy is also a launch: counted above
            }
            cuda_call(HostDetail::CudaApi, s.start_ns, s.end_ns, s.name);
        }
        cuda.sort_unstable();
        for h in thread_slice(
            &tl.host_spans,
            a.pid,
            a.tid,
            |h| (h.pid, h.tid, h.start_ns),
            w0,
        ) {
            if h.start_ns >= w1 {
                break;
            }
            let (d, ns) = match h.kind {
                HostSpanKind::OsRuntime => (
                    HostDetail::OsRuntime,
                    outside(&cuda, h.start_ns.max(w0), h.end_ns.min(w1)),
                ),
                HostSpanKind::ProfilerOverhead => (
                    HostDetail::ProfilerOverhead,
                    overlap(h.start_ns, h.end_ns, w0, w1),
                ),
            };
            note(d, ns, What::Name(h.name));
        }
    }
    let called: i64 = sums.iter().sum();
    let cpu = (w1 - w0 - called).max(0);
    let best = HostDetail::ALL[..5]
        .iter()
        .copied()
        .max_by_key(|d| (sums[*d as usize], std::cmp::Reverse(*d as usize)))
        .filter(|d| sums[*d as usize] > cpu);
    match best {
        Some(d) => HostVerdict {
            detail: d,
            what: longest[d as usize].1,
            covered_ns: sums[d as usize],
        },
        None => {
            let range = (call != NO_API)
                .then(|| &tl.api[call as usize])
                .and_then(|a| main_range(tl, nvtx, a.pid, a.tid, a.start_ns.min(w1), (w0, w1)));
            HostVerdict {
                detail: if range.is_some() {
                    HostDetail::Nvtx
                } else {
                    HostDetail::CpuWork
                },
                what: range.map(What::Range),
                covered_ns: cpu,
            }
        }
    }
}

/// The time of `[s0, s1)` outside the sorted, disjoint intervals `inside`, ns.
fn outside(inside: &[(i64, i64)], s0: i64, s1: i64) -> i64 {
    if s1 <= s0 {
        return 0;
    }
    let from = inside.partition_point(|c| c.1 <= s0);
    let covered: i64 = inside[from..]
        .iter()
        .take_while(|c| c.0 < s1)
        .map(|c| overlap(c.0, c.1, s0, s1))
        .sum();
    (s1 - s0 - covered).max(0)
}

/// The NVTX range that names the host's CPU time over `[w0, w1)` on thread
/// (pid, tid): among the ranges overlapping the window, one of a known
/// family (PyTorch, MPI, NCCL) first, then the most overlap, then the
/// latest start (the innermost); without any, the innermost range around
/// `t` (the launch call's start).
fn main_range(
    tl: &Timeline,
    nvtx: &NvtxIndex,
    pid: u32,
    tid: u32,
    t: i64,
    (w0, w1): (i64, i64),
) -> Option<usize> {
    nvtx.overlapping(pid, tid, w0, w1)
        .max_by_key(|&(i, ns)| (RangeFamily::of(&tl.nvtx[i].text).is_some(), ns))
        .map(|x| x.0)
        .or_else(|| nvtx.innermost(pid, tid, t))
}

/// The NVTX ranges of thread (pid, tid) overlapping `[w0, w1)`, summed per
/// text, most time first, at most `max` texts: (text, ns).
pub(crate) fn range_shares<'t>(
    tl: &'t Timeline,
    nvtx: &NvtxIndex,
    pid: u32,
    tid: u32,
    (w0, w1): (i64, i64),
    max: usize,
) -> Vec<(&'t str, i64)> {
    let mut by_text: Vec<(&'t str, i64)> = Vec::new();
    for (i, ns) in nvtx.overlapping(pid, tid, w0, w1) {
        let text: &'t str = &tl.nvtx[i].text;
        match by_text.iter_mut().find(|x| x.0 == text) {
            Some(x) => x.1 += ns,
            None => by_text.push((text, ns)),
        }
    }
    by_text.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(b.0)));
    by_text.truncate(max);
    by_text
}

/// The rows of thread (pid, tid) from the first whose key (third element)
/// reaches `from`, in a slice sorted by (pid, tid, …); rows of other threads
/// after it are cut off by the caller's time test or by the thread check.
fn thread_slice<T>(
    rows: &[T],
    pid: u32,
    tid: u32,
    key: impl Fn(&T) -> (u32, u32, i64),
    from: i64,
) -> impl Iterator<Item = &T> {
    let mut i = rows.partition_point(|r| {
        let k = key(r);
        (k.0, k.1) < (pid, tid) || ((k.0, k.1) == (pid, tid) && k.2 < from)
    });
    // One row back: a call that started before `from` may reach into the
    // window (rows of one thread do not overlap, so only the last one can).
    if i > 0 && {
        let k = key(&rows[i - 1]);
        (k.0, k.1) == (pid, tid)
    } {
        i -= 1;
    }
    rows[i..].iter().take_while(move |r| {
        let k = key(r);
        (k.0, k.1) == (pid, tid)
    })
}

/// Longest name, in characters, that [`describe`] puts in its sentence: the
/// sentence is built per gap, so a name in it is cut (a real call name is
/// under 40 characters); the whole name is in the report's name table.
pub(crate) const HOST_NAME_CHARS: usize = 120;

/// NVTX range texts named per gap, with their share.
pub(crate) const RANGES_PER_GAP: usize = 3;

/// What [`describe`] found over one gap.
#[derive(Debug, Default)]
pub(crate) struct Described<'t> {
    /// What the host did, in words.
    pub(crate) host: Option<String>,
    /// The innermost NVTX range of the launching thread around the call.
    pub(crate) context: Option<&'t str>,
    /// For a host-bound gap, the verdict and the family of what it names.
    pub(crate) verdict: Option<(HostDetail, Option<CallFamily>, Option<RangeFamily>)>,
    /// The launching thread's NVTX ranges overlapping the gap: (text, ns).
    pub(crate) ranges: Vec<(&'t str, i64)>,
}

/// What the host did over a gap `[g0, g1)` of class `class` ended by `op`:
/// in words, as typed evidence, and the NVTX ranges of the launching
/// thread (around the launch call, and overlapping the gap).
pub(crate) fn describe<'t>(
    tl: &'t Timeline,
    syncs: &[SyncCall],
    nvtx: &NvtxIndex,
    class: GapClass,
    op: &GpuOp,
    g0: i64,
    g1: i64,
) -> Described<'t> {
    let Some(a) = tl.api_of(op) else {
        return Described::default();
    };
    let cut = |s: &str| crate::units::ellipsize(s, HOST_NAME_CHARS);
    let last_sync = || {
        let j = syncs.partition_point(|s| (s.pid, s.tid, s.start_ns) < (a.pid, a.tid, g0));
        syncs[..j]
            .last()
            .filter(|s| (s.pid, s.tid) == (a.pid, a.tid))
            .map(|s| cut(tl.name(s.name)))
    };
    let mut verdict = None;
    let host = match class {
        GapClass::HostBound => {
            let v = host_verdict(tl, syncs, nvtx, op.api, g0, a.end_ns.min(g1));
            verdict = Some(v.typed(tl));
            let what = match v.what {
                Some(What::Name(n)) => format!("{} ", cut(tl.name(n))),
                Some(What::Range(i)) => format!("`{}` ", cut(&tl.nvtx[i].text)),
                None => String::new(),
            };
            Some(format!(
                "{what}({}, {})",
                v.detail.label(),
                crate::units::duration_ns(v.covered_ns as f64)
            ))
        }
        GapClass::SyncDrain => last_sync().map(|n| format!("after {n}")),
        GapClass::Synchronization | GapClass::PageableCopy => {
            let ev = super::class::Evidence {
                syncs,
                waits: &[],
                latency_ns: i64::MAX,
                hints: None,
            };
            blocking_sync(&ev, a, g0)
                .map(|s| cut(tl.name(s.name)))
                .or_else(|| Some(cut(tl.name(a.name))))
        }
        GapClass::LaunchInFlight => Some(cut(tl.name(a.name))),
        _ => None,
    };
    Described {
        host,
        context: nvtx
            .innermost(a.pid, a.tid, a.start_ns)
            .map(|i| &*tl.nvtx[i].text),
        verdict,
        ranges: range_shares(tl, nvtx, a.pid, a.tid, (g0, g1), RANGES_PER_GAP),
    }
}

#[cfg(test)]
mod tests {
    use super::{outside, NvtxIndex};
    use crate::nsys::NvtxRange;

    /// The index's answers equal a scan of every range: nested ranges
    /// (an outer range open over many disjoint inner ones), disjoint
    /// steps, an empty range and a second thread whose ranges interleave
    /// in time. The look-back stops early (on `reach`) only past ranges
    /// that cannot contain or overlap, so nothing may differ.
    #[test]
    fn nvtx_lookups_equal_a_full_scan() {
        let r = |tid: u32, start_ns: i64, end_ns: i64| NvtxRange {
            start_ns,
            end_ns,
            pid: 7,
            tid,
            text: "r".into(),
        };
        let mut ranges = vec![r(1, 0, 1_000), r(1, 400, 400), r(2, 5, 995)];
        for k in 0..40 {
            ranges.push(r(1, 10 + 20 * k, 25 + 20 * k)); // disjoint steps in the outer one
            ranges.push(r(2, 12 + 20 * k, 30 + 20 * k)); // overlapping each other
        }
        ranges.push(r(1, 1_100, 1_200)); // after the outer one closed
        let idx = NvtxIndex::of(&ranges);
        let mut sorted: Vec<(u32, i64, i64, usize)> = ranges
            .iter()
            .enumerate()
            .map(|(i, x)| (x.tid, x.start_ns, x.end_ns, i))
            .collect();
        sorted.sort_unstable();
        for tid in [1, 2, 3] {
            let mine = || sorted.iter().filter(move |x| x.0 == tid);
            for t in (-5..1_250).step_by(3) {
                let want = mine().rfind(|x| x.1 <= t && x.2 > t).map(|x| x.3);
                assert_eq!(idx.innermost(7, tid, t), want, "innermost tid {tid} t {t}");
                for w in [1, 7, 40, 300] {
                    let (w0, w1) = (t, t + w);
                    let want: Vec<(usize, i64)> = mine()
                        .filter(|x| x.1 < w1)
                        .map(|x| (x.3, x.2.min(w1) - x.1.max(w0)))
                        .filter(|x| x.1 > 0)
                        .rev()
                        .collect();
                    let got: Vec<(usize, i64)> = idx.overlapping(7, tid, w0, w1).collect();
                    assert_eq!(got, want, "overlapping tid {tid} [{w0}, {w1})");
                }
            }
        }
    }

    #[test]
    fn time_outside_nested_calls() {
        // An OS call 100..200 with CUDA calls 90..120 and 150..160 around
        // parts of it: 200 - 100 - 20 - 10 = 70 ns is its own.
        assert_eq!(outside(&[(90, 120), (150, 160)], 100, 200), 70);
        // Wholly inside a CUDA call: none of it is the OS call's.
        assert_eq!(outside(&[(50, 250)], 100, 200), 0);
        assert_eq!(outside(&[], 100, 200), 100);
        assert_eq!(outside(&[(300, 400)], 100, 200), 100);
    }
}
