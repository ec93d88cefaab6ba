//! Renderers of the communication report: aligned table, CSV (one row per
//! collective), Markdown (the last ranks and the ranks first, fits a PR
//! comment) and versioned JSON (`rooftrace.comm/1`). Each returns bytes.

use super::table::{cells, Column, Table};
use super::{dur, or_unknown, Format, Render, RenderOptions};
use crate::comm::{Arrival, CollectiveRow, CommReport, RankRow};
use crate::units::{ellipsize, percent, si};

impl Render for CommReport {
    fn render(&self, format: Format, opts: &RenderOptions) -> Vec<u8> {
        match format {
            Format::Table => table(self, opts).into_bytes(),
            Format::Csv => csv(self).into_bytes(),
            Format::Markdown => markdown(self, opts).into_bytes(),
            Format::Json => {
                let mut v = serde_json::to_vec_pretty(self).unwrap_or_default();
                v.push(b'\n');
                v
            }
        }
    }
}

/// The headline: collectives, bytes, time, and (several ranks) the rank
/// that cost the others most.
pub fn verdict(r: &CommReport) -> String {
    let n = r.collectives.len();
    let bytes: u64 = r.collectives.iter().filter_map(|c| c.bytes).sum();
    let known = r.collectives.iter().filter(|c| c.bytes.is_some()).count();
    let exposed: i64 = r.ranks.iter().map(|x| x.exposed_ns).sum();
    let comm: i64 = r.ranks.iter().map(|x| x.comm_ns).sum();
    // Unknown sizes are unknown, never 0 B.
    let moved = if known == 0 {
        "bytes moved unknown (no collective with a known size)".to_string()
    } else {
        format!(
            "{} moved ({known} of {n} with known size)",
            si(bytes as f64, "B")
        )
    };
    let mut s = format!(
        "{} on {}, {moved}; communication {} of which {} exposed (no compute running)",
        counted(n as u64, "collective"),
        counted(r.ranks.len() as u64, "rank"),
        dur(comm),
        dur(exposed),
    );
    if let Some(worst) = r
        .ranks
        .iter()
        .filter(|x| x.caused_wait_ns > 0)
        .max_by_key(|x| (x.caused_wait_ns, std::cmp::Reverse(x.rank)))
    {
        s.push_str(&format!(
            "; {} arrived last at {} and cost the others {} of waiting",
            rank_label(worst.rank, &worst.input),
            counted(worst.last_in, "collective"),
            dur(worst.caused_wait_ns)
        ));
        let near = r
            .collectives
            .iter()
            .filter(|c| {
                c.arrival == Some(Arrival::LastNearNoise)
                    && c.last_input.as_deref() == Some(worst.input.as_str())
            })
            .count();
        if near > 0 {
            s.push_str(&format!(
                " (at {near} of them its lead is within ten times the clock alignment's error)"
            ));
        }
    }
    s
}

/// `1 collective`, `2 collectives`.
fn counted(n: u64, noun: &str) -> String {
    format!("{n} {noun}{}", if n == 1 { "" } else { "s" })
}

/// `rank 3`, or, when the trace records no rank, its input.
fn rank_label(rank: Option<u32>, input: &str) -> String {
    match rank {
        Some(r) => format!("rank {r}"),
        None => format!("the rank of {input} (rank not recorded)"),
    }
}

fn collective_columns(r: &CommReport, width: usize) -> Vec<Column<'_, &CollectiveRow>> {
    let mut c: Vec<Column<&CollectiveRow>> = vec![
        Column::right("#", |x: &&CollectiveRow| x.index.to_string()),
        Column::left("kind", |x: &&CollectiveRow| x.kind.key().to_string()),
        Column::right("bytes", |x: &&CollectiveRow| {
            or_unknown(x.bytes, |b| si(b as f64, "B"))
        }),
        Column::right("ranks", |x: &&CollectiveRow| {
            or_unknown(x.group_size, |n| n.to_string())
        }),
        Column::right("time", |x: &&CollectiveRow| dur(x.duration_ns)),
        Column::right("algbw", |x: &&CollectiveRow| {
            or_unknown(x.algbw_bytes_per_s, |b| si(b, "B/s"))
        }),
        Column::right("busbw", |x: &&CollectiveRow| {
            or_unknown(x.busbw_bytes_per_s, |b| si(b, "B/s"))
        }),
        Column::right("of link", |x: &&CollectiveRow| {
            let nvls = if x.nvls { " NVLS" } else { "" };
            format!("{}{nvls}", or_unknown(x.link_fraction, percent))
        }),
        Column::left("link", |x: &&CollectiveRow| {
            x.link.map_or("unknown", |l| l.key()).to_string()
        }),
    ];
    if r.collectives.iter().any(|x| x.arrival.is_some()) {
        c.push(Column::right("last rank", move |x: &&CollectiveRow| {
            last_rank(x, width)
        }));
        c.push(Column::right("others waited", |x: &&CollectiveRow| {
            format!(
                "{}{}",
                if x.waits_lower_bound { "≥" } else { "" },
                or_unknown(x.wait_ns, dur)
            )
        }));
    }
    c.push(Column::left("kernel", move |x: &&CollectiveRow| {
        ellipsize(r.names.get(x.kernel_id).map_or("?", String::as_str), width)
    }));
    c
}

