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
//!
//! Layout: the shared types and row constructors in `spec`, the rows in one
//! file per generation (`volta_turing`, `ampere`, `hopper`, `ada`,
//! `blackwell`), the lookups (by key, by device name, by compute
//! capability) and the roofs a row gives here.

#[macro_use]
mod spec;
mod ada;
mod ampere;
mod blackwell;
mod hopper;
mod volta_turing;

pub use spec::{
    FactSources, GpuSpec, HostLink, MeshPair, NamePattern, Needle, NvLink, RoofKey, TableRoof,
    MEASURED_COMMIT, MEASURED_DOC, MEASURED_REPO,
};

use super::model::{ComputePath, ComputeRoof, MemoryLevel, MemoryRoof, Origin, RoofClocks, Roofs};
use crate::units::ComputeCapability;
use std::sync::LazyLock;

/// The rows of every generation file, in display order.
static TABLE: LazyLock<Vec<GpuSpec>> = LazyLock::new(|| {
    [
        volta_turing::VOLTA_TURING,
        ampere::AMPERE,
        hopper::HOPPER,
        blackwell::BLACKWELL_DATACENTER,
        ada::ADA,
        blackwell::BLACKWELL_RTX,
    ]
    .concat()
});

/// Every GPU in the table, in display order.
pub fn all() -> &'static [GpuSpec] {
    &TABLE
}

/// Looks up a GPU by its `--gpu` key (case-insensitive).
pub fn by_key(key: &str) -> Option<&'static GpuSpec> {
    all().iter().find(|g| g.key.eq_ignore_ascii_case(key))
}

/// Names of parts no row stands for, whatever else they say: laptop,
/// SUPER, NVL, mobile and Max-Q variants, MIG slices, the GB300.
const NOT_IN_TABLE: &[Needle] = &[
    Needle::Has("laptop"),
    Needle::Has("super"),
    Needle::Has("nvl"),
    Needle::Has("mobile"),
    Needle::Has("max-q"),
    Needle::Word("mig"),
    Needle::Has("gb300"),
];

/// A device name lowercased and cut into words, for [`Needle`]s.
struct DeviceName {
    lower: String,
    words: Vec<String>,
}

impl DeviceName {
    fn new(name: &str) -> DeviceName {
        let lower = name.to_ascii_lowercase();
        let words = lower
            .split(|c: char| !c.is_ascii_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_string)
            .collect();
        DeviceName { lower, words }
    }

    fn has(&self, needle: Needle) -> bool {
        match needle {
            Needle::Has(s) => self.lower.contains(s),
            Needle::Word(w) => self.words.iter().any(|x| x == w),
        }
    }

    fn fits(&self, p: &NamePattern) -> bool {
        p.all.iter().all(|&n| self.has(n)) && !p.none.iter().any(|&n| self.has(n))
    }
}

/// Every row whose device-name patterns fit `device_name` (none for the
/// parts [`NOT_IN_TABLE`] names). A test holds known names to one row.
pub fn rows_named(device_name: &str) -> Vec<&'static GpuSpec> {
    let name = DeviceName::new(device_name);
    if NOT_IN_TABLE.iter().any(|&n| name.has(n)) {
        return Vec::new();
    }
    all()
        .iter()
        .filter(|g| g.device_names.iter().any(|p| name.fits(p)))
        .collect()
}

/// The GPU a device name as ncu or the CUDA runtime prints it names
/// (`NVIDIA H200`, `NVIDIA H100 80GB HBM3`, `Tesla V100-SXM2-16GB`): the
/// one row whose patterns fit. `None` for variants the table does not hold
/// (H100 NVL, RTX 4080 SUPER, A10G, V100 PCIe, MIG slices, Max-Q and laptop
/// parts) rather than guessing wrong roofs, and for a name two rows would
/// fit (none known: [`rows_named`]).
pub fn by_device_name(device_name: &str) -> Option<&'static GpuSpec> {
    match rows_named(device_name).as_slice() {
        [one] => Some(one),
        _ => None,
    }
}

