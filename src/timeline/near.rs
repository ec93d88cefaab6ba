//! Which NVTX ranges a reader keeps when the analysis will only ever look
//! at some stretches of some threads ([`RangeFilter`]): a range is kept
//! when it overlaps one of its thread's windows, or when it is the first
//! range of a text class (a family of range texts the analysis reports
//! whether the export has at all). An export written by PyTorch's
//! `emit_nvtx` holds one range per op, tens of millions; `gaps` looks at
//! the ranges of the launching thread inside its gaps only.

use std::collections::HashMap;

/// Classes a text may fall in (`0..MAX_CLASSES`).
pub const MAX_CLASSES: u8 = 8;

/// A thread: (pid, tid).
type Thread = (u32, u32);

/// Disjoint closed windows `[lo, hi]`, ns, sorted (once finished).
type Windows = Vec<(i64, i64)>;

/// The windows of each thread, and the text classes whose first range is
/// kept. Built by the analysis from a timeline without ranges, read by a
/// reader for each range row.
pub struct RangeFilter {
    /// Each thread's windows.
    windows: HashMap<Thread, Windows>,
    /// The thread of the last [`RangeFilter::add`] and its windows, taken
    /// out of `windows` (a hash per window cost as much as the sweep).
    adding: Option<(Thread, Windows)>,
    /// True once [`RangeFilter::finish`] ran.
    finished: bool,
    /// The class of a range text's bytes (`None`: no class), below
    /// [`MAX_CLASSES`]. A reader may give the bytes as stored, before they
    /// are made valid UTF-8: a class must be decided by ASCII patterns
    /// (which lossy UTF-8 keeps, byte for byte, in place).
    classify: fn(&[u8]) -> Option<u8>,
}

impl RangeFilter {
    /// No window yet; `classify` names the classes whose first range is
    /// kept wherever it lies.
    pub fn new(classify: fn(&[u8]) -> Option<u8>) -> RangeFilter {
        RangeFilter {
            windows: HashMap::new(),
            adding: None,
            finished: false,
            classify,
        }
    }

    /// Adds the closed window `[lo, hi]` (ns) of thread (pid, tid); a point
    /// when `lo == hi`, nothing when `hi < lo`.
    pub fn add(&mut self, pid: u32, tid: u32, lo: i64, hi: i64) {
        self.finished = false;
        if hi < lo {
            return;
        }
        if self.adding.as_ref().is_none_or(|a| a.0 != (pid, tid)) {
            self.put_back();
            let w = self.windows.remove(&(pid, tid)).unwrap_or_default();
            self.adding = Some(((pid, tid), w));
        }
        let Some((_, w)) = &mut self.adding else {
            return;
        };
        // Windows mostly come in time order: merge with the last at once
        // when they overlap (`finish` sorts and merges the rest).
        match w.last_mut() {
            Some(last) if lo <= last.1 && hi >= last.0 => {
                *last = (last.0.min(lo), last.1.max(hi));
            }
            _ => w.push((lo, hi)),
        }
    }

    /// Adds every window of `other` (built apart, e.g. on another thread,
    /// with the same classes); call before [`RangeFilter::finish`].
    pub fn append(&mut self, mut other: RangeFilter) {
        self.finished = false;
        self.put_back();
        other.put_back();
        for (thread, mut w) in other.windows {
            let mine = self.windows.entry(thread).or_default();
            if mine.is_empty() {
                *mine = w;
            } else {
                mine.append(&mut w);
            }
        }
    }

    /// Sorts and merges each thread's windows; call once, after the last
    /// [`RangeFilter::add`].
    pub fn finish(&mut self) {
        self.put_back();
        self.finished = true;
        // Threads' windows apart, side by side (a few threads hold them
        // all: PyTorch launches from one thread per process).
        let mut big: Vec<&mut Vec<(i64, i64)>> = self.windows.values_mut().collect();
        big.sort_by_key(|w| std::cmp::Reverse(w.len()));
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        std::thread::scope(|s| {
            let mut rest = big.into_iter();
            for w in rest.by_ref().take(cores.saturating_sub(1)) {
                s.spawn(move || sort_and_merge(w));
            }
            rest.for_each(sort_and_merge);
        });
    }

