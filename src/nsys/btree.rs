//! A reader of SQLite table b-tree pages, for the rows of the big tables
//! (kernels, runtime calls, NVTX ranges): the file format's pages decoded
//! directly, about a tenth of the instructions a row of SQLite's virtual
//! machine (`sqlite3_step` and the column calls, ~1,900 a row on a real
//! export; docs/bench-gaps.md).
//!
//! It reads only files and rows it fully understands and **refuses**
//! anything else, and a refusal is never an error: the caller reads the
//! same rows through SQLite instead (`rows`). Refused: a header other than
//! a rollback-journal UTF-8 database with the standard payload fractions; a
//! page number beyond the database; a page that is not a table b-tree page
//! (a `WITHOUT ROWID` table, a free page); a cell pointer, varint or record
//! outside its page; a record that spills to overflow pages; keys out of
//! order or outside the bounds their parents give; a tree deeper than
//! SQLite's own limit (20); a value of a type the caller did not ask for
//! (a real, a blob, text in an integer column). What is accepted is what
//! SQLite would return, row for row and byte for byte (the `nsys_pages`
//! fuzz target and `tests/it/nsys_pages.rs` compare the two).
//!
//! The format: <https://www.sqlite.org/fileformat2.html> (1.3, 1.6, 2.1).

use super::record::{be32, serial_len, value, varint, Val};
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::Path;

/// SQLite's own bound on a b-tree's depth (`BTCURSOR_MAX_DEPTH`).
const MAX_DEPTH: usize = 20;

/// Most record fields a cursor decodes (the highest column it reads + 1).
pub(super) const MAX_FIELDS: usize = 32;

/// Most pages read at once when leaves follow each other in the file.
const MAX_RUN_PAGES: usize = 64;

/// Page type bytes of table b-tree pages.
const INTERIOR: u8 = 0x05;
const LEAF: u8 = 0x0D;

/// The database file, its geometry checked once.
pub(super) struct PageFile {
    file: File,
    page_bytes: usize,
    /// Page size less the reserved bytes at each page's end.
    usable: usize,
    /// Valid page numbers are `1..=pages`.
    pages: u32,
}

impl PageFile {
    /// Opens `path` for page reads; `None` when its header is one this
    /// reader does not take (then SQLite reads every table).
    pub(super) fn open(path: &Path) -> Option<PageFile> {
        let file = File::open(path).ok()?;
        let mut h = [0u8; 100];
        file.read_exact_at(&mut h, 0).ok()?;
        let file_bytes = file.metadata().ok()?.len();
        let geometry = Geometry::of(&h, file_bytes)?;
        Some(PageFile {
            file,
            page_bytes: geometry.page_bytes,
            usable: geometry.usable,
            pages: geometry.pages,
        })
    }

    /// Reads pages `first..first + n` into `buf`; `false` when the file
    /// is shorter than that (it shrank) or the read failed.
    fn read(&self, first: u32, n: usize, buf: &mut Vec<u8>) -> bool {
        let len = n * self.page_bytes;
        buf.resize(len, 0);
        let at = u64::from(first - 1) * self.page_bytes as u64;
        self.file.read_exact_at(buf, at).is_ok()
    }
}

/// What the 100-byte header says about the pages.
#[derive(Debug, PartialEq)]
struct Geometry {
    page_bytes: usize,
    usable: usize,
    pages: u32,
}

impl Geometry {
    /// The geometry when the header is one this reader takes.
    fn of(h: &[u8; 100], file_bytes: u64) -> Option<Geometry> {
        if &h[..16] != b"SQLite format 3\0" {
            return None;
        }
        let page_bytes = match u16::from_be_bytes([h[16], h[17]]) {
            1 => 65536,
            p if p >= 512 && p.is_power_of_two() => usize::from(p),
            _ => return None,
        };
        // Write/read versions 1: a rollback journal (2 is WAL, whose pages
        // may live in the -wal file); the payload fractions every SQLite
        // writes (it refuses other values itself); UTF-8 text.
        if h[18] != 1 || h[19] != 1 || h[21..24] != [64, 32, 32] || be32(&h[56..60]) != 1 {
            return None;
        }
        let usable = page_bytes - usize::from(h[20]);
        if usable < 480 {
            return None;
        }
        // SQLite takes the header's page count when the change counter
        // vouches for it (and calls a file shorter than that corrupt),
        // else the file's length.
        let in_file = u32::try_from(file_bytes / page_bytes as u64).ok()?;
        let in_header = be32(&h[28..32]);
        let pages = if in_header != 0 && h[24..28] == h[92..96] {
            if in_header > in_file {
                return None;
            }
            in_header
        } else {
            in_file
        };
        Some(Geometry {
            page_bytes,
            usable,
            pages,
        })
    }
}

