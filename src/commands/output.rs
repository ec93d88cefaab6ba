//! Where output bytes go, for every command: a file given with `-o` or
//! `--plot`, or stdout. The one place that writes files: a target that is
//! (or links to) an input is refused before any work ([`refuse_inputs`]),
//! and a file is written to a temporary file beside the target, then renamed
//! over it ([`write_atomic`]), so a failed or killed run leaves the old file
//! or nothing, never half a file. Messages to the user go through [`note`]:
//! a reader that left (`rooftrace diff ... 2>&1 | head`) is no failure, and
//! `print!`/`eprint!` would panic on it (clippy's `print_stderr` keeps them out).

use crate::error::InputError;
use anyhow::Context;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Writes `bytes` to `path` (atomically), or to stdout when `path` is
/// `None`: fitted to the terminal when the run has a width
/// ([`terminal_width`]; the tables already fit, longer lines are wrapped).
pub fn write_output(path: Option<&Path>, bytes: &[u8]) -> anyhow::Result<()> {
    write_output_with(path, |out| out.write_all(bytes))
}

/// Bytes per write of a streamed output.
const STREAM_BUFFER: usize = 256 << 10;

/// Writes what `render` writes, as it writes it, to `path` (atomically) or
/// to stdout when `path` is `None`: a report with a row per launch is never
/// all in memory as text. A failed render leaves no file, as
/// [`write_atomic`] does.
pub fn write_output_with(
    path: Option<&Path>,
    render: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> anyhow::Result<()> {
    match path {
        Some(p) => write_atomic_with(p, render),
        None => {
            let stdout = std::io::stdout().lock();
            match crate::report::table::fit_width() {
                // Fitted to the terminal: the report whole, its long lines
                // wrapped (the tables already fit). A terminal's output is
                // what a person reads, so never a row per launch of 500 MB.
                Some(width) => {
                    let mut whole = Vec::new();
                    render(&mut whole)?;
                    let mut out = stdout;
                    match std::str::from_utf8(&whole) {
                        Ok(text) => {
                            out.write_all(crate::report::table::wrap_lines(text, width).as_bytes())?
                        }
                        Err(_) => out.write_all(&whole)?,
                    }
                    out.flush()?;
                }
                None => {
                    let mut out = std::io::BufWriter::with_capacity(STREAM_BUFFER, stdout);
                    render(&mut out)?;
                    out.flush()?;
                }
            }
            Ok(())
        }
    }
}

/// Narrowest width tables are fitted to; a narrower terminal gets this.
const MIN_WIDTH: usize = 40;

/// The width a run's report is fitted to: the terminal's when the report
/// is a table going to stdout and stdout is a terminal, unless `--wide`:
/// `COLUMNS` when it is a number, else the terminal's size. `None`
/// (whole) for a file, a pipe, JSON, CSV, Markdown or Parquet.
pub fn terminal_width(args: &crate::cli::OutputArgs) -> Option<usize> {
    use std::io::IsTerminal;
    if args.wide
        || args.output.is_some()
        || args.format != crate::cli::OutputFormatArg::Table
        || !std::io::stdout().is_terminal()
    {
        return None;
    }
    let columns = std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.trim().parse::<usize>().ok())
        .filter(|&c| c > 0);
    let width = columns.or_else(|| {
        terminal_size::terminal_size_of(std::io::stdout()).map(|(w, _)| usize::from(w.0))
    })?;
    Some(width.max(MIN_WIDTH))
}

/// The result of a run that wrote its report and then has a verdict of its
/// own (a failed gate, inputs that failed): a failed write wins unless it is a
/// broken pipe; a reader that left early (`| head`) ends the report, never the
/// verdict, so a failing run cannot exit 0 because nobody read to the end.
pub fn finish(written: anyhow::Result<()>, verdict: anyhow::Result<()>) -> anyhow::Result<()> {
    match written {
        Err(e) if !crate::error::is_broken_pipe(&e) => Err(e),
        written => verdict.and(written),
    }
}

/// Writes one line to stderr (a message, the error chain). A stderr that
/// cannot be written (closed, or a pipe whose reader left) is ignored: the
/// message has nobody to reach, and the exit code still tells the outcome.
pub fn note(message: &str) {
    let mut err = std::io::stderr().lock();
    let _ = writeln!(err, "{message}").and_then(|()| err.flush());
}

/// Writes `bytes` to a temporary file in `path`'s directory and renames it
/// to `path`: readers see the old file or the whole new one. A symlink at
/// `path` is replaced, never written through, unless it leads to a device
/// or a FIFO ([`write_through`]).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    write_atomic_with(path, |out| out.write_all(bytes))
}

/// `Ok` when the directory `path` is to be written in exists; else the
/// error (exit 2) naming the directory and the fix, for a `what` (`output`,
/// `--plot`) given before any work is done, or when writing (it said
/// "creating a temporary file beside …: No such file or directory", exit 1).
pub fn directory_exists(path: &Path, what: &str) -> Result<(), InputError> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => return Ok(()),
    };
    if dir.is_dir() {
        return Ok(());
    }
    let why = if dir.exists() {
        "is not a directory"
    } else {
        "does not exist"
    };
    Err(InputError::new(format!(
        "cannot write the {what} {}: the directory {} {why}; create it (mkdir -p {}) or give a path in an existing one",
        path.display(),
        dir.display(),
        dir.display()
    )))
}

