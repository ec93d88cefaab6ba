//! `.ncu-rep` input: run `ncu --import REPORT --csv --page raw
//! --print-units base` (an argument vector, no shell) and parse its output
//! as it streams, so memory stays bounded by the launches, not the export.
//! Without `ncu` the error gives the exact command to run by hand.

use super::model::NcuCsv;
use super::NcuError;
use crate::units::shell_quote;
use std::ffi::OsString;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Environment variable naming the `ncu` executable (else `PATH`).
pub const NCU_ENV: &str = "ROOFTRACE_NCU";

/// True when `path` is an Nsight Compute report rather than a CSV export.
pub fn is_report(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("ncu-rep"))
}

/// The argument vector passed to `ncu`.
pub fn import_args(rep: &Path) -> Vec<OsString> {
    vec![
        "--import".into(),
        rep.as_os_str().to_owned(),
        "--csv".into(),
        "--page".into(),
        "raw".into(),
        "--print-units".into(),
        "base".into(),
    ]
}

/// The export command a user can run by hand for `rep`.
pub fn import_command_line(rep: &Path) -> String {
    let csv = rep.with_extension("csv");
    format!(
        "ncu --import {} --csv --page raw --print-units base > {}",
        shell_quote(&rep.to_string_lossy()),
        shell_quote(&csv.to_string_lossy())
    )
}

/// `ncu` from [`NCU_ENV`] or `PATH`.
pub fn find_ncu() -> Option<PathBuf> {
    if let Some(e) = std::env::var_os(NCU_ENV).filter(|x| !x.is_empty()) {
        let p = PathBuf::from(e);
        return p.is_file().then_some(p);
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join("ncu"))
        .find(|p| p.is_file())
}

/// Imports `rep` with `ncu` and parses the raw page it prints; `shown` names
/// the report in messages. A failing `ncu` is reported with its status and
/// the end of its stderr, before any parse error of its partial output.
pub fn parse_report(rep: &Path, shown: &str) -> Result<NcuCsv, NcuError> {
    let command = import_command_line(rep);
    let Some(ncu) = find_ncu() else {
        return Err(NcuError::NcuNotFound {
            file: shown.to_string(),
            command,
        });
    };
    let failed = |status: String, stderr: String| NcuError::ImportFailed {
        file: shown.to_string(),
        command: command.clone(),
        status,
        stderr,
    };
    let mut child = Command::new(&ncu)
        .args(import_args(rep))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| failed(format!("could not start {}", ncu.display()), e.to_string()))?;
    // Drain stderr on a thread so a chatty ncu never blocks on a full pipe;
    // keep its last 2000 bytes.
    let stderr = child.stderr.take().map(|mut s| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            let _ = s.read_to_end(&mut buf);
            let tail = buf.len().saturating_sub(2000);
            String::from_utf8_lossy(&buf[tail..]).trim().to_string()
        })
    });
    let parsed = match child.stdout.take() {
        Some(out) => super::parse(out, shown),
        None => Err(failed("no stdout".into(), String::new())),
    };
    let status = child
        .wait()
        .map_err(|e| failed("could not wait".into(), e.to_string()))?;
    let err_text = stderr.and_then(|h| h.join().ok()).unwrap_or_default();
    if !status.success() {
        return Err(failed(status.to_string(), err_text));
    }
    parsed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn report_detection_args_and_manual_command() {
        assert!(is_report(Path::new("a/run.ncu-rep")));
        assert!(!is_report(Path::new("run.csv")));
        let args: Vec<String> = import_args(Path::new("r.ncu-rep"))
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            args.join(" "),
            "--import r.ncu-rep --csv --page raw --print-units base"
        );
        assert_eq!(
            import_command_line(Path::new("my run.ncu-rep")),
            "ncu --import 'my run.ncu-rep' --csv --page raw --print-units base > 'my run.csv'"
        );
    }
}
