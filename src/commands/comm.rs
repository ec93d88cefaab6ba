//! `rooftrace comm`: resolve the arguments, read the traces one at a time
//! (each reduced to its collectives before the next is read, so memory
//! holds one timeline), build the report, draw, render, write.

use super::inputs::{check_file, expand, NSYS_EXTS, NSYS_FIX};
use super::output::{refuse_inputs, write_output};
use super::plot::PlotTarget;
use crate::cli::comm::CommArgs;
use crate::comm::{gpu_of, rank_trace, report, LinkConfig, RankTrace};
use crate::error::InputError;
use crate::plot::{CommChart, CommInput};
use crate::report::{Format, Render, RenderOptions};
use anyhow::Context;
use std::path::PathBuf;

/// Plain config of one `rooftrace comm` run.
#[derive(Debug, Clone)]
pub struct CommRunConfig {
    /// The traces, one per rank (directories expanded).
    pub inputs: Vec<PathBuf>,
    /// `--gpu`.
    pub gpu: Option<String>,
    /// `--net-bw`, byte/s per direction.
    pub net_bw: Option<f64>,
    /// `--gpus-per-node`.
    pub gpus_per_node: Option<u32>,
    /// Chart to write.
    pub plot: Option<PlotTarget>,
    /// Output format.
    pub format: Format,
    /// Rows of the tables (0 = all).
    pub top: usize,
    /// Output file (stdout when `None`).
    pub output: Option<PathBuf>,
}

impl CommRunConfig {
    /// Resolves the arguments (exit 2 on a bad one).
    pub fn from_args(args: CommArgs) -> Result<CommRunConfig, InputError> {
        let plot = args
            .plot
            .as_deref()
            .map(|p| PlotTarget::from_flag("--plot", p))
            .transpose()?;
        Ok(CommRunConfig {
            inputs: expand(&args.inputs, NSYS_EXTS),
            gpu: args.gpu,
            net_bw: args.net_bw,
            gpus_per_node: args.gpus_per_node,
            plot,
            format: args.output.format.report().ok_or_else(|| {
                InputError::new("comm writes a report (--format table, json, csv or md)")
            })?,
            top: args.output.top,
            output: args.output.output,
        })
    }
}

/// Runs `rooftrace comm`.
pub fn run(args: CommArgs) -> anyhow::Result<()> {
    let config = CommRunConfig::from_args(args)?;
    let mut targets: Vec<(&str, &std::path::Path)> = Vec::new();
    if let Some(o) = &config.output {
        targets.push(("-o", o));
    }
    if let Some(p) = &config.plot {
        targets.push(("--plot", &p.path));
    }
    let inputs: Vec<&std::path::Path> = config.inputs.iter().map(PathBuf::as_path).collect();
    refuse_inputs(&targets, &inputs)?;
    let r = comm(&config)?;
    let mut images = Vec::new();
    if let Some(target) = &config.plot {
        let chart = CommChart::build(&CommInput::from_report(&r)?)
            .context("drawing bus bandwidth against message size")?;
        target.write(&chart)?;
        images.push((
            "bus bandwidth against message size".to_string(),
            target.markdown_link(config.output.as_deref()),
        ));
    }
    let opts = RenderOptions {
        top: config.top,
        images,
    };
    write_output(config.output.as_deref(), &r.render(config.format, &opts))
}

/// Reads every trace (one at a time) and builds the report.
pub fn comm(config: &CommRunConfig) -> anyhow::Result<crate::comm::CommReport> {
    let mut ranks: Vec<RankTrace> = Vec::with_capacity(config.inputs.len());
    let mut device_names: Vec<String> = Vec::new();
    let mut devices_listed: Option<u32> = None;
    for path in &config.inputs {
        check_file(path, NSYS_EXTS, NSYS_FIX)?;
        let source = super::timeline::source_file(path, None)?;
        let tl = super::timeline::read(&source, false, &|_, _| {})
            .with_context(|| format!("reading {}", path.display()))?;
        let gpus = &tl.info.identity.gpus;
        devices_listed = devices_listed.or((!gpus.is_empty()).then_some(gpus.len() as u32));
        device_names.extend(gpus.iter().map(|g| g.name.clone()));
        ranks.push(rank_trace(&tl, &path.display().to_string()));
    }
    let gpu = gpu_of(config.gpu.as_deref(), &device_names).map_err(InputError::new)?;
    let gpn = config.gpus_per_node.or(devices_listed);
    let links = LinkConfig::new(gpu, config.net_bw, gpn);
    let mut r = report(ranks, &links, gpu.map(|g| g.name.to_string()));
    r.gpus_per_node_from = match (config.gpus_per_node, devices_listed) {
        (Some(_), _) => "--gpus-per-node".into(),
        (None, Some(_)) => {
            "the devices the trace lists (deviceProperties / TARGET_INFO_GPU)".into()
        }
        (None, None) => "neither --gpus-per-node nor a device list in the traces".into(),
    };
    Ok(r)
}
