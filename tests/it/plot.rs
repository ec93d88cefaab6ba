//! Plot models and rendering: SVG snapshots, decoded PNGs, and the
//! `--plot`/`--plot-hist` flags of `rooftrace ncu`, `rooftrace calibrate`
//! and `rooftrace gaps` on real fixtures.

use crate::common;
use rooftrace::gaps::GapClass;
use rooftrace::plot::roofline::RooflineChart;
use rooftrace::plot::{
    render, render_png, render_svg, style, CalibrationChart, CalibrationInput, CalibrationPoint,
    Chart, GapBar, GapHistogram, GapSample, HistogramInput, ImageFormat, KernelPoint, Lane, OpBar,
    OpKind, RooflineInput, SweepKind, TimeOrigin, TimelineChart, TimelineInput, WindowChoice,
    FONT_FAMILY,
};
use rooftrace::roofs::{ComputePath, ComputeRoof, MemoryLevel, MemoryRoof, Origin, Roofs};
use std::path::Path;

const REF: &str = "../shared/reference/roofline-from-measured-data.txt";

/// H100 roofs measured in the reference text ("The Roofline Model, Starting
/// from Measured Data", section 3-4): read-only DRAM bandwidth 3085 GB/s,
/// BF16 tensor 802 TFLOP/s, FP16 tensor 788, TF32 tensor 418, FP64 tensor
/// 64.2, FP32 FMA 61.5 TFLOP/s.
fn h100_roofs() -> Roofs {
    let mut r = Roofs::new(
        "NVIDIA H100 SXM",
        "measured (roofline-from-measured-data, H100)",
    );
    r.memory.insert(
        MemoryLevel::Dram,
        MemoryRoof {
            bytes_per_s: 3085e9,
            origin: Origin::Measured,
            source: REF.into(),
            measurement: None,
        },
    );
    for (p, f) in [
        (ComputePath::TensorBf16, 802e12),
        (ComputePath::TensorFp16, 788e12),
        (ComputePath::TensorTf32, 418e12),
        (ComputePath::TensorFp64, 64.2e12),
        (ComputePath::Fp32, 61.5e12),
    ] {
        r.compute.insert(
            p,
            ComputeRoof {
                flop_per_s: f,
                origin: Origin::Measured,
                source: REF.into(),
                measurement: None,
            },
        );
    }
    r
}

/// The tensor-core GEMM of the ncu 2025.1 corpus file
/// (ncu2025.1_import_metrics_csv_llm_bf16_gemm.csv): 12,532,580,352 tensor
/// FLOP over 17.50 MB of DRAM reads in 111.81 µs, so I = 12.53e9 / 17.5e6 =
/// 716.1 FLOP/byte and P = 12.53e9 / 111.81e-6 = 112.09 TFLOP/s. Time lost
/// against the 802 TFLOP/s roof: 111.81 µs × (1 − 112.09/802) = 96.18 µs.
fn bf16_gemm() -> KernelPoint {
    KernelPoint {
        name: "cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_256x128_32x3_tn_align8".into(),
        flop_per_byte: 12_532_580_352.0 / 17.50e6,
        flop_per_s: 12_532_580_352.0 / 111.81e-6,
        duration_ns: Some(111_810.0),
        time_lost_ns: Some(111_810.0 * (1.0 - 12_532_580_352.0 / 111.81e-6 / 802e12)),
        path: Some(ComputePath::TensorBf16),
        above_roof: false,
        useful: false,
        not_drawn: None,
    }
}

/// An illustrative decode step on the H100 roofs (batch 1, bf16 weights):
/// the linear layers sit near I ≈ 1 FLOP/byte at 50-90 % of the DRAM slope
/// (reference section 5: "gate, up and down reach over 80 % of the slope and
/// q and o about half"), plus FP32 element-wise kernels at I ≈ 0.25.
fn decode_step() -> Vec<KernelPoint> {
    let b = 3085e9;
    let mut pts = vec![bf16_gemm()];
    // (name, I, fraction of slope, duration µs, path)
    let rows: [(&str, f64, f64, f64, ComputePath); 12] = [
        ("gate_proj", 0.99, 0.84, 420.0, ComputePath::TensorBf16),
        ("up_proj", 0.99, 0.83, 418.0, ComputePath::TensorBf16),
        ("down_proj", 0.99, 0.81, 430.0, ComputePath::TensorBf16),
        ("q_proj", 0.98, 0.52, 120.0, ComputePath::TensorBf16),
        ("o_proj", 0.98, 0.49, 125.0, ComputePath::TensorBf16),
        ("k_proj", 0.95, 0.21, 60.0, ComputePath::TensorBf16),
        ("v_proj", 0.95, 0.20, 61.0, ComputePath::TensorBf16),
        ("rms_norm", 0.31, 0.35, 40.0, ComputePath::Fp32),
        ("rotary_embedding", 0.42, 0.18, 22.0, ComputePath::Fp32),
        ("silu_and_mul", 0.17, 0.61, 55.0, ComputePath::Fp32),
        (
            "flash_attn_decode",
            1.9,
            0.38,
            150.0,
            ComputePath::TensorBf16,
        ),
        ("lm_head", 1.0, 0.88, 240.0, ComputePath::TensorBf16),
    ];
    for (name, i, frac, us, path) in rows {
        let duration_ns = us * 1e3;
        pts.push(KernelPoint {
            name: name.into(),
            flop_per_byte: i,
            flop_per_s: frac * b * i,
            duration_ns: Some(duration_ns),
            time_lost_ns: Some(duration_ns * (1.0 - frac)),
            path: Some(path),
            above_roof: false,
            useful: false,
            not_drawn: None,
        });
    }
    // A point above its roof (e.g. L2 hits counted as DRAM misses).
    pts.push(KernelPoint {
        name: "embedding_lookup".into(),
        flop_per_byte: 0.05,
        flop_per_s: 1.3 * b * 0.05,
        duration_ns: Some(9_000.0),
        time_lost_ns: Some(0.0),
        path: Some(ComputePath::Fp32),
        above_roof: true,
        useful: false,
        not_drawn: None,
    });
    pts
}

/// The calibration sweeps drawn from the reference's description of H100
/// (section 4): the FMA sweep reads and writes 4-byte FP32 elements with R
/// FMAs each, so I = 2R / 8 = R/4 FLOP/byte, and follows min(B·I, F) with
/// the slope at ~88 % of B and a rounded corner; the BF16 M sweep (N = K =
/// 8192) has I ≈ M on the slope. The throughputs are that model, not
/// measurements: the picture's shape, to be replaced by real calibrate
/// output after the merge.
fn h100_sweeps() -> Vec<CalibrationPoint> {
    let (b, f32_roof, bf16_roof): (f64, f64, f64) = (3085e9, 61.5e12, 802e12);
    let mut pts = Vec::new();
    for k in 0..12 {
        let r = 2f64.powi(k);
        let i = r / 4.0;
        // A smooth min: the corner sits ~30 % below the sharp ridge.
        let (s, f) = (0.88 * b * i, f32_roof * 0.97);
        pts.push(CalibrationPoint {
            sweep: SweepKind::Fma,
            path: ComputePath::Fp32,
            flop_per_byte: i,
            flop_per_s: 1.0 / (1.0 / s.powi(2) + 1.0 / f.powi(2)).sqrt(),
        });
    }
    for m in [1.0f64, 2.0, 8.0, 32.0, 128.0, 512.0, 2048.0, 8192.0] {
        let (n, k) = (8192.0, 8192.0);
        let i = 2.0 * m * n * k / (2.0 * (m * k + k * n + m * n));
        let (s, f) = (0.85 * b * i, bf16_roof * 0.93);
        pts.push(CalibrationPoint {
            sweep: SweepKind::MSweep,
            path: ComputePath::TensorBf16,
            flop_per_byte: i,
            flop_per_s: 1.0 / (1.0 / s.powi(2) + 1.0 / f.powi(2)).sqrt(),
        });
    }
    pts
}

