//! Which names mean what, for every reader: synchronisation calls, blocking
//! copies, graph launches, stream waits, communication kernels, allocations
//! (CUDA runtime and driver names, and their HIP twins), and [`NameSet`], the
//! set of name ids a reader computes once per name instead of once per row.

use std::collections::HashMap;

/// A set of name ids (`StringIds` ids in nsys, interned ids in Kineto), looked up once per runtime row: a bitmap when
/// the ids are dense (as nsys writes them), else a sorted list, so one id of
/// 4e9 cannot cost a 4 GiB bitmap.
#[derive(Debug, Clone)]
pub enum NameSet {
    /// `bits[id]`.
    Bits(Vec<bool>),
    /// Sorted ids.
    Sorted(Vec<u32>),
}

impl Default for NameSet {
    fn default() -> NameSet {
        NameSet::Bits(Vec::new())
    }
}

impl NameSet {
    /// The ids of `strings` whose text passes `f`.
    pub fn matching(strings: &HashMap<u32, String>, f: impl Fn(&str) -> bool) -> NameSet {
        let mut ids: Vec<u32> = strings
            .iter()
            .filter(|(_, v)| f(v))
            .map(|(k, _)| *k)
            .collect();
        let max = ids.iter().max().map_or(0, |m| *m as usize + 1);
        if max > 4 * strings.len() + 4096 {
            ids.sort_unstable();
            return NameSet::Sorted(ids);
        }
        let mut bits = vec![false; max];
        for i in ids {
            bits[i as usize] = true;
        }
        NameSet::Bits(bits)
    }

    /// True when `id` is in the set.
    pub fn contains(&self, id: &u32) -> bool {
        match self {
            NameSet::Bits(b) => b.get(*id as usize).copied().unwrap_or(false),
            NameSet::Sorted(v) => v.binary_search(id).is_ok(),
        }
    }
}

/// `cudaMalloc`, `cudaMallocAsync`, `cudaFree`, `cudaFreeAsync`,
/// `cudaMallocHost`, `cudaHostAlloc`, `cuMemAlloc_v2`, `cuMemFree_v2`, and
/// the HIP twins (`hipMalloc`, `hipFree`, `hipHostMalloc`, …).
pub fn is_alloc_name(name: &str) -> bool {
    [
        "cudaMalloc",
        "cudaFree",
        "cudaHostAlloc",
        "cuMemAlloc",
        "cuMemFree",
        "cuMemHostAlloc",
        "hipMalloc",
        "hipFree",
        "hipHostMalloc",
        "hipHostFree",
        "hipHostAlloc",
    ]
    .iter()
    .any(|p| name.starts_with(p))
}

/// Communication kernels: NCCL (`ncclDevKernel_AllReduce_Sum_f32_RING_LL`,
/// `ncclKernel_*`), RCCL and NVSHMEM.
pub fn is_comm_kernel_name(name: &str) -> bool {
    let l = name.to_ascii_lowercase();
    l.contains("nccl") || l.contains("rccl") || l.contains("nvshmem")
}

/// `cudaDeviceSynchronize`, `cudaStreamSynchronize_v3020`, `cuCtxSynchronize`,
/// `hipDeviceSynchronize`, …
pub fn is_sync_name(name: &str) -> bool {
    (name.starts_with("cu") || name.starts_with("hip")) && name.contains("Synchronize")
}

/// Copies that block the host until they (and the work queued before them)
/// complete: `cudaMemcpy`, `cudaMemcpy2D`, `cuMemcpyDtoH_v2`,
/// `hipMemcpyWithStream`, … — every runtime/driver copy without `Async` in
/// its name.
pub fn is_blocking_copy_name(name: &str) -> bool {
    (name.starts_with("cudaMemcpy")
        || name.starts_with("cuMemcpy")
        || name.starts_with("hipMemcpy"))
        && !name.contains("Async")
}

/// `cudaGraphLaunch`, `cuGraphLaunch`, `hipGraphLaunch`.
pub fn is_graph_launch_name(name: &str) -> bool {
    (name.starts_with("cu") || name.starts_with("hip")) && name.contains("GraphLaunch")
}

/// `cudaStreamWaitEvent`, `cuStreamWaitEvent`, `hipStreamWaitEvent`: evidence
/// of a GPU-side dependency.
pub fn is_wait_event_name(name: &str) -> bool {
    (name.starts_with("cu") || name.starts_with("hip")) && name.contains("StreamWaitEvent")
}
