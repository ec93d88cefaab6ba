//! The calibration chart (`rooftrace calibrate --plot`): the measured roofs
//! with the FMA-sweep and M-sweep points under them — the whole roofline
//! shape as the reference kernels traced it. [`CalibrationInput::from_results`]
//! is the one adapter from the harness results.

use super::axis::{LogLogFrame, Tick};
use super::labels::{Legend, LegendItem, Obstacles, Rect, Swatch};
use super::roofline::{roof_axes, roof_ticks, roofline_plot_rect, roofs_and_legend, RoofSet};
use super::{draw, style, Chart, PlotError};
use crate::calibrate::results::{Results, Sweep};
use crate::calibrate::select::{compute_path, path_flop_per_harness_flop, STABLE_MAX_IQR_FRACTION};
use crate::roofs::{ComputePath, Roofs};
use plotters::coord::Shift;
use plotters::prelude::*;

/// Which reference sweep a point belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SweepKind {
    /// R dependent FMAs per element read and written (I = 2R / (2·sizeof)):
    /// traces the slope, the rounded ridge and the CUDA-core flat roof.
    Fma,
    /// GEMM with N = K fixed and M growing: from the slope to the tensor roof.
    MSweep,
}

impl SweepKind {
    fn label(self) -> &'static str {
        match self {
            SweepKind::Fma => "FMA sweep",
            SweepKind::MSweep => "M sweep",
        }
    }
}

/// One measured point of a sweep.
#[derive(Debug, Clone, PartialEq)]
pub struct CalibrationPoint {
    /// The sweep.
    pub sweep: SweepKind,
    /// The compute path it exercises (colour and series).
    pub path: ComputePath,
    /// Arithmetic intensity, in FLOP/byte.
    pub flop_per_byte: f64,
    /// Measured throughput, in FLOP/s.
    pub flop_per_s: f64,
}

/// Everything the calibration chart needs.
#[derive(Debug, Clone, PartialEq)]
pub struct CalibrationInput {
    /// The measured roofs (every memory level and compute path is drawn).
    pub roofs: Roofs,
    /// Sweep points, any order.
    pub points: Vec<CalibrationPoint>,
}

/// One sweep series as drawn: points sorted by intensity, joined by a line.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// The sweep.
    pub sweep: SweepKind,
    /// The compute path.
    pub path: ComputePath,
    /// Marker centres, in pixels, by increasing intensity.
    pub points_px: Vec<(i32, i32)>,
}

/// The calibration chart model.
#[derive(Debug, Clone, PartialEq)]
pub struct CalibrationChart {
    /// Canvas size, in pixels.
    pub size_px: (u32, u32),
    /// Title line.
    pub title: String,
    /// Subtitle line.
    pub subtitle: String,
    /// Plot frame and axes.
    pub frame: LogLogFrame,
    /// X ticks (FLOP/byte).
    pub x_ticks: Vec<Tick>,
    /// Y ticks (FLOP/s).
    pub y_ticks: Vec<Tick>,
    /// Roofs and their labels.
    pub roofs: RoofSet,
    /// Sweep series, by (sweep, path).
    pub series: Vec<Series>,
    /// Legend (top-left inside the frame).
    pub legend: Legend,
    /// Points left out because intensity or throughput is not a positive number.
    pub skipped_points: usize,
}

