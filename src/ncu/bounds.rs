//! Bounds on what an ncu CSV may cost: a record (line) is at most
//! [`MAX_RECORD_BYTES`], so `/dev/zero` or a 10 MB field is an error, not an
//! allocation without bound; a value echoed in a message is cut to
//! [`MAX_ECHO_CHARS`]; a metric value must be finite and within
//! [`MAX_MAGNITUDE`] after its unit is applied.

use std::cell::Cell;
use std::io::{BufRead, Read};
use std::rc::Rc;

/// Longest record (from one unquoted line end to the next) read.
pub const MAX_RECORD_BYTES: u64 = 4 << 20;
/// Longest cell text quoted in an error message.
pub const MAX_ECHO_CHARS: usize = 120;
/// Largest magnitude a metric may have in SI base units: a real one
/// (bytes, instructions, cycles, seconds, hertz) is far below, and products
/// of two such values stay finite. Non-zero values below its inverse are
/// refused too.
pub const MAX_MAGNITUDE: f64 = 1e30;

/// The marker inside the `io::Error` raised for an over-long record.
#[derive(Debug)]
pub struct RecordTooLong;

impl std::fmt::Display for RecordTooLong {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "a record longer than {MAX_RECORD_BYTES} bytes")
    }
}

impl std::error::Error for RecordTooLong {}

fn too_long() -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidData, RecordTooLong)
}

/// True when `e` is the over-long record error.
pub fn is_too_long(e: &std::io::Error) -> bool {
    e.get_ref().is_some_and(|r| r.is::<RecordTooLong>())
}

/// A reader that counts the `"` bytes passing through it (an odd total
/// means the file ends inside a field) and fails on a record longer than
/// [`MAX_RECORD_BYTES`] (line ends inside quotes do not end a record).
pub struct Guard<R> {
    pub inner: R,
    pub quotes: Rc<Cell<u64>>,
    /// Bytes since the last record end.
    run: u64,
}

impl<R> Guard<R> {
    /// Wraps `inner`, counting into `quotes`.
    pub fn new(inner: R, quotes: Rc<Cell<u64>>) -> Guard<R> {
        Guard {
            inner,
            quotes,
            run: 0,
        }
    }
}

impl<R: Read> Read for Guard<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        let mut q = self.quotes.get();
        let mut run = self.run;
        // 64-byte blocks: a block without a line end only adds its quotes
        // and its length, in a loop the compiler turns into SIMD compares;
        // only blocks with a `\n` need the byte-at-a-time parity walk
        // (the plain walk took about a sixth of the parse).
        for block in buf[..n].chunks(64) {
            let mut quotes = 0u8;
            let mut newline = false;
            for &b in block {
                quotes += u8::from(b == b'"');
                newline |= b == b'\n';
            }
            if !newline {
                q += u64::from(quotes);
                run += block.len() as u64;
                continue;
            }
            for &b in block {
                if b == b'"' {
                    q += 1;
                } else if b == b'\n' && q % 2 == 0 {
                    run = 0;
                    continue;
                }
                run += 1;
            }
        }
        self.quotes.set(q);
        self.run = run;
        if run > MAX_RECORD_BYTES {
            return Err(too_long());
        }
        Ok(n)
    }
}

/// Reads one line (up to and including `\n`) into `line`, failing when it
/// is longer than [`MAX_RECORD_BYTES`]. Returns the bytes read.
pub fn read_line(reader: &mut impl BufRead, line: &mut Vec<u8>) -> std::io::Result<usize> {
    let n = reader.take(MAX_RECORD_BYTES + 1).read_until(b'\n', line)?;
    if n as u64 > MAX_RECORD_BYTES {
        return Err(too_long());
    }
    Ok(n)
}

