//! Timeline -> [`GapReport`], by phase: select the ops in scope, sweep each
//! (process, device) on parallel threads ([`super::sweep`]), merge the
//! devices, then the longest gaps, the launch statistics, the `--nvtx`
//! ranges and the diagnostics. Every gap is swept and classified once; the
//! classified gaps are kept in the report when [`GapConfig::keep_gaps`].

use super::class::merge_syncs;
use super::config::GapConfig;
use super::describe::{describe, Lookup};
use super::engines::CopyEngines;
use super::evidence::{RangeFamily, Scale};
use super::hist::{hist_range, HIST_EDGES_NS};
use super::model::*;
use super::nvtx_index::NvtxIndex;
use super::onetime::WarmUp;
use super::ranges::{range_report, HostLookup};
use super::stats::{dist, launch_stats};
use super::sweep::{
    analyze_device, op_ref, push_bounded, sweep, DeviceDetail, DeviceOut, TopEntry,
};
use crate::timeline::near::RangeFilter;
use crate::timeline::{GpuOp, Timeline};
use std::borrow::Cow;
use std::collections::BinaryHeap;

/// Analyses a timeline.
pub fn analyze(tl: &Timeline, cfg: &GapConfig) -> GapReport {
    let ops = ops_in_scope(tl, cfg);
    let groups = device_groups(&ops);
    let n_ops = ops.len() as u64;
    // Three independent indexes; the ranges' (millions of rows under
    // PyTorch's `emit_nvtx`) is built beside the other two.
    let ((nvtx, warmup), syncs, engines) = std::thread::scope(|s| {
        let nvtx = s.spawn(|| (NvtxIndex::new(tl), WarmUp::new(tl)));
        let syncs = merge_syncs(&tl.syncs);
        let engines = CopyEngines::new(tl);
        let nvtx = nvtx.join().unwrap_or_else(|p| std::panic::resume_unwind(p));
        (nvtx, syncs, engines)
    });
    let look = Lookup {
        syncs: &syncs,
        nvtx: &nvtx,
        engines: &engines,
        waits: &tl.waits,
        warmup: &warmup,
    };
    let outs = sweep_devices(tl, &groups, look, cfg);
    let merged = merge_devices(outs, cfg);
    let mut names = Names::default();
    let top_gaps = top_gaps(tl, &ops, look, merged.heap, &mut names);
    let mut gap_durations = merged.durations;
    let distribution = GapDistribution {
        duration: dist(&mut gap_durations),
        histogram: merged.histogram,
    };
    drop(gap_durations);
    let launch = launch_stats(tl, &ops);
    let ranges = cfg.nvtx.as_ref().map(|re| {
        let host = HostLookup {
            syncs: &syncs,
            nvtx: &nvtx,
        };
        range_report(
            tl,
            &ops,
            &merged.details,
            &merged.gaps,
            (re, &host),
            &mut names,
        )
    });
    let diagnostics = diagnostics(tl, cfg, &launch, ranges.as_ref(), n_ops);
    GapReport {
        schema: SCHEMA,
        input: InputSummary {
            source: tl.info.source.clone(),
            graph_trace: tl.graph_trace,
            graph_trace_option: tl.info.graph_trace_option.clone(),
            graph_launches: tl.graph_launches,
            warmup_range: warmup
                .example
                .as_deref()
                .map(|t| crate::units::ellipsize(t, 200)),
            nested_api_rows: tl.nested_api_rows,
            ops: n_ops,
            range_families: range_families(tl),
        },
        settings: SettingsEcho {
            min_gap_ns: cfg.min_gap_ns,
            launch_latency_ns: cfg.launch_latency_ns,
            device: cfg.device,
            stream: cfg.stream,
        },
        devices: merged.devices,
        streams: merged.streams,
        launch,
        distribution,
        ranges,
        top_gaps,
        diagnostics,
        host_link: HostLinkInfo::unknown(
            "not looked up: the analysis alone does not choose a GPU (the `gaps` command does, from the export's GPU record or --gpu)",
        ),
        names: names.into_table(),
        gaps: cfg.keep_gaps.then_some(merged.gaps),
    }
}