fn small_roofline() -> RooflineInput {
    let mut pts = vec![bf16_gemm()];
    pts.push(KernelPoint {
        name: "rms_norm".into(),
        flop_per_byte: 0.31,
        flop_per_s: 0.35 * 3085e9 * 0.31,
        duration_ns: Some(40_000.0),
        time_lost_ns: Some(26_000.0),
        path: Some(ComputePath::Fp32),
        above_roof: false,
        useful: false,
        not_drawn: None,
    });
    RooflineInput {
        roofs: h100_roofs(),
        points: pts,
        top_n: 5,
    }
}

/// Two lanes of one GPU: a device lane with the gaps and a stream lane with
/// the ops. Times in ns: kernel 0..40 µs, gap 40..55 µs (host-bound),
/// memcpy 55..60 µs, gap 60..62 µs (launch latency), kernel 62..100 µs.
fn small_timeline() -> TimelineInput {
    let op = |start_us: i64, end_us: i64, kind, name: &str| OpBar {
        lane: 1,
        start_ns: 1_000_000_000 + start_us * 1000,
        end_ns: 1_000_000_000 + end_us * 1000,
        kind,
        name: name.into(),
    };
    let gap = |start_us: i64, end_us: i64, class| GapBar {
        lane: 0,
        start_ns: 1_000_000_000 + start_us * 1000,
        end_ns: 1_000_000_000 + end_us * 1000,
        class,
    };
    TimelineInput {
        title: "small.sqlite".into(),
        lanes: vec![
            Lane {
                label: "GPU 0 idle".into(),
            },
            Lane {
                label: "GPU 0 stream 7".into(),
            },
        ],
        ops: vec![
            op(0, 40, OpKind::Kernel, "gemm"),
            op(55, 60, OpKind::Memcpy, "HtoD"),
            op(62, 100, OpKind::Kernel, "softmax"),
        ],
        gaps: vec![
            gap(40, 55, GapClass::HostBound),
            gap(60, 62, GapClass::LaunchLatency),
        ],
        window: WindowChoice::Busiest { width_ns: None },
        origin: TimeOrigin {
            ns: 1_000_000_000,
            what: "the first GPU op".into(),
            date: None,
        },
    }
}

#[test]
fn timeline_legend_leaves_out_a_kind_drawn_in_no_lane_shown() {
    // A memset on a lane past the 24 drawn: in the window, drawn nowhere,
    // so not in the legend (it was listed before).
    let mut input = small_timeline();
    for i in 2..=rooftrace::plot::timeline::MAX_LANES {
        input.lanes.push(Lane {
            label: format!("GPU 0 stream {i}"),
        });
    }
    input.ops.push(OpBar {
        lane: input.lanes.len() - 1,
        start_ns: 1_000_000_000 + 10_000,
        end_ns: 1_000_000_000 + 20_000,
        kind: OpKind::Memset,
        name: "memset".into(),
    });
    let c = TimelineChart::build(&input).unwrap();
    assert_eq!(c.hidden_lanes, 1);
    let legend: Vec<&str> = c.legend.items.iter().map(|i| i.text.as_str()).collect();
    assert_eq!(
        legend,
        ["kernel", "memcpy", "gap: host-bound", "gap: launch latency"],
        "{legend:?}"
    );
}

fn small_histogram() -> HistogramInput {
    let g = |d: f64, class| GapSample {
        duration_ns: d,
        class,
    };
    HistogramInput {
        title: "small.sqlite".into(),
        gaps: vec![
            g(1_800.0, GapClass::LaunchLatency),
            g(2_400.0, GapClass::LaunchLatency),
            g(2_900.0, GapClass::LaunchInFlight),
            g(15_000.0, GapClass::HostBound),
            g(15_000.0, GapClass::HostBound),
            g(120_000.0, GapClass::Synchronization),
        ],
        edges_ns: rooftrace::gaps::HIST_EDGES_NS.to_vec(),
    }
}

#[test]
fn roofline_model_axes_ridges_and_labels() {
    let chart = RooflineChart::build(&small_roofline()).unwrap();
    // x: lowest of the points (0.31) and FP32 ridge / 10 (19.94 / 10 = 1.99)
    // over 1.5 = 0.207 -> 10^-1; highest of 716 and BF16 ridge × 4 (1040)
    // times 1.5 = 1560 -> 10^4.
    assert_eq!((chart.frame.x.lo_exp, chart.frame.x.hi_exp), (-1, 4));
    // y: the slope at the left edge, 3085e9 × 0.1 = 308.5 GFLOP/s, is below
    // rms_norm (0.35 × 3085e9 × 0.31 = 334.7 GFLOP/s); / 1.5 = 205.7 GFLOP/s
    // -> 10^11; 802 TFLOP/s × 1.2 = 962 TFLOP/s -> 10^15.
    assert_eq!((chart.frame.y.lo_exp, chart.frame.y.hi_exp), (11, 15));
    let labels: Vec<&str> = chart.y_ticks.iter().map(|t| t.label.as_str()).collect();
    assert_eq!(
        labels,
        [
            "100 GFLOP/s",
            "1 TFLOP/s",
            "10 TFLOP/s",
            "100 TFLOP/s",
            "1 PFLOP/s"
        ]
    );
    // Flat roofs only for the paths the kernels use, highest first; ridge
    // I* = F / B: 802e12 / 3085e9 = 259.97, 61.5e12 / 3085e9 = 19.94.
    let flat: Vec<ComputePath> = chart.roofs.flat.iter().map(|f| f.path).collect();
    assert_eq!(flat, [ComputePath::TensorBf16, ComputePath::Fp32]);
    let ridges: Vec<f64> = chart.roofs.ridges.iter().map(|r| r.flop_per_byte).collect();
    assert!((ridges[0] - 259.97).abs() < 0.01 && (ridges[1] - 19.935).abs() < 0.01);
    assert_eq!(
        chart.roofs.flat[0].label,
        "BF16 tensor 802 TFLOP/s (measured), ridge 260 FLOP/B"
    );
    // The DRAM slope ends where it meets the highest flat roof.
    assert_eq!(chart.roofs.sloped.len(), 1);
    assert!((chart.roofs.sloped[0].to_flop_per_byte - 259.97).abs() < 0.01);
    assert_eq!(chart.roofs.sloped[0].label, "DRAM 3.08 TB/s (measured)");
    // Every roof label found a spot.
    assert!(chart.roofs.flat.iter().all(|f| f.label_rect.is_some()));
    assert!(chart.roofs.sloped.iter().all(|s| s.label_rect.is_some()));
    // Marker area ∝ time: the GEMM (111.81 µs) gets the largest radius,
    // rms_norm (40 µs) sqrt(40 / 111.81) = 0.598 of it.
    let gemm = &chart.points[0];
    assert!(gemm.name.starts_with("cutlass"));
    assert_eq!(gemm.radius_px, style::MARKER_MAX_RADIUS_PX);
    let ratio = chart.points[1].radius_px / gemm.radius_px;
    assert!((ratio - 0.598).abs() < 0.001, "{ratio}");
    // Both labelled, the GEMM with its 96.2 µs lost (computed in bf16_gemm).
    let text = &gemm.label.as_ref().unwrap().text;
    assert!(text.ends_with("(96.2 µs lost)"), "{text}");
    assert!(chart.unplaced_labels.is_empty());
}

