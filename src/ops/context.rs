//! What the phases of one ops analysis share: its inputs ([`Context`])
//! and each op record's kernels once charged ([`Charged`], [`CallTime`]).

use super::model::GroupBy;
use crate::comm::CollKind;
use crate::opmodel::OpCalls;
use crate::roofs::{GpuInfo, Roofs};
use crate::timeline::{NameRef, Timeline};

/// What every phase of one analysis reads.
pub struct Context<'a> {
    /// The timeline.
    pub timeline: &'a Timeline,
    /// The op calls.
    pub calls: &'a OpCalls,
    /// The roofs.
    pub roofs: &'a Roofs,
    /// The GPU decision.
    pub gpu: GpuInfo,
    /// The input, as given.
    pub input: &'a str,
    /// What a row stands for.
    pub group_by: GroupBy,
}

/// One op call's kernels.
#[derive(Debug, Clone, Default)]
pub struct CallTime {
    /// Kernels charged to it.
    pub kernels: u64,
    /// The union of their intervals, ns.
    pub time_ns: i64,
    /// A kernel's name says TF32 (`…tf32…`): FP32 matrix work ran on
    /// tensor cores.
    pub tf32: bool,
    /// Their distinct names, sorted.
    pub names: Vec<NameRef>,
    /// The collective a kernel's name says (`ncclKernel_AllReduce_…`).
    pub kernel_kind: Option<CollKind>,
}

/// Every kernel's charge: per record, and the kernels charged to no op.
pub struct Charged {
    /// Per record, its kernels.
    pub per_record: Vec<CallTime>,
    /// Kernels no op with shapes launched: count and summed time.
    pub no_op: (u64, i64),
    /// Kernels whose launch call is not in the trace.
    pub no_call: (u64, i64),
    /// Kernels a CUDA graph's replay launched: count and summed time.
    pub graph: (u64, i64),
    /// Devices communication kernels ran on, sorted.
    pub comm_devices: Vec<u16>,
}

impl Charged {
    /// Kernels charged to no op.
    pub fn alone_kernels(&self) -> u64 {
        self.no_op.0 + self.no_call.0 + self.graph.0
    }
}
