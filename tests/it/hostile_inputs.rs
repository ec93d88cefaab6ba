//! Hostile ncu CSVs, calibrate inputs and output targets (issue 13, cases
//! 7-12 and `-`). Each input is a real fixture edited in the test, in a
//! temporary directory.

use crate::common::{fixture, root};
use crate::hostile_nsys::run_limited;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

const RAW: &str = "ncu/bf16_gemm_raw_page_units.csv";

/// Runs rooftrace with `stdin` piped in; returns (exit code, stdout, stderr).
fn run_stdin(args: &[&str], stdin: &[u8]) -> (i32, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_rooftrace"))
        .args(args)
        .current_dir(root())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut pipe = child.stdin.take().unwrap();
    let data = stdin.to_vec();
    let feeder = std::thread::spawn(move || {
        let _ = pipe.write_all(&data);
    });
    let out = child.wait_with_output().unwrap();
    feeder.join().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn run(args: &[&str]) -> (i32, String, String) {
    run_stdin(args, b"")
}

/// The raw-page fixture with line `n` (1-based) replaced by `f(line)`, and
/// `extra` appended.
fn raw_edited(dir: &Path, name: &str, n: usize, f: impl Fn(&str) -> String, extra: &str) -> String {
    let text = std::fs::read_to_string(fixture(RAW)).unwrap();
    let mut out: Vec<String> = text
        .lines()
        .enumerate()
        .map(|(i, l)| if i + 1 == n { f(l) } else { l.to_string() })
        .collect();
    if !extra.is_empty() {
        out.push(extra.to_string());
    }
    let p = dir.join(name);
    std::fs::write(&p, out.join("\n") + "\n").unwrap();
    p.to_str().unwrap().to_string()
}

/// Line 5 of the fixture (launch 0 of process 1742833) with cell `col`
/// (0-based) replaced by `v`.
fn line5_with(col: usize, v: &str) -> String {
    let text = std::fs::read_to_string(fixture(RAW)).unwrap();
    let line = text.lines().nth(4).unwrap();
    let mut cells: Vec<String> = line.split("\",\"").map(str::to_string).collect();
    let last = cells.len() - 1;
    cells[0] = cells[0].trim_start_matches('"').to_string();
    cells[last] = cells[last].trim_end_matches('"').to_string();
    cells[col] = v.to_string();
    format!("\"{}\"", cells.join("\",\""))
}

#[test]
fn case8_one_id_two_kernels_is_an_error_not_a_merge() {
    let dir = tempfile::tempdir().unwrap();
    // Launch 0 of process 1742833 again, as another kernel (column 4).
    let p = raw_edited(
        dir.path(),
        "dup.csv",
        0,
        str::to_string,
        &line5_with(4, "other_kernel"),
    );
    let (code, _, err) = run(&["ncu", &p, "--gpu", "rtx5090"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("line 7: launch ID 0 of process 1742833 is kernel \"other_kernel\""),
        "{err}"
    );
    assert!(err.contains("at line 5"), "{err}");
    // The same row repeated with the same kernel is one launch, as before.
    let same = raw_edited(
        dir.path(),
        "same.csv",
        0,
        str::to_string,
        &line5_with(0, "0"),
    );
    let (code, _, err) = run(&["ncu", &same, "--gpu", "rtx5090"]);
    assert_eq!(code, 0, "{err}");
}

#[test]
fn case9_numbers_that_overflow_or_are_absurd_are_bad_input() {
    let dir = tempfile::tempdir().unwrap();
    // Column 12 is dram__bytes_write.sum (unit byte).
    let digits = "9".repeat(400);
    for (name, v, why) in [
        ("d400.csv", digits.as_str(), "is not finite once read"),
        ("e309.csv", "1e309", "is not finite once read"),
        ("e308.csv", "1e308", "is beyond 1e30 in base units"),
    ] {
        let p = raw_edited(dir.path(), name, 5, |_| line5_with(12, v), "");
        let (code, out, err) = run(&["ncu", &p, "--gpu", "rtx5090"]);
        assert_eq!(code, 2, "{name}: {out}{err}");
        assert!(err.contains("line 5"), "{name}: {err}");
        assert!(err.contains("dram__bytes_write.sum"), "{name}: {err}");
        assert!(err.contains(why), "{name}: {err}");
    }
}

#[test]
fn case10_long_fields_are_bounded_and_not_echoed() {
    let dir = tempfile::tempdir().unwrap();
    // A 1 MB non-number in a metric cell: the message quotes 120 characters.
    let junk = "x".repeat(1 << 20);
    let p = raw_edited(dir.path(), "junk.csv", 5, |_| line5_with(12, &junk), "");
    let (code, _, err) = run(&["ncu", &p, "--gpu", "rtx5090"]);
    assert_eq!(code, 2, "{}", &err[..err.len().min(300)]);
    assert!(err.len() < 2000, "{} bytes of stderr", err.len());
    assert!(err.contains("(1048576 bytes)"), "{err}");
    // A 10 MB field: the record limit (4 MiB) stops it.
    let big = "7".repeat(10 << 20);
    let p = raw_edited(dir.path(), "big.csv", 5, |_| line5_with(12, &big), "");
    let (code, _, err) = run(&["ncu", &p, "--gpu", "rtx5090"]);
    assert_eq!(code, 2);
    assert!(err.len() < 2000, "{} bytes of stderr", err.len());
    assert!(err.contains("longer than 4194304 bytes"), "{err}");
    // `/dev/zero`: a device, refused before it is read (issue 30; it used
    // to be read up to the 4 MiB record limit), within the memory limit.
    #[cfg(target_os = "linux")]
    {
        let (code, err) = run_limited(&["ncu", "/dev/zero"], 1_000_000, Duration::from_secs(60));
        assert_eq!(code, 2, "{err}");
        assert!(err.contains("special file"), "{err}");
    }
}

#[test]
fn case11_calibrate_writes_nothing_without_dram() {
    let dir = tempfile::tempdir().unwrap();
    // Line 1 of the published H100 file: an L2-resident read_sum, no DRAM
    // point (see fixtures/calibrate/README.md).
    let text = std::fs::read_to_string(fixture("calibrate/h100-published.jsonl")).unwrap();
    let one = dir.path().join("one_line.jsonl");
    std::fs::write(&one, text.lines().next().unwrap()).unwrap();
    let r = dir.path().join("r.json");
    let c = dir.path().join("c.svg");
    let (code, _, err) = run(&[
        "calibrate",
        "--from",
        one.to_str().unwrap(),
        "-o",
        r.to_str().unwrap(),
        "--plot",
        c.to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("no DRAM roof"), "{err}");
    assert!(!r.exists() && !c.exists());
    // The whole file writes both.
    let all = fixture("calibrate/h100-published.jsonl");
    let (code, _, err) = run(&[
        "calibrate",
        "--from",
        all.to_str().unwrap(),
        "-o",
        r.to_str().unwrap(),
        "--plot",
        c.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(r.exists() && c.exists());
    // A roofs file without DRAM (edited by hand) is refused by name.
    let text = std::fs::read_to_string(&r).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["memory"].as_object_mut().unwrap().remove("dram");
    std::fs::write(&r, v.to_string()).unwrap();
    let csv = fixture(RAW);
    let (code, _, err) = run(&["ncu", csv.to_str().unwrap(), "--roofs", r.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains(&format!("--roofs {}", r.display())), "{err}");
    assert!(err.contains("no DRAM bandwidth"), "{err}");
}

#[cfg(unix)]
#[test]
fn case12_an_output_that_is_an_input_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let s = d.join("s.sqlite");
    std::fs::copy(fixture("nsys/nsys2024.5.1_pipit_cloverleaf.sqlite"), &s).unwrap();
    let before = std::fs::read(&s).unwrap();
    let png = d.join("s.png");
    std::os::unix::fs::symlink(&s, &png).unwrap();
    let (code, _, err) = run(&["gaps", s.to_str().unwrap(), "--plot", png.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("this is the input"), "{err}");
    let (code, _, err) = run(&["gaps", s.to_str().unwrap(), "-o", s.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    let (code, _, err) = run(&[
        "budget",
        s.to_str().unwrap(),
        "--nvtx",
        ".",
        "--gpu",
        "h100-sxm",
        "--plot",
        png.to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("this is the input"), "{err}");
    assert_eq!(std::fs::read(&s).unwrap(), before);

    let csv = d.join("in.csv");
    std::fs::copy(fixture(RAW), &csv).unwrap();
    let svg = d.join("in.svg");
    std::os::unix::fs::symlink(&csv, &svg).unwrap();
    let c = csv.to_str().unwrap();
    for args in [
        vec!["ncu", c, "--gpu", "rtx5090", "-o", c],
        vec![
            "ncu",
            c,
            "--gpu",
            "rtx5090",
            "--plot",
            svg.to_str().unwrap(),
        ],
    ] {
        let (code, _, err) = run(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
    }
    assert_eq!(
        std::fs::read(&csv).unwrap(),
        std::fs::read(fixture(RAW)).unwrap()
    );

    let j = d.join("x.jsonl");
    std::fs::copy(fixture("calibrate/h100-published.jsonl"), &j).unwrap();
    let (code, _, err) = run(&[
        "calibrate",
        "--from",
        j.to_str().unwrap(),
        "-o",
        j.to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{err}");
    assert_eq!(
        std::fs::read(&j).unwrap(),
        std::fs::read(fixture("calibrate/h100-published.jsonl")).unwrap()
    );
}

#[test]
fn dash_reads_stdin_or_is_refused() {
    let csv = std::fs::read(fixture(RAW)).unwrap();
    let (code, from_stdin, err) =
        run_stdin(&["ncu", "-", "--gpu", "rtx5090", "--format", "csv"], &csv);
    assert_eq!(code, 0, "{err}");
    let (code, from_file, _) = run(&[
        "ncu",
        fixture(RAW).to_str().unwrap(),
        "--gpu",
        "rtx5090",
        "--format",
        "csv",
    ]);
    assert_eq!(code, 0);
    assert_eq!(from_stdin, from_file);

    let jl = std::fs::read(fixture("calibrate/h100-published.jsonl")).unwrap();
    let (code, out, err) = run_stdin(&["calibrate", "--from", "-", "--format", "json"], &jl);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("\"dram\""), "{out}");

    let (code, _, err) = run(&["gaps", "-"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("cannot come from standard input"), "{err}");
}