#[test]
fn roofline_draws_one_slope_per_memory_level() {
    let mut input = small_roofline();
    // An L2 roof at twice the DRAM bandwidth (6170 GB/s, a round test value).
    input.roofs.memory.insert(
        MemoryLevel::L2,
        MemoryRoof {
            bytes_per_s: 2.0 * 3085e9,
            origin: Origin::File,
            source: String::new(),
            measurement: None,
        },
    );
    let chart = RooflineChart::build(&input).unwrap();
    let levels: Vec<MemoryLevel> = chart.roofs.sloped.iter().map(|s| s.level).collect();
    assert_eq!(levels, [MemoryLevel::Dram, MemoryLevel::L2]);
    // Each slope ends on the highest flat roof: 802e12 / 6170e9 = 129.98.
    let l2 = &chart.roofs.sloped[1];
    assert!((l2.to_flop_per_byte - 129.98).abs() < 0.01);
    assert_eq!(l2.label, "L2 6.17 TB/s (file)");
    // Flat roofs still start at their ridge with the slowest level (DRAM),
    // and ridges are marked only there.
    assert!((chart.roofs.flat[0].from_flop_per_byte - 259.97).abs() < 0.01);
    assert!(chart
        .roofs
        .ridges
        .iter()
        .all(|r| r.level == MemoryLevel::Dram));
    // The legend crosses no roof line (a free corner exists here).
    let lines = chart.roofs.segments_px(&chart.frame);
    let legend = chart.legend.rect;
    assert!(lines
        .iter()
        .all(|&(a, b)| !rooftrace::plot::labels::segment_hits_rect(a, b, &legend)));
    // Every roof is named: on the plot or, failing that, in the legend.
    for f in &chart.roofs.flat {
        let in_legend = chart.legend.items.iter().any(|i| i.text == f.label);
        assert!(f.label_rect.is_some() != in_legend, "{}", f.label);
    }
    for s in &chart.roofs.sloped {
        let in_legend = chart.legend.items.iter().any(|i| i.text == s.label);
        assert!(s.label_rect.is_some() != in_legend, "{}", s.label);
    }
}

#[test]
fn roofline_labels_only_top_n_by_time_lost_and_never_overlap() {
    let mut input = RooflineInput {
        roofs: h100_roofs(),
        points: decode_step(),
        top_n: 4,
    };
    let chart = RooflineChart::build(&input).unwrap();
    let mut labelled: Vec<&str> = chart
        .points
        .iter()
        .filter(|p| p.label.is_some())
        .map(|p| p.name.as_str())
        .collect();
    labelled.sort();
    // Time lost (duration × (1 − fraction)): the GEMM 96.2 µs,
    // flash_attn_decode 150 × 0.62 = 93.0, down_proj 430 × 0.19 = 81.7,
    // up_proj 418 × 0.17 = 71.1; gate_proj 67.2 is fifth.
    assert_eq!(
        labelled,
        [
            "cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_256x128_32x3_tn_align8",
            "down_proj",
            "flash_attn_decode",
            "up_proj"
        ]
    );
    // With every kernel labelled, no two labels, roof labels or the legend
    // overlap, and all stay inside the frame.
    input.top_n = 100;
    let chart = RooflineChart::build(&input).unwrap();
    let mut boxes: Vec<_> = chart
        .points
        .iter()
        .filter_map(|p| p.label.as_ref().map(|l| l.rect))
        .collect();
    assert!(boxes.len() + chart.unplaced_labels.len() == input.points.len());
    assert!(boxes.len() >= 12, "only {} labels placed", boxes.len());
    boxes.extend(chart.roofs.flat.iter().filter_map(|f| f.label_rect));
    boxes.extend(chart.roofs.sloped.iter().filter_map(|s| s.label_rect));
    boxes.push(chart.legend.rect);
    for (i, a) in boxes.iter().enumerate() {
        assert!(chart.frame.plot.contains(a), "{a:?} leaves the frame");
        for b in &boxes[i + 1..] {
            assert!(!a.overlaps(b), "{a:?} overlaps {b:?}");
        }
    }
    // The point above its roof is kept and flagged.
    assert!(chart.points.iter().any(|p| p.above_roof));
}

#[test]
fn roofline_svg_snapshot() {
    let svg = render_svg(&RooflineChart::build(&small_roofline()).unwrap()).unwrap();
    insta::assert_snapshot!("roofline_small_svg", svg);
}

#[test]
fn timeline_svg_snapshot() {
    let chart = TimelineChart::build(&small_timeline()).unwrap();
    // 100 µs of ops: fewer than 150, so the busiest window is the whole
    // span, rounded up to the nice axis end (0..100 µs in steps of 20).
    assert_eq!(chart.window_ns, (1_000_000_000, 1_000_100_000));
    assert_eq!(chart.axis_title, "time since window start (µs)");
    // The frame is 250..1179 px (929 px for 100 µs, 9.29 px/µs): the first
    // kernel 0..40 µs ends at 250 + 371.6 -> 622, the host-bound gap
    // 40..55 µs spans 622..761 on the gap lane, the memcpy 55..60 µs
    // 761..807 in the lower third of the stream lane.
    use rooftrace::plot::timeline::BarWhat;
    let spans: Vec<(i32, i32, BarWhat)> = chart
        .bars
        .iter()
        .map(|b| (b.rect.left, b.rect.right, b.what))
        .collect();
    assert_eq!((chart.plot.left, chart.plot.right), (250, 1179));
    assert!(spans.contains(&(250, 622, BarWhat::Op(OpKind::Kernel))));
    assert!(spans.contains(&(622, 761, BarWhat::Gap(GapClass::HostBound))));
    assert!(spans.contains(&(761, 807, BarWhat::Op(OpKind::Memcpy))));
    assert_eq!(spans.len(), 5);
    insta::assert_snapshot!("timeline_small_svg", render_svg(&chart).unwrap());
}

#[test]
fn histogram_svg_snapshot() {
    let chart = GapHistogram::build(&small_histogram()).unwrap();
    insta::assert_snapshot!("gaps_hist_small_svg", render_svg(&chart).unwrap());
}

