//! Plot models and rendering: SVG snapshots, decoded PNGs, and (with
//! `ROOFTRACE_WRITE_DOC_IMAGES=1`) the example images in `docs/img/`.

use rooftrace::plot::roofline::{render_roofline, RooflineChart};
use rooftrace::plot::{render_png, render_svg, ImageFormat, KernelPoint, RooflineInput};
use rooftrace::roofline::{ComputePath, ComputeRoof, MemoryLevel, MemoryRoof, Origin, Roofs};

const REF: &str = "../shared/reference/roofline-from-measured-data.txt";

/// H100 roofs measured in the reference text ("The Roofline Model, Starting
/// from Measured Data", section 3-4): read-only DRAM bandwidth 3085 GB/s,
/// BF16 tensor 802 TFLOP/s, FP16 tensor 788, TF32 tensor 418, FP64 tensor
/// 64.2, FP32 FMA 61.5 TFLOP/s.
fn h100_roofs() -> Roofs {
    let mut r = Roofs::new("NVIDIA H100 SXM", "measured (roofline-from-measured-data, H100)");
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
        duration_ns: 111_810.0,
        time_lost_ns: 111_810.0 * (1.0 - 12_532_580_352.0 / 111.81e-6 / 802e12),
        path: Some(ComputePath::TensorBf16),
        above_roof: false,
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
        ("flash_attn_decode", 1.9, 0.38, 150.0, ComputePath::TensorBf16),
        ("lm_head", 1.0, 0.88, 240.0, ComputePath::TensorBf16),
    ];
    for (name, i, frac, us, path) in rows {
        let duration_ns = us * 1e3;
        pts.push(KernelPoint {
            name: name.into(),
            flop_per_byte: i,
            flop_per_s: frac * b * i,
            duration_ns,
            time_lost_ns: duration_ns * (1.0 - frac),
            path: Some(path),
            above_roof: false,
        });
    }
    // A point above its roof (e.g. L2 hits counted as DRAM misses).
    pts.push(KernelPoint {
        name: "embedding_lookup".into(),
        flop_per_byte: 0.05,
        flop_per_s: 1.3 * b * 0.05,
        duration_ns: 9_000.0,
        time_lost_ns: 0.0,
        path: Some(ComputePath::Fp32),
        above_roof: true,
    });
    pts
}

#[test]
fn write_examples_for_inspection() {
    let Ok(dir) = std::env::var("ROOFTRACE_PLOT_OUT") else {
        return;
    };
    let input = RooflineInput {
        roofs: h100_roofs(),
        points: decode_step(),
        top_n: 10,
    };
    let png = render_roofline(&input, ImageFormat::Png).unwrap();
    std::fs::write(format!("{dir}/roofline.png"), png).unwrap();
    let chart = RooflineChart::build(&input).unwrap();
    std::fs::write(format!("{dir}/roofline.svg"), render_svg(&chart).unwrap()).unwrap();
    let _ = render_png(&chart).unwrap();
}
