//! Which op a kernel is charged to: the ops whose interval holds the
//! kernel's launch call on the same host thread (the op stack at the
//! launch, as HTA and the profiler's own tree find it; traces written by
//! PyTorch before 2.1 give kernels the launch's correlation as `External
//! id`, not the op's, so the stack is what links them on every trace),
//! innermost first; the first with a model takes it (`aten::linear` →
//! `aten::addmm`: `addmm`), else the innermost with shapes says why none.

use crate::opmodel::OpRecord;

/// Most ops walked up from the innermost at a launch (a real stack is
/// tens deep; a hostile trace costs this much per kernel at most).
const MAX_DEPTH: usize = 512;

/// Where a kernel's time goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Charge {
    /// To this op record (index): modelled, or the innermost with shapes
    /// when no op of the stack has a model.
    Record(usize),
    /// No op with shapes holds the launch.
    NoOp,
}

/// Each record's parent: the innermost record that holds it on its
/// thread. `records` are sorted by (pid, tid, start, end descending).
pub fn parents(records: &[OpRecord]) -> Vec<Option<u32>> {
    let mut parent = Vec::with_capacity(records.len());
    let mut stack: Vec<usize> = Vec::new();
    for r in records {
        while let Some(&top) = stack.last() {
            let t = &records[top];
            if (t.pid, t.tid) == (r.pid, r.tid) && t.end_ns >= r.end_ns {
                break;
            }
            stack.pop();
        }
        parent.push(stack.last().map(|&i| i as u32));
        stack.push(parent.len() - 1);
    }
    parent
}

/// The charge of a launch at `at_ns` on thread (`pid`, `tid`): the
/// innermost record holding it whose `modelled` is true, else the
/// innermost holding it, else [`Charge::NoOp`].
pub fn charge(
    records: &[OpRecord],
    parents: &[Option<u32>],
    modelled: &[bool],
    (pid, tid): (u32, u32),
    at_ns: i64,
) -> Charge {
    let after = records.partition_point(|r| (r.pid, r.tid, r.start_ns) <= (pid, tid, at_ns));
    let mut at = after.checked_sub(1);
    let mut innermost = None;
    for _ in 0..MAX_DEPTH {
        let Some(i) = at else { break };
        let r = &records[i];
        if (r.pid, r.tid) != (pid, tid) {
            break;
        }
        if r.end_ns >= at_ns {
            innermost.get_or_insert(i);
            if modelled[i] {
                return Charge::Record(i);
            }
        }
        at = parents[i].map(|p| p as usize);
    }
    innermost.map_or(Charge::NoOp, Charge::Record)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::opmodel::OpCall;

    fn rec(name: &str, tid: u32, start_ns: i64, end_ns: i64) -> OpRecord {
        OpRecord {
            call: OpCall {
                name: name.into(),
                args: Vec::new(),
                comm: None,
                annotation: None,
            },
            pid: 1,
            tid,
            start_ns,
            end_ns,
        }
    }

    #[test]
    fn a_launch_goes_to_the_innermost_modelled_op_of_its_thread() {
        // linear [0, 100] ⊃ t [10, 20], addmm [30, 90]; thread 2 has an op
        // over the same time that must never take thread 1's launches.
        let records = vec![
            rec("aten::linear", 1, 0, 100),
            rec("aten::t", 1, 10, 20),
            rec("aten::addmm", 1, 30, 90),
            rec("aten::mm", 2, 0, 100),
        ];
        let parents = parents(&records);
        assert_eq!(parents, vec![None, Some(0), Some(0), None]);
        let all = [true, true, true, true];
        // A launch at 50 lies in addmm (and linear): addmm, the innermost.
        assert_eq!(
            charge(&records, &parents, &all, (1, 1), 50),
            Charge::Record(2)
        );
        // At 25: after t ended, inside linear only.
        assert_eq!(
            charge(&records, &parents, &all, (1, 1), 25),
            Charge::Record(0)
        );
        // addmm without a model: linear, the next one out, takes it.
        let no_addmm = [true, true, false, true];
        assert_eq!(
            charge(&records, &parents, &no_addmm, (1, 1), 50),
            Charge::Record(0)
        );
        // None modelled: the innermost holding it says why.
        let none = [false; 4];
        assert_eq!(
            charge(&records, &parents, &none, (1, 1), 50),
            Charge::Record(2)
        );
        // Outside every op, or on a thread without ops: no op.
        assert_eq!(charge(&records, &parents, &all, (1, 1), 150), Charge::NoOp);
        assert_eq!(charge(&records, &parents, &all, (1, 3), 50), Charge::NoOp);
    }
}
