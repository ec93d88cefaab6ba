//! What the ranges are called and what a `--nvtx` pattern matching nothing
//! says (issue 33): the sentence is where the ranges section would be, once
//! per format, naming the pattern and the closest and most frequent range
//! texts the inputs do have; a PyTorch trace's ranges (its ops and
//! `record_function` annotations) are called PyTorch ranges, never NVTX
//! ranges, while the JSON keys stay. Real corpus files; without the corpus
//! the tests fail under CI and skip elsewhere (`common::need`).

use crate::common::{corpus_file, rooftrace};
use serde_json::Value;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

const SAXPY: &str = "nsys/nsys2022.2.1_pipit_saxpy-mpi-cuda.sqlite";

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

/// The two ranks of the HTA sampled trace, when the corpus is here.
fn kineto_pair() -> Option<[PathBuf; 2]> {
    let [r0, r1] =
        [0, 1].map(|r| corpus_file(&format!("kineto/kineto_hta_sampled_rank-{r}.json.gz")));
    Some([r0?, r1?])
}

/// Instances per name of a Kineto trace's host ranges, counted from the
/// raw JSON (complete `cpu_op` and `user_annotation` events): the
/// independent count of what rooftrace reads as ranges.
fn kineto_range_counts(path: &Path) -> HashMap<String, u64> {
    let f = std::fs::File::open(path).expect("open trace");
    let v: Value = serde_json::from_reader(flate2::read::GzDecoder::new(f)).expect("JSON");
    let mut counts = HashMap::new();
    for e in v["traceEvents"].as_array().expect("traceEvents") {
        let cat = e["cat"].as_str().unwrap_or("");
        if e["ph"] == "X" && (cat == "cpu_op" || cat == "user_annotation") {
            *counts
                .entry(e["name"].as_str().unwrap_or("").to_string())
                .or_insert(0) += 1;
        }
    }
    counts
}

fn run(args: &[&str]) -> String {
    let (code, out, err) = rooftrace(args);
    assert_eq!(code, 0, "{args:?}: {err}");
    out
}

#[test]
fn multi_gaps_nvtx_matching_nothing_says_why_in_every_format() {
    let Some([r0, r1]) = kineto_pair() else {
        return;
    };
    // `profilerstep` matches nothing (regexes are case-sensitive); ignoring
    // case it matches the two ProfilerStep annotations, one per rank.
    let (c0, c1) = (kineto_range_counts(&r0), kineto_range_counts(&r1));
    let both = |n: &str| c0.get(n).copied().unwrap_or(0) + c1.get(n).copied().unwrap_or(0);
    assert_eq!((both("ProfilerStep#551"), both("ProfilerStep#552")), (2, 2));
    let mm = both("aten::mm");
    assert_eq!(mm, 460, "231 + 229 by the raw JSON");
    let sentence = format!(
        "--nvtx `profilerstep` matches no PyTorch range in any of the 2 inputs; the closest are `ProfilerStep#551` (2), `ProfilerStep#552` (2); the most frequent are `aten::mm` ({mm})"
    );
    let base = ["gaps", s(&r0), s(&r1), "--nvtx", "profilerstep", "--format"];
    // JSON: the empty list stays, with the reason beside it.
    let json: Value =
        serde_json::from_str(&run(&[&base[..], &["json"]].concat())).expect("JSON output");
    assert_eq!(json["schema"], "rooftrace.multi-gaps/1");
    assert_eq!(json["ranges"], Value::Array(Vec::new()));
    let note = json["ranges_note"].as_str().expect("ranges_note");
    assert!(note.starts_with(&sentence), "{note}");
    // Table: the section is there, titled in PyTorch's words, with the
    // sentence once.
    let table = run(&[&base[..], &["table"]].concat());
    assert!(
        table.contains(&format!(
            "PyTorch ranges across ranks (median wall per rank)\n\n{sentence}"
        )),
        "{table}"
    );
    assert_eq!(table.matches("matches no PyTorch range").count(), 1);
    assert!(!table.contains("NVTX"), "{table}");
    // Markdown: the same, once, as a note under its heading.
    let md = run(&[&base[..], &["md"]].concat());
    assert!(
        md.contains(&format!(
            "### PyTorch ranges across ranks (median wall per rank)\n\n_{sentence}"
        )),
        "{md}"
    );
    assert_eq!(md.matches("matches no PyTorch range").count(), 1);
}

