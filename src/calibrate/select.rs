//! Roof selection: harness results -> measured [`Roofs`].
//!
//! * DRAM bandwidth: the best stable data-moving kernel (`read_sum`, `copy`,
//!   `triad`) whose working set is at least [`DRAM_MIN_L2_MULTIPLE`] x L2.
//! * L2 bandwidth: the best stable data-moving kernel whose working set is at
//!   most half of L2 (so it stays resident), never from an `--l2-flush`
//!   sample, and only from launches of at least [`L2_MIN_LAUNCH_S`] (the
//!   harness reads a resident working set many times per launch; one short
//!   pass measures launch overhead). An L2 roof not above the DRAM roof is
//!   refused: it did not measure L2.
//! * Compute, per path: the best *stable* point (IQR / median ≤
//!   [`STABLE_MAX_IQR_FRACTION`]) of the kernels on that path.
//!
//! Each roof records the kernel, shape, median, IQR, and the clocks and
//! throttle reasons NVML read during its samples (unknown when not recorded).
//! Failed points (lines with an `error`) are skipped, and every roof the
//! harness should have given but did not is listed in
//! [`Calibration::missing`] with the reason.

use super::results::{Device, Failure, Kind, Point, Results, Shape};
use crate::roofs::model::{
    ComputePath, ComputeRoof, Measurement, MemoryLevel, MemoryRoof, Origin, Roofs,
};
use serde::Serialize;

/// A point is stable when its rate's IQR / median is at most this.
pub const STABLE_MAX_IQR_FRACTION: f64 = 0.10;

/// DRAM bandwidth only from working sets at least this many times L2.
pub const DRAM_MIN_L2_MULTIPLE: u64 = 4;

/// L2 bandwidth only from launches at least this long, in seconds: a launch
/// gap, block ramp-up and reduction tail cost a few µs, under 10 % of 20 µs.
pub const L2_MIN_LAUNCH_S: f64 = 20e-6;

/// A roof the harness measures but that could not be selected, and why.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Missing {
    /// Roof key (`dram`, `l2`, `tensor_fp8` ...).
    pub roof: String,
    /// Why there is no roof, and what to do.
    pub reason: String,
}

/// Roofs measured from a results file, plus what the selection skipped.
#[derive(Debug, Clone, PartialEq)]
pub struct Calibration {
    /// The GPU.
    pub device: Device,
    /// The selected roofs (origin = measured).
    pub roofs: Roofs,
    /// Warnings as data: failed and unstable points, unknown kernels, in
    /// file order; then one `no <roof> roof: <reason>` line per
    /// [`Calibration::missing`] entry; then a line when the run's clocks
    /// were not recorded or were throttled.
    pub notes: Vec<String>,
    /// Roofs the harness measures on this GPU that were not selected, in
    /// display order (memory, then compute paths).
    pub missing: Vec<Missing>,
}

impl Calibration {
    /// The reason there is no DRAM roof, when there is none.
    pub fn missing_dram(&self) -> Option<&str> {
        if self.roofs.memory.contains_key(&MemoryLevel::Dram) {
            return None;
        }
        Some(
            self.missing
                .iter()
                .find(|m| m.roof == MemoryLevel::Dram.key())
                .map(|m| m.reason.as_str())
                .unwrap_or("no DRAM roof selected"),
        )
    }
}

/// The compute path a harness kernel measures, `None` for data-moving or
/// unknown kernels.
pub fn compute_path(kernel: &str) -> Option<ComputePath> {
    Some(match kernel {
        "fma_fp64" => ComputePath::Fp64,
        "fma_fp32" => ComputePath::Fp32,
        "fma_fp16x2" | "fma_bf16x2" => ComputePath::Fp16,
        "gemm_fp64" => ComputePath::TensorFp64,
        "gemm_tf32" => ComputePath::TensorTf32,
        "gemm_fp16" => ComputePath::TensorFp16,
        "gemm_bf16" => ComputePath::TensorBf16,
        "gemm_fp8_e4m3" | "gemm_fp8_e4m3_fast_accum" => ComputePath::TensorFp8,
        _ => return None,
    })
}

