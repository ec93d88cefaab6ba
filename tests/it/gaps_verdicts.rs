//! Every verdict recomputed from the raw rows (issue 29, item 7): for every
//! nsys export and PyTorch trace in `fixtures/` and `../shared/corpus/`
//! (the fixtures alone without it, outside CI), the headline `rooftrace gaps` prints is
//! checked against the input's own rows, read here with this file's own
//! queries (SQL through rusqlite for exports, `serde_json::Value` for
//! traces), not through rooftrace's readers or model:
//!
//! * the gaps themselves (intervals per process and device: a window
//!   function over the activity tables, a sort-and-merge of the GPU events)
//!   and so the idle share and span of the headline;
//! * the headline class's share: every gap's class must hold on the raw
//!   rows (its launch row there or not, whether the call had returned by
//!   the gap start, the gap's length, the call's length, for copy-engine
//!   scheduling another process's copy of the same direction in the gap),
//!   and the share is the raw idle of the gaps of that class;
//! * the host detail it names: on each of the longest host-bound gaps, the
//!   time of that kind of row on the launching thread over the host window
//!   (launch call, other runtime calls, allocation calls, OS calls outside
//!   CUDA calls, a range text's union, the rest as CPU work), which must be
//!   the time the gap quotes and win by the documented rule;
//! * the fix: the row of `docs/gaps.md`'s fix table for that evidence and
//!   the input's own terms (an nsys export, with PyTorch ranges, a PyTorch
//!   trace — told from the raw rows) must be the fix printed.
//!
//! Bounded for CI: the files are at most a few MB; the per-gap checks run
//! over the gaps rooftrace keeps and the top 10 gaps; the whole test takes
//! seconds in debug.

use crate::common::{corpus, fixture, rooftrace};
use rooftrace::gaps::{analyze, GapClass, GapConfig, GapReport, HostDetail};
use rooftrace::units::{duration_ns, percent};
use rusqlite::Connection;
use serde_json::Value;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::Read;
use std::path::{Path, PathBuf};

/// One gap as the raw rows give it.
#[derive(Debug, Clone)]
struct RawGap {
    pid: u32,
    device: i64,
    g0: i64,
    g1: i64,
    /// The op after the gap: its copy lane (copyKind, or 100 for memsets),
    /// `None` for kernels.
    lane: Option<i64>,
    /// Its launching call (outermost row of its correlation id).
    call: Option<Call>,
    /// The op after the gap is a kernel launched for the first time on
    /// its device (no earlier op of its name there).
    first_kernel: bool,
}

#[derive(Debug, Clone)]
struct Call {
    start: i64,
    end: i64,
    tid: u32,
    name: String,
}

/// A host interval on a thread: a runtime call, an OS call or a range.
#[derive(Debug, Clone)]
struct Row {
    tid: u32,
    start: i64,
    end: i64,
    name: String,
}

/// What the input's raw rows give: gaps, spans, and the host rows.
struct Raw {
    gaps: Vec<RawGap>,
    span_ns: i64,
    /// Every copy or memset (its lane set).
    copies: Vec<RawOp>,
    runtime: Vec<Row>,
    os: Vec<Row>,
    ranges: Vec<Row>,
    /// The input shows PyTorch (its ranges), by the range texts.
    pytorch: bool,
    trace: bool,
}

/// A GPU op from the raw rows.
#[derive(Debug, Clone, Copy)]
struct RawOp {
    pid: u32,
    device: i64,
    start: i64,
    end: i64,
    /// Copy lane (copyKind, 100 for memsets), `None` for kernels.
    lane: Option<i64>,
    correlation: Option<u32>,
    /// A kernel's name key (nsys: its `shortName` id, else
    /// `demangledName`'s; a trace: a hash of its name); 0 for other ops.
    name: u64,
}

/// The gaps of `ops` per (pid, device), each as (its start, the op after
/// it), and the summed spans.
fn ops_gaps(mut ops: Vec<RawOp>) -> (Vec<(i64, RawOp, bool)>, i64) {
    ops.sort_by_key(|o| (o.pid, o.device, o.start, o.end));
    let mut gaps = Vec::new();
    let mut span = 0;
    for dev in ops.chunk_by(|a, b| (a.pid, a.device) == (b.pid, b.device)) {
        let mut reach = dev[0].end;
        let mut seen: HashSet<u64> = HashSet::from([dev[0].name]);
        for o in &dev[1..] {
            // Whole-graph rows (name key −1) are not kernels.
            let first = o.lane.is_none() && o.name != u64::MAX && seen.insert(o.name);
            if o.start > reach {
                gaps.push((reach, *o, first));
            }
            reach = reach.max(o.end);
        }
        span += reach - dev[0].start;
    }
    (gaps, span)
}

