//! `rooftrace gaps`: resolve the input (convert an `.nsys-rep`), read the
//! timeline with a progress bar on a terminal, analyse, render, write.

use super::output::write_output;
use super::plot::PlotTarget;
use crate::cli::gaps::GapsArgs;
use crate::error::InputError;
use crate::gaps::{analyze, classified_gaps, window, GapConfig, GapReport};
use crate::nsys::{export::resolve_export, read_timeline, OpKind, Timeline};
use crate::plot::timeline::{choose_window, drawn_end_ns, OpKind as BarKind};
use crate::plot::{
    GapBar, GapHistogram, GapSample, HistogramInput, Lane, OpBar, TimelineChart, TimelineInput,
    WindowChoice,
};
use crate::report::gaps::{render, RenderOptions};
use crate::units::duration_ns;
use anyhow::Context;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;

/// NVTX range instances the default timeline window shows with `--nvtx`.
pub const TIMELINE_NVTX_INSTANCES: usize = 3;

/// Bins per decade of the gap histogram (edges at 1, 1.78, 3.16, 5.62 × 10^k ns).
pub const HIST_BINS_PER_DECADE: u32 = 4;

/// Runs `rooftrace gaps`.
pub fn run(args: GapsArgs) -> anyhow::Result<()> {
    let nvtx = match &args.nvtx {
        Some(p) => {
            Some(regex::Regex::new(p).map_err(|e| InputError::new(format!("--nvtx `{p}`: {e}")))?)
        }
        None => None,
    };
    // Plot file names are checked before any work (exit 2 on a bad one).
    let plot = args
        .plot
        .as_deref()
        .map(|p| PlotTarget::from_flag("--plot", p))
        .transpose()?;
    let plot_hist = args
        .plot_hist
        .as_deref()
        .map(|p| PlotTarget::from_flag("--plot-hist", p))
        .transpose()?;
    let cfg = GapConfig {
        device: args.device,
        stream: args.stream,
        min_gap_ns: args.min_gap,
        launch_latency_ns: args.latency,
        top: args.output.top,
        nvtx,
    };
    if !args.input.is_file() {
        return Err(InputError::new(format!(
            "{}: no such file; give an .nsys-rep or the .sqlite from `nsys export --type=sqlite`",
            args.input.display()
        ))
        .into());
    }
    let sqlite = resolve_export(&args.input, args.nsys.as_deref()).map_err(InputError::from)?;

    let bar = if std::io::stderr().is_terminal() {
        let b = ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::stderr());
        b.set_style(
            ProgressStyle::with_template("reading {msg} [{bar:30}] {human_pos}/{human_len} rows")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        b.set_message(
            sqlite
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
        );
        b
    } else {
        ProgressBar::hidden()
    };
    let progress = |done: u64, total: u64| {
        bar.set_length(total);
        bar.set_position(done);
    };
    // NsysError names the file and table already.
    let timeline =
        read_timeline(&sqlite, cfg.nvtx.is_some(), &progress).map_err(InputError::from)?;
    bar.finish_and_clear();

    if cfg.device.is_some() || cfg.stream.is_some() {
        check_filters_match(&timeline, &cfg, &args.input)?;
    }
    let report = analyze(&timeline, &cfg);
    let title = args
        .input
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    // Plots first, so a Markdown link never points at a file that failed.
    let md_output = args.output.output.as_deref();
    let mut images = Vec::new();
    if let Some(target) = &plot {
        let input = timeline_input(&timeline, &cfg, &report, args.window, &title)?;
        let chart = TimelineChart::build(&input)
            .with_context(|| format!("drawing the timeline of {}", args.input.display()))?;
        target.write(&chart)?;
        images.push(("GPU timeline".to_string(), target.markdown_link(md_output)));
    }
    if let Some(target) = &plot_hist {
        let input = histogram_input(&timeline, &cfg, &title);
        if input.gaps.is_empty() {
            return Err(InputError::new(format!(
                "--plot-hist: {} has no idle gap of at least --min-gap {} to draw (lower --min-gap, or check --device/--stream)",
                args.input.display(),
                duration_ns(cfg.min_gap_ns as f64)
            ))
            .into());
        }
        let chart = GapHistogram::build(&input)
            .with_context(|| format!("drawing the gap histogram of {}", args.input.display()))?;
        target.write(&chart)?;
        images.push((
            "idle-gap histogram".to_string(),
            target.markdown_link(md_output),
        ));
    }
    if let Some(url) = &args.image {
        images.push(("GPU timeline".to_string(), url.clone()));
    }
    let bytes = render(
        &report,
        args.output.format.into(),
        &RenderOptions {
            rows: args.output.top,
            images,
        },
    );
    write_output(args.output.output.as_deref(), &bytes)
}

