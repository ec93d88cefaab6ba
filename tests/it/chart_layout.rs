//! Every chart on every corpus file, checked on its computed layout (axis
//! ranges, marker and bar rectangles, legend entries), never on pixels: no
//! legend entry names something the chart does not draw, the median case
//! is drawn where the eye finds it (not squeezed under a pixel or two by an
//! outlier), and no two labels read the same. `plot_typical.rs` holds the
//! budget and histogram charts' median checks; the budget and histogram
//! legends are checked against their segments here too. Without
//! `../shared/corpus` it fails under CI and skips elsewhere (`common::need`).

use crate::common::{corpus, corpus_file};
use rooftrace::gaps::GapConfig;
use rooftrace::plot::labels::Swatch;
use rooftrace::plot::roofline::RooflineChart;
use rooftrace::plot::{
    GapHistogram, HistogramInput, ProjectionRooflineChart, ProjectionRooflineInput, RooflineInput,
    TimelineChart, TimelineInput,
};
use rooftrace::roofline::{analyze, GroupBy};
use rooftrace::roofs::{gpus, GpuChoice, GpuInfo};
use std::collections::BTreeSet;
use std::path::PathBuf;

/// The corpus files of `sub` whose names end with one of `ends`, sorted.
fn files(sub: &str, ends: &[&str]) -> Vec<PathBuf> {
    let Some(dir) = corpus(sub) else {
        return Vec::new();
    };
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let n = p.to_string_lossy();
            ends.iter().any(|e| n.ends_with(e))
        })
        .collect();
    v.sort();
    v
}

/// The median of `v` (the lower one of an even count).
fn median(mut v: Vec<f64>) -> Option<f64> {
    v.sort_by(f64::total_cmp);
    (!v.is_empty()).then(|| v[(v.len() - 1) / 2])
}

/// The checks every roofline-shaped chart (ncu's, the projection's)
/// passes: every legend entry names a marker path, the unknown path, the
/// above-roof ring or a roof drawn without its own label; the median
/// kernel (by time) has its marker inside the frame; labels differ.
fn check_roofline(c: &RooflineChart, what: &str) {
    let paths: BTreeSet<String> = c
        .points
        .iter()
        .map(|p| {
            p.path
                .map_or("path unknown".to_string(), |p| p.label().to_string())
        })
        .collect();
    let roofs: BTreeSet<String> = c
        .roofs
        .unlabeled_items()
        .into_iter()
        .map(|i| i.text)
        .collect();
    for item in &c.legend.items {
        let drawn = match item.swatch {
            Swatch::Dot(_) => paths.contains(&item.text),
            Swatch::Ring(_) => c.points.iter().any(|p| p.above_roof),
            Swatch::Line(_) => roofs.contains(&item.text),
            Swatch::Bar(_) => false,
        };
        assert!(drawn, "{what}: legend entry `{}` draws nothing", item.text);
    }
    if let Some(m) = median(c.points.iter().map(|p| p.radius_px).collect()) {
        // Marker area ∝ time: the median-radius marker is the median kernel.
        let p = c.points.iter().find(|p| p.radius_px == m).unwrap();
        let plot = c.frame.plot;
        let (x, y) = p.center_px;
        assert!(
            plot.left <= x && x <= plot.right && plot.top <= y && y <= plot.bottom,
            "{what}: the median kernel {} is drawn outside the frame at {x},{y}",
            p.name
        );
        assert!(m >= 1.0, "{what}: the median kernel's marker is {m} px");
    }
    let labels: Vec<&str> = c
        .points
        .iter()
        .filter_map(|p| p.label.as_ref().map(|l| l.text.as_str()))
        .collect();
    let distinct: BTreeSet<&str> = labels.iter().copied().collect();
    assert_eq!(distinct.len(), labels.len(), "{what}: labels {labels:?}");
}

