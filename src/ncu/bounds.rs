//! Bounds on what an ncu CSV may cost: a record (line) is at most
//! [`MAX_RECORD_BYTES`], so `/dev/zero` or a 10 MB field is an error, not an
//! allocation without bound; a value echoed in a message is cut to
//! [`MAX_ECHO_CHARS`]; a metric value must be finite and within
//! [`MAX_MAGNITUDE`] after its unit is applied.

use std::io::{BufRead, Read};

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

/// The over-long record error.
pub(crate) fn too_long() -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidData, RecordTooLong)
}

/// The marker inside the `io::Error` raised when the input ends inside a
/// quoted field (an odd number of `"` read): the file was cut, and its last
/// record must not reach the parser, which would read a cut value or name
/// as data (`"5,323,50` as a comma-decimal number, a cut kernel name as a
/// second kernel under one ID).
#[derive(Debug)]
pub struct EndsInsideQuotes;

impl std::fmt::Display for EndsInsideQuotes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the input ends inside a quoted field")
    }
}

impl std::error::Error for EndsInsideQuotes {}

/// The error for an input that ends inside a quoted field.
pub(crate) fn ends_inside_quotes() -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::UnexpectedEof, EndsInsideQuotes)
}

/// True when `e` is the error for an input that ends inside a quoted field.
pub fn is_ends_inside_quotes(e: &std::io::Error) -> bool {
    e.get_ref().is_some_and(|r| r.is::<EndsInsideQuotes>())
}

/// The marker inside the `io::Error` raised for a last record with no line
/// end and fewer fields than the header (a file cut between two fields,
/// right after a closing quote: the quotes pair up, so only the field count
/// shows the cut).
#[derive(Debug)]
pub struct CutRecord {
    /// Fields the record has.
    pub fields: usize,
    /// Fields the header has.
    pub expected: usize,
}

impl std::fmt::Display for CutRecord {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the input ends inside a record ({} of {} fields)",
            self.fields, self.expected
        )
    }
}

impl std::error::Error for CutRecord {}

/// The [`CutRecord`] inside `e`, if it is one.
pub fn cut_record(e: &std::io::Error) -> Option<&CutRecord> {
    e.get_ref().and_then(|r| r.downcast_ref::<CutRecord>())
}

/// True when `e` is the over-long record error.
pub fn is_too_long(e: &std::io::Error) -> bool {
    e.get_ref().is_some_and(|r| r.is::<RecordTooLong>())
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
    } else if v < 0.0 {
        // Every metric read is a count, bytes, a time, a rate or a
        // percentage: `-1,000` DRAM bytes would read as a compute bound.
        // (`-0` compares equal to 0 and is 0.)
        Some("is negative, which no counter, time, rate or percentage is")
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
    fn plausible_values() {
        assert!(implausible(1e12).is_none());
        assert!(implausible(0.0).is_none());
        assert!(implausible(-0.0).is_none());
        assert!(implausible(-1000.0).is_some());
        assert!(implausible(f64::INFINITY).is_some());
        assert!(implausible(1e308).is_some());
        assert!(implausible(1e-308).is_some());
    }
}
