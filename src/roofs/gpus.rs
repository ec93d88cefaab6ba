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
//! - The host link (`FactSources::host_link`) is the interface the card's
//!   datasheet or product page names, turned into bytes per direction by
//!   the PCIe arithmetic of [`HostLink::bytes_per_s`]; the documents were
//!   cited from their published interface lines, not reopened in the
//!   session that added them (issue 23): check those first. No export
//!   records the link, so nothing measured backs these values.
//! - The NVLink (`FactSources::nvlink`) is the card's NVLink bandwidth as
//!   its datasheet states it (both directions together), halved to one
//!   direction by [`NvLink::bytes_per_s`]'s per-link arithmetic; like the
//!   host link, cited from the published figures, not reopened in the
//!   session that added them (issue 31); `None` for PCIe cards (a bridge
//!   joins pairs only) and where no NVIDIA source was at hand (H20).
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
    /// Memory clock in MHz as the CUDA runtime reports it
    /// (`cudaDevAttrMemoryClockRate`: half the per-pin data rate, so that
    /// DRAM bandwidth = 2 x clock x bus width / 8), when known.
    pub memory_clock_mhz: Option<f64>,
    /// Memory bus width in bits (`cudaDevAttrGlobalMemoryBusWidth`), when
    /// known.
    pub bus_width_bits: Option<u32>,
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
    /// The link the GPU reaches its host over, with its source (the
    /// interface the card's datasheet names); `None` where no source at
    /// hand says (unknown, not zero).
    pub host_link: Option<HostLink>,
    /// The card's NVLink to other GPUs, with its source; `None` for a card
    /// without NVLink or a bridge-only pair (unknown, not zero).
    pub nvlink: Option<NvLink>,
}

/// The link between the host and the GPU: what host-to-device and
/// device-to-host copies cross. An SXM board reaches its host over PCIe
/// (its NVLink joins GPUs); a Grace Hopper superchip over NVLink-C2C.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HostLink {
    /// The interface: `PCIe Gen4 x16`, `NVLink-C2C`.
    pub interface: &'static str,
    /// Peak bandwidth in one direction, byte/s (a copy moves one way):
    /// PCIe Gen3 and later: transfer rate x lanes x 128/130 (the line
    /// code) / 8, rounded down to the byte/s.
    pub bytes_per_s: u64,
    /// Citation: the document naming the interface, and the arithmetic.
    pub source: &'static str,
}

/// A PCIe link of generation `gen` (3, 4, 5) and `lanes` lanes: 8, 16 or
/// 32 GT/s per lane, 128b/130b line code. Gen4 x16: 16e9 x 16 x 128 /
/// 130 / 8 = 31,507,692,307 byte/s per direction (31.5 GB/s).
const fn pcie(gen: u32, lanes: u64, source: &'static str) -> Option<HostLink> {
    let (gt_per_s, interface) = match (gen, lanes) {
        (3, 16) => (8, "PCIe Gen3 x16"),
        (4, 8) => (16, "PCIe Gen4 x8"),
        (4, 16) => (16, "PCIe Gen4 x16"),
        (5, 8) => (32, "PCIe Gen5 x8"),
        (5, 16) => (32, "PCIe Gen5 x16"),
        _ => panic!("a PCIe generation and width the table does not use"),
    };
    Some(HostLink {
        interface,
        bytes_per_s: gt_per_s * 1_000_000_000 * lanes * 128 / (130 * 8),
        source,
    })
}

/// The NVLink ports of a card, all links together: what an NCCL
/// collective between GPUs of one node crosses (a ring or tree step sends
/// one way on each link).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NvLink {
    /// The generation and link count: `NVLink 4, 18 links`.
    pub interface: &'static str,
    /// Peak bandwidth in one direction over all the card's links, byte/s:
    /// links x the generation's per-link rate each way (NVLink 2, 3 and 4:
    /// 25 GB/s; NVLink 5: 50 GB/s); the datasheets state the two
    /// directions together (900 GB/s for 18 NVLink 4 links).
    pub bytes_per_s: u64,
    /// Citation: the document stating the card's NVLink bandwidth, and the
    /// arithmetic.
    pub source: &'static str,
}

/// NVLink generation `gen` (2-5) with `links` links on the card: 25 GB/s
/// per link each way up to NVLink 4, 50 GB/s for NVLink 5.
const fn nvlink(gen: u32, links: u64, source: &'static str) -> Option<NvLink> {
    let (gb_per_link, interface) = match (gen, links) {
        (2, 6) => (25, "NVLink 2, 6 links"),
        (3, 8) => (25, "NVLink 3, 8 links"),
        (3, 12) => (25, "NVLink 3, 12 links"),
        (4, 8) => (25, "NVLink 4, 8 links"),
        (4, 18) => (25, "NVLink 4, 18 links"),
        (5, 18) => (50, "NVLink 5, 18 links"),
        _ => panic!("an NVLink generation and link count the table does not use"),
    };
    Some(NvLink {
        interface,
        bytes_per_s: gb_per_link * links * 1_000_000_000,
        source,
    })
}

