//! The typed model an ncu CSV parses into: one [`LaunchMetrics`] per profiled
//! launch, in SI-style units named in each field, plus device facts and the
//! peak metrics behind `--roofs ncu`.

use crate::roofs::ComputePath;
use serde::Serialize;
use std::collections::BTreeMap;
use std::sync::Arc;

use super::metrics::Peak;

/// Which ncu CSV page the file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Page {
    /// `--page details` (the default): one row per metric per launch.
    Details,
    /// `--page raw`: one row per launch, metric names as columns.
    Raw,
}

impl Page {
    /// `details` or `raw`.
    pub fn key(self) -> &'static str {
        match self {
            Page::Details => "details",
            Page::Raw => "raw",
        }
    }
}

/// FLOPs per compute path of one launch; `None` where no counter for that
/// path was collected.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct PathFlop(pub [Option<f64>; 10]);

impl PathFlop {
    /// FLOPs of `path`, if counted.
    pub fn get(&self, path: ComputePath) -> Option<f64> {
        self.0[path_index(path)]
    }

    /// Sets the FLOPs of `path`.
    pub fn set(&mut self, path: ComputePath, flop: f64) {
        self.0[path_index(path)] = Some(flop);
    }

    /// Adds `flop` to `path` (counted from now on).
    pub fn add(&mut self, path: ComputePath, flop: f64) {
        let slot = &mut self.0[path_index(path)];
        *slot = Some(slot.unwrap_or(0.0) + flop);
    }

    /// True when at least one path has a counter.
    pub fn any_counted(&self) -> bool {
        self.0.iter().any(Option::is_some)
    }

    /// Total FLOPs over every counted path.
    pub fn total(&self) -> f64 {
        self.0.iter().flatten().fold(0.0, |a, b| a + b)
    }

    /// (path, FLOPs) for every path with a counter, in display order.
    pub fn iter(&self) -> impl Iterator<Item = (ComputePath, f64)> + '_ {
        ComputePath::ALL
            .into_iter()
            .filter_map(|p| self.get(p).map(|f| (p, f)))
    }
}

fn path_index(path: ComputePath) -> usize {
    ComputePath::ALL
        .iter()
        .position(|&p| p == path)
        .expect("every path is in ALL")
}

/// How a figure (DRAM bytes, L2 bytes, FLOPs) was obtained, from the most
/// direct to the least. Ordered: a sum over launches or paths carries the
/// least direct source of its parts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// A counter of the quantity itself (`dram__bytes.sum`, `..._ffma_pred_on.sum`).
    Counter,
    /// Sectors x 32 bytes (`dram__sectors*.sum`, `lts__t_sectors*.sum`).
    Sectors,
    /// A per-cycle rate x elapsed cycles (ncu's roofline sections:
    /// `..._pred_on.sum.per_cycle_elapsed x sm__cycles_elapsed.avg`).
    RateTimesCycles,
    /// A per-second rate x the duration (`dram__bytes.sum.per_second`, the
    /// Memory Workload Analysis `Memory Throughput` in byte/s).
    RateTimesDuration,
    /// A percentage of the peak x that peak x the duration (the basic set's
    /// Speed Of Light `DRAM Throughput` %): approximate.
    PercentOfPeak,
}

impl Source {
    /// Every source, most direct first.
    pub const ALL: [Source; 5] = [
        Source::Counter,
        Source::Sectors,
        Source::RateTimesCycles,
        Source::RateTimesDuration,
        Source::PercentOfPeak,
    ];

    /// The JSON / CSV key (`counter`, `sectors`, ...).
    pub fn key(self) -> &'static str {
        match self {
            Source::Counter => "counter",
            Source::Sectors => "sectors",
            Source::RateTimesCycles => "rate_times_cycles",
            Source::RateTimesDuration => "rate_times_duration",
            Source::PercentOfPeak => "percent_of_peak",
        }
    }

    /// The short mark after a figure in tables (empty for a counter).
    pub fn mark(self) -> &'static str {
        match self {
            Source::Counter => "",
            Source::Sectors => "s",
            Source::RateTimesCycles => "c",
            Source::RateTimesDuration => "r",
            Source::PercentOfPeak => "%",
        }
    }

    /// What the mark means, for table legends.
    pub fn meaning(self) -> &'static str {
        match self {
            Source::Counter => "counted directly",
            Source::Sectors => "sectors x 32 B",
            Source::RateTimesCycles => "ncu's per-cycle rate x elapsed cycles",
            Source::RateTimesDuration => "ncu's per-second rate x duration",
            Source::PercentOfPeak => {
                "ncu's DRAM throughput % of peak x the DRAM roof x duration (approximate)"
            }
        }
    }
}

