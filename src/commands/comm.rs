//! `rooftrace comm`: resolve the arguments, read the traces on the
//! many-inputs path (in parallel within the memory budget; each trace
//! reduced to its collectives before its timeline is dropped, so memory is
//! bounded by the traces read at once, not the job), build the report,
//! draw, render, write; or write the Parquet rows per rank × collective.

use super::inputs::{check_file, once_each, NSYS_EXTS, NSYS_FIX};
use super::many::{outcome, parquet_dir, run_all, split_results, write_datasets, ManyConfig};
use super::output::{finish, refuse_inputs, write_output};
use super::plot::PlotTarget;
use crate::cli::comm::CommArgs;
use crate::comm::{
    given, gpu_of, gpus_per_node, rank_traces, ranks::match_keys, report, LinkConfig, NodeEvidence,
    RankTrace,
};
use crate::error::InputError;
use crate::kineto::Keep;
use crate::many_inputs::tag::partitions;
use crate::many_inputs::InputTag;
use crate::plot::{CommChart, CommInput};
use crate::report::{Format, Render, RenderOptions};
use anyhow::Context;
use std::path::PathBuf;

/// Plain config of one `rooftrace comm` run.
#[derive(Debug, Clone)]
pub struct CommRunConfig {
    /// The traces, one per rank (directories expanded), each file once.
    pub inputs: Vec<PathBuf>,
    /// Inputs given more than once (read once), as given.
    pub repeated: Vec<String>,
    /// `--gpu`.
    pub gpu: Option<String>,
    /// `--net-bw`, byte/s per direction.
    pub net_bw: Option<f64>,
    /// `--gpus-per-node`.
    pub gpus_per_node: Option<u32>,
    /// Chart to write.
    pub plot: Option<PlotTarget>,
    /// Output format (`None`: the Parquet dataset).
    pub format: Option<Format>,
    /// Rows of the tables (0 = all).
    pub top: usize,
    /// Output file (stdout when `None`).
    pub output: Option<PathBuf>,
    /// Parallelism, memory budget, ranks, the Parquet directory.
    pub many: ManyConfig,
}

impl CommRunConfig {
    /// Resolves the arguments (exit 2 on a bad one).
    pub fn from_args(args: CommArgs) -> Result<CommRunConfig, InputError> {
        let plot = args
            .plot
            .as_deref()
            .map(|p| PlotTarget::from_flag("--plot", p))
            .transpose()?;
        let format = args.output.format.report();
        let parquet = match format {
            None => Some(parquet_dir(args.output.output.as_deref())?),
            Some(_) => None,
        };
        let (inputs, repeated) = once_each(&args.inputs, NSYS_EXTS);
        Ok(CommRunConfig {
            inputs,
            repeated,
            gpu: args.gpu,
            net_bw: args.net_bw,
            gpus_per_node: args.gpus_per_node,
            plot,
            format,
            top: args.output.top,
            output: args.output.output,
            many: ManyConfig::from_args(&args.many, parquet)?,
        })
    }
}

/// What one trace gives: its ranks' collectives (one rank, or one per
/// process of an nsys export holding several), its GPUs' names, and what
/// it says about each rank's node.
struct Read {
    traces: Vec<RankTrace>,
    device_names: Vec<String>,
    nodes: Vec<NodeEvidence>,
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
    let (r, traces, failed) = comm(&config)?;
    let verdict = outcome(config.inputs.len(), &failed);
    for f in &failed {
        super::output::note(&f.line());
    }
    let Some(format) = config.format else {
        return finish(write_parquet(&config, &r, &traces), verdict);
    };
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
    finish(
        write_output(config.output.as_deref(), &r.render(format, &opts)),
        verdict,
    )
}

