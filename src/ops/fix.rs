//! "Fix first": the rows that lose the most time against their bound,
//! each weighed by its time lost as a share of the kernel time and named
//! with what the evidence says would help ([`Remedy`]).

use super::model::{
    BoundSide, FixFirst, OpRow, OpsReport, Remedy, FIX_FIRST, LOW_FRACTION, TINY_KERNEL_NS,
};
use crate::opmodel::{Dtype, Engine};
use crate::roofs::ComputePath;

/// What would help `row`, from the evidence in order: tiny kernels
/// (launches set the pace, whatever the bound); FP32 matrix work bound on
/// CUDA cores where the GPU has TF32 tensor cores; memory-bound far below
/// the DRAM roof; else the kernel itself.
pub fn remedy(report: &OpsReport, row: &OpRow) -> Remedy {
    if row.mean_kernel_ns().is_some_and(|ns| ns < TINY_KERNEL_NS) {
        return Remedy::LaunchOverhead;
    }
    let has_tf32 = report.roofs.compute.contains_key(&ComputePath::TensorTf32);
    if row.engine == Engine::Matrix
        && row.dtype == Dtype::F32
        && row.bound == Some(BoundSide::Compute(ComputePath::Fp32))
        && has_tf32
    {
        return Remedy::TensorCores;
    }
    if row.bound == Some(BoundSide::Memory)
        && row.fraction_of_roof().is_some_and(|f| f < LOW_FRACTION)
    {
        return Remedy::FewerBytes;
    }
    Remedy::Kernel
}

/// The (at most [`FIX_FIRST`]) rows with the most time lost, when it is
/// known and positive; the rows come sorted by time lost.
pub fn fix_first(report: &OpsReport) -> Vec<FixFirst> {
    if report.kernel_time_ns <= 0 {
        return Vec::new();
    }
    report
        .rows
        .iter()
        .enumerate()
        .filter_map(|(i, row)| {
            let lost = row.time_lost_ns().filter(|l| *l > 0)?;
            Some(FixFirst {
                row: i,
                share_of_kernel_time: lost as f64 / report.kernel_time_ns as f64,
                remedy: remedy(report, row),
            })
        })
        .take(FIX_FIRST)
        .collect()
}
