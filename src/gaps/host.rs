//! What the host did during a host-bound gap: the finer level under the
//! host-bound class ([`HostDetail`]), judged on the launching thread over
//! the host's lateness `[gap start, launch call start)` from the CUDA API
//! rows, OS runtime rows (`OSRT_API`), profiler overhead rows and NVTX
//! ranges. Documented in `docs/gaps.md`.

use super::class::{blocking_sync, overlap};
use super::model::ClassTotal;
use super::GapClass;
use crate::nsys::{GpuOp, HostSpanKind, NameRef, SyncCall, Timeline, NO_API};
use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};

/// What the launching thread did while the GPU waited for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum HostDetail {
    /// The launch call itself (launch overhead): the host issues one op at a time.
    LaunchCall,
    /// `cudaMalloc`/`cudaMallocAsync`/`cudaFree` and other allocation calls.
    Alloc,
    /// Other CUDA runtime/driver calls.
    CudaApi,
    /// OS runtime calls (`read`, `getc`, `fflush`, locks): traced with `--trace=osrt`.
    OsRuntime,
    /// Profiler overhead (`PROFILER_OVERHEAD`: buffer flushes): the profiler, not the program.
    ProfilerOverhead,
    /// No call: inside an NVTX range of the thread (`MPI_Recv`, a user range).
    Nvtx,
    /// No call and no NVTX range: CPU work (Python, the framework).
    CpuWork,
}

/// Number of [`HostDetail`]s.
pub const N_DETAILS: usize = 7;

impl HostDetail {
    /// All details in display order.
    pub const ALL: [HostDetail; N_DETAILS] = [
        HostDetail::LaunchCall,
        HostDetail::Alloc,
        HostDetail::CudaApi,
        HostDetail::OsRuntime,
        HostDetail::ProfilerOverhead,
        HostDetail::Nvtx,
        HostDetail::CpuWork,
    ];

    /// The snake_case key used in JSON.
    pub fn key(self) -> &'static str {
        match self {
            HostDetail::LaunchCall => "launch_call",
            HostDetail::Alloc => "alloc",
            HostDetail::CudaApi => "cuda_api",
            HostDetail::OsRuntime => "os_runtime",
            HostDetail::ProfilerOverhead => "profiler_overhead",
            HostDetail::Nvtx => "nvtx",
            HostDetail::CpuWork => "cpu_work",
        }
    }

    /// A short human label.
    pub fn label(self) -> &'static str {
        match self {
            HostDetail::LaunchCall => "the launch call itself",
            HostDetail::Alloc => "cudaMalloc/cudaFree",
            HostDetail::CudaApi => "other CUDA API calls",
            HostDetail::OsRuntime => "OS runtime calls",
            HostDetail::ProfilerOverhead => "profiler overhead",
            HostDetail::Nvtx => "inside an NVTX range",
            HostDetail::CpuWork => "CPU work (no API call)",
        }
    }

    /// What to do about it.
    pub fn fix(self) -> &'static str {
        match self {
            HostDetail::LaunchCall => "CUDA graphs, or fewer, larger kernels (launch overhead)",
            HostDetail::Alloc => "pre-allocate, or use a caching allocator / memory pool",
            HostDetail::CudaApi => "move these calls out of the hot loop",
            HostDetail::OsRuntime => "overlap I/O with GPU work (prefetch, async I/O)",
            HostDetail::ProfilerOverhead => "the profiler, not the program: ignore it",
            HostDetail::Nvtx => "look inside the range (MPI_*: overlap communication)",
            HostDetail::CpuWork => "CUDA graphs, or fewer, larger kernels",
        }
    }
}

/// The human name of a host-detail key, as `rooftrace gaps` prints it: the
/// detail's [`label`](HostDetail::label), or for a key this version does
/// not know the key with spaces for underscores. JSON and CSV keep the keys.
pub fn detail_label(key: &str) -> String {
    HostDetail::ALL
        .into_iter()
        .find(|d| d.key() == key)
        .map_or_else(|| key.replace('_', " "), |d| d.label().to_string())
}

