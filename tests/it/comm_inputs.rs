//! `rooftrace comm` on its inputs: a failed input is named once on every
//! line that reports it (the many-inputs prefix does not repeat a reader
//! error that names the file already).

use crate::common::rooftrace;

/// Writes rank 0 of a small synthetic job (two ranks, one all-reduce).
fn one_good_trace(dir: &std::path::Path) -> std::path::PathBuf {
    let spec = rooftrace::synth::job::JobSpec {
        ranks: 2,
        collectives: 1,
        nelems: 1024,
        compute_ns: 100_000,
        transfer_ns: 10_000,
        period_ns: 200_000,
        clock_offsets_ns: vec![0, 0],
        late: (1, 0, 0),
    };
    let p = dir.join("rank0.pt.trace.json");
    let doc = rooftrace::synth::job::rank_trace(&spec, 0);
    std::fs::write(&p, serde_json::to_vec(&doc).unwrap()).unwrap();
    p
}

#[test]
fn a_failed_input_is_named_once_per_line() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, "not a trace").unwrap();
    let bad_s = bad.to_str().unwrap();
    // All inputs failed: one error line, the file named once.
    let (code, _, err) = rooftrace(&["comm", bad_s]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("all 1 inputs failed. First: "), "{err}");
    for line in err.lines().filter(|l| l.contains(bad_s)) {
        assert_eq!(line.matches(bad_s).count(), 1, "{line}");
    }
    // One of two failed (exit 4): the note for it and the summary line
    // each name it once.
    let good = one_good_trace(dir.path());
    let (code, _, err) = rooftrace(&["comm", good.to_str().unwrap(), bad_s]);
    assert_eq!(code, 4, "{err}");
    let lines: Vec<&str> = err.lines().filter(|l| l.contains(bad_s)).collect();
    assert_eq!(lines.len(), 2, "{err}");
    for line in lines {
        assert_eq!(line.matches(bad_s).count(), 1, "{line}");
    }
}