#[test]
fn calibration_svg_snapshot() {
    let chart = CalibrationChart::build(&CalibrationInput {
        roofs: h100_roofs(),
        points: h100_sweeps(),
    })
    .unwrap();
    // Every roof of the file is drawn, whatever the sweeps exercised.
    assert_eq!(chart.roofs.flat.len(), 5);
    assert_eq!(chart.series.len(), 2);
    // FP64 tensor (64.2) and FP32 (61.5), FP16 (788) and BF16 (802) sit a
    // few pixels apart: each roof is named exactly once, on the plot or in
    // the legend.
    for f in &chart.roofs.flat {
        let in_legend = chart.legend.items.iter().any(|i| i.text == f.label);
        assert!(f.label_rect.is_some() != in_legend, "{}", f.label);
    }
    insta::assert_snapshot!("calibration_h100_svg", render_svg(&chart).unwrap());
}

/// Equal roofs are one line with one label; kernels that cannot be placed
/// are counted in the caption, with the top ones by time lost named.
#[test]
fn equal_roofs_drawn_once_and_undrawn_kernels_captioned() {
    // GH200 (96 GB) has datasheet values only: FP16 and BF16 tensor are both
    // 989.5 TFLOP/s.
    let roofs = rooftrace::roofs::gpus::by_key("gh200")
        .unwrap()
        .default_roofs();
    let b = 4000e9;
    let point = |name: &str, path, i: f64, lost: f64| KernelPoint {
        name: name.into(),
        flop_per_byte: i,
        flop_per_s: 0.5 * b * i,
        duration_ns: Some(100e3),
        time_lost_ns: Some(lost),
        path: Some(path),
        above_roof: false,
        useful: false,
        not_drawn: None,
    };
    let mut points = vec![
        point("fp16_gemm", ComputePath::TensorFp16, 300.0, 50e3),
        point("bf16_gemm", ComputePath::TensorBf16, 400.0, 40e3),
    ];
    // Two kernels without FLOP counters lose the most time; one with 0 DRAM
    // bytes the least.
    for (name, lost, why) in [
        ("gemv_no_flops", 90e3, "no FLOP counters"),
        ("softmax_no_flops", 80e3, "no FLOP counters"),
        ("l2_resident", 1e3, "0 DRAM bytes"),
    ] {
        points.push(KernelPoint {
            name: name.into(),
            flop_per_byte: 0.0,
            flop_per_s: 0.0,
            duration_ns: Some(100e3),
            time_lost_ns: Some(lost),
            path: None,
            above_roof: false,
            useful: false,
            not_drawn: Some(why),
        });
    }
    let chart = RooflineChart::build(&RooflineInput {
        roofs,
        points,
        top_n: 3,
    })
    .unwrap();
    assert_eq!(chart.roofs.flat.len(), 1, "{:?}", chart.roofs.flat);
    let f = &chart.roofs.flat[0];
    assert_eq!(f.same_as, vec![ComputePath::TensorBf16]);
    // Ridge 989.5e12 / 4000e9 = 247.4 FLOP/byte.
    assert_eq!(
        f.label,
        "FP16 tensor = BF16 tensor 990 TFLOP/s (datasheet), ridge 247 FLOP/B"
    );
    assert_eq!(chart.roofs.ridges.len(), 1);
    // Top 3 by time lost: gemv (90 µs), softmax (80 µs), fp16_gemm (50 µs).
    assert_eq!(
        chart.caption.as_deref(),
        Some(
            "3 of 5 kernels not drawn: 0 DRAM bytes (1), no FLOP counters (2); of the top 3 by time lost: gemv_no_flops, softmax_no_flops"
        )
    );
    let svg = render_svg(&chart).unwrap();
    assert!(svg.contains("3 of 5 kernels not drawn"), "caption drawn");
}

/// Decodes a PNG and checks its size and that it holds a drawing: mostly
/// white background, but a real share of non-white pixels in several colours.
fn check_png(png: &[u8], size: (u32, u32), must_contain: [u8; 3]) {
    let mut reader = png::Decoder::new(png).read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!((info.width, info.height), size);
    assert_eq!(
        (info.color_type, info.bit_depth),
        (png::ColorType::Rgb, png::BitDepth::Eight)
    );
    let pixels: Vec<[u8; 3]> = buf[..info.buffer_size()]
        .chunks_exact(3)
        .map(|p| [p[0], p[1], p[2]])
        .collect();
    let total = (size.0 * size.1) as usize;
    assert_eq!(pixels.len(), total);
    let inked = pixels.iter().filter(|p| **p != [255, 255, 255]).count();
    assert!(inked > total / 100, "only {inked} of {total} pixels drawn");
    assert!(
        inked < total / 2,
        "{inked} of {total} pixels drawn: background missing?"
    );
    let found = pixels.contains(&must_contain);
    assert!(found, "colour {must_contain:?} not in the image");
}

fn rgb(c: plotters::style::RGBColor) -> [u8; 3] {
    [c.0, c.1, c.2]
}

#[test]
fn pngs_decode_with_their_size_and_are_not_blank() {
    let roof = RooflineChart::build(&small_roofline()).unwrap();
    check_png(
        &render_png(&roof).unwrap(),
        style::ROOFLINE_SIZE_PX,
        // The BF16 roof line is drawn opaque in its path colour.
        rgb(style::path_color(ComputePath::TensorBf16)),
    );
    let tl = TimelineChart::build(&small_timeline()).unwrap();
    // 2 lanes × 44 px = 88 px, but the legend (kernel, memcpy, 2 gap
    // classes: 4 × 24 + 10 = 106 px) and the 120 px minimum set the lane
    // area: 80 + 120 + 80 = 280 px high.
    assert_eq!(tl.size_px(), (1400, 280));
    check_png(
        &render_png(&tl).unwrap(),
        (1400, 280),
        rgb(style::gap_color(GapClass::HostBound)),
    );
    let h = GapHistogram::build(&small_histogram()).unwrap();
    check_png(
        &render_png(&h).unwrap(),
        style::HISTOGRAM_SIZE_PX,
        rgb(style::gap_color(GapClass::Synchronization)),
    );
    let c = CalibrationChart::build(&CalibrationInput {
        roofs: h100_roofs(),
        points: h100_sweeps(),
    })
    .unwrap();
    check_png(
        &render(&c, ImageFormat::Png).unwrap(),
        style::ROOFLINE_SIZE_PX,
        rgb(style::path_color(ComputePath::Fp32)),
    );
}

#[test]
fn same_input_same_bytes() {
    let a = RooflineChart::build(&small_roofline()).unwrap();
    let b = RooflineChart::build(&small_roofline()).unwrap();
    assert_eq!(a, b);
    assert_eq!(render_png(&a).unwrap(), render_png(&b).unwrap());
    assert_eq!(render_svg(&a).unwrap(), render_svg(&b).unwrap());
}

