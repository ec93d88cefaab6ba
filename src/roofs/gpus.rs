//! Built-in table of common NVIDIA GPUs: datasheet dense peaks per compute
//! path and memory bandwidth, published measurements where they exist, and
//! the device facts (compute capability, SM count, L2 size, memory clock)
//! that identify a GPU from a profile; each value with its source.
//!
//! Conventions:
//! - Datasheet tensor peaks are dense: NVIDIA's "with sparsity" figures are
//!   halved. GeForce tensor peaks are the FP32-accumulate figures.
//! - The FP16 CUDA-core roof is the datasheet's packed (FP16x2) peak halved,
//!   because rooftrace counts half-precision FLOPs the way ncu does (one
//!   HFMA2 thread instruction = one FMA = 2 FLOP; see docs/ncu.md). Halving
//!   the roof keeps the fraction of roof right for packed and unpacked code.
//! - Measured values come from the data behind `MEASURED_DOC`, published in
//!   [`MEASURED_REPO`] at [`MEASURED_COMMIT`]: `roofline/data/roofs.csv`
//!   (bandwidth and the best cuBLAS/cuBLASLt GEMM per dtype), the note's
//!   Table 5 (FMA-sweep flat parts, CUDA cores) and `roofline/data/summary.csv`
//!   rows, rounded to 5 significant digits. A CUDA-core roof is the highest
//!   measured value on that path (FMA sweep, or a GEMM that runs on CUDA
//!   cores), as the study takes the highest data-moving kernel for B.
//! - SM count, L2 size and memory clock are what the CUDA runtime reports
//!   (`device__attribute_multiprocessor_count`, `..._l2_cache_size`,
//!   `..._max_mem_frequency_khz`); `None` where no source was at hand.

use super::model::{ComputePath, ComputeRoof, MemoryLevel, MemoryRoof, Origin, RoofClocks, Roofs};

/// The public measurement the measured values come from.
pub const MEASURED_DOC: &str = "\"The Roofline Model, Starting from Measured Data\"";

/// The repository publishing the measured roofs as data.
pub const MEASURED_REPO: &str = "github.com/RealZST/llm-infra-notes";

/// The commit of [`MEASURED_REPO`] the measured values were read at.
pub const MEASURED_COMMIT: &str = "272851cde683d95a205d2f22f129254eaf72e465";

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
    /// Streaming multiprocessors, as the CUDA runtime reports them.
    pub sm_count: Option<u32>,
    /// L2 size in bytes, as the CUDA runtime reports it; `None` where no
    /// source gives it (the GPU then stays a candidate whatever L2 a
    /// profile reports).
    pub l2_bytes: Option<u64>,
    /// Memory clock in MHz (`cudaDevAttrMemoryClockRate`), when known.
    pub memory_clock_mhz: Option<f64>,
    /// Where the SM count, L2 size, memory figures and boost clock come from.
    pub facts: FactSources,
    /// Datasheet values (dense), FLOP/s or byte/s.
    pub datasheet: &'static [TableRoof],
    /// Published measurements, FLOP/s or byte/s; preferred by
    /// [`GpuSpec::default_roofs`].
    pub measured: &'static [TableRoof],
}

/// Citations for the device facts of a table entry (the roofs carry their
/// own, in [`TableRoof::source`]).
#[derive(Debug, Clone, Copy)]
pub struct FactSources {
    /// Source of [`GpuSpec::sm_count`].
    pub sm_count: &'static str,
    /// Source of [`GpuSpec::l2_bytes`].
    pub l2: &'static str,
    /// Source of [`GpuSpec::memory_clock_mhz`] and of the memory type, bus
    /// width and data rate behind the DRAM roof.
    pub memory: &'static str,
    /// The boost SM clock a source states, MHz, where one was at hand: the
    /// clock [`GpuSpec::sm_clock`] derives from the FP32 peak must agree
    /// with it (a table test checks 1 %).
    pub boost_clock_mhz: Option<f64>,
    /// Source of [`FactSources::boost_clock_mhz`].
    pub boost_clock: &'static str,
}

const RUNTIME: &str =
    "CUDA runtime device attribute (entry predates per-value citations; see the module header)";

/// The facts of the entries that predate per-value citations: values as
/// the CUDA runtime reports them, no stated boost clock.
const RUNTIME_FACTS: FactSources = FactSources {
    sm_count: RUNTIME,
    l2: RUNTIME,
    memory: RUNTIME,
    boost_clock_mhz: None,
    boost_clock: "",
};

// TFLOP/s to FLOP/s in two steps: `66.9 * 1e12` is 66900000000000.01 in
// binary floating point, `66.9 * 1e3` rounds back to exactly 66900, and the
// integer times 1e9 is exact, so JSON and CSV print clean values.
const T_IN_G: f64 = 1e3;
const G: f64 = 1e9;
const MIB: u64 = 1 << 20;
const KIB: u64 = 1 << 10;

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

/// Source of a value in `roofline/data/roofs.csv` of [`MEASURED_REPO`]:
/// `roofs!("h100", "fp8_e4m3", "1024x8192x8192")` names the row and the
/// case that produced it.
macro_rules! roofs_csv {
    ($target:literal, $dtype:literal, $case:literal) => {
        concat!(
            "measured: github.com/RealZST/llm-infra-notes roofline/data/roofs.csv @ 272851c, row ",
            $target,
            ",",
            $dtype,
            " (",
            $case,
            ")"
        )
    };
}

