//! The last phase of parsing: the raw per-metric values of one launch
//! become its [`LaunchMetrics`], with one source chosen per quantity
//! (duration, DRAM bytes, FLOPs per path) so nothing is counted twice.

use super::metrics::{Dst, Scalar, TensorKey, N_SCALARS};
use super::model::{FlopGroup, FlopGroups, LaunchMetrics, PathFlop, Source};
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

/// A figure with the metric(s) it came from and how it was derived.
type Derived = (f64, &'static str, Source);

/// Turns the raw per-metric values of one launch into its model, choosing
/// one source per quantity so nothing is counted twice.
pub(super) fn finalize(mut r: RawLaunch) -> LaunchMetrics {
    let rate_only = duration(&r).is_none() && rates_only(&r);
    let (duration_ns, duration_source) = match duration(&r) {
        Some((d, s)) => (Some(d), Some(s)),
        // A roofline point from rates alone: figures per second of run.
        None if rate_only => (Some(RATE_ONLY_NS), Some(RATE_ONLY_SOURCE)),
        None => (None, None),
    };
    let (dram, dram_partial) = dram(&r, duration_ns);
    let l2 = l2(&r);
    let l1_bytes =
        get(&r, Scalar::L1Bytes).or_else(|| get(&r, Scalar::L1Sectors).map(|s| s * 32.0));
    let tensor_inst = (!r.tensor_inst.is_nan()).then_some(r.tensor_inst);
    let (mut flop, mut flop_derivation, mut flop_unknown) = cuda_core_flop(&r, duration_ns);
    let dram_percent_of_peak = get(&r, Scalar::DramPercentOfPeak);
    let sm_clock = sm_clock(&r);
    let dram_clock_hz = get(&r, Scalar::DramCyclesPerSecond).filter(|&c| c > 0.0);
    if tensor_flop(&mut r.tensor, &mut flop) {
        flop_derivation = flop_derivation.max(Some(Source::Counter));
    } else if tensor_inst != Some(0.0) {
        // No op counter, and no zero instruction count proving there is no
        // tensor work: the tensor FLOPs are unknown.
        flop_unknown.insert(FlopGroup::Tensor);
    }
    LaunchMetrics {
        process_id: r.pid,
        id: r.id,
        name: r.name,
        line: r.line,
        duration_ns,
        duration_source,
        dram_bytes: dram.map(|d| d.0),
        dram_source: dram.map(|d| d.1),
        dram_derivation: dram.map(|d| d.2),
        dram_partial,
        dram_percent_of_peak,
        l2_bytes: l2.map(|d| d.0),
        l2_derivation: l2.map(|d| d.2),
        l1_bytes,
        flop,
        flop_derivation,
        flop_unknown,
        tensor_inst,
        nan_metrics: r.nan_metrics,
        rate_only,
        sm_clock_hz: sm_clock.map(|c| c.0),
        sm_clock_source: sm_clock.map(|c| c.1),
        dram_clock_hz,
    }
}

/// The nominal duration of a rate-only launch: one second, so that bytes
/// and FLOPs derived from its rates are per second of run and every ratio
/// (intensity, FLOP/s, B/s, fraction of roof) is exact; the renderers show
/// its time, bytes, FLOPs and time lost as unknown.
pub const RATE_ONLY_NS: f64 = 1e9;

/// `duration_source` of a rate-only launch.
pub const RATE_ONLY_SOURCE: &str = "none in the file: rates only (figures per second of run)";

/// True when the launch has no duration and no absolute count (bytes,
/// FLOP counters), but rates a roofline point can be made of: an SM clock
/// with per-cycle FLOP rates, or a DRAM byte rate (ncu's roofline-chart
/// section exported alone).
fn rates_only(r: &RawLaunch) -> bool {
    use Scalar::*;
    let absolute = [
        DramBytes,
        DramBytesRead,
        DramBytesWrite,
        DramBytesOpRead,
        DramBytesOpWrite,
        DramSectors,
        DramSectorsRead,
        DramSectorsWrite,
        Dadd,
        Dmul,
        Dfma,
        Fadd,
        Fmul,
        Ffma,
        Hadd,
        Hmul,
        Hfma,
    ]
    .iter()
    .any(|&s| get(r, s).is_some())
        || !r.tensor.is_empty();
    let per_cycle = [
        DaddPerCycle,
        DmulPerCycle,
        DfmaPerCycle,
        FaddPerCycle,
        FmulPerCycle,
        FfmaPerCycle,
        HaddPerCycle,
        HmulPerCycle,
        HfmaPerCycle,
        DfmaOpsPerCycle,
        FfmaOpsPerCycle,
        HfmaOpsPerCycle,
    ]
    .iter()
    .any(|&s| get(r, s).is_some());
    let flop_rate = per_cycle && sm_clock(r).is_some();
    let byte_rate = get(r, DramBytesPerSecond).is_some() || get(r, MemThroughputLabel).is_some();
    !absolute && (flop_rate || byte_rate)
}

/// The SM clock of the launch, Hz, with its metric: `sm__`, `smsp__` (the
/// same clock), else `gpc__cycles_elapsed.max.per_second`.
fn sm_clock(r: &RawLaunch) -> Option<(f64, &'static str)> {
    use Scalar::*;
    [
        (SmCyclesPerSecond, "sm__cycles_elapsed.avg.per_second"),
        (SmspCyclesPerSecond, "smsp__cycles_elapsed.avg.per_second"),
        (GpcCyclesPerSecond, "gpc__cycles_elapsed.max.per_second"),
    ]
    .into_iter()
    .find_map(|(s, name)| get(r, s).filter(|&c| c > 0.0).map(|c| (c, name)))
}

/// The duration, ns: `gpu__time_duration.sum`, else elapsed cycles over the
/// clock, else the Speed Of Light `Duration` row.
fn duration(r: &RawLaunch) -> Option<(f64, &'static str)> {
    use Scalar::*;
    let ratio = |c, f| match (get(r, c), get(r, f)) {
        (Some(c), Some(f)) if f > 0.0 => Some(c / f * 1e9),
        _ => None,
    };
    if let Some(d) = get(r, GpuTimeDuration) {
        Some((d, "gpu__time_duration.sum"))
    } else if let Some(d) = ratio(SmCycles, SmCyclesPerSecond) {
        Some((
            d,
            "sm__cycles_elapsed.avg / sm__cycles_elapsed.avg.per_second",
        ))
    } else if let Some(d) = ratio(SmspCycles, SmspCyclesPerSecond) {
        Some((
            d,
            "smsp__cycles_elapsed.avg / smsp__cycles_elapsed.avg.per_second",
        ))
    } else {
        get(r, DurationLabel).map(|d| (d, "Duration (Speed Of Light section)"))
    }
}

/// DRAM bytes in order of directness: byte counters, sector counters x 32,
/// a byte/s rate x the duration. Also whether only one of read/write was
/// collected.
fn dram(r: &RawLaunch, duration_ns: Option<f64>) -> (Option<Derived>, bool) {
    use Scalar::*;
    let pair = |a, b| match (get(r, a), get(r, b)) {
        (None, None) => None,
        (x, y) => Some((
            x.unwrap_or(0.0) + y.unwrap_or(0.0),
            x.is_none() || y.is_none(),
        )),
    };
    let c = Source::Counter;
    if let Some(b) = get(r, DramBytes) {
        return (Some((b, "dram__bytes.sum", c)), false);
    }
    if let Some((b, p)) = pair(DramBytesRead, DramBytesWrite) {
        return (
            Some((b, "dram__bytes_read.sum + dram__bytes_write.sum", c)),
            p,
        );
    }
    if let Some((b, p)) = pair(DramBytesOpRead, DramBytesOpWrite) {
        return (
            Some((b, "dram__bytes_op_read.sum + dram__bytes_op_write.sum", c)),
            p,
        );
    }
    let s = Source::Sectors;
    if let Some(n) = get(r, DramSectors) {
        return (Some((n * 32.0, "dram__sectors.sum x 32", s)), false);
    }
    if let Some((n, p)) = pair(DramSectorsRead, DramSectorsWrite) {
        let f = "(dram__sectors_read.sum + dram__sectors_write.sum) x 32";
        return (Some((n * 32.0, f, s)), p);
    }
    let Some(t) = duration_ns else {
        return (None, false);
    };
    let rate = Source::RateTimesDuration;
    if let Some(bps) = get(r, DramBytesPerSecond) {
        let f = "dram__bytes.sum.per_second x duration";
        return (Some((bps * t * 1e-9, f, rate)), false);
    }
    if let Some(bps) = get(r, MemThroughputLabel) {
        let f = "Memory Throughput (Memory Workload Analysis, byte/s) x duration";
        return (Some((bps * t * 1e-9, f, rate)), false);
    }
    (None, false)
}

/// L2 bytes: `lts__t_bytes.sum`, else `lts__t_sectors.sum` x 32, else the
/// per-operation sectors (read + write + atom + red) x 32.
fn l2(r: &RawLaunch) -> Option<Derived> {
    use Scalar::*;
    if let Some(b) = get(r, L2Bytes) {
        return Some((b, "lts__t_bytes.sum", Source::Counter));
    }
    if let Some(n) = get(r, L2Sectors) {
        return Some((n * 32.0, "lts__t_sectors.sum x 32", Source::Sectors));
    }
    let ops = [L2SectorsRead, L2SectorsWrite, L2SectorsAtom, L2SectorsRed].map(|s| get(r, s));
    ops.iter().any(Option::is_some).then(|| {
        let n = ops.iter().flatten().fold(0.0, |a, b| a + b);
        (
            n * 32.0,
            "lts__t_sectors_op_{read,write,atom,red}.sum x 32",
            Source::Sectors,
        )
    })
}

/// CUDA-core FLOPs per precision: an add or a mul is 1 FLOP, an FMA 2, per
/// thread instruction (for half precision ncu's convention: a packed HFMA2
/// counts as one instruction, see docs/ncu.md). From the counters, else from
/// ncu's roofline-section rates (`.per_cycle_elapsed`) x the elapsed SM
/// cycles. Returns the FLOPs, the least direct source used, and the
/// precisions with neither form.
fn cuda_core_flop(
    r: &RawLaunch,
    duration_ns: Option<f64>,
) -> (PathFlop, Option<Source>, FlopGroups) {
    use Scalar::*;
    // Elapsed SM cycles: the denominator of `.per_cycle_elapsed` (sm and
    // smsp run on the same clock), else duration x SM clock.
    let counted_cycles = get(r, SmCycles).or_else(|| get(r, SmspCycles));
    let cycles = counted_cycles.or_else(|| {
        Some(
            duration_ns?
                * 1e-9
                * get(r, SmCyclesPerSecond).or_else(|| get(r, SmspCyclesPerSecond))?,
        )
    });
    let mut flop = PathFlop::default();
    let mut source = None;
    let mut unknown = FlopGroups::default();
    for (path, group, ops) in [
        (
            ComputePath::Fp64,
            FlopGroup::Fp64,
            [
                (Dadd, DaddPerCycle),
                (Dmul, DmulPerCycle),
                (Dfma, DfmaPerCycle),
            ],
        ),
        (
            ComputePath::Fp32,
            FlopGroup::Fp32,
            [
                (Fadd, FaddPerCycle),
                (Fmul, FmulPerCycle),
                (Ffma, FfmaPerCycle),
            ],
        ),
        (
            ComputePath::Fp16,
            FlopGroup::Fp16,
            [
                (Hadd, HaddPerCycle),
                (Hmul, HmulPerCycle),
                (Hfma, HfmaPerCycle),
            ],
        ),
    ] {
        let weights = [1.0, 1.0, 2.0];
        let counts = ops.map(|(c, _)| get(r, c));
        let mut rates = ops.map(|(_, p)| get(r, p));
        // The charts' FMA item counts operations (2 per FMA): halve it.
        let fma_ops = [DfmaOpsPerCycle, FfmaOpsPerCycle, HfmaOpsPerCycle][path_rank(path)];
        rates[2] = rates[2].or_else(|| get(r, fma_ops).map(|o| o / 2.0));
        if counts.iter().any(Option::is_some) {
            let w = counts
                .iter()
                .zip(weights)
                .fold(0.0, |a, (c, w)| a + w * c.unwrap_or(0.0));
            flop.set(path, w);
            source = source.max(Some(Source::Counter));
        } else if let (true, Some(cyc)) = (rates.iter().any(Option::is_some), cycles) {
            let w = rates
                .iter()
                .zip(weights)
                .fold(0.0, |a, (p, w)| a + w * p.unwrap_or(0.0));
            flop.set(path, w * cyc);
            let how = if counted_cycles.is_some() {
                Source::RateTimesCycles
            } else {
                Source::RateTimesDuration
            };
            source = source.max(Some(how));
        } else {
            unknown.insert(group);
        }
    }
    (flop, source, unknown)
}

/// 0, 1, 2 for FP64, FP32, FP16 cores.
fn path_rank(p: ComputePath) -> usize {
    match p {
        ComputePath::Fp64 => 0,
        ComputePath::Fp32 => 1,
        _ => 2,
    }
}

/// Tensor-core FLOPs per dtype from the op counters (these count executed
/// FLOP). A dst-less counter is the total over output dtypes; a plain
/// counter is the total over the sparsity split. Takes the most aggregate
/// one present, never both. Returns whether any op counter was collected.
fn tensor_flop(tensor: &mut [(TensorKey, f64)], flop: &mut PathFlop) -> bool {
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
    !tensor.is_empty()
}
