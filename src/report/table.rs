//! Aligned plain-text tables, CSV escaping and Markdown tables that GitHub
//! renders as written: text cells HTML-escaped, name cells in code spans,
//! `|` escaped in every cell ([`md_text`], [`md_code`]).

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
        }
    }

    /// Marks `columns` as names: code spans in Markdown.
    pub fn with_code(mut self, columns: &[usize]) -> Table {
        self.code = columns.to_vec();
        self
    }

    /// Appends a row.
    pub fn push(&mut self, row: Vec<String>) {
        self.rows.push(row);
    }

    /// Renders with two spaces between columns and a dashed rule under the
    /// header. Widths count chars, not bytes (µ is one column).
    pub fn to_text(&self) -> String {
        let n = self.header.len();
        let mut w = vec![0usize; n];
        for row in std::iter::once(&self.header).chain(&self.rows) {
            for (i, c) in row.iter().enumerate().take(n) {
                w[i] = w[i].max(c.chars().count());
            }
        }
        let mut out = String::new();
        let line = |out: &mut String, row: &[String]| {
            let mut s = String::new();
            for (i, width) in w.iter().enumerate() {
                let c = row.get(i).map(String::as_str).unwrap_or("");
                let pad = width - c.chars().count();
                if i > 0 {
                    s.push_str("  ");
                }
                match self.align.get(i).copied().unwrap_or(Align::Right) {
                    Align::Left => {
                        s.push_str(c);
                        if i + 1 < n {
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
