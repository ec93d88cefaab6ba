//! `.nsys-rep` -> `.sqlite`: reuse a sibling export newer than the report, or
//! run `nsys export` (as an argument vector, no shell) into rooftrace's cache
//! directory. The user's files are never written. The export runs under a
//! time limit with a bounded stderr capture, goes to a temporary file that
//! is checked (a whole nsys export) before it is renamed into the cache, and
//! temporary files left by a killed run are swept on the next conversion.

use super::NsysError;
use crate::units::shell_quote;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant, SystemTime};

/// Environment variable naming the `nsys` executable.
pub const NSYS_ENV: &str = "ROOFTRACE_NSYS";

/// True when `path` is an Nsight Systems report rather than an export.
pub fn is_report(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("nsys-rep") || e.eq_ignore_ascii_case("qdrep"))
}

/// The export command a user can run by hand for `rep`.
pub fn export_command_line(rep: &Path) -> String {
    let out = rep.with_extension("sqlite");
    format!(
        "nsys export --type=sqlite --force-overwrite=true -o {} {}",
        shell_quote(&out.to_string_lossy()),
        shell_quote(&rep.to_string_lossy())
    )
}

/// Where the SQLite export for `input` is: `input` itself unless it is a
/// report; for a report, `<stem>.sqlite` beside it when newer, else a
/// converted copy in the cache directory (`$XDG_CACHE_HOME/rooftrace`,
/// `~/.cache/rooftrace`, or the temp directory), made with `nsys` from
/// `nsys_flag`, [`NSYS_ENV`] or `PATH`.
pub fn resolve_export(input: &Path, nsys_flag: Option<&Path>) -> Result<PathBuf, NsysError> {
    if !is_report(input) {
        return Ok(input.to_path_buf());
    }
    let rep_mtime = mtime(input);
    let sibling = input.with_extension("sqlite");
    if newer_than(&sibling, rep_mtime) {
        return Ok(sibling);
    }
    let cached = cache_dir().join(cache_name(input, rep_mtime));
    if newer_than(&cached, rep_mtime) {
        return Ok(cached);
    }
    let Some(nsys) = find_nsys(nsys_flag) else {
        return Err(NsysError::NsysNotFound {
            path: input.to_path_buf(),
            command: export_command_line(input),
        });
    };
    let dir = cached.parent().unwrap_or(Path::new(".")).to_path_buf();
    let _ = std::fs::create_dir_all(&dir);
    let timeout = export_timeout();
    sweep_stale(&dir, timeout);
    // Export to a private temporary name, then check and rename: a failed,
    // half-written or empty export is never mistaken for a good cache
    // entry, and the temporary file goes when this function returns.
    let tmp = tempfile::Builder::new()
        .prefix(TMP_PREFIX)
        .suffix(".sqlite")
        .tempfile_in(&dir)
        .map_err(|e| {
            export_failed(
                input,
                &nsys,
                &cached,
                "cannot create a temp file",
                &e.to_string(),
            )
        })?
        .into_temp_path();
    let failed = |status: &str, detail: &str| export_failed(input, &nsys, &tmp, status, detail);
    let (status, stderr) = run_bounded(&nsys, &export_args(&tmp, input), timeout)
        .map_err(|e| failed("could not start", &e.to_string()))?;
    match status {
        None => {
            return Err(failed(
                &format!("no answer within {} s, stopped", timeout.as_secs()),
                &stderr,
            ))
        }
        Some(st) if !st.success() => return Err(failed(&st.to_string(), &stderr)),
        Some(_) => {}
    }
    if let Err(why) = check_export(&tmp) {
        return Err(failed(
            &format!("exited 0 but its output is not a usable export ({why})"),
            &stderr,
        ));
    }
    tmp.persist(&cached).map_err(|e| {
        export_failed(
            input,
            &nsys,
            &cached,
            "cannot move the export into the cache",
            &e.to_string(),
        )
    })?;
    Ok(cached)
}

