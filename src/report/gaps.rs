//! Renderers of the gap report: aligned table, CSV, Markdown (verdict first,
//! fits a PR comment) and versioned JSON. Each returns bytes.

use super::dur;
use super::gaps_ranges::{
    class_columns, other_diagnostics, ranges_note, ranges_table, ranges_title,
};
pub use super::gaps_verdict::verdict;
use super::gaps_verdict::{frac, host_detail, link_lines, sum_classes};
use super::table::{cells, Column, Table};
use super::{Format, Render, RenderOptions};
use crate::gaps::model::DetailTotals;
use crate::gaps::{
    ClassTotals, CopySummary, DeviceGaps, GapClass, GapReport, HostDetail, StreamGaps, TopGap,
};
use crate::units::ellipsize;

/// At most this many longest gaps in Markdown (the JSON has them all).
const MARKDOWN_TOP_GAPS: usize = 50;

/// Renders the report; `opts.top` is the rows of the stream, range and
/// top-gap tables (0 = all).
impl Render for GapReport {
    /// JSON streamed: with `--nvtx` on an export of a million ranges it
    /// holds a row per range instance (2.5 GB of text, issue 32).
    fn render_to(
        &self,
        format: Format,
        opts: &RenderOptions,
        out: &mut dyn std::io::Write,
    ) -> std::io::Result<()> {
        match format {
            Format::Json => {
                // A concrete buffer: serde's many small writes stay inlined
                // instead of each crossing `dyn Write`.
                let mut w = std::io::BufWriter::with_capacity(1 << 16, out);
                serde_json::to_writer_pretty(&mut w, self)?;
                std::io::Write::write_all(&mut w, b"\n")?;
                std::io::Write::flush(&mut w)
            }
            _ => out.write_all(&self.render(format, opts)),
        }
    }

    fn render(&self, format: Format, opts: &RenderOptions) -> Vec<u8> {
        match format {
            Format::Table => table(self, opts).into_bytes(),
            Format::Csv => csv(self).into_bytes(),
            Format::Markdown => markdown(self, opts).into_bytes(),
            Format::Json => json(self),
        }
    }
}

/// The JSON document (`rooftrace.gaps/6`), pretty-printed, newline-terminated.
pub fn json(r: &GapReport) -> Vec<u8> {
    let mut v = serde_json::to_vec_pretty(r).unwrap_or_default();
    v.push(b'\n');
    v
}

fn devices_table(r: &GapReport) -> Table {
    let mut columns: Vec<Column<&DeviceGaps>> = vec![
        Column::right("pid", |d: &&DeviceGaps| d.pid.to_string()),
        Column::right("device", |d: &&DeviceGaps| d.device.to_string()),
        Column::right("span", |d: &&DeviceGaps| dur(d.span_ns)),
        Column::right("busy", |d: &&DeviceGaps| dur(d.busy_ns)),
        Column::right("kernels", |d: &&DeviceGaps| dur(d.kernel_busy_ns)),
        Column::right("copies", |d: &&DeviceGaps| dur(d.copy_busy_ns)),
        Column::right("memsets", |d: &&DeviceGaps| dur(d.memset_busy_ns)),
        Column::right("comm kernels", |d: &&DeviceGaps| dur(d.comm_busy_ns)),
        Column::right("comm ∥ compute", |d: &&DeviceGaps| {
            dur(d.comm_compute_overlap_ns)
        }),
        Column::right("comm exposed", |d: &&DeviceGaps| dur(d.exposed_comm_ns)),
        Column::right("idle", |d: &&DeviceGaps| dur(d.idle_ns)),
        Column::right("idle %", |d: &&DeviceGaps| frac(d.idle_ns, d.span_ns)),
        Column::right("gaps", |d: &&DeviceGaps| d.gap_count.to_string()),
    ];
    columns.extend(class_columns(|d: &&DeviceGaps| Some(&d.classes)));
    // On a narrow terminal the busy breakdown goes before the idle classes.
    Table::of_columns(&columns, &r.devices).with_drop_order(&[6, 8, 7, 5, 4, 2, 1])
}

