//! Which job each input of one `gaps` run belongs to, decided from the
//! facts the inputs record (six unrelated exports, A100 and V100, four of
//! them "rank 0", were once summed as ranks of one job without a word).
//!
//! The rule (docs/scale.md, "Inputs of several jobs"):
//! - Inputs are of one job when they share a [`JobKey`]: the GPU (the table
//!   entry each input's report chose from its GPU record, or `--gpu`) and
//!   the world size (Kineto's `distributedInfo.world_size`). An unknown
//!   GPU or world size is a value of its own, never a wildcard: guessing
//!   that a rank with no GPU record ran on the others' GPU would merge
//!   jobs as silently as before.
//! - Within one key, two inputs claiming the same rank are two jobs; the
//!   inputs are then split by the directory that holds them
//!   (`run1/rank0.sqlite`, `run2/rank0.sqlite`). When a directory still
//!   holds a rank twice, no recorded fact says which ranks run together:
//!   [`group_jobs`] refuses, naming each group's files ([`MixedJobs`]).
//! - `--one-job` says the inputs are one job whatever they record
//!   ([`one_job`]).
//!
//! One job gives the report as before; several give one section per job
//! ([`MultiJobGapReport`], schema `rooftrace.multi-gaps-jobs/1`).

use super::gaps::{summarize_gaps, GapsInput, MultiGapReport};
use super::InputFailure;
use serde::Serialize;
use std::collections::BTreeMap;

/// Version tag of the JSON document of several jobs.
pub const SCHEMA: &str = "rooftrace.multi-gaps-jobs/1";

/// Inputs a sentence names one by one (the rest are counted).
const NAMED: usize = 4;

/// What tells one job from another.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct JobKey {
    /// The GPU table entry the inputs ran on (their GPU record, or
    /// `--gpu`); `None`: not recorded.
    pub gpu: Option<String>,
    /// Ranks in the job as recorded (`distributedInfo.world_size`);
    /// `None`: not recorded.
    pub world_size: Option<u32>,
}

impl JobKey {
    /// Of one input.
    pub fn of(input: &GapsInput) -> JobKey {
        JobKey {
            gpu: input.report.host_link.gpu.clone(),
            world_size: input.world_size,
        }
    }

    /// `GPU a100-40gb, world size 2`, with `unknown` for what no input
    /// recorded.
    pub fn words(&self) -> String {
        format!(
            "GPU {}, world size {}",
            self.gpu.as_deref().unwrap_or("unknown (no GPU record)"),
            self.world_size
                .map_or_else(|| "unknown".to_string(), |w| w.to_string())
        )
    }
}

/// The inputs of one job, by index into the run's inputs (input order).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobGroup {
    /// What its inputs share.
    pub key: JobKey,
    /// The directory holding them, when it was needed to tell this job
    /// from another of the same key.
    pub directory: Option<String>,
    /// Indices into the inputs.
    pub members: Vec<usize>,
}

/// Inputs whose recorded facts cannot be put together into jobs: within
/// one key and one directory, a rank is claimed more than once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MixedJobs {
    /// The sentence: each group's key, files and the rank claimed twice,
    /// then what to do.
    pub line: String,
}

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

/// The directory of an input path (`.` for a bare file name).
fn directory_of(input: &str) -> String {
    match std::path::Path::new(input).parent() {
        Some(p) if !p.as_os_str().is_empty() => p.display().to_string(),
        _ => ".".to_string(),
    }
}

/// The ranks claimed by more than one of `members`, each with its claimants.
fn repeated_ranks<'a>(inputs: &'a [GapsInput], members: &[usize]) -> Vec<(u32, Vec<&'a str>)> {
    let mut by_rank: BTreeMap<u32, Vec<&str>> = BTreeMap::new();
    for &m in members {
        if let Some(r) = inputs[m].tag.rank {
            by_rank.entry(r).or_default().push(&inputs[m].tag.input);
        }
    }
    by_rank.into_iter().filter(|(_, v)| v.len() > 1).collect()
}

