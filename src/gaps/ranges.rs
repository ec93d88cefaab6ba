//! `--nvtx`: one row per instance of the matching NVTX ranges, projected
//! onto the GPU through the ops they launched, with the idle time and its
//! classes inside each instance's GPU window.

use super::class::overlap;
use super::evidence::HostFacts;
use super::host::gap_evidence;
use super::model::*;
use super::nvtx_index::NvtxIndex;
use super::stats::dist;
use super::sweep::DeviceDetail;
use super::GapClass;
use crate::timeline::Tool;
use crate::timeline::{GpuOp, OpKind, SyncCall, Timeline};
use regex::Regex;
use std::collections::HashMap;

/// Sum of the overlaps of sorted disjoint intervals with `[w0, w1)`.
fn clipped<T>(
    items: &[T],
    w0: i64,
    w1: i64,
    iv: impl Fn(&T) -> (i64, i64),
    mut each: impl FnMut(&T, i64),
) {
    let i = items.partition_point(|x| iv(x).1 <= w0);
    for x in &items[i..] {
        let (s, e) = iv(x);
        if s >= w1 {
            break;
        }
        each(x, overlap(s, e, w0, w1));
    }
}

/// What the host-bound evidence of a window is judged with: the merged
/// syncs and the NVTX index of the sweep.
pub(crate) struct HostLookup<'a> {
    pub(crate) syncs: &'a [SyncCall],
    pub(crate) nvtx: &'a NvtxIndex<'a>,
}

/// The evidence of each host-bound gap, judged the first time an instance
/// needs it and kept: a gap's verdict does not depend on the instance, and
/// an export whose ranges repeat (each NVTX row 64 times) or stack deeply
/// puts one gap in many instances' windows (judging it again for each ran
/// past 120 s on 865 k ranges).
struct EvidenceMemo<'h, 'a> {
    host: &'h HostLookup<'a>,
    /// Per classified gap: `None` until judged, then its evidence (`None`
    /// when the op ending it has no launching call).
    judged: Vec<Option<Option<HostFacts>>>,
}

impl EvidenceMemo<'_, '_> {
    /// The evidence of `gaps[at]`, ended by the first of `dev_ops` starting
    /// at or after its end.
    fn of(
        &mut self,
        tl: &Timeline,
        dev_ops: &[GpuOp],
        gaps: &[ClassifiedGap],
        at: usize,
    ) -> Option<HostFacts> {
        if let Some(known) = self.judged[at] {
            return known;
        }
        let g = &gaps[at];
        let after = dev_ops.partition_point(|o| o.start_ns < g.end_ns);
        let facts = dev_ops.get(after).and_then(|op| {
            gap_evidence(
                tl,
                self.host.syncs,
                self.host.nvtx,
                op,
                g.start_ns,
                g.end_ns,
            )
        });
        self.judged[at] = Some(facts);
        facts
    }
}

