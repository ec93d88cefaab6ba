//! `rooftrace diff` on real fixtures: a file against itself is unchanged
//! everywhere (exit 0); a copy changed by a committed script
//! (fixtures/ncu/derive.py step 7, fixtures/nsys/sql/lengthen_gap_saxpy.sql)
//! gives exactly the changes the script made and exit 3; thresholds, the
//! spread of repeated launches and the gate rules at their edges.

use crate::common::{fixture, rooftrace, rooftrace_json};
use serde_json::Value;
use std::path::{Path, PathBuf};

const SGEMM: &str = "fixtures/ncu/sgemm_a100_printfp_details15.csv";
const SGEMM_NEW: &str = "fixtures/ncu/sgemm_a100_diff_new_constructed.csv";
const SAXPY: &str = "fixtures/nsys/nsys2022.2.1_pipit_saxpy-mpi-cuda.sqlite";

fn json(args: &[&str]) -> (i32, Value, String) {
    rooftrace_json(&[&["diff"], args].concat())
}

fn verdict(v: &Value) -> &str {
    v["verdict"].as_str().unwrap()
}

/// Every row verdict in a diff report (kernels, totals, devices, classes, ranges, gaps).
fn all_verdicts(v: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let mut walk = vec![v];
    while let Some(x) = walk.pop() {
        match x {
            Value::Object(m) => {
                if let Some(Value::String(s)) = m.get("verdict") {
                    out.push(s.clone());
                }
                walk.extend(m.iter().filter(|(k, _)| *k != "gate").map(|(_, v)| v));
            }
            Value::Array(a) => walk.extend(a.iter()),
            _ => {}
        }
    }
    out
}

#[test]
fn a_real_file_against_itself_is_unchanged_everywhere() {
    for (f, gpu) in [
        (SGEMM, "a100-40gb"),
        ("fixtures/ncu/gpp_ncu2024.2_details15.csv", "rtx4090"),
        (
            "fixtures/ncu/bf16_gemm_ncu2025.1_import_details20.csv",
            "rtx5090",
        ),
    ] {
        let (code, v, err) = json(&[f, f, "--gpu", gpu]);
        assert_eq!(code, 0, "{f}: {err}");
        assert_eq!(verdict(&v), "unchanged");
        let vs = all_verdicts(&v);
        assert!(vs.len() > 5, "{f}: {vs:?}");
        assert!(vs.iter().all(|s| s == "unchanged"), "{f}: {vs:?}");
    }
    for f in [
        SAXPY,
        "fixtures/nsys/nsys2024.5.1_pipit_cloverleaf.sqlite",
        "fixtures/nsys/nsys2026.2.1_nsysai_h100_2gpu_1s.sqlite",
    ] {
        let (code, v, err) = json(&[f, f, "--nvtx", ".*"]);
        assert_eq!(code, 0, "{f}: {err}");
        let vs = all_verdicts(&v);
        assert!(vs.iter().all(|s| s == "unchanged"), "{f}: {vs:?}");
        assert_eq!(v["gate"]["failed"], false);
    }
}

/// Durations of the sgemm launches, from the CSV values (cycles / cycles per second).
const GEMM_CYCLES: f64 = 25_610_472_227.46;
const GEMM_RATE: f64 = 764_999_999.31;
/// derive.py: `"{:,.2f}".format(25610472227.46 * 1.2)`.
const GEMM_CYCLES_NEW: f64 = 30_732_566_672.95;

fn kernel<'a>(v: &'a Value, name_part: &str, occ: u64) -> &'a Value {
    v["ncu"]["kernels"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["name"].as_str().unwrap().contains(name_part) && k["occurrence"] == occ)
        .unwrap_or_else(|| panic!("no row {name_part} #{occ}"))
}