/// The last rank's cell: the rank (or, when its trace records none, its
/// input), with the clock's noise floor beside it when its lead is near
/// it; `none` when nobody waited or the lead is within the floor (and the
/// floor said).
fn last_rank(x: &CollectiveRow, width: usize) -> String {
    let floor = dur(x.noise_floor_ns.unwrap_or(0));
    let who = || match (x.last_rank, &x.last_input) {
        (Some(v), _) => v.to_string(),
        (None, Some(input)) => ellipsize(input, width),
        (None, None) => or_unknown(None::<u32>, |v| v.to_string()),
    };
    match x.arrival {
        None | Some(Arrival::Together) => "none".into(),
        Some(Arrival::WithinNoise) => format!("none (±{floor})"),
        Some(Arrival::LastNearNoise) => format!("{} (±{floor} clock)", who()),
        Some(Arrival::Last) => who(),
    }
}

fn rank_columns<'a>() -> Vec<Column<'a, &'a RankRow>> {
    vec![
        Column::right("rank", |x: &&RankRow| or_unknown(x.rank, |v| v.to_string())),
        Column::right("comm", |x: &&RankRow| dur(x.comm_ns)),
        Column::right("exposed", |x: &&RankRow| dur(x.exposed_ns)),
        Column::right("overlapped", |x: &&RankRow| dur(x.overlap_ns)),
        Column::right("wait", |x: &&RankRow| or_unknown(x.wait_ns, dur)),
        Column::right("transfer", |x: &&RankRow| or_unknown(x.transfer_ns, dur)),
        Column::right("last at", |x: &&RankRow| x.last_in.to_string()),
        Column::right("cost others", |x: &&RankRow| dur(x.caused_wait_ns)),
        Column::right("clock offset", |x: &&RankRow| {
            or_unknown(x.clock_offset_ns, dur)
        }),
        Column::right("clock error", |x: &&RankRow| {
            or_unknown(x.clock_error_ns, dur)
        }),
        Column::left("input", |x: &&RankRow| ellipsize(&x.input, 48)),
    ]
}

fn shown<T>(v: &[T], top: usize) -> (&[T], usize) {
    let n = if top == 0 { v.len() } else { top.min(v.len()) };
    (&v[..n], v.len() - n)
}

fn links_line(r: &CommReport) -> String {
    let links: Vec<String> = r
        .links
        .iter()
        .map(|l| format!("{} {}/direction", l.interface, si(l.bytes_per_s, "B/s")))
        .collect();
    format!(
        "links: {}{}; GPUs per node: {} ({})",
        r.gpu.as_deref().map_or(String::new(), |g| format!("{g}: ")),
        if links.is_empty() {
            "unknown (give --gpu)".to_string()
        } else {
            links.join(", ")
        },
        or_unknown(r.gpus_per_node, |g| g.to_string()),
        r.gpus_per_node_from
    )
}

fn table(r: &CommReport, o: &RenderOptions) -> String {
    let mut out = format!("{}\n{}\n\n", verdict(r), links_line(r));
    let ranks: Vec<&RankRow> = r.ranks.iter().collect();
    let (ranks, more_r) = shown(&ranks, o.top);
    out.push_str("ranks, most wait first:\n");
    out.push_str(&Table::of_columns(&rank_columns(), ranks.iter().copied()).to_text());
    if more_r > 0 {
        out.push_str(&format!("({more_r} more ranks; --top 0 shows all)\n"));
    }
    let rows: Vec<&CollectiveRow> = r.collectives.iter().collect();
    let (rows, more) = shown(&rows, o.top);
    if !rows.is_empty() {
        out.push_str("\ncollectives:\n");
        out.push_str(
            &Table::of_columns(&collective_columns(r, 48), rows.iter().copied()).to_text(),
        );
        if more > 0 {
            out.push_str(&format!(
                "({more} more collectives; --top 0 shows all, CSV and JSON have every one)\n"
            ));
        }
    }
    for d in &r.diagnostics {
        out.push_str(&format!("warning: {d}\n"));
    }
    out
}

