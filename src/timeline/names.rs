//! Which names mean what, for every reader and every analysis: one table of
//! CUDA runtime, driver and HIP call names ([`CALLS`], read by
//! [`CallKind::of`]) from which the call's family ([`CallFamily`]: the row
//! of `docs/gaps.md`'s evidence table), the host detail (allocation or
//! not), and the sets of synchronisation calls, blocking copies, graph
//! launches, stream waits and allocations are all derived; the direction of
//! a copy ([`CopyKind`]); communication kernels; and [`NameSet`], the set of
//! name ids a reader computes once per name instead of once per row.

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

/// What a CUDA runtime/driver or HIP call does, as far as the gap analysis
/// cares: the finest distinction any reader or rule makes. Every set and
/// family below is derived from it, so `hipMalloc` and `cudaMalloc`,
/// `cuMemCreate` and `cudaHostRegister` cannot disagree between the host
/// detail and the advice.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum CallKind {
    /// A kernel launch (`cudaLaunchKernel`, `cuLaunchKernel`, `hipModuleLaunchKernel`).
    KernelLaunch,
    /// A CUDA graph launch (`cudaGraphLaunch`, `cuGraphLaunch`, `hipGraphLaunch`).
    GraphLaunch,
    /// An asynchronous copy (`cudaMemcpyAsync`, `cuMemcpyHtoDAsync`, `hipMemcpyAsync`).
    AsyncCopy,
    /// A memset (`cudaMemset*`, `cuMemsetD8*`, `hipMemset*`).
    Memset,
    /// A copy without `Async`: it blocks the host until it and the work
    /// queued before it complete (`cudaMemcpy`, `cuMemcpyDtoH`, `hipMemcpy`).
    BlockingCopy,
    /// Synchronous allocation or release (`cudaMalloc`, `cudaFree`,
    /// `cudaHostAlloc`, `cudaHostRegister`, `cuMemAlloc`, `cuMemCreate`,
    /// `cuMemMap`, `hipMalloc`, `hipHostMalloc`).
    Alloc,
    /// Stream-ordered allocation (`cudaMallocAsync`, `cudaFreeAsync`,
    /// `cuMemAllocAsync`, `hipMallocAsync`).
    PoolAlloc,
    /// Stream or event creation and destruction.
    StreamEvent,
    /// Module or library loading (`cuModuleLoad*`, `cuLibraryLoad*`,
    /// `cudaGetFuncBySymbol`, `nvrtc*`).
    ModuleLoad,
    /// A blocking synchronisation (`*Synchronize`).
    Synchronize,
    /// A query that never blocks (`cudaEventQuery`, `cudaStreamQuery`).
    Query,
    /// A GPU-side wait (`cudaStreamWaitEvent`, `cuStreamWaitEvent`).
    WaitEvent,
    /// Graph construction (`cudaGraphInstantiate`, `cudaStreamBeginCapture`, `cudaGraphAdd*`).
    GraphBuild,
    /// Anything else.
    Other,
}

