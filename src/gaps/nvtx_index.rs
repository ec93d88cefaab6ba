//! The NVTX ranges by thread and start ([`NvtxIndex`]): the look-ups the
//! host verdict and the longest gaps' descriptions make, the ranges of a
//! thread over a window and the innermost range open at an instant, each
//! bounded so a hostile export's work stays linear, and each finding what
//! it finds among the ranges that overlap its query only (what lets a
//! reader drop the others: `gaps::range_filter`).

use super::class::overlap;
use crate::timeline::{NvtxRange, Timeline};

/// The ranges as [`IndexedRange`]s sorted by (pid, tid, start, end,
/// index). The timeline holds its ranges sorted by (pid, start, end)
/// (`nsys::read`): then a stable counting split by thread, written straight
/// into place, gives that order in linear time and one vector (the general
/// sort took 5 % of `gaps` on 24 M ranges); otherwise the sort.
fn by_thread(ranges: &[NvtxRange]) -> Vec<u32> {
    if !ranges.is_sorted_by_key(|x| (x.pid, x.start_ns, x.end_ns)) {
        let mut v: Vec<u32> = (0..ranges.len() as u32).collect();
        v.sort_unstable_by_key(|&i| IndexedRange::of(ranges, i));
        return v;
    }
    // The distinct threads, sorted, and how many ranges each has.
    let mut threads: Vec<((u32, u32), usize)> = Vec::new();
    // The last thread seen and its place in `threads` (ranges of one
    // thread come in runs).
    let mut last = (u32::MAX, u32::MAX, usize::MAX);
    fn place(
        x: &NvtxRange,
        threads: &mut Vec<((u32, u32), usize)>,
        last: &mut (u32, u32, usize),
    ) -> usize {
        if (last.0, last.1) != (x.pid, x.tid) || last.2 == usize::MAX {
            let b = match threads.binary_search_by_key(&(x.pid, x.tid), |t| t.0) {
                Ok(b) => b,
                Err(b) => {
                    threads.insert(b, ((x.pid, x.tid), 0));
                    b
                }
            };
            *last = (x.pid, x.tid, b);
        }
        last.2
    }
    for x in ranges {
        let b = place(x, &mut threads, &mut last);
        threads[b].1 += 1;
    }
    // Each thread's next free slot.
    let mut sum = 0;
    for t in threads.iter_mut() {
        let n = t.1;
        t.1 = sum;
        sum += n;
    }
    let mut out = vec![0u32; ranges.len()];
    last.2 = usize::MAX;
    for (i, x) in ranges.iter().enumerate() {
        let b = place(x, &mut threads, &mut last);
        out[threads[b].1] = i as u32;
        threads[b].1 += 1;
    }
    out
}

/// `order` less every range that repeats an earlier one (same thread,
/// interval and text; the first by index is kept). A repeat changes no
/// look-up's answer (a text's time is the union of its ranges), but an
/// export whose every row appears 64 times would fill the bounded
/// look-ups ([`MAX_RANGES_IN_WINDOW`], [`MAX_RANGES_BACK`]) with copies and
/// lose the ranges a window has 64 times fewer of. Repeats share a run of
/// one interval in `order`; a run sorts by text, so the work stays
/// `n log n` however many repeat.
fn distinct(ranges: &[NvtxRange], order: Vec<u32>) -> Vec<u32> {
    let interval = |i: u32| {
        let r = &ranges[i as usize];
        (r.pid, r.tid, r.start_ns, r.end_ns)
    };
    let text = |i: u32| &*ranges[i as usize].text;
    if order.windows(2).all(|w| interval(w[0]) != interval(w[1])) {
        return order;
    }
    let mut out = Vec::with_capacity(order.len());
    for run in order.chunk_by(|&a, &b| interval(a) == interval(b)) {
        if run.len() == 1 {
            out.extend_from_slice(run);
            continue;
        }
        let mut by_text = run.to_vec();
        by_text.sort_unstable_by(|&a, &b| text(a).cmp(text(b)).then(a.cmp(&b)));
        by_text.dedup_by(|a, b| text(*a) == text(*b));
        by_text.sort_unstable();
        out.extend(by_text);
    }
    out
}

/// One NVTX range as the index sees it: its thread, interval and place in
/// [`Timeline::nvtx`]; ordered by (pid, tid, start, end, index).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct IndexedRange {
    pid: u32,
    tid: u32,
    start_ns: i64,
    end_ns: i64,
    index: usize,
}

