//! A synthetic data-parallel job: one Kineto trace per rank, each running
//! `collectives` steps of (compute kernel, then an all-reduce of
//! `nelems` float32 over every rank), with its own clock offset and one
//! rank late by a known amount at one collective. On the reference clock
//! every rank's all-reduce ends together, when the last rank has arrived
//! and the transfer is done: what `rooftrace comm` must recover.

use super::kineto::{Launch, TraceBuilder};
use serde_json::{Map, Value};

/// The job.
#[derive(Debug, Clone)]
pub struct JobSpec {
    /// Ranks (one trace each, one GPU each).
    pub ranks: u32,
    /// All-reduces per rank.
    pub collectives: u32,
    /// Elements of each all-reduce (float32).
    pub nelems: u64,
    /// Compute before each all-reduce, ns.
    pub compute_ns: i64,
    /// The all-reduce once every rank is there, ns.
    pub transfer_ns: i64,
    /// From one step's start to the next's, ns.
    pub period_ns: i64,
    /// Per rank: what its clock is behind the reference clock, ns (rank r
    /// writes reference time t as t − offset).
    pub clock_offsets_ns: Vec<i64>,
    /// (rank, collective, ns): that rank's compute before that collective
    /// runs this much longer.
    pub late: (u32, u32, i64),
}

/// One trace per rank, rank order.
pub fn synthetic_job(spec: &JobSpec) -> Vec<Value> {
    (0..spec.ranks).map(|r| rank_trace(spec, r)).collect()
}

/// The trace of rank `r` of the job.
pub fn rank_trace(spec: &JobSpec, r: u32) -> Value {
    let ranks_text = format!(
        "[{}]",
        (0..spec.ranks)
            .map(|r| r.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    );
    let off = spec.clock_offsets_ns.get(r as usize).copied().unwrap_or(0);
    let mut t = TraceBuilder::new(1000 + i64::from(r))
        .distributed(r, spec.ranks)
        .device(0, "NVIDIA H100 80GB HBM3", (9, 0), 132);
    for c in 0..spec.collectives {
        // Ten seconds in: every rank's clock stays positive.
        let base = 10_000_000_000 + i64::from(c) * spec.period_ns;
        let late = |q: u32| {
            if (q, c) == (spec.late.0, spec.late.1) {
                spec.late.2
            } else {
                0
            }
        };
        let arrive = base + spec.compute_ns + late(r);
        let last = base + spec.compute_ns + (0..spec.ranks).map(late).max().unwrap_or(0);
        let end = last + spec.transfer_ns;
        t.launch(Launch {
            kernel: "sm90_xmma_gemm_bf16bf16_bf16f32",
            host_ns: base - 100_000 - off,
            gpu_start_ns: base - off,
            gpu_dur_ns: arrive - base,
            device: 0,
            stream: 7,
            args: Map::new(),
        });
        let mut args = Map::new();
        args.insert("Collective name".into(), "allreduce".into());
        args.insert("In msg nelems".into(), spec.nelems.into());
        args.insert("Out msg nelems".into(), spec.nelems.into());
        args.insert("dtype".into(), "Float".into());
        args.insert("Group size".into(), spec.ranks.into());
        args.insert("Process Group Ranks".into(), ranks_text.clone().into());
        args.insert("Process Group Name".into(), "0".into());
        args.insert("Seq".into(), c.into());
        t.launch(Launch {
            kernel:
                "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)",
            host_ns: base - 50_000 - off,
            gpu_start_ns: arrive - off,
            gpu_dur_ns: end - arrive,
            device: 0,
            stream: 20,
            args,
        });
    }
    t.to_value()
}
