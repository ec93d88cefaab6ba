//! `rooftrace gaps`: resolve the arguments into plain config ([`GapsConfig`]),
//! resolve the input (convert an `.nsys-rep`), read the timeline with a
//! progress bar on a terminal, analyse once, draw, render, write.

use super::inputs::{check_file, NSYS_EXTS, NSYS_FIX};
use super::many::{self, Job, ManyConfig};
use super::output::{refuse_inputs, write_output};
use super::plot::PlotTarget;
use super::trace_out::TraceTarget;
use crate::cli::gaps::GapsArgs;
use crate::error::InputError;
use crate::gaps::{analyze, GapConfig, GapReport, HostLinkInfo};
use crate::input::ReadOptions;
use crate::kineto::Keep;
use crate::many_inputs::jobs::GapsRun;
use crate::plot::{GapHistogram, HistogramInput, TimelineChart, TimelineInput};
use crate::report::{Format, Render, RenderOptions};
use crate::roofs::{self, choose::LinkChoice};
use crate::timeline::Timeline;
use crate::units::duration_ns;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

/// Plain config of one `rooftrace gaps` run.
#[derive(Debug, Clone)]
pub struct GapsConfig {
    /// The `.nsys-rep` or `.sqlite` export (the first of `inputs`).
    pub input: PathBuf,
    /// Every input, globs and directories expanded.
    pub inputs: Vec<PathBuf>,
    /// Files the directories given held that are no input (named on
    /// stderr and in the cross-input report).
    pub skipped: Vec<PathBuf>,
    /// Parallelism, memory budget, rank rule, Parquet output.
    pub many: ManyConfig,
    /// `--one-job`: every input a rank of one job, whatever they record.
    pub one_job: bool,
    /// The `nsys` executable used to convert an `.nsys-rep`.
    pub nsys: Option<PathBuf>,
    /// `--gpu`: the table GPU whose host link the copies are judged
    /// against (else the GPU the export's record decides).
    pub gpu: Option<String>,
    /// What to analyse and how.
    pub analysis: GapConfig,
    /// `--window`: the timeline window relative to the first GPU op, ns.
    pub window_rel_ns: Option<(i64, i64)>,
    /// Timeline chart to write.
    pub plot: Option<PlotTarget>,
    /// Gap histogram chart to write.
    pub plot_hist: Option<PlotTarget>,
    /// `--trace-out`: the Chrome trace to write.
    pub trace_out: Option<TraceTarget>,
    /// Markdown only: an image to link under the verdict.
    pub image: Option<String>,
    /// Output format.
    pub format: Format,
    /// Rows of the stream, range and top-gap tables (0 = all).
    pub top: usize,
    /// Output file (stdout when `None`).
    pub output: Option<PathBuf>,
}

impl GapsConfig {
    /// Resolves the arguments: the `--nvtx` regex and the plot file names
    /// are checked here, before any work (exit 2 on a bad one).
    pub fn from_args(args: GapsArgs) -> Result<GapsConfig, InputError> {
        let nvtx = match &args.nvtx {
            Some(p) => Some(
                regex::Regex::new(p).map_err(|e| InputError::new(format!("--nvtx `{p}`: {e}")))?,
            ),
            None => None,
        };
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
        let trace_out = args
            .trace_out
            .as_deref()
            .map(TraceTarget::from_flag)
            .transpose()?;
        let format = args.output.format.report();
        let parquet = match format {
            None => Some(many::parquet_dir(args.output.output.as_deref())?),
            Some(_) => None,
        };
        if let Some(key) = &args.gpu {
            if crate::roofs::gpus::by_key(key).is_none() {
                let keys: Vec<&str> = crate::roofs::gpus::all().iter().map(|g| g.key).collect();
                return Err(InputError::new(format!(
                    "--gpu {key}: not a GPU of the built-in table; {}",
                    crate::suggest::did_you_mean_among(key, &keys, "`rooftrace ncu --list-gpus`")
                )));
            }
        }
        let inputs = super::inputs::expand(&args.input, NSYS_EXTS);
        let skipped = super::inputs::skipped_files(&args.input, &inputs);
        if let Some(line) = super::inputs::skipped_note(&skipped, NSYS_EXTS) {
            super::output::note(&line);
        }
        if inputs.len() > 1 || parquet.is_some() {
            for (flag, given) in [
                ("--plot", plot.is_some()),
                ("--plot-hist", plot_hist.is_some()),
                ("--trace-out", trace_out.is_some()),
            ] {
                if given {
                    return Err(InputError::new(format!(
                        "{flag} shows one input; give a single input, or leave out {flag} (and --format parquet)"
                    )));
                }
            }
        }
        Ok(GapsConfig {
            many: ManyConfig::from_args(&args.many, parquet)?,
            one_job: args.one_job,
            input: inputs.first().cloned().unwrap_or_default(),
            inputs,
            skipped,
            analysis: GapConfig {
                device: args.device,
                stream: args.stream,
                min_gap_ns: args.min_gap,
                launch_latency_ns: args.latency,
                top: args.output.top,
                nvtx,
                // The charts and the `gaps` dataset use the gaps the
                // analysis classified.
                keep_gaps: plot.is_some() || plot_hist.is_some() || format.is_none(),
            },
            nsys: args.nsys,
            gpu: args.gpu,
            window_rel_ns: args.window,
            plot,
            plot_hist,
            trace_out,
            image: args.image,
            format: format.unwrap_or(Format::Table),
            top: args.output.top,
            output: args.output.output,
        })
    }
}

