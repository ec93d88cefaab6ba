//! The copy engines' evidence: which copy (or memset) occupied the engine
//! of a direction on a device during an interval. A queued copy is
//! copy-engine scheduling only when such a copy is found (docs/gaps.md,
//! the classes); the report names it. A leaf: it reads the timeline only.

use crate::timeline::{CopyKind, GpuOp, OpKind, Timeline};

/// Which engine queue an op waits in: a copy's direction, or memsets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum EngineLane {
    /// Copies of one direction (`HtoD`, `DtoH`, …) share its engine.
    Copy(CopyKind),
    /// Memsets.
    Memset,
}

impl EngineLane {
    /// The lane of `op`; `None` for kernels and graphs.
    pub fn of(op: &GpuOp) -> Option<EngineLane> {
        match op.kind {
            OpKind::Memcpy => op.copy_kind().map(EngineLane::Copy),
            OpKind::Memset => Some(EngineLane::Memset),
            _ => None,
        }
    }
}

/// One copy or memset in the index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Entry {
    device: u16,
    lane: EngineLane,
    start_ns: i64,
    end_ns: i64,
    /// Index in [`Timeline::ops`].
    op: usize,
}

/// Copies and memsets by (device, lane, start), over every process.
#[derive(Debug, Default)]
pub struct CopyEngines {
    entries: Vec<Entry>,
    /// `reach[i]`: the latest end of the entries of `entries[i]`'s
    /// (device, lane) up to `i`: a look back stops at the first entry whose
    /// reach is at or before the interval's start.
    reach: Vec<i64>,
}

/// Entries looked at back from an interval's end (copies of one direction
/// on one device overlapping one gap are few; the bound keeps a hostile
/// export's work linear).
const MAX_BACK: usize = 256;

/// Who may not count as the other copy: the op's own process (a device gap:
/// nothing of it ran during the gap) or its own (process, stream) (a
/// stream gap).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exclude {
    /// Copies of this process.
    Process(u32),
    /// Copies of this (process, stream).
    Stream(u32, u32),
}

impl CopyEngines {
    /// Indexes the copies and memsets of `tl`.
    pub fn new(tl: &Timeline) -> CopyEngines {
        let mut entries: Vec<Entry> = tl
            .ops
            .iter()
            .enumerate()
            .filter_map(|(i, o)| {
                Some(Entry {
                    device: o.device,
                    lane: EngineLane::of(o)?,
                    start_ns: o.start_ns,
                    end_ns: o.end_ns,
                    op: i,
                })
            })
            .collect();
        entries.sort_unstable();
        let mut reach = Vec::with_capacity(entries.len());
        for (i, e) in entries.iter().enumerate() {
            let same = i > 0 && (entries[i - 1].device, entries[i - 1].lane) == (e.device, e.lane);
            reach.push(if same {
                e.end_ns.max(reach[i - 1])
            } else {
                e.end_ns
            });
        }
        CopyEngines { entries, reach }
    }

    /// A copy of `lane` on `device` running during `[g0, g1)`, not
    /// `exclude`d: the latest-starting one (its index in
    /// [`Timeline::ops`]), or `None`.
    pub fn occupied(
        &self,
        tl: &Timeline,
        device: u16,
        lane: EngineLane,
        (g0, g1): (i64, i64),
        exclude: Exclude,
    ) -> Option<usize> {
        let j = self
            .entries
            .partition_point(|e| (e.device, e.lane, e.start_ns) < (device, lane, g1));
        self.entries[..j]
            .iter()
            .zip(&self.reach[..j])
            .rev()
            .take(MAX_BACK)
            .take_while(|(e, &reach)| (e.device, e.lane) == (device, lane) && reach > g0)
            .map(|x| x.0)
            .find(|e| {
                let o = &tl.ops[e.op];
                let excluded = match exclude {
                    Exclude::Process(pid) => o.pid == pid,
                    Exclude::Stream(pid, stream) => (o.pid, o.stream) == (pid, stream),
                };
                e.end_ns > g0 && !excluded
            })
            .map(|e| e.op)
    }
}
