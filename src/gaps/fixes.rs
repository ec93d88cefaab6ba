//! The evidence → fix table as data: every piece of evidence the advice is
//! chosen from (a class, a host detail, a CUDA call family, an NVTX range
//! family, the length of host-bound gaps) with the fix it gets in each
//! input's terms (an nsys export, one with PyTorch's ranges, a PyTorch
//! trace). `docs/gaps.md` prints this table verbatim and a test holds the
//! two equal, so the documented fix is the one given.

use super::class::GapClass;
use super::evidence::{CallFamily, FixTerms, HostDetail, RangeFamily, Scale, Tool};

/// One row: the evidence's key (`class:synchronization`,
/// `detail:os_runtime`, `call:alloc`, `range:py_torch`, `scale:cpu_stretch`),
/// the inputs it holds for, and the fix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FixRow {
    /// What the advice rests on.
    pub evidence: String,
    /// `any`, or the terms it holds in, `; `-separated (`nsys export`,
    /// `nsys export, PyTorch ranges`, `PyTorch trace`, each also with
    /// `, CUDA graphs`).
    pub input: String,
    /// The fix, as every renderer prints it.
    pub fix: &'static str,
}

/// The sets of terms and their names in the table: each tool, with and
/// without PyTorch's ranges, and with CUDA graphs already replayed.
pub const TERMS: [(&str, FixTerms); 6] = [
    ("nsys export", terms(Tool::Nsys, false, false)),
    (
        "nsys export, PyTorch ranges",
        terms(Tool::Nsys, true, false),
    ),
    ("PyTorch trace", terms(Tool::PyTorchProfiler, true, false)),
    ("nsys export, CUDA graphs", terms(Tool::Nsys, false, true)),
    (
        "nsys export, PyTorch ranges, CUDA graphs",
        terms(Tool::Nsys, true, true),
    ),
    (
        "PyTorch trace, CUDA graphs",
        terms(Tool::PyTorchProfiler, true, true),
    ),
];

const fn terms(tool: Tool, pytorch: bool, graphs: bool) -> FixTerms {
    FixTerms {
        tool,
        pytorch,
        graphs,
    }
}

/// The table's name for a set of terms (`nsys export`, …).
pub fn terms_name(terms: FixTerms) -> &'static str {
    TERMS
        .iter()
        .find(|t| t.1 == terms)
        .map_or("nsys export", |t| t.0)
}

/// The key of a range family (`range:py_torch`).
pub fn range_key(f: RangeFamily) -> &'static str {
    match f {
        RangeFamily::PyTorch => "range:pytorch",
        RangeFamily::Mpi => "range:mpi",
        RangeFamily::Nccl => "range:nccl",
    }
}

/// The key of a call family (`call:alloc`).
pub fn call_key(f: CallFamily) -> &'static str {
    match f {
        CallFamily::Launch => "call:launch",
        CallFamily::Alloc => "call:alloc",
        CallFamily::PoolAlloc => "call:pool_alloc",
        CallFamily::StreamEvent => "call:stream_event",
        CallFamily::ModuleLoad => "call:module_load",
        CallFamily::Sync => "call:sync",
        CallFamily::BlockingCopy => "call:blocking_copy",
        CallFamily::GraphBuild => "call:graph_build",
        CallFamily::Other => "call:other",
    }
}

/// The fix when copies kept the GPU busier than kernels, by the largest
/// copy stream: from pageable host memory, device-side (device to device,
/// not over the host link), or pinned host copies.
pub fn copy_fix(pageable: bool, on_device: bool) -> &'static str {
    match (pageable, on_device) {
        (true, _) => "pin the host buffers (cudaHostAlloc, pin_memory=True) so the copies run asynchronously, then overlap them with compute",
        (false, true) => "avoid the device-to-device copies (views or in-place ops instead of copies, fewer .contiguous() calls)",
        (false, false) => "keep the data resident on the GPU (copy once, reuse), overlap pinned async copies with compute on another stream, and batch small copies into fewer, larger ones",
    }
}

/// Every row, in table order: one row per distinct fix of an evidence,
/// naming the terms it holds in (`any` when it holds in all).
pub fn fix_table() -> Vec<FixRow> {
    let mut rows = Vec::new();
    let mut add = |evidence: String, fix: &dyn Fn(FixTerms) -> &'static str| {
        let mut distinct: Vec<(&'static str, Vec<&'static str>)> = Vec::new();
        for (name, t) in TERMS {
            let f = fix(t);
            match distinct.iter_mut().find(|d| d.0 == f) {
                Some(d) => d.1.push(name),
                None => distinct.push((f, vec![name])),
            }
        }
        let all = distinct.len() == 1;
        for (f, names) in distinct {
            rows.push(FixRow {
                evidence: evidence.clone(),
                input: if all { "any".into() } else { names.join("; ") },
                fix: f,
            });
        }
    };
    for c in GapClass::ALL {
        add(format!("class:{}", c.key()), &|t| c.fix_in(t));
    }
    for d in [
        HostDetail::LaunchCall,
        HostDetail::OsRuntime,
        HostDetail::InputWait,
        HostDetail::ProfilerOverhead,
    ] {
        add(format!("detail:{}", d.key()), &|t| d.fix(t));
    }
    for f in CallFamily::ALL {
        add(call_key(f).to_string(), &|t| f.fix_in(t));
    }
    for f in [RangeFamily::PyTorch, RangeFamily::Mpi, RangeFamily::Nccl] {
        add(range_key(f).to_string(), &|t| f.fix_in(t));
    }
    for s in Scale::ALL {
        add(format!("scale:{}", s.key()), &|t| s.fix(t));
    }
    add("copies:pinned".into(), &|_| copy_fix(false, false));
    add("copies:pageable".into(), &|_| copy_fix(true, false));
    add("copies:device".into(), &|_| copy_fix(false, true));
    rows
}

/// The table as `docs/gaps.md` prints it (Markdown rows, header first).
pub fn fix_table_markdown() -> String {
    let mut out = String::from("| evidence | input | fix |\n|---|---|---|\n");
    for r in fix_table() {
        out.push_str(&format!(
            "| `{}` | {} | {} |\n",
            r.evidence,
            r.input,
            r.fix.replace('|', "\\|")
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `docs/gaps.md` prints the table verbatim: a fix changed in code and
    /// not in the docs (or the reverse) fails here.
    #[test]
    fn the_docs_print_the_fix_table_verbatim() {
        let docs = include_str!("../../docs/gaps.md");
        let table = fix_table_markdown();
        assert!(
            docs.contains(&table),
            "docs/gaps.md lacks the table:\n{table}"
        );
    }

    #[test]
    fn a_pytorch_trace_is_never_told_an_nsys_flag() {
        for r in fix_table() {
            if r.input.split("; ").all(|t| t.starts_with("PyTorch trace")) || r.input == "any" {
                assert!(!r.fix.contains("nsys"), "{r:?}");
            }
        }
    }
}
