//! Command-line interface: one `Args` struct per subcommand (in its own
//! module), shared flag groups flattened in. Nothing here does work; the
//! `commands` modules turn these into plain config first.

use clap::{Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

pub mod budget;
pub mod calibrate;
pub mod diff;
pub mod gaps;
pub mod ncu;

/// The version line: the crate version and the commit it was built from
/// (recorded by `build.rs`; "unknown" for a build outside a git checkout).
pub const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (commit ",
    env!("ROOFTRACE_GIT_COMMIT"),
    ")"
);

/// Roofline fractions from Nsight Compute, idle gaps from Nsight Systems.
#[derive(Debug, Parser)]
#[command(name = "rooftrace", version = VERSION, about, propagate_version = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Each kernel's intensity and fraction of the roofline, from an Nsight Compute CSV.
    Ncu(ncu::NcuArgs),
    /// Kernel time vs idle gaps on an Nsight Systems timeline, and why the GPU idled.
    Gaps(gaps::GapsArgs),
    /// Where each NVTX step's time goes: bound, roofline shortfall, idle gaps per class.
    Budget(budget::BudgetArgs),
    /// Measure this GPU's roofs with the bundled reference kernels.
    Calibrate(calibrate::CalibrateArgs),
    /// Before → after of two profiles (kernels vs roofs, or idle and why), with a regression gate.
    Diff(diff::DiffArgs),
}

/// Output format of a report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum FormatArg {
    /// Aligned table with human units.
    #[default]
    Table,
    /// Versioned JSON (schema in docs/).
    Json,
    /// Comma-separated values, SI units in the column names.
    Csv,
    /// Markdown that fits a pull-request comment.
    Md,
}

impl From<FormatArg> for crate::report::Format {
    fn from(f: FormatArg) -> crate::report::Format {
        use crate::report::Format;
        match f {
            FormatArg::Table => Format::Table,
            FormatArg::Json => Format::Json,
            FormatArg::Csv => Format::Csv,
            FormatArg::Md => Format::Markdown,
        }
    }
}

/// Output format of `gaps` and `ncu`: a report format, or a Parquet dataset.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum OutputFormatArg {
    /// Aligned table with human units.
    #[default]
    Table,
    /// Versioned JSON (schema in docs/).
    Json,
    /// Comma-separated values, SI units in the column names.
    Csv,
    /// Markdown that fits a pull-request comment.
    Md,
    /// A Parquet dataset per entity under the `-o` directory, partitioned by
    /// input (docs/parquet-schema.md).
    Parquet,
}

impl OutputFormatArg {
    /// The report format; `None` for Parquet.
    pub fn report(self) -> Option<crate::report::Format> {
        match self {
            OutputFormatArg::Table => Some(FormatArg::Table.into()),
            OutputFormatArg::Json => Some(FormatArg::Json.into()),
            OutputFormatArg::Csv => Some(FormatArg::Csv.into()),
            OutputFormatArg::Md => Some(FormatArg::Md.into()),
            OutputFormatArg::Parquet => None,
        }
    }
}

/// Roofs of a card the table lacks, given on the command line instead of a
/// roofs file (docs/roofs-format.md, "The same card via flags").
#[derive(Debug, Clone, Default, clap::Args)]
pub struct PeakArgs {
    /// Peak DRAM bandwidth of a GPU the table lacks (`672GB/s`, `3.35TB/s`,
    /// `672e9`): roofs from the command line instead of `--gpu`/`--roofs`.
    #[arg(long, value_name = "RATE", value_parser = parse_byte_rate, conflicts_with_all = ["gpu", "roofs"])]
    pub peak_dram_bw: Option<f64>,
    /// Peak of one compute path, named as the roofs file names it
    /// (`fp32=30.8TFLOP/s`, `tensor_fp16=123.5TFLOP/s`; paths: fp64, fp32,
    /// fp16, tensor_fp64, tensor_tf32, tensor_fp16, tensor_bf16, tensor_fp8,
    /// tensor_int8, tensor_fp4). Dense figures. Repeatable; needs --peak-dram-bw.
    #[arg(long, value_name = "PATH=RATE", value_parser = parse_peak, requires = "peak_dram_bw")]
    pub peak: Vec<(crate::roofs::ComputePath, f64)>,
    /// The SM clock the --peak figures assume (`2.51GHz`, the boost clock
    /// of a datasheet), so that they scale to the clock the profile ran at
    /// as the table's roofs do. Needs --peak-dram-bw.
    #[arg(long, value_name = "HZ", value_parser = parse_hz, requires = "peak_dram_bw")]
    pub peak_sm_clock: Option<f64>,
}

