//! The JSON text under the parser, and what a file holds.
//!
//! [`Source`] turns a file into checked UTF-8 JSON text, piece by piece:
//! plain or gzip (told by the first two bytes, not the extension), a UTF-8
//! byte-order mark dropped, UTF-16 (with or without its mark) transcoded,
//! with no more than [`MAX_GZIP_RATIO`] bytes of JSON per byte of gzip (a
//! decompression bomb stops early). A FIFO, device or socket is refused
//! before it is opened. [`has_long_string`] checks the string bound
//! ([`MAX_STRING_BYTES`], exactly) on the values that could break it.
//! [`spawn`] runs a source on its own thread (inflating beside the parse).
//!
//! [`sniff`] says by content whether a file is a trace (the one test for
//! `gaps FILE`, `gaps DIR`, `diff`, `budget` and `ncu`).

use crate::timeline::limits::open_regular;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;
use std::sync::mpsc;

/// Longest JSON string accepted, bytes between the quotes as written.
/// Real kernel names (templated C++) run to ~20 KB; names are stored cut at
/// 4 KiB anyway.
pub const MAX_STRING_BYTES: u64 = 1 << 20;

/// Most bytes of JSON accepted per byte of gzip. Kineto traces compress
/// 10–20× (the corpus: 9.9× to 19.6×); a stream expanding further is
/// refused (decompress it yourself: plain JSON has no ratio limit).
pub const MAX_GZIP_RATIO: u64 = 200;

/// Plain JSON allowed before the ratio applies (small gzip files may
/// legitimately expand more), bytes.
const RATIO_FLOOR_BYTES: u64 = 64 << 20;

/// Longest single event or top-level value (`deviceProperties`), bytes: real
/// ones are under 1 MB.
pub const MAX_VALUE_BYTES: usize = 64 << 20;

/// Bytes of text per piece handed to the parser. 64 KiB: about six are in
/// flight (the channel, the spares, the one read), 1.1 MiB less peak RSS
/// than with 256 KiB pieces on a 100 MB trace for 1 % more instructions.
pub const PIECE_BYTES: usize = 64 << 10;

/// Why the byte stream stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Overrun {
    /// A string longer than [`MAX_STRING_BYTES`].
    LongString,
    /// More JSON than [`MAX_GZIP_RATIO`] × the gzip size.
    GzipRatio,
    /// One event or top-level value longer than
    /// [`MAX_VALUE_BYTES`].
    LongValue,
}

impl std::fmt::Display for Overrun {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Overrun::LongString => write!(f, "a JSON string longer than {MAX_STRING_BYTES} bytes"),
            Overrun::GzipRatio => write!(
                f,
                "the gzip stream expands more than {MAX_GZIP_RATIO}× (a decompression bomb?)"
            ),
            Overrun::LongValue => write!(
                f,
                "one event or value longer than {} bytes",
                MAX_VALUE_BYTES
            ),
        }
    }
}

/// Why the text could not be read.
#[derive(Debug)]
pub enum ReadError {
    /// The file could not be read.
    Io(io::Error),
    /// The gzip stream is corrupt or cut.
    Gzip(io::Error),
    /// A bound was crossed.
    Overrun(Overrun),
}

/// How the text is encoded, told by its first bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Encoding {
    Utf8,
    Utf16 { big_endian: bool },
}

/// A file as checked UTF-8 JSON text, one piece at a time.
pub struct Source {
    raw: Box<dyn Read + Send>,
    gzip: bool,
    limit: u64,
    total: u64,
    encoding: Option<Encoding>,
    utf16: Utf16State,
    read_buf: Vec<u8>,
    piece_bytes: usize,
    file_bytes: u64,
}

impl Source {
    /// Opens `path` (a regular file only).
    pub fn open(path: &Path) -> io::Result<Source> {
        let file = open_regular(path)?;
        let size = file.metadata()?.len();
        let mut raw = BufReader::with_capacity(1 << 16, file);
        let gzip = raw.fill_buf()?.starts_with(&[0x1f, 0x8b]);
        let (raw, limit): (Box<dyn Read + Send>, u64) = if gzip {
            let limit = size.saturating_mul(MAX_GZIP_RATIO).max(RATIO_FLOOR_BYTES);
            (Box::new(flate2::bufread::MultiGzDecoder::new(raw)), limit)
        } else {
            (Box::new(raw), u64::MAX)
        };
        Ok(Source {
            raw,
            gzip,
            limit,
            total: 0,
            encoding: None,
            utf16: Utf16State::default(),
            read_buf: Vec::new(),
            piece_bytes: PIECE_BYTES,
            file_bytes: size,
        })
    }

