//! The shared vocabulary of the built-in GPU table (`roofs::gpus`): one
//! row ([`GpuSpec`]) with its roofs ([`TableRoof`]), device facts and their
//! citations ([`FactSources`]), host link ([`HostLink`]) and device-name
//! patterns ([`NamePattern`]); the constructors the rows are written with
//! (`c`, `m`, `pcie`, `c2c`, `names`) and the citations several rows share
//! (datasheet names, the measured study's macros). The rows live in one
//! file per generation, which use this one and nothing else of the table.

pub(super) use crate::roofs::model::ComputePath::*;
pub(super) use crate::roofs::model::MemoryLevel::{Dram, L2};
use crate::roofs::model::{ComputePath, MemoryLevel};
pub(super) use crate::units::ComputeCapability;
pub(super) use Needle::{Has, Word};

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
    /// The device names (as ncu, nsys and the CUDA runtime print them) that
    /// name this GPU: any one pattern that fits ([`super::by_device_name`]). The
    /// rows' patterns never overlap (a table test checks known names).
    pub device_names: &'static [NamePattern],
    /// Compute capability.
    pub compute_capability: ComputeCapability,
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
    /// Why the table has no SM clock for this GPU ([`GpuSpec::sm_clock`]
    /// is `None`: no SM count or no FP32 peak at hand); empty when it has
    /// one (a table test holds every entry to one or the other).
    pub no_sm_clock: &'static str,
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
pub(super) const fn pcie(gen: u32, lanes: u64, source: &'static str) -> Option<HostLink> {
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
    /// On a board whose GPUs are joined point to point, without an
    /// NVSwitch (DGX-1's hybrid cube-mesh): the most two GPUs share, which
    /// is all a 2-GPU group can cross; `None` where a switch gives each GPU
    /// all its links to any other, or the board is not known to be a mesh.
    pub mesh_pair: Option<MeshPair>,
}

/// The NVLink links between one pair of GPUs on a mesh board.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MeshPair {
    /// `NVLink 2, 2 links between a pair (DGX-1 hybrid cube-mesh)`.
    pub interface: &'static str,
    /// Peak per direction over the pair's links, byte/s.
    pub bytes_per_s: u64,
    /// Citation: the board's topology and the arithmetic.
    pub source: &'static str,
}

/// `link` on a mesh board where a pair of GPUs shares at most `pair_links`
/// of its links (25 GB/s each way each, NVLink 2 to 4).
pub(super) const fn on_mesh(
    link: Option<NvLink>,
    pair_links: u64,
    interface: &'static str,
    source: &'static str,
) -> Option<NvLink> {
    match link {
        Some(l) => Some(NvLink {
            mesh_pair: Some(MeshPair {
                interface,
                bytes_per_s: pair_links * 25_000_000_000,
                source,
            }),
            ..l
        }),
        None => None,
    }
}

/// NVLink generation `gen` (2-5) with `links` links on the card: 25 GB/s
/// per link each way up to NVLink 4, 50 GB/s for NVLink 5.
pub(super) const fn nvlink(gen: u32, links: u64, source: &'static str) -> Option<NvLink> {
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
        mesh_pair: None,
    })
}

/// NVLink-C2C between a Grace CPU and a Hopper GPU: 900 GB/s in both
/// directions together, 450 GB/s each way.
pub(super) const fn c2c(source: &'static str) -> Option<HostLink> {
    Some(HostLink {
        interface: "NVLink-C2C",
        bytes_per_s: 450_000_000_000,
        source,
    })
}

pub(super) const RUNTIME: &str =
    "CUDA runtime device attribute (entry predates per-value citations; see the module header)";

