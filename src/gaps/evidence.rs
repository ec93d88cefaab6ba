//! The evidence vocabulary of the gap report, and the one table that maps
//! evidence to a fix (`docs/gaps.md`, "From evidence to a fix"): what the
//! launching thread did inside a host-bound gap ([`HostDetail`]), which
//! family a CUDA call belongs to ([`CallFamily`]), which family an NVTX
//! range belongs to ([`RangeFamily`]) and how long the host-bound gaps are
//! ([`Scale`]). A leaf: it imports nothing of the gap analysis, so the model,
//! the sweep and the renderers all read the same words.

use serde::Serialize;

/// What the launching thread did while the GPU waited for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum HostDetail {
    /// The launch call itself (launch overhead): the host issues one op at a time.
    LaunchCall,
    /// `cudaMalloc`/`cudaMallocAsync`/`cudaFree` and other allocation calls.
    Alloc,
    /// Other CUDA runtime/driver calls.
    CudaApi,
    /// OS runtime calls (`read`, `write`, `fflush`, locks) outside any CUDA
    /// call: traced with `--trace=osrt`.
    OsRuntime,
    /// Waiting for input: a blocking read of the terminal or a pipe
    /// ([`is_input_wait`]: `getc`, `fgetc`, `fgets` …, or one `read`,
    /// `select`, `poll` lasting [`INPUT_WAIT_MIN_NS`] or more).
    InputWait,
    /// Profiler overhead (`PROFILER_OVERHEAD`: buffer flushes): the profiler, not the program.
    ProfilerOverhead,
    /// No call: inside NVTX ranges of the thread (`MPI_Recv`, a user range).
    Nvtx,
    /// No call and no NVTX range: CPU work (Python, the framework).
    CpuWork,
}

/// Number of [`HostDetail`]s.
pub const N_DETAILS: usize = 8;

/// The details that are calls (summed over the window, the largest wins
/// when it exceeds the rest), in [`HostDetail::ALL`] order.
pub const CALL_DETAILS: [HostDetail; 6] = [
    HostDetail::LaunchCall,
    HostDetail::Alloc,
    HostDetail::CudaApi,
    HostDetail::OsRuntime,
    HostDetail::InputWait,
    HostDetail::ProfilerOverhead,
];

impl HostDetail {
    /// All details in display order.
    pub const ALL: [HostDetail; N_DETAILS] = [
        HostDetail::LaunchCall,
        HostDetail::Alloc,
        HostDetail::CudaApi,
        HostDetail::OsRuntime,
        HostDetail::InputWait,
        HostDetail::ProfilerOverhead,
        HostDetail::Nvtx,
        HostDetail::CpuWork,
    ];

    /// The snake_case key used in JSON.
    pub fn key(self) -> &'static str {
        match self {
            HostDetail::LaunchCall => "launch_call",
            HostDetail::Alloc => "alloc",
            HostDetail::CudaApi => "cuda_api",
            HostDetail::OsRuntime => "os_runtime",
            HostDetail::InputWait => "input_wait",
            HostDetail::ProfilerOverhead => "profiler_overhead",
            HostDetail::Nvtx => "nvtx",
            HostDetail::CpuWork => "cpu_work",
        }
    }

    /// A short human label.
    pub fn label(self) -> &'static str {
        match self {
            HostDetail::LaunchCall => "the launch call itself",
            HostDetail::Alloc => "cudaMalloc/cudaFree",
            HostDetail::CudaApi => "other CUDA API calls",
            HostDetail::OsRuntime => "OS runtime calls",
            HostDetail::InputWait => "waiting for input",
            HostDetail::ProfilerOverhead => "profiler overhead",
            HostDetail::Nvtx => "inside an NVTX range",
            HostDetail::CpuWork => "CPU work (no API call)",
        }
    }

    /// [`label`](Self::label) in the words of the tool that made the
    /// input: a PyTorch trace's ranges are its ops and `record_function`
    /// annotations, not NVTX ranges.
    pub fn label_in(self, tool: Tool) -> &'static str {
        match (self, tool) {
            (HostDetail::Nvtx, Tool::PyTorchProfiler) => "inside a PyTorch range",
            _ => self.label(),
        }
    }

    /// What to do about it, when nothing finer is known (the call family,
    /// the range family or the scale of the gaps decide first), in the
    /// terms of the tool that made the input.
    pub fn fix(self, terms: FixTerms) -> &'static str {
        match self {
            HostDetail::LaunchCall => CallFamily::Launch.fix_in(terms),
            HostDetail::Alloc => CallFamily::Alloc.fix_in(terms),
            HostDetail::CudaApi => CallFamily::Other.fix_in(terms),
            HostDetail::OsRuntime => "overlap I/O with GPU work (prefetch, async I/O)",
            HostDetail::InputWait => "profile a non-interactive run (input from a file or arguments, not the terminal): the program was waiting for its user, not working",
            HostDetail::ProfilerOverhead => "the profiler, not the program: ignore it",
            HostDetail::Nvtx => "look inside the range: it is where the host spent the gap",
            HostDetail::CpuWork => Scale::Mid.fix(terms),
        }
    }
}

