//! After reading: ops sorted by (pid, device, start) and joined to the API
//! call that launched each of them, for every reader.

use super::*;

/// The sorted ops and deduplicated API calls, joined, with what the join
/// tells about CUDA graphs.
pub struct Joined {
    /// Ops sorted by (pid, device, start), `api` set.
    pub ops: Vec<GpuOp>,
    /// API calls sorted by (pid, correlation id), one per launch.
    pub api: Vec<ApiCall>,
    /// `api` by (pid, correlation id), for joining other rows to their call.
    pub calls: CallIndex,
    /// Nested runtime rows dropped.
    pub nested_api_rows: u64,
    /// CUDA graph launch calls.
    pub graph_launches: u64,
    /// How graphs were traced.
    pub graph_trace: GraphTrace,
    /// Graph launches whose GPU work is missing.
    pub diagnostics: Vec<Diagnostic>,
}

/// Sorts the ops and the API calls, drops nested API rows, joins each op
/// to its launching call and tells how CUDA graphs were traced
/// (`graph_rows`: rows of the whole-graph table; `graph_launch_names`: the
/// name ids of graph launch calls).
pub fn sort_and_join(
    mut ops: Vec<GpuOp>,
    mut api: Vec<ApiCall>,
    graph_rows: u64,
    graph_launch_names: &NameSet,
) -> Joined {
    // The two big sorts are independent (the join below works on any op
    // order), so they run side by side: about 12 % of the CPU time on 5 M
    // kernels, otherwise spent on one core.
    std::thread::scope(|s| {
        s.spawn(|| sort_ops(&mut ops));
        sort_calls(&mut api);
    });
    let before = api.len();
    // Nested runtime rows (`cudaLaunchKernel` around `cudaLaunchKernel_v7000`)
    // share (pid, correlationId); the sort puts the outermost (earliest
    // start, latest end) first and dedup keeps it.
    api.dedup_by_key(|a| (a.pid, a.correlation_id));
    let nested_api_rows = (before - api.len()) as u64;
    let graph_launches = api
        .iter()
        .filter(|a| graph_launch_names.contains(&a.name.0))
        .count() as u64;

    let calls = CallIndex::new(&api);
    join_ops_to_api(&mut ops, &api, &calls);

    // Node-traced graphs: kernels whose launching call is a graph launch.
    let graph_node_ops = if graph_launches > 0 {
        ops.iter()
            .filter(|o| o.kind != OpKind::Graph && o.api != NO_API)
            .filter(|o| graph_launch_names.contains(&api[o.api as usize].name.0))
            .count()
    } else {
        0
    };
    let graph_trace = if graph_rows > 0 {
        GraphTrace::Graph
    } else if graph_node_ops > 0 {
        GraphTrace::Node
    } else {
        GraphTrace::None
    };
    let mut diagnostics = Vec::new();
    if graph_launches > 0 && graph_trace == GraphTrace::None {
        diagnostics.push(Diagnostic::new(
            DiagnosticKind::GraphWorkMissing {
                launches: graph_launches,
            },
            format!("{graph_launches} CUDA graph launches but neither node kernels nor whole-graph rows: their GPU work is missing from the export"),
        ));
    }
    Joined {
        ops,
        api,
        calls,
        nested_api_rows,
        graph_launches,
        graph_trace,
        diagnostics,
    }
}

/// Sorts calls by (pid, correlation id, start, latest end first), the
/// order the join and its dedup of nested rows read. An export writes the
/// runtime table in correlation id order, processes interleaved (every
/// corpus export does), so when each process's calls rise strictly by that
/// key a split by process sorts them in linear time; the general sort of
/// 8.4 M calls took 0.53 s on one core of the 2-core machine.
pub fn sort_calls(api: &mut Vec<ApiCall>) {
    let key = |a: &ApiCall| (a.correlation_id, a.start_ns, std::cmp::Reverse(a.end_ns));
    if !(order::rises_per_process(api, |a| a.pid, key) && order::split_by_process(api, |a| a.pid)) {
        api.sort_unstable_by_key(|a| (a.pid, key(a)));
    }
}