/// Prefix of the temporary exports in the cache directory.
const TMP_PREFIX: &str = "export-";
/// Default limit on one `nsys export`; [`NSYS_TIMEOUT_ENV`] overrides it.
pub const DEFAULT_EXPORT_TIMEOUT: Duration = Duration::from_secs(30 * 60);
/// Environment variable: the `nsys export` time limit in seconds.
pub const NSYS_TIMEOUT_ENV: &str = "ROOFTRACE_NSYS_TIMEOUT";
/// The end of nsys's stderr kept for the error message.
pub const STDERR_TAIL_BYTES: usize = 64 << 10;

fn export_timeout() -> Duration {
    std::env::var(NSYS_TIMEOUT_ENV)
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .map_or(DEFAULT_EXPORT_TIMEOUT, Duration::from_secs)
}

/// Removes temporary exports left by a run that was killed: those older
/// than the time limit (a live conversion is younger).
fn sweep_stale(dir: &Path, timeout: Duration) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let now = SystemTime::now();
    for e in entries.flatten() {
        let name = e.file_name();
        let ours = name.to_str().is_some_and(|n| n.starts_with(TMP_PREFIX));
        let age = e
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| now.duration_since(t).ok());
        if ours && age.is_some_and(|a| a > timeout) {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

/// Runs `nsys` with `args`, stdout discarded, keeping the last
/// [`STDERR_TAIL_BYTES`] of stderr; kills it after `timeout`. Returns its
/// status (`None` when killed at the limit) and the stderr tail.
fn run_bounded(
    nsys: &Path,
    args: &[std::ffi::OsString],
    timeout: Duration,
) -> std::io::Result<(Option<std::process::ExitStatus>, String)> {
    use std::io::Read;
    let mut child = Command::new(nsys)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()?;
    let mut pipe = child.stderr.take();
    let reader = std::thread::spawn(move || {
        let mut tail: Vec<u8> = Vec::new();
        let mut buf = [0u8; 8192];
        while let Some(Ok(n)) = pipe.as_mut().map(|p| p.read(&mut buf)) {
            if n == 0 {
                break;
            }
            tail.extend_from_slice(&buf[..n]);
            if tail.len() > 2 * STDERR_TAIL_BYTES {
                tail.drain(..tail.len() - STDERR_TAIL_BYTES);
            }
        }
        let cut = tail.len().saturating_sub(STDERR_TAIL_BYTES);
        String::from_utf8_lossy(&tail[cut..]).trim().to_string()
    });
    let start = Instant::now();
    let status = loop {
        if let Some(st) = child.try_wait()? {
            break Some(st);
        }
        if start.elapsed() >= timeout {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    // A grandchild holding stderr open must not hang us: wait for the
    // reader only briefly once nsys itself is gone.
    let t0 = Instant::now();
    while !reader.is_finished() && t0.elapsed() < Duration::from_secs(2) {
        std::thread::sleep(Duration::from_millis(10));
    }
    let stderr = if reader.is_finished() {
        reader.join().unwrap_or_default()
    } else {
        String::from("(stderr still open)")
    };
    Ok((status, stderr))
}

/// Checks that `path` is a whole nsys export: it opens with the reader's
/// defences, has nsys tables and passes SQLite's `quick_check`.
fn check_export(path: &Path) -> Result<(), String> {
    let len = std::fs::metadata(path).map_or(0, |m| m.len());
    if len == 0 {
        return Err("it is empty".into());
    }
    let conn = super::guard::open(path, super::guard::Deadline::for_file(path))
        .map_err(|e| e.to_string())?;
    let schema = super::schema::Schema::probe(&conn, path).map_err(|e| e.to_string())?;
    if !schema.is_nsys() {
        return Err("no Nsight Systems tables".into());
    }
    let ok: String = conn
        .query_row("PRAGMA quick_check(1)", [], |r| r.get(0))
        .map_err(|e| e.to_string())?;
    if ok != "ok" {
        return Err(format!("SQLite quick_check: {ok}"));
    }
    Ok(())
}

/// The argument vector passed to `nsys`.
pub fn export_args(out: &Path, rep: &Path) -> Vec<std::ffi::OsString> {
    vec![
        "export".into(),
        "--type=sqlite".into(),
        "--force-overwrite=true".into(),
        "-o".into(),
        out.as_os_str().to_owned(),
        rep.as_os_str().to_owned(),
    ]
}

fn export_failed(rep: &Path, nsys: &Path, out: &Path, status: &str, stderr: &str) -> NsysError {
    let args: Vec<String> = export_args(out, rep)
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    NsysError::ExportFailed {
        path: rep.to_path_buf(),
        command: format!("{} {}", nsys.display(), args.join(" ")),
        status: status.to_string(),
        stderr: stderr.to_string(),
    }
}

fn mtime(p: &Path) -> Option<SystemTime> {
    std::fs::metadata(p).and_then(|m| m.modified()).ok()
}

fn newer_than(p: &Path, t: Option<SystemTime>) -> bool {
    match (mtime(p), t) {
        (Some(a), Some(b)) => a > b,
        _ => false,
    }
}

fn cache_dir() -> PathBuf {
    if let Some(x) = std::env::var_os("XDG_CACHE_HOME").filter(|x| !x.is_empty()) {
        return PathBuf::from(x).join("rooftrace");
    }
    if let Some(h) = std::env::var_os("HOME").filter(|x| !x.is_empty()) {
        return PathBuf::from(h).join(".cache").join("rooftrace");
    }
    std::env::temp_dir().join("rooftrace")
}

/// `<stem>-<hash>.sqlite`, the hash over the absolute path, size and mtime so
/// two reports with one name never share an entry.
fn cache_name(rep: &Path, t: Option<SystemTime>) -> String {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    std::fs::canonicalize(rep)
        .unwrap_or_else(|_| rep.to_path_buf())
        .hash(&mut h);
    std::fs::metadata(rep)
        .map(|m| m.len())
        .unwrap_or(0)
        .hash(&mut h);
    t.hash(&mut h);
    let stem = rep.file_stem().and_then(|s| s.to_str()).unwrap_or("report");
    format!("{stem}-{:016x}.sqlite", h.finish())
}

/// `nsys` from the flag, the environment, or `PATH`.
pub fn find_nsys(flag: Option<&Path>) -> Option<PathBuf> {
    if let Some(f) = flag {
        return f.is_file().then(|| f.to_path_buf());
    }
    if let Some(e) = std::env::var_os(NSYS_ENV).filter(|x| !x.is_empty()) {
        let p = PathBuf::from(e);
        return p.is_file().then_some(p);
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join("nsys"))
        .find(|p| p.is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn report_detection_and_manual_command() {
        assert!(is_report(Path::new("a/decode.nsys-rep")));
        assert!(!is_report(Path::new("decode.sqlite")));
        assert_eq!(
            export_command_line(Path::new("my run.nsys-rep")),
            "nsys export --type=sqlite --force-overwrite=true -o 'my run.sqlite' 'my run.nsys-rep'"
        );
    }

    #[test]
    fn missing_nsys_names_the_command() {
        let dir = tempfile::tempdir().unwrap();
        let rep = dir.path().join("r.nsys-rep");
        std::fs::write(&rep, b"x").unwrap();
        let err = resolve_export(&rep, Some(&dir.path().join("no-nsys"))).unwrap_err();
        assert!(
            err.to_string().contains("nsys export --type=sqlite"),
            "{err}"
        );
    }

    #[test]
    fn sibling_export_newer_than_report_is_reused() {
        let dir = tempfile::tempdir().unwrap();
        let rep = dir.path().join("r.nsys-rep");
        std::fs::write(&rep, b"x").unwrap();
        let old = SystemTime::now() - std::time::Duration::from_secs(60);
        std::fs::File::options()
            .write(true)
            .open(&rep)
            .unwrap()
            .set_modified(old)
            .unwrap();
        let sib = dir.path().join("r.sqlite");
        std::fs::write(&sib, b"y").unwrap();
        assert_eq!(resolve_export(&rep, None).unwrap(), sib);
    }
}
