//! The CSV records of an ncu file, one at a time, as byte fields.
//!
//! ncu quotes every field (`"a","b",...,"z"`), so a line that is exactly
//! quoted fields joined by `,` (no `"` inside a field, no line end inside
//! quotes) is split where its quotes are, found with `memchr`: the fields
//! are slices of the read buffer, nothing is copied. Any other line (an
//! unquoted or empty field, an escaped `""`, a line end inside quotes, a
//! line longer than the buffer, a log line) goes through `csv_core`, the
//! state machine under the `csv` crate, with the `csv` crate's defaults; so
//! every record has the fields the `csv` crate would give it.
//!
//! Memory: a fixed read buffer, plus (`csv_core` path) one record's fields,
//! bounded by failing a record longer than [`MAX_RECORD_BYTES`].
//!
//! It also counts the `"` the file holds (a split line holds two per field,
//! an even number; the `csv_core` path counts what it reads): every field
//! ncu writes is quoted, so an odd count means the file ends inside a field.
//! The record that meets the end of the input with an odd count is an error
//! ([`ends_inside_quotes`]), never a row: its last field is cut.

use super::bounds::{ends_inside_quotes, too_long, CutRecord, MAX_RECORD_BYTES};
use std::io::{ErrorKind, Read};

/// The read buffer: a line longer than this takes the `csv_core` path.
const BUF_BYTES: usize = 1 << 18;

/// Records read from `inner`, with the line each starts on.
pub(super) struct Records<R> {
    inner: R,
    buf: Box<[u8]>,
    /// The unread bytes are `buf[start..end]`.
    start: usize,
    end: usize,
    eof: bool,
    /// The line of `buf[start]` (1-based in the file).
    line: u64,
    /// The line the last record began on.
    started: u64,
    /// How many `"` were read, mod 2 being what matters.
    quotes: u64,
    core: csv_core::Reader,
    /// The fields of the last `csv_core` record and their ends.
    out: Vec<u8>,
    ends: Vec<usize>,
    /// The last record's fields, as ranges of `buf` or of `out`.
    fields: Vec<(usize, usize)>,
    /// The header's field count, once read ([`Records::expect_width`]).
    width: Option<usize>,
    /// True when the last record began with `"` (ncu quotes every field;
    /// a log line does not begin with one).
    quoted: bool,
}

/// One record: its fields and the line it starts on.
pub(super) struct Row<'r> {
    data: &'r [u8],
    fields: &'r [(usize, usize)],
    /// The line the record starts on (1-based in the file).
    pub(super) line: u64,
}

impl<'r> Row<'r> {
    /// Field `i`, if the record has that many.
    pub(super) fn get(&self, i: usize) -> Option<&'r [u8]> {
        let data = self.data;
        self.fields.get(i).map(|&(a, b)| &data[a..b])
    }

    /// How many fields the record has.
    pub(super) fn len(&self) -> usize {
        self.fields.len()
    }

    /// The fields in order.
    pub(super) fn iter(&self) -> impl Iterator<Item = &'r [u8]> + '_ {
        let data = self.data;
        self.fields.iter().map(move |&(a, b)| &data[a..b])
    }
}

impl<R: Read> Records<R> {
    /// Reads records from `inner`, whose first byte is on line `first_line`.
    pub(super) fn new(inner: R, first_line: u64) -> Records<R> {
        Records {
            inner,
            buf: vec![0; BUF_BYTES].into_boxed_slice(),
            start: 0,
            end: 0,
            eof: false,
            line: first_line,
            started: first_line,
            quotes: 0,
            core: csv_core::Reader::new(),
            out: vec![0; 1024],
            ends: vec![0; 64],
            fields: Vec::new(),
            width: None,
            quoted: false,
        }
    }

    /// From now on, a last record that begins with `"`, has no line end
    /// and has fewer than `width` fields (the header's) is an error
    /// ([`CutRecord`]): the file was cut between two of its fields.
    pub(super) fn expect_width(&mut self, width: usize) {
        self.width = Some(width);
    }

    /// The error for a record that the end of the input cut short, if this
    /// one (with `fields` fields, ended by the end of the input) is.
    fn cut(&self, fields: usize) -> std::io::Result<()> {
        match self.width {
            Some(expected) if self.quoted && fields < expected => Err(std::io::Error::new(
                ErrorKind::UnexpectedEof,
                CutRecord { fields, expected },
            )),
            _ => Ok(()),
        }
    }

    /// The line the reader is on: after the last record, the end of the
    /// file.
    pub(super) fn line(&self) -> u64 {
        self.line
    }