fn streams_table(r: &GapReport, rows: usize) -> (Table, usize) {
    let mut columns: Vec<Column<&StreamGaps>> = vec![
        Column::right("pid", |s: &&StreamGaps| s.pid.to_string()),
        Column::right("device", |s: &&StreamGaps| s.device.to_string()),
        Column::right("stream", |s: &&StreamGaps| s.stream.to_string()),
        Column::right("ops", |s: &&StreamGaps| s.ops.to_string()),
        Column::right("span", |s: &&StreamGaps| dur(s.span_ns)),
        Column::right("busy", |s: &&StreamGaps| dur(s.busy_ns)),
        Column::right("idle", |s: &&StreamGaps| dur(s.idle_ns)),
        Column::right("gaps", |s: &&StreamGaps| s.gap_count.to_string()),
    ];
    columns.extend(class_columns(|s: &&StreamGaps| Some(&s.classes)));
    let mut order: Vec<_> = r.streams.iter().collect();
    order.sort_by_key(|s| (std::cmp::Reverse(s.busy_ns), s.pid, s.device, s.stream));
    let n = if rows == 0 {
        order.len()
    } else {
        rows.min(order.len())
    };
    let t = Table::of_columns(&columns, order[..n].iter().copied()).with_drop_order(&[4, 1, 3]);
    (t, order.len() - n)
}

/// A row of the longest-gaps table: its rank (from 0) and the gap.
type TopRow<'a> = (usize, &'a TopGap);

/// Where the report's times count from: the first GPU op (t = 0, as
/// `--window` counts), and that moment as a date when the input's clock
/// is Unix time.
fn origin(r: &GapReport) -> (i64, Option<String>) {
    let t0 = r.devices.iter().map(|d| d.start_ns).min().unwrap_or(0);
    let date = (r.input.source.tool() == crate::timeline::Tool::PyTorchProfiler)
        .then(|| crate::units::unix_clock_date(t0))
        .flatten();
    (t0, date)
}

/// The line that says where `start` counts from.
fn origin_note(r: &GapReport) -> String {
    match origin(r).1 {
        Some(date) => format!("start: from the first GPU op (t = 0) at {date}"),
        None => "start: from the first GPU op (t = 0)".to_string(),
    }
}

fn top_table(r: &GapReport, gaps: &[TopGap], name_width: usize) -> Table {
    let t0 = origin(r).0;
    let name = move |id| ellipsize(r.name(id), name_width);
    let api = |g: &TopGap, f: &dyn Fn(&crate::gaps::ApiRef) -> String| {
        g.api.as_ref().map_or("-".to_string(), f)
    };
    let columns: Vec<Column<TopRow>> = vec![
        Column::right("#", |&(i, _): &TopRow| (i + 1).to_string()),
        Column::right("pid", |(_, g): &TopRow| g.pid.to_string()),
        Column::right("dev", |(_, g): &TopRow| g.device.to_string()),
        Column::right("start", |(_, g): &TopRow| {
            format!("{:.6} s", (g.start_ns - t0) as f64 / 1e9)
        }),
        Column::right("gap", |(_, g): &TopRow| dur(g.duration_ns)),
        Column::left("class", |(_, g): &TopRow| g.class.label().to_string()),
        Column::left("before", move |(_, g): &TopRow| {
            format!("{} (s{})", name(g.before.name_id), g.before.stream)
        }),
        Column::left("after", move |(_, g): &TopRow| {
            format!("{} (s{})", name(g.after.name_id), g.after.stream)
        }),
        Column::left("API call", move |(_, g): &TopRow| {
            api(g, &|a| name(a.name_id))
        }),
        Column::right("call start − gap start", move |(_, g): &TopRow| {
            api(g, &|a| dur(a.start_ns - g.start_ns))
        }),
        Column::right("call duration", move |(_, g): &TopRow| {
            api(g, &|a| dur(a.end_ns - a.start_ns))
        }),
        Column::left("what the host did", move |(_, g): &TopRow| {
            g.host
                .as_ref()
                .map_or("-".to_string(), |h| cut_keeping_quotes(h, name_width + 24))
        }),
        Column::left(
            crate::gaps::range_words(r.input.source.tool()).column,
            move |(_, g): &TopRow| nvtx_cell(r, g, name_width),
        ),
        Column::left("fix", |(_, g): &TopRow| r.gap_fix(g).to_string()),
    ];
    // On a narrow terminal: the gap, its class, the op it waited for and
    // the fix stay longest.
    Table::of_columns(&columns, gaps.iter().enumerate())
        .with_drop_order(&[1, 10, 9, 12, 8, 2, 6, 3, 11])
}

