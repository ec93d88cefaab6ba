//! Each kernel's time at its roof, per timeline op, from whatever knows it
//! (ncu counters matched to the kernels, the op models of a PyTorch trace
//! with shapes, a collective's message at its link): what the
//! `kernels_at_roof` change sets a kernel to.

use crate::budget::{kernel_key, BoundBasis, BudgetReport, Counters, KernelBound};
use crate::ops::{BoundSide, KernelBounds, KernelModel};
use crate::roofline::RooflineReport;
use crate::timeline::{OpKind, Timeline};
use std::collections::HashMap;

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
    /// else the op models'. An ncu launch is matched as `budget` matches
    /// it (by kernel name and order), counting each name's launches from
    /// the start of each (process, device); [`KernelRoofs::from_steps`]
    /// restarts the count at each step as `budget` does.
    pub fn from_sources(
        tl: &Timeline,
        ncu: Option<&RooflineReport>,
        ops: Option<&KernelBounds>,
    ) -> KernelRoofs {
        let mut windows: Vec<Window> = Vec::new();
        for o in &tl.ops {
            if windows
                .last()
                .is_none_or(|w| (w.pid, w.device) != (o.pid, o.device))
            {
                windows.push(Window {
                    pid: o.pid,
                    device: o.device,
                    start_ns: i64::MIN,
                    end_ns: i64::MAX,
                });
            }
        }
        Self::matched(tl, ncu, ops, &windows)
    }

    /// [`KernelRoofs::from_sources`], with ncu launches matched exactly as
    /// `budget` matches them: the j-th launch of a name inside a step's
    /// window (`[gpu_start_ns, gpu_end_ns]` on its device, kernels that
    /// overlap it, in start order) gets the j-th profiled launch.
    pub fn from_steps(
        tl: &Timeline,
        ncu: Option<&RooflineReport>,
        ops: Option<&KernelBounds>,
        budget: &BudgetReport,
    ) -> KernelRoofs {
        let windows: Vec<Window> = budget
            .steps
            .iter()
            .map(|s| Window {
                pid: s.pid,
                device: s.device,
                start_ns: s.gpu_start_ns,
                end_ns: s.gpu_end_ns,
            })
            .collect();
        Self::matched(tl, ncu, ops, &windows)
    }

    /// The op models' bounds, then ncu's over them where a launch matches
    /// with a known side, counting launches per window.
    fn matched(
        tl: &Timeline,
        ncu: Option<&RooflineReport>,
        ops: Option<&KernelBounds>,
        windows: &[Window],
    ) -> KernelRoofs {
        let mut by_op: Vec<Option<KernelRoof>> = (0..tl.ops.len())
            .map(|i| ops.and_then(|b| b.get(i)).and_then(from_model))
            .collect();
        let Some(counters) = ncu.map(Counters::new) else {
            return KernelRoofs { by_op };
        };
        for w in windows {
            let lo = tl
                .ops
                .partition_point(|o| (o.pid, o.device) < (w.pid, w.device));
            let hi = tl
                .ops
                .partition_point(|o| (o.pid, o.device, o.start_ns) < (w.pid, w.device, w.end_ns));
            let mut occurrences: HashMap<&str, usize> = HashMap::new();
            for (i, op) in tl.ops.iter().enumerate().take(hi).skip(lo) {
                if op.end_ns <= w.start_ns || op.kind != OpKind::Kernel || tl.is_comm(op) {
                    continue;
                }
                let name = tl.name(op.name);
                let occurrence = occurrences.entry(kernel_key(name)).or_insert(0);
                let bound = counters.bound(name, *occurrence, op.end_ns - op.start_ns);
                *occurrence += 1;
                if let Some(roof) = from_counters(&bound) {
                    by_op[i] = Some(roof);
                }
            }
        }
        KernelRoofs { by_op }
    }
}

/// Where kernel launches are counted from 0 (a step, or a whole device).
struct Window {
    pid: u32,
    device: u16,
    start_ns: i64,
    end_ns: i64,
}

/// A bound in ns from a float: rounded half away from zero; `None` when
/// not a finite non-negative figure.
fn rounded(ns: f64) -> Option<i64> {
    (ns.is_finite() && ns >= 0.0).then(|| ns.round().min(i64::MAX as f64) as i64)
}

/// An op model's bound of one kernel.
fn from_model(model: &KernelModel) -> Option<KernelRoof> {
    let KernelModel::Bound { bound_ns, side, .. } = model else {
        return None;
    };
    Some(KernelRoof {
        bound_ns: rounded(*bound_ns)?,
        side: match side {
            BoundSide::Memory => RoofSide::Memory,
            BoundSide::Compute(_) => RoofSide::Compute,
            BoundSide::Link => RoofSide::Link,
        },
    })
}

/// An ncu launch's bound of one kernel, when matched with a side known.
fn from_counters(bound: &KernelBound) -> Option<KernelRoof> {
    if bound.basis == BoundBasis::None {
        return None;
    }
    let side = match bound.bound_by? {
        "memory" => RoofSide::Memory,
        "compute" => RoofSide::Compute,
        "link" => RoofSide::Link,
        _ => return None,
    };
    Some(KernelRoof {
        bound_ns: rounded(bound.bound_ns)?,
        side,
    })
}
