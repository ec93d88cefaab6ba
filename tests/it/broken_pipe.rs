//! A reader that left is no failure (STYLE: a broken pipe counts as
//! success): `rooftrace ... | head` and `... 2>&1 | head` end with the exit
//! code of the run, never a panic (101). The pipes here are closed before
//! the child starts, so its first write fails for certain.

use crate::common::root;
use std::process::{Command, Stdio};

const SGEMM: &str = "fixtures/ncu/sgemm_a100_printfp_details15.csv";
const SGEMM_NEW: &str = "fixtures/ncu/sgemm_a100_diff_new_constructed.csv";
const SAXPY: &str = "fixtures/nsys/nsys2022.2.1_pipit_saxpy-mpi-cuda.sqlite";

/// A pipe whose read end is already closed, so writing to it fails with
/// EPIPE: the write end of the stdin of a `true` that has exited (the MSRV,
/// 1.85, predates `std::io::pipe`).
fn closed_pipe() -> Stdio {
    let mut reader = Command::new("true")
        .stdin(Stdio::piped())
        .spawn()
        .expect("run true");
    let writer = reader.stdin.take().expect("piped stdin");
    reader.wait().expect("true exits");
    Stdio::from(writer)
}

/// Runs rooftrace with stdout a closed pipe; returns (exit code, stderr).
fn stdout_closed(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_rooftrace"))
        .args(args)
        .current_dir(root())
        .stdout(closed_pipe())
        .stderr(Stdio::piped())
        .output()
        .expect("run rooftrace");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Runs rooftrace with stdout discarded and stderr a closed pipe; returns
/// the exit code.
fn stderr_closed(args: &[&str]) -> i32 {
    Command::new(env!("CARGO_BIN_EXE_rooftrace"))
        .args(args)
        .current_dir(root())
        .stdout(Stdio::null())
        .stderr(closed_pipe())
        .status()
        .expect("run rooftrace")
        .code()
        .unwrap_or(-1)
}

#[test]
fn a_closed_stdout_is_success_for_every_report_format() {
    let runs: [&[&str]; 4] = [
        &["ncu", SGEMM, "--gpu", "a100-40gb"],
        &["ncu", "--list-gpus"],
        &["gaps", SAXPY],
        &["diff", SAXPY, SAXPY],
    ];
    for args in runs {
        for format in ["table", "json", "csv", "md"] {
            let all = [args, &["--format", format]].concat();
            let (code, err) = stdout_closed(&all);
            assert_eq!(code, 0, "{all:?}: {err}");
            assert!(!err.contains("panicked"), "{all:?}: {err}");
            assert!(!err.contains("Broken pipe"), "{all:?}: {err}");
        }
    }
}

#[test]
fn a_closed_stdout_does_not_pass_a_failed_gate() {
    // The SGEMM pair regresses one kernel (tests/it/diff.rs): the gate fails
    // whether or not anyone reads the report, so `rooftrace diff … | head`
    // under `set -o pipefail` still fails the CI job (exit 3, not 0).
    for format in ["table", "json", "csv", "md"] {
        let all = [
            "diff",
            SGEMM,
            SGEMM_NEW,
            "--gpu",
            "a100-40gb",
            "--format",
            format,
        ];
        let (code, err) = stdout_closed(&all);
        assert_eq!(code, 3, "{all:?}: {err}");
        assert!(!err.contains("panicked"), "{all:?}: {err}");
    }
}

#[test]
fn help_and_usage_errors_survive_closed_pipes() {
    for args in [
        &["diff", "--help"][..],
        &["--version"],
        &["ncu", "--print-metrics"],
    ] {
        let (code, err) = stdout_closed(args);
        assert_eq!(code, 0, "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
    // clap's usage error goes to stderr: exit 2 with or without a reader.
    assert_eq!(stderr_closed(&["ncu", "--no-such-flag"]), 2);
}

#[test]
fn a_closed_stderr_keeps_the_exit_code_and_never_panics() {
    // Each exit code as with a reader on stderr: 0 with a message
    // (Parquet written), 2 bad input, 3 a failed gate (its message goes to
    // stderr after the report).
    let dir = tempfile::tempdir().unwrap();
    let parquet = dir.path().join("ncu.parquet");
    let cases: [(&[&str], i32); 4] = [
        (
            &[
                "ncu",
                SGEMM,
                "--gpu",
                "a100-40gb",
                "--format",
                "parquet",
                "-o",
                parquet.to_str().unwrap(),
            ],
            0,
        ),
        (&["ncu", "fixtures/ncu/absent.csv"], 2),
        (&["gaps", "fixtures/nsys/not_sqlite.sqlite"], 2),
        (&["diff", SGEMM, SGEMM_NEW, "--gpu", "a100-40gb"], 3),
    ];
    for (args, want) in cases {
        assert_eq!(stderr_closed(args), want, "{args:?}");
    }
}

#[test]
fn a_closed_stdout_does_not_hide_failed_inputs() {
    // Two inputs, one of them not an ncu CSV: the summary of the good one is
    // written and the run exits 4 (some inputs failed) with or without a
    // reader; a closed pipe must not turn the failure into success.
    let all = ["ncu", SGEMM, SAXPY, "--gpu", "a100-40gb"];
    let (code, err) = stdout_closed(&all);
    assert_eq!(code, 4, "{all:?}: {err}");
    assert!(!err.contains("panicked"), "{all:?}: {err}");
}
