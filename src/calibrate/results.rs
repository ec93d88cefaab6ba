//! Harness results: the JSON-lines file the reference kernels write (schema
//! [`RESULTS_SCHEMA`], documented in `kernels/README.md`), parsed into typed
//! points with per-point statistics in SI units.
//!
//! Also the public view of the sweeps ([`FmaPoint`], [`GemmPoint`]) so that
//! plots can place them under the measured roofs.

use super::stats::RateStats;
use super::CalibrateInputError;
use serde::Deserialize;
use std::collections::BTreeMap;

/// Schema tag every harness line carries.
pub const RESULTS_SCHEMA: &str = "rooftrace.calib/1";

/// The fewest samples per point from which quartiles mean anything.
pub const MIN_SAMPLES: usize = 3;

/// The GPU a results file was measured on (repeated on every line).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Device {
    /// Device name as the CUDA runtime reports it (`NVIDIA H100 80GB HBM3`).
    pub name: String,
    /// Compute capability, `major.minor`.
    pub cc: String,
    /// Number of streaming multiprocessors.
    pub sm_count: u32,
    /// L2 cache size, in bytes.
    pub l2_bytes: u64,
    /// Device memory size, in bytes.
    #[serde(default)]
    pub global_mem_bytes: u64,
    /// Maximum SM clock the driver reports, in Hz (not the clock during the run).
    pub sm_clock_hz: f64,
    /// Peak memory clock the driver reports, in Hz.
    pub mem_clock_hz: f64,
    /// Memory bus width, in bits.
    #[serde(default)]
    pub mem_bus_width_bits: u32,
    /// CUDA driver version as an integer (`13000` = 13.0).
    pub driver_version: u32,
    /// CUDA runtime version as an integer (`13000` = 13.0).
    pub runtime_version: u32,
}

/// What a reference kernel exercises.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// Data-moving kernels (`read_sum`, `copy`, `triad`): rate in bytes/s.
    Bandwidth,
    /// The FMA sweep: rate in FLOP/s.
    Fma,
    /// cuBLASLt matrix multiplies: rate in FLOP/s.
    Gemm,
}

impl Kind {
    /// The word used in the results file.
    pub fn key(self) -> &'static str {
        match self {
            Kind::Bandwidth => "bandwidth",
            Kind::Fma => "fma",
            Kind::Gemm => "gemm",
        }
    }
}

/// Which GEMM shape family a point belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Sweep {
    /// Square M = N = K.
    Square,
    /// N = K = 8192 fixed, M varied.
    MSweep,
}

/// The shape of one measurement.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Shape {
    /// Total bytes of all arrays a bandwidth kernel touches.
    Bandwidth {
        /// Working set, in bytes.
        working_set_bytes: u64,
        /// Passes over the working set per launch (1 in files written before
        /// the harness made L2 samples multi-pass).
        passes: u32,
    },
    /// One FMA-sweep point.
    Fma {
        /// Dependent FMAs per scalar element.
        r: u32,
        /// Scalar elements (lanes, 2 per half2) read and written.
        elements: u64,
    },
    /// One GEMM, Y(M x N) = X(M x K) * A(K x N).
    Gemm {
        /// Shape family.
        sweep: Sweep,
        /// Rows of X and Y.
        m: u64,
        /// Columns of A and Y.
        n: u64,
        /// Inner dimension.
        k: u64,
    },
}

impl Shape {
    /// Compact text for tables and [`crate::roofs::model::Measurement::shape`].
    pub fn describe(&self) -> String {
        match *self {
            Shape::Bandwidth {
                working_set_bytes,
                passes: 1,
            } => format!("working_set={working_set_bytes}"),
            Shape::Bandwidth {
                working_set_bytes,
                passes,
            } => format!("working_set={working_set_bytes},passes={passes}"),
            Shape::Fma { r, elements } => format!("r={r},elements={elements}"),
            Shape::Gemm { m, n, k, .. } => format!("m={m},n={n},k={k}"),
        }
    }
}

/// NVML's clock-event (throttle) reasons, by bit (`nvmlClocksEventReasons`).
pub const THROTTLE_REASONS: [(u64, &str); 9] = [
    (0x1, "gpu_idle"),
    (0x2, "applications_clocks_setting"),
    (0x4, "sw_power_cap"),
    (0x8, "hw_slowdown"),
    (0x10, "sync_boost"),
    (0x20, "sw_thermal_slowdown"),
    (0x40, "hw_thermal_slowdown"),
    (0x80, "hw_power_brake_slowdown"),
    (0x100, "display_clock_setting"),
];

