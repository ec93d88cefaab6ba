//! `rooftrace gaps` end to end on a synthetic export (5 M kernels by default)
//! against the sqlite3 CLI dumping the columns `gaps` reads from the kernel,
//! runtime and NVTX tables (issue 42's reference; the kernel table sorted
//! was the reference before), side by side on the same file, alternated. Targets (docs/bench-gaps.md): at most 0.5× the
//! sqlite3 time (wall), peak RSS ≤ 100 bytes per kernel. Several builds side
//! by side: `scripts/bench_gaps_pairs.sh`.
//!
//! `cargo bench --bench gaps` (env ROOFTRACE_BENCH_KERNELS to change the size,
//! ROOFTRACE_BENCH_FILE to reuse a file, ROOFTRACE_BENCH_FROM=REAL.sqlite to
//! grow the file from a real export with `synth::grow` instead: its rows,
//! NVTX ranges and GPUs repeated). Needs `sqlite3` and `/usr/bin/time`.

use rooftrace::synth::grow::grow;
use rooftrace::synth::nsys::{write_synthetic, SynthSpec};
use std::path::PathBuf;
use std::process::Command;
use std::time::Instant;

/// The columns the reader selects from the three big tables (`nsys::chunks`
/// `OpCol` and `ApiCol`, `nsys::nvtx` `NvtxCol`), dumped as text.
const SQL: &str = "select start,end,deviceId,streamId,globalPid,correlationId,shortName from CUPTI_ACTIVITY_KIND_KERNEL; \
    select start,end,globalTid,correlationId,nameId from CUPTI_ACTIVITY_KIND_RUNTIME; \
    select start,end,globalTid,text,textId,domainId,eventType from NVTX_EVENTS;";

/// Runs `cmd` under `/usr/bin/time -v`, stdout to /dev/null; returns (wall
/// s, user+system CPU s, max RSS bytes).
fn measure(cmd: &[&str]) -> (f64, f64, u64) {
    let t = Instant::now();
    let out = Command::new("/usr/bin/time")
        .arg("-v")
        .args(cmd)
        .stdout(std::process::Stdio::null())
        .output()
        .expect("run /usr/bin/time");
    let wall = t.elapsed().as_secs_f64();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{cmd:?} failed: {err}");
    let field = |name: &str| -> f64 {
        err.lines()
            .find_map(|l| l.trim().strip_prefix(name))
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(0.0)
    };
    let cpu = field("User time (seconds): ") + field("System time (seconds): ");
    let rss_kb: u64 = err
        .lines()
        .find_map(|l| {
            l.trim()
                .strip_prefix("Maximum resident set size (kbytes): ")
        })
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0);
    (wall, cpu, rss_kb * 1024)
}

fn main() {
    let kernels: u64 = std::env::var("ROOFTRACE_BENCH_KERNELS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5_000_000);
    let from = std::env::var_os("ROOFTRACE_BENCH_FROM").map(PathBuf::from);
    let file = std::env::var_os("ROOFTRACE_BENCH_FILE")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            let kind = if from.is_some() { "grown" } else { "bench" };
            std::env::temp_dir().join(format!("rooftrace-{kind}-{kernels}.sqlite"))
        });
    if !file.exists() {
        let t = Instant::now();
        let tmp = file.with_extension("partial");
        let _ = std::fs::remove_file(&tmp);
        let spec = SynthSpec {
            kernels,
            devices: 2,
            streams: 4,
            seed: 1,
        };
        match &from {
            Some(src) => {
                grow(src, &tmp, kernels).expect("grow");
            }
            None => write_synthetic(&tmp, &spec).expect("generate"),
        }
        std::fs::rename(&tmp, &file).expect("rename");
        eprintln!(
            "generated {} in {:.1} s",
            file.display(),
            t.elapsed().as_secs_f64()
        );
    }
    let f = file.to_str().expect("utf-8 path");
    let exe = env!("CARGO_BIN_EXE_rooftrace");
    // Warm the page cache so both sides read from memory.
    let _ = std::fs::read(&file);
    // Alternating runs: this VM's wall times vary by ±15 % from run to run
    // (more while others build), so each round's ratio is taken against the
    // sqlite3 run of the same round, and the medians are printed.
    let runs: usize = std::env::var("ROOFTRACE_BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5)
        .max(1);
    let (mut sql, mut rt) = (Vec::new(), Vec::new());
    let mut rss = 0u64;
    for _ in 0..runs {
        sql.push(measure(&["sqlite3", f, SQL]));
        let r = measure(&[exe, "gaps", f, "--format", "json"]);
        rss = rss.max(r.2);
        rt.push(r);
    }
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        let n = v.len();
        (v[(n - 1) / 2] + v[n / 2]) / 2.0
    };
    let col = |v: &[(f64, f64, u64)], cpu: bool| -> Vec<f64> {
        v.iter().map(|x| if cpu { x.1 } else { x.0 }).collect()
    };
    let ratio = |cpu: bool| {
        median(
            col(&rt, cpu)
                .iter()
                .zip(col(&sql, cpu))
                .map(|(r, s)| r / s)
                .collect(),
        )
    };
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!("file: {f} ({kernels} kernels), {threads} hardware threads, load average {load}");
    println!(
        "sqlite3 CLI dump of the columns: {:.2} s wall, {:.2} s CPU (median of {runs})",
        median(col(&sql, false)),
        median(col(&sql, true))
    );
    println!(
        "rooftrace gaps --format json:   {:.2} s wall, {:.2} s CPU (median of {runs})",
        median(col(&rt, false)),
        median(col(&rt, true))
    );
    println!(
        "rooftrace / sqlite3 (median of the rounds' ratios): {:.3} wall (target <= 0.5), {:.3} CPU",
        ratio(false),
        ratio(true)
    );
    println!(
        "rooftrace peak RSS: {:.0} MiB = {:.1} bytes/kernel (target <= 100)",
        rss as f64 / 1048576.0,
        rss as f64 / kernels as f64
    );
}
