//! `--trace-out FILE` of `gaps`, `budget` and `path`: the file name checked before
//! any work (`.json` or `.json.gz`), the timeline analysed once more with
//! every gap kept and described, the Chrome trace written (gzip for a
//! `.gz`), atomically.

use crate::chrome_trace::{self, TraceInput};
use crate::error::InputError;
use crate::gaps::{analyze, GapConfig};
use crate::nsys::Timeline;
use anyhow::Context;
use std::path::{Path, PathBuf};

/// Where `--trace-out` writes, and whether it is gzip.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceTarget {
    /// The file.
    pub path: PathBuf,
    /// The name ends in `.gz`: written gzip-compressed.
    pub gzip: bool,
}

impl TraceTarget {
    /// The target of `--trace-out PATH`: a name ending in `.json` or
    /// `.json.gz` (what Perfetto and `chrome://tracing` open), else exit 2.
    pub fn from_flag(path: &Path) -> Result<TraceTarget, InputError> {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().to_ascii_lowercase())
            .unwrap_or_default();
        let gzip = name.ends_with(".json.gz");
        if !gzip && !name.ends_with(".json") {
            return Err(InputError::new(format!(
                "--trace-out {}: a Chrome trace is JSON; give a file name ending in .json or .json.gz (e.g. --trace-out run.trace.json.gz)",
                path.display()
            )));
        }
        Ok(TraceTarget {
            path: path.to_path_buf(),
            gzip,
        })
    }

    /// Analyses `timeline` again with every gap kept and described (the
    /// report's own `--top` and `--min-gap` cut what it prints, not what
    /// the trace shows), writes the trace with `budget`'s tracks when given.
    pub fn write(
        &self,
        timeline: &Timeline,
        analysis: &GapConfig,
        budget: Option<&crate::budget::BudgetReport>,
        input: &Path,
    ) -> anyhow::Result<()> {
        self.write_with_path(timeline, analysis, budget, None, input)
    }

    /// [`TraceTarget::write`] with `path`'s critical-path track when given.
    pub fn write_with_path(
        &self,
        timeline: &Timeline,
        analysis: &GapConfig,
        budget: Option<&crate::budget::BudgetReport>,
        path: Option<&crate::path::PathReport>,
        input: &Path,
    ) -> anyhow::Result<()> {
        let every_gap = GapConfig {
            top: 0,
            min_gap_ns: 0,
            keep_gaps: true,
            ..analysis.clone()
        };
        let gaps = analyze(timeline, &every_gap);
        let input = TraceInput {
            timeline,
            gaps: &gaps,
            budget,
            path,
            input: &input.display().to_string(),
        };
        super::output::write_atomic_with(&self.path, |out| {
            if self.gzip {
                let mut enc = flate2::write::GzEncoder::new(out, flate2::Compression::default());
                chrome_trace::write(&input, &mut enc)?;
                enc.finish().map(drop)
            } else {
                chrome_trace::write(&input, out)
            }
        })
        .with_context(|| format!("writing the trace to {}", self.path.display()))
    }
}
