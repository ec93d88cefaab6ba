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
        // Whatever it is, the scanner says what is wrong with it (or it is JSON
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
        self.located(0, detail.to_string())
    }

    /// An error `at` bytes after `buf[pos]`, with its line and column in
    /// the whole text.
    fn located(&self, at: usize, detail: String) -> WalkError {
        let before = &self.buf[..(self.pos + at).min(self.buf.len())];
        let newlines = memchr::memchr_iter(b'\n', before).count();
        let column = match memchr::memrchr(b'\n', before) {
            Some(last) => before.len() - last - 1,
            None => self.column_before + before.len(),
        };
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
            let mut lx = Lex::new(&self.buf[self.pos..], self.eof);
            match scan(&mut lx) {
                Ok(()) => {
                    self.pos += lx.i;
                    return Ok(());
                }
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
