//! The content tests the door runs, each on the file's bytes alone: the
//! first bytes (SQLite's header, gzip's magic, a binary's), an ncu CSV's
//! header line among the lines before it, and a JSON document's `schema`
//! key. None of them trusts a file name.

use super::kind::{Found, NcuShape};
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

/// SQLite's file header (the first 16 bytes of every database).
pub const SQLITE_MAGIC: &[u8] = b"SQLite format 3\0";
/// gzip's first two bytes.
const GZIP_MAGIC: &[u8] = &[0x1f, 0x8b];
/// Text read looking for an ncu CSV header: application output may come
/// first (ncu prints the profiled program's stdout into the same file).
const CSV_SCAN_BYTES: u64 = 16 << 20;
/// Most bytes of one JSON document read for its `schema` key.
const JSON_SCAN_BYTES: u64 = 512 << 20;
/// Bytes shown when the door names what it found.
const SHOWN_BYTES: usize = 8;

/// The first `n` bytes of a regular file (fewer when it is shorter; none
/// when it cannot be opened: the caller's open says why).
pub fn head(path: &Path, n: usize) -> Vec<u8> {
    let mut head = Vec::new();
    if let Ok(f) = crate::timeline::limits::open_regular(path) {
        let _ = f.take(n as u64).read_to_end(&mut head);
    }
    head
}

/// True when `head` starts with SQLite's header.
pub fn is_sqlite(head: &[u8]) -> bool {
    head.starts_with(SQLITE_MAGIC)
}

/// True when `head` starts with gzip's magic.
pub fn is_gzip(head: &[u8]) -> bool {
    head.starts_with(GZIP_MAGIC)
}

/// The page of the ncu CSV in `path`, from its header line
/// ([`crate::ncu::is_header_line`]), or [`NcuShape::Log`] when only ncu's
/// log lines come before the end of what is scanned; `None` for other
/// text.
pub fn ncu_shape(path: &Path) -> Option<NcuShape> {
    let file = crate::timeline::limits::open_regular(path).ok()?;
    let mut reader = BufReader::new(file.take(CSV_SCAN_BYTES));
    let mut line = Vec::new();
    let mut log = false;
    loop {
        line.clear();
        match reader.read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        let body = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&line);
        if crate::ncu::is_header_line(body) {
            let details = body.windows(11).any(|w| w == b"Metric Name");
            return Some(if details {
                NcuShape::Details
            } else {
                NcuShape::Raw
            });
        }
        log |= crate::ncu::is_log_line(body);
    }
    log.then_some(NcuShape::Log)
}

/// True when the gzip stream of `path` decodes to its end (within a bound
/// on the bytes decoded): false for a stream cut short or damaged.
pub fn gzip_decodes_whole(path: &Path) -> bool {
    let Ok(file) = crate::timeline::limits::open_regular(path) else {
        return false;
    };
    let mut decoder = flate2::read::MultiGzDecoder::new(BufReader::new(file)).take(JSON_SCAN_BYTES);
    std::io::copy(&mut decoder, &mut std::io::sink()).is_ok()
}

/// The `schema` value of the first JSON document in `path` (a report, a
/// roofs file, or the first line of calibration results), if it has one.
pub fn json_schema(path: &Path) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Head {
        schema: Option<serde_json::Value>,
    }
    let file = crate::timeline::limits::open_regular(path).ok()?;
    let reader = BufReader::new(file.take(JSON_SCAN_BYTES));
    let first = serde_json::Deserializer::from_reader(reader)
        .into_iter::<Head>()
        .next()?
        .ok()?;
    first.schema?.as_str().map(str::to_string)
}

/// What a file's first bytes show, for a file that is no input: text (its
/// first line as it is, backquotes as `'`, control characters as `.`, cut
/// at 40 characters) or, for bytes that are no text (a NUL, or not UTF-8
/// but for a character cut at the end), their hex with a guess at what
/// they are.
pub fn found_in(head: &[u8]) -> Found {
    if crate::error::looks_like_text(head) {
        let text = String::from_utf8_lossy(head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head));
        return Found::Text(crate::error::first_line_shown(&text));
    }
    let hex: Vec<String> = head
        .iter()
        .take(SHOWN_BYTES)
        .map(|b| format!("{b:02x}"))
        .collect();
    Found::Bytes(hex.join(" "), guess(head))
}

/// What a binary's magic bytes say it is.
fn guess(head: &[u8]) -> Option<&'static str> {
    const MAGICS: &[(&[u8], &str)] = &[
        (b"\x7fELF", "an ELF binary"),
        (b"PK\x03\x04", "a zip archive"),
        (b"\x89PNG", "a PNG image"),
        (b"%PDF", "a PDF"),
        (b"\x28\xb5\x2f\xfd", "a zstd stream"),
        (b"BZh", "a bzip2 stream"),
        (b"\xfd7zXZ", "an xz stream"),
        (b"MZ", "a Windows executable"),
    ];
    MAGICS
        .iter()
        .find(|(magic, _)| head.starts_with(magic))
        .map(|(_, what)| *what)
}