/// `text` cut to `max` chars in the middle; a leading `` `name` `` is cut
/// inside its backticks, so the quote stays closed and the words after it
/// (`(inside an NVTX range, 195 ms)`) stay whole.
pub fn cut_keeping_quotes(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let quoted = text
        .strip_prefix('`')
        .and_then(|rest| rest.find('`').map(|end| (&rest[..end], &rest[end + 1..])));
    match quoted {
        Some((name, after)) if after.chars().count() + 2 + 5 <= max => {
            let room = max - after.chars().count() - 2;
            format!("`{}`{after}", ellipsize(name, room))
        }
        _ => ellipsize(text, max),
    }
}

/// The NVTX ranges of the launching thread inside the gap with their
/// share of it (`MPI_Recv 36.0 ms (18.4 %)`), else the innermost range
/// around the launch call, else `-`.
fn nvtx_cell(r: &GapReport, g: &TopGap, name_width: usize) -> String {
    if g.ranges.is_empty() {
        return g
            .nvtx_id
            .map_or("-".to_string(), |id| ellipsize(r.name(id), name_width));
    }
    let parts: Vec<String> = g
        .ranges
        .iter()
        .map(|x| {
            format!(
                "{} {} ({})",
                ellipsize(r.name(x.text_id), name_width),
                dur(x.ns),
                frac(x.ns, g.duration_ns)
            )
        })
        .collect();
    parts.join(", ")
}

fn launch_lines(r: &GapReport) -> Vec<String> {
    let l = &r.launch;
    let d = |x: &crate::gaps::Dist| {
        format!(
            "p50 {}, p90 {}, p99 {}, max {}",
            dur(x.p50_ns),
            dur(x.p90_ns),
            dur(x.p99_ns),
            dur(x.max_ns)
        )
    };
    let mut v = vec![
        format!(
            "{} launch calls for {} GPU ops ({} ops without an API row); CUDA graphs: {} launches, rows traced as {}{}",
            l.launches,
            l.ops_with_api,
            l.ops_without_api,
            r.input.graph_launches,
            match r.input.graph_trace {
                crate::timeline::GraphTrace::None => "none",
                crate::timeline::GraphTrace::Node => "nodes",
                crate::timeline::GraphTrace::Graph => "whole graphs",
            },
            r.input
                .graph_trace_option
                .as_ref()
                .map_or(String::new(), |o| format!(" (capture option {o})"))
        ),
        format!("API call duration: {}", d(&l.api_duration)),
        format!("queue delay (op start - call end): {}", d(&l.queue_delay)),
    ];
    let g = &r.distribution.duration;
    v.push(format!(
        "gaps >= {}: {}, {}",
        dur(r.settings.min_gap_ns),
        g.count,
        d(g)
    ));
    v
}

/// The host-bound gaps by what the launching thread did, with the fix.
fn host_table(r: &GapReport) -> Option<Table> {
    let t = host_detail(r);
    let hb: i64 = t.total_ns();
    if hb == 0 {
        return None;
    }
    let mut tab = Table::new(
        &[
            "what the host did",
            "gaps",
            "time",
            "share of host-bound",
            "fix",
        ],
        &[0, 4],
    );
    let (totals, terms) = (r.host_totals(), r.fix_terms());
    for k in HostDetail::ALL {
        let x = t.get(k);
        if x.count > 0 {
            // The rule of the verdict (and `budget`), per detail.
            let fix = totals.advice_for(k).map_or(k.fix(terms), |a| a.fix(terms));
            tab.push(vec![
                k.label_in(terms.tool).into(),
                x.count.to_string(),
                dur(x.total_ns),
                frac(x.total_ns, hb),
                fix.into(),
            ]);
        }
    }
    Some(tab)
}