/// Sorts ops by [`op_order`]: an in-place bucket pass by (pid, device) (few
/// distinct values), then each bucket by start on its own thread, skipped
/// when already in order (exports usually are, per device). A single
/// `sort_unstable` of 5 M ops cost ~0.5 s on one core.
pub fn sort_ops(ops: &mut [GpuOp]) {
    if ops.is_sorted_by_key(op_order) {
        return;
    }
    const MAX_BUCKETS: usize = 64;
    let mut keys: Vec<(u32, u16)> = Vec::new();
    for o in ops.iter() {
        let k = (o.pid, o.device);
        if !keys.contains(&k) {
            if keys.len() == MAX_BUCKETS {
                ops.sort_unstable_by_key(op_order);
                return;
            }
            keys.push(k);
        }
    }
    keys.sort_unstable();
    let bucket = |o: &GpuOp| keys.partition_point(|k| *k < (o.pid, o.device));
    let mut counts = vec![0usize; keys.len()];
    for o in ops.iter() {
        counts[bucket(o)] += 1;
    }
    let mut ends = Vec::with_capacity(keys.len());
    let mut acc = 0usize;
    for c in &counts {
        acc += c;
        ends.push(acc);
    }
    // American flag sort: swap each op into the next free slot of its bucket.
    let mut next: Vec<usize> = ends.iter().zip(&counts).map(|(e, c)| e - c).collect();
    for b in 0..keys.len() {
        while next[b] < ends[b] {
            let target = bucket(&ops[next[b]]);
            if target == b {
                next[b] += 1;
            } else {
                ops.swap(next[b], next[target]);
                next[target] += 1;
            }
        }
    }
    let mut slices: Vec<&mut [GpuOp]> = Vec::with_capacity(keys.len());
    let mut rest = ops;
    for c in counts {
        let (head, tail) = rest.split_at_mut(c);
        slices.push(head);
        rest = tail;
    }
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(slices.len())
        .max(1);
    let mut per_thread: Vec<Vec<&mut [GpuOp]>> = (0..threads).map(|_| Vec::new()).collect();
    for (i, sl) in slices.into_iter().enumerate() {
        per_thread[i % threads].push(sl);
    }
    std::thread::scope(|s| {
        for work in per_thread {
            s.spawn(move || {
                for sl in work {
                    if !sl.is_sorted_by_key(|o| o.start_ns) {
                        sl.sort_unstable_by_key(|o| o.start_ns);
                    }
                }
            });
        }
    });
}

/// Sort key (pid, device, start) packed in one integer: one comparison per
/// step instead of a tuple's three.
pub fn op_order(o: &GpuOp) -> u128 {
    (u128::from(o.pid) << 80)
        | (u128::from(o.device) << 64)
        | u128::from((o.start_ns as u64) ^ (1 << 63))
}

/// The API calls found by (pid, correlation id) in O(1): what joins each
/// op to its launching call ([`join_ops_to_api`]) and each
/// synchronisation row to its call (`nsys::host`). Built over calls sorted
/// by (pid, correlation id) and deduplicated; it holds indices into them,
/// not the calls.
pub struct CallIndex {
    /// (pid, index of its calls); few processes.
    by_process: Vec<(u32, CorrIndex)>,
}

/// One process's calls, by correlation id.
enum CorrIndex {
    /// Dense ids: `calls[corr - lo]`, the call index or [`NO_API`].
    Direct { lo: u32, calls: Vec<u32> },
    /// Sparse ids (a real export's runtime table holds about one id in ten:
    /// the others went to driver calls and other APIs): `starts[b]` is the
    /// first call (an index into the process's calls, which start at
    /// `first`) whose `(corr - lo) >> shift` is at least `b`, so an id is
    /// looked for among the one or two calls of its bucket instead of by a
    /// binary search over every call (cache misses all the way down: 7 % of
    /// `gaps` on 5 M kernels grown from a real export).
    Buckets {
        lo: u32,
        shift: u32,
        first: usize,
        starts: Vec<u32>,
    },
}