    /// The line the last record (or the one that failed) began on.
    pub(super) fn started(&self) -> u64 {
        self.started
    }

    /// True when the input read so far holds an odd number of `"`.
    pub(super) fn odd_quotes(&self) -> bool {
        self.quotes % 2 == 1
    }

    /// Moves the unread bytes to the front and reads more after them; false
    /// at the end of the input.
    fn fill(&mut self) -> std::io::Result<bool> {
        if self.start > 0 {
            self.buf.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.start = 0;
        }
        loop {
            match self.inner.read(&mut self.buf[self.end..]) {
                Ok(0) => {
                    self.eof = true;
                    return Ok(false);
                }
                Ok(n) => {
                    self.end += n;
                    return Ok(true);
                }
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }

    /// The next record, `None` at the end of the input. Blank lines are
    /// skipped, as the `csv` crate does.
    pub(super) fn next_row(&mut self) -> std::io::Result<Option<Row<'_>>> {
        loop {
            while self.start < self.end {
                match self.buf[self.start] {
                    b'\n' => self.line += 1,
                    b'\r' => {}
                    _ => break,
                }
                self.start += 1;
            }
            if self.start < self.end {
                break;
            }
            if self.eof || !self.fill()? {
                return Ok(None);
            }
        }
        let line = self.line;
        self.started = line;
        self.quoted = self.buf[self.start] == b'"';
        let newline = loop {
            let unread = &self.buf[self.start..self.end];
            if let Some(i) = memchr::memchr(b'\n', unread) {
                break Some(self.start + i);
            }
            if self.eof {
                break None;
            }
            if self.start == 0 && self.end == self.buf.len() {
                return self.core_row(line);
            }
            self.fill()?;
        };
        let stop = newline.unwrap_or(self.end);
        let body_end = if self.buf[stop - 1] == b'\r' {
            stop - 1
        } else {
            stop
        };
        if split_quoted(
            &self.buf[self.start..body_end],
            self.start,
            &mut self.fields,
        ) {
            match newline {
                Some(i) => {
                    self.start = i + 1;
                    self.line += 1;
                }
                None => {
                    self.start = self.end;
                    self.cut(self.fields.len())?;
                }
            }
            return Ok(Some(Row {
                data: &self.buf,
                fields: &self.fields,
                line,
            }));
        }
        self.core_row(line)
    }

    /// The record at `buf[start]` through `csv_core`, reading more input
    /// as it needs.
    fn core_row(&mut self, line: u64) -> std::io::Result<Option<Row<'_>>> {
        use csv_core::ReadRecordResult::{End, InputEmpty, OutputEndsFull, OutputFull, Record};
        self.core.reset();
        let (mut outlen, mut endlen) = (0, 0);
        let mut taken = 0;
        loop {
            if self.start == self.end && !self.eof {
                self.fill()?;
                continue;
            }
            let input = &self.buf[self.start..self.end];
            let (res, nin, nout, nend) =
                self.core
                    .read_record(input, &mut self.out[outlen..], &mut self.ends[endlen..]);
            let at_eof = input.is_empty();
            let read = &input[..nin];
            self.line += memchr::memchr_iter(b'\n', read).count() as u64;
            self.quotes += memchr::memchr_iter(b'"', read).count() as u64;
            self.start += nin;
            taken += nin as u64;
            if taken > MAX_RECORD_BYTES {
                return Err(too_long());
            }
            outlen += nout;
            endlen += nend;
            // The end of the input inside a quoted field: this record (the
            // last) is cut. A split line never ends the input this way (its
            // quotes pair up), so every cut record comes here.
            if matches!(res, Record | End)
                && self.eof
                && self.start == self.end
                && self.odd_quotes()
            {
                return Err(ends_inside_quotes());
            }
            match res {
                InputEmpty => {}
                OutputFull => {
                    let n = self.out.len() * 2;
                    self.out.resize(n, 0);
                }
                OutputEndsFull => {
                    let n = self.ends.len() * 2;
                    self.ends.resize(n, 0);
                }
                Record => {
                    // Given no input, csv_core ends the record at the end
                    // of the input: it had no line end.
                    if at_eof {
                        self.cut(endlen)?;
                    }
                    self.fields.clear();
                    let mut a = 0;
                    for &b in &self.ends[..endlen] {
                        self.fields.push((a, b));
                        a = b;
                    }
                    return Ok(Some(Row {
                        data: &self.out,
                        fields: &self.fields,
                        line,
                    }));
                }
                End => return Ok(None),
            }
        }
    }
}