/// Idle time per gap-length bin (the count beside it): a few long gaps
/// holding most of the idle time stand out next to many short ones.
fn histogram_table(r: &GapReport) -> Table {
    let mut t = Table::new(&["gap length", "idle time", "share", "gaps"], &[0]);
    let total: i64 = r.distribution.histogram.iter().map(|b| b.total_ns).sum();
    for b in r.distribution.histogram.iter().filter(|b| b.count > 0) {
        let range = match b.hi_ns {
            Some(h) => format!("{} – {}", dur(b.lo_ns), dur(h)),
            None => format!("≥ {}", dur(b.lo_ns)),
        };
        t.push(vec![
            range,
            dur(b.total_ns),
            frac(b.total_ns, total),
            b.count.to_string(),
        ]);
    }
    t
}

fn table(r: &GapReport, o: &RenderOptions) -> String {
    let mut s = format!("{}\n\nDevices\n{}", verdict(r), devices_table(r).to_text());
    let link = link_lines(r);
    if !link.is_empty() {
        s.push_str(&format!(
            "\nCopies over the host link\n{}\n",
            link.join("\n")
        ));
    }
    if let Some(h) = host_table(r) {
        s.push_str(&format!(
            "\nHost-bound gaps: what the host did\n{}",
            h.to_text()
        ));
    }
    let (st, more) = streams_table(r, o.top);
    s.push_str(&format!("\nStreams (busiest first)\n{}", st.to_text()));
    if more > 0 {
        s.push_str(&format!("… {more} more streams (--top 0 shows all)\n"));
    }
    s.push('\n');
    for l in launch_lines(r) {
        s.push_str(&l);
        s.push('\n');
    }
    s.push_str(&format!(
        "\nGap histogram\n{}",
        histogram_table(r).to_text()
    ));
    if let Some(note) = ranges_note(r) {
        s.push_str(&format!("\n{}\n{note}\n", ranges_title(r)));
    }
    if let Some((t, more)) = ranges_table(r, o.top) {
        s.push_str(&format!(
            "\n{} (* = no launch found, host window used)\n{}",
            ranges_title(r),
            t.to_text()
        ));
        if more > 0 {
            s.push_str(&format!("… {more} more ranges (--top 0 shows all)\n"));
        }
    }
    if !r.top_gaps.is_empty() {
        s.push_str(&format!(
            "\nLongest gaps ({})\n{}",
            origin_note(r),
            top_table(r, &r.top_gaps, 40).to_text()
        ));
    }
    let diagnostics = other_diagnostics(r);
    if !diagnostics.is_empty() {
        s.push_str("\nDiagnostics\n");
        for d in diagnostics {
            s.push_str(&format!("- {d}\n"));
        }
    }
    s
}

/// A row of the CSV: one device, stream or range instance.
struct ScopeRow<'a> {
    scope: &'static str,
    pid: u32,
    device: Option<u16>,
    stream: Option<u32>,
    range: Option<&'a str>,
    start_ns: i64,
    end_ns: i64,
    span_ns: i64,
    busy_ns: i64,
    idle_ns: i64,
    gap_count: u64,
    classes: &'a ClassTotals,
    /// The host-bound detail, per device only.
    detail: Option<&'a DetailTotals>,
    /// The device's largest copy stream over the host link (by time), on
    /// device rows only.
    host_copy: Option<&'a CopySummary>,
}

