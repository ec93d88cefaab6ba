//! Parses one ncu CSV once with the library entry point and prints a
//! checksum of what it read, so `/usr/bin/time` measures exactly one parse
//! (CPU time, peak RSS) and two builds can be checked to read the same
//! figures: `cargo run --release --example ncu_parse_once -- FILE`.
//! Used by `scripts/ncu_bench_side_by_side.sh` (docs/bench-ncu.md); it
//! compiles unchanged at older commits (3a99ffe), so the same program
//! measures each of them.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: ncu_parse_once FILE");
        std::process::exit(2);
    };
    let csv = rooftrace::ncu::parse(std::fs::File::open(&path)?, &path)?;
    let sum = |f: fn(&rooftrace::ncu::LaunchMetrics) -> Option<f64>| -> f64 {
        csv.launches.iter().filter_map(f).sum()
    };
    println!(
        "{} launches, dram bytes {:.6e}, duration ns {:.6e}",
        csv.launches.len(),
        sum(|l| l.dram_bytes),
        sum(|l| l.duration_ns)
    );
    Ok(())
}