impl PeakArgs {
    /// The roofs these flags give (source `command line`), `None` without
    /// `--peak-dram-bw`; a path given twice is an error.
    pub fn roofs(&self) -> Result<Option<crate::roofs::Roofs>, crate::error::InputError> {
        let Some(dram) = self.peak_dram_bw else {
            return Ok(None);
        };
        let mut roofs = crate::roofs::Roofs::from_command_line(dram, &self.peak)
            .map_err(crate::error::InputError::new)?;
        if let Some(hz) = self.peak_sm_clock {
            roofs.clocks.sm_clock_hz = Some(hz);
            roofs.clocks.sm_clock_source = "command line: --peak-sm-clock".into();
        }
        Ok(Some(roofs))
    }
}

/// Parses a rate `RATE/s` with `parse` reading `RATE` (`/s` optional).
fn per_second(
    s: &str,
    example: &str,
    parse: impl Fn(&str) -> Result<f64, String>,
) -> Result<f64, String> {
    let t = s.trim();
    let num = t
        .strip_suffix("/s")
        .or_else(|| t.strip_suffix("/second"))
        .unwrap_or(t);
    parse(num).map_err(|e| format!("{e} (a rate per second, e.g. {example})"))
}

/// Parses `672GB/s`, `1.5TiB/s`, `672e9` into bytes/s (the units of
/// [`budget::parse_bytes`]).
pub fn parse_byte_rate(s: &str) -> Result<f64, String> {
    per_second(s, "672GB/s", budget::parse_bytes)
}

/// Parses `30.8TFLOP/s`, `989.4T`, `1.5e12` into FLOP/s (SI prefixes k, M,
/// G, T, P; the base `FLOP`/`FLOPS` optional).
pub fn parse_flop_rate(s: &str) -> Result<f64, String> {
    per_second(s, "30.8TFLOP/s", |t| {
        let split = t
            .find(|c: char| c.is_ascii_alphabetic() && c != 'e' && c != 'E')
            .unwrap_or(t.len());
        let (num, unit) = t.split_at(split);
        let v: f64 = num
            .trim()
            .parse()
            .map_err(|_| format!("`{s}` is not a FLOP rate; write e.g. 30.8TFLOP/s"))?;
        let unit = unit.trim();
        let prefix = unit
            .strip_suffix("FLOPS")
            .or_else(|| unit.strip_suffix("FLOP"))
            .unwrap_or(unit);
        let scale = match prefix {
            "" => 1.0,
            "k" | "K" => 1e3,
            "M" => 1e6,
            "G" => 1e9,
            "T" => 1e12,
            "P" => 1e15,
            u => {
                return Err(format!(
                    "unknown unit `{u}` in `{s}`; use FLOP/s with a prefix k, M, G, T or P"
                ))
            }
        };
        let r = v * scale;
        if !r.is_finite() || r <= 0.0 {
            return Err(format!("`{s}`: the peak must be a positive number of FLOP/s"));
        }
        Ok(r)
    })
}

