//! `rooftrace diff` as a gate that cannot be fooled (issue 20): inputs that
//! contradict `--gpu` or each other, runs that share nothing, runs that
//! share a minority of their work, totals rows gated, counts from the rows
//! the tables print, and Markdown checked by rendering it with a
//! CommonMark/GFM parser (pulldown-cmark), as GitHub would.

use crate::common::{fixture, rooftrace, rooftrace_json};
use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const SGEMM: &str = "fixtures/ncu/sgemm_a100_printfp_details15.csv";
const SGEMM_NEW: &str = "fixtures/ncu/sgemm_a100_diff_new_constructed.csv";
const SGEMM_UNMATCHED: &str = "fixtures/ncu/sgemm_a100_diff_unmatched_constructed.csv";
const SGEMM_FEWER_FLOPS: &str = "fixtures/ncu/sgemm_a100_diff_fewer_flops_constructed.csv";
const GPP: &str = "fixtures/ncu/gpp_ncu2024.2_details15.csv";
const SAXPY: &str = "fixtures/nsys/nsys2022.2.1_pipit_saxpy-mpi-cuda.sqlite";
const CLOVERLEAF: &str = "fixtures/nsys/nsys2024.5.1_pipit_cloverleaf.sqlite";

fn diff_json(args: &[&str]) -> (i32, Value, String) {
    rooftrace_json(&[&["diff"], args].concat())
}

/// Kernel durations (ns) per launch ID of an ncu CSV, read here with the
/// csv crate from its two cycle metrics (`smsp__cycles_elapsed.avg` /
/// `.avg.per_second`), independently of rooftrace's parser.
fn durations_ns(csv_path: &str) -> BTreeMap<String, f64> {
    let mut r = csv::Reader::from_path(fixture(csv_path.trim_start_matches("fixtures/"))).unwrap();
    let mut cycles = BTreeMap::new();
    let mut rate = BTreeMap::new();
    for rec in r.records() {
        let rec = rec.unwrap();
        let v: f64 = rec[14].replace(',', "").parse().unwrap();
        match &rec[12] {
            "smsp__cycles_elapsed.avg" => cycles.insert(rec[0].to_string(), v),
            "smsp__cycles_elapsed.avg.per_second" => rate.insert(rec[0].to_string(), v),
            _ => None,
        };
    }
    cycles
        .iter()
        .map(|(id, c)| (id.clone(), c / rate[id] * 1e9))
        .collect()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs())
}

