//! Where the time of `rooftrace gaps TRACE --format json` goes, phase by
//! phase (docs/bench-kineto.md): each phase is the pipeline up to it, run
//! `RUNS` times (median), so a phase's own cost is the difference to the
//! one before:
//!
//! 1. `text`: inflate (gzip), decode, bounds scan, on one thread;
//! 2. `walk`: 1 on its own thread + the document walked and every event
//!    parsed (tokenise), into a sink that keeps nothing;
//! 3. `read`: + events built (collect), sorted and joined (`read_timeline`);
//! 4. `sweep`: + `gaps::analyze`;
//! 5. `render`: + the JSON report.
//!
//! `cargo run --release --example kineto_phases -- TRACE.json[.gz] [RUNS=5]`

use rooftrace::gaps::{analyze, GapConfig};
use rooftrace::kineto::event::Event;
use rooftrace::kineto::input::{pieces, Source};
use rooftrace::kineto::lex::Raw;
use rooftrace::kineto::stream::{walk, MetaKey, Sink};
use rooftrace::report::{Format, Render, RenderOptions};
use std::path::Path;
use std::time::Instant;

/// One phase: the pipeline up to it, on a trace; returns a count so the
/// work is not optimised away.
type Phase = fn(&Path) -> u64;

struct Nothing(u64);

impl Sink for Nothing {
    fn events_start(&mut self) {}
    fn event(&mut self, ev: Option<Event<'_>>) {
        self.0 += u64::from(ev.is_some());
    }
    fn meta(&mut self, _: MetaKey, _: Raw<'_>) {}
}

fn text(path: &Path) -> u64 {
    let mut source = Source::open(path).unwrap();
    let mut piece = Vec::new();
    let mut n = 0;
    while source.next_piece(&mut piece).unwrap() {
        n += piece.len() as u64;
    }
    n
}

fn walked(path: &Path) -> u64 {
    let mut sink = Nothing(0);
    walk(pieces(Source::open(path).unwrap()), &mut sink).unwrap();
    sink.0
}

fn read(path: &Path) -> usize {
    rooftrace::kineto::read_timeline(path)
        .unwrap()
        .timeline
        .ops
        .len()
}

fn sweep(path: &Path) -> usize {
    let t = rooftrace::kineto::read_timeline(path).unwrap();
    analyze(&t.timeline, &GapConfig::default()).devices.len()
}

fn render(path: &Path) -> usize {
    let t = rooftrace::kineto::read_timeline(path).unwrap();
    let report = analyze(&t.timeline, &GapConfig::default());
    let opts = RenderOptions {
        top: 10,
        images: Vec::new(),
    };
    report.render(Format::Json, &opts).len()
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let path = Path::new(args.first().expect("usage: kineto_phases TRACE [RUNS]"));
    let runs: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(5);
    let phases: [(&str, Phase); 5] = [
        ("text", text),
        ("walk", walked),
        ("read", |p| read(p) as u64),
        ("sweep", |p| sweep(p) as u64),
        ("render", |p| render(p) as u64),
    ];
    let mut line = Vec::new();
    for (name, f) in phases {
        let mut times: Vec<f64> = (0..runs)
            .map(|_| {
                let t = Instant::now();
                std::hint::black_box(f(path));
                t.elapsed().as_secs_f64()
            })
            .collect();
        times.sort_by(f64::total_cmp);
        line.push(format!("{name} {:.3} s", times[runs / 2]));
    }
    println!("{}: {}", path.display(), line.join(", "));
}
