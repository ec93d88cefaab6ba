//! Helpers shared by the integration tests, and the one rule for what a
//! test needs from outside the repository (the corpus beside the clone,
//! python3, DuckDB, HTA, nvcc): [`need`]. Under CI (`CI=true` or `CI=1`)
//! a missing need fails the test, naming it and how to get it; elsewhere
//! the test skips, or checks only what is here, and says so on stderr.

use std::collections::BTreeSet;
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::Mutex;

/// The project root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A file under `fixtures/`.
#[allow(dead_code)]
pub fn fixture(rel: &str) -> PathBuf {
    root().join("fixtures").join(rel)
}

/// Whether this is a CI run: `CI` is `true` or `1`, as CI systems set it
/// (`.ci/run` exports `CI=true`).
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v.eq_ignore_ascii_case("true") || v == "1")
}

/// The rule for something a test needs from outside the repository:
/// `found` when it is there. When it is not, under CI ([`in_ci`]) the test
/// fails with a message naming `what` is missing and `fix`, how to get it;
/// elsewhere `None`, and the test skips (or checks less) after one note on
/// stderr naming the test and `what`.
pub fn need<T>(found: Option<T>, what: &str, fix: &str) -> Option<T> {
    need_under(found, what, fix, in_ci(), note_once)
}

/// [`need`] with CI and the note's writer given, not read from the
/// environment, so that the rule itself is tested without setting `CI` in
/// a multithreaded test binary.
pub fn need_under<T>(
    found: Option<T>,
    what: &str,
    fix: &str,
    ci: bool,
    note: impl FnOnce(&str),
) -> Option<T> {
    if found.is_some() {
        return found;
    }
    let message = missing_message(what, fix);
    if ci {
        panic!("{message} (CI=true: a missing input fails the test instead of skipping it)");
    }
    note(&format!("note: {}: not checked: {message}", this_test()));
    None
}

/// The words for a missing need, the same under CI and outside it.
pub fn missing_message(what: &str, fix: &str) -> String {
    format!("{what} missing: {fix}")
}

/// The running test's name: libtest runs each test on a thread named
/// after it.
fn this_test() -> String {
    std::thread::current()
        .name()
        .unwrap_or("a test")
        .to_string()
}

/// Writes `line` to stderr once per run, past libtest's capture (which
/// takes `eprintln!`'s output only), so a passing run shows what it skipped.
fn note_once(line: &str) {
    static SAID: Mutex<BTreeSet<String>> = Mutex::new(BTreeSet::new());
    let first = SAID
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(line.to_string());
    if first {
        // One write, so that the note does not interleave with libtest's
        // lines from other threads.
        let _ = std::io::stderr().write_all(format!("{line}\n").as_bytes());
    }
}

/// The conformance corpus: `$ROOFTRACE_CORPUS` when set (a worktree that
/// is not beside `shared/`; pointing it at a missing directory shows what
/// CI would say), else `../shared/corpus` beside the clone.
#[allow(dead_code)]
pub fn corpus_root() -> PathBuf {
    match std::env::var_os("ROOFTRACE_CORPUS") {
        Some(dir) => PathBuf::from(dir),
        None => root().join("..").join("shared").join("corpus"),
    }
}

/// How to get the corpus, for [`need`]'s message.
const CORPUS_FIX: &str = "the conformance corpus sits beside the clone as ../shared/corpus \
     (CI has it there); or set ROOFTRACE_CORPUS to a copy of it";

/// The corpus directory `<corpus>/<sub>`, under [`need`]'s rule.
#[allow(dead_code)]
pub fn corpus(sub: &str) -> Option<PathBuf> {
    let dir = corpus_root().join(sub);
    let found = dir.is_dir().then(|| dir.clone());
    need(
        found,
        &format!("{} (a directory)", dir.display()),
        CORPUS_FIX,
    )
}

/// The corpus file `<corpus>/<rel>`, under [`need`]'s rule.
#[allow(dead_code)]
pub fn corpus_file(rel: &str) -> Option<PathBuf> {
    let file = corpus_root().join(rel);
    let found = file.is_file().then(|| file.clone());
    need(found, &file.display().to_string(), CORPUS_FIX)
}

/// Whether `program --version` runs and succeeds.
pub fn tool_runs(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Whether `program` is on PATH ([`tool_runs`]), under [`need`]'s rule;
/// `fix` says how to install it.
#[allow(dead_code)]
pub fn require_tool(program: &str, fix: &str) -> bool {
    let found = tool_runs(program).then_some(());
    need(found, &format!("`{program}` on PATH"), fix).is_some()
}

/// [`require_tool`] for `python3`, which the action, terminal and Parquet
/// tests run.
#[allow(dead_code)]
pub fn require_python3() -> bool {
    require_tool(
        "python3",
        "install Python 3 (apt-get install python3); .ci/run's machine has it",
    )
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

/// The corpus PyTorch traces that record shapes (`record_shapes=True`),
/// for the `ops`, `budget` and `diff` tests on op models.
#[allow(dead_code)]
pub const KINETO_WITH_SHAPES: [&str; 3] = [
    "kineto_hta_sampled_rank-0.json.gz",
    "kineto_hta_sampled_rank-1.json.gz",
    "kineto_hta_amd_mi250_rocm6.2.json.gz",
];

/// Round peaks for traces that name no GPU of the table (the sampled ones
/// name none, the MI250 is not in it), so bounds are plain arithmetic:
/// B = 2e12 byte/s, FP32 20e12, TF32 tensor 160e12, FP16 80e12, FP16
/// tensor 320e12, FP64 10e12 FLOP/s (every path the traces' ops take).
#[allow(dead_code)]
pub const ROUND_PEAKS: [&str; 12] = [
    "--peak-dram-bw",
    "2TB/s",
    "--peak",
    "fp32=20TFLOP/s",
    "--peak",
    "tensor_tf32=160TFLOP/s",
    "--peak",
    "fp16=80TFLOP/s",
    "--peak",
    "tensor_fp16=320TFLOP/s",
    "--peak",
    "fp64=10TFLOP/s",
];

/// A corpus PyTorch trace by file name (`kineto/<name>`), under [`need`].
#[allow(dead_code)]
pub fn kineto_trace(name: &str) -> Option<PathBuf> {
    corpus_file(&format!("kineto/{name}"))
}

/// A gzipped trace's JSON document, parsed here with flate2 and serde_json
/// (not rooftrace's reader).
#[allow(dead_code)]
pub fn trace_document(path: &std::path::Path) -> serde_json::Value {
    use std::io::Read;
    let mut text = String::new();
    flate2::read::GzDecoder::new(std::fs::File::open(path).unwrap())
        .read_to_string(&mut text)
        .unwrap();
    serde_json::from_str(&text).unwrap()
}

/// A gzipped trace's `traceEvents` ([`trace_document`]).
#[allow(dead_code)]
pub fn trace_events(path: &std::path::Path) -> Vec<serde_json::Value> {
    trace_document(path)["traceEvents"]
        .as_array()
        .unwrap()
        .clone()
}

/// A trace's µs number (`ts`, `dur`: an integer or three decimals) in ns.
#[allow(dead_code)]
pub fn us_to_ns(v: &serde_json::Value) -> i64 {
    match v.as_i64() {
        Some(us) => us * 1000,
        None => (v.as_f64().unwrap() * 1000.0).round() as i64,
    }
}