#[test]
fn a_cross_cc_pair_with_gpu_is_refused_naming_the_side_that_contradicts_it() {
    // sgemm: an A100 (CC 8.0); GPP: an Ada GPU (CC 8.9). --gpu a100-40gb
    // fits the first only. Before issue 20 only the base was checked and
    // this pair exited 0 ("improvement").
    let (code, _, err) = rooftrace(&["diff", SGEMM, GPP, "--gpu", "a100-40gb"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains(GPP) && err.contains("8.9"), "{err}");
    assert!(
        !err.contains(SGEMM),
        "names only the contradicting side: {err}"
    );
    // The same with the sides swapped: the base is the one that contradicts.
    let (code, _, err) = rooftrace(&["diff", GPP, SGEMM, "--gpu", "a100-40gb"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains(GPP) && !err.contains(SGEMM), "{err}");
    // Without --gpu the two sides' own records disagree: both are named.
    let (code, _, err) = rooftrace(&["diff", SGEMM, GPP, "--roofs", "ncu"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("compute capability 8.0")
            && err.contains("8.9")
            && err.contains("--own-roofs"),
        "{err}"
    );
}

#[test]
fn two_exports_with_no_kernel_in_common_are_refused() {
    // The saxpy export runs `saxpy`; CloverLeaf runs par_ranged1d_kernel,
    // par_ranged2d_kernel and par_reduce_kernel (read from their
    // CUPTI_ACTIVITY_KIND_KERNEL tables with sqlite3). Before issue 20 this
    // pair exited 0.
    let names = |f: &str| -> Vec<String> {
        let conn = rusqlite::Connection::open_with_flags(
            fixture(f.trim_start_matches("fixtures/")),
            rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
        )
        .unwrap();
        let mut st = conn
            .prepare("SELECT DISTINCT s.value FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = k.shortName ORDER BY 1")
            .unwrap();
        let rows = st.query_map([], |r| r.get(0)).unwrap();
        rows.map(Result::unwrap).collect()
    };
    let (a, b) = (names(SAXPY), names(CLOVERLEAF));
    assert_eq!(a, ["saxpy"]);
    assert_eq!(b.len(), 3);
    // Recorded on two A100 models (TARGET_INFO_GPU: A100-SXM4-40GB and
    // -80GB): refused for that first, naming both.
    let (code, _, err) = rooftrace(&["diff", SAXPY, CLOVERLEAF]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("NVIDIA A100-SXM4-40GB vs NVIDIA A100-SXM4-80GB"),
        "{err}"
    );
    // Allowed across GPUs, they still share no kernel.
    let (code, _, err) = rooftrace(&["diff", SAXPY, CLOVERLEAF, "--allow-different-gpus"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("share no kernel or range name"), "{err}");
    assert!(
        err.contains(
            "1 kernel and 0 range names in the base run, 3 kernel and 0 range names in the new run"
        ),
        "{err}"
    );
}

#[test]
fn ncu_reports_with_no_kernel_in_common_are_refused() {
    // The sgemm report against itself with every kernel renamed.
    let dir = tempfile::tempdir().unwrap();
    let base = ncu_json(dir.path(), SGEMM, "b.json", |_| {});
    let renamed = ncu_json(dir.path(), SGEMM, "n.json", |v| {
        for k in v["kernels"].as_array_mut().unwrap() {
            let n = k["name"].as_str().unwrap().replace('<', "_other<");
            k["name"] = Value::from(n);
        }
    });
    let (code, _, err) = rooftrace(&["diff", path(&base), path(&renamed)]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("share no kernel"), "{err}");
}

#[test]
fn sharing_one_small_kernel_is_inconclusive_and_fails_unless_allowed() {
    // fixtures/ncu/derive.py step 8: only randomInit (ID 0) keeps its name.
    let t = durations_ns(SGEMM);
    let total: f64 = t.values().sum();
    // Base: randomInit's two launches (IDs 0, 1) are the name both runs
    // have; new: its one launch (ID 0). Both under half.
    let share_before = (t["0"] + t["1"]) / total;
    let share_after = t["0"] / total;
    assert!(share_before < 0.5 && share_after < 0.5);
    let (code, v, err) = diff_json(&[SGEMM, SGEMM_UNMATCHED, "--gpu", "a100-40gb"]);
    assert_eq!(code, 3, "{err}");
    assert_eq!(v["verdict"], "inconclusive");
    let c = &v["coverage"];
    assert_eq!(c["status"], "mostly_unmatched");
    assert!(close(
        c["matched_share_before"].as_f64().unwrap(),
        share_before
    ));
    assert!(close(
        c["matched_share_after"].as_f64().unwrap(),
        share_after
    ));
    assert_eq!(
        (
            c["kernels"]["before"].as_u64(),
            c["kernels"]["after"].as_u64(),
            c["kernels"]["shared"].as_u64()
        ),
        (Some(2), Some(3), Some(1))
    );
    assert_eq!(v["gate"]["unmatched"], true);
    assert_eq!(v["gate"]["tripped"].as_array().unwrap().len(), 0);
    assert!(err.contains("most of the work is unmatched"), "{err}");
    // Allowed: the matched kernel is unchanged, so the gate passes; the
    // verdict stays inconclusive.
    let (code, v, err) = diff_json(&[
        SGEMM,
        SGEMM_UNMATCHED,
        "--gpu",
        "a100-40gb",
        "--allow-unmatched",
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(v["verdict"], "inconclusive");
    assert_eq!(v["gate"]["failed"], false);
    // --no-gate passes too; an explicit rule still fails on the unmatched work.
    let (code, _, _) = rooftrace(&[
        "diff",
        SGEMM,
        SGEMM_UNMATCHED,
        "--gpu",
        "a100-40gb",
        "--no-gate",
    ]);
    assert_eq!(code, 0);
    let (code, _, _) = rooftrace(&[
        "diff",
        SGEMM,
        SGEMM_UNMATCHED,
        "--gpu",
        "a100-40gb",
        "--fail-on",
        "time>+50%",
    ]);
    assert_eq!(code, 3);
}

#[test]
fn a_totals_only_fraction_regression_fails_the_gate() {
    // derive.py step 9: gemm_v1 executes 30 % fewer FFMAs in the same time.
    let (code, v, err) = diff_json(&[SGEMM, SGEMM_FEWER_FLOPS, "--gpu", "a100-40gb"]);
    assert_eq!(code, 3, "{err}");
    let n = &v["ncu"];
    for k in n["kernels"].as_array().unwrap() {
        assert_eq!(k["verdict"], "unchanged", "{}", k["name"]);
        assert_eq!(k["duration_ns"]["delta"], 0.0);
    }
    // Σ T* / Σ T recomputed from the kernel rows (T* = fraction × T).
    let weighted = |side: &str| {
        let ks = n["kernels"].as_array().unwrap();
        let bound: f64 = ks
            .iter()
            .map(|k| {
                k["fraction_of_roof"][side].as_f64().unwrap()
                    * k["duration_ns"][side].as_f64().unwrap()
            })
            .sum();
        let time: f64 = ks
            .iter()
            .map(|k| k["duration_ns"][side].as_f64().unwrap())
            .sum();
        bound / time
    };
    let f = &n["totals"]["fraction_of_roof"];
    assert!(close(f["before"].as_f64().unwrap(), weighted("before")));
    assert!(close(f["after"].as_f64().unwrap(), weighted("after")));
    assert!(f["delta"].as_f64().unwrap() < -0.02, "{f}");
    assert_eq!(f["verdict"], "regression");
    // The one trip is that totals row; FLOPs moved, which is neither
    // better nor worse ("changed").
    let trips = v["gate"]["tripped"].as_array().unwrap();
    assert_eq!(trips.len(), 1, "{trips:?}");
    assert_eq!(trips[0]["row"], "total fraction of roof (time-weighted)");
    assert_eq!(trips[0]["quantity"], "fraction");
    assert_eq!(n["totals"]["flop"]["verdict"], "changed");
    assert_eq!(v["verdict"], "regression");
}

/// The section counts of a report, as (section, counts object).
fn sections(v: &Value) -> Vec<(String, Value)> {
    v["sections"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["section"].as_str().unwrap().to_string(),
                s["counts"].clone(),
            )
        })
        .collect()
}

fn counts(regression: u64, unchanged: u64, added: u64, removed: u64) -> Value {
    serde_json::json!({"regression": regression, "improvement": 0, "inconclusive": 0,
        "unchanged": unchanged, "changed": 0, "added": added, "removed": removed})
}

#[test]
fn summary_counts_come_from_the_rows_the_tables_print() {
    let (code, v, _) = diff_json(&[SGEMM, SGEMM_NEW, "--gpu", "a100-40gb"]);
    assert_eq!(code, 3);
    // Kernel rows: gemm_v1 20 % slower (regressed), randomInit #1 the same,
    // randomInit #2 renamed (one removed, one added). Totals: kernel time
    // +14.3 % (the gemm's +6.70 s over 46.9 s) and time lost (T − T*, the
    // gemm's T* unchanged: +6.70 s over 43.3 s, +15.5 %) regressed; DRAM
    // bytes and FLOPs the same; the fraction of roof drops 0.010, inside
    // its 0.02 threshold.
    assert_eq!(
        sections(&v),
        [
            ("kernels".to_string(), counts(1, 1, 1, 1)),
            ("totals".to_string(), counts(2, 3, 0, 0)),
        ]
    );
    assert_eq!(v["counts"], counts(3, 4, 1, 1));
    let kernels = v["ncu"]["kernels"].as_array().unwrap();
    assert_eq!(kernels.len(), 4);
    let (_, out, _) = rooftrace(&["diff", SGEMM, SGEMM_NEW, "--gpu", "a100-40gb"]);
    let headline = out.lines().next().unwrap();
    assert_eq!(
        headline,
        "regression: kernels 1 regressed, 1 unchanged, 1 added, 1 removed; totals 2 regressed, 3 unchanged; gate failed (3 tripped)"
    );
    // Each tripped row is one the tables call a regression.
    let rows: Vec<&str> = v["gate"]["tripped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["row"].as_str().unwrap())
        .collect();
    assert_eq!(
        rows,
        [
            "void gemm_v1<float>(float *, float *, float *, int, int, int) #1",
            "total kernel time",
            "total time lost"
        ]
    );
}

/// A GFM table as rendered: header cells and body rows of cell texts.
#[derive(Debug, Default)]
struct RenderedTable {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
}

/// Renders `md` with pulldown-cmark (GFM tables) and returns its tables
/// (cell text as a reader sees it: code spans and entities resolved) and
/// every raw HTML fragment outside `<details>`/`<summary>`.
fn render(md: &str) -> (Vec<RenderedTable>, Vec<String>) {
    let mut tables = Vec::new();
    let mut html = Vec::new();
    let mut current: Option<RenderedTable> = None;
    let mut cell: Option<String> = None;
    let mut row: Vec<String> = Vec::new();
    for ev in Parser::new_ext(md, Options::ENABLE_TABLES) {
        match ev {
            Event::Start(Tag::Table(_)) => current = Some(RenderedTable::default()),
            Event::End(TagEnd::Table) => tables.extend(current.take()),
            Event::End(TagEnd::TableHead) => {
                if let Some(t) = current.as_mut() {
                    t.header = std::mem::take(&mut row);
                }
            }
            Event::End(TagEnd::TableRow) => {
                if let Some(t) = current.as_mut() {
                    t.rows.push(std::mem::take(&mut row));
                }
            }
            Event::Start(Tag::TableCell) => cell = Some(String::new()),
            Event::End(TagEnd::TableCell) => row.extend(cell.take()),
            Event::Text(t) | Event::Code(t) => {
                if let Some(c) = cell.as_mut() {
                    c.push_str(&t);
                }
            }
            Event::Html(h) | Event::InlineHtml(h) => {
                let h = h.trim().to_string();
                if !h.starts_with("<details>") && h != "</details>" && !h.starts_with("<summary>") {
                    html.push(h);
                }
            }
            _ => {}
        }
    }
    (tables, html)
}

fn ncu_json(dir: &Path, csv: &str, name: &str, edit: impl Fn(&mut Value)) -> PathBuf {
    let (code, out, err) = rooftrace(&["ncu", csv, "--gpu", "a100-40gb", "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let mut v: Value = serde_json::from_str(&out).unwrap();
    edit(&mut v);
    let p = dir.join(name);
    std::fs::write(&p, serde_json::to_vec(&v).unwrap()).unwrap();
    p
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The kernel column of every rendered kernel table, and the tables.
fn kernel_cells(md: &str) -> (Vec<String>, Vec<RenderedTable>) {
    let (tables, html) = render(md);
    assert!(html.is_empty(), "raw HTML reached the renderer: {html:?}");
    let mut cells = Vec::new();
    for t in &tables {
        if t.header.get(1).map(String::as_str) == Some("kernel") {
            assert_eq!(t.header.len(), 7, "{:?}", t.header);
            for r in &t.rows {
                assert_eq!(r.len(), 7, "{r:?}");
                cells.push(r[1].clone());
            }
        }
    }
    (cells, tables)
}

#[test]
fn markdown_renders_every_kernel_name_as_written() {
    let (code, md, _) = rooftrace(&[
        "diff",
        SGEMM,
        SGEMM_NEW,
        "--gpu",
        "a100-40gb",
        "--format",
        "md",
    ]);
    assert_eq!(code, 3);
    assert!(md.ends_with('\n'));
    let (cells, tables) = kernel_cells(&md);
    // Top regressions (gemm), then every changed row (gemm, the added and
    // the removed launch), names whole, with their occurrence.
    assert_eq!(
        cells,
        [
            "void gemm_v1<float>(float *, float *, float *, int, int, int) #1",
            "void gemm_v1<float>(float *, float *, float *, int, int, int) #1",
            "void randomInit_v2<float>(T1 *, int, int, unsigned int) #1",
            "void randomInit<float>(T1 *, int, int, unsigned int) #2",
        ]
    );
    // A one-sided row reads "absent" on the side it is not in.
    let details = tables.iter().find(|t| t.rows.len() == 3).unwrap();
    assert_eq!(details.rows[1][0], "added");
    assert_eq!(details.rows[1][2], "absent → 6.71 s");
    assert_eq!(details.rows[2][2], "6.71 s → absent");
    // The totals table: five judged rows and the launch count.
    let totals = tables.iter().find(|t| t.header[0] == "total").unwrap();
    assert_eq!(totals.rows.len(), 6);
    assert_eq!(totals.rows[4][3], "unchanged");
}

#[test]
fn markdown_survives_a_name_with_angle_brackets_a_pipe_and_a_backtick() {
    let odd = "void k<a|b>::run`x`<float>(int)";
    let dir = tempfile::tempdir().unwrap();
    let rename = |v: &mut Value| {
        for k in v["kernels"].as_array_mut().unwrap() {
            if k["name"].as_str().unwrap().contains("gemm_v1") {
                k["name"] = Value::from(odd);
            }
        }
    };
    let base = ncu_json(dir.path(), SGEMM, "b.json", rename);
    let new = ncu_json(dir.path(), SGEMM_NEW, "n.json", rename);
    let (code, md, err) = rooftrace(&["diff", path(&base), path(&new), "--format", "md"]);
    assert_eq!(code, 3, "{err}");
    assert!(md.ends_with('\n'));
    let (cells, _) = kernel_cells(&md);
    let want = format!("{odd} #1");
    assert_eq!(cells.iter().filter(|c| **c == want).count(), 2, "{cells:?}");
    // The gate's code block keeps the name whole and stays one block.
    let fenced = md.split("\n```").count();
    assert_eq!(fenced, 3, "one opening and one closing fence:\n{md}");
}

#[test]
fn markdown_of_a_timeline_diff_names_classes_as_gaps_does() {
    let dir = tempfile::tempdir().unwrap();
    let new = dir.path().join("saxpy_lengthened.sqlite");
    std::fs::copy(fixture(SAXPY.trim_start_matches("fixtures/")), &new).unwrap();
    let sql = std::fs::read_to_string(fixture("nsys/sql/lengthen_gap_saxpy.sql")).unwrap();
    rusqlite::Connection::open(&new)
        .unwrap()
        .execute_batch(&sql)
        .unwrap();
    let (code, md, err) = rooftrace(&["diff", SAXPY, path(&new), "--format", "md"]);
    assert_eq!(code, 3, "{err}");
    assert!(md.ends_with('\n'));
    let (tables, html) = render(&md);
    assert!(html.is_empty(), "{html:?}");
    let classes = tables.iter().find(|t| t.header[0] == "idle class").unwrap();
    let first: Vec<&str> = classes.rows.iter().map(|r| r[0].as_str()).collect();
    assert_eq!(first[0], "host-bound");
    assert!(first.contains(&"after a sync (queue drained)"), "{first:?}");
    let gaps = tables
        .iter()
        .find(|t| t.header.get(2).map(String::as_str) == Some("between"))
        .unwrap();
    assert!(gaps
        .rows
        .iter()
        .any(|r| r[2] == "memcpy HtoD → saxpy" && r[3] == "host-bound"));
    // Every format ends with a newline.
    for format in ["table", "csv", "json", "md"] {
        let (_, out, _) = rooftrace(&["diff", SAXPY, path(&new), "--format", format]);
        assert!(out.ends_with('\n'), "{format}");
    }
    // --gpu means nothing to timelines: refused rather than ignored.
    let (code, _, err) = rooftrace(&["diff", SAXPY, path(&new), "--gpu", "a100-40gb"]);
    assert_eq!(code, 2, "{err}");
}

#[test]
fn the_idle_chart_of_a_real_diff_has_no_overlapping_text() {
    use rooftrace::commands::diff::{build, DiffConfig, DiffRoofs};
    use rooftrace::plot::extent::first_overlap;
    use rooftrace::plot::{DiffIdleChart, DiffIdleInput};
    let dir = tempfile::tempdir().unwrap();
    // Long paths, as CI jobs make them: the subtitle keeps the file names only.
    let deep = dir.path().join("a/very/long/ci/job/directory/that/goes/on");
    std::fs::create_dir_all(&deep).unwrap();
    let base = deep.join("nsys2022.2.1_pipit_saxpy-mpi-cuda_base_run_of_the_main_branch.sqlite");
    std::fs::copy(fixture(SAXPY.trim_start_matches("fixtures/")), &base).unwrap();
    let new = deep.join("saxpy_lengthened.sqlite");
    std::fs::copy(&base, &new).unwrap();
    let sql = std::fs::read_to_string(fixture("nsys/sql/lengthen_gap_saxpy.sql")).unwrap();
    rusqlite::Connection::open(&new)
        .unwrap()
        .execute_batch(&sql)
        .unwrap();
    let config = DiffConfig {
        base: base.clone(),
        new: new.clone(),
        roofs: DiffRoofs::Own,
        roofs_given: false,
        nvtx: None,
        nsys: None,
        thresholds: Default::default(),
        rules: Vec::new(),
        gate: true,
        allow_unmatched: false,
        allow_different_gpus: false,
        plot: None,
        format: rooftrace::report::Format::Table,
        top: 0,
        output: None,
    };
    let report = build(&config).unwrap();
    let chart = DiffIdleChart::build(&DiffIdleInput::from_diff(&report)).unwrap();
    assert_eq!(first_overlap(&chart.texts).unwrap(), None);
    let subtitle = &chart.texts[1].text;
    assert!(!subtitle.contains("/very/long"), "{subtitle}");
    assert!(subtitle.ends_with("saxpy_lengthened.sqlite"), "{subtitle}");
    // The classes with idle on either side, by their gaps names.
    let labels: Vec<&str> = chart.texts[2..]
        .iter()
        .filter(|t| t.pos.1 > chart.plot.bottom)
        .map(|t| t.text.as_str())
        .collect();
    assert!(labels.contains(&"host-bound"), "{labels:?}");
    assert!(!labels.iter().any(|l| l.contains('_')), "{labels:?}");
}

#[test]
fn the_roofline_diff_chart_has_no_overlapping_labels() {
    use rooftrace::commands::diff::{build, DiffConfig, DiffRoofs};
    use rooftrace::plot::extent::{first_overlap, HAnchor, PlacedText, VAnchor};
    use rooftrace::plot::style;
    use rooftrace::plot::{DiffRooflineChart, DiffRooflineInput};
    use rooftrace::roofs::RoofsChoice;
    let config = DiffConfig {
        base: crate::common::fixture("ncu/sgemm_a100_printfp_details15.csv"),
        new: crate::common::fixture("ncu/sgemm_a100_diff_new_constructed.csv"),
        roofs: DiffRoofs::Shared(RoofsChoice::Gpu("a100-40gb".into())),
        roofs_given: true,
        nvtx: None,
        nsys: None,
        thresholds: Default::default(),
        rules: Vec::new(),
        gate: true,
        allow_unmatched: false,
        allow_different_gpus: false,
        plot: None,
        format: rooftrace::report::Format::Table,
        top: 0,
        output: None,
    };
    let report = build(&config).unwrap();
    let chart = DiffRooflineChart::build(&DiffRooflineInput::from_diff(&report).unwrap()).unwrap();
    let c = &chart.chart;
    let center = c.size_px.0 as i32 / 2;
    let top = (HAnchor::Center, VAnchor::Top);
    // Title and subtitle where the chart draws them, and every kernel label
    // from the top-left corner of its placed box.
    let mut texts = vec![
        PlacedText::new(
            c.title.clone(),
            (center, 10),
            style::TITLE_FONT,
            style::INK,
            top,
        ),
        PlacedText::new(
            c.subtitle.clone(),
            (center, 44),
            style::SUBTITLE_FONT,
            style::INK,
            top,
        ),
    ];
    for label in c.points.iter().filter_map(|p| p.label.as_ref()) {
        texts.push(PlacedText::new(
            label.text.clone(),
            (label.rect.left, label.rect.top),
            style::LABEL_FONT,
            style::INK,
            (HAnchor::Left, VAnchor::Top),
        ));
    }
    assert!(texts.len() >= 3, "{texts:?}");
    assert_eq!(first_overlap(&texts).unwrap(), None);
}

#[test]
fn two_real_exports_sharing_a_minority_of_their_kernel_time_are_inconclusive() {
    // Two nsysai exports (an H100 copy benchmark and an MFU run before NCCL)
    // share 5 kernel names; their share of each side's kernel time, summed
    // here with sqlite3 over CUPTI_ACTIVITY_KIND_KERNEL by short name.
    let a = "fixtures/nsys/nsys2026.2.1_nsysai_h100_2gpu_1s.sqlite";
    let b = "fixtures/nsys/nsys2026.2.1_nsysai_mfu_2gpu_before_nccl.sqlite";
    let time_by_name = |f: &str| -> BTreeMap<String, f64> {
        let conn = rusqlite::Connection::open_with_flags(
            fixture(f.trim_start_matches("fixtures/")),
            rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
        )
        .unwrap();
        let mut st = conn
            .prepare("SELECT s.value, SUM(k.\"end\" - k.start) FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = k.shortName GROUP BY 1")
            .unwrap();
        let rows = st
            .query_map([], |r| {
                Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)? as f64))
            })
            .unwrap();
        rows.map(Result::unwrap).collect()
    };
    let (before, after) = (time_by_name(a), time_by_name(b));
    let share = |mine: &BTreeMap<String, f64>, theirs: &BTreeMap<String, f64>| {
        let shared: f64 = mine
            .iter()
            .filter(|(k, _)| theirs.contains_key(*k))
            .map(|(_, t)| t)
            .sum();
        shared / mine.values().sum::<f64>()
    };
    let (code, v, err) = diff_json(&[a, b]);
    assert_eq!(code, 3, "{err}");
    assert_eq!(v["verdict"], "inconclusive");
    let c = &v["coverage"];
    assert_eq!(c["kernels"]["shared"], 5);
    assert!(close(
        c["matched_share_before"].as_f64().unwrap(),
        share(&before, &after)
    ));
    assert!(close(
        c["matched_share_after"].as_f64().unwrap(),
        share(&after, &before)
    ));
    // Devices sum different work: their idle moves are inconclusive, not regressions.
    for d in v["nsys"]["devices"].as_array().unwrap() {
        assert_eq!(d["verdict"], "inconclusive");
    }
    // Nothing summed over different work regresses. The kernel rows are
    // matched by name and keep their verdicts (as ncu kernel rows do): the
    // regressions are exactly the shared names whose summed time (sqlite3,
    // above) grew beyond 5 % and 10 µs.
    for (section, counts) in sections(&v) {
        if section != "kernels" {
            assert_eq!(counts["regression"], 0, "{section}");
        }
    }
    let grew: Vec<&String> = before
        .iter()
        .filter(|(k, t)| {
            after
                .get(*k)
                .is_some_and(|a| a - *t > (0.05 * *t).max(10_000.0))
        })
        .map(|(k, _)| k)
        .collect();
    let regressed: Vec<&str> = v["nsys"]["kernels"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|k| k["verdict"] == "regression")
        .map(|k| k["name"].as_str().unwrap())
        .collect();
    assert_eq!(regressed.len(), grew.len(), "{regressed:?} vs {grew:?}");
    assert!(regressed.iter().all(|r| grew.iter().any(|g| g == r)));
    assert_eq!(
        (
            v["gate"]["failed"].as_bool(),
            v["gate"]["unmatched"].as_bool()
        ),
        (Some(true), Some(true))
    );
    // --allow-unmatched judges the matched rows: those kernels still fail the gate.
    let (code, v, err) = diff_json(&[a, b, "--allow-unmatched"]);
    assert_eq!(code, 3, "{err}");
    assert_eq!(v["gate"]["unmatched"], false);
    let tripped = v["gate"]["tripped"].as_array().unwrap();
    assert_eq!(tripped.len(), grew.len());
    assert!(tripped
        .iter()
        .all(|t| t["row"].as_str().unwrap().starts_with("kernel ")));
}
