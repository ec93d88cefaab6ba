//! Many inputs from a command line: files as given, directories searched
//! (recursively, sorted) for the subcommand's file types, and glob patterns
//! (`*`, `?`, `[abc]` in any path component) expanded here too, so a quoted
//! pattern and one too long for the shell both work.
//!
//! A path that is neither a file, a directory nor a matching pattern stays
//! in the list, and so does a directory without any input in it: it fails
//! as an input, with its name, without stopping the others. [`check_file`]
//! is the first look at every input path, before a parser sees it.

use crate::error::InputError;
use std::path::{Path, PathBuf};

/// The file endings `gaps` searches a directory for: nsys exports, and
/// PyTorch profiler traces (`.json`, `.json.gz`: kept only when their
/// content is a trace, see [`TRACE_EXTS`]).
pub const NSYS_EXTS: &[&str] = &["sqlite", "nsys-rep", "json", "gz"];
/// What to give where a timeline (nsys export or PyTorch trace) is read.
pub const NSYS_FIX: &str = "give an .nsys-rep, the .sqlite from `nsys export --type=sqlite`, or a PyTorch profiler trace (.json or .json.gz)";
/// Endings that any JSON or gzip file has: a file with one is searched
/// for only when its content is a PyTorch profiler (Kineto) trace.
const TRACE_EXTS: &[&str] = &["json", "gz"];
/// The file endings `ncu` searches a directory for.
pub const NCU_EXTS: &[&str] = &["csv", "ncu-rep"];
/// What to give where an ncu CSV is read.
pub const NCU_FIX: &str =
    "give an ncu CSV (`ncu --csv --page raw ... > report.csv`) or an .ncu-rep report";

/// Deepest directory level searched under a directory input.
const MAX_DEPTH: usize = 16;

/// True when `s` has a glob metacharacter.
fn is_pattern(s: &str) -> bool {
    s.contains(['*', '?', '['])
}

/// Expands the inputs in order: each file once, in the order first met.
/// `exts` are the file endings a directory is searched for (`sqlite`).
pub fn expand(given: &[PathBuf], exts: &[&str]) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    for p in given {
        let s = p.to_string_lossy();
        let found = if p.is_dir() {
            let mut v = Vec::new();
            walk(p, exts, 0, (&mut v, &mut Vec::new()));
            v.sort();
            if v.is_empty() {
                // Kept, so that it fails with its name (see `check_file`).
                vec![p.clone()]
            } else {
                prefer_exports(v)
            }
        } else if !p.exists() && is_pattern(&s) {
            let mut v = glob(p);
            v.sort();
            if v.is_empty() {
                vec![p.clone()]
            } else {
                v
            }
        } else {
            vec![p.clone()]
        };
        for f in found {
            if !out.contains(&f) {
                out.push(f);
            }
        }
    }
    out
}

/// The inputs expanded, each file once (by its canonical path: `a.json`
/// and `./a.json` are one), and those given more than once, as given.
pub fn once_each(given: &[PathBuf], exts: &[&str]) -> (Vec<PathBuf>, Vec<String>) {
    let mut seen = std::collections::HashSet::new();
    let (mut inputs, mut repeated) = (Vec::new(), Vec::new());
    for g in given {
        for f in expand(std::slice::from_ref(g), exts) {
            let key = std::fs::canonicalize(&f).unwrap_or_else(|_| f.clone());
            if seen.insert(key) {
                inputs.push(f);
            } else {
                repeated.push(f.display().to_string());
            }
        }
    }
    (inputs, repeated)
}