/// The groups of FLOP counters a roofline needs: CUDA cores per precision
/// and the tensor cores. A group not collected makes the FLOPs unknown (or,
/// when another group was collected, a lower bound).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FlopGroup {
    /// `*__sass_thread_inst_executed_op_d{add,mul,fma}_pred_on.sum`.
    Fp64,
    /// `..._op_f{add,mul,fma}_pred_on.sum`.
    Fp32,
    /// `..._op_h{add,mul,fma}_pred_on.sum`.
    Fp16,
    /// `sm__ops_path_tensor_src_<dtype>...sum` (or a zero tensor-pipe
    /// instruction count, which proves there is no tensor work).
    Tensor,
}

impl FlopGroup {
    /// Every group.
    pub const ALL: [FlopGroup; 4] = [
        FlopGroup::Fp64,
        FlopGroup::Fp32,
        FlopGroup::Fp16,
        FlopGroup::Tensor,
    ];

    /// The metrics to add to `ncu --metrics` for this group.
    pub fn metrics(self) -> &'static str {
        match self {
            FlopGroup::Fp64 => "sm__sass_thread_inst_executed_op_dadd_pred_on.sum,sm__sass_thread_inst_executed_op_dmul_pred_on.sum,sm__sass_thread_inst_executed_op_dfma_pred_on.sum",
            FlopGroup::Fp32 => "sm__sass_thread_inst_executed_op_fadd_pred_on.sum,sm__sass_thread_inst_executed_op_fmul_pred_on.sum,sm__sass_thread_inst_executed_op_ffma_pred_on.sum",
            FlopGroup::Fp16 => "sm__sass_thread_inst_executed_op_hadd_pred_on.sum,sm__sass_thread_inst_executed_op_hmul_pred_on.sum,sm__sass_thread_inst_executed_op_hfma_pred_on.sum",
            FlopGroup::Tensor => "sm__inst_executed_pipe_tensor.sum,sm__ops_path_tensor_src_fp16_dst_fp32.sum,sm__ops_path_tensor_src_bf16_dst_fp32.sum,sm__ops_path_tensor_src_tf32_dst_fp32.sum,sm__ops_path_tensor_src_fp8_dst_fp32.sum",
        }
    }

    /// [`FlopGroup::metrics`] without the tensor counters of paths that
    /// compute capability `cc` (8.0) lacks ([`ComputePath::exists_on`]);
    /// all of them when `cc` is unknown.
    pub fn metrics_on(self, cc: Option<crate::units::ComputeCapability>) -> Vec<&'static str> {
        self.metrics()
            .split(',')
            .filter(|m| match (cc, tensor_src_path(m)) {
                (Some(cc), Some(p)) => p.exists_on(cc),
                _ => true,
            })
            .collect()
    }

    /// `fp64`, `fp32`, `fp16`, `tensor`.
    pub fn key(self) -> &'static str {
        match self {
            FlopGroup::Fp64 => "fp64",
            FlopGroup::Fp32 => "fp32",
            FlopGroup::Fp16 => "fp16",
            FlopGroup::Tensor => "tensor",
        }
    }
}

/// The compute path of a `sm__ops_path_tensor_src_<dtype>_...` counter.
fn tensor_src_path(metric: &str) -> Option<ComputePath> {
    let src = metric.split("ops_path_tensor_src_").nth(1)?;
    let dtype = src.split(['_', '.']).next()?;
    Some(match dtype {
        "fp64" => ComputePath::TensorFp64,
        "tf32" => ComputePath::TensorTf32,
        "fp16" => ComputePath::TensorFp16,
        "bf16" => ComputePath::TensorBf16,
        "fp8" => ComputePath::TensorFp8,
        "int8" => ComputePath::TensorInt8,
        _ => return None,
    })
}

/// A set of [`FlopGroup`]s (the groups whose counters were not collected).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FlopGroups(u8);

impl FlopGroups {
    /// Adds `g`.
    pub fn insert(&mut self, g: FlopGroup) {
        self.0 |= 1 << g as u8;
    }

    /// True when `g` is in the set.
    pub fn contains(self, g: FlopGroup) -> bool {
        self.0 & (1 << g as u8) != 0
    }

    /// True when the set is empty.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The union of two sets.
    pub fn union(self, o: FlopGroups) -> FlopGroups {
        FlopGroups(self.0 | o.0)
    }

