//! The calibration chart's input (`rooftrace calibrate --plot`): the FMA
//! sweep and the GEMM M sweep under the measured roofs.
//!
//! Points rejected as unstable by the roof selection (IQR / median above
//! [`STABLE_MAX_IQR_FRACTION`]) are left out of the picture too: they did
//! not count for the roofs and may sit above them.

use super::results::{Results, Sweep};
use super::select::{compute_path, path_flop_per_harness_flop, STABLE_MAX_IQR_FRACTION};
use crate::plot::{CalibrationInput, CalibrationPoint, SweepKind};
use crate::roofs::Roofs;

fn stable(median: f64, iqr: f64) -> bool {
    median > 0.0 && iqr / median <= STABLE_MAX_IQR_FRACTION
}

/// Harness kernel of an FMA-sweep dtype (`fp16` runs as packed `fma_fp16x2`).
fn fma_kernel(dtype: &str) -> String {
    match dtype {
        "fp16" | "bf16" => format!("fma_{dtype}x2"),
        _ => format!("fma_{dtype}"),
    }
}

/// Stable FMA-sweep and M-sweep points of `results` under `roofs` (the
/// measured roofs). Square GEMMs and data-moving kernels are not sweep
/// points and are left out; so are dtypes with no known compute path.
pub fn plot_input(results: &Results, roofs: &Roofs) -> CalibrationInput {
    let fma = results.fma_sweep().into_iter().filter_map(|p| {
        let kernel = fma_kernel(&p.dtype);
        // In the roof's FLOP convention (packed FP16 lanes halved), so the
        // points sit under the roof they measured.
        let scale = path_flop_per_harness_flop(&kernel);
        Some(CalibrationPoint {
            sweep: SweepKind::Fma,
            path: compute_path(&kernel)?,
            flop_per_byte: p.intensity_flop_per_byte * scale,
            flop_per_s: p.flop_per_s * scale,
        })
        .filter(|_| stable(p.flop_per_s, p.iqr_flop_per_s))
    });
    let gemm = results
        .gemm_points()
        .into_iter()
        .filter(|p| p.sweep == Sweep::MSweep && stable(p.flop_per_s, p.iqr_flop_per_s))
        .filter_map(|p| {
            Some(CalibrationPoint {
                sweep: SweepKind::MSweep,
                path: compute_path(&p.kernel)?,
                flop_per_byte: p.intensity_flop_per_byte,
                flop_per_s: p.flop_per_s,
            })
        });
    CalibrationInput {
        roofs: roofs.clone(),
        points: fma.chain(gemm).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::roofs::ComputePath;

    #[test]
    fn fma_dtypes_map_to_their_harness_kernels() {
        assert_eq!(compute_path(&fma_kernel("fp32")), Some(ComputePath::Fp32));
        assert_eq!(compute_path(&fma_kernel("fp64")), Some(ComputePath::Fp64));
        assert_eq!(compute_path(&fma_kernel("fp16")), Some(ComputePath::Fp16));
        assert_eq!(compute_path(&fma_kernel("bf16")), Some(ComputePath::Fp16));
        assert_eq!(compute_path(&fma_kernel("int4")), None);
    }

    #[test]
    fn packed_fp16_points_use_the_roofs_flop_convention() {
        // 1000 half2 lanes x R = 1024 in 1000 ns: 2,048,000 lane FLOP over
        // 2 x 2 x 1000 = 4000 bytes, I = 512 lane FLOP/byte at 2.048 TFLOP/s.
        // Counted per HFMA2 instruction (2 FLOP, the FP16 roof's
        // convention): I = 256 at 1.024 TFLOP/s.
        let line = r#"{"schema":"rooftrace.calib/1","kernel":"fma_fp16x2","kind":"fma","dtype":"fp16","r":1024,"elements":1000,"bytes":4000,"flop":2048000,"sample_ns":[1000,1000,1000],"device":{"name":"G","cc":"9.0","sm_count":1,"l2_bytes":1000,"sm_clock_hz":1e9,"mem_clock_hz":1e9,"driver_version":13000,"runtime_version":13000}}"#;
        let results = crate::calibrate::results::parse(line, "t").unwrap();
        let input = plot_input(&results, &Roofs::new("G", "t"));
        assert_eq!(input.points.len(), 1);
        assert_eq!(input.points[0].flop_per_byte, 256.0);
        assert_eq!(input.points[0].flop_per_s, 1.024e12);
    }

    #[test]
    fn stability_uses_the_selection_limit() {
        assert!(stable(100.0, 10.0));
        assert!(!stable(100.0, 10.1));
        assert!(!stable(0.0, 0.0));
    }
}
