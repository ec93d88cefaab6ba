//! First contact with paths: a directory where a file is expected, an empty
//! directory, a 0-byte file, a truncated SQLite file, a missing file. Each
//! gets one line naming the path and what it is, exit 2, and nothing on
//! stdout; the exact messages are pinned here.

use super::common::fixture;
use std::path::Path;

const NSYS_FIX: &str = "give an .nsys-rep, the .sqlite from `nsys export --type=sqlite`, or a PyTorch profiler trace (.json or .json.gz)";
const NCU_FIX: &str =
    "give an ncu CSV (`ncu --csv --page raw ... > report.csv`) or an .ncu-rep report";

/// Runs rooftrace in `dir` (so paths print as given); returns (code, stdout, stderr).
fn run_in(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_rooftrace"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run rooftrace");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Asserts exit 2, empty stdout and exactly `error: {line}` on stderr.
fn assert_bad_input(dir: &Path, args: &[&str], line: &str) {
    let (code, out, err) = run_in(dir, args);
    assert_eq!(err, format!("error: {line}\n"), "rooftrace {args:?}");
    assert_eq!(code, 2, "rooftrace {args:?}: {err}");
    assert_eq!(out, "", "rooftrace {args:?}");
}

#[test]
fn directories_where_a_file_is_expected_are_named_with_what_they_hold() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    std::fs::create_dir(p.join("empty")).unwrap();
    // Found by mutation fuzzing: this used to print "error: : no such file".
    std::fs::create_dir(p.join("x.sqlite")).unwrap();
    std::fs::create_dir(p.join("notes")).unwrap();
    std::fs::write(p.join("notes/readme.txt"), "not a profile").unwrap();
    // A .json and a .gz that are not PyTorch traces: searched by content,
    // they do not count as timelines.
    std::fs::write(
        p.join("notes/report.json"),
        r#"{"schema": "rooftrace.gaps/1"}"#,
    )
    .unwrap();
    std::fs::write(p.join("notes/logs.gz"), gzip(b"{\"lines\": []}")).unwrap();
    std::fs::create_dir(p.join("csvs")).unwrap();
    std::fs::copy(
        fixture("ncu/sgemm_a100_printfp_details15.csv"),
        p.join("csvs/a.csv"),
    )
    .unwrap();
    assert_bad_input(
        p,
        &["gaps", "empty"],
        &format!("empty: an empty directory; {NSYS_FIX}"),
    );
    assert_bad_input(
        p,
        &["gaps", "x.sqlite"],
        &format!("x.sqlite: an empty directory; {NSYS_FIX}"),
    );
    assert_bad_input(
        p,
        &["gaps", "notes"],
        // The .json and .gz that are no traces are named, with why.
        &format!("notes: a directory with no .sqlite, .nsys-rep, or PyTorch trace (.json or .json.gz) file in it (logs.gz and 1 more .json or .gz file are no traces: a PyTorch trace holds `traceEvents`); {NSYS_FIX}"),
    );
    assert_bad_input(
        p,
        &["ncu", "notes", "--gpu", "a100-40gb"],
        &format!("notes: a directory with no .csv or .ncu-rep file in it; {NCU_FIX}"),
    );
    // budget reads one CSV: a directory of CSVs is still not a file.
    let export = fixture("nsys/nsys2022.2.1_pipit_saxpy-mpi-cuda.sqlite");
    let export = export.to_str().unwrap();
    assert_bad_input(
        p,
        &[
            "budget",
            export,
            "--ncu",
            "csvs",
            "--nvtx",
            "step",
            "--gpu",
            "a100-40gb",
        ],
        &format!("csvs: a directory, not a file; {NCU_FIX}"),
    );
    assert_bad_input(
        p,
        &["calibrate", "--from", "empty"],
        "empty: an empty directory; give the JSON lines of a harness run (`rooftrace calibrate --save-results FILE`)",
    );
    assert_bad_input(
        p,
        &["diff", "empty", "x.sqlite"],
        "empty: an empty directory; give two ncu CSVs or .ncu-rep reports, two nsys exports (.sqlite or .nsys-rep), or two `rooftrace ncu|gaps --format json` reports",
    );
}

