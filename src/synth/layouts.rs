//! Synthetic multi-rank PyTorch traces in the layouts real jobs have: one
//! Kineto trace per rank, each collective written as PyTorch writes it
//! (a `record_param_comms` `cpu_op` with `Seq`, `Process Group Name`,
//! `Process Group Ranks`, `Group size`, `In/Out msg nelems`, `dtype` and
//! `Rank`, holding an `nccl:*` op holding the launch call; the
//! `ncclDevKernel_*` or `ncclKernel_*` kernel joined to it by correlation
//! and `External id`, carrying the arguments without `Seq` as newer PyTorch
//! does), `distributedInfo` at the top.
//!
//! The job runs [`Layout::steps`] in order; a step is one collective (or
//! one send/recv pair) on every instance of a family of process groups
//! (TP {0,1} and {2,3} at once). On the reference clock, step `s` starts
//! at `T0 + s × period`; each member computes `compute_ns` (plus its
//! planted lateness) and enters NCCL; the collective ends on every member
//! `transfer_ns` after its last member arrived. So, by construction, a
//! member's wait is `last arrival − its arrival`, and the last rank is the
//! one planted late. PyTorch's counters are kept: one per (group,
//! collective or point-to-point), counted from the process start, so a
//! window that opens later still numbers from where the job was.

use super::kineto::{Launch, TraceBuilder};
use serde_json::{Map, Value};

/// First step's start on the reference clock, ns (ten seconds in, so every
/// rank's clock stays positive).
pub const T0_NS: i64 = 10_000_000_000;

/// What a step runs on each instance of its family.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepKind {
    /// An all-reduce of float32.
    AllReduce,
    /// An all-gather of float32 (`nelems` is the output).
    AllGather,
    /// Member 0 of each instance sends to member 1 (point-to-point: its own
    /// `Seq` counter, as PyTorch keeps).
    SendRecv,
}

/// One step of the job.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Step {
    /// Index into [`Layout::families`].
    pub family: usize,
    /// What runs.
    pub kind: StepKind,
    /// Elements (float32).
    pub nelems: u64,
}

/// Process groups of one kind (all of TP, all of DP): each instance its
/// global ranks; instance `i` is named `<first name + i>` as
/// `torch.distributed.new_group` numbers groups.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Family {
    /// Its instances, each the global ranks of one group.
    pub instances: Vec<Vec<u32>>,
    /// `Process Group Name` of instance 0 (instance `i` is this + i).
    pub first_name: u32,
    /// `Process Group Description` (`default_pg`, `tp`, `dp`).
    pub description: &'static str,
}

/// Where `Seq` is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SeqSite {
    /// On `record_param_comms` only (as PyTorch writes it; the kernel's
    /// arguments lack it).
    HostOnly,
    /// On `record_param_comms` and on the kernel.
    HostAndKernel,
    /// Nowhere (an older PyTorch).
    Nowhere,
}

/// The job and the faults planted in it.
#[derive(Debug, Clone)]
pub struct Layout {
    /// Ranks (one trace each, one GPU each).
    pub ranks: u32,
    /// The process-group families.
    pub families: Vec<Family>,
    /// The steps, in order.
    pub steps: Vec<Step>,
    /// Compute before each step, ns.
    pub compute_ns: i64,
    /// Collective time once every member is there, ns.
    pub transfer_ns: i64,
    /// From one step's start to the next, ns.
    pub period_ns: i64,
    /// Per rank: what its clock is behind the reference, ns (rank r writes
    /// reference time t as t − offset); missing ranks: 0.
    pub clock_offsets_ns: Vec<i64>,
    /// Clock noise, ns: at step s rank r's clock is off by a further +j
    /// when r + s is even, −j otherwise (the profilers' jitter and drift
    /// that no single offset removes).
    pub jitter_ns: i64,
    /// (rank, step, ns): that rank's compute before that step runs this
    /// much longer.
    pub late: Vec<(u32, usize, i64)>,
    /// (rank, first step): that rank's profiler window opens at that step
    /// (its earlier steps are absent from its trace).
    pub window_from: Vec<(u32, usize)>,
    /// (rank, step): that rank's NCCL kernel event of that step is absent
    /// (its host ops and launch call are there).
    pub dropped_kernel: Vec<(u32, usize)>,
    /// (rank, step): that rank's size arguments (`In/Out msg nelems`) of
    /// that step are absent.
    pub no_sizes: Vec<(u32, usize)>,
    /// A rank whose trace records no rank (no `distributedInfo`, no
    /// `Rank` argument).
    pub unrecorded_rank: Option<u32>,
    /// Where `Seq` is written.
    pub seq: SeqSite,
    /// The kernels carry the collective arguments (newer PyTorch).
    pub args_on_kernel: bool,
    /// NCCL < 2.19 kernel names (`ncclKernel_AllReduce_RING_LL_Sum_float`)
    /// instead of `ncclDevKernel_*`.
    pub old_kernel_names: bool,
    /// `deviceProperties` name of every rank's GPU.
    pub gpu: &'static str,
}

