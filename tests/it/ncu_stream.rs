//! `rooftrace ncu` at scale (issue 32): the analysis that takes the parsed
//! CSV and drops each launch as its row is made gives the report the
//! borrowing analysis gives; rows are ordered as the comparator says; the
//! streamed JSON and CSV stop with the writer's own error (a closed pipe
//! stays a broken pipe, so `| head` still exits 0).

use crate::common::{corpus, fixture};
use rooftrace::ncu::{self, NcuCsv};
use rooftrace::report::{Format, Render, RenderOptions};
use rooftrace::roofline::{analyze_at, analyze_owned_at, GroupBy, RoofClock};
use rooftrace::roofs::{gpus, GpuInfo, Roofs};
use std::path::Path;

fn gpu(key: &str) -> (Roofs, GpuInfo) {
    let g = gpus::by_key(key).unwrap();
    (
        g.default_roofs(),
        GpuInfo {
            key: Some(key.into()),
            name: g.name.into(),
            chosen_by: rooftrace::roofs::GpuChoice::CommandLine,
            notes: Vec::new(),
        },
    )
}

fn parse(path: &Path) -> Option<NcuCsv> {
    let f = std::fs::File::open(path).ok()?;
    ncu::parse(f, &path.display().to_string()).ok()
}

/// Every fixture and corpus CSV that parses: the consuming analysis equals
/// the borrowing one, per launch and per kernel, at both roof clocks.
#[test]
fn consuming_the_launches_changes_no_report() {
    let mut files: Vec<std::path::PathBuf> = std::fs::read_dir(fixture("ncu"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    if let Some(dir) = corpus("ncu") {
        files.extend(std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()));
    }
    files.sort();
    let (roofs, info) = gpu("h100-sxm");
    let mut compared = 0;
    for f in files
        .iter()
        .filter(|f| !f.to_string_lossy().ends_with(".src.txt"))
    {
        let Some(csv) = parse(f) else { continue };
        if csv.launches.is_empty() {
            continue;
        }
        for group_by in [GroupBy::Launch, GroupBy::Kernel] {
            for clock in [RoofClock::Run, RoofClock::Boost] {
                let borrowed = analyze_at(&csv, &roofs, info.clone(), group_by, clock);
                let owned = analyze_owned_at(csv.clone(), &roofs, info.clone(), group_by, clock);
                assert_eq!(owned, borrowed, "{} {group_by:?} {clock:?}", f.display());
                compared += 1;
            }
        }
    }
    assert!(compared >= 40, "only {compared} reports compared");
}

/// 5,000 launches of 7 names with durations and bytes that repeat, so many
/// rows tie on time lost and duration: the order is the comparator's
/// (time lost descending, duration descending, name, process, ID), checked
/// against a plain stable sort of the same rows.
#[test]
fn rows_are_in_the_comparators_order() {
    let mut text = String::from("\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"dram__bytes.sum\",\"gpu__time_duration.sum\"\n");
    for id in 0..5000u64 {
        // A small LCG so the ties fall in no particular input order.
        let x = (id * 2_654_435_761) % 1_000_003;
        text.push_str(&format!(
            "\"{id}\",\"{}\",\"p\",\"h\",\"k{}\",\"{}\",\"{}\"\n",
            1 + x % 2,
            x % 7,
            1_000_000 * (1 + x % 3),
            1000 * (1 + x % 5)
        ));
    }
    let csv = ncu::parse(text.as_bytes(), "ties.csv").unwrap();
    let (roofs, info) = gpu("h100-sxm");
    let r = analyze_owned_at(csv, &roofs, info, GroupBy::Launch, RoofClock::Run);
    let mut expect = r.kernels.clone();
    expect.sort_by(|a, b| {
        b.time_lost_ns
            .total_cmp(&a.time_lost_ns)
            .then(b.duration_ns.total_cmp(&a.duration_ns))
            .then_with(|| a.name.cmp(&b.name))
            .then(a.process_id.cmp(&b.process_id))
            .then(a.id.cmp(&b.id))
    });
    assert_eq!(r.kernels.len(), 5000);
    let ids = |v: &[rooftrace::roofline::KernelRoofline]| -> Vec<(u64, Option<u64>)> {
        v.iter().map(|k| (k.id, k.process_id)).collect()
    };
    assert_eq!(ids(&r.kernels), ids(&expect));
}

/// A writer that takes `room` bytes, then fails as a closed pipe does.
struct ClosedAfter {
    room: usize,
}

impl std::io::Write for ClosedAfter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.room == 0 {
            return Err(std::io::ErrorKind::BrokenPipe.into());
        }
        let n = buf.len().min(self.room);
        self.room -= n;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn a_closed_pipe_stops_the_stream_as_a_broken_pipe() {
    let csv = parse(&fixture("ncu/bf16_gemm_ncu2025.1_import_details20.csv")).unwrap();
    let (roofs, info) = gpu("h100-sxm");
    let r = analyze_at(&csv, &roofs, info, GroupBy::Launch, RoofClock::Run);
    let opts = RenderOptions::default();
    for format in [Format::Json, Format::Csv] {
        let whole = r.render(format, &opts);
        assert!(whole.len() > 100, "{format:?}");
        let e = r
            .render_to(format, &opts, &mut ClosedAfter { room: 100 })
            .unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "{format:?}: {e}");
        // With room for all of it, the stream is the rendered bytes.
        let mut out = Vec::new();
        r.render_to(format, &opts, &mut out).unwrap();
        assert_eq!(out, whole);
    }
}
