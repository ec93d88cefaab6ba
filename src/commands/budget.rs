//! `rooftrace budget`: resolve the arguments into plain config, read the
//! timeline, classify its gaps once (`gaps::analyze` with the step range),
//! read the ncu CSV and analyse it once (`roofline::analyze`, per launch),
//! pick the roofs, budget the steps, walk the median step's critical path
//! (`path::analyze`, for the one line naming its best change), draw,
//! render, write.

use super::gaps::{check_filters_match, read_with_progress};
use super::inputs::{check_file, NSYS_EXTS, NSYS_FIX};
use super::ncu::read_csv;
use super::output::{refuse_inputs, write_output};
use super::plot::PlotTarget;
pub use super::timeline::export_hints;
use crate::budget::{
    analyze_with_ops, BudgetConfig, BudgetReport, CriticalPathBest, Diagnostic, DiagnosticKind,
    OpModels,
};
use crate::cli::budget::BudgetArgs;
use crate::error::InputError;
use crate::gaps::GapConfig;
use crate::kineto::Keep;
use crate::plot::{BudgetChart, BudgetInput};
use crate::report::{Format, Render, RenderOptions};
use crate::roofline::GroupBy;
use crate::roofs::{self, HintSource, RoofsChoice};
use std::path::PathBuf;

/// Plain config of one `rooftrace budget` run.
#[derive(Debug, Clone)]
pub struct BudgetRunConfig {
    /// The `.nsys-rep` or `.sqlite` export.
    pub input: PathBuf,
    /// The `nsys` executable used to convert an `.nsys-rep`.
    pub nsys: Option<PathBuf>,
    /// The gap analysis (with the step range as `nvtx`).
    pub gaps: GapConfig,
    /// The ncu CSV, when the bound comes from counters.
    pub ncu: Option<PathBuf>,
    /// `--bytes-per-step`, byte.
    pub bytes_per_step: Option<f64>,
    /// Where the roofs come from.
    pub roofs: RoofsChoice,
    /// Stacked-bar chart to write.
    pub plot: Option<PlotTarget>,
    /// `--trace-out`: the Chrome trace to write.
    pub trace_out: Option<super::trace_out::TraceTarget>,
    /// Output format.
    pub format: Format,
    /// Rows of the tables (0 = all).
    pub top: usize,
    /// Output file (stdout when `None`).
    pub output: Option<PathBuf>,
    /// `--project-to` targets (empty: no projection).
    pub project_to: Vec<crate::projection::Target>,
    /// `--projection-model`.
    pub projection_model: crate::projection::Model,
    /// Keep a trace's collectives' arguments beside its op shapes (`path`
    /// over several ranks matches collectives by their sequence numbers).
    pub keep_collectives: bool,
}

impl BudgetRunConfig {
    /// Resolves the arguments; the regex, the plot name and the roofs
    /// choice are checked before any work (exit 2 on a bad one).
    pub fn from_args(args: BudgetArgs) -> Result<BudgetRunConfig, InputError> {
        let nvtx = step_regex(args.nvtx.as_deref(), &args.input)?;
        let plot = args
            .plot
            .as_deref()
            .map(|p| PlotTarget::from_flag("--plot", p))
            .transpose()?;
        let roofs = super::roofs::choice(&args.roofs)?;
        if args.ncu.is_none() && !args.projection.project_to.is_empty() {
            return Err(InputError::new(
                "--project-to scales each kernel by its counters: give the ncu CSV of the step's kernels with --ncu",
            ));
        }
        check_roofs_ncu(&roofs, args.ncu.as_deref())?;
        Ok(BudgetRunConfig {
            input: args.input,
            nsys: args.nsys,
            gaps: GapConfig {
                device: args.device,
                launch_latency_ns: args.latency,
                nvtx,
                ..GapConfig::default()
            },
            ncu: args.ncu,
            bytes_per_step: args.bytes_per_step,
            roofs,
            plot,
            trace_out: args
                .trace_out
                .as_deref()
                .map(super::trace_out::TraceTarget::from_flag)
                .transpose()?,
            format: args.output.format.report().ok_or_else(|| {
                InputError::new(
                    "budget writes a report (--format table, json, csv or md); --format parquet is for gaps and ncu",
                )
            })?,
            top: args.output.top,
            output: args.output.output,
            project_to: super::projection::targets(
                &args.projection.project_to,
                args.projection.target_launch_cost,
            )?,
            projection_model: super::projection::model(args.projection.projection_model),
            keep_collectives: false,
        })
    }
}