/// Clocks and power read through NVML while a point's samples ran (one read
/// per sample, while its launches were queued).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct RunClocks {
    /// Median SM clock over the samples, in Hz.
    pub sm_clock_hz: f64,
    /// Lowest SM clock over the samples, in Hz.
    pub sm_clock_min_hz: f64,
    /// Median memory clock over the samples, in Hz.
    pub mem_clock_hz: f64,
    /// Median board power, in W (0 when NVML gave none).
    #[serde(default)]
    pub power_w: f64,
    /// OR of the NVML clock-event reason bits seen during the samples.
    #[serde(default)]
    pub throttle_reasons: u64,
}

impl RunClocks {
    /// The reasons that lowered the clock, by name, `gpu_idle` left out (the
    /// GPU idles between samples); unknown bits as hex.
    pub fn throttle_names(&self) -> Vec<String> {
        let mut left = self.throttle_reasons & !0x1;
        let mut v = Vec::new();
        for (bit, name) in THROTTLE_REASONS {
            if left & bit != 0 {
                v.push(name.to_string());
                left &= !bit;
            }
        }
        if left != 0 {
            v.push(format!("{left:#x}"));
        }
        v
    }
}

/// The cuBLASLt algorithm a GEMM point ran (`cublasLtMatmulAlgoConfigGetAttribute`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct GemmAlgo {
    /// `CUBLASLT_ALGO_CONFIG_ID`.
    pub id: i64,
    /// `CUBLASLT_ALGO_CONFIG_TILE_ID`.
    #[serde(default)]
    pub tile: i64,
    /// `CUBLASLT_ALGO_CONFIG_STAGES_ID`.
    #[serde(default)]
    pub stages: i64,
    /// `CUBLASLT_ALGO_CONFIG_SPLITK_NUM`.
    #[serde(default)]
    pub splitk: i64,
    /// `CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME`.
    #[serde(default)]
    pub reduction: i64,
    /// `CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING`.
    #[serde(default)]
    pub swizzle: i64,
    /// `CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION`.
    #[serde(default)]
    pub custom: i64,
    /// The heuristic's `wavesCount` (1.0 fills the GPU once).
    #[serde(default)]
    pub waves: f64,
}

impl GemmAlgo {
    /// Compact text: `id=66,tile=20,stages=8,splitk=1,reduction=0,swizzle=0,custom=0`.
    pub fn describe(&self) -> String {
        format!(
            "id={},tile={},stages={},splitk={},reduction={},swizzle={},custom={}",
            self.id, self.tile, self.stages, self.splitk, self.reduction, self.swizzle, self.custom
        )
    }
}

/// A point the harness could not measure (a line with an `error` member).
#[derive(Debug, Clone, PartialEq)]
pub struct Failure {
    /// 1-based line in the results file.
    pub line: usize,
    /// Reference kernel.
    pub kernel: String,
    /// What it exercises.
    pub kind: Kind,
    /// Its shape.
    pub shape: Shape,
    /// What failed, as the harness reported it.
    pub error: String,
}

/// One measured point: a kernel at one shape.
#[derive(Debug, Clone, PartialEq)]
pub struct Point {
    /// 1-based line in the results file.
    pub line: usize,
    /// Reference kernel (`read_sum`, `fma_fp32`, `gemm_bf16` ...).
    pub kernel: String,
    /// What it exercises.
    pub kind: Kind,
    /// Element type (`fp32`, `bf16`, `fp8_e4m3` ...).
    pub dtype: String,
    /// Shape.
    pub shape: Shape,
    /// Analytic bytes moved per launch, in bytes.
    pub bytes: f64,
    /// Analytic FLOP per launch.
    pub flop: f64,
    /// True when L2 was flushed before every sample.
    pub l2_flush: bool,
    /// Back-to-back launches averaged into each sample.
    pub launches_per_sample: u32,
    /// Time per launch of each sample, in ns.
    pub sample_ns: Vec<f64>,
    /// Statistics of the rate (bytes/s for bandwidth, FLOP/s otherwise).
    pub rate: RateStats,
    /// Clocks during the samples; `None` when the harness had no NVML (or
    /// the file predates it).
    pub clocks: Option<RunClocks>,
    /// The cuBLASLt algorithm, for GEMM points that logged it.
    pub algo: Option<GemmAlgo>,
}

