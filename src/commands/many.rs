//! Running one analysis over many inputs: in parallel on std threads,
//! within a memory budget, each input's failure kept with its name, and
//! Parquet datasets written per input as soon as it is done.
//!
//! The budget: each input is charged an estimate of its peak memory
//! ([`estimate_bytes`], from its file size); an input starts only when the
//! charges of the inputs running plus its own fit the budget, or when
//! nothing else runs (an input over the budget runs alone). The default
//! budget is the largest input's estimate, so the peak stays near the
//! largest input's alone, whatever the number of inputs (docs/scale.md).

use crate::error::{InputError, SomeInputsFailed};
use crate::many_inputs::tag::partitions;
use crate::many_inputs::{InputFailure, RankRule};
use crate::report::parquet::{write_dataset, Dataset};
use anyhow::Context;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::{Condvar, Mutex};

/// Peak memory per byte of input, as measured (docs/scale.md): an nsys
/// export's timeline takes about its file size in memory, an ncu CSV about
/// twice its size; an `.nsys-rep` is converted first and its export is
/// several times larger.
fn bytes_per_input_byte(path: &Path) -> u64 {
    match path.extension().and_then(|e| e.to_str()) {
        Some("nsys-rep") => 4,
        Some("csv") => 2,
        _ => 1,
    }
}

/// Fixed charge per input (SQLite page cache, reader threads, the report).
const PER_INPUT_BYTES: u64 = 64 << 20;

/// An input's estimated peak memory, bytes.
pub fn estimate_bytes(path: &Path) -> u64 {
    let len = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    len.saturating_mul(bytes_per_input_byte(path))
        .saturating_add(PER_INPUT_BYTES)
}

/// Plain config of a many-input run.
#[derive(Debug, Clone)]
pub struct ManyConfig {
    /// Inputs analysed at once.
    pub jobs: usize,
    /// Memory budget, bytes (`None`: the largest input's estimate).
    pub mem_budget: Option<u64>,
    /// How to find each input's rank.
    pub rank: RankRule,
    /// `--format parquet`: the dataset directory.
    pub parquet: Option<PathBuf>,
}

impl ManyConfig {
    /// From the flags; `--rank-from` is checked here (exit 2 on a bad one).
    pub fn from_args(
        a: &crate::cli::ManyArgs,
        parquet: Option<PathBuf>,
    ) -> Result<Self, InputError> {
        let rank = match &a.rank_from {
            Some(p) => RankRule {
                pattern: regex::Regex::new(p)
                    .map_err(|e| InputError::new(format!("--rank-from `{p}`: {e}")))?,
                explicit: true,
            },
            None => RankRule::default(),
        };
        let jobs = a.jobs.map(usize::from).unwrap_or_else(|| {
            std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1)
        });
        Ok(ManyConfig {
            jobs,
            mem_budget: a.mem_budget,
            rank,
            parquet,
        })
    }
}

/// One input handed to the per-input work.
#[derive(Debug, Clone)]
pub struct Job {
    /// The path.
    pub path: PathBuf,
    /// Its partition value in Parquet datasets.
    pub partition: String,
}

struct Slots {
    next: usize,
    running: usize,
    charged: u64,
}