/// Source of a value of Table 5 (FMA sweep flat part) of the note.
macro_rules! table5 {
    ($gpu:literal, $what:literal) => {
        concat!(
            "measured: FMA sweep flat part, ",
            $gpu,
            " ",
            $what,
            ", Table 5 of \"The Roofline Model, Starting from Measured Data\" (data: github.com/RealZST/llm-infra-notes roofline/data/summary.csv @ 272851c)"
        )
    };
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
const GH200E_DS: &str =
    "NVIDIA GH200 Grace Hopper Superchip datasheet (144 GB HBM3e), sparse figures / 2";
const B200_DS: &str = "NVIDIA HGX B200 datasheet (per GPU), sparse figures / 2";
const B300_DS: &str = "NVIDIA HGX B300 datasheet (8 GPUs, per GPU = / 8), sparse figures / 2";
const GB200_DS: &str =
    "NVIDIA GB200 NVL72 datasheet (per Blackwell GPU = rack / 72), sparse figures / 2";
const L40S_DS: &str = "NVIDIA L40S datasheet, sparse figures / 2";
const L4_DS: &str = "NVIDIA L4 Tensor Core GPU datasheet, sparse figures / 2";
const A10_DS: &str = "NVIDIA A10 Tensor Core GPU datasheet, sparse figures / 2";
const T4_DS: &str = "NVIDIA T4 Tensor Core GPU datasheet (mixed-precision FP16/FP32 tensor)";
const ADA_WP: &str =
    "NVIDIA Ada GPU Architecture whitepaper (GeForce RTX 40 series), dense, FP32 accumulate";
const RTX6000ADA_DS: &str = "NVIDIA RTX 6000 Ada Generation datasheet";
const GA102_WP: &str =
    "NVIDIA Ampere GA102 GPU Architecture whitepaper, Appendix A (RTX 3090), dense, FP32 accumulate";
const GB202_WP: &str =
    "NVIDIA RTX Blackwell GPU Architecture whitepaper (GeForce RTX 5090), dense, FP32 accumulate";
const RTXPRO6000_DS: &str = "NVIDIA RTX PRO 6000 Blackwell Workstation Edition datasheet";
const L40_DS: &str = "NVIDIA L40 datasheet (L40/L40S table as reproduced at https://www.mullet.se/product.html?product_id=355414), sparse figures / 2";
const L40_CORES: &str = "NVIDIA L40 datasheet (https://www.mullet.se/product.html?product_id=355414): 18,176 CUDA cores / 128 per SM (NVIDIA Ada GPU Architecture whitepaper) = 142 SMs; 568 Tensor Cores / 4 per SM = 142";
const A40_DS: &str = "NVIDIA A40 datasheet (as reproduced at https://www.ecer.com/corp/details-uuuedqa-p1bsay9-multi-display-setups-supported-by-48gb-gddr6-ecc-memory-nvidia-a40-gpu-and-vga-outputs.html), sparse figures / 2";
const A40_CORES: &str = "NVIDIA A40 datasheet (https://www.ecer.com/corp/details-uuuedqa-p1bsay9-multi-display-setups-supported-by-48gb-gddr6-ecc-memory-nvidia-a40-gpu-and-vga-outputs.html): 10,752 CUDA cores / 128 per SM (NVIDIA Ampere GA102 GPU Architecture whitepaper) = 84 SMs; 336 Tensor Cores / 4 per SM = 84";

static TABLE: &[GpuSpec] = &[
    GpuSpec {
        key: "v100",
        name: "NVIDIA Tesla V100 SXM2 16GB",
        compute_capability: "7.0",
        sm_count: Some(80),
        l2_bytes: Some(6 * MIB),
        memory_clock_mhz: Some(877.0),
        facts: RUNTIME_FACTS,
        datasheet: &[
            m(Dram, 900.0, V100_DS),
            c(Fp64, 7.8, V100_DS),
            c(Fp32, 15.7, V100_DS),
            c(Fp16, 15.7, "NVIDIA Tesla V100 GPU Architecture whitepaper: FP16 31.4 TFLOPS packed, / 2 for per-instruction counting"),
            c(TensorFp16, 125.0, V100_DS),
        ],
        measured: &[
            m(Dram, 869.84, roofs_csv!("v100-16", "fp16", "bandwidth: read_reduce over 128 MiB")),
            c(TensorFp16, 100.58, roofs_csv!("v100-16", "fp16", "cuBLAS GEMM 8192x8192x8192")),
            c(Fp32, 15.333, "measured: FMA sweep flat part (fp32, R = 1024), github.com/RealZST/llm-infra-notes roofline/data/summary.csv @ 272851c, family fma, target v100-16"),
            c(Fp64, 7.7167, roofs_csv!("v100-16", "fp64", "cuBLAS DGEMM 8192x8192x8192 on CUDA cores, above the FMA sweep's 7.686")),
        ],
    },
    GpuSpec {
        key: "v100-32gb",
        name: "NVIDIA Tesla V100 SXM2 32GB",
        compute_capability: "7.0",
        sm_count: Some(80),
        l2_bytes: Some(6 * MIB),
        memory_clock_mhz: Some(877.0),
        facts: RUNTIME_FACTS,
        datasheet: &[
            m(Dram, 900.0, V100_DS),
            c(Fp64, 7.8, V100_DS),
            c(Fp32, 15.7, V100_DS),
            c(Fp16, 15.7, "NVIDIA Tesla V100 GPU Architecture whitepaper: FP16 31.4 TFLOPS packed, / 2 for per-instruction counting"),
            c(TensorFp16, 125.0, V100_DS),
        ],
        measured: &[
            m(Dram, 840.64, roofs_csv!("v100-32", "fp16", "bandwidth: read_reduce over 128 MiB")),
            c(TensorFp16, 103.43, roofs_csv!("v100-32", "fp16", "cuBLAS GEMM 8192x8192x8192")),
            c(Fp32, 15.493, roofs_csv!("v100-32", "fp32", "cuBLAS SGEMM 8192x8192x8192 on CUDA cores, above Table 5's FMA sweep 15.3")),
            c(Fp64, 7.7155, roofs_csv!("v100-32", "fp64", "cuBLAS DGEMM 8192x8192x8192 on CUDA cores; Table 5's FMA sweep: 7.7")),
        ],
    },
    GpuSpec {
        key: "t4",
        name: "NVIDIA T4",
        compute_capability: "7.5",
        sm_count: Some(40),
        l2_bytes: Some(4 * MIB),
        memory_clock_mhz: Some(5001.0),
        facts: RUNTIME_FACTS,
        datasheet: &[
            m(Dram, 320.0, T4_DS),
            c(Fp64, 0.25, "Turing whitepaper: FP64 at 1/32 of FP32 (8.1 TFLOPS / 32)"),
            c(Fp32, 8.1, T4_DS),
            c(Fp16, 8.1, "T4 FP16 (non-tensor) 16.2 TFLOPS packed (2 x FP32, Turing whitepaper), / 2 for per-instruction counting"),
            c(TensorFp16, 65.0, T4_DS),
            c(TensorInt8, 130.0, T4_DS),
        ],
        measured: &[],
    },
    GpuSpec {
        key: "a100-40gb",
        name: "NVIDIA A100 40GB SXM4",
        compute_capability: "8.0",
        sm_count: Some(108),
        l2_bytes: Some(40 * MIB),
        memory_clock_mhz: Some(1215.0),
        facts: RUNTIME_FACTS,
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
        sm_count: Some(108),
        l2_bytes: Some(40 * MIB),
        memory_clock_mhz: Some(1593.0),
        facts: RUNTIME_FACTS,
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
        // The study's A100 is "NVIDIA A100-SXM4-80GB" (roofline/data/devices.csv).
        measured: &[
            m(Dram, 1682.5, roofs_csv!("a100", "fp16", "bandwidth: read_reduce over 128 MiB")),
            c(TensorFp64, 19.362, roofs_csv!("a100", "fp64", "cuBLAS DGEMM 8192x8192x8192 on tensor cores")),
            c(TensorTf32, 147.44, roofs_csv!("a100", "tf32", "cuBLAS GEMM 8192x8192x8192")),
            c(TensorFp16, 295.24, roofs_csv!("a100", "fp16", "cuBLAS GEMM 8192x8192x8192")),
            c(TensorBf16, 293.55, roofs_csv!("a100", "bf16", "cuBLAS GEMM 8192x8192x8192")),
            c(Fp32, 19.4, table5!("A100", "FP32")),
            c(Fp64, 9.7, table5!("A100", "FP64")),
        ],
    },
    GpuSpec {
        key: "a10",
        name: "NVIDIA A10",
        compute_capability: "8.6",
        sm_count: Some(72),
        l2_bytes: Some(6 * MIB),
        memory_clock_mhz: None,
        facts: RUNTIME_FACTS,
        datasheet: &[
            m(Dram, 600.0, A10_DS),
            c(Fp64, 0.4875, "GA102 FP64 at 1/64 of FP32 (GA102 whitepaper): 31.2 TFLOPS / 64"),
            c(Fp32, 31.2, A10_DS),
            c(Fp16, 15.6, "GA102 FP16 (non-tensor) = FP32 rate 31.2 TFLOPS packed (GA102 whitepaper), / 2 for per-instruction counting"),
            c(TensorTf32, 62.5, A10_DS),
            c(TensorFp16, 125.0, A10_DS),
            c(TensorBf16, 125.0, A10_DS),
            c(TensorInt8, 250.0, A10_DS),
        ],
        measured: &[],
    },
    GpuSpec {
        key: "a40",
        name: "NVIDIA A40",
        compute_capability: "8.6",
        sm_count: Some(84),
        l2_bytes: Some(6 * MIB),
        memory_clock_mhz: None,
        facts: FactSources {
            sm_count: A40_CORES,
            l2: "L2 6 MB: https://gpu.spicedreamphone.com/en/gpu/nvidia/a40-pcie (third-party database); the full GA102 has 6,144 KB of L2 (NVIDIA Ampere GA102 GPU Architecture whitepaper)",
            memory: "48 GB GDDR6, 384-bit at 14.5 Gbps = 696 GB/s: PNY A40 (900-2G133-0000-000) specification, http://www.relationship-nepal.org/900-2g133-0000-000.html",
            boost_clock_mhz: Some(1740.0),
            boost_clock: "boost clock 1,740 MHz: https://gpu.spicedreamphone.com/en/gpu/nvidia/a40-pcie and https://hmc-tech.com/gpu/nvidia-l40-vs-nvidia-a40 (third-party databases)",
        },
        datasheet: &[
            m(Dram, 696.0, A40_DS),
            c(Fp64, 0.584, "GA102 FP64 at 1/64 of FP32 (GA102 whitepaper): A40 datasheet 37.4 TFLOPS / 64 = 0.584 (third-party databases say 1:32; the table follows the whitepaper, as for the A10 and RTX 3090)"),
            c(Fp32, 37.4, A40_DS),
            c(Fp16, 18.7, "GA102 FP16 (non-tensor) = FP32 rate 37.4 TFLOPS packed (GA102 whitepaper), / 2 for per-instruction counting"),
            c(TensorTf32, 74.8, A40_DS),
            c(TensorFp16, 149.7, A40_DS),
            c(TensorBf16, 149.7, A40_DS),
            c(TensorInt8, 299.3, A40_DS),
        ],
        measured: &[],
    },
    GpuSpec {
        key: "rtx3090",
        name: "NVIDIA GeForce RTX 3090",
        compute_capability: "8.6",
        sm_count: Some(82),
        l2_bytes: Some(6 * MIB),
        memory_clock_mhz: None,
        facts: RUNTIME_FACTS,
        datasheet: &[
            m(Dram, 936.0, GA102_WP),
            c(Fp64, 0.556, "GA102 whitepaper FP32 35.6 TFLOPS x 1/64 (GA102 FP64 rate)"),
            c(Fp32, 35.6, GA102_WP),
            c(Fp16, 17.8, "GA102 whitepaper: FP16 (non-tensor) 35.6 TFLOPS packed, / 2 for per-instruction counting"),
            c(TensorTf32, 35.6, GA102_WP),
            c(TensorFp16, 71.0, GA102_WP),
            c(TensorBf16, 71.0, GA102_WP),
            c(TensorInt8, 284.0, GA102_WP),
        ],
        measured: &[],
    },
    GpuSpec {
        key: "h100-sxm",
        name: "NVIDIA H100 SXM5 80GB",
        compute_capability: "9.0",
        sm_count: Some(132),
        l2_bytes: Some(50 * MIB),
        memory_clock_mhz: Some(2619.0),
        facts: RUNTIME_FACTS,
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
        // The study's H100 is "NVIDIA H100 80GB HBM3", the SXM part
        // (roofline/data/devices.csv): its 3085 GB/s is above the PCIe
        // card's 2.0 TB/s datasheet bandwidth.
        measured: &[
            m(Dram, 3084.8, roofs_csv!("h100", "fp16", "bandwidth: read_reduce over 128 MiB")),
            c(TensorFp16, 787.61, roofs_csv!("h100", "fp16", "cuBLAS GEMM 2048x8192x8192")),
            c(TensorBf16, 802.42, roofs_csv!("h100", "bf16", "cuBLAS GEMM 2048x8192x8192")),
            c(TensorFp8, 1318.1, roofs_csv!("h100", "fp8_e4m3", "cuBLASLt FP8 E4M3 GEMM 1024x8192x8192")),
            c(TensorTf32, 417.95, roofs_csv!("h100", "tf32", "cuBLAS GEMM 1024x8192x8192")),
            c(TensorFp64, 64.207, roofs_csv!("h100", "fp64", "cuBLAS DGEMM 8192x8192x8192 on tensor cores")),
            c(Fp32, 61.5, table5!("H100", "FP32")),
            c(Fp64, 32.9, table5!("H100", "FP64")),
        ],
    },
    GpuSpec {
        key: "h100-pcie",
        name: "NVIDIA H100 PCIe 80GB",
        compute_capability: "9.0",
        sm_count: Some(114),
        l2_bytes: Some(50 * MIB),
        memory_clock_mhz: Some(1593.0),
        facts: RUNTIME_FACTS,
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
        sm_count: Some(132),
        // 60 MiB, not the H100 SXM5's 50: the H200 enables the whole L2 of
        // the GH100 die, 60 MB in NVIDIA's "NVIDIA H100 Tensor Core GPU
        // Architecture" whitepaper (full GH100 implementation), and
        // `cudaDeviceProp::l2CacheSize` on an H200 reads 62914560 bytes
        // (issue 14's review; also l2_mib 60.0 in roofline/data/devices.csv
        // of the measurement). A device check records the value it reads.
        l2_bytes: Some(60 * MIB),
        memory_clock_mhz: None,
        facts: RUNTIME_FACTS,
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
            m(Dram, 4295.1, roofs_csv!("h200", "fp16", "bandwidth: read_reduce over 128 MiB")),
            c(TensorBf16, 814.96, roofs_csv!("h200", "bf16", "cuBLAS GEMM 4096x4096x4096")),
            c(TensorFp16, 755.65, roofs_csv!("h200", "fp16", "cuBLAS GEMM 1024x8192x8192")),
            c(TensorFp8, 1298.0, roofs_csv!("h200", "fp8_e4m3", "cuBLASLt FP8 E4M3 GEMM 8192x8192x8192")),
            c(TensorTf32, 412.27, roofs_csv!("h200", "tf32", "cuBLAS GEMM 1024x8192x8192")),
            c(TensorFp64, 64.646, roofs_csv!("h200", "fp64", "cuBLAS DGEMM 8192x8192x8192 on tensor cores")),
            c(Fp32, 62.2, table5!("H200", "FP32")),
            c(Fp64, 32.9, table5!("H200", "FP64")),
        ],
    },
    GpuSpec {
        key: "gh200",
        name: "NVIDIA GH200 Grace Hopper (H100 96GB HBM3)",
        compute_capability: "9.0",
        sm_count: Some(132),
        l2_bytes: Some(50 * MIB),
        memory_clock_mhz: None,
        facts: RUNTIME_FACTS,
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
        key: "gh200-144gb",
        name: "NVIDIA GH200 Grace Hopper (H100 144GB HBM3e)",
        compute_capability: "9.0",
        sm_count: Some(132),
        // roofline/data/devices.csv of the measurement: l2_mib 60.0.
        l2_bytes: Some(60 * MIB),
        memory_clock_mhz: None,
        facts: RUNTIME_FACTS,
        datasheet: &[
            m(Dram, 4900.0, GH200E_DS),
            c(Fp64, 34.0, GH200E_DS),
            c(TensorFp64, 67.0, GH200E_DS),
            c(Fp32, 67.0, GH200E_DS),
            c(TensorTf32, 494.5, GH200E_DS),
            c(TensorFp16, 989.5, GH200E_DS),
            c(TensorBf16, 989.5, GH200E_DS),
            c(TensorFp8, 1979.0, GH200E_DS),
            c(TensorInt8, 1979.0, GH200E_DS),
        ],
        // The study's "NVIDIA GH200 144G HBM3e" (roofline/data/devices.csv).
        measured: &[
            m(Dram, 4347.4, roofs_csv!("gh200", "fp16", "bandwidth: read_reduce over 128 MiB")),
            c(TensorFp64, 63.722, roofs_csv!("gh200", "fp64", "cuBLAS DGEMM 8192x8192x8192 on tensor cores")),
            c(TensorTf32, 401.54, roofs_csv!("gh200", "tf32", "cuBLAS GEMM 2048x8192x8192")),
            c(TensorFp16, 772.37, roofs_csv!("gh200", "fp16", "cuBLAS GEMM 2048x8192x8192")),
            c(TensorBf16, 758.96, roofs_csv!("gh200", "bf16", "cuBLAS GEMM 2048x8192x8192")),
            c(TensorFp8, 1238.2, roofs_csv!("gh200", "fp8_e4m3", "cuBLASLt FP8 E4M3 GEMM 8192x8192x8192")),
            c(Fp32, 62.463, "measured: FMA sweep flat part (fp32, R = 2048, iqr/median 7e-5), github.com/RealZST/llm-infra-notes roofline/data/summary.csv @ 272851c, family fma, target gh200; above its CUDA-core SGEMM 51.57"),
            c(Fp64, 32.853, "measured: FMA sweep flat part (fp64, R = 2048, iqr/median 6e-5), github.com/RealZST/llm-infra-notes roofline/data/summary.csv @ 272851c, family fma, target gh200"),
        ],
    },
    GpuSpec {
        key: "b200",
        name: "NVIDIA B200 (HGX, 180GB)",
        compute_capability: "10.0",
        sm_count: Some(148),
        // device__attribute_l2_cache_size 132644864 in a real B200 ncu CSV
        // (shared/corpus/ncu/ncu2025_raw_page_csv_flashinfer_decode_b200.csv).
        l2_bytes: Some(126 * MIB + 512 * KIB),
        memory_clock_mhz: Some(3996.0),
        facts: RUNTIME_FACTS,
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
        key: "gb200",
        name: "NVIDIA GB200 (Blackwell GPU of GB200 NVL72)",
        compute_capability: "10.0",
        sm_count: None,
        l2_bytes: Some(126 * MIB + 512 * KIB),
        memory_clock_mhz: None,
        facts: RUNTIME_FACTS,
        datasheet: &[
            m(Dram, 8000.0, GB200_DS),
            c(Fp64, 45.0, GB200_DS),
            c(TensorFp64, 45.0, GB200_DS),
            c(Fp32, 90.0, "NVIDIA Blackwell datasheet, GB200 (1200 W) vector FP32: 90 TFLOPS"),
            c(TensorTf32, 1250.0, GB200_DS),
            c(TensorFp16, 2500.0, GB200_DS),
            c(TensorBf16, 2500.0, GB200_DS),
            c(TensorFp8, 5000.0, GB200_DS),
            c(TensorInt8, 5000.0, GB200_DS),
            c(TensorFp4, 10000.0, GB200_DS),
        ],
        measured: &[],
    },
    GpuSpec {
        key: "b300",
        name: "NVIDIA B300 (HGX, Blackwell Ultra)",
        compute_capability: "10.3",
        sm_count: Some(148),
        // roofline/data/devices.csv of the measurement: 148 SMs, l2_mib 126.5.
        l2_bytes: Some(126 * MIB + 512 * KIB),
        memory_clock_mhz: None,
        facts: RUNTIME_FACTS,
        datasheet: &[
            m(Dram, 8000.0, B300_DS),
            c(Fp64, 1.25, B300_DS),
            c(TensorFp64, 1.25, B300_DS),
            c(Fp32, 75.0, B300_DS),
            c(TensorTf32, 1125.0, B300_DS),
            c(TensorFp16, 2250.0, B300_DS),
            c(TensorBf16, 2250.0, B300_DS),
            c(TensorFp8, 4500.0, B300_DS),
            c(TensorFp4, 13500.0, B300_DS),
        ],
        // The study's "NVIDIA B300 SXM6 AC" (roofline/data/devices.csv).
        measured: &[
            m(Dram, 6387.0, roofs_csv!("b300", "fp16", "bandwidth: FMA sweep R = 1 over 512 MiB, above read_reduce's 5615 GB/s")),
            c(TensorFp64, 1.0529, roofs_csv!("b300", "fp64", "cuBLAS DGEMM 8192x8192x8192")),
            c(TensorTf32, 975.31, roofs_csv!("b300", "tf32", "cuBLAS GEMM 8192x8192x8192")),
            c(TensorFp16, 1783.6, roofs_csv!("b300", "fp16", "cuBLAS GEMM 8192x8192x8192")),
            c(TensorBf16, 1741.0, roofs_csv!("b300", "bf16", "cuBLAS GEMM 8192x8192x8192")),
            c(TensorFp8, 3192.7, roofs_csv!("b300", "fp8_e4m3", "cuBLASLt FP8 E4M3 GEMM 4096x4096x4096")),
            c(TensorFp4, 4802.7, roofs_csv!("b300", "nvfp4", "cuBLASLt NVFP4 GEMM 1024x8192x8192")),
            c(Fp32, 70.8, table5!("B300", "FP32")),
            c(Fp64, 1.19, table5!("B300", "FP64")),
        ],
    },
    GpuSpec {
        key: "l4",
        name: "NVIDIA L4",
        compute_capability: "8.9",
        sm_count: Some(58),
        l2_bytes: Some(48 * MIB),
        memory_clock_mhz: None,
        facts: RUNTIME_FACTS,
        datasheet: &[
            m(Dram, 300.0, L4_DS),
            c(Fp64, 0.473, "L4 datasheet FP32 30.3 TFLOPS x 1/64 (Ada FP64 rate, Ada whitepaper)"),
            c(Fp32, 30.3, L4_DS),
            c(Fp16, 15.15, "L4 FP16 (non-tensor) = FP32 rate 30.3 TFLOPS packed (Ada whitepaper), / 2 for per-instruction counting"),
            c(TensorTf32, 60.0, L4_DS),
            c(TensorFp16, 121.0, L4_DS),
            c(TensorBf16, 121.0, L4_DS),
            c(TensorFp8, 242.5, L4_DS),
            c(TensorInt8, 242.5, L4_DS),
        ],
        measured: &[],
    },
    GpuSpec {
        key: "l40s",
        name: "NVIDIA L40S",
        compute_capability: "8.9",
        sm_count: Some(142),
        l2_bytes: Some(96 * MIB),
        memory_clock_mhz: None,
        facts: FactSources {
            sm_count: "NVIDIA L40S datasheet (L40/L40S table as reproduced at https://www.mullet.se/product.html?product_id=355414): 18,176 CUDA cores / 128 per SM (Ada whitepaper) = 142 SMs; 568 Tensor Cores / 4 per SM = 142",
            l2: RUNTIME,
            memory: "48 GB GDDR6, 384-bit at 18 Gbps = 864 GB/s: https://www.itcreations.com/nvidia-gpu/nvidia-l40s-gpu-accelerator (reseller page)",
            boost_clock_mhz: Some(2520.0),
            boost_clock: "boost clock 2,520 MHz: https://www.itcreations.com/nvidia-gpu/nvidia-l40s-gpu-accelerator (reseller page)",
        },
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
        key: "l40",
        name: "NVIDIA L40",
        compute_capability: "8.9",
        sm_count: Some(142),
        // No source at hand gives the L40's L2 size (a third-party database
        // says 48 MB for the same-silicon L40S, the table's L40S entry 96 MiB).
        l2_bytes: None,
        memory_clock_mhz: None,
        facts: FactSources {
            sm_count: L40_CORES,
            l2: "",
            memory: "48 GB GDDR6, 384-bit at 18 Gbps (2,250 MHz) = 864 GB/s: https://pcpartdb.com/gpus/compare/nvidia-l40--vs--nvidia-l40s (third-party database); 864 GB/s agrees with the L40 datasheet",
            boost_clock_mhz: Some(2490.0),
            boost_clock: "boost clock 2,490 MHz: https://pcpartdb.com/gpus/compare/nvidia-l40--vs--nvidia-l40s and https://hmc-tech.com/gpu/nvidia-l40-vs-nvidia-a40 (third-party databases)",
        },
        datasheet: &[
            m(Dram, 864.0, L40_DS),
            c(Fp64, 1.414, "L40 datasheet FP32 90.5 TFLOPS x 1/64 (Ada FP64 rate, Ada whitepaper) = 1.414"),
            c(Fp32, 90.5, L40_DS),
            c(Fp16, 45.25, "L40 FP16 (non-tensor) = FP32 rate 90.5 TFLOPS packed (Ada whitepaper), / 2 for per-instruction counting"),
            c(TensorTf32, 90.5, L40_DS),
            c(TensorFp16, 181.05, L40_DS),
            c(TensorBf16, 181.05, L40_DS),
            c(TensorFp8, 362.0, L40_DS),
            c(TensorInt8, 362.0, L40_DS),
        ],
        measured: &[],
    },
    GpuSpec {
        key: "rtx6000-ada",
        name: "NVIDIA RTX 6000 Ada Generation",
        compute_capability: "8.9",
        sm_count: Some(142),
        l2_bytes: Some(96 * MIB),
        memory_clock_mhz: None,
        facts: RUNTIME_FACTS,
        datasheet: &[
            m(Dram, 960.0, RTX6000ADA_DS),
            c(Fp64, 1.42, "RTX 6000 Ada datasheet FP32 91.1 TFLOPS x 1/64 (Ada FP64 rate, Ada whitepaper)"),
            c(Fp32, 91.1, RTX6000ADA_DS),
            c(Fp16, 45.55, "RTX 6000 Ada FP16 (non-tensor) = FP32 rate 91.1 TFLOPS packed (Ada whitepaper), / 2 for per-instruction counting"),
            c(TensorTf32, 182.1, "RTX 6000 Ada datasheet: tensor 1457 TFLOPS (FP8, sparse) / 2 (dense) / 4 (TF32 is a quarter of the FP8 rate on Ada)"),
            c(TensorFp16, 364.25, "RTX 6000 Ada datasheet: tensor 1457 TFLOPS (FP8, sparse) / 2 (dense) / 2 (FP16 is half the FP8 rate on Ada, FP32 accumulate at full rate on professional cards)"),
            c(TensorBf16, 364.25, "RTX 6000 Ada datasheet: tensor 1457 TFLOPS (FP8, sparse) / 2 (dense) / 2 (BF16 as FP16)"),
            c(TensorFp8, 728.5, "RTX 6000 Ada datasheet: tensor 1457 TFLOPS (FP8, sparse) / 2"),
            c(TensorInt8, 728.5, "RTX 6000 Ada datasheet: tensor 1457 TFLOPS (FP8, sparse) / 2 (INT8 at the FP8 rate on Ada)"),
        ],
        measured: &[],
    },
    GpuSpec {
        key: "rtx4080",
        name: "NVIDIA GeForce RTX 4080",
        compute_capability: "8.9",
        sm_count: Some(76),
        l2_bytes: Some(64 * MIB),
        memory_clock_mhz: None,
        facts: RUNTIME_FACTS,
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
        // Measured GEMM peaks above the GeForce FP32-accumulate datasheet
        // figures: cuBLAS accumulates FP16/BF16 in FP32 here too (README of
        // the measurement), so the measured value is the attainable roof.
        measured: &[
            m(Dram, 661.42, roofs_csv!("rtx4080", "fp16", "bandwidth: read_reduce over 128 MiB")),
            m(L2, 2600.0, "measured: copy kernel at a 32 MiB working set (fits the 64 MiB L2), section 4 \"Bandwidth\" (Figure 2) of \"The Roofline Model, Starting from Measured Data\"; a copy kernel is a lower bound"),
            c(TensorTf32, 53.278, roofs_csv!("rtx4080", "tf32", "cuBLAS GEMM 8192x8192x8192")),
            c(TensorFp16, 104.21, roofs_csv!("rtx4080", "fp16", "cuBLAS GEMM 8192x8192x8192")),
            c(TensorBf16, 103.78, roofs_csv!("rtx4080", "bf16", "cuBLAS GEMM 8192x8192x8192")),
            c(TensorFp8, 205.78, roofs_csv!("rtx4080", "fp8_e4m3", "cuBLASLt FP8 E4M3 GEMM 8192x8192x8192")),
            c(Fp32, 49.4, table5!("RTX 4080", "FP32")),
            c(Fp64, 0.74176, roofs_csv!("rtx4080", "fp64", "cuBLAS DGEMM 8192x8192x8192 on CUDA cores, above Table 5's FMA sweep 0.71")),
        ],
    },
    GpuSpec {
        key: "rtx4090",
        name: "NVIDIA GeForce RTX 4090",
        compute_capability: "8.9",
        sm_count: Some(128),
        l2_bytes: Some(72 * MIB),
        memory_clock_mhz: None,
        facts: RUNTIME_FACTS,
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
    GpuSpec {
        key: "rtx5090",
        name: "NVIDIA GeForce RTX 5090",
        compute_capability: "12.0",
        sm_count: Some(170),
        l2_bytes: Some(96 * MIB),
        memory_clock_mhz: None,
        facts: RUNTIME_FACTS,
        datasheet: &[
            m(Dram, 1792.0, GB202_WP),
            c(Fp64, 1.6375, "RTX Blackwell whitepaper FP32 104.8 TFLOPS x 1/64 (FP64 rate of GB202)"),
            c(Fp32, 104.8, GB202_WP),
            c(Fp16, 52.4, "RTX Blackwell whitepaper: FP16 (non-tensor) 104.8 TFLOPS packed, / 2 for per-instruction counting"),
            c(TensorTf32, 104.8, GB202_WP),
            c(TensorFp16, 209.5, GB202_WP),
            c(TensorBf16, 209.5, GB202_WP),
            c(TensorFp8, 419.0, GB202_WP),
            c(TensorInt8, 838.0, GB202_WP),
            c(TensorFp4, 1676.0, "RTX Blackwell whitepaper: FP4 tensor 3352 TFLOPS (\"AI TOPS\", sparse) / 2"),
        ],
        measured: &[],
    },
    GpuSpec {
        key: "rtx-pro-6000",
        name: "NVIDIA RTX PRO 6000 Blackwell Workstation Edition",
        compute_capability: "12.0",
        sm_count: Some(188),
        l2_bytes: Some(128 * MIB),
        memory_clock_mhz: None,
        facts: RUNTIME_FACTS,
        datasheet: &[
            m(Dram, 1792.0, RTXPRO6000_DS),
            c(Fp64, 1.953, "RTX PRO 6000 Blackwell datasheet FP32 125 TFLOPS x 1/64 (FP64 rate of GB202)"),
            c(Fp32, 125.0, RTXPRO6000_DS),
            c(Fp16, 62.5, "RTX PRO 6000 Blackwell FP16 (non-tensor) = FP32 rate 125 TFLOPS packed, / 2 for per-instruction counting"),
            c(TensorTf32, 250.0, "RTX PRO 6000 Blackwell datasheet: 4000 AI TOPS (FP4, sparse) / 2 (dense) / 8 (TF32 is an eighth of the FP4 rate)"),
            c(TensorFp16, 500.0, "RTX PRO 6000 Blackwell datasheet: 4000 AI TOPS (FP4, sparse) / 2 (dense) / 4 (FP16, FP32 accumulate at full rate on professional cards)"),
            c(TensorBf16, 500.0, "RTX PRO 6000 Blackwell datasheet: 4000 AI TOPS (FP4, sparse) / 2 (dense) / 4 (BF16 as FP16)"),
            c(TensorFp8, 1000.0, "RTX PRO 6000 Blackwell datasheet: 4000 AI TOPS (FP4, sparse) / 2 (dense) / 2 (FP8 is half the FP4 rate)"),
            c(TensorFp4, 2000.0, "RTX PRO 6000 Blackwell datasheet: 4000 AI TOPS (FP4, sparse) / 2"),
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
/// SUPER, A10G, V100 PCIe, MIG slices, Max-Q and laptop parts) rather than
/// guessing wrong roofs.
pub fn by_device_name(device_name: &str) -> Option<&'static GpuSpec> {
    let n = device_name.to_ascii_lowercase();
    let has = |s: &str| n.contains(s);
    // Whole words, so that `L4` is not found in `L40S`, nor `A10` in `A100`.
    let words: Vec<&str> = n
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    let word = |s: &str| words.contains(&s);
    if has("laptop") || has("super") || has("nvl") || has("mobile") || has("max-q") || word("mig") {
        return None;
    }
    let key = if has("gh200") {
        if has("144g") {
            "gh200-144gb"
        } else {
            "gh200"
        }
    } else if has("gb200") {
        "gb200"
    } else if has("gb300") {
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
        } else if has("pg509-200") {
            // PG509 is an A100 SXM board name some drivers report
            // (github.com/facebookincubator/AITemplate/pull/749); the
            // PG509-200 in HTA's Kineto traces (corpus kineto_hta_*) has
            // 108 SMs, CC 8.0 and totalGlobalMem 42297524224 B (39.4 GiB):
            // the 40 GB A100. Other PG509 variants are not guessed.
            "a100-40gb"
        } else {
            return None;
        }
    } else if has("v100") {
        if has("pcie") {
            return None;
        } else if has("32gb") {
            "v100-32gb"
        } else {
            "v100"
        }
    } else if has("b300") {
        "b300"
    } else if has("b200") {
        "b200"
    } else if has("l40s") {
        "l40s"
    } else if word("l40") {
        "l40"
    } else if word("l4") {
        "l4"
    } else if word("a40") {
        "a40"
    } else if word("a10") {
        "a10"
    } else if word("t4") {
        "t4"
    } else if has("rtx 6000 ada") {
        "rtx6000-ada"
    } else if has("rtx pro 6000") && has("blackwell") && !has("server") {
        "rtx-pro-6000"
    } else if has("rtx 5090") && !has("5090 d") {
        "rtx5090"
    } else if has("rtx 4090") && !has("4090 d") {
        "rtx4090"
    } else if has("rtx 4080") {
        "rtx4080"
    } else if has("rtx 3090") && !has("3090 ti") {
        "rtx3090"
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

/// FP32 lanes (CUDA cores) per SM of a compute capability, with the
/// document that says so.
pub fn fp32_lanes_per_sm(cc: &str) -> Option<(u32, &'static str)> {
    let major = cc.split('.').next()?;
    Some(match cc {
        "7.0" => (64, "NVIDIA Tesla V100 GPU Architecture whitepaper: 64 FP32 cores per SM"),
        "7.5" => (64, "NVIDIA Turing GPU Architecture whitepaper: 64 FP32 cores per SM"),
        "8.0" => (64, "NVIDIA A100 Tensor Core GPU Architecture whitepaper: 64 FP32 CUDA cores per SM"),
        "8.6" | "8.7" => (128, "NVIDIA Ampere GA102 GPU Architecture whitepaper: 128 FP32 CUDA cores per SM"),
        "8.9" => (128, "NVIDIA Ada GPU Architecture whitepaper: 128 CUDA cores per SM"),
        "9.0" => (128, "NVIDIA H100 Tensor Core GPU Architecture whitepaper: 128 FP32 CUDA cores per SM"),
        _ if major == "10" => (128, "Cornell Virtual Workshop, \"Inside a Blackwell B200 SM\" (cvw.cac.cornell.edu/gpu-architecture/horizon-gpus-blackwell-b200/b200_sm): 128 FP32 CUDA cores per SM"),
        _ if major == "12" => (128, "NVIDIA RTX Blackwell GPU Architecture whitepaper: 128 FP32 CUDA cores per SM"),
        _ => return None,
    })
}

impl GpuSpec {
    /// The SM clock the datasheet peaks assume, Hz, and how it follows:
    /// the datasheet FP32 peak over 2 FLOP x FP32 lanes per SM x SMs,
    /// rounded to the MHz (NVIDIA states its peaks at the boost clock:
    /// A100 19.5 TFLOP/s / (2 x 64 x 108) = 1411 MHz, the whitepaper's boost
    /// clock 1410 MHz). `None` without an SM count or a datasheet FP32 peak.
    pub fn sm_clock(&self) -> Option<(f64, String)> {
        let sms = self.sm_count?;
        let (lanes, lanes_src) = fp32_lanes_per_sm(self.compute_capability)?;
        let fp32 = self
            .datasheet
            .iter()
            .find(|e| e.roof == RoofKey::Compute(ComputePath::Fp32))?;
        let mhz = (fp32.value / (2.0 * f64::from(lanes) * f64::from(sms)) / 1e6).round();
        Some((
            mhz * 1e6,
            format!(
                "the boost clock the datasheet peaks assume: FP32 {} TFLOP/s ({}) / (2 FLOP x {lanes} FP32 lanes per SM ({lanes_src}) x {sms} SMs) = {mhz} MHz",
                fp32.value / 1e12,
                fp32.source
            ),
        ))
    }

    /// The clocks the table's roofs assume: the SM clock of the datasheet
    /// peaks ([`GpuSpec::sm_clock`]) and the memory clock of the DRAM
    /// bandwidth. Measured roofs from a source that states no clock are
    /// taken at the same clocks, and their source says so.
    pub fn clocks(&self) -> RoofClocks {
        let (sm_clock_hz, sm_clock_source) = match self.sm_clock() {
            Some((hz, s)) => (Some(hz), s),
            None => (None, String::new()),
        };
        RoofClocks {
            sm_clock_hz,
            sm_clock_source,
            memory_clock_hz: self.memory_clock_mhz.map(|m| m * 1e6),
            memory_clock_source: self
                .memory_clock_mhz
                .map(|_| {
                    "built-in table: the memory clock the CUDA runtime reports (cudaDevAttrMemoryClockRate, ncu device__attribute_max_mem_frequency_khz)".to_string()
                })
                .unwrap_or_default(),
        }
    }

    /// Datasheet roofs only (origin = datasheet).
    pub fn datasheet_roofs(&self) -> Roofs {
        let mut r = Roofs::new(
            self.name,
            format!("built-in table ({}): NVIDIA datasheet, dense", self.key),
        );
        for e in self.datasheet {
            insert(&mut r, e, Origin::Datasheet);
        }
        r.clocks = self.clocks();
        r
    }

    /// The default roofs: measured values where present, datasheet otherwise.
    pub fn default_roofs(&self) -> Roofs {
        let mut r = self.datasheet_roofs();
        if !self.measured.is_empty() {
            r.source = format!(
                "built-in table ({}): measured where published ({MEASURED_DOC}; data {MEASURED_REPO} @ {}), NVIDIA datasheet otherwise",
                self.key,
                &MEASURED_COMMIT[..7]
            );
        }
        for e in self.measured {
            insert(&mut r, e, Origin::Measured);
        }
        if !self.measured.is_empty() && r.clocks.sm_clock_hz.is_some() {
            r.clocks.sm_clock_source.push_str(
                "; measured roofs: their source states no clock, so they are taken at this one (measured at application clocks, not under ncu's lock)",
            );
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
            "v100-32gb",
            "t4",
            "a100-40gb",
            "a100-80gb",
            "a10",
            "rtx3090",
            "h100-sxm",
            "h100-pcie",
            "h200",
            "gh200",
            "gh200-144gb",
            "b200",
            "gb200",
            "b300",
            "l4",
            "l40s",
            "l40",
            "a40",
            "rtx6000-ada",
            "rtx4080",
            "rtx4090",
            "rtx5090",
            "rtx-pro-6000",
        ] {
            let g = by_key(key).unwrap_or_else(|| panic!("{key}"));
            let r = g.default_roofs();
            assert!(r.dram().is_some(), "{key}");
            assert!(r.compute.contains_key(&ComputePath::Fp32), "{key}");
            for e in g.datasheet.iter().chain(g.measured) {
                assert!(e.value > 0.0 && !e.source.is_empty(), "{key}");
            }
        }
        let mut keys: Vec<&str> = all().iter().map(|g| g.key).collect();
        keys.sort();
        keys.dedup();
        assert_eq!(keys.len(), all().len(), "keys are unique");
    }

    #[test]
    fn measured_values_win_and_ridges_match_the_reference() {
        let r = by_key("h100-sxm").unwrap().default_roofs();
        assert_eq!(r.dram().unwrap().origin, Origin::Measured);
        // The ridge_flop_byte column of roofs.csv (272851c), computed there
        // from unrounded values: h100 fp16 255.316, bf16 260.118, fp8_e4m3
        // 427.275; tf32 135.485. Ours come from values rounded to 5 digits.
        let ridge = |p| r.ridge_flop_per_byte(p).unwrap();
        assert!((ridge(ComputePath::TensorFp16) - 255.316).abs() < 0.05);
        assert!((ridge(ComputePath::TensorBf16) - 260.118).abs() < 0.05);
        assert!((ridge(ComputePath::TensorFp8) - 427.275).abs() < 0.05);
        assert!((ridge(ComputePath::TensorTf32) - 135.485).abs() < 0.05);
        // Table 4 of the note: FP32 FMA ridge 19.9, FP64 FMA 10.7 FLOP/byte.
        assert!((ridge(ComputePath::Fp32) - 19.9).abs() < 0.05);
        assert!((ridge(ComputePath::Fp64) - 10.7).abs() < 0.05);
        // FP8 is measured now (1318 TFLOP/s, two thirds of the 1979 datasheet).
        assert_eq!(r.compute[&ComputePath::TensorFp8].origin, Origin::Measured);
        // INT8 has no measurement: datasheet stays.
        assert_eq!(
            r.compute[&ComputePath::TensorInt8].origin,
            Origin::Datasheet
        );
        // H200 and H100 cross where 3.0848 TB/s x I = 755.65 TFLOP/s,
        // I = 245 (section 3 of the note).
        let h200 = by_key("h200").unwrap().default_roofs();
        let crossing =
            h200.compute[&ComputePath::TensorFp16].flop_per_s / r.dram().unwrap().bytes_per_s;
        assert!((crossing - 245.0).abs() < 0.5, "{crossing}");
        // H200 DRAM is the published measurement (roofs.csv 4295.09 GB/s),
        // no longer derived from "39 % more".
        let d = h200.dram().unwrap();
        assert!((d.bytes_per_s - 4295.1e9).abs() < 1e6);
        assert!(d.source.contains("roofs.csv"), "{}", d.source);
        // Table 3: B300 ridge 279 FLOP/byte (1783.6 / 6.387).
        let b300 = by_key("b300").unwrap().default_roofs();
        let i = b300.ridge_flop_per_byte(ComputePath::TensorFp16).unwrap();
        assert!((i - 279.26).abs() < 0.05, "{i}");
    }

    #[test]
    fn sm_clocks_follow_from_the_datasheet_peaks() {
        // Boost clocks the whitepapers state: V100 SXM2 1530 MHz, A100
        // 1410 MHz, RTX 4090 2520 MHz; the peaks imply them to 0.3 %.
        for (key, boost) in [("v100", 1530e6), ("a100-40gb", 1410e6), ("rtx4090", 2520e6)] {
            let hz = by_key(key).unwrap().sm_clock().unwrap().0;
            assert!((hz / boost - 1.0).abs() < 0.003, "{key}: {hz}");
        }
        for g in all() {
            let c = g.clocks();
            if let Some(hz) = c.sm_clock_hz {
                assert!((1.0e9..3.0e9).contains(&hz), "{}: {hz}", g.key);
                assert!(c.sm_clock_source.contains("TFLOP/s"), "{}", g.key);
            }
            assert_eq!(
                c.memory_clock_hz.is_some(),
                !c.memory_clock_source.is_empty()
            );
        }
    }

    #[test]
    fn every_value_has_a_source_and_stated_boost_clocks_agree() {
        let mut checked = 0;
        for g in all() {
            let k = g.key;
            for e in g.datasheet.iter().chain(g.measured) {
                assert!(e.value > 0.0 && !e.source.trim().is_empty(), "{k}");
            }
            let f = &g.facts;
            assert!(g.sm_count.is_none() || !f.sm_count.is_empty(), "{k}");
            assert!(g.l2_bytes.is_none() || !f.l2.is_empty(), "{k}");
            assert!(g.memory_clock_mhz.is_none() || !f.memory.is_empty(), "{k}");
            // A stated boost clock has a source, and the clock the FP32 peak
            // implies (sm_clock) agrees with it within 1 %: the SM count, the
            // lanes per SM and the peak are consistent with each other.
            if let Some(boost) = f.boost_clock_mhz {
                assert!(!f.boost_clock.is_empty(), "{k}");
                let hz = g.sm_clock().unwrap_or_else(|| panic!("{k}")).0;
                assert!(
                    (hz / (boost * 1e6) - 1.0).abs() < 0.01,
                    "{k}: {hz} vs {boost} MHz"
                );
                checked += 1;
            }
        }
        // Entries added with per-value citations carry every fact's source
        // and a stated boost clock.
        for k in ["l40", "a40", "l40s"] {
            let f = by_key(k).unwrap().facts;
            assert!(f.boost_clock_mhz.is_some(), "{k}");
            for s in [f.sm_count, f.memory, f.boost_clock] {
                assert!(s.contains("http"), "{k}: {s}");
            }
        }
        assert!(checked >= 3);
    }

    #[test]
    fn device_names_resolve() {
        let k = |n| by_device_name(n).map(|g| g.key);
        assert_eq!(k("NVIDIA H100 80GB HBM3"), Some("h100-sxm"));
        assert_eq!(k("NVIDIA H100 PCIe"), Some("h100-pcie"));
        assert_eq!(k("NVIDIA H200"), Some("h200"));
        assert_eq!(k("NVIDIA H200 MIG 3g.71gb"), None);
        assert_eq!(k("NVIDIA GH200 480GB"), Some("gh200"));
        assert_eq!(k("NVIDIA GH200 144G HBM3e"), Some("gh200-144gb"));
        assert_eq!(k("NVIDIA A100-SXM4-40GB"), Some("a100-40gb"));
        assert_eq!(k("NVIDIA A100 80GB PCIe"), Some("a100-80gb"));
        assert_eq!(k("Tesla V100-SXM2-16GB"), Some("v100"));
        assert_eq!(k("Tesla V100-SXM2-32GB"), Some("v100-32gb"));
        assert_eq!(k("Tesla V100-PCIE-32GB"), None);
        assert_eq!(k("NVIDIA B200"), Some("b200"));
        assert_eq!(k("NVIDIA B300 SXM6 AC"), Some("b300"));
        assert_eq!(k("NVIDIA GB200"), Some("gb200"));
        assert_eq!(k("NVIDIA L4"), Some("l4"));
        assert_eq!(k("NVIDIA L40S"), Some("l40s"));
        assert_eq!(k("NVIDIA A10"), Some("a10"));
        assert_eq!(k("NVIDIA A10G"), None);
        assert_eq!(k("NVIDIA L40"), Some("l40"));
        assert_eq!(k("NVIDIA A40"), Some("a40"));
        // The Kineto corpus traces' name (108 SMs, 39.4 GiB: the 40 GB A100).
        assert_eq!(k("NVIDIA A100-PG509-200"), Some("a100-40gb"));
        assert_eq!(k("NVIDIA A100-PG509-210"), None);
        assert_eq!(k("Tesla T4"), Some("t4"));
        assert_eq!(k("NVIDIA RTX 6000 Ada Generation"), Some("rtx6000-ada"));
        assert_eq!(
            k("NVIDIA RTX PRO 6000 Blackwell Workstation Edition"),
            Some("rtx-pro-6000")
        );
        assert_eq!(
            k("NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition"),
            None
        );
        assert_eq!(k("NVIDIA GeForce RTX 5090"), Some("rtx5090"));
        assert_eq!(k("NVIDIA GeForce RTX 4090"), Some("rtx4090"));
        assert_eq!(k("NVIDIA GeForce RTX 3090"), Some("rtx3090"));
        assert_eq!(k("NVIDIA GeForce RTX 3090 Ti"), None);
        assert_eq!(k("NVIDIA GeForce RTX 4080 SUPER"), None);
        assert_eq!(k("NVIDIA H100 NVL"), None);
        assert_eq!(by_compute_capability("8.9").len(), 6);
        assert_eq!(by_compute_capability("8.6").len(), 3);
        assert_eq!(by_compute_capability("12.0").len(), 2);
    }
}
