//! The host link the copies crossed (docs/gaps.md, "Copy-bound"): no
//! export records it (nsys `TARGET_INFO_GPU` has the bus location, not the
//! PCIe generation or width; Kineto's `deviceProperties` neither), so it
//! comes from the built-in table entry of the GPU the export names (or
//! `--gpu`), with that entry's source; otherwise it is unknown, with why.
//! A leaf: the report model holds these, nothing here reads the model.

use crate::timeline::CopyKind;
use serde::Serialize;

/// Where the host link figure came from, or why it is unknown.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct HostLinkInfo {
    /// The interface (`PCIe Gen5 x16`, `NVLink-C2C`); `None`: unknown.
    pub interface: Option<String>,
    /// Its peak in one direction, byte/s; `None`: unknown (not zero).
    pub per_direction_bytes_per_s: Option<u64>,
    /// The built-in table entry the figure is from (`h100-sxm`).
    pub gpu: Option<String>,
    /// How that GPU was chosen (`--gpu`, `device name in the export's
    /// TARGET_INFO_GPU`).
    pub chosen_by: Option<String>,
    /// The table entry's citation for the interface.
    pub source: Option<String>,
    /// Why the link is unknown (`None` when known).
    pub unknown_reason: Option<String>,
    /// The copies that crossed the link (host to device, device to host)
    /// with their achieved share of it; filled by
    /// [`GapReport::set_host_link`](super::GapReport::set_host_link).
    pub copies: Vec<LinkCopy>,
}

impl HostLinkInfo {
    /// A known link: `interface` at `bytes_per_s` per direction, from the
    /// table entry `gpu` (chosen `chosen_by`), cited by `source`.
    pub fn known(
        interface: &str,
        bytes_per_s: u64,
        gpu: &str,
        chosen_by: &str,
        source: &str,
    ) -> HostLinkInfo {
        HostLinkInfo {
            interface: Some(interface.to_string()),
            per_direction_bytes_per_s: Some(bytes_per_s),
            gpu: Some(gpu.to_string()),
            chosen_by: Some(chosen_by.to_string()),
            source: Some(source.to_string()),
            unknown_reason: None,
            copies: Vec::new(),
        }
    }

    /// An unknown link and why.
    pub fn unknown(reason: impl Into<String>) -> HostLinkInfo {
        HostLinkInfo {
            unknown_reason: Some(reason.into()),
            ..HostLinkInfo::default()
        }
    }

    /// Achieved over peak, when both are known and the copies cross the
    /// host link (`HtoD`, `DtoH`).
    pub fn fraction(&self, direction: CopyKind, achieved_bytes_per_s: Option<u64>) -> Option<f64> {
        let peak = self.per_direction_bytes_per_s.filter(|&p| p > 0)?;
        direction.crosses_host_link().then_some(())?;
        Some(achieved_bytes_per_s? as f64 / peak as f64)
    }
}

/// One device's copies in one direction over the host link.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LinkCopy {
    /// Process id.
    pub pid: u32,
    /// Device id.
    pub device: u16,
    /// `HtoD` or `DtoH`.
    pub direction: CopyKind,
    /// The host side is pageable memory.
    pub pageable: bool,
    /// Achieved while copying (bytes / summed copy time), byte/s.
    pub bytes_per_s: Option<u64>,
    /// `bytes_per_s / per_direction_bytes_per_s`, derived; `None` when
    /// either is unknown.
    pub link_fraction: Option<f64>,
}
