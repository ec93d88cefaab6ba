//! `rooftrace diff`: resolve the arguments into plain config ([`DiffConfig`]),
//! detect each side's kind, read both sides at once (one thread each), and
//! hand them to `diff` (which checks their GPUs, chooses the roofs, refuses
//! sides that share no work, compares and gates: [`crate::diff::roofs`],
//! [`crate::diff::build`]); then draw, render, write. A failed gate exits 3
//! after the report is written.

use super::inputs::check_file;
use super::output::write_output;
use super::plot::PlotTarget;
use crate::cli::diff::DiffArgs;
use crate::diff::gaps_side::GapsSide;
use crate::diff::identity::SideIdentity;
use crate::diff::ncu_side::NcuSide;
use crate::diff::roofs::{NcuInput, RoofsPlan};
use crate::diff::{self, Compared, DiffKind, DiffReport, Rule, SideInfo, Source, Thresholds};
use crate::error::{InputError, RegressionFound};
use crate::input::InputKind;
use crate::kineto::Keep;
use crate::plot::{DiffIdleChart, DiffIdleInput, DiffRooflineChart, DiffRooflineInput};
use crate::report::{Format, Render, RenderOptions};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// What to give `rooftrace diff`.
const DIFF_FIX: &str = "give two ncu CSVs or .ncu-rep reports, two nsys exports (.sqlite or .nsys-rep), or two `rooftrace ncu|gaps --format json` reports";
/// Why a side from rates alone is refused ([`crate::ncu::NcuCsv::check_timed`]).
const DIFF_NEEDS_TIME: &str = "rooftrace diff judges kernels by their time: it compares times and time lost, checks that the kernels both runs share hold most of each run's time, and weights the fraction of roof by time";
/// Longest gaps kept per side for matching (the tables show `--top`).
const GAPS_KEPT: usize = 50;
/// Largest rooftrace JSON report read whole (1 GiB).
const JSON_MAX_BYTES: u64 = 1 << 30;

pub use crate::diff::roofs::DiffRoofs;

/// Plain config of one `rooftrace diff` run.
#[derive(Debug, Clone)]
pub struct DiffConfig {
    /// Base run.
    pub base: PathBuf,
    /// New run.
    pub new: PathBuf,
    /// Roofs (ncu CSVs).
    pub roofs: DiffRoofs,
    /// True when `--gpu`/`--roofs`/`--peak-dram-bw` was given (refused for JSON sides).
    pub roofs_given: bool,
    /// NVTX ranges to compare (nsys).
    pub nvtx: Option<regex::Regex>,
    /// `nsys` executable for `.nsys-rep`.
    pub nsys: Option<PathBuf>,
    /// Thresholds.
    pub thresholds: Thresholds,
    /// Gate rules (empty: the default gate).
    pub rules: Vec<Rule>,
    /// False with `--no-gate`.
    pub gate: bool,
    /// `--allow-unmatched`: a comparison whose matched work is a minority
    /// does not fail the gate by itself.
    pub allow_unmatched: bool,
    /// `--allow-different-gpus`: sides on different GPU models are compared
    /// (the report says cross-GPU) instead of refused.
    pub allow_different_gpus: bool,
    /// Chart to write.
    pub plot: Option<PlotTarget>,
    /// Output format.
    pub format: Format,
    /// Rows per table (0 = all).
    pub top: usize,
    /// Output file (stdout when `None`).
    pub output: Option<PathBuf>,
}

