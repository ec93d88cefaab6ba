//! One-time idle: gaps a run pays once, which the steady state will not
//! (docs/gaps.md, "One-time costs"). A gap is one-time when at least half
//! of it lies inside a warm-up range of its process (an NVTX range or
//! PyTorch annotation whose text says warm-up), or when it is host-bound
//! or a slow launch call and ends at the first launch of its kernel on the
//! device with a launch call of [`FIRST_LAUNCH_MIN_NS`] or more (lazy module loading, a
//! library's first-use set-up inside the launch).
//!
//! The verdict gives the advice for the steady state (every other gap) and
//! names the one-time idle apart, so a run measured mostly during its
//! warm-up is not told to fix its warm-up.

use super::class::GapClass;
use super::totals::{ClassTotals, HostTotals};
use crate::timeline::{GpuOp, NameRef, OpKind, Timeline};
use serde::Serialize;
use std::cell::OnceCell;
use std::collections::{HashMap, HashSet};

/// A first launch whose call lasts this long or more is a one-time
/// set-up inside the launch, not launch overhead (a `cudaLaunchKernel`
/// costs 2-10 µs; loading a module or a library's first use takes
/// milliseconds to seconds), ns.
pub const FIRST_LAUNCH_MIN_NS: i64 = 1_000_000;

/// True when a range text names a warm-up (`warmup`, `warm-up`, `warm_up`,
/// `warm up`, in any case), e.g. PyTorch benchmark's
/// `[param|…|warmup|forward]`.
pub fn is_warmup_text(text: &str) -> bool {
    let t = text.as_bytes();
    // Only where a `w` stands (one fast search over texts that mostly
    // have none: a run may hold tens of millions of ranges).
    memchr::memchr2_iter(b'w', b'W', t).any(|i| {
        let at = |from: usize, word: &[u8]| {
            t.get(from..from + word.len())
                .is_some_and(|u| u.eq_ignore_ascii_case(word))
        };
        at(i, b"warm")
            && match t.get(i + 4) {
                Some(b'-' | b'_' | b' ') => at(i + 5, b"up"),
                Some(_) => at(i + 4, b"up"),
                None => false,
            }
    })
}

/// The warm-up ranges of each process, merged and sorted.
#[derive(Debug, Default)]
pub(crate) struct WarmUp {
    by_pid: HashMap<u32, Vec<(i64, i64)>>,
    /// The text of the longest warm-up range, for the verdict's words.
    pub(crate) example: Option<std::sync::Arc<str>>,
}

impl WarmUp {
    /// One pass over the ranges; a text is tested once however many
    /// ranges share it (they share one `Arc`).
    pub(crate) fn new(tl: &Timeline) -> WarmUp {
        let mut by_pid: HashMap<u32, Vec<(i64, i64)>> = HashMap::new();
        let mut last: Option<(*const u8, bool)> = None;
        let mut longest = (0i64, None);
        for r in &tl.nvtx {
            let ptr = r.text.as_ptr();
            let warm = match last {
                Some((p, w)) if p == ptr => w,
                _ => {
                    let w = is_warmup_text(&r.text);
                    last = Some((ptr, w));
                    w
                }
            };
            if warm && r.end_ns > r.start_ns {
                by_pid
                    .entry(r.pid)
                    .or_default()
                    .push((r.start_ns, r.end_ns));
                if r.end_ns - r.start_ns > longest.0 {
                    longest = (r.end_ns - r.start_ns, Some(r.text.clone()));
                }
            }
        }
        for v in by_pid.values_mut() {
            v.sort_unstable();
            let mut merged: Vec<(i64, i64)> = Vec::with_capacity(v.len());
            for &(s, e) in v.iter() {
                match merged.last_mut() {
                    Some(m) if s <= m.1 => m.1 = m.1.max(e),
                    _ => merged.push((s, e)),
                }
            }
            *v = merged;
        }
        WarmUp {
            by_pid,
            example: longest.1,
        }
    }

    /// Time of `[start, end)` inside the process's warm-up ranges, ns.
    pub(crate) fn inside(&self, pid: u32, start: i64, end: i64) -> i64 {
        let Some(v) = self.by_pid.get(&pid) else {
            return 0;
        };
        // The first merged range that ends after `start`.
        let from = v.partition_point(|r| r.1 <= start);
        v[from..]
            .iter()
            .take_while(|r| r.0 < end)
            .map(|r| r.1.min(end) - r.0.max(start))
            .sum()
    }
}