    /// The groups, in order.
    pub fn iter(self) -> impl Iterator<Item = FlopGroup> {
        FlopGroup::ALL
            .into_iter()
            .filter(move |g| self.contains(*g))
    }

    /// [`FlopGroups::metrics`] for compute capability `cc`
    /// ([`FlopGroup::metrics_on`]), and the paths left out for it.
    pub fn metrics_on(
        self,
        cc: Option<crate::units::ComputeCapability>,
    ) -> (String, Vec<ComputePath>) {
        let all: Vec<&str> = self.iter().flat_map(|g| g.metrics().split(',')).collect();
        let kept: Vec<&str> = self.iter().flat_map(|g| g.metrics_on(cc)).collect();
        let mut dropped: Vec<ComputePath> = all
            .iter()
            .filter(|m| !kept.contains(m))
            .filter_map(|m| tensor_src_path(m))
            .collect();
        dropped.sort();
        dropped.dedup();
        (kept.join(","), dropped)
    }

    /// The `ncu --metrics` list that collects every group of the set.
    pub fn metrics(self) -> String {
        self.iter()
            .map(FlopGroup::metrics)
            .collect::<Vec<_>>()
            .join(",")
    }
}

/// One profiled kernel launch, keyed by (Process ID, ID).
#[derive(Debug, Clone, PartialEq)]
pub struct LaunchMetrics {
    /// `Process ID` column.
    pub process_id: u64,
    /// `ID` column: ncu's launch number within the report.
    pub id: u64,
    /// `Kernel Name` as printed (demangled unless ncu was told otherwise).
    pub name: Arc<str>,
    /// 1-based line of the launch's first row in the file.
    pub line: u64,
    /// Kernel duration in ns.
    pub duration_ns: Option<f64>,
    /// The metric(s) the duration came from.
    pub duration_source: Option<&'static str>,
    /// DRAM bytes read + written.
    pub dram_bytes: Option<f64>,
    /// The metric(s) the DRAM bytes came from.
    pub dram_source: Option<&'static str>,
    /// How the DRAM bytes were derived.
    pub dram_derivation: Option<Source>,
    /// True when only one of read/write DRAM bytes was collected.
    pub dram_partial: bool,
    /// DRAM throughput in percent of ncu's peak, when the file has it (the
    /// only DRAM figure of a basic-set export; turned into bytes by the
    /// analysis, which knows the DRAM roof).
    pub dram_percent_of_peak: Option<f64>,
    /// L2 (lts) bytes, when collected.
    pub l2_bytes: Option<f64>,
    /// How the L2 bytes were derived.
    pub l2_derivation: Option<Source>,
    /// L1/tex bytes, when collected.
    pub l1_bytes: Option<f64>,
    /// FLOPs per compute path (CUDA cores from SASS counters, tensor cores
    /// from `sm__ops_path_tensor_*`).
    pub flop: PathFlop,
    /// How the FLOPs were derived (the least direct over the counted paths).
    pub flop_derivation: Option<Source>,
    /// FLOP counter groups not collected: their FLOPs are unknown.
    pub flop_unknown: FlopGroups,
    /// Tensor-pipe instructions executed, when collected (not converted to
    /// FLOPs: the FLOPs per instruction depend on the MMA shape).
    pub tensor_inst: Option<f64>,
    /// Number of metrics read as `nan` (ncu could not read them: failed launch).
    pub nan_metrics: u32,
    /// True when the file has no duration for the launch, only rates:
    /// `duration_ns` is then the nominal one second
    /// (`RATE_ONLY_NS`) and bytes and FLOPs are per second
    /// of run; only ratios (intensity, FLOP/s, B/s, fraction of roof) mean
    /// something.
    pub rate_only: bool,
    /// The SM clock the launch ran at, Hz: `sm__cycles_elapsed.avg.per_second`
    /// (or "SM Frequency"), else `smsp__…`, else `gpc__cycles_elapsed.max.per_second`.
    pub sm_clock_hz: Option<f64>,
    /// The metric the SM clock came from.
    pub sm_clock_source: Option<&'static str>,
    /// The DRAM clock the launch ran at, Hz: `dram__cycles_elapsed.avg.per_second`
    /// (or "DRAM Frequency").
    pub dram_clock_hz: Option<f64>,
}

/// Device-wide peaks from the CSV (first value seen), for `--roofs ncu`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NcuPeaks {
    /// Peak metric -> value (per cycle for `peak_sustained`, 1/s for clocks).
    pub(crate) values: BTreeMap<PeakKey, f64>,
}

