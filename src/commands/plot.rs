//! Plot files for every command: `--plot FILE` checked before any work
//! (the extension picks SVG or PNG), the chart written there (atomically,
//! through [`super::output::write_atomic`]), and the link a Markdown report
//! uses to embed it.

use crate::error::InputError;
use crate::plot::{self, Chart, ImageFormat};
use anyhow::Context;
use std::path::{Component, Path, PathBuf};

/// A chart built, or why not: a chart with nothing to show (no point, no
/// roof, no step) is the input's doing, exit 2 with what to do; a drawing
/// failure is ours, exit 1, with `what` as its context.
pub fn built<C>(
    chart: Result<C, plot::PlotError>,
    flag: &str,
    what: impl FnOnce() -> String,
) -> anyhow::Result<C> {
    built_or(chart, flag, what, "")
}

/// [`built`], with a fix to name before "leave out the flag" (`give --gpu
/// KEY to draw the roofs`).
pub fn built_or<C>(
    chart: Result<C, plot::PlotError>,
    flag: &str,
    what: impl FnOnce() -> String,
    fix: &str,
) -> anyhow::Result<C> {
    match chart {
        Ok(c) => Ok(c),
        Err(plot::PlotError::Empty(why)) => Err(InputError::new(format!(
            "{flag}: {}: nothing to plot ({why}); {fix}{}leave out {flag} for this input",
            what(),
            if fix.is_empty() { "" } else { ", or " }
        ))
        .into()),
        Err(e) => Err(anyhow::Error::new(e).context(what())),
    }
}

/// A plot file to write: its path as the user gave it and its format.
#[derive(Debug, Clone, PartialEq)]
pub struct PlotTarget {
    /// Path as given on the command line.
    pub path: PathBuf,
    /// SVG or PNG, from the extension.
    pub format: ImageFormat,
}

impl PlotTarget {
    /// Checks the file name given to `flag` (e.g. `--plot`): `.svg` or
    /// `.png` in a directory that exists, else an input error that names
    /// the flag and the fix (before any work is done).
    pub fn from_flag(flag: &str, path: &Path) -> Result<PlotTarget, InputError> {
        let target = PlotTarget::parse(flag, path)?;
        super::output::directory_exists(path, flag)?;
        Ok(target)
    }

    /// [`PlotTarget::from_flag`] without the look at the file system.
    fn parse(flag: &str, path: &Path) -> Result<PlotTarget, InputError> {
        let format = ImageFormat::from_path(path).ok_or_else(|| {
            InputError::new(format!(
                "{flag} {}: unknown image type; give a file name ending in .svg or .png (e.g. {flag} chart.svg)",
                path.display()
            ))
        })?;
        Ok(PlotTarget {
            path: path.to_path_buf(),
            format,
        })
    }

    /// Renders `chart` and writes it to the target file.
    pub fn write<C: Chart>(&self, chart: &C) -> anyhow::Result<()> {
        let bytes = plot::render(chart, self.format)
            .with_context(|| format!("drawing {}", self.path.display()))?;
        super::output::write_atomic(&self.path, &bytes)
            .with_context(|| format!("writing the plot to {}", self.path.display()))
    }

    /// The image link for a Markdown report: relative to the directory of
    /// `markdown_output` when the report goes to a file (so the pair can be
    /// moved or committed together), else the path as given. `/` separated,
    /// spaces and parentheses percent-encoded so the link stays one token.
    pub fn markdown_link(&self, markdown_output: Option<&Path>) -> String {
        let link = match markdown_output {
            Some(md) => relative_to_dir_of(&self.path, md),
            None => self.path.clone(),
        };
        let parts: Vec<String> = link
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        let mut s = parts.join("/");
        if link.has_root() && s.starts_with("//") {
            s.remove(0);
        }
        s.replace(' ', "%20")
            .replace('(', "%28")
            .replace(')', "%29")
    }
}

/// `target` relative to the directory holding `file`, computed lexically
/// (neither needs to exist yet): both are made absolute against the current
/// directory and `.`/`..` resolved. Falls back to `target` as given when the
/// current directory is unknown or the two are on different prefixes.
fn relative_to_dir_of(target: &Path, file: &Path) -> PathBuf {
    let Ok(cwd) = std::env::current_dir() else {
        return target.to_path_buf();
    };
    let t = normalize(&cwd.join(target));
    let base = normalize(&cwd.join(file));
    let base = base.parent().unwrap_or(Path::new("/"));
    let tc: Vec<Component> = t.components().collect();
    let bc: Vec<Component> = base.components().collect();
    if tc.first() != bc.first() {
        return target.to_path_buf();
    }
    let common = tc.iter().zip(&bc).take_while(|(a, b)| a == b).count();
    let mut rel = PathBuf::new();
    for _ in common..bc.len() {
        rel.push("..");
    }
    for c in &tc[common..] {
        rel.push(c.as_os_str());
    }
    rel
}

/// Resolves `.` and `..` without touching the file system.
fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target(p: &str) -> PlotTarget {
        PlotTarget::parse("--plot", Path::new(p)).unwrap()
    }

    #[test]
    fn extension_picks_the_format_and_others_are_input_errors() {
        assert_eq!(target("a/roof.SVG").format, ImageFormat::Svg);
        assert_eq!(target("roof.png").format, ImageFormat::Png);
        let e = PlotTarget::parse("--plot", Path::new("roof.pdf")).unwrap_err();
        assert!(e.to_string().contains("--plot roof.pdf"), "{e}");
        assert!(e.to_string().contains(".svg or .png"), "{e}");
    }

    #[test]
    fn link_is_relative_to_the_markdown_file() {
        // Same directory: just the file name.
        assert_eq!(
            target("out/roof.svg").markdown_link(Some(Path::new("out/report.md"))),
            "roof.svg"
        );
        // Report one level up from the plot.
        assert_eq!(
            target("out/img/roof.png").markdown_link(Some(Path::new("out/report.md"))),
            "img/roof.png"
        );
        // Plot beside the report's parent: one `..`.
        assert_eq!(
            target("./img/roof.png").markdown_link(Some(Path::new("docs/r.md"))),
            "../img/roof.png"
        );
        assert_eq!(
            target("/tmp/x/roof.svg").markdown_link(Some(Path::new("/tmp/y/r.md"))),
            "../x/roof.svg"
        );
    }

    #[test]
    fn link_without_a_markdown_file_is_the_path_as_given() {
        assert_eq!(
            target("plots/roof.svg").markdown_link(None),
            "plots/roof.svg"
        );
        assert_eq!(target("/abs/roof.svg").markdown_link(None), "/abs/roof.svg");
        assert_eq!(
            target("my plots/roof (1).svg").markdown_link(None),
            "my%20plots/roof%20%281%29.svg"
        );
    }
}
