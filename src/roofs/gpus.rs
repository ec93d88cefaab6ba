//! Built-in table of common NVIDIA GPUs: datasheet dense peaks per compute
//! path and memory bandwidth, and measured values where a public measurement
//! exists, each with its source.
//!
//! Conventions:
//! - Datasheet tensor peaks are dense: NVIDIA's "with sparsity" figures are
//!   halved. GeForce tensor peaks are the FP32-accumulate figures.
//! - The FP16 CUDA-core roof is the datasheet's packed (FP16x2) peak halved,
//!   because rooftrace counts half-precision FLOPs the way ncu does (one
//!   HFMA2 thread instruction = one FMA = 2 FLOP; see docs/ncu.md). Halving
//!   the roof keeps the fraction of roof right for packed and unpacked code.
//! - Measured values come from `MEASURED_DOC` (the reference text shipped
//!   in ../shared/reference); only numbers the text states, or that follow
//!   from it by the arithmetic written in the source string.

use super::model::{ComputePath, ComputeRoof, MemoryLevel, MemoryRoof, Origin, Roofs};

/// The public measurement the measured values come from.
pub const MEASURED_DOC: &str = "\"The Roofline Model, Starting from Measured Data\"";

/// A datasheet or measured roof value in the table.
#[derive(Debug, Clone, Copy)]
pub struct TableRoof {
    /// Which roof.
    pub roof: RoofKey,
    /// Value in FLOP/s (compute) or byte/s (memory).
    pub value: f64,
    /// Citation (document, section/figure, arithmetic).
    pub source: &'static str,
}

/// Which roof a table entry is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RoofKey {
    /// A flat compute roof.
    Compute(ComputePath),
    /// A sloped memory roof.
    Memory(MemoryLevel),
}

/// One GPU model in the built-in table.
#[derive(Debug, Clone)]
pub struct GpuSpec {
    /// Short name for `--gpu` (`h100-sxm`).
    pub key: &'static str,
    /// Marketing name (`NVIDIA H100 SXM5 80GB`).
    pub name: &'static str,
    /// Compute capability, `major.minor`.
    pub compute_capability: &'static str,
    /// L2 size in bytes.
    pub l2_bytes: u64,
    /// Datasheet values (dense), FLOP/s or byte/s.
    pub datasheet: &'static [TableRoof],
    /// Published measurements, FLOP/s or byte/s; preferred by
    /// [`GpuSpec::default_roofs`].
    pub measured: &'static [TableRoof],
}

// TFLOP/s to FLOP/s in two steps: `66.9 * 1e12` is 66900000000000.01 in
// binary floating point, `66.9 * 1e3` rounds back to exactly 66900, and the
// integer times 1e9 is exact, so JSON and CSV print clean values.
const T_IN_G: f64 = 1e3;
const G: f64 = 1e9;
const MIB: u64 = 1 << 20;

const fn c(path: ComputePath, tflop_per_s: f64, source: &'static str) -> TableRoof {
    TableRoof {
        roof: RoofKey::Compute(path),
        value: tflop_per_s * T_IN_G * G,
        source,
    }
}

const fn m(level: MemoryLevel, gb_per_s: f64, source: &'static str) -> TableRoof {
    TableRoof {
        roof: RoofKey::Memory(level),
        value: gb_per_s * G,
        source,
    }
}

use ComputePath::*;
use MemoryLevel::{Dram, L2};

const V100_DS: &str = "NVIDIA Tesla V100 datasheet (SXM2)";
const A100_DS: &str = "NVIDIA A100 Tensor Core GPU datasheet (SXM), dense";
const H100_DS: &str = "NVIDIA H100 Tensor Core GPU datasheet (SXM), sparse figures / 2";
const H100P_DS: &str = "NVIDIA H100 Tensor Core GPU datasheet (PCIe), sparse figures / 2";
const H200_DS: &str = "NVIDIA H200 Tensor Core GPU datasheet (SXM), sparse figures / 2";
const GH200_DS: &str =
    "NVIDIA GH200 Grace Hopper Superchip datasheet (96 GB HBM3), sparse figures / 2";
