//! `rooftrace diff`: resolve the arguments into plain config ([`DiffConfig`]),
//! detect each side's kind, read both sides at once (one thread each), pick
//! one set of roofs (every ncu CSV checked against `--gpu` and the two
//! against each other), build the side models, refuse sides that share no
//! work ([`crate::diff::cover`]), compare, gate, draw, render, write; a
//! failed gate exits 3 after the report is written.

use super::inputs::check_file;
use super::output::write_output;
use super::plot::PlotTarget;
use crate::cli::diff::DiffArgs;
use crate::diff::gaps_side::{GapsSide, KernelTime};
use crate::diff::ncu_side::NcuSide;
use crate::diff::{self, Coverage, DiffKind, DiffReport, Rule, Thresholds, Workload};
use crate::error::{InputError, RegressionFound};
use crate::gaps::GapConfig;
use crate::plot::{DiffIdleChart, DiffIdleInput, DiffRooflineChart, DiffRooflineInput};
use crate::report::{Format, Render, RenderOptions};
use crate::roofline::{analyze, GroupBy};
use crate::roofs::{self, GpuInfo, Roofs, RoofsChoice};
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

/// Where the roofs of an ncu diff come from.
#[derive(Debug, Clone, PartialEq)]
pub enum DiffRoofs {
    /// One choice, resolved on the base side and applied to both.
    Shared(RoofsChoice),
    /// Each side its own.
    Own,
}

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
    fn kind(&self) -> DiffKind {
        match self {
            Input::NcuCsv | Input::NcuRep | Input::NcuJson(..) => DiffKind::Ncu,
            Input::Nsys | Input::Kineto | Input::GapsJson(..) => DiffKind::Nsys,
        }
    }

    fn label(&self) -> String {
        match self {
            Input::NcuCsv => "ncu csv".into(),
            Input::NcuRep => "ncu report".into(),
            Input::Nsys => "nsys export".into(),
            Input::Kineto => KINETO_LABEL.into(),
            Input::NcuJson(_, s) | Input::GapsJson(_, s) => format!("{s} json"),
        }
    }
}

/// Detects a file's kind from its extension, then its first bytes.
fn detect(path: &Path) -> Result<Input, InputError> {
    let shown = path.display();
    check_file(path, &[], DIFF_FIX)?;
    let meta = std::fs::metadata(path).map_err(|e| InputError::new(format!("{shown}: {e}")))?;
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .unwrap_or_default();
    if ext == "ncu-rep" {
        return Ok(Input::NcuRep);
    }
    if matches!(ext.as_str(), "nsys-rep" | "qdrep") {
        return Ok(Input::Nsys);
    }
    let mut head = [0u8; 16];
    let n = {
        use std::io::Read;
        let mut f =
            std::fs::File::open(path).map_err(|e| InputError::new(format!("{shown}: {e}")))?;
        f.read(&mut head)
            .map_err(|e| InputError::new(format!("{shown}: {e}")))?
    };
    if head[..n].starts_with(b"SQLite format 3\0") {
        return Ok(Input::Nsys);
    }
    if crate::kineto::input::is_kineto_trace(path) {
        return Ok(Input::Kineto);
    }
    let first = head[..n].iter().find(|b| !b.is_ascii_whitespace()).copied();
    if ext == "json" || first == Some(b'{') {
        return read_json(path, meta.len());
    }
    if matches!(ext.as_str(), "sqlite" | "db") {
        return Err(InputError::new(format!(
            "{shown}: not an SQLite database; give the export of `nsys export --type=sqlite`"
        )));
    }
    Ok(Input::NcuCsv)
}

