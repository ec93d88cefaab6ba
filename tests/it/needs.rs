//! The rule for what a test needs from outside the repository
//! (`common::need`): under CI a missing corpus file or tool fails the test
//! with a message naming it and how to get it; elsewhere the test skips
//! with a note. Checked on the rule itself (CI given as a parameter) and
//! end to end on a real corpus test run in a child process of this binary
//! with `CI` set and the corpus pointed at a directory that does not exist.

use crate::common::{missing_message, need_under};
use std::path::Path;
use std::process::Command;

const WHAT: &str = "/nonexistent/corpus/nsys/x.sqlite";
const FIX: &str = "the corpus sits beside the clone in CI";

/// The panic message of `f`, which must panic.
fn panic_message(f: impl FnOnce() + std::panic::UnwindSafe) -> String {
    let payload = std::panic::catch_unwind(f).expect_err("it fails");
    payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
        .expect("a text message")
}

#[test]
fn under_ci_a_missing_need_fails_naming_it_and_the_fix() {
    let message = panic_message(|| {
        need_under::<()>(None, WHAT, FIX, true, |_| panic!("no note under CI"));
    });
    assert!(
        message.starts_with(&missing_message(WHAT, FIX)),
        "{message}"
    );
    assert!(
        message.contains("/nonexistent/corpus/nsys/x.sqlite missing: the corpus sits beside"),
        "{message}"
    );
    assert!(message.contains("CI=true"), "{message}");
}

#[test]
fn outside_ci_a_missing_need_is_none_after_one_note_and_a_present_one_is_itself() {
    let mut notes = Vec::new();
    let got = need_under::<u8>(None, WHAT, FIX, false, |n| notes.push(n.to_string()));
    assert_eq!(got, None);
    // libtest names the thread after the test, and the note after both.
    assert_eq!(
        notes,
        [format!(
            "note: needs::outside_ci_a_missing_need_is_none_after_one_note_and_a_present_one_is_itself: not checked: {}",
            missing_message(WHAT, FIX)
        )]
    );
    // Present, the answer is the same with or without CI, and nothing is said.
    for ci in [false, true] {
        let got = need_under(Some(7u8), WHAT, FIX, ci, |n| panic!("said {n}"));
        assert_eq!(got, Some(7));
    }
}

/// Runs one test of this binary in a child process with `CI` as given and
/// the corpus at `corpus`; returns (passed, its output).
fn run_one(test: &str, ci: Option<&str>, corpus: &Path) -> (bool, String) {
    let mut cmd = Command::new(std::env::current_exe().expect("the test binary"));
    cmd.args(["--exact", test, "--nocapture", "--test-threads=1"])
        .env("ROOFTRACE_CORPUS", corpus)
        .env("RUST_BACKTRACE", "0");
    match ci {
        Some(v) => cmd.env("CI", v),
        None => cmd.env_remove("CI"),
    };
    let out = cmd.output().expect("run the test binary");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    // libtest's summary says how many ran: exactly this one.
    assert!(
        text.contains("1 passed") || text.contains("1 failed"),
        "{text}"
    );
    (out.status.success(), text)
}

#[test]
fn a_corpus_test_fails_under_ci_without_the_corpus_and_skips_with_a_note_outside() {
    let dir = tempfile::tempdir().unwrap();
    let absent = dir.path().join("no-corpus-here");
    let test = "names::labels_are_unique_per_kernel_on_a_real_pytorch_profile";
    let file = absent
        .join("ncu/ncu2021.2_sections_metrics_rules_csv_leleucas_bert_flashattn_a100.csv")
        .display()
        .to_string();
    for ci in ["true", "1", "TRUE"] {
        let (passed, out) = run_one(test, Some(ci), &absent);
        assert!(!passed, "CI={ci}: {out}");
        assert!(
            out.contains(&format!(
                "{file} missing: the conformance corpus sits beside the clone"
            )),
            "CI={ci}: {out}"
        );
    }
    for ci in [None, Some("false"), Some("")] {
        let (passed, out) = run_one(test, ci, &absent);
        assert!(passed, "CI={ci:?}: {out}");
        assert!(
            out.contains(&format!("note: {test}: not checked: {file} missing")),
            "CI={ci:?}: {out}"
        );
    }
}

#[test]
fn a_tool_that_is_not_on_path_is_missing() {
    // The probe behind `require_tool`: an absent program does not run, and
    // one that every test machine has does.
    assert!(!crate::common::tool_runs("rooftrace-no-such-tool-3f9c"));
    assert!(crate::common::tool_runs(env!("CARGO_BIN_EXE_rooftrace")));
}
