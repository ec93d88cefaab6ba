//! `rooftrace calibrate`: find nvcc, build the embedded harness in the cache
//! directory, run it with progress, or read a saved run (`--from`); then
//! select the roofs, write them (`-o`) and print the comparison report.

use crate::calibrate::build::{self, HARNESS_BIN};
use crate::calibrate::select::select_roofs;
use crate::calibrate::toolchain::{self, Search, Toolchain, PIP_INSTALL};
use crate::calibrate::{read_results, results, CalibrateInputError, CalibrateReport};
use crate::cli::calibrate::CalibrateArgs;
use crate::commands::inputs::check_file;
use crate::commands::output::{refuse_inputs, write_atomic, write_output};
use crate::commands::plot::PlotTarget;
use crate::error::InputError;
use crate::plot::{CalibrationChart, CalibrationInput, PlotError};
use crate::report::{Format, Render, RenderOptions};
use crate::roofs::gpus;
use crate::roofs::Roofs;
use anyhow::{bail, Context};
use std::io::{BufRead, BufReader, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// What to give `--from`.
const RESULTS_FIX: &str =
    "give the JSON lines of a harness run (`rooftrace calibrate --save-results FILE`)";

/// Where the harness results come from.
#[derive(Debug, Clone)]
pub enum ResultsSource {
    /// A saved harness run (`--from`).
    File(PathBuf),
    /// Build and run the harness on this machine.
    Live(LiveConfig),
}

/// Plain config for a live run.
#[derive(Debug, Clone)]
pub struct LiveConfig {
    /// The nvcc given with `--nvcc` (else searched).
    pub nvcc: Option<PathBuf>,
    /// Where the harness is built.
    pub cache_dir: PathBuf,
    /// Where the raw results go (default: in the build directory).
    pub save_results: Option<PathBuf>,
    /// Arguments passed to the harness (`--samples N`, `--l2-flush`, `--quick`).
    pub harness_args: Vec<String>,
}

/// Plain config of one `rooftrace calibrate` run.
#[derive(Debug, Clone)]
pub struct CalibrateConfig {
    /// The harness results.
    pub source: ResultsSource,
    /// Where to write the measured roofs (`-o`).
    pub roofs_output: Option<PathBuf>,
    /// Roofs to compare with instead of the built-in datasheet table.
    pub datasheet: Option<PathBuf>,
    /// Calibration plot to write as well.
    pub plot: Option<PlotTarget>,
    /// Format of the report on stdout.
    pub format: Format,
}

impl CalibrateConfig {
    /// Resolves the arguments (the plot file is checked here, before a
    /// multi-minute run, not after).
    pub fn from_args(args: CalibrateArgs) -> anyhow::Result<CalibrateConfig> {
        let plot = args
            .plot
            .as_deref()
            .map(|p| PlotTarget::from_flag("--plot", p))
            .transpose()?;
        let source = match args.from {
            Some(p) => ResultsSource::File(p),
            None => {
                let mut harness_args = vec!["--samples".to_string(), args.samples.to_string()];
                if args.l2_flush {
                    harness_args.push("--l2-flush".into());
                }
                if args.quick {
                    harness_args.push("--quick".into());
                }
                ResultsSource::Live(LiveConfig {
                    nvcc: args.nvcc,
                    cache_dir: args.cache_dir.unwrap_or_else(build::default_cache_dir),
                    save_results: args.save_results,
                    harness_args,
                })
            }
        };
        Ok(CalibrateConfig {
            source,
            roofs_output: args.output,
            datasheet: args.datasheet,
            plot,
            format: Format::from(args.format),
        })
    }
}

/// Runs `rooftrace calibrate`. The report is printed even when no roofs
/// file could be written (no DRAM roof); the failure comes after it.
pub fn run(args: CalibrateArgs) -> anyhow::Result<()> {
    let config = CalibrateConfig::from_args(args)?;
    let mut targets: Vec<(&str, &Path)> = Vec::new();
    if let Some(o) = &config.roofs_output {
        targets.push(("-o", o));
    }
    if let Some(p) = &config.plot {
        targets.push(("--plot", &p.path));
    }
    let mut inputs: Vec<&Path> = config.datasheet.iter().map(PathBuf::as_path).collect();
    if let ResultsSource::File(f) = &config.source {
        inputs.push(f);
    }
    refuse_inputs(&targets, &inputs)?;
    let out = report_bytes(&config)?;
    write_output(None, &out.report)?;
    out.failure.map_or(Ok(()), Err)
}

/// What one calibrate run produced.
#[derive(Debug)]
pub struct CalibrateOutput {
    /// The report for stdout.
    pub report: Vec<u8>,
    /// The failure to raise after printing the report: no DRAM roof, so the
    /// roofs file (`-o`) was not written (exit 2 for a `--from` file, 1 for
    /// a live run).
    pub failure: Option<anyhow::Error>,
}

/// Gets the results (running the harness when asked), selects the roofs,
/// writes them (unless there is no DRAM roof) and the plot, and returns the
/// report bytes with any failure to raise after printing them.
pub fn report_bytes(config: &CalibrateConfig) -> anyhow::Result<CalibrateOutput> {
    let (results_path, run_notes) = match &config.source {
        ResultsSource::File(p) => {
            if p.as_os_str() != "-" {
                check_file(p, &[], RESULTS_FIX)?;
                crate::input::refuse_other_kinds(p, &crate::input::CALIBRATE)?;
            }
            (p.clone(), Vec::new())
        }
        ResultsSource::Live(live) => live_run(live)?,
    };
    let results = read_results(&results_path).map_err(InputError::from)?;
    let mut calibration = select_roofs(&results);
    calibration.notes.extend(run_notes);
    let datasheet = match &config.datasheet {
        Some(p) => {
            crate::input::refuse_other_kinds(p, &crate::input::ROOFS)?;
            Some(Roofs::from_file(p).map_err(InputError::from)?)
        }
        None => gpus::by_device_name(&results.device.name).map(|g| g.datasheet_roofs()),
    };
    // A roofs file without DRAM would be refused by `ncu --roofs`: write
    // none, show what was measured, then fail.
    let mut no_dram = config.roofs_output.as_ref().and_then(|out| {
        calibration
            .missing_dram()
            .map(|reason| CalibrateInputError::NoDramRoof {
                path: results_path.display().to_string(),
                reason: reason.to_string(),
                output: out.display().to_string(),
            })
    });
    // The chart is built before anything is written, so a chart that cannot
    // be drawn leaves no roofs file behind; both files are written
    // atomically (temporary file beside the target, then rename).
    let chart = match &config.plot {
        Some(target) => {
            let input = CalibrationInput::from_results(&results, &calibration.roofs);
            match CalibrationChart::build(&input) {
                Ok(chart) => Some((target, chart)),
                // Nothing to draw because nothing usable was measured: the
                // missing DRAM roof is the error that says why.
                Err(_) if no_dram.is_some() => {
                    return Err(raise(&config.source, no_dram.take()));
                }
                // Nothing usable measured: the results file's fault for
                // `--from` (exit 2), the run's otherwise (exit 1).
                Err(PlotError::Empty(_)) => {
                    let msg = format!(
                        "{}: nothing for --plot to draw: no sample with a positive FLOP/byte and FLOP/s, and no roof selected; leave out --plot, or run the harness again on an idle GPU",
                        results_path.display()
                    );
                    return Err(match &config.source {
                        ResultsSource::File(_) => InputError::new(msg).into(),
                        ResultsSource::Live(_) => anyhow::anyhow!(msg),
                    });
                }
                Err(e) => {
                    return Err(anyhow::Error::new(e)
                        .context(format!("drawing the roofs of {}", results_path.display())));
                }
            }
        }
        None => None,
    };
    if let (Some(out), None) = (&config.roofs_output, &no_dram) {
        write_atomic(out, calibration.roofs.to_json().as_bytes())
            .with_context(|| format!("writing roofs to {}", out.display()))?;
        crate::commands::output::note(&format!("wrote roofs to {}", out.display()));
    }
    if let Some((target, chart)) = chart {
        target.write(&chart)?;
    }
    let report = CalibrateReport::new(calibration, datasheet.as_ref());
    // The report always goes to stdout (`-o` is the roofs file), so the
    // image link is the path as given.
    let opts = RenderOptions {
        top: 0,
        images: config
            .plot
            .iter()
            .map(|t| ("measured roofs".to_string(), t.markdown_link(None)))
            .collect(),
    };
    let failure = no_dram.is_some().then(|| raise(&config.source, no_dram));
    Ok(CalibrateOutput {
        report: report.render(config.format, &opts),
        failure,
    })
}

/// The no-DRAM failure as the run's error: bad input (exit 2) for a
/// `--from` file, a plain failure (exit 1) for a live run.
fn raise(source: &ResultsSource, e: Option<CalibrateInputError>) -> anyhow::Error {
    match (e, source) {
        (Some(e), ResultsSource::File(_)) => InputError::from(e).into(),
        (Some(e), ResultsSource::Live(_)) => anyhow::anyhow!("{e}"),
        (None, _) => anyhow::anyhow!("calibration failed"),
    }
}

/// True when this machine shows an NVIDIA driver (Linux device nodes or
/// `/proc` entry, WSL's library dir, or `nvidia-smi` on PATH).
fn nvidia_driver_present() -> bool {
    let paths = [
        "/dev/nvidiactl",
        "/proc/driver/nvidia/version",
        "/usr/lib/wsl/lib/nvidia-smi",
    ];
    if paths.iter().any(|p| Path::new(p).exists()) {
        return true;
    }
    Command::new("nvidia-smi")
        .arg("-L")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Builds and runs the harness; returns the results file and notes on the
/// run itself (a harness that stopped early).
fn live_run(cfg: &LiveConfig) -> anyhow::Result<(PathBuf, Vec<String>)> {
    if let Some(p) = &cfg.nvcc {
        if !p.is_file() {
            return Err(InputError::new(format!(
                "--nvcc {}: no such file; point it at the nvcc executable (e.g. /usr/local/cuda/bin/nvcc)",
                p.display()
            ))
            .into());
        }
    }
    let found = toolchain::find(&Search::from_env(cfg.nvcc.clone()));
    let driver = nvidia_driver_present();
    let mut missing = Vec::new();
    if let Err(e) = &found {
        missing.push(e.to_string());
    }
    if !driver {
        missing.push("no NVIDIA GPU driver found (no /dev/nvidiactl, no nvidia-smi): calibrate must run on the machine with the GPU. To compute roofs from a run saved elsewhere, use `rooftrace calibrate --from results.jsonl`".to_string());
    }
    let tc = match found {
        Ok(tc) if driver => tc,
        _ => bail!("cannot measure this GPU:\n  - {}", missing.join("\n  - ")),
    };
    if tc.cublaslt.is_none() {
        bail!(
            "found {} but no cuBLASLt library (libcublasLt.so*; looked in: {}); install it with `{PIP_INSTALL}`, or add its directory to LD_LIBRARY_PATH",
            tc.nvcc.display(),
            tc.cublaslt_looked.join(", ")
        );
    }
    let dir = cfg.cache_dir.join(format!(
        "harness-{}",
        build::sources_hash(&tc.nvcc.display().to_string())
    ));
    let harness = build_harness(&tc, &dir)?;
    let results = cfg
        .save_results
        .clone()
        .unwrap_or_else(|| dir.join("results.jsonl"));
    let notes = run_harness(&harness, &cfg.harness_args, &results)?;
    Ok((results, notes))
}

fn build_harness(tc: &Toolchain, dir: &Path) -> anyhow::Result<PathBuf> {
    let bin = dir.join(HARNESS_BIN);
    if bin.is_file() {
        crate::commands::output::note(&format!("using the harness built in {}", dir.display()));
        return Ok(bin);
    }
    build::write_sources(dir)
        .with_context(|| format!("writing kernel sources to {}", dir.display()))?;
    crate::commands::output::note(&format!(
        "building the reference kernels with {} in {} (under a minute)...",
        tc.nvcc.display(),
        dir.display()
    ));
    let out = Command::new(&tc.nvcc)
        .args(build::build_args(tc, dir))
        .output()
        .with_context(|| format!("running {}", tc.nvcc.display()))?;
    if !out.status.success() {
        bail!(
            "nvcc failed to build the reference kernels (exit {}):\n{}",
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    Ok(bin)
}

/// Runs the harness, copying its JSON lines to `results` and showing
/// progress on stderr (a bar on a terminal, one line per point otherwise).
/// A harness that stops early after writing some lines is not an error: the
/// roofs are selected from what it measured, and the returned note says so.
fn run_harness(harness: &Path, args: &[String], results: &Path) -> anyhow::Result<Vec<String>> {
    let count = Command::new(harness)
        .args(args)
        .arg("--count")
        .output()
        .with_context(|| format!("running {}", harness.display()))?;
    if count.status.code() == Some(3) {
        bail!(
            "no usable CUDA GPU: {}. Check `nvidia-smi`; the driver must be at least as new as the CUDA runtime nvcc links",
            String::from_utf8_lossy(&count.stderr).trim()
        );
    }
    if !count.status.success() {
        bail!(
            "{} --count failed: {}",
            harness.display(),
            String::from_utf8_lossy(&count.stderr).trim()
        );
    }
    let total: u64 = String::from_utf8_lossy(&count.stdout)
        .trim()
        .parse()
        .unwrap_or(0);
    let mut child = Command::new(harness)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .with_context(|| format!("running {}", harness.display()))?;
    let stdout = child.stdout.take().context("harness stdout")?;
    let mut file = std::fs::File::create(results)
        .with_context(|| format!("creating {}", results.display()))?;
    let bar = if std::io::stderr().is_terminal() {
        indicatif::ProgressBar::new(total)
    } else {
        indicatif::ProgressBar::hidden()
    };
    bar.set_style(
        indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} {msg}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    let mut written = 0u64;
    for (i, line) in BufReader::new(stdout).lines().enumerate() {
        written += 1;
        let line = line.context("reading harness output")?;
        writeln!(file, "{line}").with_context(|| format!("writing {}", results.display()))?;
        let what = results::parse(&line, "harness output")
            .ok()
            .and_then(|r| r.points.into_iter().next())
            .map(|p| format!("{} {}", p.kernel, p.shape.describe()))
            .unwrap_or_default();
        if bar.is_hidden() {
            crate::commands::output::note(&format!("[{}/{total}] {what}", i + 1));
        } else {
            bar.set_message(what);
            bar.inc(1);
        }
    }
    bar.finish_and_clear();
    let status = child.wait().context("waiting for the harness")?;
    let mut notes = Vec::new();
    if !status.success() {
        if written == 0 {
            bail!(
                "the harness failed (exit {}) before measuring anything; its messages are above",
                status.code().unwrap_or(-1)
            );
        }
        notes.push(format!(
            "the harness stopped early (exit {}) after {written} of {total} points; roofs come from what it measured (its messages are above)",
            status.code().unwrap_or(-1)
        ));
    }
    crate::commands::output::note(&format!("harness results saved to {}", results.display()));
    Ok(notes)
}