/// The jobs of `inputs` (in input order; groups in key order, then
/// directory): one group when they are ranks of one job. [`MixedJobs`] when
/// a rank is claimed twice by inputs of one key in one directory.
pub fn group_jobs(inputs: &[GapsInput]) -> Result<Vec<JobGroup>, MixedJobs> {
    let mut by_key: BTreeMap<JobKey, Vec<usize>> = BTreeMap::new();
    for (ix, i) in inputs.iter().enumerate() {
        by_key.entry(JobKey::of(i)).or_default().push(ix);
    }
    let mut groups = Vec::new();
    let mut clashes: Vec<String> = Vec::new();
    for (key, members) in by_key {
        if repeated_ranks(inputs, &members).is_empty() {
            groups.push(JobGroup {
                key,
                directory: None,
                members,
            });
            continue;
        }
        let mut by_dir: BTreeMap<String, Vec<usize>> = BTreeMap::new();
        for m in members {
            by_dir
                .entry(directory_of(&inputs[m].tag.input))
                .or_default()
                .push(m);
        }
        for (dir, members) in by_dir {
            let repeated = repeated_ranks(inputs, &members);
            if !repeated.is_empty() {
                let ranks: Vec<String> = repeated
                    .iter()
                    .map(|(r, v)| format!("rank {r} in {}", some(v)))
                    .collect();
                clashes.push(format!("{} in {dir}: {}", key.words(), ranks.join("; ")));
            }
            groups.push(JobGroup {
                key: key.clone(),
                directory: Some(dir),
                members,
            });
        }
    }
    if clashes.is_empty() {
        return Ok(groups);
    }
    let listed: Vec<String> = groups
        .iter()
        .map(|g| {
            let names: Vec<&str> = g.members.iter().map(|&m| &*inputs[m].tag.input).collect();
            format!("[{}: {}]", g.key.words(), some(&names))
        })
        .collect();
    Err(MixedJobs {
        line: format!(
            "these {} inputs are of more than one job, and which ranks ran together is not recorded ({}); the inputs by GPU and world size: {}; give each job's files in a run of its own (e.g. `rooftrace gaps run1/`), `--rank-from REGEX` when the file names hold the rank, or `--one-job` to sum them as ranks of one job",
            inputs.len(),
            clashes.join("; "),
            listed.join(" ")
        ),
    })
}

/// One job's section of a run over several jobs.
#[derive(Debug, Clone, Serialize)]
pub struct JobSection {
    /// 1-based, in the order of the sections.
    pub job: usize,
    /// What its inputs share.
    #[serde(flatten)]
    pub key: JobKey,
    /// The directory that told it from another job of the same key;
    /// `null` when the key alone did.
    pub directory: Option<String>,
    /// Its inputs as given, in input order.
    pub input_names: Vec<String>,
    /// The cross-input report of its inputs alone (`rooftrace.multi-gaps/1`;
    /// its `failures` empty: they are the run's).
    pub report: MultiGapReport,
}

/// A `gaps` run over the inputs of several jobs: one section per job.
#[derive(Debug, Clone, Serialize)]
pub struct MultiJobGapReport {
    /// [`SCHEMA`].
    pub schema: &'static str,
    /// One per job, in [`group_jobs`]' order.
    pub jobs: Vec<JobSection>,
    /// Inputs that failed (of no job: a failed input records nothing), in
    /// input order.
    pub failures: Vec<InputFailure>,
    /// Files the directories given held that are no input by their ending
    /// or content, as paths.
    pub skipped: Vec<String>,
}

/// The report of one run: one job's, or a section per job.
#[derive(Debug, Clone)]
pub enum GapsRun {
    /// The inputs are ranks of one job.
    OneJob(MultiGapReport),
    /// The inputs are of several jobs.
    Jobs(MultiJobGapReport),
}

/// Every input summarised as a rank of one job (`--one-job`).
pub fn one_job(
    inputs: Vec<GapsInput>,
    failures: Vec<InputFailure>,
    skipped: Vec<String>,
) -> MultiGapReport {
    let mut report = summarize_gaps(inputs, failures);
    report.skipped = skipped;
    report
}

/// Groups `inputs` into jobs ([`group_jobs`]) and summarises each.
pub fn summarize_jobs(
    inputs: Vec<GapsInput>,
    failures: Vec<InputFailure>,
    skipped: Vec<String>,
) -> Result<GapsRun, MixedJobs> {
    let groups = group_jobs(&inputs)?;
    if groups.len() <= 1 {
        return Ok(GapsRun::OneJob(one_job(inputs, failures, skipped)));
    }
    let mut slots: Vec<Option<GapsInput>> = inputs.into_iter().map(Some).collect();
    let jobs = groups
        .into_iter()
        .enumerate()
        .map(|(n, g)| {
            let members: Vec<GapsInput> =
                g.members.iter().filter_map(|&m| slots[m].take()).collect();
            JobSection {
                job: n + 1,
                key: g.key,
                directory: g.directory,
                input_names: members.iter().map(|i| i.tag.input.clone()).collect(),
                report: summarize_gaps(members, Vec::new()),
            }
        })
        .collect();
    Ok(GapsRun::Jobs(MultiJobGapReport {
        schema: SCHEMA,
        jobs,
        failures,
        skipped,
    }))
}
