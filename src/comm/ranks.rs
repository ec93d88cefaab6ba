//! Several ranks of one job: each collective matched across the ranks
//! given, their clocks aligned on collective completions, and each rank's
//! NCCL time split into the wait for the last rank and the transfer.
//!
//! Matching: by (process group, sequence number) when the trace records
//! one, else by (process group, kind, bytes) and order of occurrence.
//! Alignment: a collective completes on every rank at once (the last
//! rank's data arrives everywhere within microseconds), so rank `r`'s
//! offset to the reference rank (the first given) is the median over the
//! collectives both hold of `end_ref − end_r`; the largest residual is the
//! alignment's error.

use super::kind::CollKind;
use super::model::Collective;
use std::collections::HashMap;

/// One collective matched across ranks: per rank given, the index of its
/// kernel in that rank's collectives.
#[derive(Debug, Clone, PartialEq)]
pub struct Matched {
    /// (index of the rank in the input, index of its collective), by rank.
    pub members: Vec<(usize, usize)>,
}

/// Each collective's match key, in one rank's order: `<process group>|seq
/// <n>` when the trace records a sequence number, else `<process
/// group>|<kind>|<bytes>|#<k>` (the k-th of that group, kind and size on
/// this rank). The same key on two ranks is the same collective; the
/// Parquet rows carry it (`match_key`), so a query joins ranks as `comm`
/// does.
pub fn match_keys(colls: &[Collective]) -> Vec<String> {
    let mut seen: HashMap<(Option<&str>, CollKind, Option<u64>), usize> = HashMap::new();
    colls
        .iter()
        .map(|c| {
            let pg = c.process_group.as_deref().unwrap_or("");
            match c.seq {
                Some(s) => format!("{pg}|seq {s}"),
                None => {
                    let n = seen
                        .entry((c.process_group.as_deref(), c.kind, c.bytes))
                        .or_insert(0);
                    *n += 1;
                    let bytes = c.bytes.map_or("?".to_string(), |b| b.to_string());
                    format!("{pg}|{}|{bytes}|#{n}", c.kind.key())
                }
            }
        })
        .collect()
}

/// The collectives present on at least two ranks, by first appearance on
/// the lowest rank holding them; and how many were seen on one rank only.
pub fn match_ranks(ranks: &[&[Collective]]) -> (Vec<Matched>, usize) {
    let mut by_key: HashMap<String, Vec<(usize, usize)>> = HashMap::new();
    let mut order: Vec<String> = Vec::new();
    for (ri, colls) in ranks.iter().enumerate() {
        for (ci, key) in match_keys(colls).into_iter().enumerate() {
            let v = by_key.entry(key.clone()).or_default();
            if v.is_empty() {
                order.push(key);
            }
            v.push((ri, ci));
        }
    }
    let mut single = 0;
    let mut out = Vec::new();
    for k in order {
        let members = by_key.remove(&k).unwrap_or_default();
        if members.len() < 2 {
            single += 1;
        } else {
            out.push(Matched { members });
        }
    }
    (out, single)
}

/// Per rank: the offset that puts its clock on rank 0's (the first given)
/// and the largest residual, ns; `None` for a rank sharing no collective
/// with rank 0.
pub fn align(ranks: &[&[Collective]], matched: &[Matched]) -> Vec<Option<(i64, i64)>> {
    let mut diffs: Vec<Vec<i64>> = vec![Vec::new(); ranks.len()];
    for m in matched {
        let Some(&(_, c0)) = m.members.iter().find(|x| x.0 == 0) else {
            continue;
        };
        let end0 = ranks[0][c0].end_ns;
        for &(r, c) in &m.members {
            diffs[r].push(end0 - ranks[r][c].end_ns);
        }
    }
    diffs
        .into_iter()
        .map(|mut d| {
            if d.is_empty() {
                return None;
            }
            d.sort_unstable();
            let off = d[(d.len() - 1) / 2];
            let err = d.iter().map(|x| (x - off).abs()).max().unwrap_or(0);
            Some((off, err))
        })
        .collect()
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
}

/// Splits `m` given the offsets (members without one are left out; `None`
/// when fewer than two remain).
pub fn split(
    ranks: &[&[Collective]],
    m: &Matched,
    offsets: &[Option<(i64, i64)>],
) -> Option<Split> {
    let aligned: Vec<(usize, i64, i64)> = m
        .members
        .iter()
        .filter_map(|&(r, c)| {
            let (off, _) = offsets[r]?;
            let k = &ranks[r][c];
            Some((r, k.start_ns + off, k.end_ns - k.start_ns))
        })
        .collect();
    if aligned.len() < 2 {
        return None;
    }
    let &(last, last_start, transfer_ns) = aligned
        .iter()
        .max_by_key(|x| (x.1, std::cmp::Reverse(x.0)))?;
    let start_ns = aligned.iter().map(|x| x.1).min()?;
    let waits = aligned
        .iter()
        .map(|&(r, s, d)| (r, (last_start - s).clamp(0, d), d))
        .collect();
    Some(Split {
        last,
        waits,
        transfer_ns,
        start_ns,
    })
}
