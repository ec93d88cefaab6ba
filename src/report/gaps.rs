//! Renderers of the gap report: aligned table, CSV, Markdown (verdict first,
//! fits a PR comment) and versioned JSON. Each returns bytes.

pub use super::gaps_verdict::verdict;
use super::gaps_verdict::{call_family, dur, frac, host_detail, sum_classes};
use super::table::Table;
use super::{Format, Render, RenderOptions};
use crate::gaps::model::DetailTotals;
use crate::gaps::{CallFamily, ClassTotals, GapClass, GapReport, HostDetail, TopGap};
use crate::units::ellipsize;

/// At most this many longest gaps in Markdown (the JSON has them all).
const MARKDOWN_TOP_GAPS: usize = 50;

/// Renders the report; `opts.top` is the rows of the stream, range and
/// top-gap tables (0 = all).
impl Render for GapReport {
    fn render(&self, format: Format, opts: &RenderOptions) -> Vec<u8> {
        match format {
            Format::Table => table(self, opts).into_bytes(),
            Format::Csv => csv(self).into_bytes(),
            Format::Markdown => markdown(self, opts).into_bytes(),
            Format::Json => json(self),
        }
    }
}

/// The JSON document (`rooftrace.gaps/3`), pretty-printed, newline-terminated.
pub fn json(r: &GapReport) -> Vec<u8> {
    let mut v = serde_json::to_vec_pretty(r).unwrap_or_default();
    v.push(b'\n');
    v
}

fn class_header(h: &mut Vec<&'static str>) {
    for c in GapClass::ALL {
        h.push(c.label());
    }
}

fn class_cells(row: &mut Vec<String>, c: &ClassTotals) {
    for k in GapClass::ALL {
        row.push(dur(c.get(k).total_ns));
    }
}

fn devices_table(r: &GapReport) -> Table {
    let mut h = vec![
        "pid",
        "device",
        "span",
        "busy",
        "kernels",
        "copies",
        "memsets",
        "comm kernels",
        "comm ∥ compute",
        "idle",
        "idle %",
        "gaps",
    ];
    class_header(&mut h);
    let mut t = Table::new(&h, &[]);
    for d in &r.devices {
        let mut row = vec![
            d.pid.to_string(),
            d.device.to_string(),
            dur(d.span_ns),
            dur(d.busy_ns),
            dur(d.kernel_busy_ns),
            dur(d.copy_busy_ns),
            dur(d.memset_busy_ns),
            dur(d.comm_busy_ns),
            dur(d.comm_compute_overlap_ns),
            dur(d.idle_ns),
            frac(d.idle_ns, d.span_ns),
            d.gap_count.to_string(),
        ];
        class_cells(&mut row, &d.classes);
        t.push(row);
    }
    t
}

fn streams_table(r: &GapReport, rows: usize) -> (Table, usize) {
    let mut h = vec![
        "pid", "device", "stream", "ops", "span", "busy", "idle", "gaps",
    ];
    class_header(&mut h);
    let mut t = Table::new(&h, &[]);
    let mut order: Vec<_> = r.streams.iter().collect();
    order.sort_by_key(|s| (std::cmp::Reverse(s.busy_ns), s.pid, s.device, s.stream));
    let n = if rows == 0 {
        order.len()
    } else {
        rows.min(order.len())
    };
    for s in &order[..n] {
        let mut row = vec![
            s.pid.to_string(),
            s.device.to_string(),
            s.stream.to_string(),
            s.ops.to_string(),
            dur(s.span_ns),
            dur(s.busy_ns),
            dur(s.idle_ns),
            s.gap_count.to_string(),
        ];
        class_cells(&mut row, &s.classes);
        t.push(row);
    }
    (t, order.len() - n)
}

