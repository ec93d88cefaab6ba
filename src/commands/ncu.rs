//! `rooftrace ncu`: resolve the arguments into plain config, parse the CSV,
//! pick the roofs, analyse, render, write.

use crate::cli::ncu::{GroupByArg, NcuArgs};
use crate::error::InputError;
use crate::ncu::{self, NcuCsv, NcuError};
use crate::plot::RooflineChart;
use crate::report::roofline::{self as render, MarkdownOptions};
use crate::report::Format;
use crate::roofline::{analyze, GpuInfo, GroupBy};
use crate::roofs::{gpus, Roofs};
use anyhow::Context;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use super::output::write_output;
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

/// Where the roofs come from.
#[derive(Debug, Clone, PartialEq)]
pub enum RoofsChoice {
    /// A key of the built-in table.
    Gpu(String),
    /// A roofs JSON file.
    File(PathBuf),
    /// The peak metrics in the CSV.
    Ncu,
    /// Device name or compute capability in the CSV.
    FromCsv,
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
        return write_output(
            args.output.output.as_deref(),
            &render::render_gpu_list(format),
        );
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
    let bytes = report_bytes(&config)?;
    write_output(config.output.as_deref(), &bytes)
}

/// Parses, analyses and renders; writes the plot when asked (before the
/// report, so a Markdown link never points at a file that failed); returns
/// the report bytes.
pub fn report_bytes(config: &NcuConfig) -> anyhow::Result<Vec<u8>> {
    let csv = read_csv(&config.input)?;
    csv.check_analysable()?;
    let (roofs, gpu) = resolve_roofs(&config.roofs, &csv)?;
    if roofs.dram().is_none() {
        return Err(InputError::new(format!(
            "the roofs for {} have no DRAM bandwidth (memory.dram); add it to the roofs file",
            roofs.gpu
        ))
        .into());
    }
    let report = analyze(&csv, &roofs, gpu, config.group_by);
    if let Some(target) = &config.plot {
        let chart = RooflineChart::build(&report.plot_input(plot_labels(config.top)))
            .with_context(|| format!("drawing the roofline of {}", config.input.display()))?;
        target.write(&chart)?;
    }
    let image = config
        .plot
        .as_ref()
        .map(|t| t.markdown_link(config.output.as_deref()));
    Ok(match config.format {
        Format::Table => render::render_table(&report, config.top),
        Format::Json => render::render_json(&report),
        Format::Csv => render::render_csv(&report),
        Format::Markdown => render::render_markdown(
            &report,
            &MarkdownOptions {
                top: config.top,
                image: image.as_deref(),
            },
        ),
    })
}

/// Reads and parses an ncu CSV, with a byte progress bar on a terminal.
pub fn read_csv(path: &Path) -> anyhow::Result<NcuCsv> {
    let shown = path.display().to_string();
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

fn choices() -> String {
    gpus::all()
        .iter()
        .map(|g| g.key)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Picks the roofs: `--gpu`, `--roofs FILE`, `--roofs ncu`, else the device
/// name in the CSV, else its compute capability when that names one GPU.
pub fn resolve_roofs(choice: &RoofsChoice, csv: &NcuCsv) -> anyhow::Result<(Roofs, GpuInfo)> {
    let table = |g: &gpus::GpuSpec, how: String| {
        (
            g.default_roofs(),
            GpuInfo {
                key: Some(g.key.to_string()),
                name: g.name.to_string(),
                chosen_by: how,
            },
        )
    };
    match choice {
        RoofsChoice::Gpu(key) => {
            let g = gpus::by_key(key).ok_or_else(|| {
                InputError::new(format!(
                    "unknown GPU {key:?} for --gpu; choose one of: {} (or give measured roofs with --roofs FILE)",
                    choices()
                ))
            })?;
            Ok(table(g, "--gpu".into()))
        }
        RoofsChoice::File(path) => {
            let roofs = Roofs::from_file(path)?;
            let gpu = GpuInfo {
                key: None,
                name: roofs.gpu.clone(),
                chosen_by: format!("--roofs {}", path.display()),
            };
            Ok((roofs, gpu))
        }
        RoofsChoice::Ncu => {
            let roofs = csv.roofs_from_peaks()?;
            let gpu = GpuInfo {
                key: None,
                name: roofs.gpu.clone(),
                chosen_by: "--roofs ncu".into(),
            };
            Ok((roofs, gpu))
        }
        RoofsChoice::FromCsv => {
            for name in &csv.device_names {
                if let Some(g) = gpus::by_device_name(name) {
                    return Ok(table(g, format!("device name {name:?} in the CSV")));
                }
            }
            if let [cc] = csv.compute_capabilities.as_slice() {
                if let [g] = gpus::by_compute_capability(cc).as_slice() {
                    return Ok(table(g, format!("compute capability {cc} in the CSV")));
                }
            }
            let seen = match (csv.device_names.first(), csv.compute_capabilities.first()) {
                (Some(n), _) => format!("device {n:?}, which is not in the built-in table"),
                (None, Some(cc)) => {
                    let c: Vec<&str> = gpus::by_compute_capability(cc)
                        .iter()
                        .map(|g| g.key)
                        .collect();
                    if c.is_empty() {
                        format!("compute capability {cc}, which no GPU of the built-in table has")
                    } else {
                        format!("compute capability {cc}, shared by {}", c.join(", "))
                    }
                }
                (None, None) => "no device name or compute capability".into(),
            };
            Err(InputError::new(format!(
                "cannot tell which GPU {} ran on ({seen}); pass --gpu with one of: {}, or --roofs FILE, or --roofs ncu",
                csv.file,
                choices()
            ))
            .into())
        }
    }
}