#[test]
fn multi_gaps_on_exports_names_the_closest_nvtx_range() {
    let (Some(saxpy), Some(clover)) = (
        corpus_file(SAXPY),
        corpus_file("nsys/nsys2024.5.1_pipit_cloverleaf.sqlite"),
    ) else {
        return;
    };
    // The saxpy rank's closed MPI_Send ranges, by SQL; CloverLeaf's export
    // has no NVTX table at all, so the sum is saxpy's.
    let c =
        rusqlite::Connection::open_with_flags(&saxpy, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .unwrap();
    let sends: i64 = c
        .query_row(
            "SELECT COUNT(*) FROM NVTX_EVENTS n LEFT JOIN StringIds s ON s.id = n.textId
             WHERE COALESCE(n.text, s.value) = 'MPI_Send' AND n.end IS NOT NULL",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(sends, 10);
    let table = run(&[
        "gaps",
        s(&saxpy),
        s(&clover),
        "--one-job",
        "--nvtx",
        "MPI_Sned",
    ]);
    assert!(
        table.contains(&format!(
            "NVTX ranges across ranks (median wall per rank)\n\n--nvtx `MPI_Sned` matches no NVTX range in any of the 2 inputs; the closest are `MPI_Send` ({sends}); the most frequent are `MPI_Recv` (5)"
        )),
        "{table}"
    );
    // A pattern that matches: the table, and no note.
    let (code, json, err) = crate::common::rooftrace_json(&[
        "gaps",
        s(&saxpy),
        s(&clover),
        "--one-job",
        "--nvtx",
        "^MPI_Send$",
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(json["ranges"].as_array().map(Vec::len), Some(1));
    assert_eq!(json["ranges_note"], Value::Null);
}

#[test]
fn single_gaps_says_once_where_the_ranges_table_was() {
    let Some([r0, _]) = kineto_pair() else {
        return;
    };
    let c0 = kineto_range_counts(&r0);
    let sentence = format!(
        "--nvtx `profilerstep` matches no PyTorch range; the closest are `ProfilerStep#551` ({}), `ProfilerStep#552` ({}); the most frequent are `aten::mm` ({})",
        c0["ProfilerStep#551"], c0["ProfilerStep#552"], c0["aten::mm"]
    );
    let args = ["gaps", s(&r0), "--nvtx", "profilerstep", "--format"];
    let table = run(&[&args[..], &["table"]].concat());
    // Under its heading, once (not again under Diagnostics), and no
    // median/p90 row of zeros for instances that do not exist.
    assert!(
        table.contains(&format!(
            "\nPyTorch ranges (ops and record_function annotations)\n{sentence}"
        )),
        "{table}"
    );
    assert_eq!(table.matches("matches no PyTorch range").count(), 1);
    assert!(!table.lines().any(|l| l.starts_with("median ")), "{table}");
    let md = run(&[&args[..], &["md"]].concat());
    assert!(
        md.contains(&format!(
            "### PyTorch ranges (ops and record_function annotations)\n\n_{sentence}"
        )),
        "{md}"
    );
    assert_eq!(md.matches("matches no PyTorch range").count(), 1);
    // JSON: the same keys as ever, the instances an explicit empty list,
    // the sentence a diagnostic.
    let json: Value = serde_json::from_str(&run(&[&args[..], &["json"]].concat())).unwrap();
    assert_eq!(json["ranges"]["pattern"], "profilerstep");
    assert_eq!(json["ranges"]["instances"], Value::Array(Vec::new()));
    let said: Vec<&str> = json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .filter(|d| d.contains("matches no PyTorch range"))
        .collect();
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(said[0].starts_with(&sentence), "{}", said[0]);
}

#[test]
fn budget_nvtx_matching_nothing_names_the_closest_pytorch_ranges() {
    let Some([r0, _]) = kineto_pair() else {
        return;
    };
    let (code, out, err) = rooftrace(&[
        "budget",
        s(&r0),
        "--nvtx",
        "profilerstep",
        "--gpu",
        "a100-40gb",
    ]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(out.is_empty(), "{out}");
    assert!(
        err.contains("--nvtx `profilerstep` matches no PyTorch range; the closest are `ProfilerStep#551` (1), `ProfilerStep#552` (1)"),
        "{err}"
    );
    assert_eq!(err.matches("matches no").count(), 1, "{err}");
}

#[test]
fn pytorch_traces_call_their_ranges_pytorch_ranges_and_keep_the_json_keys() {
    let Some([r0, _]) = kineto_pair() else {
        return;
    };
    let args = ["gaps", s(&r0), "--nvtx", "^ProfilerStep#", "--format"];
    let table = run(&[&args[..], &["table"]].concat());
    assert!(
        table.contains(
            "\nPyTorch ranges (ops and record_function annotations) (* = no launch found, host window used)\n"
        ),
        "{table}"
    );
    // The host-bound detail and the longest gaps' column too.
    assert!(
        table
            .lines()
            .any(|l| l.starts_with("inside a PyTorch range ")),
        "{table}"
    );
    assert!(table.contains("(inside a PyTorch range, "), "{table}");
    let md = run(&[&args[..], &["md"]].concat());
    assert!(
        md.contains("### PyTorch ranges (ops and record_function annotations)\n"),
        "{md}"
    );
    for (what, text) in [("table", &table), ("md", &md)] {
        assert!(!text.contains("NVTX"), "{what}: {text}");
    }
    // JSON keys unchanged: `ranges` with its instances, `nvtx_id` on the gaps.
    let json: Value = serde_json::from_str(&run(&[&args[..], &["json"]].concat())).unwrap();
    assert_eq!(
        json["ranges"]["instances"].as_array().map(Vec::len),
        Some(2)
    );
    assert!(
        json["top_gaps"][0].get("nvtx_id").is_some(),
        "{}",
        json["top_gaps"][0]
    );
    // The timeline's subtitle, when the ranges choose its window.
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("t.svg");
    run(&[
        "gaps",
        s(&r0),
        "--nvtx",
        "^ProfilerStep#",
        "--plot",
        s(&svg),
    ]);
    let drawn = std::fs::read_to_string(&svg).unwrap();
    assert!(
        drawn.contains("first 2 PyTorch range instances: "),
        "{drawn}"
    );
    // An nsys export keeps NVTX's words.
    let Some(saxpy) = corpus_file(SAXPY) else {
        return;
    };
    let t = run(&["gaps", s(&saxpy), "--nvtx", "^MPI_Send$"]);
    assert!(
        t.contains("\nNVTX ranges (* = no launch found, host window used)\n"),
        "{t}"
    );
}

#[test]
fn a_trace_diff_names_pytorch_ranges_and_an_export_diff_nvtx_ranges() {
    let Some([r0, r1]) = kineto_pair() else {
        return;
    };
    // Both ranks hold one `ProfilerStep#…` annotation each by the raw JSON
    // (the count the multi-input test pins), so `--nvtx ProfilerStep` gives
    // the range section; the gate trips on the copy engine (exit 3), which
    // does not matter here.
    assert!(kineto_range_counts(&r0)
        .keys()
        .any(|k| k.starts_with("ProfilerStep")));
    for format in ["table", "md"] {
        let (code, out, err) = rooftrace(&[
            "diff",
            s(&r0),
            s(&r1),
            "--nvtx",
            "ProfilerStep",
            "--format",
            format,
        ]);
        assert!(code == 0 || code == 3, "{format}: {err}");
        assert!(out.contains("PyTorch range"), "{format}: {out}");
        assert!(!out.contains("NVTX"), "{format}: {out}");
    }
    // Two nsys exports keep NVTX's name (the same renderer, the other tool).
    let Some(e) = corpus_file(SAXPY) else {
        return;
    };
    let (code, out, err) = rooftrace(&["diff", s(&e), s(&e), "--nvtx", "MPI"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("NVTX range") && !out.contains("PyTorch"),
        "{out}"
    );
}
