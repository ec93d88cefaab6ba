//! Renderers of the cross-input reports ([`MultiGapReport`],
//! [`MultiNcuReport`]): table and Markdown show the summaries (per rank,
//! range stragglers (or why there are none), kernels across inputs, failed
//! inputs); CSV is every
//! input's single-input CSV with `input,host,rank` in front of each row;
//! JSON is the whole report, each input's single-input report inside.

use super::roofline_rows::AsWritten;
use super::table::Table;
use super::{dur, or_unknown, Format, Render, RenderOptions};
use crate::many_inputs::gaps::MultiGapReport;
use crate::many_inputs::ncu::{MultiNcuReport, NcuInput};
use crate::many_inputs::{InputFailure, InputTag};
use crate::roofline::RooflineReport;
use crate::units::{duration_ns, ellipsize, percent};

impl Render for MultiGapReport {
    fn render(&self, format: Format, opts: &RenderOptions) -> Vec<u8> {
        match format {
            Format::Json => json(self),
            Format::Csv => tagged_csv(
                self.inputs
                    .iter()
                    .map(|i| (&i.tag, i.report.render(Format::Csv, opts))),
            ),
            Format::Table => {
                let tables = gaps_tables(self, opts.top);
                sections(String::new(), tables, self.ends(), false).into_bytes()
            }
            Format::Markdown => {
                let head = format!("**{}**\n\n", gaps_verdict(self));
                let tables = gaps_tables(self, opts.top);
                sections(head, tables, self.ends(), true).into_bytes()
            }
        }
    }
}

impl MultiGapReport {
    /// The failed inputs and the skipped files, to close the report.
    pub(super) fn ends(&self) -> Ends<'_> {
        Ends {
            failures: &self.failures,
            skipped: &self.skipped,
        }
    }
}

impl Render for MultiNcuReport {
    /// JSON and CSV streamed: every input's rows are in them, and no more
    /// than one input's CSV is text at a time.
    fn render_to(
        &self,
        format: Format,
        opts: &RenderOptions,
        out: &mut dyn std::io::Write,
    ) -> std::io::Result<()> {
        match format {
            Format::Json => {
                // A concrete buffer: serde's many small writes stay inlined.
                let mut w = std::io::BufWriter::with_capacity(1 << 16, out);
                serde_json::to_writer_pretty(&mut w, &NcuJson(self))?;
                std::io::Write::write_all(&mut w, b"\n")?;
                std::io::Write::flush(&mut w)
            }
            Format::Csv => tagged_csv_to(
                self.inputs
                    .iter()
                    .map(|i| (&i.tag, i.report.render(Format::Csv, opts))),
                out,
            ),
            _ => out.write_all(&self.render(format, opts)),
        }
    }

    fn render(&self, format: Format, opts: &RenderOptions) -> Vec<u8> {
        match format {
            Format::Json => json(&NcuJson(self)),
            Format::Csv => tagged_csv(
                self.inputs
                    .iter()
                    .map(|i| (&i.tag, i.report.render(Format::Csv, opts))),
            ),
            Format::Table => {
                let tables = ncu_tables(self, opts.top);
                let ends = Ends {
                    failures: &self.failures,
                    skipped: &self.skipped,
                };
                sections(String::new(), tables, ends, false).into_bytes()
            }
            Format::Markdown => {
                let head = format!("**{}**\n\n", ncu_verdict(self));
                let tables = ncu_tables(self, opts.top);
                let ends = Ends {
                    failures: &self.failures,
                    skipped: &self.skipped,
                };
                sections(head, tables, ends, true).into_bytes()
            }
        }
    }
}

/// The cross-input roofline report as JSON: each input's report as it
/// would be written alone ([`AsWritten`]: no roof is `null`, not 0).
struct NcuJson<'a>(&'a MultiNcuReport);

impl serde::Serialize for NcuJson<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let r = self.0;
        let mut m = s.serialize_map(Some(5))?;
        m.serialize_entry("schema", r.schema)?;
        m.serialize_entry("kernels", &r.kernels)?;
        m.serialize_entry("failures", &r.failures)?;
        m.serialize_entry("skipped", &r.skipped)?;
        let inputs: Vec<NcuInputJson> = r.inputs.iter().map(NcuInputJson).collect();
        m.serialize_entry("inputs", &inputs)?;
        m.end()
    }
}

