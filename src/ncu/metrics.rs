//! The ncu metrics rooftrace reads, what each one means, and the list
//! `rooftrace ncu --print-metrics` prints.
//!
//! Every metric name seen in a CSV is classified once into a [`Slot`]; rows
//! and columns whose metric maps to no slot are skipped without parsing.

use crate::roofs::ComputePath;

/// A per-launch quantity rooftrace reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Slot {
    /// A scalar per-launch value, stored at this index of the launch's slots.
    Scalar(Scalar),
    /// A tensor-core op counter (`sm__ops_path_tensor_src_<dtype>...`).
    Tensor(TensorKey),
    /// A tensor-pipe instruction counter; never converted to FLOP.
    TensorInst,
    /// A device-wide peak for `--roofs ncu`.
    Peak(Peak),
    /// `device__attribute_display_name` (text).
    DeviceName,
    /// A fact about the device, for telling which GPU ran the profile.
    Device(DeviceAttr),
    /// A theoretical peak printed as FLOP per cycle (2 per FMA) by ncu's
    /// roofline-chart body items; stored halved as the FMA peak.
    PeakOps(Peak),
}

/// Device facts read as hints for choosing the roofs (never analysed).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DeviceAttr {
    /// `device__attribute_multiprocessor_count`, `launch__sm_count`, or the
    /// Launch Statistics label `# SMs`.
    SmCount,
    /// `device__attribute_l2_cache_size`, bytes.
    L2Bytes,
    /// `device__attribute_max_mem_frequency_khz` or
    /// `device__attribute_memory_clock_rate`, kHz.
    MemClockKhz,
    /// `device__attribute_global_memory_bus_width`, bits.
    BusWidthBits,
    /// The Speed Of Light label `Memory Frequency` (older ncu), 1/s.
    MemClock,
}

/// A tensor op counter: its path, output dtype and sparsity split.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TensorKey {
    /// Compute path of the input dtype.
    pub path: ComputePath,
    /// Output dtype as written in the name (`fp32`, `fp16`, `int32`, `` when absent).
    pub dst: Dst,
    /// `None` for the plain counter, `Some(true|false)` for `_sparsity_on|_off`.
    pub sparsity: Option<bool>,
}

/// Output dtype of a tensor op counter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Dst {
    /// No `_dst_` part.
    None,
    /// `_dst_fp16`.
    Fp16,
    /// `_dst_bf16`.
    Bf16,
    /// `_dst_fp32`.
    Fp32,
    /// `_dst_fp64`.
    Fp64,
    /// `_dst_int32`.
    Int32,
    /// Any other output dtype.
    Other,
}