/// What an output column holds: a record field read as an integer or as
/// text, the rowid, or a constant (`None` is NULL).
#[derive(Clone, Copy, Debug)]
pub(super) enum Field {
    Int(u16),
    Text(u16),
    RowId,
    Const(Option<i64>),
}

/// One interior page on the way down, and where the walk is in it.
struct Level {
    page: Vec<u8>,
    /// Offset of the b-tree page header (100 on page 1).
    hdr: usize,
    cells: usize,
    right: u32,
    /// The next child to visit: `cells` is the right-most pointer.
    next: usize,
    /// Keys of the subtree lie in `(lo, hi]` (`None`: unbounded).
    lo: Option<i64>,
    hi: Option<i64>,
}

/// A cursor over one table's rows in rowid order within `[lo, hi]`, each
/// row's fields decoded into the output columns.
pub(super) struct Cursor<'f> {
    file: &'f PageFile,
    fields: Vec<Field>,
    /// The highest record field any output column reads.
    last_field: usize,
    /// A row whose output column here is NULL is skipped (`WHERE c IS NOT NULL`).
    not_null: Option<usize>,
    lo: i64,
    hi: i64,
    stack: Vec<Level>,
    /// Pages read so far, against the file's page count.
    loads: u64,
    leaf: Leaf,
    run: Run,
    last_key: Option<i64>,
    rowid: i64,
    vals: Vec<Val>,
    /// The current record's serial types and body offsets, field by field
    /// (the first `last_field + 1`, or as many as the record has).
    types: [(u64, usize); MAX_FIELDS],
    root: u32,
    started: bool,
    done: bool,
    refused: bool,
}

/// The current leaf: its place in `run.buf`, its cells, the next cell.
#[derive(Default)]
struct Leaf {
    at: usize,
    hdr: usize,
    cells: usize,
    next: usize,
    lo: Option<i64>,
    hi: Option<i64>,
}

/// Leaf pages read ahead: when a leaf follows the previous one in the
/// file, the next read takes twice as many pages (up to
/// [`MAX_RUN_PAGES`]), so a table written in order costs few reads.
#[derive(Default)]
struct Run {
    buf: Vec<u8>,
    first: u32,
    n: usize,
    last: u32,
    ahead: usize,
}