/// One row per rank × collective under `DIR/collectives/input=<rank's
/// file>/`, with the rank's clock offset from the report.
fn write_parquet(
    config: &CommRunConfig,
    r: &crate::comm::CommReport,
    traces: &[RankTrace],
) -> anyhow::Result<()> {
    let Some(dir) = &config.many.parquet else {
        return Ok(());
    };
    let names: Vec<String> = traces.iter().map(|t| t.input.clone()).collect();
    for (t, partition) in traces.iter().zip(partitions(&names)) {
        let (rank, rank_source) = config
            .many
            .rank
            .resolve(&file_name(&t.input), t.rank.map(|x| (x, "distributedInfo")));
        let tag = InputTag {
            input: t.input.clone(),
            partition: partition.clone(),
            host: None,
            rank,
            rank_source,
        };
        let offset = r
            .ranks
            .iter()
            .find(|x| x.input == t.input)
            .and_then(|x| x.clock_offset_ns);
        let keys = match_keys(&t.collectives);
        let ds = crate::report::parquet::comm::datasets(&tag, t, &keys, offset);
        write_datasets(dir, &partition, &ds)?;
    }
    Ok(())
}

/// Reads every trace (on the many-inputs path) and builds the report; the
/// traces' collectives are kept for the Parquet rows, the failures named.
pub fn comm(
    config: &CommRunConfig,
) -> anyhow::Result<(
    crate::comm::CommReport,
    Vec<RankTrace>,
    Vec<crate::many_inputs::InputFailure>,
)> {
    let work = |job: &super::many::Job| -> anyhow::Result<Read> {
        check_file(&job.path, NSYS_EXTS, NSYS_FIX)?;
        let source = super::timeline::open(&job.path, None, "`rooftrace comm`")?;
        // The readers' errors name the file themselves.
        let tl = super::timeline::read(
            &source,
            &crate::input::ReadOptions {
                nvtx: false,
                keep: Keep::All,
                progress: &|_, _| {},
                near: None,
            },
        )?;
        let gpus = &tl.info.identity.gpus;
        let input = job.path.display().to_string();
        let mut traces = rank_traces(&tl, &input);
        if let [trace] = traces.as_mut_slice() {
            // `--rank-from` wins over distributedInfo when given; else the
            // file name when the trace records no rank. (Several processes
            // of one export: one file name cannot be each one's rank.)
            trace.rank = config
                .many
                .rank
                .resolve(&file_name(&input), tl.info.identity.rank)
                .0;
        }
        let nodes = traces
            .iter()
            .map(|trace| {
                let mut comm_devices: Vec<u16> =
                    trace.collectives.iter().map(|c| c.device).collect();
                comm_devices.sort_unstable();
                comm_devices.dedup();
                NodeEvidence {
                    rank: trace.rank,
                    host: tl.info.identity.host.clone(),
                    devices_listed: gpus.len(),
                    comm_devices,
                }
            })
            .collect();
        Ok(Read {
            nodes,
            device_names: gpus.iter().map(|g| g.name.clone()).collect(),
            traces,
        })
    };
    let results = run_all(&config.inputs, &config.many, &work);
    let (ok, failed) = split_results(&config.inputs, results);
    if ok.is_empty() {
        outcome(config.inputs.len(), &failed)?;
    }
    let device_names: Vec<String> = ok.iter().flat_map(|r| r.device_names.clone()).collect();
    let nodes: Vec<NodeEvidence> = ok.iter().flat_map(|r| r.nodes.clone()).collect();
    let traces: Vec<RankTrace> = ok.into_iter().flat_map(|r| r.traces).collect();
    let gpu = gpu_of(config.gpu.as_deref(), &device_names).map_err(InputError::new)?;
    let (gpn, from) = match config.gpus_per_node {
        Some(g) => (Some(g), "--gpus-per-node".to_string()),
        None => match gpus_per_node(&nodes) {
            Ok((g, from)) => (Some(g), from),
            Err(why) => (None, why),
        },
    };
    let links = LinkConfig::new(gpu, config.net_bw, gpn);
    let mut r = report(&traces, &links, gpu.map(|g| g.name.to_string()));
    r.gpus_per_node_from = from;
    r.diagnostics.extend(given::notes(&traces));
    r.diagnostics
        .extend(given::repeated_inputs(&config.repeated));
    Ok((r, traces, failed))
}

/// The file name of an input path, for the rank rule.
fn file_name(input: &str) -> String {
    std::path::Path::new(input)
        .file_name()
        .map_or(String::new(), |n| n.to_string_lossy().into_owned())
}
