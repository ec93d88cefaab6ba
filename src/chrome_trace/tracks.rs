//! rooftrace's own tracks, on each device's process next to its streams:
//! every idle gap as a slice named by its class (what `rooftrace gaps`
//! found, read from the `GapReport`: class, cause, host detail, evidence
//! and fix in `args`), and for `budget` each step and its parts.

use super::writer::{EventWriter, Row};
use crate::budget::BudgetReport;
use crate::gaps::{GapReport, TopGap};
use crate::units::{duration_ns, percent};
use serde_json::{Map, Value};
use std::collections::{BTreeSet, HashMap};

/// The `tid` of a device's idle-gap track: above any stream id CUPTI gives, below 2^31 (readers that keep ids in 32 bits).
pub const GAPS_TID: i64 = 2_000_000_000;
/// The `tid` of a device's step track (`budget`).
pub const STEPS_TID: i64 = 2_000_000_001;
/// The `tid` of a device's step-budget track (`budget`).
pub const PARTS_TID: i64 = 2_000_000_002;

/// The `cat` of a gap slice.
pub const GAP_CAT: &str = "rooftrace_gap";
/// The `cat` of a step slice.
pub const STEP_CAT: &str = "rooftrace_step";
/// The `cat` of a step-budget part slice.
pub const PART_CAT: &str = "rooftrace_budget_part";

/// Every gap the report kept (`GapReport::gaps`), one slice each; the gaps
/// of the longest-gap list (`top_gaps`, every gap when the analysis kept
/// them all) carry their host detail, evidence and fix. Returns the rows
/// used.
pub fn gaps(w: &mut EventWriter, report: &GapReport) -> BTreeSet<Row> {
    let mut rows = BTreeSet::new();
    let described: HashMap<(u32, u16, i64), &TopGap> = report
        .top_gaps
        .iter()
        .map(|g| ((g.pid, g.device, g.start_ns), g))
        .collect();
    for g in report.gaps.as_deref().unwrap_or_default() {
        let row = Row {
            pid: i64::from(g.device),
            tid: GAPS_TID,
        };
        rows.insert(row);
        let dur = g.end_ns - g.start_ns;
        let mut args = Map::new();
        args.insert("class".into(), g.class.key().into());
        args.insert("duration".into(), duration_ns(dur as f64).into());
        args.insert("duration_ns".into(), dur.into());
        args.insert("process".into(), g.pid.into());
        match described.get(&(g.pid, g.device, g.start_ns)) {
            Some(top) => describe(&mut args, report, top),
            None => {
                args.insert("fix".into(), g.class.fix().into());
                args.insert(
                    "host_detail".into(),
                    format!(
                        "not described: shorter than --min-gap {}",
                        duration_ns(report.settings.min_gap_ns as f64)
                    )
                    .into(),
                );
            }
        }
        w.complete(GAP_CAT, g.class.label(), row, g.start_ns, dur, args);
    }
    rows
}

/// The args of a gap the report describes: the ops around it and the call
/// that launched the second (the cause), what the host did, the typed
/// evidence and the fix the report gives.
fn describe(args: &mut Map<String, Value>, report: &GapReport, g: &TopGap) {
    let mut cause = format!(
        "{}: idle from the end of `{}` (stream {}) to the start of `{}` (stream {})",
        g.class.label(),
        report.name(g.before.name_id),
        g.before.stream,
        report.name(g.after.name_id),
        g.after.stream
    );
    if let Some(api) = &g.api {
        let lead = api.start_ns - g.start_ns;
        let when = if lead >= 0 {
            format!("{} after the GPU went idle", duration_ns(lead as f64))
        } else {
            format!("{} before the GPU went idle", duration_ns(-lead as f64))
        };
        cause.push_str(&format!(
            ", launched by `{}` (thread {}) {when}",
            report.name(api.name_id),
            api.tid
        ));
    } else {
        cause.push_str(", whose launch call is not in the input");
    }
    args.insert("cause".into(), cause.into());
    args.insert(
        "host_detail".into(),
        g.host.clone().map_or(Value::Null, Value::from),
    );
    if let Some(e) = &g.host_evidence {
        args.insert(
            "evidence".into(),
            serde_json::to_value(e).unwrap_or(Value::Null),
        );
    }
    if let Some(id) = g.nvtx_id {
        args.insert("nvtx".into(), report.name(id).into());
    }
    if !g.ranges.is_empty() {
        let ranges: Map<String, Value> = g
            .ranges
            .iter()
            .map(|r| (report.name(r.text_id).to_string(), Value::from(r.ns)))
            .collect();
        args.insert("ranges_ns".into(), Value::Object(ranges));
    }
    args.insert("fix".into(), report.gap_fix(g).into());
}

/// Each step as a slice over its GPU window, and below it the step's
/// budget parts laid end to end in the window (the parts are amounts, not
/// times: the order is the report's, each as long as its share). Returns
/// the rows used.
pub fn budget(w: &mut EventWriter, report: &BudgetReport) -> BTreeSet<Row> {
    let mut rows = BTreeSet::new();
    for (i, s) in report.steps.iter().enumerate() {
        let steps = Row {
            pid: i64::from(s.device),
            tid: STEPS_TID,
        };
        let parts_row = Row {
            pid: i64::from(s.device),
            tid: PARTS_TID,
        };
        rows.insert(steps);
        rows.insert(parts_row);
        let text = report.names.get(s.text_id).map_or("?", String::as_str);
        let mut args = Map::new();
        args.insert("step".into(), i.into());
        args.insert("step_ns".into(), s.step_ns.into());
        args.insert("kernels".into(), s.kernels.into());
        args.insert("window_projected".into(), s.projected.into());
        let parts: Map<String, Value> = s
            .parts
            .iter()
            .map(|p| (p.kind.key(), Value::from(p.ns)))
            .collect();
        args.insert("parts_ns".into(), Value::Object(parts));
        if report.median_step == Some(i) {
            args.insert("median_step".into(), true.into());
        }
        if report.outlier_steps.contains(&i) {
            args.insert("outlier".into(), true.into());
        }
        w.complete(STEP_CAT, text, steps, s.gpu_start_ns, s.step_ns, args);
        let mut at = s.gpu_start_ns;
        for p in s.parts.iter().filter(|p| p.ns > 0) {
            let mut args = Map::new();
            args.insert("ns".into(), p.ns.into());
            args.insert("duration".into(), duration_ns(p.ns as f64).into());
            if s.step_ns > 0 {
                args.insert(
                    "share_of_step".into(),
                    percent(p.ns as f64 / s.step_ns as f64).into(),
                );
            }
            args.insert(
                "placement".into(),
                "laid end to end in the step's window in the report's order: a part is an amount of the step, not when it happened".into(),
            );
            args.insert("part".into(), p.kind.key().into());
            w.complete(PART_CAT, &p.kind.label(), parts_row, at, p.ns, args);
            at += p.ns;
        }
    }
    rows
}