/// The human name of a host-detail key, as `rooftrace gaps` prints it: the
/// detail's [`label`](HostDetail::label), or for a key this version does
/// not know the key with spaces for underscores. JSON and CSV keep the keys.
pub fn detail_label(key: &str, tool: Tool) -> String {
    HostDetail::ALL
        .into_iter()
        .find(|d| d.key() == key)
        .map_or_else(|| key.replace('_', " "), |d| d.label_in(tool).to_string())
}

pub use crate::timeline::CallFamily;

impl CallFamily {
    /// All families in display order.
    pub const ALL: [CallFamily; 9] = [
        CallFamily::Launch,
        CallFamily::Alloc,
        CallFamily::PoolAlloc,
        CallFamily::StreamEvent,
        CallFamily::ModuleLoad,
        CallFamily::Sync,
        CallFamily::BlockingCopy,
        CallFamily::GraphBuild,
        CallFamily::Other,
    ];

    /// A short human label.
    pub fn label(self) -> &'static str {
        match self {
            CallFamily::Launch => "launch calls",
            CallFamily::Alloc => "allocation",
            CallFamily::PoolAlloc => "stream-ordered allocation",
            CallFamily::StreamEvent => "stream/event creation",
            CallFamily::ModuleLoad => "module loading",
            CallFamily::Sync => "host-side sync",
            CallFamily::BlockingCopy => "blocking copy",
            CallFamily::GraphBuild => "graph instantiation",
            CallFamily::Other => "other CUDA calls",
        }
    }

    /// The concrete fix in the input's terms: a program that already
    /// replays CUDA graphs is told to widen them, not to adopt them; a
    /// PyTorch job is told its caching allocator's knobs, not to write one.
    pub fn fix_in(self, terms: FixTerms) -> &'static str {
        match (self, terms.graphs, terms.pytorch) {
            (CallFamily::Launch, true, _) => "the program already replays CUDA graphs: capture the kernels still launched one at a time into them, or fuse them into fewer, larger kernels (launch overhead)",
            (CallFamily::Alloc, _, true) => "PyTorch's caching allocator already reuses freed memory: cudaMalloc/cudaFree in the loop mean its cache was emptied (torch.cuda.empty_cache(); take it out of the loop) or is still growing (steady shapes, PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True)",
            _ => self.fix(),
        }
    }

    /// The concrete fix, in no input's terms (see [`fix_in`](Self::fix_in)).
    pub fn fix(self) -> &'static str {
        match self {
            CallFamily::Launch => "CUDA graphs, or fewer, larger kernels (launch overhead)",
            CallFamily::Alloc => "allocate once before the loop and reuse the buffers, or use a caching allocator / memory pool",
            CallFamily::PoolAlloc => "keep the pool's memory: raise its release threshold (cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, …)) or pre-allocate once, so cudaMallocAsync stops growing the pool",
            CallFamily::StreamEvent => "create streams and events once, outside the loop, and reuse them",
            CallFamily::ModuleLoad => "load modules before the timed work (a warm-up step, or CUDA_MODULE_LOADING=EAGER)",
            CallFamily::Sync => "remove the host-side sync from the loop, or defer it (events, a later check)",
            CallFamily::BlockingCopy => "use cudaMemcpyAsync from pinned memory (cudaHostAlloc, pin_memory) so the copy does not hold the host",
            CallFamily::GraphBuild => "instantiate the graph once and relaunch it (cudaGraphExecUpdate for new parameters)",
            CallFamily::Other => "move these calls out of the hot loop",
        }
    }
}

