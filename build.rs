//! Records the git commit the binary is built from, for `rooftrace --version`.
//!
//! The commit comes from `ROOFTRACE_GIT_COMMIT` when set (a release build
//! inside a container where git cannot read the checkout), else from
//! `git rev-parse HEAD` in the source tree, else from `GITHUB_SHA` (a CI
//! build), else it is "unknown" (a build from a source archive without
//! `.git`).
//!
//! The script reruns when the sources change, not when HEAD moves: watching
//! `.git` would rebuild the whole crate after every commit. So a clean build
//! (CI, `cargo install`, a wheel) names HEAD, and a development build names
//! the commit that was HEAD when the sources last changed (the same binary
//! as any later commit that only touched tests or docs).

use std::process::Command;

fn git_head() -> Option<String> {
    let out = Command::new("git")
        .args(["rev-parse", "HEAD"])
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    String::from_utf8(out.stdout).ok()
}

/// The first 12 hex digits of a commit id, or `None` when `id` is not one.
fn short(id: &str) -> Option<String> {
    let id = id.trim();
    (id.len() >= 7 && id.bytes().all(|b| b.is_ascii_hexdigit()))
        .then(|| id[..id.len().min(12)].to_ascii_lowercase())
}

fn main() {
    for path in ["build.rs", "Cargo.toml", "src", "kernels", "assets"] {
        println!("cargo:rerun-if-changed={path}");
    }
    println!("cargo:rerun-if-env-changed=ROOFTRACE_GIT_COMMIT");
    println!("cargo:rerun-if-env-changed=GITHUB_SHA");
    let in_checkout = std::path::Path::new(".git").exists();
    let commit = std::env::var("ROOFTRACE_GIT_COMMIT")
        .ok()
        .and_then(|c| short(&c))
        .or_else(|| in_checkout.then(git_head).flatten().and_then(|c| short(&c)))
        .or_else(|| std::env::var("GITHUB_SHA").ok().and_then(|c| short(&c)))
        .unwrap_or_else(|| "unknown".to_string());
    println!("cargo:rustc-env=ROOFTRACE_GIT_COMMIT={commit}");
}
