//! Built-in table of common NVIDIA GPUs: datasheet dense peaks per compute
//! path and memory bandwidth, and measured values where a public measurement
//! exists, each with its source.
//!
//! (Table filled in by the `rooftrace ncu` work; the API below is what the
//! rest of the crate uses.)

use super::roofs::Roofs;

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
}

/// Every GPU in the table, in display order.
pub fn all() -> &'static [GpuSpec] {
    &[]
}

/// Looks up a GPU by its `--gpu` key (case-insensitive).
pub fn by_key(key: &str) -> Option<&'static GpuSpec> {
    all().iter().find(|g| g.key.eq_ignore_ascii_case(key))
}

/// Guesses the GPU from a device name as ncu or the CUDA runtime prints it
/// (`NVIDIA H200`, `NVIDIA H100 80GB HBM3`, `Tesla V100-SXM2-16GB`).
pub fn by_device_name(_device_name: &str) -> Option<&'static GpuSpec> {
    None
}

impl GpuSpec {
    /// Datasheet roofs only (origin = datasheet).
    pub fn datasheet_roofs(&self) -> Roofs {
        Roofs::new(self.name, "datasheet")
    }

    /// The default roofs: measured values where present, datasheet otherwise.
    pub fn default_roofs(&self) -> Roofs {
        self.datasheet_roofs()
    }
}
