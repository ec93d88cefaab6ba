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

/// The first index from `j` whose byte is not plain in a string (an end,
/// an escape, a control character or a byte beyond ASCII), or `b.len()`:
/// 16 bytes at a time with SSE2 (part of x86_64), then byte by byte.
#[inline]
fn plain_run(b: &[u8], mut j: usize) -> usize {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{
            _mm_cmpeq_epi8, _mm_max_epu8, _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8,
            _mm_set_epi64x,
        };
        while let Some(block) = b.get(j..j + 16) {
            let (lo, hi) = block.split_at(8);
            let word = |h: &[u8]| i64::from_le_bytes(h.try_into().unwrap_or_default());
            let (lo, hi) = (word(lo), word(hi));
            // SAFETY: SSE2 is part of every x86_64 target (this block is
            // compiled for no other); the intrinsics work on values only
            // (the 16 bytes were read above, in bounds, by safe code).
            let mask = unsafe {
                let v = _mm_set_epi64x(hi, lo);
                let quote = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'"' as i8));
                let backslash = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'\\' as i8));
                // Unsigned v <= 0x1F: a control character.
                let control =
                    _mm_cmpeq_epi8(_mm_max_epu8(v, _mm_set1_epi8(0x1f)), _mm_set1_epi8(0x1f));
                // The sign bit of `v` itself: a byte beyond ASCII.
                let any = _mm_or_si128(_mm_or_si128(quote, backslash), _mm_or_si128(control, v));
                _mm_movemask_epi8(any) as u32
            };
            if mask != 0 {
                return j + mask.trailing_zeros() as usize;
            }
            j += 16;
        }
    }
    while j < b.len() && STRING_BYTE[b[j] as usize] == 0 {
        j += 1;
    }
    j
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

/// The scanner: `b[i..]` is what is left.
pub struct Lex<'a> {
    /// The buffer.
    pub b: &'a [u8],
    /// The position.
    pub i: usize,
    /// The longest prefix of `b` that is UTF-8 (all of it for
    /// [`Lex::text`]): values are handed out as slices of it, and a
    /// string inside it needs no UTF-8 check of its own.
    text: &'a str,
    eof: bool,
}

