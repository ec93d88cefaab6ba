//! Rows put in process order in linear time, for the readers' sorts: an
//! export writes each big table in time or correlation id order, processes
//! interleaved, so a stable split by process (a few) leaves each process's
//! rows already sorted, where a general sort of tens of millions of rows
//! cost a tenth of `gaps` on a grown export (docs/bench-gaps.md).

/// Most processes [`split_by_process`] takes; more go to the caller's sort.
pub const MAX_SPLIT_PROCESSES: usize = 16;

/// Groups `v` by process, lowest pid first, each process's rows in the
/// order they had in `v`: one sequential pass. The first process's rows
/// close up in place, the others' wait in a side vector (at most the rows
/// of the other processes, like a stable sort's own buffer, and no random
/// access over the rows: moving them along a permutation's cycles cost
/// twice a sort on 1 GB of NVTX ranges), then come back process by process
/// into the freed room. `false`, with `v` as it was, when the rows hold
/// more than [`MAX_SPLIT_PROCESSES`] processes or the side vector cannot be
/// allocated: the caller sorts instead.
pub fn split_by_process<T: Clone>(v: &mut Vec<T>, pid: impl Fn(&T) -> u32) -> bool {
    let mut pids: Vec<u32> = Vec::new();
    let mut last = None;
    for r in v.iter() {
        let p = pid(r);
        if last != Some(p) {
            last = Some(p);
            if !pids.contains(&p) {
                if pids.len() == MAX_SPLIT_PROCESSES {
                    return false;
                }
                pids.push(p);
            }
        }
    }
    if pids.len() < 2 {
        return true;
    }
    pids.sort_unstable();
    let first = pids[0];
    let others = v.iter().filter(|r| pid(r) != first).count();
    let mut rest: Vec<T> = Vec::new();
    if rest.try_reserve_exact(others).is_err() {
        return false;
    }
    let mut kept = 0;
    for i in 0..v.len() {
        if pid(&v[i]) == first {
            v.swap(kept, i);
            kept += 1;
        } else {
            rest.push(v[i].clone());
        }
    }
    v.truncate(kept);
    for p in &pids[1..] {
        v.extend(rest.iter().filter(|r| pid(r) == *p).cloned());
    }
    true
}

/// Whether each process's rows in `v` rise strictly by `key`: then a stable
/// split by process ([`split_by_process`]) sorts `v` by (pid, key), and no
/// two rows tie, so every sort gives that same order. At most
/// [`MAX_SPLIT_PROCESSES`] processes are followed; more give `false`.
pub fn rises_per_process<T, K: PartialOrd>(
    v: &[T],
    pid: impl Fn(&T) -> u32,
    key: impl Fn(&T) -> K,
) -> bool {
    let mut last: Vec<(u32, K)> = Vec::new();
    for r in v {
        let (p, k) = (pid(r), key(r));
        match last.iter().position(|(q, _)| *q == p) {
            Some(i) if last[i].1 >= k => return false,
            Some(i) => last[i].1 = k,
            None if last.len() == MAX_SPLIT_PROCESSES => return false,
            None => last.push((p, k)),
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The split gives a stable sort by pid (the second field says which
    /// row came first); too many processes leave the rows as they were.
    #[test]
    fn split_is_a_stable_sort_by_process() {
        let rows: Vec<(u32, usize)> = (0..300).map(|i| ([7, 3, 9, 3, 7][i % 5], i)).collect();
        let mut want = rows.clone();
        want.sort_by_key(|r| r.0);
        let mut got = rows.clone();
        assert!(split_by_process(&mut got, |r| r.0));
        assert_eq!(got, want);
        let many: Vec<(u32, usize)> = (0..40).map(|i| (40 - i as u32, i)).collect();
        let mut got = many.clone();
        assert!(!split_by_process(&mut got, |r| r.0));
        assert_eq!(got, many);
    }

    /// Rising per process, across interleaved processes; a tie or a step
    /// back in one process is not.
    #[test]
    fn rising_is_checked_per_process() {
        let rows = [(1, 10), (2, 5), (1, 11), (2, 6), (1, 12)];
        assert!(rises_per_process(&rows, |r| r.0, |r| r.1));
        let tie = [(1, 10), (2, 5), (1, 10)];
        assert!(!rises_per_process(&tie, |r| r.0, |r| r.1));
        let back = [(1, 10), (2, 5), (2, 4)];
        assert!(!rises_per_process(&back, |r| r.0, |r| r.1));
    }
}