#[test]
fn empty_and_missing_files_say_so_once_without_the_os_text_twice() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    std::fs::write(p.join("zero.sqlite"), b"").unwrap();
    std::fs::write(p.join("zero.csv"), b"").unwrap();
    assert_bad_input(
        p,
        &["gaps", "zero.sqlite"],
        &format!("zero.sqlite: an empty file (0 bytes); {NSYS_FIX}"),
    );
    assert_bad_input(
        p,
        &["ncu", "zero.csv", "--gpu", "a100-40gb"],
        &format!("zero.csv: an empty file (0 bytes); {NCU_FIX}"),
    );
    assert_bad_input(
        p,
        &["ncu", "missing.csv", "--gpu", "a100-40gb"],
        &format!("missing.csv: no such file; {NCU_FIX}"),
    );
    assert_bad_input(
        p,
        &["gaps", "missing.sqlite"],
        &format!("missing.sqlite: no such file; {NSYS_FIX}"),
    );
    assert_bad_input(
        p,
        &["calibrate", "--from", "missing.jsonl"],
        "missing.jsonl: no such file; give the JSON lines of a harness run (`rooftrace calibrate --save-results FILE`)",
    );
    // The roofs file is read by the roofs layer: the OS's text, once.
    let csv = fixture("ncu/sgemm_a100_printfp_details15.csv");
    let (code, out, err) = run_in(p, &["ncu", csv.to_str().unwrap(), "--roofs", "r.json"]);
    assert_eq!(code, 2, "{err}");
    assert_eq!(out, "");
    assert!(
        err.starts_with("error: cannot read roofs file r.json: "),
        "{err}"
    );
    assert_eq!(err.matches("(os error").count(), 1, "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
}

#[test]
fn a_truncated_sqlite_file_is_called_truncated_with_both_lengths() {
    let d = tempfile::tempdir().unwrap();
    let real = fixture("nsys/nsys2022.2.1_pipit_saxpy-mpi-cuda.sqlite");
    let bytes = std::fs::read(&real).unwrap();
    // The intact export is exactly as long as its header says (page count ×
    // page size), so the header's figure is the real file's length.
    let whole = bytes.len();
    std::fs::write(d.path().join("cut.sqlite"), &bytes[..20_000]).unwrap();
    let line = format!(
        "cut.sqlite: truncated or corrupt SQLite file: its header says {whole} bytes, the file has 20000; copy it again or re-export it with `nsys export --type=sqlite`"
    );
    assert_bad_input(d.path(), &["gaps", "cut.sqlite"], &line);
    assert_bad_input(
        d.path(),
        &[
            "budget",
            "cut.sqlite",
            "--nvtx",
            "x",
            "--bytes-per-step",
            "1GB",
            "--gpu",
            "h100-sxm",
        ],
        &line,
    );
}

#[test]
fn calibrate_plot_with_nothing_measured_is_bad_input_and_writes_nothing() {
    let d = tempfile::tempdir().unwrap();
    // One harness line whose only kernel failed (out of memory): the file
    // parses, but no sample and no roof exist to draw.
    let line = r#"{"schema":"rooftrace.calib/1","kernel":"read_sum","kind":"bandwidth","dtype":"fp32","working_set_bytes":1073741824,"passes":1,"l2_flush":false,"error":"kernel launch: out of memory","device":{"name":"NVIDIA H200","cc":"9.0","sm_count":132,"l2_bytes":62914560,"global_mem_bytes":150754820096,"sm_clock_hz":1980000000,"mem_clock_hz":3201000000,"mem_bus_width_bits":6144,"driver_version":13000,"runtime_version":13000}}"#;
    std::fs::write(d.path().join("R.jsonl"), format!("{line}\n")).unwrap();
    assert_bad_input(
        d.path(),
        &["calibrate", "--from", "R.jsonl", "--plot", "c.png"],
        "R.jsonl: nothing for --plot to draw: no sample with a positive FLOP/byte and FLOP/s, and no roof selected; leave out --plot, or run the harness again on an idle GPU",
    );
    assert!(!d.path().join("c.png").exists());
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

#[test]
fn a_directory_given_to_gaps_yields_its_pytorch_traces_by_content() {
    // A trace kept gzip under its usual name, one decompressed under a bare
    // .json, beside a rooftrace JSON report and a gzip that is not JSON
    // and a .txt: gaps DIR reads the two traces only, sorted by path.
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    std::fs::create_dir_all(p.join("traces/rank1")).unwrap();
    std::fs::copy(
        fixture("kineto/sampled_rank-0.json.gz"),
        p.join("traces/host_1.pt.trace.json.gz"),
    )
    .unwrap();
    let mut raw = Vec::new();
    std::io::Read::read_to_end(
        &mut flate2::read::GzDecoder::new(
            std::fs::File::open(fixture("kineto/sampled_rank-1.json.gz")).unwrap(),
        ),
        &mut raw,
    )
    .unwrap();
    std::fs::write(p.join("traces/rank1/trace.json"), raw).unwrap();
    std::fs::write(
        p.join("traces/report.json"),
        r#"{"schema": "rooftrace.gaps/1"}"#,
    )
    .unwrap();
    std::fs::write(p.join("traces/logs.gz"), gzip(b"step 1 done")).unwrap();
    std::fs::write(p.join("traces/notes.txt"), "not a profile").unwrap();
    let (code, out, err) = run_in(p, &["gaps", "traces", "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    let inputs: Vec<(&str, i64)> = doc["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| (i["input"].as_str().unwrap(), i["rank"].as_i64().unwrap()))
        .collect();
    assert_eq!(
        inputs,
        [
            ("traces/host_1.pt.trace.json.gz", 0),
            ("traces/rank1/trace.json", 1)
        ]
    );
}
