//! `rooftrace gaps`: resolve the input (convert an `.nsys-rep`), read the
//! timeline with a progress bar on a terminal, analyse, render, write.

use super::output::write_output;
use crate::cli::gaps::GapsArgs;
use crate::error::InputError;
use crate::gaps::{analyze, GapConfig};
use crate::nsys::{export::resolve_export, read_timeline};
use crate::report::gaps::{render, RenderOptions};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;

/// Runs `rooftrace gaps`.
pub fn run(args: GapsArgs) -> anyhow::Result<()> {
    let nvtx = match &args.nvtx {
        Some(p) => {
            Some(regex::Regex::new(p).map_err(|e| InputError::new(format!("--nvtx `{p}`: {e}")))?)
        }
        None => None,
    };
    let cfg = GapConfig {
        device: args.device,
        stream: args.stream,
        min_gap_ns: args.min_gap,
        launch_latency_ns: args.latency,
        top: args.output.top,
        nvtx,
    };
    if !args.input.is_file() {
        return Err(InputError::new(format!(
            "{}: no such file; give an .nsys-rep or the .sqlite from `nsys export --type=sqlite`",
            args.input.display()
        ))
        .into());
    }
    let sqlite = resolve_export(&args.input, args.nsys.as_deref())?;

    let bar = if std::io::stderr().is_terminal() {
        let b = ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::stderr());
        b.set_style(
            ProgressStyle::with_template("reading {msg} [{bar:30}] {human_pos}/{human_len} rows")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        b.set_message(
            sqlite
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
        );
        b
    } else {
        ProgressBar::hidden()
    };
    let progress = |done: u64, total: u64| {
        bar.set_length(total);
        bar.set_position(done);
    };
    // NsysError names the file and table already.
    let timeline = read_timeline(&sqlite, cfg.nvtx.is_some(), &progress)?;
    bar.finish_and_clear();

    let report = analyze(&timeline, &cfg);
    let bytes = render(
        &report,
        args.output.format.into(),
        &RenderOptions {
            rows: args.output.top,
            image: args.image.clone(),
        },
    );
    write_output(args.output.output.as_deref(), &bytes)
}