impl IndexedRange {
    /// `ranges[index]`.
    #[inline]
    fn of(ranges: &[NvtxRange], index: u32) -> IndexedRange {
        let r = &ranges[index as usize];
        IndexedRange {
            pid: r.pid,
            tid: r.tid,
            start_ns: r.start_ns,
            end_ns: r.end_ns,
            index: index as usize,
        }
    }
}

/// NVTX ranges by (pid, tid, start): the index the detail looks up.
pub(crate) struct NvtxIndex<'a> {
    /// The timeline's ranges.
    nvtx: &'a [NvtxRange],
    /// Places in `nvtx`, ordered by (pid, tid, start, end, index): 4 bytes
    /// a range rather than a copy of its thread and interval (32 bytes;
    /// 4.4 MB at the peak of `gaps` on a 99.8 MB trace of 138 k ranges).
    /// Ranges are counted in `u32`; repeats are left out ([`distinct`]).
    order: Vec<u32>,
    /// The latest end in each block of [`BLOCK`] places of `order`
    /// (`ends[0]`), of each [`BLOCK`] blocks (`ends[1]`), and so on: the
    /// ranges still open at a time `t` that started before it are found
    /// latest-starting first by skipping every block that ended by `t`.
    /// An outer `## forward ##` with thousands of ops inside is found in a
    /// few steps a level, not after a scan of every op since it opened;
    /// which ranges are found depends on those open at `t` only (not on
    /// closed ranges in between, which a reader may have dropped:
    /// `gaps::range_filter`).
    ends: Vec<Vec<i64>>,
}

/// Places of `order` (or blocks of the level below) a block of
/// [`NvtxIndex::ends`] covers.
const BLOCK: usize = 16;

/// Ranges open at a window's start looked at (nesting deeper than this is
/// not real; the bound keeps a hostile export's work linear).
const MAX_RANGES_BACK: usize = 256;

/// Ranges starting inside one window looked at.
const MAX_RANGES_IN_WINDOW: usize = 4096;

