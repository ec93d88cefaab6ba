//! The fuzz corpus and every saved crasher, replayed on stable through the
//! same entry points as the cargo-fuzz targets (`fuzz/src/entry.rs`), so CI
//! keeps what the fuzzers found fixed without nightly or cargo-fuzz. A
//! panic fails the test; an abort or a hang fails the whole run.

#[path = "../../fuzz/src/entry.rs"]
#[allow(dead_code)]
pub(crate) mod entry;

use crate::common::root;

/// Every file under `fuzz/corpus/<target>` and `fuzz/artifacts/<target>`.
fn inputs(target: &str) -> Vec<std::path::PathBuf> {
    let mut v = Vec::new();
    for dir in ["corpus", "artifacts"] {
        if let Ok(d) = std::fs::read_dir(root().join("fuzz").join(dir).join(target)) {
            v.extend(d.flatten().map(|e| e.path()).filter(|p| p.is_file()));
        }
    }
    v.sort();
    v
}

fn replay(target: &str, f: fn(&[u8])) -> usize {
    let files = inputs(target);
    for p in &files {
        let data = std::fs::read(p).unwrap();
        let name = p.display().to_string();
        // Name the input before running it, so a panic says which.
        let r = std::panic::catch_unwind(|| f(&data));
        assert!(r.is_ok(), "{target} panicked on {name}");
    }
    files.len()
}

#[test]
fn ncu_csv_corpus_replays() {
    assert!(replay("ncu_csv", entry::ncu_csv) >= 10);
}

#[test]
fn calibrate_results_corpus_replays() {
    assert!(replay("calibrate_results", entry::calibrate_results) >= 3);
}

#[test]
fn nsys_sql_corpus_replays() {
    assert!(replay("nsys_sql", entry::nsys_sql) >= 10);
}

#[test]
fn kineto_json_corpus_replays() {
    assert!(replay("kineto_json", entry::kineto_json) >= 5);
}
