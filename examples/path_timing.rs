//! The time of `path::analyze` beside `gaps::analyze` on one PyTorch
//! trace (docs/path.md, "Performance"): the trace is read once, then each
//! analysis runs `RUNS` times and the median is printed, with the median
//! step's parts and changes so the figures can be read beside the time.
//!
//! `cargo run --release --example path_timing -- TRACE.json[.gz] [RUNS=5]`

use rooftrace::budget::{self, BudgetConfig};
use rooftrace::gaps::{self, GapConfig};
use rooftrace::kineto::{read_timeline_keeping, Keep};
use rooftrace::path::{self, KernelRoofs, PathConfig};
use rooftrace::roofs::{choose, DeviceHints, RoofsChoice, RoofsError};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// The median of `runs` timings of `f`.
fn median(runs: usize, mut f: impl FnMut()) -> Duration {
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .collect();
    times.sort();
    times[times.len() / 2]
}

fn main() {
    let mut args = std::env::args().skip(1);
    let path = PathBuf::from(args.next().expect("TRACE.json[.gz]"));
    let runs: usize = args.next().map_or(5, |r| r.parse().expect("RUNS"));
    let tl = read_timeline_keeping(&path, Keep::NoCollectives)
        .expect("a PyTorch trace")
        .timeline;
    let config = GapConfig {
        nvtx: Some(regex::Regex::new(r"^ProfilerStep#\d+$").unwrap()),
        ..GapConfig::default()
    };
    let g = gaps::analyze(&tl, &config);
    let (roofs, gpu) = choose::<RoofsError>(
        &RoofsChoice::Gpu("v100".into()),
        &DeviceHints::default(),
        || unreachable!(),
    )
    .unwrap();
    let b = budget::analyze(&tl, &g, None, &roofs, gpu, &BudgetConfig::default());
    let kernels = KernelRoofs::from_steps(&tl, None, None, &b);
    let cfg = PathConfig {
        input: vec![path.display().to_string()],
        top_kernels: 5,
    };
    let gaps_time = median(runs, || {
        std::hint::black_box(gaps::analyze(&tl, &config));
    });
    let path_time = median(runs, || {
        std::hint::black_box(path::analyze(&tl, &b, &kernels, &cfg));
    });
    let report = path::analyze(&tl, &b, &kernels, &cfg);
    println!(
        "{}: {} ops, {} calls, {} steps",
        path.display(),
        tl.ops.len(),
        tl.api.len(),
        report.steps.len()
    );
    println!(
        "gaps::analyze {:.1} ms, path::analyze {:.1} ms ({:.2}x), median of {runs}",
        gaps_time.as_secs_f64() * 1e3,
        path_time.as_secs_f64() * 1e3,
        path_time.as_secs_f64() / gaps_time.as_secs_f64()
    );
    if let Some(s) = report.median_step.and_then(|m| report.steps.get(m)) {
        println!("median step {} {} ns:", s.name, s.step_ns);
        for p in &s.parts {
            println!("  {:<20} {:>12} ns", p.name.key(), p.ns);
        }
        for w in &s.what_if {
            println!(
                "  {:<40} saved {:>10} ns of {:>12} shortfall, moved {}",
                w.change, w.saved_ns, w.shortfall_ns, w.moved
            );
        }
    }
    println!("best: {:?}", report.best);
    for d in &report.diagnostics {
        println!("note: {d}");
    }
}