/// The `--nvtx` report over the analysed ops (in scope, grouped by
/// (pid, device), sorted by start), each device's detail and every
/// classified gap. Each instance's host-bound gaps carry their typed
/// evidence (judged again here, as the sweep judged them: only the gaps
/// inside instances, only with `--nvtx`).
pub(crate) fn range_report<'t>(
    tl: &'t Timeline,
    ops: &[GpuOp],
    details: &[DeviceDetail],
    gaps: &[ClassifiedGap],
    (re, host): (&Regex, &HostLookup),
    names: &mut Names<'t>,
) -> RangeReport {
    let mut memo = EvidenceMemo {
        host,
        judged: vec![None; gaps.len()],
    };
    // Ops by (pid, tid, launch start) to project host ranges onto the GPU.
    let mut launched: Vec<(u32, u32, i64, usize)> = ops
        .iter()
        .enumerate()
        .filter_map(|(i, o)| tl.api_of(o).map(|a| (a.pid, a.tid, a.start_ns, i)))
        .collect();
    launched.sort_unstable();
    // Sized once, to the matches ([`rows_fit`] checked that they fit).
    let mut instances = Vec::with_capacity(matching(tl, re));
    // Per (process, devices): the end of the GPU windows so far, ns, and
    // the index of the last instance.
    let mut before_me: HashMap<(u32, Vec<u16>), (i64, usize)> = HashMap::new();
    for r in tl.nvtx.iter().filter(|r| re.is_match(&r.text)) {
        let lo = launched.partition_point(|x| (x.0, x.1, x.2) < (r.pid, r.tid, r.start_ns));
        let hi = launched.partition_point(|x| (x.0, x.1, x.2) <= (r.pid, r.tid, r.end_ns));
        let mine = &launched[lo..hi];
        let (projected, w0, w1) = if mine.is_empty() {
            (false, r.start_ns, r.end_ns)
        } else {
            let s = mine
                .iter()
                .map(|x| ops[x.3].start_ns)
                .min()
                .unwrap_or(r.start_ns);
            let e = mine
                .iter()
                .map(|x| ops[x.3].end_ns)
                .max()
                .unwrap_or(r.end_ns);
            (true, s, e)
        };
        let mut devs: Vec<u16> = if projected {
            mine.iter().map(|x| ops[x.3].device).collect()
        } else {
            details
                .iter()
                .filter(|d| d.pid == r.pid)
                .map(|d| d.device)
                .collect()
        };
        devs.sort_unstable();
        devs.dedup();
        let mut win = WindowIdle::default();
        let mine_devs = |d: &&DeviceDetail| d.pid == r.pid && devs.contains(&d.device);
        for d in details.iter().filter(mine_devs) {
            win.add(tl, &mut memo, ops, d, gaps, (w0, w1));
        }
        // The instances before on this process and devices own the device
        // up to `before.0`: this one owns the rest of its window. The one
        // just before (`before.1`) learns how long its window ran into
        // this instance's host range.
        let before = before_me
            .entry((r.pid, devs.clone()))
            .or_insert((i64::MIN, usize::MAX));
        let host_before = if projected {
            host_before(tl, memo.host, ops, mine, r.start_ns.max(before.0), w0)
        } else {
            None
        };
        let owned_start = w0.max(before.0).min(w1);
        before.0 = before.0.max(w1);
        if let Some(p) = instances.get_mut(before.1) {
            let p: &mut RangeRow = p;
            p.tiling.next_host_overlap_ns =
                overlap(p.gpu_start_ns, p.gpu_end_ns, r.start_ns, r.end_ns);
        }
        before.1 = instances.len();
        let owned = if owned_start > w0 {
            let mut own = WindowIdle::default();
            for d in details.iter().filter(mine_devs) {
                own.add(tl, &mut memo, ops, d, gaps, (owned_start, w1));
            }
            if own.classes.total_count() == 0 && own.idle == 0 {
                Owned::PartNoIdle
            } else {
                Owned::Part(Box::new(OwnedIdle {
                    idle_ns: own.idle,
                    classes: own.classes,
                    host: own.host,
                }))
            }
        } else {
            Owned::Whole
        };
        let WindowIdle {
            idle,
            in_span,
            kbusy,
            classes,
            host: host_totals,
        } = win;
        let kernels = if projected {
            mine.iter()
                .filter(|x| ops[x.3].kind == OpKind::Kernel)
                .count() as u64
        } else {
            kernels_starting_in(ops, details.iter().filter(mine_devs), (w0, w1))
        };
        instances.push(RangeRow {
            text_id: names.id(&r.text),
            pid: r.pid,
            tid: r.tid,
            start_ns: r.start_ns,
            end_ns: r.end_ns,
            wall_ns: r.end_ns - r.start_ns,
            projected,
            gpu_start_ns: w0,
            gpu_end_ns: w1,
            busy_ns: in_span - idle,
            kernel_busy_ns: kbusy,
            idle_ns: idle,
            kernels,
            idle_detail: RangeIdle {
                classes,
                host: host_totals,
            }
            .boxed(),
            tiling: Tiling {
                owned_start_ns: owned_start,
                next_host_overlap_ns: 0,
                owned,
                host_before,
            },
        });
    }
    summarise(re, instances)
}

/// Kernels starting in `[w0, w1)` on the devices `on`: a binary search in
/// each device's ops.
fn kernels_starting_in<'d>(
    ops: &[GpuOp],
    on: impl Iterator<Item = &'d DeviceDetail>,
    (w0, w1): (i64, i64),
) -> u64 {
    on.map(|d| {
        let dev = &ops[d.ops_at.0..d.ops_at.1];
        let lo = dev.partition_point(|o| o.start_ns < w0);
        let hi = dev.partition_point(|o| o.start_ns < w1);
        dev[lo..hi]
            .iter()
            .filter(|o| o.kind == OpKind::Kernel)
            .count() as u64
    })
    .sum()
}

/// The host's stretch `[h0, w0)` before a projected instance's first GPU
/// op (`mine`: the ops it launched) started, `None` when empty; what the
/// host did in it is judged as for a host-bound gap ended by that op
/// ([`gap_evidence`]: the launching thread over the stretch up to the end
/// of the launch call).
fn host_before(
    tl: &Timeline,
    host: &HostLookup,
    ops: &[GpuOp],
    mine: &[(u32, u32, i64, usize)],
    h0: i64,
    w0: i64,
) -> Option<Box<HostBefore>> {
    if h0 >= w0 {
        return None;
    }
    let first = mine.iter().map(|x| &ops[x.3]).min_by_key(|o| o.start_ns)?;
    let launched_by = tl.api_of(first)?;
    let facts = (launched_by.end_ns > h0)
        .then(|| gap_evidence(tl, host.syncs, host.nvtx, first, h0, w0))
        .flatten();
    Some(Box::new(HostBefore {
        start_ns: h0,
        ns: w0 - h0,
        facts,
    }))
}

