//! Roof selection: harness results -> measured [`Roofs`].
//!
//! * DRAM bandwidth: the best stable data-moving kernel (`read_sum`, `copy`,
//!   `triad`) whose working set is at least [`DRAM_MIN_L2_MULTIPLE`] x L2.
//! * L2 bandwidth: the best stable data-moving kernel whose working set is at
//!   most half of L2 (so it stays resident between launches), never from an
//!   `--l2-flush` sample.
//! * Compute, per path: the best *stable* point (IQR / median ≤
//!   [`STABLE_MAX_IQR_FRACTION`]) of the kernels on that path.
//!
//! Each roof records the kernel, shape, median, IQR and clocks that gave it.

use super::results::{Device, Kind, Point, Results, Shape};
use crate::roofs::model::{
    ComputePath, ComputeRoof, Measurement, MemoryLevel, MemoryRoof, Origin, Roofs,
};

/// A point is stable when its rate's IQR / median is at most this.
pub const STABLE_MAX_IQR_FRACTION: f64 = 0.10;

/// DRAM bandwidth only from working sets at least this many times L2.
pub const DRAM_MIN_L2_MULTIPLE: u64 = 4;

/// Roofs measured from a results file, plus what the selection skipped.
#[derive(Debug, Clone, PartialEq)]
pub struct Calibration {
    /// The GPU.
    pub device: Device,
    /// The selected roofs (origin = measured).
    pub roofs: Roofs,
    /// Warnings as data: unstable points rejected, paths with no stable
    /// point, unknown kernels; in file order, then memory, then compute paths.
    pub notes: Vec<String>,
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
        "gemm_fp8_e4m3" => ComputePath::TensorFp8,
        _ => return None,
    })
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

