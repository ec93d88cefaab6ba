//! Charging a step's busy time to its ops: each instant of the busy union
//! inside the GPU window goes to exactly one op, the running op that
//! started first ("first come"), so the charged times sum to the busy
//! union and concurrent streams are never counted twice.

use crate::timeline::GpuOp;

/// The ops of one (process, device), sorted by start, with the running
/// maximum of their ends (to find the ops overlapping a window by binary
/// search even when a long op started well before it).
pub(crate) struct DeviceOps<'a> {
    /// Process id.
    pub(crate) pid: u32,
    /// Device id.
    pub(crate) device: u16,
    /// The ops, sorted by start.
    pub(crate) ops: Vec<&'a GpuOp>,
    /// Each op's index in the timeline's ops.
    index: Vec<usize>,
    /// `max_end[i]` = max end of `ops[..=i]`, ns.
    max_end: Vec<i64>,
}

impl<'a> DeviceOps<'a> {
    /// Groups ops already sorted by (pid, device, start) and kept by `keep`.
    pub(crate) fn group(ops: &'a [GpuOp], keep: impl Fn(&GpuOp) -> bool) -> Vec<DeviceOps<'a>> {
        let mut out: Vec<DeviceOps<'a>> = Vec::new();
        for (index, op) in ops.iter().enumerate().filter(|(_, o)| keep(o)) {
            match out.last_mut() {
                Some(d) if (d.pid, d.device) == (op.pid, op.device) => {
                    let m = d.max_end.last().copied().unwrap_or(i64::MIN).max(op.end_ns);
                    d.ops.push(op);
                    d.index.push(index);
                    d.max_end.push(m);
                }
                _ => out.push(DeviceOps {
                    pid: op.pid,
                    device: op.device,
                    ops: vec![op],
                    index: vec![index],
                    max_end: vec![op.end_ns],
                }),
            }
        }
        out
    }

    /// True when some op overlaps `[w0, w1)`.
    pub(crate) fn overlaps(&self, w0: i64, w1: i64) -> bool {
        let lo = self.max_end.partition_point(|&e| e <= w0);
        self.ops.get(lo).is_some_and(|o| o.start_ns < w1)
    }

    /// Each op overlapping `[w0, w1)` with the time charged to it and its
    /// own time inside the window, in start order. Ops that are not
    /// communication (`is_comm` false) are charged first come; then each
    /// communication kernel, first come among them, only the instants no
    /// other op covers: what it charges is exposed communication.
    pub(crate) fn charge(
        &self,
        w0: i64,
        w1: i64,
        is_comm: impl Fn(&GpuOp) -> bool,
    ) -> Vec<Charged<'a>> {
        let lo = self.max_end.partition_point(|&e| e <= w0);
        let mut covered = w0;
        let mut out = Vec::new();
        // The busy union of the ops that are not communication, merged.
        let mut others: Vec<(i64, i64)> = Vec::new();
        let mut comm: Vec<usize> = Vec::new();
        let indexed = self.ops[lo..].iter().zip(&self.index[lo..]);
        for (op, &index) in indexed.take_while(|(o, _)| o.start_ns < w1) {
            let (s, e) = (op.start_ns.max(w0), op.end_ns.min(w1));
            if e <= w0 {
                continue;
            }
            if is_comm(op) {
                comm.push(out.len());
                out.push(Charged {
                    op,
                    index,
                    charged_ns: 0,
                    in_window_ns: (e - s).max(0),
                });
                continue;
            }
            // Everything before `covered` already went to an op that
            // started no later than this one and is still running there.
            let charged = (e - s.max(covered)).max(0);
            if charged > 0 {
                match others.last_mut() {
                    Some(l) if s.max(covered) <= l.1 => l.1 = l.1.max(e),
                    _ => others.push((s.max(covered), e)),
                }
            }
            covered = covered.max(e);
            out.push(Charged {
                op,
                index,
                charged_ns: charged,
                in_window_ns: (e - s).max(0),
            });
        }
        let mut comm_covered = w0;
        for i in comm {
            let (s, e) = (out[i].op.start_ns.max(w0), out[i].op.end_ns.min(w1));
            let new = (s.max(comm_covered), e);
            comm_covered = comm_covered.max(e);
            if new.1 > new.0 {
                out[i].charged_ns = new.1 - new.0 - covered_by(&others, new);
            }
        }
        out
    }
}

/// Length of `[a, b)` covered by sorted disjoint intervals `iv`.
fn covered_by(iv: &[(i64, i64)], (a, b): (i64, i64)) -> i64 {
    let i = iv.partition_point(|x| x.1 <= a);
    iv[i..]
        .iter()
        .take_while(|x| x.0 < b)
        .map(|x| (x.1.min(b) - x.0.max(a)).max(0))
        .sum()
}

/// One op of a step and the time charged to it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Charged<'a> {
    /// The op.
    pub(crate) op: &'a GpuOp,
    /// Its index in the timeline's ops.
    pub(crate) index: usize,
    /// Busy-union time charged to it, ns.
    pub(crate) charged_ns: i64,
    /// Its own time inside the window, ns (≥ `charged_ns`).
    pub(crate) in_window_ns: i64,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::timeline::{NameRef, OpKind, NO_API};

    fn op(s: i64, e: i64) -> GpuOp {
        GpuOp {
            start_ns: s,
            end_ns: e,
            pid: 1,
            stream: 7,
            correlation_id: 0,
            name: NameRef(0),
            api: NO_API,
            device: 0,
            kind: OpKind::Kernel,
            flags: 0,
        }
    }

    #[test]
    fn first_come_charges_the_busy_union_once() {
        // A [0,10), B [2,5) under A, C [4,12), D [20,30): union in [0, 25)
        // = [0,12) + [20,25) = 17; A 10, B 0, C 2 (10..12), D 5 (20..25).
        let ops = [op(0, 10), op(2, 5), op(4, 12), op(20, 30)];
        let g = DeviceOps::group(&ops, |_| true);
        let c = g[0].charge(0, 25, |_| false);
        let got: Vec<(i64, i64)> = c.iter().map(|c| (c.charged_ns, c.in_window_ns)).collect();
        assert_eq!(got, vec![(10, 10), (0, 3), (2, 8), (5, 5)]);
        // A window starting inside a long op: [3, 11): A 3..10 = 7, B 0,
        // C 10..11 = 1.
        let c = g[0].charge(3, 11, |_| false);
        let got: Vec<i64> = c.iter().map(|c| c.charged_ns).collect();
        assert_eq!(got, vec![7, 0, 1]);
        assert!(!g[0].overlaps(12, 20) && g[0].overlaps(11, 13));
    }

    #[test]
    fn communication_is_charged_only_where_nothing_else_runs() {
        // Compute A [0,10), comm C [5,20), compute B [12,14): C overlaps A
        // on [5,10) and B on [12,14); exposed = [10,12) + [14,20) = 8.
        // A 10, C 8, B 2; the union [0,20) = 20 is charged once.
        let ops = [op(0, 10), op(5, 20), op(12, 14)];
        let g = DeviceOps::group(&ops, |_| true);
        let c = g[0].charge(0, 25, |o| o.start_ns == 5);
        let got: Vec<i64> = c.iter().map(|c| c.charged_ns).collect();
        assert_eq!(got, vec![10, 8, 2]);
    }
}
