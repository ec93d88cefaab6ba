//! The document walked piece by piece: the top level (an object, or the
//! older Chrome-trace form, an array of events) by hand, each event and
//! each metadata value parsed by serde_json from the buffer it lies in
//! (borrowed: no string is built unless it has escapes). The buffer holds
//! the piece being parsed and at most one value across pieces, never the
//! document; every byte is validated as JSON, so a document that is not
//! JSON is refused with its line and column, while an element that is JSON
//! but no event object costs that element only.

use super::event::Event;
use super::input::{Pieces, ReadError, MAX_VALUE_BYTES};
use serde::de::IgnoredAny;
use serde::Deserialize;
use serde_json::value::RawValue;

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
    fn meta(&mut self, key: MetaKey, raw: &RawValue);
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
        buf: Vec::new(),
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
        // Whatever it is, serde says what is wrong with it (or it is JSON
        // without events: the caller says so).
        _ => w.skip()?,
    }
    if w.peek()?.is_some() {
        return Err(w.error("trailing characters after the document"));
    }
    Ok(walked)
}

struct Walker {
    pieces: Pieces,
    buf: Vec<u8>,
    pos: usize,
    eof: bool,
    /// Newlines in the text dropped before `buf[0]`.
    lines_before: usize,
    /// Column of `buf[0]` on its line, 0-based.
    column_before: usize,
}

/// What one parse attempt came to.
enum Attempt<T> {
    /// The value and the bytes it took.
    Value(T, usize),
    /// The text ends inside the value (or right after it, where a number
    /// may go on): read more.
    More,
    /// Not JSON, or JSON of another shape (`is_data`).
    Fail(serde_json::Error),
}

/// Parses one value of `T` at the start of `slice` (after whitespace).
fn attempt<'b, T: Deserialize<'b>>(slice: &'b [u8], eof: bool) -> Attempt<T> {
    let mut stream = serde_json::Deserializer::from_slice(slice).into_iter::<T>();
    match stream.next() {
        Some(Ok(v)) => {
            let used = stream.byte_offset();
            if used == slice.len() && !eof {
                Attempt::More
            } else {
                Attempt::Value(v, used)
            }
        }
        // Cut by the end of the piece: serde_json says EOF, or, inside a
        // number (`1.`, `1e`, `-`), "invalid number" at the very end.
        Some(Err(e)) if !eof && (e.is_eof() || error_offset(slice, &e) + 2 >= slice.len()) => {
            Attempt::More
        }
        Some(Err(e)) => Attempt::Fail(e),
        None => Attempt::More,
    }
}

/// The byte offset in `slice` of serde_json's error position.
fn error_offset(slice: &[u8], e: &serde_json::Error) -> usize {
    let mut line_start = 0;
    for _ in 1..e.line() {
        match memchr::memchr(b'\n', &slice[line_start..]) {
            Some(k) => line_start += k + 1,
            None => break,
        }
    }
    line_start + e.column()
}

impl Walker {
    /// Drops the consumed text and appends the next piece; `false` at the
    /// end of the text.
    fn fill(&mut self) -> Result<bool, WalkError> {
        if self.eof {
            return Ok(false);
        }
        let dropped = &self.buf[..self.pos];
        match memchr::memrchr(b'\n', dropped) {
            Some(last) => {
                self.lines_before += memchr::memchr_iter(b'\n', dropped).count();
                self.column_before = dropped.len() - last - 1;
            }
            None => self.column_before += dropped.len(),
        }
        self.buf.drain(..self.pos);
        self.pos = 0;
        if self.buf.len() > MAX_VALUE_BYTES {
            return Err(WalkError::Read(ReadError::Overrun(
                super::input::Overrun::LongValue,
            )));
        }
        match self.pieces.recv() {
            Some(Ok(piece)) => {
                self.buf.extend_from_slice(&piece);
                self.pieces.recycle(piece);
                Ok(true)
            }
            Some(Err(e)) => Err(WalkError::Read(e)),
            None => {
                self.eof = true;
                Ok(false)
            }
        }
    }

