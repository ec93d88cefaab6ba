//! The document walked piece by piece: the top level (an object, or the
//! older Chrome-trace form, an array of events), each event and each
//! metadata value scanned by [`super::lex`] in the buffer it lies in
//! (borrowed: no string is built unless it has escapes, no key or value
//! rooftrace does not read is built at all). The buffer holds the piece
//! being scanned and at most one value across pieces, never the document;
//! every byte is validated as JSON, so a document that is not JSON is
//! refused with its line and column, while an element that is JSON but no
//! event object costs that element only.

use super::event::Event;
use super::input::{Pieces, ReadError, MAX_VALUE_BYTES};
use super::lex::{Lex, Raw, Stop};

/// The top-level keys read besides `traceEvents`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MetaKey {
    /// `deviceProperties`.
    Devices,
    /// `distributedInfo`.
    Distributed,
    /// `baseTimeNanoseconds`.
    BaseTime,
}

/// Receives what the walk finds.
pub trait Sink {
    /// A `traceEvents` array starts (a second one replaces the first, as
    /// for any duplicate key).
    fn events_start(&mut self);
    /// One element: `None` when it is JSON but not an event object.
    fn event(&mut self, ev: Option<Event<'_>>);
    /// A metadata value.
    fn meta(&mut self, key: MetaKey, raw: Raw<'_>);
}

/// Why the walk stopped.
#[derive(Debug)]
pub enum WalkError {
    /// The text could not be read.
    Read(ReadError),
    /// Not JSON (or cut short).
    Syntax {
        /// Line (1-based) of the text.
        line: usize,
        /// Column (1-based).
        column: usize,
        /// What is wrong.
        detail: String,
    },
}

/// What the walk saw at the top level.
#[derive(Debug, Clone, Copy, Default)]
pub struct Walked {
    /// `traceEvents` arrays read (the top-level array counts as one).
    pub event_arrays: u32,
}

/// Walks the whole document into `sink`.
pub fn walk(pieces: Pieces, sink: &mut impl Sink) -> Result<Walked, WalkError> {
    let mut w = Walker {
        pieces,
        buf: String::new(),
        tail: Vec::new(),
        bad: false,
        pos: 0,
        eof: false,
        lines_before: 0,
        column_before: 0,
    };
    let mut walked = Walked::default();
    match w.peek()? {
        Some(b'{') => {
            w.pos += 1;
            w.object(sink, &mut walked)?;
        }
        Some(b'[') => {
            w.pos += 1;
            sink.events_start();
            walked.event_arrays += 1;
            w.array(|w| w.event(sink))?;
        }
        // Whatever it is, the scanner says what is wrong with it (or it is JSON
        // without events: the caller says so).
        _ => w.skip()?,
    }
    if w.peek()?.is_some() {
        return Err(w.error("trailing characters after the document"));
    }
    Ok(walked)
}

/// Bytes at the end of `b` that begin a character without ending it (0
/// to 3): they wait for the next piece.
fn cut_character(b: &[u8]) -> usize {
    for back in 1..=3.min(b.len()) {
        let c = b[b.len() - back];
        if c & 0xC0 != 0x80 {
            // Not a continuation byte: a character starts here.
            let n = match c {
                0xC0..=0xDF => 2,
                0xE0..=0xEF => 3,
                0xF0..=0xF7 => 4,
                _ => 1,
            };
            return if n > back { back } else { 0 };
        }
    }
    0
}

struct Walker {
    pieces: Pieces,
    /// The text read and not yet dropped, checked as UTF-8 once, a piece
    /// at a time, as it is appended: the scanner hands out slices of it.
    buf: String,
    /// The bytes after `buf` that are not UTF-8 (yet): the start of a
    /// character that a piece cut (the next piece ends it), or, when
    /// `bad`, the first bytes that are not UTF-8 and all after them.
    tail: Vec<u8>,
    /// `tail` can never become UTF-8 (invalid bytes, or the text ends
    /// inside a character): the value that reaches it is scanned once
    /// more as bytes, which says what is wrong there.
    bad: bool,
    pos: usize,
    eof: bool,
    /// Newlines in the text dropped before `buf[0]`.
    lines_before: usize,
    /// Column of `buf[0]` on its line, 0-based.
    column_before: usize,
}

impl Walker {
    /// Drops the consumed text and appends the next piece; `false` at the
    /// end of the text.
    fn fill(&mut self) -> Result<bool, WalkError> {
        if self.eof || self.bad {
            return Ok(false);
        }
        let dropped = &self.buf.as_bytes()[..self.pos];
        match memchr::memrchr(b'\n', dropped) {
            Some(last) => {
                self.lines_before += memchr::memchr_iter(b'\n', dropped).count();
                self.column_before = dropped.len() - last - 1;
            }
            None => self.column_before += dropped.len(),
        }
        // `pos` is past a whole value or an ASCII byte: a character boundary.
        self.buf.drain(..self.pos);
        self.pos = 0;
        if self.buf.len() + self.tail.len() > MAX_VALUE_BYTES {
            return Err(WalkError::Read(ReadError::Overrun(
                super::input::Overrun::LongValue,
            )));
        }
        match self.pieces.recv() {
            Some(Ok(piece)) => {
                self.append(&piece);
                self.pieces.recycle(piece);
                Ok(true)
            }
            Some(Err(e)) => Err(WalkError::Read(e)),
            None => {
                self.eof = true;
                // The text ends inside a character.
                self.bad = !self.tail.is_empty();
                Ok(false)
            }
        }
    }

    /// Appends a piece: its UTF-8 text to `buf` (one check, by the
    /// standard library's `from_utf8`), the rest to `tail`.
    fn append(&mut self, mut bytes: &[u8]) {
        if !self.tail.is_empty() {
            // A character the last piece cut: up to 3 more bytes end it.
            let old = self.tail.len();
            let take = bytes.len().min(3);
            self.tail.extend_from_slice(&bytes[..take]);
            let (valid, invalid) = match std::str::from_utf8(&self.tail) {
                Ok(_) => (self.tail.len(), false),
                Err(e) => (e.valid_up_to(), e.error_len().is_some()),
            };
            if valid <= old {
                self.tail.truncate(old);
                self.tail.extend_from_slice(bytes);
                self.bad = invalid;
                return;
            }
            let whole = std::str::from_utf8(&self.tail[..valid]).unwrap_or("");
            self.buf.push_str(whole);
            bytes = &bytes[valid - old..];
            self.tail.clear();
        }
        let cut = bytes.len() - cut_character(bytes);
        match std::str::from_utf8(&bytes[..cut]) {
            Ok(text) => {
                self.buf.push_str(text);
                self.tail.extend_from_slice(&bytes[cut..]);
            }
            Err(e) => {
                // Not UTF-8: what is before the bad bytes is text (checked
                // again: this happens once, before the error).
                let (text, rest) = bytes.split_at(e.valid_up_to());
                self.buf.push_str(std::str::from_utf8(text).unwrap_or(""));
                self.tail.extend_from_slice(rest);
                self.bad = true;
            }
        }
    }

    /// The next byte that is not whitespace, not consumed; `None` at the
    /// end of the text.
    fn peek(&mut self) -> Result<Option<u8>, WalkError> {
        loop {
            while let Some(&b) = self.buf.as_bytes().get(self.pos) {
                if !matches!(b, b' ' | b'\t' | b'\r' | b'\n') {
                    return Ok(Some(b));
                }
                self.pos += 1;
            }
            if self.bad {
                // A byte that is not UTF-8 (not ASCII): no JSON byte.
                return Ok(self.tail.first().copied());
            }
            // At the end, `fill` marks a character left unfinished as
            // `bad`: the loop returns its first byte, not the end.
            if !self.fill()? && !self.bad {
                return Ok(None);
            }
        }
    }

    /// A syntax error at the current position.
    fn error(&self, detail: &str) -> WalkError {
        self.located(0, detail.to_string())
    }

    /// An error `at` bytes after `buf[pos]`, with its line and column in
    /// the whole text.
    fn located(&self, at: usize, detail: String) -> WalkError {
        // The text so far: `buf`, then the bytes of `tail` (not UTF-8)
        // an error may lie in.
        let end = self.pos + at;
        let text = self.buf.as_bytes();
        let parts = [
            &text[..end.min(text.len())],
            &self.tail[..end.saturating_sub(text.len()).min(self.tail.len())],
        ];
        let (mut newlines, mut column) = (0, self.column_before);
        for part in parts {
            newlines += memchr::memchr_iter(b'\n', part).count();
            column = match memchr::memrchr(b'\n', part) {
                Some(last) => part.len() - last - 1,
                None => column + part.len(),
            };
        }
        WalkError::Syntax {
            line: self.lines_before + newlines + 1,
            column: column + 1,
            detail,
        }
    }

    /// Runs `scan` on the text from the position; the position steps past
    /// what it took. A scan cut by the end of the buffer is run again
    /// with more text (it must not have handed anything out before
    /// returning); at the end of the text it is run as whole.
    fn scan(
        &mut self,
        mut scan: impl FnMut(&mut Lex<'_>) -> Result<(), Stop>,
    ) -> Result<(), WalkError> {
        loop {
            let text = self.buf.get(self.pos..).unwrap_or("");
            let mut lx = Lex::text(text, self.eof && self.tail.is_empty());
            match scan(&mut lx) {
                Ok(()) => {
                    self.pos += lx.at;
                    return Ok(());
                }
                Err(Stop::Cut) if self.bad => return self.rescan(&mut scan),
                Err(Stop::Cut) => {
                    // Read until the value's text so far has doubled (one
                    // piece, unless pieces are tiny): a value cut again and
                    // again is scanned O(log n) times, not once per piece.
                    let need = 2 * (self.buf.len() - self.pos).max(1);
                    while self.fill()? && self.buf.len() - self.pos < need {}
                }
                Err(Stop::Bad { at, what }) => return Err(self.located(at, what.to_string())),
                Err(Stop::LongString) => {
                    return Err(WalkError::Read(ReadError::Overrun(
                        super::input::Overrun::LongString,
                    )))
                }
            }
        }
    }

    /// The value that reached bytes that are not UTF-8, scanned as bytes
    /// (`buf` from the position, then `tail`): the error there, in the
    /// scanner's words, or the value when it ends before them.
    fn rescan(
        &mut self,
        scan: &mut impl FnMut(&mut Lex<'_>) -> Result<(), Stop>,
    ) -> Result<(), WalkError> {
        let mut bytes = self.buf.as_bytes()[self.pos..].to_vec();
        bytes.extend_from_slice(&self.tail);
        let mut lx = Lex::new(&bytes, self.eof);
        let stop = match scan(&mut lx) {
            Ok(()) => {
                // What the scanner took is UTF-8: it lies in `buf`.
                self.pos = (self.pos + lx.at).min(self.buf.len());
                return Ok(());
            }
            Err(stop) => stop,
        };
        match stop {
            Stop::Bad { at, what } => Err(self.located(at, what.to_string())),
            Stop::LongString => Err(WalkError::Read(ReadError::Overrun(
                super::input::Overrun::LongString,
            ))),
            // Cannot happen: bytes that are not UTF-8 stop every value.
            Stop::Cut => Err(self.located(bytes.len(), "invalid unicode code point".into())),
        }
    }

    /// One value of any shape, raw, to `f`.
    fn raw(&mut self, f: &mut dyn FnMut(Raw<'_>)) -> Result<(), WalkError> {
        self.scan(|lx| {
            f(lx.value()?);
            Ok(())
        })
    }

    /// Steps past one value of any shape (validated, nothing kept).
    fn skip(&mut self) -> Result<(), WalkError> {
        self.scan(|lx| lx.skip())
    }

    /// One element of an event array: an event object to `sink`; any other
    /// JSON value is counted (`sink.event(None)`) and skipped.
    fn event(&mut self, sink: &mut impl Sink) -> Result<(), WalkError> {
        self.scan(|lx| {
            let ev = Event::scan(lx)?;
            sink.event(ev);
            Ok(())
        })
    }

    /// The elements of an array (the `[` consumed), each through `each`.
    fn array(
        &mut self,
        mut each: impl FnMut(&mut Walker) -> Result<(), WalkError>,
    ) -> Result<(), WalkError> {
        if self.peek()? == Some(b']') {
            self.pos += 1;
            return Ok(());
        }
        loop {
            each(self)?;
            match self.peek()? {
                Some(b',') => self.pos += 1,
                Some(b']') => {
                    self.pos += 1;
                    return Ok(());
                }
                Some(_) => return Err(self.error("expected `,` or `]` after an array element")),
                None => return Err(self.error("EOF while parsing a list")),
            }
        }
    }

    /// The members of the top-level object (the `{` consumed).
    fn object(&mut self, sink: &mut impl Sink, walked: &mut Walked) -> Result<(), WalkError> {
        if self.peek()? == Some(b'}') {
            self.pos += 1;
            return Ok(());
        }
        loop {
            if self.peek()? != Some(b'"') {
                return Err(self.error("key must be a string"));
            }
            let mut key = String::new();
            self.raw(&mut |raw: Raw<'_>| {
                if let super::event::Field::Value(k) = super::event::text(Some(raw)) {
                    key = k.into_owned();
                }
            })?;
            if self.peek()? != Some(b':') {
                return Err(self.error("expected `:` after a key"));
            }
            self.pos += 1;
            self.member(&key, sink, walked)?;
            match self.peek()? {
                Some(b',') => self.pos += 1,
                Some(b'}') => {
                    self.pos += 1;
                    return Ok(());
                }
                Some(_) => return Err(self.error("expected `,` or `}` after an object member")),
                None => return Err(self.error("EOF while parsing an object")),
            }
        }
    }

    /// One top-level member's value.
    fn member(
        &mut self,
        key: &str,
        sink: &mut impl Sink,
        walked: &mut Walked,
    ) -> Result<(), WalkError> {
        let meta = match key {
            "traceEvents" => {
                if self.peek()? != Some(b'[') {
                    return Err(self.error("`traceEvents` is not an array"));
                }
                self.pos += 1;
                sink.events_start();
                walked.event_arrays += 1;
                return self.array(|w| w.event(sink));
            }
            "deviceProperties" => MetaKey::Devices,
            "distributedInfo" => MetaKey::Distributed,
            "baseTimeNanoseconds" => MetaKey::BaseTime,
            _ => {
                // An array is skipped element by element: a long one never
                // fills the buffer.
                if self.peek()? == Some(b'[') {
                    self.pos += 1;
                    return self.array(Walker::skip);
                }
                return self.skip();
            }
        };
        self.raw(&mut |raw: Raw<'_>| sink.meta(meta, raw))
    }
}