/// The facts of the entries that predate per-value citations: values as
/// the CUDA runtime reports them, no stated boost clock.
pub(super) const RUNTIME_FACTS: FactSources = FactSources {
    no_sm_clock: "",
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
pub(super) const T_IN_G: f64 = 1e3;
pub(super) const G: f64 = 1e9;
pub(super) const MIB: u64 = 1 << 20;
pub(super) const KIB: u64 = 1 << 10;

pub(super) const fn c(path: ComputePath, tflop_per_s: f64, source: &'static str) -> TableRoof {
    TableRoof {
        roof: RoofKey::Compute(path),
        value: tflop_per_s * T_IN_G * G,
        source,
    }
}

pub(super) const fn m(level: MemoryLevel, gb_per_s: f64, source: &'static str) -> TableRoof {
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

pub(super) const V100_DS: &str = "NVIDIA Tesla V100 datasheet (SXM2)";
pub(super) const A100_DS: &str = "NVIDIA A100 Tensor Core GPU datasheet (SXM), dense";
pub(super) const A100P40_DS: &str = "NVIDIA A100 Tensor Core GPU datasheet (PCIe 40GB column: 1,555 GB/s, the same compute peaks as the SXM part), dense";
pub(super) const A100P_DS: &str = "NVIDIA A100 Tensor Core GPU datasheet (PCIe 80GB column: 1,935 GB/s, the same compute peaks as the SXM part), dense";
pub(super) const H100_DS: &str = "NVIDIA H100 Tensor Core GPU datasheet (SXM), sparse figures / 2";
pub(super) const H100P_DS: &str =
    "NVIDIA H100 Tensor Core GPU datasheet (PCIe), sparse figures / 2";
pub(super) const H200_DS: &str = "NVIDIA H200 Tensor Core GPU datasheet (SXM), sparse figures / 2";
pub(super) const GH200_DS: &str =
    "NVIDIA GH200 Grace Hopper Superchip datasheet (96 GB HBM3), sparse figures / 2";
pub(super) const GH200E_DS: &str =
    "NVIDIA GH200 Grace Hopper Superchip datasheet (144 GB HBM3e), sparse figures / 2";
pub(super) const B200_DS: &str = "NVIDIA HGX B200 datasheet (per GPU), sparse figures / 2";
pub(super) const B300_DS: &str =
    "NVIDIA HGX B300 datasheet (8 GPUs, per GPU = / 8), sparse figures / 2";
/// The current GB200 NVL72 specification table (nvidia.com/en-us/data-center/gb200-nvl72):
/// rack figures for 72 Blackwell GPUs, tensor figures with sparsity.
macro_rules! gb200_ds {
    () => {
        "NVIDIA GB200 NVL72 specifications (current table; per Blackwell GPU = rack / 72, sparse tensor figures / 2): "
    };
}
/// What the GB200's dense tensor figures rest on: the rack's sparse
/// figures / 72 / 2, not a per-GPU NVIDIA figure, which could not be
/// established (no nvidia.com page at hand when checked; the third-party
/// tables disagree).
macro_rules! gb200_tensor_note {
    () => {
        "; a derived figure, not NVIDIA's per GPU: no nvidia.com per-GPU table was at hand when checked (2026-12-02), and third-party tables disagree (glennklockwood.com/garden/processors/B200, the GB200's GPU at 1,200 W: FP8 5,000 TFLOPS dense, as derived here; verda.com/blog/gb300-nvl72-architecture: GB200 FP8 4.5 PFLOPS, the HGX B200 figure)"
    };
}
pub(super) const L40S_DS: &str = "NVIDIA L40S datasheet, sparse figures / 2";
pub(super) const L4_DS: &str = "NVIDIA L4 Tensor Core GPU datasheet, sparse figures / 2";
pub(super) const A10_DS: &str = "NVIDIA A10 Tensor Core GPU datasheet, sparse figures / 2";
pub(super) const T4_DS: &str =
    "NVIDIA T4 Tensor Core GPU datasheet (mixed-precision FP16/FP32 tensor)";
pub(super) const ADA_WP: &str =
    "NVIDIA Ada GPU Architecture whitepaper (GeForce RTX 40 series), dense, FP32 accumulate";
pub(super) const RTX6000ADA_DS: &str = "NVIDIA RTX 6000 Ada Generation datasheet";
pub(super) const GA102_WP: &str =
    "NVIDIA Ampere GA102 GPU Architecture whitepaper, Appendix A (RTX 3090), dense, FP32 accumulate";
pub(super) const GB202_WP: &str =
    "NVIDIA RTX Blackwell GPU Architecture whitepaper (GeForce RTX 5090), dense, FP32 accumulate";
pub(super) const RTXPRO6000_DS: &str =
    "NVIDIA RTX PRO 6000 Blackwell Workstation Edition datasheet";
pub(super) const L40_DS: &str = "NVIDIA L40 datasheet (L40/L40S table as reproduced at https://www.mullet.se/product.html?product_id=355414), sparse figures / 2";
pub(super) const L40_CORES: &str = "NVIDIA L40 datasheet (https://www.mullet.se/product.html?product_id=355414): 18,176 CUDA cores / 128 per SM (NVIDIA Ada GPU Architecture whitepaper) = 142 SMs; 568 Tensor Cores / 4 per SM = 142";
pub(super) const A40_DS: &str = "NVIDIA A40 datasheet (as reproduced at https://www.ecer.com/corp/details-uuuedqa-p1bsay9-multi-display-setups-supported-by-48gb-gddr6-ecc-memory-nvidia-a40-gpu-and-vga-outputs.html), sparse figures / 2";
pub(super) const A40_CORES: &str = "NVIDIA A40 datasheet (https://www.ecer.com/corp/details-uuuedqa-p1bsay9-multi-display-setups-supported-by-48gb-gddr6-ecc-memory-nvidia-a40-gpu-and-vga-outputs.html): 10,752 CUDA cores / 128 per SM (NVIDIA Ampere GA102 GPU Architecture whitepaper) = 84 SMs; 336 Tensor Cores / 4 per SM = 84";

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

/// A piece of a lowercased device name: a substring, or a whole word
/// (split at anything but letters and digits, so that `l4` is not found in
/// `l40s`, nor `a10` in `a100`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Needle {
    /// Anywhere in the name.
    Has(&'static str),
    /// A whole word of the name.
    Word(&'static str),
}

/// A device-name pattern: every needle of `all`, none of `none`.
#[derive(Debug, Clone, Copy)]
pub struct NamePattern {
    /// Needles that must all be in the name.
    pub all: &'static [Needle],
    /// Needles that rule the pattern out (`pcie` for an SXM part, `ti`
    /// variants the table does not hold).
    pub none: &'static [Needle],
}

pub(super) const fn names(all: &'static [Needle], none: &'static [Needle]) -> NamePattern {
    NamePattern { all, none }
}