    /// The next byte that is not whitespace, not consumed; `None` at the
    /// end of the text.
    fn peek(&mut self) -> Result<Option<u8>, WalkError> {
        loop {
            while let Some(&b) = self.buf.get(self.pos) {
                if !matches!(b, b' ' | b'\t' | b'\r' | b'\n') {
                    return Ok(Some(b));
                }
                self.pos += 1;
            }
            if !self.fill()? {
                return Ok(None);
            }
        }
    }

    /// A syntax error at the current position.
    fn error(&self, detail: &str) -> WalkError {
        self.located(1, 1, detail.to_string())
    }

    /// A position relative to `buf[pos]` (line and column of serde's
    /// error, 1-based) made absolute.
    fn located(&self, line: usize, column: usize, detail: String) -> WalkError {
        let before = &self.buf[..self.pos.min(self.buf.len())];
        let newlines = memchr::memchr_iter(b'\n', before).count();
        let column_at_pos = match memchr::memrchr(b'\n', before) {
            Some(last) => before.len() - last - 1,
            None => self.column_before + before.len(),
        };
        WalkError::Syntax {
            line: self.lines_before + newlines + line,
            column: if line <= 1 {
                column_at_pos + column
            } else {
                column
            },
            detail,
        }
    }

    /// Reads more text after a value was found cut; an error when there is
    /// none.
    fn more(&mut self) -> Result<(), WalkError> {
        let was_eof = self.eof;
        self.fill()?;
        if was_eof {
            return Err(self.error("EOF while parsing a value"));
        }
        Ok(())
    }

    /// A serde_json error at the position.
    fn serde_error(&self, e: &serde_json::Error) -> WalkError {
        self.located(e.line(), e.column(), serde_detail(e))
    }

    /// Steps past a value of `used` bytes, checking the string bound on
    /// the values long enough to break it.
    fn advance(&mut self, used: usize) -> Result<(), WalkError> {
        let value = &self.buf[self.pos..self.pos + used];
        if super::input::has_long_string(value) {
            return Err(WalkError::Read(ReadError::Overrun(
                super::input::Overrun::LongString,
            )));
        }
        self.pos += used;
        Ok(())
    }

    /// One value of any shape, raw, to `f`.
    fn raw(&mut self, f: &mut dyn FnMut(&RawValue)) -> Result<(), WalkError> {
        loop {
            let used = match attempt::<&RawValue>(&self.buf[self.pos..], self.eof) {
                Attempt::Value(v, used) => {
                    f(v);
                    used
                }
                Attempt::More => {
                    self.more()?;
                    continue;
                }
                Attempt::Fail(e) => return Err(self.serde_error(&e)),
            };
            return self.advance(used);
        }
    }

    /// Steps past one value of any shape (validated, nothing kept).
    fn skip(&mut self) -> Result<(), WalkError> {
        loop {
            let used = match attempt::<IgnoredAny>(&self.buf[self.pos..], self.eof) {
                Attempt::Value(_, used) => used,
                Attempt::More => {
                    self.more()?;
                    continue;
                }
                Attempt::Fail(e) => return Err(self.serde_error(&e)),
            };
            return self.advance(used);
        }
    }

    /// One element of an event array: an event object to `sink`; any other
    /// JSON value is counted (`sink.event(None)`) and skipped.
    fn event(&mut self, sink: &mut impl Sink) -> Result<(), WalkError> {
        loop {
            let used = match attempt::<Event<'_>>(&self.buf[self.pos..], self.eof) {
                Attempt::Value(ev, used) => {
                    sink.event(Some(ev));
                    used
                }
                Attempt::More => {
                    self.more()?;
                    continue;
                }
                Attempt::Fail(e) if e.is_data() => {
                    self.skip()?;
                    sink.event(None);
                    return Ok(());
                }
                Attempt::Fail(e) => return Err(self.serde_error(&e)),
            };
            return self.advance(used);
        }
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
            self.raw(&mut |raw: &RawValue| {
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
        self.raw(&mut |raw: &RawValue| sink.meta(meta, raw))
    }
}

/// serde_json's message without its own position (the walker gives the
/// position in the whole text).
fn serde_detail(e: &serde_json::Error) -> String {
    let s = e.to_string();
    match s.rfind(" at line ") {
        Some(i) => s[..i].to_string(),
        None => s,
    }
}