/// The call-name table: the stem of a name (after its `cuda`, `cu` or `hip`
/// prefix) starting with the first column has the second's kind; the first
/// match wins, so longer stems come before their prefixes (`MallocAsync`
/// before `Malloc`). `*Synchronize` anywhere in the stem, `Memcpy` with or
/// without `Async` and `nvrtc*` are decided in [`CallKind::of`].
pub const CALLS: &[(&str, CallKind)] = &[
    ("MallocAsync", CallKind::PoolAlloc),
    ("MallocFromPoolAsync", CallKind::PoolAlloc),
    ("FreeAsync", CallKind::PoolAlloc),
    ("MemAllocAsync", CallKind::PoolAlloc),
    ("MemAllocFromPoolAsync", CallKind::PoolAlloc),
    ("MemFreeAsync", CallKind::PoolAlloc),
    ("Malloc", CallKind::Alloc),
    ("Free", CallKind::Alloc),
    ("HostAlloc", CallKind::Alloc),
    ("HostMalloc", CallKind::Alloc),
    ("HostFree", CallKind::Alloc),
    ("HostRegister", CallKind::Alloc),
    ("HostUnregister", CallKind::Alloc),
    ("ExtMallocWithFlags", CallKind::Alloc),
    ("MemAlloc", CallKind::Alloc),
    ("MemFree", CallKind::Alloc),
    ("MemHostAlloc", CallKind::Alloc),
    ("MemHostRegister", CallKind::Alloc),
    ("MemCreate", CallKind::Alloc),
    ("MemMap", CallKind::Alloc),
    ("MemRelease", CallKind::Alloc),
    ("MemUnmap", CallKind::Alloc),
    ("StreamCreate", CallKind::StreamEvent),
    ("StreamDestroy", CallKind::StreamEvent),
    ("EventCreate", CallKind::StreamEvent),
    ("EventDestroy", CallKind::StreamEvent),
    ("ModuleLoad", CallKind::ModuleLoad),
    ("ModuleGetFunction", CallKind::ModuleLoad),
    ("LibraryLoad", CallKind::ModuleLoad),
    ("LibraryGetKernel", CallKind::ModuleLoad),
    ("GetFuncBySymbol", CallKind::ModuleLoad),
    ("FuncGetAttributes", CallKind::ModuleLoad),
    ("LinkCreate", CallKind::ModuleLoad),
    ("LinkAddData", CallKind::ModuleLoad),
    ("LinkComplete", CallKind::ModuleLoad),
    ("EventQuery", CallKind::Query),
    ("StreamQuery", CallKind::Query),
    ("StreamWaitEvent", CallKind::WaitEvent),
    ("GraphInstantiate", CallKind::GraphBuild),
    ("StreamBeginCapture", CallKind::GraphBuild),
    ("StreamEndCapture", CallKind::GraphBuild),
    ("GraphCreate", CallKind::GraphBuild),
    ("GraphAdd", CallKind::GraphBuild),
    ("GraphExecUpdate", CallKind::GraphBuild),
    ("GraphLaunch", CallKind::GraphLaunch),
    ("Memset", CallKind::Memset),
    ("ModuleLaunchKernel", CallKind::KernelLaunch),
    ("ExtModuleLaunchKernel", CallKind::KernelLaunch),
    ("ExtLaunchKernel", CallKind::KernelLaunch),
    ("Launch", CallKind::KernelLaunch),
];

impl CallKind {
    /// The kind of a runtime/driver/HIP function name (`_v7000`-style
    /// version suffixes are ignored: the name is matched by prefix).
    pub fn of(name: &str) -> CallKind {
        if name.starts_with("nvrtc") {
            return CallKind::ModuleLoad;
        }
        let Some(stem) = ["cuda", "hip", "cu"]
            .iter()
            .find_map(|p| name.strip_prefix(p))
        else {
            return CallKind::Other;
        };
        if stem.contains("Synchronize") {
            return CallKind::Synchronize;
        }
        if stem.starts_with("Memcpy") {
            return if stem.contains("Async") {
                CallKind::AsyncCopy
            } else {
                CallKind::BlockingCopy
            };
        }
        CALLS
            .iter()
            .find(|(p, _)| stem.starts_with(p))
            .map_or(CallKind::Other, |x| x.1)
    }

    /// The family of `docs/gaps.md`'s evidence table this kind belongs to
    /// (its fix is chosen by the gap analysis).
    pub fn family(self) -> CallFamily {
        match self {
            CallKind::KernelLaunch
            | CallKind::GraphLaunch
            | CallKind::AsyncCopy
            | CallKind::Memset => CallFamily::Launch,
            CallKind::BlockingCopy => CallFamily::BlockingCopy,
            CallKind::Alloc => CallFamily::Alloc,
            CallKind::PoolAlloc => CallFamily::PoolAlloc,
            CallKind::StreamEvent => CallFamily::StreamEvent,
            CallKind::ModuleLoad => CallFamily::ModuleLoad,
            CallKind::Synchronize | CallKind::Query => CallFamily::Sync,
            CallKind::GraphBuild => CallFamily::GraphBuild,
            CallKind::WaitEvent | CallKind::Other => CallFamily::Other,
        }
    }

    /// An allocation or release, synchronous or stream-ordered: the host
    /// detail "cudaMalloc/cudaFree".
    pub fn is_alloc(self) -> bool {
        matches!(self, CallKind::Alloc | CallKind::PoolAlloc)
    }
}

/// The family of a CUDA runtime/driver or HIP call: the rows of
/// `docs/gaps.md`'s evidence table, each with its fix
/// (`gaps::evidence` gives the labels and fixes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CallFamily {
    /// Kernel, copy, memset or graph launches (`cudaLaunchKernel`, `cuLaunchKernel`, `cudaGraphLaunch`).
    Launch,
    /// Synchronous allocation (`cudaMalloc`, `cudaFree`, `cudaHostAlloc`, `cuMemAlloc`).
    Alloc,
    /// Stream-ordered allocation (`cudaMallocAsync`, `cudaFreeAsync`): the pool grew or shrank.
    PoolAlloc,
    /// Stream or event creation and destruction.
    StreamEvent,
    /// Module or library loading (`cuModuleLoad*`, `cuLibraryLoad*`, `cudaGetFuncBySymbol`).
    ModuleLoad,
    /// Host-side synchronisation (`*Synchronize`, `cudaEventQuery`/`cudaStreamQuery` polls).
    Sync,
    /// A blocking copy (`cudaMemcpy` without `Async`, `cuMemcpyDtoH`).
    BlockingCopy,
    /// CUDA graph construction (`cudaGraphInstantiate`, `cudaStreamBeginCapture`, `cudaGraphCreate`).
    GraphBuild,
    /// Any other CUDA call.
    Other,
}

