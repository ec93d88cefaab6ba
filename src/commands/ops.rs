//! `rooftrace ops`: resolve the arguments into plain config, read the
//! trace keeping its op calls with shapes, choose the roofs as `budget`
//! does for a trace (`deviceProperties`, `--gpu`, `--roofs`; an undecided
//! GPU leaves every bound unknown), analyse, draw the plot when asked,
//! render or write the Parquet datasets.

use super::budget::trace_hints;
use super::many::{parquet_dir, write_datasets};
use super::ncu::plot_labels;
use super::output::{refuse_inputs, write_output};
use super::plot::PlotTarget;
use crate::cli::ops::{DtypeArg, OpsArgs, OpsGroupByArg};
use crate::error::InputError;
use crate::kineto::Keep;
use crate::many_inputs::tag::sanitize_partition;
use crate::many_inputs::{InputTag, RankSource};
use crate::opmodel::Dtype;
use crate::ops::{GroupBy, OpsReport};
use crate::plot::OpsRooflineInput;
use crate::report::{Format, Render, RenderOptions};
use crate::roofs::{self, RoofsChoice};
use std::path::{Path, PathBuf};

/// Plain config of one `rooftrace ops` run.
#[derive(Debug, Clone)]
pub struct OpsConfig {
    /// The PyTorch profiler trace.
    pub input: PathBuf,
    /// Where the roofs come from.
    pub roofs: RoofsChoice,
    /// What a row stands for.
    pub group_by: GroupBy,
    /// The element type of ops whose kernels' names do not say it (nsys
    /// exports).
    pub dtype: Option<Dtype>,
    /// Output format; `None` for Parquet.
    pub format: Option<Format>,
    /// Rows of the tables (0 = all).
    pub top: usize,
    /// Output file (stdout when `None`); the dataset directory for Parquet.
    pub output: Option<PathBuf>,
    /// The roofline plot to write as well.
    pub plot: Option<PlotTarget>,
}

impl OpsConfig {
    /// Resolves the arguments (exit 2 on a bad one) before any work.
    pub fn from_args(args: OpsArgs) -> Result<OpsConfig, InputError> {
        let roofs = super::roofs::choice(&args.roofs)?;
        if matches!(roofs, RoofsChoice::Ncu) {
            return Err(InputError::new(
                "--roofs ncu takes the peaks of an ncu CSV, and a trace has none: give --gpu KEY (e.g. --gpu a100-80gb) or --roofs FILE, or leave both out to take the GPU from the trace's deviceProperties",
            ));
        }
        let format = args.output.format.report();
        let output = match format {
            None => Some(parquet_dir(args.output.output.as_deref())?),
            Some(_) => args.output.output,
        };
        Ok(OpsConfig {
            input: args.input,
            roofs,
            group_by: match args.group_by {
                OpsGroupByArg::Op => GroupBy::OpShapes,
                OpsGroupByArg::Kernel => GroupBy::Kernel,
            },
            dtype: args.dtype.map(|d| match d {
                DtypeArg::Fp32 => Dtype::F32,
                DtypeArg::Fp16 => Dtype::F16,
                DtypeArg::Bf16 => Dtype::Bf16,
                DtypeArg::Fp64 => Dtype::F64,
                DtypeArg::Fp8 => Dtype::F8,
            }),
            format,
            top: args.output.top,
            output,
            plot: args
                .plot
                .as_deref()
                .map(|p| PlotTarget::from_flag("--plot", p))
                .transpose()?,
        })
    }
}

/// Runs `rooftrace ops`.
pub fn run(args: OpsArgs) -> anyhow::Result<()> {
    let config = OpsConfig::from_args(args)?;
    let mut inputs: Vec<&Path> = vec![&config.input];
    if let RoofsChoice::File(f) = &config.roofs {
        inputs.push(f);
    }
    let mut targets: Vec<(&str, &Path)> = Vec::new();
    if let Some(o) = &config.output {
        targets.push(("-o", o));
    }
    if let Some(p) = &config.plot {
        targets.push(("--plot", &p.path));
    }
    refuse_inputs(&targets, &inputs)?;
    let report = ops(&config)?;
    // The plot first, so a Markdown link never points at a file that failed.
    if let Some(target) = &config.plot {
        let input = OpsRooflineInput::from_ops(&report, plot_labels(config.top));
        let chart = super::plot::built_or(
            input.chart(),
            "--plot",
            || format!("drawing the ops roofline of {}", config.input.display()),
            "profile with record_shapes=True so the ops have FLOPs",
        )?;
        target.write(&chart)?;
    }
    let Some(format) = config.format else {
        return write_parquet(&config, &report);
    };
    let opts = RenderOptions {
        top: config.top,
        images: config
            .plot
            .iter()
            .map(|t| {
                (
                    "ops roofline".to_string(),
                    t.markdown_link(config.output.as_deref()),
                )
            })
            .collect(),
    };
    write_output(config.output.as_deref(), &report.render(format, &opts))
}

