//! One door for every timeline input: a Kineto trace (JSON or gzip, told by
//! its first bytes) goes to `kineto`, anything else to `nsys` (an `.nsys-rep`
//! converted first). `gaps`, `budget` and `diff` read through here, so each
//! takes both formats the same way.

use crate::error::InputError;
use crate::nsys::convert::resolve_export;
use crate::nsys::Timeline;
use std::path::{Path, PathBuf};

/// True when `path` is read as a Kineto trace.
pub fn is_kineto(path: &Path) -> bool {
    crate::kineto::looks_like_trace(path)
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
/// called during an nsys read.
pub fn read(
    source: &Path,
    nvtx: bool,
    progress: crate::nsys::ReadProgress,
) -> Result<Timeline, InputError> {
    if is_kineto(source) {
        return Ok(crate::kineto::read_timeline(source)
            .map_err(InputError::from)?
            .timeline);
    }
    crate::nsys::read_timeline(source, nvtx, progress).map_err(InputError::from)
}