#[test]
fn svg_text_uses_only_the_embedded_font_family() {
    // Text is measured with the embedded DejaVu Sans (no fontconfig); the
    // SVG names that family first, so no other font can shift the layout.
    let svg = render_svg(&RooflineChart::build(&small_roofline()).unwrap()).unwrap();
    let families: std::collections::BTreeSet<&str> = svg
        .split("font-family=\"")
        .skip(1)
        .filter_map(|rest| rest.split('"').next())
        .collect();
    assert_eq!(families.into_iter().collect::<Vec<_>>(), [FONT_FAMILY]);
    assert!(svg.matches("<text").count() > 20);
    // Demangled C++ names are escaped, not markup.
    let mut input = small_roofline();
    input.points[1].name = "void k<float, 4>(T&)".into();
    let svg = render_svg(&RooflineChart::build(&input).unwrap()).unwrap();
    assert!(svg.contains("void k&lt;float, 4&gt;(T&amp;) (26.0 µs lost)"));
}

#[test]
fn empty_inputs_are_errors_not_panics() {
    let input = RooflineInput {
        roofs: Roofs::new("g", ""),
        points: vec![],
        top_n: 5,
    };
    let e = RooflineChart::build(&input).unwrap_err().to_string();
    assert!(e.starts_with("nothing to plot"), "{e}");
    let h = HistogramInput {
        title: "t".into(),
        gaps: vec![],
        edges_ns: rooftrace::gaps::HIST_EDGES_NS.to_vec(),
    };
    assert!(GapHistogram::build(&h).is_err());
    let mut t = small_timeline();
    t.ops.clear();
    assert!(TimelineChart::build(&t).is_err());
}

#[test]
fn image_format_from_extension() {
    assert_eq!(
        ImageFormat::from_path(Path::new("a/roof.SVG")),
        Some(ImageFormat::Svg)
    );
    assert_eq!(
        ImageFormat::from_path(Path::new("roof.png")),
        Some(ImageFormat::Png)
    );
    assert_eq!(ImageFormat::from_path(Path::new("roof.pdf")), None);
    assert_eq!(ImageFormat::from_path(Path::new("roof")), None);
}

#[test]
fn chart_trait_reports_fixed_sizes() {
    let r = RooflineChart::build(&small_roofline()).unwrap();
    assert_eq!(r.size_px(), (1200, 800));
}

// ---- The commands' `--plot`: real fixtures through the real binary. ----

const BF16_GEMM: &str = "fixtures/ncu/bf16_gemm_ncu2025.1_import_details20.csv";
const SGEMM_A100: &str = "fixtures/ncu/sgemm_a100_printfp_details15.csv";
const H100_RESULTS: &str = "fixtures/calibrate/h100-published.jsonl";

/// Runs `rooftrace` and insists on exit 0.
fn ok(args: &[&str]) -> String {
    let (code, out, err) = common::rooftrace(args);
    assert_eq!(code, 0, "rooftrace {args:?} failed: {err}");
    out
}

fn tmp() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn ncu_plot_svg_snapshot() {
    let dir = tmp();
    let svg = dir.path().join("x.svg");
    let with = ok(&["ncu", BF16_GEMM, "--gpu", "rtx5090", "--plot", s(&svg)]);
    // The plot is a side output: the table on stdout is the same without it.
    assert_eq!(with, ok(&["ncu", BF16_GEMM, "--gpu", "rtx5090"]));
    let text = std::fs::read_to_string(&svg).unwrap();
    // One kernel: the CUTLASS BF16 GEMM at I = 716 FLOP/byte on the CC 12.0
    // RTX 5090 (BF16 tensor 209.5 TFLOP/s), labelled with its time lost:
    // 111.81 µs − 12,532,580,352 FLOP / 209.5e12 FLOP/s = 111.81 − 59.82 = 52.0 µs.
    assert!(text.contains("(52.0 µs lost)"), "label missing");
    insta::assert_snapshot!("ncu_plot_bf16_gemm_rtx5090_svg", text);
}

#[test]
fn calibrate_plot_svg_snapshot() {
    let dir = tmp();
    let svg = dir.path().join("roofs.svg");
    ok(&["calibrate", "--from", H100_RESULTS, "--plot", s(&svg)]);
    let text = std::fs::read_to_string(&svg).unwrap();
    // Stable sweep points of the fixture: FMA FP32 R = 1, 64, 256 and the
    // FP16 M sweep M = 4, 8 (R = 2048, fp16x2 and BF16 M = 8192 are
    // unstable and left out, like the roof selection leaves them out).
    assert!(text.contains("· 5 sweep points"), "subtitle");
    insta::assert_snapshot!("calibrate_plot_h100_published_svg", text);
}

#[test]
fn plot_pngs_from_the_commands_decode_and_are_not_blank() {
    let dir = tmp();
    let roof = dir.path().join("roof.png");
    ok(&["ncu", SGEMM_A100, "--gpu", "a100-40gb", "--plot", s(&roof)]);
    // All three launches are FP32-core kernels: their colour must be there.
    check_png(
        &std::fs::read(&roof).unwrap(),
        style::ROOFLINE_SIZE_PX,
        rgb(style::path_color(ComputePath::Fp32)),
    );
    let cal = dir.path().join("ROOFS.PNG");
    ok(&["calibrate", "--from", H100_RESULTS, "--plot", s(&cal)]);
    check_png(
        &std::fs::read(&cal).unwrap(),
        style::ROOFLINE_SIZE_PX,
        rgb(style::path_color(ComputePath::TensorBf16)),
    );
}

#[test]
fn markdown_embeds_the_plot_link() {
    let dir = tmp();
    std::fs::create_dir(dir.path().join("img")).unwrap();
    let png = dir.path().join("img").join("roof.png");
    let md = dir.path().join("report.md");
    ok(&[
        "ncu",
        BF16_GEMM,
        "--gpu",
        "rtx5090",
        "--plot",
        s(&png),
        "--format",
        "md",
        "-o",
        s(&md),
    ]);
    assert!(png.is_file());
    let text = std::fs::read_to_string(&md).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    // Verdict first, then the image, relative to the report's directory.
    assert!(lines[0].contains("of the BF16 tensor roof"), "{}", lines[0]);
    assert_eq!(lines[2], "![roofline](img/roof.png)");

    // To stdout: the path exactly as given (relative to the working directory).
    std::fs::create_dir(dir.path().join("plots")).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_rooftrace"))
        .args([
            "ncu",
            s(&common::root().join(BF16_GEMM)),
            "--gpu",
            "rtx5090",
        ])
        .args(["--plot", "plots/r.svg", "--format", "md"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.lines().nth(2), Some("![roofline](plots/r.svg)"));
    assert!(dir.path().join("plots/r.svg").is_file());

    // calibrate's report goes to stdout (`-o` is the roofs file): path as given.
    let cal = dir.path().join("roofs.svg");
    let out = ok(&[
        "calibrate",
        "--from",
        H100_RESULTS,
        "--plot",
        s(&cal),
        "--format",
        "md",
    ]);
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].starts_with("NVIDIA H100 80GB HBM3: DRAM 3.08 TB/s (92 % of datasheet)"));
    assert_eq!(lines[2], format!("![measured roofs]({})", s(&cal)));
    assert!(cal.is_file());
}

