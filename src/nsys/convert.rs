//! `.nsys-rep` -> `.sqlite`: reuse a sibling export newer than the report, or
//! run `nsys export` (as an argument vector, no shell) into rooftrace's cache
//! directory. The user's files are never written.

use super::NsysError;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::SystemTime;

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

fn shell_quote(s: &str) -> String {
    if s.chars()
        .all(|c| c.is_ascii_alphanumeric() || "/._-+".contains(c))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
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
    // Export to a private temporary name, then rename: a half-written file is
    // never mistaken for a good cache entry.
    let tmp = tempfile::Builder::new()
        .prefix("export-")
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
    let args = export_args(&tmp, input);
    let out = Command::new(&nsys)
        .args(&args)
        .output()
        .map_err(|e| export_failed(input, &nsys, &cached, "could not start", &e.to_string()))?;
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        let tail: String = stderr
            .chars()
            .rev()
            .take(2000)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        return Err(export_failed(
            input,
            &nsys,
            &cached,
            &out.status.to_string(),
            tail.trim(),
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