/// NVLink-C2C between a Grace CPU and a Hopper GPU: 900 GB/s in both
/// directions together, 450 GB/s each way.
const fn c2c(source: &'static str) -> Option<HostLink> {
    Some(HostLink {
        interface: "NVLink-C2C",
        bytes_per_s: 450_000_000_000,
        source,
    })
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
    host_link: None,
    nvlink: None,
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
const A100P_DS: &str = "NVIDIA A100 Tensor Core GPU datasheet (PCIe 80GB column: 1,935 GB/s, the same compute peaks as the SXM part), dense";
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

// Document citations of the entries below, as literals so that `concat!`
// can build each value's source from them.
macro_rules! rate_turing_gf {
    () => {
        "NVIDIA Turing GPU Architecture whitepaper: per SM and clock 64 FP32 lanes (128 FLOP), FP64 1/32, FP16 x2 packed (halved here), 8 Tensor Cores = 1024 FP16 FLOP (512 with FP32 accumulate on GeForce), 2048 INT8 ops"
    };
}
macro_rules! rate_ga100 {
    () => {
        "NVIDIA A100 Tensor Core GPU Architecture whitepaper: per SM and clock 64 FP32 lanes (128 FLOP), 32 FP64 (64 FLOP), FP64 tensor 128, TF32 1024, FP16/BF16 2048, INT8 4096 dense"
    };
}
macro_rules! rate_ga10x_gf {
    () => {
        "NVIDIA Ampere GA102 GPU Architecture whitepaper: per SM and clock 128 FP32 lanes (256 FLOP), FP64 1/64, FP16 (non-tensor) at the FP32 rate (halved here), tensor dense TF32 256, FP16/BF16 with FP32 accumulate 512 (GeForce), INT8 2048"
    };
}
macro_rules! rate_ga10x_pro {
    () => {
        "NVIDIA Ampere GA102 GPU Architecture whitepaper: per SM and clock 128 FP32 lanes (256 FLOP), FP64 1/64, FP16 (non-tensor) at the FP32 rate (halved here), tensor dense TF32 512, FP16/BF16 1024 (FP32 accumulate at full rate on professional cards), INT8 2048"
    };
}
macro_rules! rate_ada_gf {
    () => {
        "NVIDIA Ada GPU Architecture whitepaper: per SM and clock 128 FP32 lanes (256 FLOP), FP64 1/64, FP16 (non-tensor) at the FP32 rate (halved here), tensor dense with FP32 accumulate (GeForce) TF32 256, FP16/BF16 512, FP8 1024, INT8 2048"
    };
}
macro_rules! rate_ada_pro {
    () => {
        "NVIDIA Ada GPU Architecture whitepaper: per SM and clock 128 FP32 lanes (256 FLOP), FP64 1/64, FP16 (non-tensor) at the FP32 rate (halved here), tensor dense (professional cards, FP32 accumulate at full rate) TF32 512, FP16/BF16 1024, FP8 2048, INT8 2048"
    };
}
macro_rules! rate_ada_cuda {
    () => {
        "NVIDIA Ada GPU Architecture whitepaper: per SM and clock 128 FP32 lanes (256 FLOP), FP64 1/64, FP16 (non-tensor) at the FP32 rate (halved here)"
    };
}
macro_rules! rate_gh100 {
    () => {
        "NVIDIA H100 Tensor Core GPU Architecture whitepaper: per SM and clock 128 FP32 lanes (256 FLOP), 64 FP64 (128 FLOP); its tensor peaks assume a lower clock than the FP32 peak (1830 vs 1980 MHz on the H100 SXM5), so they are taken as stated"
    };
}
macro_rules! rate_gb20x_gf {
    () => {
        "NVIDIA RTX Blackwell GPU Architecture whitepaper: per SM and clock 128 FP32 lanes (256 FLOP), FP64 1/64, FP16 (non-tensor) at the FP32 rate (halved here), tensor dense with FP32 accumulate (GeForce) TF32 256, FP16/BF16 512, FP8 1024, INT8 2048, FP4 4096"
    };
}
macro_rules! tu_wp {
    () => {
        "NVIDIA Turing GPU Architecture whitepaper, Appendix A, reference-card column (summarised at https://www.tomshardware.com/reviews/nvidia-turing-gpu-architecture-explored,5801.html): "
    };
}
macro_rules! tu_clk {
    () => {
        "reference boost clock, NVIDIA Turing GPU Architecture whitepaper Appendix A (Founders Edition cards run higher; also at https://gist.github.com/sagnitude/c32a204dc698639e1ef54ad260f53449): "
    };
}
macro_rules! a30_ds {
    () => {
        "NVIDIA A30 Tensor Core GPU datasheet (not openable in this session: no copy in the search corpora; its FP32/FP64 figures agree with third-party databases), sparse figures / 2: "
    };
}
macro_rules! a800_ds {
    () => {
        "NVIDIA A800 Tensor Core GPU datasheet (the A100's compute with NVLink limited to 400 GB/s), sparse figures / 2: "
    };
}
macro_rules! a100_wp {
    () => {
        "NVIDIA A100 Tensor Core GPU Architecture whitepaper (A100: 108 SMs, 1410 MHz boost, 40 MB L2, 5120-bit HBM2); the A800 is the same GA100 configuration: "
    };
}
macro_rules! h800_ds {
    () => {
        "NVIDIA H800 Tensor Core GPU datasheet (the H100's compute with FP64 cut to about 1 TFLOPS and NVLink to 400 GB/s; FP64 also at https://www.philisun.com/technical-analysis/nvidia-h800-vs-h100-a-technical-deep-dive-into-politically-defined-ai-chips/), sparse figures / 2: "
    };
}
macro_rules! h100_wp {
    () => {
        "NVIDIA H100 Tensor Core GPU Architecture whitepaper (H100 SXM5: 132 SMs, 50 MB L2, five HBM3 stacks on ten 512-bit controllers; H100 PCIe: 114 SMs); the H800 is the same GH100 configuration: "
    };
}
macro_rules! h20_tp {
    () => {
        "NVIDIA H20 (China-market Hopper), figures NVIDIA gave its customers as reported by third parties (no public NVIDIA datasheet at hand): https://zangshuxian.com/new/674733024499207168 and https://willitrunai.com/es/gpus/h20-96gb; "
    };
}
macro_rules! ga102_wp {
    () => {
        "NVIDIA Ampere GA102 GPU Architecture whitepaper, Appendix A: "
    };
}
macro_rules! gf_ampere {
    () => {
        "NVIDIA GeForce RTX 30 series specifications (nvidia.com product pages: CUDA cores, boost clock, memory configuration; FP32 also in https://huggingface.co/datasets/ohdoking/gpu_spec): "
    };
}
macro_rules! rtx3060_real {
    () => {
        "real nsys exports of an RTX 3060 (shared/corpus/nsys/nsys2023.1.2_gtls_tls-search.sqlite and nsys2025.5.2_flameox_cudagraph-smoke.sqlite, TARGET_INFO_GPU): "
    };
}
macro_rules! rtxa6000_ds {
    () => {
        "NVIDIA RTX A6000 datasheet (10,752 CUDA cores, 336 Tensor Cores, 48 GB GDDR6 384-bit 768 GB/s, also at https://llmperf.net/categories/gpu/Nvidia-A6000-GPUs), sparse figures / 2: "
    };
}
macro_rules! rtxa5000_ds {
    () => {
        "NVIDIA RTX A5000 datasheet (8,192 CUDA cores, 256 Tensor Cores, 24 GB GDDR6 384-bit 768 GB/s; FP32 27.77 also at https://huggingface.co/datasets/ohdoking/gpu_spec), sparse figures / 2: "
    };
}
macro_rules! rtxa4000_ds {
    () => {
        "NVIDIA RTX A4000 datasheet (as reproduced at https://www.ecer.com/corp/details-uuuedqa-p1bsb03-pci-express-3-0-x16-nvidia-rtx-a4000-16g-graphics-card-for-professional-video-editing.html), sparse figures / 2: "
    };
}
macro_rules! ada_wp {
    () => {
        "NVIDIA Ada GPU Architecture whitepaper, Appendix A, \"GeForce RTX 4080 12GB\" (launched unchanged as the RTX 4070 Ti: AD104, 60 SMs, 7680 CUDA cores): "
    };
}
macro_rules! gf_ada {
    () => {
        "NVIDIA GeForce RTX 40 series specifications (nvidia.com product pages: CUDA cores, boost clock, memory configuration): "
    };
}
macro_rules! rtx4000ada_ds {
    () => {
        "NVIDIA RTX 4000 Ada Generation datasheet (6,144 CUDA cores, 192 Tensor Cores, 20 GB GDDR6 160-bit 360 GB/s; cores also at https://siliconcat.net/gpu/nvidia-rtx-4000-ada-generation): "
    };
}
macro_rules! rtx5000ada_ds {
    () => {
        "NVIDIA RTX 5000 Ada Generation datasheet (12,800 CUDA cores, 400 Tensor Cores, 32 GB GDDR6 256-bit 576 GB/s), sparse figures / 2: "
    };
}
macro_rules! l20_tp {
    () => {
        "NVIDIA L20 (China-market AD102 card), no NVIDIA datasheet at hand; third-party databases https://www.topcpu.net/en/gpu-c/a40-pcie-vs-l20 and https://pcpartdb.com/gpus/compare/nvidia-l4--vs--nvidia-l20: "
    };
}
macro_rules! ces25 {
    () => {
        "NVIDIA GeForce RTX 50 series specifications (CES 2025 and nvidia.com product pages; CES table reproduced at https://www.tweaktown.com/news/102469/nvidia-geforce-rtx-50-series-specs-pricing-and-performance-plan-that-upgrade-today/index.html): "
    };
}
macro_rules! gb_wp {
    () => {
        "NVIDIA RTX Blackwell GPU Architecture whitepaper, Appendix (GeForce RTX 5080, GB203): "
    };
}

static TABLE: &[GpuSpec] = &[
    GpuSpec {
        key: "v100",
        name: "NVIDIA Tesla V100 SXM2 16GB",
        compute_capability: "7.0",
        sm_count: Some(80),
        l2_bytes: Some(6 * MIB),
        memory_clock_mhz: Some(877.0),
        bus_width_bits: Some(4096),
        facts: FactSources {
            host_link: pcie(3, 16, "NVIDIA Tesla V100 datasheet: PCIe Gen3, 32 GB/s both directions together (the SXM board reaches its host over PCIe; its NVLink joins GPUs); IBM POWER9 hosts join CPU and GPU over NVLink instead"),
            memory: "4096-bit HBM2 (four stacks): NVIDIA Tesla V100 GPU Architecture whitepaper; memory clock 877 MHz: CUDA runtime attribute (entry predates per-value citations)",
            nvlink: nvlink(2, 6, "NVIDIA Tesla V100 datasheet (SXM2): NVLink 300 GB/s, both directions together (6 NVLink 2 links x 50 GB/s); 150 GB/s each way"),
            ..RUNTIME_FACTS
        },
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
        bus_width_bits: Some(4096),
        facts: FactSources {
            host_link: pcie(3, 16, "NVIDIA Tesla V100 datasheet: PCIe Gen3, 32 GB/s both directions together (the SXM board reaches its host over PCIe; its NVLink joins GPUs); IBM POWER9 hosts join CPU and GPU over NVLink instead"),
            memory: "4096-bit HBM2 (four stacks): NVIDIA Tesla V100 GPU Architecture whitepaper; memory clock 877 MHz: CUDA runtime attribute (entry predates per-value citations)",
            nvlink: nvlink(2, 6, "NVIDIA Tesla V100 datasheet (SXM2): NVLink 300 GB/s, both directions together (6 NVLink 2 links x 50 GB/s); 150 GB/s each way"),
            ..RUNTIME_FACTS
        },
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
        bus_width_bits: Some(256),
        facts: FactSources {
            host_link: pcie(3, 16, "NVIDIA T4 Tensor Core GPU datasheet: system interface x16 PCIe Gen3"),
            memory: "16 GB GDDR6, 256-bit, 320 GB/s: NVIDIA T4 datasheet; memory clock 5001 MHz: CUDA runtime attribute (entry predates per-value citations)",
            ..RUNTIME_FACTS
        },
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
        key: "rtx2080ti",
        name: "NVIDIA GeForce RTX 2080 Ti",
        compute_capability: "7.5",
        sm_count: Some(68),
        l2_bytes: Some(5632 * KIB),
        memory_clock_mhz: Some(7000.0),
        bus_width_bits: Some(352),
        facts: FactSources {
            sm_count: concat!(tu_wp!(), "68 SMs = 4352 CUDA cores / 64 per SM"),
            l2: concat!(tu_wp!(), "L2 5632 KB"),
            memory: concat!(tu_wp!(), "GDDR6, 352-bit at 14 Gbps = 616 GB/s; memory clock = bandwidth / (2 x bus width / 8), as cudaDevAttrMemoryClockRate relates them (CUDA deviceQuery)"),
            boost_clock_mhz: Some(1545.0),
            boost_clock: concat!(tu_clk!(), "1545 MHz"),
            host_link: pcie(3, 16, "NVIDIA GeForce RTX 20 series specifications (nvidia.com product pages): bus support PCI Express 3.0 x16"),
            nvlink: None,
        },
        datasheet: &[
            m(Dram, 616.0, concat!(tu_wp!(), "352-bit GDDR6 at 14 Gbps = 616 GB/s")),
            c(Fp32, 13.4, concat!(tu_wp!(), "FP32 13.4 TFLOP/s dense; check: 68 SMs x 128 per SM and clock x 1545 MHz = 13.45 TFLOP/s (per-SM rate: ", rate_turing_gf!(), ")")),
            c(Fp64, 0.4202, concat!("derived (no figure of this path in the card document): 68 SMs x 4 per SM and clock x 1545 MHz = 0.4202 TFLOP/s (per-SM rate: ", rate_turing_gf!(), ")")),
            c(Fp16, 13.45, concat!("derived (no figure of this path in the card document): 68 SMs x 128 per SM and clock x 1545 MHz = 13.45 TFLOP/s (per-SM rate: ", rate_turing_gf!(), ")")),
            c(TensorFp16, 53.8, concat!(tu_wp!(), "FP16 tensor with FP32 accumulate 53.8 TFLOP/s dense; check: 68 SMs x 512 per SM and clock x 1545 MHz = 53.79 TFLOP/s (per-SM rate: ", rate_turing_gf!(), ")")),
            c(TensorInt8, 215.2, concat!(tu_wp!(), "INT8 tensor 215.2 TFLOP/s dense; check: 68 SMs x 2048 per SM and clock x 1545 MHz = 215.2 TFLOP/s (per-SM rate: ", rate_turing_gf!(), ")")),
        ],
        measured: &[],
    },
    GpuSpec {
        key: "rtx2080",
        name: "NVIDIA GeForce RTX 2080",
        compute_capability: "7.5",
        sm_count: Some(46),
        l2_bytes: Some(4 * MIB),
        memory_clock_mhz: Some(7000.0),
        bus_width_bits: Some(256),
        facts: FactSources {
            sm_count: concat!(tu_wp!(), "46 SMs = 2944 CUDA cores / 64 per SM"),
            l2: concat!(tu_wp!(), "L2 4096 KB"),
            memory: concat!(tu_wp!(), "GDDR6, 256-bit at 14 Gbps = 448 GB/s; memory clock = bandwidth / (2 x bus width / 8), as cudaDevAttrMemoryClockRate relates them (CUDA deviceQuery)"),
            boost_clock_mhz: Some(1710.0),
            boost_clock: concat!(tu_clk!(), "1710 MHz"),
            host_link: pcie(3, 16, "NVIDIA GeForce RTX 20 series specifications (nvidia.com product pages): bus support PCI Express 3.0 x16"),
            nvlink: None,
        },
        datasheet: &[
            m(Dram, 448.0, concat!(tu_wp!(), "256-bit GDDR6 at 14 Gbps = 448 GB/s")),
            c(Fp32, 10.1, concat!(tu_wp!(), "FP32 10.1 TFLOP/s dense; check: 46 SMs x 128 per SM and clock x 1710 MHz = 10.07 TFLOP/s (per-SM rate: ", rate_turing_gf!(), ")")),
            c(Fp64, 0.3146, concat!("derived (no figure of this path in the card document): 46 SMs x 4 per SM and clock x 1710 MHz = 0.3146 TFLOP/s (per-SM rate: ", rate_turing_gf!(), ")")),
            c(Fp16, 10.07, concat!("derived (no figure of this path in the card document): 46 SMs x 128 per SM and clock x 1710 MHz = 10.07 TFLOP/s (per-SM rate: ", rate_turing_gf!(), ")")),
            c(TensorFp16, 40.3, concat!(tu_wp!(), "FP16 tensor with FP32 accumulate 40.3 TFLOP/s dense; check: 46 SMs x 512 per SM and clock x 1710 MHz = 40.27 TFLOP/s (per-SM rate: ", rate_turing_gf!(), ")")),
            c(TensorInt8, 161.1, concat!(tu_wp!(), "INT8 tensor 161.1 TFLOP/s dense; check: 46 SMs x 2048 per SM and clock x 1710 MHz = 161.1 TFLOP/s (per-SM rate: ", rate_turing_gf!(), ")")),
        ],
        measured: &[],
    },
    GpuSpec {
        key: "rtx2070",
        name: "NVIDIA GeForce RTX 2070",
        compute_capability: "7.5",
        sm_count: Some(36),
        l2_bytes: Some(4 * MIB),
        memory_clock_mhz: Some(7000.0),
        bus_width_bits: Some(256),
        facts: FactSources {
            sm_count: concat!(tu_wp!(), "36 SMs = 2304 CUDA cores / 64 per SM"),
            l2: concat!(tu_wp!(), "L2 4096 KB"),
            memory: concat!(tu_wp!(), "GDDR6, 256-bit at 14 Gbps = 448 GB/s; memory clock = bandwidth / (2 x bus width / 8), as cudaDevAttrMemoryClockRate relates them (CUDA deviceQuery)"),
            boost_clock_mhz: Some(1620.0),
            boost_clock: concat!(tu_clk!(), "1620 MHz"),
            host_link: pcie(3, 16, "NVIDIA GeForce RTX 20 series specifications (nvidia.com product pages): bus support PCI Express 3.0 x16"),
            nvlink: None,
        },
        datasheet: &[
            m(Dram, 448.0, concat!(tu_wp!(), "256-bit GDDR6 at 14 Gbps = 448 GB/s")),
            c(Fp32, 7.5, concat!(tu_wp!(), "FP32 7.5 TFLOP/s dense; check: 36 SMs x 128 per SM and clock x 1620 MHz = 7.465 TFLOP/s (per-SM rate: ", rate_turing_gf!(), ")")),
            c(Fp64, 0.2333, concat!("derived (no figure of this path in the card document): 36 SMs x 4 per SM and clock x 1620 MHz = 0.2333 TFLOP/s (per-SM rate: ", rate_turing_gf!(), ")")),
            c(Fp16, 7.465, concat!("derived (no figure of this path in the card document): 36 SMs x 128 per SM and clock x 1620 MHz = 7.465 TFLOP/s (per-SM rate: ", rate_turing_gf!(), ")")),
            c(TensorFp16, 29.9, concat!(tu_wp!(), "FP16 tensor with FP32 accumulate 29.9 TFLOP/s dense; check: 36 SMs x 512 per SM and clock x 1620 MHz = 29.86 TFLOP/s (per-SM rate: ", rate_turing_gf!(), ")")),
            c(TensorInt8, 119.4, concat!(tu_wp!(), "INT8 tensor 119.4 TFLOP/s dense; check: 36 SMs x 2048 per SM and clock x 1620 MHz = 119.4 TFLOP/s (per-SM rate: ", rate_turing_gf!(), ")")),
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
        bus_width_bits: Some(5120),
        facts: FactSources {
            host_link: pcie(4, 16, "NVIDIA A100 Tensor Core GPU datasheet (SXM column): PCIe Gen4, 64 GB/s both directions together (the SXM board reaches its host over PCIe; its NVLink joins GPUs)"),
            memory: "5120-bit HBM2 (five stacks, ten 512-bit controllers): NVIDIA A100 Tensor Core GPU Architecture whitepaper; 1215 MHz: a real nsys export of this card records memoryBandwidth 1555200000000 B/s = 2 x 1215 MHz x 5120 / 8 (shared/corpus/nsys/nsys2022.2.1_pipit_saxpy-mpi-cuda.sqlite, TARGET_INFO_GPU)",
            nvlink: nvlink(3, 12, "NVIDIA A100 Tensor Core GPU datasheet (SXM column): NVLink 600 GB/s, both directions together (12 NVLink 3 links x 50 GB/s); 300 GB/s each way"),
            ..RUNTIME_FACTS
        },
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
        bus_width_bits: Some(5120),
        facts: FactSources {
            host_link: pcie(4, 16, "NVIDIA A100 Tensor Core GPU datasheet (SXM column): PCIe Gen4, 64 GB/s both directions together (the SXM board reaches its host over PCIe; its NVLink joins GPUs)"),
            memory: "5120-bit HBM2e: NVIDIA A100 Tensor Core GPU Architecture whitepaper; 1593 MHz: a real nsys export of an A100-SXM4-80GB records memoryBandwidth 2039040000000 B/s = 2 x 1593 MHz x 5120 / 8 (shared/corpus/nsys/nsys2024.5.1_pipit_cloverleaf.sqlite, TARGET_INFO_GPU)",
            nvlink: nvlink(3, 12, "NVIDIA A100 Tensor Core GPU datasheet (SXM column): NVLink 600 GB/s, both directions together (12 NVLink 3 links x 50 GB/s); 300 GB/s each way"),
            ..RUNTIME_FACTS
        },
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
        key: "a100-80gb-pcie",
        name: "NVIDIA A100 80GB PCIe",
        compute_capability: "8.0",
        sm_count: Some(108),
        l2_bytes: Some(40 * MIB),
        memory_clock_mhz: Some(1512.0),
        bus_width_bits: Some(5120),
        facts: FactSources {
            sm_count: "NVIDIA A100 Tensor Core GPU Architecture whitepaper: 108 SMs",
            l2: "NVIDIA A100 Tensor Core GPU Architecture whitepaper: 40 MB L2",
            memory: "80 GB HBM2e, 1935 GB/s: NVIDIA A100 Tensor Core GPU datasheet (PCIe 80GB column); 5120-bit (A100 whitepaper); memory clock = bandwidth / (2 x bus width / 8), as cudaDevAttrMemoryClockRate relates them",
            boost_clock_mhz: Some(1410.0),
            boost_clock: "NVIDIA A100 Tensor Core GPU Architecture whitepaper: boost clock 1410 MHz",
            host_link: pcie(4, 16, "NVIDIA A100 Tensor Core GPU datasheet (PCIe column): PCIe Gen4, 64 GB/s both directions together"),
            nvlink: None,
        },
        datasheet: &[
            m(Dram, 1935.0, A100P_DS),
            c(Fp64, 9.7, A100P_DS),
            c(TensorFp64, 19.5, A100P_DS),
            c(Fp32, 19.5, A100P_DS),
            c(Fp16, 39.0, "NVIDIA A100 whitepaper: FP16 78 TFLOPS packed, / 2 for per-instruction counting"),
            c(TensorTf32, 156.0, A100P_DS),
            c(TensorFp16, 312.0, A100P_DS),
            c(TensorBf16, 312.0, A100P_DS),
            c(TensorInt8, 624.0, A100P_DS),
        ],
        measured: &[],
    },
    GpuSpec {
        key: "a30",
        name: "NVIDIA A30",
        compute_capability: "8.0",
        sm_count: Some(56),
        l2_bytes: None,
        memory_clock_mhz: Some(1215.0),
        bus_width_bits: Some(3072),
        facts: FactSources {
            sm_count: "56 SMs = 3584 CUDA cores / 64 (third-party database); the datasheet's FP32 10.3 TFLOPS / (128 FLOP x 56 x 1440 MHz) agrees",
            l2: "not set: third-party databases give 24 MB, no NVIDIA source at hand",
            memory: concat!(a30_ds!(), "24 GB HBM2, 933 GB/s; 3072-bit (third-party database) at 1215 MHz; memory clock = bandwidth / (2 x bus width / 8), as cudaDevAttrMemoryClockRate relates them (CUDA deviceQuery)"),
            boost_clock_mhz: Some(1440.0),
            boost_clock: "1440 MHz (third-party database)",
            host_link: pcie(4, 16, "NVIDIA A30 Tensor Core GPU datasheet: PCIe Gen4, 64 GB/s both directions together"),
            nvlink: None,
        },
        datasheet: &[
            m(Dram, 933.0, concat!(a30_ds!(), "24 GB HBM2, 933 GB/s")),
            c(Fp32, 10.3, concat!(a30_ds!(), "FP32 10.3 TFLOP/s dense; check: 56 SMs x 128 per SM and clock x 1440 MHz = 10.32 TFLOP/s (per-SM rate: ", rate_ga100!(), ")")),
            c(Fp16, 20.64, "derived: 56 SMs x 256 FP16 FLOP per SM and clock (NVIDIA A100 Tensor Core GPU Architecture whitepaper: FP16 non-tensor at 4x the FP32 rate, 512 packed, halved here for per-instruction counting) x 1440 MHz = 20.64 TFLOP/s; no figure of this path in the A30 datasheet"),
            c(Fp64, 5.2, concat!(a30_ds!(), "FP64 5.2 TFLOP/s dense; check: 56 SMs x 64 per SM and clock x 1440 MHz = 5.161 TFLOP/s (per-SM rate: ", rate_ga100!(), ")")),
            c(TensorFp64, 10.3, concat!(a30_ds!(), "FP64 tensor 10.3 TFLOP/s dense; check: 56 SMs x 128 per SM and clock x 1440 MHz = 10.32 TFLOP/s (per-SM rate: ", rate_ga100!(), ")")),
            c(TensorTf32, 82.0, concat!(a30_ds!(), "TF32 82.0 TFLOP/s dense; check: 56 SMs x 1024 per SM and clock x 1440 MHz = 82.58 TFLOP/s (per-SM rate: ", rate_ga100!(), ")")),
            c(TensorFp16, 165.0, concat!(a30_ds!(), "FP16 165.0 TFLOP/s dense; check: 56 SMs x 2048 per SM and clock x 1440 MHz = 165.2 TFLOP/s (per-SM rate: ", rate_ga100!(), ")")),
            c(TensorBf16, 165.0, concat!(a30_ds!(), "BF16 165.0 TFLOP/s dense; check: 56 SMs x 2048 per SM and clock x 1440 MHz = 165.2 TFLOP/s (per-SM rate: ", rate_ga100!(), ")")),
            c(TensorInt8, 330.0, concat!(a30_ds!(), "INT8 330.0 TFLOP/s dense; check: 56 SMs x 4096 per SM and clock x 1440 MHz = 330.3 TFLOP/s (per-SM rate: ", rate_ga100!(), ")")),
        ],
        measured: &[],
    },
    GpuSpec {
        key: "a800-40gb",
        name: "NVIDIA A800 40GB PCIe",
        compute_capability: "8.0",
        sm_count: Some(108),
        l2_bytes: Some(40 * MIB),
        memory_clock_mhz: Some(1215.0),
        bus_width_bits: Some(5120),
        facts: FactSources {
            sm_count: concat!(a100_wp!(), "108 SMs"),
            l2: concat!(a100_wp!(), "40 MB L2"),
            memory: concat!(a800_ds!(), "40 GB HBM2, 1555 GB/s; 5120-bit (A100 whitepaper); memory clock = bandwidth / (2 x bus width / 8), as cudaDevAttrMemoryClockRate relates them (CUDA deviceQuery)"),
            boost_clock_mhz: Some(1410.0),
            boost_clock: concat!(a100_wp!(), "1410 MHz"),
            host_link: pcie(4, 16, "NVIDIA A800 Tensor Core GPU datasheet (SXM column): PCIe Gen4, 64 GB/s both directions together (the SXM board reaches its host over PCIe; its NVLink joins GPUs)"),
            nvlink: None,
        },
        datasheet: &[
            m(Dram, 1555.0, concat!(a800_ds!(), "40 GB HBM2, 1555 GB/s")),
            c(Fp32, 19.5, concat!(a800_ds!(), "FP32 19.5 TFLOP/s dense; check: 108 SMs x 128 per SM and clock x 1410 MHz = 19.49 TFLOP/s (per-SM rate: ", rate_ga100!(), ")")),
            c(Fp16, 39.0, "NVIDIA A100 whitepaper: FP16 78 TFLOPS packed, / 2 for per-instruction counting (the A800 is the A100's GA100 configuration)"),
            c(Fp64, 9.7, concat!(a800_ds!(), "FP64 9.7 TFLOP/s dense; check: 108 SMs x 64 per SM and clock x 1410 MHz = 9.746 TFLOP/s (per-SM rate: ", rate_ga100!(), ")")),
            c(TensorFp64, 19.5, concat!(a800_ds!(), "FP64 tensor 19.5 TFLOP/s dense; check: 108 SMs x 128 per SM and clock x 1410 MHz = 19.49 TFLOP/s (per-SM rate: ", rate_ga100!(), ")")),
            c(TensorTf32, 156.0, concat!(a800_ds!(), "TF32 156.0 TFLOP/s dense; check: 108 SMs x 1024 per SM and clock x 1410 MHz = 155.9 TFLOP/s (per-SM rate: ", rate_ga100!(), ")")),
            c(TensorFp16, 312.0, concat!(a800_ds!(), "FP16 312.0 TFLOP/s dense; check: 108 SMs x 2048 per SM and clock x 1410 MHz = 311.9 TFLOP/s (per-SM rate: ", rate_ga100!(), ")")),
            c(TensorBf16, 312.0, concat!(a800_ds!(), "BF16 312.0 TFLOP/s dense; check: 108 SMs x 2048 per SM and clock x 1410 MHz = 311.9 TFLOP/s (per-SM rate: ", rate_ga100!(), ")")),
            c(TensorInt8, 624.0, concat!(a800_ds!(), "INT8 624.0 TFLOP/s dense; check: 108 SMs x 4096 per SM and clock x 1410 MHz = 623.7 TFLOP/s (per-SM rate: ", rate_ga100!(), ")")),
        ],
        measured: &[],
    },
    GpuSpec {
        key: "a800-80gb",
        name: "NVIDIA A800 80GB SXM4",
        compute_capability: "8.0",
        sm_count: Some(108),
        l2_bytes: Some(40 * MIB),
        memory_clock_mhz: Some(1593.0),
        bus_width_bits: Some(5120),
        facts: FactSources {
            sm_count: concat!(a100_wp!(), "108 SMs"),
            l2: concat!(a100_wp!(), "40 MB L2"),
            memory: concat!(a800_ds!(), "80 GB HBM2e, 2039 GB/s (SXM); 5120-bit (A100 whitepaper); memory clock = bandwidth / (2 x bus width / 8), as cudaDevAttrMemoryClockRate relates them (CUDA deviceQuery)"),
            boost_clock_mhz: Some(1410.0),
            boost_clock: concat!(a100_wp!(), "1410 MHz"),
            host_link: pcie(4, 16, "NVIDIA A800 Tensor Core GPU datasheet (SXM column): PCIe Gen4, 64 GB/s both directions together (the SXM board reaches its host over PCIe; its NVLink joins GPUs)"),
            nvlink: nvlink(3, 8, "NVIDIA A800 Tensor Core GPU datasheet (SXM column): NVLink 400 GB/s, both directions together (8 NVLink 3 links); 200 GB/s each way"),
        },
        datasheet: &[
            m(Dram, 2039.0, concat!(a800_ds!(), "80 GB HBM2e, 2039 GB/s (SXM)")),
            c(Fp32, 19.5, concat!(a800_ds!(), "FP32 19.5 TFLOP/s dense; check: 108 SMs x 128 per SM and clock x 1410 MHz = 19.49 TFLOP/s (per-SM rate: ", rate_ga100!(), ")")),
            c(Fp16, 39.0, "NVIDIA A100 whitepaper: FP16 78 TFLOPS packed, / 2 for per-instruction counting (the A800 is the A100's GA100 configuration)"),
            c(Fp64, 9.7, concat!(a800_ds!(), "FP64 9.7 TFLOP/s dense; check: 108 SMs x 64 per SM and clock x 1410 MHz = 9.746 TFLOP/s (per-SM rate: ", rate_ga100!(), ")")),
            c(TensorFp64, 19.5, concat!(a800_ds!(), "FP64 tensor 19.5 TFLOP/s dense; check: 108 SMs x 128 per SM and clock x 1410 MHz = 19.49 TFLOP/s (per-SM rate: ", rate_ga100!(), ")")),
            c(TensorTf32, 156.0, concat!(a800_ds!(), "TF32 156.0 TFLOP/s dense; check: 108 SMs x 1024 per SM and clock x 1410 MHz = 155.9 TFLOP/s (per-SM rate: ", rate_ga100!(), ")")),
            c(TensorFp16, 312.0, concat!(a800_ds!(), "FP16 312.0 TFLOP/s dense; check: 108 SMs x 2048 per SM and clock x 1410 MHz = 311.9 TFLOP/s (per-SM rate: ", rate_ga100!(), ")")),
            c(TensorBf16, 312.0, concat!(a800_ds!(), "BF16 312.0 TFLOP/s dense; check: 108 SMs x 2048 per SM and clock x 1410 MHz = 311.9 TFLOP/s (per-SM rate: ", rate_ga100!(), ")")),
            c(TensorInt8, 624.0, concat!(a800_ds!(), "INT8 624.0 TFLOP/s dense; check: 108 SMs x 4096 per SM and clock x 1410 MHz = 623.7 TFLOP/s (per-SM rate: ", rate_ga100!(), ")")),
        ],
        measured: &[],
    },
    GpuSpec {
        key: "a800-80gb-pcie",
        name: "NVIDIA A800 80GB PCIe",
        compute_capability: "8.0",
        sm_count: Some(108),
        l2_bytes: Some(40 * MIB),
        memory_clock_mhz: Some(1512.0),
        bus_width_bits: Some(5120),
        facts: FactSources {
            sm_count: concat!(a100_wp!(), "108 SMs"),
            l2: concat!(a100_wp!(), "40 MB L2"),
            memory: concat!(a800_ds!(), "80 GB HBM2e, 1935 GB/s (PCIe); 5120-bit (A100 whitepaper); memory clock = bandwidth / (2 x bus width / 8), as cudaDevAttrMemoryClockRate relates them (CUDA deviceQuery)"),
            boost_clock_mhz: Some(1410.0),
            boost_clock: concat!(a100_wp!(), "1410 MHz"),
            host_link: pcie(4, 16, "NVIDIA A800 Tensor Core GPU datasheet (PCIe column): PCIe Gen4, 64 GB/s both directions together"),
            nvlink: None,
        },
        datasheet: &[
            m(Dram, 1935.0, concat!(a800_ds!(), "80 GB HBM2e, 1935 GB/s (PCIe)")),
            c(Fp32, 19.5, concat!(a800_ds!(), "FP32 19.5 TFLOP/s dense; check: 108 SMs x 128 per SM and clock x 1410 MHz = 19.49 TFLOP/s (per-SM rate: ", rate_ga100!(), ")")),
            c(Fp16, 39.0, "NVIDIA A100 whitepaper: FP16 78 TFLOPS packed, / 2 for per-instruction counting (the A800 is the A100's GA100 configuration)"),
            c(Fp64, 9.7, concat!(a800_ds!(), "FP64 9.7 TFLOP/s dense; check: 108 SMs x 64 per SM and clock x 1410 MHz = 9.746 TFLOP/s (per-SM rate: ", rate_ga100!(), ")")),
            c(TensorFp64, 19.5, concat!(a800_ds!(), "FP64 tensor 19.5 TFLOP/s dense; check: 108 SMs x 128 per SM and clock x 1410 MHz = 19.49 TFLOP/s (per-SM rate: ", rate_ga100!(), ")")),
            c(TensorTf32, 156.0, concat!(a800_ds!(), "TF32 156.0 TFLOP/s dense; check: 108 SMs x 1024 per SM and clock x 1410 MHz = 155.9 TFLOP/s (per-SM rate: ", rate_ga100!(), ")")),
            c(TensorFp16, 312.0, concat!(a800_ds!(), "FP16 312.0 TFLOP/s dense; check: 108 SMs x 2048 per SM and clock x 1410 MHz = 311.9 TFLOP/s (per-SM rate: ", rate_ga100!(), ")")),
            c(TensorBf16, 312.0, concat!(a800_ds!(), "BF16 312.0 TFLOP/s dense; check: 108 SMs x 2048 per SM and clock x 1410 MHz = 311.9 TFLOP/s (per-SM rate: ", rate_ga100!(), ")")),
            c(TensorInt8, 624.0, concat!(a800_ds!(), "INT8 624.0 TFLOP/s dense; check: 108 SMs x 4096 per SM and clock x 1410 MHz = 623.7 TFLOP/s (per-SM rate: ", rate_ga100!(), ")")),
        ],
        measured: &[],
    },
    GpuSpec {
        key: "a10",
        name: "NVIDIA A10",
        compute_capability: "8.6",
        sm_count: Some(72),
        l2_bytes: Some(6 * MIB),
        memory_clock_mhz: None,
        bus_width_bits: None,
        facts: FactSources {
            host_link: pcie(4, 16, "NVIDIA A10 Tensor Core GPU datasheet: PCIe Gen4, 64 GB/s both directions together"),
            ..RUNTIME_FACTS
        },
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
        memory_clock_mhz: Some(7250.0),
        bus_width_bits: Some(384),
        facts: FactSources {
            sm_count: A40_CORES,
            l2: "L2 6 MB: https://gpu.spicedreamphone.com/en/gpu/nvidia/a40-pcie (third-party database); the full GA102 has 6,144 KB of L2 (NVIDIA Ampere GA102 GPU Architecture whitepaper)",
            memory: "48 GB GDDR6, 384-bit at 14.5 Gbps = 696 GB/s: PNY A40 (900-2G133-0000-000) specification, http://www.relationship-nepal.org/900-2g133-0000-000.html; memory clock = bandwidth / (2 x bus width / 8), as cudaDevAttrMemoryClockRate relates them",
            boost_clock_mhz: Some(1740.0),
            boost_clock: "boost clock 1,740 MHz: https://gpu.spicedreamphone.com/en/gpu/nvidia/a40-pcie and https://hmc-tech.com/gpu/nvidia-l40-vs-nvidia-a40 (third-party databases)",
            host_link: pcie(4, 16, "NVIDIA A40 datasheet: interconnect PCIe Gen4 x16, 64 GB/s both directions together"),
            nvlink: None,
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
        memory_clock_mhz: Some(9751.0),
        bus_width_bits: Some(384),
        facts: FactSources {
            host_link: pcie(4, 16, "NVIDIA GeForce RTX 30 series specifications (nvidia.com product pages): bus support PCI Express 4.0 x16"),
            memory: "384-bit GDDR6X at 19.5 Gbps = 936 GB/s: NVIDIA Ampere GA102 GPU Architecture whitepaper, Appendix A; 9751 MHz: real nsys exports of this card record memoryBandwidth 936096000000 B/s = 2 x 9751 MHz x 384 / 8 (shared/corpus/nsys/nsys2025.5.1_balinski-gomory_report3.sqlite, TARGET_INFO_GPU)",
            ..RUNTIME_FACTS
        },
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
        key: "rtx3080",
        name: "NVIDIA GeForce RTX 3080",
        compute_capability: "8.6",
        sm_count: Some(68),
        l2_bytes: Some(5 * MIB),
        memory_clock_mhz: Some(9500.0),
        bus_width_bits: Some(320),
        facts: FactSources {
            sm_count: concat!(ga102_wp!(), "RTX 3080: 68 SMs, 8704 CUDA cores"),
            l2: concat!(ga102_wp!(), "RTX 3080: L2 5120 KB"),
            memory: concat!(ga102_wp!(), "RTX 3080: 10 GB GDDR6X, 320-bit at 19 Gbps = 760 GB/s; memory clock = bandwidth / (2 x bus width / 8), as cudaDevAttrMemoryClockRate relates them (CUDA deviceQuery)"),
            boost_clock_mhz: Some(1710.0),
            boost_clock: concat!(ga102_wp!(), "RTX 3080 boost clock 1710 MHz"),
            host_link: pcie(4, 16, "NVIDIA GeForce RTX 30 series specifications (nvidia.com product pages): bus support PCI Express 4.0 x16"),
            nvlink: None,
        },
        datasheet: &[
            m(Dram, 760.0, concat!(ga102_wp!(), "RTX 3080: 320-bit GDDR6X at 19 Gbps = 760 GB/s")),
            c(Fp32, 29.8, concat!(ga102_wp!(), "RTX 3080 FP32 29.8 TFLOP/s dense; check: 68 SMs x 256 per SM and clock x 1710 MHz = 29.77 TFLOP/s (per-SM rate: ", rate_ga10x_gf!(), ")")),
            c(Fp64, 0.4651, concat!("derived (no figure of this path in the card document): 68 SMs x 4 per SM and clock x 1710 MHz = 0.4651 TFLOP/s (per-SM rate: ", rate_ga10x_gf!(), ")")),
            c(Fp16, 14.88, concat!("derived (no figure of this path in the card document): 68 SMs x 128 per SM and clock x 1710 MHz = 14.88 TFLOP/s (per-SM rate: ", rate_ga10x_gf!(), ")")),
            c(TensorTf32, 29.8, concat!(ga102_wp!(), "RTX 3080 TF32 29.8 TFLOP/s dense; check: 68 SMs x 256 per SM and clock x 1710 MHz = 29.77 TFLOP/s (per-SM rate: ", rate_ga10x_gf!(), ")")),
            c(TensorFp16, 59.5, concat!(ga102_wp!(), "RTX 3080 FP16 tensor with FP32 accumulate 59.5 TFLOP/s dense; check: 68 SMs x 512 per SM and clock x 1710 MHz = 59.54 TFLOP/s (per-SM rate: ", rate_ga10x_gf!(), ")")),
            c(TensorBf16, 59.5, concat!(ga102_wp!(), "RTX 3080 BF16 tensor with FP32 accumulate 59.5 TFLOP/s dense; check: 68 SMs x 512 per SM and clock x 1710 MHz = 59.54 TFLOP/s (per-SM rate: ", rate_ga10x_gf!(), ")")),
            c(TensorInt8, 238.0, concat!(ga102_wp!(), "RTX 3080 INT8 tensor 238.0 TFLOP/s dense; check: 68 SMs x 2048 per SM and clock x 1710 MHz = 238.1 TFLOP/s (per-SM rate: ", rate_ga10x_gf!(), ")")),
        ],
        measured: &[],
    },
    GpuSpec {
        key: "rtx3070",
        name: "NVIDIA GeForce RTX 3070",
        compute_capability: "8.6",
        sm_count: Some(46),
        l2_bytes: None,
        memory_clock_mhz: Some(7000.0),
        bus_width_bits: Some(256),
        facts: FactSources {
            sm_count: concat!(gf_ampere!(), "5888 CUDA cores / 128 per SM = 46 SMs (GA104)"),
            l2: "not set: third-party databases give 4 MB, no NVIDIA source at hand",
            memory: concat!(gf_ampere!(), "8 GB GDDR6, 256-bit at 14 Gbps = 448 GB/s; memory clock = bandwidth / (2 x bus width / 8), as cudaDevAttrMemoryClockRate relates them (CUDA deviceQuery)"),
            boost_clock_mhz: Some(1725.0),
            boost_clock: concat!(gf_ampere!(), "boost clock 1725 MHz"),
            host_link: pcie(4, 16, "NVIDIA GeForce RTX 30 series specifications (nvidia.com product pages): bus support PCI Express 4.0 x16"),
            nvlink: None,
        },
        datasheet: &[
            m(Dram, 448.0, concat!(gf_ampere!(), "256-bit GDDR6 at 14 Gbps = 448 GB/s")),
            c(Fp32, 20.3, concat!(gf_ampere!(), "RTX 3070 FP32 20.3 TFLOP/s dense; check: 46 SMs x 256 per SM and clock x 1725 MHz = 20.31 TFLOP/s (per-SM rate: ", rate_ga10x_gf!(), ")")),
            c(Fp64, 0.3174, concat!("derived (no figure of this path in the card document): 46 SMs x 4 per SM and clock x 1725 MHz = 0.3174 TFLOP/s (per-SM rate: ", rate_ga10x_gf!(), ")")),
            c(Fp16, 10.16, concat!("derived (no figure of this path in the card document): 46 SMs x 128 per SM and clock x 1725 MHz = 10.16 TFLOP/s (per-SM rate: ", rate_ga10x_gf!(), ")")),
            c(TensorTf32, 20.31, concat!("derived (no figure of this path in the card document): 46 SMs x 256 per SM and clock x 1725 MHz = 20.31 TFLOP/s (per-SM rate: ", rate_ga10x_gf!(), ")")),
            c(TensorFp16, 40.63, concat!("derived (no figure of this path in the card document): 46 SMs x 512 per SM and clock x 1725 MHz = 40.63 TFLOP/s (per-SM rate: ", rate_ga10x_gf!(), ")")),
            c(TensorBf16, 40.63, concat!("derived (no figure of this path in the card document): 46 SMs x 512 per SM and clock x 1725 MHz = 40.63 TFLOP/s (per-SM rate: ", rate_ga10x_gf!(), ")")),
            c(TensorInt8, 162.5, concat!("derived (no figure of this path in the card document): 46 SMs x 2048 per SM and clock x 1725 MHz = 162.5 TFLOP/s (per-SM rate: ", rate_ga10x_gf!(), ")")),
        ],
        measured: &[],
    },
    GpuSpec {
        key: "rtx3060ti",
        name: "NVIDIA GeForce RTX 3060 Ti",
        compute_capability: "8.6",
        sm_count: Some(38),
        l2_bytes: None,
        memory_clock_mhz: Some(7000.0),
        bus_width_bits: Some(256),
        facts: FactSources {
            sm_count: concat!(gf_ampere!(), "4864 CUDA cores / 128 per SM = 38 SMs (GA104)"),
            l2: "not set: third-party databases give 4 MB, no NVIDIA source at hand",
            memory: concat!(gf_ampere!(), "8 GB GDDR6, 256-bit at 14 Gbps = 448 GB/s; memory clock = bandwidth / (2 x bus width / 8), as cudaDevAttrMemoryClockRate relates them (CUDA deviceQuery)"),
            boost_clock_mhz: Some(1665.0),
            boost_clock: concat!(gf_ampere!(), "boost clock 1665 MHz"),
            host_link: pcie(4, 16, "NVIDIA GeForce RTX 30 series specifications (nvidia.com product pages): bus support PCI Express 4.0 x16"),
            nvlink: None,
        },
        datasheet: &[
            m(Dram, 448.0, concat!(gf_ampere!(), "256-bit GDDR6 at 14 Gbps = 448 GB/s")),
            c(Fp32, 16.2, concat!(gf_ampere!(), "RTX 3060 Ti FP32 16.2 TFLOP/s dense; check: 38 SMs x 256 per SM and clock x 1665 MHz = 16.2 TFLOP/s (per-SM rate: ", rate_ga10x_gf!(), ")")),
            c(Fp64, 0.2531, concat!("derived (no figure of this path in the card document): 38 SMs x 4 per SM and clock x 1665 MHz = 0.2531 TFLOP/s (per-SM rate: ", rate_ga10x_gf!(), ")")),
            c(Fp16, 8.099, concat!("derived (no figure of this path in the card document): 38 SMs x 128 per SM and clock x 1665 MHz = 8.099 TFLOP/s (per-SM rate: ", rate_ga10x_gf!(), ")")),
            c(TensorTf32, 16.2, concat!("derived (no figure of this path in the card document): 38 SMs x 256 per SM and clock x 1665 MHz = 16.2 TFLOP/s (per-SM rate: ", rate_ga10x_gf!(), ")")),
            c(TensorFp16, 32.39, concat!("derived (no figure of this path in the card document): 38 SMs x 512 per SM and clock x 1665 MHz = 32.39 TFLOP/s (per-SM rate: ", rate_ga10x_gf!(), ")")),
            c(TensorBf16, 32.39, concat!("derived (no figure of this path in the card document): 38 SMs x 512 per SM and clock x 1665 MHz = 32.39 TFLOP/s (per-SM rate: ", rate_ga10x_gf!(), ")")),
            c(TensorInt8, 129.6, concat!("derived (no figure of this path in the card document): 38 SMs x 2048 per SM and clock x 1665 MHz = 129.6 TFLOP/s (per-SM rate: ", rate_ga10x_gf!(), ")")),
        ],
        measured: &[],
    },
    GpuSpec {
        key: "rtx3060",
        name: "NVIDIA GeForce RTX 3060",
        compute_capability: "8.6",
        sm_count: Some(28),
        l2_bytes: Some(2304 * KIB),
        memory_clock_mhz: Some(7501.0),
        bus_width_bits: Some(192),
        facts: FactSources {
            sm_count: concat!(rtx3060_real!(), "smCount 28 (3584 CUDA cores / 128 on the product page)"),
            l2: concat!(rtx3060_real!(), "l2CacheSize 2359296 B = 2.25 MiB (the runtime's figure; third-party pages say 3 MB, e.g. http://cholla.mmto.org/nvidia/my3060.html; a GA104-based RTX 3060 of the same name may report another L2)"),
            memory: concat!(rtx3060_real!(), "memoryBandwidth 360048000000 B/s = 2 x memory clock 7501 MHz x 192 bit / 8; 12 GB GDDR6, 192-bit at 15 Gbps = 360 GB/s on the product page"),
            boost_clock_mhz: Some(1777.0),
            boost_clock: concat!(rtx3060_real!(), "clockRate 1777 MHz, the product page's boost clock"),
            host_link: pcie(4, 16, "NVIDIA GeForce RTX 30 series specifications (nvidia.com product pages): bus support PCI Express 4.0 x16"),
            nvlink: None,
        },
        datasheet: &[
            m(Dram, 360.0, concat!(gf_ampere!(), "RTX 3060: 192-bit GDDR6 at 15 Gbps = 360 GB/s")),
            c(Fp32, 12.7, concat!(gf_ampere!(), "RTX 3060 FP32 12.7 TFLOP/s dense; check: 28 SMs x 256 per SM and clock x 1777 MHz = 12.74 TFLOP/s (per-SM rate: ", rate_ga10x_gf!(), ")")),
            c(Fp64, 0.199, concat!("derived (no figure of this path in the card document): 28 SMs x 4 per SM and clock x 1777 MHz = 0.199 TFLOP/s (per-SM rate: ", rate_ga10x_gf!(), ")")),
            c(Fp16, 6.369, concat!("derived (no figure of this path in the card document): 28 SMs x 128 per SM and clock x 1777 MHz = 6.369 TFLOP/s (per-SM rate: ", rate_ga10x_gf!(), ")")),
            c(TensorTf32, 12.74, concat!("derived (no figure of this path in the card document): 28 SMs x 256 per SM and clock x 1777 MHz = 12.74 TFLOP/s (per-SM rate: ", rate_ga10x_gf!(), ")")),
            c(TensorFp16, 25.48, concat!("derived (no figure of this path in the card document): 28 SMs x 512 per SM and clock x 1777 MHz = 25.48 TFLOP/s (per-SM rate: ", rate_ga10x_gf!(), ")")),
            c(TensorBf16, 25.48, concat!("derived (no figure of this path in the card document): 28 SMs x 512 per SM and clock x 1777 MHz = 25.48 TFLOP/s (per-SM rate: ", rate_ga10x_gf!(), ")")),
            c(TensorInt8, 101.9, concat!("derived (no figure of this path in the card document): 28 SMs x 2048 per SM and clock x 1777 MHz = 101.9 TFLOP/s (per-SM rate: ", rate_ga10x_gf!(), ")")),
        ],
        measured: &[],
    },
    GpuSpec {
        key: "rtx-a6000",
        name: "NVIDIA RTX A6000",
        compute_capability: "8.6",
        sm_count: Some(84),
        l2_bytes: Some(6 * MIB),
        memory_clock_mhz: Some(8000.0),
        bus_width_bits: Some(384),
        facts: FactSources {
            sm_count: concat!(rtxa6000_ds!(), "10,752 CUDA cores / 128 = 84 SMs; 336 Tensor Cores / 4 = 84"),
            l2: "L2 6 MB: https://sysrqmts.com/es/gpus/compare/nvidia-rtx-a6000-vs-nvidia-tesla-p40 (third-party database); the full GA102 has 6,144 KB (GA102 whitepaper) and the A6000 keeps all twelve 32-bit controllers (384-bit)",
            memory: concat!(rtxa6000_ds!(), "384-bit GDDR6 at 16 Gbps = 768 GB/s; memory clock = bandwidth / (2 x bus width / 8), as cudaDevAttrMemoryClockRate relates them (CUDA deviceQuery)"),
            boost_clock_mhz: Some(1800.0),
            boost_clock: "1800 MHz: https://sysrqmts.com/es/gpus/compare/nvidia-rtx-a6000-vs-nvidia-tesla-p40 (third-party database)",
            host_link: pcie(4, 16, "NVIDIA RTX A6000 datasheet: graphics bus PCI Express 4.0 x16"),
            nvlink: None,
        },
        datasheet: &[
            m(Dram, 768.0, concat!(rtxa6000_ds!(), "48 GB GDDR6, 768 GB/s")),
            c(Fp32, 38.7, concat!(rtxa6000_ds!(), "FP32 38.7 TFLOP/s dense; check: 84 SMs x 256 per SM and clock x 1800 MHz = 38.71 TFLOP/s (per-SM rate: ", rate_ga10x_pro!(), ")")),
            c(Fp64, 0.6048, concat!("derived (no figure of this path in the card document): 84 SMs x 4 per SM and clock x 1800 MHz = 0.6048 TFLOP/s (per-SM rate: ", rate_ga10x_pro!(), ")")),
            c(Fp16, 19.35, concat!("derived (no figure of this path in the card document): 84 SMs x 128 per SM and clock x 1800 MHz = 19.35 TFLOP/s (per-SM rate: ", rate_ga10x_pro!(), ")")),
            c(TensorTf32, 77.41, concat!("derived (no figure of this path in the card document): 84 SMs x 512 per SM and clock x 1800 MHz = 77.41 TFLOP/s (per-SM rate: ", rate_ga10x_pro!(), ")")),
            c(TensorFp16, 154.85, concat!(rtxa6000_ds!(), "tensor 309.7 (FP16, sparse) / 2 = 154.85 TFLOP/s dense; check: 84 SMs x 1024 per SM and clock x 1800 MHz = 154.8 TFLOP/s (per-SM rate: ", rate_ga10x_pro!(), ")")),
            c(TensorBf16, 154.8, concat!("derived (no figure of this path in the card document): 84 SMs x 1024 per SM and clock x 1800 MHz = 154.8 TFLOP/s (per-SM rate: ", rate_ga10x_pro!(), ")")),
            c(TensorInt8, 309.7, concat!("derived (no figure of this path in the card document): 84 SMs x 2048 per SM and clock x 1800 MHz = 309.7 TFLOP/s (per-SM rate: ", rate_ga10x_pro!(), ")")),
        ],
        measured: &[],
    },
    GpuSpec {
        key: "rtx-a5000",
        name: "NVIDIA RTX A5000",
        compute_capability: "8.6",
        sm_count: Some(64),
        l2_bytes: None,
        memory_clock_mhz: Some(8000.0),
        bus_width_bits: Some(384),
        facts: FactSources {
            sm_count: concat!(rtxa5000_ds!(), "8,192 CUDA cores / 128 = 64 SMs"),
            l2: "not set: third-party databases give 6 MB, no NVIDIA source at hand",
            memory: concat!(rtxa5000_ds!(), "384-bit GDDR6 at 16 Gbps = 768 GB/s; memory clock = bandwidth / (2 x bus width / 8), as cudaDevAttrMemoryClockRate relates them (CUDA deviceQuery)"),
            boost_clock_mhz: Some(1695.0),
            boost_clock: "1695 MHz (third-party databases); FP32 27.8 TFLOPS / (256 x 64) = 1697 MHz",
            host_link: pcie(4, 16, "NVIDIA RTX A5000 datasheet: graphics bus PCI Express 4.0 x16"),
            nvlink: None,
        },
        datasheet: &[
            m(Dram, 768.0, concat!(rtxa5000_ds!(), "24 GB GDDR6, 768 GB/s")),
            c(Fp32, 27.8, concat!(rtxa5000_ds!(), "FP32 27.8 TFLOP/s dense; check: 64 SMs x 256 per SM and clock x 1695 MHz = 27.77 TFLOP/s (per-SM rate: ", rate_ga10x_pro!(), ")")),
            c(Fp64, 0.4339, concat!("derived (no figure of this path in the card document): 64 SMs x 4 per SM and clock x 1695 MHz = 0.4339 TFLOP/s (per-SM rate: ", rate_ga10x_pro!(), ")")),
            c(Fp16, 13.89, concat!("derived (no figure of this path in the card document): 64 SMs x 128 per SM and clock x 1695 MHz = 13.89 TFLOP/s (per-SM rate: ", rate_ga10x_pro!(), ")")),
            c(TensorTf32, 55.54, concat!("derived (no figure of this path in the card document): 64 SMs x 512 per SM and clock x 1695 MHz = 55.54 TFLOP/s (per-SM rate: ", rate_ga10x_pro!(), ")")),
            c(TensorFp16, 111.1, concat!(rtxa5000_ds!(), "tensor 222.2 (FP16, sparse) / 2 = 111.1 TFLOP/s dense; check: 64 SMs x 1024 per SM and clock x 1695 MHz = 111.1 TFLOP/s (per-SM rate: ", rate_ga10x_pro!(), ")")),
            c(TensorBf16, 111.1, concat!("derived (no figure of this path in the card document): 64 SMs x 1024 per SM and clock x 1695 MHz = 111.1 TFLOP/s (per-SM rate: ", rate_ga10x_pro!(), ")")),
            c(TensorInt8, 222.2, concat!("derived (no figure of this path in the card document): 64 SMs x 2048 per SM and clock x 1695 MHz = 222.2 TFLOP/s (per-SM rate: ", rate_ga10x_pro!(), ")")),
        ],
        measured: &[],
    },
    GpuSpec {
        key: "rtx-a4000",
        name: "NVIDIA RTX A4000",
        compute_capability: "8.6",
        sm_count: Some(48),
        l2_bytes: None,
        memory_clock_mhz: Some(7000.0),
        bus_width_bits: Some(256),
        facts: FactSources {
            sm_count: concat!(rtxa4000_ds!(), "6,144 CUDA cores / 128 = 48 SMs; 192 Tensor Cores / 4 = 48"),
            l2: "not set: third-party databases give 4 MB, no NVIDIA source at hand",
            memory: concat!(rtxa4000_ds!(), "16 GB GDDR6, 256-bit, 448 GB/s (14 Gbps); memory clock = bandwidth / (2 x bus width / 8), as cudaDevAttrMemoryClockRate relates them (CUDA deviceQuery)"),
            boost_clock_mhz: Some(1560.0),
            boost_clock: "1560 MHz (third-party databases); FP32 19.2 TFLOPS / (256 x 48) = 1563 MHz",
            host_link: pcie(4, 16, "NVIDIA RTX A4000 datasheet: graphics bus PCI Express 4.0 x16"),
            nvlink: None,
        },
        datasheet: &[
            m(Dram, 448.0, concat!(rtxa4000_ds!(), "16 GB GDDR6, 256-bit, 448 GB/s")),
            c(Fp32, 19.2, concat!(rtxa4000_ds!(), "FP32 19.2 TFLOP/s dense; check: 48 SMs x 256 per SM and clock x 1560 MHz = 19.17 TFLOP/s (per-SM rate: ", rate_ga10x_pro!(), ")")),
            c(Fp64, 0.2995, concat!("derived (no figure of this path in the card document): 48 SMs x 4 per SM and clock x 1560 MHz = 0.2995 TFLOP/s (per-SM rate: ", rate_ga10x_pro!(), ")")),
            c(Fp16, 9.585, concat!("derived (no figure of this path in the card document): 48 SMs x 128 per SM and clock x 1560 MHz = 9.585 TFLOP/s (per-SM rate: ", rate_ga10x_pro!(), ")")),
            c(TensorTf32, 38.34, concat!("derived (no figure of this path in the card document): 48 SMs x 512 per SM and clock x 1560 MHz = 38.34 TFLOP/s (per-SM rate: ", rate_ga10x_pro!(), ")")),
            c(TensorFp16, 76.7, concat!(rtxa4000_ds!(), "tensor 153.4 (FP16, sparse) / 2 = 76.7 TFLOP/s dense; check: 48 SMs x 1024 per SM and clock x 1560 MHz = 76.68 TFLOP/s (per-SM rate: ", rate_ga10x_pro!(), ")")),
            c(TensorBf16, 76.68, concat!("derived (no figure of this path in the card document): 48 SMs x 1024 per SM and clock x 1560 MHz = 76.68 TFLOP/s (per-SM rate: ", rate_ga10x_pro!(), ")")),
            c(TensorInt8, 153.4, concat!("derived (no figure of this path in the card document): 48 SMs x 2048 per SM and clock x 1560 MHz = 153.4 TFLOP/s (per-SM rate: ", rate_ga10x_pro!(), ")")),
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
        bus_width_bits: Some(5120),
        facts: FactSources {
            host_link: pcie(5, 16, "NVIDIA H100 Tensor Core GPU datasheet (SXM column): PCIe Gen5, 128 GB/s both directions together (the SXM board reaches its host over PCIe; its NVLink joins GPUs)"),
            memory: "5120-bit HBM3 (five stacks, ten 512-bit controllers): NVIDIA H100 Tensor Core GPU Architecture whitepaper; memory clock 2619 MHz: CUDA runtime attribute (entry predates per-value citations)",
            nvlink: nvlink(4, 18, "NVIDIA H100 Tensor Core GPU datasheet (SXM column): NVLink 900 GB/s, both directions together (18 NVLink 4 links x 50 GB/s); 450 GB/s each way"),
            ..RUNTIME_FACTS
        },
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
        bus_width_bits: Some(5120),
        facts: FactSources {
            host_link: pcie(5, 16, "NVIDIA H100 Tensor Core GPU datasheet (PCIe column): PCIe Gen5, 128 GB/s both directions together"),
            memory: "5120-bit HBM2e: NVIDIA H100 Tensor Core GPU Architecture whitepaper; memory clock 1593 MHz: CUDA runtime attribute (entry predates per-value citations)",
            ..RUNTIME_FACTS
        },
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
        bus_width_bits: None,
        facts: FactSources {
            host_link: pcie(5, 16, "NVIDIA H200 Tensor Core GPU datasheet (SXM column): PCIe Gen5, 128 GB/s both directions together (the SXM board reaches its host over PCIe; its NVLink joins GPUs)"),
            nvlink: nvlink(4, 18, "NVIDIA H200 Tensor Core GPU datasheet (SXM column): NVLink 900 GB/s, both directions together (18 NVLink 4 links); 450 GB/s each way"),
            ..RUNTIME_FACTS
        },
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
        bus_width_bits: None,
        facts: FactSources {
            host_link: c2c("NVIDIA GH200 Grace Hopper Superchip datasheet: NVLink-C2C between the Grace CPU and the Hopper GPU, 900 GB/s both directions together = 450 GB/s each way"),
            nvlink: nvlink(4, 18, "NVIDIA GH200 Grace Hopper Superchip datasheet: NVLink 900 GB/s GPU to GPU, both directions together (18 NVLink 4 links); 450 GB/s each way"),
            ..RUNTIME_FACTS
        },
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
        bus_width_bits: None,
        facts: FactSources {
            host_link: c2c("NVIDIA GH200 Grace Hopper Superchip datasheet: NVLink-C2C between the Grace CPU and the Hopper GPU, 900 GB/s both directions together = 450 GB/s each way"),
            nvlink: nvlink(4, 18, "NVIDIA GH200 Grace Hopper Superchip datasheet: NVLink 900 GB/s GPU to GPU, both directions together (18 NVLink 4 links); 450 GB/s each way"),
            ..RUNTIME_FACTS
        },
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
        key: "h800-sxm",
        name: "NVIDIA H800 SXM5 80GB",
        compute_capability: "9.0",
        sm_count: Some(132),
        l2_bytes: Some(50 * MIB),
        memory_clock_mhz: Some(2619.0),
        bus_width_bits: Some(5120),
        facts: FactSources {
            sm_count: concat!(h100_wp!(), "132 SMs"),
            l2: concat!(h100_wp!(), "50 MB L2"),
            memory: concat!(h800_ds!(), "80 GB HBM3, 3.35 TB/s (SXM); 5120-bit (H100 whitepaper); memory clock = bandwidth / (2 x bus width / 8), as cudaDevAttrMemoryClockRate relates them (CUDA deviceQuery)"),
            boost_clock_mhz: Some(1980.0),
            boost_clock: "1980 MHz, the H100 SXM5 boost clock (NVIDIA H100 whitepaper), FP32 67 TFLOPS / (256 x 132) = 1983",
            host_link: pcie(5, 16, "NVIDIA H800 Tensor Core GPU datasheet (SXM column): PCIe Gen5, 128 GB/s both directions together (the SXM board reaches its host over PCIe; its NVLink joins GPUs)"),
            nvlink: nvlink(4, 8, "NVIDIA H800 SXM5 product brief: NVLink 400 GB/s, both directions together (8 NVLink 4 links); 200 GB/s each way"),
        },
        datasheet: &[
            m(Dram, 3350.0, concat!(h800_ds!(), "80 GB HBM3, 3.35 TB/s (SXM)")),
            c(Fp64, 1.0, concat!(h800_ds!(), "FP64 (not the GH100 rate: cut in the H800) 1.0 TFLOP/s dense")),
            c(Fp32, 67.0, concat!(h800_ds!(), "FP32 67.0 TFLOP/s dense; check: 132 SMs x 256 per SM and clock x 1980 MHz = 66.91 TFLOP/s (per-SM rate: ", rate_gh100!(), ")")),
            c(TensorFp64, 1.0, concat!(h800_ds!(), "FP64 tensor 1.0 TFLOP/s dense")),
            c(TensorTf32, 494.5, concat!(h800_ds!(), "TF32 494.5 TFLOP/s dense")),
            c(TensorFp16, 989.5, concat!(h800_ds!(), "FP16 989.5 TFLOP/s dense")),
            c(TensorBf16, 989.5, concat!(h800_ds!(), "BF16 989.5 TFLOP/s dense")),
            c(TensorFp8, 1979.0, concat!(h800_ds!(), "FP8 1979.0 TFLOP/s dense")),
            c(TensorInt8, 1979.0, concat!(h800_ds!(), "INT8 1979.0 TFLOP/s dense")),
        ],
        measured: &[],
    },
    GpuSpec {
        key: "h800-pcie",
        name: "NVIDIA H800 PCIe 80GB",
        compute_capability: "9.0",
        sm_count: Some(114),
        l2_bytes: Some(50 * MIB),
        memory_clock_mhz: Some(1593.0),
        bus_width_bits: Some(5120),
        facts: FactSources {
            sm_count: concat!(h100_wp!(), "114 SMs"),
            l2: concat!(h100_wp!(), "50 MB L2"),
            memory: concat!(h800_ds!(), "80 GB HBM2e, 2 TB/s (PCIe); 5120-bit (H100 whitepaper); memory clock = bandwidth / (2 x bus width / 8), as cudaDevAttrMemoryClockRate relates them (CUDA deviceQuery)"),
            boost_clock_mhz: Some(1755.0),
            boost_clock: "1755 MHz: H100 PCIe boost clock, FP32 51 TFLOPS / (256 x 114) = 1748 MHz (NVIDIA H100 whitepaper)",
            host_link: pcie(5, 16, "NVIDIA H800 Tensor Core GPU datasheet (PCIe column): PCIe Gen5, 128 GB/s both directions together"),
            nvlink: None,
        },
        datasheet: &[
            m(Dram, 2000.0, concat!(h800_ds!(), "80 GB HBM2e, 2 TB/s (PCIe)")),
            c(Fp64, 0.8, concat!(h800_ds!(), "FP64 (not the GH100 rate: cut in the H800) 0.8 TFLOP/s dense")),
            c(Fp32, 51.0, concat!(h800_ds!(), "FP32 51.0 TFLOP/s dense; check: 114 SMs x 256 per SM and clock x 1755 MHz = 51.22 TFLOP/s (per-SM rate: ", rate_gh100!(), ")")),
            c(TensorFp64, 0.8, concat!(h800_ds!(), "FP64 tensor 0.8 TFLOP/s dense")),
            c(TensorTf32, 378.0, concat!(h800_ds!(), "TF32 378.0 TFLOP/s dense")),
            c(TensorFp16, 756.5, concat!(h800_ds!(), "FP16 756.5 TFLOP/s dense")),
            c(TensorBf16, 756.5, concat!(h800_ds!(), "BF16 756.5 TFLOP/s dense")),
            c(TensorFp8, 1513.0, concat!(h800_ds!(), "FP8 1513.0 TFLOP/s dense")),
            c(TensorInt8, 1513.0, concat!(h800_ds!(), "INT8 1513.0 TFLOP/s dense")),
        ],
        measured: &[],
    },
    GpuSpec {
        // FP32 left unknown: the reported 44 TFLOPS would need 2.2 GHz on 78 SMs (78 x 256 FLOP),
        // above any Hopper boost clock, so the reports contradict each other.
        key: "h20",
        name: "NVIDIA H20",
        compute_capability: "9.0",
        sm_count: Some(78),
        l2_bytes: None,
        memory_clock_mhz: None,
        bus_width_bits: None,
        facts: FactSources {
            sm_count: concat!(h20_tp!(), "78 SMs (Geekbench listing)"),
            l2: "not set: third parties say 60 MB (https://ke60.top/article/1471031.html), no NVIDIA source",
            memory: concat!(h20_tp!(), "96 GB HBM3, 4.0 TB/s; bus width and memory clock not set (third parties disagree: 6144-bit)"),
            boost_clock_mhz: None,
            boost_clock: "not stated",
            host_link: None,
            nvlink: None,
        },
        datasheet: &[
            m(Dram, 4000.0, concat!(h20_tp!(), "96 GB HBM3, 4.0 TB/s")),
            c(Fp64, 1.0, concat!(h20_tp!(), "FP64 1.0 TFLOP/s dense")),
            c(TensorTf32, 74.0, concat!(h20_tp!(), "TF32 74.0 TFLOP/s dense")),
            c(TensorFp16, 148.0, concat!(h20_tp!(), "FP16 148.0 TFLOP/s dense")),
            c(TensorBf16, 148.0, concat!(h20_tp!(), "BF16 148.0 TFLOP/s dense")),
            c(TensorFp8, 296.0, concat!(h20_tp!(), "FP8 296.0 TFLOP/s dense")),
            c(TensorInt8, 296.0, concat!(h20_tp!(), "INT8 296.0 TFLOP/s dense")),
        ],
        measured: &[],
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
        bus_width_bits: Some(7680),
        facts: FactSources {
            memory: "a real ncu export of a B200: device__attribute_global_memory_bus_width 7680, device__attribute_memory_clock_rate 3996000 kHz (shared/corpus/ncu/ncu2025_raw_page_csv_flashinfer_decode_b200.csv); 2 x 3996 MHz x 7680 / 8 = 7.67 TB/s, the datasheet's 7.7",
            nvlink: nvlink(5, 18, "NVIDIA DGX B200 / HGX B200 datasheet: fifth-generation NVLink 1.8 TB/s per GPU, both directions together (18 NVLink 5 links x 100 GB/s); 900 GB/s each way"),
            ..RUNTIME_FACTS
        },
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
        bus_width_bits: None,
        facts: FactSources {
            nvlink: nvlink(5, 18, "NVIDIA GB200 NVL72 datasheet: NVLink 1.8 TB/s per GPU, both directions together (18 NVLink 5 links); 900 GB/s each way"),
            ..RUNTIME_FACTS
        },
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
        bus_width_bits: None,
        facts: FactSources {
            nvlink: nvlink(5, 18, "NVIDIA HGX B300 datasheet: NVLink 1.8 TB/s per GPU, both directions together (18 NVLink 5 links); 900 GB/s each way"),
            ..RUNTIME_FACTS
        },
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
        bus_width_bits: None,
        facts: FactSources {
            host_link: pcie(4, 16, "NVIDIA L4 Tensor Core GPU datasheet: interconnect PCIe Gen4 x16, 64 GB/s both directions together"),
            ..RUNTIME_FACTS
        },
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
        memory_clock_mhz: Some(9000.0),
        bus_width_bits: Some(384),
        facts: FactSources {
            sm_count: "NVIDIA L40S datasheet (L40/L40S table as reproduced at https://www.mullet.se/product.html?product_id=355414): 18,176 CUDA cores / 128 per SM (Ada whitepaper) = 142 SMs; 568 Tensor Cores / 4 per SM = 142",
            l2: RUNTIME,
            memory: "48 GB GDDR6, 384-bit at 18 Gbps = 864 GB/s: https://www.itcreations.com/nvidia-gpu/nvidia-l40s-gpu-accelerator (reseller page); memory clock = bandwidth / (2 x bus width / 8), as cudaDevAttrMemoryClockRate relates them",
            boost_clock_mhz: Some(2520.0),
            boost_clock: "boost clock 2,520 MHz: https://www.itcreations.com/nvidia-gpu/nvidia-l40s-gpu-accelerator (reseller page)",
            host_link: pcie(4, 16, "NVIDIA L40S datasheet: interconnect PCIe Gen4 x16, 64 GB/s both directions together"),
            nvlink: None,
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
        memory_clock_mhz: Some(9000.0),
        bus_width_bits: Some(384),
        facts: FactSources {
            sm_count: L40_CORES,
            l2: "not set: no source at hand gives the L40's L2 size (a third-party database says 48 MB for the same-silicon L40S, whose table entry says 96 MiB)",
            memory: "48 GB GDDR6, 384-bit at 18 Gbps (2,250 MHz) = 864 GB/s: https://pcpartdb.com/gpus/compare/nvidia-l40--vs--nvidia-l40s (third-party database); 864 GB/s agrees with the L40 datasheet; memory clock = bandwidth / (2 x bus width / 8), as cudaDevAttrMemoryClockRate relates them",
            boost_clock_mhz: Some(2490.0),
            boost_clock: "boost clock 2,490 MHz: https://pcpartdb.com/gpus/compare/nvidia-l40--vs--nvidia-l40s and https://hmc-tech.com/gpu/nvidia-l40-vs-nvidia-a40 (third-party databases)",
            host_link: pcie(4, 16, "NVIDIA L40 datasheet: interconnect PCIe Gen4 x16, 64 GB/s both directions together"),
            nvlink: None,
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
        memory_clock_mhz: Some(10000.0),
        bus_width_bits: Some(384),
        facts: FactSources {
            host_link: pcie(4, 16, "NVIDIA RTX 6000 Ada Generation datasheet: graphics bus PCI Express 4.0 x16"),
            memory: "48 GB GDDR6, 384-bit, 960 GB/s: NVIDIA RTX 6000 Ada Generation datasheet; memory clock = bandwidth / (2 x bus width / 8), as cudaDevAttrMemoryClockRate relates them",
            ..RUNTIME_FACTS
        },
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
        memory_clock_mhz: Some(11200.0),
        bus_width_bits: Some(256),
        facts: FactSources {
            host_link: pcie(4, 16, "NVIDIA GeForce RTX 40 series specifications (nvidia.com product pages): bus support PCI Express 4.0 x16"),
            memory: "16 GB GDDR6X, 256-bit at 22.4 Gbps = 716.8 GB/s: NVIDIA Ada GPU Architecture whitepaper, Appendix A; memory clock = bandwidth / (2 x bus width / 8), as cudaDevAttrMemoryClockRate relates them",
            ..RUNTIME_FACTS
        },
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
        memory_clock_mhz: Some(10500.0),
        bus_width_bits: Some(384),
        facts: FactSources {
            host_link: pcie(4, 16, "NVIDIA GeForce RTX 40 series specifications (nvidia.com product pages): bus support PCI Express 4.0 x16"),
            memory: "24 GB GDDR6X, 384-bit at 21 Gbps = 1008 GB/s: NVIDIA Ada GPU Architecture whitepaper, Appendix A; memory clock = bandwidth / (2 x bus width / 8), as cudaDevAttrMemoryClockRate relates them",
            ..RUNTIME_FACTS
        },
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
        key: "rtx4070ti",
        name: "NVIDIA GeForce RTX 4070 Ti",
        compute_capability: "8.9",
        sm_count: Some(60),
        l2_bytes: Some(48 * MIB),
        memory_clock_mhz: Some(10500.0),
        bus_width_bits: Some(192),
        facts: FactSources {
            sm_count: concat!(ada_wp!(), "60 SMs"),
            l2: concat!(ada_wp!(), "L2 49152 KB"),
            memory: concat!(ada_wp!(), "12 GB GDDR6X, 192-bit at 21 Gbps = 504 GB/s; memory clock = bandwidth / (2 x bus width / 8), as cudaDevAttrMemoryClockRate relates them (CUDA deviceQuery)"),
            boost_clock_mhz: Some(2610.0),
            boost_clock: concat!(ada_wp!(), "boost clock 2610 MHz"),
            host_link: pcie(4, 16, "NVIDIA GeForce RTX 40 series specifications (nvidia.com product pages): bus support PCI Express 4.0 x16"),
            nvlink: None,
        },
        datasheet: &[
            m(Dram, 504.0, concat!(ada_wp!(), "192-bit GDDR6X at 21 Gbps = 504 GB/s")),
            c(Fp32, 40.1, concat!(ada_wp!(), "FP32 40.1 TFLOP/s dense; check: 60 SMs x 256 per SM and clock x 2610 MHz = 40.09 TFLOP/s (per-SM rate: ", rate_ada_gf!(), ")")),
            c(Fp64, 0.6264, concat!("derived (no figure of this path in the card document): 60 SMs x 4 per SM and clock x 2610 MHz = 0.6264 TFLOP/s (per-SM rate: ", rate_ada_gf!(), ")")),
            c(Fp16, 20.04, concat!("derived (no figure of this path in the card document): 60 SMs x 128 per SM and clock x 2610 MHz = 20.04 TFLOP/s (per-SM rate: ", rate_ada_gf!(), ")")),
            c(TensorTf32, 40.1, concat!(ada_wp!(), "TF32 tensor 40.1 TFLOP/s dense; check: 60 SMs x 256 per SM and clock x 2610 MHz = 40.09 TFLOP/s (per-SM rate: ", rate_ada_gf!(), ")")),
            c(TensorFp16, 80.2, concat!(ada_wp!(), "FP16 tensor with FP32 accumulate 80.2 TFLOP/s dense; check: 60 SMs x 512 per SM and clock x 2610 MHz = 80.18 TFLOP/s (per-SM rate: ", rate_ada_gf!(), ")")),
            c(TensorBf16, 80.2, concat!(ada_wp!(), "BF16 tensor with FP32 accumulate 80.2 TFLOP/s dense; check: 60 SMs x 512 per SM and clock x 2610 MHz = 80.18 TFLOP/s (per-SM rate: ", rate_ada_gf!(), ")")),
            c(TensorFp8, 160.4, concat!(ada_wp!(), "FP8 tensor with FP32 accumulate 160.4 TFLOP/s dense; check: 60 SMs x 1024 per SM and clock x 2610 MHz = 160.4 TFLOP/s (per-SM rate: ", rate_ada_gf!(), ")")),
            c(TensorInt8, 320.8, concat!(ada_wp!(), "INT8 tensor 320.8 TFLOP/s dense; check: 60 SMs x 2048 per SM and clock x 2610 MHz = 320.7 TFLOP/s (per-SM rate: ", rate_ada_gf!(), ")")),
        ],
        measured: &[],
    },
    GpuSpec {
        key: "rtx4070",
        name: "NVIDIA GeForce RTX 4070",
        compute_capability: "8.9",
        sm_count: Some(46),
        l2_bytes: None,
        memory_clock_mhz: Some(10500.0),
        bus_width_bits: Some(192),
        facts: FactSources {
            sm_count: concat!(gf_ada!(), "5888 CUDA cores / 128 per SM = 46 SMs (AD104)"),
            l2: "not set: third-party databases give 36 MB, no NVIDIA source at hand",
            memory: concat!(gf_ada!(), "12 GB GDDR6X, 192-bit at 21 Gbps = 504 GB/s; memory clock = bandwidth / (2 x bus width / 8), as cudaDevAttrMemoryClockRate relates them (CUDA deviceQuery)"),
            boost_clock_mhz: Some(2475.0),
            boost_clock: concat!(gf_ada!(), "boost clock 2475 MHz"),
            host_link: pcie(4, 16, "NVIDIA GeForce RTX 40 series specifications (nvidia.com product pages): bus support PCI Express 4.0 x16"),
            nvlink: None,
        },
        datasheet: &[
            m(Dram, 504.0, concat!(gf_ada!(), "192-bit at 21 Gbps = 504 GB/s")),
            c(Fp32, 29.1, concat!(gf_ada!(), "RTX 4070 FP32 29.1 TFLOP/s dense; check: 46 SMs x 256 per SM and clock x 2475 MHz = 29.15 TFLOP/s (per-SM rate: ", rate_ada_gf!(), ")")),
            c(Fp64, 0.4554, concat!("derived (no figure of this path in the card document): 46 SMs x 4 per SM and clock x 2475 MHz = 0.4554 TFLOP/s (per-SM rate: ", rate_ada_gf!(), ")")),
            c(Fp16, 14.57, concat!("derived (no figure of this path in the card document): 46 SMs x 128 per SM and clock x 2475 MHz = 14.57 TFLOP/s (per-SM rate: ", rate_ada_gf!(), ")")),
            c(TensorTf32, 29.15, concat!("derived (no figure of this path in the card document): 46 SMs x 256 per SM and clock x 2475 MHz = 29.15 TFLOP/s (per-SM rate: ", rate_ada_gf!(), ")")),
            c(TensorFp16, 58.29, concat!("derived (no figure of this path in the card document): 46 SMs x 512 per SM and clock x 2475 MHz = 58.29 TFLOP/s (per-SM rate: ", rate_ada_gf!(), ")")),
            c(TensorBf16, 58.29, concat!("derived (no figure of this path in the card document): 46 SMs x 512 per SM and clock x 2475 MHz = 58.29 TFLOP/s (per-SM rate: ", rate_ada_gf!(), ")")),
            c(TensorFp8, 116.6, concat!("derived (no figure of this path in the card document): 46 SMs x 1024 per SM and clock x 2475 MHz = 116.6 TFLOP/s (per-SM rate: ", rate_ada_gf!(), ")")),
            c(TensorInt8, 233.2, concat!("derived (no figure of this path in the card document): 46 SMs x 2048 per SM and clock x 2475 MHz = 233.2 TFLOP/s (per-SM rate: ", rate_ada_gf!(), ")")),
        ],
        measured: &[],
    },
    GpuSpec {
        key: "rtx4060ti",
        name: "NVIDIA GeForce RTX 4060 Ti",
        compute_capability: "8.9",
        sm_count: Some(34),
        l2_bytes: None,
        memory_clock_mhz: Some(9000.0),
        bus_width_bits: Some(128),
        facts: FactSources {
            sm_count: concat!(gf_ada!(), "4352 CUDA cores / 128 per SM = 34 SMs (AD106)"),
            l2: "not set: third-party databases give 32 MB, no NVIDIA source at hand",
            memory: concat!(gf_ada!(), "8 or 16 GB GDDR6, 128-bit at 18 Gbps = 288 GB/s; memory clock = bandwidth / (2 x bus width / 8), as cudaDevAttrMemoryClockRate relates them (CUDA deviceQuery)"),
            boost_clock_mhz: Some(2535.0),
            boost_clock: concat!(gf_ada!(), "boost clock 2535 MHz"),
            host_link: pcie(4, 8, "NVIDIA GeForce RTX 4060 Ti specifications (nvidia.com product page): PCI Express 4.0 x8 (an eight-lane card in a x16 slot)"),
            nvlink: None,
        },
        datasheet: &[
            m(Dram, 288.0, concat!(gf_ada!(), "128-bit at 18 Gbps = 288 GB/s")),
            c(Fp32, 22.1, concat!(gf_ada!(), "RTX 4060 Ti FP32 22.1 TFLOP/s dense; check: 34 SMs x 256 per SM and clock x 2535 MHz = 22.06 TFLOP/s (per-SM rate: ", rate_ada_gf!(), ")")),
            c(Fp64, 0.3448, concat!("derived (no figure of this path in the card document): 34 SMs x 4 per SM and clock x 2535 MHz = 0.3448 TFLOP/s (per-SM rate: ", rate_ada_gf!(), ")")),
            c(Fp16, 11.03, concat!("derived (no figure of this path in the card document): 34 SMs x 128 per SM and clock x 2535 MHz = 11.03 TFLOP/s (per-SM rate: ", rate_ada_gf!(), ")")),
            c(TensorTf32, 22.06, concat!("derived (no figure of this path in the card document): 34 SMs x 256 per SM and clock x 2535 MHz = 22.06 TFLOP/s (per-SM rate: ", rate_ada_gf!(), ")")),
            c(TensorFp16, 44.13, concat!("derived (no figure of this path in the card document): 34 SMs x 512 per SM and clock x 2535 MHz = 44.13 TFLOP/s (per-SM rate: ", rate_ada_gf!(), ")")),
            c(TensorBf16, 44.13, concat!("derived (no figure of this path in the card document): 34 SMs x 512 per SM and clock x 2535 MHz = 44.13 TFLOP/s (per-SM rate: ", rate_ada_gf!(), ")")),
            c(TensorFp8, 88.26, concat!("derived (no figure of this path in the card document): 34 SMs x 1024 per SM and clock x 2535 MHz = 88.26 TFLOP/s (per-SM rate: ", rate_ada_gf!(), ")")),
            c(TensorInt8, 176.5, concat!("derived (no figure of this path in the card document): 34 SMs x 2048 per SM and clock x 2535 MHz = 176.5 TFLOP/s (per-SM rate: ", rate_ada_gf!(), ")")),
        ],
        measured: &[],
    },
    GpuSpec {
        // The datasheet's tensor figure implies 1666 MHz (327.6 / 2 / (48 x 2048 FP8 per SM and clock)),
        // below the 2175 MHz its FP32 figure implies: taken as stated.
        key: "rtx4000-ada",
        name: "NVIDIA RTX 4000 Ada Generation",
        compute_capability: "8.9",
        sm_count: Some(48),
        l2_bytes: None,
        memory_clock_mhz: Some(9000.0),
        bus_width_bits: Some(160),
        facts: FactSources {
            sm_count: concat!(rtx4000ada_ds!(), "6,144 CUDA cores / 128 = 48 SMs; 192 Tensor Cores / 4 = 48"),
            l2: "not set: third-party databases give 48 MB, no NVIDIA source at hand",
            memory: concat!(rtx4000ada_ds!(), "160-bit GDDR6 at 18 Gbps = 360 GB/s; memory clock = bandwidth / (2 x bus width / 8), as cudaDevAttrMemoryClockRate relates them (CUDA deviceQuery)"),
            boost_clock_mhz: Some(2175.0),
            boost_clock: "2175 MHz: https://siliconcat.net/gpu/nvidia-rtx-4000-ada-generation (third-party database); FP32 26.7 TFLOPS / (256 x 48) = 2173 MHz",
            host_link: pcie(4, 16, "NVIDIA RTX 4000 Ada Generation datasheet: graphics bus PCI Express 4.0 x16"),
            nvlink: None,
        },
        datasheet: &[
            m(Dram, 360.0, concat!(rtx4000ada_ds!(), "20 GB GDDR6, 360 GB/s")),
            c(Fp32, 26.7, concat!(rtx4000ada_ds!(), "FP32 26.7 TFLOP/s dense; check: 48 SMs x 256 per SM and clock x 2175 MHz = 26.73 TFLOP/s (per-SM rate: ", rate_ada_cuda!(), ")")),
            c(Fp64, 0.4176, concat!("derived (no figure of this path in the card document): 48 SMs x 4 per SM and clock x 2175 MHz = 0.4176 TFLOP/s (per-SM rate: ", rate_ada_cuda!(), ")")),
            c(Fp16, 13.36, concat!("derived (no figure of this path in the card document): 48 SMs x 128 per SM and clock x 2175 MHz = 13.36 TFLOP/s (per-SM rate: ", rate_ada_cuda!(), ")")),
            c(TensorFp8, 163.8, concat!(rtx4000ada_ds!(), "tensor 327.6 TFLOPS (FP8, sparse) / 2 = 163.8 TFLOP/s dense")),
            c(TensorFp16, 81.9, concat!(rtx4000ada_ds!(), "tensor 327.6 TFLOPS (FP8, sparse) / 2 / 2 (FP16 is half the FP8 rate on Ada) = 81.9 TFLOP/s dense")),
        ],
        measured: &[],
    },
    GpuSpec {
        key: "rtx5000-ada",
        name: "NVIDIA RTX 5000 Ada Generation",
        compute_capability: "8.9",
        sm_count: Some(100),
        l2_bytes: None,
        memory_clock_mhz: Some(9000.0),
        bus_width_bits: Some(256),
        facts: FactSources {
            sm_count: concat!(rtx5000ada_ds!(), "12,800 CUDA cores / 128 = 100 SMs"),
            l2: "not set: third-party databases give 64 MB, no NVIDIA source at hand",
            memory: concat!(rtx5000ada_ds!(), "256-bit GDDR6 at 18 Gbps = 576 GB/s; memory clock = bandwidth / (2 x bus width / 8), as cudaDevAttrMemoryClockRate relates them (CUDA deviceQuery)"),
            boost_clock_mhz: Some(2550.0),
            boost_clock: "2550 MHz (third-party databases); FP32 65.3 TFLOPS / (256 x 100) = 2551 MHz",
            host_link: pcie(4, 16, "NVIDIA RTX 5000 Ada Generation datasheet: graphics bus PCI Express 4.0 x16"),
            nvlink: None,
        },
        datasheet: &[
            m(Dram, 576.0, concat!(rtx5000ada_ds!(), "32 GB GDDR6, 576 GB/s")),
            c(Fp32, 65.3, concat!(rtx5000ada_ds!(), "FP32 65.3 TFLOP/s dense; check: 100 SMs x 256 per SM and clock x 2550 MHz = 65.28 TFLOP/s (per-SM rate: ", rate_ada_pro!(), ")")),
            c(Fp64, 1.02, concat!("derived (no figure of this path in the card document): 100 SMs x 4 per SM and clock x 2550 MHz = 1.02 TFLOP/s (per-SM rate: ", rate_ada_pro!(), ")")),
            c(Fp16, 32.64, concat!("derived (no figure of this path in the card document): 100 SMs x 128 per SM and clock x 2550 MHz = 32.64 TFLOP/s (per-SM rate: ", rate_ada_pro!(), ")")),
            c(TensorTf32, 130.6, concat!("derived (no figure of this path in the card document): 100 SMs x 512 per SM and clock x 2550 MHz = 130.6 TFLOP/s (per-SM rate: ", rate_ada_pro!(), ")")),
            c(TensorFp16, 261.1, concat!("derived (no figure of this path in the card document): 100 SMs x 1024 per SM and clock x 2550 MHz = 261.1 TFLOP/s (per-SM rate: ", rate_ada_pro!(), ")")),
            c(TensorBf16, 261.1, concat!("derived (no figure of this path in the card document): 100 SMs x 1024 per SM and clock x 2550 MHz = 261.1 TFLOP/s (per-SM rate: ", rate_ada_pro!(), ")")),
            c(TensorFp8, 522.2, concat!(rtx5000ada_ds!(), "tensor 1044.4 TFLOPS (FP8, sparse) / 2 = 522.2 TFLOP/s dense; check: 100 SMs x 2048 per SM and clock x 2550 MHz = 522.2 TFLOP/s (per-SM rate: ", rate_ada_pro!(), ")")),
            c(TensorInt8, 522.2, concat!("derived (no figure of this path in the card document): 100 SMs x 2048 per SM and clock x 2550 MHz = 522.2 TFLOP/s (per-SM rate: ", rate_ada_pro!(), ")")),
        ],
        measured: &[],
    },
    GpuSpec {
        // Tensor peaks left unknown: only third-party reports, which disagree.
        key: "l20",
        name: "NVIDIA L20",
        compute_capability: "8.9",
        sm_count: Some(92),
        l2_bytes: None,
        memory_clock_mhz: Some(9000.0),
        bus_width_bits: Some(384),
        facts: FactSources {
            sm_count: concat!(l20_tp!(), "92 SMs, 11,776 CUDA cores"),
            l2: "not set: third-party databases give 96 MB, no NVIDIA source",
            memory: concat!(l20_tp!(), "48 GB GDDR6, 384-bit at 18 Gbps = 864 GB/s; memory clock = bandwidth / (2 x bus width / 8), as cudaDevAttrMemoryClockRate relates them (CUDA deviceQuery)"),
            boost_clock_mhz: Some(2520.0),
            boost_clock: concat!(l20_tp!(), "boost clock 2520 MHz"),
            host_link: None,
            nvlink: None,
        },
        datasheet: &[
            m(Dram, 864.0, concat!(l20_tp!(), "48 GB GDDR6, 384-bit, 864 GB/s")),
            c(Fp32, 59.35, concat!("derived (no figure of this path in the card document): 92 SMs x 256 per SM and clock x 2520 MHz = 59.35 TFLOP/s (per-SM rate: ", rate_ada_cuda!(), ")")),
            c(Fp64, 0.9274, concat!("derived (no figure of this path in the card document): 92 SMs x 4 per SM and clock x 2520 MHz = 0.9274 TFLOP/s (per-SM rate: ", rate_ada_cuda!(), ")")),
            c(Fp16, 29.68, concat!("derived (no figure of this path in the card document): 92 SMs x 128 per SM and clock x 2520 MHz = 29.68 TFLOP/s (per-SM rate: ", rate_ada_cuda!(), ")")),
        ],
        measured: &[],
    },
    GpuSpec {
        key: "rtx5090",
        name: "NVIDIA GeForce RTX 5090",
        compute_capability: "12.0",
        sm_count: Some(170),
        l2_bytes: Some(96 * MIB),
        memory_clock_mhz: Some(14000.0),
        bus_width_bits: Some(512),
        facts: FactSources {
            host_link: pcie(5, 16, "NVIDIA GeForce RTX 50 series specifications (nvidia.com product pages): bus support PCI Express 5.0 x16"),
            memory: "32 GB GDDR7, 512-bit at 28 Gbps = 1792 GB/s: NVIDIA RTX Blackwell GPU Architecture whitepaper; memory clock = bandwidth / (2 x bus width / 8), as cudaDevAttrMemoryClockRate relates them",
            ..RUNTIME_FACTS
        },
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
        key: "rtx5080",
        name: "NVIDIA GeForce RTX 5080",
        compute_capability: "12.0",
        sm_count: Some(84),
        l2_bytes: Some(64 * MIB),
        memory_clock_mhz: Some(15000.0),
        bus_width_bits: Some(256),
        facts: FactSources {
            sm_count: concat!(ces25!(), "RTX 5080: 10752 CUDA cores / 128 per SM = 84 SMs (GB203)"),
            l2: concat!(gb_wp!(), "L2 65536 KB"),
            memory: concat!(ces25!(), "RTX 5080: 16 GB GDDR7, 256-bit at 30 Gbps = 960 GB/s; memory clock = bandwidth / (2 x bus width / 8), as cudaDevAttrMemoryClockRate relates them (CUDA deviceQuery)"),
            boost_clock_mhz: Some(2617.0),
            boost_clock: concat!(ces25!(), "RTX 5080: boost clock 2.62 GHz; 2617 MHz from the AI TOPS: 1801 / 2 / (84 SMs x 4096 FP4 per SM and clock)"),
            host_link: pcie(5, 16, "NVIDIA GeForce RTX 50 series specifications (nvidia.com product pages): bus support PCI Express 5.0 x16"),
            nvlink: None,
        },
        datasheet: &[
            m(Dram, 960.0, concat!(ces25!(), "RTX 5080: 256-bit GDDR7 at 30 Gbps = 960 GB/s")),
            c(Fp32, 56.28, concat!("derived (no figure of this path in the card document): 84 SMs x 256 per SM and clock x 2617 MHz = 56.28 TFLOP/s (per-SM rate: ", rate_gb20x_gf!(), ")")),
            c(Fp64, 0.8793, concat!("derived (no figure of this path in the card document): 84 SMs x 4 per SM and clock x 2617 MHz = 0.8793 TFLOP/s (per-SM rate: ", rate_gb20x_gf!(), ")")),
            c(Fp16, 28.14, concat!("derived (no figure of this path in the card document): 84 SMs x 128 per SM and clock x 2617 MHz = 28.14 TFLOP/s (per-SM rate: ", rate_gb20x_gf!(), ")")),
            c(TensorTf32, 56.28, concat!("derived (no figure of this path in the card document): 84 SMs x 256 per SM and clock x 2617 MHz = 56.28 TFLOP/s (per-SM rate: ", rate_gb20x_gf!(), ")")),
            c(TensorFp16, 112.6, concat!("derived (no figure of this path in the card document): 84 SMs x 512 per SM and clock x 2617 MHz = 112.6 TFLOP/s (per-SM rate: ", rate_gb20x_gf!(), ")")),
            c(TensorBf16, 112.6, concat!("derived (no figure of this path in the card document): 84 SMs x 512 per SM and clock x 2617 MHz = 112.6 TFLOP/s (per-SM rate: ", rate_gb20x_gf!(), ")")),
            c(TensorFp8, 225.1, concat!("derived (no figure of this path in the card document): 84 SMs x 1024 per SM and clock x 2617 MHz = 225.1 TFLOP/s (per-SM rate: ", rate_gb20x_gf!(), ")")),
            c(TensorInt8, 450.2, concat!("derived (no figure of this path in the card document): 84 SMs x 2048 per SM and clock x 2617 MHz = 450.2 TFLOP/s (per-SM rate: ", rate_gb20x_gf!(), ")")),
            c(TensorFp4, 900.5, concat!(ces25!(), "RTX 5080: 1801 AI TOPS (FP4, sparse) / 2 = 900.5 TFLOP/s dense; check: 84 SMs x 4096 per SM and clock x 2617 MHz = 900.4 TFLOP/s (per-SM rate: ", rate_gb20x_gf!(), ")")),
        ],
        measured: &[],
    },
    GpuSpec {
        key: "rtx5070ti",
        name: "NVIDIA GeForce RTX 5070 Ti",
        compute_capability: "12.0",
        sm_count: Some(70),
        l2_bytes: None,
        memory_clock_mhz: Some(14000.0),
        bus_width_bits: Some(256),
        facts: FactSources {
            sm_count: concat!(ces25!(), "RTX 5070 Ti: 8960 CUDA cores / 128 per SM = 70 SMs (GB203)"),
            l2: "not set: no NVIDIA source at hand",
            memory: concat!(ces25!(), "RTX 5070 Ti: 16 GB GDDR7, 256-bit at 28 Gbps = 896 GB/s; memory clock = bandwidth / (2 x bus width / 8), as cudaDevAttrMemoryClockRate relates them (CUDA deviceQuery)"),
            boost_clock_mhz: Some(2452.0),
            boost_clock: concat!(ces25!(), "RTX 5070 Ti: boost clock 2.45 GHz; 2452 MHz from the AI TOPS: 1406 / 2 / (70 SMs x 4096 FP4 per SM and clock)"),
            host_link: pcie(5, 16, "NVIDIA GeForce RTX 50 series specifications (nvidia.com product pages): bus support PCI Express 5.0 x16"),
            nvlink: None,
        },
        datasheet: &[
            m(Dram, 896.0, concat!(ces25!(), "RTX 5070 Ti: 256-bit GDDR7 at 28 Gbps = 896 GB/s")),
            c(Fp32, 43.94, concat!("derived (no figure of this path in the card document): 70 SMs x 256 per SM and clock x 2452 MHz = 43.94 TFLOP/s (per-SM rate: ", rate_gb20x_gf!(), ")")),
            c(Fp64, 0.6866, concat!("derived (no figure of this path in the card document): 70 SMs x 4 per SM and clock x 2452 MHz = 0.6866 TFLOP/s (per-SM rate: ", rate_gb20x_gf!(), ")")),
            c(Fp16, 21.97, concat!("derived (no figure of this path in the card document): 70 SMs x 128 per SM and clock x 2452 MHz = 21.97 TFLOP/s (per-SM rate: ", rate_gb20x_gf!(), ")")),
            c(TensorTf32, 43.94, concat!("derived (no figure of this path in the card document): 70 SMs x 256 per SM and clock x 2452 MHz = 43.94 TFLOP/s (per-SM rate: ", rate_gb20x_gf!(), ")")),
            c(TensorFp16, 87.88, concat!("derived (no figure of this path in the card document): 70 SMs x 512 per SM and clock x 2452 MHz = 87.88 TFLOP/s (per-SM rate: ", rate_gb20x_gf!(), ")")),
            c(TensorBf16, 87.88, concat!("derived (no figure of this path in the card document): 70 SMs x 512 per SM and clock x 2452 MHz = 87.88 TFLOP/s (per-SM rate: ", rate_gb20x_gf!(), ")")),
            c(TensorFp8, 175.8, concat!("derived (no figure of this path in the card document): 70 SMs x 1024 per SM and clock x 2452 MHz = 175.8 TFLOP/s (per-SM rate: ", rate_gb20x_gf!(), ")")),
            c(TensorInt8, 351.5, concat!("derived (no figure of this path in the card document): 70 SMs x 2048 per SM and clock x 2452 MHz = 351.5 TFLOP/s (per-SM rate: ", rate_gb20x_gf!(), ")")),
            c(TensorFp4, 703.0, concat!(ces25!(), "RTX 5070 Ti: 1406 AI TOPS (FP4, sparse) / 2 = 703.0 TFLOP/s dense; check: 70 SMs x 4096 per SM and clock x 2452 MHz = 703 TFLOP/s (per-SM rate: ", rate_gb20x_gf!(), ")")),
        ],
        measured: &[],
    },
    GpuSpec {
        key: "rtx5070",
        name: "NVIDIA GeForce RTX 5070",
        compute_capability: "12.0",
        sm_count: Some(48),
        l2_bytes: None,
        memory_clock_mhz: Some(14000.0),
        bus_width_bits: Some(192),
        facts: FactSources {
            sm_count: concat!(ces25!(), "RTX 5070: 6144 CUDA cores / 128 per SM = 48 SMs (GB205)"),
            l2: "not set: no NVIDIA source at hand",
            memory: concat!(ces25!(), "RTX 5070: 12 GB GDDR7, 192-bit at 28 Gbps = 672 GB/s; memory clock = bandwidth / (2 x bus width / 8), as cudaDevAttrMemoryClockRate relates them (CUDA deviceQuery)"),
            boost_clock_mhz: Some(2512.0),
            boost_clock: concat!(ces25!(), "RTX 5070: boost clock 2.51 GHz; 2512 MHz from the AI TOPS: 988 / 2 / (48 SMs x 4096 FP4 per SM and clock)"),
            host_link: pcie(5, 16, "NVIDIA GeForce RTX 50 series specifications (nvidia.com product pages): bus support PCI Express 5.0 x16"),
            nvlink: None,
        },
        datasheet: &[
            m(Dram, 672.0, concat!(ces25!(), "RTX 5070: 192-bit GDDR7 at 28 Gbps = 672 GB/s")),
            c(Fp32, 30.87, concat!("derived (no figure of this path in the card document): 48 SMs x 256 per SM and clock x 2512 MHz = 30.87 TFLOP/s (per-SM rate: ", rate_gb20x_gf!(), ")")),
            c(Fp64, 0.4823, concat!("derived (no figure of this path in the card document): 48 SMs x 4 per SM and clock x 2512 MHz = 0.4823 TFLOP/s (per-SM rate: ", rate_gb20x_gf!(), ")")),
            c(Fp16, 15.43, concat!("derived (no figure of this path in the card document): 48 SMs x 128 per SM and clock x 2512 MHz = 15.43 TFLOP/s (per-SM rate: ", rate_gb20x_gf!(), ")")),
            c(TensorTf32, 30.87, concat!("derived (no figure of this path in the card document): 48 SMs x 256 per SM and clock x 2512 MHz = 30.87 TFLOP/s (per-SM rate: ", rate_gb20x_gf!(), ")")),
            c(TensorFp16, 61.73, concat!("derived (no figure of this path in the card document): 48 SMs x 512 per SM and clock x 2512 MHz = 61.73 TFLOP/s (per-SM rate: ", rate_gb20x_gf!(), ")")),
            c(TensorBf16, 61.73, concat!("derived (no figure of this path in the card document): 48 SMs x 512 per SM and clock x 2512 MHz = 61.73 TFLOP/s (per-SM rate: ", rate_gb20x_gf!(), ")")),
            c(TensorFp8, 123.5, concat!("derived (no figure of this path in the card document): 48 SMs x 1024 per SM and clock x 2512 MHz = 123.5 TFLOP/s (per-SM rate: ", rate_gb20x_gf!(), ")")),
            c(TensorInt8, 246.9, concat!("derived (no figure of this path in the card document): 48 SMs x 2048 per SM and clock x 2512 MHz = 246.9 TFLOP/s (per-SM rate: ", rate_gb20x_gf!(), ")")),
            c(TensorFp4, 494.0, concat!(ces25!(), "RTX 5070: 988 AI TOPS (FP4, sparse) / 2 = 494.0 TFLOP/s dense; check: 48 SMs x 4096 per SM and clock x 2512 MHz = 493.9 TFLOP/s (per-SM rate: ", rate_gb20x_gf!(), ")")),
        ],
        measured: &[],
    },
    GpuSpec {
        key: "rtx5060ti",
        name: "NVIDIA GeForce RTX 5060 Ti",
        compute_capability: "12.0",
        sm_count: Some(36),
        l2_bytes: None,
        memory_clock_mhz: Some(14000.0),
        bus_width_bits: Some(128),
        facts: FactSources {
            sm_count: concat!(ces25!(), "RTX 5060 Ti: 4608 CUDA cores / 128 per SM = 36 SMs (GB206)"),
            l2: "not set: no NVIDIA source at hand",
            memory: concat!(ces25!(), "RTX 5060 Ti: 8 or 16 GB GDDR7, 128-bit at 28 Gbps = 448 GB/s; memory clock = bandwidth / (2 x bus width / 8), as cudaDevAttrMemoryClockRate relates them (CUDA deviceQuery)"),
            boost_clock_mhz: Some(2572.0),
            boost_clock: concat!(ces25!(), "RTX 5060 Ti: boost clock 2.57 GHz; 2572 MHz from the AI TOPS: 759 / 2 / (36 SMs x 4096 FP4 per SM and clock)"),
            host_link: pcie(5, 8, "NVIDIA GeForce RTX 5060 Ti specifications (nvidia.com product page): PCI Express 5.0 x8 (an eight-lane card in a x16 slot)"),
            nvlink: None,
        },
        datasheet: &[
            m(Dram, 448.0, concat!(ces25!(), "RTX 5060 Ti: 128-bit GDDR7 at 28 Gbps = 448 GB/s")),
            c(Fp32, 23.7, concat!("derived (no figure of this path in the card document): 36 SMs x 256 per SM and clock x 2572 MHz = 23.7 TFLOP/s (per-SM rate: ", rate_gb20x_gf!(), ")")),
            c(Fp64, 0.3704, concat!("derived (no figure of this path in the card document): 36 SMs x 4 per SM and clock x 2572 MHz = 0.3704 TFLOP/s (per-SM rate: ", rate_gb20x_gf!(), ")")),
            c(Fp16, 11.85, concat!("derived (no figure of this path in the card document): 36 SMs x 128 per SM and clock x 2572 MHz = 11.85 TFLOP/s (per-SM rate: ", rate_gb20x_gf!(), ")")),
            c(TensorTf32, 23.7, concat!("derived (no figure of this path in the card document): 36 SMs x 256 per SM and clock x 2572 MHz = 23.7 TFLOP/s (per-SM rate: ", rate_gb20x_gf!(), ")")),
            c(TensorFp16, 47.41, concat!("derived (no figure of this path in the card document): 36 SMs x 512 per SM and clock x 2572 MHz = 47.41 TFLOP/s (per-SM rate: ", rate_gb20x_gf!(), ")")),
            c(TensorBf16, 47.41, concat!("derived (no figure of this path in the card document): 36 SMs x 512 per SM and clock x 2572 MHz = 47.41 TFLOP/s (per-SM rate: ", rate_gb20x_gf!(), ")")),
            c(TensorFp8, 94.81, concat!("derived (no figure of this path in the card document): 36 SMs x 1024 per SM and clock x 2572 MHz = 94.81 TFLOP/s (per-SM rate: ", rate_gb20x_gf!(), ")")),
            c(TensorInt8, 189.6, concat!("derived (no figure of this path in the card document): 36 SMs x 2048 per SM and clock x 2572 MHz = 189.6 TFLOP/s (per-SM rate: ", rate_gb20x_gf!(), ")")),
            c(TensorFp4, 379.5, concat!(ces25!(), "RTX 5060 Ti: 759 AI TOPS (FP4, sparse) / 2 = 379.5 TFLOP/s dense; check: 36 SMs x 4096 per SM and clock x 2572 MHz = 379.3 TFLOP/s (per-SM rate: ", rate_gb20x_gf!(), ")")),
        ],
        measured: &[],
    },
    GpuSpec {
        key: "rtx-pro-6000",
        name: "NVIDIA RTX PRO 6000 Blackwell Workstation Edition",
        compute_capability: "12.0",
        sm_count: Some(188),
        l2_bytes: Some(128 * MIB),
        memory_clock_mhz: Some(14000.0),
        bus_width_bits: Some(512),
        facts: FactSources {
            host_link: pcie(5, 16, "NVIDIA RTX PRO 6000 Blackwell Workstation Edition datasheet: PCI Express 5.0 x16"),
            memory: "96 GB GDDR7, 512-bit, 1792 GB/s: NVIDIA RTX PRO 6000 Blackwell Workstation Edition datasheet; memory clock = bandwidth / (2 x bus width / 8), as cudaDevAttrMemoryClockRate relates them",
            ..RUNTIME_FACTS
        },
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
    } else if has("h800") {
        if has("pcie") {
            "h800-pcie"
        } else {
            "h800-sxm"
        }
    } else if word("h20") {
        "h20"
    } else if has("a800") {
        if has("40gb") {
            "a800-40gb"
        } else if has("80gb") && has("pcie") {
            "a800-80gb-pcie"
        } else if has("80gb") {
            "a800-80gb"
        } else {
            return None;
        }
    } else if has("h100") {
        if has("pcie") {
            "h100-pcie"
        } else {
            "h100-sxm"
        }
    } else if has("a100") {
        if has("80gb") && has("pcie") {
            "a100-80gb-pcie"
        } else if has("80gb") {
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
    } else if word("l20") {
        "l20"
    } else if word("a40") {
        "a40"
    } else if word("a30") {
        "a30"
    } else if word("a10") {
        "a10"
    } else if word("t4") {
        "t4"
    } else if has("rtx 6000 ada") {
        "rtx6000-ada"
    } else if has("rtx 5000 ada") {
        "rtx5000-ada"
    } else if has("rtx 4000 ada") && !has("sff") {
        "rtx4000-ada"
    } else if has("rtx a6000") {
        "rtx-a6000"
    } else if has("rtx a5000") {
        "rtx-a5000"
    } else if has("rtx a4000") {
        "rtx-a4000"
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
        return geforce(&n);
    };
    by_key(key)
}

/// The GeForce cards of the table below the flagships, by name (a `Ti`
/// is another card than the plain one; a name the table does not hold,
/// such as the RTX 3080 Ti, is `None`).
fn geforce(n: &str) -> Option<&'static GpuSpec> {
    let has = |s: &str| n.contains(s);
    let key = if has("rtx 5080") {
        "rtx5080"
    } else if has("rtx 5070 ti") {
        "rtx5070ti"
    } else if has("rtx 5070") {
        "rtx5070"
    } else if has("rtx 5060 ti") {
        "rtx5060ti"
    } else if has("rtx 4070 ti") {
        "rtx4070ti"
    } else if has("rtx 4070") {
        "rtx4070"
    } else if has("rtx 4060 ti") {
        "rtx4060ti"
    } else if has("rtx 3080") && !has("3080 ti") {
        "rtx3080"
    } else if has("rtx 3070") && !has("3070 ti") {
        "rtx3070"
    } else if has("rtx 3060 ti") {
        "rtx3060ti"
    } else if has("rtx 3060") {
        "rtx3060"
    } else if has("rtx 2080 ti") {
        "rtx2080ti"
    } else if has("rtx 2080") {
        "rtx2080"
    } else if has("rtx 2070") {
        "rtx2070"
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
                    format!(
                        "built-in table: the memory clock as the CUDA runtime reports it (cudaDevAttrMemoryClockRate, ncu device__attribute_memory_clock_rate); {}",
                        self.facts.memory
                    )
                })
                .unwrap_or_default(),
        }
    }

    /// The datasheet DRAM bandwidth, byte/s.
    pub fn datasheet_dram(&self) -> Option<f64> {
        self.datasheet
            .iter()
            .find(|e| e.roof == RoofKey::Memory(MemoryLevel::Dram))
            .map(|e| e.value)
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
    fn host_links_follow_from_their_interface_and_cite_a_source() {
        // Per direction, 128b/130b line code: Gen3 x16 8e9 x 16 x 128 / 130
        // / 8 = 15,753,846,153 B/s; Gen4 twice that, Gen5 four times; x8
        // half of x16. NVLink-C2C: 900 GB/s both ways together.
        let want = |iface: &str| match iface {
            "PCIe Gen3 x16" => 15_753_846_153,
            "PCIe Gen4 x8" => 15_753_846_153,
            "PCIe Gen4 x16" => 31_507_692_307,
            "PCIe Gen5 x8" => 31_507_692_307,
            "PCIe Gen5 x16" => 63_015_384_615,
            "NVLink-C2C" => 450_000_000_000,
            other => panic!("{other}"),
        };
        let mut known = 0;
        for g in all() {
            let Some(l) = g.facts.host_link else { continue };
            known += 1;
            assert_eq!(l.bytes_per_s, want(l.interface), "{}", g.key);
            assert!(l.source.starts_with("NVIDIA "), "{}: {}", g.key, l.source);
        }
        assert!(known >= 40, "{known}");
        // SXM boards still reach the host over PCIe; Grace Hopper over C2C;
        // no source at hand for the H20: unknown, not a guess.
        assert_eq!(
            by_key("h100-sxm")
                .unwrap()
                .facts
                .host_link
                .unwrap()
                .interface,
            "PCIe Gen5 x16"
        );
        assert_eq!(
            by_key("a100-80gb")
                .unwrap()
                .facts
                .host_link
                .unwrap()
                .interface,
            "PCIe Gen4 x16"
        );
        assert_eq!(
            by_key("gh200").unwrap().facts.host_link.unwrap().interface,
            "NVLink-C2C"
        );
        assert!(by_key("h20").unwrap().facts.host_link.is_none());
    }

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
            // Issue 19: the cards a profile is likely to come from.
            "rtx2080ti",
            "rtx2080",
            "rtx2070",
            "a100-80gb-pcie",
            "a30",
            "a800-40gb",
            "a800-80gb",
            "a800-80gb-pcie",
            "rtx3080",
            "rtx3070",
            "rtx3060ti",
            "rtx3060",
            "rtx-a6000",
            "rtx-a5000",
            "rtx-a4000",
            "h800-sxm",
            "h800-pcie",
            "rtx4070ti",
            "rtx4070",
            "rtx4060ti",
            "rtx4000-ada",
            "rtx5000-ada",
            "l20",
            "rtx5080",
            "rtx5070ti",
            "rtx5070",
            "rtx5060ti",
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
        // Entries added with per-value citations carry a source for every
        // fact (a value left unknown says why in its source), and a stated
        // boost clock where an FP32 peak exists (the H20 has none: the
        // reports contradict each other).
        let cited: Vec<&GpuSpec> = all()
            .iter()
            .filter(|g| g.facts.sm_count != RUNTIME_FACTS.sm_count)
            .collect();
        for g in &cited {
            let (k, f) = (g.key, g.facts);
            for s in [f.sm_count, f.l2, f.memory] {
                assert!(!s.trim().is_empty(), "{k}");
            }
            let fp32 = g.datasheet.iter().any(|e| e.roof == RoofKey::Compute(Fp32));
            assert_eq!(f.boost_clock_mhz.is_some(), fp32, "{k}");
            assert!(
                g.memory_clock_mhz.is_none() || f.memory.contains("clock"),
                "{k}: {}",
                f.memory
            );
        }
        assert!(cited.len() >= 30, "{}", cited.len());
        assert!(checked >= 30, "{checked}");
    }

    #[test]
    fn memory_clock_and_bus_width_agree_with_the_dram_bandwidth() {
        // DRAM bandwidth = 2 x memory clock x bus width / 8 (how
        // cudaDevAttrMemoryClockRate and ...GlobalMemoryBusWidth relate,
        // CUDA deviceQuery): for every entry that states all three, within
        // 3 % (H100 SXM: 2 x 2619 MHz x 640 B = 3352 GB/s, datasheet 3350;
        // B200: 2 x 3996 x 960 = 7672, datasheet 7700). A typo in any of
        // the three breaks this.
        let mut checked = 0;
        for g in all() {
            if let (Some(mhz), Some(bus), Some(dram)) =
                (g.memory_clock_mhz, g.bus_width_bits, g.datasheet_dram())
            {
                let bw = 2.0 * mhz * 1e6 * f64::from(bus) / 8.0;
                assert!((bw / dram - 1.0).abs() < 0.03, "{}: {bw} vs {dram}", g.key);
                checked += 1;
            }
        }
        assert!(checked >= 40, "{checked}");
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
        assert_eq!(k("NVIDIA A100 80GB PCIe"), Some("a100-80gb-pcie"));
        assert_eq!(k("NVIDIA A100-SXM4-80GB"), Some("a100-80gb"));
        assert_eq!(k("NVIDIA A800-SXM4-80GB"), Some("a800-80gb"));
        assert_eq!(k("NVIDIA A800 80GB PCIe"), Some("a800-80gb-pcie"));
        assert_eq!(k("NVIDIA A800 40GB PCIe"), Some("a800-40gb"));
        assert_eq!(k("NVIDIA A30"), Some("a30"));
        assert_eq!(k("NVIDIA H800"), Some("h800-sxm"));
        assert_eq!(k("NVIDIA H800 PCIe"), Some("h800-pcie"));
        assert_eq!(k("NVIDIA H20"), Some("h20"));
        assert_eq!(k("NVIDIA L20"), Some("l20"));
        assert_eq!(k("NVIDIA RTX A6000"), Some("rtx-a6000"));
        assert_eq!(k("NVIDIA RTX A5000"), Some("rtx-a5000"));
        assert_eq!(k("NVIDIA RTX A4000"), Some("rtx-a4000"));
        assert_eq!(k("NVIDIA RTX 4000 Ada Generation"), Some("rtx4000-ada"));
        assert_eq!(k("NVIDIA RTX 4000 SFF Ada Generation"), None);
        assert_eq!(k("NVIDIA RTX 5000 Ada Generation"), Some("rtx5000-ada"));
        assert_eq!(k("NVIDIA GeForce RTX 2080 Ti"), Some("rtx2080ti"));
        assert_eq!(k("NVIDIA GeForce RTX 2080"), Some("rtx2080"));
        assert_eq!(k("NVIDIA GeForce RTX 2080 SUPER"), None);
        assert_eq!(k("NVIDIA GeForce RTX 2070"), Some("rtx2070"));
        assert_eq!(k("NVIDIA GeForce RTX 3080"), Some("rtx3080"));
        assert_eq!(k("NVIDIA GeForce RTX 3080 Ti"), None);
        assert_eq!(k("NVIDIA GeForce RTX 3070"), Some("rtx3070"));
        assert_eq!(k("NVIDIA GeForce RTX 3070 Ti"), None);
        assert_eq!(k("NVIDIA GeForce RTX 3060 Ti"), Some("rtx3060ti"));
        assert_eq!(k("NVIDIA GeForce RTX 3060"), Some("rtx3060"));
        assert_eq!(k("NVIDIA GeForce RTX 3060 Laptop GPU"), None);
        assert_eq!(k("NVIDIA GeForce RTX 4070 Ti"), Some("rtx4070ti"));
        assert_eq!(k("NVIDIA GeForce RTX 4070"), Some("rtx4070"));
        assert_eq!(k("NVIDIA GeForce RTX 4070 Ti SUPER"), None);
        assert_eq!(k("NVIDIA GeForce RTX 4060 Ti"), Some("rtx4060ti"));
        assert_eq!(k("NVIDIA GeForce RTX 4060"), None);
        assert_eq!(k("NVIDIA GeForce RTX 5080"), Some("rtx5080"));
        assert_eq!(k("NVIDIA GeForce RTX 5070 Ti"), Some("rtx5070ti"));
        assert_eq!(k("NVIDIA GeForce RTX 5070"), Some("rtx5070"));
        assert_eq!(k("NVIDIA GeForce RTX 5060 Ti"), Some("rtx5060ti"));
        assert_eq!(k("NVIDIA GeForce RTX 5060"), None);
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
        assert_eq!(by_compute_capability("8.9").len(), 12);
        assert_eq!(by_compute_capability("8.6").len(), 10);
        assert_eq!(by_compute_capability("12.0").len(), 6);
        assert_eq!(by_compute_capability("8.0").len(), 7);
        assert_eq!(by_compute_capability("7.5").len(), 4);
    }
}