impl Layout {
    /// A data-parallel job on `ranks` ranks: `steps` all-reduces of
    /// `nelems` over the world group (name `0`), no fault planted, `Seq`
    /// on `record_param_comms` only, arguments on the kernels.
    pub fn world(ranks: u32, steps: usize, nelems: u64) -> Layout {
        Layout {
            ranks,
            families: vec![Family {
                instances: vec![(0..ranks).collect()],
                first_name: 0,
                description: "default_pg",
            }],
            steps: (0..steps)
                .map(|_| Step {
                    family: 0,
                    kind: StepKind::AllReduce,
                    nelems,
                })
                .collect(),
            compute_ns: 3_000_000,
            transfer_ns: 400_000,
            period_ns: 20_000_000,
            clock_offsets_ns: Vec::new(),
            jitter_ns: 0,
            late: Vec::new(),
            window_from: Vec::new(),
            dropped_kernel: Vec::new(),
            no_sizes: Vec::new(),
            unrecorded_rank: None,
            seq: SeqSite::HostOnly,
            args_on_kernel: true,
            old_kernel_names: false,
            gpu: "NVIDIA H100 80GB HBM3",
        }
    }

    /// The instance of `family` holding `rank` (its index and ranks).
    fn instance_of(&self, family: usize, rank: u32) -> Option<(usize, &[u32])> {
        self.families[family]
            .instances
            .iter()
            .enumerate()
            .find(|(_, g)| g.contains(&rank))
            .map(|(i, g)| (i, g.as_slice()))
    }

    fn late_by(&self, rank: u32, step: usize) -> i64 {
        self.late
            .iter()
            .filter(|l| (l.0, l.1) == (rank, step))
            .map(|l| l.2)
            .sum()
    }

    /// Where `rank`'s clock reads reference time 0 at step `s`, ns
    /// (subtracted from every time it writes).
    fn clock(&self, rank: u32, s: usize) -> i64 {
        let off = self
            .clock_offsets_ns
            .get(rank as usize)
            .copied()
            .unwrap_or(0);
        let jitter = if (rank as usize + s) % 2 == 0 {
            self.jitter_ns
        } else {
            -self.jitter_ns
        };
        off - jitter
    }

    /// On the reference clock: (`rank`'s arrival, the collective's end) at
    /// step `s`.
    pub fn times(&self, rank: u32, s: usize) -> Option<(i64, i64)> {
        let (_, members) = self.instance_of(self.steps[s].family, rank)?;
        let base = T0_NS + s as i64 * self.period_ns;
        let arrive = |r: u32| base + self.compute_ns + self.late_by(r, s);
        let last = members.iter().map(|&r| arrive(r)).max()?;
        Some((arrive(rank), last + self.transfer_ns))
    }
}

/// One trace per rank, rank order.
pub fn traces(layout: &Layout) -> Vec<Value> {
    (0..layout.ranks).map(|r| rank_trace(layout, r)).collect()
}

/// A kernel name NCCL gives the step's kind.
fn kernel_name(kind: StepKind, old: bool) -> &'static str {
    match (kind, old) {
        (StepKind::AllReduce, false) => {
            "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)"
        }
        (StepKind::AllReduce, true) => {
            "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)"
        }
        (StepKind::AllGather, false) => {
            "ncclDevKernel_AllGather_RING_LL(ncclDevComm*, unsigned long, ncclWork*)"
        }
        (StepKind::AllGather, true) => {
            "ncclKernel_AllGather_RING_LL_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)"
        }
        (StepKind::SendRecv, false) => {
            "ncclDevKernel_SendRecv(ncclDevComm*, unsigned long, ncclWork*)"
        }
        (StepKind::SendRecv, true) => {
            "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)"
        }
    }
}

/// PyTorch's `Collective name` and `nccl:*` op of a step on `rank` (a
/// send/recv step sends on member 0 and receives on member 1).
fn op_names(kind: StepKind, sender: bool) -> (&'static str, &'static str) {
    match (kind, sender) {
        (StepKind::AllReduce, _) => ("allreduce", "nccl:all_reduce"),
        (StepKind::AllGather, _) => ("all_gather_into_tensor", "nccl:_all_gather_base"),
        (StepKind::SendRecv, true) => ("send", "nccl:send 0->1"),
        (StepKind::SendRecv, false) => ("recv", "nccl:recv 0<-1"),
    }
}