impl DiffConfig {
    /// Resolves and checks the arguments before any work (exit 2 on a bad
    /// rule, regex, threshold or plot name).
    pub fn from_args(a: DiffArgs) -> Result<DiffConfig, InputError> {
        let rules = a
            .fail_on
            .iter()
            .map(|r| Rule::parse(r))
            .collect::<Result<Vec<_>, _>>()?;
        if !(a.threshold.is_finite() && a.threshold >= 0.0) {
            return Err(InputError::new(format!(
                "--threshold {}: give a percentage >= 0 (e.g. --threshold 5)",
                a.threshold
            )));
        }
        let nvtx = a
            .nvtx
            .as_deref()
            .map(|p| {
                regex::Regex::new(p).map_err(|e| InputError::new(format!("--nvtx `{p}`: {e}")))
            })
            .transpose()?;
        let roofs_given = super::roofs::given(&a.roofs);
        let roofs = if a.own_roofs {
            DiffRoofs::Own
        } else {
            DiffRoofs::Shared(super::roofs::choice(&a.roofs)?)
        };
        Ok(DiffConfig {
            base: a.base,
            new: a.new,
            roofs,
            roofs_given,
            nvtx,
            nsys: a.nsys,
            thresholds: Thresholds {
                time_rel: a.threshold / 100.0,
                timeline_abs_ns: a.min_change as f64,
                ..Thresholds::default()
            },
            rules,
            gate: !a.no_gate,
            allow_unmatched: a.allow_unmatched,
            allow_different_gpus: a.allow_different_gpus,
            plot: a
                .plot
                .as_deref()
                .map(|p| PlotTarget::from_flag("--plot", p))
                .transpose()?,
            format: a.output.format.report().ok_or_else(|| {
                InputError::new("--format parquet: rooftrace diff writes table, csv, json or md")
            })?,
            top: a.output.top,
            output: a.output.output,
        })
    }
}

/// What a file is.
#[derive(Debug, Clone, PartialEq)]
enum Input {
    NcuCsv,
    /// An `.ncu-rep`, imported with `ncu` like `rooftrace ncu` does.
    NcuRep,
    Nsys,
    /// A PyTorch profiler (Kineto) trace: a timeline, read like an export.
    Kineto,
    NcuJson(Value, String),
    GapsJson(Value, String),
}

impl Input {
    /// What `diff` is told about the side: its source, without the document.
    fn source(&self) -> Source {
        match self {
            Input::NcuCsv => Source::NcuCsv,
            Input::NcuRep => Source::NcuRep,
            Input::Nsys => Source::NsysExport,
            Input::Kineto => Source::Trace,
            Input::NcuJson(_, s) => Source::NcuJson(s.clone()),
            Input::GapsJson(_, s) => Source::GapsJson(s.clone()),
        }
    }
}

/// What a file is, told by the one door ([`crate::input::identify_for`]);
/// a JSON report is read whole.
fn detect(path: &Path) -> Result<Input, InputError> {
    check_file(path, &[], DIFF_FIX)?;
    Ok(
        match crate::input::identify_for(path, &crate::input::DIFF, None)? {
            InputKind::NcuReport => Input::NcuRep,
            InputKind::NsysExport | InputKind::NsysReport => Input::Nsys,
            InputKind::PyTorchTrace => Input::Kineto,
            InputKind::Report(..) => {
                let len = std::fs::metadata(path).map_or(0, |m| m.len());
                read_json(path, len)?
            }
            _ => Input::NcuCsv,
        },
    )
}

fn read_json(path: &Path, len: u64) -> Result<Input, InputError> {
    let shown = path.display();
    if len > JSON_MAX_BYTES {
        return Err(InputError::new(format!(
            "{shown}: {len} bytes is more than a rooftrace report should be (limit {JSON_MAX_BYTES})"
        )));
    }
    // Bounded whatever the size said (a file may grow while read).
    let mut bytes = Vec::new();
    {
        use std::io::Read;
        crate::kineto::input::open_file(path)
            .and_then(|f| f.take(JSON_MAX_BYTES + 1).read_to_end(&mut bytes))
            .map_err(|e| InputError::new(format!("{shown}: {e}")))?;
    }
    if bytes.len() as u64 > JSON_MAX_BYTES {
        return Err(InputError::new(format!(
            "{shown}: more than {JSON_MAX_BYTES} bytes is more than a rooftrace report should be"
        )));
    }
    let doc: Value = serde_json::from_slice(&bytes)
        .map_err(|e| InputError::new(format!("{shown}: not valid JSON ({e})")))?;
    let schema = doc
        .get("schema")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    if schema.starts_with("rooftrace.ncu/") {
        Ok(Input::NcuJson(doc, schema))
    } else if schema.starts_with("rooftrace.gaps/") {
        Ok(Input::GapsJson(doc, schema))
    } else {
        Err(InputError::new(format!(
            "{shown}: JSON with schema {:?}; rooftrace diff reads `rooftrace ncu --format json` (rooftrace.ncu/…) and `rooftrace gaps --format json` (rooftrace.gaps/…) reports",
            schema
        )))
    }
}