/// Splits `line` (no line end) when it is exactly quoted fields joined by
/// `,` with no `"` inside a field, pushing each field's range (offset by
/// `base`) to `fields`; false (fields unspecified) for any other line.
fn split_quoted(line: &[u8], base: usize, fields: &mut Vec<(usize, usize)>) -> bool {
    fields.clear();
    let mut quotes = Quotes::new(line);
    if quotes.next() != Some(0) {
        return false;
    }
    let mut open = 0;
    loop {
        let Some(close) = quotes.next() else {
            return false;
        };
        fields.push((base + open + 1, base + close));
        if close + 1 == line.len() {
            return true;
        }
        match quotes.next() {
            Some(next) if next == close + 2 && line[close + 1] == b',' => open = next,
            _ => return false,
        }
    }
}

/// The positions of `"` in a line, in order, found 64 bytes at a time:
/// each block's quotes become the bits of a mask ([`quote_mask`]),
/// walked bit by bit. A `memchr` call per quote, on fields of a few bytes,
/// was mostly call overhead (40 % of the details page's parse in `perf`).
struct Quotes<'a> {
    line: &'a [u8],
    /// The offset of the block `mask` covers.
    base: usize,
    /// The quotes of that block not yet handed out.
    mask: u64,
    /// The offset of the next block to load.
    next: usize,
}

impl<'a> Quotes<'a> {
    fn new(line: &'a [u8]) -> Quotes<'a> {
        Quotes {
            line,
            base: 0,
            mask: 0,
            next: 0,
        }
    }
}

impl Iterator for Quotes<'_> {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        while self.mask == 0 {
            if self.next >= self.line.len() {
                return None;
            }
            let end = (self.next + 64).min(self.line.len());
            self.mask = quote_mask(&self.line[self.next..end]);
            self.base = self.next;
            self.next = end;
        }
        let i = self.mask.trailing_zeros() as usize;
        self.mask &= self.mask - 1;
        Some(self.base + i)
    }
}

