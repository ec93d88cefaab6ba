//! A validating JSON scanner over the bytes of one buffer: it steps over
//! values (checking every byte against the JSON grammar, strings' UTF-8
//! and escapes included) and hands out the text of the values the reader
//! keeps as [`Raw`], borrowed. Nothing is built for a value that is only
//! stepped over: no key string, no number, no allocation (a nested value
//! is walked with a stack of one bit per level, in a machine word up to
//! 128 levels; deeper nesting, which no trace has, spills to a vector).
//!
//! The buffer may end inside a value: the scanner then stops with
//! [`Stop::Cut`] and the caller reads more and scans the value again;
//! at the end of the text (`eof`) the same place is an error ("EOF while
//! parsing …", serde_json's words, which the reader turns into "the file
//! ends early").

use super::input::MAX_STRING_BYTES;

/// Which open containers are objects: one bit per level, the first 128
/// in a word (depth is bounded only by the value's size, as it was with
/// serde_json's `ignore_value`).
#[derive(Default)]
struct Levels {
    word: u128,
    spill: Vec<bool>,
    depth: usize,
}

impl Levels {
    fn push(&mut self, object: bool) {
        if self.depth < 128 {
            let bit = 1u128 << self.depth;
            self.word = if object {
                self.word | bit
            } else {
                self.word & !bit
            };
        } else {
            self.spill.push(object);
        }
        self.depth += 1;
    }

    fn pop(&mut self) {
        self.depth -= 1;
        if self.depth >= 128 {
            self.spill.pop();
        }
    }

    /// The innermost open container is an object.
    fn object(&self) -> bool {
        let d = self.depth - 1;
        if d < 128 {
            self.word & (1u128 << d) != 0
        } else {
            self.spill[d - 128]
        }
    }
}

/// The text of one JSON value, already checked to be JSON (its strings'
/// UTF-8 included), borrowed as `str`: the scanner hands out slices of
/// text that is UTF-8 already (the walker's buffer is checked once, a
/// piece at a time, as it is appended), so no value is checked twice.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Raw<'a>(&'a str);

impl<'a> Raw<'a> {
    /// The value's JSON text as written.
    pub fn get(self) -> &'a str {
        self.0
    }

    /// The value's bytes as written.
    pub fn bytes(self) -> &'a [u8] {
        self.0.as_bytes()
    }
}

impl<'a> From<&'a serde_json::value::RawValue> for Raw<'a> {
    fn from(raw: &'a serde_json::value::RawValue) -> Raw<'a> {
        Raw(raw.get())
    }
}

/// What a byte means inside a string: 0 plain, 1 the end or an escape
/// (`"`, `\`), 2 a control character, 3 beyond ASCII.
static STRING_BYTE: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        t[i] = if i < 0x20 {
            2
        } else if i == b'"' as usize || i == b'\\' as usize {
            1
        } else if i >= 0x80 {
            3
        } else {
            0
        };
        i += 1;
    }
    t
};

/// How many bytes [`plain_run`] searches for a quote or a backslash at a
/// time: a string with a byte beyond ASCII every few bytes (text in a
/// script that is not Latin) costs at most one window per character, not
/// a search to its closing quote, and a long plain string is searched in
/// a few calls.
const PLAIN_WINDOW: usize = 64;

/// The first index from `from` whose byte is not plain in a string (an
/// end, an escape, a control character or a byte beyond ASCII), or
/// `bytes.len()`: what [`STRING_BYTE`] says byte by byte, found a window
/// at a time with `memchr2` for `"` and `\`, then a check of the run
/// before it for control bytes and bytes beyond ASCII that the compiler
/// vectorises (no branch per byte); only a window that has one is walked
/// byte by byte.
#[inline]
fn plain_run(bytes: &[u8], from: usize) -> usize {
    let mut start = from;
    while start < bytes.len() {
        let window = &bytes[start..bytes.len().min(start + PLAIN_WINDOW)];
        let end = memchr::memchr2(b'"', b'\\', window).unwrap_or(window.len());
        let run = &window[..end];
        if !printable_ascii(run) {
            let first = run.iter().position(|&c| STRING_BYTE[c as usize] != 0);
            return start + first.unwrap_or(end);
        }
        if end < window.len() {
            return start + end;
        }
        start += window.len();
    }
    bytes.len()
}

