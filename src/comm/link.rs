//! Which link a collective crossed: the GPUs of one node exchange over the
//! card's NVLink (its PCIe link when it has none); a group spanning nodes
//! over the network (`--net-bw`). Whether a group spans nodes follows from
//! its global ranks and the GPUs per node (ranks `r` and `s` share a node
//! when `r / G == s / G`, the usual launcher layout).

use super::model::{LinkFact, LinkKind};
use crate::roofs::gpus::{self, GpuSpec};

/// The links a collective can cross (plain config).
#[derive(Debug, Clone, Default)]
pub struct LinkConfig {
    /// The card's NVLink, per direction.
    pub nvlink: Option<LinkFact>,
    /// The card's PCIe link, per direction.
    pub pcie: Option<LinkFact>,
    /// The network between nodes, per direction (`--net-bw`).
    pub network: Option<LinkFact>,
    /// GPUs per node (`--gpus-per-node`, or the trace's `deviceProperties`).
    pub gpus_per_node: Option<u32>,
}

impl LinkConfig {
    /// The link of a group of `group_size` ranks whose global ranks are
    /// `ranks` (when recorded), or why it is unknown.
    pub fn link_for(
        &self,
        ranks: Option<&[u32]>,
        group_size: Option<u32>,
    ) -> Result<&LinkFact, String> {
        let Some(g) = self.gpus_per_node.filter(|g| *g > 0) else {
            return Err("GPUs per node unknown: give --gpus-per-node".into());
        };
        let spans = match (ranks.filter(|r| !r.is_empty()), group_size) {
            (Some(r), _) => r.iter().any(|x| x / g != r[0] / g),
            (None, Some(n)) if n > g => true,
            (None, Some(_)) => {
                return Err("the group's ranks are not recorded: it may span nodes".into())
            }
            (None, None) => return Err("the group is not recorded".into()),
        };
        if spans {
            return self
                .network
                .as_ref()
                .ok_or_else(|| "the group spans nodes: give the network's bandwidth per direction with --net-bw".into());
        }
        self.nvlink
            .as_ref()
            .or(self.pcie.as_ref())
            .ok_or_else(|| "the GPU's NVLink and PCIe link are unknown: give --gpu".into())
    }
}

/// The GPU whose links the collectives crossed: `--gpu KEY`, else the
/// table entry of the first device name the trace records; `Ok(None)` when
/// no name is in the table (the links are then unknown, said per row).
pub fn gpu_of(
    key: Option<&str>,
    device_names: &[String],
) -> Result<Option<&'static GpuSpec>, String> {
    if let Some(k) = key {
        return gpus::by_key(k).map(Some).ok_or_else(|| {
            format!(
                "unknown GPU \"{k}\" for --gpu: see `rooftrace ncu --help` for the table's keys"
            )
        });
    }
    Ok(device_names.iter().find_map(|n| gpus::by_device_name(n)))
}

impl LinkConfig {
    /// The links of `gpu` (NVLink and PCIe from the GPU table), the
    /// network's `net_bytes_per_s` (`--net-bw`) and the GPUs per node.
    pub fn new(
        gpu: Option<&GpuSpec>,
        net_bytes_per_s: Option<f64>,
        gpus_per_node: Option<u32>,
    ) -> LinkConfig {
        let facts = gpu.map(|g| g.facts);
        LinkConfig {
            nvlink: facts.and_then(|f| f.nvlink).map(|l| LinkFact {
                kind: LinkKind::Nvlink,
                interface: l.interface.to_string(),
                bytes_per_s: l.bytes_per_s as f64,
                source: l.source.to_string(),
            }),
            pcie: facts.and_then(|f| f.host_link).map(|l| LinkFact {
                kind: LinkKind::Pcie,
                interface: l.interface.to_string(),
                bytes_per_s: l.bytes_per_s as f64,
                source: l.source.to_string(),
            }),
            network: net_bytes_per_s.map(|b| LinkFact {
                kind: LinkKind::Network,
                interface: "network (--net-bw)".into(),
                bytes_per_s: b,
                source: "--net-bw, per direction per GPU".into(),
            }),
            gpus_per_node,
        }
    }
}