    /// The same source handing out pieces of `bytes` (at least 1) instead
    /// of [`PIECE_BYTES`]: the tests read traces in pieces of a few bytes,
    /// so that every value is cut somewhere.
    pub fn with_piece_bytes(mut self, bytes: usize) -> Source {
        self.piece_bytes = bytes.max(1);
        self
    }

    /// True when the file is gzip.
    pub fn is_gzip(&self) -> bool {
        self.gzip
    }

    /// Reads the next piece of text into `out` (cleared first): `false` at
    /// the end.
    pub fn next_piece(&mut self, out: &mut Vec<u8>) -> Result<bool, ReadError> {
        // UTF-8 text is read straight into `out`; UTF-16 through `read_buf`.
        let utf8 = self.encoding == Some(Encoding::Utf8);
        if !utf8 {
            out.clear();
        }
        // Not cleared first: a recycled piece is read over as it is (its
        // old bytes are not zeroed again, a piece each time), then cut to
        // what was read.
        let target = if utf8 { &mut *out } else { &mut self.read_buf };
        // The first piece holds at least 4 bytes: the encoding is told by
        // up to 3 (a UTF-8 mark; UTF-16's zero byte beside the first
        // character), and a piece of 1 or 2 bytes once read a mark as text.
        let want = if self.encoding.is_none() {
            self.piece_bytes.max(4)
        } else {
            self.piece_bytes
        };
        target.resize(want, 0);
        let mut filled = 0;
        while filled < want {
            let n = match self.raw.read(&mut target[filled..]) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) if self.gzip && e.kind() != io::ErrorKind::PermissionDenied => {
                    return Err(ReadError::Gzip(e))
                }
                Err(e) => return Err(ReadError::Io(e)),
            };
            filled += n;
        }
        target.truncate(filled);
        if filled == 0 {
            return Ok(false);
        }
        self.total += filled as u64;
        if self.total > self.limit {
            return Err(ReadError::Overrun(Overrun::GzipRatio));
        }
        if utf8 {
            return Ok(true);
        }
        let mut bytes = &self.read_buf[..filled];
        let encoding = *self.encoding.get_or_insert_with(|| {
            let (encoding, mark) = encoding_of(bytes);
            bytes = &bytes[mark..];
            encoding
        });
        match encoding {
            Encoding::Utf8 => out.extend_from_slice(bytes),
            Encoding::Utf16 { big_endian } => self.utf16.decode(bytes, big_endian, out),
        }
        Ok(true)
    }
}

/// The encoding of text starting with `head`, and the length of its
/// byte-order mark. Without a mark, UTF-16 shows as a zero byte beside the
/// first ASCII character (`{\0` little-endian, `\0{` big-endian).
fn encoding_of(head: &[u8]) -> (Encoding, usize) {
    match head {
        [0xEF, 0xBB, 0xBF, ..] => (Encoding::Utf8, 3),
        [0xFF, 0xFE, ..] => (Encoding::Utf16 { big_endian: false }, 2),
        [0xFE, 0xFF, ..] => (Encoding::Utf16 { big_endian: true }, 2),
        [a, 0, ..] if a.is_ascii() && *a != 0 => (Encoding::Utf16 { big_endian: false }, 0),
        [0, b, ..] if b.is_ascii() && *b != 0 => (Encoding::Utf16 { big_endian: true }, 0),
        _ => (Encoding::Utf8, 0),
    }
}

/// UTF-16 → UTF-8 across pieces: an odd byte and a high surrogate carry
/// over; an unpaired surrogate becomes U+FFFD.
#[derive(Debug, Default)]
struct Utf16State {
    odd: Option<u8>,
    high: Option<u16>,
}

impl Utf16State {
    fn decode(&mut self, bytes: &[u8], big_endian: bool, out: &mut Vec<u8>) {
        let push = |c: char, out: &mut Vec<u8>| {
            let mut b = [0u8; 4];
            out.extend_from_slice(c.encode_utf8(&mut b).as_bytes());
        };
        let mut i = 0;
        while i < bytes.len() {
            let pair = match self.odd.take() {
                Some(first) => {
                    i += 1;
                    [first, bytes[i - 1]]
                }
                None if i + 1 < bytes.len() => {
                    i += 2;
                    [bytes[i - 2], bytes[i - 1]]
                }
                None => {
                    self.odd = Some(bytes[i]);
                    break;
                }
            };
            let unit = if big_endian {
                u16::from_be_bytes(pair)
            } else {
                u16::from_le_bytes(pair)
            };
            match (self.high.take(), unit) {
                (Some(high), 0xDC00..=0xDFFF) => {
                    let c =
                        0x10000 + ((u32::from(high) - 0xD800) << 10) + (u32::from(unit) - 0xDC00);
                    push(char::from_u32(c).unwrap_or('\u{FFFD}'), out);
                }
                (high, 0xD800..=0xDBFF) => {
                    if high.is_some() {
                        push('\u{FFFD}', out);
                    }
                    self.high = Some(unit);
                }
                (high, _) => {
                    if high.is_some() {
                        push('\u{FFFD}', out);
                    }
                    push(char::from_u32(u32::from(unit)).unwrap_or('\u{FFFD}'), out);
                }
            }
        }
    }
}