/// The harness kernels on a compute path, for "what is missing" messages;
/// empty for paths the harness does not measure.
fn path_kernels(path: ComputePath) -> &'static [&'static str] {
    match path {
        ComputePath::Fp64 => &["fma_fp64"],
        ComputePath::Fp32 => &["fma_fp32"],
        ComputePath::Fp16 => &["fma_fp16x2", "fma_bf16x2"],
        ComputePath::TensorFp64 => &["gemm_fp64"],
        ComputePath::TensorTf32 => &["gemm_tf32"],
        ComputePath::TensorFp16 => &["gemm_fp16"],
        ComputePath::TensorBf16 => &["gemm_bf16"],
        ComputePath::TensorFp8 => &["gemm_fp8_e4m3", "gemm_fp8_e4m3_fast_accum"],
        _ => &[],
    }
}

/// Lowest compute capability (10 x major + minor) on which the harness
/// measures a path (FP8 tensor cores from 8.9).
fn path_min_cc(path: ComputePath) -> u32 {
    if path == ComputePath::TensorFp8 {
        89
    } else {
        0
    }
}

fn cc_number(cc: &str) -> Option<u32> {
    let (major, minor) = cc.split_once('.')?;
    Some(major.parse::<u32>().ok()?.checked_mul(10)? + minor.parse::<u32>().ok()?)
}

/// Factor from a harness kernel's FLOP (lanes: an `HFMA2` does 2 FMAs =
/// 4 FLOP) to FLOP on its rooftrace compute path. The FP16-cores path counts
/// thread *instructions*, as ncu's SASS counters and half-precision roofline
/// do (an `HFMA2` = 2 FLOP, docs/ncu.md), and the built-in FP16 roofs are
/// halved to match; the packed FMA kernels' lane rates are halved here so a
/// measured FP16 roof is in the same convention. 1 for every other kernel.
pub fn path_flop_per_harness_flop(kernel: &str) -> f64 {
    match kernel {
        "fma_fp16x2" | "fma_bf16x2" => 0.5,
        _ => 1.0,
    }
}

fn is_stable(p: &Point) -> bool {
    p.rate.iqr_fraction() <= STABLE_MAX_IQR_FRACTION
}

/// Significant digits kept in the roofs file: far finer than the ~1 % run
/// to run spread, and short, exactly re-readable numbers.
pub const ROOF_SIGNIFICANT_DIGITS: i32 = 6;

/// Rounds `v` to [`ROOF_SIGNIFICANT_DIGITS`] significant digits.
pub fn round_sig(v: f64) -> f64 {
    if v == 0.0 || !v.is_finite() {
        return v;
    }
    let e = v.abs().log10().floor() as i32 - (ROOF_SIGNIFICANT_DIGITS - 1);
    if e >= 0 {
        let s = 10f64.powi(e);
        (v / s).round() * s
    } else {
        let s = 10f64.powi(-e);
        (v * s).round() / s
    }
}

fn measurement(p: &Point) -> Measurement {
    let scale = path_flop_per_harness_flop(&p.kernel);
    Measurement {
        kernel: p.kernel.clone(),
        shape: p.shape.describe(),
        median: round_sig(p.rate.median * scale),
        iqr: round_sig(p.rate.iqr() * scale),
        samples: p.rate.samples,
        // The clocks the samples ran at, not the driver's maximum: unknown
        // (None) when the harness could not read them.
        sm_clock_hz: p.clocks.as_ref().map(|c| round_sig(c.sm_clock_hz)),
        mem_clock_hz: p.clocks.as_ref().map(|c| round_sig(c.mem_clock_hz)),
        throttle_reasons: p
            .clocks
            .as_ref()
            .map(|c| c.throttle_names())
            .unwrap_or_default(),
        cublaslt_algo: p.algo.as_ref().map(|a| a.describe()),
    }
}