fn csv(r: &CommReport) -> String {
    let q = |s: &str| {
        if s.contains([',', '"', '\n']) {
            format!("\"{}\"", s.replace('"', "\"\""))
        } else {
            s.to_string()
        }
    };
    let num = |v: Option<f64>| v.map_or(String::new(), |x| format!("{x:.6e}"));
    let int = |v: Option<i64>| v.map_or(String::new(), |x| x.to_string());
    let columns: Vec<Column<&CollectiveRow>> = vec![
        Column::left("index", |x: &&CollectiveRow| x.index.to_string()),
        Column::left("rank", move |x: &&CollectiveRow| int(x.rank.map(i64::from))),
        Column::left("kind", |x: &&CollectiveRow| x.kind.key().to_string()),
        Column::left("kernel", move |x: &&CollectiveRow| {
            q(r.names.get(x.kernel_id).map_or("", String::as_str))
        }),
        Column::left("process_group", move |x: &&CollectiveRow| {
            q(x.process_group.as_deref().unwrap_or(""))
        }),
        Column::left("seq", move |x: &&CollectiveRow| {
            int(x.seq.map(|s| s as i64))
        }),
        Column::left("dtype", |x: &&CollectiveRow| {
            x.dtype.unwrap_or("").to_string()
        }),
        Column::left("group_size", move |x: &&CollectiveRow| {
            int(x.group_size.map(i64::from))
        }),
        Column::left("start_ns", |x: &&CollectiveRow| x.start_ns.to_string()),
        Column::left("duration_ns", |x: &&CollectiveRow| {
            x.duration_ns.to_string()
        }),
        Column::left("bytes", move |x: &&CollectiveRow| {
            int(x.bytes.map(|b| b as i64))
        }),
        Column::left("algbw_bytes_per_s", move |x: &&CollectiveRow| {
            num(x.algbw_bytes_per_s)
        }),
        Column::left(
            "busbw_factor",
            move |x: &&CollectiveRow| num(x.busbw_factor),
        ),
        Column::left("busbw_bytes_per_s", move |x: &&CollectiveRow| {
            num(x.busbw_bytes_per_s)
        }),
        Column::left("link", |x: &&CollectiveRow| {
            x.link.map_or("", |l| l.key()).to_string()
        }),
        Column::left("link_fraction", move |x: &&CollectiveRow| {
            num(x.link_fraction)
        }),
        Column::left("nvls", |x: &&CollectiveRow| x.nvls.to_string()),
        Column::left("last_rank", move |x: &&CollectiveRow| {
            int(x.last_rank.map(i64::from))
        }),
        Column::left("last_input", move |x: &&CollectiveRow| {
            q(x.last_input.as_deref().unwrap_or(""))
        }),
        Column::left("wait_ns", move |x: &&CollectiveRow| int(x.wait_ns)),
        Column::left("transfer_ns", move |x: &&CollectiveRow| int(x.transfer_ns)),
        Column::left("waits_lower_bound", |x: &&CollectiveRow| {
            x.waits_lower_bound.to_string()
        }),
        Column::left("arrival", |x: &&CollectiveRow| {
            x.arrival.map_or(String::new(), |a| a.key().to_string())
        }),
        Column::left("noise_floor_ns", move |x: &&CollectiveRow| {
            int(x.noise_floor_ns)
        }),
    ];
    let headers: Vec<&str> = columns.iter().map(|c| c.header.as_str()).collect();
    let mut out = headers.join(",");
    out.push('\n');
    for row in &r.collectives {
        out.push_str(&cells(&columns, &row).join(","));
        out.push('\n');
    }
    out
}

fn markdown(r: &CommReport, o: &RenderOptions) -> String {
    let mut out = format!(
        "**{}**\n\n{}\n\n",
        super::table::md_text(&verdict(r)),
        super::table::md_text(&links_line(r))
    );
    for (alt, link) in &o.images {
        out.push_str(&format!("![{alt}]({link})\n\n"));
    }
    let top = if o.top == 0 { 50 } else { o.top.min(50) };
    let ranks: Vec<&RankRow> = r.ranks.iter().collect();
    let (ranks, more_r) = shown(&ranks, top);
    let mut sections = vec![format!(
        "### Ranks, most wait first\n\n{}{}",
        Table::of_columns(&rank_columns(), ranks.iter().copied()).to_markdown(),
        if more_r > 0 {
            format!("\n_{more_r} more ranks in the JSON report._\n")
        } else {
            String::new()
        }
    )];
    let rows: Vec<&CollectiveRow> = r.collectives.iter().collect();
    let (rows, more) = shown(&rows, top);
    if !rows.is_empty() {
        sections.push(format!(
            "### Collectives\n\n{}{}",
            Table::of_columns(&collective_columns(r, 40), rows.iter().copied()).to_markdown(),
            if more > 0 {
                format!("\n_{more} more collectives in the CSV and JSON reports._\n")
            } else {
                String::new()
            }
        ));
    }
    sections.push(super::md_bullets("Method", &r.method));
    if !r.diagnostics.is_empty() {
        sections.push(super::md_bullets("Diagnostics", &r.diagnostics));
    }
    super::push_fitting(&mut out, sections);
    out
}