impl GapsConfig {
    /// True when the run reads only the NVTX ranges the analysis looks at
    /// ([`crate::gaps::range_filter`]): not with `--nvtx` (every instance
    /// of the pattern) nor `--trace-out` (every range drawn).
    fn near(&self) -> bool {
        self.analysis.nvtx.is_none() && self.trace_out.is_none()
    }

    /// Every file this run writes, with the flag that named it.
    fn targets(&self) -> Vec<(&'static str, &Path)> {
        let mut t: Vec<(&str, &Path)> = Vec::new();
        if let Some(o) = &self.output {
            t.push(("-o", o));
        }
        if let Some(p) = &self.plot {
            t.push(("--plot", &p.path));
        }
        if let Some(p) = &self.plot_hist {
            t.push(("--plot-hist", &p.path));
        }
        if let Some(p) = &self.trace_out {
            t.push(("--trace-out", &p.path));
        }
        t
    }
}

/// Runs `rooftrace gaps`.
pub fn run(args: GapsArgs) -> anyhow::Result<()> {
    run_config(&GapsConfig::from_args(args)?)
}

/// Runs `rooftrace gaps` on plain config: one input as always, several
/// (or `--format parquet`) through [`run_many`].
pub fn run_config(config: &GapsConfig) -> anyhow::Result<()> {
    if config.inputs.len() > 1 || config.many.parquet.is_some() {
        return run_many(config);
    }
    let cfg = &config.analysis;
    if config.input.as_os_str() == "-" {
        return Err(InputError::new(
            "gaps reads an SQLite export or a PyTorch profiler trace, which cannot come from standard input (`-`); save it to a file and give its path",
        )
        .into());
    }
    let targets = config.targets();
    refuse_inputs(&targets, &[&config.input])?;
    check_file(&config.input, NSYS_EXTS, NSYS_FIX)?;
    let source = super::timeline::open(&config.input, config.nsys.as_deref(), "`rooftrace gaps`")?;
    refuse_inputs(&targets, &[&source.path])?;
    let near = |tl: &Timeline| crate::gaps::range_filter(tl, cfg);
    let timeline = read_with_progress(&source, cfg.nvtx.is_some(), config.near().then_some(&near))?;
    if cfg.device.is_some() || cfg.stream.is_some() {
        check_filters_match(&timeline, cfg, &config.input)?;
    }
    check_ranges_fit(&timeline, cfg, &config.input)?;
    let mut report = analyze(&timeline, cfg);
    report.set_host_link(host_link(&timeline, config.gpu.as_deref(), &config.input)?);
    // Plots first, so a Markdown link never points at a file that failed.
    let mut images = write_plots(config, &timeline, &report)?;
    if let Some(target) = &config.trace_out {
        target.write(&timeline, cfg, None, &config.input)?;
    }
    if let Some(url) = &config.image {
        images.push(("GPU timeline".to_string(), url.clone()));
    }
    let opts = RenderOptions {
        top: config.top,
        images,
    };
    super::output::write_output_with(config.output.as_deref(), |out| {
        report.render_to(config.format, &opts, out)
    })
}

/// `--nvtx` matching more range instances than this process can hold rows
/// for: an error naming the input (exit 2), where the analysis would abort
/// on the allocation.
fn check_ranges_fit(timeline: &Timeline, cfg: &GapConfig, input: &Path) -> Result<(), InputError> {
    let Some(re) = &cfg.nvtx else { return Ok(()) };
    crate::gaps::rows_fit(timeline, re).map_err(|(n, bytes)| {
        InputError::new(format!(
            "{}: the {n} NVTX range instances matching --nvtx `{}` need {} for their rows, more memory than this process can get; narrow the pattern, raise the memory limit (`ulimit -v`) or free memory",
            input.display(),
            re.as_str(),
            crate::units::si(bytes as f64, "B"),
        ))
    })
}