/// The timeline chart's input: the window (`--window` relative to the first
/// GPU op; else the first [`TIMELINE_NVTX_INSTANCES`] `--nvtx` instances,
/// projected on the GPU; else the busiest stretch by kernel time), then one
/// idle-gap lane per (process, device) followed by one lane per stream with
/// ops in the window. `--device`/`--stream` apply (through `cfg`).
pub fn timeline_input(
    tl: &Timeline,
    cfg: &GapConfig,
    report: &GapReport,
    window_rel_ns: Option<(i64, i64)>,
    title: &str,
) -> anyhow::Result<TimelineInput> {
    let first_op_ns = tl.ops.iter().map(|o| o.start_ns).min().unwrap_or(0);
    // Instances that launched GPU work (projected), else every instance:
    // a broad regex also matches host-only ranges such as `MPI_Init`.
    let nvtx: Option<Vec<(i64, i64)>> = report.ranges.as_ref().map(|r| {
        let projected = r.instances.iter().any(|i| i.projected);
        r.instances
            .iter()
            .filter(|i| i.projected || !projected)
            .map(|i| (i.gpu_start_ns, i.gpu_end_ns))
            .collect()
    });
    let choice = match (window_rel_ns, nvtx) {
        (Some((a, b)), _) => WindowChoice::Chosen {
            start_ns: first_op_ns + a,
            end_ns: first_op_ns + b,
            how: format!(
                "--window {}..{} after the first GPU op",
                duration_ns(a as f64),
                duration_ns(b as f64)
            ),
        },
        (None, Some(ranges)) if !ranges.is_empty() => WindowChoice::NvtxRanges {
            ranges,
            count: TIMELINE_NVTX_INSTANCES,
        },
        _ => WindowChoice::Busiest { width_ns: None },
    };
    // Resolve the window over every (filtered) op, then keep only the lanes
    // active in it.
    let all = window(tl, cfg, i64::MIN, i64::MAX);
    let bars: Vec<OpBar> = all
        .lanes
        .iter()
        .flat_map(|l| l.ops.iter())
        .map(|o| OpBar {
            lane: 0,
            start_ns: o.start_ns,
            end_ns: o.end_ns,
            kind: bar_kind(o.kind),
            name: String::new(),
        })
        .collect();
    let ((w0, w1), how) = choose_window(&choice, &bars).ok_or_else(|| {
        InputError::new(match window_rel_ns {
            Some(_) => "--window: the end must be after the start".to_string(),
            None => {
                "no GPU op with a positive duration to draw (check --device/--stream)".to_string()
            }
        })
    })?;
    // The chart's axis runs on to a round tick after w1: gather that too.
    let win = window(tl, cfg, w0, drawn_end_ns(w0, w1));
    if win.lanes.is_empty() {
        return Err(InputError::new(format!(
            "no GPU op in the timeline window {:.6} s to {:.6} s on the trace clock ({how}); \
             the GPU ops run from {:.6} s (give --window relative to that)",
            w0 as f64 / 1e9,
            w1 as f64 / 1e9,
            first_op_ns as f64 / 1e9
        ))
        .into());
    }
    let pids: std::collections::BTreeSet<u32> = win.lanes.iter().map(|l| l.pid).collect();
    let who = |pid: u32, device: u16| {
        if pids.len() > 1 {
            format!("pid {pid} GPU {device}")
        } else {
            format!("GPU {device}")
        }
    };
    let mut lanes = Vec::new();
    let mut ops = Vec::new();
    let mut gap_lane = std::collections::HashMap::new();
    for l in &win.lanes {
        if let std::collections::hash_map::Entry::Vacant(e) = gap_lane.entry((l.pid, l.device)) {
            e.insert(lanes.len());
            lanes.push(Lane {
                label: format!("{} idle gaps", who(l.pid, l.device)),
            });
        }
        let lane = lanes.len();
        lanes.push(Lane {
            label: format!("{} stream {}", who(l.pid, l.device), l.stream),
        });
        ops.extend(l.ops.iter().map(|o| OpBar {
            lane,
            start_ns: o.start_ns,
            end_ns: o.end_ns,
            kind: bar_kind(o.kind),
            name: o.name.clone(),
        }));
    }
    let gaps = win
        .gaps
        .iter()
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
    })
}

/// A graph row is kernel work on the chart.
fn bar_kind(k: OpKind) -> BarKind {
    match k {
        OpKind::Kernel | OpKind::Graph => BarKind::Kernel,
        OpKind::Memcpy => BarKind::Memcpy,
        OpKind::Memset => BarKind::Memset,
    }
}

/// The histogram's input: every device gap (after `--device`/`--stream`) at
/// least `--min-gap` long, with its class.
pub fn histogram_input(tl: &Timeline, cfg: &GapConfig, title: &str) -> HistogramInput {
    HistogramInput {
        title: format!("Idle gaps: {title}"),
        gaps: classified_gaps(tl, cfg)
            .into_iter()
            .filter(|g| g.end_ns - g.start_ns >= cfg.min_gap_ns.max(1))
            .map(|g| GapSample {
                duration_ns: (g.end_ns - g.start_ns) as f64,
                class: g.class,
            })
            .collect(),
        bins_per_decade: HIST_BINS_PER_DECADE,
    }
}

/// `--device`/`--stream` that select no GPU op are a usage error: say which
/// devices and streams the export has instead of printing an empty report.
fn check_filters_match(
    timeline: &crate::nsys::Timeline,
    cfg: &GapConfig,
    input: &std::path::Path,
) -> Result<(), InputError> {
    let selected = |o: &&crate::nsys::GpuOp| {
        cfg.device.is_none_or(|d| d == o.device) && cfg.stream.is_none_or(|s| s == o.stream)
    };
    if timeline.ops.iter().any(|o| selected(&o)) {
        return Ok(());
    }
    let mut pairs: Vec<(u16, u32)> = timeline.ops.iter().map(|o| (o.device, o.stream)).collect();
    pairs.sort_unstable();
    pairs.dedup();
    let listed: Vec<String> = pairs
        .iter()
        .take(20)
        .map(|(d, s)| format!("device {d} stream {s}"))
        .collect();
    Err(InputError::new(format!(
        "{}: no GPU op matches {}{}; the export has: {}{}",
        input.display(),
        cfg.device
            .map(|d| format!("--device {d} "))
            .unwrap_or_default(),
        cfg.stream
            .map(|s| format!("--stream {s}"))
            .unwrap_or_default(),
        listed.join(", "),
        if pairs.len() > 20 { ", …" } else { "" }
    )))
}
