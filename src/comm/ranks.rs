//! Several ranks of one job: each collective matched across the ranks
//! given, their clocks aligned over the graph of process groups, and each
//! rank's NCCL time split into the wait for the last rank and the transfer.
//!
//! Matching: by (group, counter, sequence number) when the trace records
//! `Seq` — the group its process group name (else its rank list), the
//! counter collective or point-to-point (PyTorch numbers the two apart, so
//! an all-reduce and a send of one group can share a `Seq`) — else by
//! (group, counter, kind, bytes) and order of occurrence, said by the
//! caller. Alignment: a collective completes on every rank at once, so
//! each matched collective ties each member's clock to its lowest member's
//! (`end_low − end_r`); per pair of ranks the median of those differences
//! is an edge, and each rank's offset to its reference (the first rank
//! given of its connected ranks) is the sum along the fewest edges
//! (rank 3 through rank 2 to rank 0). Its error is the largest distance,
//! on aligned clocks, between its end and the lowest other member's end
//! over the collectives it holds.

use super::kind::CollKind;
use super::model::{Arrival, Collective};
use std::collections::{BTreeMap, HashMap, VecDeque};

/// How a collective was identified across ranks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MatchedBy {
    /// By its group's sequence number (`Seq`).
    Seq,
    /// By order of occurrence among its group's collectives of one kind
    /// and size (no `Seq` recorded): a rank that misses one is matched
    /// wrong from there on.
    Order,
}

/// One collective matched across ranks: per rank given, the index of its
/// kernel in that rank's collectives.
#[derive(Debug, Clone, PartialEq)]
pub struct Matched {
    /// (index of the rank in the input, index of its collective), by rank.
    pub members: Vec<(usize, usize)>,
    /// How it was identified.
    pub by: MatchedBy,
}

/// What matching found.
#[derive(Debug, Clone, PartialEq)]
pub struct Matching {
    /// The collectives present on at least two ranks, by first appearance
    /// on the lowest rank holding them.
    pub matched: Vec<Matched>,
    /// Collectives seen on one rank only (a second kernel of one key on
    /// one rank counts here too).
    pub single: usize,
    /// Per rank given: its kernels matched by order ([`MatchedBy::Order`]).
    pub by_order: Vec<usize>,
}

/// The group a collective belongs to: its process group name, else its
/// rank list, else nothing known.
fn group_of(c: &Collective) -> String {
    match (&c.process_group, &c.group_ranks) {
        (Some(pg), _) => pg.to_string(),
        (None, Some(r)) => {
            let list: Vec<String> = r.iter().map(u32::to_string).collect();
            format!("ranks[{}]", list.join(","))
        }
        (None, None) => String::new(),
    }
}

/// PyTorch's counter a collective is numbered on.
fn counter(kind: CollKind) -> &'static str {
    if kind == CollKind::SendRecv {
        "p2p"
    } else {
        "coll"
    }
}

/// Each collective's match key, in one rank's order: `<group>|<counter>|seq
/// <n>` when the trace records a sequence number, else
/// `<group>|<counter>|<kind>|<bytes>|#<k>` (the k-th of that group, kind and
/// size on this rank without one). `<group>` is the process group name
/// (else `ranks[0,1]`), `<counter>` `coll` or `p2p`. The same key on two
/// ranks is the same collective; the Parquet rows carry it (`match_key`),
/// so a query joins ranks as `comm` does.
pub fn match_keys(colls: &[Collective]) -> Vec<String> {
    let mut seen: HashMap<(String, CollKind, Option<u64>), usize> = HashMap::new();
    colls
        .iter()
        .map(|c| {
            let group = group_of(c);
            let class = counter(c.kind);
            match c.seq {
                Some(s) => format!("{group}|{class}|seq {s}"),
                None => {
                    let bytes = c.bytes.map_or("?".to_string(), |b| b.to_string());
                    let kind = c.kind.key();
                    let n = seen.entry((group.clone(), c.kind, c.bytes)).or_insert(0);
                    *n += 1;
                    format!("{group}|{class}|{kind}|{bytes}|#{n}")
                }
            }
        })
        .collect()
}