/// Every byte of `run` is in `0x20..0x80`: neither a control character
/// nor beyond ASCII. A fold without a branch per byte (the subtraction
/// wraps the bytes below `0x20` to the top, where those beyond ASCII
/// already are), which the compiler turns into vector compares.
#[inline]
fn printable_ascii(run: &[u8]) -> bool {
    !run.iter().fold(false, |outside, &c| {
        outside | (c.wrapping_sub(0x20) >= 0x60)
    })
}

/// Why a scan stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// The buffer ends inside the value (more text may follow).
    Cut,
    /// Not JSON: what is wrong, at this offset in the buffer.
    Bad {
        /// Offset of the offending byte.
        at: usize,
        /// What is wrong.
        what: &'static str,
    },
    /// A string longer than [`MAX_STRING_BYTES`].
    LongString,
}

/// The scanner: `bytes[at..]` is what is left.
pub struct Lex<'a> {
    /// The buffer.
    pub bytes: &'a [u8],
    /// The position: the offset in `bytes` of the next byte to scan.
    pub at: usize,
    /// The longest prefix of `bytes` that is UTF-8 (all of it for
    /// [`Lex::text`]): values are handed out as slices of it, and a
    /// string inside it needs no UTF-8 check of its own.
    text: &'a str,
    eof: bool,
}