impl CallFamily {
    /// The family of a runtime/driver/HIP function name: [`CallKind::of`]'s family.
    pub fn of(name: &str) -> CallFamily {
        CallKind::of(name).family()
    }
}

/// Allocation and release calls, synchronous or stream-ordered
/// (`cudaMalloc`, `cudaFreeAsync`, `cuMemCreate`, `hipMalloc`, …).
pub fn is_alloc_name(name: &str) -> bool {
    CallKind::of(name).is_alloc()
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
    CallKind::of(name) == CallKind::Synchronize
}

/// Copies that block the host until they (and the work queued before them)
/// complete: `cudaMemcpy`, `cudaMemcpy2D`, `cuMemcpyDtoH_v2`,
/// `hipMemcpyWithStream`, … — every runtime/driver copy without `Async` in
/// its name.
pub fn is_blocking_copy_name(name: &str) -> bool {
    CallKind::of(name) == CallKind::BlockingCopy
}

/// `cudaGraphLaunch`, `cuGraphLaunch`, `hipGraphLaunch`.
pub fn is_graph_launch_name(name: &str) -> bool {
    CallKind::of(name) == CallKind::GraphLaunch
}

/// `cudaStreamWaitEvent`, `cuStreamWaitEvent`, `hipStreamWaitEvent`: evidence
/// of a GPU-side dependency.
pub fn is_wait_event_name(name: &str) -> bool {
    CallKind::of(name) == CallKind::WaitEvent
}

/// The direction of a memory copy (CUPTI's `CUpti_ActivityMemcpyKind`, the
/// nsys `copyKind` column, Kineto's `Memcpy HtoD (…)` event names), decided
/// by the reader and carried as this value to every report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum CopyKind {
    /// Unknown direction (code 0 or out of range).
    Unknown,
    /// Host to device.
    HtoD,
    /// Device to host.
    DtoH,
    /// Host to array.
    HtoA,
    /// Array to host.
    AtoH,
    /// Array to array.
    AtoA,
    /// Array to device.
    AtoD,
    /// Device to array.
    DtoA,
    /// Device to device.
    DtoD,
    /// Host to host.
    HtoH,
    /// Peer to peer (between devices).
    PtoP,
}

impl CopyKind {
    /// Every kind, in `copyKind` code order (0..=10).
    pub const ALL: [CopyKind; 11] = [
        CopyKind::Unknown,
        CopyKind::HtoD,
        CopyKind::DtoH,
        CopyKind::HtoA,
        CopyKind::AtoH,
        CopyKind::AtoA,
        CopyKind::AtoD,
        CopyKind::DtoA,
        CopyKind::DtoD,
        CopyKind::HtoH,
        CopyKind::PtoP,
    ];

    /// The kind of CUPTI code `code` (`Unknown` when out of range).
    pub fn from_code(code: i64) -> CopyKind {
        usize::try_from(code)
            .ok()
            .and_then(|i| CopyKind::ALL.get(i).copied())
            .unwrap_or(CopyKind::Unknown)
    }

    /// The CUPTI code.
    pub fn code(self) -> u8 {
        self as u8
    }

    /// The short direction (`HtoD`), or `unknown`.
    pub fn label(self) -> &'static str {
        match self {
            CopyKind::Unknown => "unknown",
            CopyKind::HtoD => "HtoD",
            CopyKind::DtoH => "DtoH",
            CopyKind::HtoA => "HtoA",
            CopyKind::AtoH => "AtoH",
            CopyKind::AtoA => "AtoA",
            CopyKind::AtoD => "AtoD",
            CopyKind::DtoA => "DtoA",
            CopyKind::DtoD => "DtoD",
            CopyKind::HtoH => "HtoH",
            CopyKind::PtoP => "PtoP",
        }
    }

    /// The kind whose [`label`](CopyKind::label) is `s`.
    pub fn from_label(s: &str) -> Option<CopyKind> {
        CopyKind::ALL.into_iter().find(|k| k.label() == s)
    }

    /// One side is host memory (pinned or pageable).
    pub fn has_host_side(self) -> bool {
        matches!(
            self,
            CopyKind::HtoD | CopyKind::DtoH | CopyKind::HtoA | CopyKind::AtoH | CopyKind::HtoH
        )
    }

    /// The copy crosses the host link (PCIe, NVLink-C2C) between host
    /// memory and the device: host-to-device and device-to-host. Device,
    /// array and peer copies do not.
    pub fn crosses_host_link(self) -> bool {
        matches!(self, CopyKind::HtoD | CopyKind::DtoH)
    }
}

