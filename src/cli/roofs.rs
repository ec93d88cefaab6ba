//! The roofs flags every command that analyses an ncu side shares (`ncu`,
//! `budget`, `diff`): a table GPU (`--gpu`), a roofs file or the file's own
//! peaks (`--roofs`), or a card the table lacks given by its peaks
//! (`--peak-dram-bw`, `--peak`, `--peak-sm-clock`, `--peak-mem-clock`).
//! `commands::roofs::choice` turns them into the plain `RoofsChoice`.

use super::quantity::{self, BYTE_RATE, HERTZ};

/// Where the roofs come from, flattened into each command's `Args`.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct RoofsArgs {
    /// GPU of the built-in table (`rooftrace ncu --list-gpus`: v100, t4,
    /// a100-80gb, a10, h100-sxm, h200, b200, b300, gb200, l4, l40s,
    /// rtx4090, rtx5090, rtx-pro-6000, ...). Without it, and without
    /// --roofs or --peak-dram-bw, the GPU comes from what the input says
    /// about its device.
    #[arg(long, value_name = "KEY", conflicts_with = "roofs")]
    pub gpu: Option<String>,
    /// Roofs JSON file (as `rooftrace calibrate` writes; docs/roofs-format.md),
    /// or `ncu` for the peak metrics in the ncu CSV.
    #[arg(long, value_name = "FILE|ncu")]
    pub roofs: Option<String>,
    #[command(flatten)]
    pub peaks: PeakArgs,
}

/// Roofs of a card the table lacks, given on the command line instead of a
/// roofs file (docs/roofs-format.md, "The same card via flags").
#[derive(Debug, Clone, Default, clap::Args)]
pub struct PeakArgs {
    /// Peak DRAM bandwidth of a GPU the table lacks (`672GB/s`, `3.35TB/s`,
    /// `672e9`): roofs from the command line instead of `--gpu`/`--roofs`.
    #[arg(long, value_name = "RATE", value_parser = parse_byte_rate, conflicts_with_all = ["gpu", "roofs"])]
    pub peak_dram_bw: Option<f64>,
    /// Peak of one compute path, named as the roofs file names it
    /// (`fp32=30.8TFLOP/s`, `tensor_fp16=123.5TFLOP/s`; paths: fp64, fp32,
    /// fp16, tensor_fp64, tensor_tf32, tensor_fp16, tensor_bf16, tensor_fp8,
    /// tensor_int8, tensor_fp4). Dense figures. Repeatable; needs --peak-dram-bw.
    #[arg(long, value_name = "PATH=RATE", requires = "peak_dram_bw")]
    pub peak: Vec<String>,
    /// The SM clock the --peak figures assume (`2.51GHz`, the boost clock
    /// of a datasheet), so that they scale to the clock the profile ran at
    /// as the table's roofs do. Needs --peak-dram-bw.
    #[arg(long, value_name = "HZ", value_parser = parse_hz, requires = "peak_dram_bw")]
    pub peak_sm_clock: Option<f64>,
    /// The memory clock --peak-dram-bw assumes, as ncu reports it
    /// (`dram__cycles_elapsed.avg.per_second`, "DRAM Frequency"), so that
    /// the DRAM roof scales where the profile's memory clock differs by
    /// more than 2 %. Needs --peak-dram-bw.
    #[arg(long, value_name = "HZ", value_parser = parse_hz, requires = "peak_dram_bw")]
    pub peak_mem_clock: Option<f64>,
}

/// Parses `672GB/s`, `1.5TiB/s`, `672e9` into bytes/s.
pub fn parse_byte_rate(s: &str) -> Result<f64, String> {
    quantity::parse(s, &BYTE_RATE)
}

/// Parses `2.51GHz`, `1410MHz`, `2.51e9` into Hz.
pub fn parse_hz(s: &str) -> Result<f64, String> {
    quantity::parse(s, &HERTZ)
}
