//! Helpers shared by the integration tests.

use std::path::PathBuf;

/// The project root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A file under `fixtures/`.
#[allow(dead_code)]
pub fn fixture(rel: &str) -> PathBuf {
    root().join("fixtures").join(rel)
}

/// `../shared/corpus/<sub>` when present (CI has it beside the clone), or
/// `$ROOFTRACE_CORPUS/<sub>` (a worktree elsewhere); `None` otherwise, so
/// corpus tests skip cleanly.
#[allow(dead_code)]
pub fn corpus(sub: &str) -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("ROOFTRACE_CORPUS") {
        let p = PathBuf::from(dir).join(sub);
        if p.is_dir() {
            return Some(p);
        }
    }
    let p = root().join("..").join("shared").join("corpus").join(sub);
    p.is_dir().then_some(p)
}

/// Runs the built `rooftrace` binary with `args`; returns (exit code, stdout, stderr).
#[allow(dead_code)]
pub fn rooftrace(args: &[&str]) -> (i32, String, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_rooftrace"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("run rooftrace");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Runs rooftrace with `args` and `--format json`; returns (exit code, the
/// parsed stdout (`Null` when it is not JSON, e.g. after an error), stderr).
#[allow(dead_code)]
pub fn rooftrace_json(args: &[&str]) -> (i32, serde_json::Value, String) {
    let (code, out, err) = rooftrace(&[args, &["--format", "json"]].concat());
    (
        code,
        serde_json::from_str(&out).unwrap_or(serde_json::Value::Null),
        err,
    )
}

/// Every real nsys export: the bundled `fixtures/nsys/*.sqlite` and the
/// corpus's, sorted.
#[allow(dead_code)]
pub fn nsys_exports() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = Vec::new();
    let mut dirs = vec![fixture("nsys")];
    dirs.extend(corpus("nsys"));
    for d in dirs {
        for e in std::fs::read_dir(d).unwrap().flatten() {
            let p = e.path();
            if p.extension().is_some_and(|x| x == "sqlite") {
                v.push(p);
            }
        }
    }
    v.sort();
    v
}