impl CallIndex {
    /// The index of `api`, sorted by (pid, correlation id) and deduplicated.
    pub fn new(api: &[ApiCall]) -> CallIndex {
        // Per process: dense correlation ids get a direct index (corr - min
        // -> call), sparse ones a bucket index. A process with more calls
        // than a u32 counts gets neither: its look-ups search.
        let mut by_process = Vec::new();
        let mut next_first = 0usize;
        for group in api.chunk_by(|a, b| a.pid == b.pid) {
            let first = next_first;
            next_first += group.len();
            let (lo, hi) = (
                group[0].correlation_id,
                group[group.len() - 1].correlation_id,
            );
            let span = (hi - lo) as usize + 1;
            if span <= 4 * group.len() + 1024 {
                let mut v = vec![NO_API; span];
                for (k, a) in group.iter().enumerate() {
                    v[(a.correlation_id - lo) as usize] = (first + k) as u32;
                }
                by_process.push((group[0].pid, CorrIndex::Direct { lo, calls: v }));
            } else if u32::try_from(group.len()).is_ok() {
                // Buckets of 2^shift ids, at most about two per call.
                let mut shift = 0u32;
                while (span >> shift) > 2 * group.len() {
                    shift += 1;
                }
                let buckets = (span >> shift) + 1;
                let mut starts = Vec::with_capacity(buckets + 1);
                let mut k = 0usize;
                for b in 0..=buckets {
                    while k < group.len()
                        && (((group[k].correlation_id - lo) >> shift) as usize) < b
                    {
                        k += 1;
                    }
                    starts.push(k as u32);
                }
                by_process.push((
                    group[0].pid,
                    CorrIndex::Buckets {
                        lo,
                        shift,
                        first,
                        starts,
                    },
                ));
            }
        }
        CallIndex { by_process }
    }

    /// The index in `api` (the calls this index was built over) of the call
    /// `(pid, corr)`, or [`NO_API`].
    pub fn find(&self, api: &[ApiCall], pid: u32, corr: u32) -> u32 {
        match self.by_process.iter().find(|x| x.0 == pid).map(|x| &x.1) {
            Some(CorrIndex::Direct { lo, calls }) => corr
                .checked_sub(*lo)
                .and_then(|k| calls.get(k as usize).copied())
                .unwrap_or(NO_API),
            Some(CorrIndex::Buckets {
                lo,
                shift,
                first,
                starts,
            }) => corr
                .checked_sub(*lo)
                .map(|k| (k >> shift) as usize)
                .filter(|&b| b + 1 < starts.len())
                .and_then(|b| {
                    let (s, e) = (first + starts[b] as usize, first + starts[b + 1] as usize);
                    api.get(s..e)?
                        .iter()
                        .position(|a| a.correlation_id == corr)
                        .map(|j| (s + j) as u32)
                })
                .unwrap_or(NO_API),
            None => api
                .binary_search_by_key(&(pid, corr), |a| (a.pid, a.correlation_id))
                .map_or(NO_API, |k| k as u32),
        }
    }
}

/// Sets `op.api` for every op whose (pid, correlationId) has an API call in
/// `api` (sorted by (pid, correlation id) and deduplicated, `index` built
/// over it); O(1) per op, without sorting the ops.
pub fn join_ops_to_api(ops: &mut [GpuOp], api: &[ApiCall], index: &CallIndex) {
    for op in ops.iter_mut() {
        if op.correlation_id != 0 {
            op.api = index.find(api, op.pid, op.correlation_id);
        }
    }
}

