//! Aligned plain-text tables, CSV escaping and Markdown tables.

/// Column alignment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    /// Left-aligned (names).
    Left,
    /// Right-aligned (numbers).
    Right,
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
}

impl Table {
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
        }
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

    /// Renders as a GitHub-flavoured Markdown table (pipes in cells escaped).
    pub fn to_markdown(&self) -> String {
        let mut out = String::new();
        let esc = |c: &str| c.replace('|', "\\|").replace('\n', " ");
        out.push('|');
        for h in &self.header {
            out.push_str(&format!(" {} |", esc(h)));
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
            for c in r {
                out.push_str(&format!(" {} |", esc(c)));
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
}