/// The family of an NVTX range: whose range it is decides the advice (a
/// user's own range says where, not what to do).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RangeFamily {
    /// PyTorch's own ranges (`aten::`, `autograd::`, anything naming torch).
    PyTorch,
    /// MPI calls (`nsys --trace=mpi`: `MPI_Send`, `MPI_Recv`).
    Mpi,
    /// NCCL calls (`nccl…`, `nccl:all_reduce`).
    Nccl,
}

impl RangeFamily {
    /// The family of a range text; `None` for a user's own range.
    pub fn of(text: &str) -> Option<RangeFamily> {
        RangeFamily::of_bytes(text.as_bytes())
    }

    /// [`RangeFamily::of`] a text's bytes, valid UTF-8 or not: the patterns
    /// are ASCII, which lossy UTF-8 keeps in place, so the bytes as stored
    /// and the text made of them fall in the same family.
    pub fn of_bytes(text: &[u8]) -> Option<RangeFamily> {
        if text.starts_with(b"aten::")
            || text.starts_with(b"autograd::")
            || contains_ci(text, b"torch")
        {
            Some(RangeFamily::PyTorch)
        } else if text.starts_with(b"MPI_") {
            Some(RangeFamily::Mpi)
        } else if contains_ci(text, b"nccl") {
            Some(RangeFamily::Nccl)
        } else {
            None
        }
    }

    /// Its name in a sentence.
    pub fn label(self) -> &'static str {
        match self {
            RangeFamily::PyTorch => "PyTorch",
            RangeFamily::Mpi => "MPI",
            RangeFamily::Nccl => "NCCL",
        }
    }

    /// The fix for host-bound time spent inside ranges of this family, in
    /// the input's terms (a step that already replays CUDA graphs is told
    /// to find what still runs outside them).
    pub fn fix_in(self, terms: FixTerms) -> &'static str {
        match (self, terms.graphs) {
            (RangeFamily::PyTorch, true) => "PyTorch issues these ops one at a time although the step already replays CUDA graphs: bring them into the captured part (graph breaks: TORCH_LOGS=graph_breaks; torch.compile mode=\"reduce-overhead\" over the whole step)",
            _ => self.fix(),
        }
    }

    /// The fix for host-bound time spent inside ranges of this family, in
    /// no input's terms (see [`fix_in`](Self::fix_in)).
    pub fn fix(self) -> &'static str {
        match self {
            RangeFamily::PyTorch => "PyTorch issues its ops one at a time from the CPU: compile the step (torch.compile fuses ops into fewer kernels) or capture it in a CUDA graph (torch.compile mode=\"reduce-overhead\", torch.cuda.CUDAGraph)",
            RangeFamily::Mpi => "overlap MPI with GPU work (non-blocking MPI_Isend/MPI_Irecv, CUDA-aware MPI)",
            RangeFamily::Nccl => "overlap the NCCL calls with compute (communication on its own stream, bucketed collectives)",
        }
    }
}

/// The profiler that made the input: a fix that names a profiling setting
/// names this tool's (nsys flags for an export, `torch.profiler` settings
/// for a PyTorch trace).
pub use crate::timeline::Tool;

/// Whose words a fix is given in: the tool that made the input, whether
/// the input shows PyTorch (its ranges), which adds the framework's own
/// knobs, and whether it already replays CUDA graphs (then graphs are no
/// news: the advice is to widen them).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct FixTerms {
    /// The profiler that made the input.
    pub tool: Tool,
    /// The input shows PyTorch.
    pub pytorch: bool,
    /// The input replays CUDA graphs (a graph launch call or a whole-graph
    /// row).
    pub graphs: bool,
}

/// What the launching thread did inside a host-bound gap, typed: the host
/// detail and the family of the CUDA call or NVTX range it names (`None`
/// when it names none, or a user's own range).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct HostFacts {
    /// What the host did.
    pub detail: HostDetail,
    /// The family of the CUDA call named (launch call, allocation, other CUDA calls).
    pub call_family: Option<CallFamily>,
    /// The family of the NVTX range named (a gap inside a range).
    pub range_family: Option<RangeFamily>,
}