impl<'a> NvtxIndex<'a> {
    /// Indexes the timeline's closed NVTX ranges.
    pub(crate) fn new(tl: &'a Timeline) -> NvtxIndex<'a> {
        NvtxIndex::of(&tl.nvtx)
    }

    /// Indexes `ranges` (closed NVTX ranges, in any order).
    fn of(ranges: &'a [NvtxRange]) -> NvtxIndex<'a> {
        let order = distinct(ranges, by_thread(ranges));
        let mut ends: Vec<Vec<i64>> = Vec::new();
        let mut below: Vec<i64> = order
            .chunks(BLOCK)
            .map(|c| {
                c.iter()
                    .map(|&i| ranges[i as usize].end_ns)
                    .max()
                    .unwrap_or(i64::MIN)
            })
            .collect();
        while below.len() > 1 {
            let up: Vec<i64> = below
                .chunks(BLOCK)
                .map(|c| c.iter().copied().max().unwrap_or(i64::MIN))
                .collect();
            ends.push(below);
            below = up;
        }
        ends.push(below);
        NvtxIndex {
            nvtx: ranges,
            order,
            ends,
        }
    }

    /// The `k`th range in the index's order.
    #[inline]
    fn at(&self, k: usize) -> IndexedRange {
        IndexedRange::of(self.nvtx, self.order[k])
    }

    /// Index of the last range of thread (pid, tid) whose start passes
    /// `before` (`start <= t` or `start < t`).
    fn last_of(&self, pid: u32, tid: u32, before: impl Fn(i64) -> bool) -> Option<usize> {
        let j = self.order.partition_point(|&i| {
            let x = &self.nvtx[i as usize];
            (x.pid, x.tid) < (pid, tid) || ((x.pid, x.tid) == (pid, tid) && before(x.start_ns))
        });
        j.checked_sub(1).filter(|&k| {
            let x = self.at(k);
            (x.pid, x.tid) == (pid, tid)
        })
    }

    /// The first place of thread (pid, tid) in the index's order.
    fn first_of(&self, pid: u32, tid: u32) -> usize {
        self.order.partition_point(|&i| {
            let x = &self.nvtx[i as usize];
            (x.pid, x.tid) < (pid, tid)
        })
    }

    /// The last place `j` in `[lo, k)` whose range ends after `t`: the
    /// largest aligned block before `j` that ended by `t` is skipped whole
    /// (a block ending after `t` holds a range ending after it, and so
    /// does every larger block around it), else one place.
    fn prev_open(&self, lo: usize, k: usize, t: i64) -> Option<usize> {
        let mut j = k;
        while j > lo {
            let (mut skip, mut size) = (0, BLOCK);
            for level in &self.ends {
                if j % size != 0 || j < lo + size || level[j / size - 1] > t {
                    break;
                }
                skip = size;
                size = size.saturating_mul(BLOCK);
            }
            if skip > 0 {
                j -= skip;
                continue;
            }
            j -= 1;
            if self.at(j).end_ns > t {
                return Some(j);
            }
        }
        None
    }

    /// The ranges of thread (pid, tid) in places `[lo, k)` open after `t`,
    /// latest-starting first, at most [`MAX_RANGES_BACK`].
    fn open_before(&self, lo: usize, k: usize, t: i64) -> impl Iterator<Item = IndexedRange> + '_ {
        let mut j = k;
        std::iter::from_fn(move || {
            let found = self.prev_open(lo, j, t)?;
            j = found;
            Some(self.at(found))
        })
        .take(MAX_RANGES_BACK)
    }

    /// The innermost range of thread (pid, tid) that contains `t` (the
    /// latest-starting one open at `t`).
    pub(crate) fn innermost(&self, pid: u32, tid: u32, t: i64) -> Option<usize> {
        let k = self.last_of(pid, tid, |s| s <= t)?;
        self.open_before(self.first_of(pid, tid), k + 1, t)
            .next()
            .map(|x| x.index)
    }

    /// The ranges of thread (pid, tid) overlapping `[w0, w1)`, each with
    /// its overlap, ns (latest-starting first): those starting inside the
    /// window, then those open at its start.
    pub(crate) fn overlapping(
        &self,
        pid: u32,
        tid: u32,
        w0: i64,
        w1: i64,
    ) -> impl Iterator<Item = (usize, i64)> + '_ {
        let before_w0 = self.last_of(pid, tid, |s| s < w0);
        let inside_end = self.last_of(pid, tid, |s| s < w1).map_or(0, |k| k + 1);
        let first = self.first_of(pid, tid);
        let inside_start = before_w0.map_or(first, |k| k + 1);
        (inside_start.min(inside_end)..inside_end)
            .rev()
            .map(|k| self.at(k))
            .take(MAX_RANGES_IN_WINDOW)
            .chain(self.open_before(first, inside_start, w0))
            .map(move |x| (x.index, overlap(x.start_ns, x.end_ns, w0, w1)))
            .filter(|x| x.1 > 0)
    }
}

#[cfg(test)]
mod tests {
    use super::{by_thread, IndexedRange, NvtxIndex, MAX_RANGES_IN_WINDOW};
    use crate::timeline::NvtxRange;

    /// The linear split by thread gives the general sort's order on input
    /// sorted by (pid, start, end) (what the reader hands over): three
    /// processes, interleaved threads, ranges of one start with several
    /// ends and equal ranges on two threads; and on unsorted input it sorts.
    #[test]
    fn split_by_thread_equals_the_sort() {
        let mut v: Vec<NvtxRange> = Vec::new();
        for k in 0..300i64 {
            let (pid, tid) = [(9, 4), (2, 8), (9, 1), (2, 3), (5, 5)][(k * 7 % 5) as usize];
            let start_ns = k / 3 * 10;
            v.push(NvtxRange {
                start_ns,
                end_ns: start_ns + (k % 4) * 5,
                pid,
                tid,
                text: "r".into(),
            });
        }
        v.sort_by_key(|x| (x.pid, x.start_ns, x.end_ns));
        let want = |v: &[NvtxRange]| {
            let mut w: Vec<IndexedRange> = v
                .iter()
                .enumerate()
                .map(|(index, r)| IndexedRange {
                    pid: r.pid,
                    tid: r.tid,
                    start_ns: r.start_ns,
                    end_ns: r.end_ns,
                    index,
                })
                .collect();
            w.sort_unstable();
            w
        };
        let got = |v: &[NvtxRange]| -> Vec<IndexedRange> {
            by_thread(v)
                .iter()
                .map(|&i| IndexedRange::of(v, i))
                .collect()
        };
        assert_eq!(got(&v), want(&v));
        v.reverse();
        assert_eq!(got(&v), want(&v));
    }