impl Point {
    /// Median time per launch, in seconds.
    pub fn median_time_s(&self) -> f64 {
        super::stats::quantile(&self.sample_ns, 0.5) * 1e-9
    }

    /// Analytic arithmetic intensity, in FLOP/byte.
    pub fn intensity_flop_per_byte(&self) -> f64 {
        self.flop / self.bytes
    }
}

/// A parsed results file.
#[derive(Debug, Clone, PartialEq)]
pub struct Results {
    /// The GPU, from the first line (every line must agree).
    pub device: Device,
    /// Every measured point, in file order.
    pub points: Vec<Point>,
    /// Every point the harness could not measure, in file order.
    pub failures: Vec<Failure>,
}

/// One FMA-sweep point, for plotting the sweep under the roofs.
#[derive(Debug, Clone, PartialEq)]
pub struct FmaPoint {
    /// `fp64`, `fp32`, `fp16` or `bf16`.
    pub dtype: String,
    /// Dependent FMAs per element.
    pub r: u32,
    /// Analytic intensity 2R / (2 sizeof), in FLOP/byte.
    pub intensity_flop_per_byte: f64,
    /// Median throughput, in FLOP/s.
    pub flop_per_s: f64,
    /// Interquartile range of the throughput, in FLOP/s.
    pub iqr_flop_per_s: f64,
}

/// One GEMM point, for plotting the M sweep.
#[derive(Debug, Clone, PartialEq)]
pub struct GemmPoint {
    /// Harness kernel (`gemm_fp8_e4m3` and `gemm_fp8_e4m3_fast_accum` share
    /// a dtype).
    pub kernel: String,
    /// `fp16`, `bf16`, `tf32`, `fp64`, `fp8_e4m3`.
    pub dtype: String,
    /// Shape family.
    pub sweep: Sweep,
    /// Rows of X (tokens, for a linear layer).
    pub m: u64,
    /// Columns of A.
    pub n: u64,
    /// Inner dimension.
    pub k: u64,
    /// Analytic intensity 2MNK / bytes, in FLOP/byte.
    pub intensity_flop_per_byte: f64,
    /// Median throughput, in FLOP/s.
    pub flop_per_s: f64,
    /// Interquartile range of the throughput, in FLOP/s.
    pub iqr_flop_per_s: f64,
    /// Median time per call, in seconds.
    pub time_s: f64,
}

impl Results {
    /// The FMA sweep, sorted by dtype then R.
    pub fn fma_sweep(&self) -> Vec<FmaPoint> {
        let mut v: Vec<FmaPoint> = self
            .points
            .iter()
            .filter_map(|p| match p.shape {
                Shape::Fma { r, .. } => Some(FmaPoint {
                    dtype: p.dtype.clone(),
                    r,
                    intensity_flop_per_byte: p.intensity_flop_per_byte(),
                    flop_per_s: p.rate.median,
                    iqr_flop_per_s: p.rate.iqr(),
                }),
                _ => None,
            })
            .collect();
        v.sort_by(|a, b| a.dtype.cmp(&b.dtype).then(a.r.cmp(&b.r)));
        v
    }

    /// GEMM points, sorted by dtype, kernel, sweep, then M.
    pub fn gemm_points(&self) -> Vec<GemmPoint> {
        let mut v: Vec<GemmPoint> = self
            .points
            .iter()
            .filter_map(|p| match p.shape {
                Shape::Gemm { sweep, m, n, k } => Some(GemmPoint {
                    kernel: p.kernel.clone(),
                    dtype: p.dtype.clone(),
                    sweep,
                    m,
                    n,
                    k,
                    intensity_flop_per_byte: p.intensity_flop_per_byte(),
                    flop_per_s: p.rate.median,
                    iqr_flop_per_s: p.rate.iqr(),
                    time_s: p.median_time_s(),
                }),
                _ => None,
            })
            .collect();
        v.sort_by(|a, b| {
            (a.dtype.as_str(), a.kernel.as_str(), a.sweep, a.m).cmp(&(
                b.dtype.as_str(),
                b.kernel.as_str(),
                b.sweep,
                b.m,
            ))
        });
        v
    }
}

#[derive(Deserialize)]
struct RawLine {
    schema: String,
    kernel: String,
    kind: Kind,
    dtype: String,
    working_set_bytes: Option<u64>,
    r: Option<u32>,
    elements: Option<u64>,
    sweep: Option<Sweep>,
    m: Option<u64>,
    n: Option<u64>,
    k: Option<u64>,
    #[serde(default)]
    passes: Option<u32>,
    bytes: Option<f64>,
    flop: Option<f64>,
    #[serde(default)]
    l2_flush: bool,
    #[serde(default = "one")]
    launches_per_sample: u32,
    sample_ns: Option<Vec<f64>>,
    clocks: Option<RunClocks>,
    algo: Option<GemmAlgo>,
    error: Option<String>,
    device: Device,
}

