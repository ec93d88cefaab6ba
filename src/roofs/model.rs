//! Roofs: the attainable FLOP/s per compute path and bytes/s per memory level
//! of one GPU, each with where the number came from.
//!
//! This is also the on-disk roofs file (`rooftrace ncu --roofs FILE`,
//! written by `rooftrace calibrate`); its format is documented in
//! `docs/roofs-format.md` and versioned by [`ROOFS_SCHEMA`].

use crate::units::ComputeCapability;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// The GPU name of roofs given by `--peak-dram-bw`/`--peak`.
pub const COMMAND_LINE_GPU: &str = "GPU given on the command line";

/// Schema tag of the roofs JSON file.
pub const ROOFS_SCHEMA: &str = "rooftrace.roofs/1";

/// A compute path: the unit and precision a kernel's FLOPs execute on.
/// Each has its own flat roof.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ComputePath {
    /// FP64 on CUDA cores (DADD/DMUL/DFMA).
    Fp64,
    /// FP32 on CUDA cores (FADD/FMUL/FFMA).
    Fp32,
    /// Half precision on CUDA cores (HADD/HMUL/HFMA, FP16 and BF16, packed x2).
    Fp16,
    /// FP64 on tensor cores (DMMA).
    TensorFp64,
    /// TF32 on tensor cores.
    TensorTf32,
    /// FP16 inputs on tensor cores.
    TensorFp16,
    /// BF16 inputs on tensor cores.
    TensorBf16,
    /// FP8 (E4M3/E5M2) inputs on tensor cores.
    TensorFp8,
    /// INT8 inputs on tensor cores (integer ops counted as FLOP-equivalents).
    TensorInt8,
    /// FP4/FP6 inputs on tensor cores (Blackwell).
    TensorFp4,
}

impl ComputePath {
    /// All paths, in display order.
    pub const ALL: [ComputePath; 10] = [
        ComputePath::Fp64,
        ComputePath::Fp32,
        ComputePath::Fp16,
        ComputePath::TensorFp64,
        ComputePath::TensorTf32,
        ComputePath::TensorFp16,
        ComputePath::TensorBf16,
        ComputePath::TensorFp8,
        ComputePath::TensorInt8,
        ComputePath::TensorFp4,
    ];

    /// The snake_case key used in JSON and CSV output.
    pub fn key(self) -> &'static str {
        match self {
            ComputePath::Fp64 => "fp64",
            ComputePath::Fp32 => "fp32",
            ComputePath::Fp16 => "fp16",
            ComputePath::TensorFp64 => "tensor_fp64",
            ComputePath::TensorTf32 => "tensor_tf32",
            ComputePath::TensorFp16 => "tensor_fp16",
            ComputePath::TensorBf16 => "tensor_bf16",
            ComputePath::TensorFp8 => "tensor_fp8",
            ComputePath::TensorInt8 => "tensor_int8",
            ComputePath::TensorFp4 => "tensor_fp4",
        }
    }

    /// A short human label ("FP32 cores", "BF16 tensor").
    pub fn label(self) -> &'static str {
        match self {
            ComputePath::Fp64 => "FP64 cores",
            ComputePath::Fp32 => "FP32 cores",
            ComputePath::Fp16 => "FP16 cores",
            ComputePath::TensorFp64 => "FP64 tensor",
            ComputePath::TensorTf32 => "TF32 tensor",
            ComputePath::TensorFp16 => "FP16 tensor",
            ComputePath::TensorBf16 => "BF16 tensor",
            ComputePath::TensorFp8 => "FP8 tensor",
            ComputePath::TensorInt8 => "INT8 tensor",
            ComputePath::TensorFp4 => "FP4 tensor",
        }
    }

    /// Parses a key as written by [`ComputePath::key`].
    pub fn from_key(s: &str) -> Option<ComputePath> {
        ComputePath::ALL.into_iter().find(|p| p.key() == s)
    }

    /// False when GPUs of compute capability `cc` (7.0) have no such
    /// path, so ncu has no counter for it there: tensor cores from 7.0
    /// (FP16), INT8 from 7.2 (Turing), TF32/BF16/FP64 from 8.0 (Ampere),
    /// FP8 from 8.9 (Ada, Hopper), FP4 from 10.0 (Blackwell) — the
    /// architecture whitepapers' tensor-core precisions.
    pub fn exists_on(self, cc: ComputeCapability) -> bool {
        let (major, minor) = match self {
            ComputePath::Fp64 | ComputePath::Fp32 | ComputePath::Fp16 => (0, 0),
            ComputePath::TensorFp16 => (7, 0),
            ComputePath::TensorInt8 => (7, 2),
            ComputePath::TensorTf32 | ComputePath::TensorBf16 | ComputePath::TensorFp64 => (8, 0),
            ComputePath::TensorFp8 => (8, 9),
            ComputePath::TensorFp4 => (10, 0),
        };
        cc >= ComputeCapability::new(major, minor)
    }

    /// True for tensor-core paths.
    pub fn is_tensor(self) -> bool {
        !matches!(
            self,
            ComputePath::Fp64 | ComputePath::Fp32 | ComputePath::Fp16
        )
    }
}

