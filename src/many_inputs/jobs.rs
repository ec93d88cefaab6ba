//! Whether the inputs of one `gaps` run are ranks of one job: two inputs
//! of the same rank, or run on different GPUs, are not (six unrelated
//! exports, A100 and V100, four of them "rank 0", were summed as ranks
//! of one job without a word). The run goes on; this names what differs.

use super::gaps::GapsInput;
use std::collections::BTreeMap;

/// Inputs a sentence names one by one (the rest are counted).
const NAMED: usize = 3;

/// `names` joined, at most [`NAMED`] of them, then how many more.
fn some(names: &[&str]) -> String {
    let mut s = names
        .iter()
        .take(NAMED)
        .copied()
        .collect::<Vec<_>>()
        .join(", ");
    if names.len() > NAMED {
        s.push_str(&format!(" and {} more", names.len() - NAMED));
    }
    s
}

/// The line saying that `inputs` look like more than one job: each rank
/// that several inputs claim, and the GPUs when they differ (as each
/// input's report found them: its GPU record or `--gpu`); `None` when
/// nothing says so (no rank twice, at most one GPU known).
pub fn mixed_jobs(inputs: &[GapsInput]) -> Option<String> {
    let mut by_rank: BTreeMap<u32, Vec<&str>> = BTreeMap::new();
    let mut by_gpu: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for i in inputs {
        if let Some(r) = i.tag.rank {
            by_rank.entry(r).or_default().push(&i.tag.input);
        }
        if let Some(g) = i.report.host_link.gpu.as_deref() {
            by_gpu.entry(g).or_default().push(&i.tag.input);
        }
    }
    let mut why: Vec<String> = by_rank
        .iter()
        .filter(|(_, v)| v.len() > 1)
        .map(|(r, v)| format!("rank {r} in {} inputs ({})", v.len(), some(v)))
        .collect();
    if by_gpu.len() > 1 {
        let gpus: Vec<String> = by_gpu
            .iter()
            .map(|(g, v)| format!("{g} ({})", some(v)))
            .collect();
        why.push(format!("GPUs {}", gpus.join(", ")));
    }
    if why.is_empty() {
        return None;
    }
    Some(format!(
        "these {} inputs look like more than one job ({}): the tables across ranks compare them as ranks of one job; give each job's files in a run of its own",
        inputs.len(),
        why.join("; ")
    ))
}