/// The first look at an input path: `Ok` for something to read (a file
/// with bytes in it, or a pipe or device), else one line naming the path,
/// what it is and `fix`, as bad input: "no such file", "an empty
/// directory", "a directory with no .csv or .ncu-rep file in it" (`exts`
/// are the endings the command searches a directory for), "a directory, not
/// a file", "an empty file (0 bytes)", or the OS's reason once (e.g.
/// "cannot be read: permission denied").
pub fn check_file(path: &Path, exts: &[&str], fix: &str) -> Result<(), InputError> {
    if path.as_os_str().is_empty() {
        return Err(InputError::new(format!("an empty path was given; {fix}")));
    }
    let what = match std::fs::metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            if is_pattern(&path.to_string_lossy()) {
                "no such file, and no file matches it as a pattern".to_string()
            } else {
                "no such file".to_string()
            }
        }
        // The kind only ("permission denied"): the OS text and its code
        // would repeat what the kind says.
        Err(e) => format!("cannot be read: {}", e.kind()),
        Ok(m) if m.is_dir() => describe_dir(path, exts),
        Ok(m) if m.is_file() && m.len() == 0 => "an empty file (0 bytes)".to_string(),
        // Never opened: a FIFO waits for a writer, a device never ends.
        Ok(m) if !m.is_file() => {
            "a special file (a FIFO, device or socket), not a regular file".to_string()
        }
        Ok(_) => return Ok(()),
    };
    Err(InputError::new(format!(
        "{}: {what}; {fix}",
        path.display()
    )))
}

/// What a directory given where a file is read is: empty, without any file
/// the command reads, or one that holds such files (then it is not
/// searched here: the command takes one file).
fn describe_dir(dir: &Path, exts: &[&str]) -> String {
    let empty = std::fs::read_dir(dir).is_ok_and(|mut rd| rd.next().is_none());
    let (mut found, mut not_traces) = (Vec::new(), Vec::new());
    if !exts.is_empty() {
        walk(dir, exts, 0, (&mut found, &mut not_traces));
    }
    if empty {
        "an empty directory".to_string()
    } else if exts.is_empty() || !found.is_empty() {
        "a directory, not a file".to_string()
    } else {
        not_traces.sort();
        let shown = |p: &PathBuf| p.strip_prefix(dir).unwrap_or(p).display().to_string();
        let why = match not_traces.as_slice() {
            [] => String::new(),
            [one] => format!(" ({} is no trace: a PyTorch trace holds `traceEvents`)", shown(one)),
            [first, rest @ ..] => format!(
                " ({} and {} more .json or .gz {} are no traces: a PyTorch trace holds `traceEvents`)",
                shown(first),
                rest.len(),
                if rest.len() == 1 { "file" } else { "files" }
            ),
        };
        format!("a directory with no {} file in it{why}", ext_list(exts))
    }
}

/// The endings as a reader says them: ".sqlite or .nsys-rep", and
/// "PyTorch trace (.json or .json.gz)" for [`TRACE_EXTS`].
fn ext_list(exts: &[&str]) -> String {
    let mut list: Vec<String> = exts
        .iter()
        .filter(|e| !TRACE_EXTS.contains(e))
        .map(|e| format!(".{e}"))
        .collect();
    if exts.iter().any(|e| TRACE_EXTS.contains(e)) {
        list.push("PyTorch trace (.json or .json.gz)".to_string());
    }
    match list.split_last() {
        Some((last, rest)) if rest.len() > 1 => format!("{}, or {last}", rest.join(", ")),
        _ => list.join(" or "),
    }
}

fn has_ext(p: &Path, exts: &[&str]) -> bool {
    p.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| exts.iter().any(|x| x.eq_ignore_ascii_case(e)))
}

