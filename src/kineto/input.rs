//! The byte stream under the JSON parser: plain or gzip (told by the first
//! two bytes, not the extension), with the bounds the parser itself lacks —
//! no string longer than [`MAX_STRING_BYTES`] (serde_json buffers a whole
//! string before handing it over), and no more than
//! [`MAX_GZIP_RATIO`] bytes of JSON per byte of gzip (a decompression bomb
//! stops early instead of running for hours).

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;

/// Longest JSON string accepted, bytes. Real kernel names (templated C++)
/// run to ~20 KB; names are stored cut at 4 KiB anyway.
pub const MAX_STRING_BYTES: u64 = 1 << 20;

/// Most bytes of JSON accepted per byte of gzip. Kineto traces compress
/// 10–15× (the corpus: 9.9× to 19.6×); a stream expanding further is
/// refused (decompress it yourself: plain JSON has no ratio limit).
pub const MAX_GZIP_RATIO: u64 = 200;

/// Plain JSON allowed before the ratio applies (small gzip files may
/// legitimately expand more), bytes.
const RATIO_FLOOR_BYTES: u64 = 64 << 20;

/// Why the byte stream stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Overrun {
    /// A string longer than [`MAX_STRING_BYTES`].
    LongString,
    /// More JSON than [`MAX_GZIP_RATIO`] × the gzip size.
    GzipRatio,
}

impl std::fmt::Display for Overrun {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Overrun::LongString => write!(f, "a JSON string longer than {MAX_STRING_BYTES} bytes"),
            Overrun::GzipRatio => write!(
                f,
                "the gzip stream expands more than {MAX_GZIP_RATIO}× (a decompression bomb?)"
            ),
        }
    }
}

impl std::error::Error for Overrun {}

/// True when the file starts like a Kineto trace: gzip magic, or `{` after
/// optional whitespace (and a UTF-8 byte-order mark).
pub fn looks_like_json_or_gzip(path: &Path) -> bool {
    let mut head = [0u8; 64];
    let Ok(mut f) = File::open(path) else {
        return false;
    };
    let n = f.read(&mut head).unwrap_or(0);
    let head = &head[..n];
    if head.starts_with(&[0x1f, 0x8b]) {
        return true;
    }
    let head = head.strip_prefix(&[0xEF, 0xBB, 0xBF]).unwrap_or(head);
    head.iter()
        .find(|b| !b.is_ascii_whitespace())
        .is_some_and(|b| *b == b'{')
}

/// True when `path` is a Kineto trace rather than another JSON document
/// (a rooftrace report): gzip, or a JSON object whose first 64 KiB name
/// `traceEvents` or Kineto's `schemaVersion`.
pub fn is_kineto_trace(path: &Path) -> bool {
    let mut head = vec![0u8; 64 << 10];
    let Ok(mut f) = File::open(path) else {
        return false;
    };
    let n = f.read(&mut head).unwrap_or(0);
    let head = &head[..n];
    if head.starts_with(&[0x1f, 0x8b]) {
        return true;
    }
    let has = |needle: &[u8]| head.windows(needle.len()).any(|w| w == needle);
    looks_like_json_or_gzip(path) && (has(b"\"traceEvents\"") || has(b"\"schemaVersion\""))
}

/// True when the first 64 KiB of `path`'s JSON (gzip decoded, at most
/// 64 KiB read from either) name `traceEvents` or Kineto's
/// `schemaVersion`: the content check of a directory search, where any
/// `.json` or `.gz` file may lie (reports, archives).
pub fn holds_trace(path: &Path) -> bool {
    const HEAD: u64 = 64 << 10;
    let Ok(file) = File::open(path) else {
        return false;
    };
    let mut raw = BufReader::new(file);
    let gzip = raw.fill_buf().is_ok_and(|b| b.starts_with(&[0x1f, 0x8b]));
    let mut head = Vec::new();
    let read = if gzip {
        flate2::bufread::MultiGzDecoder::new(raw)
            .take(HEAD)
            .read_to_end(&mut head)
    } else {
        raw.take(HEAD).read_to_end(&mut head)
    };
    // A truncated head (a cut gzip) still shows its first bytes.
    if read.is_err() && head.is_empty() {
        return false;
    }
    let first = head.iter().find(|b| !b.is_ascii_whitespace());
    let has = |needle: &[u8]| head.windows(needle.len()).any(|w| w == needle);
    first == Some(&b'{') && (has(b"\"traceEvents\"") || has(b"\"schemaVersion\""))
}

