//! Arguments of `rooftrace gaps`.

use super::{ManyArgs, OutputArgs};
use std::path::PathBuf;

const AFTER_HELP: &str = "\
Producing the input:
  nsys profile --trace=cuda,nvtx -o decode python serve.py
  nsys export --type=sqlite --force-overwrite=true -o decode.sqlite decode.nsys-rep
An .nsys-rep is converted automatically when nsys is on PATH (or given with
--nsys / $ROOFTRACE_NSYS); the export goes to ~/.cache/rooftrace.

Examples:
  rooftrace gaps decode.sqlite
  rooftrace gaps decode.nsys-rep --nvtx 'decode_step' --min-gap 5us --format md
  rooftrace gaps decode.sqlite --plot timeline.png --plot-hist gaps.png --format md -o report.md
  rooftrace gaps decode.sqlite --plot timeline.svg --window 10ms..60ms --device 0
  rooftrace gaps decode.sqlite --trace-out decode.trace.json.gz   # open in ui.perfetto.dev
  rooftrace gaps copies.sqlite --gpu h100-sxm     # host link of an export with no GPU record
  rooftrace gaps traces/rank*.sqlite --nvtx decode_step
  rooftrace gaps traces/ --format parquet -o gaps.parquet/";

/// `rooftrace gaps`: idle-gap analysis of an Nsight Systems timeline.
#[derive(Debug, clap::Args)]
#[command(after_help = AFTER_HELP)]
pub struct GapsArgs {
    /// The reports: `.nsys-rep` or `.sqlite` exports, PyTorch profiler
    /// traces (`.json[.gz]`), directories (searched for all three; a `.json`
    /// or `.gz` by its content) or glob patterns (`'traces/rank*.sqlite'`). Several inputs
    /// give one cross-rank report (docs/scale.md).
    #[arg(required = true, num_args = 1..)]
    pub input: Vec<PathBuf>,
    /// One row per instance of the NVTX ranges whose text matches REGEX.
    #[arg(long, value_name = "REGEX")]
    pub nvtx: Option<String>,
    /// Only this CUDA device id.
    #[arg(long, value_name = "N")]
    pub device: Option<u16>,
    /// Only ops on this CUDA stream id.
    #[arg(long, value_name = "S")]
    pub stream: Option<u32>,
    /// Leave gaps shorter than DUR out of the distribution and the longest-gap
    /// list (they still count as idle): `0us`, `5us`, `1ms`.
    #[arg(long, value_name = "DUR", default_value = "0us", value_parser = parse_duration_ns)]
    pub min_gap: i64,
    /// Queued gaps shorter than DUR are launch latency rather than a dependency.
    #[arg(long, value_name = "DUR", default_value = "5us", value_parser = parse_duration_ns)]
    pub latency: i64,
    /// The GPU the run was on, a key of `rooftrace ncu --list-gpus`
    /// (`h100-sxm`): where the export records none, its host link (PCIe,
    /// NVLink-C2C) is taken from the table entry to judge the copies'
    /// bandwidth. Checked against the export's GPU record when there is one.
    #[arg(long, value_name = "KEY")]
    pub gpu: Option<String>,
    /// The `nsys` executable used to convert an `.nsys-rep`.
    #[arg(long, value_name = "PATH")]
    pub nsys: Option<PathBuf>,
    /// Markdown only: link this image (e.g. a timeline PNG) under the verdict.
    #[arg(long, value_name = "URL")]
    pub image: Option<String>,
    /// Draw a timeline (lanes per device and stream, gaps coloured by class)
    /// to FILE: `.svg` or `.png`. Window: `--window`, else the first 3 NVTX
    /// range instances with `--nvtx`, else the stretch holding the most idle time of the largest idle class.
    #[arg(long, value_name = "FILE")]
    pub plot: Option<PathBuf>,
    /// Draw a histogram of gap durations (log bins, stacked by class) to
    /// FILE: `.svg` or `.png`. Gaps shorter than `--min-gap` are left out.
    #[arg(long, value_name = "FILE")]
    pub plot_hist: Option<PathBuf>,
    /// Timeline window, relative to the first GPU op of the trace:
    /// `START..END`, e.g. `10ms..60ms`.
    #[arg(long, value_name = "START..END", value_parser = parse_window_ns)]
    pub window: Option<(i64, i64)>,
    /// Write the timeline and what rooftrace found in it to FILE
    /// (`.json` or `.json.gz`), a Chrome trace that Perfetto
    /// (ui.perfetto.dev) and `chrome://tracing` open: GPU ops per device
    /// and stream, launch calls with arrows to their ops, and per device a
    /// `rooftrace idle gaps` track (each gap named by its class; duration,
    /// cause, host detail, evidence and fix in its args).
    #[arg(long, value_name = "FILE")]
    pub trace_out: Option<PathBuf>,
    #[command(flatten)]
    pub output: OutputArgs,
    #[command(flatten)]
    pub many: ManyArgs,
    /// Several inputs: sum them as ranks of one job whatever their GPUs,
    /// world sizes and ranks say. Without it, inputs of several jobs get one
    /// section per job, and are refused when one directory holds a rank
    /// twice for one GPU and world size (docs/scale.md).
    #[arg(long)]
    pub one_job: bool,
}

