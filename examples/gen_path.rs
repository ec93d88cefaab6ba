//! Writes the scenes whose critical path is known by construction
//! (`rooftrace::synth::path`, the oracle of `rooftrace path`'s tests) as
//! PyTorch profiler traces: `cargo run --example gen_path -- DIR`, one
//! `DIR/<scene>_rank<N>.pt.trace.json` per rank of each scene.

use rooftrace::synth::path::{scene, SCENES};
use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let Some(dir) = std::env::args().nth(1).map(PathBuf::from) else {
        eprintln!("usage: gen_path DIR");
        std::process::exit(2);
    };
    std::fs::create_dir_all(&dir)?;
    for name in SCENES {
        for (rank, doc) in scene(name).unwrap_or_default().iter().enumerate() {
            let out = dir.join(format!("{name}_rank{rank}.pt.trace.json"));
            if out.exists() {
                return Err(format!("{} exists; remove it first", out.display()).into());
            }
            std::fs::write(&out, serde_json::to_vec_pretty(doc)?)?;
            eprintln!("wrote {}", out.display());
        }
    }
    Ok(())
}