/// The roofline report of an ncu CSV on the A100 40 GB's roofs (every
/// corpus CSV is an A100's or a close one; the layout is what is checked),
/// one row per launch; `None` for a CSV that does not parse.
fn ncu_report(p: &std::path::Path) -> Option<rooftrace::roofline::RooflineReport> {
    let f = std::fs::File::open(p).unwrap();
    let csv = rooftrace::ncu::parse(f, &p.display().to_string()).ok()?;
    let g = gpus::by_key("a100-40gb").unwrap();
    let info = GpuInfo {
        key: Some("a100-40gb".into()),
        name: g.name.into(),
        chosen_by: GpuChoice::CommandLine,
        notes: Vec::new(),
    };
    Some(analyze(&csv, &g.default_roofs(), info, GroupBy::Launch))
}

#[test]
fn every_corpus_ncu_csvs_roofline_and_projection_draw_their_median_and_only_what_the_legend_says() {
    let mut drawn = 0;
    for p in files("ncu", &[".csv", ".log"]) {
        let what = p.display().to_string();
        let Some(r) = ncu_report(&p) else {
            continue; // the empty app-error export: refused, nothing to draw
        };
        let input = RooflineInput::from_report(&r, 10);
        let Ok(c) = RooflineChart::build(&input) else {
            continue; // no placeable kernel: the command says so, exit 2
        };
        check_roofline(&c, &what);
        drawn += 1;
        let target = rooftrace::commands::projection::targets(&["h100-sxm".into()], None).unwrap();
        let projected = rooftrace::commands::projection::ncu(
            r,
            &target,
            rooftrace::projection::Model::BoundScales,
        );
        if let Some(input) = ProjectionRooflineInput::from_projection(&projected, 0) {
            let c = ProjectionRooflineChart::build(&input).unwrap();
            check_roofline(&c.chart.chart, &format!("{what} projected"));
        }
    }
    assert!(drawn >= 5 || corpus("ncu").is_none(), "{drawn} CSVs drawn");
}

