//! Issue 32: a growth that cannot be had is an error with exit 2 naming
//! the input, never an abort. The binary runs under an address-space cap
//! (`ulimit -v` in `sh`, so RLIMIT_AS applies to rooftrace alone) on an
//! export with 2.6 M NVTX ranges: holding them takes 40 bytes each (104 MB,
//! a 168 MB vector once grown by doubling), far more than the cap leaves
//! above what a small export needs. Without the fallible growth in the NVTX
//! reader the process dies on SIGABRT (`memory allocation of … failed`)
//! and this test fails.

use rooftrace::synth::nsys::{write_synthetic, SynthSpec};
use std::path::{Path, PathBuf};
use std::process::Command;

/// `rooftrace gaps FILE --nvtx . --format json` under an address-space cap
/// of `cap_kib` KiB: (exit code, or `None` when a signal ended it; stderr).
fn gaps_capped(file: &Path, cap_kib: u64) -> (Option<i32>, String) {
    let out = Command::new("sh")
        .arg("-c")
        .arg(r#"ulimit -v "$1" && exec "$2" gaps "$3" --nvtx . --format json > /dev/null"#)
        .arg("sh")
        .arg(cap_kib.to_string())
        .arg(env!("CARGO_BIN_EXE_rooftrace"))
        .arg(file)
        // One malloc arena: glibc reserves 64 MiB of address space per
        // thread arena, which would make the cap depend on thread timing.
        .env("MALLOC_ARENA_MAX", "1")
        .env("RUST_BACKTRACE", "0")
        .output()
        .expect("run sh");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn nvtx_growth_past_an_address_space_cap_is_exit_2_naming_the_input() {
    let dir =
        TempDir(std::env::temp_dir().join(format!("rooftrace-memcap-{}", std::process::id())));
    std::fs::create_dir_all(&dir.0).unwrap();
    let spec = SynthSpec {
        kernels: 2_000,
        devices: 1,
        streams: 1,
        seed: 1,
    };
    // The small export: 2,000 kernels and their 20 `step` ranges.
    let small = dir.0.join("small.sqlite");
    write_synthetic(&small, &spec).unwrap();
    // The same export with its NVTX rows doubled 17 times: 20 × 2^17 =
    // 2,621,440 ranges.
    let big = dir.0.join("big.sqlite");
    write_synthetic(&big, &spec).unwrap();
    {
        let db = rusqlite::Connection::open(&big).unwrap();
        db.execute_batch("pragma journal_mode=off; pragma synchronous=off;")
            .unwrap();
        for _ in 0..17 {
            db.execute_batch("insert into NVTX_EVENTS select * from NVTX_EVENTS")
                .unwrap();
        }
        let n: i64 = db
            .query_row("select count(*) from NVTX_EVENTS", [], |r| r.get(0))
            .unwrap();
        assert_eq!(n, 2_621_440);
    }
    // The least cap (to 4 MiB) under which the small export's run
    // completes: what the process needs besides the big export's ranges.
    let (mut lo, mut hi) = (4 * 1024u64, 1024 * 1024u64);
    assert_eq!(
        gaps_capped(&small, hi).0,
        Some(0),
        "the small export at 1 GiB"
    );
    while hi - lo > 4 * 1024 {
        let mid = (lo + hi) / 2;
        if gaps_capped(&small, mid).0 == Some(0) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    // 64 MiB above that is less than the ranges need (104 MB): the NVTX
    // reader's growth fails, and says so.
    let cap = hi + 64 * 1024;
    let (code, err) = gaps_capped(&big, cap);
    assert_eq!(
        code,
        Some(2),
        "under a {cap} KiB cap: exit {code:?} (None: killed by a signal, the abort this test guards against); stderr:\n{err}"
    );
    assert!(
        err.contains(&format!("{}: holding the ", big.display()))
            && err.contains("rows of NVTX_EVENTS needs more memory than this process can get")
            && err.contains("ulimit -v"),
        "{err}"
    );
    assert!(!err.contains("memory allocation of"), "{err}");
}
