//! `rooftrace path`: resolve the arguments into plain config, budget each
//! input's steps through `budget`'s own pipeline (`budget::budget_parts`:
//! the timeline, the step windows, the ncu analysis and the op models'
//! bounds, read once), take each kernel's roof time from them
//! (`path::KernelRoofs::from_steps`), walk and replay the steps
//! (`path::analyze`), write the Perfetto track when asked, render or write
//! the Parquet datasets.

use super::budget::{budget_parts, check_roofs_ncu, step_regex, BudgetRunConfig, Budgeted};
use super::many::{parquet_dir, write_datasets};
use super::output::{refuse_inputs, write_output};
use super::trace_out::TraceTarget;
use crate::cli::path::PathArgs;
use crate::error::InputError;
use crate::gaps::GapConfig;
use crate::many_inputs::tag::sanitize_partition;
use crate::many_inputs::{InputTag, RankSource};
use crate::path::{Best, KernelRoofs, PathConfig, PathReport, RankInput};
use crate::report::{Format, Render, RenderOptions};
use crate::roofs::RoofsChoice;
use std::path::{Path, PathBuf};

/// Plain config of one `rooftrace path` run.
#[derive(Debug, Clone)]
pub struct PathRunConfig {
    /// The timelines, one per rank, each file once.
    pub inputs: Vec<PathBuf>,
    /// Inputs given more than once (read once), as given.
    pub repeated: Vec<String>,
    /// The step budget each input is read and budgeted with (its `input`
    /// replaced per input; no plot, no projection, no trace).
    pub budget: BudgetRunConfig,
    /// `--top`: single-kernel changes kept per step.
    pub top_kernels: usize,
    /// Output format; `None` for Parquet.
    pub format: Option<Format>,
    /// Output file (stdout when `None`); the dataset directory for Parquet.
    pub output: Option<PathBuf>,
    /// `--trace-out`: the Chrome trace to write (one input only).
    pub trace_out: Option<TraceTarget>,
}

impl PathRunConfig {
    /// Resolves the arguments (exit 2 on a bad one) before any work.
    pub fn from_args(args: PathArgs) -> Result<PathRunConfig, InputError> {
        // A file given twice is one rank, read once (as `comm` reads it).
        let (inputs, repeated) = super::inputs::once_each(&args.inputs, super::inputs::NSYS_EXTS);
        let Some(first) = inputs.first().cloned() else {
            return Err(InputError::new("give at least one INPUT"));
        };
        let mut nvtx = None;
        for input in &inputs {
            nvtx = step_regex(args.nvtx.as_deref(), input)
                .map_err(|e| InputError::new(format!("{}: {e}", input.display())))?;
        }
        let roofs = super::roofs::choice(&args.roofs)?;
        check_roofs_ncu(&roofs, args.ncu.as_deref())?;
        let trace_out = args
            .trace_out
            .as_deref()
            .map(TraceTarget::from_flag)
            .transpose()?;
        if trace_out.is_some() && inputs.len() > 1 {
            return Err(InputError::new(format!(
                "--trace-out draws one timeline, and {} INPUTs were given: run `rooftrace path` once per rank with --trace-out, or leave --trace-out out",
                inputs.len()
            )));
        }
        let format = args.format.report();
        let output = match format {
            None => Some(parquet_dir(args.output.as_deref())?),
            Some(_) => args.output,
        };
        Ok(PathRunConfig {
            budget: BudgetRunConfig {
                input: first,
                nsys: args.nsys,
                gaps: GapConfig {
                    device: args.device,
                    launch_latency_ns: args.latency,
                    nvtx,
                    ..GapConfig::default()
                },
                ncu: args.ncu,
                bytes_per_step: None,
                roofs,
                plot: None,
                trace_out: None,
                format: Format::Table,
                top: 0,
                output: None,
                project_to: Vec::new(),
                projection_model: crate::projection::Model::SameTime,
                // Several ranks: their collectives are matched by Seq.
                keep_collectives: inputs.len() > 1,
            },
            inputs,
            repeated,
            top_kernels: args.top,
            format,
            output,
            trace_out,
        })
    }
}

/// Runs `rooftrace path`.
pub fn run(args: PathArgs) -> anyhow::Result<()> {
    let config = PathRunConfig::from_args(args)?;
    let mut targets: Vec<(&str, &Path)> = Vec::new();
    if let Some(o) = &config.output {
        targets.push(("-o", o));
    }
    if let Some(t) = &config.trace_out {
        targets.push(("--trace-out", &t.path));
    }
    let mut inputs: Vec<&Path> = config.inputs.iter().map(PathBuf::as_path).collect();
    inputs.extend(config.budget.ncu.as_deref());
    if let RoofsChoice::File(f) = &config.budget.roofs {
        inputs.push(f);
    }
    refuse_inputs(&targets, &inputs)?;
    let report = path(&config)?;
    let Some(format) = config.format else {
        return write_parquet(&config, &report);
    };
    let opts = RenderOptions {
        top: config.top_kernels,
        images: Vec::new(),
    };
    write_output(config.output.as_deref(), &report.render(format, &opts))
}