/// Matches the collectives of the ranks given by their keys
/// ([`match_keys`]).
pub fn match_ranks(ranks: &[&[Collective]]) -> Matching {
    let mut by_key: HashMap<String, (Vec<(usize, usize)>, usize)> = HashMap::new();
    let mut order: Vec<String> = Vec::new();
    for (ri, colls) in ranks.iter().enumerate() {
        for (ci, key) in match_keys(colls).into_iter().enumerate() {
            let (members, extra) = by_key.entry(key.clone()).or_default();
            if members.is_empty() {
                order.push(key);
            }
            // One kernel per rank and key: a second is unmatched.
            if members.last().is_some_and(|m| m.0 == ri) {
                *extra += 1;
            } else {
                members.push((ri, ci));
            }
        }
    }
    let mut out = Matching {
        matched: Vec::new(),
        single: 0,
        by_order: vec![0; ranks.len()],
    };
    for k in order {
        let (members, extra) = by_key.remove(&k).unwrap_or_default();
        out.single += extra;
        if members.len() < 2 {
            out.single += members.len();
            continue;
        }
        let (r0, c0) = members[0];
        let by = if ranks[r0][c0].seq.is_some() {
            MatchedBy::Seq
        } else {
            for &(r, _) in &members {
                out.by_order[r] += 1;
            }
            MatchedBy::Order
        };
        out.matched.push(Matched { members, by });
    }
    out
}

/// One rank's clock put on its reference's.
#[derive(Debug, Clone, PartialEq)]
pub struct Clock {
    /// Added to its times to put them on the reference's clock, ns.
    pub offset_ns: i64,
    /// Largest distance, on aligned clocks, between its end and the lowest
    /// other member's end over the matched collectives it holds, ns.
    pub error_ns: i64,
    /// The ranks (input indices) it was aligned through, from the
    /// reference (the first given of its connected ranks) to it, itself
    /// left out: empty for the reference.
    pub path: Vec<usize>,
}

/// Lower median of `d` (sorted in place); `None` when empty.
fn median(d: &mut [i64]) -> Option<i64> {
    if d.is_empty() {
        return None;
    }
    d.sort_unstable();
    Some(d[(d.len() - 1) / 2])
}

/// Per pair of ranks (lower, higher input index) sharing a collective: the
/// median of `end_lower − end_higher`, ns. Each collective ties every
/// member to its lowest member only, so a job of n ranks and m collectives
/// keeps n × m differences, not n² × m.
fn edges(ranks: &[&[Collective]], matched: &[Matched]) -> BTreeMap<(usize, usize), i64> {
    let mut diffs: HashMap<(usize, usize), Vec<i64>> = HashMap::new();
    for m in matched {
        let Some(&(low, lc)) = m.members.iter().min_by_key(|x| x.0) else {
            continue;
        };
        let low_end = ranks[low][lc].end_ns;
        for &(r, c) in m.members.iter().filter(|x| x.0 != low) {
            diffs
                .entry((low, r))
                .or_default()
                .push(low_end - ranks[r][c].end_ns);
        }
    }
    diffs
        .into_iter()
        .filter_map(|(k, mut d)| median(&mut d).map(|m| (k, m)))
        .collect()
}

/// Per rank: its clock on its reference's (the first rank given of those
/// it is connected to through shared collectives), through the fewest
/// edges (ties: the lower rank index); `None` for a rank that shares no
/// matched collective with any other.
pub fn align(ranks: &[&[Collective]], matched: &[Matched]) -> Vec<Option<Clock>> {
    let edges = edges(ranks, matched);
    let mut next: Vec<Vec<(usize, i64)>> = vec![Vec::new(); ranks.len()];
    for (&(lo, hi), &d) in &edges {
        // hi's end + d = lo's end: hi's offset is lo's + d.
        next[lo].push((hi, d));
        next[hi].push((lo, -d));
    }
    for n in &mut next {
        n.sort_unstable();
    }
    let mut clocks: Vec<Option<Clock>> = vec![None; ranks.len()];
    for root in 0..ranks.len() {
        if clocks[root].is_some() || next[root].is_empty() {
            continue;
        }
        clocks[root] = Some(Clock {
            offset_ns: 0,
            error_ns: 0,
            path: Vec::new(),
        });
        let mut queue = VecDeque::from([root]);
        while let Some(at) = queue.pop_front() {
            let Some(here) = clocks[at].clone() else {
                continue;
            };
            for &(to, d) in &next[at] {
                if clocks[to].is_some() {
                    continue;
                }
                let mut path = here.path.clone();
                path.push(at);
                clocks[to] = Some(Clock {
                    offset_ns: here.offset_ns + d,
                    error_ns: 0,
                    path,
                });
                queue.push_back(to);
            }
        }
    }
    residuals(ranks, matched, &mut clocks);
    clocks
}