/// A stdio call that reads a stream character or line at a time (`getc`,
/// `fgetc`, `getchar`, `fgets`, `getline`, `scanf`, their `_unlocked` and
/// glibc `_IO_`/`__isoc99_` spellings) blocking this long or more is
/// waiting for input: a buffered file read returns in microseconds, a
/// terminal or pipe waits for whoever writes to it, ns.
pub const STDIO_INPUT_WAIT_MIN_NS: i64 = 10_000_000;

/// A single `read`, `readv`, `select`, `pselect6`, `poll`, `ppoll` or
/// `epoll_wait` call this long or more on the launching thread is waiting
/// for input (nsys records no file descriptor, so the terminal cannot be
/// told from a socket or pipe; a disk read does not block a second), ns.
pub const INPUT_WAIT_MIN_NS: i64 = 1_000_000_000;

/// True when an OS runtime call `name` lasting `duration_ns` is a wait for
/// input (docs/gaps.md, "What the host did").
pub fn is_input_wait(name: &str, duration_ns: i64) -> bool {
    let base = name
        .trim_start_matches("__isoc99_")
        .trim_start_matches("_IO_")
        .trim_end_matches("_unlocked");
    let stdio = [
        "getc", "fgetc", "getchar", "fgets", "gets", "getline", "getdelim", "scanf", "fscanf",
        "getwc", "fgetwc", "getwchar", "fgetws",
    ];
    let waits = [
        "read",
        "readv",
        "select",
        "pselect6",
        "pselect",
        "poll",
        "ppoll",
        "epoll_wait",
        "epoll_pwait",
    ];
    if stdio.contains(&base) || base == "__getdelim" {
        duration_ns >= STDIO_INPUT_WAIT_MIN_NS
    } else {
        waits.contains(&base) && duration_ns >= INPUT_WAIT_MIN_NS
    }
}

/// True when `hay` contains `needle` in any ASCII case (no allocation: it
/// runs per gap).
fn contains_ci(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len())
        .any(|w| w.eq_ignore_ascii_case(needle))
}

/// The fix for host-bound time inside NVTX ranges, from what the ranges
/// are; `None` for other ranges.
pub fn nvtx_range_fix(text: &str) -> Option<&'static str> {
    RangeFamily::of(text).map(RangeFamily::fix)
}

/// Host-bound gaps shorter than this are launch-scale: the host issues
/// work one short op at a time (a `cudaLaunchKernel` costs 2-10 µs), ns.
pub const LAUNCH_SCALE_MAX_NS: i64 = 100_000;

/// Host-bound gaps at least this long are CPU stretches: the host did
/// something else for milliseconds (data loading, Python, I/O), ns.
pub const CPU_STRETCH_MIN_NS: i64 = 1_000_000;

/// How long a host-bound gap is, which decides the advice for CPU work:
/// CUDA graphs and fusion remove µs of launch overhead repeated thousands
/// of times and do nothing for a 1.6 s stretch of CPU work.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Scale {
    /// Shorter than [`LAUNCH_SCALE_MAX_NS`].
    Launch,
    /// Between the two thresholds.
    Mid,
    /// At least [`CPU_STRETCH_MIN_NS`].
    Stretch,
}

impl Scale {
    /// All scales, shortest first.
    pub const ALL: [Scale; 3] = [Scale::Launch, Scale::Mid, Scale::Stretch];

    /// The scale of a gap of `duration_ns`.
    pub fn of(duration_ns: i64) -> Scale {
        if duration_ns < LAUNCH_SCALE_MAX_NS {
            Scale::Launch
        } else if duration_ns < CPU_STRETCH_MIN_NS {
            Scale::Mid
        } else {
            Scale::Stretch
        }
    }

