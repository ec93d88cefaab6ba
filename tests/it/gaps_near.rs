//! `gaps` without `--nvtx` reads only the NVTX ranges its analysis can look
//! at (`gaps::range_filter` given to `nsys::read_timeline_near`): on every
//! real export, under every scope and listing the analysis has, the report
//! is the report over all ranges, byte for byte in every format, and the
//! reader's diagnostics and collectives are the same; the ranges kept are
//! some of all ranges, and on the exports with many ranges far fewer.

use crate::common::nsys_exports;
use rooftrace::gaps::{self, GapConfig};
use rooftrace::nsys::{NvtxRange, Timeline};
use rooftrace::report::{Format, Render, RenderOptions};
use std::path::Path;

/// The analyses compared: the defaults, every gap listed (each described),
/// the first device alone, and the first stream alone.
fn configs(tl: &Timeline) -> Vec<(&'static str, GapConfig)> {
    let first = &tl.ops[0];
    vec![
        ("default", GapConfig::default()),
        (
            "every gap listed",
            GapConfig {
                top: 0,
                keep_gaps: true,
                ..GapConfig::default()
            },
        ),
        (
            "first device",
            GapConfig {
                device: Some(first.device),
                ..GapConfig::default()
            },
        ),
        (
            "first stream",
            GapConfig {
                stream: Some(first.stream),
                top: 50,
                ..GapConfig::default()
            },
        ),
    ]
}

/// What a range is, for comparing sets of ranges.
fn key(r: &NvtxRange) -> (u32, u32, i64, i64, String) {
    (r.pid, r.tid, r.start_ns, r.end_ns, r.text.to_string())
}

/// Every format of the report of `tl` under `cfg`.
fn rendered(tl: &Timeline, cfg: &GapConfig) -> Vec<Vec<u8>> {
    let report = gaps::analyze(tl, cfg);
    let opts = RenderOptions::default();
    [Format::Json, Format::Table, Format::Markdown, Format::Csv]
        .into_iter()
        .map(|f| report.render(f, &opts))
        .collect()
}

fn read_near(p: &Path, cfg: &GapConfig) -> Timeline {
    let near = |tl: &Timeline| gaps::range_filter(tl, cfg);
    rooftrace::nsys::read_timeline_near(p, false, &|_, _| {}, &near).unwrap()
}

#[test]
fn the_report_over_the_ranges_near_gaps_is_the_report_over_all_ranges() {
    let files = nsys_exports();
    assert!(files.len() >= 5, "{files:?}");
    let (mut all_ranges, mut kept_ranges, mut compared) = (0usize, 0usize, 0usize);
    for p in &files {
        let Ok(all) = rooftrace::nsys::read_timeline(p, false, &|_, _| {}) else {
            // An export the reader refuses is refused either way.
            let near = |tl: &Timeline| gaps::range_filter(tl, &GapConfig::default());
            let got = rooftrace::nsys::read_timeline_near(p, false, &|_, _| {}, &near);
            assert!(got.is_err(), "{}", p.display());
            continue;
        };
        for (what, cfg) in configs(&all) {
            let near = read_near(p, &cfg);
            let at = format!("{} ({what})", p.display());
            assert_eq!(
                format!("{:?}", near.diagnostics),
                format!("{:?}", all.diagnostics),
                "{at}"
            );
            assert_eq!(
                format!("{:?}", near.collectives),
                format!("{:?}", all.collectives),
                "{at}"
            );
            // Kept ranges are ranges of the export, in the same order.
            let every: Vec<_> = all.nvtx.iter().map(key).collect();
            let mut rest = every.iter();
            for r in &near.nvtx {
                let k = key(r);
                assert!(
                    rest.any(|x| *x == k),
                    "{at}: {k:?} kept out of order or not a range"
                );
            }
            if what == "default" {
                all_ranges += all.nvtx.len();
                kept_ranges += near.nvtx.len();
            }
            let (a, b) = (rendered(&all, &cfg), rendered(&near, &cfg));
            for (x, y) in a.iter().zip(&b) {
                assert!(
                    x == y,
                    "{at}: the report differs:\nall   {}\nnear  {}",
                    String::from_utf8_lossy(x),
                    String::from_utf8_lossy(y)
                );
            }
            compared += 1;
        }
    }
    assert!(compared >= 20, "{compared} reports compared");
    // Not a comparison of a filter that keeps everything: on the bundled
    // H100 export alone (16,782 ranges, one per PyTorch op) about a fifth
    // of the ranges lie in or across a gap of the launching thread.
    assert!(
        kept_ranges * 2 < all_ranges,
        "kept {kept_ranges} of {all_ranges} ranges"
    );
}