#[test]
fn plot_with_an_unknown_extension_is_exit_2_before_any_work() {
    let dir = tmp();
    let pdf = dir.path().join("roof.pdf");
    for args in [
        vec!["ncu", BF16_GEMM, "--gpu", "rtx5090", "--plot", s(&pdf)],
        vec!["calibrate", "--from", H100_RESULTS, "--plot", s(&pdf)],
        // Checked before the (long) live run: no nvcc is looked for.
        vec!["calibrate", "--plot", s(&pdf)],
    ] {
        let (code, out, err) = common::rooftrace(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(out.is_empty(), "{args:?} printed a report");
        let want = format!(
            "--plot {}: unknown image type; give a file name ending in .svg or .png",
            pdf.display()
        );
        assert!(err.contains(&want), "{args:?}: {err}");
    }
    assert!(!pdf.exists());
}

#[test]
fn top_sets_the_labelled_kernels_capped_at_ten() {
    let dir = tmp();
    let svg = dir.path().join("t.svg");
    let labels = |top: &str| {
        ok(&[
            "ncu",
            SGEMM_A100,
            "--gpu",
            "a100-40gb",
            "--top",
            top,
            "--plot",
            s(&svg),
        ]);
        std::fs::read_to_string(&svg)
            .unwrap()
            .matches(" lost)")
            .count()
    };
    // Three launches: --top 1 labels the one losing most (gemm_v1, 26.8 s
    // against the roofs at the 765 MHz it ran at; 29.8 s at boost),
    // the default --top 20 and --top 0 (= all, capped at 10) label all three.
    assert_eq!(labels("1"), 1);
    assert!(std::fs::read_to_string(&svg)
        .unwrap()
        .contains(">\ngemm_v1 (26.8 s lost)\n<"));
    assert_eq!(labels("20"), 3);
    assert_eq!(labels("0"), 3);
    assert_eq!(rooftrace::commands::ncu::plot_labels(0), 10);
    assert_eq!(rooftrace::commands::ncu::plot_labels(25), 10);
    assert_eq!(rooftrace::commands::ncu::plot_labels(4), 4);
}

// ---- `rooftrace gaps --plot/--plot-hist` on the real nsys fixtures. ----

const SAXPY: &str = "fixtures/nsys/nsys2022.2.1_pipit_saxpy-mpi-cuda.sqlite";
const CLOVERLEAF: &str = "fixtures/nsys/nsys2024.5.1_pipit_cloverleaf.sqlite";
const H100_2GPU: &str = "fixtures/nsys/nsys2026.2.1_nsysai_h100_2gpu_1s.sqlite";

/// One integer from a query on a fixture, read-only (an independent look
/// at the export, not through rooftrace's reader).
fn sql_i64(db: &str, q: &str) -> i64 {
    let c = rusqlite::Connection::open_with_flags(
        common::root().join(db),
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
    )
    .unwrap();
    c.query_row(q, [], |r| r.get(0)).unwrap()
}

#[test]
fn gaps_timeline_svg_snapshot() {
    let dir = tmp();
    let svg = dir.path().join("t.svg");
    let with = ok(&["gaps", CLOVERLEAF, "--plot", s(&svg)]);
    // The plot is a side output: the report is the same without it.
    assert_eq!(with, ok(&["gaps", CLOVERLEAF]));
    let text = std::fs::read_to_string(&svg).unwrap();
    // One process, one device, every op on stream 7 (the fixture's README):
    // the idle-gap lane of GPU 0, then its one stream lane.
    assert!(text.contains("\nGPU 0 idle gaps\n"));
    assert!(text.contains("\nGPU 0 stream 7\n"));
    assert!(!text.contains("pid "), "one process: no pid in the labels");
    // No --nvtx, no --window: the stretch with the most idle time of the
    // largest class (CloverLeaf: host-bound, 13.1 ms of 38.3 ms idle).
    assert!(text.contains("stretch with the most "), "{text}");
    insta::assert_snapshot!("gaps_plot_cloverleaf_timeline_svg", text);
}

#[test]
fn gaps_histogram_svg_snapshot_respects_min_gap() {
    let dir = tmp();
    let svg = dir.path().join("h.svg");
    let json = ok(&[
        "gaps",
        H100_2GPU,
        "--min-gap",
        "5us",
        "--plot-hist",
        s(&svg),
        "--format",
        "json",
    ]);
    let text = std::fs::read_to_string(&svg).unwrap();
    // The histogram counts the same gaps as the report's distribution
    // (gaps of at least --min-gap), which comes from the report's own sweep.
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let n = v["distribution"]["duration"]["count"].as_u64().unwrap();
    assert!(n > 0 && n < 4366, "min-gap must drop gaps: {n}");
    assert!(
        text.contains(&format!("{n} idle gaps")),
        "subtitle should count {n} gaps"
    );
    // 546 = the report's 5-10 µs bin (523) and the 23 longer gaps of the
    // table output; the snapshot holds the bars.
    assert_eq!(n, 546);
    insta::assert_snapshot!("gaps_plot_h100_2gpu_hist_min5us_svg", text);
}

#[test]
fn gaps_histogram_bins_are_the_report_bins() {
    // One binning: each bar of the chart counts exactly the gaps of the
    // report's histogram row with the same lower edge (the row [0, 1 µs)
    // is drawn from the axis start), computed by the report's own sweep.
    let path = common::root().join(H100_2GPU);
    let t = rooftrace::nsys::read_timeline(&path, false, &|_, _| {}).unwrap();
    let cfg = rooftrace::gaps::GapConfig {
        min_gap_ns: 5_000,
        keep_gaps: true,
        ..Default::default()
    };
    let report = rooftrace::gaps::analyze(&t, &cfg);
    let chart = GapHistogram::build(&HistogramInput::from_gaps(&report, "x").unwrap()).unwrap();
    let rows: Vec<(f64, u64)> = report
        .distribution
        .histogram
        .iter()
        .filter(|b| b.count > 0)
        .map(|b| (b.lo_ns as f64, b.count))
        .collect();
    let bars: Vec<(f64, u64)> = chart
        .bins
        .iter()
        .filter(|b| b.total() > 0)
        .map(|b| (b.lo_ns, b.total()))
        .collect();
    assert!(rows.len() > 1);
    assert_eq!(bars, rows);
}

#[test]
fn gaps_plot_applies_device_and_stream_filters() {
    let dir = tmp();
    let svg = dir.path().join("t.svg");
    let hist = dir.path().join("h.svg");
    // Two processes (pid 111 on GPU 0 stream 7, pid 112 on GPU 1 stream 15).
    ok(&["gaps", H100_2GPU, "--plot", s(&svg)]);
    let both = std::fs::read_to_string(&svg).unwrap();
    assert!(both.contains("\npid 111 GPU 0 idle gaps\n"));
    assert!(both.contains("\npid 112 GPU 1 stream 15\n"));
    ok(&[
        "gaps",
        H100_2GPU,
        "--device",
        "1",
        "--plot",
        s(&svg),
        "--plot-hist",
        s(&hist),
    ]);
    let one = std::fs::read_to_string(&svg).unwrap();
    assert!(one.contains("\nGPU 1 idle gaps\n"));
    assert!(one.contains("\nGPU 1 stream 15\n"));
    assert!(!one.contains("GPU 0"));
    // The table gives 2183 gaps on each device; --device 1 keeps one half.
    let json = ok(&["gaps", H100_2GPU, "--device", "1", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let n = v["devices"][0]["gap_count"].as_u64().unwrap();
    assert!(std::fs::read_to_string(&hist)
        .unwrap()
        .contains(&format!("{n} idle gaps")));
    // A stream with no op: a bad-input error (exit 2) naming what exists,
    // before anything is drawn.
    for flag in ["--plot", "--plot-hist"] {
        let (code, _, err) =
            common::rooftrace(&["gaps", H100_2GPU, "--stream", "99", flag, s(&svg)]);
        assert_eq!(code, 2, "{flag}: {err}");
        assert!(
            err.contains("no GPU op matches --stream 99"),
            "{flag}: {err}"
        );
    }
}

#[test]
fn gaps_timeline_window_and_nvtx_choices() {
    let dir = tmp();
    let svg = dir.path().join("t.svg");
    // --window is relative to the first GPU op: cloverleaf's first op, read
    // straight from the export, plus 10 ms.
    let first = sql_i64(
        CLOVERLEAF,
        "SELECT min(s) FROM (SELECT min(start) AS s FROM CUPTI_ACTIVITY_KIND_KERNEL
         UNION ALL SELECT min(start) FROM CUPTI_ACTIVITY_KIND_MEMCPY)",
    );
    ok(&[
        "gaps",
        CLOVERLEAF,
        "--window",
        "10ms..20ms",
        "--plot",
        s(&svg),
    ]);
    let text = std::fs::read_to_string(&svg).unwrap();
    // Times relative to the first GPU op (not the trace clock's seconds).
    let want = "--window 10.0 ms..20.0 ms after the first GPU op: 0.010000 s to 0.020000 s \
                after the first GPU op (10.0 ms)";
    assert!(text.contains(want), "subtitle should say {want}");
    // --nvtx: the first 3 instances that launched GPU work. In the saxpy
    // export the `saxpy` ranges each launch one saxpy kernel, so the window
    // starts at the first kernel's start, given after the first GPU op
    // (kernel or copy), both read straight from the export.
    let kernel0 = sql_i64(SAXPY, "SELECT min(start) FROM CUPTI_ACTIVITY_KIND_KERNEL");
    let saxpy_first = sql_i64(
        SAXPY,
        "SELECT min(s) FROM (SELECT min(start) AS s FROM CUPTI_ACTIVITY_KIND_KERNEL
         UNION ALL SELECT min(start) FROM CUPTI_ACTIVITY_KIND_MEMCPY)",
    );
    ok(&["gaps", SAXPY, "--nvtx", "saxpy", "--plot", s(&svg)]);
    let text = std::fs::read_to_string(&svg).unwrap();
    let want = format!(
        "first 3 NVTX range instances: {:.6} s",
        (kernel0 - saxpy_first) as f64 / 1e9
    );
    assert!(text.contains(&want), "subtitle should say {want}");
    assert!(!text.contains(" UTC"), "an nsys session clock is no date");
    // A window with no op in it: exit 2, saying where the ops are.
    let (code, _, err) = common::rooftrace(&[
        "gaps",
        CLOVERLEAF,
        "--window",
        "500s..600s",
        "--plot",
        s(&svg),
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("no GPU op in the timeline window"), "{err}");
    // The window and the ops' extent after the first GPU op: CloverLeaf's
    // kernels and copies (it has no memset table) end `last - first` after
    // it, read from the export.
    assert!(
        err.contains("500.000000 s to 600.000000 s after the first GPU op"),
        "{err}"
    );
    let last = sql_i64(
        CLOVERLEAF,
        "SELECT max(e) FROM (SELECT max(end) AS e FROM CUPTI_ACTIVITY_KIND_KERNEL
         UNION ALL SELECT max(end) FROM CUPTI_ACTIVITY_KIND_MEMCPY)",
    );
    let want = format!(
        "the GPU ops run from 0 s to {:.6} s after the first",
        (last - first) as f64 / 1e9
    );
    assert!(err.contains(&want), "{err} should say {want}");
}

#[test]
fn a_pytorch_traces_timeline_gives_times_after_its_first_op_and_the_date_once() {
    // simple_add's clock is µs since 1970: the subtitle gives the window
    // after the first GPU op and that op's date, never epoch seconds.
    let dir = tmp();
    let svg = dir.path().join("t.svg");
    let trace = "fixtures/kineto/simple_add.json.gz";
    ok(&["gaps", trace, "--plot", s(&svg)]);
    let text = std::fs::read_to_string(&svg).unwrap();
    // The first GPU op's start, read from the JSON: the least `ts` (µs) of
    // the kernel, memcpy and memset events.
    let gz = std::fs::read(common::root().join(trace)).unwrap();
    let mut json = String::new();
    std::io::Read::read_to_string(&mut flate2::read::GzDecoder::new(&gz[..]), &mut json).unwrap();
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let first_us = v["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| {
            matches!(
                e["cat"].as_str(),
                Some("kernel" | "gpu_memcpy" | "gpu_memset")
            )
        })
        .filter_map(|e| e["ts"].as_f64())
        .fold(f64::INFINITY, f64::min);
    let date = rooftrace::units::utc_datetime((first_us * 1e3) as i64);
    let want = format!("; the first GPU op at {date})");
    assert!(text.contains(&want), "subtitle should say {want}");
    assert_eq!(text.matches(" UTC").count(), 1, "the date once");
    let epoch_s = format!("{:.0}", (first_us / 1e6).floor());
    assert!(!text.contains(&epoch_s), "no epoch seconds ({epoch_s})");
}