/// One input of [`NcuJson`]: its tag's fields, then its report.
struct NcuInputJson<'a>(&'a NcuInput);

impl serde::Serialize for NcuInputJson<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{Error, SerializeMap};
        let tag = serde_json::to_value(&self.0.tag).map_err(S::Error::custom)?;
        let serde_json::Value::Object(fields) = tag else {
            return Err(S::Error::custom("an input tag serialises as an object"));
        };
        let mut m = s.serialize_map(Some(fields.len() + 1))?;
        for (key, v) in &fields {
            m.serialize_entry(key, v)?;
        }
        m.serialize_entry("report", &AsWritten(&self.0.report))?;
        m.end()
    }
}

pub(super) fn json<T: serde::Serialize>(r: &T) -> Vec<u8> {
    let mut v = serde_json::to_vec_pretty(r).unwrap_or_default();
    v.push(b'\n');
    v
}

/// An input's analysed time; `None` when its rows have rates only.
fn input_time(r: &RooflineReport) -> Option<f64> {
    let untimed = !r.kernels.is_empty() && r.kernels.iter().all(|k| k.rate_only);
    (!untimed).then_some(r.total_duration_ns)
}

/// An input's time lost; `None` without roofs (no GPU decided) or times.
fn input_time_lost(r: &RooflineReport) -> Option<f64> {
    input_time(r)
        .filter(|_| !r.roofless())
        .map(|_| r.total_time_lost_ns)
}

/// A rank, `unknown` when none was found (the note under the table says
/// why: [`RANK_UNKNOWN`]).
fn opt_rank(r: Option<u32>) -> String {
    or_unknown(r, |r| r.to_string())
}

/// A host, `unknown` when the input records none.
fn host(t: &InputTag) -> String {
    or_unknown(t.host.as_ref(), Clone::clone)
}

fn pct(f: Option<f64>) -> String {
    or_unknown(f, percent)
}

/// Why a rank cell says `unknown`.
const RANK_UNKNOWN: &str = "rank unknown: the input records none (no rank variable in its environment, no `distributedInfo`) and its file name holds none (`--rank-from REGEX` reads it from the name)";
/// Why a host cell says `unknown` (the column is left out when every
/// input's is).
const HOST_UNKNOWN: &str = "host unknown: the input records no host name";
/// Why an idle % cell says `unknown`.
const IDLE_UNKNOWN: &str =
    "idle % unknown: the input's span is 0 (no GPU activity after the filters)";
/// Why a spread % cell says `unknown`.
const SPREAD_UNKNOWN: &str = "spread % unknown: the fastest rank's median is 0 ns";
/// Why an input's time lost says `unknown`.
const TIME_LOST_UNKNOWN: &str = "time lost unknown: no GPU decided for the input (no roofs: name it with --gpu) or its rows record rates only";
/// Why the per-input fractions of the roof say `unknown`.
const ROOF_UNKNOWN: &str = "of roof unknown: no input with this kernel has both roofs (a GPU decided: its record, its facts or --gpu) and times (ncu's roofline section alone records rates only)";

/// The notes for the kinds of `unknown` cells a table shows, each once.
fn why_unknown(cases: &[(bool, &str)]) -> Vec<String> {
    cases
        .iter()
        .filter(|(shown, _)| *shown)
        .map(|(_, why)| why.to_string())
        .collect()
}

/// Each input's CSV with `input,host,rank` prepended to every row; one
/// header (the first input's) for all.
fn tagged_csv<'a>(parts: impl Iterator<Item = (&'a InputTag, Vec<u8>)>) -> Vec<u8> {
    let mut out = Vec::new();
    let _ = tagged_csv_to(parts, &mut out);
    out
}

/// [`tagged_csv`] written to `out` one input at a time.
fn tagged_csv_to<'a>(
    parts: impl Iterator<Item = (&'a InputTag, Vec<u8>)>,
    out: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    let mut w = csv::Writer::from_writer(out);
    let mut wrote_header = false;
    for (tag, bytes) in parts {
        let mut rd = csv::ReaderBuilder::new()
            .has_headers(true)
            .from_reader(bytes.as_slice());
        if !wrote_header {
            if let Ok(h) = rd.headers() {
                let mut head = vec!["input", "host", "rank"];
                head.extend(h.iter());
                let _ = w.write_record(&head);
                wrote_header = true;
            }
        }
        for rec in rd.records().flatten() {
            let (input, host, rank) = (
                tag.input.clone(),
                tag.host.clone().unwrap_or_default(),
                tag.rank.map(|r| r.to_string()).unwrap_or_default(),
            );
            let mut row = vec![input.as_str(), host.as_str(), rank.as_str()];
            row.extend(rec.iter());
            w.write_record(&row).map_err(|e| match e.into_kind() {
                csv::ErrorKind::Io(e) => e,
                other => std::io::Error::other(format!("{other:?}")),
            })?;
        }
    }
    w.flush()
}

