//! clap's answers for a mistyped subcommand or value, replaced where they
//! list every value (`--projection-model h10`: all four models) or say
//! nothing (`rooftrace roof`): the closest names by family then edit
//! distance ([`crate::suggest::closest`]), else where the list is. clap's
//! other errors, `--help` and `--version` pass through unchanged.

use super::Cli;
use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::{CommandFactory, FromArgMatches};
use std::ffi::OsString;

/// Parses `args` (the program name first) into a [`Cli`]; on a mistyped
/// subcommand or value, an error naming the closest ones (exit 2 through
/// [`clap::Error::exit`], as clap's own usage errors).
pub fn parse_from<I, T>(args: I) -> Result<Cli, clap::Error>
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let mut cmd = Cli::command();
    let matches = cmd
        .try_get_matches_from_mut(args)
        .map_err(|e| rewrite(e, &cmd))?;
    Cli::from_arg_matches(&matches).map_err(|e| e.format(&mut cmd))
}

/// A string context value of `e`.
fn context(e: &clap::Error, kind: ContextKind) -> Option<String> {
    match e.get(kind)? {
        ContextValue::String(s) => Some(s.clone()),
        _ => None,
    }
}

/// clap's error for an unknown subcommand or an invalid value of a flag
/// with a fixed list, rewritten; any other error as it was.
fn rewrite(e: clap::Error, cmd: &clap::Command) -> clap::Error {
    let message = match e.kind() {
        ErrorKind::InvalidSubcommand => {
            let Some(given) = context(&e, ContextKind::InvalidSubcommand) else {
                return e;
            };
            let names: Vec<&str> = cmd
                .get_subcommands()
                .map(|s| s.get_name())
                .filter(|n| *n != "help")
                .collect();
            subcommand_message(&given, &names)
        }
        ErrorKind::InvalidValue => {
            let (Some(given), Some(arg)) = (
                context(&e, ContextKind::InvalidValue),
                context(&e, ContextKind::InvalidArg),
            ) else {
                return e;
            };
            let Some(ContextValue::Strings(valid)) = e.get(ContextKind::ValidValue) else {
                return e; // a value parser's own error (a quantity, a path)
            };
            let valid: Vec<&str> = valid.iter().map(String::as_str).collect();
            value_message(&given, &arg, &valid)
        }
        _ => return e,
    };
    clap::Error::raw(e.kind(), format!("{message}\n"))
}

/// `unrecognized subcommand 'gapz': did you mean `gaps`?`, or, with none
/// close, where the list is.
pub fn subcommand_message(given: &str, names: &[&str]) -> String {
    match crate::suggest::did_you_mean(given, names) {
        Some(close) => format!("unrecognized subcommand '{given}': {close}"),
        None => format!(
            "unrecognized subcommand '{given}': none of rooftrace's {} subcommands is close \
             (`rooftrace --help` lists them)",
            names.len()
        ),
    }
}

/// `invalid value 'bound' for '--projection-model <…>': did you mean
/// `bound-scales`?`, or, with none close, where the list is.
pub fn value_message(given: &str, arg: &str, valid: &[&str]) -> String {
    let flag = arg.split_whitespace().next().unwrap_or(arg);
    match crate::suggest::did_you_mean(given, valid) {
        Some(close) => format!("invalid value '{given}' for '{arg}': {close}"),
        None => format!(
            "invalid value '{given}' for '{arg}': none of its {} values is close \
             (`--help` lists them under {flag})",
            valid.len()
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(args: &[&str]) -> String {
        match parse_from(args) {
            Ok(_) => panic!("{args:?} parsed"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn a_subcommand_typo_names_the_closest_subcommand_only() {
        let e = err(&["rooftrace", "gapz", "x"]);
        assert_eq!(
            e,
            "error: unrecognized subcommand 'gapz': did you mean `gaps`?\n"
        );
        // Nothing close: where the list is, not the list.
        let e = err(&["rooftrace", "roof", "x"]);
        // Counted from the command, so a new subcommand changes no test.
        let n = <crate::cli::Cli as clap::CommandFactory>::command()
            .get_subcommands()
            .filter(|c| c.get_name() != "help")
            .count();
        assert!(
            e.contains(&format!("none of rooftrace's {n} subcommands")),
            "{e}"
        );
        assert!(!e.contains("budget"), "{e}");
    }

    #[test]
    fn a_projection_model_typo_names_its_family_or_none() {
        let pm = ["rooftrace", "ncu", "x.csv", "--projection-model"];
        let e = err(&[&pm[..], &["bound"]].concat());
        assert!(e.contains("did you mean `bound-scales`?"), "{e}");
        // `same` is the stem of two models: both, not the other two.
        let e = err(&[&pm[..], &["same"]].concat());
        assert!(
            e.contains("did you mean `same-fraction` or `same-time`?"),
            "{e}"
        );
        // h10: no model close; clap listed all four.
        let e = err(&[&pm[..], &["h10"]].concat());
        assert!(e.contains("none of its 4 values is close"), "{e}");
        assert!(!e.contains("launch-fraction"), "{e}");
    }

    #[test]
    fn help_and_other_errors_pass_through() {
        let e = match parse_from(["rooftrace", "--version"]) {
            Err(e) => e,
            Ok(_) => panic!("--version parsed"),
        };
        assert_eq!(e.kind(), ErrorKind::DisplayVersion);
        let e = err(&["rooftrace", "ncu", "x.csv", "--top", "many"]);
        assert!(e.contains("--top"), "{e}");
    }
}