#[test]
fn gaps_timeline_draws_every_op_up_to_the_axis_end() {
    // `--window 100ms..147ms` on CloverLeaf: the axis runs to the next round
    // tick, 50 ms (ticks every 10 ms), so the chart shows
    // [first + 100 ms, first + 150 ms). Every kernel and memcpy overlapping
    // that span must be handed to the chart, counted straight from the
    // export; before the fix only ops up to 147 ms were, and the last 3 ms
    // were drawn empty although the GPU was busy there.
    let path = common::root().join(CLOVERLEAF);
    let t = rooftrace::nsys::read_timeline(&path, false, &|_, _| {}).unwrap();
    let cfg = rooftrace::gaps::GapConfig {
        keep_gaps: true,
        ..Default::default()
    };
    let report = rooftrace::gaps::analyze(&t, &cfg);
    let input =
        TimelineInput::from_gaps(&t, &report, Some((100_000_000, 147_000_000)), "x").unwrap();
    let chart = TimelineChart::build(&input).unwrap();
    let first = sql_i64(
        CLOVERLEAF,
        "SELECT min(s) FROM (SELECT min(start) AS s FROM CUPTI_ACTIVITY_KIND_KERNEL
         UNION ALL SELECT min(start) FROM CUPTI_ACTIVITY_KIND_MEMCPY)",
    );
    let (w0, w1) = (first + 100_000_000, first + 150_000_000);
    assert_eq!(chart.window_ns, (w0, w1));
    let q = |t: &str| {
        sql_i64(
            CLOVERLEAF,
            &format!("SELECT count(*) FROM {t} WHERE start < {w1} AND \"end\" > {w0}"),
        )
    };
    let expected = q("CUPTI_ACTIVITY_KIND_KERNEL") + q("CUPTI_ACTIVITY_KIND_MEMCPY");
    let late = sql_i64(
        CLOVERLEAF,
        &format!(
            "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE start >= {} AND start < {w1}",
            first + 147_000_000
        ),
    );
    assert!(late > 0, "kernels start between 147 and 150 ms");
    assert_eq!(input.ops.len() as i64, expected);
}