/// GPUs of the table with this compute capability.
pub fn by_compute_capability(cc: ComputeCapability) -> Vec<&'static GpuSpec> {
    all()
        .iter()
        .filter(|g| g.compute_capability == cc)
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
pub fn fp32_lanes_per_sm(cc: ComputeCapability) -> Option<(u32, &'static str)> {
    Some(match (cc.major, cc.minor) {
        (7, 0) => (64, "NVIDIA Tesla V100 GPU Architecture whitepaper: 64 FP32 cores per SM"),
        (7, 5) => (64, "NVIDIA Turing GPU Architecture whitepaper: 64 FP32 cores per SM"),
        (8, 0) => (64, "NVIDIA A100 Tensor Core GPU Architecture whitepaper: 64 FP32 CUDA cores per SM"),
        (8, 6) | (8, 7) => (128, "NVIDIA Ampere GA102 GPU Architecture whitepaper: 128 FP32 CUDA cores per SM"),
        (8, 9) => (128, "NVIDIA Ada GPU Architecture whitepaper: 128 CUDA cores per SM"),
        (9, 0) => (128, "NVIDIA H100 Tensor Core GPU Architecture whitepaper: 128 FP32 CUDA cores per SM"),
        (10, _) => (128, "Cornell Virtual Workshop, \"Inside a Blackwell B200 SM\" (cvw.cac.cornell.edu/gpu-architecture/horizon-gpus-blackwell-b200/b200_sm): 128 FP32 CUDA cores per SM"),
        (12, _) => (128, "NVIDIA RTX Blackwell GPU Architecture whitepaper: 128 FP32 CUDA cores per SM"),
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
    use super::spec::*;
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
            // Issue 44: the PCIe A100 40GB, apart from the SXM part's NVLink.
            "a100-40gb-pcie",
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
    fn every_entry_has_an_sm_clock_or_says_why_not() {
        // The clock the datasheet peaks assume (sm_clock: FP32 peak / (2 x
        // lanes x SMs)) is what compute roofs scale from; an entry without
        // one states why, and an entry with one states no reason.
        for g in all() {
            match g.sm_clock() {
                Some((hz, _)) => {
                    assert!(g.facts.no_sm_clock.is_empty(), "{}", g.key);
                    assert!(hz > 0.5e9 && hz < 3.5e9, "{}: {hz}", g.key);
                }
                None => assert!(g.facts.no_sm_clock.len() > 40, "{}", g.key),
            }
        }
        // GB200 at the current NVL72 table: FP32 5,760 and FP64 2,880
        // TFLOPS per rack of 72 GPUs = 80 and 40 per GPU (not the 2024
        // table's 90 and 45); every roof cites the one table.
        let gb200 = by_key("gb200").unwrap();
        let roofs = gb200.datasheet_roofs();
        assert_eq!(roofs.compute[&Fp32].flop_per_s, 80e12);
        assert_eq!(roofs.compute[&Fp64].flop_per_s, 40e12);
        assert_eq!(roofs.compute[&TensorFp64].flop_per_s, 40e12);
        for e in gb200.datasheet {
            assert!(e.source.starts_with(gb200_ds!()), "{}", e.source);
        }
        // The tensor roofs from the rack's sparse figures say they are
        // derived (no per-GPU NVIDIA figure confirmed them): FP8 720 PFLOPS
        // sparse / 72 / 2 = 5,000 TFLOPS dense.
        assert_eq!(roofs.compute[&TensorFp8].flop_per_s, 5000e12);
        for e in gb200
            .datasheet
            .iter()
            .filter(|e| e.source.contains("(sparse)"))
        {
            assert!(e.source.ends_with(gb200_tensor_note!()), "{}", e.source);
        }
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
    fn no_device_name_fits_two_rows() {
        // The names of device_names_resolve, every row's own name, and
        // the device names the fixtures and the corpus record (nsys
        // TARGET_INFO_GPU, Kineto deviceProperties, ncu display names):
        // each fits one row at most, and the recorded ones the row they
        // always mapped to.
        let recorded = [
            ("NVIDIA A100-PG509-200", Some("a100-40gb")),
            ("NVIDIA A100-SXM4-40GB", Some("a100-40gb")),
            ("NVIDIA A100-SXM4-80GB", Some("a100-80gb")),
            ("NVIDIA GeForce RTX 3060", Some("rtx3060")),
            ("NVIDIA GeForce RTX 3090", Some("rtx3090")),
            ("NVIDIA H200", Some("h200")),
            ("Tesla V100-SXM2-32GB", Some("v100-32gb")),
            ("NVIDIA B200", Some("b200")),
            ("NVIDIA H100 80GB HBM3", Some("h100-sxm")),
            ("AMD Radeon Graphics", None),
        ];
        for (name, key) in recorded {
            assert_eq!(by_device_name(name).map(|g| g.key), key, "{name}");
        }
        let names = RESOLVE
            .iter()
            .map(|(n, _)| *n)
            .chain(all().iter().map(|g| g.name))
            .chain(recorded.iter().map(|(n, _)| *n));
        for name in names {
            let rows: Vec<&str> = rows_named(name).iter().map(|g| g.key).collect();
            assert!(rows.len() <= 1, "{name:?} fits {rows:?}");
        }
        // Every row's own marketing name finds it, but for names written
        // for people rather than as devices print them.
        for g in all() {
            let found = by_device_name(g.name).map(|f| f.key);
            assert!(
                found.is_none() || found == Some(g.key),
                "{}: {found:?}",
                g.key
            );
        }
    }

    /// Device names and the row each names (`None`: no row).
    const RESOLVE: &[(&str, Option<&str>)] = &[
        ("NVIDIA H100 80GB HBM3", Some("h100-sxm")),
        ("NVIDIA H100 PCIe", Some("h100-pcie")),
        ("NVIDIA H200", Some("h200")),
        ("NVIDIA H200 MIG 3g.71gb", None),
        ("NVIDIA GH200 480GB", Some("gh200")),
        ("NVIDIA GH200 144G HBM3e", Some("gh200-144gb")),
        ("NVIDIA A100-SXM4-40GB", Some("a100-40gb")),
        ("NVIDIA A100 80GB PCIe", Some("a100-80gb-pcie")),
        ("NVIDIA A100-PCIE-40GB", Some("a100-40gb-pcie")),
        ("NVIDIA A100-SXM4-80GB", Some("a100-80gb")),
        ("NVIDIA A800-SXM4-80GB", Some("a800-80gb")),
        ("NVIDIA A800 80GB PCIe", Some("a800-80gb-pcie")),
        ("NVIDIA A800 40GB PCIe", Some("a800-40gb")),
        ("NVIDIA A30", Some("a30")),
        ("NVIDIA H800", Some("h800-sxm")),
        ("NVIDIA H800 PCIe", Some("h800-pcie")),
        ("NVIDIA H20", Some("h20")),
        ("NVIDIA L20", Some("l20")),
        ("NVIDIA RTX A6000", Some("rtx-a6000")),
        ("NVIDIA RTX A5000", Some("rtx-a5000")),
        ("NVIDIA RTX A4000", Some("rtx-a4000")),
        ("NVIDIA RTX 4000 Ada Generation", Some("rtx4000-ada")),
        ("NVIDIA RTX 4000 SFF Ada Generation", None),
        ("NVIDIA RTX 5000 Ada Generation", Some("rtx5000-ada")),
        ("NVIDIA GeForce RTX 2080 Ti", Some("rtx2080ti")),
        ("NVIDIA GeForce RTX 2080", Some("rtx2080")),
        ("NVIDIA GeForce RTX 2080 SUPER", None),
        ("NVIDIA GeForce RTX 2070", Some("rtx2070")),
        ("NVIDIA GeForce RTX 3080", Some("rtx3080")),
        ("NVIDIA GeForce RTX 3080 Ti", None),
        ("NVIDIA GeForce RTX 3070", Some("rtx3070")),
        ("NVIDIA GeForce RTX 3070 Ti", None),
        ("NVIDIA GeForce RTX 3060 Ti", Some("rtx3060ti")),
        ("NVIDIA GeForce RTX 3060", Some("rtx3060")),
        ("NVIDIA GeForce RTX 3060 Laptop GPU", None),
        ("NVIDIA GeForce RTX 4070 Ti", Some("rtx4070ti")),
        ("NVIDIA GeForce RTX 4070", Some("rtx4070")),
        ("NVIDIA GeForce RTX 4070 Ti SUPER", None),
        ("NVIDIA GeForce RTX 4060 Ti", Some("rtx4060ti")),
        ("NVIDIA GeForce RTX 4060", None),
        ("NVIDIA GeForce RTX 5080", Some("rtx5080")),
        ("NVIDIA GeForce RTX 5070 Ti", Some("rtx5070ti")),
        ("NVIDIA GeForce RTX 5070", Some("rtx5070")),
        ("NVIDIA GeForce RTX 5060 Ti", Some("rtx5060ti")),
        ("NVIDIA GeForce RTX 5060", None),
        ("Tesla V100-SXM2-16GB", Some("v100")),
        ("Tesla V100-SXM2-32GB", Some("v100-32gb")),
        ("Tesla V100-PCIE-32GB", None),
        // The DGX-2's V100s sit on NVSwitches: not the SXM2 rows' mesh.
        ("Tesla V100-SXM3-32GB", None),
        ("NVIDIA B200", Some("b200")),
        ("NVIDIA B300 SXM6 AC", Some("b300")),
        ("NVIDIA GB200", Some("gb200")),
        ("NVIDIA L4", Some("l4")),
        ("NVIDIA L40S", Some("l40s")),
        ("NVIDIA A10", Some("a10")),
        ("NVIDIA A10G", None),
        ("NVIDIA L40", Some("l40")),
        ("NVIDIA A40", Some("a40")),
        // The Kineto corpus traces' name (108 SMs, 39.4 GiB: the 40 GB A100).
        ("NVIDIA A100-PG509-200", Some("a100-40gb")),
        ("NVIDIA A100-PG509-210", None),
        ("Tesla T4", Some("t4")),
        ("NVIDIA RTX 6000 Ada Generation", Some("rtx6000-ada")),
        (
            "NVIDIA RTX PRO 6000 Blackwell Workstation Edition",
            Some("rtx-pro-6000"),
        ),
        (
            "NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition",
            None,
        ),
        ("NVIDIA GeForce RTX 5090", Some("rtx5090")),
        ("NVIDIA GeForce RTX 4090", Some("rtx4090")),
        ("NVIDIA GeForce RTX 3090", Some("rtx3090")),
        ("NVIDIA GeForce RTX 3090 Ti", None),
        ("NVIDIA GeForce RTX 4080 SUPER", None),
        ("NVIDIA H100 NVL", None),
    ];

    #[test]
    fn device_names_resolve() {
        for (name, key) in RESOLVE {
            assert_eq!(by_device_name(name).map(|g| g.key), *key, "{name}");
        }
        assert_eq!(
            by_compute_capability(ComputeCapability::new(8, 9)).len(),
            12
        );
        assert_eq!(
            by_compute_capability(ComputeCapability::new(8, 6)).len(),
            10
        );
        assert_eq!(
            by_compute_capability(ComputeCapability::new(12, 0)).len(),
            6
        );
        assert_eq!(by_compute_capability(ComputeCapability::new(8, 0)).len(), 8);
        assert_eq!(by_compute_capability(ComputeCapability::new(7, 5)).len(), 4);
    }
}