/// Runs `rooftrace diff`.
pub fn run(args: DiffArgs) -> anyhow::Result<()> {
    run_config(&DiffConfig::from_args(args)?)
}

/// Runs `rooftrace diff` on plain config.
pub fn run_config(config: &DiffConfig) -> anyhow::Result<()> {
    // Never overwrite an input with the report or the plot.
    let mut targets: Vec<(&str, &Path)> = Vec::new();
    if let Some(o) = &config.output {
        targets.push(("-o", o));
    }
    if let Some(p) = &config.plot {
        targets.push(("--plot", &p.path));
    }
    super::output::refuse_inputs(&targets, &[&config.base, &config.new])?;
    let report = build(config)?;
    let mut images = Vec::new();
    if let Some(target) = &config.plot {
        write_plot(&report, target)?;
        images.push((
            "before → after".to_string(),
            target.markdown_link(config.output.as_deref()),
        ));
    }
    let bytes = report.render(
        config.format,
        &RenderOptions {
            top: config.top,
            images,
        },
    );
    // A reader that leaves early (`| head`) ends the report, not the gate: a
    // failed gate still exits 3, so `set -o pipefail` in CI cannot be fooled.
    let gate = match report.gate.failed {
        true => Err(RegressionFound(report.headline()).into()),
        false => Ok(()),
    };
    super::output::finish(write_output(config.output.as_deref(), &bytes), gate)
}

/// Reads, compares and gates: the report.
pub fn build(config: &DiffConfig) -> anyhow::Result<DiffReport> {
    let (base_input, new_input) = (detect(&config.base)?, detect(&config.new)?);
    let (base_source, new_source) = (base_input.source(), new_input.source());
    let kind = diff::check_sources(
        (&config.base.display().to_string(), &base_source),
        (&config.new.display().to_string(), &new_source),
        config.roofs_given,
    )?;
    let info = |path: &Path, source: &Source| SideInfo {
        input: path.display().to_string(),
        source: source.label(),
    };
    let compared = Compared {
        base: info(&config.base, &base_source),
        new: info(&config.new, &new_source),
        thresholds: config.thresholds,
        rules: &config.rules,
        gate: config.gate,
        allow_unmatched: config.allow_unmatched,
        allow_different_gpus: config.allow_different_gpus,
        nvtx: config.nvtx.is_some(),
    };
    let report = match kind {
        DiffKind::Ncu => {
            let plan = RoofsPlan {
                roofs: config.roofs.clone(),
                given: config.roofs_given,
                allow_different_gpus: config.allow_different_gpus,
            };
            let (base, new) = both(read_ncu, config, base_input, new_input)?;
            let sides = diff::roofs::ncu_sides(&plan, base, new)?;
            diff::compare_ncu(&compared, sides)?
        }
        DiffKind::Nsys => {
            let (base, new) = gaps_sides(config, base_input, new_input)?;
            diff::compare_timelines(&compared, &base, &new)?
        }
    };
    Ok(report)
}

/// Runs `f` on both sides at once.
fn both<T: Send>(
    f: impl Fn(&Path, Input) -> anyhow::Result<T> + Sync,
    config: &DiffConfig,
    base_input: Input,
    new_input: Input,
) -> anyhow::Result<(T, T)> {
    std::thread::scope(|s| {
        let base_thread = s.spawn(|| f(&config.base, base_input));
        let new_side = f(&config.new, new_input);
        let base_side = base_thread
            .join()
            .map_err(|_| anyhow::anyhow!("reading {} panicked", config.base.display()))?;
        Ok((base_side?, new_side?))
    })
}

/// Reads one ncu side: a `rooftrace ncu` JSON report, or a CSV (an
/// `.ncu-rep` imported) that must be analysable and timed.
fn read_ncu(path: &Path, input: Input) -> anyhow::Result<NcuInput> {
    match input {
        Input::NcuJson(doc, schema) => {
            let file = path.display().to_string();
            Ok(NcuInput::Side(Box::new(
                NcuSide::from_json(&doc, &file, &schema).map_err(InputError::from)?,
            )))
        }
        _ => {
            let csv = super::ncu::read_csv(path)?;
            csv.check_analysable().map_err(InputError::from)?;
            csv.check_timed(DIFF_NEEDS_TIME).map_err(InputError::from)?;
            Ok(NcuInput::Csv(Box::new(csv)))
        }
    }
}