/// The best stable point among `candidates` (highest median; ties go to the
/// earlier line so the choice is deterministic).
fn best<'a>(candidates: impl Iterator<Item = &'a Point>) -> Option<&'a Point> {
    candidates
        .filter(|p| is_stable(p))
        .fold(None, |acc: Option<&Point>, p| match acc {
            Some(b) if b.rate.median >= p.rate.median => Some(b),
            _ => Some(p),
        })
}

fn version(v: u32) -> String {
    format!("{}.{}", v / 1000, (v % 1000) / 10)
}

fn failure_note(f: &Failure) -> String {
    format!(
        "line {}: {} {} failed, skipped: {}",
        f.line,
        f.kernel,
        f.shape.describe(),
        f.error
    )
}

/// Notes for every failed, unstable or unknown point, in file order.
fn point_notes(results: &Results) -> Vec<String> {
    let mut lines: Vec<(usize, String)> = results
        .failures
        .iter()
        .map(|f| (f.line, failure_note(f)))
        .collect();
    for p in &results.points {
        if !is_stable(p) {
            lines.push((
                p.line,
                format!(
                    "line {}: {} {} rejected as unstable (IQR/median {:.1} % > {:.0} %)",
                    p.line,
                    p.kernel,
                    p.shape.describe(),
                    p.rate.iqr_fraction() * 100.0,
                    STABLE_MAX_IQR_FRACTION * 100.0
                ),
            ));
        }
        if p.kind != Kind::Bandwidth && compute_path(&p.kernel).is_none() {
            lines.push((
                p.line,
                format!(
                    "line {}: unknown kernel {:?} ignored (newer harness?)",
                    p.line, p.kernel
                ),
            ));
        }
    }
    lines.sort_by_key(|(line, _)| *line);
    lines.into_iter().map(|(_, n)| n).collect()
}

fn working_set(p: &Point) -> Option<u64> {
    match p.shape {
        Shape::Bandwidth {
            working_set_bytes, ..
        } => Some(working_set_bytes),
        _ => None,
    }
}

fn memory_roof(p: &Point, source: &str) -> MemoryRoof {
    MemoryRoof {
        bytes_per_s: round_sig(p.rate.median),
        origin: Origin::Measured,
        source: source.to_string(),
        measurement: Some(measurement(p)),
    }
}

/// Why no roof came from `kernels`: failed points, unstable points, or none.
fn why_none(results: &Results, kernels: &[&str], what: &str) -> String {
    let failed: Vec<&Failure> = results
        .failures
        .iter()
        .filter(|f| kernels.contains(&f.kernel.as_str()))
        .collect();
    let measured = results
        .points
        .iter()
        .filter(|p| kernels.contains(&p.kernel.as_str()))
        .count();
    let mut reason = match (measured, failed.first()) {
        (0, None) => format!("no {} point in the results", kernels.join("/")),
        (0, Some(f)) => format!(
            "every {} point failed ({} failed; line {}: {})",
            kernels.join("/"),
            failed.len(),
            f.line,
            f.error
        ),
        _ => format!(
            "every {what} is unstable (IQR/median > {:.0} %); rerun on an idle GPU",
            STABLE_MAX_IQR_FRACTION * 100.0
        ),
    };
    if measured > 0 && !failed.is_empty() {
        reason.push_str(&format!("; {} more failed", failed.len()));
    }
    reason
}

