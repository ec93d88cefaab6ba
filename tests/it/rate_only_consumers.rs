//! A rate-only ncu file (the roofline section exported alone: rates, no
//! duration) outside `rooftrace ncu` (issue 19): every command that needs
//! each kernel's time refuses it (exit 2) with the export to make instead,
//! rather than reading its nominal one-second durations as times.
//! `rooftrace ncu FILE` itself shows its roofline points (tests/it/ncu_derived.rs).

use crate::common::{fixture, rooftrace};

const RATES: &str = "fixtures/ncu/gpp_roofline_chart_rates_only_constructed.csv";
const TIMED: &str = "fixtures/ncu/gpp_ncu2024.2_details15.csv";
const REIMPORT: &str = "ncu --import R.ncu-rep --csv --page raw --print-units base";

/// Exit 2, the file named, what the command needs time for, the re-import.
fn assert_refused(args: &[&str], needs: &str) -> String {
    let (code, out, err) = rooftrace(args);
    assert_eq!(code, 2, "{args:?}: {err}");
    assert!(out.is_empty(), "{args:?}: {out}");
    for want in [RATES, "have rates but no duration", needs, REIMPORT] {
        assert!(err.contains(want), "{args:?}: no `{want}` in {err}");
    }
    assert!(!err.contains("--metrics"), "{err}");
    err
}

#[test]
fn diff_refuses_a_rate_only_side_either_way_round() {
    let needs = "rooftrace diff judges kernels by their time";
    assert_refused(&["diff", RATES, RATES, "--roofs", "ncu"], needs);
    assert_refused(&["diff", TIMED, RATES, "--gpu", "rtx4090"], needs);
    assert_refused(&["diff", RATES, TIMED, "--gpu", "rtx4090"], needs);
}

#[test]
fn diff_refuses_a_json_report_with_rate_only_rows() {
    // `rooftrace ncu --format json` of the rate-only file marks its rows
    // `rate_only` (time null); diff used to drop them silently.
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("rates.json");
    let (code, out, err) = rooftrace(&["ncu", RATES, "--roofs", "ncu", "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("\"rate_only\": true"), "{out}");
    std::fs::write(&json, out).unwrap();
    let j = json.to_str().unwrap();
    let (code, _, err) = rooftrace(&["diff", j, j]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("1 row(s) come from rates alone"), "{err}");
    assert!(err.contains(REIMPORT), "{err}");
}

#[test]
fn budget_refuses_a_rate_only_ncu_csv() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("sgemm_steps.sqlite");
    let sql = std::fs::read_to_string(fixture("budget/sgemm_steps.sql")).unwrap();
    rusqlite::Connection::open(&db)
        .unwrap()
        .execute_batch(&sql)
        .unwrap();
    let args = [
        "budget",
        db.to_str().unwrap(),
        "--nvtx",
        "^step$",
        "--ncu",
        RATES,
        "--roofs",
        "ncu",
    ];
    assert_refused(&args, "rooftrace budget needs each kernel's bound time");
}

#[test]
fn many_inputs_fail_the_rate_only_one_and_keep_the_others() {
    // Two inputs: the timed one is reported, the rate-only one is a failed
    // input with the re-import (exit 4: some inputs failed).
    let (code, out, err) = rooftrace(&["ncu", TIMED, RATES, "--gpu", "rtx4090"]);
    assert_eq!(code, 4, "{err}");
    assert!(out.contains(TIMED), "{out}");
    assert!(out.contains("have rates but no duration"), "{out}");
    assert!(err.contains("1 of 2 inputs failed"), "{err}");
    assert!(err.contains(REIMPORT), "{err}");
    // Parquet datasets hold per-launch times: a lone rate-only input is
    // refused as bad input, and no dataset is written for it.
    let dir = tempfile::tempdir().unwrap();
    let pq = dir.path().join("ncu.parquet");
    let (code, _, err) = rooftrace(&[
        "ncu",
        RATES,
        "--roofs",
        "ncu",
        "--format",
        "parquet",
        "-o",
        pq.to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("and into the datasets"), "{err}");
    let written = walk(&pq);
    assert!(written.is_empty(), "{written:?}");
}

/// Files under `dir` (none when it does not exist).
fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let Ok(rd) = std::fs::read_dir(dir) else {
        return out;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

#[test]
fn ncu_alone_still_gives_the_rate_only_point() {
    // The refusals are for time; `rooftrace ncu` keeps answering.
    let (code, out, err) = rooftrace(&["ncu", RATES, "--roofs", "ncu"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("rows from rates alone"), "{out}");
}