/// Each input's steps on their critical paths, in one report (several
/// inputs, one per rank: [`several_ranks`]); writes `--trace-out` on the
/// way.
pub fn path(config: &PathRunConfig) -> anyhow::Result<PathReport> {
    let mut report = if config.inputs.len() > 1 {
        several_ranks(config)?
    } else {
        one_rank(config)?
    };
    if let Some(d) = crate::comm::given::repeated_inputs(&config.repeated) {
        report.diagnostics.push(d.to_string());
    }
    Ok(report)
}

/// One input: its steps walked alone.
fn one_rank(config: &PathRunConfig) -> anyhow::Result<PathReport> {
    let mut reports = Vec::with_capacity(config.inputs.len());
    for input in &config.inputs {
        let (b, kernels) = budgeted(config, input)?;
        let cfg = PathConfig {
            input: vec![input.display().to_string()],
            top_kernels: config.top_kernels,
        };
        let report = crate::path::analyze(&b.timeline, &b.report, &kernels, &cfg);
        if let Some(t) = &config.trace_out {
            t.write_with_path(
                &b.timeline,
                &b.gap_config,
                Some(&b.report),
                Some(&report),
                input,
            )?;
        }
        reports.push(report);
    }
    Ok(ranks_in_one_report(reports))
}

/// One input through `budget`'s pipeline, and its kernels' roof times.
fn budgeted(config: &PathRunConfig, input: &Path) -> anyhow::Result<(Budgeted, KernelRoofs)> {
    let budget_config = BudgetRunConfig {
        input: input.to_path_buf(),
        ..config.budget.clone()
    };
    let b = budget_parts(&budget_config)?;
    // ncu launches counted per step, as budget counts them.
    let kernels = KernelRoofs::from_steps(
        &b.timeline,
        b.roofline.as_ref(),
        b.bounds.as_ref(),
        &b.report,
    );
    Ok((b, kernels))
}

/// Several inputs, one per rank: every rank read first (the collectives
/// are matched across them all), then `path::analyze_ranks`.
fn several_ranks(config: &PathRunConfig) -> anyhow::Result<PathReport> {
    let mut read = Vec::with_capacity(config.inputs.len());
    for input in &config.inputs {
        read.push((input.display().to_string(), budgeted(config, input)?));
    }
    let ranks: Vec<RankInput> = read
        .iter()
        .map(|(input, (b, kernels))| RankInput {
            input,
            timeline: &b.timeline,
            budget: &b.report,
            kernels,
        })
        .collect();
    Ok(ranks_in_one_report(crate::path::analyze_ranks(
        &ranks,
        config.top_kernels,
    )))
}

/// Several ranks' reports as one: every rank's steps (in input order),
/// the median step over them all (nearest rank by `step_ns`, as `budget`
/// picks it), and the best single change on that step. One report is
/// returned as it is.
///
/// Each rank's report comes from `path::analyze_ranks`, which matched the
/// collectives across the ranks (`waiting_for_rank`, `straggler_on_time`).
fn ranks_in_one_report(mut reports: Vec<PathReport>) -> PathReport {
    if reports.len() == 1 {
        if let Some(r) = reports.pop() {
            return r;
        }
    }
    // Each rank's own best, on the step it was found for (its median).
    let own_best = |r: &PathReport| {
        let mut v: Vec<Option<Best>> = vec![None; r.steps.len()];
        if let Some(m) = r.median_step.filter(|&m| m < v.len()) {
            v[m] = r.best.clone();
        }
        v
    };
    let mut all = reports.remove(0);
    let mut sources = own_best(&all);
    for r in reports {
        if r.gpu.name != all.gpu.name {
            all.diagnostics.push(format!(
                "the inputs ran on different GPUs ({} and {}): each rank's roof times use its own",
                all.gpu.name, r.gpu.name
            ));
        }
        sources.extend(own_best(&r));
        all.input.extend(r.input);
        all.steps.extend(r.steps);
        for d in r.diagnostics {
            if !all.diagnostics.contains(&d) {
                all.diagnostics.push(d);
            }
        }
    }
    let n = all.steps.len();
    all.median_step = (n > 0).then(|| {
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by_key(|&i| (all.steps[i].step_ns, i));
        order[n.div_ceil(2).max(1) - 1]
    });
    all.best = all.median_step.and_then(|m| {
        let step = &all.steps[m];
        let top = step
            .what_if
            .iter()
            .find(|w| w.change != "all" && w.saved_ns > 0)?;
        let why = match &sources[m] {
            Some(b) if b.change == top.change => b.why.clone(),
            _ => format!(
                "of the single changes replayed on the median step of all ranks (`{}`, process {}), `{}` saves the most",
                step.name, step.pid, top.change
            ),
        };
        Some(Best {
            change: top.change.clone(),
            saved_ns: top.saved_ns,
            why,
        })
    });
    all
}

/// `--format parquet`: the `path_parts` and `path_what_if` datasets under
/// `DIR/<entity>/input=<file name>/` (several inputs: the first's name).
fn write_parquet(config: &PathRunConfig, report: &PathReport) -> anyhow::Result<()> {
    let Some(dir) = &config.output else {
        return Ok(());
    };
    let first = &config.budget.input;
    let name = first
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tag = InputTag {
        input: report.input.join(" "),
        partition: sanitize_partition(&name),
        host: None,
        rank: None,
        rank_source: RankSource::Unknown,
    };
    let datasets = crate::report::parquet::path::datasets(&tag, report);
    write_datasets(dir, &tag.partition, &datasets)
}