/// The files under `dir` (to [`MAX_DEPTH`]) ending in one of `exts`, into
/// `out.0`; a `.json` or `.gz` file that is no trace by its content goes to
/// `out.1` instead, for the message when nothing else is found.
fn walk(dir: &Path, exts: &[&str], depth: usize, out: (&mut Vec<PathBuf>, &mut Vec<PathBuf>)) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        let hidden = e.file_name().to_string_lossy().starts_with('.');
        if p.is_dir() && !hidden && depth < MAX_DEPTH {
            walk(&p, exts, depth + 1, (&mut *out.0, &mut *out.1));
        } else if p.is_file() && !hidden && has_ext(&p, exts) {
            // A .json or .gz file is a trace only by its content.
            let trace = || {
                matches!(
                    crate::input::identify(&p),
                    Ok(crate::input::InputKind::PyTorchTrace)
                )
            };
            if !has_ext(&p, TRACE_EXTS) || trace() {
                out.0.push(p);
            } else {
                out.1.push(p);
            }
        }
    }
}

/// Most skipped files a note names one by one (the rest are counted).
const SKIPPED_NAMED: usize = 5;

/// The files under the given directories that [`expand`] did not take
/// (not hidden, to [`MAX_DEPTH`], another ending, or a `.json`/`.gz` that
/// is no trace), sorted. `taken` is what [`expand`] returned.
pub fn skipped_files(given: &[PathBuf], taken: &[PathBuf]) -> Vec<PathBuf> {
    let mut all = Vec::new();
    // A directory with no input at all is kept as one, to fail with its
    // own message naming what it holds; only those that gave inputs count.
    for dir in given.iter().filter(|p| p.is_dir() && !taken.contains(p)) {
        every_file(dir, 0, &mut all);
    }
    all.sort();
    // A provenance note beside an input (`x.csv.src.txt`) is no input.
    all.retain(|p| !taken.contains(p) && !p.to_string_lossy().ends_with(".src.txt"));
    // `x.nsys-rep` beside its export `x.sqlite` was read as that export.
    all.retain(|p| !(has_ext(p, &["nsys-rep"]) && taken.contains(&p.with_extension("sqlite"))));
    all
}

/// The note on the [`skipped_files`]: how many, the first few by name,
/// and how to read one anyway (by name, whatever its ending: ncu writes
/// its CSV to a `.log` as readily as to a `.csv`); `exts` are the endings
/// searched for. `None` when none was skipped.
pub fn skipped_note(all: &[PathBuf], exts: &[&str]) -> Option<String> {
    if all.is_empty() {
        return None;
    }
    let shown: Vec<String> = all
        .iter()
        .take(SKIPPED_NAMED)
        .map(|p| p.display().to_string())
        .collect();
    let more = all.len().saturating_sub(SKIPPED_NAMED);
    Some(format!(
        "skipped {} file(s) that are not {} by their ending or content: {}{}; give a file by name to read it whatever its ending",
        all.len(),
        ext_list(exts),
        shown.join(", "),
        if more > 0 { format!(" and {more} more") } else { String::new() }
    ))
}

/// Every file under `dir` that [`walk`] looks at (not hidden, to
/// [`MAX_DEPTH`]), whatever its ending, into `out`.
fn every_file(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if e.file_name().to_string_lossy().starts_with('.') {
            continue;
        }
        if p.is_dir() && depth < MAX_DEPTH {
            every_file(&p, depth + 1, out);
        } else if p.is_file() {
            out.push(p);
        }
    }
}

/// In a directory, `x.nsys-rep` next to its export `x.sqlite` is the same
/// run: keep the export only.
fn prefer_exports(v: Vec<PathBuf>) -> Vec<PathBuf> {
    v.iter()
        .filter(|p| !(has_ext(p, &["nsys-rep"]) && v.contains(&p.with_extension("sqlite"))))
        .cloned()
        .collect()
}