/// True when the JSON text `value` holds a string longer than
/// [`MAX_STRING_BYTES`] (the bytes between its quotes as written, escapes
/// included). Only a value longer than the bound can hold one, so the
/// walker calls this on those alone.
pub fn has_long_string(value: &[u8]) -> bool {
    value.len() as u64 > MAX_STRING_BYTES && StringScan::default().scan(value).is_err()
}

/// The length of the JSON string being read, across pieces: exact, byte by
/// byte of the text as written (escapes count as written).
#[derive(Debug, Default)]
struct StringScan {
    in_string: bool,
    escaped: bool,
    len: u64,
}

impl StringScan {
    fn scan(&mut self, bytes: &[u8]) -> Result<(), Overrun> {
        let mut i = 0;
        while i < bytes.len() {
            if !self.in_string {
                match memchr::memchr(b'"', &bytes[i..]) {
                    Some(k) => {
                        i += k + 1;
                        self.in_string = true;
                        self.len = 0;
                    }
                    None => return Ok(()),
                }
                continue;
            }
            if self.escaped {
                self.escaped = false;
                self.len += 1;
                i += 1;
                continue;
            }
            let rest = &bytes[i..];
            let Some(k) = memchr::memchr2(b'"', b'\\', rest) else {
                self.len += rest.len() as u64;
                break;
            };
            self.len += k as u64;
            if rest[k] == b'\\' {
                self.escaped = true;
                self.len += 1;
            } else {
                self.in_string = false;
            }
            if self.len > MAX_STRING_BYTES {
                return Err(Overrun::LongString);
            }
            i += k + 1;
        }
        if self.in_string && self.len > MAX_STRING_BYTES {
            return Err(Overrun::LongString);
        }
        Ok(())
    }
}

/// Text up to about this size is read on the caller's thread: a thread of
/// its own would cost more than it gains (and its stack and arena). A gzip
/// file is taken to expand [`GZIP_GUESS`] times (Kineto JSON: 12 to 18).
pub const INLINE_TEXT_BYTES: u64 = 1 << 20;
/// The expansion assumed of a gzip trace when choosing a thread.
const GZIP_GUESS: u64 = 16;

/// The pieces of a [`Source`]: read on a thread of its own, coming through
/// a channel of two and going back to be refilled (memory: about six
/// pieces, 384 KiB), or read on the caller's thread as they are asked for.
pub struct Pieces {
    inner: PiecesInner,
}

enum PiecesInner {
    Thread {
        full: mpsc::Receiver<Result<Vec<u8>, ReadError>>,
        empty: mpsc::SyncSender<Vec<u8>>,
    },
    Inline {
        source: Box<Source>,
        spare: Vec<u8>,
        done: bool,
    },
}

impl Pieces {
    /// The next piece; `None` at the end.
    pub fn recv(&mut self) -> Option<Result<Vec<u8>, ReadError>> {
        match &mut self.inner {
            PiecesInner::Thread { full, .. } => full.recv().ok(),
            PiecesInner::Inline { done: true, .. } => None,
            PiecesInner::Inline {
                source,
                spare,
                done,
            } => {
                let mut piece = std::mem::take(spare);
                match source.next_piece(&mut piece) {
                    Ok(true) => Some(Ok(piece)),
                    Ok(false) => {
                        *done = true;
                        None
                    }
                    Err(e) => {
                        *done = true;
                        Some(Err(e))
                    }
                }
            }
        }
    }

    /// Gives a piece back to be refilled.
    pub fn recycle(&mut self, piece: Vec<u8>) {
        match &mut self.inner {
            PiecesInner::Thread { empty, .. } => {
                let _ = empty.try_send(piece);
            }
            PiecesInner::Inline { spare, .. } => *spare = piece,
        }
    }
}

