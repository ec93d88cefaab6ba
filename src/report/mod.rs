//! Presentation helpers shared by every report: output formats, human units
//! with fixed precision, aligned text tables, CSV and Markdown escaping.
//!
//! Renderers return bytes; they never touch files or stdout.

pub mod budget;
pub mod calibrate;
pub mod diff;
pub mod gaps;
pub mod multi;
pub mod parquet;
pub mod roofline;
pub mod table;

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

/// Options every report renderer takes. A renderer ignores what does not
/// apply to it (e.g. `images` outside Markdown).
#[derive(Debug, Clone, Default)]
pub struct RenderOptions {
    /// Rows of each main table in table and Markdown output (0 = all; CSV
    /// and JSON always carry every row). Markdown is still capped by
    /// [`MARKDOWN_LIMIT_CHARS`].
    pub top: usize,
    /// Markdown only: images to link under the verdict, as (alt text,
    /// link), in order.
    pub images: Vec<(String, String)>,
}

/// The one renderer shape: every report (roofline, gaps, calibration, and
/// any later one) turns itself into bytes in each [`Format`] through this
/// trait, so a new report is one implementation, not a new pattern.
pub trait Render {
    /// The report in `format`, newline-terminated.
    fn render(&self, format: Format, opts: &RenderOptions) -> Vec<u8>;
}

/// The largest Markdown report that fits a GitHub PR comment (65,536 chars
/// minus a margin).
pub const MARKDOWN_LIMIT_CHARS: usize = 65_000;