/// The step range of `--nvtx`, compiled (exit 2 on a bad one); `None`
/// only for a PyTorch trace, whose default step is [`DEFAULT_STEP`] (an
/// nsys export without `--nvtx` is exit 2: it has no default step).
pub fn step_regex(
    nvtx: Option<&str>,
    input: &std::path::Path,
) -> Result<Option<regex::Regex>, InputError> {
    let nvtx = nvtx
        .map(|n| regex::Regex::new(n).map_err(|e| InputError::new(format!("--nvtx `{n}`: {e}"))))
        .transpose()?;
    let is_trace = match crate::input::identify(input) {
        Ok(kind) => kind == crate::input::InputKind::PyTorchTrace,
        // No input at all (empty, missing, another kind of file): the door
        // says what it is when the run opens it, not that a flag is missing.
        Err(_) => return Ok(nvtx),
    };
    if nvtx.is_none() && !is_trace {
        return Err(InputError::new(
            "--nvtx REGEX is required: the NVTX range that marks one step (e.g. --nvtx decode_step); only a PyTorch profiler trace has a default step (ProfilerStep#N)",
        ));
    }
    Ok(nvtx)
}

/// `--roofs ncu` takes the peaks of the ncu CSV: without `--ncu`, exit 2.
pub fn check_roofs_ncu(
    roofs: &RoofsChoice,
    ncu: Option<&std::path::Path>,
) -> Result<(), InputError> {
    if ncu.is_none() && matches!(roofs, RoofsChoice::Ncu) {
        return Err(InputError::new(
            "--roofs ncu needs --ncu (the peaks are in the ncu CSV): give --gpu KEY (e.g. --gpu h100-sxm) or --roofs FILE, or leave both out to take the GPU from the export's TARGET_INFO_GPU",
        ));
    }
    Ok(())
}

/// Runs `rooftrace budget`.
pub fn run(args: BudgetArgs) -> anyhow::Result<()> {
    let config = BudgetRunConfig::from_args(args)?;
    let mut targets: Vec<(&str, &std::path::Path)> = Vec::new();
    if let Some(o) = &config.output {
        targets.push(("-o", o));
    }
    if let Some(p) = &config.plot {
        targets.push(("--plot", &p.path));
    }
    if let Some(t) = &config.trace_out {
        targets.push(("--trace-out", &t.path));
    }
    let mut inputs: Vec<&std::path::Path> = vec![&config.input];
    inputs.extend(config.ncu.as_deref());
    if let RoofsChoice::File(f) = &config.roofs {
        inputs.push(f);
    }
    refuse_inputs(&targets, &inputs)?;
    let Budgeted {
        mut report,
        roofline,
        timeline,
        gap_config,
        bounds,
    } = budget_parts(&config)?;
    // ncu launches counted per step, as the budget above counted them.
    let kernels = crate::path::KernelRoofs::from_steps(
        &timeline,
        roofline.as_ref(),
        bounds.as_ref(),
        &report,
    );
    let path_config = crate::path::PathConfig {
        input: vec![config.input.display().to_string()],
        top_kernels: crate::cli::path::TOP_KERNELS,
    };
    let path = crate::path::analyze(&timeline, &report, &kernels, &path_config);
    report.critical_path = critical_path_best(&path);
    if let Some(t) = &config.trace_out {
        t.write(&timeline, &gap_config, Some(&report), &config.input)?;
    }
    drop(timeline);
    let mut images = Vec::new();
    if let Some(target) = &config.plot {
        let input = BudgetInput::from_report(&report)?;
        let chart = super::plot::built(BudgetChart::build(&input), "--plot", || {
            format!("drawing the step budget of {}", config.input.display())
        })?;
        target.write(&chart)?;
        images.push((
            "step budget".to_string(),
            target.markdown_link(config.output.as_deref()),
        ));
    }
    let opts = RenderOptions {
        top: config.top,
        images,
    };
    let bytes = match roofline.filter(|_| !config.project_to.is_empty()) {
        Some(ncu) => {
            super::projection::budget(report, &ncu, &config.project_to, config.projection_model)
                .render(config.format, &opts)
        }
        None => report.render(config.format, &opts),
    };
    write_output(config.output.as_deref(), &bytes)
}

/// The best change on the median step's critical path as the budget
/// names it; why none is known when `path` found none.
fn critical_path_best(path: &crate::path::PathReport) -> Option<CriticalPathBest> {
    let step = path.median_step?;
    Some(match &path.best {
        Some(b) => CriticalPathBest {
            step,
            change: Some(b.change.clone()),
            saved_ns: Some(b.saved_ns),
            why: b.why.clone(),
        },
        None => {
            let replayed = path.steps.get(step).map_or(0, |s| s.what_if.len());
            CriticalPathBest {
                step,
                change: None,
                saved_ns: None,
                why: if replayed == 0 {
                    "no single change is known to shorten the median step: no change was replayed on it".to_string()
                } else {
                    format!("no single change is known to shorten the median step: none of the {replayed} changes replayed on it saves time")
                },
            }
        }
    })
}

