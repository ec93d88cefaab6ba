//! `rooftrace diff` of two large ncu CSVs against one `rooftrace ncu` on
//! one of them (not a timed test; target and figures in docs/bench-diff.md).
//!
//! The input is the 100,000-launch, ~0.65 GB details-page CSV of
//! `benches/ncu_parse.rs` (its generator, reused), and a copy of it as the
//! new side. Both commands run in-process through their `commands` entry
//! points with table output (what a terminal user gets), alternated, best
//! of 3 each.
//!
//! Run: `cargo bench --bench diff` (add `-- --launches N` to resize).

#[allow(dead_code)]
#[path = "ncu_parse.rs"]
mod ncu_gen;

use rooftrace::commands::diff::{build, DiffConfig, DiffRoofs};
use rooftrace::commands::ncu::{report_bytes, NcuConfig};
use rooftrace::diff::Thresholds;
use rooftrace::report::{Format, Render, RenderOptions};
use rooftrace::roofline::GroupBy;
use rooftrace::roofs::RoofsChoice;
use std::path::PathBuf;
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let launches: usize = args
        .iter()
        .position(|a| a == "--launches")
        .and_then(|i| args.get(i + 1))
        .map_or(Ok(100_000), |s| s.parse())?;
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let base = root.join(format!("bench-data/ncu_details20_{launches}.csv"));
    if !base.exists() {
        ncu_gen::generate(&base, launches, ncu_gen::Page::Details20)?;
    }
    let new = root.join(format!("bench-data/ncu_details20_{launches}_new.csv"));
    if !new.exists() {
        std::fs::copy(&base, &new)?;
    }
    let mb = std::fs::metadata(&base)?.len() as f64 / 1e6;
    let ncu = NcuConfig {
        input: base.clone(),
        roofs: RoofsChoice::Gpu("rtx5090".into()),
        group_by: GroupBy::Launch,
        roof_clock: rooftrace::roofline::RoofClock::Run,
        format: Format::Table,
        top: 20,
        output: None,
        plot: None,
        useful: Vec::new(),
        project_to: Vec::new(),
        projection_model: rooftrace::projection::Model::BoundScales,
    };
    let diff = DiffConfig {
        base: base.clone(),
        new: new.clone(),
        roofs: DiffRoofs::Shared(RoofsChoice::Gpu("rtx5090".into())),
        roofs_given: true,
        nvtx: None,
        nsys: None,
        thresholds: Thresholds::default(),
        rules: Vec::new(),
        gate: true,
        allow_unmatched: false,
        allow_different_gpus: false,
        plot: None,
        format: Format::Table,
        top: 20,
        output: None,
    };
    let (mut t_ncu, mut t_diff) = (f64::INFINITY, f64::INFINITY);
    let mut rows = 0;
    for _ in 0..3 {
        let t = Instant::now();
        std::hint::black_box(report_bytes(&ncu)?);
        t_ncu = t_ncu.min(t.elapsed().as_secs_f64());
        let t = Instant::now();
        let report = build(&diff)?;
        let opts = RenderOptions {
            top: 20,
            images: Vec::new(),
        };
        std::hint::black_box(report.render(Format::Table, &opts));
        t_diff = t_diff.min(t.elapsed().as_secs_f64());
        rows = report.ncu.as_ref().map_or(0, |n| n.kernels.len());
    }
    println!(
        "files: {} and a copy ({mb:.0} MB each, {launches} launches, {rows} matched rows)",
        base.display()
    );
    println!("rooftrace ncu (one file):   {t_ncu:.3} s (best of 3)");
    println!("rooftrace diff (two files): {t_diff:.3} s (best of 3)");
    println!("ratio diff/ncu: {:.2}x (target <= 2.2x)", t_diff / t_ncu);
    Ok(())
}
