//! `rooftrace ncu`: resolve the arguments into plain config, parse the CSV,
//! pick the roofs, analyse, render, write.

use crate::cli::ncu::{GroupByArg, NcuArgs, RoofClockArg};
use crate::error::InputError;
use crate::input::InputKind;
use crate::ncu::{self, NcuCsv, NcuError};
use crate::plot::{ProjectionRooflineChart, ProjectionRooflineInput, RooflineChart, RooflineInput};
use crate::report::roofline::render_gpu_list;
use crate::report::{Format, Render, RenderOptions};
use crate::roofline::useful::{apply_useful, UsefulRule};
use crate::roofline::{analyze_owned_at, GroupBy, RoofClock};
use crate::roofs::{self, RoofsChoice};
use anyhow::Context;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use super::inputs::{check_file, NCU_EXTS, NCU_FIX};
use super::many::{self, Job, ManyConfig};
use super::output::{refuse_inputs, write_output, write_output_with};
use super::plot::PlotTarget;

/// Most kernels labelled on the roofline plot: more labels than this no
/// longer fit beside their dots on the 1200 × 800 canvas.
pub const PLOT_LABELS_MAX: usize = 10;

/// Kernels labelled on the plot for `--top N` (0 = all): `N`, at most
/// [`PLOT_LABELS_MAX`].
pub fn plot_labels(top: usize) -> usize {
    if top == 0 {
        PLOT_LABELS_MAX
    } else {
        top.min(PLOT_LABELS_MAX)
    }
}

/// Plain config of one `rooftrace ncu` run.
#[derive(Debug, Clone)]
pub struct NcuConfig {
    /// The CSV.
    pub input: PathBuf,
    /// Where the roofs come from.
    pub roofs: RoofsChoice,
    /// Rows per launch or per kernel.
    pub group_by: GroupBy,
    /// The clock the roofs are taken at.
    pub roof_clock: RoofClock,
    /// Output format.
    pub format: Format,
    /// Rows of the main table (0 = all).
    pub top: usize,
    /// Output file (stdout when `None`).
    pub output: Option<PathBuf>,
    /// Roofline plot to write as well.
    pub plot: Option<PlotTarget>,
    /// Useful work per kernel (`--useful-flops`).
    pub useful: Vec<UsefulRule>,
    /// `--project-to` targets (empty: no projection).
    pub project_to: Vec<crate::projection::Target>,
    /// `--projection-model`.
    pub projection_model: crate::projection::Model,
}

/// Runs `rooftrace ncu`.
pub fn run(args: NcuArgs) -> anyhow::Result<()> {
    let report_format = args.output.format.report();
    let format = report_format.unwrap_or(Format::Table);
    if args.print_metrics {
        let mut s = ncu::metrics::PRINT_METRICS.join(",");
        s.push('\n');
        return write_output(args.output.output.as_deref(), s.as_bytes());
    }
    if args.list_gpus {
        return write_output(args.output.output.as_deref(), &render_gpu_list(format));
    }
    let inputs = super::inputs::expand(&args.input, NCU_EXTS);
    let skipped = super::inputs::skipped_files(&args.input, &inputs);
    if let Some(line) = super::inputs::skipped_note(&skipped, NCU_EXTS) {
        super::output::note(&line);
    }
    let parquet = match report_format {
        None => Some(many::parquet_dir(args.output.output.as_deref())?),
        Some(_) => None,
    };
    if (inputs.len() > 1 || parquet.is_some()) && args.plot.is_some() {
        return Err(InputError::new(
            "--plot draws one input; give a single CSV, or leave out --plot (and --format parquet)",
        )
        .into());
    }
    let many_config = ManyConfig::from_args(&args.many, parquet)?;
    let input = inputs.first().cloned().context("no input file given")?;
    let plot = args
        .plot
        .as_deref()
        .map(|p| PlotTarget::from_flag("--plot", p))
        .transpose()?;
    let roofs = super::roofs::choice(&args.roofs)?;
    let config = NcuConfig {
        input,
        roofs,
        group_by: match args.group_by {
            GroupByArg::Launch => GroupBy::Launch,
            GroupByArg::Kernel => GroupBy::Kernel,
        },
        roof_clock: match args.roof_clock {
            RoofClockArg::Run => RoofClock::Run,
            RoofClockArg::Boost => RoofClock::Boost,
        },
        format,
        top: args.output.top,
        output: args.output.output,
        plot,
        useful: args
            .useful_flops
            .iter()
            .map(|r| UsefulRule::parse(r))
            .collect::<Result<_, _>>()
            .map_err(InputError::from)?,
        project_to: super::projection::targets(
            &args.projection.project_to,
            args.projection.target_launch_cost,
        )?,
        projection_model: super::projection::model(args.projection.projection_model),
    };
    if !config.project_to.is_empty() && (inputs.len() > 1 || many_config.parquet.is_some()) {
        return Err(InputError::new(
            "--project-to projects one input; give a single CSV (and a --format other than parquet)",
        )
        .into());
    }
    let mut targets: Vec<(&str, &Path)> = Vec::new();
    if let Some(o) = &config.output {
        targets.push(("-o", o));
    }
    if let Some(p) = &config.plot {
        targets.push(("--plot", &p.path));
    }
    let mut read: Vec<&Path> = inputs.iter().map(PathBuf::as_path).collect();
    if let RoofsChoice::File(f) = &config.roofs {
        read.push(f);
    }
    refuse_inputs(&targets, &read)?;
    if inputs.len() > 1 || many_config.parquet.is_some() {
        return run_many(&config, &inputs, &skipped, &many_config);
    }
    let (report, opts) = report(&config)?;
    // Streamed: the JSON and CSV rows are written as they are rendered.
    write_output_with(config.output.as_deref(), |out| {
        report.render_to(config.format, &opts, out)
    })
}

