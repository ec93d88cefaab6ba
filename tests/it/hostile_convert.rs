//! `.nsys-rep` conversion with a broken `nsys` (issue 13, case 7): fake
//! `nsys` scripts that write nothing, half a file, hang, or flood stderr.
//! Each run gets its own cache directory (`XDG_CACHE_HOME`).

use crate::common::{fixture, root};
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

/// Writes an executable `nsys` script whose body sees the output path as
/// `$5` and the report as `$6` (`export --type=sqlite --force-overwrite=true
/// -o OUT REP`).
#[cfg(unix)]
fn fake_nsys(dir: &Path, body: &str) -> std::path::PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let p = dir.join("nsys");
    std::fs::write(&p, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    p
}

/// Runs `gaps REP` with the fake nsys and a private cache.
fn gaps(rep: &Path, nsys: &Path, cache: &Path, timeout_s: &str) -> (i32, String, Duration) {
    let t0 = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_rooftrace"))
        .args([
            "gaps",
            rep.to_str().unwrap(),
            "--nsys",
            nsys.to_str().unwrap(),
        ])
        .env("XDG_CACHE_HOME", cache)
        .env("ROOFTRACE_NSYS_TIMEOUT", timeout_s)
        .current_dir(root())
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        t0.elapsed(),
    )
}

fn cache_files(cache: &Path) -> Vec<String> {
    std::fs::read_dir(cache.join("rooftrace"))
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(unix)]
#[test]
fn case7_broken_nsys_output_is_never_cached() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let rep = d.join("run.nsys-rep");
    std::fs::write(&rep, b"report").unwrap();
    let good = fixture("nsys/nsys2024.5.1_pipit_cloverleaf.sqlite");
    let cases = [
        ("empty", ": > \"$5\"".to_string()),
        ("nothing", "rm -f \"$5\"".to_string()),
        (
            "half",
            format!("head -c 1000000 '{}' > \"$5\"", good.display()),
        ),
    ];
    for (name, body) in cases {
        let cache = d.join(format!("cache-{name}"));
        let nsys = fake_nsys(d, &body);
        for _ in 0..2 {
            // Twice: the second run must convert again, not read a bad cache.
            let (code, err, _) = gaps(&rep, &nsys, &cache, "60");
            assert_eq!(code, 2, "{name}: {err}");
            assert!(err.contains("not a usable export"), "{name}: {err}");
            assert!(err.contains("run.nsys-rep"), "{name}: {err}");
            assert!(
                cache_files(&cache).is_empty(),
                "{name}: {:?}",
                cache_files(&cache)
            );
        }
    }
    // A good export is cached once and reused.
    let cache = d.join("cache-good");
    let nsys = fake_nsys(d, &format!("cp '{}' \"$5\"", good.display()));
    let (code, err, _) = gaps(&rep, &nsys, &cache, "60");
    assert_eq!(code, 0, "{err}");
    assert_eq!(cache_files(&cache).len(), 1);
}

#[cfg(unix)]
#[test]
fn case7_hanging_nsys_is_stopped_and_its_stderr_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let rep = d.join("run.nsys-rep");
    std::fs::write(&rep, b"report").unwrap();
    let cache = d.join("cache");
    let nsys = fake_nsys(d, "echo 'half' > \"$5\"; exec sleep 600");
    let (code, err, took) = gaps(&rep, &nsys, &cache, "2");
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("no answer within 2 s"), "{err}");
    assert!(took < Duration::from_secs(30), "{took:?}");
    assert!(cache_files(&cache).is_empty(), "{:?}", cache_files(&cache));
    // 50 MB of stderr, then failure: the message keeps the last 64 KiB.
    let nsys = fake_nsys(
        d,
        "head -c 50000000 /dev/zero | tr '\\0' 'e' >&2; echo ' the real error' >&2; exit 3",
    );
    let (code, err, _) = gaps(&rep, &nsys, &cache, "60");
    assert_eq!(code, 2);
    assert!(err.len() < 80_000, "{} bytes of stderr", err.len());
    assert!(
        err.contains("the real error"),
        "{}",
        &err[err.len() - 200..]
    );
}