/// Reads both inputs, analyses each once and budgets the steps.
pub fn budget(config: &BudgetRunConfig) -> anyhow::Result<BudgetReport> {
    Ok(budget_and_roofline(config)?.0)
}

/// [`budget`], keeping the ncu analysis it budgeted with (for `--project-to`).
pub fn budget_and_roofline(
    config: &BudgetRunConfig,
) -> anyhow::Result<(BudgetReport, Option<crate::roofline::RooflineReport>)> {
    let b = budget_parts(config)?;
    Ok((b.report, b.roofline))
}

/// A budget with what it was made from (what `--trace-out` and `path`
/// read again instead of reading the inputs twice).
pub struct Budgeted {
    /// The step budget.
    pub report: BudgetReport,
    /// The ncu analysis, per launch, with `--ncu`.
    pub roofline: Option<crate::roofline::RooflineReport>,
    /// The timeline as read.
    pub timeline: crate::timeline::Timeline,
    /// The gap analysis with its step range.
    pub gap_config: GapConfig,
    /// Each kernel's share of its op call's bound, from a trace's shapes.
    pub bounds: Option<crate::ops::KernelBounds>,
}

/// Reads both inputs, analyses each once and budgets the steps, keeping
/// what it was made from ([`Budgeted`]).
pub fn budget_parts(config: &BudgetRunConfig) -> anyhow::Result<Budgeted> {
    check_file(&config.input, NSYS_EXTS, NSYS_FIX)?;
    let csv = config.ncu.as_deref().map(read_csv).transpose()?;
    if let Some(c) = &csv {
        c.check_analysable().map_err(InputError::from)?;
        c.check_timed("rooftrace budget needs each kernel's bound time T* in nanoseconds, from its DRAM bytes and FLOPs per launch, to split the step")
            .map_err(InputError::from)?;
    }
    // A Kineto trace is read first: its `deviceProperties` name the GPU; an
    // nsys export's TARGET_INFO_GPU does (one identity for timelines too).
    let source =
        super::timeline::open(&config.input, config.nsys.as_deref(), "`rooftrace budget`")?;
    // A trace's op calls with shapes bound its kernels through the op
    // models (unless --bytes-per-step asks for the weights bound).
    let keep = match (config.bytes_per_step, config.keep_collectives) {
        (None, false) => Keep::OpCalls,
        (None, true) => Keep::OpCallsAndCollectives,
        (Some(_), _) => Keep::All,
    };
    let trace = if source.is_trace() {
        Some(crate::kineto::read_timeline_keeping(&source.path, keep).map_err(InputError::from)?)
    } else {
        None
    };
    let mut op_calls = None;
    // One identity for exports and traces: without --ncu the GPU records of
    // the timeline (nsys TARGET_INFO_GPU, a trace's deviceProperties), and
    // the decision names where it read them.
    let (hints, timeline) = match (&csv, trace) {
        (Some(c), Some(t)) => {
            op_calls = Some(t.op_calls);
            (c.device_hints(), t.timeline)
        }
        (None, Some(t)) => {
            let hints = trace_hints(&config.input, &t);
            op_calls = Some(t.op_calls);
            (hints, t.timeline)
        }
        (c, None) => {
            let timeline = read_with_progress(&source, true, None)?;
            let hints = match c {
                Some(c) => c.device_hints(),
                None => export_hints(
                    &config.input,
                    &timeline.info.identity.gpus,
                    HintSource::ExportGpuTable,
                ),
            };
            (hints, timeline)
        }
    };
    // The steps before the GPU: with no range to budget, which GPU it ran
    // on is not the problem to report.
    let (gap_config, default_step) = step_range(&config.gaps, &timeline, &config.input)?;
    if let Some(re) = &gap_config.nvtx {
        if !timeline.nvtx.iter().any(|r| re.is_match(&r.text)) {
            return Err(no_step(config, &timeline, re).into());
        }
    }
    let (roofs, gpu) = roofs::choose::<InputError>(&config.roofs, &hints, || match &csv {
        Some(c) => Ok(c.roofs_from_peaks()?),
        None => Err(InputError::new("--roofs ncu needs --ncu")),
    })?;
    if gap_config.device.is_some() {
        check_filters_match(&timeline, &gap_config, &config.input)?;
    }
    let gaps = crate::gaps::analyze(&timeline, &gap_config);
    if let (Some(re), Some(rr)) = (&gap_config.nvtx, &gaps.ranges) {
        if rr.instances.is_empty() {
            // Nothing to budget is the input's problem, not an empty table.
            return Err(no_step(config, &timeline, re).into());
        }
    }
    let roofline = csv
        .as_ref()
        .map(|c| crate::roofline::analyze(c, &roofs, gpu.clone(), GroupBy::Launch));
    let cfg = BudgetConfig {
        input: config.input.display().to_string(),
        ncu_file: config.ncu.as_ref().map(|p| p.display().to_string()),
        bytes_per_step: config.bytes_per_step,
    };
    // No op with shapes: budgeted exactly as before (no op-model fields).
    let op_calls = op_calls.filter(|c| !c.records.is_empty());
    let bounds = op_calls
        .as_ref()
        .map(|c| crate::ops::kernel_bounds(&timeline, c, &roofs, &gpu));
    let models = bounds
        .as_ref()
        .zip(op_calls.as_ref())
        .map(|(bounds, calls)| OpModels { bounds, calls });
    let mut report = analyze_with_ops(
        &timeline,
        &gaps,
        roofline.as_ref(),
        models,
        &roofs,
        gpu,
        &cfg,
    );
    if default_step {
        report.diagnostics.insert(
            0,
            Diagnostic::new(DiagnosticKind::DefaultStep, DEFAULT_STEP_NOTE),
        );
    }
    Ok(Budgeted {
        report,
        roofline,
        timeline,
        gap_config,
        bounds,
    })
}

