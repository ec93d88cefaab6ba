//! Where report bytes go: a file given with `-o`, or stdout.

use anyhow::Context;
use std::io::Write;
use std::path::Path;

/// Writes `bytes` to `path`, or to stdout when `path` is `None`.
pub fn write_output(path: Option<&Path>, bytes: &[u8]) -> anyhow::Result<()> {
    match path {
        Some(p) => std::fs::write(p, bytes).with_context(|| format!("writing {}", p.display())),
        None => {
            let mut out = std::io::stdout().lock();
            out.write_all(bytes)?;
            out.flush()?;
            Ok(())
        }
    }
}