/// Every corpus nsys export and PyTorch trace: the timeline's legend names
/// only op kinds and gap classes with a bar drawn, its window holds ops,
/// its median op is drawn, and the gap histogram's legend names only
/// classes with a segment drawn. (The median gap of the default window is
/// under a pixel on most of these files: the window is sized to show the
/// longest gap of the main idle class, `gaps::window`; the gap lanes draw
/// each pixel column as the state that held most of it.)
#[test]
fn every_corpus_timeline_and_histogram_legend_names_only_what_is_drawn() {
    let mut drawn = 0;
    for p in files("nsys", &[".sqlite"])
        .into_iter()
        .chain(files("kineto", &[".json.gz"]))
    {
        let what = p.display().to_string();
        let Ok(tl) = rooftrace::input::identify(&p).and_then(|kind| {
            rooftrace::input::read_timeline(
                &p,
                &kind,
                &rooftrace::input::ReadOptions {
                    nvtx: false,
                    keep: rooftrace::kineto::Keep::All,
                    progress: &|_, _| {},
                    near: None,
                },
            )
        }) else {
            continue; // a counters-only trace: no timeline
        };
        let cfg = GapConfig {
            keep_gaps: true,
            ..Default::default()
        };
        let report = rooftrace::gaps::analyze(&tl, &cfg);
        let Ok(input) = TimelineInput::from_gaps(&tl, &report, None, "t") else {
            continue;
        };
        let c = TimelineChart::build(&input).unwrap();
        drawn += 1;
        // The median op of the window (on a lane shown) has its bar, at
        // least a pixel wide, where its start is: ops shorter than a pixel
        // are drawn a pixel wide, never left out.
        let (w0, w1) = c.window_ns;
        let shown: Vec<&rooftrace::plot::OpBar> = input
            .ops
            .iter()
            .filter(|o| o.lane < c.lanes.len() && o.end_ns > w0 && o.start_ns < w1)
            .collect();
        if let Some(m) = median(
            shown
                .iter()
                .map(|o| (o.end_ns - o.start_ns) as f64)
                .collect(),
        ) {
            let o = shown
                .iter()
                .find(|o| (o.end_ns - o.start_ns) as f64 == m)
                .unwrap();
            let x = c.plot.left
                + ((o.start_ns.max(w0) - w0) as f64 * c.plot.width() as f64 / (w1 - w0) as f64)
                    .round() as i32;
            let kind = match o.kind {
                rooftrace::plot::OpKind::Graph => rooftrace::plot::OpKind::Kernel,
                k => k,
            };
            let row = c.lanes[o.lane].rect;
            assert!(
                c.bars
                    .iter()
                    .any(|b| b.what == rooftrace::plot::timeline::BarWhat::Op(kind)
                        && b.rect.left <= x
                        && x <= b.rect.right
                        && b.rect.right - b.rect.left >= 1
                        && row.top <= b.rect.top
                        && b.rect.bottom <= row.bottom),
                "{what}: the median op ({m} ns at {}) has no bar",
                o.start_ns
            );
        }
        let bars: BTreeSet<String> = c
            .bars
            .iter()
            .map(|b| match b.what {
                rooftrace::plot::timeline::BarWhat::Op(k) => format!("{k:?}"),
                rooftrace::plot::timeline::BarWhat::Gap(g) => format!("gap: {}", g.label()),
            })
            .collect();
        assert!(
            bars.iter().any(|b| !b.starts_with("gap: ")),
            "{what}: no op drawn"
        );
        for item in &c.legend.items {
            let key = match item.text.as_str() {
                "kernel" => "Kernel".to_string(),
                "memcpy" => "Memcpy".to_string(),
                "memset" => "Memset".to_string(),
                t => t.to_string(),
            };
            assert!(
                bars.contains(&key),
                "{what}: timeline legend entry `{}` draws nothing ({bars:?})",
                item.text
            );
        }
        let h = HistogramInput::from_gaps(&report, "t").unwrap();
        if h.gaps.is_empty() {
            continue;
        }
        let h = GapHistogram::build(&h).unwrap();
        for item in &h.legend.items {
            let class = rooftrace::gaps::GapClass::ALL
                .into_iter()
                .find(|c| item.text.starts_with(&format!("{}:", c.label())))
                .unwrap_or_else(|| panic!("{what}: legend entry `{}`", item.text));
            assert!(
                h.segments
                    .iter()
                    .any(|s| s.class == class && s.rect.bottom - s.rect.top >= 1),
                "{what}: histogram legend entry `{}` draws nothing",
                item.text
            );
        }
    }
    assert!(
        drawn >= 10 || corpus("nsys").is_none(),
        "{drawn} timelines drawn"
    );
}

#[test]
fn launches_of_one_kernel_are_labelled_by_their_ncu_id_and_the_subtitle_says_so() {
    // The interpolate export: one row per launch, 8 of the top 10 rows are
    // launches of `upsample_bilinear2d_out_frame` (they all read that way
    // before; the labels were 8 times that name).
    let Some(p) = corpus_file(
        "ncu/ncu2020.3_metrics_csv_app_traceback_error_then_csv_leleucas_interpolate_a100.log",
    ) else {
        return;
    };
    let r = ncu_report(&p).unwrap();
    let c = RooflineChart::build(&RooflineInput::from_report(&r, 10)).unwrap();
    let labels: Vec<&str> = c
        .points
        .iter()
        .filter_map(|p| p.label.as_ref().map(|l| l.text.as_str()))
        .collect();
    let upsample: Vec<&&str> = labels
        .iter()
        .filter(|l| l.starts_with("upsample_bilinear2d_out_frame · ID "))
        .collect();
    assert!(upsample.len() >= 2, "{labels:?}");
    // Each ID is a row's ncu ID.
    let ids: BTreeSet<String> = r.kernels.iter().map(|k| k.id.to_string()).collect();
    for l in upsample {
        let id = l["upsample_bilinear2d_out_frame · ID ".len()..]
            .split(' ')
            .next()
            .unwrap();
        assert!(ids.contains(id), "{l}");
    }
    assert!(
        c.subtitle.contains("launches of one kernel by ncu ID"),
        "{}",
        c.subtitle
    );
}