/// Parses, analyses and renders; writes the plot when asked (before the
/// report, so a Markdown link never points at a file that failed); returns
/// the report bytes.
pub fn report_bytes(config: &NcuConfig) -> anyhow::Result<Vec<u8>> {
    let (report, opts) = report(config)?;
    Ok(report.render(config.format, &opts))
}

/// Parses and analyses (the parsed CSV is dropped before anything is
/// rendered: only the report's rows stay), writes the plot when asked;
/// returns the report to render and its options.
fn report(config: &NcuConfig) -> anyhow::Result<(Box<dyn Render>, RenderOptions)> {
    let csv = read_csv(&config.input)?;
    csv.check_analysable().map_err(InputError::from)?;
    let (roofs, gpu) =
        roofs::choose_or_undecided::<InputError>(&config.roofs, &csv.device_hints(), || {
            Ok(csv.roofs_from_peaks()?)
        })?;
    // The launches are dropped as their rows are made.
    let mut report = analyze_owned_at(csv, &roofs, gpu, config.group_by, config.roof_clock);
    apply_useful(&mut report, &config.useful);
    if !config.project_to.is_empty() {
        return projected(report, config);
    }
    if let Some(target) = &config.plot {
        let input = RooflineInput::from_report(&report, plot_labels(config.top));
        let fix = if report.roofless() {
            "give --gpu KEY (or --roofs FILE) to draw the roofs"
        } else {
            ""
        };
        let chart = super::plot::built_or(
            RooflineChart::build(&input),
            "--plot",
            || format!("drawing the roofline of {}", config.input.display()),
            fix,
        )?;
        target.write(&chart)?;
    }
    let opts = RenderOptions {
        top: config.top,
        images: config
            .plot
            .iter()
            .map(|t| {
                (
                    "roofline".to_string(),
                    t.markdown_link(config.output.as_deref()),
                )
            })
            .collect(),
    };
    Ok((Box::new(report), opts))
}

/// `--project-to`: projects the report, draws the projected roofline of the
/// first target when asked; returns the projection to render.
fn projected(
    report: crate::roofline::RooflineReport,
    config: &NcuConfig,
) -> anyhow::Result<(Box<dyn Render>, RenderOptions)> {
    if report.roofless() {
        return Err(InputError::new(format!(
            "--project-to compares the bounds on both GPUs, but {} has no roofs (its GPU was not decided): name it with --gpu KEY or give --roofs FILE",
            config.input.display()
        ))
        .into());
    }
    let projected = super::projection::ncu(report, &config.project_to, config.projection_model);
    let mut images = Vec::new();
    if let Some(target) = &config.plot {
        let input = ProjectionRooflineInput::from_projection(&projected, 0).ok_or_else(|| {
            InputError::new(
                "--plot with --project-to: no row has FLOPs, DRAM bytes and an expected time on the first target, so there is no point to draw",
            )
        })?;
        let chart = super::plot::built(ProjectionRooflineChart::build(&input), "--plot", || {
            format!(
                "drawing the projected roofline of {}",
                config.input.display()
            )
        })?;
        target.write(&chart)?;
        images.push((
            "projected roofline".to_string(),
            target.markdown_link(config.output.as_deref()),
        ));
    }
    let opts = RenderOptions {
        top: config.top,
        images,
    };
    Ok((Box::new(projected), opts))
}

/// Why an input from rates alone fails in a run over many inputs
/// ([`crate::ncu::NcuCsv::check_timed`]).
const MANY_NEEDS_TIME: &str = "a run over several inputs (and --format parquet) ranks kernels by time and sums times, bytes and time lost across inputs and into the datasets";