/// Fills each clock's error: over the matched collectives it holds, the
/// largest distance between its aligned end and the lowest other
/// member's.
fn residuals(ranks: &[&[Collective]], matched: &[Matched], clocks: &mut [Option<Clock>]) {
    for m in matched {
        let ends: Vec<(usize, i64)> = m
            .members
            .iter()
            .filter_map(|&(r, c)| Some((r, ranks[r][c].end_ns + clocks[r].as_ref()?.offset_ns)))
            .collect();
        for &(r, end) in &ends {
            let Some(&(_, other)) = ends.iter().filter(|x| x.0 != r).min_by_key(|x| x.0) else {
                continue;
            };
            if let Some(c) = clocks[r].as_mut() {
                c.error_ns = c.error_ns.max((end - other).abs());
            }
        }
    }
}

/// One matched collective on aligned clocks: the last rank to arrive (the
/// latest aligned start; the lowest rank on ties), each member's wait
/// (`last start − its start`, capped at its kernel time) and the transfer
/// (the last rank's kernel time).
#[derive(Debug, Clone, PartialEq)]
pub struct Split {
    /// Index in the input of the last rank.
    pub last: usize,
    /// (rank index, wait ns, its kernel time ns), by rank index.
    pub waits: Vec<(usize, i64, i64)>,
    /// The last rank's kernel time, ns.
    pub transfer_ns: i64,
    /// Aligned start of the earliest member, ns.
    pub start_ns: i64,
    /// How far the last rank started after the next latest member, capped
    /// at that member's kernel time (its wait), ns.
    pub lead_ns: i64,
    /// The largest clock error of its members, ns: arrival differences
    /// below it are not told apart from the alignment's error.
    pub noise_floor_ns: i64,
    /// Whether, and how surely, a rank was last.
    pub arrival: Arrival,
}