/// Runs `work` on every input, at most `jobs` at once and within the
/// budget; results in input order.
pub fn run_all<T: Send>(
    inputs: &[PathBuf],
    config: &ManyConfig,
    work: &(dyn Fn(&Job) -> anyhow::Result<T> + Sync),
) -> Vec<anyhow::Result<T>> {
    let names: Vec<String> = inputs.iter().map(|p| p.display().to_string()).collect();
    let parts = partitions(&names);
    let cost: Vec<u64> = inputs.iter().map(|p| estimate_bytes(p)).collect();
    let budget = config
        .mem_budget
        .unwrap_or_else(|| cost.iter().copied().max().unwrap_or(0));
    let slots = Mutex::new(Slots {
        next: 0,
        running: 0,
        charged: 0,
    });
    let freed = Condvar::new();
    let results: Vec<Mutex<Option<anyhow::Result<T>>>> =
        inputs.iter().map(|_| Mutex::new(None)).collect();
    let bar = progress(inputs.len());
    let worker = || loop {
        let i = {
            let mut s = slots.lock().unwrap_or_else(|e| e.into_inner());
            loop {
                if s.next >= inputs.len() {
                    return;
                }
                let c = cost[s.next];
                if s.running == 0 || s.charged.saturating_add(c) <= budget {
                    break;
                }
                s = freed.wait(s).unwrap_or_else(|e| e.into_inner());
            }
            let i = s.next;
            s.next += 1;
            s.running += 1;
            s.charged = s.charged.saturating_add(cost[i]);
            i
        };
        let job = Job {
            path: inputs[i].clone(),
            partition: parts[i].clone(),
        };
        let r = work(&job);
        *results[i].lock().unwrap_or_else(|e| e.into_inner()) = Some(r);
        bar.inc(1);
        let mut s = slots.lock().unwrap_or_else(|e| e.into_inner());
        s.running -= 1;
        s.charged = s.charged.saturating_sub(cost[i]);
        freed.notify_all();
    };
    // No more threads than inputs that fit the budget at once: an idle
    // worker would only keep its allocator arena (freed pages of the input
    // it last ran) resident, and with the default budget that doubles the
    // peak for nothing.
    let smallest = cost.iter().copied().min().unwrap_or(1).max(1);
    let fit = usize::try_from(budget / smallest)
        .unwrap_or(usize::MAX)
        .max(1);
    let threads = config.jobs.min(fit).clamp(1, inputs.len().max(1));
    std::thread::scope(|sc| {
        for _ in 0..threads {
            sc.spawn(worker);
        }
    });
    bar.finish_and_clear();
    results
        .into_iter()
        .map(|m| {
            m.into_inner()
                .unwrap_or_else(|e| e.into_inner())
                .unwrap_or_else(|| Err(anyhow::anyhow!("not analysed (a worker thread panicked)")))
        })
        .collect()
}

