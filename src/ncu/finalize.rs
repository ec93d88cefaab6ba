//! The last phase of parsing: the raw per-metric values of one launch
//! become its [`LaunchMetrics`], with one source chosen per quantity
//! (duration, DRAM bytes, FLOPs per path) so nothing is counted twice.

use super::metrics::{Dst, Scalar, TensorKey, N_SCALARS};
use super::model::{LaunchMetrics, PathFlop};
use crate::roofs::ComputePath;
use std::collections::BTreeSet;
use std::sync::Arc;

/// A launch while its rows are being read.
pub(super) struct RawLaunch {
    pub(super) pid: u64,
    pub(super) id: u64,
    pub(super) name: Arc<str>,
    pub(super) line: u64,
    /// NaN = not collected.
    pub(super) scalars: [f64; N_SCALARS],
    pub(super) tensor: Vec<(TensorKey, f64)>,
    pub(super) tensor_inst: f64,
    pub(super) nan_metrics: u32,
}

fn get(r: &RawLaunch, s: Scalar) -> Option<f64> {
    let v = r.scalars[s as usize];
    (!v.is_nan()).then_some(v)
}

/// Turns the raw per-metric values of one launch into its model, choosing
/// one source per quantity so nothing is counted twice.
pub(super) fn finalize(r: RawLaunch) -> LaunchMetrics {
    use Scalar::*;
    let ratio = |c, f| match (get(&r, c), get(&r, f)) {
        (Some(c), Some(f)) if f > 0.0 => Some(c / f * 1e9),
        _ => None,
    };
    let (duration_ns, duration_source) = if let Some(d) = get(&r, GpuTimeDuration) {
        (Some(d), Some("gpu__time_duration.sum"))
    } else if let Some(d) = ratio(SmCycles, SmCyclesPerSecond) {
        (
            Some(d),
            Some("sm__cycles_elapsed.avg / sm__cycles_elapsed.avg.per_second"),
        )
    } else if let Some(d) = ratio(SmspCycles, SmspCyclesPerSecond) {
        (
            Some(d),
            Some("smsp__cycles_elapsed.avg / smsp__cycles_elapsed.avg.per_second"),
        )
    } else if let Some(d) = get(&r, DurationLabel) {
        (Some(d), Some("Duration (Speed Of Light section)"))
    } else {
        (None, None)
    };

    let pair = |a, b| match (get(&r, a), get(&r, b)) {
        (None, None) => None,
        (x, y) => Some((
            x.unwrap_or(0.0) + y.unwrap_or(0.0),
            x.is_none() || y.is_none(),
        )),
    };
    let (dram_bytes, dram_source, dram_partial) = if let Some(b) = get(&r, DramBytes) {
        (Some(b), Some("dram__bytes.sum"), false)
    } else if let Some((b, p)) = pair(DramBytesRead, DramBytesWrite) {
        (
            Some(b),
            Some("dram__bytes_read.sum + dram__bytes_write.sum"),
            p,
        )
    } else if let Some((b, p)) = pair(DramBytesOpRead, DramBytesOpWrite) {
        (
            Some(b),
            Some("dram__bytes_op_read.sum + dram__bytes_op_write.sum"),
            p,
        )
    } else if let Some(s) = get(&r, DramSectors) {
        (Some(s * 32.0), Some("dram__sectors.sum x 32"), false)
    } else if let Some((s, p)) = pair(DramSectorsRead, DramSectorsWrite) {
        (
            Some(s * 32.0),
            Some("(dram__sectors_read.sum + dram__sectors_write.sum) x 32"),
            p,
        )
    } else {
        (None, None, false)
    };
    let l2_bytes = get(&r, L2Bytes).or_else(|| get(&r, L2Sectors).map(|s| s * 32.0));
    let l1_bytes = get(&r, L1Bytes).or_else(|| get(&r, L1Sectors).map(|s| s * 32.0));

    let mut flop = PathFlop::default();
    // CUDA cores: an add or a mul is 1 FLOP, an FMA 2, per thread
    // instruction. For half precision this is ncu's own convention: a packed
    // HFMA2 counts as one instruction (see docs/ncu.md).
    for (path, add, mul, fma) in [
        (ComputePath::Fp64, Dadd, Dmul, Dfma),
        (ComputePath::Fp32, Fadd, Fmul, Ffma),
        (ComputePath::Fp16, Hadd, Hmul, Hfma),
    ] {
        let (a, m, f) = (get(&r, add), get(&r, mul), get(&r, fma));
        if a.is_some() || m.is_some() || f.is_some() {
            flop.set(
                path,
                a.unwrap_or(0.0) + m.unwrap_or(0.0) + 2.0 * f.unwrap_or(0.0),
            );
        }
    }
    // Tensor cores: per dtype from the ops counters. A dst-less counter is
    // the total over output dtypes; a plain counter is the total over the
    // sparsity split. Take the most aggregate one present, never both.
    let mut tensor = r.tensor;
    tensor.sort_by_key(|e| e.0);
    for path in ComputePath::ALL.into_iter().filter(|p| p.is_tensor()) {
        let of_path: Vec<&(TensorKey, f64)> =
            tensor.iter().filter(|(k, _)| k.path == path).collect();
        if of_path.is_empty() {
            continue;
        }
        let dsts: BTreeSet<Dst> = if of_path.iter().any(|(k, _)| k.dst == Dst::None) {
            [Dst::None].into()
        } else {
            of_path.iter().map(|(k, _)| k.dst).collect()
        };
        let mut total = 0.0;
        for dst in dsts {
            let of_dst: Vec<&&(TensorKey, f64)> =
                of_path.iter().filter(|(k, _)| k.dst == dst).collect();
            total += match of_dst.iter().find(|(k, _)| k.sparsity.is_none()) {
                Some((_, v)) => *v,
                None => of_dst.iter().fold(0.0, |a, (_, v)| a + v),
            };
        }
        flop.add(path, total);
    }

    LaunchMetrics {
        process_id: r.pid,
        id: r.id,
        name: r.name,
        line: r.line,
        duration_ns,
        duration_source,
        dram_bytes,
        dram_source,
        dram_partial,
        l2_bytes,
        l1_bytes,
        flop,
        tensor_inst: (!r.tensor_inst.is_nan()).then_some(r.tensor_inst),
        nan_metrics: r.nan_metrics,
    }
}