#[test]
fn one_slower_kernel_one_removed_one_added_and_exit_3() {
    let (code, v, err) = json(&[SGEMM, SGEMM_NEW, "--gpu", "a100-40gb"]);
    assert_eq!(code, 3, "{err}");
    assert!(err.contains("regression"), "{err}");
    assert_eq!(verdict(&v), "regression");
    let ks = v["ncu"]["kernels"].as_array().unwrap();
    assert_eq!(ks.len(), 4, "gemm, randomInit #1 and #2, randomInit_v2");
    let gemm = kernel(&v, "gemm_v1", 1);
    assert_eq!(gemm["verdict"], "regression");
    // T = cycles / rate on each side: 33.478 s -> 40.173 s, +20 % (to the 2
    // decimals derive.py printed).
    let (tb, ta) = (
        GEMM_CYCLES / GEMM_RATE * 1e9,
        GEMM_CYCLES_NEW / GEMM_RATE * 1e9,
    );
    let d = &gemm["duration_ns"];
    assert!((d["before"].as_f64().unwrap() - tb).abs() < 1e-6 * tb);
    assert!((d["after"].as_f64().unwrap() - ta).abs() < 1e-6 * ta);
    assert!((d["rel"].as_f64().unwrap() - 0.2).abs() < 1e-9);
    // Same bytes: the script did not touch dram__bytes.sum.
    assert_eq!(gemm["dram_bytes"]["delta"], 0.0);
    assert_eq!(gemm["dram_bytes"]["verdict"], "unchanged");
    assert!(
        gemm["why"].as_str().unwrap().starts_with("same bytes"),
        "{}",
        gemm["why"]
    );
    // Same T* (bytes, FLOPs and roofs unchanged) over 1.2 x T: the fraction
    // of roof is divided by 1.2. At the run clock (765 MHz: the roofs
    // scaled by 765/1411, docs/ncu.md "Clocks") that is 0.200 -> 0.167, a
    // drop of 0.033, beyond the 0.02 threshold (against the unscaled
    // boost-clock roof it was 0.109 -> 0.091, within it). The run clock is
    // the time-weighted mean over the launches, whose clocks differ in the
    // 8th digit (764,999,991.90 vs 764,999,999.31 Hz), so the ratio holds to
    // 1e-8, not to the last bit.
    let f = &gemm["fraction_of_roof"];
    let (fb, fa) = (f["before"].as_f64().unwrap(), f["after"].as_f64().unwrap());
    assert!((fa / (fb * tb / ta) - 1.0).abs() < 1e-8, "{fb} -> {fa}");
    assert!((fb - 0.2002).abs() < 1e-4, "{fb}");
    assert_eq!(f["verdict"], "regression");
    assert_eq!(kernel(&v, "randomInit<", 1)["verdict"], "unchanged");
    assert_eq!(kernel(&v, "randomInit<", 2)["verdict"], "removed");
    assert_eq!(kernel(&v, "randomInit_v2<", 1)["verdict"], "added");
    // Total time grows by the gemm change alone (randomInit_v2 is the same
    // launch under a new name).
    let tot = &v["ncu"]["totals"]["duration_ns"];
    let dt = tot["delta"].as_f64().unwrap();
    assert!((dt - (ta - tb)).abs() < 1e-6 * (ta - tb), "{dt}");
    assert_eq!(tot["verdict"], "regression");
    // Kernel rows: one regressed, one unchanged, one added, one removed
    // (the totals rows are counted in tests/it/diff_gate.rs).
    let c = &v["sections"][0];
    assert_eq!(c["section"], "kernels");
    let c = &c["counts"];
    assert_eq!(
        (
            c["regression"].as_u64(),
            c["added"].as_u64(),
            c["removed"].as_u64(),
            c["unchanged"].as_u64()
        ),
        (Some(1), Some(1), Some(1), Some(1))
    );
}

