//! How the GPU of a run was decided, as data: [`GpuInfo`] with a
//! [`GpuChoice`] (the flag, the device name, the facts, a file, ncu's
//! peaks, the command line, or undecided with the candidates that fit).
//! `report/` renders it (`report::gpu_choice`: the sentence and the JSON);
//! code decides on the variant, never on the words.

use super::hints::HintSource;
use crate::units::ComputeCapability;
use std::path::PathBuf;

/// The name of the GPU (and of its empty roofs) in a report whose GPU
/// could not be decided; shown, never compared: [`GpuChoice::Undecided`]
/// says it.
pub const UNDECIDED: &str = "GPU not decided";

/// How the GPU (and so the roofs) of a run was chosen.
#[derive(Debug, Clone, PartialEq)]
pub struct GpuInfo {
    /// Built-in table key (`h100-sxm`), when the table was used.
    pub key: Option<String>,
    /// Name shown to the user.
    pub name: String,
    /// How it was chosen.
    pub chosen_by: GpuChoice,
    /// Where the input disagrees with the chosen GPU without ruling it out
    /// (fewer SMs: a MIG slice or green context?; a device name the table
    /// does not hold), one sentence each.
    pub notes: Vec<String>,
}

impl GpuInfo {
    /// True when the input did not decide the GPU ([`GpuChoice::Undecided`]).
    pub fn undecided(&self) -> bool {
        matches!(self.chosen_by, GpuChoice::Undecided { .. })
    }

    /// The table GPUs the input's facts fit when the GPU was not decided
    /// (empty when it was, or when none fits).
    pub fn candidates(&self) -> &[String] {
        match &self.chosen_by {
            GpuChoice::Undecided { candidates, .. } => candidates,
            _ => &[],
        }
    }
}

/// One way the GPU of a run was chosen.
#[derive(Debug, Clone, PartialEq)]
pub enum GpuChoice {
    /// `--gpu KEY`.
    Flag,
    /// A device name of the input that the table knows.
    DeviceName {
        /// The name as the input records it.
        name: String,
        /// Where the input records it.
        source: HintSource,
    },
    /// The input's device facts, which only one GPU of the table has.
    Facts {
        /// The facts used, in the order they narrowed the table.
        facts: Vec<Fact>,
        /// Where the input records them.
        source: HintSource,
    },
    /// `--roofs FILE`.
    File(PathBuf),
    /// `--roofs ncu`: the input's own ncu peaks.
    NcuPeaks,
    /// `--peak-dram-bw` and `--peak` on the command line.
    CommandLine,
    /// `--project-to KEY|FILE`: the target of a projection, as given.
    ProjectTo(String),
    /// Not decided: the input names no GPU of the table and its facts fit
    /// several or none.
    Undecided {
        /// What the input states about its device, in words.
        seen: String,
        /// The keys of the table GPUs its facts fit.
        candidates: Vec<String>,
        /// What the report is measured against instead.
        roofs: UndecidedRoofs,
    },
}

/// The roofs of a run whose GPU was not decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UndecidedRoofs {
    /// The input's own ncu peaks (as `--roofs ncu`).
    NcuPeaks,
    /// None: every roof-dependent figure unknown.
    None,
}

/// A device fact of the input that narrowed the table.
#[derive(Debug, Clone, PartialEq)]
pub enum Fact {
    /// The compute capability.
    ComputeCapability(ComputeCapability),
    /// The SM count.
    SmCount(u32),
    /// The L2 size, bytes.
    L2Bytes(u64),
    /// The memory bus width, bits.
    BusWidthBits(u32),
    /// The theoretical DRAM bandwidth the runtime states, byte/s.
    DramBandwidth(u64),
    /// The memory clocks stated, MHz.
    MemoryClocksMhz(Vec<u64>),
    /// The DRAM peak the file's throughput percentage implies (DRAM bytes
    /// / duration / `dram__throughput` %), byte/s: the true peak is at
    /// least this.
    DramPeakAtLeast(u64),
    /// ncu's own peaks in the file (DRAM bytes per cycle, FP32 per cycle).
    NcuPeaks,
}

impl std::fmt::Display for Fact {
    /// `compute capability 8.9`, `128 SMs`, `L2 48.0 MiB`, `384-bit memory
    /// bus`, `DRAM bandwidth 2039.0 GB/s`, `memory clock 1512 MHz`: the
    /// words of decisions and of the errors that list what a file states.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Fact::ComputeCapability(cc) => write!(f, "compute capability {cc}"),
            Fact::SmCount(n) => write!(f, "{n} SMs"),
            Fact::L2Bytes(b) => write!(f, "L2 {:.1} MiB", *b as f64 / (1u64 << 20) as f64),
            Fact::BusWidthBits(b) => write!(f, "{b}-bit memory bus"),
            Fact::DramBandwidth(b) => write!(f, "DRAM bandwidth {:.1} GB/s", *b as f64 / 1e9),
            Fact::MemoryClocksMhz(m) => {
                let m: Vec<String> = m.iter().map(u64::to_string).collect();
                write!(f, "memory clock {} MHz", m.join("/"))
            }
            Fact::DramPeakAtLeast(b) => {
                write!(f, "a DRAM peak of at least {:.1} GB/s", *b as f64 / 1e9)
            }
            Fact::NcuPeaks => write!(f, "ncu's own peaks"),
        }
    }
}

/// `a, b, c`: facts joined as decisions and errors list them.
pub fn join_facts(facts: &[Fact]) -> String {
    facts
        .iter()
        .map(Fact::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}
