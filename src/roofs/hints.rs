//! What an input says about the device it was recorded on ([`DeviceHints`]),
//! and where it says it ([`HintSource`]): plain data the parsers fill (ncu
//! CSV attributes, nsys `TARGET_INFO_GPU`, a trace's `deviceProperties`)
//! and the choosing policy reads, so that nothing here knows their types.

use super::model::Roofs;
use crate::units::ComputeCapability;

/// Where an input records its device, as a decision names it ("device name
/// … in the CSV").
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum HintSource {
    /// An ncu CSV's device columns and attributes.
    #[default]
    Csv,
    /// An nsys export's `TARGET_INFO_GPU` rows.
    ExportGpuTable,
    /// A PyTorch profiler trace's `deviceProperties`.
    TraceDeviceProperties,
}

impl HintSource {
    /// The words after "in": `the CSV`.
    pub fn words(self) -> &'static str {
        match self {
            HintSource::Csv => "the CSV",
            HintSource::ExportGpuTable => "the export's TARGET_INFO_GPU",
            HintSource::TraceDeviceProperties => "the trace's deviceProperties",
        }
    }

    /// What the input is, in a message: `CSV`, `export`, `trace`.
    pub fn input_kind(self) -> &'static str {
        match self {
            HintSource::Csv => "CSV",
            HintSource::ExportGpuTable => "export",
            HintSource::TraceDeviceProperties => "trace",
        }
    }

    /// What is missing when the input records no device: `GPU (no
    /// TARGET_INFO_GPU rows)`.
    pub fn nothing_recorded(self) -> &'static str {
        match self {
            HintSource::Csv => "device name or attribute",
            HintSource::ExportGpuTable => "GPU (no TARGET_INFO_GPU rows)",
            HintSource::TraceDeviceProperties => "NVIDIA GPU in its deviceProperties",
        }
    }
}

/// What an input says about the device it was recorded on.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DeviceHints {
    /// The input file as given, for messages.
    pub file: String,
    /// Where the input records the facts below.
    pub source: HintSource,
    /// Distinct device names seen, sorted.
    pub device_names: Vec<String>,
    /// Distinct compute capabilities seen, sorted.
    pub compute_capabilities: Vec<ComputeCapability>,
    /// Distinct SM counts seen, sorted.
    pub sm_counts: Vec<u32>,
    /// Distinct L2 sizes seen, bytes, sorted.
    pub l2_bytes: Vec<u64>,
    /// Distinct memory clocks seen, MHz, sorted (the CUDA attribute, or
    /// the DRAM clock ncu measured while a kernel ran).
    pub memory_clocks_mhz: Vec<u64>,
    /// Distinct memory bus widths seen, bits, sorted
    /// (`device__attribute_global_memory_bus_width`).
    pub bus_widths_bits: Vec<u32>,
    /// Distinct theoretical DRAM bandwidths seen, byte/s, sorted (nsys
    /// `TARGET_INFO_GPU.memoryBandwidth`: 2 x memory clock x bus width / 8).
    pub memory_bandwidths_bytes_per_s: Vec<u64>,
    /// ncu's own theoretical peaks, when the CSV carries them (the roofs
    /// `--roofs ncu` would use, with the clocks they assume).
    pub ncu_peaks: Option<Roofs>,
    /// The DRAM peak ncu's own throughput percentage implies, byte/s:
    /// DRAM bytes / duration / `dram__throughput` % (the lowest over the
    /// launches that state all three). `dram__throughput` is the busiest of
    /// several DRAM sub-metrics, so its percentage is at least the bytes'
    /// share and this is at most the true peak: a GPU whose DRAM peak is
    /// below it is not the one the file ran on.
    pub implied_dram_peak_bytes_per_s: Option<f64>,
}