/// The DRAM and L2 roofs, or why each is missing.
fn select_memory(results: &Results, roofs: &mut Roofs, missing: &mut Vec<Missing>) {
    let d = &results.device;
    let bandwidth = || results.points.iter().filter(|p| p.kind == Kind::Bandwidth);
    let dram_min = DRAM_MIN_L2_MULTIPLE.saturating_mul(d.l2_bytes);
    let dram_candidates = || bandwidth().filter(|p| working_set(p).is_some_and(|w| w >= dram_min));
    let dram = best(dram_candidates());
    match dram {
        Some(p) => {
            let r = memory_roof(p, &roofs.source);
            roofs.memory.insert(MemoryLevel::Dram, r);
        }
        None => missing.push(Missing {
            roof: MemoryLevel::Dram.key().to_string(),
            reason: {
                let mut r = if dram_candidates().next().is_some() {
                    format!("every bandwidth point with a working set >= {DRAM_MIN_L2_MULTIPLE} x L2 ({dram_min} bytes) is unstable (IQR/median > {:.0} %); rerun on an idle GPU", STABLE_MAX_IQR_FRACTION * 100.0)
                } else {
                    format!("no bandwidth point with a working set >= {DRAM_MIN_L2_MULTIPLE} x L2 ({dram_min} bytes)")
                };
                let failed: Vec<&Failure> = results
                    .failures
                    .iter()
                    .filter(|f| {
                        f.kind == Kind::Bandwidth
                            && matches!(f.shape, Shape::Bandwidth { working_set_bytes, .. } if working_set_bytes >= dram_min)
                    })
                    .collect();
                if let Some(f) = failed.first() {
                    r.push_str(&format!(
                        "; {} such point(s) failed (line {}: {})",
                        failed.len(),
                        f.line,
                        f.error
                    ));
                }
                r
            },
        }),
    }

    // A flushed sample reads its working set from DRAM, and a short launch
    // measures launch overhead: neither says anything about L2.
    let resident = || {
        bandwidth().filter(|p| !p.l2_flush && working_set(p).is_some_and(|w| w <= d.l2_bytes / 2))
    };
    let long_enough = |p: &&Point| p.median_time_s() >= L2_MIN_LAUNCH_S;
    let l2_reason = match best(resident().filter(long_enough)) {
        Some(p) => match roofs.memory.get(&MemoryLevel::Dram) {
            Some(dram) if p.rate.median <= dram.bytes_per_s => Some(format!(
                "line {}: the best L2-resident point ({} {}, {:.3} TB/s) is not above the DRAM roof ({:.3} TB/s), so it did not measure L2 bandwidth; refused",
                p.line,
                p.kernel,
                p.shape.describe(),
                p.rate.median / 1e12,
                dram.bytes_per_s / 1e12
            )),
            _ => {
                let r = memory_roof(p, &roofs.source);
                roofs.memory.insert(MemoryLevel::L2, r);
                None
            }
        },
        None if resident().next().is_none() => Some(format!(
            "no bandwidth point without --l2-flush with a working set <= L2/2 ({} bytes)",
            d.l2_bytes / 2
        )),
        None if resident().any(|p| long_enough(&p)) => Some(format!(
            "every L2-resident point is unstable (IQR/median > {:.0} %); rerun on an idle GPU",
            STABLE_MAX_IQR_FRACTION * 100.0
        )),
        None => Some(format!(
            "every L2-resident point lasts under {:.0} µs per launch, so launch overhead sets its time; rerun with a current rooftrace (its harness reads an L2-resident working set many times per launch)",
            L2_MIN_LAUNCH_S * 1e6
        )),
    };
    if let Some(reason) = l2_reason {
        missing.push(Missing {
            roof: MemoryLevel::L2.key().to_string(),
            reason,
        });
    }
}