/// A cell for an error message: lossy UTF-8, cut to [`MAX_ECHO_CHARS`]
/// characters with its full length noted.
pub fn echo(cell: &[u8]) -> String {
    let s = String::from_utf8_lossy(&cell[..cell.len().min(4 * MAX_ECHO_CHARS)]);
    if s.chars().count() <= MAX_ECHO_CHARS && cell.len() <= 4 * MAX_ECHO_CHARS {
        return s.into_owned();
    }
    let cut: String = s.chars().take(MAX_ECHO_CHARS).collect();
    format!("{cut}… ({} bytes)", cell.len())
}

/// The error for a cell that did not read as a number, at `line`, `column`.
pub fn number_error(
    e: super::number::NumberError,
    file: &str,
    line: u64,
    column: String,
    cell: &[u8],
) -> super::NcuError {
    use super::number::NumberError as E;
    use super::NcuError;
    let file = file.to_string();
    let value = echo(cell);
    match e {
        E::CommaDecimal => NcuError::CommaDecimal {
            file,
            line,
            column,
            value,
        },
        E::Overflow => NcuError::Implausible {
            file,
            line,
            column,
            value,
            why: implausible(f64::INFINITY).unwrap_or("overflows"),
        },
        E::NotANumber => NcuError::BadNumber {
            file,
            line,
            column,
            value,
        },
    }
}

/// Why a parsed metric value is not a measurement, or `None` when it is.
pub fn implausible(v: f64) -> Option<&'static str> {
    if !v.is_finite() {
        Some("is not finite once read (it overflows a 64-bit float)")
    } else if v.abs() > MAX_MAGNITUDE {
        Some("is beyond 1e30 in base units, not a measurement")
    } else if v != 0.0 && v.abs() < 1.0 / MAX_MAGNITUDE {
        Some("is below 1e-30 in base units, not a measurement")
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn echo_is_cut_and_says_how_long() {
        assert_eq!(echo(b"12x"), "12x");
        let long = vec![b'7'; 10_000];
        let e = echo(&long);
        assert!(e.ends_with("… (10000 bytes)"), "{e}");
        assert!(e.len() < 200);
    }

    #[test]
    fn guard_bounds_a_record_but_not_a_file() {
        let q = Rc::new(Cell::new(0));
        let mut ok = Guard::new(std::io::repeat(b'\n').take(3 * MAX_RECORD_BYTES), q.clone());
        std::io::copy(&mut ok, &mut std::io::sink()).unwrap();
        let mut zero = Guard::new(std::io::repeat(0).take(2 * MAX_RECORD_BYTES), q);
        let e = std::io::copy(&mut zero, &mut std::io::sink()).unwrap_err();
        assert!(is_too_long(&e));
    }

    #[test]
    fn guard_blocks_count_like_a_byte_walk() {
        // Quotes and line ends (some inside quotes) at every offset of a
        // 64-byte block: the block walk must end with the same quote count
        // and the same bytes since the last record end as a plain walk.
        let mut text = Vec::new();
        for i in 0..300u32 {
            text.extend(std::iter::repeat_n(b'x', (i % 97) as usize));
            text.extend_from_slice(if i % 3 == 0 { b"\"a\nb\"," } else { b"\"v\"\n" });
        }
        text.extend_from_slice(b"\"tail");
        let (mut q, mut run) = (0u64, 0u64);
        for &b in &text {
            if b == b'"' {
                q += 1;
            } else if b == b'\n' && q % 2 == 0 {
                run = 0;
                continue;
            }
            run += 1;
        }
        let quotes = Rc::new(Cell::new(0));
        let mut g = Guard::new(&text[..], quotes.clone());
        std::io::copy(&mut g, &mut std::io::sink()).unwrap();
        assert_eq!((quotes.get(), g.run), (q, run));
        assert_eq!(q % 2, 1, "the text ends inside a field");
        assert_eq!(run, 5, "`\"tail` since the last record end");
    }

    #[test]
    fn plausible_values() {
        assert!(implausible(1e12).is_none());
        assert!(implausible(0.0).is_none());
        assert!(implausible(f64::INFINITY).is_some());
        assert!(implausible(1e308).is_some());
        assert!(implausible(1e-308).is_some());
    }
}