/// The pieces of `source` read on the caller's thread.
pub fn inline(source: Source) -> Pieces {
    Pieces {
        inner: PiecesInner::Inline {
            source: Box::new(source),
            spare: Vec::new(),
            done: false,
        },
    }
}

/// The pieces of `source`: on a thread of its own for text larger than
/// [`INLINE_TEXT_BYTES`] (inflating and decoding then run beside the
/// parse), else on the caller's thread.
pub fn pieces(source: Source) -> Pieces {
    let guess = if source.gzip {
        source.file_bytes.saturating_mul(GZIP_GUESS)
    } else {
        source.file_bytes
    };
    if guess > INLINE_TEXT_BYTES {
        spawn(source)
    } else {
        inline(source)
    }
}

/// Runs `source` on a thread of its own. The thread ends at the end of
/// the text, at an error, or when the [`Pieces`] are dropped.
pub fn spawn(mut source: Source) -> Pieces {
    let (full_tx, full) = mpsc::sync_channel(2);
    let (empty, empty_rx) = mpsc::sync_channel::<Vec<u8>>(4);
    std::thread::spawn(move || loop {
        let mut piece = empty_rx.try_recv().unwrap_or_default();
        let sent = match source.next_piece(&mut piece) {
            Ok(true) => full_tx.send(Ok(piece)),
            Ok(false) => return,
            Err(e) => {
                let _ = full_tx.send(Err(e));
                return;
            }
        };
        if sent.is_err() {
            return; // the reader stopped
        }
    });
    Pieces {
        inner: PiecesInner::Thread { full, empty },
    }
}

/// What a file holds, by content.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Content {
    /// A trace: a JSON array (the older Chrome-trace form), or a JSON
    /// object with a top-level `traceEvents` or Kineto's `schemaVersion`.
    Trace,
    /// Another JSON object (a rooftrace report), or a gzip file that is not
    /// a trace.
    OtherJson,
    /// Not JSON (an SQLite export, a CSV), or not a regular file.
    Other,
}

/// Decoded text looked at to tell a trace (its top-level keys are scanned,
/// values skipped, so 70 kB of metadata before `traceEvents` is no issue).
const SNIFF_BYTES: u64 = 64 << 20;

/// What `path` holds, by its content (gzip decoded, mark and UTF-16 as the
/// reader takes them); [`Content::Other`] for a special file, unopened.
/// The trace test of the one door (`input::identify`), which every
/// command asks.
pub fn sniff(path: &Path) -> Content {
    let Ok(mut source) = Source::open(path) else {
        return Content::Other;
    };
    let mut keys = KeyScan::default();
    let mut piece = Vec::new();
    let mut seen = 0u64;
    while seen < SNIFF_BYTES {
        match source.next_piece(&mut piece) {
            Ok(true) => {}
            // A cut or hostile file is still a trace by its head.
            Ok(false) | Err(_) => break,
        }
        seen += piece.len() as u64;
        if let Some(found) = keys.scan(&piece) {
            return found;
        }
    }
    if source.is_gzip() || keys.object {
        Content::OtherJson
    } else {
        Content::Other
    }
}

/// Top-level keys of a JSON object, found without parsing values.
#[derive(Debug, Default)]
struct KeyScan {
    started: bool,
    object: bool,
    depth: u64,
    in_string: bool,
    escaped: bool,
    expect_key: bool,
    key: Option<Vec<u8>>,
}

impl KeyScan {
    fn scan(&mut self, bytes: &[u8]) -> Option<Content> {
        for &b in bytes {
            if !self.started {
                match b {
                    b' ' | b'\t' | b'\r' | b'\n' => continue,
                    b'[' => return Some(Content::Trace),
                    b'{' => {
                        self.started = true;
                        self.object = true;
                        self.depth = 1;
                        self.expect_key = true;
                        continue;
                    }
                    _ => return Some(Content::Other),
                }
            }
            if self.in_string {
                if self.escaped {
                    self.escaped = false;
                } else if b == b'\\' {
                    self.escaped = true;
                } else if b == b'"' {
                    self.in_string = false;
                    if let Some(k) = self.key.take() {
                        if k == b"traceEvents" || k == b"schemaVersion" {
                            return Some(Content::Trace);
                        }
                    }
                    continue;
                }
                if let Some(k) = self.key.as_mut().filter(|k| k.len() <= 16) {
                    k.push(b);
                }
                continue;
            }
            match b {
                b'"' => {
                    self.in_string = true;
                    self.key = (self.depth == 1 && self.expect_key).then(Vec::new);
                }
                b'{' | b'[' => self.depth += 1,
                b'}' | b']' => {
                    self.depth = self.depth.saturating_sub(1);
                    if self.depth == 0 {
                        return Some(Content::OtherJson);
                    }
                }
                b',' if self.depth == 1 => self.expect_key = true,
                b':' if self.depth == 1 => self.expect_key = false,
                _ => {}
            }
        }
        None
    }
}