/// The CSV's columns: where the row is, its times, then a count and a
/// time per class and per host detail.
fn csv_columns<'a>(r: &'a GapReport) -> Vec<Column<'a, ScopeRow<'a>>> {
    let opt = |v: Option<String>| v.unwrap_or_default();
    let mut columns: Vec<Column<ScopeRow>> = vec![
        Column::left("scope", |s: &ScopeRow| s.scope.to_string()),
        Column::left("pid", |s: &ScopeRow| s.pid.to_string()),
        Column::left("device", move |s: &ScopeRow| {
            opt(s.device.map(|d| d.to_string()))
        }),
        Column::left("stream", move |s: &ScopeRow| {
            opt(s.stream.map(|d| d.to_string()))
        }),
        Column::left("range", move |s: &ScopeRow| {
            opt(s.range.map(str::to_string))
        }),
        Column::left("start_ns", |s: &ScopeRow| s.start_ns.to_string()),
        Column::left("end_ns", |s: &ScopeRow| s.end_ns.to_string()),
        Column::left("span_ns", |s: &ScopeRow| s.span_ns.to_string()),
        Column::left("busy_ns", |s: &ScopeRow| s.busy_ns.to_string()),
        Column::left("idle_ns", |s: &ScopeRow| s.idle_ns.to_string()),
        Column::left("gap_count", |s: &ScopeRow| s.gap_count.to_string()),
    ];
    for c in GapClass::ALL {
        columns.push(Column::left(
            format!("{}_count", c.key()),
            move |s: &ScopeRow| s.classes.get(c).count.to_string(),
        ));
        columns.push(Column::left(
            format!("{}_ns", c.key()),
            move |s: &ScopeRow| s.classes.get(c).total_ns.to_string(),
        ));
    }
    for d in HostDetail::ALL {
        columns.push(Column::left(
            format!("host_detail_{}_count", d.key()),
            move |s: &ScopeRow| opt(s.detail.map(|t| t.get(d).count.to_string())),
        ));
        columns.push(Column::left(
            format!("host_detail_{}_ns", d.key()),
            move |s: &ScopeRow| opt(s.detail.map(|t| t.get(d).total_ns.to_string())),
        ));
    }
    // The host link (device rows) and the device's largest copy stream
    // over it: achieved bandwidth and its share of the link.
    let link = &r.host_link;
    let on_device = |s: &ScopeRow| s.scope == "device";
    columns.push(Column::left("host_link", move |s: &ScopeRow| {
        opt(link.interface.clone().filter(|_| on_device(s)))
    }));
    columns.push(Column::left(
        "host_link_bytes_per_s",
        move |s: &ScopeRow| {
            opt(link
                .per_direction_bytes_per_s
                .filter(|_| on_device(s))
                .map(|b| b.to_string()))
        },
    ));
    columns.push(Column::left("host_copy", move |s: &ScopeRow| {
        opt(s.host_copy.map(|c| {
            format!(
                "{} {}",
                c.direction,
                if c.pageable { "pageable" } else { "pinned" }
            )
        }))
    }));
    columns.push(Column::left(
        "host_copy_bytes_per_s",
        move |s: &ScopeRow| {
            opt(s
                .host_copy
                .and_then(|c| c.bytes_per_s)
                .map(|b| b.to_string()))
        },
    ));
    columns.push(Column::left(
        "host_copy_link_fraction",
        move |s: &ScopeRow| {
            opt(s
                .host_copy
                .and_then(|c| link.fraction(c.direction, c.bytes_per_s))
                .map(|f| format!("{f:.4}")))
        },
    ));
    columns
}

/// CSV: one row per device, stream and range instance, SI units in the
/// column names. The host-bound detail (`host_detail_<detail>_count`/`_ns`) is
/// split per device only: empty (not computed, not zero) on stream and range
/// rows.
fn csv(r: &GapReport) -> String {
    let columns = csv_columns(r);
    let devices = r.devices.iter().map(|d| ScopeRow {
        scope: "device",
        pid: d.pid,
        device: Some(d.device),
        stream: None,
        range: None,
        start_ns: d.start_ns,
        end_ns: d.end_ns,
        span_ns: d.span_ns,
        busy_ns: d.busy_ns,
        idle_ns: d.idle_ns,
        gap_count: d.gap_count,
        classes: &d.classes,
        detail: Some(&d.host_detail),
        host_copy: d.copies.iter().find(|c| c.direction.crosses_host_link()),
    });
    let streams = r.streams.iter().map(|s| ScopeRow {
        scope: "stream",
        pid: s.pid,
        device: Some(s.device),
        stream: Some(s.stream),
        range: None,
        start_ns: s.start_ns,
        end_ns: s.end_ns,
        span_ns: s.span_ns,
        busy_ns: s.busy_ns,
        idle_ns: s.idle_ns,
        gap_count: s.gap_count,
        classes: &s.classes,
        detail: None,
        host_copy: None,
    });
    let ranges = r
        .ranges
        .iter()
        .flat_map(|rr| &rr.instances)
        .map(|i| ScopeRow {
            scope: "range",
            pid: i.pid,
            device: None,
            stream: None,
            range: Some(r.name(i.text_id)),
            start_ns: i.gpu_start_ns,
            end_ns: i.gpu_end_ns,
            span_ns: i.gpu_end_ns - i.gpu_start_ns,
            busy_ns: i.busy_ns,
            idle_ns: i.idle_ns,
            gap_count: i.classes().total_count(),
            classes: i.classes(),
            detail: None,
            host_copy: None,
        });
    let mut w = csv::Writer::from_writer(Vec::new());
    let _ = w.write_record(columns.iter().map(|c| &c.header));
    for row in devices.chain(streams).chain(ranges) {
        let _ = w.write_record(cells(&columns, &row));
    }
    String::from_utf8(w.into_inner().unwrap_or_default()).unwrap_or_default()
}

