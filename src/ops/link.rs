//! A collective's call on its link: its kind (the recorded name, else its
//! NCCL kernel's name), its size in `nccl-tests`' convention and its bus
//! bytes (size × bus bandwidth factor), both by `comm::CollKind`, and the
//! link the group crossed as `comm`'s `LinkConfig` chooses it (the GPU's
//! NVLink, else its PCIe link; a group that may span nodes has no link
//! here, as `ops` takes no `--net-bw`). Unknown stays unknown.

use super::context::CallTime;
use super::model::{BoundSide, Unmodelled};
use crate::comm::{gpus_per_node, CollKind, LinkConfig, NodeEvidence};
use crate::opmodel::{Collective, Dtype, NoModel, Work};
use crate::roofs::{gpus, GpuInfo};
use crate::timeline::Timeline;

/// The collectives of one analysis: per record, its figures on its link
/// (`None` for every other call), and the links of the trace.
pub struct Links {
    /// Per op record, its collective's figures.
    pub calls: Vec<Option<LinkCall>>,
    /// The links a collective of this trace can cross.
    pub config: LinkConfig,
}

/// Each collective call's figures on its link (`None` for other calls);
/// a collective whose kind or size is not told becomes unmodelled.
pub fn collectives(
    works: &mut [Result<Work, Unmodelled>],
    times: &[CallTime],
) -> Vec<Option<LinkCall>> {
    let mut link_calls = vec![None; works.len()];
    for ((work, t), slot) in works.iter_mut().zip(times).zip(&mut link_calls) {
        let Ok(w) = work else { continue };
        let Some(c) = w.collective.as_deref() else {
            continue;
        };
        match resolve(c, w.dtype, t.kernel_kind) {
            Ok(call) => {
                w.bytes = call.size_bytes;
                *slot = Some(call);
            }
            Err(why) => *work = Err(Unmodelled::Op(why)),
        }
    }
    link_calls
}

/// The bound of `bus_bytes` over `link`, ns, on the link side; `None` when
/// either is unknown.
pub fn link_bound(
    bus_bytes: Option<f64>,
    link: &Result<(String, f64), String>,
) -> Option<(f64, BoundSide)> {
    bus_bytes
        .zip(link.as_ref().ok())
        .filter(|(_, (_, bw))| *bw > 0.0)
        .map(|(bytes, (_, bw))| (bytes / bw * 1e9, BoundSide::Link))
}

/// One collective call's figures.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LinkCall {
    /// Its kind.
    pub kind: CollKind,
    /// Who told the kind: `op` or `kernel`.
    pub told_by: &'static str,
    /// Its size in `nccl-tests`' convention, bytes.
    pub size_bytes: u64,
    /// Its bus bytes (size × bus bandwidth factor); `None` when the group
    /// is unknown and the factor depends on it.
    pub bus_bytes: Option<f64>,
}

/// The links a collective of this trace can cross: the GPU's (its table
/// key), with the GPUs per node the trace itself shows (`comm`'s rule on
/// one trace: the devices it lists and the device its collectives ran on).
pub fn link_config(timeline: &Timeline, gpu: &GpuInfo, comm_devices: Vec<u16>) -> LinkConfig {
    let spec = gpu.key.as_deref().and_then(gpus::by_key);
    let identity = &timeline.info.identity;
    let node = NodeEvidence {
        rank: identity.rank.map(|(r, _)| r),
        host: identity.host.clone(),
        devices_listed: identity.gpus.len(),
        comm_devices,
    };
    let per_node = gpus_per_node(&[node]).ok().map(|(n, _)| n);
    LinkConfig::new(spec, None, per_node)
}

/// The bus bandwidth factor of `kind` for `group` ranks; with the group
/// unknown, the factor when it is the same for every group (broadcast,
/// send/receive: `comm` says 1 for any size), else `None`.
fn bus_factor(kind: CollKind, group: Option<u32>) -> Option<f64> {
    match group {
        Some(n) => kind.busbw_factor(n),
        None => {
            let (small, large) = (kind.busbw_factor(2)?, kind.busbw_factor(1 << 20)?);
            (small == large).then_some(small)
        }
    }
}