/// Parses `0`, `850ns`, `5us`, `5µs`, `1.5ms`, `2s` into nanoseconds.
pub fn parse_duration_ns(s: &str) -> Result<i64, String> {
    let t = s.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let v: f64 = num
        .parse()
        .map_err(|_| format!("`{s}` is not a duration; write e.g. 0us, 5us, 1ms"))?;
    let scale = match unit.trim() {
        "ns" => 1.0,
        "us" | "µs" | "μs" => 1e3,
        "ms" => 1e6,
        "s" => 1e9,
        "" if v == 0.0 => 1.0,
        "" => return Err(format!("`{s}` needs a unit: ns, us, ms or s (e.g. 5us)")),
        u => return Err(format!("unknown unit `{u}` in `{s}`; use ns, us, ms or s")),
    };
    Ok((v * scale).round() as i64)
}

/// Parses `START..END` (two durations, e.g. `10ms..60ms`) into
/// nanoseconds; END must be after START.
pub fn parse_window_ns(s: &str) -> Result<(i64, i64), String> {
    let (a, b) = s
        .split_once("..")
        .ok_or_else(|| format!("`{s}` is not a window; write START..END, e.g. 10ms..60ms"))?;
    let (a, b) = (parse_duration_ns(a)?, parse_duration_ns(b)?);
    if b <= a {
        return Err(format!(
            "`{s}`: the end must be after the start (e.g. 10ms..60ms)"
        ));
    }
    Ok((a, b))
}

#[cfg(test)]
mod tests {
    use super::parse_duration_ns as p;
    use super::parse_window_ns as w;

    #[test]
    fn windows() {
        assert_eq!(w("10ms..60ms"), Ok((10_000_000, 60_000_000)));
        assert_eq!(w("0..1.5s"), Ok((0, 1_500_000_000)));
        assert!(w("60ms..10ms").is_err());
        assert!(w("10ms").is_err());
        assert!(w("10ms..x").is_err());
    }

    #[test]
    fn durations() {
        assert_eq!(p("0us"), Ok(0));
        assert_eq!(p("0"), Ok(0));
        assert_eq!(p("5us"), Ok(5_000));
        assert_eq!(p("5µs"), Ok(5_000));
        assert_eq!(p("1.5ms"), Ok(1_500_000));
        assert_eq!(p("2s"), Ok(2_000_000_000));
        assert_eq!(p("850ns"), Ok(850));
        assert!(p("5").is_err());
        assert!(p("fast").is_err());
        assert!(p("3 parsecs").is_err());
    }
}