/// The report over the instances: medians and p90s, class totals.
fn summarise(re: &Regex, instances: Vec<RangeRow>) -> RangeReport {
    let mp = |f: &dyn Fn(&RangeRow) -> i64| {
        let mut v: Vec<i64> = instances.iter().map(f).collect();
        let known = !v.is_empty();
        let d = dist(&mut v);
        MedianP90 {
            median: known.then_some(d.p50_ns),
            p90: known.then_some(d.p90_ns),
        }
    };
    let mut classes = ClassTotals::default();
    for r in &instances {
        classes.merge(r.classes());
    }
    RangeReport {
        pattern: re.as_str().to_string(),
        wall_ns: mp(&|r| r.wall_ns),
        gpu_window_ns: mp(&|r| r.gpu_end_ns - r.gpu_start_ns),
        kernel_busy_ns: mp(&|r| r.kernel_busy_ns),
        idle_ns: mp(&|r| r.idle_ns),
        kernels: mp(&|r| r.kernels as i64),
        classes,
        instances,
    }
}

/// How many NVTX ranges of the timeline match `re`.
fn matching(tl: &Timeline, re: &Regex) -> usize {
    tl.nvtx.iter().filter(|r| re.is_match(&r.text)).count()
}

/// Whether the rows of the ranges matching `re` (a row per instance, about
/// 100 bytes each; a million with PyTorch's one range per op) can be
/// allocated: `Err((instances, bytes))` when they cannot, so the caller
/// says so about its input (exit 2) where the allocation in
/// [`range_report`] would abort the process.
pub fn rows_fit(tl: &Timeline, re: &Regex) -> Result<(), (usize, usize)> {
    let n = matching(tl, re);
    let bytes = n.saturating_mul(std::mem::size_of::<RangeRow>());
    Vec::<RangeRow>::new()
        .try_reserve_exact(n)
        .map_err(|_| (n, bytes))
}

/// Idle, busy and kernel-busy time of one window, summed over devices.
#[derive(Default)]
struct WindowIdle {
    idle: i64,
    in_span: i64,
    kbusy: i64,
    classes: ClassTotals,
    host: HostTotals,
}

impl WindowIdle {
    /// Adds device `d`'s share of the window `[w0, w1)`.
    fn add(
        &mut self,
        tl: &Timeline,
        memo: &mut EvidenceMemo,
        ops: &[GpuOp],
        d: &DeviceDetail,
        gaps: &[ClassifiedGap],
        (w0, w1): (i64, i64),
    ) {
        self.in_span += overlap(d.span.0, d.span.1, w0, w1);
        let dev_ops = &ops[d.ops_at.0..d.ops_at.1];
        let first = d.gaps_at.0;
        let dev_gaps = &gaps[first..d.gaps_at.1];
        let from = dev_gaps.partition_point(|g| g.end_ns <= w0);
        for (at, g) in dev_gaps.iter().enumerate().skip(from) {
            if g.start_ns >= w1 {
                break;
            }
            let len = overlap(g.start_ns, g.end_ns, w0, w1);
            if len > 0 {
                self.idle += len;
                self.classes.add(g.class, len);
                if g.class == GapClass::HostBound {
                    if let Some(e) = memo.of(tl, dev_ops, gaps, first + at) {
                        self.host.add(e, g.end_ns - g.start_ns, len);
                    }
                }
            }
        }
        clipped(&d.kernel_runs, w0, w1, |k| *k, |_, len| self.kbusy += len);
    }
}

/// What an input calls the host ranges `--nvtx` matches: an nsys
/// export's NVTX ranges; a PyTorch trace's ops and `record_function`
/// annotations (`cpu_op`, `user_annotation`: `aten::mm`, `ProfilerStep#3`),
/// which are no NVTX ranges. The JSON keys (`ranges`, `nvtx`) stay one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RangeWords {
    /// One range (`NVTX range`, `PyTorch range`).
    pub one: &'static str,
    /// Several (`NVTX ranges`, `PyTorch ranges`).
    pub many: &'static str,
    /// What they are, after a heading: empty for NVTX, the events for a
    /// PyTorch trace.
    pub what: &'static str,
    /// A table column of them (`NVTX`, `ranges`).
    pub column: &'static str,
}