/// The call's figures: its kind from its recorded name, else from
/// `kernel_kind` (its NCCL kernel's name); [`NoModel::BadShape`] when
/// neither tells it or the size its kind needs is not recorded.
pub fn resolve(
    c: &Collective,
    dtype: Dtype,
    kernel_kind: Option<CollKind>,
) -> Result<LinkCall, NoModel> {
    let by_op = c.name.as_deref().and_then(CollKind::from_collective_name);
    let (kind, told_by) = match (by_op, kernel_kind) {
        (Some(k), _) => (k, "op"),
        (None, Some(k)) => (k, "kernel"),
        (None, None) => {
            return Err(NoModel::BadShape(
                "the collective's kind is recorded neither by its op nor by its kernel's name",
            ))
        }
    };
    let (elems, _) = kind
        .size_count(c.in_elems, c.out_elems)
        .ok_or(NoModel::BadShape(
            "the element count the collective's kind needs is not recorded",
        ))?;
    let size_bytes = elems.checked_mul(dtype.bytes()).ok_or(NoModel::Overflow)?;
    Ok(LinkCall {
        kind,
        told_by,
        size_bytes,
        bus_bytes: bus_factor(kind, c.group_size).map(|f| size_bytes as f64 * f),
    })
}

/// The link of a group (its ranks, its size) as `(interface, byte/s)`, or
/// why it is unknown.
pub fn link_of(
    config: &LinkConfig,
    ranks: Option<&[u32]>,
    group_size: Option<u32>,
) -> Result<(String, f64), String> {
    config
        .link_for(ranks, group_size)
        .map(|l| (l.interface.clone(), l.bytes_per_s))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(
        name: Option<&str>,
        in_elems: u64,
        out_elems: Option<u64>,
        group: Option<u32>,
    ) -> Collective {
        Collective {
            name: name.map(str::to_string),
            in_elems: Some(in_elems),
            out_elems,
            group_size: group,
            ranks: None,
        }
    }

    #[test]
    fn an_all_reduce_moves_its_buffer_times_2_n_minus_1_over_n() {
        // nccl-tests: all-reduce of 2,049,000 FP32 on 2 ranks: size
        // 8,196,000 B, bus bytes × 2·(2−1)/2 = × 1.
        let c = message(Some("allreduce"), 2_049_000, Some(2_049_000), Some(2));
        let call = resolve(&c, Dtype::F32, None).unwrap();
        assert_eq!(call.kind, CollKind::AllReduce);
        assert_eq!(call.size_bytes, 8_196_000);
        assert_eq!(call.bus_bytes, Some(8_196_000.0));
        // On 8 ranks: × 2·7/8 = 1.75.
        let c = message(Some("allreduce"), 1000, None, Some(8));
        assert_eq!(
            resolve(&c, Dtype::F32, None).unwrap().bus_bytes,
            Some(7000.0)
        );
        // Group unknown: all-reduce's factor depends on it: unknown.
        let c = message(Some("allreduce"), 1000, None, None);
        assert_eq!(resolve(&c, Dtype::F32, None).unwrap().bus_bytes, None);
    }

    #[test]
    fn the_kernel_tells_the_kind_when_the_op_does_not() {
        // The sampled trace's record_param_comms: [419430400] uint8, no
        // name, under an ncclKernel_SendRecv: send/receive's factor is 1
        // whatever the group.
        let c = message(None, 419_430_400, None, None);
        let call = resolve(&c, Dtype::U8, Some(CollKind::SendRecv)).unwrap();
        assert_eq!((call.kind, call.told_by), (CollKind::SendRecv, "kernel"));
        assert_eq!(call.bus_bytes, Some(419_430_400.0));
        assert!(resolve(&c, Dtype::U8, None).is_err());
    }
}
