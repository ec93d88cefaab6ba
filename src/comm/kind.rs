//! What a collective is and what it moved: its kind from PyTorch's
//! `Collective name` (or an `nccl:*` annotation) or from the NCCL/RCCL
//! kernel's name, its size in `nccl-tests`' convention and the bus
//! bandwidth factor (`nccl-tests` doc/PERFORMANCE.md).

use serde::Serialize;

/// A collective's kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CollKind {
    /// All-reduce.
    AllReduce,
    /// All-gather.
    AllGather,
    /// Reduce-scatter.
    ReduceScatter,
    /// All-to-all.
    AllToAll,
    /// Broadcast.
    Broadcast,
    /// Reduce.
    Reduce,
    /// Point to point (send, receive, or both in one kernel).
    SendRecv,
    /// A kernel or name rooftrace does not map (`ncclDevKernel_Generic`,
    /// a barrier): time only.
    Other,
    /// Gather to one root (NCCL runs it as sends and receives).
    Gather,
    /// Scatter from one root (NCCL runs it as sends and receives).
    Scatter,
}

impl CollKind {
    /// The kind PyTorch's `Collective name` or an annotation's name says
    /// (`allreduce`, `all_reduce`, `_allgather_base`,
    /// `all_gather_into_tensor`, `reduce_scatter_tensor`, `all_to_all`,
    /// `alltoall_base`, `gather`, `scatter`, `send`, `recv`), `None` when
    /// it names none.
    pub fn from_collective_name(name: &str) -> Option<CollKind> {
        let n: String = name
            .chars()
            .filter(|c| *c != '_')
            .collect::<String>()
            .to_ascii_lowercase();
        Some(if n.starts_with("allreduce") {
            CollKind::AllReduce
        } else if n.starts_with("allgather") {
            CollKind::AllGather
        } else if n.starts_with("reducescatter") {
            CollKind::ReduceScatter
        } else if n.starts_with("gather") {
            CollKind::Gather
        } else if n.starts_with("scatter") {
            CollKind::Scatter
        } else if n.starts_with("alltoall") {
            CollKind::AllToAll
        } else if n.starts_with("broadcast") {
            CollKind::Broadcast
        } else if n.starts_with("reduce") {
            CollKind::Reduce
        } else if n.starts_with("send") || n.starts_with("recv") {
            CollKind::SendRecv
        } else {
            return None;
        })
    }

    /// The kind a kernel's name says: `ncclKernel_AllReduce_RING_LL_Sum_float`,
    /// `ncclDevKernel_AllGather_RING_LL`, `ncclKernel_SendRecv_…`
    /// (RCCL's too); [`CollKind::Other`] for a generic kernel.
    pub fn from_kernel(name: &str) -> CollKind {
        let base = name.split('(').next().unwrap_or(name);
        let after = ["ncclDevKernel_", "ncclKernel_", "rcclKernel_"]
            .iter()
            .find_map(|p| base.find(p).map(|i| &base[i + p.len()..]));
        after
            .and_then(|a| Self::from_collective_name(a.split('_').next().unwrap_or("")))
            .unwrap_or(CollKind::Other)
    }

    /// True for an NVLS (NVLink SHARP) kernel, `…_NVLS` or `…_NVLS_TREE`
    /// in NCCL's name (`ncclDevKernel_AllReduce_Sum_bf16_NVLS`): the
    /// NVSwitch does the reduction, so each GPU sends its buffer once and
    /// busbw (`nccl-tests`' 2(n−1)/n of algbw) can exceed the link.
    pub fn is_nvls_kernel(name: &str) -> bool {
        let base = name.split('(').next().unwrap_or(name);
        base.split('_').any(|part| part == "NVLS")
    }

    /// `nccl-tests`' bus bandwidth factor for a group of `n` ranks:
    /// all-reduce 2(n−1)/n; all-gather, reduce-scatter, all-to-all, gather
    /// and scatter (n−1)/n (`nccl-tests` src/gather.cu, src/scatter.cu:
    /// `GatherGetBw`, `ScatterGetBw`); broadcast, reduce and send/recv 1.
    /// `None` for [`CollKind::Other`] or an unknown group.
    pub fn busbw_factor(self, n: u32) -> Option<f64> {
        let n = f64::from(n);
        if n < 1.0 {
            return None;
        }
        match self {
            CollKind::AllReduce => Some(2.0 * (n - 1.0) / n),
            CollKind::AllGather
            | CollKind::ReduceScatter
            | CollKind::AllToAll
            | CollKind::Gather
            | CollKind::Scatter => Some((n - 1.0) / n),
            CollKind::Broadcast | CollKind::Reduce | CollKind::SendRecv => Some(1.0),
            CollKind::Other => None,
        }
    }

