//! `rooftrace ops`: resolve the arguments into plain config, read the
//! trace keeping its op calls with shapes, choose the roofs as `budget`
//! does for a trace (`deviceProperties`, `--gpu`, `--roofs`; an undecided
//! GPU leaves every bound unknown), analyse, render, write.

use super::budget::trace_hints;
use super::output::{refuse_inputs, write_output};
use crate::cli::ops::OpsArgs;
use crate::error::InputError;
use crate::kineto::Keep;
use crate::ops::OpsReport;
use crate::report::{Format, Render, RenderOptions};
use crate::roofs::{self, RoofsChoice};
use std::path::PathBuf;

/// Plain config of one `rooftrace ops` run.
#[derive(Debug, Clone)]
pub struct OpsConfig {
    /// The PyTorch profiler trace.
    pub input: PathBuf,
    /// Where the roofs come from.
    pub roofs: RoofsChoice,
    /// Output format.
    pub format: Format,
    /// Rows of the tables (0 = all).
    pub top: usize,
    /// Output file (stdout when `None`).
    pub output: Option<PathBuf>,
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
        Ok(OpsConfig {
            input: args.input,
            roofs,
            format: args.output.format.report().ok_or_else(|| {
                InputError::new(
                    "ops writes a report (--format table, json, csv or md); --format parquet is for gaps and ncu",
                )
            })?,
            top: args.output.top,
            output: args.output.output,
        })
    }
}

/// Runs `rooftrace ops`.
pub fn run(args: OpsArgs) -> anyhow::Result<()> {
    let config = OpsConfig::from_args(args)?;
    let mut inputs: Vec<&std::path::Path> = vec![&config.input];
    if let RoofsChoice::File(f) = &config.roofs {
        inputs.push(f);
    }
    if let Some(o) = &config.output {
        refuse_inputs(&[("-o", o)], &inputs)?;
    }
    let report = ops(&config)?;
    let opts = RenderOptions {
        top: config.top,
        images: Vec::new(),
    };
    write_output(
        config.output.as_deref(),
        &report.render(config.format, &opts),
    )
}

/// Reads the trace with its op calls, chooses the roofs and analyses it.
pub fn ops(config: &OpsConfig) -> anyhow::Result<OpsReport> {
    let source = super::timeline::open(&config.input, None, "`rooftrace ops`")?;
    if !source.is_trace() {
        return Err(InputError::new(format!(
            "{}: `rooftrace ops` reads PyTorch profiler traces (`.json[.gz]` from torch.profiler with record_shapes=True); an nsys export carries no op shapes it reads yet: use `rooftrace gaps` or `rooftrace budget` on it",
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
    Ok(crate::ops::analyze(
        &trace.timeline,
        &trace.op_calls,
        &roofs,
        gpu,
        &config.input.display().to_string(),
    ))
}
