//! The words and typed evidence beside each of the longest gaps: what the
//! launching thread did (the host detail for a host-bound gap, the sync
//! for synchronisation, the call for a slow launch), and for a queued gap
//! the launch that queued the op, how long before the gap it returned,
//! the evidence of what it waited for (a dependency seen, or the copy that
//! held its engine) and what the host did meanwhile.

use super::class::{blocking_sync, dependency_seen, Evidence, NextOp};
use super::engines::{CopyEngines, EngineLane, Exclude};
use super::evidence::{HostDetail, HostFacts};
use super::host::{host_verdict, range_shares, HostVerdict, What};
use super::nvtx_index::NvtxIndex;
use super::onetime::WarmUp;
use super::GapClass;
use crate::timeline::{ApiCall, GpuOp, SyncCall, Timeline};
use crate::units::duration_ns;

/// Longest name, in characters, that [`describe`] puts in its sentence: the
/// sentence is built per gap, so a name in it is cut (a real call name is
/// under 40 characters); the whole name is in the report's name table.
pub(crate) const HOST_NAME_CHARS: usize = 120;

/// NVTX range texts named per gap, with their share.
pub(crate) const RANGES_PER_GAP: usize = 3;

/// The host rows [`describe`] looks up.
#[derive(Clone, Copy)]
pub(crate) struct Lookup<'a> {
    /// Syncs merged per thread.
    pub(crate) syncs: &'a [SyncCall],
    /// The NVTX ranges by thread.
    pub(crate) nvtx: &'a NvtxIndex<'a>,
    /// The copies by device and direction.
    pub(crate) engines: &'a CopyEngines,
    /// `cudaStreamWaitEvent` calls as (pid, start).
    pub(crate) waits: &'a [(u32, i64)],
    /// The warm-up ranges of each process.
    pub(crate) warmup: &'a WarmUp,
}

/// What a queued op (queued/dependency, copy-engine scheduling) waited
/// for, as far as the trace shows.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Queued {
    /// How long before the gap the launching call returned, ns.
    pub(crate) launched_before_ns: i64,
    /// A dependency is in the trace: the op before ran on another stream,
    /// or the process called `cudaStreamWaitEvent` between the launches.
    pub(crate) dependency_seen: bool,
    /// The copy (an index into [`Timeline::ops`]) that occupied the engine
    /// of the op's direction during the gap.
    pub(crate) engine_busy_with: Option<usize>,
    /// What the launching thread did over the gap.
    pub(crate) host_meanwhile: HostDetail,
    /// The time that covered, ns.
    pub(crate) host_meanwhile_ns: i64,
}

/// What [`describe`] found over one gap.
#[derive(Debug, Default)]
pub(crate) struct Described<'t> {
    /// What the host did, in words.
    pub(crate) host: Option<String>,
    /// The innermost NVTX range of the launching thread around the call.
    pub(crate) context: Option<&'t str>,
    /// For a host-bound gap, the verdict and the family of what it names.
    pub(crate) verdict: Option<HostFacts>,
    /// For a queued gap, what the op waited for.
    pub(crate) queued: Option<Queued>,
    /// The launching thread's NVTX ranges overlapping the gap: (text, ns).
    pub(crate) ranges: Vec<(&'t str, i64)>,
}

/// `name (detail, time)`: a host verdict in words.
fn verdict_words(tl: &Timeline, v: &HostVerdict) -> String {
    let cut = |s: &str| crate::units::ellipsize(s, HOST_NAME_CHARS);
    let what = match v.what {
        Some(What::Name(n)) => format!("{} ", cut(tl.name(n))),
        Some(What::Range(i)) => format!("`{}` ", cut(&tl.nvtx[i].text)),
        None => String::new(),
    };
    let tool = tl.info.source.tool();
    format!(
        "{what}({}, {})",
        v.detail.label_in(tool),
        duration_ns(v.covered_ns as f64)
    )
}