/// Scalar per-launch metrics, in the unit given in the comment after
/// conversion at the parse boundary.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Scalar {
    /// `gpu__time_duration.sum`, ns.
    GpuTimeDuration,
    /// `sm__cycles_elapsed.avg`, cycles.
    SmCycles,
    /// `sm__cycles_elapsed.avg.per_second`, 1/s.
    SmCyclesPerSecond,
    /// `smsp__cycles_elapsed.avg`, cycles.
    SmspCycles,
    /// `smsp__cycles_elapsed.avg.per_second`, 1/s.
    SmspCyclesPerSecond,
    /// `Duration` display label of the Speed Of Light section, ns.
    DurationLabel,
    /// `dram__bytes.sum`, bytes.
    DramBytes,
    /// `dram__bytes_read.sum`, bytes.
    DramBytesRead,
    /// `dram__bytes_write.sum`, bytes.
    DramBytesWrite,
    /// `dram__bytes_op_read.sum`, bytes.
    DramBytesOpRead,
    /// `dram__bytes_op_write.sum`, bytes.
    DramBytesOpWrite,
    /// `dram__sectors.sum`, sectors of 32 bytes.
    DramSectors,
    /// `dram__sectors_read.sum`, sectors.
    DramSectorsRead,
    /// `dram__sectors_write.sum`, sectors.
    DramSectorsWrite,
    /// `lts__t_bytes.sum`, bytes.
    L2Bytes,
    /// `lts__t_sectors.sum`, sectors.
    L2Sectors,
    /// `l1tex__t_bytes.sum`, bytes.
    L1Bytes,
    /// `l1tex__t_sectors.sum`, sectors.
    L1Sectors,
    /// `*__sass_thread_inst_executed_op_dadd_pred_on.sum`, thread instructions.
    Dadd,
    /// `..._op_dmul_pred_on.sum`.
    Dmul,
    /// `..._op_dfma_pred_on.sum`.
    Dfma,
    /// `..._op_fadd_pred_on.sum`.
    Fadd,
    /// `..._op_fmul_pred_on.sum`.
    Fmul,
    /// `..._op_ffma_pred_on.sum`.
    Ffma,
    /// `..._op_hadd_pred_on.sum`.
    Hadd,
    /// `..._op_hmul_pred_on.sum`.
    Hmul,
    /// `..._op_hfma_pred_on.sum`.
    Hfma,
    /// `dram__bytes.sum.per_second`, byte/s.
    DramBytesPerSecond,
    /// `Memory Throughput` display label of the Memory Workload Analysis
    /// section (the same quantity as `dram__bytes.sum.per_second`), byte/s.
    MemThroughputLabel,
    /// DRAM throughput in percent of peak: `dram__throughput.avg.pct_of_peak_sustained_elapsed`,
    /// `gpu__dram_throughput...`, or the Speed Of Light labels `DRAM Throughput`
    /// / `SOL FB`, %.
    DramPercentOfPeak,
    /// `lts__t_sectors_op_read.sum`, sectors.
    L2SectorsRead,
    /// `lts__t_sectors_op_write.sum`, sectors.
    L2SectorsWrite,
    /// `lts__t_sectors_op_atom.sum`, sectors.
    L2SectorsAtom,
    /// `lts__t_sectors_op_red.sum`, sectors.
    L2SectorsRed,
    /// `*__sass_thread_inst_executed_op_dadd_pred_on.sum.per_cycle_elapsed`
    /// (ncu's roofline sections), thread instructions per cycle.
    DaddPerCycle,
    /// `..._op_dmul_pred_on.sum.per_cycle_elapsed`.
    DmulPerCycle,
    /// `..._op_dfma_pred_on.sum.per_cycle_elapsed`.
    DfmaPerCycle,
    /// `..._op_fadd_pred_on.sum.per_cycle_elapsed`.
    FaddPerCycle,
    /// `..._op_fmul_pred_on.sum.per_cycle_elapsed`.
    FmulPerCycle,
    /// `..._op_ffma_pred_on.sum.per_cycle_elapsed`.
    FfmaPerCycle,
    /// `..._op_hadd_pred_on.sum.per_cycle_elapsed`.
    HaddPerCycle,
    /// `..._op_hmul_pred_on.sum.per_cycle_elapsed`.
    HmulPerCycle,
    /// `..._op_hfma_pred_on.sum.per_cycle_elapsed`.
    HfmaPerCycle,
    /// `Predicated-On DFMA Operations Per Cycle` of ncu's roofline-chart body
    /// items (`--print-details all`): 2 x DFMA thread instructions per cycle.
    DfmaOpsPerCycle,
    /// `Predicated-On FFMA Operations Per Cycle` (2 FLOP per FFMA).
    FfmaOpsPerCycle,
    /// `Predicated-On HFMA Operations Per Cycle` (2 FLOP per HFMA).
    HfmaOpsPerCycle,
    /// `gpc__cycles_elapsed.max.per_second`: the GPC (SM) clock, 1/s.
    GpcCyclesPerSecond,
    /// `dram__cycles_elapsed.avg.per_second` or the Speed Of Light label
    /// `DRAM Frequency`: the DRAM clock of the launch, 1/s.
    DramCyclesPerSecond,
}

/// Number of [`Scalar`] slots.
pub const N_SCALARS: usize = Scalar::DramCyclesPerSecond as usize + 1;