impl<'a> Lex<'a> {
    /// A scanner over `bytes`, which may hold bytes that are not UTF-8 (a
    /// string reaching them is refused as it was: "invalid unicode code
    /// point"); `eof` when no text follows it. One check of `bytes` for UTF-8
    /// first: the walker scans its checked text with [`Lex::text`] and
    /// comes here only for the value that reaches bytes that are not.
    pub fn new(bytes: &'a [u8], eof: bool) -> Lex<'a> {
        let text = match std::str::from_utf8(bytes) {
            Ok(t) => t,
            Err(e) => std::str::from_utf8(&bytes[..e.valid_up_to()]).unwrap_or(""),
        };
        Lex {
            bytes,
            at: 0,
            text,
            eof,
        }
    }

    /// A scanner over text known to be UTF-8.
    pub fn text(text: &'a str, eof: bool) -> Lex<'a> {
        Lex {
            bytes: text.as_bytes(),
            at: 0,
            text,
            eof,
        }
    }

    /// The scanned value `bytes[start..end]` as [`Raw`]. A value scanned whole
    /// lies in `text` (what the scanner accepted is UTF-8, and so is all
    /// before it), so the empty fallback is never taken.
    #[inline]
    fn raw(&self, start: usize, end: usize) -> Raw<'a> {
        Raw(self.text.get(start..end).unwrap_or(""))
    }

    /// The stop at the end of the buffer: cut, or at the end of the text,
    /// an error.
    fn end(&self, what: &'static str) -> Stop {
        if self.eof {
            Stop::Bad {
                at: self.bytes.len(),
                what,
            }
        } else {
            Stop::Cut
        }
    }

    /// An error at the position.
    pub fn bad(&self, what: &'static str) -> Stop {
        Stop::Bad { at: self.at, what }
    }

    /// The next byte that is not whitespace (not consumed).
    #[inline]
    pub fn peek(&mut self, eof_what: &'static str) -> Result<u8, Stop> {
        while let Some(&c) = self.bytes.get(self.at) {
            if !matches!(c, b' ' | b'\t' | b'\r' | b'\n') {
                return Ok(c);
            }
            self.at += 1;
        }
        Err(self.end(eof_what))
    }

    /// Steps past `c` (after whitespace), or says `what`.
    #[inline]
    pub fn expect(&mut self, c: u8, what: &'static str) -> Result<(), Stop> {
        if self.peek("EOF while parsing an object")? != c {
            return Err(self.bad(what));
        }
        self.at += 1;
        Ok(())
    }

    /// A string at the position (its `"` next, after whitespace): the raw
    /// text with its quotes, and whether it has escapes. One pass over its
    /// bytes; those beyond ASCII are checked as UTF-8 where they are.
    #[inline]
    pub fn string(&mut self) -> Result<(Raw<'a>, bool), Stop> {
        let bytes = self.bytes;
        let start = self.at;
        let mut j = start + 1;
        let mut escaped = false;
        loop {
            j = plain_run(bytes, j);
            let Some(&c) = bytes.get(j) else {
                self.at = bytes.len();
                if (bytes.len() - start - 1) as u64 > MAX_STRING_BYTES {
                    return Err(Stop::LongString);
                }
                return Err(self.end("EOF while parsing a string"));
            };
            match STRING_BYTE[c as usize] {
                2 => {
                    self.at = j;
                    return Err(self
                        .bad("control character (\\u0000-\\u001F) found while parsing a string"));
                }
                3 => {
                    // A UTF-8 sequence: its length from the lead byte, then
                    // checked whole (a sequence cut by the buffer: more).
                    let n = match c {
                        0xC2..=0xDF => 2,
                        0xE0..=0xEF => 3,
                        0xF0..=0xF4 => 4,
                        _ => 0,
                    };
                    if n > 0 && j < self.text.len() {
                        // Checked text: `j` is at a character's lead byte.
                        j += n;
                        continue;
                    }
                    if n == 0 {
                        self.at = j;
                        return Err(self.bad("invalid unicode code point"));
                    }
                    let Some(seq) = bytes.get(j..j + n) else {
                        // Bytes that cannot start a valid sequence are bad
                        // even when cut.
                        if std::str::from_utf8(&bytes[j..]).is_err_and(|e| e.error_len().is_some())
                        {
                            self.at = j;
                            return Err(self.bad("invalid unicode code point"));
                        }
                        self.at = bytes.len();
                        return Err(self.end("EOF while parsing a string"));
                    };
                    if std::str::from_utf8(seq).is_err() {
                        self.at = j;
                        return Err(self.bad("invalid unicode code point"));
                    }
                    j += n;
                }
                _ if c == b'"' => break,
                _ => {
                    escaped = true;
                    // An escape: `\"`, `\\`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t`,
                    // or `\u` and four hex digits.
                    let Some(&e) = bytes.get(j + 1) else {
                        self.at = bytes.len();
                        return Err(self.end("EOF while parsing a string"));
                    };
                    match e {
                        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => j += 2,
                        b'u' => {
                            for d in 0..4 {
                                match bytes.get(j + 2 + d) {
                                    Some(h) if h.is_ascii_hexdigit() => {}
                                    Some(_) => {
                                        self.at = j + 2 + d;
                                        return Err(self.bad("invalid escape"));
                                    }
                                    None => {
                                        self.at = bytes.len();
                                        return Err(self.end("EOF while parsing a string"));
                                    }
                                }
                            }
                            j += 6;
                        }
                        _ => {
                            self.at = j + 1;
                            return Err(self.bad("invalid escape"));
                        }
                    }
                }
            }
        }
        if (j - start - 1) as u64 > MAX_STRING_BYTES {
            return Err(Stop::LongString);
        }
        self.at = j + 1;
        Ok((self.raw(start, j + 1), escaped))
    }

    /// A number at the position (JSON's grammar: `-?(0|[1-9][0-9]*)`,
    /// an optional fraction and exponent).
    fn number(&mut self) -> Result<(), Stop> {
        let bytes = self.bytes;
        let mut j = self.at;
        let at_end = |j: usize| j >= bytes.len();
        if bytes[j] == b'-' {
            j += 1;
        }
        let digits = |mut j: usize| {
            while j < bytes.len() && bytes[j].is_ascii_digit() {
                j += 1;
            }
            j
        };
        match bytes.get(j) {
            None => return Err(self.end("EOF while parsing a value")),
            Some(b'0') => j += 1,
            Some(b'1'..=b'9') => j = digits(j + 1),
            Some(_) => {
                self.at = j;
                return Err(self.bad("invalid number"));
            }
        }
        if !at_end(j) && bytes[j] == b'.' {
            let k = digits(j + 1);
            if k == j + 1 {
                self.at = k;
                return Err(if at_end(k) {
                    self.end("EOF while parsing a value")
                } else {
                    self.bad("invalid number")
                });
            }
            j = k;
        }
        if !at_end(j) && (bytes[j] == b'e' || bytes[j] == b'E') {
            j += 1;
            if !at_end(j) && (bytes[j] == b'+' || bytes[j] == b'-') {
                j += 1;
            }
            let k = digits(j);
            if k == j {
                self.at = k;
                return Err(if at_end(k) {
                    self.end("EOF while parsing a value")
                } else {
                    self.bad("invalid number")
                });
            }
            j = k;
        }
        // A number that reaches the end of the buffer may go on.
        if at_end(j) && !self.eof {
            return Err(Stop::Cut);
        }
        self.at = j;
        Ok(())
    }

    /// `true`, `false` or `null` at the position.
    fn literal(&mut self) -> Result<(), Stop> {
        let word: &[u8] = match self.bytes[self.at] {
            b't' => b"true",
            b'f' => b"false",
            _ => b"null",
        };
        let rest = &self.bytes[self.at..];
        let n = word.len().min(rest.len());
        if rest[..n] != word[..n] {
            let k = rest.iter().zip(word).take_while(|(a, b)| a == b).count();
            self.at += k;
            return Err(self.bad("expected ident"));
        }
        if n < word.len() {
            self.at = self.bytes.len();
            return Err(self.end("EOF while parsing a value"));
        }
        self.at += n;
        Ok(())
    }

    /// One value, validated and stepped over; its text.
    pub fn value(&mut self) -> Result<Raw<'a>, Stop> {
        let c = self.peek("EOF while parsing a value")?;
        if c == b'"' {
            return Ok(self.string()?.0);
        }
        let start = self.at;
        if matches!(c, b'-' | b'0'..=b'9') {
            self.number()?;
        } else {
            self.skip_any()?;
        }
        Ok(self.raw(start, self.at))
    }