fn top_table(r: &GapReport, gaps: &[TopGap], name_width: usize) -> Table {
    let name = |id| ellipsize(r.name(id), name_width);
    let mut t = Table::new(
        &[
            "#",
            "pid",
            "dev",
            "start",
            "gap",
            "class",
            "before",
            "after",
            "API call",
            "call start − gap start",
            "call duration",
            "what the host did",
            "NVTX",
            "fix",
        ],
        &[5, 6, 7, 8, 11, 12, 13],
    );
    for (i, g) in gaps.iter().enumerate() {
        t.push(vec![
            (i + 1).to_string(),
            g.pid.to_string(),
            g.device.to_string(),
            format!("{:.6} s", g.start_ns as f64 / 1e9),
            dur(g.duration_ns),
            g.class.label().to_string(),
            format!("{} (s{})", name(g.before.name_id), g.before.stream),
            format!("{} (s{})", name(g.after.name_id), g.after.stream),
            g.api.as_ref().map_or("-".to_string(), |a| name(a.name_id)),
            g.api
                .as_ref()
                .map_or("-".to_string(), |a| dur(a.start_ns - g.start_ns)),
            g.api
                .as_ref()
                .map_or("-".to_string(), |a| dur(a.end_ns - a.start_ns)),
            g.host
                .as_ref()
                .map_or("-".to_string(), |h| ellipsize(h, name_width + 24)),
            nvtx_cell(r, g, name_width),
            r.gap_fix(g).to_string(),
        ]);
    }
    t
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

fn ranges_table(r: &GapReport, rows: usize) -> Option<(Table, usize)> {
    let rr = r.ranges.as_ref()?;
    let mut h = vec![
        "range",
        "pid",
        "wall",
        "GPU window",
        "kernel busy",
        "idle",
        "kernels",
    ];
    class_header(&mut h);
    let mut t = Table::new(&h, &[0]);
    let n = if rows == 0 {
        rr.instances.len()
    } else {
        rows.min(rr.instances.len())
    };
    for i in &rr.instances[..n] {
        let mut row = vec![
            format!(
                "{}{}",
                ellipsize(r.name(i.text_id), 40),
                if i.projected { "" } else { " *" }
            ),
            i.pid.to_string(),
            dur(i.wall_ns),
            dur(i.gpu_end_ns - i.gpu_start_ns),
            dur(i.kernel_busy_ns),
            dur(i.idle_ns),
            i.kernels.to_string(),
        ];
        class_cells(&mut row, &i.classes);
        t.push(row);
    }
    for (label, f) in [("median", 0), ("p90", 1)] {
        let pick = |m: crate::gaps::MedianP90| if f == 0 { m.median } else { m.p90 };
        let mut row = vec![
            label.to_string(),
            String::new(),
            dur(pick(rr.wall_ns)),
            dur(pick(rr.gpu_window_ns)),
            dur(pick(rr.kernel_busy_ns)),
            dur(pick(rr.idle_ns)),
            pick(rr.kernels).to_string(),
        ];
        row.extend(std::iter::repeat_n(String::new(), GapClass::ALL.len()));
        t.push(row);
    }
    Some((t, rr.instances.len() - n))
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
                crate::nsys::GraphTrace::None => "none",
                crate::nsys::GraphTrace::Node => "nodes",
                crate::nsys::GraphTrace::Graph => "whole graphs",
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
    let hb: i64 = t.0.iter().map(|x| x.total_ns).sum();
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
    let nvtx_fix = r.nvtx_hint().map(|h| h.family.fix());
    for k in HostDetail::ALL {
        let x = t.get(k);
        if x.count > 0 {
            let fix = match k {
                HostDetail::Nvtx => nvtx_fix.unwrap_or(k.fix()),
                HostDetail::LaunchCall | HostDetail::Alloc | HostDetail::CudaApi => {
                    call_family(r, k).map_or(k.fix(), CallFamily::fix)
                }
                _ => k.fix(),
            };
            tab.push(vec![
                k.label().into(),
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
    if let Some((t, more)) = ranges_table(r, o.top) {
        s.push_str(&format!(
            "\nNVTX ranges (* = no launch found, host window used)\n{}",
            t.to_text()
        ));
        if more > 0 {
            s.push_str(&format!("… {more} more ranges (--top 0 shows all)\n"));
        }
    }
    if !r.top_gaps.is_empty() {
        s.push_str(&format!(
            "\nLongest gaps\n{}",
            top_table(r, &r.top_gaps, 40).to_text()
        ));
    }
    if !r.diagnostics.is_empty() {
        s.push_str("\nDiagnostics\n");
        for d in &r.diagnostics {
            s.push_str(&format!("- {d}\n"));
        }
    }
    s
}

/// CSV: one row per device, stream and range instance, SI units in the
/// column names. The host-bound detail (`host_detail_<detail>_count`/`_ns`) is
/// split per device only: empty (not computed, not zero) on stream and range
/// rows.
fn csv(r: &GapReport) -> String {
    let mut w = csv::Writer::from_writer(Vec::new());
    let mut h: Vec<String> = [
        "scope",
        "pid",
        "device",
        "stream",
        "range",
        "start_ns",
        "end_ns",
        "span_ns",
        "busy_ns",
        "idle_ns",
        "gap_count",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    for c in GapClass::ALL {
        h.push(format!("{}_count", c.key()));
        h.push(format!("{}_ns", c.key()));
    }
    for d in HostDetail::ALL {
        h.push(format!("host_detail_{}_count", d.key()));
        h.push(format!("host_detail_{}_ns", d.key()));
    }
    let _ = w.write_record(&h);
    let mut put = |head: [String; 11], c: &ClassTotals, detail: Option<&DetailTotals>| {
        let mut row = head.to_vec();
        for k in GapClass::ALL {
            row.push(c.get(k).count.to_string());
            row.push(c.get(k).total_ns.to_string());
        }
        for d in HostDetail::ALL {
            let t = detail.map(|x| x.get(d));
            row.push(t.map_or(String::new(), |t| t.count.to_string()));
            row.push(t.map_or(String::new(), |t| t.total_ns.to_string()));
        }
        let _ = w.write_record(&row);
    };
    for d in &r.devices {
        put(
            [
                "device".into(),
                d.pid.to_string(),
                d.device.to_string(),
                String::new(),
                String::new(),
                d.start_ns.to_string(),
                d.end_ns.to_string(),
                d.span_ns.to_string(),
                d.busy_ns.to_string(),
                d.idle_ns.to_string(),
                d.gap_count.to_string(),
            ],
            &d.classes,
            Some(&d.host_detail),
        );
    }
    for s in &r.streams {
        put(
            [
                "stream".into(),
                s.pid.to_string(),
                s.device.to_string(),
                s.stream.to_string(),
                String::new(),
                s.start_ns.to_string(),
                s.end_ns.to_string(),
                s.span_ns.to_string(),
                s.busy_ns.to_string(),
                s.idle_ns.to_string(),
                s.gap_count.to_string(),
            ],
            &s.classes,
            None,
        );
    }
    for i in r.ranges.iter().flat_map(|rr| &rr.instances) {
        put(
            [
                "range".into(),
                i.pid.to_string(),
                String::new(),
                String::new(),
                r.name(i.text_id).to_string(),
                i.gpu_start_ns.to_string(),
                i.gpu_end_ns.to_string(),
                (i.gpu_end_ns - i.gpu_start_ns).to_string(),
                i.busy_ns.to_string(),
                i.idle_ns.to_string(),
                i.classes.0.iter().map(|c| c.count).sum::<u64>().to_string(),
            ],
            &i.classes,
            None,
        );
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
                c.fix().into()
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
        format!(
            "### Idle time by gap length\n\n{}",
            histogram_table(r).to_markdown()
        ),
    ];
    if let Some((t, more)) = ranges_table(r, if o.top == 0 { 50 } else { o.top.min(50) }) {
        let note = if more > 0 {
            format!("\n_{more} more ranges in the JSON report._\n")
        } else {
            String::new()
        };
        sections.push(format!("### NVTX ranges\n\n{}{note}", t.to_markdown()));
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
            "### Longest gaps\n\n{}{note}",
            top_table(r, &r.top_gaps[..shown], 32).to_markdown()
        ));
    }
    sections.push(super::md_bullets("Launches", &launch_lines(r)));
    if !r.diagnostics.is_empty() {
        sections.push(super::md_bullets("Diagnostics", &r.diagnostics));
    }
    super::push_fitting(&mut out, sections);
    out
}
