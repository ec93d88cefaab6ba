//! Issue 30, bounded on any file: a FIFO or a device behind an input's
//! name is refused before it is opened, by every command and both timeline
//! readers and the ncu reader (a FIFO used to hang `gaps`, `budget`, `ncu`
//! and `diff`; `/dev/zero` behind `x.json` made `diff` read 5.7 GB). Each
//! run has a deadline: a hang fails the test instead of the suite.

use crate::common::fixture;
use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Runs rooftrace with a 60 s deadline; (exit code, stderr).
fn run_bounded(args: &[&str]) -> (i32, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_rooftrace"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if start.elapsed() > Duration::from_secs(60) {
            child.kill().unwrap();
            panic!("rooftrace {args:?} ran past 60 s (it must refuse the input unread)");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    (status.code().unwrap_or(-1), err)
}

fn mkfifo(path: &std::path::Path) {
    let ok = Command::new("mkfifo").arg(path).status().unwrap().success();
    assert!(ok, "mkfifo");
}

#[test]
fn a_fifo_behind_an_input_name_is_refused_by_every_command() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("x.json");
    let sqlite = dir.path().join("x.sqlite");
    let csv = dir.path().join("x.csv");
    for p in [&json, &sqlite, &csv] {
        mkfifo(p);
    }
    let trace = fixture("kineto/cuda_event_sync.json.gz");
    let (j, s, c, t) = (
        json.to_str().unwrap(),
        sqlite.to_str().unwrap(),
        csv.to_str().unwrap(),
        trace.to_str().unwrap(),
    );
    for args in [
        vec!["gaps", j],
        vec!["gaps", s],
        vec!["budget", j, "--gpu", "a100-40gb", "--nvtx", "step"],
        vec!["budget", s, "--gpu", "a100-40gb", "--nvtx", "step"],
        vec!["ncu", j, "--gpu", "a100-40gb"],
        vec!["ncu", c, "--gpu", "a100-40gb"],
        vec!["diff", j, t],
        vec!["diff", t, j],
    ] {
        let (code, err) = run_bounded(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains("special file"), "{args:?} says why: {err}");
        assert!(err.contains("x."), "{args:?} names the file: {err}");
    }
}

#[test]
fn a_device_behind_a_json_name_is_never_read() {
    let zero = std::path::Path::new("/dev/zero");
    if !zero.exists() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("x.json");
    std::os::unix::fs::symlink(zero, &json).unwrap();
    let j = json.to_str().unwrap();
    let trace = fixture("kineto/cuda_event_sync.json.gz");
    for args in [
        vec!["diff", j, trace.to_str().unwrap()],
        vec!["gaps", j],
        vec!["ncu", j, "--gpu", "a100-40gb"],
    ] {
        let (code, err) = run_bounded(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains("special file"), "{args:?}: {err}");
    }
}

#[test]
fn the_library_readers_refuse_a_fifo_unopened() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("x.json");
    mkfifo(&json);
    let err = rooftrace::kineto::read_timeline(&json)
        .unwrap_err()
        .to_string();
    assert!(err.contains("special file"), "{err}");
    let err = rooftrace::input::identify(&json).unwrap_err().to_string();
    assert!(err.contains("special file"), "{err}");
    let sqlite = dir.path().join("x.sqlite");
    mkfifo(&sqlite);
    let err = rooftrace::nsys::read_timeline(&sqlite, false, &|_, _| {})
        .unwrap_err()
        .to_string();
    assert!(err.contains("special file"), "{err}");
}

#[test]
fn a_roofs_file_that_is_a_fifo_or_a_device_is_refused_unread() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("roofs.json");
    mkfifo(&fifo);
    let csv = fixture("ncu/sgemm_a100_printfp_details15.csv");
    for roofs in [fifo.to_str().unwrap(), "/dev/zero"] {
        if !std::path::Path::new(roofs).exists() {
            continue;
        }
        let (code, err) = run_bounded(&["ncu", csv.to_str().unwrap(), "--roofs", roofs]);
        assert_eq!(code, 2, "{roofs}: {err}");
        assert!(err.contains("special file"), "{roofs}: {err}");
    }
}

/// `-o` naming a FIFO (or a device: `-o /dev/null` as root once put a
/// regular file where `/dev/null` was) is written into, never renamed over:
/// the FIFO stays a FIFO and its reader gets the whole report, byte for byte
/// what stdout gets.
#[test]
fn an_output_fifo_is_written_through_not_replaced() {
    use std::os::unix::fs::FileTypeExt;
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("out.json");
    mkfifo(&fifo);
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || {
            let mut got = Vec::new();
            std::fs::File::open(&fifo)
                .unwrap()
                .read_to_end(&mut got)
                .unwrap();
            got
        })
    };
    let csv = fixture("ncu/sgemm_a100_printfp_details15.csv");
    let csv = csv.to_str().unwrap();
    let base = ["ncu", csv, "--gpu", "a100-40gb", "--format", "json"];
    let mut with_o = base.to_vec();
    with_o.extend(["-o", fifo.to_str().unwrap()]);
    let (code, _, err) = crate::common::rooftrace(&with_o);
    assert_eq!(code, 0, "{err}");
    // Checked before the join: a FIFO renamed over leaves its reader
    // waiting for a writer that never comes.
    assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
    let got = reader.join().unwrap();
    let (code, stdout, err) = crate::common::rooftrace(&base);
    assert_eq!(code, 0, "{err}");
    assert_eq!(String::from_utf8(got).unwrap(), stdout);
}
