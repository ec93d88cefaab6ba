//! Command-line interface: one `Args` struct per subcommand (in its own
//! module), shared flag groups flattened in. Nothing here does work; the
//! `commands` modules turn these into plain config first.

use clap::{Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

pub mod budget;
pub mod calibrate;
pub mod comm;
pub mod diff;
pub mod gaps;
pub mod ncu;
pub mod near_miss;
pub mod ops;
pub mod path;
pub mod projection;
pub mod quantity;
pub mod roofs;

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
    /// What each NCCL collective moved, its bus bandwidth against the link, and the rank everyone waited for.
    Comm(comm::CommArgs),
    /// Each PyTorch op on the roofline from the shapes its trace recorded: bound, fraction of roof, time lost.
    Ops(ops::OpsArgs),
    /// Before → after of two profiles (kernels vs roofs, or idle and why), with a regression gate.
    Diff(diff::DiffArgs),
    /// Each step's critical path, and what each change on it (kernels at their roofs, gaps removed) would save.
    Path(path::PathArgs),
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
    /// Print tables whole. By default a table printed to a terminal fits
    /// its width (`COLUMNS`, else the terminal's size): long names are cut
    /// in the middle with `…`, then the least important columns are left
    /// out with a note. Output to a file or a pipe is always whole.
    #[arg(long)]
    pub wide: bool,
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

/// Parses `14.14GB`, `13.2GiB`, `512MB`, `1.5e10`, `1000B` into bytes
/// ([`quantity::parse`] with [`quantity::BYTES`]).
pub fn parse_bytes(s: &str) -> Result<f64, String> {
    quantity::parse(s, &quantity::BYTES)
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