/// Marks the blocking copies that moved pageable memory: the syncs whose
/// (pid, correlation id) launched a pageable memcpy.
pub fn mark_pageable_syncs(syncs: &mut [SyncCall], ops: &[GpuOp], api: &[ApiCall]) {
    let mut pageable: Vec<(u32, u32)> = ops
        .iter()
        .filter(|o| o.is_pageable() && o.api != NO_API)
        .map(|o| (o.pid, api[o.api as usize].correlation_id))
        .collect();
    if pageable.is_empty() {
        return;
    }
    pageable.sort_unstable();
    for s in syncs.iter_mut() {
        s.pageable = pageable.binary_search(&(s.pid, s.correlation_id)).is_ok();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bucketed_sort_orders_like_a_plain_sort() {
        // Three processes x two devices, starts from a fixed LCG so the
        // input is neither sorted nor grouped; compare the (pid, device,
        // start) sequence with a plain sort of the same ops.
        let mut x: u64 = 12345;
        let mut ops: Vec<GpuOp> = (0..5000)
            .map(|i| {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                GpuOp {
                    start_ns: (x >> 20) as i64 % 1_000_000 - 500_000,
                    end_ns: 0,
                    pid: (x >> 60) as u32 % 3,
                    stream: 0,
                    correlation_id: i,
                    name: NameRef(0),
                    api: NO_API,
                    device: (x >> 50) as u16 % 2,
                    kind: OpKind::Kernel,
                    flags: 0,
                }
            })
            .collect();
        let mut expect = ops.clone();
        expect.sort_unstable_by_key(op_order);
        sort_ops(&mut ops);
        let key = |o: &GpuOp| (o.pid, o.device, o.start_ns);
        assert_eq!(
            ops.iter().map(key).collect::<Vec<_>>(),
            expect.iter().map(key).collect::<Vec<_>>()
        );
        // Already sorted input stays as it is.
        let before = ops.clone();
        sort_ops(&mut ops);
        assert_eq!(ops, before);
    }
    /// The join through either index finds what a binary search over the
    /// sorted calls finds: a process with dense ids (direct index), one with
    /// about one id in ten (a real export's share; buckets) and one with a
    /// single call; ops whose id is missing, below or above every call,
    /// and of a process without calls.
    #[test]
    fn join_indexes_equal_a_binary_search() {
        let call = |pid: u32, correlation_id: u32| ApiCall {
            start_ns: 0,
            end_ns: 0,
            pid,
            tid: 0,
            correlation_id,
            name: NameRef(0),
        };
        let mut api: Vec<ApiCall> = Vec::new();
        for k in 0..3000u32 {
            api.push(call(1, 100 + k + k / 7)); // dense
            api.push(call(2, 5_000 + 10 * k + (k * k) % 9)); // sparse
        }
        api.push(call(3, 42));
        api.sort_unstable_by_key(|a| (a.pid, a.correlation_id));
        api.dedup_by_key(|a| (a.pid, a.correlation_id));
        let op = |pid: u32, correlation_id: u32| GpuOp {
            start_ns: 0,
            end_ns: 0,
            pid,
            stream: 0,
            correlation_id,
            name: NameRef(0),
            api: NO_API,
            device: 0,
            kind: OpKind::Kernel,
            flags: 0,
        };
        let mut ops: Vec<GpuOp> = Vec::new();
        for c in 0..40_000u32 {
            for pid in [1, 2, 3, 4] {
                ops.push(op(pid, c));
            }
        }
        join_ops_to_api(&mut ops, &api, &CallIndex::new(&api));
        let mut found = 0;
        for o in &ops {
            let want = api
                .binary_search_by_key(&(o.pid, o.correlation_id), |a| (a.pid, a.correlation_id))
                .map_or(NO_API, |k| k as u32);
            let want = if o.correlation_id == 0 { NO_API } else { want };
            assert_eq!(o.api, want, "pid {} corr {}", o.pid, o.correlation_id);
            found += usize::from(want != NO_API);
        }
        // Both kinds of index were exercised with hits.
        assert!(ops.iter().any(|o| o.pid == 1 && o.api != NO_API));
        assert!(ops.iter().any(|o| o.pid == 2 && o.api != NO_API));
        assert!(found > 2000, "{found}");
    }
}