/// What dimension a scalar must have.
pub fn scalar_dimension(s: Scalar) -> super::number::Dimension {
    use super::number::Dimension;
    match s {
        Scalar::GpuTimeDuration | Scalar::DurationLabel => Dimension::Time,
        Scalar::SmCyclesPerSecond
        | Scalar::SmspCyclesPerSecond
        | Scalar::GpcCyclesPerSecond
        | Scalar::DramCyclesPerSecond => Dimension::Rate,
        Scalar::DramBytes
        | Scalar::DramBytesRead
        | Scalar::DramBytesWrite
        | Scalar::DramBytesOpRead
        | Scalar::DramBytesOpWrite
        | Scalar::L2Bytes
        | Scalar::L1Bytes => Dimension::Bytes,
        Scalar::DramBytesPerSecond | Scalar::MemThroughputLabel => Dimension::BytesPerSecond,
        Scalar::DramPercentOfPeak => Dimension::Percent,
        Scalar::DaddPerCycle
        | Scalar::DmulPerCycle
        | Scalar::DfmaPerCycle
        | Scalar::FaddPerCycle
        | Scalar::FmulPerCycle
        | Scalar::FfmaPerCycle
        | Scalar::HaddPerCycle
        | Scalar::HmulPerCycle
        | Scalar::HfmaPerCycle
        | Scalar::DfmaOpsPerCycle
        | Scalar::FfmaOpsPerCycle
        | Scalar::HfmaOpsPerCycle => Dimension::PerCycle,
        _ => Dimension::Count,
    }
}

/// Device-wide peak metrics behind ncu's roofline sections.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Peak {
    /// `dram__bytes.sum.peak_sustained`, bytes per DRAM cycle.
    DramBytesPerCycle,
    /// `dram__cycles_elapsed.avg.per_second`, 1/s.
    DramClock,
    /// `lts__t_bytes.sum.peak_sustained`, bytes per L2 cycle.
    L2BytesPerCycle,
    /// `lts__cycles_elapsed.avg.per_second`, 1/s.
    L2Clock,
    /// `l1tex__t_bytes.sum.peak_sustained`, bytes per L1 cycle.
    L1BytesPerCycle,
    /// `l1tex__cycles_elapsed.avg.per_second`, 1/s.
    L1Clock,
    /// `sm__cycles_elapsed.avg.per_second` (first launch), 1/s.
    SmClock,
    /// `*__sass_thread_inst_executed_op_dfma_pred_on.sum.peak_sustained`, per SM cycle.
    DfmaPerCycle,
    /// `..._ffma_pred_on.sum.peak_sustained`.
    FfmaPerCycle,
    /// `..._hfma_pred_on.sum.peak_sustained`.
    HfmaPerCycle,
    /// `sm__ops_path_tensor_src_<dtype>...sum.peak_sustained`, ops per SM cycle.
    Tensor(ComputePath),
}