/// `--format parquet`: the `ops` and `ops_unmodelled` datasets under
/// `DIR/<entity>/input=<file name>/`.
fn write_parquet(config: &OpsConfig, report: &OpsReport) -> anyhow::Result<()> {
    let Some(dir) = &config.output else {
        return Ok(());
    };
    let name = config
        .input
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tag = InputTag {
        input: config.input.display().to_string(),
        partition: sanitize_partition(&name),
        host: None,
        rank: None,
        rank_source: RankSource::Unknown,
    };
    let datasets = crate::report::parquet::ops::datasets(&tag, report);
    write_datasets(dir, &tag.partition, &datasets)
}

/// Reads the trace with its op calls (or the export with its shaped NVTX
/// ranges), chooses the roofs and analyses it.
pub fn ops(config: &OpsConfig) -> anyhow::Result<OpsReport> {
    let source = super::timeline::open(&config.input, None, "`rooftrace ops`")?;
    if !source.is_trace() {
        return nsys_ops(config, &source);
    }
    if config.dtype.is_some() {
        return Err(InputError::new(format!(
            "--dtype: {} is a PyTorch profiler trace, which records each op's element types; --dtype is for nsys exports (emit_nvtx records sizes only): leave it out",
            config.input.display()
        ))
        .into());
    }
    let trace = crate::kineto::read_timeline_keeping(&source.path, Keep::OpCalls)
        .map_err(InputError::from)?;
    let hints = trace_hints(&config.input, &trace);
    let (roofs, gpu) = roofs::choose_or_undecided::<InputError>(&config.roofs, &hints, || {
        Err(InputError::new("--roofs ncu needs an ncu CSV"))
    })?;
    Ok(crate::ops::analyze_by(
        &trace.timeline,
        &trace.op_calls,
        &roofs,
        gpu,
        &config.input.display().to_string(),
        config.group_by,
    ))
}

/// An nsys export: its ops are the NVTX ranges `emit_nvtx(record_shapes=
/// True)` wrote with sizes; an export without them is bad input, named.
fn nsys_ops(
    config: &OpsConfig,
    source: &super::timeline::TimelineInput,
) -> anyhow::Result<OpsReport> {
    let timeline = super::gaps::read_with_progress(source, true, None)?;
    let calls = crate::ops::nvtx::nvtx_calls(&timeline);
    if calls.calls.records.is_empty() {
        let seen = if calls.without_sizes > 0 {
            format!(
                "its {} op ranges from emit_nvtx carry no sizes (`aten::mm, op_id = 7`)",
                calls.without_sizes
            )
        } else {
            "it has no op ranges from emit_nvtx".to_string()
        };
        return Err(InputError::new(format!(
            "{}: no shapes: {seen}. `rooftrace ops` reads PyTorch profiler traces recorded with record_shapes=True, or nsys exports of a run under `with torch.autograd.profiler.emit_nvtx(record_shapes=True):` (`nsys profile -t cuda,nvtx`): record with one of them",
            config.input.display()
        ))
        .into());
    }
    let hints = super::timeline::export_hints(
        &config.input,
        &timeline.info.identity.gpus,
        roofs::HintSource::ExportGpuTable,
    );
    let (roofs, gpu) = roofs::choose_or_undecided::<InputError>(&config.roofs, &hints, || {
        Err(InputError::new("--roofs ncu needs an ncu CSV"))
    })?;
    let input = config.input.display().to_string();
    Ok(crate::ops::nvtx::analyze_nvtx(
        &timeline,
        &calls,
        crate::ops::nvtx::NvtxOptions {
            roofs: &roofs,
            gpu,
            input: &input,
            group_by: config.group_by,
            dtype: config.dtype,
        },
    ))
}
