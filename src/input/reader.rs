//! One small trait every timeline reader implements ([`TimelineReader`]),
//! and the registration that picks the reader of an input's kind
//! ([`READERS`]): adding a reader is one module implementing the trait and
//! one line there (docs/architecture.md walks a rocpd reader through it).

use super::kind::InputKind;
use crate::error::InputError;
use crate::timeline::Timeline;
use std::path::Path;

/// What a timeline read keeps and reports, the same for every reader
/// (each ignores what its format does not have).
#[derive(Clone, Copy)]
pub struct ReadOptions<'a> {
    /// The NVTX ranges were asked for (`--nvtx`): a reader without them
    /// says so in a diagnostic.
    pub nvtx: bool,
    /// What beyond the analyses' common needs to keep (collectives'
    /// arguments).
    pub keep: crate::kineto::Keep,
    /// Called with (rows read, rows expected) while a database is read.
    pub progress: crate::nsys::ReadProgress<'a>,
    /// Builds, from the timeline read without its ranges, the filter of
    /// the ranges to keep; `None` keeps them all.
    pub near: Option<&'a crate::nsys::Near<'a>>,
}

/// A reader of one input kind into the [`Timeline`] model (its
/// [`crate::timeline::Source`] names the tool).
pub trait TimelineReader: Sync {
    /// True for the kinds it reads.
    fn reads(&self, kind: &InputKind) -> bool;

    /// Reads `path` (a file of a kind it [`reads`](Self::reads)).
    fn read(&self, path: &Path, options: &ReadOptions<'_>) -> Result<Timeline, InputError>;
}

/// Nsight Systems SQLite exports (an `.nsys-rep` is exported first, by the
/// caller: `nsys::convert::resolve_export`).
struct NsysReader;

impl TimelineReader for NsysReader {
    fn reads(&self, kind: &InputKind) -> bool {
        matches!(kind, InputKind::NsysExport | InputKind::NsysReport)
    }

    fn read(&self, path: &Path, options: &ReadOptions<'_>) -> Result<Timeline, InputError> {
        match options.near {
            Some(near) => {
                crate::nsys::read_timeline_near(path, options.nvtx, options.progress, near)
            }
            None => crate::nsys::read_timeline(path, options.nvtx, options.progress),
        }
        .map_err(InputError::from)
    }
}

/// PyTorch profiler (Kineto) Chrome-trace JSON, plain or gzip.
struct KinetoReader;

impl TimelineReader for KinetoReader {
    fn reads(&self, kind: &InputKind) -> bool {
        *kind == InputKind::PyTorchTrace
    }

    fn read(&self, path: &Path, options: &ReadOptions<'_>) -> Result<Timeline, InputError> {
        Ok(crate::kineto::read_timeline_keeping(path, options.keep)?.timeline)
    }
}

/// Every timeline reader, asked in order.
pub const READERS: &[&dyn TimelineReader] = &[&NsysReader, &KinetoReader];

/// The reader of `kind`, if a timeline reader reads it.
pub fn timeline_reader(kind: &InputKind) -> Option<&'static dyn TimelineReader> {
    READERS.iter().copied().find(|r| r.reads(kind))
}

/// Reads the timeline at `path`, of `kind` (from [`super::identify`]) with
/// the reader registered for it; a kind no reader takes is an error
/// naming it.
pub fn read_timeline(
    path: &Path,
    kind: &InputKind,
    options: &ReadOptions<'_>,
) -> Result<Timeline, InputError> {
    let reader = timeline_reader(kind).ok_or_else(|| {
        InputError::new(format!(
            "{}: {kind}, not a timeline; give {}",
            path.display(),
            super::TIMELINE.what
        ))
    })?;
    reader.read(path, options)
}
