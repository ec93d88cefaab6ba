//! The `rooftrace critical path` track of `rooftrace path`: on each step's
//! device, every segment of the step's critical path as a slice named by
//! its part and label (what `path::analyze` walked, read from the
//! `PathReport`), and a flow arrow from a segment to the next wherever
//! the path moves to another lane (a stream to a thread, a thread to a
//! stream, one stream to another).

use super::writer::{EventWriter, Row};
use crate::path::{Lane, PathReport, Segment};
use crate::units::duration_ns;
use serde_json::Map;
use std::collections::BTreeSet;

/// The `tid` of a device's critical-path track (`path`).
pub const PATH_TID: i64 = 2_000_000_003;

/// The `cat` of a critical-path slice.
pub const PATH_CAT: &str = "rooftrace_path";

/// The `cat` (and name) of the flow arrows between segments on different
/// lanes.
pub const PATH_FLOW_CAT: &str = "rooftrace_path_flow";

/// Where a segment lies, in words.
fn lane_text(lane: Lane) -> String {
    match lane {
        Lane::Stream { device, stream } => format!("GPU {device} stream {stream}"),
        Lane::Thread { tid } => format!("thread {tid}"),
        Lane::Between => "between events".to_string(),
    }
}

/// A segment's slice name: its part, then what it is.
fn slice_name(s: &Segment) -> String {
    if s.label.is_empty() {
        s.part.key().to_string()
    } else {
        format!("{}: {}", s.part.key(), s.label)
    }
}

/// Every step's segments on its device's critical-path track, with the
/// flows; returns the rows used.
pub fn path(w: &mut EventWriter, report: &PathReport) -> BTreeSet<Row> {
    let mut rows = BTreeSet::new();
    for (i, step) in report.steps.iter().enumerate() {
        let row = Row {
            pid: i64::from(step.device),
            tid: PATH_TID,
        };
        let mut segments: Vec<&Segment> = step
            .segments
            .iter()
            .filter(|s| s.end_ns > s.start_ns)
            .collect();
        segments.sort_by_key(|s| (s.start_ns, s.end_ns));
        if segments.is_empty() {
            continue;
        }
        rows.insert(row);
        for s in &segments {
            let dur = s.end_ns - s.start_ns;
            let mut args = Map::new();
            args.insert("part".into(), s.part.key().into());
            args.insert("lane".into(), lane_text(s.lane).into());
            args.insert("duration".into(), duration_ns(dur as f64).into());
            args.insert("duration_ns".into(), dur.into());
            args.insert("step".into(), i.into());
            args.insert("step_name".into(), step.name.clone().into());
            args.insert("process".into(), step.pid.into());
            w.complete(PATH_CAT, &slice_name(s), row, s.start_ns, dur, args);
        }
        for pair in segments.windows(2) {
            if pair[0].lane != pair[1].lane {
                w.flow_in(PATH_FLOW_CAT, row, pair[0].start_ns, row, pair[1].start_ns);
            }
        }
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::path::{PartName, StepPath};

    fn seg(start_ns: i64, end_ns: i64, part: PartName, lane: Lane) -> Segment {
        Segment {
            start_ns,
            end_ns,
            part,
            lane,
            label: String::new(),
        }
    }

    #[test]
    fn a_slice_per_segment_and_a_flow_only_where_the_lane_changes() {
        let stream = Lane::Stream {
            device: 1,
            stream: 7,
        };
        let thread = Lane::Thread { tid: 42 };
        // Host call on the thread, its launch overhead (same thread), then
        // two kernels on the stream: one lane change, between 150 and 200.
        let segments = vec![
            seg(100, 150, PartName::HostCall, thread),
            seg(150, 200, PartName::LaunchOverhead, thread),
            seg(200, 300, PartName::KernelNoModel, stream),
            seg(300, 400, PartName::KernelMemory, stream),
            // Zero-length: no slice, no flow.
            seg(400, 400, PartName::GpuGap, stream),
        ];
        let step = StepPath {
            name: "step".into(),
            pid: 9,
            device: 1,
            start_ns: 100,
            step_ns: 300,
            path_ns: 300,
            parts: Vec::new(),
            what_if: Vec::new(),
            segments,
        };
        let report = PathReport {
            schema: crate::path::SCHEMA,
            input: Vec::new(),
            gpu: crate::roofs::GpuInfo {
                key: None,
                name: "test GPU".into(),
                chosen_by: crate::roofs::GpuChoice::Flag,
                notes: Vec::new(),
            },
            pattern: String::new(),
            kernel_floor_ns: crate::path::KERNEL_FLOOR_NS,
            steps: vec![step],
            median_step: Some(0),
            best: None,
            diagnostics: Vec::new(),
        };
        let mut out = Vec::new();
        let mut w = EventWriter::new(&mut out, &Map::new());
        let rows = path(&mut w, &report);
        w.finish().unwrap();
        assert_eq!(rows.len(), 1);
        let doc: serde_json::Value = serde_json::from_slice(&out).unwrap();
        let ev = doc["traceEvents"].as_array().unwrap();
        let slices: Vec<_> = ev.iter().filter(|e| e["ph"] == "X").collect();
        assert_eq!(slices.len(), 4);
        assert!(slices.iter().all(|e| e["tid"] == PATH_TID && e["pid"] == 1));
        assert_eq!(slices[2]["name"], "kernel_no_model");
        assert_eq!(slices[2]["args"]["lane"], "GPU 1 stream 7");
        let flows: Vec<_> = ev.iter().filter(|e| e["cat"] == PATH_FLOW_CAT).collect();
        assert_eq!(flows.len(), 2);
        // From the launch overhead's slice (starts at 150 ns = 0.150 µs) to
        // the first kernel's (200 ns).
        assert_eq!(flows[0]["ts"].as_f64(), Some(0.15));
        assert_eq!(flows[1]["ts"].as_f64(), Some(0.2));
    }
}
