//! Aligned plain-text tables, CSV escaping and Markdown tables that GitHub
//! renders as written: text cells HTML-escaped, name cells in code spans,
//! `|` escaped in every cell ([`md_text`], [`md_code`]).
//!
//! On a terminal a text table fits its width ([`with_width`],
//! [`fit_plan`]): the widest text columns are cut in the middle with `…`
//! (a kernel's template tail and `#2` stay), then the columns that say
//! nothing, then those of least weight, are left out with a note naming
//! them; `--wide`, files and pipes get every column. Why not `comfy-table`
//! or `tabled`, both well kept: comfy-table fits a width by wrapping cells
//! onto several lines (`ContentArrangement::Dynamic`) and hides columns only
//! when told (`ColumnConstraint::Hidden`); tabled truncates at the end
//! (`Width::truncate` with a suffix) or wraps. Wrapped rows break the one
//! row per line that `grep`, `sort` and `cut` rely on, an end cut loses the
//! part of a kernel name that tells two apart, and neither renders the same
//! cells as GitHub Markdown and CSV, which these tables do from one column
//! list ([`Column`]). The fitting here is ~120 lines with its tests.

use std::cell::Cell;

thread_local! {
    /// The width text tables are fitted to while a report renders
    /// ([`with_width`]); `None`: whole.
    static FIT_WIDTH: Cell<Option<usize>> = const { Cell::new(None) };
}

/// Runs `render` with every text table fitted to `width` columns (`None`:
/// printed whole, as for a file or a pipe): the terminal width is a fact of
/// where the bytes go, set once by `commands` around one report's render,
/// so that every renderer's tables (and rows streamed through
/// [`fit_plan`]) fit without each renderer taking it as a parameter.
pub fn with_width<T>(width: Option<usize>, render: impl FnOnce() -> T) -> T {
    let before = FIT_WIDTH.with(|w| w.replace(width));
    let out = render();
    FIT_WIDTH.with(|w| w.set(before));
    out
}

/// The width tables are fitted to in the current render, if any.
pub fn fit_width() -> Option<usize> {
    FIT_WIDTH.with(Cell::get)
}

/// A text column is not cut below this many characters (or its own width).
pub const MIN_TEXT_CHARS: usize = 24;

/// How a table fits a width: which columns stay and how wide each is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FitPlan {
    /// Per column: kept.
    pub keep: Vec<bool>,
    /// Per column: the width its cells are cut to (chars).
    pub widths: Vec<usize>,
}

/// The plan that fits columns of `natural` widths (chars) into `width`,
/// two spaces apart: the widest left-aligned (text) columns are cut first,
/// down to [`MIN_TEXT_CHARS`]; if that is not enough, the columns of
/// `drop_order` (least weight first) are left out one at a time, the text
/// columns widening again. The first column is never left out.
pub fn fit_plan(natural: &[usize], align: &[Align], drop_order: &[usize], width: usize) -> FitPlan {
    let n = natural.len();
    let is_text = |i: usize| align.get(i).copied() == Some(Align::Left);
    let order: Vec<usize> = drop_order
        .iter()
        .copied()
        .filter(|&i| i > 0 && i < n)
        .collect();
    for dropped in 0..=order.len() {
        let keep: Vec<bool> = (0..n).map(|i| !order[..dropped].contains(&i)).collect();
        let kept: Vec<usize> = (0..n).filter(|&i| keep[i]).collect();
        let total: usize =
            kept.iter().map(|&i| natural[i]).sum::<usize>() + 2 * kept.len().saturating_sub(1);
        let floor = |i: usize| natural[i].min(MIN_TEXT_CHARS);
        let room: usize = kept
            .iter()
            .filter(|&&i| is_text(i))
            .map(|&i| natural[i] - floor(i))
            .sum();
        if total <= width || total - width <= room || dropped == order.len() {
            let mut widths = natural.to_vec();
            let mut excess = total.saturating_sub(width);
            // Cut the widest text column by one until it fits (at most
            // `room` steps, each on the current widest).
            while excess > 0 {
                let widest = kept
                    .iter()
                    .copied()
                    .filter(|&i| is_text(i) && widths[i] > floor(i))
                    .max_by_key(|&i| (widths[i], std::cmp::Reverse(i)));
                let Some(i) = widest else { break };
                widths[i] -= 1;
                excess -= 1;
            }
            return FitPlan { keep, widths };
        }
    }
    FitPlan {
        keep: vec![true; n],
        widths: natural.to_vec(),
    }
}