/// Paths matching a pattern, component by component.
fn glob(pattern: &Path) -> Vec<PathBuf> {
    let mut frontier: Vec<PathBuf> = vec![PathBuf::new()];
    let comps: Vec<_> = pattern.components().collect();
    for (i, c) in comps.iter().enumerate() {
        let part = c.as_os_str().to_string_lossy();
        let last = i + 1 == comps.len();
        let mut next = Vec::new();
        for base in &frontier {
            if !is_pattern(&part) {
                let p = base.join(c.as_os_str());
                if p.exists() {
                    next.push(p);
                }
                continue;
            }
            let Some(re) = component_regex(&part) else {
                continue;
            };
            let dir = if base.as_os_str().is_empty() {
                Path::new(".")
            } else {
                base.as_path()
            };
            let Ok(rd) = std::fs::read_dir(dir) else {
                continue;
            };
            for e in rd.flatten() {
                let name = e.file_name().to_string_lossy().into_owned();
                // As in a shell, `*` does not match a leading dot.
                if name.starts_with('.') && !part.starts_with('.') {
                    continue;
                }
                let p = base.join(&name);
                if re.is_match(&name) && (last || p.is_dir()) {
                    next.push(p);
                }
            }
        }
        frontier = next;
    }
    frontier.into_iter().filter(|p| p.is_file()).collect()
}

/// A path component's pattern as an anchored regex: `*` any run, `?` one
/// character, `[...]` a class (`[!...]` negated), the rest literal.
fn component_regex(pat: &str) -> Option<regex::Regex> {
    let mut re = String::from("^");
    let mut chars = pat.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '*' => re.push_str(".*"),
            '?' => re.push('.'),
            '[' => {
                let mut class = String::from("[");
                if chars.peek() == Some(&'!') {
                    chars.next();
                    class.push('^');
                }
                let mut closed = false;
                for d in chars.by_ref() {
                    if d == ']' {
                        closed = true;
                        break;
                    }
                    if d == '\\' || d == '[' {
                        class.push('\\');
                    }
                    class.push(d);
                }
                if !closed {
                    return None;
                }
                class.push(']');
                re.push_str(&class);
            }
            c => re.push_str(&regex::escape(&c.to_string())),
        }
    }
    re.push('$');
    regex::Regex::new(&re).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn component_patterns() {
        let r = component_regex("rank*.sqlite").unwrap();
        assert!(r.is_match("rank12.sqlite"));
        assert!(!r.is_match("rank12.sqlite-journal"));
        let r = component_regex("r[0-3]?.csv").unwrap();
        assert!(r.is_match("r2a.csv"));
        assert!(!r.is_match("r7a.csv"));
        let r = component_regex("[!a]*").unwrap();
        assert!(!r.is_match("abc"));
        assert!(component_regex("[abc").is_none());
    }

    #[test]
    fn expands_globs_dirs_and_keeps_missing() {
        let d = tempfile::tempdir().unwrap();
        for n in [
            "rank0.sqlite",
            "rank1.sqlite",
            "rank1.nsys-rep",
            "notes.txt",
        ] {
            std::fs::write(d.path().join(n), b"x").unwrap();
        }
        std::fs::create_dir(d.path().join("sub")).unwrap();
        std::fs::write(d.path().join("sub/rank2.nsys-rep"), b"x").unwrap();
        let dir = expand(&[d.path().to_path_buf()], &["sqlite", "nsys-rep"]);
        let names: Vec<_> = dir
            .iter()
            .map(|p| {
                p.strip_prefix(d.path())
                    .unwrap()
                    .to_string_lossy()
                    .into_owned()
            })
            .collect();
        assert_eq!(
            names,
            ["rank0.sqlite", "rank1.sqlite", "sub/rank2.nsys-rep"]
        );
        let g = expand(
            &[d.path().join("rank*.sqlite"), d.path().join("rank0.sqlite")],
            &[],
        );
        assert_eq!(g.len(), 2, "{g:?}");
        let missing = expand(&[d.path().join("none*.sqlite")], &[]);
        assert_eq!(missing, [d.path().join("none*.sqlite")]);
        // A directory with nothing to read stays, to fail with its name.
        let none = expand(&[d.path().join("sub")], &["sqlite"]);
        assert_eq!(none, [d.path().join("sub")]);
    }
}