fn one() -> u32 {
    1
}

/// Parses a harness results file; `path` is used in error messages only.
/// Blank lines are skipped; every other line must be one measurement or one
/// failed point (a line with an `error` member, kept in
/// [`Results::failures`]).
pub fn parse(text: &str, path: &str) -> Result<Results, CalibrateInputError> {
    let mut device: Option<(Device, usize)> = None;
    let mut points = Vec::new();
    let mut failures = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        if raw.trim().is_empty() {
            continue;
        }
        let bad = |detail: String| CalibrateInputError::Line {
            path: path.to_string(),
            line,
            detail,
        };
        let r: RawLine = serde_json::from_str(raw).map_err(|e| bad(e.to_string()))?;
        if r.schema != RESULTS_SCHEMA {
            return Err(bad(format!(
                "schema is {:?}, expected {RESULTS_SCHEMA:?}",
                r.schema
            )));
        }
        match &device {
            None => device = Some((r.device.clone(), line)),
            Some((d, first)) if d.name != r.device.name || d.cc != r.device.cc => {
                return Err(CalibrateInputError::MixedDevices {
                    path: path.to_string(),
                    line,
                    found: r.device.name.clone(),
                    first_line: *first,
                    expected: d.name.clone(),
                })
            }
            Some(_) => {}
        }
        let need = |v: Option<u64>, field: &str| {
            v.ok_or_else(|| bad(format!("a {} line needs the field `{field}`", r.kind.key())))
        };
        let shape = match r.kind {
            Kind::Bandwidth => Shape::Bandwidth {
                working_set_bytes: need(r.working_set_bytes, "working_set_bytes")?,
                passes: match r.passes {
                    None => 1,
                    Some(0) => return Err(bad("`passes` is 0; it must be at least 1".to_string())),
                    Some(p) => p,
                },
            },
            Kind::Fma => Shape::Fma {
                r: u32::try_from(need(r.r.map(u64::from), "r")?).unwrap_or(u32::MAX),
                elements: need(r.elements, "elements")?,
            },
            Kind::Gemm => Shape::Gemm {
                sweep: r
                    .sweep
                    .ok_or_else(|| bad("a gemm line needs the field `sweep`".to_string()))?,
                m: need(r.m, "m")?,
                n: need(r.n, "n")?,
                k: need(r.k, "k")?,
            },
        };
        if let Some(error) = r.error {
            failures.push(Failure {
                line,
                kernel: r.kernel,
                kind: r.kind,
                shape,
                error,
            });
            continue;
        }
        let (Some(bytes), Some(flop), Some(sample_ns)) = (r.bytes, r.flop, r.sample_ns) else {
            return Err(bad(
                "a measurement needs `bytes`, `flop` and `sample_ns` (or an `error` for a failed point)"
                    .to_string(),
            ));
        };
        if sample_ns.len() < MIN_SAMPLES {
            return Err(bad(format!(
                "{} samples in `sample_ns`, need at least {MIN_SAMPLES} (the harness takes 9 by default)",
                sample_ns.len()
            )));
        }
        if let Some(t) = sample_ns.iter().find(|t| !(t.is_finite() && **t > 0.0)) {
            return Err(bad(format!(
                "`sample_ns` holds {t}; every time must be a positive number of nanoseconds"
            )));
        }
        let work = match r.kind {
            Kind::Bandwidth => bytes,
            Kind::Fma | Kind::Gemm => flop,
        };
        let work_field = if r.kind == Kind::Bandwidth {
            "bytes"
        } else {
            "flop"
        };
        if !(work.is_finite() && work > 0.0) {
            return Err(bad(format!(
                "`{work_field}` is {work}; it must be a positive number"
            )));
        }
        if !(bytes.is_finite() && bytes > 0.0 && flop.is_finite() && flop >= 0.0) {
            return Err(bad(
                "`bytes` must be positive and `flop` non-negative".to_string()
            ));
        }
        if let Some(c) = &r.clocks {
            let hz = [c.sm_clock_hz, c.sm_clock_min_hz, c.mem_clock_hz];
            if hz.iter().any(|v| !(v.is_finite() && *v > 0.0))
                || !(c.power_w.is_finite() && c.power_w >= 0.0)
            {
                return Err(bad(
                    "`clocks` needs positive `sm_clock_hz`, `sm_clock_min_hz`, `mem_clock_hz` and a non-negative `power_w`"
                        .to_string(),
                ));
            }
        }
        let rate = RateStats::from_times_ns(work, &sample_ns);
        points.push(Point {
            line,
            kernel: r.kernel,
            kind: r.kind,
            dtype: r.dtype,
            shape,
            bytes,
            flop,
            l2_flush: r.l2_flush,
            launches_per_sample: r.launches_per_sample,
            sample_ns,
            rate,
            clocks: r.clocks,
            algo: r.algo,
        });
    }
    let Some((device, _)) = device else {
        return Err(CalibrateInputError::Empty {
            path: path.to_string(),
        });
    };
    Ok(Results {
        device,
        points,
        failures,
    })
}

