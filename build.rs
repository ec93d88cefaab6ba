//! Records the git commit the binary is built from, for `rooftrace --version`.
//!
//! The commit comes from `ROOFTRACE_GIT_COMMIT` when set (a release build
//! inside a container where git cannot read the checkout), else from
//! `git rev-parse` in the source tree, else from `GITHUB_SHA` (a CI build),
//! else it is "unknown" (a build from a source archive without `.git`).
//! Cargo reruns this script when HEAD or the branch it points at moves.

use std::path::Path;
use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (!text.is_empty()).then_some(text)
}

/// The first 12 hex digits of a commit id, or `None` when `id` is not one.
fn short(id: &str) -> Option<String> {
    let id = id.trim();
    (id.len() >= 7 && id.bytes().all(|b| b.is_ascii_hexdigit()))
        .then(|| id[..id.len().min(12)].to_ascii_lowercase())
}

fn main() {
    println!("cargo:rerun-if-env-changed=ROOFTRACE_GIT_COMMIT");
    println!("cargo:rerun-if-env-changed=GITHUB_SHA");
    // Watch HEAD and the branch file it names (packed refs change the
    // `packed-refs` file instead); only paths that exist, because a missing
    // path would make cargo rerun this script on every build.
    let in_checkout = Path::new(".git").exists();
    if in_checkout {
        let mut watched = vec!["HEAD".to_string(), "packed-refs".to_string()];
        if let Some(branch) = git(&["symbolic-ref", "-q", "HEAD"]) {
            watched.push(branch);
        }
        for name in watched {
            if let Some(path) = git(&["rev-parse", "--git-path", &name]) {
                if Path::new(&path).exists() {
                    println!("cargo:rerun-if-changed={path}");
                }
            }
        }
    }
    let commit = std::env::var("ROOFTRACE_GIT_COMMIT")
        .ok()
        .and_then(|c| short(&c))
        .or_else(|| {
            in_checkout
                .then(|| git(&["rev-parse", "HEAD"]))
                .flatten()
                .and_then(|c| short(&c))
        })
        .or_else(|| std::env::var("GITHUB_SHA").ok().and_then(|c| short(&c)))
        .unwrap_or_else(|| "unknown".to_string());
    println!("cargo:rustc-env=ROOFTRACE_GIT_COMMIT={commit}");
}
