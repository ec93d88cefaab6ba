//! `rooftrace diff` of timelines (issue 28): who ran each side (GPU models,
//! rank, world size) and what changed kernel by kernel. The GPU names are
//! read here from the traces' own `deviceProperties` with serde_json; the
//! kernel sets are HTA's `TraceDiff` (fixtures/kineto/hta_oracle.json,
//! `trace_diff`, written and re-checked in CI by scripts/hta_oracle.py).

use crate::common::{corpus_file, fixture, rooftrace, rooftrace_json};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

const A100: &str = "fixtures/kineto/simple_add.json.gz";
const MI250: &str = "fixtures/kineto/amd_mi250_rocm6.2.json.gz";
const RANK0: &str = "fixtures/kineto/sampled_rank-0.json.gz";
const RANK1: &str = "fixtures/kineto/sampled_rank-1.json.gz";

fn diff_json(args: &[&str]) -> (i32, Value, String) {
    rooftrace_json(&[&["diff"], args].concat())
}

/// The trace's top level, read with serde_json.
fn top(path: &std::path::Path) -> Value {
    let r = flate2::read::GzDecoder::new(std::fs::File::open(path).unwrap());
    serde_json::from_reader(r).unwrap()
}

/// The distinct `deviceProperties` names of a trace.
fn device_names(path: &std::path::Path) -> BTreeSet<String> {
    top(path)["deviceProperties"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["name"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn an_a100_trace_against_an_mi250_trace_is_refused_naming_both_gpus() {
    let a100 = device_names(&fixture("kineto/simple_add.json.gz"));
    let mi250 = device_names(&fixture("kineto/amd_mi250_rocm6.2.json.gz"));
    assert_eq!(a100.len(), 1);
    assert_eq!(mi250.len(), 1);
    let (a, m) = (a100.first().unwrap(), mi250.first().unwrap());
    assert_eq!(
        (a.as_str(), m.as_str()),
        ("NVIDIA A100-PG509-200", "AMD Radeon Graphics")
    );
    let (code, out, err) = rooftrace(&["diff", A100, MI250]);
    assert_eq!(code, 2, "{err}");
    assert!(out.is_empty(), "{out}");
    assert!(
        err.contains(&format!("different GPUs: {a} vs {m}")),
        "{err}"
    );
    assert!(err.contains("--allow-different-gpus"), "{err}");
    // Either way round.
    let (code, _, err) = rooftrace(&["diff", MI250, A100]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains(&format!("{m} vs {a}")), "{err}");
}

#[test]
fn allowed_across_gpus_the_report_and_every_verdict_say_cross_gpu() {
    let allow = "--allow-different-gpus";
    let (code, v, err) = diff_json(&[A100, MI250, allow]);
    // The two share one kernel name (6.4 % and 6.1 % of their kernel
    // time): mostly unmatched, so the gate fails (exit 3), report written.
    assert_eq!(code, 3, "{err}");
    let id = &v["identity"];
    assert_eq!(id["cross_gpu"], true);
    assert_eq!(
        id["base"]["gpus"],
        serde_json::json!(["NVIDIA A100-PG509-200"])
    );
    assert_eq!(
        id["new"]["gpus"],
        serde_json::json!(["AMD Radeon Graphics"])
    );
    assert_eq!(id["base"]["gpus_from"], "device_properties");
    assert!(v["diagnostics"].as_array().unwrap().iter().any(|d| d
        .as_str()
        .unwrap()
        .starts_with("cross-GPU: NVIDIA A100-PG509-200 vs AMD Radeon Graphics")));
    // Table: the headline and every verdict cell.
    let (code, table, _) = rooftrace(&["diff", A100, MI250, allow, "--top", "0"]);
    assert_eq!(code, 3);
    assert!(table.starts_with("inconclusive (cross-GPU):"), "{table}");
    let verdict_words = [
        "regression",
        "improvement",
        "inconclusive",
        "unchanged",
        "changed",
        "added",
        "removed",
    ];
    let mut rows = 0;
    for line in table.lines() {
        let first = line.split_whitespace().next().unwrap_or("");
        if verdict_words.contains(&first) {
            rows += 1;
            assert!(line.contains(&format!("{first} (cross-GPU)")), "{line}");
        }
    }
    assert!(rows > 20, "{rows} verdict rows");
    // CSV: a cross_gpu column, true on every row.
    let (_, csv, _) = rooftrace(&["diff", A100, MI250, allow, "--format", "csv"]);
    let mut r = csv::Reader::from_reader(csv.as_bytes());
    let col = r
        .headers()
        .unwrap()
        .iter()
        .position(|h| h == "cross_gpu")
        .unwrap();
    let n = r
        .records()
        .map(|rec| assert_eq!(&rec.unwrap()[col], "true"))
        .count();
    assert!(n > 20);
    // Markdown: the verdict line and the table cells.
    let (_, md, _) = rooftrace(&["diff", A100, MI250, allow, "--format", "md"]);
    assert!(md.contains("**inconclusive (cross-GPU):"), "{md}");
    assert!(md.contains("| added (cross-GPU) |"), "{md}");
    assert!(!md.contains("| added |"), "{md}");
}

#[test]
fn a_real_a100_and_v100_pair_of_two_ranks_is_refused_naming_both_gpus() {
    let (Some(a), Some(v)) = (
        corpus_file("kineto/kineto_hta_nccl_allreduce_rank0.json.gz"),
        corpus_file("kineto/kineto_hta_v100_2rank_rank1.json.gz"),
    ) else {
        return;
    };
    let (ta, tv) = (top(&a), top(&v));
    // Rank 0 of 2 on A100s, rank 1 of 2 on V100s (distributedInfo).
    assert_eq!(
        (
            &ta["distributedInfo"]["rank"],
            &ta["distributedInfo"]["world_size"]
        ),
        (&serde_json::json!(0), &serde_json::json!(2))
    );
    assert_eq!(
        (
            &tv["distributedInfo"]["rank"],
            &tv["distributedInfo"]["world_size"]
        ),
        (&serde_json::json!(1), &serde_json::json!(2))
    );
    let (na, nv) = (device_names(&a), device_names(&v));
    let (na, nv) = (na.first().unwrap(), nv.first().unwrap());
    let (pa, pv) = (a.to_str().unwrap(), v.to_str().unwrap());
    let (code, _, err) = rooftrace(&["diff", pa, pv]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(&format!("different GPUs: {na} vs {nv}")),
        "{err}"
    );
    // (Allowed, the two would meet device 0 to device 1, by order, as the
    // two ranks below do; not run here: the V100 trace takes seconds to read.)
}

#[test]
fn two_ranks_of_one_job_meet_device_to_device_with_the_rank_noted() {
    // sampled_rank-0/-1: ranks 0 and 1 of 128, no deviceProperties, GPU
    // events on pid 0 and 1 respectively.
    let (code, v, err) = diff_json(&[RANK0, RANK1, "--no-gate"]);
    assert_eq!(code, 0, "{err}");
    let id = &v["identity"];
    assert_eq!(
        (&id["base"]["rank"], &id["new"]["rank"]),
        (&serde_json::json!(0), &serde_json::json!(1))
    );
    assert_eq!(id["base"]["world_size"], 128);
    assert_eq!(id["gpus_checked"], false);
    let notes: Vec<&str> = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_str().unwrap())
        .collect();
    assert!(
        notes
            .iter()
            .any(|n| n.contains("the base is rank 0 and the new run rank 1")),
        "{notes:?}"
    );
    assert!(
        notes
            .iter()
            .any(|n| n.starts_with("GPU model not recorded")),
        "{notes:?}"
    );
    let devices = v["nsys"]["devices"].as_array().unwrap();
    assert_eq!(devices.len(), 1);
    assert_eq!(
        (&devices[0]["device"], &devices[0]["device_after"]),
        (&serde_json::json!(0), &serde_json::json!(1))
    );
}

/// Launches before and after, total ns before and after.
type Figures = (f64, f64, f64, f64);

/// HTA's TraceDiff figures for the sampled pair.
fn hta_trace_diff() -> Value {
    let oracle: Value =
        serde_json::from_str(&std::fs::read_to_string(fixture("kineto/hta_oracle.json")).unwrap())
            .unwrap();
    oracle["trace_diff"]["sampled_rank-0 -> sampled_rank-1"].clone()
}

#[test]
fn kernels_added_removed_and_run_more_or_less_often_are_htas() {
    let hta = hta_trace_diff();
    let (code, v, err) = diff_json(&[RANK0, RANK1, "--no-gate"]);
    assert_eq!(code, 0, "{err}");
    let rows = v["nsys"]["kernels"].as_array().unwrap();
    // rooftrace matches normalised names; on this pair no two names merge,
    // so its rows are HTA's names one to one.
    assert_eq!(rows.len() as u64, hta["kernel_names"].as_u64().unwrap());
    let mut ours: BTreeMap<&str, BTreeMap<String, Figures>> = BTreeMap::new();
    let mut unchanged = 0;
    for r in rows {
        let name = r["name"].as_str().unwrap().to_string();
        let l = &r["launches"];
        let t = &r["time_ns"];
        let (lb, la) = (l["before"].as_f64().unwrap(), l["after"].as_f64().unwrap());
        let what = match (r["verdict"].as_str().unwrap(), lb.total_cmp(&la)) {
            ("added", _) => "added",
            ("removed", _) => "deleted",
            (_, std::cmp::Ordering::Less) => "increased",
            (_, std::cmp::Ordering::Greater) => "decreased",
            _ => {
                unchanged += 1;
                continue;
            }
        };
        let ns = |x: &Value| x.as_f64().unwrap_or(0.0);
        ours.entry(what)
            .or_default()
            .insert(name, (lb, la, ns(&t["before"]), ns(&t["after"])));
    }
    assert_eq!(unchanged, hta["unchanged"].as_u64().unwrap());
    for what in ["added", "deleted", "increased", "decreased"] {
        let theirs: BTreeMap<String, Figures> = hta[what]
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, r)| {
                let f = |key: &str| r[key].as_f64().unwrap();
                (
                    k.clone(),
                    (
                        f("control_counts"),
                        f("test_counts"),
                        // HTA's durations are the traces' µs; ours ns.
                        f("control_total_duration_us") * 1e3,
                        f("test_total_duration_us") * 1e3,
                    ),
                )
            })
            .collect();
        let mine = ours.remove(what).unwrap_or_default();
        assert_eq!(
            mine.keys().collect::<Vec<_>>(),
            theirs.keys().collect::<Vec<_>>(),
            "{what}"
        );
        for (k, (a, b)) in mine.values().zip(theirs.values()).enumerate() {
            assert_eq!((a.0, a.1), (b.0, b.1), "{what} #{k} launches");
            assert!(
                (a.2 - b.2).abs() < 1.0 && (a.3 - b.3).abs() < 1.0,
                "{what} #{k}: {a:?} vs {b:?}"
            );
        }
    }
    // The pair's own shape (HTA 0.5.0): 11 kernels only rank 0 ran, 10 it ran more often.
    assert_eq!(hta["deleted"].as_object().unwrap().len(), 11);
    assert_eq!(hta["decreased"].as_object().unwrap().len(), 10);
}

