//! What the ranks given say about themselves, checked before anyone is
//! named: two traces claiming one rank, a file given twice, a rank no
//! group of its own collectives can hold (or not below the job's
//! `world_size`), fewer ranks given than the job's `world_size`, a
//! `Group size` contradicting the group's rank list. Each is said once, as a diagnostic; nothing is
//! merged, dropped or guessed.

use super::analyze::RankTrace;
use super::model::{Diagnostic, DiagnosticKind};
use std::collections::BTreeMap;

/// The notes on the traces given (see the module header).
pub fn notes(traces: &[RankTrace]) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let mut by_rank: BTreeMap<u32, Vec<&str>> = BTreeMap::new();
    for t in traces {
        if let Some(r) = t.rank {
            by_rank.entry(r).or_default().push(&t.input);
        }
    }
    for (rank, inputs) in by_rank.iter().filter(|(_, v)| v.len() > 1) {
        out.push(Diagnostic::new(
            DiagnosticKind::RanksGiven,
            format!(
                "{} traces claim rank {rank} ({}): one is another rank's (check each trace's distributedInfo or --rank-from) or the same run given twice; they are kept apart, as given",
                inputs.len(),
                inputs.join(", ")
            ),
        ));
    }
    for t in traces {
        let (Some(rank), Some(largest)) = (
            t.rank,
            t.collectives.iter().filter_map(|c| c.group_size).max(),
        ) else {
            continue;
        };
        let listed = t
            .collectives
            .iter()
            .any(|c| c.group_ranks.as_ref().is_some_and(|g| g.contains(&rank)));
        if rank >= largest && !listed {
            out.push(Diagnostic::new(
                DiagnosticKind::RanksGiven,
                format!(
                    "{} records rank {rank}, but its largest group has {largest} ranks and none lists it: the rank is not this job's (a corrupt distributedInfo?); it is kept as recorded",
                    t.input
                ),
            ));
        }
    }
    if let Some(world) = traces.iter().filter_map(|t| t.world_size).max() {
        let mut ranks: Vec<u32> = traces.iter().filter_map(|t| t.rank).collect();
        ranks.sort_unstable();
        ranks.dedup();
        if traces.len() > 1 && (world as usize) > traces.len() {
            out.push(Diagnostic::new(
                DiagnosticKind::RanksGiven,
                format!(
                    "the traces say the job has {world} ranks (distributedInfo.world_size), {} given: the last rank of a collective may be one not given, so its waits are lower bounds",
                    traces.len()
                ),
            ));
        }
        if let Some(r) = ranks.iter().find(|r| **r >= world) {
            out.push(Diagnostic::new(
                DiagnosticKind::RanksGiven,
                format!("rank {r} is not below the job's world_size {world}: a corrupt distributedInfo? It is kept as recorded"),
            ));
        }
    }
    let mut contradicted: Vec<(u32, u32)> = traces
        .iter()
        .flat_map(|t| &t.collectives)
        .filter_map(|c| Some((c.group_size_said?, c.group_size?)))
        .collect();
    if let Some(&(said, listed)) = contradicted.first() {
        let n = contradicted.len();
        contradicted.sort_unstable();
        contradicted.dedup();
        out.push(Diagnostic::new(
            DiagnosticKind::GroupSize { collectives: n },
            format!(
                "{} a Group size that contradicts its Process Group Ranks (Group size {said}, {listed} ranks listed{}): the ranks list is taken for the busbw factor and the link",
                if n == 1 {
                    "1 collective records".to_string()
                } else {
                    format!("{n} collectives record")
                },
                if contradicted.len() > 1 { ", and others" } else { "" }
            ),
        ));
    }
    out
}

/// The note on inputs given more than once (`repeated`, as given): each
/// was read once.
pub fn repeated_inputs(repeated: &[String]) -> Option<Diagnostic> {
    if repeated.is_empty() {
        return None;
    }
    Some(Diagnostic::new(
        DiagnosticKind::RanksGiven,
        format!(
            "given more than once, read once: {} (one file is one rank's trace)",
            repeated.join(", ")
        ),
    ))
}