    /// The snake_case key used in JSON.
    pub fn key(self) -> &'static str {
        match self {
            Scale::Launch => "launch_scale",
            Scale::Mid => "mid",
            Scale::Stretch => "cpu_stretch",
        }
    }

    /// A short human label.
    pub fn label(self) -> &'static str {
        match self {
            Scale::Launch => "gaps under 100 µs",
            Scale::Mid => "gaps of 100 µs to 1 ms",
            Scale::Stretch => "gaps of 1 ms or more",
        }
    }

    /// The fix for host CPU work at this scale, in the input's terms: with
    /// PyTorch (its ranges in the input) the framework's own knobs, and the
    /// profiling setting of the tool that made the input (nsys flags for an
    /// export, `torch.profiler` settings for a trace).
    pub fn fix(self, terms: FixTerms) -> &'static str {
        match (self, terms.pytorch, terms.tool) {
            (Scale::Launch, _, _) if terms.graphs => "the program already replays CUDA graphs: capture the short ops still issued one at a time into them, or fuse them (fewer, larger kernels)",
            (Scale::Launch, false, _) => "CUDA graphs, or fewer, larger kernels (fusion): the host issues short ops one at a time",
            (Scale::Launch, true, _) => "capture the step in a CUDA graph or compile it (torch.compile mode=\"reduce-overhead\"): PyTorch issues short ops one at a time",
            (Scale::Mid, false, Tool::Nsys) => "profile the host between launches (nsys --sample=cpu) and take that work off the launch path",
            (Scale::Mid, true, Tool::Nsys) => "profile the host between launches (nsys --sample=cpu, py-spy) and take that work off the launch path (torch.compile for Python overhead)",
            (Scale::Mid, _, Tool::PyTorchProfiler) => "profile the host between launches (torch.profiler with_stack=True, record_shapes=True; or py-spy) and take that work off the launch path (torch.compile for Python overhead)",
            (Scale::Stretch, false, Tool::Nsys) => "profile the host in these stretches (nsys --sample=cpu) and move that work off the GPU's critical path (prefetch, a background thread, overlap with GPU work)",
            (Scale::Stretch, true, Tool::Nsys) => "profile the host in these stretches (nsys --sample=cpu, py-spy) and move that work off the GPU's critical path: DataLoader workers (num_workers, pin_memory), prefetching, work on a background thread",
            (Scale::Stretch, _, Tool::PyTorchProfiler) => "profile the host in these stretches (torch.profiler with_stack=True and experimental_config=torch._C._profiler._ExperimentalConfig(verbose=True) to see Python frames; or py-spy) and move that work off the GPU's critical path: DataLoader workers (num_workers, pin_memory), prefetching, work on a background thread",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn range_families_get_their_own_fix() {
        let fix = |t| nvtx_range_fix(t).unwrap_or("none");
        // PyTorch's emit_nvtx ranges, MPI (nsys --trace=mpi), NCCL.
        assert!(fix("aten::addmm, seq = 47595, op_id = 999269").contains("torch.compile"));
        assert!(fix("autograd::engine::evaluate_function: AddmmBackward0").contains("CUDA graph"));
        assert!(fix("MPI_Recv").contains("MPI_Isend"));
        assert!(fix("ncclAllReduce").contains("NCCL"));
        assert!(fix("nccl:all_reduce").contains("NCCL"));
        // A user's own range says nothing about the fix.
        assert_eq!(fix("decode_step"), "none");
        assert_eq!(fix("MPI"), "none");
    }

    /// A text's stored bytes fall in the family of the text made of them
    /// (lossy UTF-8), invalid bytes next to, inside and after a pattern
    /// included: the NVTX reader classifies the bytes of ranges it drops.
    #[test]
    fn a_texts_bytes_fall_in_the_family_of_its_text() {
        let cases: [&[u8]; 10] = [
            b"aten::mm",
            b"aten::\xff\xfe",
            b"\xffaten::mm",
            b"x\xc3torch",
            b"TOR\xffCH",
            b"MPI_\xe2\x82",
            b"\xe2\x82\xacNCCL",
            b"nc\xffcl",
            b"\xf0\x9f\x98\x80 step",
            b"",
        ];
        let mut seen = Vec::new();
        for b in cases {
            let lossy = String::from_utf8_lossy(b);
            assert_eq!(RangeFamily::of_bytes(b), RangeFamily::of(&lossy), "{b:?}");
            seen.push(RangeFamily::of_bytes(b));
        }
        // Every family and none are among the cases; a pattern cut by an
        // invalid byte is no pattern either way.
        for f in [
            Some(RangeFamily::PyTorch),
            Some(RangeFamily::Mpi),
            Some(RangeFamily::Nccl),
            None,
        ] {
            assert!(seen.contains(&f), "{f:?}");
        }
        assert_eq!(RangeFamily::of_bytes(b"nc\xffcl"), None);
    }

    #[test]
    fn call_families_follow_the_evidence_table() {
        use CallFamily::*;
        for (name, family) in [
            ("cudaMallocAsync_v11020", PoolAlloc),
            ("cudaFreeAsync_v11020", PoolAlloc),
            ("cudaMalloc_v3020", Alloc),
            ("cuMemAlloc_v2", Alloc),
            ("cudaHostAlloc_v3020", Alloc),
            ("cudaStreamCreateWithFlags_v5000", StreamEvent),
            ("cudaEventCreate_v3020", StreamEvent),
            ("cuModuleLoadData", ModuleLoad),
            ("cuLibraryLoadData", ModuleLoad),
            ("cudaDeviceSynchronize_v3020", Sync),
            ("cudaEventQuery_v3020", Sync),
            ("cudaMemcpy_v3020", BlockingCopy),
            ("cuMemcpyDtoH_v2", BlockingCopy),
            ("cudaMemcpyAsync_v3020", Launch),
            ("cudaLaunchKernel_v7000", Launch),
            ("cudaGraphLaunch_v10000", Launch),
            ("cudaGraphInstantiateWithFlags_v11040", GraphBuild),
            ("cudaGetDeviceProperties_v2_v12000", Other),
        ] {
            assert_eq!(CallFamily::of(name), family, "{name}");
        }
        // Each family's fix is its own (the table has no two rows alike).
        let mut fixes: Vec<&str> = CallFamily::ALL.iter().map(|f| f.fix()).collect();
        fixes.sort_unstable();
        fixes.dedup();
        assert_eq!(fixes.len(), CallFamily::ALL.len());
    }

    #[test]
    fn a_long_read_of_the_terminal_is_waiting_for_input() {
        // A 4 s getc, and a 33 s one: waiting for input.
        assert!(is_input_wait("getc", 4_000_000_000));
        assert!(is_input_wait("_IO_getc", 33_000_000_000));
        assert!(is_input_wait("__isoc99_scanf", 20_000_000));
        // A getc from a buffered file returns in microseconds.
        assert!(!is_input_wait("getc", 2_000));
        // read/poll only as one long call; write never.
        assert!(is_input_wait("read", 1_000_000_000));
        assert!(!is_input_wait("read", 999_999_999));
        assert!(is_input_wait("poll", 1_500_000_000));
        assert!(!is_input_wait("write", 5_000_000_000));
        assert!(!is_input_wait("pthread_cond_wait", 5_000_000_000));
        // Its fix is its own, not the I/O prefetch of other OS calls.
        let t = FixTerms::default();
        assert!(HostDetail::InputWait.fix(t).contains("non-interactive"));
        assert_ne!(HostDetail::InputWait.fix(t), HostDetail::OsRuntime.fix(t));
    }

    #[test]
    fn scale_thresholds_are_100_us_and_1_ms() {
        // The edges belong to the longer scale.
        assert_eq!(Scale::of(99_999), Scale::Launch);
        assert_eq!(Scale::of(100_000), Scale::Mid);
        assert_eq!(Scale::of(999_999), Scale::Mid);
        assert_eq!(Scale::of(1_000_000), Scale::Stretch);
        // CUDA graphs are launch-scale advice only; PyTorch's knobs only
        // with PyTorch evidence.
        let plain = FixTerms::default();
        let torch_nsys = FixTerms {
            pytorch: true,
            ..plain
        };
        let trace = FixTerms {
            tool: Tool::PyTorchProfiler,
            pytorch: true,
            graphs: false,
        };
        assert!(Scale::Launch.fix(plain).contains("CUDA graphs"));
        assert!(!Scale::Stretch.fix(plain).contains("CUDA graph"));
        assert!(!Scale::Stretch.fix(plain).contains("DataLoader"));
        assert!(Scale::Stretch.fix(torch_nsys).contains("DataLoader"));
        assert!(!Scale::Mid.fix(plain).contains("torch"));
        // A PyTorch trace is told torch.profiler settings, never nsys flags.
        for sc in Scale::ALL {
            assert!(!sc.fix(trace).contains("nsys"), "{sc:?}");
        }
        assert!(Scale::Stretch.fix(trace).contains("with_stack=True"));
        assert!(Scale::Mid.fix(torch_nsys).contains("nsys --sample=cpu"));
    }
}
