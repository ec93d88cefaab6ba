//! Writes a large Kineto trace by repeating a real one's events with shifted
//! times and ids (`rooftrace::synth::kineto`):
//! `cargo run --release --example gen_kineto -- IN.json[.gz] OUT.json REPS`.

use rooftrace::synth::kineto::repeat_trace;
use std::io::{BufWriter, Read};
use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(input), Some(out)) = (args.first(), args.get(1).map(PathBuf::from)) else {
        eprintln!("usage: gen_kineto IN.json[.gz] OUT.json [REPS=100]");
        std::process::exit(2);
    };
    if out.exists() {
        return Err(format!("{} exists; remove it first", out.display()).into());
    }
    let reps = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(100);
    let bytes = std::fs::read(input)?;
    let mut text = String::new();
    if bytes.starts_with(&[0x1f, 0x8b]) {
        flate2::read::MultiGzDecoder::new(&bytes[..]).read_to_string(&mut text)?;
    } else {
        text = String::from_utf8(bytes)?;
    }
    let trace: serde_json::Value = serde_json::from_str(&text)?;
    let mut w = BufWriter::new(std::fs::File::create(&out)?);
    let n = repeat_trace(&trace, reps, &mut w)?;
    eprintln!(
        "wrote {} ({n} events, {reps} copies of {input})",
        out.display()
    );
    Ok(())
}