/// Classifies a metric name (or, in a details-page section other than the
/// command-line metrics, a display label). `None`: not used.
pub fn classify(name: &str, section: &str) -> Option<Slot> {
    use Scalar::*;
    if !name.contains("__") {
        return classify_label(name, section);
    }
    let scalar = match name {
        "gpu__time_duration.sum" => Some(GpuTimeDuration),
        "sm__cycles_elapsed.avg" => Some(SmCycles),
        "smsp__cycles_elapsed.avg" => Some(SmspCycles),
        "smsp__cycles_elapsed.avg.per_second" => Some(SmspCyclesPerSecond),
        "gpc__cycles_elapsed.max.per_second" => Some(GpcCyclesPerSecond),
        "dram__bytes.sum" => Some(DramBytes),
        "dram__bytes_read.sum" => Some(DramBytesRead),
        "dram__bytes_write.sum" => Some(DramBytesWrite),
        "dram__bytes_op_read.sum" => Some(DramBytesOpRead),
        "dram__bytes_op_write.sum" => Some(DramBytesOpWrite),
        "dram__sectors.sum" => Some(DramSectors),
        "dram__sectors_read.sum" => Some(DramSectorsRead),
        "dram__sectors_write.sum" => Some(DramSectorsWrite),
        "lts__t_bytes.sum" => Some(L2Bytes),
        "lts__t_sectors.sum" => Some(L2Sectors),
        "l1tex__t_bytes.sum" => Some(L1Bytes),
        "l1tex__t_sectors.sum" => Some(L1Sectors),
        "dram__bytes.sum.per_second" => Some(DramBytesPerSecond),
        "dram__throughput.avg.pct_of_peak_sustained_elapsed"
        | "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed" => Some(DramPercentOfPeak),
        "lts__t_sectors_op_read.sum" => Some(L2SectorsRead),
        "lts__t_sectors_op_write.sum" => Some(L2SectorsWrite),
        "lts__t_sectors_op_atom.sum" => Some(L2SectorsAtom),
        "lts__t_sectors_op_red.sum" => Some(L2SectorsRed),
        _ => None,
    };
    if let Some(s) = scalar {
        return Some(Slot::Scalar(s));
    }
    match name {
        // Per launch (duration fallback, the clock the launch ran at) and
        // device peak (ncu roofs) at once; the parser records both.
        "sm__cycles_elapsed.avg.per_second" => return Some(Slot::Scalar(SmCyclesPerSecond)),
        "dram__bytes.sum.peak_sustained" => return Some(Slot::Peak(Peak::DramBytesPerCycle)),
        "dram__cycles_elapsed.avg.per_second" => return Some(Slot::Scalar(DramCyclesPerSecond)),
        "lts__t_bytes.sum.peak_sustained" => return Some(Slot::Peak(Peak::L2BytesPerCycle)),
        "lts__cycles_elapsed.avg.per_second" => return Some(Slot::Peak(Peak::L2Clock)),
        "l1tex__t_bytes.sum.peak_sustained" => return Some(Slot::Peak(Peak::L1BytesPerCycle)),
        "l1tex__cycles_elapsed.avg.per_second" => return Some(Slot::Peak(Peak::L1Clock)),
        "device__attribute_display_name" => return Some(Slot::DeviceName),
        "device__attribute_multiprocessor_count" | "launch__sm_count" => {
            return Some(Slot::Device(DeviceAttr::SmCount))
        }
        "device__attribute_l2_cache_size" => return Some(Slot::Device(DeviceAttr::L2Bytes)),
        "device__attribute_max_mem_frequency_khz" | "device__attribute_memory_clock_rate" => {
            return Some(Slot::Device(DeviceAttr::MemClockKhz))
        }
        "device__attribute_global_memory_bus_width" => {
            return Some(Slot::Device(DeviceAttr::BusWidthBits))
        }
        _ => {}
    }
    let unit_prefix = name
        .strip_prefix("sm__")
        .or_else(|| name.strip_prefix("smsp__"))?;
    if let Some(rest) = unit_prefix.strip_prefix("sass_thread_inst_executed_op_") {
        let (op, tail) = rest.split_once("_pred_on.sum")?;
        let s = match op {
            "dadd" => Dadd,
            "dmul" => Dmul,
            "dfma" => Dfma,
            "fadd" => Fadd,
            "fmul" => Fmul,
            "ffma" => Ffma,
            "hadd" => Hadd,
            "hmul" => Hmul,
            "hfma" => Hfma,
            _ => return None,
        };
        return match (tail, s) {
            ("", s) => Some(Slot::Scalar(s)),
            (".per_cycle_elapsed", s) => Some(Slot::Scalar(per_cycle(s))),
            (".peak_sustained", Dfma) => Some(Slot::Peak(Peak::DfmaPerCycle)),
            (".peak_sustained", Ffma) => Some(Slot::Peak(Peak::FfmaPerCycle)),
            (".peak_sustained", Hfma) => Some(Slot::Peak(Peak::HfmaPerCycle)),
            _ => None,
        };
    }
    if let Some(rest) = unit_prefix.strip_prefix("ops_path_tensor_src_") {
        let (body, peak) = if let Some(b) = rest.strip_suffix(".sum") {
            (b, false)
        } else if let Some(b) = rest.strip_suffix(".sum.peak_sustained") {
            (b, true)
        } else {
            return None;
        };
        let (body, sparsity) = if let Some(b) = body.strip_suffix("_sparsity_on") {
            (b, Some(true))
        } else if let Some(b) = body.strip_suffix("_sparsity_off") {
            (b, Some(false))
        } else {
            (body, None)
        };
        let (src, dst) = match body.split_once("_dst_") {
            Some((s, d)) => (s, d),
            None => (body, ""),
        };
        let path = tensor_path(src)?;
        if peak {
            // Peaks per path: the plain counter of the fastest output dtype is
            // what ncu's tensor roofline uses; sparsity-split peaks are skipped.
            return sparsity.is_none().then_some(Slot::Peak(Peak::Tensor(path)));
        }
        let dst = match dst {
            "" => Dst::None,
            "fp16" => Dst::Fp16,
            "bf16" => Dst::Bf16,
            "fp32" => Dst::Fp32,
            "fp64" => Dst::Fp64,
            "int32" => Dst::Int32,
            _ => Dst::Other,
        };
        return Some(Slot::Tensor(TensorKey {
            path,
            dst,
            sparsity,
        }));
    }
    // Tensor instruction families: counted for diagnostics only.
    if (unit_prefix.starts_with("inst_executed_pipe_tensor")
        || unit_prefix.starts_with("sass_thread_inst_executed_op_hmma")
        || unit_prefix.starts_with("sass_inst_executed_op_hmma")
        || unit_prefix.starts_with("sass_inst_executed_op_hgmma")
        || unit_prefix.starts_with("sass_inst_executed_op_dmma")
        || unit_prefix.starts_with("sass_inst_executed_op_imma"))
        && name.ends_with(".sum")
    {
        return Some(Slot::TensorInst);
    }
    None
}

