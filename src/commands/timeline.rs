//! Timeline inputs through the one door (`crate::input`): a file is told
//! by its content ([`crate::input::identify`]), an `.nsys-rep` converted
//! first, and read by the reader registered for its kind. `gaps`,
//! `budget`, `comm` and `diff` read through here, so each takes every
//! timeline format the same way; [`export_hints`] turns an export's GPU
//! record into the facts the GPU table is searched with (for `budget`'s
//! roofs and `gaps`' host link).

use crate::error::InputError;
use crate::input::{InputKind, ReadOptions};
use crate::nsys::convert::resolve_export;
use crate::roofs::DeviceHints;
use crate::timeline::Timeline;
use std::path::{Path, PathBuf};

/// A timeline input, resolved: the file its reader opens (the export an
/// `.nsys-rep` converts to, or the file itself) and what it is.
#[derive(Debug, Clone)]
pub struct TimelineInput {
    /// The file the reader opens (for the check that no output
    /// overwrites an input, too).
    pub path: PathBuf,
    /// Its kind (an `.nsys-rep` is [`InputKind::NsysExport`] once
    /// converted).
    pub kind: InputKind,
}

impl TimelineInput {
    /// True for a PyTorch profiler trace.
    pub fn is_trace(&self) -> bool {
        self.kind == InputKind::PyTorchTrace
    }
}

/// Tells what `path` is (a timeline, or the error saying what it is and
/// which command reads it: `command` names the one given it) and converts
/// an `.nsys-rep` with `nsys` (from `nsys`, `ROOFTRACE_NSYS` or `PATH`).
pub fn open(
    path: &Path,
    nsys: Option<&Path>,
    command: &'static str,
) -> Result<TimelineInput, InputError> {
    let kind = crate::input::identify_for(path, &crate::input::TIMELINE, Some(command))?;
    if kind == InputKind::NsysReport {
        return Ok(TimelineInput {
            path: resolve_export(path, nsys)?,
            kind: InputKind::NsysExport,
        });
    }
    Ok(TimelineInput {
        path: path.to_path_buf(),
        kind,
    })
}

/// Reads the timeline of `input` (from [`open`]) with its kind's reader.
pub fn read(input: &TimelineInput, options: &ReadOptions<'_>) -> Result<Timeline, InputError> {
    crate::input::read_timeline(&input.path, &input.kind, options)
}

/// What an export's `TARGET_INFO_GPU` rows say about its device, as the
/// hints the roofs are chosen from: names, compute capabilities, SM
/// counts, L2 sizes and theoretical DRAM bandwidths (`clockRate` is the SM
/// clock, not a memory clock, and no bus width is recorded).
pub fn export_hints(
    input: &std::path::Path,
    gpus: &[crate::timeline::GpuRecord],
    source: crate::roofs::HintSource,
) -> DeviceHints {
    let set = |v: Vec<String>| {
        let mut v = v;
        v.sort();
        v.dedup();
        v
    };
    let mut sm: Vec<u32> = gpus.iter().filter_map(|g| g.sm_count).collect();
    sm.sort_unstable();
    sm.dedup();
    let mut l2: Vec<u64> = gpus.iter().filter_map(|g| g.l2_bytes).collect();
    l2.sort_unstable();
    l2.dedup();
    let mut bw: Vec<u64> = gpus
        .iter()
        .filter_map(|g| g.memory_bandwidth_bytes_per_s)
        .collect();
    bw.sort_unstable();
    bw.dedup();
    DeviceHints {
        file: input.display().to_string(),
        source,
        device_names: set(gpus
            .iter()
            .map(|g| g.name.clone())
            .filter(|n| !n.is_empty())
            .collect()),
        compute_capabilities: {
            let mut ccs: Vec<_> = gpus.iter().filter_map(|g| g.compute_capability).collect();
            ccs.sort_unstable();
            ccs.dedup();
            ccs
        },
        sm_counts: sm,
        l2_bytes: l2,
        // `clockRate` is the SM clock, not the memory clock.
        memory_clocks_mhz: Vec::new(),
        bus_widths_bits: Vec::new(),
        memory_bandwidths_bytes_per_s: bw,
        ncu_peaks: None,
        implied_dram_peak_bytes_per_s: None,
    }
}