impl CalibrationChart {
    /// Computes the chart.
    pub fn build(input: &CalibrationInput) -> Result<CalibrationChart, PlotError> {
        let valid: Vec<&CalibrationPoint> = input
            .points
            .iter()
            .filter(|p| {
                p.flop_per_byte.is_finite()
                    && p.flop_per_byte > 0.0
                    && p.flop_per_s.is_finite()
                    && p.flop_per_s > 0.0
            })
            .collect();
        let paths: Vec<ComputePath> = input.roofs.compute.keys().copied().collect();
        let xy: Vec<(f64, f64)> = valid
            .iter()
            .map(|p| (p.flop_per_byte, p.flop_per_s))
            .collect();
        let (x, y) = roof_axes(&input.roofs, &paths, &xy)?;
        let frame = LogLogFrame {
            plot: roofline_plot_rect(),
            x,
            y,
        };
        let (x_ticks, y_ticks) = roof_ticks(&frame);

        let mut keys: Vec<(SweepKind, ComputePath)> =
            valid.iter().map(|p| (p.sweep, p.path)).collect();
        keys.sort();
        keys.dedup();
        let series: Vec<Series> = keys
            .iter()
            .map(|&(sweep, path)| {
                let mut pts: Vec<(f64, f64)> = valid
                    .iter()
                    .filter(|p| p.sweep == sweep && p.path == path)
                    .map(|p| (p.flop_per_byte, p.flop_per_s))
                    .collect();
                pts.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
                Series {
                    sweep,
                    path,
                    points_px: pts.iter().map(|&(i, f)| frame.px(i, f)).collect(),
                }
            })
            .collect();
        let items: Vec<LegendItem> = series
            .iter()
            .map(|s| LegendItem {
                swatch: match s.sweep {
                    SweepKind::Fma => Swatch::Dot(style::path_color(s.path)),
                    SweepKind::MSweep => Swatch::Ring(style::path_color(s.path)),
                },
                text: format!("{} {}", s.sweep.label(), s.path.label()),
            })
            .collect();
        // Roof labels keep off the sweep lines and markers.
        let mut sweeps = Obstacles::default();
        for s in &series {
            let pts: Vec<(f64, f64)> = s
                .points_px
                .iter()
                .map(|&(x, y)| (x as f64, y as f64))
                .collect();
            sweeps.segments.extend(pts.windows(2).map(|w| (w[0], w[1])));
            sweeps
                .rects
                .extend(pts.iter().map(|&c| Rect::around(c, 5.0)));
        }
        let (roofs, legend, _) = roofs_and_legend(&input.roofs, &paths, &frame, &items, &sweeps)?;
        Ok(CalibrationChart {
            size_px: style::ROOFLINE_SIZE_PX,
            title: format!("Calibration: {}", input.roofs.gpu),
            subtitle: super::labels::fit_middle(
                "roofs: ",
                if input.roofs.source.is_empty() {
                    "no source line"
                } else {
                    &input.roofs.source
                },
                &format!(" · {} sweep points", valid.len()),
                style::SUBTITLE_FONT,
                style::ROOFLINE_SIZE_PX.0 as i32 - 40,
            )?,
            frame,
            x_ticks,
            y_ticks,
            roofs,
            series,
            legend,
            skipped_points: input.points.len() - valid.len(),
        })
    }
}

impl Chart for CalibrationChart {
    fn size_px(&self) -> (u32, u32) {
        self.size_px
    }

    fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<(), PlotError> {
        draw::canvas(area, &self.title, &self.subtitle, self.size_px.0 as i32 / 2)?;
        draw::log_log_frame(
            area,
            &self.frame,
            &self.x_ticks,
            &self.y_ticks,
            "arithmetic intensity (FLOP/byte)",
            "throughput (FLOP/s)",
        )?;
        self.roofs.draw(area, &self.frame)?;
        for s in &self.series {
            let c = style::path_color(s.path);
            if s.points_px.len() > 1 {
                draw::line(area, s.points_px.clone(), c, 1)?;
            }
            for &p in &s.points_px {
                match s.sweep {
                    SweepKind::Fma => draw::dot(area, p, 4.0, c, 0.9, None)?,
                    SweepKind::MSweep => {
                        draw::dot(area, p, 4.0, style::BACKGROUND, 1.0, Some((c, 2)))?
                    }
                }
            }
        }
        draw::legend(area, &self.legend)
    }
}

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

impl CalibrationInput {
    /// The chart's input: the stable FMA-sweep and M-sweep points of
    /// `results` under `roofs` (the measured roofs). Square GEMMs and
    /// data-moving kernels are not sweep points and are left out; so are
    /// dtypes with no known compute path. Points rejected as unstable by the
    /// roof selection (IQR / median above [`STABLE_MAX_IQR_FRACTION`]) are left
    /// out too: they did not count for the roofs and may sit above them.
    pub fn from_results(results: &Results, roofs: &Roofs) -> CalibrationInput {
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calibrate::select::compute_path;
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
        let input = CalibrationInput::from_results(&results, &Roofs::new("G", "t"));
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
