//! Writes a large Kineto trace by repeating a real one's events with shifted
//! times and ids (`rooftrace::synth::kineto`):
//! `cargo run --release --example gen_kineto -- IN.json[.gz] OUT.json REPS`.
//!
//! `REPS` may have a fraction (`2.36`): after the whole copies, one more
//! copy of the events that start in the first fraction of the trace's time
//! span (by `ts`, so a kernel comes with the launches around it; metadata
//! events are written once), shifted like a whole copy. That sizes a bench
//! trace near a target (`docs/bench-kineto.md`: about 100 MB from the V100
//! trace's 53.7 MB).

use rooftrace::synth::kineto::{repeat_trace, Copies};
use serde_json::Value;
use std::io::{BufWriter, Read, Write};
use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(input), Some(out)) = (args.first(), args.get(1).map(PathBuf::from)) else {
        eprintln!("usage: gen_kineto IN.json[.gz] OUT.json [REPS=100, a fraction allowed]");
        std::process::exit(2);
    };
    if out.exists() {
        return Err(format!("{} exists; remove it first", out.display()).into());
    }
    let reps: f64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(100.0);
    if !(1.0..1e6).contains(&reps) {
        return Err("REPS must be at least 1".into());
    }
    let whole = reps.floor() as u32;
    let fraction = reps - f64::from(whole);
    let bytes = std::fs::read(input)?;
    let mut text = String::new();
    if bytes.starts_with(&[0x1f, 0x8b]) {
        flate2::read::MultiGzDecoder::new(&bytes[..]).read_to_string(&mut text)?;
    } else {
        text = String::from_utf8(bytes)?;
    }
    let trace: serde_json::Value = serde_json::from_str(&text)?;
    let mut w = BufWriter::new(std::fs::File::create(&out)?);
    let mut n = repeat_trace(&trace, whole, &mut Unclosed(&mut w))?;
    n += partial_copy(&trace, whole, fraction, &mut w)?;
    w.write_all(b"\n]}\n")?;
    w.flush()?;
    eprintln!(
        "wrote {} ({n} events, {reps} copies of {input})",
        out.display()
    );
    Ok(())
}

/// Passes every write but the document's closing `\n]}\n`, which
/// `repeat_trace` writes as one call (an event's own text never holds a
/// raw newline).
struct Unclosed<'a, W: Write>(&'a mut W);

impl<W: Write> Write for Unclosed<'_, W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if buf == b"\n]}\n" {
            return Ok(buf.len());
        }
        self.0.write(buf)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
}

/// Copy number `r` of the events starting in the first `fraction` of the
/// time span, shifted as `repeat_trace` shifts copy `r` (the same period
/// and id stride, computed the same way); the events written.
fn partial_copy(trace: &Value, r: u32, fraction: f64, w: &mut impl Write) -> std::io::Result<u64> {
    if fraction <= 0.0 {
        return Ok(0);
    }
    let events = trace["traceEvents"].as_array().cloned().unwrap_or_default();
    let copies = Copies::of(&events);
    let cut = copies.lo_us + fraction * (copies.hi_us - copies.lo_us);
    let r = i64::from(r);
    let mut n = 0;
    for e in &events {
        let starts = e["ts"].as_f64();
        if e["ph"] == "M" || starts.is_none_or(|ts| ts >= cut) {
            continue;
        }
        let mut e = e.clone();
        copies.shift(&mut e, r);
        w.write_all(b",\n")?;
        serde_json::to_writer(&mut *w, &e)?;
        n += 1;
    }
    Ok(n)
}