#[test]
fn gaps_plot_pngs_decode_and_are_not_blank() {
    let dir = tmp();
    let tl = dir.path().join("t.png");
    let hist = dir.path().join("h.PNG");
    ok(&[
        "gaps",
        CLOVERLEAF,
        "--plot",
        s(&tl),
        "--plot-hist",
        s(&hist),
    ]);
    // The timeline's height depends on its lanes: take it from the model
    // built through the library for the same input.
    let path = common::root().join(CLOVERLEAF);
    let t = rooftrace::nsys::read_timeline(&path, false, &|_, _| {}).unwrap();
    let cfg = rooftrace::gaps::GapConfig {
        keep_gaps: true,
        ..Default::default()
    };
    let report = rooftrace::gaps::analyze(&t, &cfg);
    let input = TimelineInput::from_gaps(&t, &report, None, "x").unwrap();
    let size = TimelineChart::build(&input).unwrap().size_px();
    assert_eq!(size.0, 1400);
    // Kernels fill the stream lane; synchronisation is the main gap class.
    let png = std::fs::read(&tl).unwrap();
    check_png(&png, size, rgb(style::KERNEL_COLOR));
    check_png(&png, size, rgb(style::gap_color(GapClass::Synchronization)));
    check_png(
        &std::fs::read(&hist).unwrap(),
        (1100, 650),
        rgb(style::gap_color(GapClass::Synchronization)),
    );
}

#[test]
fn gaps_markdown_embeds_both_plot_links() {
    let dir = tmp();
    std::fs::create_dir(dir.path().join("img")).unwrap();
    let tl = dir.path().join("img").join("timeline.png");
    let hist = dir.path().join("img").join("gaps.svg");
    let md = dir.path().join("report.md");
    ok(&[
        "gaps",
        CLOVERLEAF,
        "--plot",
        s(&tl),
        "--plot-hist",
        s(&hist),
        "--format",
        "md",
        "-o",
        s(&md),
    ]);
    assert!(tl.is_file() && hist.is_file());
    let text = std::fs::read_to_string(&md).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    // Verdict first (idle 38.6 ms of the 342 ms span; host-bound 13.1 ms of
    // it, the largest class now that pageable staging (8.59 ms) and the
    // gaps after a draining sync (3.66 ms) are their own classes; in 10.2 ms
    // of the host-bound time the launching thread was in OS runtime calls,
    // `write` of CloverLeaf's output; 13.1 ms is 3.8 % of the span, under
    // the 5 % an idle fix needs to come first, so the kernels are the
    // lever), then both images relative to the report.
    assert_eq!(
        lines[0],
        "**GPU idle 11.3 % of 342 ms, 33.9 % host-bound; worth 3.8 % of the span: overlap I/O with GPU work (prefetch, async I/O) (OS runtime calls: 10.2 ms of 13.1 ms host-bound); the GPU is busy, so the kernels are the lever: profile them with ncu and read the report with `rooftrace ncu` (each kernel's fraction of its roof), or `rooftrace budget --ncu` per step**"
    );
    assert_eq!(lines[2], "![GPU timeline](img/timeline.png)");
    assert_eq!(lines[4], "![idle-gap histogram](img/gaps.svg)");
}

#[test]
fn gaps_plot_with_an_unknown_extension_is_exit_2_before_any_work() {
    let dir = tmp();
    let pdf = dir.path().join("t.pdf");
    // The input does not even exist: the flag is checked first.
    let missing = dir.path().join("missing.sqlite");
    for (flag, input) in [
        ("--plot", CLOVERLEAF),
        ("--plot-hist", CLOVERLEAF),
        ("--plot", s(&missing)),
    ] {
        let (code, out, err) = common::rooftrace(&["gaps", input, flag, s(&pdf)]);
        assert_eq!(code, 2, "{flag}: {err}");
        assert!(out.is_empty(), "{flag} printed a report");
        let want = format!(
            "{flag} {}: unknown image type; give a file name ending in .svg or .png",
            pdf.display()
        );
        assert!(err.contains(&want), "{flag}: {err}");
    }
    assert!(!pdf.exists());
}

#[test]
fn timeline_and_histogram_texts_never_overlap_on_the_nsys_fixtures() {
    // Every shipped export (and H100 at --min 5us, whose histogram has the
    // most bins): the default timeline window and the histogram, each text
    // measured with the embedded font as drawn. The cut bar's label
    // ("… gaps, … (bar cut)") is wider than its bin, so it is the one most
    // likely to collide.
    use rooftrace::plot::extent::first_overlap;
    let mut exports: Vec<(std::path::PathBuf, i64)> =
        std::fs::read_dir(common::root().join("fixtures/nsys"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "sqlite"))
            .filter(|p| !p.ends_with("not_sqlite.sqlite"))
            .map(|p| (p, 0))
            .collect();
    exports.sort();
    assert!(exports.len() >= 5, "{exports:?}");
    exports.push((common::root().join(H100_2GPU), 5_000));
    let mut cut = 0;
    for (path, min_gap_ns) in &exports {
        let t = rooftrace::nsys::read_timeline(path, false, &|_, _| {}).unwrap();
        let cfg = rooftrace::gaps::GapConfig {
            min_gap_ns: *min_gap_ns,
            keep_gaps: true,
            ..Default::default()
        };
        let report = rooftrace::gaps::analyze(&t, &cfg);
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let tl = TimelineChart::build(&TimelineInput::from_gaps(&t, &report, None, &name).unwrap())
            .unwrap();
        assert_eq!(first_overlap(&tl.texts).unwrap(), None, "{name} timeline");
        assert_eq!(tl.texts.iter().filter(|x| x.text == tl.title).count(), 1);
        assert!(tl
            .lanes
            .iter()
            .all(|l| tl.texts.iter().any(|x| x.text == l.label)));
        let Ok(input) = HistogramInput::from_gaps(&report, &name) else {
            continue;
        };
        let h = GapHistogram::build(&input).unwrap();
        assert_eq!(first_overlap(&h.texts).unwrap(), None, "{name} histogram");
        // Every non-empty bar's count is drawn (none had to be left out).
        assert_eq!(h.hidden_counts, 0, "{name}");
        assert_eq!(
            h.counts.len(),
            h.bins.iter().filter(|b| b.total() > 0).count()
        );
        cut += h
            .counts
            .iter()
            .filter(|c| c.text.ends_with("(bar cut)"))
            .count();
    }
    // At least one export exercises the cut bar's label.
    assert!(cut > 0);
}