#[test]
fn the_threshold_is_strict_at_its_edge() {
    // gemm +20.0 %, total +14.3 %: a 19.9 % threshold still calls the
    // gemm a regression, 20.1 % does not, and then nothing fails the gate
    // (an added and a removed launch alone do not).
    let (code, v, _) = json(&[
        SGEMM,
        SGEMM_NEW,
        "--gpu",
        "a100-40gb",
        "--threshold",
        "19.9",
    ]);
    assert_eq!(
        (code, kernel(&v, "gemm_v1", 1)["verdict"].as_str()),
        (3, Some("regression"))
    );
    let (code, v, _) = json(&[
        SGEMM,
        SGEMM_NEW,
        "--gpu",
        "a100-40gb",
        "--threshold",
        "20.1",
    ]);
    assert_eq!(
        (code, kernel(&v, "gemm_v1", 1)["verdict"].as_str()),
        (0, Some("unchanged"))
    );
    assert_eq!(verdict(&v), "unchanged");
}

#[test]
fn fail_on_rules_trip_at_their_limits() {
    let run = |rule: &str| {
        rooftrace(&[
            "diff",
            SGEMM,
            SGEMM_NEW,
            "--gpu",
            "a100-40gb",
            "--fail-on",
            rule,
        ])
        .0
    };
    assert_eq!(run("kernel:gemm_v1:time>+19.9%"), 3);
    assert_eq!(run("kernel:gemm_v1:time>+20.1%"), 0);
    assert_eq!(run("bytes>+1%"), 0, "same bytes");
    assert_eq!(run("fraction<-0.001"), 3);
    assert_eq!(run("total:time>+14%"), 3);
    assert_eq!(run("total:time>+15%"), 0);
    let (code, _, err) = rooftrace(&[
        "diff",
        SGEMM,
        SGEMM_NEW,
        "--gpu",
        "a100-40gb",
        "--fail-on",
        "kernel:nosuch:time>+1%",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("no kernel name"), "{err}");
    let (code, _, err) = rooftrace(&[
        "diff",
        SGEMM,
        SGEMM_NEW,
        "--gpu",
        "a100-40gb",
        "--fail-on",
        "time>5",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("--fail-on 'time>5'"), "{err}");
    let (code, _, err) = rooftrace(&[
        "diff",
        SGEMM,
        SGEMM_NEW,
        "--gpu",
        "a100-40gb",
        "--fail-on",
        "idle>+1ms",
    ]);
    assert_eq!(code, 2, "{err}");
    let (code, _, _) = rooftrace(&["diff", SGEMM, SGEMM_NEW, "--gpu", "a100-40gb", "--no-gate"]);
    assert_eq!(code, 0);
}

#[test]
fn kinds_must_match() {
    let (code, _, err) = rooftrace(&["diff", SAXPY, SGEMM, "--gpu", "a100-40gb"]);
    assert_eq!(code, 2);
    assert!(err.contains("cannot compare"), "{err}");
}

/// The saxpy export with one gap lengthened by 100 ms (the committed SQL).
fn lengthened(dir: &Path) -> PathBuf {
    let p = dir.join("saxpy_lengthened.sqlite");
    std::fs::copy(fixture(SAXPY.trim_start_matches("fixtures/")), &p).unwrap();
    let sql = std::fs::read_to_string(fixture("nsys/sql/lengthen_gap_saxpy.sql")).unwrap();
    rusqlite::Connection::open(&p)
        .unwrap()
        .execute_batch(&sql)
        .unwrap();
    p
}

#[test]
fn one_lengthened_gap_shows_as_that_gap_its_class_and_idle() {
    let dir = tempfile::tempdir().unwrap();
    let new = lengthened(dir.path());
    // The gap, measured independently on the base export.
    let conn = rusqlite::Connection::open_with_flags(
        fixture(SAXPY.trim_start_matches("fixtures/")),
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
    )
    .unwrap();
    let gap: i64 = conn
        .query_row(
            "SELECT (SELECT MIN(start) FROM CUPTI_ACTIVITY_KIND_KERNEL) - 924863307",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(gap, 58_879);
    let (code, v, err) = json(&[SAXPY, new.to_str().unwrap(), "--nvtx", "MPI_.*"]);
    assert_eq!(code, 3, "{err}");
    let g = &v["nsys"];
    for d in [&g["total"], &g["devices"][0]] {
        assert_eq!(d["verdict"], "regression");
        assert_eq!(d["idle_ns"]["delta"], 100_000_000.0);
        assert_eq!(d["busy_ns"]["delta"], 0.0);
        assert_eq!(d["span_ns"]["delta"], 100_000_000.0);
        assert!(
            d["why"].as_str().unwrap().starts_with("host-bound +100 ms"),
            "{}",
            d["why"]
        );
        for c in d["classes"].as_array().unwrap() {
            let want = if c["class"] == "host_bound" {
                100_000_000.0
            } else {
                0.0
            };
            assert_eq!(c["total_ns"]["delta"], want, "{}", c["class"]);
        }
    }
    let changed: Vec<&Value> = g["gaps"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|x| x["verdict"] != "unchanged")
        .collect();
    assert_eq!(changed.len(), 1, "{changed:?}");
    let x = changed[0];
    assert_eq!(
        (x["before_op"].as_str(), x["after_op"].as_str()),
        (Some("memcpy HtoD"), Some("saxpy"))
    );
    assert_eq!(x["duration_ns"]["before"], gap as f64);
    assert_eq!(x["duration_ns"]["after"], (gap + 100_000_000) as f64);
    assert_eq!(x["verdict"], "regression");
    // Exactly five regressions among the rows the tables print: the device
    // and all devices (idle), the host-bound class, the host-bound detail
    // "CPU work" (the lengthened gap ends beside MPI ranges that cover less
    // than half of it: not named after them, docs/gaps.md), and the gap.
    assert_eq!(v["counts"]["regression"], 5);
    let regressed: Vec<&str> = v["gate"]["tripped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["row"].as_str().unwrap())
        .collect();
    assert_eq!(
        regressed,
        [
            "device 0 idle",
            "all devices idle",
            "idle host-bound",
            "host-bound idle: CPU work (no API call)",
            "gap memcpy HtoD → saxpy on device 0"
        ]
    );
    let rules = |r: &str| rooftrace(&["diff", SAXPY, new.to_str().unwrap(), "--fail-on", r]).0;
    assert_eq!(rules("idle.host_bound>+99ms"), 3);
    assert_eq!(
        rules("idle.host_bound>+100ms"),
        0,
        "exactly +100 ms is not beyond +100 ms"
    );
    assert_eq!(rules("idle.synchronization>+1us"), 0);
    assert_eq!(rules("device:0:idle>+13%"), 3);
    assert_eq!(rules("idle.nosuch>+1%"), 2);
}

/// `rooftrace ncu --format json` of `csv`, with `edit` applied, written to `dir`.
fn ncu_json(dir: &Path, csv: &str, name: &str, edit: impl Fn(&mut Value)) -> PathBuf {
    let (code, out, err) = rooftrace(&["ncu", csv, "--gpu", "a100-40gb", "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let mut v: Value = serde_json::from_str(&out).unwrap();
    edit(&mut v);
    let p = dir.join(name);
    std::fs::write(&p, serde_json::to_vec(&v).unwrap()).unwrap();
    p
}

fn scale_launch(v: &mut Value, id: u64, f: f64) {
    for k in v["kernels"].as_array_mut().unwrap() {
        // New fields other reports may carry are ignored by diff.
        k["flop_source"] = Value::String("counted".into());
        if k["id"] == id {
            let d = k["duration_ns"].as_f64().unwrap();
            k["duration_ns"] = Value::from(d * f);
        }
    }
}

#[test]
fn json_reports_diff_like_their_csvs_and_spread_makes_changes_inconclusive() {
    let dir = tempfile::tempdir().unwrap();
    let (b, a) = (
        ncu_json(dir.path(), SGEMM, "b.json", |_| {}),
        ncu_json(dir.path(), SGEMM_NEW, "a.json", |_| {}),
    );
    let (code, v, err) = json(&[b.to_str().unwrap(), a.to_str().unwrap()]);
    assert_eq!(code, 3, "{err}");
    assert_eq!(kernel(&v, "gemm_v1", 1)["verdict"], "regression");
    assert_eq!(kernel(&v, "randomInit_v2<", 1)["verdict"], "added");
    // randomInit launches 0 and 1 differ by 0.2 %. Launch 0 made 6 % slower:
    // beyond the 5 % threshold, but the new side's two launches now spread
    // (p90 - p10) / p50 = 6.2 %, which covers it: inconclusive.
    let a = ncu_json(dir.path(), SGEMM, "a6.json", |v| scale_launch(v, 0, 1.06));
    let (code, v, err) = json(&[b.to_str().unwrap(), a.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let r = kernel(&v, "randomInit<", 1);
    assert_eq!(r["verdict"], "inconclusive");
    let c = &r["duration_ns"];
    assert!(c["delta"].as_f64().unwrap() <= c["spread"].as_f64().unwrap());
    assert_eq!(verdict(&v), "inconclusive");
    // Both launches 6 % slower: the spread stays 0.2 %; both are regressions.
    let a = ncu_json(dir.path(), SGEMM, "a6b.json", |v| {
        scale_launch(v, 0, 1.06);
        scale_launch(v, 1, 1.06);
    });
    let (code, v, _) = json(&[b.to_str().unwrap(), a.to_str().unwrap()]);
    assert_eq!(code, 3);
    assert_eq!(kernel(&v, "randomInit<", 1)["verdict"], "regression");
    assert_eq!(kernel(&v, "randomInit<", 2)["verdict"], "regression");
}

#[test]
fn markdown_comment_for_the_changed_sgemm() {
    let (code, out, _) = rooftrace(&[
        "diff",
        SGEMM,
        SGEMM_NEW,
        "--gpu",
        "a100-40gb",
        "--format",
        "md",
    ]);
    assert_eq!(code, 3);
    assert!(out.starts_with("🔴 **regression:"), "{out}");
    insta::assert_snapshot!("diff_md_sgemm", out);
}

#[test]
fn plots_draw_arrows_and_idle_bars() {
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("roof.svg");
    let (code, _, err) = rooftrace(&[
        "diff",
        SGEMM,
        SGEMM_NEW,
        "--gpu",
        "a100-40gb",
        "--plot",
        svg.to_str().unwrap(),
    ]);
    assert_eq!(code, 3, "{err}");
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.starts_with("<svg"), "{}", &text[..40]);
    assert!(text.contains("Roofline before → after"));
    let new = lengthened(dir.path());
    let png = dir.path().join("idle.png");
    let (code, _, err) = rooftrace(&[
        "diff",
        SAXPY,
        new.to_str().unwrap(),
        "--plot",
        png.to_str().unwrap(),
    ]);
    assert_eq!(code, 3, "{err}");
    assert!(std::fs::read(&png).unwrap().starts_with(b"\x89PNG"));
    let (code, _, err) = rooftrace(&["diff", SAXPY, SAXPY, "--plot", "x.gif"]);
    assert_eq!(code, 2, "{err}");
}

#[test]
fn gaps_json_reports_diff_by_class_name_and_ignore_unknown_fields() {
    let dir = tempfile::tempdir().unwrap();
    let new = lengthened(dir.path());
    let write = |src: &str, name: &str, edit: &dyn Fn(&mut Value)| {
        let (code, out, err) = rooftrace(&["gaps", src, "--format", "json"]);
        assert_eq!(code, 0, "{err}");
        let mut v: Value = serde_json::from_str(&out).unwrap();
        edit(&mut v);
        let p = dir.path().join(name);
        std::fs::write(&p, serde_json::to_vec(&v).unwrap()).unwrap();
        p
    };
    let b = write(SAXPY, "b.json", &|_| {});
    // A class and a field a later rooftrace might add, in the new side only.
    let a = write(new.to_str().unwrap(), "a.json", &|v| {
        let d = &mut v["devices"][0];
        d["future_field"] = Value::from(1);
        d["classes"]["future_class"] = serde_json::json!({"count": 2, "total_ns": 30000});
    });
    let (code, v, err) = json(&[b.to_str().unwrap(), a.to_str().unwrap()]);
    assert_eq!(code, 3, "{err}");
    let classes = v["nsys"]["devices"][0]["classes"].as_array().unwrap();
    let fut = classes
        .iter()
        .find(|c| c["class"] == "future_class")
        .unwrap();
    // Absent on the base side: 0 there, 30 us after, beyond the 10 us floor.
    assert_eq!(
        (fut["count_before"].as_u64(), fut["count_after"].as_u64()),
        (Some(0), Some(2))
    );
    assert_eq!(fut["total_ns"]["delta"], 30_000.0);
    let host = classes.iter().find(|c| c["class"] == "host_bound").unwrap();
    assert_eq!(host["total_ns"]["delta"], 100_000_000.0);
    // A gaps report against an ncu one is refused.
    let n = ncu_json(dir.path(), SGEMM, "n.json", |_| {});
    let (code, _, err) = rooftrace(&["diff", b.to_str().unwrap(), n.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
}

/// Writes `v` (a `rooftrace.gaps/3` report) the way `rooftrace.gaps/2` did:
/// every name inline where `/3` has an index into `names`. Written here,
/// independently of the reader, from the two schemas in
/// docs/json-schema-gaps.md.
fn as_gaps2(mut v: Value) -> Value {
    let names: Vec<Value> = v["names"].as_array().unwrap().clone();
    let inline = |o: &mut Value, id: &str, key: &str| {
        let m = o.as_object_mut().unwrap();
        let id_value = m.remove(id).unwrap();
        let text = match id_value.as_u64() {
            Some(i) => names[i as usize].clone(),
            None => Value::Null,
        };
        m.insert(key.to_string(), text);
    };
    for g in v["top_gaps"].as_array_mut().unwrap() {
        inline(&mut g["before"], "name_id", "name");
        inline(&mut g["after"], "name_id", "name");
        if g["api"].is_object() {
            inline(&mut g["api"], "name_id", "name");
        }
        inline(g, "nvtx_id", "nvtx");
    }
    if v["ranges"].is_object() {
        for i in v["ranges"]["instances"].as_array_mut().unwrap() {
            inline(i, "text_id", "text");
        }
    }
    let m = v.as_object_mut().unwrap();
    m.remove("names");
    m.insert("schema".into(), Value::from("rooftrace.gaps/2"));
    v
}

#[test]
fn a_gaps2_report_with_inline_names_diffs_like_its_gaps3_form() {
    let dir = tempfile::tempdir().unwrap();
    let new = lengthened(dir.path());
    let (code, out, err) = rooftrace(&["gaps", SAXPY, "--nvtx", "MPI_.*", "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let v3: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v3["schema"], "rooftrace.gaps/6");
    let b3 = dir.path().join("b3.json");
    let b2 = dir.path().join("b2.json");
    std::fs::write(&b3, out).unwrap();
    std::fs::write(&b2, serde_json::to_vec(&as_gaps2(v3)).unwrap()).unwrap();
    let nvtx = ["--nvtx", "MPI_.*"];
    let a = new.to_str().unwrap();
    let (c3, d3, e3) = json(&[&[b3.to_str().unwrap(), a][..], &nvtx].concat());
    let (c2, d2, e2) = json(&[&[b2.to_str().unwrap(), a][..], &nvtx].concat());
    assert_eq!((c3, c2), (3, 3), "{e3}\n{e2}");
    // The same gaps, matched by the same op names, and the same ranges.
    assert_eq!(d2["nsys"]["gaps"], d3["nsys"]["gaps"]);
    assert_eq!(d2["nsys"]["ranges"], d3["nsys"]["ranges"]);
    assert_eq!(d2["counts"], d3["counts"]);
    let changed: Vec<&Value> = d2["nsys"]["gaps"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|x| x["verdict"] != "unchanged")
        .collect();
    assert_eq!(changed.len(), 1, "{changed:?}");
    assert_eq!(changed[0]["after_op"], "saxpy");
}

/// A side with one device idle `unattributed_ms` unattributed and
/// `cpu_ms` host-bound doing CPU work, in `terms`, through the library's
/// side model.
fn fix_side(
    unattributed_ms: f64,
    cpu_ms: f64,
    terms: rooftrace::gaps::FixTerms,
) -> rooftrace::diff::gaps_side::GapsSide {
    use rooftrace::diff::gaps_side::{DeviceSample, GapsSide};
    let idle = (unattributed_ms + cpu_ms) * 1e6;
    GapsSide {
        info: rooftrace::diff::SideInfo {
            input: "x".into(),
            source: "PyTorch trace".into(),
        },
        devices: vec![DeviceSample {
            pid: 1,
            device: 0,
            span_ns: 1e9,
            busy_ns: 1e9 - idle,
            idle_ns: idle,
            classes: [
                ("unattributed".to_string(), (10, unattributed_ms * 1e6)),
                ("host_bound".to_string(), (10, cpu_ms * 1e6)),
            ]
            .into(),
            host_detail: [("cpu_work".to_string(), (10, cpu_ms * 1e6))].into(),
            ..Default::default()
        }],
        ranges: None,
        top_gaps: Vec::new(),
        kernels: Vec::new(),
        ops: None,
        diagnostics: Vec::new(),
        identity: Default::default(),
        terms,
    }
}

#[test]
fn a_trace_diffs_fixes_are_in_torch_profiler_terms_an_exports_in_nsys_terms() {
    use rooftrace::gaps::{FixTerms, Tool};
    let t = rooftrace::diff::noise::Thresholds::default();
    let why = |tool, (u0, c0), (u1, c1)| {
        let terms = FixTerms {
            tool,
            pytorch: false,
            graphs: false,
        };
        let d = rooftrace::diff::gaps::diff(
            &fix_side(u0, c0, terms),
            &fix_side(u1, c1, terms),
            &t,
            false,
        );
        d.devices[0].why.clone()
    };
    // Unattributed idle grows 10 → 50 ms: its fix names the tool's way of
    // recording launches.
    let w = why(Tool::PyTorchProfiler, (10.0, 1.0), (50.0, 1.0));
    assert!(w.starts_with("unattributed +40.0 ms"), "{w}");
    assert!(w.contains("torch.profiler activities="), "{w}");
    assert!(!w.contains("nsys"), "{w}");
    let w = why(Tool::Nsys, (10.0, 1.0), (50.0, 1.0));
    assert!(w.contains("nsys --trace=cuda"), "{w}");
    // Host-bound CPU work grows 1 → 41 ms: the host profile to take.
    let w = why(Tool::PyTorchProfiler, (1.0, 1.0), (1.0, 41.0));
    assert!(w.contains("mostly CPU work"), "{w}");
    assert!(w.contains("torch.profiler with_stack=True"), "{w}");
    assert!(!w.contains("nsys"), "{w}");
    let w = why(Tool::Nsys, (1.0, 1.0), (1.0, 41.0));
    assert!(w.contains("nsys --sample=cpu"), "{w}");
}

#[test]
fn a_gaps_json_report_of_a_trace_keeps_its_fix_terms() {
    // `rooftrace gaps TRACE --format json`, read back as a diff side: its
    // `input.schema_flavor` says a PyTorch trace; an export's says nsys.
    let side = |input: &str| {
        let (code, v, err) = rooftrace_json(&["gaps", input]);
        assert_eq!(code, 0, "{err}");
        let schema = v["schema"].as_str().unwrap().to_string();
        rooftrace::diff::gaps_side::GapsSide::from_json(&v, input, &schema)
            .unwrap()
            .terms
    };
    let trace = fixture("kineto/simple_add.json.gz");
    let t = side(trace.to_str().unwrap());
    assert_eq!(t.tool, rooftrace::gaps::Tool::PyTorchProfiler);
    // simple_add records PyTorch's own ranges (`range_families`: py_torch).
    assert!(t.pytorch);
    let export = fixture("nsys/nsys2022.2.1_pipit_saxpy-mpi-cuda.sqlite");
    let t = side(export.to_str().unwrap());
    assert_eq!(t.tool, rooftrace::gaps::Tool::Nsys);
}