/// Opens `path` as a plain [`File`] when it is a regular file.
pub fn open_file(path: &Path) -> io::Result<File> {
    open_regular(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_on_a_thread_and_inline_hand_over_the_same_text() {
        // A gzip file with a mark: both forms must give the text after the
        // mark, whole, in pieces of 7 bytes.
        let text = "{\"traceEvents\":[".to_string() + &"{\"ph\":\"X\"},".repeat(500) + "1]}";
        let mut raw = vec![0xEF, 0xBB, 0xBF];
        raw.extend_from_slice(text.as_bytes());
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut gz, &raw).unwrap();
        let f = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(f.path(), gz.finish().unwrap()).unwrap();
        let all = |mut p: Pieces| {
            let mut out = Vec::new();
            while let Some(piece) = p.recv() {
                let piece = piece.unwrap();
                assert!(piece.len() <= 7);
                out.extend_from_slice(&piece);
                p.recycle(piece);
            }
            String::from_utf8(out).unwrap()
        };
        let open = || Source::open(f.path()).unwrap().with_piece_bytes(7);
        assert_eq!(all(spawn(open())), text);
        assert_eq!(all(inline(open())), text);
        // A small file is read inline by `pieces`.
        assert!(matches!(pieces(open()).inner, PiecesInner::Inline { .. }));
    }

    #[test]
    fn a_string_is_measured_exactly_across_pieces_and_escapes() {
        let mut s = StringScan::default();
        s.scan(br#"{"a\"b": ""#).unwrap();
        assert!(s.in_string);
        let exact = vec![b'x'; MAX_STRING_BYTES as usize - 1];
        s.scan(&exact).unwrap();
        s.scan(b"y").unwrap(); // exactly the limit
        assert_eq!(s.scan(b"z"), Err(Overrun::LongString));
        let mut s = StringScan::default();
        s.scan(br#"{"name": "k\\", "x": 1}"#).unwrap();
        assert!(
            !s.in_string,
            "an escaped backslash does not escape the quote"
        );
        // A string one byte over, closed within one piece.
        let mut over = b"\"".to_vec();
        over.extend(vec![b'x'; MAX_STRING_BYTES as usize + 1]);
        over.extend(b"\" ");
        assert_eq!(StringScan::default().scan(&over), Err(Overrun::LongString));
        over.remove(1);
        assert_eq!(StringScan::default().scan(&over), Ok(()));
    }

    #[test]
    fn utf16_is_transcoded_across_odd_pieces() {
        let text = "{\"n\":\"é𝄞\"}";
        let units: Vec<u16> = text.encode_utf16().collect();
        for big_endian in [false, true] {
            let bytes: Vec<u8> = units
                .iter()
                .flat_map(|u| {
                    if big_endian {
                        u.to_be_bytes()
                    } else {
                        u.to_le_bytes()
                    }
                })
                .collect();
            let mut st = Utf16State::default();
            let mut out = Vec::new();
            for chunk in bytes.chunks(3) {
                st.decode(chunk, big_endian, &mut out);
            }
            assert_eq!(String::from_utf8(out).unwrap(), text);
        }
        let mut out = Vec::new();
        Utf16State::default().decode(&[0x00, 0xD8, 0x41, 0x00], false, &mut out);
        assert_eq!(String::from_utf8(out).unwrap(), "\u{FFFD}A");
    }

    #[test]
    fn top_level_keys_are_found_past_skipped_values() {
        let mut k = KeyScan::default();
        let meta = format!(
            r#"{{"deviceProperties":[{{"name":"{}"}}],"x":{{"traceEvents":1}},"#,
            "a".repeat(70_000)
        );
        assert_eq!(k.scan(meta.as_bytes()), None);
        assert_eq!(k.scan(br#""traceEvents":[]}"#), Some(Content::Trace));
        let mut k = KeyScan::default();
        assert_eq!(
            k.scan(br#"{"schema":"rooftrace.gaps/3","d":{"traceEvents":[]}}"#),
            Some(Content::OtherJson)
        );
        assert_eq!(KeyScan::default().scan(b" [{}]"), Some(Content::Trace));
        assert_eq!(KeyScan::default().scan(b"SQLite"), Some(Content::Other));
    }
}
