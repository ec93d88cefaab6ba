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

/// The text of one JSON value, already checked to be JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Raw<'a>(&'a str);

impl<'a> Raw<'a> {
    /// The value's JSON text as written.
    pub fn get(self) -> &'a str {
        self.0
    }
}

impl<'a> From<&'a serde_json::value::RawValue> for Raw<'a> {
    fn from(raw: &'a serde_json::value::RawValue) -> Raw<'a> {
        Raw(raw.get())
    }
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
    eof: bool,
}

impl<'a> Lex<'a> {
    /// A scanner over `b`; `eof` when no text follows it.
    pub fn new(b: &'a [u8], eof: bool) -> Lex<'a> {
        Lex { b, i: 0, eof }
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
    /// text with its quotes, and whether it has escapes.
    #[inline]
    pub fn string(&mut self) -> Result<(Raw<'a>, bool), Stop> {
        let start = self.i;
        debug_assert_eq!(self.b[start], b'"');
        let mut j = start + 1;
        let mut escaped = false;
        loop {
            let Some(k) = memchr::memchr2(b'"', b'\\', &self.b[j..]) else {
                self.i = self.b.len();
                if (self.b.len() - start - 1) as u64 > MAX_STRING_BYTES {
                    return Err(Stop::LongString);
                }
                return Err(self.end("EOF while parsing a string"));
            };
            j += k;
            if self.b[j] == b'"' {
                break;
            }
            escaped = true;
            // An escape: `\"`, `\\`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t`,
            // or `\u` and four hex digits.
            let Some(&e) = self.b.get(j + 1) else {
                self.i = self.b.len();
                return Err(self.end("EOF while parsing a string"));
            };
            match e {
                b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => j += 2,
                b'u' => {
                    for d in 0..4 {
                        match self.b.get(j + 2 + d) {
                            Some(h) if h.is_ascii_hexdigit() => {}
                            Some(_) => {
                                self.i = j + 2 + d;
                                return Err(self.bad("invalid escape"));
                            }
                            None => {
                                self.i = self.b.len();
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
        let inner = &self.b[start + 1..j];
        if inner.len() as u64 > MAX_STRING_BYTES {
            return Err(Stop::LongString);
        }
        // Control characters must be escaped; text beyond ASCII must be
        // UTF-8 (one pass over the string when it is ASCII, which is the
        // common case: a fold the compiler vectorises).
        let (low, high) = inner.iter().fold((false, false), |(l, h), &c| {
            (l | (c < 0x20), h | (c >= 0x80))
        });
        if low {
            let at = start + 1 + inner.iter().position(|&c| c < 0x20).unwrap_or(0);
            self.i = at;
            return Err(
                self.bad("control character (\\u0000-\\u001F) found while parsing a string")
            );
        }
        let text = if high {
            match std::str::from_utf8(&self.b[start..=j]) {
                Ok(t) => t,
                Err(e) => {
                    self.i = start + e.valid_up_to();
                    return Err(self.bad("invalid unicode code point"));
                }
            }
        } else {
            ascii(&self.b[start..=j])
        };
        self.i = j + 1;
        Ok((Raw(text), escaped))
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
        self.peek("EOF while parsing a value")?;
        let start = self.i;
        self.skip()?;
        Ok(Raw(ascii_or_checked(&self.b[start..self.i])))
    }

    /// Steps over one value (after whitespace), validating it.
    pub fn skip(&mut self) -> Result<(), Stop> {
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

    /// A member's key and its `:`: the key's raw text.
    pub fn key_colon(&mut self) -> Result<Raw<'a>, Stop> {
        if self.peek("EOF while parsing an object")? != b'"' {
            return Err(self.bad("key must be a string"));
        }
        let (key, _) = self.string()?;
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

/// Text the scanner checked: ASCII, or UTF-8 checked in its strings (the
/// only place JSON allows bytes beyond ASCII).
fn ascii_or_checked(b: &[u8]) -> &str {
    // Every byte beyond ASCII in a value lies in one of its strings, each
    // checked by `string`; a failure here cannot happen, and would read
    // as an empty value rather than a panic.
    std::str::from_utf8(b).unwrap_or("")
}

/// ASCII bytes as text.
fn ascii(b: &[u8]) -> &str {
    std::str::from_utf8(b).unwrap_or("")
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