/// A level of the memory hierarchy with its own sloped roof.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MemoryLevel {
    /// Device memory (HBM/GDDR).
    Dram,
    /// L2 cache.
    L2,
    /// L1/texture cache and shared memory.
    L1,
}

impl MemoryLevel {
    /// All levels, slowest first.
    pub const ALL: [MemoryLevel; 3] = [MemoryLevel::Dram, MemoryLevel::L2, MemoryLevel::L1];

    /// The snake_case key used in JSON and CSV output.
    pub fn key(self) -> &'static str {
        match self {
            MemoryLevel::Dram => "dram",
            MemoryLevel::L2 => "l2",
            MemoryLevel::L1 => "l1",
        }
    }

    /// A short human label.
    pub fn label(self) -> &'static str {
        match self {
            MemoryLevel::Dram => "DRAM",
            MemoryLevel::L2 => "L2",
            MemoryLevel::L1 => "L1",
        }
    }
}

/// Where a roof value came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Origin {
    /// Measured on a real GPU (a public measurement, or `rooftrace calibrate`).
    Measured,
    /// The vendor's datasheet (dense, no sparsity).
    Datasheet,
    /// Theoretical peak computed from ncu's own peak metrics in the CSV.
    Ncu,
    /// A user-supplied roofs file whose entries carry no origin.
    File,
}

impl Origin {
    /// The lowercase word used in output.
    pub fn key(self) -> &'static str {
        match self {
            Origin::Measured => "measured",
            Origin::Datasheet => "datasheet",
            Origin::Ncu => "ncu",
            Origin::File => "file",
        }
    }
}

fn default_origin() -> Origin {
    Origin::File
}

/// How a measured roof was produced (written by `rooftrace calibrate`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct Measurement {
    /// The reference kernel, e.g. `read_sum`, `fma_fp32`, `cublas_gemm_bf16`.
    pub kernel: String,
    /// The shape that gave the best stable point, e.g. `working_set=1073741824` or `m=8192,n=8192,k=8192`.
    pub shape: String,
    /// Median over the samples, in the roof's unit (FLOP/s or byte/s).
    pub median: f64,
    /// Interquartile range over the samples, same unit as `median`.
    pub iqr: f64,
    /// Number of timed samples.
    pub samples: u32,
    /// SM clock during the run, in Hz, when recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sm_clock_hz: Option<f64>,
    /// Memory clock during the run, in Hz, when recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mem_clock_hz: Option<f64>,
    /// Why the clock was held down during the run (NVML clock-event reasons,
    /// e.g. `sw_power_cap`); empty when none or not recorded.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub throttle_reasons: Vec<String>,
    /// The cuBLASLt algorithm of a GEMM roof (`id=..,tile=..,stages=..`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cublaslt_algo: Option<String>,
}

