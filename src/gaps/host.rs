//! What the host did during a host-bound gap: the finer level under the
//! host-bound class ([`HostDetail`]), judged on the launching thread over
//! the host's lateness `[gap start, launch call start)` from the CUDA API
//! rows, OS runtime rows (`OSRT_API`), profiler overhead rows and NVTX
//! ranges. Documented in `docs/gaps.md`.

use super::class::overlap;
use super::evidence::{
    is_input_wait, CallFamily, HostDetail, HostFacts, RangeFamily, CALL_DETAILS, N_DETAILS,
};
use super::nvtx_index::NvtxIndex;
use crate::timeline::{GpuOp, HostSpanKind, NameRef, SyncCall, Timeline, NO_API};

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

    /// The verdict typed: the detail and the families of what it names.
    pub fn typed(&self, tl: &Timeline) -> HostFacts {
        HostFacts {
            detail: self.detail,
            call_family: self.family(tl),
            range_family: self.range_family(tl),
        }
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
) -> Option<HostFacts> {
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

/// Longest scan back through the process's API calls for one window.
const MAX_SCAN: usize = 4096;

/// What the thread of the call `tl.api[call]` did over `[w0, w1)` (`syncs`
/// merged per thread; for a host-bound gap the window runs from the gap
/// start to the launch call's end or the gap end, for a queued gap it is
/// the gap, after the call returned): the launch call itself, the other
/// CUDA calls before or after it (allocation or other), OS runtime calls
/// outside those CUDA calls (an OS call nested in a CUDA call is that
/// call's time: the `ioctl` inside a `cudaMallocAsync` growing its pool is
/// the allocation), waits for input among them ([`is_input_wait`]) and
/// profiler overhead of that thread that overlap the window, each summed;
/// the largest wins when it exceeds the rest of the window. Otherwise the
/// rest is CPU work, named after an NVTX range of the thread only when
/// that range covers more than [`RANGE_NAMES_SHARE`] of the window
/// ([`main_range`]).
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
        // Calls after the launch call that start in the window (a queued
        // gap's window opens after the launch call returned).
        for c in tl.api[call as usize + 1..].iter().take(MAX_SCAN) {
            if c.pid != a.pid || c.start_ns >= w1 {
                break;
            }
            if c.tid == a.tid {
                let d = if tl.is_alloc(c.name) {
                    HostDetail::Alloc
                } else {
                    HostDetail::CudaApi
                };
                cuda_call(d, c.start_ns, c.end_ns, c.name);
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
                    if is_input_wait(tl.name(h.name), h.end_ns - h.start_ns) {
                        HostDetail::InputWait
                    } else {
                        HostDetail::OsRuntime
                    },
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
    let best = CALL_DETAILS
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
                .and_then(|a| main_range(tl, nvtx, a.pid, a.tid, (w0, w1)));
            match range {
                Some((i, covered_ns)) => HostVerdict {
                    detail: HostDetail::Nvtx,
                    what: Some(What::Range(i)),
                    covered_ns,
                },
                None => HostVerdict {
                    detail: HostDetail::CpuWork,
                    what: None,
                    covered_ns: cpu,
                },
            }
        }
    }
}

/// An NVTX range names the host's CPU time over a window only when the
/// ranges of its text cover more than this share of the window: a 278 µs
/// `aten::matmul` does not explain an 18.6 ms stretch of untraced CPU time.
pub const RANGE_NAMES_SHARE: f64 = 0.5;

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
/// (pid, tid), with the time its text's ranges cover (their union, so
/// nested ranges of one text count once): among the texts covering more
/// than [`RANGE_NAMES_SHARE`] of the window, one of a known family
/// (PyTorch, MPI, NCCL) first, then the most covered, then the
/// latest-starting (innermost) range of that text; `None` when no text
/// covers that much (the window is CPU work).
fn main_range(
    tl: &Timeline,
    nvtx: &NvtxIndex,
    pid: u32,
    tid: u32,
    (w0, w1): (i64, i64),
) -> Option<(usize, i64)> {
    let need = ((w1 - w0) as f64 * RANGE_NAMES_SHARE) as i64;
    // Latest-starting texts first, reversed: on a tie `max_by_key` keeps
    // the last, the latest-starting (innermost) text.
    text_unions(tl, nvtx, pid, tid, (w0, w1))
        .into_iter()
        .rev()
        .filter(|t| t.covered_ns > need)
        .max_by_key(|t| (RangeFamily::of(t.text).is_some(), t.covered_ns))
        .map(|t| (t.innermost, t.covered_ns))
}