/// Orderable twin of [`Peak`] for deterministic maps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct PeakKey(u8, Option<ComputePath>);

impl From<Peak> for PeakKey {
    fn from(p: Peak) -> PeakKey {
        match p {
            Peak::DramBytesPerCycle => PeakKey(0, None),
            Peak::DramClock => PeakKey(1, None),
            Peak::L2BytesPerCycle => PeakKey(2, None),
            Peak::L2Clock => PeakKey(3, None),
            Peak::L1BytesPerCycle => PeakKey(4, None),
            Peak::L1Clock => PeakKey(5, None),
            Peak::SmClock => PeakKey(6, None),
            Peak::DfmaPerCycle => PeakKey(7, None),
            Peak::FfmaPerCycle => PeakKey(8, None),
            Peak::HfmaPerCycle => PeakKey(9, None),
            Peak::Tensor(p) => PeakKey(10, Some(p)),
        }
    }
}

impl NcuPeaks {
    /// The value of a peak metric, if collected.
    pub fn get(&self, p: Peak) -> Option<f64> {
        self.values.get(&PeakKey::from(p)).copied()
    }
}

/// What a file states about its device besides name and compute
/// capability: hints for telling which GPU ran it (distinct values, sorted).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DeviceFacts {
    /// SM counts (`device__attribute_multiprocessor_count`,
    /// `launch__sm_count`, `# SMs`).
    pub sm_counts: std::collections::BTreeSet<u32>,
    /// L2 sizes in bytes (`device__attribute_l2_cache_size`).
    pub l2_bytes: std::collections::BTreeSet<u64>,
    /// Memory clocks in MHz (`device__attribute_max_mem_frequency_khz`,
    /// `device__attribute_memory_clock_rate`, `Memory Frequency`, `DRAM
    /// Frequency`).
    pub memory_clocks_mhz: std::collections::BTreeSet<u64>,
    /// Memory bus widths in bits
    /// (`device__attribute_global_memory_bus_width`).
    pub bus_widths_bits: std::collections::BTreeSet<u32>,
}

impl DeviceFacts {
    /// Records one value of `attr` (unit and value as in the file); values
    /// that are not positive finite numbers are ignored.
    pub(crate) fn note(&mut self, attr: super::metrics::DeviceAttr, unit: &[u8], value: &[u8]) {
        use super::metrics::DeviceAttr;
        use super::number::{parse_unit, parse_value, Dimension, Value};
        let Ok(Value::Number(v)) = parse_value(value) else {
            return;
        };
        if !(v.is_finite() && v > 0.0 && v < 1e15) {
            return;
        }
        let u = parse_unit(std::str::from_utf8(unit).unwrap_or("").trim());
        let scaled = |dim: Dimension| if u.dimension == dim { v * u.factor } else { v };
        match attr {
            DeviceAttr::SmCount => {
                if v.fract() == 0.0 && v < 1e6 {
                    self.sm_counts.insert(v as u32);
                }
            }
            DeviceAttr::L2Bytes => {
                self.l2_bytes
                    .insert(scaled(Dimension::Bytes).round() as u64);
            }
            DeviceAttr::MemClockKhz => {
                self.memory_clocks_mhz.insert((v / 1e3).round() as u64);
            }
            DeviceAttr::BusWidthBits => {
                if v.fract() == 0.0 && v < 1e6 {
                    self.bus_widths_bits.insert(v as u32);
                }
            }
            DeviceAttr::MemClock => {
                self.memory_clocks_mhz
                    .insert((scaled(Dimension::Rate) / 1e6).round() as u64);
            }
        }
    }
}

/// A parsed ncu CSV.
#[derive(Debug, Clone)]
pub struct NcuCsv {
    /// File name as given, for messages.
    pub file: String,
    /// Which page.
    pub page: Page,
    /// Number of header columns (12, 15, 20, 21 on the details page).
    pub columns: usize,
    /// Launches in order of first appearance.
    pub launches: Vec<LaunchMetrics>,
    /// Distinct `device__attribute_display_name` values, sorted.
    pub device_names: Vec<String>,
    /// Distinct `CC` (compute capability) values, sorted.
    pub compute_capabilities: Vec<crate::units::ComputeCapability>,
    /// SM counts, L2 sizes and memory clocks the file states.
    pub facts: DeviceFacts,
    /// Peak metrics for `--roofs ncu`.
    pub peaks: NcuPeaks,
    /// `==WARNING==` and `==ERROR==` lines ncu printed into the file.
    pub log: Vec<String>,
}
