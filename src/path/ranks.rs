//! Several ranks of one job (docs/path.md, "Several ranks"): each
//! collective ends no earlier than its last rank's arrival. The
//! collectives are matched across the ranks and their clocks aligned by
//! `comm` (`comm::ranks`: `match_ranks`, `align` on completions, `split`);
//! this file keeps, per GPU op of each rank, the last rank's arrival at
//! the collective it belongs to, on that rank's own clock, where it came
//! after the op's start (the rank waited). The walk splits such a kernel
//! into `waiting_for_rank` and `collective`; the replay's
//! `straggler_on_time` cuts it to its own transfer.

use crate::comm::ranks::{align, match_ranks, split, Clock, MatchedBy};
use crate::comm::{rank_trace, Arrival, Collective};
use crate::timeline::Timeline;

/// Per GPU op of one rank (indexed as `Timeline::ops`): the last rank's
/// arrival at its collective on this rank's clock, ns, where it is later
/// than the op's start. Empty for one rank alone.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Arrivals {
    /// By op index; `None`: no wait known (not a collective, unmatched,
    /// the rank arrived last, or the lead within the clocks' error).
    by_op: Vec<Option<i64>>,
    /// Whether several ranks were given (`straggler_on_time` is listed).
    several: bool,
}

impl Arrivals {
    /// One rank alone: no collective is matched, nothing waits.
    pub fn one_rank() -> Arrivals {
        Arrivals::default()
    }

    /// Whether this rank was analysed with others.
    pub fn several_ranks(&self) -> bool {
        self.several
    }

    /// The last rank's arrival at op `index`'s collective, ns, when it
    /// came after the op's start.
    pub fn last_arrival_ns(&self, index: usize) -> Option<i64> {
        self.by_op.get(index).copied().flatten()
    }
}

/// What matching the ranks found: each rank's arrivals, and the notes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RankArrivals {
    /// Per rank, in the order given.
    pub per_rank: Vec<Arrivals>,
    /// What could not be split, as sentences (each once).
    pub diagnostics: Vec<String>,
}

/// Each op index of `tl`'s communication kernels, in the order
/// `comm::rank_trace` lists its collectives (by device, start, end; the
/// ops' own order on ties).
fn collective_ops(tl: &Timeline) -> Vec<usize> {
    let mut ops: Vec<usize> = (0..tl.ops.len())
        .filter(|&i| tl.is_comm(&tl.ops[i]))
        .collect();
    ops.sort_by_key(|&i| {
        let o = &tl.ops[i];
        (o.device, o.start_ns, o.end_ns)
    });
    ops
}

/// The last arrivals of every rank's collectives (`timelines` in rank
/// order given, `inputs` their names for the notes).
pub fn last_arrivals(timelines: &[&Timeline], inputs: &[String]) -> RankArrivals {
    let several = timelines.len() > 1;
    let mut out = RankArrivals {
        per_rank: timelines
            .iter()
            .map(|tl| Arrivals {
                by_op: vec![None; tl.ops.len()],
                several,
            })
            .collect(),
        diagnostics: Vec::new(),
    };
    if !several {
        return out;
    }
    let traces: Vec<Vec<Collective>> = timelines
        .iter()
        .zip(inputs)
        .map(|(tl, input)| rank_trace(tl, input).collectives)
        .collect();
    let ops: Vec<Vec<usize>> = timelines.iter().map(|tl| collective_ops(tl)).collect();
    let views: Vec<&[Collective]> = traces.iter().map(Vec::as_slice).collect();
    let matching = match_ranks(&views);
    let clocks = align(&views, &matching.matched);
    let mut within_noise = 0usize;
    for m in &matching.matched {
        let Some(s) = split(&views, m, &clocks) else {
            continue;
        };
        match s.arrival {
            Arrival::Together => continue,
            // The lead is within the alignment's error: which rank came
            // last is not known, so neither is any wait.
            Arrival::WithinNoise => {
                within_noise += 1;
                continue;
            }
            Arrival::Last | Arrival::LastNearNoise => {}
        }
        for &(rank, wait_ns, _) in s.waits.iter().filter(|w| w.1 > 0) {
            let Some(&(_, c)) = m.members.iter().find(|x| x.0 == rank) else {
                continue;
            };
            let Some(&op) = ops[rank].get(c) else {
                continue;
            };
            let kernel = &views[rank][c];
            let o = &timelines[rank].ops[op];
            // The same kernel as comm listed it (else it is left alone).
            if (o.device, o.start_ns, o.end_ns) == (kernel.device, kernel.start_ns, kernel.end_ns) {
                // `split` caps the wait at the kernel's time: the arrival
                // lies inside the kernel.
                out.per_rank[rank].by_op[op] = Some(o.start_ns + wait_ns);
            }
        }
    }
    let by_order = matching
        .matched
        .iter()
        .filter(|m| m.by == MatchedBy::Order)
        .count();
    out.diagnostics = notes(
        Unsplit {
            single: matching.single,
            by_order,
            within_noise,
        },
        &clocks,
        inputs,
    );
    out
}

/// Counts of collectives matched weakly or not split.
struct Unsplit {
    /// Found on one rank only.
    single: usize,
    /// Matched by order of occurrence (the traces record no sequence number).
    by_order: usize,
    /// Their lead within the clocks' error.
    within_noise: usize,
}

/// The notes on what was not split or matched weakly: collectives on one
/// rank only or by order, ranks with no clock, leads within the noise.
fn notes(counts: Unsplit, clocks: &[Option<Clock>], inputs: &[String]) -> Vec<String> {
    let Unsplit {
        single,
        by_order,
        within_noise,
    } = counts;
    let mut out = Vec::new();
    if by_order > 0 {
        out.push(format!("{by_order} collectives were matched across the ranks by order of occurrence (the traces record no sequence number for them): a rank that misses one is matched wrong from there on; `rooftrace comm` matches them by Seq where the traces record it"));
    }
    if single > 0 {
        out.push(format!("{single} collective kernels were found on one rank only (not matched across the ranks given): their wait for other ranks is unknown and counts as `collective`; give every rank's trace"));
    }
    let alone: Vec<&str> = clocks
        .iter()
        .zip(inputs)
        .filter(|(c, _)| c.is_none())
        .map(|(_, i)| i.as_str())
        .collect();
    if !alone.is_empty() {
        out.push(format!("{} shares no matched collective with another input, so its clock is not aligned and its collectives are walked as one rank's: {}", if alone.len() == 1 { "one input" } else { "some inputs" }, alone.join(", ")));
    }
    if within_noise > 0 {
        out.push(format!("{within_noise} collectives had ranks arriving within the clock alignment's error: no rank is called last there and no `waiting_for_rank` is split off (as `comm` says within_noise)"));
    }
    out
}
