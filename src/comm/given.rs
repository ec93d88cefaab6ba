//! What the ranks given say about themselves: which rank each trace is
//! (decided here once: recorded, else inferred from its groups when
//! unambiguous, else none and named by its input), and, checked before
//! anyone is named, two traces claiming one rank, a file given twice, a
//! rank no group of its own collectives can hold (or not below the job's
//! `world_size`), fewer ranks given than the job's `world_size`, a `Group
//! size` contradicting the group's rank list. Each is said once, as a
//! diagnostic; nothing is merged or dropped.

use super::model::{Diagnostic, DiagnosticKind, RankRow, RankTrace};
use std::collections::{BTreeMap, BTreeSet};

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

/// Each trace's rank, decided here once: the one it records (or
/// `--rank-from` gave), else, when its collectives' groups (`Process Group
/// Ranks`) hold exactly one rank that no other trace records and no other
/// rank-less trace would take, that one (`rank_inferred`, said); else none,
/// and the trace is named by its input.
pub fn ranks(
    traces: &[RankTrace],
    rank_rows: &mut [RankRow],
    diagnostics: &mut Vec<Diagnostic>,
) -> Vec<Option<u32>> {
    let recorded: BTreeSet<u32> = traces.iter().filter_map(|t| t.rank).collect();
    let candidate: Vec<Option<u32>> = traces
        .iter()
        .map(|t| t.rank.is_none().then(|| only_rank(t, &recorded)).flatten())
        .collect();
    // Two rank-less traces pointing at one rank: which is it is not known.
    let taken_twice = |r: u32| candidate.iter().filter(|c| **c == Some(r)).count() > 1;
    let mut inferred = 0;
    let given: Vec<Option<u32>> = traces
        .iter()
        .zip(candidate.iter())
        .zip(rank_rows.iter_mut())
        .map(|((t, c), row)| {
            if t.rank.is_some() {
                return t.rank;
            }
            let one = c.filter(|r| !taken_twice(*r));
            row.rank = one;
            row.rank_inferred = one.is_some();
            inferred += usize::from(one.is_some());
            one
        })
        .collect();
    if inferred > 0 {
        diagnostics.push(Diagnostic::new(
            DiagnosticKind::RankInferred { ranks: inferred },
            format!("{inferred} trace{} record no rank (no distributedInfo): each is the one rank of its process groups (Process Group Ranks) that no other trace given records (rank_inferred)", if inferred == 1 { "" } else { "s" }),
        ));
    }
    given
}

/// The one rank every group of `t`'s collectives lists and no trace in
/// `recorded` claims, if exactly one.
fn only_rank(t: &RankTrace, recorded: &BTreeSet<u32>) -> Option<u32> {
    let mut candidates: Option<BTreeSet<u32>> = None;
    for g in t
        .collectives
        .iter()
        .filter_map(|c| c.group_ranks.as_deref())
    {
        let here: BTreeSet<u32> = g
            .iter()
            .copied()
            .filter(|x| !recorded.contains(x))
            .collect();
        candidates = Some(match candidates {
            Some(c) => c.intersection(&here).copied().collect(),
            None => here,
        });
    }
    candidates.filter(|c| c.len() == 1)?.into_iter().next()
}

#[cfg(test)]
mod tests {
    use super::super::kind::CollKind;
    use super::super::model::{ArgsFrom, Collective};
    use super::*;

    /// A trace recording `rank` whose one collective's group lists `group`.
    fn trace(input: &str, rank: Option<u32>, group: &[u32]) -> RankTrace {
        RankTrace {
            input: input.into(),
            rank,
            world_size: None,
            collectives: vec![Collective {
                kernel: "ncclDevKernel_AllReduce_Sum_f32_RING_LL".into(),
                device: 0,
                stream: 20,
                start_ns: 0,
                end_ns: 1,
                kind: CollKind::AllReduce,
                args_from: ArgsFrom::Kernel,
                bytes: None,
                bytes_from: None,
                dtype: None,
                group_size: Some(group.len() as u32),
                group_size_said: None,
                group_ranks: Some(group.into()),
                process_group: Some("0".into()),
                seq: Some(0),
            }],
            comm_ns: 1,
            exposed_ns: 1,
            notes: Vec::new(),
            shared_clock: None,
        }
    }

    fn decide(traces: &[RankTrace]) -> (Vec<Option<u32>>, Vec<bool>, usize) {
        let mut rows: Vec<RankRow> = traces
            .iter()
            .map(|t| RankRow::new(t.rank, &t.input, 0, 0))
            .collect();
        let mut d = Vec::new();
        let given = ranks(traces, &mut rows, &mut d);
        (
            given,
            rows.iter().map(|r| r.rank_inferred).collect(),
            d.len(),
        )
    }

    #[test]
    fn a_rankless_trace_takes_the_one_unclaimed_rank_of_its_groups() {
        // Group [0, 1, 2]; ranks 0 and 2 recorded: the third trace is 1.
        let t = [
            trace("a", Some(0), &[0, 1, 2]),
            trace("b", None, &[0, 1, 2]),
            trace("c", Some(2), &[0, 1, 2]),
        ];
        assert_eq!(
            decide(&t),
            (vec![Some(0), Some(1), Some(2)], vec![false, true, false], 1)
        );
    }

    #[test]
    fn an_ambiguous_rankless_trace_stays_unnamed_by_rank() {
        // Two unclaimed ranks in its group: none is guessed.
        let t = [
            trace("a", Some(0), &[0, 1, 2]),
            trace("b", None, &[0, 1, 2]),
        ];
        assert_eq!(decide(&t), (vec![Some(0), None], vec![false, false], 0));
        // Two rank-less traces would both take rank 1: neither does.
        let t = [
            trace("a", Some(0), &[0, 1]),
            trace("b", None, &[0, 1]),
            trace("c", None, &[0, 1]),
        ];
        assert_eq!(
            decide(&t),
            (vec![Some(0), None, None], vec![false, false, false], 0)
        );
    }
}
