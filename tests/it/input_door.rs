//! The one door (`rooftrace::input::identify`): every kind of input told
//! from its content over the real fixtures, and the near misses (empty,
//! text, a binary, SQLite that is not nsys, JSON that is none of rooftrace's)
//! with the words of their error; a kind given to the wrong command names
//! the command that reads it.

use crate::common::{fixture, rooftrace};
use rooftrace::input::{identify, InputKind, NcuShape, ReportKind};
use std::path::Path;

fn kind(rel: &str) -> InputKind {
    identify(&fixture(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

fn error(path: &Path) -> String {
    identify(path)
        .expect_err("no input kind")
        .to_string()
        .replace(&path.display().to_string(), "FILE")
}

#[test]
fn ncu_csvs_of_each_page_are_told_by_their_header_line() {
    // The details page has "Metric Name"/"Metric Value" columns; the raw
    // page one column per metric; ncu's log lines (==PROF==) may come first,
    // and a UTF-8 mark with CRLF lines.
    for (rel, shape) in [
        ("ncu/sgemm_a100_printfp_details15.csv", NcuShape::Details),
        ("ncu/bf16_gemm_details21.csv", NcuShape::Details),
        ("ncu/gpp_roofline_section_rates.csv", NcuShape::Details),
        (
            "ncu/gpp_roofline_chart_rates_only_constructed.csv",
            NcuShape::Details,
        ),
        ("ncu/gpp_bom_crlf_preamble.csv", NcuShape::Details),
        ("ncu/bf16_gemm_raw_page_units.csv", NcuShape::Raw),
        ("ncu/h100_raw_page_peaks_constructed.csv", NcuShape::Raw),
        ("projection/h100_b1_p1024_decode.csv", NcuShape::Raw),
        ("ncu/bad/header_only.csv", NcuShape::Details),
        // ncu's errors and no CSV: the parser quotes them.
        ("ncu/bad/ncu_error_no_csv.log", NcuShape::Log),
    ] {
        assert_eq!(kind(rel), InputKind::NcuCsv(shape), "{rel}");
    }
}

#[test]
fn nsys_exports_and_traces_are_told_by_content_not_name() {
    let exports: Vec<_> = crate::common::nsys_exports()
        .into_iter()
        .filter(|p| !p.ends_with("not_sqlite.sqlite"))
        .collect();
    assert!(exports.len() >= 5, "{exports:?}");
    for export in &exports {
        let found = identify(export).unwrap_or_else(|e| panic!("{}: {e}", export.display()));
        assert_eq!(found, InputKind::NsysExport, "{}", export.display());
    }
    for rel in [
        "kineto/simple_add.json.gz",
        "kineto/cuda_event_sync.json.gz",
        "kineto/amd_mi250_rocm6.2.json.gz",
        "kineto/cupti_profiler_counters.json.gz",
        "kineto/sampled_rank-0.json.gz",
    ] {
        assert_eq!(kind(rel), InputKind::PyTorchTrace, "{rel}");
    }
    // The name says nothing: a trace named .sqlite is a trace, an export
    // named .json an export.
    let d = tempfile::tempdir().unwrap();
    let trace = d.path().join("renamed.sqlite");
    std::fs::copy(fixture("kineto/simple_add.json.gz"), &trace).unwrap();
    assert_eq!(identify(&trace).unwrap(), InputKind::PyTorchTrace);
    let export = d.path().join("renamed.json");
    std::fs::copy(&exports[0], &export).unwrap();
    assert_eq!(identify(&export).unwrap(), InputKind::NsysExport);
    // NVIDIA's report containers have no documented magic: their ending,
    // when no content test claims them.
    let rep = d.path().join("run.nsys-rep");
    std::fs::write(&rep, [0u8, 1, 2, 3]).unwrap();
    assert_eq!(identify(&rep).unwrap(), InputKind::NsysReport);
    let rep = d.path().join("run.ncu-rep");
    std::fs::write(&rep, [0u8, 1, 2, 3]).unwrap();
    assert_eq!(identify(&rep).unwrap(), InputKind::NcuReport);
}

#[test]
fn rooftrace_json_is_told_by_its_schema_key() {
    assert_eq!(kind("calibrate/h100-sxm-datasheet.json"), InputKind::Roofs);
    assert_eq!(kind("budget/a100-80gb-datasheet.json"), InputKind::Roofs);
    // JSON lines: the first line's schema.
    assert_eq!(
        kind("calibrate/h100-published.jsonl"),
        InputKind::CalibrateResults
    );
    // A report written by rooftrace itself.
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("r.json");
    let (code, _, err) = rooftrace(&[
        "ncu",
        fixture("ncu/sgemm_a100_printfp_details15.csv")
            .to_str()
            .unwrap(),
        "--gpu",
        "a100-40gb",
        "--format",
        "json",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    match identify(&out).unwrap() {
        InputKind::Report(ReportKind::Ncu, schema) => {
            assert!(schema.starts_with("rooftrace.ncu/"), "{schema}")
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(kind("ncu"), InputKind::Directory);
}

#[test]
fn near_misses_say_what_they_are() {
    let d = tempfile::tempdir().unwrap();
    let empty = d.path().join("empty.csv");
    std::fs::write(&empty, b"").unwrap();
    assert_eq!(error(&empty), "FILE: an empty file (0 bytes)");
    let text = d.path().join("notes.csv");
    std::fs::write(&text, b"\n  kernel times, by hand\nmore\n").unwrap();
    let msg = error(&text);
    assert!(
        msg.starts_with(
            "FILE: not an input rooftrace reads (it starts with `  kernel times, by hand`); rooftrace reads ncu CSVs"
        ),
        "{msg}"
    );
    let elf = d.path().join("x.bin");
    std::fs::write(&elf, b"\x7fELF\x02\x01\x01\x00\x00\x00binary").unwrap();
    assert!(
        error(&elf).starts_with(
            "FILE: not an input rooftrace reads (it is binary data, not text, starting with bytes 7f 45 4c 46 02 01 01 00 (an ELF binary?))"
        ),
        "{}",
        error(&elf)
    );
    // The nsys fixture whose content is no SQLite database.
    let msg = error(&fixture("nsys/not_sqlite.sqlite"));
    assert!(
        msg.contains("not an input rooftrace reads (it starts with `this is not an sqlite file`)"),
        "{msg}"
    );
    // An SQLite database without nsys tables.
    let db = d.path().join("other.sqlite");
    rusqlite::Connection::open(&db)
        .unwrap()
        .execute_batch("CREATE TABLE t(a); INSERT INTO t VALUES (1);")
        .unwrap();
    assert!(
        error(&db).starts_with(
            "FILE: not an input rooftrace reads (an SQLite database without Nsight Systems tables"
        ),
        "{}",
        error(&db)
    );
    // JSON that is none of rooftrace's: HTA's own output.
    let msg = error(&fixture("kineto/hta_oracle.json"));
    assert!(
        msg.contains(
            "not an input rooftrace reads (a JSON object that is not a PyTorch profiler trace (no `traceEvents`) nor rooftrace's (no `schema` key))"
        ),
        "{msg}"
    );
    let other = d.path().join("other.json");
    std::fs::write(&other, br#"{"schema": "acme.report/2", "rows": []}"#).unwrap();
    assert!(
        error(&other).contains("JSON with schema \"acme.report/2\""),
        "{}",
        error(&other)
    );
}

#[test]
fn a_kind_given_to_the_wrong_command_names_the_command_that_reads_it() {
    let export = fixture("nsys/nsys2024.5.1_pipit_cloverleaf.sqlite");
    let (code, out, err) = rooftrace(&["ncu", export.to_str().unwrap(), "--gpu", "a100-40gb"]);
    assert_eq!(code, 2, "{err}");
    assert!(out.is_empty());
    assert!(
        err.contains(": an Nsight Systems SQLite export, read by `rooftrace gaps`, `budget`, `comm` (and `diff`, two of them); `rooftrace ncu` reads ncu CSVs"),
        "{err}"
    );
    let roofs = fixture("calibrate/h100-sxm-datasheet.json");
    let (code, _, err) = rooftrace(&["gaps", roofs.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(
            ": a roofs file, read by `--roofs`, `--project-to` and `calibrate --datasheet`; `rooftrace gaps` reads Nsight Systems exports"
        ),
        "{err}"
    );
}

#[test]
fn a_roofs_flag_or_calibrate_given_another_kind_says_what_it_is() {
    // Calibration results where a roofs file goes, and a roofs file where
    // results go: the door knows both by their `schema` line.
    let results = fixture("calibrate/h100-published.jsonl");
    let roofs = fixture("calibrate/h100-sxm-datasheet.json");
    let csv = fixture("ncu/sgemm_a100_printfp_details15.csv");
    let (code, _, err) = rooftrace(&[
        "ncu",
        csv.to_str().unwrap(),
        "--roofs",
        results.to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(": calibration results, read by `rooftrace calibrate --from FILE`; a roofs flag (`--roofs`, `--project-to`, `--datasheet`) reads a roofs file"),
        "{err}"
    );
    let (code, _, err) = rooftrace(&["calibrate", "--from", roofs.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(": a roofs file, read by `--roofs`, `--project-to` and `calibrate --datasheet`; `rooftrace calibrate --from` reads the JSON lines of a harness run"),
        "{err}"
    );
}