/// A flat roof: attainable FLOP/s of one compute path.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ComputeRoof {
    /// Attainable throughput in FLOP/s.
    pub flop_per_s: f64,
    /// Where the value came from.
    #[serde(default = "default_origin")]
    pub origin: Origin,
    /// Citation: a document, URL, or "`rooftrace calibrate on <device>`".
    #[serde(default)]
    pub source: String,
    /// How it was measured, when measured by `rooftrace calibrate`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub measurement: Option<Measurement>,
}

/// A sloped roof: attainable bytes/s of one memory level.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MemoryRoof {
    /// Attainable bandwidth in bytes/s.
    pub bytes_per_s: f64,
    /// Where the value came from.
    #[serde(default = "default_origin")]
    pub origin: Origin,
    /// Citation: a document, URL, or "`rooftrace calibrate on <device>`".
    #[serde(default)]
    pub source: String,
    /// How it was measured, when measured by `rooftrace calibrate`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub measurement: Option<Measurement>,
}

/// The roofs of one GPU. Also the roofs JSON file format.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Roofs {
    /// Always [`ROOFS_SCHEMA`].
    pub schema: String,
    /// GPU name as the user would recognise it ("NVIDIA H200", "h100-sxm").
    pub gpu: String,
    /// One-line summary of where these roofs came from, shown in every report.
    #[serde(default)]
    pub source: String,
    /// Sloped roofs per memory level.
    pub memory: BTreeMap<MemoryLevel, MemoryRoof>,
    /// Flat roofs per compute path.
    pub compute: BTreeMap<ComputePath, ComputeRoof>,
    /// The clocks the roofs assume (compute roofs scale with the SM clock,
    /// the DRAM roof with the memory clock); absent when not known.
    #[serde(default, skip_serializing_if = "RoofClocks::is_empty")]
    pub clocks: RoofClocks,
}

/// The clocks a set of roofs assumes, each with its source. A roof measured
/// by `rooftrace calibrate` carries its own clock in its `measurement`,
/// which wins over these.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RoofClocks {
    /// SM clock the compute roofs assume, Hz (a datasheet's boost clock).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sm_clock_hz: Option<f64>,
    /// Where the SM clock comes from.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub sm_clock_source: String,
    /// Memory clock the DRAM roof assumes, Hz, as ncu's
    /// `dram__cycles_elapsed.avg.per_second` reports it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_clock_hz: Option<f64>,
    /// Where the memory clock comes from.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub memory_clock_source: String,
}

impl RoofClocks {
    /// True when no clock is known.
    pub fn is_empty(&self) -> bool {
        self.sm_clock_hz.is_none() && self.memory_clock_hz.is_none()
    }
}

