//! One door for every timeline input: a Kineto trace (JSON or gzip, told by
//! its first bytes) goes to `kineto`, anything else to `nsys` (an `.nsys-rep`
//! converted first). `gaps`, `budget` and `diff` read through here, so each
//! takes both formats the same way; [`export_hints`] turns an export's GPU
//! record into the facts the GPU table is searched with (for `budget`'s
//! roofs and `gaps`' host link).

use crate::error::InputError;
use crate::nsys::convert::resolve_export;
use crate::nsys::Timeline;
use crate::roofs::DeviceHints;
use std::path::{Path, PathBuf};

/// True when `path` is read as a Kineto trace: by content, the one test
/// `gaps FILE`, `gaps DIR`, `budget` and `diff` share
/// ([`crate::kineto::input::sniff`]: gzip decoded, a UTF-8 mark or UTF-16
/// read, a JSON array, or an object whose top-level keys name
/// `traceEvents`, however much metadata comes first). Other JSON (and
/// gzip) goes to the trace reader too, which says what it lacks.
pub fn is_kineto(path: &Path) -> bool {
    crate::kineto::input::sniff(path) != crate::kineto::input::Content::Other
}

/// The file the reader will open (the export an `.nsys-rep` converts to, or
/// the trace itself), for the check that no output overwrites an input.
pub fn source_file(path: &Path, nsys: Option<&Path>) -> Result<PathBuf, InputError> {
    if is_kineto(path) {
        return Ok(path.to_path_buf());
    }
    resolve_export(path, nsys).map_err(InputError::from)
}

/// Reads the timeline of `source` (from [`source_file`]); `progress` is
/// called during an nsys read; a trace keeps what `keep` says; an export
/// keeps the NVTX ranges `near` asks for (`nsys::read_timeline_near`), or
/// all of them.
pub fn read(
    source: &Path,
    nvtx: bool,
    keep: crate::kineto::Keep,
    progress: crate::nsys::ReadProgress,
    near: Option<&crate::nsys::Near<'_>>,
) -> Result<Timeline, InputError> {
    if is_kineto(source) {
        return Ok(crate::kineto::read_timeline_keeping(source, keep)
            .map_err(InputError::from)?
            .timeline);
    }
    match near {
        Some(near) => crate::nsys::read_timeline_near(source, nvtx, progress, near),
        None => crate::nsys::read_timeline(source, nvtx, progress),
    }
    .map_err(InputError::from)
}

/// What an export's `TARGET_INFO_GPU` rows say about its device, as the
/// hints the roofs are chosen from: names, compute capabilities, SM
/// counts, L2 sizes and theoretical DRAM bandwidths (`clockRate` is the SM
/// clock, not a memory clock, and no bus width is recorded).
pub fn export_hints(
    input: &std::path::Path,
    gpus: &[crate::nsys::identity::GpuRecord],
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