/// `text` with every line longer than `width` chars wrapped at spaces
/// (a word longer than the line is split), continuation lines indented two
/// more than the line: the prose around the tables on a narrow terminal.
pub fn wrap_lines(text: &str, width: usize) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let (body, nl) = match line.strip_suffix('\n') {
            Some(b) => (b, "\n"),
            None => (line, ""),
        };
        if body.chars().count() <= width {
            out.push_str(line);
            continue;
        }
        let indent = body.chars().take_while(|c| *c == ' ').count() + 2;
        let mut rest: Vec<char> = body.chars().collect();
        let mut first = true;
        while !rest.is_empty() {
            let room = if first {
                width
            } else {
                width.saturating_sub(indent).max(8)
            };
            if !first {
                out.extend(std::iter::repeat_n(' ', indent));
            }
            if rest.len() <= room {
                out.extend(rest.iter());
                break;
            }
            let cut = rest[..=room]
                .iter()
                .rposition(|c| *c == ' ')
                .filter(|&p| p > 0)
                .unwrap_or(room);
            out.extend(rest[..cut].iter());
            out.push('\n');
            let skip = usize::from(rest.get(cut) == Some(&' '));
            rest.drain(..cut + skip);
            first = false;
        }
        out.push_str(nl);
    }
    out
}

/// True for a cell that carries nothing a reader would miss: empty, a
/// dash, or a zero count (`0`, `0 ns`, `0.0 %`).
pub fn says_nothing(cell: &str) -> bool {
    let t = cell.trim();
    t.is_empty()
        || t == "-"
        || t == "—"
        || t.split_whitespace().next().is_some_and(|n| {
            n.parse::<f64>().is_ok_and(|v| v == 0.0) && t.split_whitespace().count() <= 2
        })
}

/// Column alignment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    /// Left-aligned (names).
    Left,
    /// Right-aligned (numbers).
    Right,
}

/// A fence of backticks longer than any run of them in `text`, so that a
/// name inside a fenced code block cannot close it (at least three).
pub fn md_fence(text: &str) -> String {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    "`".repeat((longest + 1).max(3))
}

/// A table: header, alignment per column, rows of already formatted cells.
#[derive(Debug, Clone, Default)]
pub struct Table {
    /// Column headers.
    pub header: Vec<String>,
    /// Alignment per column (missing entries are `Right`).
    pub align: Vec<Align>,
    /// Rows of cells; each row has `header.len()` cells.
    pub rows: Vec<Vec<String>>,
    /// Columns whose cells are names (kernels, ops, ranges), printed in
    /// Markdown as code spans so that no character in them is markup.
    pub code: Vec<usize>,
    /// The columns a text table fitted to a terminal leaves out first
    /// after those that say nothing, least weight first
    /// ([`Table::with_drop_order`]); then the others from the last
    /// leftwards.
    pub drop_order: Vec<usize>,
}