/// Opens `path` as a buffered, bounded JSON byte stream; gzip is decoded on
/// the fly. Returns the stream and whether it was gzip.
pub fn open(path: &Path) -> io::Result<(BufReader<Bounded>, bool)> {
    let file = File::open(path)?;
    let size = file.metadata()?.len();
    let mut raw = BufReader::with_capacity(1 << 16, file);
    let gzip = raw.fill_buf()?.starts_with(&[0x1f, 0x8b]);
    let (inner, limit): (Box<dyn Read + Send>, u64) = if gzip {
        let limit = size.saturating_mul(MAX_GZIP_RATIO).max(RATIO_FLOOR_BYTES);
        (Box::new(flate2::bufread::MultiGzDecoder::new(raw)), limit)
    } else {
        (Box::new(raw), u64::MAX)
    };
    let bounded = Bounded {
        inner,
        limit,
        total: 0,
        in_string: false,
        escaped: false,
        string_len: 0,
    };
    Ok((BufReader::with_capacity(1 << 16, bounded), gzip))
}

/// A reader that watches the JSON bytes go by: the length of the current
/// string and the total expanded size.
pub struct Bounded {
    inner: Box<dyn Read + Send>,
    limit: u64,
    total: u64,
    in_string: bool,
    escaped: bool,
    string_len: u64,
}

impl Bounded {
    /// Scans bytes just read; `Err` when a bound is crossed.
    fn scan(&mut self, bytes: &[u8]) -> Result<(), Overrun> {
        self.total += bytes.len() as u64;
        if self.total > self.limit {
            return Err(Overrun::GzipRatio);
        }
        for &b in bytes {
            if self.in_string {
                self.string_len += 1;
                if self.escaped {
                    self.escaped = false;
                } else if b == b'\\' {
                    self.escaped = true;
                } else if b == b'"' {
                    self.in_string = false;
                }
            } else if b == b'"' {
                self.in_string = true;
                self.string_len = 0;
            }
        }
        if self.in_string && self.string_len > MAX_STRING_BYTES {
            return Err(Overrun::LongString);
        }
        Ok(())
    }
}

impl Read for Bounded {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.scan(&buf[..n])
            .map_err(|o| io::Error::new(io::ErrorKind::InvalidData, o))?;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bounded(limit: u64) -> Bounded {
        Bounded {
            inner: Box::new(io::empty()),
            limit,
            total: 0,
            in_string: false,
            escaped: false,
            string_len: 0,
        }
    }

    #[test]
    fn a_string_is_measured_across_reads_and_escapes() {
        let mut b = bounded(u64::MAX);
        b.scan(br#"{"a\"b": ""#).unwrap();
        assert!(b.in_string);
        let long = vec![b'x'; MAX_STRING_BYTES as usize + 1];
        b.scan(&long).unwrap_err();
        let mut b = bounded(u64::MAX);
        b.scan(br#"{"name": "k\\", "x": 1}"#).unwrap();
        assert!(
            !b.in_string,
            "an escaped backslash does not escape the quote"
        );
    }

    #[test]
    fn the_expanded_total_is_capped() {
        let mut b = bounded(10);
        b.scan(b"0123456789").unwrap();
        assert_eq!(b.scan(b"x"), Err(Overrun::GzipRatio));
    }
}