/// Parses `2.51GHz`, `1410MHz`, `2.51e9` into Hz.
pub fn parse_hz(s: &str) -> Result<f64, String> {
    let t = s.trim();
    let (num, scale) = [("GHz", 1e9), ("MHz", 1e6), ("kHz", 1e3), ("Hz", 1.0)]
        .iter()
        .find_map(|(u, f)| t.strip_suffix(u).map(|n| (n, *f)))
        .unwrap_or((t, 1.0));
    match num.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v * scale > 0.0 => Ok(v * scale),
        _ => Err(format!(
            "`{s}` is not a positive clock; write e.g. 2.51GHz or 1410MHz"
        )),
    }
}

/// Parses `--peak PATH=RATE`.
pub fn parse_peak(s: &str) -> Result<(crate::roofs::ComputePath, f64), String> {
    use crate::roofs::ComputePath;
    let keys = || {
        ComputePath::ALL
            .iter()
            .map(|p| p.key())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let (path, rate) = s
        .split_once('=')
        .ok_or_else(|| format!("`{s}` is not PATH=RATE; write e.g. fp32=30.8TFLOP/s (paths: {})", keys()))?;
    let p = ComputePath::from_key(path.trim())
        .ok_or_else(|| format!("unknown compute path `{}` in `{s}`; use one of: {}", path.trim(), keys()))?;
    Ok((p, parse_flop_rate(rate)?))
}

/// Flags every report-producing subcommand shares.
#[derive(Debug, Clone, clap::Args)]
pub struct OutputArgs {
    /// Output format (`parquet` needs `-o DIR`).
    #[arg(long, value_enum, default_value_t = OutputFormatArg::Table)]
    pub format: OutputFormatArg,
    /// Write the report to FILE instead of stdout (with `--format parquet`:
    /// the dataset directory).
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Show only the first N rows of the main table (0 = all).
    #[arg(long, value_name = "N", default_value_t = 20)]
    pub top: usize,
}

/// Flags of a run over many inputs (`gaps`, `ncu`).
#[derive(Debug, Clone, clap::Args)]
pub struct ManyArgs {
    /// Inputs analysed at once (default: the number of CPUs). Each input's
    /// own reading is already parallel; see docs/scale.md.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub jobs: Option<u16>,
    /// Memory the inputs analysed at once may take together, estimated from
    /// their file sizes: `512M`, `8G` (default: the estimate of the largest
    /// input, so peak memory stays near that input's alone). An input over
    /// the budget runs alone.
    #[arg(long, value_name = "SIZE", value_parser = parse_size_bytes)]
    pub mem_budget: Option<u64>,
    /// Take each input's rank from its file name: the first capture group of
    /// REGEX (default `(?i)(?:rank|proc)[-_.]?(\d+)`, used only when the
    /// export records no rank; a given REGEX wins over the export).
    #[arg(long, value_name = "REGEX")]
    pub rank_from: Option<String>,
}

/// Parses `4096`, `512K`, `512M`, `8G`, `1T` (powers of 1024) into bytes.
pub fn parse_size_bytes(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let n: u64 = num
        .parse()
        .map_err(|_| format!("`{s}` is not a size; write e.g. 512M or 8G"))?;
    let shift = match unit.trim().trim_end_matches(['B', 'b', 'i']) {
        "" => 0,
        "K" | "k" => 10,
        "M" | "m" => 20,
        "G" | "g" => 30,
        "T" | "t" => 40,
        u => {
            return Err(format!(
                "unknown size unit `{u}` in `{s}`; use K, M, G or T"
            ))
        }
    };
    n.checked_mul(1u64 << shift)
        .ok_or_else(|| format!("`{s}` is too large"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn sizes() {
        assert_eq!(super::parse_size_bytes("4096"), Ok(4096));
        assert_eq!(super::parse_size_bytes("512M"), Ok(512 << 20));
        assert_eq!(super::parse_size_bytes("8GiB"), Ok(8 << 30));
        assert!(super::parse_size_bytes("8X").is_err());
        assert!(super::parse_size_bytes("M").is_err());
    }

    #[test]
    fn cli_definition_is_consistent() {
        Cli::command().debug_assert();
    }
}