    /// Returns the windows being added to to their map.
    fn put_back(&mut self) {
        if let Some((thread, w)) = self.adding.take() {
            self.windows.insert(thread, w);
        }
    }

    /// How many windows the filter holds (after merging).
    pub fn window_count(&self) -> usize {
        self.windows.values().map(Vec::len).sum()
    }

    /// A stateful test of one row after another (see [`Keeper::overlaps`]).
    pub fn keeper(&self) -> Keeper<'_> {
        debug_assert!(self.finished, "RangeFilter::keeper before finish");
        Keeper {
            filter: self,
            threads: Vec::new(),
            last: 0,
            seen: 0,
        }
    }
}

/// Sorts windows and merges those that overlap.
fn sort_and_merge(w: &mut Vec<(i64, i64)>) {
    if !w.is_sorted() {
        w.sort_unstable();
    }
    let mut merged: Vec<(i64, i64)> = Vec::with_capacity(w.len());
    for &(lo, hi) in w.iter() {
        match merged.last_mut() {
            Some(last) if lo <= last.1 => last.1 = last.1.max(hi),
            _ => merged.push((lo, hi)),
        }
    }
    merged.shrink_to_fit();
    *w = merged;
}

/// Most threads a [`Keeper`] remembers its place in.
const KEEPER_THREADS: usize = 16;

/// Where a [`Keeper`] is in one thread's windows.
struct Place<'a> {
    thread: (u32, u32),
    windows: &'a [(i64, i64)],
    /// The first window whose end reaches `from`.
    at: usize,
    /// The start of the thread's last row tested.
    from: i64,
}

/// Tests rows in reading order. Rows of a thread in rising start order
/// (the order exports write, threads interleaved) cost a step forward
/// each; any other order a binary search.
pub struct Keeper<'a> {
    filter: &'a RangeFilter,
    /// The places of the threads met last.
    threads: Vec<Place<'a>>,
    /// The index in `threads` of the last row's thread.
    last: usize,
    /// Classes whose first range was kept, one bit each.
    seen: u8,
}

impl<'a> Keeper<'a> {
    /// True when the closed range `[start, end]` of thread (pid, tid)
    /// overlaps one of that thread's windows.
    pub fn overlaps(&mut self, pid: u32, tid: u32, start: i64, end: i64) -> bool {
        let p = self.place((pid, tid));
        let w = p.windows;
        if start >= p.from {
            while p.at < w.len() && w[p.at].1 < start {
                p.at += 1;
            }
        } else {
            p.at = w.partition_point(|x| x.1 < start);
        }
        p.from = start;
        w.get(p.at).is_some_and(|x| x.0 <= end)
    }

