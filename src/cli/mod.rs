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

/// Roofline fractions from Nsight Compute, idle gaps from Nsight Systems.
#[derive(Debug, Parser)]
#[command(name = "rooftrace", version, about, propagate_version = true)]
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

/// Flags every report-producing subcommand shares.
#[derive(Debug, Clone, clap::Args)]
pub struct OutputArgs {
    /// Output format.
    #[arg(long, value_enum, default_value_t = FormatArg::Table)]
    pub format: FormatArg,
    /// Write the report to FILE instead of stdout.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Show only the first N rows of the main table (0 = all).
    #[arg(long, value_name = "N", default_value_t = 20)]
    pub top: usize,
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cli_definition_is_consistent() {
        Cli::command().debug_assert();
    }
}