/// The fix for host-bound time spent inside NVTX ranges, from what the
/// ranges are: PyTorch ops, MPI or NCCL calls; `None` for other ranges.
pub fn nvtx_range_fix(text: &str) -> Option<&'static str> {
    let lower = text.to_ascii_lowercase();
    if text.starts_with("aten::") || text.starts_with("autograd::") || lower.contains("torch") {
        Some("PyTorch issues its ops one at a time from the CPU: compile the step (torch.compile fuses ops into fewer kernels) or capture it in a CUDA graph (torch.compile mode=\"reduce-overhead\", torch.cuda.CUDAGraph)")
    } else if text.starts_with("MPI_") {
        Some("overlap MPI with GPU work (non-blocking MPI_Isend/MPI_Irecv, CUDA-aware MPI)")
    } else if lower.contains("nccl") {
        Some("overlap the NCCL calls with compute (communication on its own stream, bucketed collectives)")
    } else {
        None
    }
}

/// Host-bound idle time per [`HostDetail`]; serialised as an object keyed
/// by [`HostDetail::key`]. Sums to the host-bound class total.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DetailTotals(pub [ClassTotal; N_DETAILS]);

impl DetailTotals {
    /// Adds one gap.
    pub fn add(&mut self, d: HostDetail, duration_ns: i64) {
        let t = &mut self.0[d as usize];
        t.count += 1;
        t.total_ns += duration_ns;
    }

    /// The totals of one detail.
    pub fn get(&self, d: HostDetail) -> ClassTotal {
        self.0[d as usize]
    }

    /// Adds another device's totals.
    pub fn merge(&mut self, o: &DetailTotals) {
        for (a, b) in self.0.iter_mut().zip(o.0.iter()) {
            a.count += b.count;
            a.total_ns += b.total_ns;
        }
    }

    /// The detail with the most time (first in display order on ties).
    pub fn dominant(&self) -> Option<HostDetail> {
        HostDetail::ALL
            .into_iter()
            .filter(|d| self.get(*d).total_ns > 0)
            .max_by_key(|d| (self.get(*d).total_ns, std::cmp::Reverse(*d as usize)))
    }
}

impl Serialize for DetailTotals {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(N_DETAILS))?;
        for d in HostDetail::ALL {
            m.serialize_entry(d.key(), &self.get(d))?;
        }
        m.end()
    }
}

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

/// A thing named in a [`HostVerdict`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum What {
    /// A function name.
    Name(NameRef),
    /// The index of an NVTX range in [`Timeline::nvtx`].
    Range(usize),
}

/// NVTX ranges by (pid, tid, start): the index the detail looks up.
pub(crate) struct NvtxIndex(Vec<(u32, u32, i64, i64, usize)>);

impl NvtxIndex {
    /// Indexes the timeline's closed NVTX ranges.
    pub(crate) fn new(tl: &Timeline) -> NvtxIndex {
        let mut v: Vec<_> = tl
            .nvtx
            .iter()
            .enumerate()
            .map(|(i, r)| (r.pid, r.tid, r.start_ns, r.end_ns, i))
            .collect();
        v.sort_unstable();
        NvtxIndex(v)
    }

    /// The innermost range of thread (pid, tid) that contains `t` (the
    /// latest-starting one among the last 256 starting at or before `t`).
    pub(crate) fn innermost(&self, pid: u32, tid: u32, t: i64) -> Option<usize> {
        let j = self.0.partition_point(|x| (x.0, x.1, x.2) <= (pid, tid, t));
        self.0[..j]
            .iter()
            .rev()
            .take(256)
            .take_while(|x| (x.0, x.1) == (pid, tid))
            .find(|x| x.3 > t)
            .map(|x| x.4)
    }
}

/// Longest scan back through the process's API calls for one window.
const MAX_SCAN: usize = 4096;