fn read_json(path: &Path, len: u64) -> Result<Input, InputError> {
    let shown = path.display();
    if len > JSON_MAX_BYTES {
        return Err(InputError::new(format!(
            "{shown}: {len} bytes is more than a rooftrace report should be (limit {JSON_MAX_BYTES})"
        )));
    }
    let bytes = std::fs::read(path).map_err(|e| InputError::new(format!("{shown}: {e}")))?;
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

/// How a PyTorch profiler (Kineto) side is labelled (`source`).
const KINETO_LABEL: &str = "PyTorch trace";

/// A PyTorch trace against an nsys export is refused (exit 2): the two
/// profilers record different windows (the profiler's active steps vs the
/// whole run), with different overheads and host rows (no OS runtime calls
/// in Kineto), so span, idle and its classes would move with the tool, not
/// the code. A `rooftrace gaps` JSON report does not say which profiler it
/// came from and is compared with either.
fn check_same_profiler(config: &DiffConfig, base: &Input, new: &Input) -> Result<(), InputError> {
    let mixed = matches!(
        (base, new),
        (Input::Nsys, Input::Kineto) | (Input::Kineto, Input::Nsys)
    );
    if !mixed {
        return Ok(());
    }
    Err(InputError::new(format!(
        "cannot compare {} ({}) with {} ({}): the two profilers record different windows, overheads and host rows, so span and idle would change with the tool, not the code; profile both runs the same way (torch.profiler for both, or nsys for both)",
        config.base.display(),
        base.label(),
        config.new.display(),
        new.label()
    )))
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
    if base_input.kind() != new_input.kind() {
        return Err(InputError::new(format!(
            "cannot compare {} ({}) with {} ({}): give two ncu profiles (CSV or rooftrace.ncu JSON) or two nsys timelines (export or rooftrace.gaps JSON)",
            config.base.display(),
            base_input.label(),
            config.new.display(),
            new_input.label()
        ))
        .into());
    }
    check_same_profiler(config, &base_input, &new_input)?;
    if base_input.kind() == DiffKind::Nsys && config.roofs_given {
        return Err(InputError::new(format!(
            "--gpu/--roofs/--peak-dram-bw apply to ncu profiles; {} and {} are timelines, which carry no roofs (leave the flag out)",
            config.base.display(),
            config.new.display()
        ))
        .into());
    }
    let t = &config.thresholds;
    let mut report = DiffReport {
        schema: diff::SCHEMA,
        kind: base_input.kind(),
        base: diff::SideInfo {
            input: config.base.display().to_string(),
            source: base_input.label(),
        },
        new: diff::SideInfo {
            input: config.new.display().to_string(),
            source: new_input.label(),
        },
        thresholds: *t,
        coverage: Coverage {
            kernels: Default::default(),
            ranges: Default::default(),
            measured_on: None,
            matched_share_before: None,
            matched_share_after: None,
            min_share: diff::cover::MIN_MATCHED_SHARE,
            status: diff::CoverageStatus::Unknown,
            allowed: config.allow_unmatched,
        },
        verdict: diff::Verdict::Unchanged,
        counts: Default::default(),
        sections: Vec::new(),
        ncu: None,
        nsys: None,
        gate: Default::default(),
        diagnostics: Vec::new(),
    };
    match base_input.kind() {
        DiffKind::Ncu => {
            let (base, new) = ncu_sides(config, base_input, new_input)?;
            report.coverage = coverage(config, &base.workload(), &new.workload())?;
            report.diagnostics = side_notes(&base.diagnostics, &new.diagnostics);
            let n = diff::ncu::diff(&base, &new, t);
            if !n.same_roofs {
                report.diagnostics.push(format!(
                    "each side was analysed against its own roofs ({} → {}): fractions of roof are not comparable one to one",
                    n.gpu_before.as_deref().unwrap_or("?"),
                    n.gpu_after.as_deref().unwrap_or("?")
                ));
            }
            report.ncu = Some(n);
        }
        DiffKind::Nsys => {
            let (base, new) = gaps_sides(config, base_input, new_input)?;
            report.coverage = coverage(config, &base.workload(), &new.workload())?;
            report.diagnostics = side_notes(&base.diagnostics, &new.diagnostics);
            if report.coverage.status == diff::CoverageStatus::Unknown {
                report.diagnostics.push(
                    "the share of matched work is unknown: a rooftrace.gaps JSON names only the kernels around its longest gaps, without their time; diff the exports themselves to check it".to_string(),
                );
            }
            if config.nvtx.is_some() && base.ranges.is_none() && new.ranges.is_none() {
                report
                    .diagnostics
                    .push("--nvtx: no side carries NVTX ranges".to_string());
            }
            report.nsys = Some(diff::gaps::diff(&base, &new, t));
        }
    }
    let rules: &[Rule] = &config.rules;
    let mut report = diff::finish(report, rules).map_err(InputError::from)?;
    if !config.gate {
        report.gate.enabled = false;
        report.gate.failed = false;
        report.gate.tripped.clear();
    }
    Ok(report)
}

/// The comparability check: sides that share no name are bad input.
fn coverage(config: &DiffConfig, base: &Workload, new: &Workload) -> anyhow::Result<Coverage> {
    let shown = |p: &Path| p.display().to_string();
    diff::cover::check(
        &shown(&config.base),
        &shown(&config.new),
        base,
        new,
        config.allow_unmatched,
    )
    .map_err(|e| InputError::from(e).into())
}

/// The two sides' warnings: once with `both:` when they agree, else per side.
fn side_notes(b: &[String], a: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for d in b {
        let side = if a.contains(d) { "both" } else { "base" };
        out.push(format!("{side}: {d}"));
    }
    out.extend(
        a.iter()
            .filter(|d| !b.contains(d))
            .map(|d| format!("new: {d}")),
    );
    out
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

enum NcuRead {
    Csv(crate::ncu::NcuCsv),
    Side(NcuSide),
}

/// A CSV side with its roofs chosen, ready to analyse.
enum NcuReady {
    Csv(crate::ncu::NcuCsv, Box<Roofs>, GpuInfo),
    Side(NcuSide),
}

impl NcuReady {
    fn into_side(self) -> NcuSide {
        match self {
            NcuReady::Side(s) => s,
            NcuReady::Csv(csv, roofs, gpu) => {
                NcuSide::from_report(&analyze(&csv, &roofs, gpu, GroupBy::Launch), "ncu csv")
            }
        }
    }
}

/// Reads both sides at once, chooses the roofs (the base side's for both
/// unless `--own-roofs`), then analyses both at once.
fn ncu_sides(
    config: &DiffConfig,
    base_input: Input,
    new_input: Input,
) -> anyhow::Result<(NcuSide, NcuSide)> {
    let (read_before, read_after) = both(
        |path, input| match input {
            Input::NcuJson(doc, schema) => {
                let file = path.display().to_string();
                Ok(NcuRead::Side(
                    NcuSide::from_json(&doc, &file, &schema).map_err(InputError::from)?,
                ))
            }
            _ => {
                let csv = super::ncu::read_csv(path)?;
                csv.check_analysable().map_err(InputError::from)?;
                csv.check_timed(DIFF_NEEDS_TIME).map_err(InputError::from)?;
                Ok(NcuRead::Csv(csv))
            }
        },
        config,
        base_input,
        new_input,
    )?;
    if let (NcuRead::Csv(before), NcuRead::Csv(after)) = (&read_before, &read_after) {
        if config.roofs != DiffRoofs::Own {
            // Checked before the roofs, so that `--gpu` is checked against
            // each side first (its error names the side it contradicts).
            if let DiffRoofs::Shared(choice @ RoofsChoice::Gpu(_)) = &config.roofs {
                for csv in [before, after] {
                    roofs::choose::<InputError>(choice, &csv.device_hints(), || {
                        Ok(csv.roofs_from_peaks()?)
                    })?;
                }
            }
            let (hints_before, hints_after) = (before.device_hints(), after.device_hints());
            if let Some(why) = roofs::choose::contradiction(&hints_before, &hints_after) {
                return Err(InputError::new(format!(
                    "{why}: a diff compares two runs on one GPU; pass --own-roofs to compare across GPUs (each side against its own roofs)"
                ))
                .into());
            }
        }
    }
    let mut shared: Option<(Roofs, GpuInfo)> = None;
    let mut ready = |r: NcuRead| -> anyhow::Result<NcuReady> {
        let csv = match r {
            NcuRead::Side(s) if config.roofs_given => {
                return Err(InputError::new(format!(
                    "{}: --gpu/--roofs/--peak-dram-bw apply to ncu CSVs; a JSON report carries the roofs it was analysed with (re-run `rooftrace ncu` with the roofs you want)",
                    s.info.input
                ))
                .into())
            }
            NcuRead::Side(s) => return Ok(NcuReady::Side(s)),
            NcuRead::Csv(csv) => csv,
        };
        let (roofs, gpu) = match (&config.roofs, &shared) {
            // Each CSV with --gpu is checked against it (its own notes too).
            (DiffRoofs::Shared(choice @ RoofsChoice::Gpu(_)), _) => {
                roofs::choose::<InputError>(choice, &csv.device_hints(), || {
                    Ok(csv.roofs_from_peaks()?)
                })?
            }
            (DiffRoofs::Shared(_), Some(chosen)) => chosen.clone(),
            (how, _) => {
                let choice = match how {
                    DiffRoofs::Shared(c) => c.clone(),
                    DiffRoofs::Own => RoofsChoice::FromCsv,
                };
                let chosen = roofs::choose::<InputError>(&choice, &csv.device_hints(), || {
                    Ok(csv.roofs_from_peaks()?)
                })?;
                if matches!(how, DiffRoofs::Shared(_)) {
                    shared = Some(chosen.clone());
                }
                chosen
            }
        };
        Ok(NcuReady::Csv(csv, Box::new(roofs), gpu))
    };
    let (ready_before, ready_after) = (ready(read_before)?, ready(read_after)?);
    let (base, new) = std::thread::scope(|s| {
        let base_thread = s.spawn(|| ready_before.into_side());
        let new = ready_after.into_side();
        base_thread.join().map(|base| (base, new))
    })
    .map_err(|_| anyhow::anyhow!("analysing {} panicked", config.base.display()))?;
    if !base.same_roofs(&new) && !matches!(config.roofs, DiffRoofs::Own) {
        return Err(InputError::new(format!(
            "{} and {} were analysed against different roofs ({} vs {}): re-run `rooftrace ncu` on both with one --gpu/--roofs, or pass --own-roofs to compare anyway",
            base.info.input,
            new.info.input,
            base.gpu.as_deref().unwrap_or("?"),
            new.gpu.as_deref().unwrap_or("?")
        ))
        .into());
    }
    Ok((base, new))
}

fn gaps_sides(
    config: &DiffConfig,
    base_input: Input,
    new_input: Input,
) -> anyhow::Result<(GapsSide, GapsSide)> {
    both(
        |path, input| {
            let file = path.display().to_string();
            match input {
                Input::GapsJson(doc, schema) => {
                    Ok(GapsSide::from_json(&doc, &file, &schema).map_err(InputError::from)?)
                }
                _ => {
                    let source = super::timeline::source_file(path, config.nsys.as_deref())?;
                    let timeline =
                        super::timeline::read(&source, config.nvtx.is_some(), &|_, _| {})?;
                    let cfg = GapConfig {
                        top: GAPS_KEPT,
                        nvtx: config.nvtx.clone(),
                        ..GapConfig::default()
                    };
                    let report = crate::gaps::analyze(&timeline, &cfg);
                    let mut side = GapsSide::from_report(&report, &file, &input.label());
                    side.kernels = crate::multi::kernel_totals(&timeline, cfg.scope())
                        .into_iter()
                        .map(|k| KernelTime {
                            name: k.name,
                            time_ns: Some(k.total_ns as f64),
                        })
                        .collect();
                    Ok(side)
                }
            }
        },
        config,
        base_input,
        new_input,
    )
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