impl<'a> Lex<'a> {
    /// A scanner over `b`, which may hold bytes that are not UTF-8 (a
    /// string reaching them is refused as it was: "invalid unicode code
    /// point"); `eof` when no text follows it. One check of `b` for UTF-8
    /// first: the walker scans its checked text with [`Lex::text`] and
    /// comes here only for the value that reaches bytes that are not.
    pub fn new(b: &'a [u8], eof: bool) -> Lex<'a> {
        let text = match std::str::from_utf8(b) {
            Ok(t) => t,
            Err(e) => std::str::from_utf8(&b[..e.valid_up_to()]).unwrap_or(""),
        };
        Lex { b, i: 0, text, eof }
    }

    /// A scanner over text known to be UTF-8.
    pub fn text(text: &'a str, eof: bool) -> Lex<'a> {
        Lex {
            b: text.as_bytes(),
            i: 0,
            text,
            eof,
        }
    }

    /// The scanned value `b[start..end]` as [`Raw`]. A value scanned whole
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
                at: self.b.len(),
                what,
            }
        } else {
            Stop::Cut
        }
    }

    /// An error at the position.
    pub fn bad(&self, what: &'static str) -> Stop {
        Stop::Bad { at: self.i, what }
    }

    /// The next byte that is not whitespace (not consumed).
    #[inline]
    pub fn peek(&mut self, eof_what: &'static str) -> Result<u8, Stop> {
        while let Some(&c) = self.b.get(self.i) {
            if !matches!(c, b' ' | b'\t' | b'\r' | b'\n') {
                return Ok(c);
            }
            self.i += 1;
        }
        Err(self.end(eof_what))
    }

    /// Steps past `c` (after whitespace), or says `what`.
    #[inline]
    pub fn expect(&mut self, c: u8, what: &'static str) -> Result<(), Stop> {
        if self.peek("EOF while parsing an object")? != c {
            return Err(self.bad(what));
        }
        self.i += 1;
        Ok(())
    }

    /// A string at the position (its `"` next, after whitespace): the raw
    /// text with its quotes, and whether it has escapes. One pass over its
    /// bytes; those beyond ASCII are checked as UTF-8 where they are.
    #[inline]
    pub fn string(&mut self) -> Result<(Raw<'a>, bool), Stop> {
        let b = self.b;
        let start = self.i;
        let mut j = start + 1;
        let mut escaped = false;
        loop {
            j = plain_run(b, j);
            let Some(&c) = b.get(j) else {
                self.i = b.len();
                if (b.len() - start - 1) as u64 > MAX_STRING_BYTES {
                    return Err(Stop::LongString);
                }
                return Err(self.end("EOF while parsing a string"));
            };
            match STRING_BYTE[c as usize] {
                2 => {
                    self.i = j;
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
                        self.i = j;
                        return Err(self.bad("invalid unicode code point"));
                    }
                    let Some(seq) = b.get(j..j + n) else {
                        // Bytes that cannot start a valid sequence are bad
                        // even when cut.
                        if std::str::from_utf8(&b[j..]).is_err_and(|e| e.error_len().is_some()) {
                            self.i = j;
                            return Err(self.bad("invalid unicode code point"));
                        }
                        self.i = b.len();
                        return Err(self.end("EOF while parsing a string"));
                    };
                    if std::str::from_utf8(seq).is_err() {
                        self.i = j;
                        return Err(self.bad("invalid unicode code point"));
                    }
                    j += n;
                }
                _ if c == b'"' => break,
                _ => {
                    escaped = true;
                    // An escape: `\"`, `\\`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t`,
                    // or `\u` and four hex digits.
                    let Some(&e) = b.get(j + 1) else {
                        self.i = b.len();
                        return Err(self.end("EOF while parsing a string"));
                    };
                    match e {
                        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => j += 2,
                        b'u' => {
                            for d in 0..4 {
                                match b.get(j + 2 + d) {
                                    Some(h) if h.is_ascii_hexdigit() => {}
                                    Some(_) => {
                                        self.i = j + 2 + d;
                                        return Err(self.bad("invalid escape"));
                                    }
                                    None => {
                                        self.i = b.len();
                                        return Err(self.end("EOF while parsing a string"));
                                    }
                                }
                            }
                            j += 6;
                        }
                        _ => {
                            self.i = j + 1;
                            return Err(self.bad("invalid escape"));
                        }
                    }
                }
            }
        }
        if (j - start - 1) as u64 > MAX_STRING_BYTES {
            return Err(Stop::LongString);
        }
        self.i = j + 1;
        Ok((self.raw(start, j + 1), escaped))
    }

    /// A number at the position (JSON's grammar: `-?(0|[1-9][0-9]*)`,
    /// an optional fraction and exponent).
    fn number(&mut self) -> Result<(), Stop> {
        let b = self.b;
        let mut j = self.i;
        let at_end = |j: usize| j >= b.len();
        if b[j] == b'-' {
            j += 1;
        }
        let digits = |mut j: usize| {
            while j < b.len() && b[j].is_ascii_digit() {
                j += 1;
            }
            j
        };
        match b.get(j) {
            None => return Err(self.end("EOF while parsing a value")),
            Some(b'0') => j += 1,
            Some(b'1'..=b'9') => j = digits(j + 1),
            Some(_) => {
                self.i = j;
                return Err(self.bad("invalid number"));
            }
        }
        if !at_end(j) && b[j] == b'.' {
            let k = digits(j + 1);
            if k == j + 1 {
                self.i = k;
                return Err(if at_end(k) {
                    self.end("EOF while parsing a value")
                } else {
                    self.bad("invalid number")
                });
            }
            j = k;
        }
        if !at_end(j) && (b[j] == b'e' || b[j] == b'E') {
            j += 1;
            if !at_end(j) && (b[j] == b'+' || b[j] == b'-') {
                j += 1;
            }
            let k = digits(j);
            if k == j {
                self.i = k;
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
        self.i = j;
        Ok(())
    }

    /// `true`, `false` or `null` at the position.
    fn literal(&mut self) -> Result<(), Stop> {
        let word: &[u8] = match self.b[self.i] {
            b't' => b"true",
            b'f' => b"false",
            _ => b"null",
        };
        let rest = &self.b[self.i..];
        let n = word.len().min(rest.len());
        if rest[..n] != word[..n] {
            let k = rest.iter().zip(word).take_while(|(a, b)| a == b).count();
            self.i += k;
            return Err(self.bad("expected ident"));
        }
        if n < word.len() {
            self.i = self.b.len();
            return Err(self.end("EOF while parsing a value"));
        }
        self.i += n;
        Ok(())
    }

    /// One value, validated and stepped over; its text.
    pub fn value(&mut self) -> Result<Raw<'a>, Stop> {
        let c = self.peek("EOF while parsing a value")?;
        if c == b'"' {
            return Ok(self.string()?.0);
        }
        let start = self.i;
        if matches!(c, b'-' | b'0'..=b'9') {
            self.number()?;
        } else {
            self.skip_any()?;
        }
        Ok(self.raw(start, self.i))
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
                    self.i += 1;
                    let object = c == b'{';
                    let close = if object { b'}' } else { b']' };
                    if self.peek("EOF while parsing a value")? == close {
                        self.i += 1;
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
                        self.i += 1;
                        if object {
                            self.key_colon()?;
                        }
                        break;
                    }
                    b'}' if object => {
                        self.i += 1;
                        levels.pop();
                    }
                    b']' if !object => {
                        self.i += 1;
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
                self.i += 1;
                Ok(true)
            }
            b'}' => {
                self.i += 1;
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
        Ok(lx.i)
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