/// What the thread of the call `tl.api[call]` did over `[w0, w1)` (`syncs`
/// merged per thread; the window runs from the gap start to the launch
/// call's end or the gap end): the launch call itself, the other CUDA calls
/// (allocation or other), OS runtime calls and profiler overhead of that
/// thread that overlap the window, each summed; the largest wins, and the
/// rest of the window is CPU work — named by the innermost NVTX range
/// around the launch call's start when there is one.
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
        note(
            HostDetail::LaunchCall,
            overlap(a.start_ns, a.end_ns, w0, w1),
            What::Name(a.name),
        );
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
            let ns = overlap(c.start_ns, c.end_ns, w0, w1);
            if ns > 0 {
                let d = if tl.is_alloc(c.name) {
                    HostDetail::Alloc
                } else {
                    HostDetail::CudaApi
                };
                note(d, ns, What::Name(c.name));
            }
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
            note(
                HostDetail::CudaApi,
                overlap(s.start_ns, s.end_ns, w0, w1),
                What::Name(s.name),
            );
        }
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
            let d = match h.kind {
                HostSpanKind::OsRuntime => HostDetail::OsRuntime,
                HostSpanKind::ProfilerOverhead => HostDetail::ProfilerOverhead,
            };
            note(d, overlap(h.start_ns, h.end_ns, w0, w1), What::Name(h.name));
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
                .and_then(|a| nvtx.innermost(a.pid, a.tid, a.start_ns.min(w1)));
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

/// What the host did over a gap `[g0, g1)` of class `class` ended by `op`,
/// in words, and the text of the innermost NVTX range of the launching
/// thread around the launch call (for the longest-gaps table).
pub(crate) fn describe<'t>(
    tl: &'t Timeline,
    syncs: &[SyncCall],
    nvtx: &NvtxIndex,
    class: GapClass,
    op: &GpuOp,
    g0: i64,
    g1: i64,
) -> (Option<String>, Option<&'t str>) {
    let Some(a) = tl.api_of(op) else {
        return (None, None);
    };
    let range = |t: i64| nvtx.innermost(a.pid, a.tid, t).map(|i| &*tl.nvtx[i].text);
    let cut = |s: &str| crate::units::ellipsize(s, HOST_NAME_CHARS);
    let last_sync = || {
        let j = syncs.partition_point(|s| (s.pid, s.tid, s.start_ns) < (a.pid, a.tid, g0));
        syncs[..j]
            .last()
            .filter(|s| (s.pid, s.tid) == (a.pid, a.tid))
            .map(|s| cut(tl.name(s.name)))
    };
    let host = match class {
        GapClass::HostBound => {
            let v = host_verdict(tl, syncs, nvtx, op.api, g0, a.end_ns.min(g1));
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
            };
            blocking_sync(&ev, a, g0)
                .map(|s| cut(tl.name(s.name)))
                .or_else(|| Some(cut(tl.name(a.name))))
        }
        GapClass::LaunchInFlight => Some(cut(tl.name(a.name))),
        _ => None,
    };
    (host, range(a.start_ns))
}

#[cfg(test)]
mod nvtx_fix_tests {
    use super::nvtx_range_fix;

    #[test]
    fn range_families_get_their_own_fix() {
        let fix = |t| nvtx_range_fix(t).unwrap_or("none");
        // PyTorch's emit_nvtx ranges, MPI (nsys --trace=mpi), NCCL.
        assert!(fix("aten::addmm, seq = 47595, op_id = 999269").contains("torch.compile"));
        assert!(fix("autograd::engine::evaluate_function: AddmmBackward0").contains("CUDA graph"));
        assert!(fix("MPI_Recv").contains("MPI_Isend"));
        assert!(fix("ncclAllReduce").contains("NCCL"));
        assert!(fix("nccl:all_reduce").contains("NCCL"));
        // A user's own range says nothing about the fix.
        assert_eq!(fix("decode_step"), "none");
        assert_eq!(fix("MPI"), "none");
    }
}
