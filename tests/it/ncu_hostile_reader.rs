//! Hostile bytes for the ncu record reader (`src/ncu/records.rs`): each
//! input is a real fixture's bytes cut or edited in the test, run through
//! the binary, which must name the file and line, say what is wrong and
//! exit 2.

use crate::common::{fixture, rooftrace};

const SGEMM: &str = "ncu/sgemm_a100_printfp_details15.csv";

/// `bytes` written to `name` in `dir`; its path as a string.
fn write(dir: &std::path::Path, name: &str, bytes: &[u8]) -> String {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p.to_str().unwrap().to_string()
}

/// The fixture cut right after the first occurrence of `at` (bytes).
fn cut_after(at: &[u8]) -> Vec<u8> {
    let text = std::fs::read(fixture(SGEMM)).unwrap();
    let i = text
        .windows(at.len())
        .position(|w| w == at)
        .expect("in the fixture");
    text[..i + at.len()].to_vec()
}

#[test]
fn ncu_a_file_cut_inside_a_value_is_truncated_not_a_locale_problem() {
    // Line 2 of the fixture holds `"dram__bytes.sum","byte","5,323,503,232.00"`.
    // Cut after `"5,323,50`: the value's closing quote is missing, so the file
    // ends inside a quoted field. Read as a field, `5,323,50` looks like a
    // comma-decimal number; the reader must stop at the cut instead (before
    // the fix: "written in a comma-decimal locale ... Re-export with LC_ALL=C",
    // advice that cannot help).
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "cut.csv", &cut_after(b"\"5,323,50"));
    let (code, _, err) = rooftrace(&["ncu", &p, "--gpu", "a100-40gb"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("cut.csv ends inside a quoted field (line 2): the file looks truncated"),
        "{err}"
    );
    assert!(!err.contains("comma-decimal"), "{err}");
}

#[test]
fn ncu_a_file_cut_inside_a_kernel_name_is_truncated_not_two_kernels() {
    // Lines 2 and 3 of the fixture are two metrics of launch 0 (process
    // 1961118), kernel `void randomInit<float>(T1 *, int, int, unsigned
    // int)`. Cut line 3 inside that name: its record reads kernel
    // `void randomInit<fl` under the same ID, which the parser would call
    // two kernels under one ID ("the file joins two exports or was edited",
    // before the fix). The cut is the error, at line 3.
    let text = std::fs::read(fixture(SGEMM)).unwrap();
    let line3 = text
        .split(|&b| b == b'\n')
        .take(2)
        .map(|l| l.len() + 1)
        .sum::<usize>();
    let name = b"\"void randomInit<fl";
    let at = line3
        + text[line3..]
            .windows(name.len())
            .position(|w| w == name)
            .unwrap()
        + name.len();
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "cut.csv", &text[..at]);
    let (code, _, err) = rooftrace(&["ncu", &p, "--gpu", "a100-40gb"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("cut.csv ends inside a quoted field (line 3)"),
        "{err}"
    );
    assert!(!err.contains("cannot share an ID"), "{err}");
}