fn measurement(p: &Point, d: &Device) -> Measurement {
    let scale = path_flop_per_harness_flop(&p.kernel);
    Measurement {
        kernel: p.kernel.clone(),
        shape: p.shape.describe(),
        median: round_sig(p.rate.median * scale),
        iqr: round_sig(p.rate.iqr() * scale),
        samples: p.rate.samples,
        sm_clock_hz: Some(d.sm_clock_hz),
        mem_clock_hz: Some(d.mem_clock_hz),
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
    let mut notes = Vec::new();
    for p in &results.points {
        if !is_stable(p) {
            notes.push(format!(
                "line {}: {} {} rejected as unstable (IQR/median {:.1} % > {:.0} %)",
                p.line,
                p.kernel,
                p.shape.describe(),
                p.rate.iqr_fraction() * 100.0,
                STABLE_MAX_IQR_FRACTION * 100.0
            ));
        }
        if p.kind != Kind::Bandwidth && compute_path(&p.kernel).is_none() {
            notes.push(format!(
                "line {}: unknown kernel {:?} ignored (newer harness?)",
                p.line, p.kernel
            ));
        }
    }

    let working_set = |p: &Point| match p.shape {
        Shape::Bandwidth { working_set_bytes } => Some(working_set_bytes),
        _ => None,
    };
    let bandwidth = || results.points.iter().filter(|p| p.kind == Kind::Bandwidth);
    let levels = [
        (
            MemoryLevel::Dram,
            best(bandwidth().filter(|p| {
                working_set(p).is_some_and(|w| w >= DRAM_MIN_L2_MULTIPLE * d.l2_bytes)
            })),
            format!("no stable bandwidth point with a working set >= {DRAM_MIN_L2_MULTIPLE} x L2 ({} bytes): no DRAM roof", DRAM_MIN_L2_MULTIPLE * d.l2_bytes),
        ),
        (
            MemoryLevel::L2,
            // A sample after an L2 flush starts cold: its working set comes
            // from DRAM, so it says nothing about L2 bandwidth.
            best(bandwidth().filter(|p| {
                !p.l2_flush && working_set(p).is_some_and(|w| w <= d.l2_bytes / 2)
            })),
            format!(
                "no stable bandwidth point without --l2-flush with a working set <= L2/2 ({} bytes): no L2 roof",
                d.l2_bytes / 2
            ),
        ),
    ];
    for (level, chosen, missing) in levels {
        match chosen {
            Some(p) => {
                roofs.memory.insert(
                    level,
                    MemoryRoof {
                        bytes_per_s: round_sig(p.rate.median),
                        origin: Origin::Measured,
                        source: roofs.source.clone(),
                        measurement: Some(measurement(p, d)),
                    },
                );
            }
            None if bandwidth().next().is_some() => notes.push(missing),
            None => {}
        }
    }

    for path in ComputePath::ALL {
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
                        measurement: Some(measurement(p, d)),
                    },
                );
            }
            None if on_path().next().is_some() => notes.push(format!(
                "{}: every point is unstable (IQR/median > {:.0} %): no roof; rerun on an idle GPU",
                path.key(),
                STABLE_MAX_IQR_FRACTION * 100.0
            )),
            None => {}
        }
    }
    Calibration {
        device: d.clone(),
        roofs,
        notes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bw(kernel: &str, ws: u64, ns: &str) -> String {
        format!(
            r#"{{"schema":"rooftrace.calib/1","kernel":"{kernel}","kind":"bandwidth","dtype":"fp32","working_set_bytes":{ws},"bytes":{ws},"flop":0,"sample_ns":{ns},"device":{{"name":"G","cc":"9.0","sm_count":1,"l2_bytes":1000,"sm_clock_hz":1e9,"mem_clock_hz":1e9,"driver_version":13000,"runtime_version":13000}}}}"#
        )
    }

    #[test]
    fn dram_needs_four_times_l2_inclusive() {
        // L2 = 1000 bytes. 3999 bytes in 1 ns would be 3999 GB/s but is below
        // 4 x L2; exactly 4000 bytes in 2 ns (2000 GB/s) qualifies.
        let text = [
            bw("copy", 3999, "[1,1,1]"),
            bw("copy", 4000, "[2,2,2]"),
            bw("read_sum", 500, "[1,1,1]"),
        ]
        .join("\n");
        let cal = select_roofs(&crate::calibrate::results::parse(&text, "t").unwrap());
        assert_eq!(cal.roofs.memory[&MemoryLevel::Dram].bytes_per_s, 2e12);
        // 500 bytes <= L2/2: the L2 roof, 500 GB/s.
        assert_eq!(cal.roofs.memory[&MemoryLevel::L2].bytes_per_s, 5e11);
        assert!(cal.notes.is_empty(), "{:?}", cal.notes);
    }

    #[test]
    fn unknown_kernels_and_missing_dram_are_noted() {
        let mut text = bw("copy", 100, "[1,1,1]");
        text.push('\n');
        text.push_str(
            &bw("copy", 100, "[1,1,1]")
                .replace(
                    r#""copy","kind":"bandwidth""#,
                    r#""fma_fp128","kind":"fma""#,
                )
                .replace(r#""working_set_bytes":100"#, r#""r":1,"elements":1"#)
                .replace(r#""flop":0"#, r#""flop":2"#),
        );
        let cal = select_roofs(&crate::calibrate::results::parse(&text, "t").unwrap());
        assert_eq!(
            cal.notes,
            [
                "line 2: unknown kernel \"fma_fp128\" ignored (newer harness?)",
                "no stable bandwidth point with a working set >= 4 x L2 (4000 bytes): no DRAM roof",
            ]
        );
        assert!(cal.roofs.compute.is_empty());
    }

    #[test]
    fn flushed_points_give_no_l2_roof() {
        // L2 = 1000 bytes. A 500-byte working set (<= L2/2) read in 1 ns is
        // 500 GB/s, but with --l2-flush each sample starts with L2 cold, so
        // the bytes come from DRAM: no L2 roof. The 4000-byte point (4 x L2)
        // in 2 ns stays the DRAM roof, 2000 GB/s.
        let flushed =
            |ws, ns| bw("copy", ws, ns).replace(r#""flop":0"#, r#""flop":0,"l2_flush":true"#);
        let text = [flushed(500, "[1,1,1]"), flushed(4000, "[2,2,2]")].join("\n");
        let cal = select_roofs(&crate::calibrate::results::parse(&text, "t").unwrap());
        assert_eq!(cal.roofs.memory[&MemoryLevel::Dram].bytes_per_s, 2e12);
        assert!(!cal.roofs.memory.contains_key(&MemoryLevel::L2));
        assert_eq!(
            cal.notes,
            ["no stable bandwidth point without --l2-flush with a working set <= L2/2 (500 bytes): no L2 roof"]
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
                .replace(r#""working_set_bytes":4000"#, r#""r":1024,"elements":1000"#)
                .replace(r#""flop":0"#, r#""flop":2048000"#)
        };
        let text = [fma("fma_fp16x2", "fp16"), fma("fma_fp32", "fp32")].join("\n");
        let cal = select_roofs(&crate::calibrate::results::parse(&text, "t").unwrap());
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
