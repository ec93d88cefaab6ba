//! The timeline's own rows as Kineto writes them, so that Perfetto draws
//! them where a PyTorch trace's would be and rooftrace's Kineto reader (and
//! HTA) read them back: GPU ops on the device's process, one thread per
//! stream (`kernel`, `gpu_memcpy`, `gpu_memset` with `args.device`,
//! `args.stream`, `args.correlation`); launch and sync calls on their host
//! thread (`cuda_runtime`); NVTX ranges (`user_annotation`); OS runtime
//! calls and profiler overhead; a flow arrow from each launch call to its op.

use super::writer::{EventWriter, Row};
use crate::timeline::{HostSpanKind, NameRef, OpKind, Timeline, NO_TID};
use crate::units::percent;
use serde_json::{Map, Value};
use std::collections::{BTreeSet, HashMap, HashSet};

/// What the trace may say about one kernel name: its roofline fraction
/// from the ncu counters joined by `budget`.
#[derive(Debug, Clone, PartialEq)]
pub struct KernelNote {
    /// Σ bound `T*` / Σ time over the name's launches in the steps.
    pub roofline_fraction: f64,
    /// How it was derived, in words.
    pub how: String,
}

/// The Kineto name of a copy (`Memcpy HtoD (Pageable)`): its direction is
/// the second word, as the reader takes it.
fn copy_name(timeline_name: &str, pageable: bool) -> String {
    let direction = timeline_name.split_whitespace().nth(1).unwrap_or("?");
    if pageable {
        format!("Memcpy {direction} (Pageable)")
    } else {
        format!("Memcpy {direction}")
    }
}

/// The GPU ops, one thread per (device, stream); returns the rows used.
pub fn gpu_ops(
    w: &mut EventWriter,
    tl: &Timeline,
    kernels: &HashMap<String, KernelNote>,
) -> BTreeSet<Row> {
    let mut rows = BTreeSet::new();
    for op in &tl.ops {
        let row = Row {
            pid: i64::from(op.device),
            tid: i64::from(op.stream),
        };
        rows.insert(row);
        let name = tl.name(op.name);
        let (cat, shown) = match op.kind {
            OpKind::Kernel | OpKind::Graph => ("kernel", name.to_string()),
            OpKind::Memcpy => ("gpu_memcpy", copy_name(name, op.is_pageable())),
            OpKind::Memset => ("gpu_memset", "Memset (Device)".to_string()),
        };
        let mut args = Map::new();
        args.insert("device".into(), op.device.into());
        args.insert("stream".into(), op.stream.into());
        args.insert("correlation".into(), op.correlation_id.into());
        if op.kind == OpKind::Graph {
            args.insert(
                "rooftrace_note".into(),
                "a whole CUDA graph traced as one row (--cuda-graph-trace=graph)".into(),
            );
        }
        if let Some(note) = kernels.get(name).filter(|_| op.kind == OpKind::Kernel) {
            let f = (note.roofline_fraction * 1000.0).round() / 1000.0;
            args.insert("roofline_fraction".into(), f.into());
            args.insert("roofline_fraction_pct".into(), percent(f).into());
            args.insert("roofline_fraction_how".into(), note.how.clone().into());
        }
        w.complete(cat, &shown, row, op.start_ns, op.end_ns - op.start_ns, args);
        if let Some(call) = tl.api_of(op) {
            let from = Row {
                pid: i64::from(call.pid),
                tid: i64::from(call.tid),
            };
            w.flow(from, call.start_ns, row, op.start_ns);
        }
    }
    rows
}

/// Launch calls, sync calls, NVTX ranges and host spans; returns the host
/// rows used.
pub fn host_rows(w: &mut EventWriter, tl: &Timeline) -> BTreeSet<Row> {
    let mut rows = BTreeSet::new();
    let mut written: HashSet<(u32, u32, i64, u32)> = HashSet::new();
    for call in &tl.api {
        let row = Row {
            pid: i64::from(call.pid),
            tid: i64::from(call.tid),
        };
        rows.insert(row);
        written.insert((call.pid, call.tid, call.start_ns, call.correlation_id));
        runtime(
            w,
            tl,
            call.name,
            row,
            call.start_ns,
            call.end_ns,
            call.correlation_id,
        );
    }
    for s in &tl.syncs {
        if written.contains(&(s.pid, s.tid, s.start_ns, s.correlation_id)) {
            continue; // a blocking copy: a launch and a sync, written once
        }
        if s.tid == NO_TID || s.name == NameRef::UNKNOWN {
            // A synchronisation record without its call: where the GPU
            // side was recorded, as Kineto's `cuda_sync` (no stream, so
            // HTA does not count it as GPU time).
            let row = Row {
                pid: i64::from(s.pid),
                tid: 0,
            };
            let mut args = Map::new();
            args.insert("correlation".into(), s.correlation_id.into());
            w.complete(
                "cuda_sync",
                "cuda sync (call not in the export)",
                row,
                s.start_ns,
                s.end_ns - s.start_ns,
                args,
            );
            continue;
        }
        let row = Row {
            pid: i64::from(s.pid),
            tid: i64::from(s.tid),
        };
        rows.insert(row);
        runtime(w, tl, s.name, row, s.start_ns, s.end_ns, s.correlation_id);
    }
    for r in &tl.nvtx {
        let row = Row {
            pid: i64::from(r.pid),
            tid: i64::from(r.tid),
        };
        rows.insert(row);
        w.complete(
            "user_annotation",
            &r.text,
            row,
            r.start_ns,
            r.end_ns - r.start_ns,
            Map::new(),
        );
    }
    for h in &tl.host_spans {
        let row = Row {
            pid: i64::from(h.pid),
            tid: i64::from(h.tid),
        };
        rows.insert(row);
        let cat = match h.kind {
            HostSpanKind::OsRuntime => "os_runtime",
            HostSpanKind::ProfilerOverhead => "profiler_overhead",
        };
        w.complete(
            cat,
            tl.name(h.name),
            row,
            h.start_ns,
            h.end_ns - h.start_ns,
            Map::new(),
        );
    }
    rows
}

fn runtime(
    w: &mut EventWriter,
    tl: &Timeline,
    name: NameRef,
    row: Row,
    start_ns: i64,
    end_ns: i64,
    correlation: u32,
) {
    let mut args = Map::new();
    args.insert("correlation".into(), Value::from(correlation));
    w.complete(
        "cuda_runtime",
        tl.name(name),
        row,
        start_ns,
        end_ns - start_ns,
        args,
    );
}