/// Runs over many CSVs in parallel ([`many::run_all`]), each with its own
/// roofs (from the CSV, or `--gpu`/`--roofs`); writes the cross-input
/// report (or the Parquet datasets), then says whether some failed (exit 4).
fn run_many(
    config: &NcuConfig,
    inputs: &[PathBuf],
    skipped: &[PathBuf],
    mc: &ManyConfig,
) -> anyhow::Result<()> {
    let work = |job: &Job| -> anyhow::Result<crate::many_inputs::NcuInput> {
        let path = &job.path;
        let shown = path.display().to_string();
        check_file(path, NCU_EXTS, NCU_FIX)?;
        // No per-file progress bar: several would garble the terminal.
        let csv = if ncu::convert::is_report(path) {
            ncu::convert::parse_report(path, &shown).map_err(InputError::from)?
        } else {
            let file =
                crate::timeline::limits::open_regular(path).map_err(|error| NcuError::Io {
                    file: shown.clone(),
                    error,
                })?;
            ncu::parse(std::io::BufReader::new(file), &shown).map_err(InputError::from)?
        };
        csv.check_analysable().map_err(InputError::from)?;
        csv.check_timed(MANY_NEEDS_TIME).map_err(InputError::from)?;
        let (roofs, gpu) =
            roofs::choose_or_undecided::<InputError>(&config.roofs, &csv.device_hints(), || {
                Ok(csv.roofs_from_peaks()?)
            })?;
        let report = analyze_owned_at(csv, &roofs, gpu, config.group_by, config.roof_clock);
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let (rank, rank_source) = mc.rank.resolve(&name, None);
        let tag = crate::many_inputs::InputTag {
            input: shown,
            partition: job.partition.clone(),
            host: None,
            rank,
            rank_source,
        };
        if let Some(dir) = &mc.parquet {
            let sets = crate::report::parquet::ncu::datasets(&tag, &report);
            many::write_datasets(dir, &job.partition, &sets)?;
        }
        Ok(crate::many_inputs::NcuInput { tag, report })
    };
    let results = many::run_all(inputs, mc, &work);
    let (ok, failures) = many::split_results(inputs, results);
    let mut written = Ok(());
    match &mc.parquet {
        Some(dir) => super::output::note(&format!(
            "wrote Parquet datasets of {} inputs under {}",
            ok.len(),
            dir.display()
        )),
        None if ok.is_empty() => {}
        None => {
            let mut report = crate::many_inputs::summarize_ncu(ok, failures.clone());
            report.skipped = skipped.iter().map(|p| p.display().to_string()).collect();
            let opts = RenderOptions {
                top: config.top,
                images: Vec::new(),
            };
            written = write_output_with(config.output.as_deref(), |out| {
                report.render_to(config.format, &opts, out)
            });
        }
    }
    super::output::finish(written, many::outcome(inputs.len(), &failures))
}

/// Reads and parses an ncu CSV, with a byte progress bar on a terminal; a
/// `.ncu-rep` report is imported with `ncu` first; `-` reads standard input.
pub fn read_csv(path: &Path) -> Result<NcuCsv, InputError> {
    if path.as_os_str() == "-" {
        return Ok(ncu::parse(std::io::stdin().lock(), "<stdin>")?);
    }
    check_file(path, NCU_EXTS, NCU_FIX)?;
    let shown = path.display().to_string();
    match crate::input::identify_for(path, &crate::input::NCU, None)? {
        InputKind::NcuReport => return Ok(ncu::convert::parse_report(path, &shown)?),
        InputKind::PyTorchTrace => return read_trace_counters(path, &shown),
        _ => {}
    }
    let file = crate::timeline::limits::open_regular(path).map_err(|error| NcuError::Io {
        file: shown.clone(),
        error,
    })?;
    let len = file.metadata().map(|m| m.len()).unwrap_or(0);
    // Only worth a bar for big files, and only where someone sees it.
    if len > 64 << 20 && std::io::stderr().is_terminal() {
        let bar = indicatif::ProgressBar::new(len).with_style(
            indicatif::ProgressStyle::with_template(
                "{bytes}/{total_bytes} {bar:30} {binary_bytes_per_sec} {eta}",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        let parsed = ncu::parse(bar.wrap_read(file), &shown);
        bar.finish_and_clear();
        Ok(parsed?)
    } else {
        Ok(ncu::parse(file, &shown)?)
    }
}

/// The CUPTI counter ranges of a PyTorch profiler trace, read as the raw
/// page of an ncu export ([`crate::kineto::counters::raw_page_csv`]).
fn read_trace_counters(path: &Path, shown: &str) -> Result<NcuCsv, InputError> {
    let trace = crate::kineto::read_counters(path)?;
    let Some(text) = crate::kineto::counters::raw_page_csv(&trace) else {
        return Err(InputError::new(format!(
            "{shown}: a PyTorch profiler trace without CUPTI counter ranges (`cuda_profiler_range` events); record them with `torch.profiler.profile(experimental_config=torch.profiler._ExperimentalConfig(profiler_metrics=[...], profiler_measure_per_kernel=True))`, or give an ncu CSV"
        )));
    };
    let csv = ncu::parse(text.as_bytes(), shown)?;
    if let Err(NcuError::NoDuration { launches, .. }) = csv.check_analysable() {
        return Err(InputError::new(format!(
            "{shown}: {launches} CUPTI counter ranges but no kernel duration among their metrics (a range's own `dur` is the profiling pass, replays included, not the kernel's time); add `gpu__time_duration.sum` (and `dram__bytes_read.sum`, `dram__bytes_write.sum` for the memory side) to `profiler_metrics`"
        )));
    }
    Ok(csv)
}