/// A note on the clocks the roofs were measured under: unknown (no NVML
/// in the run), or held down by a throttle reason.
fn clock_note(roofs: &Roofs) -> Option<String> {
    let ms: Vec<&Measurement> = roofs
        .memory
        .values()
        .filter_map(|r| r.measurement.as_ref())
        .chain(
            roofs
                .compute
                .values()
                .filter_map(|r| r.measurement.as_ref()),
        )
        .collect();
    if ms.is_empty() {
        return None;
    }
    if ms.iter().any(|m| m.sm_clock_hz.is_none()) {
        return Some("clocks during the run were not recorded (the harness found no NVML, or the file predates it): the roofs do not say which clock they ran at; run on the GPU machine with the NVIDIA driver's libnvidia-ml.so.1, and lock clocks (`nvidia-smi -lgc`) for comparable runs".to_string());
    }
    let mut reasons: Vec<&str> = ms
        .iter()
        .flat_map(|m| m.throttle_reasons.iter().map(String::as_str))
        .filter(|r| *r != "applications_clocks_setting")
        .collect();
    reasons.sort_unstable();
    reasons.dedup();
    (!reasons.is_empty()).then(|| {
        format!(
            "clocks were held down while roofs were measured ({}): those roofs are below what the GPU reaches when cool and within its power limit; see each roof's throttle_reasons",
            reasons.join(", ")
        )
    })
}