/// Counts points per kernel (for progress and summaries), sorted by kernel.
pub fn count_by_kernel(results: &Results) -> BTreeMap<String, usize> {
    let mut m = BTreeMap::new();
    for p in &results.points {
        *m.entry(p.kernel.clone()).or_insert(0) += 1;
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    const DEV: &str = r#""device":{"name":"G","cc":"9.0","sm_count":1,"l2_bytes":1048576,"sm_clock_hz":1e9,"mem_clock_hz":1e9,"driver_version":13000,"runtime_version":13000}"#;

    fn line(body: &str, device: &str) -> String {
        format!(
            r#"{{"schema":"rooftrace.calib/1",{body},"bytes":1000,"flop":2000,"sample_ns":[1000,1000,1000],{device}}}"#
        )
    }

    #[test]
    fn parses_each_kind_with_its_shape() {
        let text = [
            line(r#""kernel":"copy","kind":"bandwidth","dtype":"fp32","working_set_bytes":1000"#, DEV),
            String::new(),
            line(r#""kernel":"fma_fp32","kind":"fma","dtype":"fp32","r":4,"elements":125"#, DEV),
            line(r#""kernel":"gemm_bf16","kind":"gemm","dtype":"bf16","sweep":"m_sweep","m":1,"n":8,"k":8"#, DEV),
        ]
        .join("\n");
        let r = parse(&text, "t.jsonl").unwrap();
        assert_eq!(r.device.l2_bytes, 1 << 20);
        assert_eq!(r.points.len(), 3);
        // Blank line 2 skipped; lines keep their file numbers.
        assert_eq!(r.points[1].line, 3);
        // 1000 bytes in 1000 ns = 1e9 B/s; 2000 FLOP in 1000 ns = 2e9 FLOP/s.
        assert_eq!(r.points[0].rate.median, 1e9);
        assert_eq!(r.points[1].rate.median, 2e9);
        assert_eq!(
            r.points[1].shape,
            Shape::Fma {
                r: 4,
                elements: 125
            }
        );
        assert_eq!(r.points[2].shape.describe(), "m=1,n=8,k=8");
    }

    #[test]
    fn errors_name_the_line_and_the_problem() {
        let ok = line(
            r#""kernel":"copy","kind":"bandwidth","dtype":"fp32","working_set_bytes":1000"#,
            DEV,
        );
        let cases = [
            (
                line(
                    r#""kernel":"fma_fp32","kind":"fma","dtype":"fp32","r":4"#,
                    DEV,
                ),
                "t.jsonl, line 2: a fma line needs the field `elements`",
            ),
            (
                ok.replace("rooftrace.calib/1", "rooftrace.calib/9"),
                "t.jsonl, line 2: schema is \"rooftrace.calib/9\", expected \"rooftrace.calib/1\"",
            ),
            (
                ok.replace("[1000,1000,1000]", "[1000,-5,1000]"),
                "t.jsonl, line 2: `sample_ns` holds -5;",
            ),
            (
                ok.replace(r#""name":"G""#, r#""name":"H""#),
                "t.jsonl, line 2: measured on \"H\", but line 1 on \"G\"",
            ),
        ];
        for (second, want) in cases {
            let e = parse(&format!("{ok}\n{second}\n"), "t.jsonl")
                .unwrap_err()
                .to_string();
            assert!(e.starts_with(want), "{e}\nwanted: {want}");
        }
        let e = parse("\n\n", "t.jsonl").unwrap_err().to_string();
        assert!(e.starts_with("t.jsonl holds no measurements"), "{e}");
    }
}
