//! Writes a synthetic Nsight Systems export in the real schema:
//! `cargo run --release --example gen_nsys -- OUT.sqlite [KERNELS] [DEVICES] [STREAMS]`.

use rooftrace::synth::nsys::{write_synthetic, SynthSpec};
use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(out) = args.first().map(PathBuf::from) else {
        eprintln!("usage: gen_nsys OUT.sqlite [KERNELS=10000] [DEVICES=2] [STREAMS=4]");
        std::process::exit(2);
    };
    if out.exists() {
        return Err(format!("{} exists; remove it first", out.display()).into());
    }
    let num = |i: usize, d: u64| args.get(i).and_then(|s| s.parse().ok()).unwrap_or(d);
    let spec = SynthSpec {
        kernels: num(1, 10_000),
        devices: num(2, 2) as u32,
        streams: num(3, 4) as u32,
        seed: 1,
    };
    write_synthetic(&out, &spec)?;
    eprintln!("wrote {} ({spec:?})", out.display());
    Ok(())
}
