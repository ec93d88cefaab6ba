//! The README cannot rot: every fenced block with the info string `sh` runs
//! as written from the repo root on shipped fixtures; `sh needs-own-profile`
//! blocks need the user's own profile and are not run.
//!
//! Each `sh` block runs in bash, in one scratch directory for the whole
//! README whose entries link to the repo root's (so `fixtures/...` resolves
//! and outputs land in the scratch directory), with a `rooftrace` on PATH
//! that is the binary under test. Commands are grouped by `\` continuation;
//! those starting with `rooftrace` or `cargo run --release --` (rewritten to
//! `rooftrace`) run, the others (`cargo test`, `pip install`, `duckdb`, `gh`)
//! are set-up or hand-off steps and are not. A command must exit 0 unless
//! its comment says otherwise (`# exits 3 ...`). A failure names the README
//! line and the command.

use super::common::root;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The info string of blocks that run.
const RUNS: &str = "sh";
/// The info string of blocks that need the user's own profile.
const OWN_PROFILE: &str = "sh needs-own-profile";
/// Longest one README block may run.
const BLOCK_LIMIT: Duration = Duration::from_secs(300);

/// A fenced block: the line of its opening fence (1-based), its info string
/// and its lines with their line numbers.
struct Block {
    line: usize,
    info: String,
    lines: Vec<(usize, String)>,
}

/// One shell command of a block: the README line it starts on and its text
/// (continuation lines included).
struct ShellCommand {
    line: usize,
    text: String,
}

fn blocks(readme: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut open: Option<Block> = None;
    for (i, raw) in readme.lines().enumerate() {
        let trimmed = raw.trim_start();
        if let Some(rest) = trimmed.strip_prefix("```") {
            match open.take() {
                Some(b) => out.push(b),
                None => {
                    open = Some(Block {
                        line: i + 1,
                        info: rest.trim().to_string(),
                        lines: Vec::new(),
                    })
                }
            }
        } else if let Some(b) = open.as_mut() {
            b.lines.push((i + 1, raw.to_string()));
        }
    }
    assert!(open.is_none(), "README.md: a fenced block is never closed");
    out
}

fn commands(block: &Block) -> Vec<ShellCommand> {
    let mut out: Vec<ShellCommand> = Vec::new();
    let mut continues = false;
    for (line, text) in &block.lines {
        if continues {
            if let Some(c) = out.last_mut() {
                c.text.push('\n');
                c.text.push_str(text);
            }
        } else if !text.trim().is_empty() && !text.trim_start().starts_with('#') {
            out.push(ShellCommand {
                line: *line,
                text: text.clone(),
            });
        }
        continues = text.trim_end().ends_with('\\');
    }
    out
}

/// The command as run: `cargo run --release -- ARGS` becomes `rooftrace
/// ARGS`; `None` for a command that is not a rooftrace run.
fn runnable(c: &ShellCommand) -> Option<String> {
    let t = c.text.trim_start();
    if let Some(rest) = t.strip_prefix("cargo run --release -- ") {
        return Some(format!("rooftrace {rest}"));
    }
    (t.starts_with("rooftrace ") || t == "rooftrace").then(|| t.to_string())
}

/// The exit code a command's comment announces (`# exits 3 ...`), else 0.
fn expected_exit(c: &ShellCommand) -> i32 {
    let re = regex::Regex::new(r"#[^'\x22]*\bexits? (\d+)\b").unwrap();
    re.captures(&c.text)
        .and_then(|m| m[1].parse().ok())
        .unwrap_or(0)
}

/// The bash script of one block: each runnable command in braces, then a
/// check of its exit code that names the README line.
fn script(block: &Block) -> String {
    let mut s = String::from("set -o pipefail\n");
    for c in commands(block) {
        let Some(text) = runnable(&c) else { continue };
        let want = expected_exit(&c);
        let first = c
            .text
            .lines()
            .next()
            .unwrap_or_default()
            .replace('\'', "'\\''");
        s.push_str(&format!(
            "{{\n{text}\n}}\nrc=$?\nif [ \"$rc\" -ne {want} ]; then echo 'README.md line {}: exit '\"$rc\"' (expected {want}): {first}' >&2; exit 90; fi\n",
            c.line
        ));
    }
    s
}