    /// Which element count gives the size in `nccl-tests`' convention:
    /// all-gather the output (all ranks' parts), reduce-scatter the input,
    /// gather the root's output and scatter the root's input (all ranks'
    /// parts: `count × nranks` in `GatherGetBw`; a non-root rank records 0
    /// there, and its size is [`CollKind::group_size_count`]'s), every
    /// other kind the message (in and out are equal).
    pub fn size_count(
        self,
        in_nelems: Option<u64>,
        out_nelems: Option<u64>,
    ) -> Option<(u64, &'static str)> {
        match self {
            CollKind::AllGather => out_nelems.map(|n| (n, "out_msg_nelems")),
            CollKind::ReduceScatter => in_nelems.map(|n| (n, "in_msg_nelems")),
            CollKind::Gather => out_nelems.filter(|n| *n > 0).map(|n| (n, "out_msg_nelems")),
            CollKind::Scatter => in_nelems.filter(|n| *n > 0).map(|n| (n, "in_msg_nelems")),
            CollKind::Other => None,
            _ => in_nelems
                .map(|n| (n, "in_msg_nelems"))
                .or(out_nelems.map(|n| (n, "out_msg_nelems"))),
        }
    }

    /// Gather and scatter on a rank whose own part is all it records (a
    /// non-root rank: `In msg nelems` of a gather, `Out msg nelems` of a
    /// scatter): the whole, one part × the `n` ranks, as `nccl-tests`
    /// counts it; with the derivation's words. `None` for other kinds.
    pub fn group_size_count(
        self,
        in_nelems: Option<u64>,
        out_nelems: Option<u64>,
        n: Option<u32>,
    ) -> Option<(u64, String)> {
        let (part, field) = match self {
            CollKind::Gather => (in_nelems?, "in_msg_nelems"),
            CollKind::Scatter => (out_nelems?, "out_msg_nelems"),
            _ => return None,
        };
        let n = n?;
        let whole = part.checked_mul(u64::from(n))?;
        Some((whole, format!("{field} {part} × {n} ranks = {whole}")))
    }

    /// Its name in reports (`all_reduce`).
    pub fn key(self) -> &'static str {
        match self {
            CollKind::AllReduce => "all_reduce",
            CollKind::AllGather => "all_gather",
            CollKind::ReduceScatter => "reduce_scatter",
            CollKind::AllToAll => "all_to_all",
            CollKind::Broadcast => "broadcast",
            CollKind::Reduce => "reduce",
            CollKind::SendRecv => "send_recv",
            CollKind::Other => "other",
            CollKind::Gather => "gather",
            CollKind::Scatter => "scatter",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_come_from_pytorch_names_and_kernel_names() {
        assert_eq!(
            CollKind::from_collective_name("allreduce"),
            Some(CollKind::AllReduce)
        );
        assert_eq!(
            CollKind::from_collective_name("_all_gather_base"),
            Some(CollKind::AllGather)
        );
        assert_eq!(
            CollKind::from_collective_name("reduce_scatter_tensor"),
            Some(CollKind::ReduceScatter)
        );
        assert_eq!(
            CollKind::from_collective_name("reduce"),
            Some(CollKind::Reduce)
        );
        assert_eq!(CollKind::from_collective_name("barrier"), None);
        assert_eq!(
            CollKind::from_kernel(
                "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)"
            ),
            CollKind::AllReduce
        );
        assert_eq!(
            CollKind::from_kernel("ncclDevKernel_SendRecv(ncclDevComm*)"),
            CollKind::SendRecv
        );
        assert_eq!(
            CollKind::from_kernel("ncclDevKernel_Generic"),
            CollKind::Other
        );
        // nccl-tests: all-reduce on 8 ranks moves 2·7/8 of the buffer per link.
        assert_eq!(CollKind::AllReduce.busbw_factor(8), Some(1.75));
        assert_eq!(CollKind::AllGather.busbw_factor(4), Some(0.75));
        assert_eq!(CollKind::Broadcast.busbw_factor(4), Some(1.0));
    }
}