impl<'f> Cursor<'f> {
    /// A cursor over the table whose root page is `root`, for rowids in
    /// `[lo, hi]`.
    pub(super) fn new(
        file: &'f PageFile,
        root: u32,
        fields: Vec<Field>,
        not_null: Option<usize>,
        (lo, hi): (i64, i64),
    ) -> Cursor<'f> {
        let last_field = fields
            .iter()
            .filter_map(|f| match f {
                Field::Int(i) | Field::Text(i) => Some(usize::from(*i)),
                _ => None,
            })
            .max()
            .unwrap_or(0);
        let vals = vec![Val::Null; fields.len()];
        Cursor {
            file,
            fields,
            last_field,
            not_null,
            lo,
            hi,
            stack: Vec::new(),
            loads: 0,
            leaf: Leaf::default(),
            run: Run::default(),
            last_key: None,
            rowid: 0,
            vals,
            types: [(0, 0); MAX_FIELDS],
            root,
            started: false,
            done: false,
            refused: false,
        }
    }

    /// True when the cursor met something it does not read: the rows it
    /// gave are to be thrown away and read through SQLite.
    pub(super) fn refused(&self) -> bool {
        self.refused
    }

    /// Advances to the next row; `false` at the end or on a refusal.
    pub(super) fn step(&mut self) -> bool {
        if self.done {
            return false;
        }
        if !self.started {
            self.started = true;
            if self.descend(self.root, None, None).is_none() {
                return self.refuse();
            }
        }
        loop {
            match self.next_cell() {
                Some(true) => return true,
                Some(false) if self.done => return false,
                Some(false) => {}
                None => return self.refuse(),
            }
        }
    }

    fn refuse(&mut self) -> bool {
        self.refused = true;
        self.done = true;
        false
    }

    /// Output column `i` as an integer, `None` when NULL (or not an
    /// integer: only text fields hold such values).
    pub(super) fn int(&self, i: usize) -> Option<i64> {
        match self.vals.get(i) {
            Some(Val::Int(v)) => Some(*v),
            _ => None,
        }
    }

    /// Output column `i`'s bytes when it holds text.
    pub(super) fn text(&self, i: usize) -> Option<&[u8]> {
        match self.vals.get(i) {
            Some(Val::Text { at, len }) => {
                let at = *at as usize;
                self.run.buf.get(at..at + *len as usize)
            }
            _ => None,
        }
    }

    /// Walks down from page `pgno` (keys in `(lo, hi]`) to the leaf
    /// holding the first key at or after the cursor's `lo`, pushing the
    /// interior pages passed.
    fn descend(&mut self, mut pgno: u32, mut lo: Option<i64>, mut hi: Option<i64>) -> Option<()> {
        loop {
            if self.stack.len() >= MAX_DEPTH {
                return None;
            }
            let at = self.fetch(pgno)?;
            let hdr = if pgno == 1 { 100 } else { 0 };
            match self.run.buf[at + hdr] {
                INTERIOR => {
                    let page = self.run.buf[at..at + self.file.page_bytes].to_vec();
                    let mut level = self.interior(page, hdr, lo, hi)?;
                    // The first child whose keys reach `self.lo`: keys of
                    // child i are at most key i.
                    let mut i = 0;
                    while i < level.cells && key_at(&level, i)? < self.lo {
                        i += 1;
                    }
                    let (child, clo, chi) = child_of(&level, i)?;
                    level.next = i + 1;
                    self.stack.push(level);
                    (pgno, lo, hi) = (child, clo, chi);
                }
                LEAF => {
                    self.leaf_at(pgno, at, hdr, lo, hi)?;
                    // Skip the cells before `self.lo` without decoding them.
                    while self.leaf.next < self.leaf.cells {
                        let (_, key, _) = self.cell(self.leaf.next)?;
                        if key >= self.lo {
                            break;
                        }
                        self.check_key(key)?;
                        self.leaf.next += 1;
                    }
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    /// Page `pgno`'s offset in the run buffer, read if it is not there:
    /// with the pages after it when it follows the last leaf read.
    fn fetch(&mut self, pgno: u32) -> Option<usize> {
        let f = self.file;
        if pgno == 0 || pgno > f.pages {
            return None;
        }
        self.count_load()?;
        let r = &mut self.run;
        let inside = r.n > 0 && pgno >= r.first && ((pgno - r.first) as usize) < r.n;
        if !inside {
            let n = if r.last != 0 && pgno == r.last + 1 {
                r.ahead = (r.ahead * 2).clamp(1, MAX_RUN_PAGES);
                r.ahead.min((f.pages - pgno) as usize + 1)
            } else {
                1
            };
            if !f.read(pgno, n, &mut r.buf) {
                r.n = 0;
                return None;
            }
            r.first = pgno;
            r.n = n;
        }
        Some((pgno - r.first) as usize * f.page_bytes)
    }

    /// Counts one page visit: more than the file's pages means a cycle.
    fn count_load(&mut self) -> Option<()> {
        self.loads += 1;
        (self.loads <= u64::from(self.file.pages) + MAX_DEPTH as u64).then_some(())
    }

    /// An interior page checked: its cell pointers inside the page, its
    /// keys rising and within `(lo, hi]`.
    fn interior(
        &self,
        page: Vec<u8>,
        hdr: usize,
        lo: Option<i64>,
        hi: Option<i64>,
    ) -> Option<Level> {
        let usable = self.file.usable;
        let cells = usize::from(u16::from_be_bytes([
            *page.get(hdr + 3)?,
            *page.get(hdr + 4)?,
        ]));
        let right = be32(page.get(hdr + 8..hdr + 12)?);
        let first_cell = hdr + 12 + 2 * cells;
        if cells == 0 || first_cell > usable {
            return None;
        }
        let level = Level {
            page,
            hdr,
            cells,
            right,
            next: 0,
            lo,
            hi,
        };
        let mut prev = lo;
        for i in 0..cells {
            let pc = cell_ptr(&level.page, hdr + 12, i)?;
            if pc < first_cell || pc + 4 >= usable {
                return None;
            }
            let (k, _) = varint(&level.page[..usable], pc + 4)?;
            let k = k as i64;
            if prev.is_some_and(|p| k <= p) || hi.is_some_and(|h| k > h) {
                return None;
            }
            prev = Some(k);
        }
        Some(level)
    }

    /// Makes the leaf at `at` in the run buffer current, its cells checked.
    fn leaf_at(
        &mut self,
        pgno: u32,
        at: usize,
        hdr: usize,
        lo: Option<i64>,
        hi: Option<i64>,
    ) -> Option<()> {
        let r = &mut self.run;
        if pgno != r.last.wrapping_add(1) {
            r.ahead = 1;
        }
        r.last = pgno;
        let usable = self.file.usable;
        let page = &r.buf[at..at + usable];
        let cells = usize::from(u16::from_be_bytes([page[hdr + 3], page[hdr + 4]]));
        // The cell pointers inside the page; an empty leaf is only a root.
        if hdr + 8 + 2 * cells > usable || (cells == 0 && !self.stack.is_empty()) {
            return None;
        }
        self.leaf = Leaf {
            at,
            hdr,
            cells,
            next: 0,
            lo,
            hi,
        };
        // Every cell now, not only up to the chunk's end: SQLite seeks in
        // a leaf by binary search, which an unordered leaf misleads.
        let mut prev = lo;
        for i in 0..cells {
            let (_, key, _) = self.cell(i)?;
            if prev.is_some_and(|p| key <= p) || hi.is_some_and(|h| key > h) {
                return None;
            }
            prev = Some(key);
        }
        Some(())
    }

    /// Cell `i` of the current leaf: (payload size, rowid, payload offset
    /// in the run buffer), the payload checked to lie in the page.
    fn cell(&self, i: usize) -> Option<(usize, i64, usize)> {
        let usable = self.file.usable;
        let l = &self.leaf;
        let page = self.run.buf.get(l.at..l.at + usable)?;
        let pc = cell_ptr(page, l.hdr + 8, i)?;
        if pc < l.hdr + 8 + 2 * l.cells || pc >= usable {
            return None;
        }
        let (payload, a) = varint(page, pc)?;
        let (key, b) = varint(page, pc + a)?;
        let body = pc + a + b;
        // Larger payloads spill to overflow pages: not read here.
        let local_max = (usable - 35) as u64;
        if payload > local_max || body as u64 + payload > usable as u64 {
            return None;
        }
        Some((payload as usize, key as i64, l.at + body))
    }

    /// Keys rise strictly and stay inside the bounds of the path down.
    fn check_key(&mut self, key: i64) -> Option<()> {
        let l = &self.leaf;
        let ok = self.last_key.is_none_or(|k| key > k)
            && l.lo.is_none_or(|lo| key > lo)
            && l.hi.is_none_or(|hi| key <= hi);
        self.last_key = Some(key);
        ok.then_some(())
    }

    /// The next cell: `Some(true)` a row to return, `Some(false)` a row
    /// skipped or a page change, `None` a refusal.
    fn next_cell(&mut self) -> Option<bool> {
        if self.leaf.next >= self.leaf.cells {
            return self.next_leaf().map(|more| {
                if !more {
                    self.done = true;
                }
                false
            });
        }
        let (payload, key, body) = self.cell(self.leaf.next)?;
        self.leaf.next += 1;
        self.check_key(key)?;
        if key > self.hi {
            self.done = true;
            return Some(false);
        }
        self.rowid = key;
        self.decode(payload, body)?;
        Some(self.not_null.is_none_or(|c| self.vals[c] != Val::Null))
    }

    /// Moves to the next leaf in key order: up to the nearest interior page
    /// with a child left, then down its left edge. `false` at the end.
    fn next_leaf(&mut self) -> Option<bool> {
        loop {
            let Some(top) = self.stack.last_mut() else {
                return Some(false);
            };
            if top.next > top.cells {
                self.stack.pop();
                continue;
            }
            let i = top.next;
            top.next += 1;
            let (child, lo, hi) = child_of(top, i)?;
            // Down the left edge: every key of the child is past the
            // cursor's `lo`, so the descent takes the first child each time.
            self.descend(child, lo, hi)?;
            if self.leaf.next < self.leaf.cells {
                return Some(true);
            }
        }
    }

    /// Decodes the record at `body` (`payload` bytes) into the output
    /// columns.
    fn decode(&mut self, payload: usize, body: usize) -> Option<()> {
        let rec = self.run.buf.get(body..body + payload)?;
        let (hsz, n) = varint(rec, 0)?;
        let hsz = usize::try_from(hsz)
            .ok()
            .filter(|&h| h >= n && h <= payload)?;
        // Serial types of fields 0..=last_field, each with its body offset.
        let mut at = n;
        let mut off = hsz;
        let want = self.last_field + 1;
        if want > MAX_FIELDS {
            return None;
        }
        // Kept from row to row (zeroing an array for each row cost more
        // than the decoding); the first `k` entries are this record's.
        let mut k = 0;
        while k < want && at < hsz {
            // Most serial types take one byte.
            let (t, len) = match rec[..hsz].get(at) {
                Some(&b) if b < 0x80 => (u64::from(b), 1),
                _ => varint(&rec[..hsz], at)?,
            };
            at += len;
            self.types[k] = (t, off);
            k += 1;
            off = off.checked_add(serial_len(t)?)?;
        }
        // SQLite checks the body's end once it has read the whole header:
        // then the fields must fill the payload exactly; before, they
        // must fit in it.
        if off > payload || (at >= hsz && (at > hsz || off != payload)) {
            return None;
        }
        let base = body as u32;
        for (o, f) in self.fields.iter().enumerate() {
            self.vals[o] = match *f {
                Field::RowId => Val::Int(self.rowid),
                Field::Const(c) => c.map_or(Val::Null, Val::Int),
                Field::Int(i) | Field::Text(i) => {
                    let text = matches!(f, Field::Text(_));
                    let i = usize::from(i);
                    if i >= k {
                        // A record shorter than the table (a column added
                        // later): the column's default, NULL here.
                        Val::Null
                    } else {
                        let (t, o) = self.types[i];
                        value(rec, t, o, text, base)?
                    }
                }
            };
        }
        Some(())
    }
}

/// The 2-byte cell pointer `i` of the array at `array`.
fn cell_ptr(page: &[u8], array: usize, i: usize) -> Option<usize> {
    let p = page.get(array + 2 * i..array + 2 * i + 2)?;
    Some(usize::from(u16::from_be_bytes([p[0], p[1]])))
}

/// Key `i` of an interior page (checked when the page was read).
fn key_at(l: &Level, i: usize) -> Option<i64> {
    let pc = cell_ptr(&l.page, l.hdr + 12, i)?;
    varint(&l.page, pc + 4).map(|(k, _)| k as i64)
}

/// Child `i` of an interior page (`cells` is the right-most) and the
/// bounds of its keys.
fn child_of(l: &Level, i: usize) -> Option<(u32, Option<i64>, Option<i64>)> {
    let lo = if i == 0 {
        l.lo
    } else {
        Some(key_at(l, i - 1)?)
    };
    if i == l.cells {
        return Some((l.right, lo, l.hi));
    }
    let pc = cell_ptr(&l.page, l.hdr + 12, i)?;
    let child = be32(l.page.get(pc..pc + 4)?);
    Some((child, lo, Some(key_at(l, i)?)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_outside_the_fast_path_are_refused() {
        let mut h = [0u8; 100];
        h[..16].copy_from_slice(b"SQLite format 3\0");
        h[16..18].copy_from_slice(&4096u16.to_be_bytes());
        h[18] = 1;
        h[19] = 1;
        h[21..24].copy_from_slice(&[64, 32, 32]);
        h[28..32].copy_from_slice(&3u32.to_be_bytes());
        h[56..60].copy_from_slice(&1u32.to_be_bytes());
        let ok = Geometry::of(&h, 3 * 4096);
        assert_eq!(
            ok,
            Some(Geometry {
                page_bytes: 4096,
                usable: 4096,
                pages: 3
            })
        );
        // The header's count is valid (counters equal): a shorter file is refused.
        assert_eq!(Geometry::of(&h, 2 * 4096), None);
        for (at, v) in [(18, 2), (19, 2), (21, 63), (59, 2), (17, 1)] {
            let mut bad = h;
            bad[at] = v;
            assert_eq!(Geometry::of(&bad, 3 * 4096), None, "byte {at} = {v}");
        }
        // An invalid header count (counters differ): the file's length.
        let mut stale = h;
        stale[24] = 9;
        assert_eq!(Geometry::of(&stale, 5 * 4096).map(|g| g.pages), Some(5));
    }
}
