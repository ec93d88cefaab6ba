//! Charts that show the typical case: on every corpus PyTorch trace (its
//! `ProfilerStep#N` steps) and on the H100 export's `FSDP::pre_forward`
//! steps with a stated bound longer than any step, the budget chart's
//! median bar is visible (at least 3 px high: outlier steps cut at the top
//! of an axis scaled to the others), no legend entry says a part is worth
//! 0, and a capped stated bound is said so.

use crate::common::{corpus, corpus_file};
use rooftrace::cli::{Cli, Command};
use rooftrace::plot::{BudgetChart, BudgetInput};

/// The budget chart of `args` (a `rooftrace budget` command line).
fn chart(args: &[&str]) -> Option<BudgetChart> {
    let cli = <Cli as clap::Parser>::try_parse_from(args).unwrap();
    let Command::Budget(a) = cli.command else {
        unreachable!()
    };
    let config = rooftrace::commands::budget::BudgetRunConfig::from_args(a).unwrap();
    let report = rooftrace::commands::budget::budget(&config).ok()?;
    let input = BudgetInput::from_report(&report).ok()?;
    Some(BudgetChart::build(&input).unwrap())
}

fn check(c: &BudgetChart, what: &str) {
    // Bar 0 is the median: its segments stack to its height.
    let first_left = c.segments.first().map(|s| s.rect.left).unwrap();
    let median_px: i32 = c
        .segments
        .iter()
        .filter(|s| s.rect.left == first_left)
        .map(|s| s.rect.bottom - s.rect.top)
        .sum();
    assert!(median_px >= 3, "{what}: median bar {median_px} px high");
    for item in &c.legend.items {
        assert!(
            !item.text.ends_with(": 0"),
            "{what}: legend entry {}",
            item.text
        );
        assert!(!item.text.trim().is_empty(), "{what}: empty legend entry");
        // Each entry names a part some bar draws (a segment 1 px or more).
        assert!(
            c.segments
                .iter()
                .any(|s| item.text.starts_with(&format!("{}:", s.part.label()))
                    && s.rect.bottom - s.rect.top >= 1),
            "{what}: legend entry {} draws nothing",
            item.text
        );
    }
}

#[test]
fn every_corpus_traces_budget_chart_shows_its_median_step() {
    let Some(dir) = corpus("kineto") else {
        return;
    };
    let mut drawn = 0;
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    paths.sort();
    for p in paths
        .iter()
        .filter(|p| p.to_string_lossy().ends_with(".json.gz"))
    {
        let path = p.to_str().unwrap();
        // Traces without ProfilerStep annotations (or GPU work) have no
        // step to draw: the command refuses them (exit 2), nothing to check.
        let Some(c) = chart(&[
            "rooftrace",
            "budget",
            path,
            "--gpu",
            "a100-40gb",
            "--bytes-per-step",
            "1GB",
        ]) else {
            continue;
        };
        check(&c, path);
        drawn += 1;
    }
    assert!(drawn >= 2, "{drawn} traces drawn");
}

#[test]
fn a_stated_bound_longer_than_every_step_is_said_and_outliers_are_cut() {
    let Some(export) = corpus_file("nsys/nsys2026.2.1_nsysai_h100_2gpu_1s.sqlite") else {
        return;
    };
    let c = chart(&[
        "rooftrace",
        "budget",
        export.to_str().unwrap(),
        "--nvtx",
        "FSDP::pre_forward",
        "--bytes-per-step",
        "14.14GB",
        "--gpu",
        "h100-sxm",
        "--device",
        "0",
    ])
    .expect("the FSDP steps budget");
    check(&c, "FSDP::pre_forward");
    // 14.14 GB / 3.08 TB/s = 4.58 ms, longer than the 338 µs median step.
    assert!(
        c.subtitle.contains("bound 4.58 ms > step"),
        "{}",
        c.subtitle
    );
    assert!(
        c.subtitle.contains("cannot be this range's traffic"),
        "{}",
        c.subtitle
    );
    // The axis fits the typical steps, far below the 155 ms outlier.
    assert!(c.y.max < 1e6, "axis to {} ns", c.y.max);
    assert!(c.subtitle.contains("outliers cut"), "{}", c.subtitle);
}

/// The gap histogram of every corpus export and trace: the bin holding the
/// median gap is drawn (a segment at least 1 px high) and every legend
/// entry names a class with gaps in it.
#[test]
fn every_corpus_gap_histogram_draws_its_median_gap_and_no_empty_legend_entry() {
    use rooftrace::plot::{GapHistogram, HistogramInput};
    let mut inputs = Vec::new();
    for sub in ["nsys", "kineto"] {
        if let Some(dir) = corpus(sub) {
            inputs.extend(
                std::fs::read_dir(dir)
                    .unwrap()
                    .map(|e| e.unwrap().path())
                    .filter(|p| {
                        let n = p.to_string_lossy();
                        n.ends_with(".sqlite") || n.ends_with(".json.gz")
                    }),
            );
        }
    }
    inputs.sort();
    for p in &inputs {
        let Ok(tl) = rooftrace::input::identify(p).and_then(|kind| {
            rooftrace::input::read_timeline(
                p,
                &kind,
                &rooftrace::input::ReadOptions {
                    nvtx: false,
                    keep: rooftrace::kineto::Keep::All,
                    progress: &|_, _| {},
                    near: None,
                },
            )
        }) else {
            continue; // a counters-only trace: no timeline
        };
        let cfg = rooftrace::gaps::GapConfig {
            keep_gaps: true,
            ..Default::default()
        };
        let report = rooftrace::gaps::analyze(&tl, &cfg);
        let input = HistogramInput::from_gaps(&report, "t").unwrap();
        if input.gaps.is_empty() {
            continue;
        }
        let h = GapHistogram::build(&input).unwrap();
        let median = report.distribution.duration.p50_ns.max(1) as f64;
        let bin = h
            .bins
            .iter()
            .position(|b| b.lo_ns <= median && median < b.hi_ns)
            .or_else(|| (median >= h.bins.last().unwrap().lo_ns).then(|| h.bins.len() - 1))
            .unwrap_or(0);
        let (lo, hi) = (h.bins[bin].lo_ns, h.bins[bin].hi_ns);
        let px: i32 = h
            .segments
            .iter()
            .filter(|s| {
                let mid = (s.rect.left + s.rect.right) as f64 / 2.0;
                let at = |v: f64| {
                    h.plot.left as f64 + h.x.fraction(v.max(h.x.min())) * h.plot.width() as f64
                };
                mid >= at(lo) && mid <= at(hi)
            })
            .map(|s| s.rect.bottom - s.rect.top)
            .sum();
        assert!(
            px >= 1,
            "{}: the median gap's bin is not drawn",
            p.display()
        );
        for item in &h.legend.items {
            assert!(!item.text.trim().is_empty(), "{}", p.display());
            // "host-bound: 12, 3.40 ms": a class with no gap is not listed.
            assert!(
                !item.text.contains(": 0,"),
                "{}: {}",
                p.display(),
                item.text
            );
        }
    }
}