/// The step pattern `re` matches no range of the input: the ranges it has.
fn no_step(
    config: &BudgetRunConfig,
    timeline: &crate::timeline::Timeline,
    re: &regex::Regex,
) -> InputError {
    InputError::new(format!(
        "{}: {}",
        config.input.display(),
        crate::gaps::no_match_message(timeline, re.as_str())
    ))
}

/// The step pattern of a PyTorch profiler trace given without `--nvtx`:
/// `prof.step()` writes one `ProfilerStep#N` annotation per step.
pub const DEFAULT_STEP: &str = r"^ProfilerStep#\d+$";

/// What the report says when [`DEFAULT_STEP`] was used.
const DEFAULT_STEP_NOTE: &str = "steps: no --nvtx given, so each `ProfilerStep#N` annotation of the PyTorch trace (one per `prof.step()`) is one step; give --nvtx REGEX for another range";

/// The gap config with its step range: `--nvtx` as given, else (a Kineto
/// trace, checked in `from_args`) [`DEFAULT_STEP`] when the trace has such
/// annotations (`true`: the default was used), else exit 2.
fn step_range(
    gaps: &GapConfig,
    timeline: &crate::nsys::Timeline,
    input: &std::path::Path,
) -> Result<(GapConfig, bool), InputError> {
    if gaps.nvtx.is_some() {
        return Ok((gaps.clone(), false));
    }
    let re = regex::Regex::new(DEFAULT_STEP).expect("a valid literal pattern");
    if !timeline.nvtx.iter().any(|r| re.is_match(&r.text)) {
        return Err(InputError::new(format!(
            "{}: no --nvtx given and the trace has no ProfilerStep#N annotation (call `prof.step()` once per step under torch.profiler); give --nvtx REGEX naming the range that marks one step",
            input.display()
        )));
    }
    let mut with_step = gaps.clone();
    with_step.nvtx = Some(re);
    Ok((with_step, true))
}

/// What a PyTorch trace says about its device: its `deviceProperties` as
/// GPU records, or (devices that are no GPU record: ROCm's) what they
/// state, so the message names the GPU the table lacks and that none of
/// its cards fits (an MI250: gfx 9.0 with 104 CUs). `budget` and `ops`
/// choose a trace's roofs from these.
pub fn trace_hints(
    input: &std::path::Path,
    t: &crate::kineto::KinetoTrace,
) -> crate::roofs::DeviceHints {
    let mut hints = export_hints(
        input,
        &t.timeline.info.identity.gpus,
        HintSource::TraceDeviceProperties,
    );
    if hints.device_names.is_empty() {
        for d in &t.devices {
            hints.device_names.extend(d.name.clone());
            if let (Some(a), Some(b)) = (d.compute_major, d.compute_minor) {
                if let (Ok(a), Ok(b)) = (u32::try_from(a), u32::try_from(b)) {
                    hints
                        .compute_capabilities
                        .push(crate::units::ComputeCapability::new(a, b));
                }
            }
            hints
                .sm_counts
                .extend(d.num_sms.and_then(|n| u32::try_from(n).ok()));
        }
        hints.device_names.sort();
        hints.device_names.dedup();
        hints.compute_capabilities.sort_unstable();
        hints.compute_capabilities.dedup();
        hints.sm_counts.sort_unstable();
        hints.sm_counts.dedup();
    }
    hints
}
