//! `rooftrace ncu`: resolve the arguments into plain config, parse the CSV,
//! pick the roofs, analyse, render, write.

use crate::cli::ncu::{GroupByArg, NcuArgs};
use crate::error::InputError;
use crate::ncu::{self, NcuCsv, NcuError};
use crate::plot::{RooflineChart, RooflineInput};
use crate::report::roofline::render_gpu_list;
use crate::report::{Format, Render, RenderOptions};
use crate::roofline::{analyze, GroupBy};
use crate::roofs::{self, RoofsChoice};
use anyhow::Context;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use super::output::{refuse_inputs, write_output};
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
    /// Output format.
    pub format: Format,
    /// Rows of the main table (0 = all).
    pub top: usize,
    /// Output file (stdout when `None`).
    pub output: Option<PathBuf>,
    /// Roofline plot to write as well.
    pub plot: Option<PlotTarget>,
}

/// Runs `rooftrace ncu`.
pub fn run(args: NcuArgs) -> anyhow::Result<()> {
    let format = Format::from(args.output.format);
    if args.print_metrics {
        let mut s = ncu::metrics::PRINT_METRICS.join(",");
        s.push('\n');
        return write_output(args.output.output.as_deref(), s.as_bytes());
    }
    if args.list_gpus {
        return write_output(args.output.output.as_deref(), &render_gpu_list(format));
    }
    let input = args.input.context("no input file given")?;
    let plot = args
        .plot
        .as_deref()
        .map(|p| PlotTarget::from_flag("--plot", p))
        .transpose()?;
    let roofs = match (args.gpu, args.roofs) {
        (Some(g), _) => RoofsChoice::Gpu(g),
        (None, Some(r)) if r == "ncu" => RoofsChoice::Ncu,
        (None, Some(r)) => RoofsChoice::File(PathBuf::from(r)),
        (None, None) => RoofsChoice::FromCsv,
    };
    let config = NcuConfig {
        input,
        roofs,
        group_by: match args.group_by {
            GroupByArg::Launch => GroupBy::Launch,
            GroupByArg::Kernel => GroupBy::Kernel,
        },
        format,
        top: args.output.top,
        output: args.output.output,
        plot,
    };
    let mut targets: Vec<(&str, &Path)> = Vec::new();
    if let Some(o) = &config.output {
        targets.push(("-o", o));
    }
    if let Some(p) = &config.plot {
        targets.push(("--plot", &p.path));
    }
    let mut inputs: Vec<&Path> = vec![&config.input];
    if let RoofsChoice::File(f) = &config.roofs {
        inputs.push(f);
    }
    refuse_inputs(&targets, &inputs)?;
    let bytes = report_bytes(&config)?;
    write_output(config.output.as_deref(), &bytes)
}

/// Parses, analyses and renders; writes the plot when asked (before the
/// report, so a Markdown link never points at a file that failed); returns
/// the report bytes.
pub fn report_bytes(config: &NcuConfig) -> anyhow::Result<Vec<u8>> {
    let csv = read_csv(&config.input)?;
    csv.check_analysable().map_err(InputError::from)?;
    let (roofs, gpu) = roofs::choose::<InputError>(&config.roofs, &csv.device_hints(), || {
        Ok(csv.roofs_from_peaks()?)
    })?;
    let report = analyze(&csv, &roofs, gpu, config.group_by);
    if let Some(target) = &config.plot {
        let input = RooflineInput::from_report(&report, plot_labels(config.top));
        let chart = RooflineChart::build(&input)
            .with_context(|| format!("drawing the roofline of {}", config.input.display()))?;
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
    Ok(report.render(config.format, &opts))
}

/// Reads and parses an ncu CSV, with a byte progress bar on a terminal; a
/// `.ncu-rep` report is imported with `ncu` first; `-` reads standard input.
pub fn read_csv(path: &Path) -> Result<NcuCsv, InputError> {
    if path.as_os_str() == "-" {
        return Ok(ncu::parse(std::io::stdin().lock(), "<stdin>")?);
    }
    let shown = path.display().to_string();
    if ncu::convert::is_report(path) {
        return Ok(ncu::convert::parse_report(path, &shown)?);
    }
    let file = std::fs::File::open(path).map_err(|source| NcuError::Io {
        file: shown.clone(),
        source,
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
