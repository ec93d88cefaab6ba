//! Which link a collective crossed: the GPUs of one node exchange over the
//! card's NVLink (its PCIe link when it has none); a group spanning nodes
//! over the network (`--net-bw`). Whether a group spans nodes follows from
//! its global ranks and the GPUs per node (ranks `r` and `s` share a node
//! when `r / G == s / G`, the usual launcher layout).

use super::model::LinkFact;

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
    pub fn link_for(&self, ranks: Option<&[u32]>, group_size: Option<u32>) -> Result<&LinkFact, String> {
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
