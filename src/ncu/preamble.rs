//! Before the CSV: application output and ncu's `==ERROR==`/`==WARNING==`
//! lines up to the header line (each line bounded by
//! [`super::bounds::MAX_RECORD_BYTES`]), and read errors as [`NcuError`]s.

use super::bounds::{cut_record, is_ends_inside_quotes, is_too_long, read_line};
use super::NcuError;
use std::io::BufRead;

const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

/// What comes before the CSV header.
pub(super) struct Preamble {
    /// The header line, BOM stripped, line end kept.
    pub(super) header_line: Vec<u8>,
    /// Its 1-based line number.
    pub(super) line_no: u64,
    /// ncu's `==ERROR==`/`==WARNING==` lines seen before it.
    pub(super) log: Vec<String>,
}

/// Skips application output and ncu log lines (kept) up to the header; a
/// file without a header is an error that quotes ncu's errors, if any.
pub(super) fn read_preamble(reader: &mut impl BufRead, file: &str) -> Result<Preamble, NcuError> {
    let io = |error| NcuError::Io {
        file: file.to_string(),
        error,
    };
    let mut log = Vec::new();
    let mut lines = 0u64;
    // `==PROF== Connected to process` without any `==PROF== Profiling`
    // line: ncu attached and profiled no kernel.
    let (mut connected, mut profiled) = (false, false);
    let mut line = Vec::new();
    loop {
        line.clear();
        let n = read_line(reader, &mut line).map_err(|e| {
            if is_too_long(&e) {
                NcuError::TooLong {
                    file: file.to_string(),
                    line: lines + 1,
                    limit: super::bounds::MAX_RECORD_BYTES,
                }
            } else {
                io(e)
            }
        })?;
        if n == 0 {
            if connected && !profiled {
                return Err(NcuError::NoKernelProfiled {
                    file: file.to_string(),
                    errors: log,
                });
            }
            let errors = log.iter().any(|l: &String| l.starts_with("==ERROR=="));
            if !errors {
                return Err(NcuError::NoCsv {
                    file: file.to_string(),
                    lines,
                });
            }
            return Err(NcuError::NcuFailed {
                file: file.to_string(),
                errors: log,
            });
        }
        lines += 1;
        let body = line.strip_prefix(UTF8_BOM).unwrap_or(&line);
        if super::is_header_line(body) {
            return Ok(Preamble {
                header_line: body.to_vec(),
                line_no: lines,
                log,
            });
        }
        let text = String::from_utf8_lossy(body);
        let text = text.trim_end();
        connected |= text.starts_with("==PROF== Connected");
        profiled |= text.starts_with("==PROF== Profiling");
        if text.starts_with("==ERROR==") || text.starts_with("==WARNING==") {
            log.push(text.to_string());
        }
    }
}

/// An error reading the records as an [`NcuError`] at `line`: a record
/// over the length bound, or the file's I/O error.
pub(super) fn io_err(error: std::io::Error, file: &str, line: u64) -> NcuError {
    if is_too_long(&error) {
        NcuError::TooLong {
            file: file.to_string(),
            line,
            limit: super::bounds::MAX_RECORD_BYTES,
        }
    } else if let Some(cut) = cut_record(&error) {
        NcuError::CutRecord {
            file: file.to_string(),
            line,
            fields: cut.fields,
            expected: cut.expected,
        }
    } else if is_ends_inside_quotes(&error) {
        NcuError::Truncated {
            file: file.to_string(),
            line,
        }
    } else {
        NcuError::Io {
            file: file.to_string(),
            error,
        }
    }
}
