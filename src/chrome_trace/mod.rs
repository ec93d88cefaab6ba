//! `--trace-out FILE`: the timeline and what rooftrace found in it as a
//! Chrome-trace JSON that Perfetto (ui.perfetto.dev) and `chrome://tracing`
//! open, shaped as the PyTorch profiler (Kineto) writes its traces, so that
//! rooftrace's own Kineto reader and HTA read it back too
//! (docs/plots.md, "The trace for Perfetto").
//!
//! - per device (`pid` = device index, as Kineto): one thread per stream
//!   with its kernels, copies and memsets (`ops`), and rooftrace's tracks
//!   above them (`tracks`): `rooftrace idle gaps` (every gap, named by its
//!   class), and for `budget` `rooftrace steps` and `rooftrace step budget`,
//!   for `path` `rooftrace critical path` (`critical`: each segment of each
//!   step's path, flow arrows where it changes lane);
//! - per host process: the launch and sync calls, NVTX ranges, OS runtime
//!   calls, and a flow arrow from each launch call to its GPU op;
//! - `deviceProperties` and `distributedInfo` from the input's GPU records
//!   and rank.
//!
//! Times are the input's own clock, written to the ns.

mod critical;
mod ops;
mod tracks;
mod writer;

pub use critical::{PATH_CAT, PATH_FLOW_CAT, PATH_TID};
pub use ops::KernelNote;
pub use tracks::{GAPS_TID, GAP_CAT, PARTS_TID, PART_CAT, STEPS_TID, STEP_CAT};

use crate::budget::{BoundSource, BudgetReport};
use crate::gaps::GapReport;
use crate::path::PathReport;
use crate::timeline::Timeline;
use serde_json::{json, Map, Value};
use std::collections::{BTreeSet, HashMap};
use writer::{EventWriter, Row};

/// What a trace is written from.
#[derive(Debug, Clone, Copy)]
pub struct TraceInput<'a> {
    /// The timeline as read.
    pub timeline: &'a Timeline,
    /// Its gap analysis, with every gap kept (`keep_gaps`) and described
    /// (`top` 0, `min_gap_ns` 0) for the gap track to say what each was.
    pub gaps: &'a GapReport,
    /// The step budget, when `budget` or `path` writes the trace.
    pub budget: Option<&'a BudgetReport>,
    /// The steps' critical paths, when `path` writes the trace.
    pub path: Option<&'a PathReport>,
    /// The input as the user named it (the trace's `otherData`).
    pub input: &'a str,
}

/// Writes the trace to `out` (plain JSON; the caller compresses a `.gz`),
/// one event at a time.
pub fn write(input: &TraceInput<'_>, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    let tl = input.timeline;
    let mut w = EventWriter::new(out, &top_level(input));
    let notes = input.budget.map(kernel_notes).unwrap_or_default();
    let gpu_rows = ops::gpu_ops(&mut w, tl, &notes);
    let host_rows = ops::host_rows(&mut w, tl);
    let mut own = tracks::gaps(&mut w, input.gaps);
    if let Some(b) = input.budget {
        own.extend(tracks::budget(&mut w, b));
    }
    if let Some(p) = input.path {
        own.extend(critical::path(&mut w, p));
    }
    names(&mut w, tl, &gpu_rows, &host_rows, &own);
    w.finish()
}

/// Each kernel name's roofline fraction (Σ T* / Σ T over its launches in
/// the steps) when the budget's bound comes from ncu counters (with the
/// op models beside them, only the names no launch of which they bound).
fn kernel_notes(b: &BudgetReport) -> HashMap<String, KernelNote> {
    let (BoundSource::Ncu { file } | BoundSource::NcuAndOpModel { file, .. }) = &b.bound_source
    else {
        return HashMap::new();
    };
    b.kernels
        .iter()
        .filter(|k| k.time_ns > 0 && k.op_model.unwrap_or(0) == 0)
        .filter_map(|k| {
            let bound = k.bound_ns?;
            let lower = if k.lower_bound_launches > 0 {
                format!(
                    "; at least this: {} launches have an unknown side in the ncu row",
                    k.lower_bound_launches
                )
            } else {
                String::new()
            };
            Some((
                k.name.clone(),
                KernelNote {
                    roofline_fraction: bound as f64 / k.time_ns as f64,
                    how: format!(
                        "bound T* / time over the {} launches of this name inside the steps ({} matched to their own ncu launch), roofs of {}, counters of {file}{lower}",
                        k.launches,
                        k.matched,
                        b.gpu.name
                    ),
                },
            ))
        })
        .collect()
}

/// Process and thread names, rooftrace's tracks first in each device.
fn names(
    w: &mut EventWriter,
    tl: &Timeline,
    gpu_rows: &BTreeSet<Row>,
    host_rows: &BTreeSet<Row>,
    own: &BTreeSet<Row>,
) {
    let mut devices: BTreeSet<i64> = gpu_rows.iter().map(|r| r.pid).collect();
    devices.extend(own.iter().map(|r| r.pid));
    for d in &devices {
        let gpu = tl
            .info
            .identity
            .gpus
            .iter()
            .find(|g| g.id == *d)
            .map(|g| format!(" ({})", g.name))
            .unwrap_or_default();
        w.process_name(*d, &format!("GPU {d}{gpu}"));
    }
    for r in gpu_rows {
        w.thread_name(*r, &format!("stream {}", r.tid), r.tid);
    }
    for r in own {
        let (name, sort) = match r.tid {
            PATH_TID => ("rooftrace critical path", -4),
            GAPS_TID => ("rooftrace idle gaps", -3),
            STEPS_TID => ("rooftrace steps", -2),
            _ => ("rooftrace step budget", -1),
        };
        w.thread_name(*r, name, sort);
    }
    let hosts: BTreeSet<i64> = host_rows.iter().map(|r| r.pid).collect();
    for p in hosts.iter().filter(|p| !devices.contains(p)) {
        w.process_name(*p, &format!("host process {p}"));
    }
    for r in host_rows {
        w.thread_name(*r, &format!("thread {}", r.tid), r.tid);
    }
}

/// `deviceProperties`, `distributedInfo` and where the trace came from.
fn top_level(input: &TraceInput<'_>) -> Map<String, Value> {
    let identity = &input.timeline.info.identity;
    let mut top = Map::new();
    top.insert("schemaVersion".into(), 1.into());
    let devices: Vec<Value> = identity
        .gpus
        .iter()
        .map(|g| {
            let mut d = json!({ "id": g.id, "name": g.name });
            if let Some(cc) = g.compute_capability {
                d["computeMajor"] = cc.major.into();
                d["computeMinor"] = cc.minor.into();
            }
            if let Some(n) = g.sm_count {
                d["numSms"] = n.into();
            }
            d
        })
        .collect();
    if !devices.is_empty() {
        top.insert("deviceProperties".into(), Value::Array(devices));
    }
    if let Some((rank, _)) = identity.rank {
        top.insert("distributedInfo".into(), json!({ "rank": rank }));
    }
    top.insert(
        "otherData".into(),
        json!({
            "generator": format!("rooftrace {}", env!("CARGO_PKG_VERSION")),
            "input": input.input,
            "rooftrace_tracks": "per device: `rooftrace idle gaps` (every idle gap, named by its class; args: duration, cause, host_detail, evidence, fix), `rooftrace steps` and `rooftrace step budget` (budget and path), `rooftrace critical path` (path only: each segment of each step's critical path named by its part; flows `rooftrace_path_flow` where the path changes lane)",
        }),
    );
    top
}