/// [`write_atomic`] of what `render` writes, streamed into the temporary
/// file.
pub fn write_atomic_with(
    path: &Path,
    render: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> anyhow::Result<()> {
    if write_through(path) {
        let file = std::fs::OpenOptions::new()
            .write(true)
            .open(path)
            .with_context(|| format!("opening {}", path.display()))?;
        let mut out = std::io::BufWriter::with_capacity(STREAM_BUFFER, file);
        render(&mut out)
            .and_then(|()| out.flush())
            .with_context(|| format!("writing {}", path.display()))?;
        return Ok(());
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    directory_exists(path, "output")?;
    let mut builder = tempfile::Builder::new();
    builder.prefix(".rooftrace-").suffix(".tmp");
    // The mode a plain create would give (0666 less the umask), or the
    // replaced file's own; a temporary file is 0600 by default.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let keep = std::fs::metadata(path).ok().filter(|m| m.is_file());
        builder.permissions(keep.map_or_else(
            || std::fs::Permissions::from_mode(0o666),
            |m| m.permissions(),
        ));
    }
    let mut tmp = builder
        .tempfile_in(dir)
        .with_context(|| format!("creating a temporary file beside {}", path.display()))?;
    {
        let mut out = std::io::BufWriter::with_capacity(STREAM_BUFFER, tmp.as_file_mut());
        render(&mut out)
            .and_then(|()| out.flush())
            .with_context(|| format!("writing {}", path.display()))?;
    }
    tmp.as_file()
        .sync_all()
        .with_context(|| format!("writing {}", path.display()))?;
    tmp.persist(path)
        .map_err(|e| e.error)
        .with_context(|| format!("writing {}", path.display()))?;
    Ok(())
}

/// True when `path` is (or leads to) a character device or a FIFO:
/// `-o /dev/null`, `-o /dev/stdout`, a named pipe. Such a target is written
/// into, never renamed over: a rename would put a regular file where the
/// device was (as root, `/dev/null` itself).
fn write_through(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        std::fs::metadata(path).is_ok_and(|m| {
            let t = m.file_type();
            t.is_char_device() || t.is_fifo()
        })
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        false
    }
}

/// Refuses, before any work, an output target that is one of the inputs:
/// the same path, or a path (a symlink, a hard link) that resolves to the
/// same file. `targets` pairs each path with the flag that named it.
pub fn refuse_inputs(targets: &[(&str, &Path)], inputs: &[&Path]) -> Result<(), InputError> {
    for (flag, t) in targets {
        for i in inputs {
            if same_file(t, i) {
                return Err(InputError::new(format!(
                    "{flag} {}: this is the input {}; writing there would destroy it. Give another output file name",
                    t.display(),
                    i.display()
                )));
            }
        }
    }
    for (n, (flag, t)) in targets.iter().enumerate() {
        if let Some((other, _)) = targets[..n].iter().find(|(_, u)| same_file(t, u)) {
            return Err(InputError::new(format!(
                "{flag} {} and {other} name the same file; give two different file names",
                t.display()
            )));
        }
    }
    Ok(())
}

/// True when `a` and `b` are the same file: equal as absolute paths (even
/// when neither exists yet), or resolving to the same device and inode.
fn same_file(a: &Path, b: &Path) -> bool {
    if absolute(a) == absolute(b) {
        return true;
    }
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(x), Ok(y)) if x == y => return true,
        _ => {}
    }
    same_inode(a, b)
}

fn absolute(p: &Path) -> PathBuf {
    std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf())
}

#[cfg(unix)]
fn same_inode(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(x), Ok(y)) => x.dev() == y.dev() && x.ino() == y.ino(),
        _ => false,
    }
}

#[cfg(not(unix))]
fn same_inode(_: &Path, _: &Path) -> bool {
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_write_replaces_a_symlink_not_its_target() {
        let d = tempfile::tempdir().unwrap();
        let real = d.path().join("real.txt");
        std::fs::write(&real, "keep").unwrap();
        let link = d.path().join("link.txt");
        #[cfg(unix)]
        std::os::unix::fs::symlink(&real, &link).unwrap();
        write_atomic(&link, b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&real).unwrap(), "keep");
        assert_eq!(std::fs::read_to_string(&link).unwrap(), "new");
        let left: Vec<_> = std::fs::read_dir(d.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(left.len(), 2, "{left:?}");
    }

    #[test]
    fn inputs_are_refused_by_path_link_and_inode() {
        let d = tempfile::tempdir().unwrap();
        let input = d.path().join("s.sqlite");
        std::fs::write(&input, "x").unwrap();
        let rel = d.path().join("sub/../s.sqlite");
        std::fs::create_dir(d.path().join("sub")).unwrap();
        let e = refuse_inputs(&[("-o", &rel)], &[&input]).unwrap_err();
        assert!(e.to_string().contains("this is the input"), "{e}");
        #[cfg(unix)]
        {
            let link = d.path().join("s.png");
            std::os::unix::fs::symlink(&input, &link).unwrap();
            assert!(refuse_inputs(&[("--plot", &link)], &[&input]).is_err());
            let hard = d.path().join("h.svg");
            std::fs::hard_link(&input, &hard).unwrap();
            assert!(refuse_inputs(&[("--plot", &hard)], &[&input]).is_err());
        }
        let other = d.path().join("out.json");
        refuse_inputs(&[("-o", &other)], &[&input]).unwrap();
        assert!(refuse_inputs(&[("-o", &other), ("--plot", &other)], &[&input]).is_err());
    }
}