/// Runs over many inputs in parallel ([`many::run_all`]); writes the
/// cross-input report (or the Parquet datasets, input by input), then says
/// whether some inputs failed (exit 4).
pub fn run_many(config: &GapsConfig) -> anyhow::Result<()> {
    let inputs: Vec<&Path> = config.inputs.iter().map(PathBuf::as_path).collect();
    refuse_inputs(&config.targets(), &inputs)?;
    let work = |job: &Job| analyse_one(config, job);
    let results = many::run_all(&config.inputs, &config.many, &work);
    let (ok, failures) = many::split_results(&config.inputs, results);
    let total = config.inputs.len();
    let mut written = Ok(());
    match &config.many.parquet {
        Some(dir) => super::output::note(&format!(
            "wrote Parquet datasets of {} inputs under {}",
            ok.len(),
            dir.display()
        )),
        None if ok.is_empty() => {}
        None => {
            let skipped = config.skipped.iter().map(|p| p.display().to_string());
            let opts = RenderOptions {
                top: config.top,
                images: Vec::new(),
            };
            let skipped = skipped.collect();
            let run = if config.one_job {
                GapsRun::OneJob(crate::many_inputs::jobs::one_job(
                    ok,
                    failures.clone(),
                    skipped,
                ))
            } else {
                crate::many_inputs::jobs::summarize_jobs(ok, failures.clone(), skipped)
                    .map_err(|mixed| InputError::new(mixed.line))?
            };
            let bytes = match &run {
                GapsRun::OneJob(report) => report.render(config.format, &opts),
                GapsRun::Jobs(report) => {
                    super::output::note(&format!(
                        "these {} inputs are of {} jobs (by GPU and world size, docs/scale.md): one section per job",
                        config.inputs.len() - failures.len(),
                        report.jobs.len()
                    ));
                    report.render(config.format, &opts)
                }
            };
            written = write_output(config.output.as_deref(), &bytes);
        }
    }
    super::output::finish(written, many::outcome(total, &failures))
}

/// One input of a many-input run: read, analyse as a single run would, tag,
/// and write its Parquet datasets when asked (then drop the gaps it kept).
fn analyse_one(config: &GapsConfig, job: &Job) -> anyhow::Result<crate::many_inputs::GapsInput> {
    let cfg = &config.analysis;
    let path = &job.path;
    check_file(path, NSYS_EXTS, NSYS_FIX)?;
    let source = super::timeline::open(path, config.nsys.as_deref(), "`rooftrace gaps`")?;
    let near = |tl: &Timeline| crate::gaps::range_filter(tl, cfg);
    let timeline = super::timeline::read(
        &source,
        &ReadOptions {
            nvtx: cfg.nvtx.is_some(),
            keep: Keep::NoCollectives,
            progress: &|_, _| {},
            near: config.near().then_some(&near as &crate::nsys::Near<'_>),
        },
    )?;
    if cfg.device.is_some() || cfg.stream.is_some() {
        check_filters_match(&timeline, cfg, path)?;
    }
    check_ranges_fit(&timeline, cfg, path)?;
    let mut report = analyze(&timeline, cfg);
    report.set_host_link(host_link(&timeline, config.gpu.as_deref(), path)?);
    let kernels = crate::many_inputs::kernel_totals(&timeline, cfg.scope());
    // What the summary names when `--nvtx` matched nothing.
    let unmatched = (report.ranges.as_ref()).is_some_and(|r| r.instances.is_empty());
    let range_counts = if unmatched {
        crate::gaps::range_counts(&timeline)
    } else {
        Vec::new()
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let (rank, rank_source) = config.many.rank.resolve(&name, timeline.info.identity.rank);
    let tag = crate::many_inputs::InputTag {
        input: path.display().to_string(),
        partition: job.partition.clone(),
        host: timeline.info.identity.host.clone(),
        rank,
        rank_source,
    };
    let world_size = timeline.info.identity.world_size;
    drop(timeline);
    if let Some(dir) = &config.many.parquet {
        let sets = crate::report::parquet::gaps::datasets(&tag, &report, &kernels);
        many::write_datasets(dir, &job.partition, &sets)?;
    }
    report.gaps = None;
    Ok(crate::many_inputs::GapsInput {
        tag,
        report,
        kernels,
        range_counts,
        world_size,
    })
}

/// The host link the copies crossed ([`roofs::choose::host_link`]: the
/// policy), from the GPU records of the timeline, as the report holds it.
pub(crate) fn host_link(
    timeline: &Timeline,
    gpu: Option<&str>,
    input: &Path,
) -> Result<HostLinkInfo, InputError> {
    let source = match timeline.info.source.tool() {
        crate::timeline::Tool::PyTorchProfiler => roofs::HintSource::TraceDeviceProperties,
        crate::timeline::Tool::Nsys => roofs::HintSource::ExportGpuTable,
    };
    let hints = super::timeline::export_hints(input, &timeline.info.identity.gpus, source);
    Ok(match roofs::choose::host_link(gpu, &hints)? {
        LinkChoice::Known {
            gpu,
            link,
            chosen_by,
        } => HostLinkInfo::known(
            link.interface,
            link.bytes_per_s,
            gpu.key,
            &crate::report::gpu_choice::chosen_by(&chosen_by),
            link.source,
        ),
        LinkChoice::Unknown(why) => HostLinkInfo::unknown(why),
    })
}

/// Reads the timeline, with a progress bar on a terminal.
pub(crate) fn read_with_progress(
    source: &super::timeline::TimelineInput,
    nvtx: bool,
    near: Option<&crate::nsys::Near<'_>>,
) -> anyhow::Result<Timeline> {
    let style = |total: u64| {
        ProgressStyle::with_template(progress_template(total))
            .unwrap_or_else(|_| ProgressStyle::default_bar())
    };
    let bar = if std::io::stderr().is_terminal() {
        let b = ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::stderr());
        b.set_style(style(0));
        b.set_message(
            source
                .path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
        );
        b
    } else {
        ProgressBar::hidden()
    };
    // The bar is drawn from the first total a reader states; until then
    // (and for a reader that states none) the rows are counted.
    let counted = std::sync::atomic::AtomicBool::new(false);
    let progress = |done: u64, total: u64| {
        if total > 0 && !counted.swap(true, std::sync::atomic::Ordering::Relaxed) {
            bar.set_style(style(total));
        }
        bar.set_length(total);
        bar.set_position(done);
    };
    // NsysError and KinetoError name the file (and table) already.
    let timeline = super::timeline::read(
        source,
        &ReadOptions {
            nvtx,
            keep: Keep::NoCollectives,
            progress: &progress,
            near,
        },
    )?;
    bar.finish_and_clear();
    Ok(timeline)
}

/// The progress line's template for a reader that states `total` rows:
/// a bar of done over total, or, with no total (0: not known yet, or a
/// reader that counts as it goes), the rows read so far. A bar over 0 rows
/// is drawn full and read "0/0 rows" while rows were being read.
fn progress_template(total: u64) -> &'static str {
    if total > 0 {
        "reading {msg} [{bar:30}] {human_pos}/{human_len} rows"
    } else {
        "reading {msg} {spinner} {human_pos} rows"
    }
}

