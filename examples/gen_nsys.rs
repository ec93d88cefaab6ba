//! Writes a synthetic Nsight Systems export in the real schema:
//! `cargo run --release --example gen_nsys -- OUT.sqlite [KERNELS] [DEVICES] [STREAMS]`,
//! or grows a real export to at least KERNELS kernels by repeating its timed
//! rows (runtime calls, NVTX ranges, copies, every GPU; `synth::grow`):
//! `cargo run --release --example gen_nsys -- OUT.sqlite KERNELS --grow-from REAL.sqlite`.

use rooftrace::synth::nsys::{write_synthetic, SynthSpec};
use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let from = args.iter().position(|a| a == "--grow-from").map(|i| {
        let v = args.get(i + 1).cloned().unwrap_or_default();
        args.drain(i..(i + 2).min(args.len()));
        PathBuf::from(v)
    });
    let Some(out) = args.first().map(PathBuf::from) else {
        eprintln!(
            "usage: gen_nsys OUT.sqlite [KERNELS=10000] [DEVICES=2] [STREAMS=4]\n       gen_nsys OUT.sqlite KERNELS --grow-from REAL.sqlite"
        );
        std::process::exit(2);
    };
    if out.exists() {
        return Err(format!("{} exists; remove it first", out.display()).into());
    }
    let num = |i: usize, d: u64| args.get(i).and_then(|s| s.parse().ok()).unwrap_or(d);
    if let Some(src) = from {
        let g = rooftrace::synth::grow::grow(&src, &out, num(1, 10_000))?;
        eprintln!("wrote {} from {} ({g:?})", out.display(), src.display());
        return Ok(());
    }
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