/// Display labels of the details page (sections other than the command-line
/// metrics): only those whose meaning is fixed are read, and a few device
/// facts (`# SMs`, `Memory Frequency` / `DRAM Frequency`). `Duration` of the
/// Speed Of Light section; its DRAM percentage (`DRAM Throughput`, `SOL FB`
/// before 2020); `Memory Throughput` of the Memory Workload Analysis section,
/// which is `dram__bytes.sum.per_second` in byte/s (the Speed Of Light
/// section's `Memory Throughput` is a percentage over all memory units and
/// is not read).
fn classify_label(name: &str, section: &str) -> Option<Slot> {
    use Scalar::*;
    let sol = section.contains("Speed Of Light") || section.starts_with("SpeedOfLight");
    let mwa =
        section.starts_with("Memory Workload Analysis") || section == "MemoryWorkloadAnalysis";
    let chart = section.contains("Roofline Chart");
    let s = match name {
        "Duration" if sol && !chart => DurationLabel,
        "DRAM Throughput" | "SOL FB" if sol && !chart => DramPercentOfPeak,
        "Memory Throughput" if mwa => MemThroughputLabel,
        // sm__cycles_elapsed.avg.per_second and dram__cycles_elapsed.avg.per_second
        // under their display names (Speed Of Light and roofline charts).
        "SM Frequency" if sol => SmCyclesPerSecond,
        "DRAM Frequency" if sol => DramCyclesPerSecond,
        // Device facts, hints for choosing the roofs (older ncu's name of
        // the DRAM clock; Launch Statistics' SM count).
        "Memory Frequency" if sol => return Some(Slot::Device(DeviceAttr::MemClock)),
        "# SMs" => return Some(Slot::Device(DeviceAttr::SmCount)),
        _ if chart => return classify_chart_item(name),
        _ => return None,
    };
    Some(Slot::Scalar(s))
}