/// What closes a report: the inputs that failed and the files the
/// directories given held that are no input.
#[derive(Clone, Copy)]
pub(super) struct Ends<'a> {
    pub(super) failures: &'a [InputFailure],
    pub(super) skipped: &'a [String],
}

impl Ends<'_> {
    fn sections(self) -> Vec<(String, Body)> {
        let mut all = Vec::new();
        if !self.failures.is_empty() {
            let mut t = Table::new(&["failed input", "error"], &[0, 1]);
            for f in self.failures {
                t.push(vec![f.input.clone(), f.error.clone()]);
            }
            all.push((
                format!("{} inputs failed", self.failures.len()),
                Body::Table(t, Vec::new()),
            ));
        }
        if !self.skipped.is_empty() {
            let mut t = Table::new(&["skipped file"], &[0]);
            for f in self.skipped {
                t.push(vec![f.clone()]);
            }
            all.push((
                format!("{} files skipped (no input by their ending or content; give one by name to read it)", self.skipped.len()),
                Body::Table(t, Vec::new()),
            ));
        }
        all
    }
}

/// The body of a titled section: a table, or one sentence where a table
/// would be (why it is empty).
pub(super) enum Body {
    /// A table, and why its `unknown` cells are unknown (one line per kind).
    Table(Table, Vec<String>),
    Note(String),
}

impl Body {
    fn text(&self) -> String {
        match self {
            Body::Table(t, notes) => {
                let mut s = t.to_text();
                for n in notes {
                    s.push_str(&format!("{n}\n"));
                }
                s
            }
            Body::Note(n) => format!("{n}\n"),
        }
    }

    fn markdown(&self) -> String {
        match self {
            Body::Table(t, notes) => {
                let mut s = t.to_markdown();
                for n in notes {
                    s.push_str(&format!("\n_{}_\n", super::table::md_text(n)));
                }
                s
            }
            Body::Note(n) => format!("_{}_\n", super::table::md_text(n)),
        }
    }
}

/// `head`, then titled sections, then the failed inputs and the files
/// skipped; in Markdown, as many as fit a comment ([`super::push_fitting`]).
pub(super) fn sections(
    head: String,
    tables: Vec<(String, Body)>,
    ends: Ends<'_>,
    md: bool,
) -> String {
    let mut out = head;
    let mut all = tables;
    all.extend(ends.sections());
    if md {
        let secs = all
            .iter()
            .map(|(title, b)| format!("### {title}\n\n{}", b.markdown()));
        super::push_fitting(&mut out, secs);
        return out;
    }
    for (i, (title, b)) in all.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(&format!("{title}\n\n{}", b.text()));
    }
    out
}

fn cap(top: usize, n: usize) -> usize {
    if top == 0 {
        n
    } else {
        top.min(n)
    }
}

/// One line: inputs, overall idle, the most idle rank and the worst
/// straggler.
pub fn gaps_verdict(r: &MultiGapReport) -> String {
    let span: i64 = r.ranks.iter().map(|x| x.span_ns).sum();
    let idle: i64 = r.ranks.iter().map(|x| x.idle_ns).sum();
    let mut s = format!(
        "{} inputs, GPU idle {} of {} summed",
        r.ranks.len(),
        pct((span > 0).then(|| idle as f64 / span as f64)),
        dur(span)
    );
    if let Some(w) = r
        .ranks
        .iter()
        .filter(|x| x.idle_fraction.is_some())
        .max_by(|a, b| {
            a.idle_fraction
                .unwrap_or(0.0)
                .total_cmp(&b.idle_fraction.unwrap_or(0.0))
        })
    {
        s.push_str(&format!(
            "; most idle: rank {} ({}) {}{}",
            opt_rank(w.tag.rank),
            w.tag.input,
            pct(w.idle_fraction),
            w.dominant
                .map(|c| format!(", mostly {}", c.label()))
                .unwrap_or_default()
        ));
    }
    if let Some(g) = r.ranges.first().filter(|g| g.inputs > 1) {
        s.push_str(&format!(
            "; straggler in `{}`: rank {} at {} vs {} fastest (+{})",
            g.name,
            opt_rank(g.slowest.rank),
            dur(g.slowest.median_wall_ns),
            dur(g.fastest.median_wall_ns),
            pct(g.spread_fraction)
        ));
    }
    if !r.failures.is_empty() {
        s.push_str(&format!("; {} inputs failed", r.failures.len()));
    }
    s
}

