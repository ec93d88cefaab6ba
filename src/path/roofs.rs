//! Each kernel's time at its roof, per timeline op, from whatever knows it
//! (ncu counters matched to the kernels, the op models of a PyTorch trace
//! with shapes, a collective's message at its link): what the
//! `kernels_at_roof` change sets a kernel to.

use crate::ops::KernelBounds;
use crate::roofline::RooflineReport;
use crate::timeline::Timeline;

/// Which roof bounds a kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RoofSide {
    /// DRAM bandwidth.
    Memory,
    /// A compute path's peak.
    Compute,
    /// A collective's link (busbw).
    Link,
}

/// One kernel's bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KernelRoof {
    /// Its time at the roof, ns.
    pub bound_ns: i64,
    /// The roof that binds.
    pub side: RoofSide,
}

/// Per timeline op (indexed as `Timeline::ops`), its bound when known.
#[derive(Debug, Clone, Default)]
pub struct KernelRoofs {
    /// One entry per op; `None`: not a kernel, or no bound known.
    pub by_op: Vec<Option<KernelRoof>>,
}

impl KernelRoofs {
    /// The bound of the op at `index`, when known.
    pub fn get(&self, index: usize) -> Option<KernelRoof> {
        self.by_op.get(index).copied().flatten()
    }

    /// The bounds of `tl`'s kernels: ncu's where a counter row matches,
    /// else the op models'.
    ///
    /// Placeholder until the matching lands: nothing is known.
    pub fn from_sources(
        tl: &Timeline,
        _ncu: Option<&RooflineReport>,
        _ops: Option<&KernelBounds>,
    ) -> KernelRoofs {
        KernelRoofs {
            by_op: vec![None; tl.ops.len()],
        }
    }
}