/// The NVTX ranges [`analyze`] can look at without `--nvtx`, as a filter
/// for the reader (`nsys::read_timeline_near`): on the thread of the call
/// that launched the op ending each gap, the gap `[start, end]` and the
/// instant the call started; and the first range of each
/// [`RangeFamily`], for `input.range_families`. Every range look-up of the
/// analysis (the host verdict over part of a gap, the ranges and the
/// context of a longest gap) is on such a thread inside such a window, so
/// it finds the ranges it finds among all of them. (`--nvtx` and the
/// Chrome trace read every range.)
pub fn range_filter(tl: &Timeline, cfg: &GapConfig) -> RangeFilter {
    let ops = ops_in_scope(tl, cfg);
    let groups = device_groups(&ops);
    let new = || RangeFilter::new(|t| RangeFamily::of_bytes(t).map(|f| f as u8));
    // Devices apart, on parallel threads as the analysis sweeps them.
    let windows_of = |t: usize, threads: usize| {
        let mut f = new();
        for (_, dev_ops) in groups.iter().skip(t).step_by(threads) {
            sweep(dev_ops, |g| {
                if let Some(a) = tl.api_of(&dev_ops[g.after]) {
                    f.add(a.pid, a.tid, g.start, g.end);
                    f.add(a.pid, a.tid, a.start_ns, a.start_ns);
                }
            });
        }
        f
    };
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(groups.len())
        .max(1);
    let mut f = new();
    std::thread::scope(|s| {
        let handles: Vec<_> = (1..threads)
            .map(|t| s.spawn(move || windows_of(t, threads)))
            .collect();
        f.append(windows_of(0, threads));
        for h in handles {
            f.append(h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)));
        }
    });
    f.finish();
    f
}

/// The ops `--device`/`--stream` keep, still sorted by (pid, device, start);
/// borrowed when there is no filter.
fn ops_in_scope<'a>(tl: &'a Timeline, cfg: &GapConfig) -> Cow<'a, [GpuOp]> {
    let scope = cfg.scope();
    if scope.is_all() {
        Cow::Borrowed(&tl.ops)
    } else {
        Cow::Owned(
            tl.ops
                .iter()
                .filter(|o| scope.selects(o))
                .copied()
                .collect(),
        )
    }
}

/// One group per (process, device): (index of its first op in `ops`, its ops).
fn device_groups(ops: &[GpuOp]) -> Vec<(usize, &[GpuOp])> {
    let mut groups = Vec::new();
    let mut offset = 0usize;
    for dev_ops in ops.chunk_by(|a, b| (a.pid, a.device) == (b.pid, b.device)) {
        groups.push((offset, dev_ops));
        offset += dev_ops.len();
    }
    groups
}

/// Sweeps each device; devices are independent, so on parallel threads.
/// The result is in `groups` order.
fn sweep_devices(
    tl: &Timeline,
    groups: &[(usize, &[GpuOp])],
    look: Lookup,
    cfg: &GapConfig,
) -> Vec<DeviceOut> {
    let keep_gaps = cfg.keep_gaps || cfg.nvtx.is_some();
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(groups.len())
        .max(1);
    let one = |g: &(usize, &[GpuOp])| analyze_device(tl, g.1, g.0, look, cfg, keep_gaps);
    if threads == 1 {
        return groups.iter().map(one).collect();
    }
    let mut parts: Vec<(usize, DeviceOut)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let one = &one;
                s.spawn(move || {
                    groups
                        .iter()
                        .enumerate()
                        .filter(|(i, _)| i % threads == t)
                        .map(|(i, g)| (i, one(g)))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    });
    parts.sort_unstable_by_key(|p| p.0);
    parts.into_iter().map(|p| p.1).collect()
}

/// The devices' contributions, merged in device order.
struct Merged {
    devices: Vec<DeviceGaps>,
    streams: Vec<StreamGaps>,
    details: Vec<DeviceDetail>,
    /// Every classified gap, by (pid, device, start) (empty unless kept).
    gaps: Vec<ClassifiedGap>,
    durations: Vec<i64>,
    histogram: Vec<HistBin>,
    heap: BinaryHeap<TopEntry>,
}

fn merge_devices(outs: Vec<DeviceOut>, cfg: &GapConfig) -> Merged {
    let mut m = Merged {
        devices: Vec::new(),
        streams: Vec::new(),
        details: Vec::new(),
        gaps: Vec::new(),
        durations: Vec::new(),
        histogram: (0..HIST_EDGES_NS.len())
            .map(|i| {
                let (lo_ns, hi_ns) = hist_range(i);
                HistBin {
                    lo_ns,
                    hi_ns,
                    count: 0,
                    total_ns: 0,
                }
            })
            .collect(),
        heap: BinaryHeap::new(),
    };
    for out in outs {
        m.devices.push(out.device);
        m.streams.extend(out.streams);
        if let Some(mut d) = out.detail {
            d.gaps_at = (m.gaps.len(), m.gaps.len() + out.gaps.len());
            m.details.push(d);
        }
        if m.gaps.is_empty() {
            m.gaps = out.gaps;
        } else {
            m.gaps.extend_from_slice(&out.gaps);
        }
        if m.durations.is_empty() {
            m.durations = out.durations;
        } else {
            m.durations.extend_from_slice(&out.durations);
        }
        for (h, (count, total)) in m.histogram.iter_mut().zip(out.hist) {
            h.count += count;
            h.total_ns += total;
        }
        for e in out.heap {
            push_bounded(&mut m.heap, e, cfg.top);
        }
    }
    m
}