/// Splits `m` given the clocks (members without one are left out; `None`
/// when fewer than two remain).
pub fn split(ranks: &[&[Collective]], m: &Matched, clocks: &[Option<Clock>]) -> Option<Split> {
    let mut noise_floor_ns = 0;
    let aligned: Vec<(usize, i64, i64)> = m
        .members
        .iter()
        .filter_map(|&(r, c)| {
            let clock = clocks[r].as_ref()?;
            noise_floor_ns = noise_floor_ns.max(clock.error_ns);
            let k = &ranks[r][c];
            Some((r, k.start_ns + clock.offset_ns, k.end_ns - k.start_ns))
        })
        .collect();
    if aligned.len() < 2 {
        return None;
    }
    let &(last, last_start, transfer_ns) = aligned
        .iter()
        .max_by_key(|x| (x.1, std::cmp::Reverse(x.0)))?;
    let start_ns = aligned.iter().map(|x| x.1).min()?;
    let waits: Vec<(usize, i64, i64)> = aligned
        .iter()
        .map(|&(r, s, d)| (r, (last_start - s).clamp(0, d), d))
        .collect();
    // The smallest wait of the others, each capped at its kernel time: a
    // lead longer than a member's kernel (kernels of one collective that
    // do not even overlap on aligned clocks) is the alignment's error, not
    // a wait.
    let lead_ns = waits.iter().filter(|w| w.0 != last).map(|w| w.1).min()?;
    let arrival = if waits.iter().all(|w| w.1 == 0) {
        Arrival::Together
    } else if lead_ns <= noise_floor_ns {
        Arrival::WithinNoise
    } else if lead_ns <= noise_floor_ns.saturating_mul(10) {
        Arrival::LastNearNoise
    } else {
        Arrival::Last
    };
    Some(Split {
        last,
        waits,
        transfer_ns,
        start_ns,
        lead_ns,
        noise_floor_ns,
        arrival,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A kernel of `kind` in group `pg` with `seq`, `[start, end)` ns.
    fn coll(kind: CollKind, pg: &str, seq: Option<u64>, start: i64, end: i64) -> Collective {
        Collective {
            kernel: "ncclDevKernel_Generic".into(),
            device: 0,
            stream: 20,
            start_ns: start,
            end_ns: end,
            kind,
            args_from: super::super::model::ArgsFrom::Kernel,
            bytes: Some(4096),
            bytes_from: None,
            dtype: None,
            group_size: Some(2),
            group_size_said: None,
            group_ranks: None,
            process_group: Some(pg.into()),
            seq,
        }
    }

    #[test]
    fn an_all_reduce_and_a_send_sharing_a_seq_get_two_keys() {
        let ar = coll(CollKind::AllReduce, "0", Some(3), 0, 10);
        let send = coll(CollKind::SendRecv, "0", Some(3), 20, 30);
        let old = coll(CollKind::AllReduce, "0", None, 40, 50);
        assert_eq!(
            match_keys(&[ar, send, old]),
            ["0|coll|seq 3", "0|p2p|seq 3", "0|coll|all_reduce|4096|#1"]
        );
    }

    #[test]
    fn a_rank_sharing_no_group_with_the_reference_is_aligned_through_another() {
        // Ranks 0, 1, 2: group "a" holds 0 and 1, group "b" holds 1 and 2.
        // Clocks: rank 1 writes reference time t as t − 100, rank 2 as
        // t − 250. Each collective ends at once on its members, so rank 1's
        // offset is +100 (through rank 0), rank 2's +250 (through rank 1:
        // rank 1's 100 plus the 150 between them).
        let r0 = vec![coll(CollKind::AllReduce, "a", Some(1), 0, 1_000)];
        let r1 = vec![
            coll(CollKind::AllReduce, "a", Some(1), -100, 900),
            coll(CollKind::AllReduce, "b", Some(1), 1_900, 2_900),
        ];
        let r2 = vec![coll(CollKind::AllReduce, "b", Some(1), 1_750, 2_750)];
        let ranks: Vec<&[Collective]> = vec![&r0, &r1, &r2];
        let m = match_ranks(&ranks);
        assert_eq!(m.matched.len(), 2);
        assert_eq!(m.single, 0);
        assert!(m.matched.iter().all(|x| x.by == MatchedBy::Seq));
        let clocks = align(&ranks, &m.matched);
        let got: Vec<(i64, i64, Vec<usize>)> = clocks
            .into_iter()
            .map(|c| {
                let c = c.unwrap();
                (c.offset_ns, c.error_ns, c.path)
            })
            .collect();
        assert_eq!(
            got,
            [(0, 0, vec![]), (100, 0, vec![0]), (250, 0, vec![0, 1])]
        );
    }

    #[test]
    fn a_lead_within_the_noise_floor_names_nobody() {
        // Two ranks, offsets known (0), rank 1's clock error 50 ns given:
        // rank 1 starts 40 ns after rank 0 (lead 40 ≤ 50): within the
        // noise; 400 ns after: near it (≤ 500); 600 ns after: last.
        let clock = |error_ns| {
            Some(Clock {
                offset_ns: 0,
                error_ns,
                path: Vec::new(),
            })
        };
        let clocks = [clock(0), clock(50)];
        let m = Matched {
            members: vec![(0, 0), (1, 0)],
            by: MatchedBy::Seq,
        };
        for (late, want) in [
            (0, Arrival::Together),
            (40, Arrival::WithinNoise),
            (400, Arrival::LastNearNoise),
            (600, Arrival::Last),
        ] {
            let r0 = vec![coll(CollKind::AllReduce, "0", Some(1), 0, 2_000)];
            let r1 = vec![coll(CollKind::AllReduce, "0", Some(1), late, 2_000)];
            let ranks: Vec<&[Collective]> = vec![&r0, &r1];
            let s = split(&ranks, &m, &clocks).unwrap();
            assert_eq!((s.arrival, s.lead_ns, s.noise_floor_ns), (want, late, 50));
        }
    }
}