    /// The place of `thread`, found or made (a forgotten thread starts
    /// again with a binary search).
    fn place(&mut self, thread: (u32, u32)) -> &mut Place<'a> {
        if self
            .threads
            .get(self.last)
            .is_none_or(|p| p.thread != thread)
        {
            match self.threads.iter().position(|p| p.thread == thread) {
                Some(i) => self.last = i,
                None => {
                    let windows = self
                        .filter
                        .windows
                        .get(&thread)
                        .map_or(&[][..], Vec::as_slice);
                    let p = Place {
                        thread,
                        windows,
                        at: 0,
                        from: i64::MAX,
                    };
                    if self.threads.len() < KEEPER_THREADS {
                        self.threads.push(p);
                        self.last = self.threads.len() - 1;
                    } else {
                        self.last = (self.last + 1) % KEEPER_THREADS;
                        self.threads[self.last] = p;
                    }
                }
            }
        }
        &mut self.threads[self.last]
    }

    /// True when `text` is the first text of its class this keeper has
    /// seen (it says so once per class).
    pub fn first_of_class(&mut self, text: &[u8]) -> bool {
        if self.seen == u8::MAX {
            return false;
        }
        match (self.filter.classify)(text) {
            Some(c) if c < MAX_CLASSES && self.seen & (1 << c) == 0 => {
                self.seen |= 1 << c;
                true
            }
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `overlaps` equals a test of every window, for rows in start order
    /// and out of it, on two threads read alternately; windows added out of
    /// order, overlapping and as points.
    #[test]
    fn overlaps_equals_a_test_of_every_window() {
        let raw: [(u32, i64, i64); 7] = [
            (1, 100, 200),
            (1, 50, 60),
            (1, 150, 300),
            (1, 400, 400),
            (2, 10, 20),
            (1, 500, 520),
            (2, 30, 30),
        ];
        let mut f = RangeFilter::new(|_| None);
        for (tid, lo, hi) in raw {
            f.add(7, tid, lo, hi);
        }
        f.add(7, 1, 9, 3); // empty
        f.finish();
        // (50, 60), (100, 300), (400, 400), (500, 520) and (10, 20), (30, 30).
        assert_eq!(f.window_count(), 6);
        let brute = |tid: u32, s: i64, e: i64| {
            raw.iter()
                .any(|&(t, lo, hi)| t == tid && lo <= hi && s <= hi && e >= lo)
        };
        let mut rows = Vec::new();
        for s in (0..600).step_by(7) {
            for len in [0, 3, 45, 130] {
                rows.push((1 + (s % 2) as u32, s, s + len));
            }
        }
        let mut k = f.keeper();
        for &(tid, s, e) in &rows {
            assert_eq!(k.overlaps(7, tid, s, e), brute(tid, s, e), "{tid} {s} {e}");
        }
        let mut k = f.keeper();
        for &(tid, s, e) in rows.iter().rev() {
            assert_eq!(k.overlaps(7, tid, s, e), brute(tid, s, e), "{tid} {s} {e}");
        }
        // A thread without windows keeps nothing.
        assert!(!f.keeper().overlaps(8, 1, i64::MIN, i64::MAX));
    }

    /// More threads than a keeper remembers, read in turn: each forgotten
    /// thread starts again where its rows are, and every answer is still
    /// a test of every window.
    #[test]
    fn a_forgotten_thread_is_found_again() {
        let mut f = RangeFilter::new(|_| None);
        let threads = KEEPER_THREADS as u32 + 5;
        for tid in 0..threads {
            for k in 0..20i64 {
                f.add(
                    1,
                    tid,
                    k * 100 + i64::from(tid),
                    k * 100 + i64::from(tid) + 10,
                );
            }
        }
        f.finish();
        let mut k = f.keeper();
        for s in (0..2000i64).step_by(13) {
            for tid in 0..threads {
                let lo = s - i64::from(tid);
                let want = (0..20i64).any(|j| {
                    let w0 = j * 100 + i64::from(tid);
                    lo <= w0 + 10 && lo + 5 >= w0
                });
                assert_eq!(k.overlaps(1, tid, lo, lo + 5), want, "{tid} {lo}");
            }
        }
    }

    /// The first text of each class is kept once; texts without a class
    /// never.
    #[test]
    fn the_first_text_of_each_class_is_kept_once() {
        let mut f = RangeFilter::new(|t| t.first().map(|b| b % 3));
        f.finish();
        let mut k = f.keeper();
        let kept: Vec<bool> = ["a", "d", "b", "", "c", "e", "f"]
            .iter()
            .map(|t| k.first_of_class(t.as_bytes()))
            .collect();
        // 'a' = 97 -> 1, 'd' 100 -> 1, 'b' 98 -> 2, '' none, 'c' 99 -> 0.
        assert_eq!(kept, [true, false, true, false, true, false, false]);
    }
}