const B200_DS: &str = "NVIDIA HGX B200 datasheet (per GPU), sparse figures / 2";
const L40S_DS: &str = "NVIDIA L40S datasheet, sparse figures / 2";
const ADA_WP: &str =
    "NVIDIA Ada GPU Architecture whitepaper (GeForce RTX 40 series), dense, FP32 accumulate";

static TABLE: &[GpuSpec] = &[
    GpuSpec {
        key: "v100",
        name: "NVIDIA Tesla V100 SXM2",
        compute_capability: "7.0",
        l2_bytes: 6 * MIB,
        datasheet: &[
            m(Dram, 900.0, V100_DS),
            c(Fp64, 7.8, V100_DS),
            c(Fp32, 15.7, V100_DS),
            c(Fp16, 15.7, "NVIDIA Tesla V100 GPU Architecture whitepaper: FP16 31.4 TFLOPS packed, / 2 for per-instruction counting"),
            c(TensorFp16, 125.0, V100_DS),
        ],
        measured: &[],
    },
    GpuSpec {
        key: "a100-40gb",
        name: "NVIDIA A100 40GB SXM4",
        compute_capability: "8.0",
        l2_bytes: 40 * MIB,
        datasheet: &[
            m(Dram, 1555.0, A100_DS),
            c(Fp64, 9.7, A100_DS),
            c(TensorFp64, 19.5, A100_DS),
            c(Fp32, 19.5, A100_DS),
            c(Fp16, 39.0, "NVIDIA A100 whitepaper: FP16 78 TFLOPS packed, / 2 for per-instruction counting"),
            c(TensorTf32, 156.0, A100_DS),
            c(TensorFp16, 312.0, A100_DS),
            c(TensorBf16, 312.0, A100_DS),
            c(TensorInt8, 624.0, A100_DS),
        ],
        measured: &[],
    },
    GpuSpec {
        key: "a100-80gb",
        name: "NVIDIA A100 80GB SXM4",
        compute_capability: "8.0",
        l2_bytes: 40 * MIB,
        datasheet: &[
            m(Dram, 2039.0, A100_DS),
            c(Fp64, 9.7, A100_DS),
            c(TensorFp64, 19.5, A100_DS),
            c(Fp32, 19.5, A100_DS),
            c(Fp16, 39.0, "NVIDIA A100 whitepaper: FP16 78 TFLOPS packed, / 2 for per-instruction counting"),
            c(TensorTf32, 156.0, A100_DS),
            c(TensorFp16, 312.0, A100_DS),
            c(TensorBf16, 312.0, A100_DS),
            c(TensorInt8, 624.0, A100_DS),
        ],
        measured: &[],
    },
    GpuSpec {
        key: "h100-sxm",
        name: "NVIDIA H100 SXM5 80GB",
        compute_capability: "9.0",
        l2_bytes: 50 * MIB,
        datasheet: &[
            m(Dram, 3350.0, H100_DS),
            c(Fp64, 34.0, H100_DS),
            c(TensorFp64, 67.0, H100_DS),
            c(Fp32, 67.0, H100_DS),
            c(Fp16, 66.9, "NVIDIA H100 whitepaper: FP16 133.8 TFLOPS packed (SXM5), / 2 for per-instruction counting"),
            c(TensorTf32, 494.5, H100_DS),
            c(TensorFp16, 989.5, H100_DS),
            c(TensorBf16, 989.5, H100_DS),
            c(TensorFp8, 1979.0, H100_DS),
            c(TensorInt8, 1979.0, H100_DS),
        ],
        // The reference's H100 is the SXM part: its measured 3085 GB/s is
        // above the PCIe card's 2.0 TB/s datasheet bandwidth.
        measured: &[
            m(Dram, 3085.0, "measured: read-only sum kernel over 512 MiB, section 4 \"Bandwidth\" of \"The Roofline Model, Starting from Measured Data\""),
            c(TensorFp16, 788.0, "measured: best cuBLAS FP16 GEMM over all shapes, section 4 \"Compute\" of \"The Roofline Model, Starting from Measured Data\""),
            c(TensorBf16, 802.0, "measured: cuBLAS BF16 GEMM, section 6 of \"The Roofline Model, Starting from Measured Data\""),
            c(TensorTf32, 418.0, "measured: cuBLAS FP32 GEMM with TF32 on, section 3 (Table 4 discussion) of \"The Roofline Model, Starting from Measured Data\""),
            c(TensorFp64, 64.2, "measured: cuBLAS FP64 GEMM on tensor cores, section 3 (Table 4 discussion) of \"The Roofline Model, Starting from Measured Data\""),
            c(Fp32, 61.5, "measured: FP32 FMA sweep flat part, section 3 (Table 4 discussion) of \"The Roofline Model, Starting from Measured Data\""),
            c(Fp64, 33.0, "derived from measurement: the smallest H100 ridge point, 10.7 FLOP/byte (section 8; FP64 FMA, the slowest path of Table 4), x 3085 GB/s = 33.0 TFLOP/s, \"The Roofline Model, Starting from Measured Data\""),
        ],
    },
    GpuSpec {
        key: "h100-pcie",
        name: "NVIDIA H100 PCIe 80GB",
        compute_capability: "9.0",
        l2_bytes: 50 * MIB,
        datasheet: &[
            m(Dram, 2000.0, H100P_DS),
            c(Fp64, 26.0, H100P_DS),
            c(TensorFp64, 51.0, H100P_DS),
            c(Fp32, 51.0, H100P_DS),
            c(Fp16, 51.2, "NVIDIA H100 whitepaper: FP16 102.4 TFLOPS packed (PCIe), / 2 for per-instruction counting"),
            c(TensorTf32, 378.0, H100P_DS),
            c(TensorFp16, 756.5, H100P_DS),
            c(TensorBf16, 756.5, H100P_DS),
            c(TensorFp8, 1513.0, H100P_DS),
            c(TensorInt8, 1513.0, H100P_DS),
        ],
        measured: &[],
    },
    GpuSpec {
        key: "h200",
        name: "NVIDIA H200 SXM 141GB",
        compute_capability: "9.0",
        // 60 MiB, not the H100 SXM5's 50: the H200 enables the whole L2 of
        // the GH100 die, 60 MB in NVIDIA's "NVIDIA H100 Tensor Core GPU
        // Architecture" whitepaper (full GH100 implementation), and
        // `cudaDeviceProp::l2CacheSize` on an H200 reads 62914560 bytes
        // (issue 14's review). A device check records the value it reads.
        l2_bytes: 60 * MIB,
        datasheet: &[
            m(Dram, 4800.0, H200_DS),
            c(Fp64, 34.0, H200_DS),
            c(TensorFp64, 67.0, H200_DS),
            c(Fp32, 67.0, H200_DS),
            c(TensorTf32, 494.5, H200_DS),
            c(TensorFp16, 989.5, H200_DS),
            c(TensorBf16, 989.5, H200_DS),
            c(TensorFp8, 1979.0, H200_DS),
            c(TensorInt8, 1979.0, H200_DS),
        ],
        measured: &[
            m(Dram, 4288.0, "derived from measurement: \"39% more bandwidth\" than H100's measured 3085 GB/s (section 3), 3085 x 1.39 = 4288 GB/s (+-0.4 % from the rounding of 39 %), \"The Roofline Model, Starting from Measured Data\""),
            c(TensorBf16, 815.0, "measured: cuBLAS BF16 GEMM, section 6 of \"The Roofline Model, Starting from Measured Data\""),
            c(TensorFp16, 756.0, "measured: cuBLAS FP16 GEMM, section 3 (H200/H100 crossing) of \"The Roofline Model, Starting from Measured Data\""),
        ],
    },
    GpuSpec {
        key: "gh200",
        name: "NVIDIA GH200 Grace Hopper (H100 96GB HBM3)",
        compute_capability: "9.0",
        l2_bytes: 50 * MIB,
        datasheet: &[
            m(Dram, 4000.0, GH200_DS),
            c(Fp64, 34.0, GH200_DS),
            c(TensorFp64, 67.0, GH200_DS),
            c(Fp32, 67.0, GH200_DS),
            c(TensorTf32, 494.5, GH200_DS),
            c(TensorFp16, 989.5, GH200_DS),
            c(TensorBf16, 989.5, GH200_DS),
            c(TensorFp8, 1979.0, GH200_DS),
            c(TensorInt8, 1979.0, GH200_DS),
        ],
        measured: &[],
    },
    GpuSpec {
        key: "b200",
        name: "NVIDIA B200 (HGX, 180GB)",
        compute_capability: "10.0",
        l2_bytes: 126 * MIB,
        datasheet: &[
            m(Dram, 7700.0, B200_DS),
            c(Fp64, 37.0, B200_DS),
            c(TensorFp64, 37.0, B200_DS),
            c(Fp32, 75.0, B200_DS),
            c(TensorTf32, 1100.0, B200_DS),
            c(TensorFp16, 2250.0, B200_DS),
            c(TensorBf16, 2250.0, B200_DS),
            c(TensorFp8, 4500.0, B200_DS),
            c(TensorInt8, 4500.0, B200_DS),
            c(TensorFp4, 9000.0, B200_DS),
        ],
        measured: &[],
    },
    GpuSpec {
        key: "l40s",
        name: "NVIDIA L40S",
        compute_capability: "8.9",
        l2_bytes: 96 * MIB,
        datasheet: &[
            m(Dram, 864.0, L40S_DS),
            c(Fp64, 1.43, "L40S datasheet FP32 91.6 TFLOPS x 1/64 (Ada FP64 rate, Ada whitepaper)"),
            c(Fp32, 91.6, L40S_DS),
            c(Fp16, 45.8, "L40S FP16 (non-tensor) = FP32 rate 91.6 TFLOPS packed (Ada whitepaper), / 2 for per-instruction counting"),
            c(TensorTf32, 183.0, L40S_DS),
            c(TensorFp16, 362.05, L40S_DS),
            c(TensorBf16, 362.05, L40S_DS),
            c(TensorFp8, 733.0, L40S_DS),
            c(TensorInt8, 733.0, L40S_DS),
        ],
        measured: &[],
    },
    GpuSpec {
        key: "rtx4080",
        name: "NVIDIA GeForce RTX 4080",
        compute_capability: "8.9",
        l2_bytes: 64 * MIB,
        datasheet: &[
            m(Dram, 716.8, ADA_WP),
            c(Fp64, 0.76, "Ada whitepaper FP32 48.7 TFLOPS x 1/64 (Ada FP64 rate)"),
            c(Fp32, 48.7, ADA_WP),
            c(Fp16, 24.4, "Ada whitepaper: FP16 (non-tensor) 48.7 TFLOPS packed, / 2 for per-instruction counting"),
            c(TensorTf32, 48.7, ADA_WP),
            c(TensorFp16, 97.5, ADA_WP),
            c(TensorBf16, 97.5, ADA_WP),
            c(TensorFp8, 194.9, ADA_WP),
            c(TensorInt8, 389.9, ADA_WP),
        ],
        measured: &[m(L2, 2600.0, "measured: copy kernel at a 32 MiB working set (fits the 64 MiB L2), section 4 \"Bandwidth\" (Figure 2) of \"The Roofline Model, Starting from Measured Data\"; a copy kernel is a lower bound")],
    },
    GpuSpec {
        key: "rtx4090",
        name: "NVIDIA GeForce RTX 4090",
        compute_capability: "8.9",
        l2_bytes: 72 * MIB,
        datasheet: &[
            m(Dram, 1008.0, ADA_WP),
            c(Fp64, 1.29, "Ada whitepaper FP32 82.6 TFLOPS x 1/64 (Ada FP64 rate)"),
            c(Fp32, 82.6, ADA_WP),
            c(Fp16, 41.3, "Ada whitepaper: FP16 (non-tensor) 82.6 TFLOPS packed, / 2 for per-instruction counting"),
            c(TensorTf32, 82.6, ADA_WP),
            c(TensorFp16, 165.2, ADA_WP),
            c(TensorBf16, 165.2, ADA_WP),
            c(TensorFp8, 330.3, ADA_WP),
            c(TensorInt8, 660.6, ADA_WP),
        ],
        measured: &[],
    },
];