/// The raw gaps, each joined to the launching call of the op after it.
fn raw_gaps(
    gaps: Vec<(i64, RawOp, bool)>,
    calls: &HashMap<(u32, u32), Call>,
    host: Option<u32>,
) -> Vec<RawGap> {
    gaps.into_iter()
        .map(|(g0, o, first_kernel)| RawGap {
            pid: o.pid,
            device: o.device,
            g0,
            g1: o.start,
            lane: o.lane,
            call: o
                .correlation
                .filter(|c| *c != 0)
                .and_then(|corr| calls.get(&(host.unwrap_or(o.pid), corr)).cloned()),
            first_kernel,
        })
        .collect()
}

fn is_pytorch_text(t: &str) -> bool {
    t.starts_with("aten::") || t.starts_with("autograd::") || t.to_lowercase().contains("torch")
}

/// An nsys export's raw rows, by SQL.
fn raw_nsys(path: &Path) -> Raw {
    let c = Connection::open_with_flags(path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    let has = |t: &str| {
        c.query_row(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?1",
            [t],
            |r| r.get::<_, i64>(0),
        )
        .unwrap()
            > 0
    };
    let short = c
        .prepare("SELECT * FROM CUPTI_ACTIVITY_KIND_KERNEL LIMIT 0")
        .unwrap()
        .column_names()
        .contains(&"shortName");
    let kernel_name = if short { "shortName" } else { "demangledName" };
    let mut parts = vec![format!("SELECT start, \"end\", globalPid, deviceId, correlationId, NULL AS lane, {kernel_name} FROM CUPTI_ACTIVITY_KIND_KERNEL")];
    if has("CUPTI_ACTIVITY_KIND_MEMCPY") {
        parts.push("SELECT start, \"end\", globalPid, deviceId, correlationId, copyKind, 0 FROM CUPTI_ACTIVITY_KIND_MEMCPY".into());
    }
    if has("CUPTI_ACTIVITY_KIND_MEMSET") {
        parts.push("SELECT start, \"end\", globalPid, deviceId, correlationId, 100, 0 FROM CUPTI_ACTIVITY_KIND_MEMSET".into());
    }
    if has("CUPTI_ACTIVITY_KIND_GRAPH_TRACE") {
        // A whole-graph row: not a kernel, but no copy lane either.
        parts.push("SELECT start, \"end\", globalPid, deviceId, correlationId, NULL, -1 FROM CUPTI_ACTIVITY_KIND_GRAPH_TRACE".into());
    }
    let sql = parts.join(" UNION ALL ");
    let mut st = c.prepare(&sql).unwrap();
    let ops: Vec<RawOp> = st
        .query_map([], |r| {
            let gpid: i64 = r.get(2)?;
            Ok(RawOp {
                pid: ((gpid >> 24) & 0xFF_FFFF) as u32,
                device: r.get(3)?,
                start: r.get(0)?,
                end: r.get(1)?,
                lane: r.get(5)?,
                correlation: r.get::<_, Option<i64>>(4)?.map(|x| x as u32),
                name: r.get::<_, Option<i64>>(6)?.unwrap_or(0) as u64,
            })
        })
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let copies = ops.iter().filter(|o| o.lane.is_some()).copied().collect();
    let (gaps, span_ns) = ops_gaps(ops);
    let name_of = "(SELECT value FROM StringIds s WHERE s.id = nameId)";
    let rows = |table: &str, extra: &str| -> Vec<(u32, u32, i64, i64, String, Option<u32>)> {
        if !has(table) {
            return Vec::new();
        }
        let corr = if table == "OSRT_API" {
            "NULL"
        } else {
            "correlationId"
        };
        let sql =
            format!("SELECT globalTid, start, \"end\", {name_of}, {corr} FROM {table} {extra}");
        let mut st = c.prepare(&sql).unwrap();
        st.query_map([], |r| {
            let gtid: i64 = r.get(0)?;
            Ok((
                ((gtid >> 24) & 0xFF_FFFF) as u32,
                (gtid & 0xFF_FFFF) as u32,
                r.get(1)?,
                r.get(2)?,
                r.get::<_, Option<String>>(3)?.unwrap_or_default(),
                r.get::<_, Option<i64>>(4)?.map(|x| x as u32),
            ))
        })
        .unwrap()
        .map(Result::unwrap)
        .collect()
    };
    let mut runtime_rows = rows("CUPTI_ACTIVITY_KIND_RUNTIME", "");
    runtime_rows.extend(rows("CUPTI_ACTIVITY_KIND_DRIVER", ""));
    let os_rows = if has("OSRT_API") {
        let nested = c
            .prepare("SELECT nestingLevel FROM OSRT_API LIMIT 0")
            .is_ok();
        rows(
            "OSRT_API",
            if nested {
                "WHERE coalesce(nestingLevel, 0) = 0"
            } else {
                ""
            },
        )
    } else {
        Vec::new()
    };
    let mut ranges = Vec::new();
    if has("NVTX_EVENTS") {
        let mut st = c
            .prepare(
                "SELECT globalTid, start, \"end\", coalesce(text, (SELECT value FROM StringIds s WHERE s.id = textId))
                 FROM NVTX_EVENTS WHERE \"end\" IS NOT NULL AND globalTid IS NOT NULL",
            )
            .unwrap();
        ranges = st
            .query_map([], |r| {
                let gtid: i64 = r.get(0)?;
                Ok(Row {
                    tid: (gtid & 0xFF_FFFF) as u32,
                    start: r.get(1)?,
                    end: r.get(2)?,
                    name: r.get::<_, Option<String>>(3)?.unwrap_or_default(),
                })
            })
            .unwrap()
            .map(Result::unwrap)
            .collect();
    }
    let calls = outermost(runtime_rows.iter().map(|r| (r.0, r.5, r.1, r.2, r.3, &r.4)));
    let to_row = |r: &(u32, u32, i64, i64, String, Option<u32>)| Row {
        tid: r.1,
        start: r.2,
        end: r.3,
        name: r.4.clone(),
    };
    Raw {
        gaps: raw_gaps(gaps, &calls, None),
        span_ns,
        copies,
        runtime: runtime_rows.iter().map(to_row).collect(),
        os: os_rows.iter().map(to_row).collect(),
        pytorch: ranges.iter().any(|r| is_pytorch_text(&r.name)),
        ranges,
        trace: false,
    }
}

/// The outermost call of each (pid, correlation id): earliest start,
/// latest end, the earliest row's name and thread.
fn outermost<'a>(
    rows: impl Iterator<Item = (u32, Option<u32>, u32, i64, i64, &'a String)>,
) -> HashMap<(u32, u32), Call> {
    let mut calls: HashMap<(u32, u32), Call> = HashMap::new();
    for (pid, corr, tid, start, end, name) in rows {
        let Some(corr) = corr.filter(|c| *c != 0) else {
            continue;
        };
        let c = calls.entry((pid, corr)).or_insert_with(|| Call {
            start,
            end,
            tid,
            name: name.clone(),
        });
        if start < c.start {
            c.start = start;
            c.name = name.clone();
            c.tid = tid;
        }
        c.end = c.end.max(end);
    }
    calls
}

/// A µs number as ns: integers exactly; a fraction from its shortest
/// decimal form (what the trace wrote, `4458676423385.775`), digit by
/// digit, rounded at the ns (an f64 product is off by one ns at 16 digits).
fn ns(v: &Value) -> i64 {
    if let Some(us) = v.as_i64() {
        return us * 1000;
    }
    let text = v.to_string();
    let (int, frac) = text.split_once('.').unwrap_or((&text, ""));
    let digits: String = frac.chars().chain("0000".chars()).take(4).collect();
    let sub: i64 = digits.parse().unwrap_or(0); // 0.1 ns units
    let sign = if int.starts_with('-') { -1 } else { 1 };
    let whole: i64 = int.parse().unwrap_or(0);
    whole * 1000 + sign * ((sub + 5) / 10)
}

/// Kineto's signed 32-bit thread ids as the unsigned ids they wrap.
fn tid(v: &Value) -> u32 {
    v.as_i64().map_or(0, |t| (t & 0xFFFF_FFFF) as u32)
}

/// A PyTorch trace's raw rows, by `serde_json::Value`.
fn raw_trace(path: &Path) -> Raw {
    let mut text = String::new();
    let file = std::fs::File::open(path).unwrap();
    if path.extension().is_some_and(|e| e == "gz") {
        flate2::read::GzDecoder::new(file)
            .read_to_string(&mut text)
            .unwrap();
    } else {
        std::io::BufReader::new(file)
            .read_to_string(&mut text)
            .unwrap();
    }
    let doc: Value = serde_json::from_str(&text).unwrap();
    let events = doc["traceEvents"].as_array().cloned().unwrap_or_default();
    let x = |e: &&Value| e["ph"] == "X";
    let cat = |e: &Value| e["cat"].as_str().unwrap_or("").to_string();
    // The host process: the first runtime event's pid (every GPU op is
    // joined to its calls).
    let host = events
        .iter()
        .filter(x)
        .find(|e| ["cuda_runtime", "cuda_driver"].contains(&cat(e).as_str()))
        .and_then(|e| e["pid"].as_i64())
        .unwrap_or(0) as u32;
    let mut ops = Vec::new();
    let mut runtime = Vec::new();
    let mut ranges = Vec::new();
    let mut runtime_calls = Vec::new();
    for e in events.iter().filter(x) {
        let (start, c) = (ns(&e["ts"]), cat(e));
        let end = start + ns(&e["dur"]);
        let name = e["name"].as_str().unwrap_or("?").to_string();
        let corr = e["args"]["correlation"].as_i64().map(|c| c as u32);
        match c.as_str() {
            "kernel" | "gpu_memcpy" | "gpu_memset" => {
                let device = e["args"]["device"].as_i64().or(e["pid"].as_i64()).unwrap();
                let lane = match c.as_str() {
                    "gpu_memcpy" => Some(copy_lane(&name)),
                    "gpu_memset" => Some(100),
                    _ => None,
                };
                let key = {
                    use std::hash::{Hash, Hasher};
                    let mut h = std::collections::hash_map::DefaultHasher::new();
                    name.hash(&mut h);
                    h.finish()
                };
                ops.push(RawOp {
                    pid: host,
                    device,
                    start,
                    end,
                    lane,
                    correlation: corr,
                    name: key,
                });
            }
            "cuda_runtime" | "cuda_driver" => {
                runtime_calls.push((
                    e["pid"].as_i64().unwrap_or(0) as u32,
                    corr,
                    tid(&e["tid"]),
                    start,
                    end,
                    name.clone(),
                ));
                runtime.push(Row {
                    tid: tid(&e["tid"]),
                    start,
                    end,
                    name,
                });
            }
            "cpu_op" | "user_annotation" => ranges.push(Row {
                tid: tid(&e["tid"]),
                start,
                end,
                name,
            }),
            _ => {}
        }
    }
    let calls = outermost(
        runtime_calls
            .iter()
            .map(|r| (r.0, r.1, r.2, r.3, r.4, &r.5)),
    );
    let copies = ops.iter().filter(|o| o.lane.is_some()).copied().collect();
    let (gaps, span_ns) = ops_gaps(ops);
    Raw {
        gaps: raw_gaps(gaps, &calls, Some(host)),
        span_ns,
        copies,
        runtime,
        os: Vec::new(),
        pytorch: ranges.iter().any(|r| is_pytorch_text(&r.name)),
        ranges,
        trace: true,
    }
}

/// A Kineto memcpy's direction, as CUPTI's copyKind code (HtoD 1, DtoH 2,
/// DtoD 8, PtoP 10), from its event name (`Memcpy HtoD (Pageable -> Device)`).
fn copy_lane(name: &str) -> i64 {
    for (d, k) in [("HtoD", 1), ("DtoH", 2), ("DtoD", 8), ("PtoP", 10)] {
        if name.contains(d) {
            return k;
        }
    }
    0
}

/// The class's rule holds on the raw rows of gap `g` (docs/gaps.md, the
/// classes): the facts every class rests on.
fn rule_holds(raw: &Raw, g: &RawGap, class: GapClass) -> bool {
    let len = g.g1 - g.g0;
    let queued = g.call.as_ref().is_some_and(|a| a.end <= g.g0);
    match class {
        GapClass::Unattributed => g.call.is_none(),
        GapClass::LaunchLatency => queued && len < 5_000,
        GapClass::QueuedDependency => queued && len >= 5_000,
        GapClass::CopyScheduling => {
            queued
                && len >= 5_000
                && g.lane.is_some_and(|lane| {
                    raw.copies.iter().any(|c| {
                        (c.device, c.lane) == (g.device, Some(lane))
                            && c.pid != g.pid
                            && c.start < g.g1
                            && c.end > g.g0
                    })
                })
        }
        GapClass::LaunchInFlight => g
            .call
            .as_ref()
            .is_some_and(|a| a.end > g.g0 && a.end - a.start >= 50_000),
        GapClass::HostBound
        | GapClass::SyncDrain
        | GapClass::Synchronization
        | GapClass::PageableCopy => g.call.as_ref().is_some_and(|a| a.end > g.g0),
    }
}

/// Length of the union of `iv` clipped to `[w0, w1)`.
fn union_in(mut iv: Vec<(i64, i64)>, (w0, w1): (i64, i64)) -> i64 {
    iv.retain(|x| x.1.min(w1) > x.0.max(w0));
    iv.sort_unstable();
    let (mut total, mut reach) = (0, w0);
    for (s, e) in iv {
        let (s, e) = (s.max(reach), e.min(w1));
        if e > s {
            total += e - s;
            reach = e;
        }
    }
    total
}

fn is_alloc(name: &str) -> bool {
    let stem = ["cuda", "hip", "cu"]
        .iter()
        .find_map(|p| name.strip_prefix(p))
        .unwrap_or("");
    [
        "Malloc",
        "Free",
        "HostAlloc",
        "HostMalloc",
        "HostFree",
        "HostRegister",
        "MemAlloc",
        "MemFree",
        "MemHostAlloc",
        "MemCreate",
        "MemMap",
        "MemRelease",
        "MemUnmap",
    ]
    .iter()
    .any(|p| stem.starts_with(p))
}

/// On one of the longest host-bound gaps: the raw time of the detail it
/// names over the host window, which must be the quoted time, and the rule
/// that picked it (a call kind larger than the others and than the rest of
/// the window; a range text over half the window; else CPU work).
fn check_top_host_gap(raw: &Raw, g: &rooftrace::gaps::TopGap, what: &str) {
    let (Some(api), Some(e)) = (g.api.as_ref(), g.host_evidence) else {
        return;
    };
    let window = (g.start_ns, api.end_ns.min(g.end_ns));
    let wlen = window.1 - window.0;
    let on_thread = |rows: &[Row]| -> Vec<Row> {
        rows.iter()
            .filter(|x| x.tid == api.tid && x.end > window.0 && x.start < window.1)
            .cloned()
            .collect()
    };
    let launch = (api.start_ns, api.end_ns);
    let calls = on_thread(&raw.runtime);
    let others: Vec<&Row> = calls
        .iter()
        .filter(|c| !(c.start >= launch.0 && c.end <= launch.1))
        .collect();
    let launch_ns = union_in(vec![launch], window);
    let alloc_ns = union_in(
        others
            .iter()
            .filter(|c| is_alloc(&c.name))
            .map(|c| (c.start, c.end))
            .collect(),
        window,
    );
    let api_ns = union_in(
        others
            .iter()
            .filter(|c| !is_alloc(&c.name))
            .map(|c| (c.start, c.end))
            .collect(),
        window,
    );
    let cuda: Vec<(i64, i64)> = calls.iter().map(|c| (c.start, c.end)).collect();
    let os_rows = on_thread(&raw.os);
    let os_ns = union_in(os_rows.iter().map(|o| (o.start, o.end)).collect(), window) - {
        // The parts of OS calls inside CUDA calls are those calls' time.
        let mut inside = Vec::new();
        for o in &os_rows {
            for c in &cuda {
                let (s, t) = (o.start.max(c.0), o.end.min(c.1));
                if t > s {
                    inside.push((s, t));
                }
            }
        }
        union_in(inside, window)
    };
    let called = launch_ns + alloc_ns + api_ns + os_ns;
    let rest = wlen - called;
    let quoted = |ns: i64| {
        // In the input's words: a PyTorch trace's ranges are PyTorch's.
        let tool = if what.contains(".json") {
            rooftrace::gaps::Tool::PyTorchProfiler
        } else {
            rooftrace::gaps::Tool::Nsys
        };
        let q = format!("({}, {})", e.detail.label_in(tool), duration_ns(ns as f64));
        assert!(
            g.host.as_deref().unwrap_or("").ends_with(&q),
            "{what}: {:?} quotes not {q}",
            g.host
        );
    };
    let sums = [
        (HostDetail::LaunchCall, launch_ns),
        (HostDetail::Alloc, alloc_ns),
        (HostDetail::CudaApi, api_ns),
        (HostDetail::OsRuntime, os_ns),
    ];
    match e.detail {
        HostDetail::LaunchCall
        | HostDetail::Alloc
        | HostDetail::CudaApi
        | HostDetail::OsRuntime => {
            let ns = sums.iter().find(|s| s.0 == e.detail).unwrap().1;
            quoted(ns);
            assert!(
                ns > rest && sums.iter().all(|s| s.1 <= ns),
                "{what}: {sums:?} rest {rest}"
            );
        }
        HostDetail::Nvtx => {
            // Among the texts whose ranges cover more than half the window,
            // a PyTorch, MPI or NCCL text first, then the most covered,
            // then the innermost.
            let ranges = on_thread(&raw.ranges);
            let mut texts: Vec<&str> = ranges.iter().map(|x| x.name.as_str()).collect();
            texts.sort_unstable();
            texts.dedup();
            let family = |t: &str| {
                is_pytorch_text(t) || t.starts_with("MPI_") || t.to_lowercase().contains("nccl")
            };
            // On a tie, the text whose latest range starts last (the innermost).
            let latest = |t: &str| ranges.iter().filter(|x| x.name == t).map(|x| x.start).max();
            let (text, cover) = texts
                .into_iter()
                .map(|t| {
                    (
                        t,
                        union_in(
                            ranges
                                .iter()
                                .filter(|x| x.name == t)
                                .map(|x| (x.start, x.end))
                                .collect(),
                            window,
                        ),
                    )
                })
                .filter(|(_, c)| c * 2 > wlen)
                .max_by_key(|&(t, c)| (family(t), c, latest(t)))
                .unwrap_or_else(|| panic!("{what}: no range text covers half of {window:?}"));
            assert!(
                g.host
                    .as_deref()
                    .unwrap_or("")
                    .starts_with(&format!("`{text}`")),
                "{what}: {:?} names not `{text}`",
                g.host
            );
            quoted(cover);
            assert!(
                sums.iter().all(|s| s.1 <= rest),
                "{what}: {sums:?} rest {rest}"
            );
        }
        HostDetail::CpuWork => {
            quoted(rest);
            assert!(
                sums.iter().all(|s| s.1 <= rest),
                "{what}: {sums:?} rest {rest}"
            );
            let ranges = on_thread(&raw.ranges);
            let mut texts: Vec<&str> = ranges.iter().map(|x| x.name.as_str()).collect();
            texts.sort_unstable();
            texts.dedup();
            for t in texts {
                let cover = union_in(
                    ranges
                        .iter()
                        .filter(|x| x.name == t)
                        .map(|x| (x.start, x.end))
                        .collect(),
                    window,
                );
                assert!(cover * 2 <= wlen, "{what}: `{t}` covers {cover} of {wlen}");
            }
        }
        // No input here has them; their rows are the OS table's.
        HostDetail::InputWait | HostDetail::ProfilerOverhead => {}
    }
}

/// The fix table of docs/gaps.md: (evidence, input) -> fix.
fn docs_fixes() -> HashMap<(String, String), String> {
    let docs = std::fs::read_to_string(crate::common::root().join("docs/gaps.md")).unwrap();
    let mut out = HashMap::new();
    for line in docs.lines().filter(|l| l.starts_with("| `")) {
        let cells: Vec<&str> = line.trim_matches('|').split(" | ").map(str::trim).collect();
        if cells.len() == 3 {
            // One row per distinct fix, naming the inputs it holds for.
            for input in cells[1].split("; ") {
                out.insert(
                    (cells[0].trim_matches('`').to_string(), input.to_string()),
                    cells[2].replace("\\|", "|"),
                );
            }
        }
    }
    out
}

/// The documented fix for `evidence` in the input's terms.
fn documented(table: &HashMap<(String, String), String>, evidence: &str, raw: &Raw) -> String {
    let input = match (raw.trace, raw.pytorch) {
        (true, _) => "PyTorch trace",
        (false, true) => "nsys export, PyTorch ranges",
        (false, false) => "nsys export",
    };
    // A program that replays CUDA graphs (a graph launch call).
    let graphs = raw.runtime.iter().any(|r| r.name.contains("GraphLaunch"));
    let input = if graphs {
        format!("{input}, CUDA graphs")
    } else {
        input.to_string()
    };
    table
        .get(&(evidence.to_string(), "any".to_string()))
        .or_else(|| table.get(&(evidence.to_string(), input.clone())))
        .unwrap_or_else(|| panic!("no docs row for {evidence} / {input}"))
        .clone()
}

/// Recomputes one input's headline; returns it.
fn recompute(
    path: &Path,
    raw: &Raw,
    report: &GapReport,
    table: &HashMap<(String, String), String>,
) -> String {
    let what = path.file_name().unwrap().to_string_lossy().to_string();
    let (code, out, err) = rooftrace(&["gaps", path.to_str().unwrap()]);
    assert_eq!(code, 0, "{what}: {err}");
    let line = out.lines().next().unwrap().to_string();
    // The gaps: rooftrace's kept gaps are the raw ones, interval for interval.
    let kept = report.gaps.as_deref().unwrap();
    let mut mine: Vec<(u32, i64, i64, i64)> = raw
        .gaps
        .iter()
        .map(|g| (g.pid, g.device, g.g0, g.g1))
        .collect();
    let mut theirs: Vec<(u32, i64, i64, i64)> = kept
        .iter()
        .map(|g| (g.pid, i64::from(g.device), g.start_ns, g.end_ns))
        .collect();
    mine.sort_unstable();
    theirs.sort_unstable();
    if mine != theirs {
        let first = mine.iter().zip(&theirs).position(|(a, b)| a != b);
        panic!(
            "{what}: the gaps differ: {} raw, {} kept, first difference at {first:?}: {:?} vs {:?}",
            mine.len(),
            theirs.len(),
            first.map(|i| mine[i]),
            first.map(|i| theirs[i])
        );
    }
    let idle: i64 = raw.gaps.iter().map(|g| g.g1 - g.g0).sum();
    let head = format!(
        "GPU idle {} of {}",
        percent(idle as f64 / raw.span_ns as f64),
        duration_ns(raw.span_ns as f64)
    );
    assert!(
        line.starts_with(&head),
        "{what}: {line} does not start {head}"
    );
    // Every gap's class holds on the raw rows; the class totals follow.
    let class_of: HashMap<(u32, i64, i64), GapClass> = kept
        .iter()
        .map(|g| ((g.pid, g.start_ns, g.end_ns), g.class))
        .collect();
    let mut by_class: BTreeMap<GapClass, i64> = BTreeMap::new();
    let warm = warm_up_ranges(raw);
    let mut once = 0i64;
    for g in &raw.gaps {
        let c = class_of[&(g.pid, g.g0, g.g1)];
        assert!(
            rule_holds(raw, g, c),
            "{what}: gap [{}, {}) on device {} is {c:?} but {:?}",
            g.g0,
            g.g1,
            g.device,
            g.call
        );
        // The advice is for the steady state: one-time gaps apart.
        if is_one_time(&warm, g, c) {
            once += g.g1 - g.g0;
        } else {
            *by_class.entry(c).or_default() += g.g1 - g.g0;
        }
    }
    let (idle, span) = (idle - once, raw.span_ns - once);
    if once > 0 {
        let steady = format!(
            "one-time {} ({} of the idle",
            duration_ns(once as f64),
            percent(once as f64 / (idle + once) as f64)
        );
        assert!(line.contains(&steady), "{what}: {line} lacks {steady}");
    }
    // The headline's class: the most idle time (first in display order).
    let Some(top) = GapClass::ALL
        .into_iter()
        .filter(|c| by_class.get(c).is_some_and(|t| *t > 0))
        .max_by_key(|c| (by_class[c], std::cmp::Reverse(*c as usize)))
    else {
        return line;
    };
    let share = percent(by_class[&top] as f64 / idle as f64);
    // What its fix is worth: first only at 5 % of the (steady) span.
    let worth = by_class[&top] as f64 / span as f64;
    let busy = worth < 0.05;
    let named = if top == GapClass::Unattributed {
        format!(", {share} unattributed (no launch row)")
    } else {
        format!(", {share} {}", top.label())
    };
    assert!(line.contains(&named), "{what}: {line} lacks {named}");
    // The host detail it names, on the longest host-bound gaps.
    for g in report
        .top_gaps
        .iter()
        .take(10)
        .filter(|g| g.class == GapClass::HostBound)
    {
        check_top_host_gap(raw, g, &what);
    }
    // The fix: the docs row of the evidence, in the input's terms.
    let evidence = if line.contains("fix first: copies dominate busy time") {
        let c = report
            .devices
            .iter()
            .flat_map(|d| &d.copies)
            .max_by_key(|c| c.duration_ns)
            .unwrap();
        let key = if c.pageable {
            "copies:pageable"
        } else if c.direction.label() == "DtoD" {
            "copies:device"
        } else {
            "copies:pinned"
        };
        Some(key.to_string())
    } else if !line.contains("fix first:") && !busy {
        None
    } else if top == GapClass::HostBound {
        use rooftrace::gaps::HostAdvice;
        let mut steady = rooftrace::gaps::totals::HostTotals::default();
        for d in &report.devices {
            steady.merge(&d.one_time.steady_host);
        }
        let totals = if once > 0 {
            steady
        } else {
            report.host_totals()
        };
        Some(match totals.advice().unwrap() {
            HostAdvice::Range(f, _) => rooftrace::gaps::fixes::range_key(f).to_string(),
            HostAdvice::Call(f, _) => rooftrace::gaps::fixes::call_key(f).to_string(),
            HostAdvice::Detail(d, _) => format!("detail:{}", d.key()),
            HostAdvice::Scale(s, _) => format!("scale:{}", s.key()),
        })
    } else {
        Some(format!("class:{}", top.key()))
    };
    if let Some(ev) = evidence {
        let fix = documented(table, &ev, raw);
        // The copies' fix follows the figures it rests on.
        let given = if ev.starts_with("copies:") {
            format!("): {fix}")
        } else if busy {
            format!("worth {} of the span: {fix}", percent(worth))
        } else {
            format!("fix first: {fix}")
        };
        assert!(
            line.contains(&given),
            "{what}: {line} does not give the documented fix for {ev}: {fix}"
        );
    }
    line
}

/// The ranges whose text names a warm-up (docs/gaps.md, "One-time
/// costs"), merged: every corpus input is one process where it has any.
fn warm_up_ranges(raw: &Raw) -> Vec<(i64, i64)> {
    let mut warm: Vec<(i64, i64)> = raw
        .ranges
        .iter()
        .filter(|r| {
            let t = r.name.to_lowercase();
            ["warmup", "warm-up", "warm_up", "warm up"]
                .iter()
                .any(|w| t.contains(w))
        })
        .map(|r| (r.start, r.end))
        .collect();
    warm.sort_unstable();
    let mut merged: Vec<(i64, i64)> = Vec::new();
    for (s, e) in warm {
        match merged.last_mut() {
            Some(m) if s <= m.1 => m.1 = m.1.max(e),
            _ => merged.push((s, e)),
        }
    }
    merged
}

/// A gap the run pays once: half of it or more in a warm-up range, or a
/// late launch (host-bound, slow launch call) of a kernel's first launch
/// on its device whose call took 1 ms or more.
fn is_one_time(warm: &[(i64, i64)], g: &RawGap, c: GapClass) -> bool {
    let inside: i64 = warm
        .iter()
        .map(|&(s, e)| (e.min(g.g1) - s.max(g.g0)).max(0))
        .sum();
    let slow_first = g.first_kernel
        && g.call
            .as_ref()
            .is_some_and(|a| a.end - a.start >= 1_000_000);
    2 * inside >= g.g1 - g.g0
        || (slow_first && matches!(c, GapClass::HostBound | GapClass::LaunchInFlight))
}

/// Every export and trace of `fixtures/` and the corpus, once by file name.
fn inputs() -> Vec<PathBuf> {
    let mut seen = BTreeMap::new();
    let dirs = [fixture("nsys"), fixture("kineto")]
        .into_iter()
        .chain(["nsys", "kineto"].into_iter().filter_map(corpus));
    for dir in dirs {
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            let n = p.file_name().unwrap().to_string_lossy().to_string();
            let ok = (n.ends_with(".sqlite") && n.starts_with("nsys")) || n.ends_with(".json.gz");
            // The corpus names traces kineto_hta_<fixture name>.
            let key = n.trim_start_matches("kineto_hta_").to_string();
            if ok {
                seen.entry(key).or_insert(p);
            }
        }
    }
    seen.into_values().collect()
}