/// The words for the ranges of an input recorded by `tool`.
pub fn range_words(tool: Tool) -> RangeWords {
    match tool {
        Tool::PyTorchProfiler => RangeWords {
            one: "PyTorch range",
            many: "PyTorch ranges",
            what: " (ops and record_function annotations)",
            column: "ranges",
        },
        Tool::Nsys => RangeWords {
            one: "NVTX range",
            many: "NVTX ranges",
            what: "",
            column: "NVTX",
        },
    }
}

/// Every range text of the timeline with its instance count, most first
/// (ties by text): what to name when `--nvtx` matches nothing.
pub fn range_counts(tl: &Timeline) -> Vec<(String, u64)> {
    let mut counts: HashMap<&str, u64> = HashMap::new();
    for r in &tl.nvtx {
        *counts.entry(&r.text).or_insert(0) += 1;
    }
    let mut v: Vec<(String, u64)> = counts
        .into_iter()
        .map(|(t, c)| (t.to_string(), c))
        .collect();
    sort_counts(&mut v);
    v
}

/// Most instances first, ties by text.
pub fn sort_counts(v: &mut [(String, u64)]) {
    v.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
}

/// The `n` most frequent NVTX range texts of the export with their
/// instance counts, most first (ties by text): what to suggest when
/// `--nvtx` matches nothing.
pub fn most_frequent_ranges(tl: &Timeline, n: usize) -> Vec<(String, u64)> {
    range_counts(tl)
        .into_iter()
        .take(n)
        .map(|(t, c)| (crate::units::ellipsize(&t, 80), c))
        .collect()
}

/// The range texts closest to a pattern that matched none: those it
/// matches ignoring case (`profilerstep` → `ProfilerStep#3`), else the
/// closest by [`crate::suggest::closest`] (`^`/`$` trimmed); at most
/// [`crate::suggest::MAX_SUGGESTIONS`], most frequent first.
fn closest_names<'n>(pattern: &str, names: &[&'n str]) -> Vec<&'n str> {
    let caseless = regex::RegexBuilder::new(pattern)
        .case_insensitive(true)
        .build()
        .ok();
    let by_case: Vec<&str> = caseless.map_or(Vec::new(), |re| {
        names
            .iter()
            .copied()
            .filter(|n| re.is_match(n))
            .take(crate::suggest::MAX_SUGGESTIONS)
            .collect()
    });
    if !by_case.is_empty() {
        return by_case;
    }
    let bare = pattern.trim_start_matches('^').trim_end_matches('$');
    crate::suggest::closest(bare, names)
}

/// The sentence for a `--nvtx` pattern that matches no range: the most
/// frequent ranges that do exist, or how to record some.
pub fn no_match_message(tl: &Timeline, pattern: &str) -> String {
    no_match_sentence(pattern, &range_counts(tl), tl.info.source.tool(), "")
}

/// [`no_match_message`] from the range texts and counts of one input or
/// several summed (`counts`, most first as [`range_counts`] sorts them);
/// `scope` says where nothing matched (` in any of the 4 inputs`). The
/// names closest to the pattern ([`closest_names`]) come first, then the
/// most frequent, five in all.
pub fn no_match_sentence(
    pattern: &str,
    counts: &[(String, u64)],
    tool: Tool,
    scope: &str,
) -> String {
    let words = range_words(tool);
    if counts.is_empty() {
        return match tool {
            Tool::PyTorchProfiler => format!(
                "--nvtx `{pattern}`: the trace has no CPU ops or annotations{scope}; record them with torch.profiler (activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], ranges from torch.profiler.record_function)"
            ),
            Tool::Nsys => format!(
                "--nvtx `{pattern}`: the export has no closed NVTX ranges{scope}; profile with `nsys profile --trace=cuda,nvtx`"
            ),
        };
    }
    let names: Vec<&str> = counts.iter().map(|(t, _)| t.as_str()).collect();
    let close = closest_names(pattern, &names);
    let count = |t: &str| counts.iter().find(|(n, _)| n == t).map_or(0, |(_, c)| *c);
    let quote = |t: &str| format!("`{}` ({})", crate::units::ellipsize(t, 80), count(t));
    let frequent: Vec<String> = names
        .iter()
        .filter(|t| !close.contains(t))
        .take(5usize.saturating_sub(close.len()).max(1))
        .map(|t| quote(t))
        .collect();
    let mut s = format!("--nvtx `{pattern}` matches no {}{scope}; ", words.one);
    if !close.is_empty() {
        let shown: Vec<String> = close.iter().map(|t| quote(t)).collect();
        s.push_str(&format!("the closest are {}", shown.join(", ")));
        if !frequent.is_empty() {
            s.push_str(&format!("; the most frequent are {}", frequent.join(", ")));
        }
    } else if !frequent.is_empty() {
        s.push_str(&format!(
            "the most frequent ranges are {}",
            frequent.join(", ")
        ));
    }
    s
}