impl std::fmt::Display for CopyKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.label())
    }
}

impl serde::Serialize for CopyKind {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.label())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// CUDA runtime, driver and HIP twins land in one kind, and every set
    /// and family is that kind's: `hipMalloc` is an allocation detail and
    /// family, `cuMemCreate` too, `hipMemcpy` blocking and a blocking copy.
    #[test]
    fn cuda_and_hip_twins_agree_on_every_set() {
        use CallKind::*;
        for (name, kind) in [
            ("cudaMalloc_v3020", Alloc),
            ("hipMalloc", Alloc),
            ("cuMemAlloc_v2", Alloc),
            ("cuMemCreate", Alloc),
            ("cudaHostRegister_v4000", Alloc),
            ("hipHostMalloc", Alloc),
            ("cudaMallocAsync_v11020", PoolAlloc),
            ("hipMallocAsync", PoolAlloc),
            ("cudaMallocFromPoolAsync", PoolAlloc),
            ("cudaMemcpy_v3020", BlockingCopy),
            ("hipMemcpy", BlockingCopy),
            ("hipMemcpyWithStream", BlockingCopy),
            ("cuMemcpyDtoH_v2", BlockingCopy),
            ("cudaMemcpyAsync_v3020", AsyncCopy),
            ("hipMemcpyAsync", AsyncCopy),
            ("cudaDeviceSynchronize_v3020", Synchronize),
            ("hipDeviceSynchronize", Synchronize),
            ("cuCtxSynchronize", Synchronize),
            ("cudaEventQuery_v3020", Query),
            ("hipEventQuery", Query),
            ("cudaStreamWaitEvent_v3020", WaitEvent),
            ("hipStreamWaitEvent", WaitEvent),
            ("cudaGraphLaunch_v10000", GraphLaunch),
            ("hipGraphLaunch", GraphLaunch),
            ("cudaLaunchKernel_v7000", KernelLaunch),
            ("hipLaunchKernel", KernelLaunch),
            ("hipModuleLaunchKernel", KernelLaunch),
            ("hipExtModuleLaunchKernel", KernelLaunch),
            ("cuModuleLoadData", ModuleLoad),
            ("hipModuleLoad", ModuleLoad),
            ("nvrtcCompileProgram", ModuleLoad),
            ("cudaGraphInstantiateWithFlags_v11040", GraphBuild),
            ("cudaMemsetAsync_v3020", Memset),
            ("cudaGetDeviceProperties_v2_v12000", Other),
            ("cudaFuncGetAttributes_v3020", ModuleLoad),
            ("ncclAllReduce", Other),
        ] {
            assert_eq!(CallKind::of(name), kind, "{name}");
            // The sets are the kind, nothing else.
            assert_eq!(
                is_alloc_name(name),
                matches!(kind, Alloc | PoolAlloc),
                "{name}"
            );
            assert_eq!(is_blocking_copy_name(name), kind == BlockingCopy, "{name}");
            assert_eq!(is_sync_name(name), kind == Synchronize, "{name}");
            assert_eq!(is_wait_event_name(name), kind == WaitEvent, "{name}");
            assert_eq!(is_graph_launch_name(name), kind == GraphLaunch, "{name}");
            assert_eq!(CallFamily::of(name), kind.family(), "{name}");
        }
        assert_eq!(CallFamily::of("hipMalloc"), CallFamily::Alloc);
        assert_eq!(CallFamily::of("hipMemcpy"), CallFamily::BlockingCopy);
    }

    #[test]
    fn copy_kinds_round_trip_their_codes_and_labels() {
        for k in CopyKind::ALL {
            assert_eq!(CopyKind::from_code(i64::from(k.code())), k);
            assert_eq!(CopyKind::from_label(k.label()), Some(k));
        }
        assert_eq!(CopyKind::from_code(99), CopyKind::Unknown);
        assert_eq!(CopyKind::from_code(-1), CopyKind::Unknown);
        assert!(CopyKind::HtoD.has_host_side() && !CopyKind::DtoD.has_host_side());
        assert!(!CopyKind::PtoP.has_host_side() && CopyKind::HtoH.has_host_side());
        assert!(CopyKind::DtoH.crosses_host_link() && !CopyKind::HtoH.crosses_host_link());
    }
}
