//! Exit codes and the error type that means "the input is bad".
//!
//! Parsers return their own `thiserror` enums; each enum that describes bad
//! input says so itself by implementing [`BadInput`] next to its definition.
//! At the boundary (the commands' `?`) such an error converts into
//! [`InputError`], which keeps the original (its message and its source
//! chain print unchanged). [`exit_code`] looks for that one type in the chain:
//! exit code 2 when it is there, 3 for [`RegressionFound`] (`rooftrace
//! diff`'s gate), 1 for everything else (I/O on outputs, a
//! failed `nvcc`). No list of parser error types lives here. Two helpers word
//! what a file holds for every "not an input" message (`looks_like_text`,
//! `first_line_shown`).

use std::error::Error;

/// Marks an error type whose every value means "the input is bad" (a file,
/// a flag value, a roofs file): its message names the file, row/column or
/// table, what is wrong and how to fix it. Such errors convert into
/// [`InputError`] with `?`.
pub trait BadInput: Error + Send + Sync + 'static {}

/// A problem with what the user gave us, from a message or from any
/// [`BadInput`] error (kept whole: it displays as itself, its source chain is
/// the original's, and [`InputError::inner`] returns it).
#[derive(Debug, thiserror::Error)]
#[error(transparent)]
pub struct InputError(Box<dyn Error + Send + Sync + 'static>);

/// The error of [`InputError::new`]: a message and nothing under it.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
struct Message(String);

impl InputError {
    /// Builds an input error from any message.
    pub fn new(msg: impl Into<String>) -> Self {
        InputError(Box::new(Message(msg.into())))
    }

    /// The original error (a parser's enum, or the message).
    pub fn inner(&self) -> &(dyn Error + Send + Sync + 'static) {
        &*self.0
    }
}

impl<E: BadInput> From<E> for InputError {
    fn from(e: E) -> Self {
        InputError(Box::new(e))
    }
}

/// Exit code for bad input (clap uses the same code for bad arguments).
pub const EXIT_BAD_INPUT: u8 = 2;
/// Exit code for every other failure.
pub const EXIT_FAILURE: u8 = 1;
/// Exit code of `rooftrace diff` when its gate found a regression (the
/// report was still written in full).
pub const EXIT_REGRESSION: u8 = 3;

/// A regression gate tripped: not a failure to run, not bad input.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct RegressionFound(pub String);

/// Exit code of a run over many inputs where some failed and the results of
/// the others were still written.
pub const EXIT_SOME_INPUTS_FAILED: u8 = 4;

/// Some inputs of a many-input run failed; the report (written) names each
/// with its error.
#[derive(Debug, thiserror::Error)]
#[error("{failed} of {total} inputs failed; the others' results were written. First: {first}")]
pub struct SomeInputsFailed {
    /// Inputs that failed.
    pub failed: usize,
    /// Inputs in the run.
    pub total: usize,
    /// The first failure, `input: error`.
    pub first: String,
}

/// Maps an error chain to the process exit code.
pub fn exit_code(err: &anyhow::Error) -> u8 {
    if err.chain().any(|e| e.is::<SomeInputsFailed>()) {
        EXIT_SOME_INPUTS_FAILED
    } else if err.chain().any(|e| e.is::<InputError>()) {
        EXIT_BAD_INPUT
    } else if err.chain().any(|e| e.is::<RegressionFound>()) {
        EXIT_REGRESSION
    } else {
        EXIT_FAILURE
    }
}

/// The error line: each cause of the chain after the one before it, `: `
/// apart, leaving out a cause whose text an outer error already says (a
/// decoder's message that its context quotes: not "incomplete deflate
/// stream: incomplete deflate stream").
pub fn message(err: &anyhow::Error) -> String {
    let mut out = String::new();
    for cause in err.chain() {
        let text = cause.to_string();
        if !text.is_empty() && out.contains(&text) {
            continue;
        }
        if !out.is_empty() {
            out.push_str(": ");
        }
        out.push_str(&text);
    }
    out
}

/// True when the error is a broken pipe (e.g. `rooftrace ... | head`), which
/// is not a failure.
pub fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|e| {
        e.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// Whether `bytes` read as text: no NUL, and UTF-8 once a character cut
/// at the end is allowed for. For errors that say what a file holds.
pub fn looks_like_text(bytes: &[u8]) -> bool {
    let utf8 = match std::str::from_utf8(bytes) {
        Ok(_) => true,
        Err(e) => e.error_len().is_none() && e.valid_up_to() + 4 > bytes.len(),
    };
    utf8 && !bytes.contains(&0)
}

/// The first non-blank line of `text` as an error shows it: backquotes as
/// `'` (it is quoted in backquotes), control characters as `.`, cut at 40
/// characters with `…`.
pub fn first_line_shown(text: &str) -> String {
    let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    let mut shown: String = first
        .chars()
        .map(|c| match c {
            '`' => '\'',
            c if c.is_control() => '.',
            c => c,
        })
        .take(40)
        .collect();
    if first.chars().count() > 40 {
        shown.push('…');
    }
    shown
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, thiserror::Error)]
    #[error("trace.json.gz: cannot read: {source}")]
    struct Quoting {
        source: std::io::Error,
    }

    #[test]
    fn a_cause_the_context_already_quotes_is_said_once() {
        let inner = std::io::Error::other("incomplete deflate stream");
        let err = anyhow::Error::from(Quoting { source: inner });
        assert_eq!(
            format!("{err:#}"),
            "trace.json.gz: cannot read: incomplete deflate stream: incomplete deflate stream"
        );
        assert_eq!(
            message(&err),
            "trace.json.gz: cannot read: incomplete deflate stream"
        );
        // A context that does not quote its cause keeps it.
        let err = anyhow::anyhow!("disk full").context("writing out.png");
        assert_eq!(message(&err), "writing out.png: disk full");
    }

    #[derive(Debug, thiserror::Error)]
    #[error("t.csv, line 3: bad")]
    struct Bad {
        #[source]
        io: std::io::Error,
    }
    impl BadInput for Bad {}

    #[test]
    fn a_bad_input_error_keeps_its_message_and_chain_and_exits_2() {
        let io = std::io::Error::other("disk");
        let e: anyhow::Error = InputError::from(Bad { io }).into();
        let e = e.context("reading t.csv");
        assert_eq!(format!("{e:#}"), "reading t.csv: t.csv, line 3: bad: disk");
        assert_eq!(exit_code(&e), EXIT_BAD_INPUT);
    }

    #[test]
    fn other_errors_exit_1() {
        let e = anyhow::Error::from(std::io::Error::other("disk"));
        assert_eq!(exit_code(&e), EXIT_FAILURE);
        let e: anyhow::Error = InputError::new("--top: bad").into();
        assert_eq!(format!("{e:#}"), "--top: bad");
        assert_eq!(exit_code(&e), EXIT_BAD_INPUT);
    }

    #[test]
    fn a_regression_exits_3() {
        let e: anyhow::Error = RegressionFound("regression: 1 row".into()).into();
        assert_eq!(exit_code(&e), EXIT_REGRESSION);
    }
}