#[test]
fn every_headline_is_recomputed_from_the_raw_rows() {
    let table = docs_fixes();
    let mut recomputed = Vec::new();
    for path in inputs() {
        let trace = path.to_string_lossy().ends_with(".json.gz");
        let tl = if trace {
            match rooftrace::kineto::read_timeline(&path) {
                Ok(t) => t.timeline,
                // A counters-only trace: no timeline, no headline (the
                // Kineto tests check that error).
                Err(_) => continue,
            }
        } else {
            rooftrace::nsys::read_timeline(&path, false, &|_, _| {}).unwrap()
        };
        let cfg = GapConfig {
            keep_gaps: true,
            ..GapConfig::default()
        };
        let report = analyze(&tl, &cfg);
        let raw = if trace {
            raw_trace(&path)
        } else {
            raw_nsys(&path)
        };
        let line = recompute(&path, &raw, &report, &table);
        recomputed.push(format!(
            "{}: {line}",
            path.file_name().unwrap().to_string_lossy()
        ));
    }
    // At least the shipped fixtures (5 exports, 5 traces with a timeline).
    assert!(recomputed.len() >= 10, "{recomputed:#?}");
    // The list, for `cargo test -- --nocapture` (the note quotes it).
    eprintln!(
        "headlines recomputed from the raw rows:\n{}",
        recomputed.join("\n")
    );
}