/// Every GPU in the table, in display order.
pub fn all() -> &'static [GpuSpec] {
    TABLE
}

/// Looks up a GPU by its `--gpu` key (case-insensitive).
pub fn by_key(key: &str) -> Option<&'static GpuSpec> {
    all().iter().find(|g| g.key.eq_ignore_ascii_case(key))
}

/// Guesses the GPU from a device name as ncu or the CUDA runtime prints it
/// (`NVIDIA H200`, `NVIDIA H100 80GB HBM3`, `Tesla V100-SXM2-16GB`).
/// Returns `None` for variants the table does not hold (H100 NVL, RTX 4080
/// SUPER, GB200, laptop parts) rather than guessing wrong roofs.
pub fn by_device_name(device_name: &str) -> Option<&'static GpuSpec> {
    let n = device_name.to_ascii_lowercase();
    let has = |s: &str| n.contains(s);
    if has("laptop") || has("super") || has("nvl") || has("mobile") {
        return None;
    }
    let key = if has("gh200") {
        "gh200"
    } else if has("gb200") {
        return None;
    } else if has("h200") {
        "h200"
    } else if has("h100") {
        if has("pcie") {
            "h100-pcie"
        } else {
            "h100-sxm"
        }
    } else if has("a100") {
        if has("80gb") {
            "a100-80gb"
        } else if has("40gb") {
            "a100-40gb"
        } else {
            return None;
        }
    } else if has("v100") {
        "v100"
    } else if has("b200") {
        "b200"
    } else if has("l40s") {
        "l40s"
    } else if has("rtx 4090") && !has("4090 d") {
        "rtx4090"
    } else if has("rtx 4080") {
        "rtx4080"
    } else {
        return None;
    };
    by_key(key)
}