/// Markdown: verdict, optional image, class breakdown, devices, ranges, top
/// gaps, diagnostics; sections that do not fit [`super::MARKDOWN_LIMIT_CHARS`] are
/// cut with a note.
fn markdown(r: &GapReport, o: &RenderOptions) -> String {
    let mut out = format!("**{}**\n\n", verdict(r));
    for (alt, link) in &o.images {
        out.push_str(&format!("![{alt}]({link})\n\n"));
    }
    let all = sum_classes(r.devices.iter().map(|d| &d.classes));
    let idle = all.total_ns();
    let mut ct = Table::new(
        &["why the GPU idled", "gaps", "time", "share of idle", "fix"],
        &[0, 4],
    );
    for c in GapClass::ALL {
        let t = all.get(c);
        ct.push(vec![
            c.label().into(),
            t.count.to_string(),
            dur(t.total_ns),
            frac(t.total_ns, idle),
            if t.count > 0 {
                c.fix_in(r.fix_terms()).into()
            } else {
                String::new()
            },
        ]);
    }
    let mut first = ct.to_markdown();
    if let Some(h) = host_table(r) {
        first.push_str(&format!(
            "\n#### Host-bound gaps: what the host did\n\n{}",
            h.to_markdown()
        ));
    }
    let mut sections = vec![
        first,
        format!("### Devices\n\n{}", devices_table(r).to_markdown()),
    ];
    let link = link_lines(r);
    if !link.is_empty() {
        sections.push(super::md_bullets("Copies over the host link", &link));
    }
    sections.extend([format!(
        "### Idle time by gap length\n\n{}",
        histogram_table(r).to_markdown()
    )]);
    if let Some(note) = ranges_note(r) {
        sections.push(format!(
            "### {}\n\n_{}_\n",
            ranges_title(r),
            super::table::md_text(note)
        ));
    }
    if let Some((t, more)) = ranges_table(r, if o.top == 0 { 50 } else { o.top.min(50) }) {
        let note = if more > 0 {
            format!("\n_{more} more ranges in the JSON report._\n")
        } else {
            String::new()
        };
        sections.push(format!(
            "### {}\n\n{}{note}",
            ranges_title(r),
            t.to_markdown()
        ));
    }
    if !r.top_gaps.is_empty() {
        let shown = r.top_gaps.len().min(MARKDOWN_TOP_GAPS);
        let note = if shown < r.top_gaps.len() {
            format!(
                "\n_{} more gaps in the JSON report._\n",
                r.top_gaps.len() - shown
            )
        } else {
            String::new()
        };
        sections.push(format!(
            "### Longest gaps\n\n_{}._\n\n{}{note}",
            origin_note(r),
            top_table(r, &r.top_gaps[..shown], 32).to_markdown()
        ));
    }
    sections.push(super::md_bullets("Launches", &launch_lines(r)));
    let diagnostics = other_diagnostics(r);
    if !diagnostics.is_empty() {
        sections.push(super::md_bullets("Diagnostics", &diagnostics));
    }
    super::push_fitting(&mut out, sections);
    out
}