/// A text cell for a GitHub Markdown table: `&`, `<`, `>` as HTML entities
/// (a kernel's `<float>` is not a tag), `\` and `|` escaped, line breaks
/// as spaces. Backticks and `*` are left as written: text cells may carry
/// Markdown on purpose (a command in a code span).
pub fn md_text(cell: &str) -> String {
    let mut out = String::with_capacity(cell.len());
    for ch in cell.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '|' => out.push_str("\\|"),
            '\\' => out.push_str("\\\\"),
            '\n' | '\r' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// `text` as a code span for a GitHub Markdown table cell: fenced by one
/// more backtick than the longest run inside it, padded with a space when
/// it starts or ends with a backtick (CommonMark strips one space from each
/// end), `|` escaped (GFM splits cells before it parses code spans).
pub fn md_code(text: &str) -> String {
    let flat: String = text
        .chars()
        .map(|c| if c == '\n' || c == '\r' { ' ' } else { c })
        .collect();
    if flat.is_empty() {
        return String::new();
    }
    let mut longest = 0;
    let mut run = 0;
    for ch in flat.chars() {
        run = if ch == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let fence = "`".repeat(longest + 1);
    let pad = if flat.starts_with('`')
        || flat.ends_with('`')
        || flat.starts_with(' ') && flat.ends_with(' ')
    {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{}{pad}{fence}", flat.replace('|', "\\|"))
}

/// One column of a table: its header, its alignment and how a row of type
/// `R` writes its cell, defined together so that a header and its cells
/// cannot drift apart and a new column is one entry in one list (read by
/// the text, Markdown and CSV renderers alike).
pub struct Column<'a, R> {
    /// Header.
    pub header: String,
    /// Alignment of the column in text tables.
    pub align: Align,
    /// The cell of one row.
    pub cell: Box<dyn Fn(&R) -> String + 'a>,
}

impl<'a, R> Column<'a, R> {
    /// A left-aligned column (names, sentences).
    pub fn left(header: impl Into<String>, cell: impl Fn(&R) -> String + 'a) -> Column<'a, R> {
        Column {
            header: header.into(),
            align: Align::Left,
            cell: Box::new(cell),
        }
    }

    /// A right-aligned column (numbers).
    pub fn right(header: impl Into<String>, cell: impl Fn(&R) -> String + 'a) -> Column<'a, R> {
        Column {
            header: header.into(),
            align: Align::Right,
            cell: Box::new(cell),
        }
    }
}

/// The cells of `row`, one per column, in column order.
pub fn cells<R>(columns: &[Column<'_, R>], row: &R) -> Vec<String> {
    columns.iter().map(|c| (c.cell)(row)).collect()
}

impl Table {
    /// A table of `rows` with `columns`: the headers, alignments and cells
    /// all come from the one column list.
    pub fn of_columns<R>(columns: &[Column<'_, R>], rows: impl IntoIterator<Item = R>) -> Table {
        Table {
            header: columns.iter().map(|c| c.header.clone()).collect(),
            align: columns.iter().map(|c| c.align).collect(),
            rows: rows.into_iter().map(|r| cells(columns, &r)).collect(),
            code: Vec::new(),
            drop_order: Vec::new(),
        }
    }

    /// A table with the given header; every column right-aligned except those in `left`.
    pub fn new(header: &[&str], left: &[usize]) -> Table {
        Table {
            header: header.iter().map(|s| s.to_string()).collect(),
            align: (0..header.len())
                .map(|i| {
                    if left.contains(&i) {
                        Align::Left
                    } else {
                        Align::Right
                    }
                })
                .collect(),
            rows: Vec::new(),
            code: Vec::new(),
            drop_order: Vec::new(),
        }
    }

    /// Marks `columns` as names: code spans in Markdown.
    pub fn with_code(mut self, columns: &[usize]) -> Table {
        self.code = columns.to_vec();
        self
    }

    /// Sets the columns left out first when the table must fit a terminal
    /// (least weight first), after those whose cells say nothing.
    pub fn with_drop_order(mut self, columns: &[usize]) -> Table {
        self.drop_order = columns.to_vec();
        self
    }

    /// Appends a row.
    pub fn push(&mut self, row: Vec<String>) {
        self.rows.push(row);
    }

    /// The order columns are left out in to fit a width: first those whose
    /// every cell says nothing (`0`, `-`, empty: [`says_nothing`]), then
    /// the table's [`drop_order`](Table::drop_order), then the rest from
    /// the last leftwards; never the first.
    fn drop_order(&self) -> Vec<usize> {
        let n = self.header.len();
        let mut order: Vec<usize> = (1..n)
            .rev()
            .filter(|&i| {
                !self.rows.is_empty()
                    && self
                        .rows
                        .iter()
                        .all(|r| r.get(i).is_none_or(|c| says_nothing(c)))
            })
            .collect();
        for i in self.drop_order.iter().copied().chain((1..n).rev()) {
            if i > 0 && i < n && !order.contains(&i) {
                order.push(i);
            }
        }
        order
    }

    /// Renders with two spaces between columns and a dashed rule under the
    /// header. Widths count chars, not bytes (µ is one column). Inside
    /// [`with_width`], the table fits that width ([`fit_plan`]): text cells
    /// cut in the middle with `…`, then columns left out, with a note.
    pub fn to_text(&self) -> String {
        let n = self.header.len();
        let mut w = vec![0usize; n];
        for row in std::iter::once(&self.header).chain(&self.rows) {
            for (i, c) in row.iter().enumerate().take(n) {
                w[i] = w[i].max(c.chars().count());
            }
        }
        let plan = match fit_width() {
            Some(width) => fit_plan(&w, &self.align, &self.drop_order(), width),
            None => FitPlan {
                keep: vec![true; n],
                widths: w.clone(),
            },
        };
        let w = plan.widths;
        let keep = plan.keep;
        let last = (0..n).rev().find(|&i| keep[i]).unwrap_or(0);
        let mut out = String::new();
        let line = |out: &mut String, row: &[String]| {
            let mut s = String::new();
            for (i, width) in w.iter().enumerate() {
                if !keep[i] {
                    continue;
                }
                let whole = row.get(i).map(String::as_str).unwrap_or("");
                let cut;
                let c = if whole.chars().count() > *width {
                    cut = crate::units::ellipsize(whole, *width);
                    cut.as_str()
                } else {
                    whole
                };
                let pad = width.saturating_sub(c.chars().count());
                if keep[..i].iter().any(|k| *k) {
                    s.push_str("  ");
                }
                match self.align.get(i).copied().unwrap_or(Align::Right) {
                    Align::Left => {
                        s.push_str(c);
                        if i < last {
                            s.extend(std::iter::repeat_n(' ', pad));
                        }
                    }
                    Align::Right => {
                        s.extend(std::iter::repeat_n(' ', pad));
                        s.push_str(c);
                    }
                }
            }
            out.push_str(s.trim_end());
            out.push('\n');
        };
        line(&mut out, &self.header);
        let rule: Vec<String> = w.iter().map(|&k| "-".repeat(k)).collect();
        line(&mut out, &rule);
        for r in &self.rows {
            line(&mut out, r);
        }
        let left_out: Vec<&str> = (0..n)
            .filter(|&i| !keep[i])
            .map(|i| self.header[i].as_str())
            .collect();
        if !left_out.is_empty() {
            let note = format!(
                "({} left out to fit the terminal: {}; --wide prints every column)",
                if left_out.len() == 1 {
                    "1 column".to_string()
                } else {
                    format!("{} columns", left_out.len())
                },
                left_out.join(", ")
            );
            out.push_str(&wrap_lines(&note, fit_width().unwrap_or(usize::MAX)));
            out.push('\n');
        }
        out
    }

    /// Renders as a GitHub-flavoured Markdown table: code columns as code
    /// spans ([`md_code`]), other cells escaped ([`md_text`]).
    pub fn to_markdown(&self) -> String {
        let mut out = String::new();
        out.push('|');
        for h in &self.header {
            out.push_str(&format!(" {} |", md_text(h)));
        }
        out.push_str("\n|");
        for i in 0..self.header.len() {
            out.push_str(match self.align.get(i).copied().unwrap_or(Align::Right) {
                Align::Left => "---|",
                Align::Right => "---:|",
            });
        }
        out.push('\n');
        for r in &self.rows {
            out.push('|');
            for (i, c) in r.iter().enumerate() {
                let cell = if self.code.contains(&i) {
                    md_code(c)
                } else {
                    md_text(c)
                };
                out.push_str(&format!(" {cell} |"));
            }
            out.push('\n');
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aligns_by_chars_not_bytes() {
        let mut t = Table::new(&["name", "time"], &[0]);
        t.push(vec!["a".into(), "12.0 µs".into()]);
        t.push(vec!["bbbb".into(), "1.00 ms".into()]);
        assert_eq!(
            t.to_text(),
            "name     time\n----  -------\na     12.0 µs\nbbbb  1.00 ms\n"
        );
    }

    #[test]
    fn a_table_fits_by_cutting_text_first_then_leaving_out_columns() {
        let name = "a_kernel_name_of_forty_characters_______".to_string();
        let mut t = Table::new(&["name", "time", "zero", "bytes"], &[0]);
        t.push(vec![
            name.clone(),
            "12.0 µs".into(),
            "0".into(),
            "1.00 kB".into(),
        ]);
        // Whole: 40 + 2 + 7 + 2 + 4 + 2 + 7 = 64.
        assert_eq!(
            t.to_text().lines().map(|l| l.chars().count()).max(),
            Some(64)
        );
        // 60: the name is cut by 4 in the middle, every column stays.
        let fitted = with_width(Some(60), || t.to_text());
        assert!(fitted.lines().all(|l| l.chars().count() <= 60), "{fitted}");
        assert!(fitted.contains('…') && fitted.contains("zero"), "{fitted}");
        // 40: the name cannot go below 24, so the column that says nothing
        // (all zeros) goes first, then the last one (58 → 49 wide), and
        // the name is cut to 40 − 2 − 7 = 31, with a note.
        let fitted = with_width(Some(40), || t.to_text());
        let lines: Vec<&str> = fitted.lines().collect();
        assert_eq!(lines[0], format!("{:<31}  {:>7}", "name", "time"));
        assert_eq!(lines[3], "(2 columns left out to fit the terminal:");
        assert!(fitted.contains("zero, bytes"), "{fitted}");
        // Outside with_width the table is whole again.
        assert_eq!(
            t.to_text().lines().next().map(|l| l.chars().count()),
            Some(64)
        );
    }

    #[test]
    fn long_lines_wrap_at_spaces_with_an_indent() {
        assert_eq!(
            wrap_lines("aaa bbb ccc\nshort\n", 8),
            "aaa bbb\n  ccc\nshort\n"
        );
        // A word longer than the line is split.
        assert_eq!(wrap_lines("abcdefghij", 4), "abcd\n  efghij");
        assert!(says_nothing("0") && says_nothing("-") && says_nothing("0 ns"));
        assert!(!says_nothing("1") && !says_nothing("0 of 3 launches"));
    }

    #[test]
    fn markdown_escapes_pipes() {
        let mut t = Table::new(&["k"], &[0]);
        t.push(vec!["a|b".into()]);
        assert_eq!(t.to_markdown(), "| k |\n|---|\n| a\\|b |\n");
    }

    #[test]
    fn markdown_cells_escape_html_and_code_spans_outgrow_backticks() {
        assert_eq!(md_text("gemm<float> & co"), "gemm&lt;float&gt; &amp; co");
        assert_eq!(md_code("k<a|b>"), "`k<a\\|b>`");
        // One backtick inside: a fence of two; a backtick at an end: padded.
        assert_eq!(md_code("a`b"), "``a`b``");
        assert_eq!(md_code("`x`"), "`` `x` ``");
        assert_eq!(md_code("a``b"), "```a``b```");
    }
}