/// Reads both timeline sides at once: a `rooftrace gaps` JSON report, or a
/// timeline (an export, converted from `.nsys-rep` when needed, or a
/// PyTorch trace, whose `deviceProperties` and `distributedInfo` say who
/// ran it).
fn gaps_sides(
    config: &DiffConfig,
    base_input: Input,
    new_input: Input,
) -> anyhow::Result<(GapsSide, GapsSide)> {
    both(
        |path, input| {
            let file = path.display().to_string();
            if let Input::GapsJson(doc, schema) = &input {
                return Ok(GapsSide::from_json(doc, &file, schema).map_err(InputError::from)?);
            }
            let source = super::timeline::open(path, config.nsys.as_deref(), "`rooftrace diff`")?;
            let mut ops = None;
            let (timeline, identity) = if source.is_trace() {
                let trace = crate::kineto::read_timeline_keeping(&source.path, Keep::OpCalls)
                    .map_err(InputError::from)?;
                let identity = SideIdentity::from_trace(&trace);
                ops = trace_ops(config, path, &trace)?;
                (trace.timeline, identity)
            } else {
                let t = super::timeline::read(
                    &source,
                    &crate::input::ReadOptions {
                        nvtx: config.nvtx.is_some(),
                        keep: Keep::All,
                        progress: &|_, _| {},
                        near: None,
                    },
                )?;
                let identity = SideIdentity::from_timeline(&t);
                (t, identity)
            };
            let info = SideInfo {
                input: file,
                source: input.source().label(),
            };
            let mut side =
                GapsSide::from_timeline(&timeline, identity, info, config.nvtx.clone(), GAPS_KEPT);
            side.ops = ops;
            Ok(side)
        },
        config,
        base_input,
        new_input,
    )
}

/// The `rooftrace ops` rows of a PyTorch trace with shapes (`None`
/// without op calls with shapes), at the roofs `ops` would choose for it
/// (`--gpu`/`--roofs` as given, else its `deviceProperties`; an undecided
/// GPU leaves every fraction unknown, which never gates).
fn trace_ops(
    config: &DiffConfig,
    path: &Path,
    trace: &crate::kineto::KinetoTrace,
) -> Result<Option<Vec<crate::diff::ops::OpFraction>>, InputError> {
    if trace.op_calls.records.is_empty() {
        return Ok(None);
    }
    let choice = match &config.roofs {
        DiffRoofs::Shared(choice) if !matches!(choice, crate::roofs::RoofsChoice::Ncu) => {
            choice.clone()
        }
        _ => crate::roofs::RoofsChoice::FromCsv,
    };
    let hints = super::budget::trace_hints(path, trace);
    let (roofs, gpu) = crate::roofs::choose_or_undecided::<InputError>(&choice, &hints, || {
        Err(InputError::new("--roofs ncu needs an ncu CSV"))
    })?;
    let report = crate::ops::analyze(
        &trace.timeline,
        &trace.op_calls,
        &roofs,
        gpu,
        &path.display().to_string(),
    );
    Ok(Some(crate::diff::ops::OpFraction::from_report(&report)))
}

fn write_plot(report: &DiffReport, target: &PlotTarget) -> anyhow::Result<()> {
    match report.kind {
        DiffKind::Ncu => {
            let input = DiffRooflineInput::from_diff(report).ok_or_else(|| {
                InputError::new("--plot: no kernel has FLOPs and bytes on both sides and no roofs to draw; leave out --plot")
            })?;
            let chart = super::plot::built(DiffRooflineChart::build(&input), "--plot", || {
                "drawing the before → after roofline".to_string()
            })?;
            target.write(&chart)
        }
        DiffKind::Nsys => {
            let input = DiffIdleInput::from_diff(report);
            let chart = super::plot::built(DiffIdleChart::build(&input), "--plot", || {
                "drawing idle per class".to_string()
            })?;
            target.write(&chart)
        }
    }
}
