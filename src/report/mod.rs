//! Presentation helpers shared by every report: output formats, human units
//! with fixed precision, aligned text tables, CSV and Markdown escaping.
//!
//! Renderers return bytes; they never touch files or stdout.

pub mod calibrate;
pub mod gaps;
pub mod roofline;
pub mod table;
pub mod units;

/// Output format of a report (the plain-config twin of the CLI's `--format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Aligned table with human units.
    Table,
    /// Versioned JSON.
    Json,
    /// CSV with SI units in the column names.
    Csv,
    /// Markdown for a pull-request comment.
    Markdown,
}

impl From<crate::cli::FormatArg> for Format {
    fn from(f: crate::cli::FormatArg) -> Format {
        match f {
            crate::cli::FormatArg::Table => Format::Table,
            crate::cli::FormatArg::Json => Format::Json,
            crate::cli::FormatArg::Csv => Format::Csv,
            crate::cli::FormatArg::Md => Format::Markdown,
        }
    }
}

/// The largest Markdown report that fits a GitHub PR comment (65,536 chars
/// minus a margin).
pub const MARKDOWN_LIMIT_CHARS: usize = 65_000;