fn progress(n: usize) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let b = ProgressBar::with_draw_target(Some(n as u64), ProgressDrawTarget::stderr());
    b.set_style(
        ProgressStyle::with_template("inputs [{bar:30}] {pos}/{len} {elapsed}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    b
}

/// Splits results into the successes and the failures (with each input's
/// name and whole error chain).
pub fn split_results<T>(
    inputs: &[PathBuf],
    results: Vec<anyhow::Result<T>>,
) -> (Vec<T>, Vec<InputFailure>) {
    let mut ok = Vec::new();
    let mut failed = Vec::new();
    for (p, r) in inputs.iter().zip(results) {
        match r {
            Ok(t) => ok.push(t),
            Err(e) => {
                let msg = format!("{e:#}");
                let name = p.display().to_string();
                failed.push(InputFailure {
                    // Most errors name the file already; say it once.
                    error: msg,
                    bad_input: e.chain().any(|x| x.is::<InputError>()),
                    input: name,
                })
            }
        }
    }
    (ok, failed)
}

/// The error a many-input run returns after writing its results: `None`
/// when nothing failed; [`SomeInputsFailed`] (exit 4) when some did; the
/// first failure itself when all did (exit 2 for bad input).
pub fn outcome(total: usize, failures: &[InputFailure]) -> anyhow::Result<()> {
    let Some(first) = failures.first() else {
        return Ok(());
    };
    let first_line = first.line();
    if failures.len() == total {
        let msg = format!("all {total} inputs failed. First: {first_line}");
        return Err(if failures.iter().all(|f| f.bad_input) {
            InputError::new(msg).into()
        } else {
            anyhow::anyhow!(msg)
        });
    }
    Err(SomeInputsFailed {
        failed: failures.len(),
        total,
        first: first_line,
    }
    .into())
}

/// Writes one input's datasets: `DIR/<entity>/input=<partition>/part-0.parquet`,
/// each through a temporary file in the same directory renamed over the
/// old one, so a reader never sees half a file and other inputs' files are
/// never touched.
pub fn write_datasets(dir: &Path, partition: &str, datasets: &[Dataset]) -> anyhow::Result<()> {
    for ds in datasets {
        let part_dir = dir.join(ds.entity).join(format!("input={partition}"));
        std::fs::create_dir_all(&part_dir)
            .with_context(|| format!("creating {}", part_dir.display()))?;
        let path = part_dir.join("part-0.parquet");
        let tmp = tempfile::Builder::new()
            .prefix(".part-0.")
            .suffix(".tmp")
            .tempfile_in(&part_dir)
            .with_context(|| format!("creating a temporary file in {}", part_dir.display()))?;
        let file = tmp.as_file().try_clone()?;
        write_dataset(std::io::BufWriter::new(file), ds)
            .map_err(anyhow::Error::from)
            .and_then(|w| w.into_inner().map_err(|e| e.into_error().into()))
            .and_then(|f| f.sync_all().map_err(Into::into))
            .with_context(|| format!("writing {}", path.display()))?;
        tmp.persist(&path)
            .with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(())
}

/// `--format parquet` needs `-o DIR`, a directory (created when missing).
pub fn parquet_dir(output: Option<&Path>) -> Result<PathBuf, InputError> {
    let dir = output.ok_or_else(|| {
        InputError::new("--format parquet writes a directory of datasets; give it with -o DIR (e.g. -o gaps.parquet/)")
    })?;
    if dir.is_file() {
        return Err(InputError::new(format!(
            "-o {}: is a file; --format parquet writes a directory of datasets, give a directory",
            dir.display()
        )));
    }
    Ok(dir.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    fn config(jobs: usize, mem_budget: Option<u64>) -> ManyConfig {
        ManyConfig {
            jobs,
            mem_budget,
            rank: RankRule::default(),
            parquet: None,
        }
    }

    /// Runs `inputs` with work that records how many run at once and which
    /// ran beside the big one.
    fn peak(inputs: &[PathBuf], c: &ManyConfig, big: Option<&Path>) -> (usize, bool) {
        let now = AtomicUsize::new(0);
        let max = AtomicUsize::new(0);
        let big_running = AtomicUsize::new(0);
        let overlap = AtomicUsize::new(0);
        let work = |j: &Job| -> anyhow::Result<usize> {
            let is_big = big == Some(j.path.as_path());
            if is_big {
                big_running.store(1, Ordering::SeqCst);
            }
            let n = now.fetch_add(1, Ordering::SeqCst) + 1;
            max.fetch_max(n, Ordering::SeqCst);
            if n > 1 && big_running.load(Ordering::SeqCst) == 1 {
                overlap.store(1, Ordering::SeqCst);
            }
            std::thread::sleep(std::time::Duration::from_millis(30));
            now.fetch_sub(1, Ordering::SeqCst);
            if is_big {
                big_running.store(0, Ordering::SeqCst);
            }
            Ok(n)
        };
        let r = run_all(inputs, c, &work);
        assert!(r.iter().all(|x| x.is_ok()));
        (max.into_inner(), overlap.into_inner() == 1)
    }

    #[test]
    fn the_budget_bounds_how_many_run_at_once() {
        let d = tempfile::tempdir().unwrap();
        let small: Vec<PathBuf> = (0..6)
            .map(|i| {
                let p = d.path().join(format!("r{i}.sqlite"));
                std::fs::write(&p, vec![0u8; 1000]).unwrap();
                p
            })
            .collect();
        let one = estimate_bytes(&small[0]);
        // Budget for two: never three at once, though 4 jobs are allowed.
        let (m, _) = peak(&small, &config(4, Some(2 * one)), None);
        assert!((1..=2).contains(&m), "{m} at once");
        // The default budget (the largest input's estimate, all equal here)
        // runs them one by one.
        assert_eq!(peak(&small, &config(4, None), None).0, 1);
        // An input over the budget runs alone.
        let big = d.path().join("big.sqlite");
        std::fs::write(&big, vec![0u8; 4 << 20]).unwrap();
        let mut all = small.clone();
        all.insert(2, big.clone());
        let (_, overlapped) = peak(&all, &config(4, Some(2 * one)), Some(&big));
        assert!(!overlapped, "the big input ran beside another");
    }
}