/// The heap's gaps, longest first, with the ops around them (their names
/// put in `names`).
fn top_gaps<'t>(
    tl: &'t Timeline,
    ops: &[GpuOp],
    look: Lookup,
    heap: BinaryHeap<TopEntry>,
    names: &mut Names<'t>,
) -> Vec<TopGap> {
    heap.into_sorted_vec()
        .into_iter()
        .map(|std::cmp::Reverse(c)| {
            let after = &ops[c.after];
            let (g0, g1) = (c.start_ns, c.start_ns + c.duration_ns);
            let before = &ops[c.before];
            let found = describe(tl, look, c.class, (before, after), g0, g1);
            TopGap {
                pid: c.pid,
                device: c.device,
                start_ns: g0,
                end_ns: g1,
                duration_ns: c.duration_ns,
                class: c.class,
                before: op_ref(tl, before, names),
                after: op_ref(tl, after, names),
                api: tl.api_of(after).map(|x| ApiRef {
                    name_id: names.id(tl.name(x.name)),
                    tid: x.tid,
                    start_ns: x.start_ns,
                    end_ns: x.end_ns,
                }),
                host: found.host,
                nvtx_id: found.context.map(|t| names.id(t)),
                host_evidence: found.verdict.map(|f| HostEvidence {
                    detail: f.detail,
                    call_family: f.call_family,
                    range_family: f.range_family,
                    scale: Scale::of(c.duration_ns),
                }),
                queued: found.queued.map(|q| QueuedEvidence {
                    launched_before_ns: q.launched_before_ns,
                    dependency_seen: q.dependency_seen,
                    engine_busy_with: q.engine_busy_with.map(|i| op_ref(tl, &tl.ops[i], names)),
                    engine_busy_pid: q.engine_busy_with.map(|i| tl.ops[i].pid),
                    host_meanwhile: q.host_meanwhile,
                    host_meanwhile_ns: q.host_meanwhile_ns,
                }),
                ranges: found
                    .ranges
                    .into_iter()
                    .map(|(text, ns)| RangeShare {
                        text_id: names.id(text),
                        ns,
                        family: RangeFamily::of(text),
                    })
                    .collect(),
            }
        })
        .collect()
}

/// The families of the export's NVTX ranges, in [`RangeFamily`] order
/// (each distinct text looked at once).
fn range_families(tl: &Timeline) -> Vec<RangeFamily> {
    let mut seen: Vec<RangeFamily> = Vec::new();
    let mut last: Option<&str> = None;
    for r in &tl.nvtx {
        if last == Some(&*r.text) {
            continue;
        }
        last = Some(&*r.text);
        if let Some(f) = RangeFamily::of(&r.text) {
            if !seen.contains(&f) {
                seen.push(f);
            }
        }
    }
    seen.sort_unstable();
    seen
}

/// The export's diagnostics plus what this analysis found missing.
fn diagnostics(
    tl: &Timeline,
    cfg: &GapConfig,
    launch: &LaunchStats,
    ranges: Option<&RangeReport>,
    n_ops: u64,
) -> Vec<Diagnostic> {
    let mut diagnostics: Vec<Diagnostic> = tl
        .diagnostics
        .iter()
        .map(|d| d.clone().wrap(DiagnosticKind::Timeline))
        .collect();
    if launch.ops_without_api > 0 && launch.ops_with_api > 0 {
        diagnostics.push(Diagnostic::new(
            DiagnosticKind::OpsWithoutApi {
                ops: launch.ops_without_api,
            },
            format!(
                "{} of {} GPU ops have no launching API row in the export (trimmed export, graph replay or device-side launch): gaps they end are unattributed",
                launch.ops_without_api,
                launch.ops_with_api + launch.ops_without_api
            ),
        ));
    } else if launch.ops_with_api == 0 {
        // In the input's own terms: a PyTorch trace records launches with
        // the profiler's CUDA activity, an export with nsys's CUDA trace.
        diagnostics.push(Diagnostic::new(
            DiagnosticKind::NoApiRows,
            match tl.info.source.tool() {
                crate::timeline::Tool::PyTorchProfiler => "no CUDA runtime events: every gap is unattributed; record them with torch.profiler activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]",
                crate::timeline::Tool::Nsys => "no CUDA API rows: every gap is unattributed; profile with `nsys profile --trace=cuda`",
            },
        ));
    }
    if n_ops == 0 {
        diagnostics.push(Diagnostic::new(
            DiagnosticKind::NoOpsInScope,
            "no GPU ops left after --device/--stream",
        ));
    }
    if let (Some(re), Some(rr)) = (&cfg.nvtx, ranges) {
        if rr.instances.is_empty() {
            diagnostics.push(Diagnostic::new(
                DiagnosticKind::NvtxNoMatch,
                super::ranges::no_match_message(tl, re.as_str()),
            ));
        }
    }
    diagnostics
}
