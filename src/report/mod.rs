//! Presentation helpers shared by every report: output formats, human units
//! with fixed precision, aligned text tables, CSV and Markdown escaping.
//!
//! Renderers return bytes; they never touch files or stdout.

pub mod budget;
pub mod budget_projection;
pub mod calibrate;
pub mod comm;
pub mod diff;
mod diff_csv;
pub mod gaps;
mod gaps_ranges;
mod gaps_verdict;
pub mod gpu_choice;
pub mod gpu_list;
pub mod many_inputs;
mod many_jobs;
pub mod ops;
pub mod parquet;
pub mod path;
pub mod projection;
pub mod roofline;
pub mod roofline_clock;
mod roofline_rows;
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

    /// The same bytes written to `out` as they are rendered. The default
    /// renders first; a report with a row per launch (`ncu`) streams its
    /// JSON and CSV rows, so they are never all in memory as text.
    fn render_to(
        &self,
        format: Format,
        opts: &RenderOptions,
        out: &mut dyn std::io::Write,
    ) -> std::io::Result<()> {
        out.write_all(&self.render(format, opts))
    }
}

/// The largest Markdown report that fits a GitHub PR comment (65,536 chars
/// minus a margin).
pub const MARKDOWN_LIMIT_CHARS: usize = 65_000;

/// A Markdown section of bullets: `### title`, then one `- item` per line.
pub fn md_bullets<T: std::fmt::Display>(title: &str, items: &[T]) -> String {
    // Items quote the input (device, kernel and range names, table text):
    // escaped as table cells are, so a `<` in a name is text, not a tag.
    let lines: Vec<String> = items
        .iter()
        .map(|i| format!("- {}", table::md_text(&i.to_string())))
        .collect();
    format!("### {title}\n\n{}\n", lines.join("\n"))
}

/// The line that replaces the Markdown sections that did not fit.
pub const MARKDOWN_CUT: &str = "\n_Report truncated to fit a comment; see the JSON output._\n";

/// Appends `sections` to the Markdown `out`, each followed by a newline,
/// while the whole still fits [`MARKDOWN_LIMIT_CHARS`] with room for
/// [`MARKDOWN_CUT`]; the first section that does not fit is replaced by
/// that line and the rest are dropped (they are in the JSON output).
pub fn push_fitting(out: &mut String, sections: impl IntoIterator<Item = String>) {
    let mut used = out.chars().count();
    let room = MARKDOWN_LIMIT_CHARS - MARKDOWN_CUT.chars().count();
    for sec in sections {
        let n = sec.chars().count() + 1;
        if used + n > room {
            out.push_str(MARKDOWN_CUT);
            return;
        }
        out.push_str(&sec);
        out.push('\n');
        used += n;
    }
}

/// A duration for a table cell: `0` for none, else with its unit.
pub(crate) fn dur(ns: i64) -> String {
    if ns == 0 {
        "0".into()
    } else {
        crate::units::duration_ns(ns as f64)
    }
}

/// `f` of a known value, `unknown` for none: never a 0 standing in for
/// what an input did not say.
pub(crate) fn or_unknown<T>(v: Option<T>, f: impl Fn(T) -> String) -> String {
    v.map_or_else(|| "unknown".to_string(), f)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_fit_up_to_the_limit_and_the_cut_line_replaces_the_rest() {
        let cut = MARKDOWN_CUT.chars().count();
        // "é" is 2 bytes, 1 char: the limit counts characters.
        let head = "é".repeat(1000);
        // A first section that fills the room exactly: 1000 + (n + 1) = room.
        let fill = MARKDOWN_LIMIT_CHARS - cut - 1000 - 1;
        let mut out = head.clone();
        push_fitting(&mut out, ["x".repeat(fill)]);
        assert_eq!(out.chars().count(), MARKDOWN_LIMIT_CHARS - cut);
        assert!(!out.contains("truncated"));
        // One character more does not fit: the cut line instead, and the
        // sections after it are dropped.
        let mut out = head.clone();
        push_fitting(&mut out, ["a".to_string(), "x".repeat(fill), "b".into()]);
        assert_eq!(out, format!("{head}a\n{MARKDOWN_CUT}"));
        assert!(out.chars().count() <= MARKDOWN_LIMIT_CHARS);
    }

    #[test]
    fn bullets_keep_names_from_the_input_as_text() {
        // A device or range name is input: a tag in it stays text, a pipe
        // and a backslash stay themselves, a line break cannot start a new
        // bullet or heading.
        let md = md_bullets(
            "Copies",
            &["GPU chosen by device name \"A100 <img src=x> | a\\b\n# h\""],
        );
        assert_eq!(
            md,
            "### Copies\n\n- GPU chosen by device name \"A100 &lt;img src=x&gt; \\| a\\\\b # h\"\n"
        );
    }
}
