//! The range sections of the gap report (`--nvtx`): the table of range
//! instances with their median and p90, or, when the pattern matched
//! nothing, the sentence that says so where the table would be; and the
//! per-class columns the gap tables share.

use super::dur;
use super::table::{Column, Table};
use crate::gaps::model::{Diagnostic, DiagnosticKind};
use crate::gaps::{ClassTotals, GapClass, GapReport, MedianP90, RangeReport, RangeRow};
use crate::units::ellipsize;

/// One column per gap class: its idle time in a row's class totals
/// (`None`: a row without classes, an empty cell).
pub(super) fn class_columns<'a, R: 'a>(
    totals: impl Fn(&R) -> Option<&ClassTotals> + Copy + 'a,
) -> Vec<Column<'a, R>> {
    GapClass::ALL
        .into_iter()
        .map(|k| {
            Column::right(k.label(), move |row: &R| {
                totals(row).map_or(String::new(), |c| dur(c.get(k).total_ns))
            })
        })
        .collect()
}

/// A row of the NVTX ranges table: an instance, or the median or 90th
/// percentile across instances (which has no pid and no classes).
enum RangeLine<'a> {
    Instance(&'a RangeRow),
    Stat(&'static str, fn(MedianP90) -> Option<i64>),
}

/// Why `--nvtx` gave no rows (the pattern matched no range): the
/// diagnostic's sentence, shown where the ranges table would be and not
/// again under Diagnostics. `None` without `--nvtx` or with rows.
pub(super) fn ranges_note(r: &GapReport) -> Option<&str> {
    r.ranges.as_ref().filter(|rr| rr.instances.is_empty())?;
    r.diagnostics
        .iter()
        .find(|d| d.kind == DiagnosticKind::NvtxNoMatch)
        .map(|d| d.message.as_str())
}

/// The diagnostics not already shown in their own section.
pub(super) fn other_diagnostics(r: &GapReport) -> Vec<&Diagnostic> {
    let shown = ranges_note(r).is_some();
    r.diagnostics
        .iter()
        .filter(|d| !(shown && d.kind == DiagnosticKind::NvtxNoMatch))
        .collect()
}

/// The ranges section's title: `NVTX ranges`, or a PyTorch trace's with
/// what they are.
pub(super) fn ranges_title(r: &GapReport) -> String {
    let w = crate::gaps::range_words(r.input.source.tool());
    format!("{}{}", w.many, w.what)
}

/// The ranges table; `None` without `--nvtx` or without a matching
/// instance (no median of nothing: [`ranges_note`] says why).
pub(super) fn ranges_table(r: &GapReport, rows: usize) -> Option<(Table, usize)> {
    let rr = r.ranges.as_ref().filter(|rr| !rr.instances.is_empty())?;
    // An instance's own figure, or the statistic's pick across instances
    // (known here: there is an instance).
    let figure = |own: fn(&RangeRow) -> i64, across: fn(&RangeReport) -> MedianP90| {
        move |line: &RangeLine| match line {
            RangeLine::Instance(i) => Some(own(i)),
            RangeLine::Stat(_, pick) => pick(across(rr)),
        }
    };
    let shown = |v: Option<i64>| v.map_or_else(String::new, dur);
    let wall = figure(|i| i.wall_ns, |rr| rr.wall_ns);
    let window = figure(|i| i.gpu_end_ns - i.gpu_start_ns, |rr| rr.gpu_window_ns);
    let kbusy = figure(|i| i.kernel_busy_ns, |rr| rr.kernel_busy_ns);
    let idle = figure(|i| i.idle_ns, |rr| rr.idle_ns);
    let kernels = figure(|i| i.kernels as i64, |rr| rr.kernels);
    let mut columns: Vec<Column<RangeLine>> = vec![
        Column::left("range", |line: &RangeLine| match line {
            RangeLine::Instance(i) => format!(
                "{}{}",
                ellipsize(r.name(i.text_id), 40),
                if i.projected { "" } else { " *" }
            ),
            RangeLine::Stat(label, _) => label.to_string(),
        }),
        Column::right("pid", |line: &RangeLine| match line {
            RangeLine::Instance(i) => i.pid.to_string(),
            RangeLine::Stat(..) => String::new(),
        }),
        Column::right("wall", move |line: &RangeLine| shown(wall(line))),
        Column::right("GPU window", move |line: &RangeLine| shown(window(line))),
        Column::right("kernel busy", move |line: &RangeLine| shown(kbusy(line))),
        Column::right("idle", move |line: &RangeLine| shown(idle(line))),
        Column::right("kernels", move |line: &RangeLine| {
            kernels(line).map_or_else(String::new, |k| k.to_string())
        }),
    ];
    columns.extend(class_columns(|line: &RangeLine| match line {
        RangeLine::Instance(i) => Some(i.classes()),
        RangeLine::Stat(..) => None,
    }));
    let n = if rows == 0 {
        rr.instances.len()
    } else {
        rows.min(rr.instances.len())
    };
    let lines = rr.instances[..n].iter().map(RangeLine::Instance).chain([
        RangeLine::Stat("median", |m| m.median),
        RangeLine::Stat("p90", |m| m.p90),
    ]);
    Some((Table::of_columns(&columns, lines), rr.instances.len() - n))
}