    #[test]
    fn nvtx_lookups_equal_a_full_scan() {
        let r = |tid: u32, start_ns: i64, end_ns: i64| NvtxRange {
            start_ns,
            end_ns,
            pid: 7,
            tid,
            text: "r".into(),
        };
        let mut ranges = vec![r(1, 0, 1_000), r(1, 400, 400), r(2, 5, 995)];
        for k in 0..40 {
            ranges.push(r(1, 10 + 20 * k, 25 + 20 * k)); // disjoint steps in the outer one
            ranges.push(r(2, 12 + 20 * k, 30 + 20 * k)); // overlapping each other
        }
        ranges.push(r(1, 1_100, 1_200)); // after the outer one closed
                                         // An outer range with 600 ops inside it before the times asked
                                         // (a `## forward ##` annotation over a model's ops): still found.
        ranges.push(r(3, 0, 1_300));
        for k in 0..600 {
            ranges.push(r(3, 1 + k, 2 + k));
        }
        // Start/end ranges that cross each other, each closing while the
        // next is open, inside an outer one: 1,000 closed ranges lie
        // between a time late in the outer one and its start (a stack of
        // open ranges would keep them all under the last one).
        ranges.push(r(5, 0, 20_000));
        for k in 0..1_000 {
            ranges.push(r(5, 10 + 10 * k, 25 + 10 * k));
        }
        let idx = NvtxIndex::of(&ranges);
        let mut sorted: Vec<(u32, i64, i64, usize)> = ranges
            .iter()
            .enumerate()
            .map(|(i, x)| (x.tid, x.start_ns, x.end_ns, i))
            .collect();
        sorted.sort_unstable();
        for tid in [1, 2, 3, 4, 5] {
            let mine = || sorted.iter().filter(move |x| x.0 == tid);
            let times = (-5..1_250).step_by(3).chain((9_000..10_200).step_by(7));
            for t in times {
                let want = mine().rfind(|x| x.1 <= t && x.2 > t).map(|x| x.3);
                assert_eq!(idx.innermost(7, tid, t), want, "innermost tid {tid} t {t}");
                for w in [1, 7, 40, 300] {
                    let (w0, w1) = (t, t + w);
                    let want: Vec<(usize, i64)> = mine()
                        .filter(|x| x.1 < w1)
                        .map(|x| (x.3, x.2.min(w1) - x.1.max(w0)))
                        .filter(|x| x.1 > 0)
                        .rev()
                        .collect();
                    let got: Vec<(usize, i64)> = idx.overlapping(7, tid, w0, w1).collect();
                    assert_eq!(got, want, "overlapping tid {tid} [{w0}, {w1})");
                }
            }
        }
    }

    /// Every range repeated 8 times (the copies appended after the
    /// originals, as `INSERT … SELECT` does): 1,001 distinct ranges start
    /// inside the window, 8,008 with the copies, more than the
    /// [`MAX_RANGES_IN_WINDOW`] a look-up reads. Each is still found, once
    /// (the original, the first by index), the outer one included; and the
    /// innermost range at an instant is the original of the innermost.
    #[test]
    fn repeated_ranges_are_looked_up_once() {
        let r = |start_ns: i64, end_ns: i64, text: &str| NvtxRange {
            start_ns,
            end_ns,
            pid: 7,
            tid: 1,
            text: text.into(),
        };
        let mut once = vec![r(0, 1_000_000, "outer")];
        for k in 0..1_000 {
            once.push(r(10 + 900 * k, 20 + 900 * k, "inner"));
        }
        let n = once.len();
        let ranges: Vec<NvtxRange> = (0..8).flat_map(|_| once.iter().cloned()).collect();
        assert!(8 * n > MAX_RANGES_IN_WINDOW && n < MAX_RANGES_IN_WINDOW);
        let idx = NvtxIndex::of(&ranges);
        let mut found: Vec<(usize, i64)> = idx.overlapping(7, 1, 0, 1_000_000).collect();
        found.sort_unstable();
        // Each original once, each with its whole length (all lie inside).
        let want: Vec<(usize, i64)> = (0..n)
            .map(|i| (i, once[i].end_ns - once[i].start_ns))
            .collect();
        assert_eq!(found, want);
        // At 15 the innermost is inner 0 (index 1), at 25 the outer one.
        assert_eq!(idx.innermost(7, 1, 15), Some(1));
        assert_eq!(idx.innermost(7, 1, 25), Some(0));
    }
}