/// Selects the roofs from parsed results.
pub fn select_roofs(results: &Results) -> Calibration {
    let d = &results.device;
    let mut roofs = Roofs::new(
        d.name.clone(),
        format!(
            "rooftrace calibrate on {} (cc {}, driver {}, runtime {})",
            d.name,
            d.cc,
            version(d.driver_version),
            version(d.runtime_version)
        ),
    );
    let mut notes = point_notes(results);
    let mut missing = Vec::new();
    select_memory(results, &mut roofs, &mut missing);

    let cc = cc_number(&d.cc);
    for path in ComputePath::ALL {
        let kernels = path_kernels(path);
        let on_path = || {
            results
                .points
                .iter()
                .filter(move |p| compute_path(&p.kernel) == Some(path))
        };
        match best(on_path()) {
            Some(p) => {
                roofs.compute.insert(
                    path,
                    ComputeRoof {
                        flop_per_s: round_sig(
                            p.rate.median * path_flop_per_harness_flop(&p.kernel),
                        ),
                        origin: Origin::Measured,
                        source: roofs.source.clone(),
                        measurement: Some(measurement(p)),
                    },
                );
            }
            // Paths the harness does not measure (INT8, FP64 CUDA cores on
            // some parts ...) or not on this GPU are not "missing".
            None if kernels.is_empty() || cc.is_some_and(|cc| cc < path_min_cc(path)) => {}
            None => missing.push(Missing {
                roof: path.key().to_string(),
                reason: why_none(results, kernels, "point"),
            }),
        }
    }
    notes.extend(
        missing
            .iter()
            .map(|m| format!("no {} roof: {}", m.roof, m.reason)),
    );
    notes.extend(clock_note(&roofs));
    Calibration {
        device: d.clone(),
        roofs,
        notes,
        missing,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DEV: &str = r#""device":{"name":"G","cc":"9.0","sm_count":1,"l2_bytes":1000,"sm_clock_hz":1e9,"mem_clock_hz":1e9,"driver_version":13000,"runtime_version":13000}"#;

    /// A bandwidth line: `ws` bytes of working set read `passes` times
    /// (bytes = ws x passes) in each of the `ns` sample times.
    fn bwp(kernel: &str, ws: u64, passes: u64, ns: &str) -> String {
        format!(
            r#"{{"schema":"rooftrace.calib/1","kernel":"{kernel}","kind":"bandwidth","dtype":"fp32","working_set_bytes":{ws},"passes":{passes},"bytes":{},"flop":0,"sample_ns":{ns},{DEV}}}"#,
            ws * passes
        )
    }

    fn bw(kernel: &str, ws: u64, ns: &str) -> String {
        bwp(kernel, ws, 1, ns)
    }

    fn select(lines: &[String]) -> Calibration {
        select_roofs(&crate::calibrate::results::parse(&lines.join("\n"), "t").unwrap())
    }

    fn note<'a>(cal: &'a Calibration, prefix: &str) -> Option<&'a str> {
        cal.notes
            .iter()
            .find(|n| n.starts_with(prefix))
            .map(String::as_str)
    }

    #[test]
    fn dram_needs_four_times_l2_inclusive() {
        // L2 = 1000 bytes. 3999 bytes in 1 ns would be 3999 GB/s but is below
        // 4 x L2; exactly 4000 bytes in 2 ns (2000 GB/s) qualifies.
        // L2: 500 bytes (<= L2/2) x 100,000 passes = 5e7 bytes in 20,000 ns
        // (20 µs, the shortest launch allowed) = 2500 GB/s, above DRAM.
        let cal = select(&[
            bw("copy", 3999, "[1,1,1]"),
            bw("copy", 4000, "[2,2,2]"),
            bwp("read_sum", 500, 100_000, "[20000,20000,20000]"),
        ]);
        assert_eq!(cal.roofs.memory[&MemoryLevel::Dram].bytes_per_s, 2e12);
        assert_eq!(cal.roofs.memory[&MemoryLevel::L2].bytes_per_s, 2.5e12);
        assert_eq!(
            cal.roofs.memory[&MemoryLevel::L2]
                .measurement
                .as_ref()
                .unwrap()
                .shape,
            "working_set=500,passes=100000"
        );
        assert!(!cal
            .missing
            .iter()
            .any(|m| m.roof == "dram" || m.roof == "l2"));
    }

    #[test]
    fn l2_not_above_dram_is_refused() {
        // DRAM: 4000 bytes in 2 ns = 2000 GB/s. The L2 candidate, 500 bytes
        // x 40,000 passes = 2e7 bytes in 20,000 ns = 1000 GB/s: below DRAM,
        // so it measured something else (launch overhead): no L2 roof.
        let cal = select(&[
            bw("copy", 4000, "[2,2,2]"),
            bwp("read_sum", 500, 40_000, "[20000,20000,20000]"),
        ]);
        assert_eq!(cal.roofs.memory[&MemoryLevel::Dram].bytes_per_s, 2e12);
        assert!(!cal.roofs.memory.contains_key(&MemoryLevel::L2));
        assert_eq!(
            note(&cal, "no l2 roof"),
            Some("no l2 roof: line 2: the best L2-resident point (read_sum working_set=500,passes=40000, 1.000 TB/s) is not above the DRAM roof (2.000 TB/s), so it did not measure L2 bandwidth; refused")
        );
        // Equal is not above either: 500 x 80,000 = 4e7 bytes in 20,000 ns
        // = 2000 GB/s, the DRAM roof itself.
        let cal = select(&[
            bw("copy", 4000, "[2,2,2]"),
            bwp("read_sum", 500, 80_000, "[20000,20000,20000]"),
        ]);
        assert!(!cal.roofs.memory.contains_key(&MemoryLevel::L2));
    }

    #[test]
    fn short_l2_launches_are_refused() {
        // 500 bytes in 1 ns = 500 TB/s, far above DRAM, but a 1 ns launch
        // (< 20 µs) measures launch overhead, not L2.
        let cal = select(&[bw("copy", 4000, "[2,2,2]"), bw("read_sum", 500, "[1,1,1]")]);
        assert!(!cal.roofs.memory.contains_key(&MemoryLevel::L2));
        assert!(note(
            &cal,
            "no l2 roof: every L2-resident point lasts under 20 µs"
        )
        .is_some());
    }

    #[test]
    fn unknown_kernels_and_missing_dram_are_noted() {
        let fma128 = bw("copy", 100, "[1,1,1]")
            .replace(
                r#""copy","kind":"bandwidth""#,
                r#""fma_fp128","kind":"fma""#,
            )
            .replace(r#""working_set_bytes":100"#, r#""r":1,"elements":1"#)
            .replace(r#""flop":0"#, r#""flop":2"#);
        let cal = select(&[bw("copy", 100, "[1,1,1]"), fma128]);
        assert_eq!(
            cal.notes[..2],
            [
                "line 2: unknown kernel \"fma_fp128\" ignored (newer harness?)",
                "no dram roof: no bandwidth point with a working set >= 4 x L2 (4000 bytes)",
            ]
        );
        assert_eq!(
            cal.missing_dram(),
            Some("no bandwidth point with a working set >= 4 x L2 (4000 bytes)")
        );
        assert!(cal.roofs.compute.is_empty());
    }

    #[test]
    fn fp8_is_not_missing_before_cc_8_9() {
        let text = bw("copy", 4000, "[2,2,2]").replace(r#""cc":"9.0""#, r#""cc":"8.0""#);
        let cal = select(&[text]);
        assert!(!cal.missing.iter().any(|m| m.roof == "tensor_fp8"));
        assert!(cal.missing.iter().any(|m| m.roof == "tensor_bf16"));
    }

    #[test]
    fn flushed_points_give_no_l2_roof() {
        // L2 = 1000 bytes. A 500-byte working set (<= L2/2) read 100,000
        // times in 20 µs is 2500 GB/s, but with --l2-flush each sample
        // starts with L2 cold, so the bytes come from DRAM: no L2 roof. The
        // 4000-byte point (4 x L2) in 2 ns stays the DRAM roof, 2000 GB/s.
        let flushed = |ws, passes, ns| {
            bwp("copy", ws, passes, ns).replace(r#""flop":0"#, r#""flop":0,"l2_flush":true"#)
        };
        let cal = select(&[
            flushed(500, 100_000, "[20000,20000,20000]"),
            flushed(4000, 1, "[2,2,2]"),
        ]);
        assert_eq!(cal.roofs.memory[&MemoryLevel::Dram].bytes_per_s, 2e12);
        assert!(!cal.roofs.memory.contains_key(&MemoryLevel::L2));
        assert_eq!(
            note(&cal, "no l2 roof"),
            Some("no l2 roof: no bandwidth point without --l2-flush with a working set <= L2/2 (500 bytes)")
        );
    }

    #[test]
    fn packed_fp16_roof_is_per_instruction() {
        // 1000 half2 lanes x R = 1024: the harness counts 2 x 1024 x 1000 =
        // 2,048,000 lane FLOP in 1000 ns, i.e. 2.048 TFLOP/s of lanes. ncu and the FP16-cores path count an HFMA2
        // as one FMA = 2 FLOP, so the roof is half: 1.024 TFLOP/s. FP32 keeps
        // its rate: 2 x 1024 x 1000 FLOP in 1000 ns = 2.048 TFLOP/s.
        let fma = |kernel: &str, dtype: &str| {
            bw("copy", 4000, "[1000,1000,1000]")
                .replace(
                    r#""copy","kind":"bandwidth","dtype":"fp32""#,
                    &format!(r#""{kernel}","kind":"fma","dtype":"{dtype}""#),
                )
                .replace(
                    r#""working_set_bytes":4000,"passes":1"#,
                    r#""r":1024,"elements":1000"#,
                )
                .replace(r#""flop":0"#, r#""flop":2048000"#)
        };
        let cal = select(&[fma("fma_fp16x2", "fp16"), fma("fma_fp32", "fp32")]);
        let fp16 = &cal.roofs.compute[&ComputePath::Fp16];
        assert_eq!(fp16.flop_per_s, 1.024e12);
        assert_eq!(fp16.measurement.as_ref().unwrap().median, 1.024e12);
        assert_eq!(cal.roofs.compute[&ComputePath::Fp32].flop_per_s, 2.048e12);
    }

    #[test]
    fn rounds_to_six_significant_digits() {
        assert_eq!(round_sig(3_085_000_488_432.201), 3_085_000_000_000.0);
        assert_eq!(round_sig(417_999_998_850_369.6), 418_000_000_000_000.0);
        assert_eq!(round_sig(0.123_456_78), 0.123_457);
        assert_eq!(round_sig(0.0), 0.0);
    }
}