/// Writes `--plot` and `--plot-hist`; returns their Markdown image links.
fn write_plots(
    config: &GapsConfig,
    timeline: &Timeline,
    report: &GapReport,
) -> anyhow::Result<Vec<(String, String)>> {
    let input_path = &config.input;
    let title = input_path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let md_output = config.output.as_deref();
    let mut images = Vec::new();
    if let Some(target) = &config.plot {
        let input = TimelineInput::from_gaps(timeline, report, config.window_rel_ns, &title)?;
        let chart = super::plot::built(TimelineChart::build(&input), "--plot", || {
            format!("drawing the timeline of {}", input_path.display())
        })?;
        target.write(&chart)?;
        images.push(("GPU timeline".to_string(), target.markdown_link(md_output)));
    }
    if let Some(target) = &config.plot_hist {
        let input = HistogramInput::from_gaps(report, &title)?;
        if input.gaps.is_empty() {
            return Err(InputError::new(format!(
                "--plot-hist: {} has no idle gap of at least --min-gap {} to draw (lower --min-gap, or check --device/--stream)",
                input_path.display(),
                duration_ns(config.analysis.min_gap_ns as f64)
            ))
            .into());
        }
        let chart = super::plot::built(GapHistogram::build(&input), "--plot-hist", || {
            format!("drawing the gap histogram of {}", input_path.display())
        })?;
        target.write(&chart)?;
        images.push((
            "idle-gap histogram".to_string(),
            target.markdown_link(md_output),
        ));
    }
    Ok(images)
}

/// `--device`/`--stream` that select no GPU op are a usage error: say which
/// devices and streams the export has instead of printing an empty report.
pub(crate) fn check_filters_match(
    timeline: &crate::nsys::Timeline,
    cfg: &GapConfig,
    input: &std::path::Path,
) -> Result<(), InputError> {
    let scope = cfg.scope();
    if timeline.ops.iter().any(|o| scope.selects(o)) {
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

#[cfg(test)]
mod tests {
    use super::progress_template;

    /// No total known: the rows counted, no bar (a bar over 0 rows is drawn
    /// full and read "0/0 rows"); a total: the bar over it.
    #[test]
    fn no_total_counts_rows_without_a_bar() {
        assert!(!progress_template(0).contains("{bar"));
        assert!(!progress_template(0).contains("{human_len}"));
        assert!(progress_template(0).contains("{human_pos} rows"));
        assert!(progress_template(12).contains("{bar:30}] {human_pos}/{human_len} rows"));
    }
}
