//! Tables that fit the terminal: on a pseudo-terminal 100 columns wide
//! (`tests/it/pty/run_in_pty.py`: TIOCSWINSZ, `COLUMNS` unset) no line of
//! `rooftrace gaps` on any corpus export (nsys and Kineto) or of
//! `rooftrace ncu` on any corpus CSV is over 100 characters, while the same
//! report with `--wide` on the terminal, and piped, is byte for byte the
//! whole report as before.

use crate::common::{corpus, require_python3, root};
use std::path::{Path, PathBuf};
use std::process::Command;

const COLS: usize = 100;

/// `rooftrace args` with stdout on a `cols`-wide pseudo-terminal (the
/// caller has checked for python3 with [`require_python3`]).
fn on_terminal(cols: usize, args: &[&str]) -> String {
    let out = Command::new("python3")
        .arg(root().join("tests/it/pty/run_in_pty.py"))
        .arg(cols.to_string())
        .arg(env!("CARGO_BIN_EXE_rooftrace"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("run python3");
    String::from_utf8(out.stdout).expect("utf-8")
}

fn piped(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_rooftrace"))
        .args(args)
        .current_dir(root())
        .env_remove("COLUMNS")
        .output()
        .expect("run rooftrace");
    String::from_utf8(out.stdout).expect("utf-8")
}

fn longest_line(text: &str) -> usize {
    text.lines().map(|l| l.chars().count()).max().unwrap_or(0)
}

fn files(sub: &str, ext: &[&str]) -> Vec<PathBuf> {
    let Some(dir) = corpus(sub) else {
        return Vec::new();
    };
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let n = p.to_string_lossy();
            ext.iter().any(|x| n.ends_with(x))
        })
        .collect();
    v.sort();
    v
}

/// Checks one report; returns the longest piped line.
fn check(args: &[&str], input: &Path) -> usize {
    let fitted = on_terminal(COLS, args);
    let whole = piped(args);
    let over: Vec<&str> = fitted
        .lines()
        .filter(|l| l.chars().count() > COLS)
        .collect();
    assert!(
        over.is_empty(),
        "{}: lines over {COLS}: {over:?}",
        input.display()
    );
    // Nothing lost that a wide reader sees: --wide on the terminal is the
    // piped report, byte for byte.
    let wide = on_terminal(COLS, &[args, &["--wide"]].concat());
    assert_eq!(
        wide,
        whole,
        "{}: --wide on a terminal is the piped report",
        input.display()
    );
    if !whole.trim().is_empty() {
        assert!(!fitted.trim().is_empty(), "{}", input.display());
    }
    longest_line(&whole)
}

#[test]
fn gaps_fits_a_100_column_terminal_on_every_corpus_export_and_a_pipe_gets_it_whole() {
    if !require_python3() {
        return;
    }
    let exports = files("nsys", &[".sqlite"]);
    let mut widest = 0;
    for input in exports.iter().chain(&files("kineto", &[".json.gz"])) {
        let path = input.to_str().unwrap();
        widest = widest.max(check(&["gaps", path], input));
    }
    if !exports.is_empty() {
        // The test can fail: piped, some report is far wider than 100
        // (the TLS-search export's longest-gaps table, 2,000+ characters).
        assert!(widest > 2 * COLS, "widest piped line {widest}");
    }
}

#[test]
fn ncu_fits_a_100_column_terminal_on_every_corpus_csv() {
    if !require_python3() {
        return;
    }
    for input in files("ncu", &[".csv", ".log"]) {
        let path = input.to_str().unwrap();
        check(&["ncu", path, "--gpu", "a100-40gb"], &input);
    }
}

#[test]
fn columns_names_the_width_when_set() {
    // COLUMNS wins over the terminal's size (a shell that exports it).
    if !require_python3() {
        return;
    }
    let Some(input) = files("nsys", &[".sqlite"]).into_iter().next() else {
        return;
    };
    let out = Command::new("python3")
        .arg(root().join("tests/it/pty/run_in_pty.py"))
        .arg("200")
        .arg("env")
        .arg("COLUMNS=60")
        .arg(env!("CARGO_BIN_EXE_rooftrace"))
        .args(["gaps", input.to_str().unwrap()])
        .current_dir(root())
        .output()
        .expect("run python3");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(longest_line(&text) <= 60, "{text}");
}
