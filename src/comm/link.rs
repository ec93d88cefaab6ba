//! Which link a collective crossed: the GPUs of one node exchange over the
//! card's NVLink (its PCIe link when it has none: the GPU table's row
//! follows the device name's form factor, so a PCIe card gets PCIe); a
//! 2-GPU group on a mesh board without an NVSwitch (DGX-1) over the links
//! between that pair only; a group spanning nodes over the network
//! (`--net-bw`). Whether a group spans nodes follows from its global ranks
//! and the GPUs per node (ranks `r` and `s` share a node when
//! `r / G == s / G`, the usual launcher layout).

use super::model::{LinkFact, LinkKind};
use crate::roofs::gpus::{self, GpuSpec};

/// The links a collective can cross (plain config).
#[derive(Debug, Clone, Default)]
pub struct LinkConfig {
    /// The card's NVLink, per direction.
    pub nvlink: Option<LinkFact>,
    /// On a mesh board without an NVSwitch: the most one pair of GPUs
    /// shares, per direction (all a 2-GPU group crosses).
    pub nvlink_pair: Option<LinkFact>,
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
        let members = ranks.map_or(group_size, |r| u32::try_from(r.len()).ok());
        if let (Some(pair), Some(2)) = (&self.nvlink_pair, members) {
            return Ok(pair);
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
            nvlink_pair: facts
                .and_then(|f| f.nvlink)
                .and_then(|l| l.mesh_pair)
                .map(|p| LinkFact {
                    kind: LinkKind::NvlinkPair,
                    interface: p.interface.to_string(),
                    bytes_per_s: p.bytes_per_s as f64,
                    source: p.source.to_string(),
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

impl LinkKind {
    /// Its name in reports (`nvlink_pair`).
    pub fn key(self) -> &'static str {
        match self {
            LinkKind::Nvlink => "nvlink",
            LinkKind::NvlinkPair => "nvlink_pair",
            LinkKind::Pcie => "pcie",
            LinkKind::Network => "network",
        }
    }
}

/// What one trace says about the node it ran on.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NodeEvidence {
    /// Its rank, when recorded.
    pub rank: Option<u32>,
    /// Its host name, when recorded (nsys: the capture's environment).
    pub host: Option<String>,
    /// Devices the process could see (`deviceProperties`, `TARGET_INFO_GPU`).
    pub devices_listed: usize,
    /// Device ids its communication kernels ran on.
    pub comm_devices: Vec<u16>,
}

/// GPUs per node from what the traces record, with the evidence in words,
/// or why it is unknown. Never a guess: a process that lists one device
/// may be alone on its node or one of eight with `CUDA_VISIBLE_DEVICES`
/// set per rank.
///
/// 1. Host names: when every trace names its host and the ranks given are
///    the whole job `0..n` (so no node is seen in part), each host holding
///    the same number `k` of ranks, in blocks `r / k`: `k`.
/// 2. Devices listed: when every process lists the same `N ≥ 2` devices
///    and each rank's communication kernels ran on device `rank mod N` (the
///    launcher's layout, one GPU per local rank): `N`.
pub fn gpus_per_node(traces: &[NodeEvidence]) -> Result<(u32, String), String> {
    const FIX: &str = "give --gpus-per-node";
    if traces.is_empty() {
        return Err(format!("no trace read: {FIX}"));
    }
    let ranks: Option<Vec<u32>> = traces.iter().map(|t| t.rank).collect();
    if let (Some(ranks), Some(hosts)) = (
        &ranks,
        traces
            .iter()
            .map(|t| t.host.as_deref())
            .collect::<Option<Vec<&str>>>(),
    ) {
        let mut sorted = ranks.clone();
        sorted.sort_unstable();
        let whole = sorted.iter().enumerate().all(|(i, r)| *r as usize == i);
        let mut per_host: std::collections::BTreeMap<&str, Vec<u32>> = Default::default();
        for (r, h) in ranks.iter().zip(&hosts) {
            per_host.entry(h).or_default().push(*r);
        }
        let k = per_host.values().map(Vec::len).max().unwrap_or(0) as u32;
        let blocks = k > 0
            && per_host
                .values()
                .all(|v| v.len() as u32 == k && v.iter().all(|r| r / k == v[0] / k));
        if whole && traces.len() > 1 && blocks {
            return Ok((
                k,
                format!(
                    "host names: {k} ranks on each of {} hosts, in blocks of {k}",
                    per_host.len()
                ),
            ));
        }
    }
    let n = traces[0].devices_listed;
    if n >= 2 && traces.iter().all(|t| t.devices_listed == n) {
        let local = traces.iter().all(|t| match t.rank {
            Some(r) => t
                .comm_devices
                .iter()
                .all(|d| usize::from(*d) == r as usize % n),
            None => false,
        });
        if local {
            return Ok((
                n as u32,
                format!("each process lists {n} devices and each rank communicates on device rank mod {n}"),
            ));
        }
        return Err(format!(
            "each process lists {n} devices, but the ranks' devices do not follow rank mod {n} (or a rank is unknown): {FIX}"
        ));
    }
    if traces.iter().all(|t| t.devices_listed == 1) {
        return Err(format!(
            "each process lists one device (CUDA_VISIBLE_DEVICES per rank, or one GPU per node) and no host names place the ranks: {FIX}"
        ));
    }
    Err(format!(
        "the traces do not say how ranks are placed on nodes: {FIX}"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(rank: u32, host: Option<&str>, listed: usize, dev: u16) -> NodeEvidence {
        NodeEvidence {
            rank: Some(rank),
            host: host.map(str::to_string),
            devices_listed: listed,
            comm_devices: vec![dev],
        }
    }

    #[test]
    fn one_device_per_process_is_unknown_not_one_per_node() {
        let t: Vec<_> = (0..4).map(|r| ev(r, None, 1, 0)).collect();
        let why = gpus_per_node(&t).unwrap_err();
        assert!(
            why.contains("CUDA_VISIBLE_DEVICES") && why.contains("--gpus-per-node"),
            "{why}"
        );
    }

    #[test]
    fn host_names_place_the_whole_job_even_with_one_device_each() {
        // Ranks 0-3 on node a, 4-7 on node b, each seeing one GPU.
        let t: Vec<_> = (0..8)
            .map(|r| ev(r, Some(if r < 4 { "a" } else { "b" }), 1, 0))
            .collect();
        assert_eq!(gpus_per_node(&t).unwrap().0, 4);
        // A subset of the job: a node may be seen in part, so unknown.
        assert!(gpus_per_node(&t[..6]).is_err());
        // Hosts not in blocks of r / k (round-robin placement): unknown.
        let rr: Vec<_> = (0..8)
            .map(|r| ev(r, Some(if r % 2 == 0 { "a" } else { "b" }), 1, 0))
            .collect();
        assert!(gpus_per_node(&rr).is_err());
    }

    #[test]
    fn devices_listed_count_when_each_rank_uses_its_local_device() {
        let t: Vec<_> = (0..16).map(|r| ev(r, None, 8, (r % 8) as u16)).collect();
        let (n, from) = gpus_per_node(&t).unwrap();
        assert_eq!(n, 8, "{from}");
        // Every rank on device 0 though 8 are listed: not the layout.
        let t: Vec<_> = (0..16).map(|r| ev(r, None, 8, 0)).collect();
        assert!(gpus_per_node(&t).is_err());
    }
}