/// Errors reading a roofs file or choosing the roofs of a run.
#[derive(Debug, thiserror::Error)]
pub enum RoofsError {
    /// The file could not be read.
    #[error("cannot read roofs file {path}: {error}")]
    Io {
        /// The file.
        path: String,
        /// The I/O error (in the message, not a `source`: printing the
        /// chain would repeat the OS's text).
        error: std::io::Error,
    },
    /// The file is not valid roofs JSON.
    #[error("{path} is not a rooftrace roofs file: {detail}. See docs/roofs-format.md, or write one with `rooftrace calibrate -o roofs.json`")]
    Format {
        /// The file.
        path: String,
        /// What is wrong, with line and column from serde.
        detail: String,
    },
    /// A value is missing, zero, negative or not finite.
    #[error("{path}: {what} must be a positive finite number, got {value}")]
    BadValue {
        /// The file.
        path: String,
        /// Which roof.
        what: String,
        /// The value found.
        value: f64,
    },
    /// `--gpu KEY` names no GPU of the built-in table.
    #[error("unknown GPU {key:?} for --gpu; {choices} (or give measured roofs with --roofs FILE)")]
    UnknownGpu {
        /// The key given.
        key: String,
        /// The closest keys of the table and where the whole list is
        /// (`crate::suggest::did_you_mean_among`).
        choices: String,
    },
    /// The input does not say which GPU of the table it ran on.
    #[error("cannot tell which GPU {file} ran on ({seen}); pass --gpu with one of: {}, or --roofs FILE, or --roofs ncu", fits_or_table(.candidates, &[]))]
    UnknownDevice {
        /// The input file.
        file: String,
        /// What the input says about its device.
        seen: String,
        /// The keys of the table GPUs that fit the input's facts.
        candidates: Vec<String>,
    },
    /// `--gpu KEY` (or the table GPU a `--roofs FILE` names) is ruled out
    /// by an identity fact the input records (`roofs::check`).
    #[error("{0}")]
    GpuContradicted(Box<GpuContradiction>),
    /// The chosen roofs have no DRAM bandwidth.
    #[error("the roofs for {gpu} (chosen by {chosen_by}) have no DRAM bandwidth (memory.dram); add it to the roofs file, or write a new one with `rooftrace calibrate -o roofs.json`")]
    NoDram {
        /// The GPU the roofs are for.
        gpu: String,
        /// How they were chosen, as the flag given (`--roofs FILE`,
        /// `--roofs ncu`, `--project-to FILE`).
        chosen_by: String,
    },
}

/// A chosen GPU that a fact of the input rules out
/// ([`RoofsError::GpuContradicted`]): the fact, both values, and the GPUs
/// that fit.
#[derive(Debug)]
pub struct GpuContradiction {
    /// The choice as given: `--gpu b200`, `--roofs h100.json (for …: the
    /// table's h100-sxm)`.
    pub chosen: String,
    /// What `--project-to` takes for the chosen GPU: its table key, or the
    /// roofs file.
    pub target: String,
    /// The fact: `compute capability`, `SM count`, `memory clock`.
    pub fact: String,
    /// The chosen GPU's value.
    pub gpu_value: String,
    /// The input file.
    pub file: String,
    /// The input's value.
    pub file_value: String,
    /// Why the values rule the GPU out, when they do not say it alone.
    pub why: String,
    /// GPUs of the table consistent with every fact of the input.
    pub candidates: Vec<String>,
    /// The table's GPUs of the input's compute capability, named when none
    /// fits every fact (a card the table lacks: its nearest kin).
    pub same_cc: Vec<String>,
}

impl std::fmt::Display for GpuContradiction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let c = self;
        write!(
            f,
            "{} has {} {}, but {} records {} {}{}: not the GPU it ran on. Pick one that fits ({}), or give roofs measured on it with --roofs FILE; to ask what this run would take on {}, keep the GPU it ran on and add --project-to {}",
            c.chosen,
            c.fact,
            c.gpu_value,
            c.file,
            c.fact,
            c.file_value,
            c.why,
            fits_or_table(&c.candidates, &c.same_cc),
            c.target,
            c.target
        )
    }
}

/// The keys that fit, or what to do when none does (for messages): the
/// table's cards of the input's compute capability when it has some.
fn fits_or_table(candidates: &[String], same_cc: &[String]) -> String {
    match (candidates.is_empty(), same_cc.is_empty()) {
        (false, _) => candidates.join(", "),
        (true, false) => format!(
            "none of the table fits every fact the file states; its cards of that compute capability: {}; for a GPU not in the table write a roofs file, docs/roofs-format.md",
            same_cc.join(", ")
        ),
        (true, true) => "a key of `rooftrace ncu --list-gpus` (none fits what the file states; for a GPU not in the table write a roofs file, docs/roofs-format.md)".to_string(),
    }
}

/// A bad roofs file or roofs choice is the input's fault (exit code 2).
impl crate::error::BadInput for RoofsError {}