/// What the host did over a gap `[g0, g1)` of class `class` between the
/// ops `before` and `op`: in words, as typed evidence, and the NVTX ranges
/// of the launching thread (around the launch call, and overlapping the
/// gap).
pub(crate) fn describe<'t>(
    tl: &'t Timeline,
    look: Lookup,
    class: GapClass,
    (before, op): (&GpuOp, &GpuOp),
    g0: i64,
    g1: i64,
) -> Described<'t> {
    let Some(a) = tl.api_of(op) else {
        return Described::default();
    };
    let syncs = look.syncs;
    let cut = |s: &str| crate::units::ellipsize(s, HOST_NAME_CHARS);
    let last_sync = || {
        let j = syncs.partition_point(|s| (s.pid, s.tid, s.start_ns) < (a.pid, a.tid, g0));
        syncs[..j]
            .last()
            .filter(|s| (s.pid, s.tid) == (a.pid, a.tid))
            .map(|s| cut(tl.name(s.name)))
    };
    let mut verdict = None;
    let mut queued = None;
    let host = match class {
        GapClass::HostBound => {
            let v = host_verdict(tl, syncs, look.nvtx, op.api, g0, a.end_ns.min(g1));
            verdict = Some(v.typed(tl));
            Some(verdict_words(tl, &v))
        }
        GapClass::SyncDrain => last_sync().map(|n| format!("after {n}")),
        GapClass::Synchronization | GapClass::PageableCopy => {
            let ev = Evidence {
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
        GapClass::QueuedDependency | GapClass::CopyScheduling => {
            let (q, words) = queued_words(tl, look, a, (before, op), (g0, g1));
            queued = Some(q);
            Some(words)
        }
        _ => None,
    };
    Described {
        host,
        context: look
            .nvtx
            .innermost(a.pid, a.tid, a.start_ns)
            .map(|i| &*tl.nvtx[i].text),
        verdict,
        queued,
        ranges: range_shares(tl, look.nvtx, a.pid, a.tid, (g0, g1), RANGES_PER_GAP),
    }
}

/// A queued op's evidence and its sentence: `queued by cudaGraphLaunch
/// 65.0 ms before the gap; no dependency in the trace; meanwhile
/// cudaDeviceSynchronize (other CUDA API calls, 64.9 ms)`.
fn queued_words(
    tl: &Timeline,
    look: Lookup,
    a: &ApiCall,
    (before, op): (&GpuOp, &GpuOp),
    (g0, g1): (i64, i64),
) -> (Queued, String) {
    let next = NextOp {
        api: Some(a),
        blocking: false,
        pageable: false,
        copy: EngineLane::of(op).is_some(),
        engine_busy: false,
        cross_stream: before.stream != op.stream,
        before_call_ns: tl.api_of(before).map(|x| x.start_ns),
    };
    let ev = Evidence {
        syncs: look.syncs,
        waits: look.waits,
        latency_ns: 0,
        hints: None,
    };
    let busy = EngineLane::of(op).and_then(|lane| {
        look.engines
            .occupied(tl, op.device, lane, (g0, g1), Exclude::Process(op.pid))
    });
    let meanwhile = host_verdict(tl, look.syncs, look.nvtx, op.api, g0, g1);
    let q = Queued {
        launched_before_ns: g0 - a.end_ns,
        dependency_seen: dependency_seen(&next, &ev),
        engine_busy_with: busy,
        host_meanwhile: meanwhile.detail,
        host_meanwhile_ns: meanwhile.covered_ns,
    };
    let cut = |s: &str| crate::units::ellipsize(s, HOST_NAME_CHARS);
    let waited = match busy.map(|i| &tl.ops[i]) {
        Some(o) => format!(
            "the engine busy with {} of pid {} stream {} ({} in the gap)",
            tl.name(o.name),
            o.pid,
            o.stream,
            duration_ns((o.end_ns.min(g1) - o.start_ns.max(g0)) as f64)
        ),
        None if q.dependency_seen && next.cross_stream => {
            format!("after stream {} (another stream)", before.stream)
        }
        None if q.dependency_seen => "after a cudaStreamWaitEvent".to_string(),
        None => "no dependency in the trace".to_string(),
    };
    let words = format!(
        "queued by {} {} before the gap; {waited}; meanwhile {}",
        cut(tl.name(a.name)),
        duration_ns(q.launched_before_ns as f64),
        verdict_words(tl, &meanwhile)
    );
    (q, words)
}