/// A scratch directory whose entries link to the repo root's (not `target`
/// or `.git`), so commands read `fixtures/` as written and write beside it.
#[cfg(unix)]
fn scratch_root() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for e in std::fs::read_dir(root()).unwrap().flatten() {
        let name = e.file_name();
        if name == "target" || name == ".git" {
            continue;
        }
        std::os::unix::fs::symlink(e.path(), dir.path().join(&name)).unwrap();
    }
    dir
}

/// A directory holding `rooftrace`: the binary under test.
#[cfg(unix)]
fn shim_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(
        env!("CARGO_BIN_EXE_rooftrace"),
        dir.path().join("rooftrace"),
    )
    .unwrap();
    dir
}

/// Runs `script` with bash in `cwd`; returns (exit code, output) or fails
/// after [`BLOCK_LIMIT`].
fn run_bash(script: &str, cwd: &Path, bin: &Path) -> (i32, String) {
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out_file = cwd.join(".readme-block.out");
    let sink = std::fs::File::create(&out_file).unwrap();
    let mut child = Command::new("bash")
        .arg("-c")
        .arg(script)
        .current_dir(cwd)
        .env("PATH", path)
        .stdin(Stdio::null())
        .stdout(sink.try_clone().unwrap())
        .stderr(sink)
        .spawn()
        .expect("bash");
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if start.elapsed() > BLOCK_LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            panic!("README block ran longer than {BLOCK_LIMIT:?}:\n{script}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let text = std::fs::read_to_string(&out_file).unwrap_or_default();
    (status.code().unwrap_or(-1), text)
}

#[cfg(unix)]
#[test]
fn every_runnable_readme_block_runs_as_written_on_the_shipped_fixtures() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let scratch = scratch_root();
    let bin = shim_dir();
    let mut ran = 0;
    for block in blocks(&readme) {
        if block.info != RUNS {
            continue;
        }
        let s = script(&block);
        ran += s.matches("\nrc=$?").count();
        let (code, out) = run_bash(&s, scratch.path(), bin.path());
        let tail: Vec<&str> = out.lines().rev().take(30).collect();
        let tail: Vec<&str> = tail.into_iter().rev().collect();
        assert_eq!(
            code,
            0,
            "README.md block at line {} failed:\n{}",
            block.line,
            tail.join("\n")
        );
    }
    // The first command, plus at least one of each of ncu, gaps, budget,
    // diff and calibrate on fixtures.
    assert!(ran >= 6, "only {ran} README commands ran");
    for sub in ["ncu", "gaps", "budget", "diff", "calibrate"] {
        let runs_it = blocks(&readme)
            .iter()
            .filter(|b| b.info == RUNS)
            .flat_map(commands)
            .filter_map(|c| runnable(&c))
            .any(|t| t.starts_with(&format!("rooftrace {sub} ")));
        assert!(runs_it, "no runnable README example of `rooftrace {sub}`");
    }
}

#[test]
fn every_readme_command_block_is_marked_runnable_or_own_profile() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    for b in blocks(&readme) {
        let has_commands = commands(&b).iter().any(|c| runnable(c).is_some());
        if b.info.starts_with("sh") {
            assert!(
                b.info == RUNS || b.info == OWN_PROFILE,
                "README.md line {}: info string `{}` is neither `{RUNS}` nor `{OWN_PROFILE}`",
                b.line,
                b.info
            );
        } else {
            assert!(
                !(has_commands && b.info.is_empty()),
                "README.md line {}: a block of rooftrace commands without an info string; mark it `{RUNS}` (runs on fixtures) or `{OWN_PROFILE}`",
                b.line
            );
        }
    }
}