impl Roofs {
    /// An empty set of roofs for `gpu`.
    pub fn new(gpu: impl Into<String>, source: impl Into<String>) -> Roofs {
        Roofs {
            schema: ROOFS_SCHEMA.to_string(),
            gpu: gpu.into(),
            source: source.into(),
            memory: BTreeMap::new(),
            compute: BTreeMap::new(),
            clocks: RoofClocks::default(),
        }
    }

    /// The roofs of `--peak-dram-bw` (bytes/s) and `--peak PATH=RATE`
    /// (FLOP/s per path): what a roofs file with these values would hold,
    /// source `command line`. A path given twice is an error.
    pub fn from_command_line(
        dram_bytes_per_s: f64,
        peaks: &[(ComputePath, f64)],
    ) -> Result<Roofs, String> {
        let mut roofs = Roofs::new(COMMAND_LINE_GPU, "command line (--peak-dram-bw, --peak)");
        let valid =
            |what: &str, v: f64| check_positive("command line", what, v).map_err(|e| e.to_string());
        valid("--peak-dram-bw", dram_bytes_per_s)?;
        roofs.memory.insert(
            MemoryLevel::Dram,
            MemoryRoof {
                bytes_per_s: dram_bytes_per_s,
                origin: Origin::File,
                source: "command line: --peak-dram-bw".into(),
                measurement: None,
            },
        );
        for &(path, flop_per_s) in peaks {
            valid(&format!("--peak {}", path.key()), flop_per_s)?;
            let roof = ComputeRoof {
                flop_per_s,
                origin: Origin::File,
                source: format!("command line: --peak {}", path.key()),
                measurement: None,
            };
            if roofs.compute.insert(path, roof).is_some() {
                return Err(format!(
                    "--peak {} is given twice; give each compute path once",
                    path.key()
                ));
            }
        }
        Ok(roofs)
    }

    /// Parses and validates roofs JSON; `path` is used in error messages only.
    pub fn from_json(text: &str, path: &str) -> Result<Roofs, RoofsError> {
        let roofs: Roofs = serde_json::from_str(text).map_err(|e| RoofsError::Format {
            path: path.to_string(),
            detail: e.to_string(),
        })?;
        if roofs.schema != ROOFS_SCHEMA {
            return Err(RoofsError::Format {
                path: path.to_string(),
                detail: format!("schema is {:?}, expected {:?}", roofs.schema, ROOFS_SCHEMA),
            });
        }
        for (level, r) in &roofs.memory {
            check_positive(
                path,
                &format!("memory.{}.bytes_per_s", level.key()),
                r.bytes_per_s,
            )?;
        }
        for (p, r) in &roofs.compute {
            check_positive(
                path,
                &format!("compute.{}.flop_per_s", p.key()),
                r.flop_per_s,
            )?;
        }
        if let Some(c) = roofs.clocks.sm_clock_hz {
            check_positive(path, "clocks.sm_clock_hz", c)?;
        }
        if let Some(c) = roofs.clocks.memory_clock_hz {
            check_positive(path, "clocks.memory_clock_hz", c)?;
        }
        Ok(roofs)
    }

    /// Reads and validates a roofs file.
    pub fn from_file(path: &Path) -> Result<Roofs, RoofsError> {
        use std::io::Read;
        // A roofs file is a few kB; a FIFO or device is refused unopened.
        const MAX_ROOFS_BYTES: u64 = 16 << 20;
        let shown = path.display().to_string();
        let io = |error| RoofsError::Io {
            path: shown.clone(),
            error,
        };
        let invalid = |what: &str| std::io::Error::new(std::io::ErrorKind::InvalidInput, what);
        if !std::fs::metadata(path).map_err(io)?.is_file() {
            return Err(io(invalid(
                "a special file (a FIFO, device or socket) or a directory, not a regular file",
            )));
        }
        let mut text = String::new();
        std::fs::File::open(path)
            .and_then(|f| f.take(MAX_ROOFS_BYTES + 1).read_to_string(&mut text))
            .map_err(io)?;
        if text.len() as u64 > MAX_ROOFS_BYTES {
            return Err(io(invalid("more than 16 MiB: not a roofs file")));
        }
        Roofs::from_json(&text, &shown)
    }

