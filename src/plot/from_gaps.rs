//! Chart adapters for `rooftrace gaps`: a [`GapReport`] (and the timeline
//! it came from) becomes the timeline and histogram chart inputs. The
//! classified gaps come from the report (swept once by the analysis); the
//! window from [`crate::gaps::window`].

use super::histogram::{GapSample, HistogramInput};
use super::timeline::{drawn_end_ns, GapBar, Lane, OpBar, TimeOrigin, TimelineInput, WindowChoice};
use crate::error::InputError;
use crate::gaps::window::{first_op_ns, timeline_window};
use crate::gaps::{ClassifiedGap, GapReport, HIST_EDGES_NS};
use crate::timeline::{OpKind, Timeline};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// The report's classified gaps, or an error saying the analysis did not
/// keep them.
fn kept_gaps(report: &GapReport) -> Result<&[ClassifiedGap], InputError> {
    report.gaps.as_deref().ok_or_else(|| {
        InputError::new("internal: the gaps were analysed without GapConfig::keep_gaps")
    })
}

impl TimelineInput {
    /// The timeline chart's input for a `gaps` run: the window
    /// ([`timeline_window`]: `--window` relative to the first GPU op, else
    /// the first `--nvtx` instances, else the busiest stretch), then one
    /// idle-gap lane per (process, device) followed by one lane per stream
    /// with ops in the window. The report's `--device`/`--stream` apply.
    pub fn from_gaps(
        tl: &Timeline,
        report: &GapReport,
        window_rel_ns: Option<(i64, i64)>,
        title: &str,
    ) -> Result<TimelineInput, InputError> {
        let gaps = kept_gaps(report)?;
        let ((w0, w1), how) = timeline_window(tl, report, window_rel_ns)?;
        // The chart's axis runs on to a round tick after w1: gather that too.
        let end = drawn_end_ns(w0, w1);
        let scope = report.settings.scope();
        let mut by_lane: BTreeMap<(u32, u16, u32), Vec<&crate::timeline::GpuOp>> = BTreeMap::new();
        for op in tl
            .ops
            .iter()
            .filter(|o| scope.selects(o) && o.start_ns < end && o.end_ns > w0)
        {
            by_lane
                .entry((op.pid, op.device, op.stream))
                .or_default()
                .push(op);
        }
        let origin = trace_origin(tl, report);
        if by_lane.is_empty() {
            let last = tl.ops.iter().map(|o| o.end_ns).max().unwrap_or(origin.ns);
            return Err(InputError::new(format!(
                "no GPU op in the timeline window ({how}): {}; the GPU ops run from 0 s to \
                 {:.6} s after the first (give --window within that)",
                origin.span_text((w0, w1)),
                (last - origin.ns) as f64 / 1e9
            )));
        }
        let pids: BTreeSet<u32> = by_lane.keys().map(|k| k.0).collect();
        let who = |pid: u32, device: u16| {
            if pids.len() > 1 {
                format!("pid {pid} GPU {device}")
            } else {
                format!("GPU {device}")
            }
        };
        let mut lanes = Vec::new();
        let mut ops = Vec::new();
        let mut gap_lane = HashMap::new();
        for (&(pid, device, stream), lane_ops) in &by_lane {
            gap_lane.entry((pid, device)).or_insert_with(|| {
                lanes.push(Lane {
                    label: format!("{} idle gaps", who(pid, device)),
                });
                lanes.len() - 1
            });
            let lane = lanes.len();
            lanes.push(Lane {
                label: format!("{} stream {stream}", who(pid, device)),
            });
            ops.extend(lane_ops.iter().map(|o| OpBar {
                lane,
                start_ns: o.start_ns,
                end_ns: o.end_ns,
                kind: bar_kind(o.kind),
                name: tl.name(o.name).to_string(),
            }));
        }
        let gaps = gaps
            .iter()
            .filter(|g| g.start_ns < end && g.end_ns > w0)
            .filter_map(|g| {
                gap_lane.get(&(g.pid, g.device)).map(|&lane| GapBar {
                    lane,
                    start_ns: g.start_ns,
                    end_ns: g.end_ns,
                    class: g.class,
                })
            })
            .collect();
        Ok(TimelineInput {
            title: format!("Timeline: {title}"),
            lanes,
            ops,
            gaps,
            window: WindowChoice::Chosen {
                start_ns: w0,
                end_ns: w1,
                how,
            },
            origin,
        })
    }
}

/// t = 0 of a `gaps` chart: the first GPU op of the trace (as `--window`
/// counts, [`first_op_ns`]), with its date when a PyTorch trace's clock is
/// Unix time (as the report's tables give it).
fn trace_origin(tl: &Timeline, report: &GapReport) -> TimeOrigin {
    let ns = first_op_ns(tl);
    TimeOrigin {
        ns,
        what: "the first GPU op".to_string(),
        date: (report.input.source.tool() == crate::timeline::Tool::PyTorchProfiler)
            .then(|| crate::units::unix_clock_date(ns))
            .flatten(),
    }
}

/// A graph row is kernel work on the chart.
fn bar_kind(k: OpKind) -> OpKind {
    match k {
        OpKind::Graph => OpKind::Kernel,
        k => k,
    }
}

impl HistogramInput {
    /// The histogram's input for a `gaps` run: every classified gap of the
    /// report at least `--min-gap` long, binned like the report's histogram
    /// table ([`HIST_EDGES_NS`]).
    pub fn from_gaps(report: &GapReport, title: &str) -> Result<HistogramInput, InputError> {
        let min_ns = report.settings.min_gap_ns.max(1);
        Ok(HistogramInput {
            title: format!("Idle gaps: {title}"),
            gaps: kept_gaps(report)?
                .iter()
                .filter(|g| g.end_ns - g.start_ns >= min_ns)
                .map(|g| GapSample {
                    duration_ns: (g.end_ns - g.start_ns) as f64,
                    class: g.class,
                })
                .collect(),
            edges_ns: HIST_EDGES_NS.to_vec(),
        })
    }
}