/// Body items of ncu's roofline charts (`--print-details all`): achieved
/// rates per cycle and the theoretical peaks behind the chart.
fn classify_chart_item(name: &str) -> Option<Slot> {
    use Scalar::*;
    if name == "DRAM Bandwidth" {
        // dram__bytes.sum.per_second.
        return Some(Slot::Scalar(DramBytesPerSecond));
    }
    if name == "Theoretical DRAM Bytes Accessible" {
        return Some(Slot::Peak(Peak::DramBytesPerCycle));
    }
    if let Some(op) = name
        .strip_prefix("Theoretical Predicated-On ")
        .and_then(|r| r.strip_suffix(" Operations"))
    {
        return match op {
            "DFMA" => Some(Slot::PeakOps(Peak::DfmaPerCycle)),
            "FFMA" => Some(Slot::PeakOps(Peak::FfmaPerCycle)),
            "HFMA" => Some(Slot::PeakOps(Peak::HfmaPerCycle)),
            _ => None,
        };
    }
    let rest = name.strip_prefix("Predicated-On ")?;
    let s = if let Some(op) = rest.strip_suffix(" Operations Per Cycle") {
        match op {
            "DFMA" => DfmaOpsPerCycle,
            "FFMA" => FfmaOpsPerCycle,
            "HFMA" => HfmaOpsPerCycle,
            _ => return None,
        }
    } else {
        match rest.strip_suffix(" Thread Instructions Executed Per Cycle")? {
            "DADD" => DaddPerCycle,
            "DMUL" => DmulPerCycle,
            "FADD" => FaddPerCycle,
            "FMUL" => FmulPerCycle,
            "HADD" => HaddPerCycle,
            "HMUL" => HmulPerCycle,
            _ => return None,
        }
    };
    Some(Slot::Scalar(s))
}

/// The per-cycle rate slot of a SASS counter slot.
fn per_cycle(s: Scalar) -> Scalar {
    use Scalar::*;
    match s {
        Dadd => DaddPerCycle,
        Dmul => DmulPerCycle,
        Dfma => DfmaPerCycle,
        Fadd => FaddPerCycle,
        Fmul => FmulPerCycle,
        Ffma => FfmaPerCycle,
        Hadd => HaddPerCycle,
        Hmul => HmulPerCycle,
        _ => HfmaPerCycle,
    }
}

/// Maps the `src` dtype of a tensor op counter to its compute path.
fn tensor_path(src: &str) -> Option<ComputePath> {
    Some(match src {
        "fp64" => ComputePath::TensorFp64,
        "tf32" => ComputePath::TensorTf32,
        "fp16" => ComputePath::TensorFp16,
        "bf16" => ComputePath::TensorBf16,
        "fp8" | "e4m3" | "e5m2" | "fp8_e4m3" | "fp8_e5m2" => ComputePath::TensorFp8,
        "int8" | "int4" | "u8" | "s8" | "int1" => ComputePath::TensorInt8,
        "fp4" | "fp6" | "e2m1" | "nvfp4" | "mxfp4" | "mxfp6" => ComputePath::TensorFp4,
        _ => return None,
    })
}