pub(super) fn gaps_tables(r: &MultiGapReport, top: usize) -> Vec<(String, Body)> {
    let words = r.range_words();
    // A column no input knows says nothing: left out, as a single input's
    // report leaves out what its input does not record.
    let hosts = r.ranks.iter().any(|x| x.tag.host.is_some());
    let mut header = vec!["rank", "input"];
    if hosts {
        header.push("host");
    }
    header.extend([
        "span",
        "busy",
        "kernel busy",
        "idle",
        "idle %",
        "main idle class",
    ]);
    let last = header.len() - 1;
    let left: &[usize] = if hosts { &[1, 2, last] } else { &[1, last] };
    let mut ranks = Table::new(&header, left);
    for x in &r.ranks {
        let mut row = vec![opt_rank(x.tag.rank), x.tag.input.clone()];
        if hosts {
            row.push(host(&x.tag));
        }
        row.extend([
            dur(x.span_ns),
            dur(x.busy_ns),
            dur(x.kernel_busy_ns),
            dur(x.idle_ns),
            pct(x.idle_fraction),
            x.dominant
                .map(|c| {
                    format!(
                        "{} ({})",
                        c.label(),
                        percent(x.classes.get(c).total_ns as f64 / x.idle_ns.max(1) as f64)
                    )
                })
                .unwrap_or_else(|| "none (no idle time)".into()),
        ]);
        ranks.push(row);
    }
    let notes = why_unknown(&[
        (r.ranks.iter().any(|x| x.tag.rank.is_none()), RANK_UNKNOWN),
        (
            hosts && r.ranks.iter().any(|x| x.tag.host.is_none()),
            HOST_UNKNOWN,
        ),
        (
            r.ranks.iter().any(|x| x.idle_fraction.is_none()),
            IDLE_UNKNOWN,
        ),
    ]);
    let mut out = vec![("Per rank".to_string(), Body::Table(ranks, notes))];
    let ranges_title = format!("{} across ranks (median wall per rank)", words.many);
    if let Some(note) = r.ranges_note.as_ref().filter(|_| r.ranges.is_empty()) {
        out.push((ranges_title.clone(), Body::Note(note.clone())));
    }
    if !r.ranges.is_empty() {
        let mut t = Table::new(
            &[
                words.one,
                "inputs",
                "instances",
                "median",
                "slowest rank",
                "slowest",
                "fastest rank",
                "fastest",
                "spread",
            ],
            &[0],
        );
        for g in r.ranges.iter().take(cap(top, r.ranges.len())) {
            t.push(vec![
                ellipsize(&g.name, 40),
                g.inputs.to_string(),
                g.instances.to_string(),
                dur(g.median_wall_ns),
                opt_rank(g.slowest.rank),
                dur(g.slowest.median_wall_ns),
                opt_rank(g.fastest.rank),
                dur(g.fastest.median_wall_ns),
                format!("{} ({})", dur(g.spread_ns), pct(g.spread_fraction)),
            ]);
        }
        let shown = &r.ranges[..cap(top, r.ranges.len())];
        let notes = why_unknown(&[
            (
                shown
                    .iter()
                    .any(|g| g.slowest.rank.is_none() || g.fastest.rank.is_none()),
                RANK_UNKNOWN,
            ),
            (
                shown.iter().any(|g| g.spread_fraction.is_none()),
                SPREAD_UNKNOWN,
            ),
        ]);
        out.push((ranges_title, Body::Table(t, notes)));
    }
    let mut k = Table::new(
        &[
            "kernel", "inputs", "launches", "time", "share", "most in", "its time", "least",
        ],
        &[0, 5],
    );
    for x in r.kernels.iter().take(cap(top, r.kernels.len())) {
        k.push(vec![
            ellipsize(&x.name, 50),
            x.inputs.to_string(),
            x.launches.to_string(),
            dur(x.total_ns),
            pct(x.fraction_of_kernel_time),
            format!(
                "rank {} ({})",
                opt_rank(x.max_rank),
                ellipsize(&x.max_input, 30)
            ),
            dur(x.max_input_ns),
            dur(x.min_input_ns),
        ]);
    }
    let notes = why_unknown(&[(
        r.kernels
            .iter()
            .take(cap(top, r.kernels.len()))
            .any(|x| x.max_rank.is_none()),
        RANK_UNKNOWN,
    )]);
    out.push(("Kernels across inputs".to_string(), Body::Table(k, notes)));
    out
}