/// Bit `i` set when `chunk[i]` is `"` (`chunk` at most 64 bytes), in
/// safe code that needs no instruction set: the compares, one flag byte
/// (0 or 1) per input byte, vectorise; each 8 flags, read as one
/// little-endian word, are gathered into 8 bits by one multiply (flag `k`
/// sits at bit `8k`, and the multiplier's bit `56 - 7k` moves it to bit
/// `56 + k`; no two products meet, so nothing carries).
#[inline]
fn quote_mask(chunk: &[u8]) -> u64 {
    const GATHER: u64 = 0x0102_0408_1020_4080;
    let mut flags = [0u8; 64];
    for (flag, &c) in flags.iter_mut().zip(chunk) {
        *flag = u8::from(c == b'"');
    }
    let mut mask = 0u64;
    for (k, word) in flags.chunks_exact(8).enumerate() {
        let word = u64::from_le_bytes(word.try_into().unwrap_or_default());
        mask |= (word.wrapping_mul(GATHER) >> 56) << (8 * k);
    }
    mask
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One record's fields.
    type Fields = Vec<Vec<u8>>;

    /// Every record of `text`, read through a reader that hands out `chunk`
    /// bytes at a time, beside what the `csv` crate reads (same settings as
    /// the parser had before this reader: no headers, flexible).
    fn both(text: &[u8], chunk: usize) -> (Vec<(u64, Fields)>, Vec<Fields>) {
        struct Chunks<'a>(&'a [u8], usize);
        impl Read for Chunks<'_> {
            fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
                let n = self.0.len().min(self.1).min(buf.len());
                buf[..n].copy_from_slice(&self.0[..n]);
                self.0 = &self.0[n..];
                Ok(n)
            }
        }
        let mut mine = Vec::new();
        let mut r = Records::new(Chunks(text, chunk), 1);
        let cut = loop {
            match r.next_row() {
                Ok(Some(row)) => mine.push((row.line, row.iter().map(<[u8]>::to_vec).collect())),
                Ok(None) => break false,
                Err(e) if super::super::bounds::is_ends_inside_quotes(&e) => break true,
                Err(e) => panic!("{e}"),
            }
        };
        let mut theirs = Vec::new();
        let mut c = csv::ReaderBuilder::new()
            .has_headers(false)
            .flexible(true)
            .from_reader(text);
        let mut rec = csv::ByteRecord::new();
        while c.read_byte_record(&mut rec).unwrap() {
            theirs.push(rec.iter().map(<[u8]>::to_vec).collect());
        }
        if cut {
            // The input ends inside quotes (an odd count of `"`): the record
            // the `csv` crate reads last is the cut one, which this reader
            // refuses instead of returning; the ones before are the same.
            let quotes = text.iter().filter(|&&b| b == b'"').count();
            assert_eq!(quotes % 2, 1, "{:?}", String::from_utf8_lossy(text));
            assert!(theirs.pop().is_some());
        }
        (mine, theirs)
    }

    #[test]
    fn fields_as_the_csv_crate_reads_them() {
        let cases: [&[u8]; 9] = [
            b"\"a\",\"b\",\"\"\n\"c\",\"d\",\"e\"\n",
            b"\"a\",\"b\"\r\n\"c\",\"d\"\r\n",
            // Escaped quotes, a line end inside quotes, unquoted fields.
            b"\"a\"\"x\",\"b\"\n\"c\nd\",\"e\"\nf,g,\"h\"\n",
            // Blank lines, a log line, no final line end.
            b"\n\"a\"\n\n==PROF== x\n\"b\",\"c\"",
            // A quote inside an unquoted field; text after a closing quote.
            b"a\"b,\"c\"d\n\"e\",\"f\" \n",
            // A file ending inside quotes (truncated).
            b"\"a\",\"b\n",
            b"\"\"\n\"\",\"\"\n",
            b"\"a\"\r\"b\"\r",
            b"",
        ];
        for text in cases {
            for chunk in [1, 3, 64, 1 << 20] {
                let (mine, theirs) = both(text, chunk);
                let fields: Vec<_> = mine.iter().map(|(_, f)| f.clone()).collect();
                assert_eq!(
                    fields,
                    theirs,
                    "{:?}, chunks of {chunk}",
                    String::from_utf8_lossy(text)
                );
            }
        }
    }

    #[test]
    fn random_bytes_read_as_the_csv_crate_reads_them() {
        // 20,000 short texts over the bytes that matter to the splitter
        // (a fixed xorshift sequence, so a failure reproduces), each read
        // in chunks of 1 and 7 bytes and whole.
        let alphabet = b"\"\",,\n\r ab";
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..20_000 {
            let mut text = Vec::new();
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let len = (x % 24) as usize;
            for _ in 0..len {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                text.push(alphabet[(x % alphabet.len() as u64) as usize]);
            }
            for chunk in [1, 7, 1 << 20] {
                let (mine, theirs) = both(&text, chunk);
                let fields: Vec<_> = mine.into_iter().map(|(_, f)| f).collect();
                assert_eq!(fields, theirs, "{:?}", String::from_utf8_lossy(&text));
            }
        }
    }

    #[test]
    fn a_record_is_bounded_but_a_file_is_not() {
        // 3 x the bound in short records reads; one record (unquoted, so
        // through csv_core) of 2 x the bound fails.
        let short = "\"a\",b\n".repeat(3 * MAX_RECORD_BYTES as usize / 6 + 1);
        let mut r = Records::new(short.as_bytes(), 1);
        let mut n = 0;
        while r.next_row().unwrap().is_some() {
            n += 1;
        }
        assert_eq!(n, 3 * MAX_RECORD_BYTES / 6 + 1);
        let mut r = Records::new(std::io::repeat(b'x').take(2 * MAX_RECORD_BYTES), 7);
        let e = r.next_row().err().expect("too long");
        assert!(super::super::bounds::is_too_long(&e));
        assert_eq!(r.started(), 7);
    }

    #[test]
    fn quotes_are_counted_as_a_byte_walk_counts_them() {
        // Split lines, csv_core lines (escaped quotes, a quoted line end)
        // and a file that ends inside a field.
        let text = b"\"a\",\"b\"\n\"c\"\"d\",e\n\"f\ng\",\"h\"\n\"i\",\"tail";
        let walk = text.iter().filter(|&&b| b == b'"').count() as u64;
        let mut r = Records::new(&text[..], 1);
        let e = loop {
            match r.next_row() {
                Ok(Some(_)) => {}
                Ok(None) => panic!("the cut record was returned"),
                Err(e) => break e,
            }
        };
        assert_eq!(walk % 2, 1, "the text ends inside a field");
        assert!(r.odd_quotes());
        // The cut record (`"i","tail`, line 5: lines 3-4 hold one record)
        // is an error, not a row.
        assert!(super::super::bounds::is_ends_inside_quotes(&e));
        assert_eq!(r.started(), 5);
        let mut r = Records::new(&text[..text.len() - 5], 1);
        while r.next_row().unwrap().is_some() {}
        assert!(!r.odd_quotes());
    }

    #[test]
    fn records_know_their_lines() {
        // Lines: 1 "a", 2 blank, 3-4 a quoted line end, 5 "d" (CRLF).
        let (mine, _) = both(b"\"a\"\r\n\r\n\"b\nc\"\r\n\"d\"\r\n", 2);
        let lines: Vec<u64> = mine.iter().map(|(l, _)| *l).collect();
        assert_eq!(lines, [1, 3, 5]);
    }

    #[test]
    fn a_line_longer_than_the_buffer_is_still_read() {
        let long = "x".repeat(BUF_BYTES + 10);
        let text = format!("\"a\",\"{long}\"\n\"b\"\n");
        let (mine, theirs) = both(text.as_bytes(), 1 << 16);
        assert_eq!(mine.len(), 2);
        assert_eq!(mine[0].1[1].len(), BUF_BYTES + 10);
        assert_eq!(mine.into_iter().map(|(_, f)| f).collect::<Vec<_>>(), theirs);
    }

    #[test]
    fn a_last_record_short_of_the_header_without_a_line_end_is_cut() {
        // Width 3. A last record of 2 fields with no line end is cut, on
        // the split path (plain quoted fields) and on the csv_core path (an
        // escaped quote), in any chunking. Rows: a full last record with no
        // line end, a short one with a line end (not what ncu writes, but
        // not a cut) and a log line with none (no leading quote).
        struct Chunks<'a>(&'a [u8], usize);
        impl Read for Chunks<'_> {
            fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
                let n = self.0.len().min(self.1).min(buf.len());
                buf[..n].copy_from_slice(&self.0[..n]);
                self.0 = &self.0[n..];
                Ok(n)
            }
        }
        let read = |text: &[u8], chunk: usize| {
            let mut r = Records::new(Chunks(text, chunk), 1);
            r.expect_width(3);
            let mut n = 0;
            loop {
                match r.next_row() {
                    Ok(Some(_)) => n += 1,
                    Ok(None) => return Ok(n),
                    Err(e) => {
                        let c = super::super::bounds::cut_record(&e).expect("a cut");
                        return Err((c.fields, c.expected, r.started()));
                    }
                }
            }
        };
        for chunk in [1, 5, 1 << 20] {
            assert_eq!(
                read(b"\"a\",\"b\",\"c\"\n\"d\",\"e\"", chunk),
                Err((2, 3, 2))
            );
            assert_eq!(
                read(b"\"a\",\"b\",\"c\"\r\n\"d\"\"x\",\"e\"", chunk),
                Err((2, 3, 2))
            );
            assert_eq!(read(b"\"a\",\"b\",\"c\"\n\"d\",\"e\",\"f\"", chunk), Ok(2));
            assert_eq!(read(b"\"a\",\"b\",\"c\"\n\"d\",\"e\"\n", chunk), Ok(2));
            assert_eq!(read(b"\"a\",\"b\",\"c\"\n==PROF== done", chunk), Ok(2));
        }
    }
    /// The mask of a block has exactly the bits of its quotes: each place
    /// alone, every place, and random blocks with every density of
    /// quotes (a fixed xorshift seed), against the byte-by-byte answer.
    #[test]
    fn a_block_mask_has_the_bit_of_each_quote_and_no_other() {
        let by_bytes = |chunk: &[u8]| {
            (0..chunk.len())
                .filter(|&i| chunk[i] == b'"')
                .fold(0u64, |mask, i| mask | 1 << i)
        };
        let mut chunk = [b'x'; 64];
        for place in 0..64 {
            chunk[place] = b'"';
            assert_eq!(quote_mask(&chunk), 1 << place, "{place}");
            chunk[place] = b'x';
        }
        assert_eq!(quote_mask(&[b'"'; 64]), u64::MAX);
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        for round in 0..20_000 {
            let len = round % 65;
            let mut chunk = Vec::with_capacity(len);
            for _ in 0..len {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                let quote = state % (1 + (round as u64 % 4)) == 0;
                chunk.push(if quote { b'"' } else { (state >> 24) as u8 });
            }
            assert_eq!(quote_mask(&chunk), by_bytes(&chunk), "{chunk:?}");
        }
    }

    /// The 64-byte blocks find every quote a byte scan finds, at every
    /// length and offset around the block edges.
    #[test]
    fn quote_blocks_find_what_memchr_finds() {
        let mut line = Vec::new();
        for k in 0..300usize {
            line.push(if k % 7 == 0 || k % 11 == 3 || k == 63 || k == 64 {
                b'"'
            } else {
                b'a' + (k % 26) as u8
            });
        }
        for len in 0..line.len() {
            for from in [0, 1, 13, 63, 64] {
                if from > len {
                    continue;
                }
                let part = &line[from..len];
                let want: Vec<usize> = memchr::memchr_iter(b'"', part).collect();
                assert_eq!(Quotes::new(part).collect::<Vec<_>>(), want, "{from}..{len}");
            }
        }
    }
}