    /// Pretty JSON, deterministic (maps are ordered), newline-terminated.
    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).expect("roofs serialize");
        s.push('\n');
        s
    }

    /// The SM clock a compute roof assumes, Hz: the clock it was measured
    /// at when its measurement says, else the roofs' SM clock.
    pub fn compute_clock_hz(&self, path: ComputePath) -> Option<f64> {
        let measured = self.compute.get(&path)?.measurement.as_ref();
        measured
            .and_then(|m| m.sm_clock_hz)
            .or(self.clocks.sm_clock_hz)
            .filter(|c| c.is_finite() && *c > 0.0)
    }

    /// The memory clock the DRAM roof assumes, Hz: the clock it was
    /// measured at when its measurement says, else the roofs' memory clock.
    pub fn dram_clock_hz(&self) -> Option<f64> {
        let measured = self.dram()?.measurement.as_ref();
        measured
            .and_then(|m| m.mem_clock_hz)
            .or(self.clocks.memory_clock_hz)
            .filter(|c| c.is_finite() && *c > 0.0)
    }

    /// The DRAM bandwidth roof, if known.
    pub fn dram(&self) -> Option<&MemoryRoof> {
        self.memory.get(&MemoryLevel::Dram)
    }

    /// Ridge point I* = F / B_dram of a compute path, in FLOP/byte.
    pub fn ridge_flop_per_byte(&self, path: ComputePath) -> Option<f64> {
        let f = self.compute.get(&path)?.flop_per_s;
        let b = self.dram()?.bytes_per_s;
        Some(f / b)
    }
}

fn check_positive(path: &str, what: &str, value: f64) -> Result<(), RoofsError> {
    if value.is_finite() && value > 0.0 {
        Ok(())
    } else {
        Err(RoofsError::BadValue {
            path: path.to_string(),
            what: what.to_string(),
            value,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_round_trip_keeps_every_field() {
        let mut r = Roofs::new("NVIDIA H200", "test");
        r.memory.insert(
            MemoryLevel::Dram,
            MemoryRoof {
                bytes_per_s: 4.295e12,
                origin: Origin::Measured,
                source: "x".into(),
                measurement: Some(Measurement {
                    kernel: "read_sum".into(),
                    shape: "working_set=1073741824".into(),
                    median: 4.295e12,
                    iqr: 1e10,
                    samples: 9,
                    sm_clock_hz: Some(1.98e9),
                    mem_clock_hz: None,
                    throttle_reasons: vec!["sw_power_cap".into()],
                    cublaslt_algo: None,
                }),
            },
        );
        r.compute.insert(
            ComputePath::TensorBf16,
            ComputeRoof {
                flop_per_s: 8.15e14,
                origin: Origin::Datasheet,
                source: "y".into(),
                measurement: None,
            },
        );
        let back = Roofs::from_json(&r.to_json(), "mem").unwrap();
        assert_eq!(back, r);
        // 815e12 / 4.295e12 = 189.76 FLOP/byte
        let ridge = back.ridge_flop_per_byte(ComputePath::TensorBf16).unwrap();
        assert!((ridge - 189.755).abs() < 0.01, "{ridge}");
    }

    #[test]
    fn rejects_non_positive_values_and_wrong_schema() {
        let bad = r#"{"schema":"rooftrace.roofs/1","gpu":"g","memory":{"dram":{"bytes_per_s":0}},"compute":{}}"#;
        let e = Roofs::from_json(bad, "r.json").unwrap_err().to_string();
        assert!(e.contains("memory.dram.bytes_per_s"), "{e}");
        let e = Roofs::from_json(
            r#"{"schema":"x","gpu":"g","memory":{},"compute":{}}"#,
            "r.json",
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("expected \"rooftrace.roofs/1\""), "{e}");
    }
}
