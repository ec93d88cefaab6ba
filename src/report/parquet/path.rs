//! The `path` entities as Parquet datasets: `path_parts`, one row per
//! step × part on its critical path (the CSV's rows), and `path_what_if`,
//! one row per step × change replayed; a step's parts sum to its
//! `step_ns`.

use super::{Builder, Column, Dataset};
use crate::many_inputs::InputTag;
use crate::path::{PathReport, StepPath};

/// A u64 count as INT64 (a count past i64 is a damaged input: null).
fn int(v: u64) -> Option<i64> {
    i64::try_from(v).ok()
}

/// (step index, item index in that step) of every row, in step order.
fn flat(r: &PathReport, items: impl Fn(&StepPath) -> usize) -> Vec<(usize, usize)> {
    r.steps
        .iter()
        .enumerate()
        .flat_map(|(i, s)| (0..items(s)).map(move |j| (i, j)))
        .collect()
}

/// The step columns every row carries, after the tags.
fn step_columns(b: &mut Builder, r: &PathReport, rows: &[(usize, usize)]) {
    let step = |i: usize| &r.steps[i];
    b.i64(
        "step",
        false,
        rows.iter().map(|&(i, _)| i64::try_from(i).ok()).collect(),
    )
    .str(
        "name",
        false,
        rows.iter()
            .map(|&(i, _)| Some(step(i).name.clone()))
            .collect(),
    )
    .i64(
        "pid",
        false,
        rows.iter()
            .map(|&(i, _)| Some(i64::from(step(i).pid)))
            .collect(),
    )
    .i64(
        "device",
        false,
        rows.iter()
            .map(|&(i, _)| Some(i64::from(step(i).device)))
            .collect(),
    )
    .i64(
        "start_ns",
        false,
        rows.iter().map(|&(i, _)| Some(step(i).start_ns)).collect(),
    )
    .i64(
        "step_ns",
        false,
        rows.iter().map(|&(i, _)| Some(step(i).step_ns)).collect(),
    )
    .i64(
        "path_ns",
        false,
        rows.iter().map(|&(i, _)| Some(step(i).path_ns)).collect(),
    )
    .bool(
        "median_step",
        false,
        rows.iter()
            .map(|&(i, _)| Some(r.median_step == Some(i)))
            .collect(),
    );
}

fn part_rows(tag: &InputTag, r: &PathReport, rows: &[(usize, usize)]) -> Vec<Column> {
    let part = |&(i, j): &(usize, usize)| &r.steps[i].parts[j];
    let mut b = Builder::new(tag, rows.len());
    step_columns(&mut b, r, rows);
    b.str(
        "part",
        false,
        rows.iter()
            .map(|x| Some(part(x).name.key().to_string()))
            .collect(),
    )
    .i64(
        "part_ns",
        false,
        rows.iter().map(|x| Some(part(x).ns)).collect(),
    );
    b.finish()
}

fn what_if_rows(tag: &InputTag, r: &PathReport, rows: &[(usize, usize)]) -> Vec<Column> {
    let change = |&(i, j): &(usize, usize)| &r.steps[i].what_if[j];
    let mut b = Builder::new(tag, rows.len());
    step_columns(&mut b, r, rows);
    b.str(
        "change",
        false,
        rows.iter()
            .map(|x| Some(change(x).change.clone()))
            .collect(),
    )
    .i64(
        "saved_ns",
        false,
        rows.iter().map(|x| Some(change(x).saved_ns)).collect(),
    )
    .i64(
        "new_step_ns",
        false,
        rows.iter().map(|x| Some(change(x).new_step_ns)).collect(),
    )
    .i64(
        "shortfall_ns",
        false,
        rows.iter().map(|x| Some(change(x).shortfall_ns)).collect(),
    )
    .i64(
        "moved",
        false,
        rows.iter().map(|x| int(change(x).moved)).collect(),
    );
    b.finish()
}

/// The `path_parts` and `path_what_if` datasets of one report.
pub fn datasets<'a>(tag: &'a InputTag, r: &'a PathReport) -> Vec<Dataset<'a>> {
    let parts = flat(r, |s| s.parts.len());
    let changes = flat(r, |s| s.what_if.len());
    vec![
        Dataset::new("path", "path_parts", parts.len(), move |rg| {
            part_rows(tag, r, &parts[rg])
        }),
        Dataset::new("path", "path_what_if", changes.len(), move |rg| {
            what_if_rows(tag, r, &changes[rg])
        }),
    ]
}