/// GPUs of the table with this compute capability (`9.0`).
pub fn by_compute_capability(cc: &str) -> Vec<&'static GpuSpec> {
    all()
        .iter()
        .filter(|g| g.compute_capability == cc.trim())
        .collect()
}

fn insert(roofs: &mut Roofs, e: &TableRoof, origin: Origin) {
    match e.roof {
        RoofKey::Compute(p) => {
            roofs.compute.insert(
                p,
                ComputeRoof {
                    flop_per_s: e.value,
                    origin,
                    source: e.source.to_string(),
                    measurement: None,
                },
            );
        }
        RoofKey::Memory(l) => {
            roofs.memory.insert(
                l,
                MemoryRoof {
                    bytes_per_s: e.value,
                    origin,
                    source: e.source.to_string(),
                    measurement: None,
                },
            );
        }
    }
}

impl GpuSpec {
    /// Datasheet roofs only (origin = datasheet).
    pub fn datasheet_roofs(&self) -> Roofs {
        let mut r = Roofs::new(
            self.name,
            format!("built-in table ({}): NVIDIA datasheet, dense", self.key),
        );
        for e in self.datasheet {
            insert(&mut r, e, Origin::Datasheet);
        }
        r
    }

    /// The default roofs: measured values where present, datasheet otherwise.
    pub fn default_roofs(&self) -> Roofs {
        let mut r = self.datasheet_roofs();
        if !self.measured.is_empty() {
            r.source = format!(
                "built-in table ({}): measured where published ({MEASURED_DOC}), NVIDIA datasheet otherwise",
                self.key
            );
        }
        for e in self.measured {
            insert(&mut r, e, Origin::Measured);
        }
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_has_the_required_gpus_with_dram_and_fp32() {
        for key in [
            "v100",
            "a100-40gb",
            "a100-80gb",
            "h100-sxm",
            "h100-pcie",
            "h200",
            "gh200",
            "b200",
            "l40s",
            "rtx4080",
            "rtx4090",
        ] {
            let g = by_key(key).unwrap_or_else(|| panic!("{key}"));
            let r = g.default_roofs();
            assert!(r.dram().is_some(), "{key}");
            assert!(r.compute.contains_key(&ComputePath::Fp32), "{key}");
            for e in g.datasheet.iter().chain(g.measured) {
                assert!(e.value > 0.0 && !e.source.is_empty(), "{key}");
            }
        }
    }

    #[test]
    fn measured_values_win_and_ridges_match_the_reference() {
        let r = by_key("h100-sxm").unwrap().default_roofs();
        assert_eq!(r.dram().unwrap().origin, Origin::Measured);
        // The reference's H100 ridge points: FP16 tensor 255, BF16 260, FP32
        // FMA 19.9 FLOP/byte (788/3.085, 802/3.085, 61.5/3.085).
        let ridge = |p| r.ridge_flop_per_byte(p).unwrap();
        assert!((ridge(ComputePath::TensorFp16) - 255.4).abs() < 0.1);
        assert!((ridge(ComputePath::TensorBf16) - 260.0).abs() < 0.1);
        assert!((ridge(ComputePath::Fp32) - 19.9).abs() < 0.05);
        assert!((ridge(ComputePath::Fp64) - 10.7).abs() < 0.01);
        // FP8 has no measurement: datasheet stays.
        assert_eq!(r.compute[&ComputePath::TensorFp8].origin, Origin::Datasheet);
        // H200 and H100 cross where 3.085 TB/s x I = 756 TFLOP/s, I = 245.
        let h200 = by_key("h200").unwrap().default_roofs();
        let crossing =
            h200.compute[&ComputePath::TensorFp16].flop_per_s / r.dram().unwrap().bytes_per_s;
        assert!((crossing - 245.0).abs() < 0.5, "{crossing}");
    }

    #[test]
    fn device_names_resolve() {
        let k = |n| by_device_name(n).map(|g| g.key);
        assert_eq!(k("NVIDIA H100 80GB HBM3"), Some("h100-sxm"));
        assert_eq!(k("NVIDIA H100 PCIe"), Some("h100-pcie"));
        assert_eq!(k("NVIDIA H200"), Some("h200"));
        assert_eq!(k("NVIDIA GH200 480GB"), Some("gh200"));
        assert_eq!(k("NVIDIA A100-SXM4-40GB"), Some("a100-40gb"));
        assert_eq!(k("NVIDIA A100 80GB PCIe"), Some("a100-80gb"));
        assert_eq!(k("Tesla V100-SXM2-16GB"), Some("v100"));
        assert_eq!(k("NVIDIA B200"), Some("b200"));
        assert_eq!(k("NVIDIA GeForce RTX 4090"), Some("rtx4090"));
        assert_eq!(k("NVIDIA GeForce RTX 4080 SUPER"), None);
        assert_eq!(k("NVIDIA GB200"), None);
        assert_eq!(k("NVIDIA H100 NVL"), None);
        assert_eq!(by_compute_capability("8.9").len(), 3);
    }
}