    /// Steps over one value (after whitespace), validating it: a string
    /// or a number directly, anything else through [`Lex::skip_any`].
    #[inline]
    pub fn skip(&mut self) -> Result<(), Stop> {
        match self.peek("EOF while parsing a value")? {
            b'"' => self.string().map(|_| ()),
            b'-' | b'0'..=b'9' => self.number(),
            _ => self.skip_any(),
        }
    }

    /// Steps over one value of any shape (after whitespace), validating
    /// it: nested containers walked without recursion.
    fn skip_any(&mut self) -> Result<(), Stop> {
        let mut levels = Levels::default();
        loop {
            // A value.
            match self.peek("EOF while parsing a value")? {
                c @ (b'{' | b'[') => {
                    self.at += 1;
                    let object = c == b'{';
                    let close = if object { b'}' } else { b']' };
                    if self.peek("EOF while parsing a value")? == close {
                        self.at += 1;
                    } else {
                        levels.push(object);
                        if object {
                            self.key_colon()?;
                        }
                        continue;
                    }
                }
                b'"' => {
                    self.string()?;
                }
                b'-' | b'0'..=b'9' => self.number()?,
                b't' | b'f' | b'n' => self.literal()?,
                _ => return Err(self.bad("expected value")),
            }
            // After a value: the next member or element, or the end of
            // the containers it closes.
            loop {
                if levels.depth == 0 {
                    return Ok(());
                }
                let object = levels.object();
                match self.peek(if object {
                    "EOF while parsing an object"
                } else {
                    "EOF while parsing a list"
                })? {
                    b',' => {
                        self.at += 1;
                        if object {
                            self.key_colon()?;
                        }
                        break;
                    }
                    b'}' if object => {
                        self.at += 1;
                        levels.pop();
                    }
                    b']' if !object => {
                        self.at += 1;
                        levels.pop();
                    }
                    _ if object => return Err(self.bad("expected `,` or `}`")),
                    _ => return Err(self.bad("expected `,` or `]`")),
                }
            }
        }
    }