/// The README's set-up block: its first two commands.
fn first_commands() -> Vec<String> {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let first = blocks(&readme).into_iter().next().expect("a fenced block");
    assert_eq!(first.info, RUNS, "the README's first block runs");
    commands(&first)
        .iter()
        .map(|c| {
            let t = c.text.trim();
            // The command without its comment.
            t.split(" #").next().unwrap_or(t).trim().to_string()
        })
        .collect()
}

#[test]
fn the_readme_opens_with_the_main_job_and_the_test_command_ci_runs() {
    let cmds = first_commands();
    assert_eq!(cmds.len(), 2, "{cmds:?}");
    assert!(cmds[0].starts_with("cargo run --release -- "), "{cmds:?}");
    assert_eq!(cmds[1], "cargo test --locked");
    let ci = std::fs::read_to_string(root().join(".ci/run")).unwrap();
    let calls: Vec<&str> = ci
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with("cargo test"))
        .collect();
    assert_eq!(
        calls,
        [cmds[1].as_str()],
        ".ci/run must call exactly the README's test command"
    );
}

#[test]
fn the_calibrate_time_is_the_same_in_help_and_readme() {
    let re = regex::Regex::new(r"(\d+-\d+) min\b").unwrap();
    let (code, help, _) = super::common::rooftrace(&["calibrate", "--help"]);
    assert_eq!(code, 0);
    let in_help: Vec<&str> = re
        .captures_iter(&help)
        .map(|c| c.get(1).unwrap().as_str())
        .collect();
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let line = readme
        .lines()
        .find(|l| l.contains("rooftrace calibrate -o roofs.json"))
        .expect("the README's live calibrate line");
    let in_readme = re
        .captures(line)
        .map(|c| c.get(1).unwrap().as_str().to_string());
    assert_eq!(in_help.first().map(|s| s.to_string()), in_readme, "{help}");
}

#[test]
fn version_names_the_commit_it_was_built_from() {
    let (code, out, _) = super::common::rooftrace(&["--version"]);
    assert_eq!(code, 0);
    let re = regex::Regex::new(r"^rooftrace (\S+) \(commit ([0-9a-f]{12}|unknown)\)\n$").unwrap();
    let caps = re.captures(&out).unwrap_or_else(|| panic!("{out:?}"));
    assert_eq!(&caps[1], env!("CARGO_PKG_VERSION"));
    // Built in a git checkout (and not told otherwise), it is HEAD as of
    // the last change to the sources (build.rs does not watch `.git`), so
    // HEAD or one of its ancestors; a clean clone's build gives HEAD.
    let git = |args: &[&str]| {
        Command::new("git")
            .args(args)
            .current_dir(root())
            .output()
            .ok()
            .filter(|o| o.status.success())
    };
    if git(&["rev-parse", "HEAD"]).is_some() && std::env::var_os("ROOFTRACE_GIT_COMMIT").is_none() {
        let commit = &caps[2];
        assert!(
            git(&["merge-base", "--is-ancestor", commit, "HEAD"]).is_some(),
            "{commit} is not HEAD or an ancestor of it"
        );
    }
}

#[test]
fn block_parsing_groups_continuations_and_reads_expected_exits() {
    let md = "x\n```sh\nrooftrace a \\\n  --b   # exits 3 on purpose\n# a comment\n\ncargo run --release -- ncu f.csv   # main\npip install x\n```\n";
    let b = blocks(md);
    assert_eq!(b.len(), 1);
    assert_eq!((b[0].line, b[0].info.as_str()), (2, "sh"));
    let c = commands(&b[0]);
    assert_eq!(c.len(), 3);
    assert_eq!((c[0].line, expected_exit(&c[0])), (3, 3));
    assert_eq!(
        runnable(&c[1]).as_deref(),
        Some("rooftrace ncu f.csv   # main")
    );
    assert_eq!(expected_exit(&c[1]), 0);
    assert_eq!(runnable(&c[2]), None);
}