/// The metrics `rooftrace ncu --print-metrics` asks for: duration, DRAM, L2
/// and L1 bytes, SASS add/mul/fma per precision, tensor op counters per
/// dtype, and the peaks behind ncu's own roofline sections.
pub const PRINT_METRICS: &[&str] = &[
    "gpu__time_duration.sum",
    "sm__cycles_elapsed.avg",
    "sm__cycles_elapsed.avg.per_second",
    "dram__bytes_read.sum",
    "dram__bytes_write.sum",
    "lts__t_bytes.sum",
    "l1tex__t_bytes.sum",
    "sm__sass_thread_inst_executed_op_dadd_pred_on.sum",
    "sm__sass_thread_inst_executed_op_dmul_pred_on.sum",
    "sm__sass_thread_inst_executed_op_dfma_pred_on.sum",
    "sm__sass_thread_inst_executed_op_fadd_pred_on.sum",
    "sm__sass_thread_inst_executed_op_fmul_pred_on.sum",
    "sm__sass_thread_inst_executed_op_ffma_pred_on.sum",
    "sm__sass_thread_inst_executed_op_hadd_pred_on.sum",
    "sm__sass_thread_inst_executed_op_hmul_pred_on.sum",
    "sm__sass_thread_inst_executed_op_hfma_pred_on.sum",
    "sm__inst_executed_pipe_tensor.sum",
    "sm__ops_path_tensor_src_fp64.sum",
    "sm__ops_path_tensor_src_tf32_dst_fp32.sum",
    "sm__ops_path_tensor_src_fp16_dst_fp16.sum",
    "sm__ops_path_tensor_src_fp16_dst_fp32.sum",
    "sm__ops_path_tensor_src_bf16_dst_fp32.sum",
    "sm__ops_path_tensor_src_fp8_dst_fp16.sum",
    "sm__ops_path_tensor_src_fp8_dst_fp32.sum",
    "sm__ops_path_tensor_src_int8_dst_int32.sum",
    "device__attribute_display_name",
    "dram__bytes.sum.peak_sustained",
    "dram__cycles_elapsed.avg.per_second",
    "lts__t_bytes.sum.peak_sustained",
    "lts__cycles_elapsed.avg.per_second",
    "l1tex__t_bytes.sum.peak_sustained",
    "l1tex__cycles_elapsed.avg.per_second",
    "sm__sass_thread_inst_executed_op_dfma_pred_on.sum.peak_sustained",
    "sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained",
    "sm__sass_thread_inst_executed_op_hfma_pred_on.sum.peak_sustained",
    "sm__ops_path_tensor_src_fp16_dst_fp32.sum.peak_sustained",
    "sm__ops_path_tensor_src_bf16_dst_fp32.sum.peak_sustained",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_printed_metric_is_read() {
        for m in PRINT_METRICS {
            assert!(
                classify(m, "Command line profiler metrics").is_some(),
                "{m}"
            );
        }
    }

    #[test]
    fn tensor_names_split_into_path_dst_and_sparsity() {
        assert_eq!(
            classify("sm__ops_path_tensor_src_bf16_dst_fp32.sum", ""),
            Some(Slot::Tensor(TensorKey {
                path: ComputePath::TensorBf16,
                dst: Dst::Fp32,
                sparsity: None
            }))
        );
        assert_eq!(
            classify(
                "smsp__ops_path_tensor_src_fp16_dst_fp16_sparsity_on.sum",
                ""
            ),
            Some(Slot::Tensor(TensorKey {
                path: ComputePath::TensorFp16,
                dst: Dst::Fp16,
                sparsity: Some(true)
            }))
        );
        assert_eq!(
            classify("sm__inst_executed_pipe_tensor_op_hmma.sum", ""),
            Some(Slot::TensorInst)
        );
        assert_eq!(
            classify("Duration", "GPU Speed Of Light Throughput"),
            Some(Slot::Scalar(Scalar::DurationLabel))
        );
        assert_eq!(classify("Duration", "Launch Statistics"), None);
        let chart = "GPU Speed Of Light Roofline Chart";
        assert_eq!(
            classify("Predicated-On FFMA Operations Per Cycle", chart),
            Some(Slot::Scalar(Scalar::FfmaOpsPerCycle))
        );
        assert_eq!(
            classify(
                "Predicated-On DADD Thread Instructions Executed Per Cycle",
                chart
            ),
            Some(Slot::Scalar(Scalar::DaddPerCycle))
        );
        assert_eq!(
            classify("Theoretical Predicated-On DFMA Operations", chart),
            Some(Slot::PeakOps(Peak::DfmaPerCycle))
        );
        assert_eq!(
            classify("Memory Throughput", "GPU Speed Of Light Throughput"),
            None
        );
        assert_eq!(
            classify("sm__throughput.avg.pct_of_peak_sustained_elapsed", ""),
            None
        );
    }
}