/// Why a gap is one-time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum OneTimeCause {
    /// Half or more of it inside a warm-up range.
    WarmUp,
    /// It ends at a kernel's first launch on the device, whose launch call
    /// lasted [`FIRST_LAUNCH_MIN_NS`] or more.
    FirstLaunch,
}

/// The first-launch test of one device's ops: which names launched
/// before, built only when a gap asks (a launch call of a millisecond is
/// rare, so most runs never build it).
pub(crate) struct FirstLaunches<'a> {
    ops: &'a [GpuOp],
    first: OnceCell<HashSet<usize>>,
}

impl<'a> FirstLaunches<'a> {
    /// Over one device's ops, sorted by start.
    pub(crate) fn new(ops: &'a [GpuOp]) -> FirstLaunches<'a> {
        FirstLaunches {
            ops,
            first: OnceCell::new(),
        }
    }

    /// True when `ops[i]` is a kernel (not a copy, memset or whole graph).
    pub(crate) fn is_kernel(&self, i: usize) -> bool {
        self.ops[i].kind == OpKind::Kernel
    }

    /// True when `ops[i]` is the first op of its name on the device.
    pub(crate) fn is_first(&self, i: usize) -> bool {
        self.first
            .get_or_init(|| {
                let mut seen: HashSet<NameRef> = HashSet::new();
                (0..self.ops.len())
                    .filter(|&k| seen.insert(self.ops[k].name))
                    .collect()
            })
            .contains(&i)
    }
}

/// The one-time idle of one (process, device).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct OneTimeIdle {
    /// One-time gaps.
    pub gaps: u64,
    /// Their time, ns.
    pub idle_ns: i64,
    /// Of which gaps mostly inside warm-up ranges, ns.
    pub warmup_ns: i64,
    /// Of which gaps ended by a slow first launch, ns.
    pub first_launch_ns: i64,
    /// The one-time gaps by class (the steady state's classes are the
    /// device's `classes` less these).
    pub classes: ClassTotals,
    /// The host-bound evidence of the steady-state gaps, for the verdict's
    /// host fix (not serialised: a JSON reader has the device's whole
    /// evidence).
    #[serde(skip)]
    pub steady_host: HostTotals,
}

impl OneTimeIdle {
    /// Adds a one-time gap of `ns` of `class` for `cause`.
    pub(crate) fn add(&mut self, cause: OneTimeCause, class: GapClass, ns: i64) {
        self.gaps += 1;
        self.idle_ns += ns;
        self.classes.add(class, ns);
        match cause {
            OneTimeCause::WarmUp => self.warmup_ns += ns,
            OneTimeCause::FirstLaunch => self.first_launch_ns += ns,
        }
    }

    /// Sums another device's.
    pub fn merge(&mut self, o: &OneTimeIdle) {
        self.gaps += o.gaps;
        self.idle_ns += o.idle_ns;
        self.warmup_ns += o.warmup_ns;
        self.first_launch_ns += o.first_launch_ns;
        self.classes.merge(&o.classes);
        self.steady_host.merge(&o.steady_host);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warm_up_texts_in_their_spellings() {
        for t in [
            "warmup",
            "Warm-up step 3",
            "[param|pytorch.model.alex_net|0|0|0|warmup|forward]",
            "WARM_UP",
            "warm up",
        ] {
            assert!(is_warmup_text(t), "{t}");
        }
        for t in [
            "warm",
            "warmth",
            "swarm_upper",
            "ProfilerStep#3",
            "up warm",
            "",
        ] {
            // "swarm_upper" holds "warm_up": a text that says it is taken
            // as saying it (the rule is a substring, documented).
            assert_eq!(is_warmup_text(t), t == "swarm_upper", "{t}");
        }
    }

    #[test]
    fn time_inside_merged_warm_up_ranges() {
        let w = WarmUp {
            by_pid: HashMap::from([(7, vec![(10, 20), (30, 40)])]),
            example: None,
        };
        // [15, 35): 5 ns in the first range, 5 in the second.
        assert_eq!(w.inside(7, 15, 35), 10);
        assert_eq!(w.inside(7, 0, 10), 0);
        assert_eq!(w.inside(7, 20, 30), 0);
        assert_eq!(w.inside(7, 0, 100), 20);
        assert_eq!(w.inside(8, 0, 100), 0);
    }
}