#[test]
fn the_gate_reads_timeline_kernels_like_every_other_row() {
    // bounds_check_indices_kernel ran 4 times on rank 0 and twice on rank 1 (HTA).
    let hta = hta_trace_diff();
    let (name, r) = hta["decreased"]
        .as_object()
        .unwrap()
        .iter()
        .find(|(k, _)| k.contains("bounds_check_indices_kernel"))
        .unwrap();
    assert_eq!(
        (r["control_counts"].as_u64(), r["test_counts"].as_u64()),
        (Some(4), Some(2))
    );
    let (code, v, err) = diff_json(&[
        RANK0,
        RANK1,
        "--fail-on",
        "kernel:bounds_check_indices:count<-1",
    ]);
    assert_eq!(code, 3, "{err}");
    let tripped = v["gate"]["tripped"].as_array().unwrap();
    assert_eq!(tripped.len(), 1, "{tripped:?}");
    assert_eq!(tripped[0]["row"], format!("kernel {name}"));
    assert_eq!(tripped[0]["change"]["delta"], -2.0);
    // -2 is not below -2: strict, as for every rule.
    let (code, _, err) = diff_json(&[
        RANK0,
        RANK1,
        "--fail-on",
        "kernel:bounds_check_indices:count<-2",
    ]);
    assert_eq!(code, 0, "{err}");
    // A kernel's total time, by name: 2969 µs -> 3479 µs (+17.2 %).
    let (code, v, _) = diff_json(&[
        RANK0,
        RANK1,
        "--fail-on",
        "kernel:bounds_check_indices:time>+17%",
    ]);
    assert_eq!(code, 3);
    assert_eq!(v["gate"]["tripped"].as_array().unwrap().len(), 1);
    let (code, _, _) = diff_json(&[
        RANK0,
        RANK1,
        "--fail-on",
        "kernel:bounds_check_indices:time>+18%",
    ]);
    assert_eq!(code, 0);
    // A kernel no run has, and count on an ncu diff: bad rules.
    let (code, _, err) = rooftrace(&[
        "diff",
        RANK0,
        RANK1,
        "--fail-on",
        "kernel:no_such_kernel:count>0",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("no kernel name in either run contains"),
        "{err}"
    );
    // Scopes that do not take time or count on a timeline, and a metric
    // the kernel: scope does not take: bad rules, named.
    for rule in [
        "range:x:count>1",
        "total:count>1",
        "device:0:time>1%",
        "kernel:bounds:idle>1ms",
    ] {
        let (code, _, err) = rooftrace(&["diff", RANK0, RANK1, "--fail-on", rule]);
        assert_eq!(code, 2, "{rule}: {err}");
        assert!(err.contains(rule), "{err}");
    }
    let sgemm = "fixtures/ncu/sgemm_a100_printfp_details15.csv";
    let (code, _, err) = rooftrace(&[
        "diff",
        sgemm,
        sgemm,
        "--gpu",
        "a100-40gb",
        "--fail-on",
        "count>0",
    ]);
    assert_eq!(code, 2, "{err}");
    // The default gate: every kernel row called a regression trips it.
    let (code, v, _) = diff_json(&[RANK0, RANK1]);
    assert_eq!(code, 3);
    let kernel_regressions = v["nsys"]["kernels"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|k| k["verdict"] == "regression")
        .count();
    let kernel_trips = v["gate"]["tripped"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["row"].as_str().unwrap().starts_with("kernel "))
        .count();
    assert!(kernel_regressions > 0);
    assert_eq!(kernel_trips, kernel_regressions);
}

#[test]
fn timeline_kernels_in_csv_and_markdown() {
    let (_, csv, _) = rooftrace(&["diff", RANK0, RANK1, "--no-gate", "--format", "csv"]);
    let mut r = csv::Reader::from_reader(csv.as_bytes());
    let h: Vec<String> = r.headers().unwrap().iter().map(str::to_string).collect();
    let at = |c: &str| h.iter().position(|x| x == c).unwrap();
    let (row, name, verdict, lb, la) = (
        at("row"),
        at("name"),
        at("verdict"),
        at("launches_before"),
        at("launches_after"),
    );
    let kernels: Vec<csv::StringRecord> = r
        .records()
        .map(Result::unwrap)
        .filter(|x| &x[row] == "kernel")
        .collect();
    let hta = hta_trace_diff();
    assert_eq!(kernels.len() as u64, hta["kernel_names"].as_u64().unwrap());
    let removed: BTreeSet<&str> = kernels
        .iter()
        .filter(|x| &x[verdict] == "removed")
        .map(|x| {
            assert_eq!(&x[la], "0");
            assert_ne!(&x[lb], "0");
            &x[name]
        })
        .collect();
    let deleted: BTreeSet<&str> = hta["deleted"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(removed, deleted);
    let (_, md, _) = rooftrace(&["diff", RANK0, RANK1, "--no-gate", "--format", "md"]);
    assert!(
        md.contains("**Kernels that changed (added, removed, run more or less often, time)**"),
        "{md}"
    );
}

#[test]
fn two_ncu_csvs_naming_different_gpus_are_refused_unless_allowed() {
    // The H100 CSV, and a copy whose device name column says H200 (same
    // compute capability 9.0: only the name tells the cards apart).
    let h100 = "fixtures/ncu/decode_h100_b1_raw_derived.csv";
    let text = std::fs::read_to_string(fixture("ncu/decode_h100_b1_raw_derived.csv")).unwrap();
    assert_eq!(text.matches("\"NVIDIA H100 80GB HBM3\"").count(), 6);
    let dir = tempfile::tempdir().unwrap();
    let h200 = dir.path().join("decode_h200.csv");
    std::fs::write(&h200, text.replace("NVIDIA H100 80GB HBM3", "NVIDIA H200")).unwrap();
    let h200 = h200.to_str().unwrap();
    let (code, _, err) = rooftrace(&["diff", h100, h200]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("different GPUs: NVIDIA H100 80GB HBM3 vs NVIDIA H200"),
        "{err}"
    );
    assert!(err.contains("the CSV's device name"), "{err}");
    // Allowed: one set of roofs (the base's), every verdict cross-GPU.
    let (code, v, err) = diff_json(&[h100, h200, "--allow-different-gpus"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(v["identity"]["cross_gpu"], true);
    assert_eq!(v["identity"]["base"]["gpus_from"], "ncu_csv");
    assert_eq!(v["ncu"]["same_roofs"], true);
    // --own-roofs (a port) compares across GPUs too, and says so (each
    // side against its own table roofs: H200's higher DRAM bandwidth moves
    // the fraction of roof, so --no-gate here).
    let (code, v, err) = diff_json(&[h100, h200, "--own-roofs", "--no-gate"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(v["identity"]["cross_gpu"], true);
    assert_eq!(v["ncu"]["same_roofs"], false);
    // The same CSV twice: one GPU model, checked.
    let (code, v, _) = diff_json(&[h100, h100]);
    assert_eq!(code, 0);
    assert_eq!(
        (&v["identity"]["cross_gpu"], &v["identity"]["gpus_checked"]),
        (&Value::Bool(false), &Value::Bool(true))
    );
}

/// A timeline side of `devices` (id, model) with 10 ms idle each, built
/// through the library's side model.
fn side(devices: &[(u64, &str)], idle_ms: &[f64]) -> rooftrace::diff::gaps_side::GapsSide {
    use rooftrace::diff::gaps_side::{DeviceSample, GapsSide};
    use rooftrace::diff::identity::{GpuSource, SideIdentity};
    let ids: Vec<u64> = devices.iter().map(|d| d.0).collect();
    GapsSide {
        info: rooftrace::diff::SideInfo {
            input: "x".into(),
            source: "nsys export".into(),
        },
        devices: devices
            .iter()
            .zip(idle_ms)
            .map(|(&(id, _), &ms)| DeviceSample {
                pid: 1,
                device: id,
                span_ns: 1e9,
                busy_ns: 1e9 - ms * 1e6,
                idle_ns: ms * 1e6,
                ..Default::default()
            })
            .collect(),
        ranges: None,
        top_gaps: Vec::new(),
        kernels: Vec::new(),
        ops: None,
        diagnostics: Vec::new(),
        terms: Default::default(),
        identity: SideIdentity::from_devices(
            devices.iter().map(|&(id, m)| (id, m.to_string())),
            &ids,
            GpuSource::TargetInfoGpu,
        ),
    }
}

#[test]
fn devices_meet_by_model_and_order_not_by_id() {
    let t = rooftrace::diff::Thresholds::default();
    // (base id, new id, base idle, new idle) per device row.
    type Pair = (Option<u64>, Option<u64>, Option<f64>, Option<f64>);
    let pairs = |g: &rooftrace::diff::gaps::GapsDiff| -> Vec<Pair> {
        g.devices
            .iter()
            .map(|d| (d.device, d.device_after, d.idle_ns.before, d.idle_ns.after))
            .collect()
    };
    // Devices 0 and 1 against 2 and 3, one model: 0 meets 2, 1 meets 3.
    let base = side(&[(0, "NVIDIA H100"), (1, "NVIDIA H100")], &[10.0, 20.0]);
    let new = side(&[(2, "H100"), (3, "NVIDIA H100")], &[11.0, 21.0]);
    let g = rooftrace::diff::gaps::diff(&base, &new, &t, true);
    assert_eq!(
        pairs(&g),
        [
            (Some(0), Some(2), Some(10e6), Some(11e6)),
            (Some(1), Some(3), Some(20e6), Some(21e6))
        ]
    );
    // Two models whose ids swap: each device meets the one of its model.
    let base = side(&[(0, "NVIDIA H100"), (1, "NVIDIA A100")], &[10.0, 20.0]);
    let new = side(&[(0, "NVIDIA A100"), (1, "NVIDIA H100")], &[21.0, 11.0]);
    let g = rooftrace::diff::gaps::diff(&base, &new, &t, true);
    let mut p = pairs(&g);
    p.sort_by_key(|x| x.0);
    assert_eq!(
        p,
        [
            (Some(0), Some(1), Some(10e6), Some(11e6)),
            (Some(1), Some(0), Some(20e6), Some(21e6))
        ]
    );
    assert_eq!(
        g.devices
            .iter()
            .filter(|d| d.gpu.as_deref() == Some("NVIDIA H100"))
            .count(),
        1
    );
    // Not matching by model (a side without models, or models allowed to
    // differ): by order of id.
    let g = rooftrace::diff::gaps::diff(&base, &new, &t, false);
    assert_eq!(
        pairs(&g),
        [
            (Some(0), Some(0), Some(10e6), Some(21e6)),
            (Some(1), Some(1), Some(20e6), Some(11e6))
        ]
    );
}

#[test]
fn an_export_against_itself_checks_its_target_info_gpu_model() {
    // TARGET_INFO_GPU of the saxpy export, read with sqlite3 (read-only).
    let path = fixture("nsys/nsys2022.2.1_pipit_saxpy-mpi-cuda.sqlite");
    let conn =
        rusqlite::Connection::open_with_flags(&path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .unwrap();
    let names: Vec<String> = conn
        .prepare("SELECT DISTINCT name FROM TARGET_INFO_GPU")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let p = path.to_str().unwrap();
    let (code, v, err) = diff_json(&[p, p]);
    assert_eq!(code, 0, "{err}");
    let id = &v["identity"];
    assert_eq!(id["base"]["gpus"], serde_json::json!(names));
    assert_eq!(id["base"]["gpus_from"], "target_info_gpu");
    assert_eq!(
        (&id["gpus_checked"], &id["cross_gpu"]),
        (&Value::Bool(true), &Value::Bool(false))
    );
    let d = &v["nsys"]["devices"][0];
    assert_eq!(d["gpu"], names[0].as_str());
    assert_eq!(
        (&d["device"], &d["device_after"]),
        (&serde_json::json!(0), &serde_json::json!(0))
    );
}

#[test]
fn a_gaps_json_side_keeps_no_kernel_table_and_says_so() {
    // A `rooftrace gaps` JSON report of the rank-0 trace against the trace
    // itself: the report keeps no kernel table, so no kernel rows.
    let dir = tempfile::tempdir().unwrap();
    let (code, out, err) = rooftrace(&["gaps", RANK0, "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let report = dir.path().join("rank0.json");
    std::fs::write(&report, out).unwrap();
    let (code, v, err) = diff_json(&[report.to_str().unwrap(), RANK0, "--no-gate"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(v["nsys"]["kernels"], Value::Null);
    assert!(v["diagnostics"].as_array().unwrap().iter().any(|d| d
        .as_str()
        .unwrap()
        .starts_with("kernels not compared one by one")));
    // A gate rule on kernels cannot be judged there: refused, with why.
    let (code, _, err) = rooftrace(&[
        "diff",
        report.to_str().unwrap(),
        RANK0,
        "--fail-on",
        "kernel:gemm:time>+5%",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("keeps no kernel table"), "{err}");
}
