//! Writes a synthetic data-parallel job, one Kineto trace per rank
//! (`rooftrace::synth::job`): each rank's clock offset differs, the last
//! rank is late by 5 ms at the middle all-reduce:
//! `cargo run --release --example gen_job -- OUT_DIR RANKS COLLECTIVES`.

use rooftrace::synth::job::{rank_trace, JobSpec};
use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(dir) = args.first().map(PathBuf::from) else {
        eprintln!("usage: gen_job OUT_DIR [RANKS=128] [COLLECTIVES=1000]");
        std::process::exit(2);
    };
    let ranks: u32 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(128);
    let collectives: u32 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1000);
    std::fs::create_dir_all(&dir)?;
    let spec = JobSpec {
        ranks,
        collectives,
        nelems: 1 << 24,
        compute_ns: 9_000_000,
        transfer_ns: 1_200_000,
        period_ns: 20_000_000,
        clock_offsets_ns: (0..i64::from(ranks))
            .map(|r| r * 1_234_567 - 40_000_000)
            .collect(),
        late: (ranks - 1, collectives / 2, 5_000_000),
    };
    for r in 0..ranks {
        // One rank at a time: the job's traces never sit in memory together
        // (and each is built once, not the whole job per rank).
        let doc = rank_trace(&spec, r);
        std::fs::write(
            dir.join(format!("rank{r:04}.pt.trace.json")),
            serde_json::to_vec(&doc)?,
        )?;
    }
    eprintln!(
        "wrote {ranks} traces of {collectives} all-reduces to {}",
        dir.display()
    );
    Ok(())
}