/// The ranges of one text overlapping a window.
struct TextCover<'t> {
    text: &'t str,
    /// The union of its ranges inside the window, ns.
    covered_ns: i64,
    /// The latest-starting of its ranges (an index into [`Timeline::nvtx`]).
    innermost: usize,
}

/// The NVTX ranges of thread (pid, tid) overlapping `[w0, w1)`, grouped by
/// text, each text's time the union of its ranges' parts inside the
/// window (nested ranges of one text count once: never more than the
/// window).
fn text_unions<'t>(
    tl: &'t Timeline,
    nvtx: &NvtxIndex,
    pid: u32,
    tid: u32,
    (w0, w1): (i64, i64),
) -> Vec<TextCover<'t>> {
    // (text, clipped start, clipped end, place in the look-up's order
    // (latest start first), index).
    let mut parts: Vec<(&'t str, i64, i64, usize, usize)> = nvtx
        .overlapping(pid, tid, w0, w1)
        .enumerate()
        .map(|(place, (i, _))| {
            let r = &tl.nvtx[i];
            (&*r.text, r.start_ns.max(w0), r.end_ns.min(w1), place, i)
        })
        .collect();
    // One sort by text then time, one pass per text: the work grows as
    // parts × log(parts) however many texts share the window (a search of
    // the texts so far for each part took 4.9 s on an export of 13.5 k
    // ranges). Each text's innermost is its part found first (least
    // place), and the texts come out in that order.
    parts.sort_unstable_by(|a, b| (a.0, a.1, a.2).cmp(&(b.0, b.1, b.2)));
    let mut out: Vec<(usize, TextCover<'t>)> = Vec::new();
    for same in parts.chunk_by(|a, b| a.0 == b.0) {
        let mut covered = 0i64;
        let mut cur: Option<(i64, i64)> = None;
        for p in same {
            cur = match cur {
                Some((s, e)) if p.1 <= e => Some((s, e.max(p.2))),
                Some((s, e)) => {
                    covered += e - s;
                    Some((p.1, p.2))
                }
                None => Some((p.1, p.2)),
            };
        }
        covered += cur.map_or(0, |(s, e)| e - s);
        let first = same.iter().min_by_key(|p| p.3).unwrap_or(&same[0]);
        out.push((
            first.3,
            TextCover {
                text: first.0,
                covered_ns: covered,
                innermost: first.4,
            },
        ));
    }
    out.sort_unstable_by_key(|t| t.0);
    out.into_iter().map(|t| t.1).collect()
}

/// The NVTX ranges of thread (pid, tid) overlapping `[w0, w1)`, each text's
/// time the union of its ranges inside the window (so no share exceeds
/// the window), most time first, at most `max` texts: (text, ns).
pub(crate) fn range_shares<'t>(
    tl: &'t Timeline,
    nvtx: &NvtxIndex,
    pid: u32,
    tid: u32,
    (w0, w1): (i64, i64),
    max: usize,
) -> Vec<(&'t str, i64)> {
    let mut by_text: Vec<(&'t str, i64)> = text_unions(tl, nvtx, pid, tid, (w0, w1))
        .into_iter()
        .map(|t| (t.text, t.covered_ns))
        .collect();
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

#[cfg(test)]
mod tests {
    use super::outside;

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