/// The `record_param_comms` arguments of step `s` on `rank` (the
/// collective's `seq` given).
fn comm_args(layout: &Layout, rank: u32, s: usize, seq: u64) -> Option<Map<String, Value>> {
    let step = layout.steps[s];
    let family = &layout.families[step.family];
    let (instance, members) = layout.instance_of(step.family, rank)?;
    let sender = members.first() == Some(&rank);
    let (name, _) = op_names(step.kind, sender);
    let (in_n, out_n) = match step.kind {
        StepKind::AllGather => (step.nelems / members.len() as u64, step.nelems),
        _ => (step.nelems, step.nelems),
    };
    let ranks_text = format!(
        "[{}]",
        members
            .iter()
            .map(u32::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    );
    let mut a = Map::new();
    a.insert("Collective name".into(), name.into());
    if !layout.no_sizes.contains(&(rank, s)) {
        a.insert("In msg nelems".into(), in_n.into());
        a.insert("Out msg nelems".into(), out_n.into());
    }
    a.insert("dtype".into(), "Float".into());
    a.insert("Group size".into(), (members.len() as u64).into());
    a.insert("Process Group Ranks".into(), ranks_text.into());
    a.insert(
        "Process Group Name".into(),
        (family.first_name + instance as u32).to_string().into(),
    );
    a.insert(
        "Process Group Description".into(),
        family.description.into(),
    );
    if layout.unrecorded_rank != Some(rank) {
        a.insert("Rank".into(), rank.into());
    }
    if layout.seq != SeqSite::Nowhere {
        a.insert("Seq".into(), seq.into());
    }
    Some(a)
}

/// The trace of `rank`.
pub fn rank_trace(layout: &Layout, rank: u32) -> Value {
    let mut t = TraceBuilder::new(1000 + i64::from(rank));
    if layout.unrecorded_rank != Some(rank) {
        t = t.distributed(rank, layout.ranks);
    }
    t = t.device(0, layout.gpu, (9, 0), 132);
    let first = layout
        .window_from
        .iter()
        .filter(|w| w.0 == rank)
        .map(|w| w.1)
        .max()
        .unwrap_or(0);
    // PyTorch's counters: per (group name, point-to-point or not), from
    // the process start.
    let mut counters: std::collections::HashMap<(usize, usize, bool), u64> = Default::default();
    for s in 0..layout.steps.len() {
        let step = layout.steps[s];
        let Some((instance, _)) = layout.instance_of(step.family, rank) else {
            continue;
        };
        let counter = counters
            .entry((step.family, instance, step.kind == StepKind::SendRecv))
            .or_insert(0);
        *counter += 1;
        let seq = *counter;
        if s < first {
            continue;
        }
        step_events(&mut t, layout, rank, s, seq);
    }
    t.to_value()
}

/// The compute kernel and the collective of step `s` on `rank`, on its
/// clock.
fn step_events(t: &mut TraceBuilder, layout: &Layout, rank: u32, s: usize, seq: u64) {
    let Some((arrive, end)) = layout.times(rank, s) else {
        return;
    };
    let Some(args) = comm_args(layout, rank, s, seq) else {
        return;
    };
    let clock = layout.clock(rank, s);
    let base = T0_NS + s as i64 * layout.period_ns;
    t.launch(Launch {
        kernel: "sm90_xmma_gemm_bf16bf16_bf16f32",
        host_ns: base - 200_000 - clock,
        gpu_start_ns: base - clock,
        gpu_dur_ns: arrive - base,
        device: 0,
        stream: 7,
        args: Map::new(),
    });
    let step = layout.steps[s];
    let sender = layout
        .instance_of(step.family, rank)
        .is_some_and(|(_, m)| m.first() == Some(&rank));
    let (_, nccl_op) = op_names(step.kind, sender);
    // record_param_comms holds nccl:* which holds the launch call, as
    // ProcessGroupNCCL records them.
    let h0 = base - 100_000 - clock;
    let external = 1_000_000 + s as i64;
    let mut host = args.clone();
    host.insert("External id".into(), external.into());
    t.host_event("cpu_op", "record_param_comms", (h0, h0 + 60_000), host);
    let mut outer = Map::new();
    outer.insert("External id".into(), (external + 500_000).into());
    t.host_event("user_annotation", nccl_op, (h0 + 5_000, h0 + 55_000), outer);
    let mut on_kernel = Map::new();
    if layout.args_on_kernel {
        on_kernel = args;
        on_kernel.remove("Rank");
        if layout.seq != SeqSite::HostAndKernel {
            on_kernel.remove("Seq");
        }
    }
    let launch = Launch {
        kernel: kernel_name(step.kind, layout.old_kernel_names),
        host_ns: h0 + 10_000,
        gpu_start_ns: arrive - clock,
        gpu_dur_ns: end - arrive,
        device: 0,
        stream: 20,
        args: on_kernel,
    };
    if layout.dropped_kernel.contains(&(rank, s)) {
        t.launch_call_only(&launch);
    } else {
        t.launch_under(launch, external);
    }
}