#[test]
fn ncu_a_file_cut_between_two_fields_is_truncated_not_short() {
    // The fixture cut right after line 2's `"Command line profiler
    // metrics"` (field 12 of the header's 15): every quote pairs up, so
    // only the field count shows the cut. Before the fix the short row read
    // as a rule row (no metric name) and the launch silently lost the
    // metric; with it, a one-launch file like this one said "nothing a
    // roofline can use", advice about --metrics that cannot help.
    let dir = tempfile::tempdir().unwrap();
    let p = write(
        dir.path(),
        "cut.csv",
        &cut_after(b"\"Command line profiler metrics\""),
    );
    let (code, _, err) = rooftrace(&["ncu", &p, "--gpu", "a100-40gb"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(
            "cut.csv, line 2: the file ends inside this record (it has 12 of the header's 15 fields and no line end)"
        ),
        "{err}"
    );
    // The same bytes with the missing fields and a line end read: the
    // error is about the cut, not about a short last line as such.
    let mut whole = cut_after(b"\"Command line profiler metrics\"");
    whole.extend_from_slice(b",\"dram__bytes.sum\",\"byte\",\"5,323,503,232.00\"");
    let p = write(dir.path(), "whole.csv", &whole);
    let (code, _, err) = rooftrace(&["ncu", &p, "--gpu", "a100-40gb"]);
    assert_ne!(code, 101, "{err}");
    assert!(!err.contains("ends inside"), "{err}");
}

#[test]
fn ncu_a_leading_zero_group_is_a_decimal_comma_not_thousands() {
    // Line 2's `"5,323,503,232.00"` (dram__bytes.sum, byte) replaced by
    // `"0,125"`, as a de_DE export writes 0.125. No thousands grouping
    // starts with a `0` group, so this is a decimal comma: read as 125 B it
    // would be 1000x off (exit 0 before the fix, on the grouped-integer
    // fast path and the general path alike).
    let text = std::fs::read_to_string(fixture(SGEMM)).unwrap();
    let edited = text.replacen("\"5,323,503,232.00\"", "\"0,125\"", 1);
    assert_ne!(edited, text);
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "de.csv", edited.as_bytes());
    let (code, _, err) = rooftrace(&["ncu", &p, "--gpu", "a100-40gb"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("de.csv, line 2, column \"Metric Value (dram__bytes.sum)\": \"0,125\" is written in a comma-decimal locale"),
        "{err}"
    );
}

#[test]
fn ncu_a_negative_counter_is_bad_input() {
    // Line 2's `"5,323,503,232.00"` (dram__bytes.sum, byte) replaced by
    // `"-1,000"`. Before the fix the launch read -1 kB of DRAM traffic,
    // -149 B/s, and was called compute bound from it (exit 0). No counter
    // is negative: an error at line 2 naming the column. `-0` stays 0.
    let text = std::fs::read_to_string(fixture(SGEMM)).unwrap();
    let edited = text.replacen("\"5,323,503,232.00\"", "\"-1,000\"", 1);
    assert_ne!(edited, text);
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "neg.csv", edited.as_bytes());
    let (code, _, err) = rooftrace(&["ncu", &p, "--gpu", "a100-40gb"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(
            "neg.csv, line 2, column \"Metric Value (dram__bytes.sum)\": \"-1,000\" is negative"
        ),
        "{err}"
    );
    let zero = text.replacen("\"5,323,503,232.00\"", "\"-0\"", 1);
    let p = write(dir.path(), "zero.csv", zero.as_bytes());
    let (code, _, err) = rooftrace(&["ncu", &p, "--gpu", "a100-40gb"]);
    assert_eq!(code, 0, "{err}");
}

#[test]
fn ncu_a_roofline_chart_peak_is_checked_like_every_value() {
    // The chart's `"Theoretical Predicated-On FFMA Operations","inst",
    // "32,768"` (line 3, the FFMA peak per cycle that `--roofs ncu` builds
    // the FP32 roof from) set to `1e-300`. Before the fix the chart peaks
    // skipped the magnitude check every other value gets: the FP32 roof
    // read 1.620e-291 FLOP/s and the kernel "above roof" (exit 0). Now it
    // is an error at line 3, as the same value in any other cell is.
    const CHART: &str = "ncu/gpp_roofline_chart_body_items.csv";
    let text = std::fs::read_to_string(fixture(CHART)).unwrap();
    let cell = "\"Theoretical Predicated-On FFMA Operations\",\"inst\",\"32,768\"";
    let edited = text.replacen(
        cell,
        "\"Theoretical Predicated-On FFMA Operations\",\"inst\",\"1e-300\"",
        1,
    );
    assert_ne!(edited, text);
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "chart.csv", edited.as_bytes());
    let (code, _, err) = rooftrace(&["ncu", &p, "--roofs", "ncu"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("chart.csv, line 3, column \"Metric Value (Theoretical Predicated-On FFMA Operations)\": \"1e-300\" is below 1e-30"),
        "{err}"
    );
}