/// One line: inputs, kernels, the kernel losing the most time across inputs.
pub fn ncu_verdict(r: &MultiNcuReport) -> String {
    let mut s = format!(
        "{} inputs, {} kernel names",
        r.inputs.len(),
        r.kernels.len()
    );
    match r.kernels.first() {
        Some(k) if k.time_lost_ns.is_some() => s.push_str(&format!(
            "; most time lost: `{}` at {} of its roof over {} launches ({} lost)",
            ellipsize(&k.name, 60),
            pct(k.fraction_of_roof),
            k.launches,
            or_unknown(k.time_lost_ns, duration_ns)
        )),
        // No input with both roofs and times: nothing to rank by.
        Some(_) => s.push_str("; time lost unknown (no roofs: no GPU decided; name it with --gpu)"),
        None => {}
    }
    if !r.failures.is_empty() {
        s.push_str(&format!("; {} inputs failed", r.failures.len()));
    }
    s
}

fn ncu_tables(r: &MultiNcuReport, top: usize) -> Vec<(String, Body)> {
    // An ncu CSV records no rank: the column shows only when a file name
    // (or `--rank-from`) gave one.
    let ranks = r.inputs.iter().any(|i| i.tag.rank.is_some());
    let header = ["rank", "input", "kernels", "launches", "time", "time lost"];
    let first = usize::from(!ranks);
    let mut inputs = Table::new(&header[first..], &[1 - first]);
    for i in &r.inputs {
        let row = [
            opt_rank(i.tag.rank),
            i.tag.input.clone(),
            i.report.kernels.len().to_string(),
            i.report.launches_analysed.to_string(),
            or_unknown(input_time(&i.report), duration_ns),
            or_unknown(input_time_lost(&i.report), duration_ns),
        ];
        inputs.push(row[first..].to_vec());
    }
    let mut k = Table::new(
        &[
            "kernel",
            "inputs",
            "launches",
            "time",
            "of roof",
            "time lost",
            "lowest",
            "in",
            "highest",
        ],
        &[0, 7],
    );
    for x in r.kernels.iter().take(cap(top, r.kernels.len())) {
        k.push(vec![
            ellipsize(&x.name, 50),
            x.inputs.to_string(),
            x.launches.to_string(),
            or_unknown(x.duration_ns, duration_ns),
            // A side unknown somewhere: T* and the fraction are lower bounds.
            or_unknown(x.fraction_of_roof, |f| {
                format!("{}{}", if x.lower_bound { "≥ " } else { "" }, percent(f))
            }),
            or_unknown(x.time_lost_ns, duration_ns),
            pct(x.min_fraction_of_roof),
            if x.min_input.is_empty() {
                "unknown".to_string()
            } else {
                ellipsize(&x.min_input, 30)
            },
            pct(x.max_fraction_of_roof),
        ]);
    }
    let input_notes = why_unknown(&[
        (
            ranks && r.inputs.iter().any(|i| i.tag.rank.is_none()),
            RANK_UNKNOWN,
        ),
        (
            r.inputs
                .iter()
                .any(|i| input_time_lost(&i.report).is_none()),
            TIME_LOST_UNKNOWN,
        ),
    ]);
    let kernel_notes = why_unknown(&[(
        r.kernels
            .iter()
            .take(cap(top, r.kernels.len()))
            .any(|x| x.min_fraction_of_roof.is_none()),
        ROOF_UNKNOWN,
    )]);
    vec![
        ("Inputs".to_string(), Body::Table(inputs, input_notes)),
        (
            "Kernels across inputs".to_string(),
            Body::Table(k, kernel_notes),
        ),
    ]
}