    /// A member's key and its `:`: the key's raw text, and whether it
    /// has escapes.
    #[inline]
    pub fn key_colon(&mut self) -> Result<(Raw<'a>, bool), Stop> {
        if self.peek("EOF while parsing an object")? != b'"' {
            return Err(self.bad("key must be a string"));
        }
        let key = self.string()?;
        self.expect(b':', "expected `:`")?;
        Ok(key)
    }

    /// After a member's value: `true` when another member follows (its
    /// `,` consumed), `false` at the object's `}` (consumed).
    pub fn next_member(&mut self) -> Result<bool, Stop> {
        match self.peek("EOF while parsing an object")? {
            b',' => {
                self.at += 1;
                Ok(true)
            }
            b'}' => {
                self.at += 1;
                Ok(false)
            }
            _ => Err(self.bad("expected `,` or `}`")),
        }
    }

    /// Steps over the rest of an object whose `{` and some members were
    /// read (the position after a member's value).
    pub fn skip_members(&mut self) -> Result<(), Stop> {
        while self.next_member()? {
            self.key_colon()?;
            self.skip()?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn skip_all(text: &str) -> Result<usize, Stop> {
        let mut lx = Lex::new(text.as_bytes(), true);
        lx.skip()?;
        Ok(lx.at)
    }

    /// The definition `plain_run` must keep, byte by byte and without the
    /// table: the first index from `from` that is a quote, a backslash, a
    /// control character or a byte beyond ASCII.
    fn plain_run_by_bytes(bytes: &[u8], from: usize) -> usize {
        let plain = |c: u8| (0x20..0x80).contains(&c) && c != b'"' && c != b'\\';
        (from..bytes.len())
            .find(|&j| !plain(bytes[j]))
            .unwrap_or(bytes.len())
    }

    #[test]
    fn plain_run_stops_where_the_byte_by_byte_definition_does() {
        // One byte of each value at each place of a buffer that spans three
        // search windows (64 + 64 + 22 bytes), the rest plain, searched from
        // the window edges, the start and around the byte.
        let len = 2 * PLAIN_WINDOW + 22;
        for value in 0..=255u8 {
            for place in 0..len {
                let mut bytes = vec![b'a'; len];
                bytes[place] = value;
                let edges = [0, 1, 63, 64, 65, 127, 128, 129, len - 1, len];
                let near = [place.saturating_sub(1), place, place + 1];
                for from in edges.into_iter().chain(near).filter(|&f| f <= len) {
                    assert_eq!(
                        plain_run(&bytes, from),
                        plain_run_by_bytes(&bytes, from),
                        "byte {value:#04x} at {place}, from {from}"
                    );
                }
            }
        }
        // Random buffers, from every position: sparse and dense stops, runs
        // of bytes beyond ASCII, lengths across the window edges. A fixed
        // xorshift seed, so a failure names the same buffer every run.
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for round in 0..3000 {
            let len = (next() % 300) as usize;
            // One byte in `rarity` is any of the 256 values, the rest
            // printable ASCII (quotes and backslashes among them).
            let rarity = [1, 2, 8, 40, 200][round % 5];
            let bytes: Vec<u8> = (0..len)
                .map(|_| {
                    let r = next();
                    if r % rarity == 0 {
                        (r >> 32) as u8
                    } else {
                        b' ' + ((r >> 40) % 95) as u8
                    }
                })
                .collect();
            for from in 0..=bytes.len() {
                assert_eq!(
                    plain_run(&bytes, from),
                    plain_run_by_bytes(&bytes, from),
                    "round {round}, from {from}: {bytes:?}"
                );
            }
        }
    }

    #[test]
    fn what_serde_json_accepts_is_accepted_and_the_rest_refused() {
        // Each text against serde_json's own verdict on it (the reader's
        // parser before this scanner): the two must agree on every one.
        let cases = [
            "0",
            "-0",
            "1.5e-3",
            "-12.0E+7",
            "true",
            "null",
            "false",
            "\"a\\u00e9\\n\"",
            "[]",
            "{}",
            "[1,[2,{\"a\":[3]}],{}]",
            "{\"a\":1,\"b\":{\"c\":[true,null]}}",
            "\"é€😀\"",
            "01",
            "1.",
            ".5",
            "-",
            "1e",
            "+1",
            "tru",
            "nul",
            "[1,]",
            "{\"a\"}",
            "{\"a\":1,}",
            "{1:2}",
            "[1 2]",
            "\"\\x\"",
            "\"\\u12g4\"",
            "\"a\tb\"",
            "{\"a\":1",
            "[",
            "\"abc",
            "[1,{\"a\":[1,2]]",
            "\"\\ud800\"",
        ];
        for text in cases {
            let ours = skip_all(text).map(|n| n == text.len());
            let serde = serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok();
            assert_eq!(ours == Ok(true), serde, "{text:?}: ours {ours:?}");
        }
    }

    #[test]
    fn strings_must_be_utf8_checked_where_a_piece_cuts_them() {
        let bad = |b: &[u8]| {
            let mut lx = Lex::new(b, true);
            matches!(
                lx.skip(),
                Err(Stop::Bad {
                    what: "invalid unicode code point",
                    ..
                })
            )
        };
        // A stray byte, a surrogate encoded in UTF-8, an overlong form.
        for b in [
            &b"\"\xff\""[..],
            b"\"\xed\xa0\x80\"",
            b"\"\xc0\xaf\"",
            b"\"a\xe2\x82\"",
        ] {
            assert!(bad(b), "{b:?}");
        }
        let text = "\"é€😀\"".as_bytes();
        let mut lx = Lex::new(text, true);
        assert_eq!(lx.string().map(|(r, _)| r.get()), Ok("\"é€😀\""));
        // Cut inside each multi-byte character: more is asked for.
        for cut in 2..text.len() - 1 {
            let mut lx = Lex::new(&text[..cut], false);
            assert_eq!(lx.skip(), Err(Stop::Cut), "{cut}");
        }
        // A byte that can start no character is bad even when cut.
        let mut lx = Lex::new(b"\"\xff", false);
        assert!(matches!(lx.skip(), Err(Stop::Bad { .. })));
    }

    #[test]
    fn a_value_cut_by_the_buffer_asks_for_more_and_at_the_end_is_an_error() {
        for text in [
            "{\"a\":[1,2",
            "\"abc",
            "12",
            "1.5",
            "tr",
            "{\"a\"",
            "[\"\\u00",
        ] {
            let mut lx = Lex::new(text.as_bytes(), false);
            assert_eq!(lx.skip(), Err(Stop::Cut), "{text}");
            let mut lx = Lex::new(text.as_bytes(), true);
            // A number that ends the text is whole.
            let whole = matches!(text, "12" | "1.5");
            match lx.skip() {
                Ok(()) => assert!(whole, "{text}"),
                Err(Stop::Bad { what, .. }) => {
                    assert!(what.starts_with("EOF while parsing"), "{text}: {what}")
                }
                Err(e) => panic!("{text}: {e:?}"),
            }
        }
    }

    #[test]
    fn nesting_is_unbounded_and_strings_are_measured_exactly() {
        // 100,000 levels, beyond the word of 128: walked without recursion.
        for depth in [127, 128, 129, 100_000] {
            let deep = "[{\"a\":".repeat(depth) + "1" + &"}]".repeat(depth);
            assert_eq!(skip_all(&deep), Ok(deep.len()), "{depth}");
            let wrong = "[{\"a\":".repeat(depth) + "1" + &"]}".repeat(depth);
            assert!(matches!(skip_all(&wrong), Err(Stop::Bad { .. })), "{depth}");
        }
        let n = MAX_STRING_BYTES as usize;
        let at = format!("\"{}\"", "x".repeat(n));
        assert_eq!(skip_all(&at), Ok(at.len()));
        let over = format!("\"{}\"", "x".repeat(n + 1));
        assert_eq!(skip_all(&over), Err(Stop::LongString));
        // Cut inside a string already over the bound: said at once.
        let mut lx = Lex::new(&over.as_bytes()[..n + 2], false);
        assert_eq!(lx.skip(), Err(Stop::LongString));
    }
}
