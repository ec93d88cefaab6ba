//! `rooftrace path` as a user runs it, on real corpus traces and an nsys
//! export with NVTX steps: the contract's invariants (docs/path.md), which
//! hold whatever the walk puts on the path — every step's parts sum to its
//! `step_ns`, `path_ns == step_ns`, the step is `budget`'s to the ns, a
//! change never saves more than its own shortfall — and the formats agree
//! with each other (JSON, CSV, Parquet read back by DuckDB); `budget`
//! names the same best change; bad input exits 2 with one clear line;
//! `--trace-out` is a valid trace whose critical-path slices tile each
//! step.

use crate::common::{corpus_file, fixture, rooftrace, rooftrace_json};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The saxpy export: 10 `MPI_Send` NVTX ranges (tests/it/gaps_evidence.rs).
const SAXPY: &str = "nsys/nsys2022.2.1_pipit_saxpy-mpi-cuda.sqlite";

/// The contract's part names, in the order a step lists them.
const PARTS: [&str; 14] = [
    "kernel_memory",
    "kernel_compute",
    "kernel_no_model",
    "collective",
    "copy",
    "graph",
    "launch_overhead",
    "gpu_gap",
    "dependency",
    "sync",
    "host_work",
    "host_call",
    "waiting_for_rank",
    "before_first_event",
];

/// Real inputs with steps, each with the arguments that choose its steps
/// and GPU (the sampled and compare traces name no GPU).
fn inputs() -> Vec<(PathBuf, Vec<&'static str>)> {
    let mut v = vec![(
        fixture(SAXPY),
        vec!["--nvtx", "^MPI_Send$", "--gpu", "a100-40gb"],
    )];
    for (name, args) in [
        ("kineto_hta_cuda_event_sync.json.gz", vec![]),
        ("kineto_hta_nccl_allreduce_rank0.json.gz", vec![]),
        ("kineto_hta_v100_2rank_rank1.json.gz", vec![]),
        (
            "kineto_hta_sampled_rank-0.json.gz",
            vec!["--gpu", "a100-40gb"],
        ),
        (
            "kineto_hta_trace_compare_base.json.gz",
            vec!["--gpu", "v100-32gb"],
        ),
    ] {
        if let Some(p) = corpus_file(&format!("kineto/{name}")) {
            v.push((p, args));
        }
    }
    v
}

fn run(cmd: &str, input: &Path, args: &[&str], format: &str) -> String {
    let mut all = vec![cmd, input.to_str().unwrap()];
    all.extend(args);
    all.extend(["--format", format]);
    let (code, out, err) = rooftrace(&all);
    assert_eq!(code, 0, "{cmd} {}: {err}", input.display());
    out
}

/// A step's identity across reports: (pid, device, start_ns).
fn key(s: &Value, start: &str) -> (i64, i64, i64) {
    (
        s["pid"].as_i64().unwrap(),
        s["device"].as_i64().unwrap(),
        s[start].as_i64().unwrap(),
    )
}

/// The contract's invariants on one step of the JSON.
fn check_step(s: &Value, what: &str) {
    let step_ns = s["step_ns"].as_i64().unwrap();
    assert_eq!(s["path_ns"].as_i64(), Some(step_ns), "{what}");
    let parts = s["parts"].as_array().unwrap();
    let sum: i64 = parts.iter().map(|p| p["ns"].as_i64().unwrap()).sum();
    assert_eq!(sum, step_ns, "{what}: parts {parts:?}");
    // Zero parts omitted, the contract's order, each name once.
    let order: Vec<usize> = parts
        .iter()
        .map(|p| {
            assert_ne!(p["ns"].as_i64(), Some(0), "{what}");
            PARTS
                .iter()
                .position(|n| p["name"] == *n)
                .unwrap_or_else(|| panic!("{what}: unknown part {p}"))
        })
        .collect();
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{what}: {order:?}");
    let what_if = s["what_if"].as_array().unwrap();
    for w in what_if {
        let saved = w["saved_ns"].as_i64().unwrap();
        assert!(saved >= 0, "{what}: {w}");
        assert!(saved <= w["shortfall_ns"].as_i64().unwrap(), "{what}: {w}");
        // A new step above the step (ops moved earlier at the start more
        // than at the end, docs/path.md "New step") saves 0.
        let new_step = w["new_step_ns"].as_i64().unwrap();
        if saved > 0 {
            assert_eq!(new_step, step_ns - saved, "{what}: {w}");
        } else {
            assert!(new_step >= step_ns, "{what}: {w}");
        }
    }
    // Most saved first, then by change.
    let order: Vec<(i64, String)> = what_if
        .iter()
        .map(|w| {
            (
                -w["saved_ns"].as_i64().unwrap(),
                w["change"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert!(order.windows(2).all(|w| w[0] <= w[1]), "{what}: {order:?}");
}

#[test]
fn every_step_is_budgets_step_and_its_parts_sum_to_it_in_json_and_csv() {
    for (input, args) in inputs() {
        let what = input.display().to_string();
        let path: Value = serde_json::from_str(&run("path", &input, &args, "json")).unwrap();
        let budget: Value = serde_json::from_str(&run("budget", &input, &args, "json")).unwrap();
        assert_eq!(path["schema"], "rooftrace.path/1", "{what}");
        assert_eq!(path["kernel_floor_ns"], 2000, "{what}");
        let steps = path["steps"].as_array().unwrap();
        assert!(!steps.is_empty(), "{what}");
        // budget's window of each step, by (pid, device, gpu_start_ns).
        let windows: BTreeMap<_, i64> = budget["steps"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| (key(s, "gpu_start_ns"), s["step_ns"].as_i64().unwrap()))
            .collect();
        for s in steps {
            check_step(s, &what);
            assert_eq!(
                windows.get(&key(s, "start_ns")),
                s["step_ns"].as_i64().as_ref(),
                "{what}: {s}"
            );
        }
        // The CSV: one row per step × part, the JSON's parts exactly.
        let csv = run("path", &input, &args, "csv");
        let mut lines = csv.lines();
        let header: Vec<&str> = lines.next().unwrap().split(',').collect();
        let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
        let (step, part, ns) = (col("step"), col("part"), col("part_ns"));
        let mut from_csv: BTreeMap<usize, Vec<(String, i64)>> = BTreeMap::new();
        for l in lines {
            // Range texts of these inputs hold no comma.
            let cells: Vec<&str> = l.split(',').collect();
            from_csv
                .entry(cells[step].parse().unwrap())
                .or_default()
                .push((cells[part].to_string(), cells[ns].parse().unwrap()));
        }
        let from_json: BTreeMap<usize, Vec<(String, i64)>> = steps
            .iter()
            .enumerate()
            .map(|(i, s)| (i, parts_of(s)))
            .collect();
        assert_eq!(from_csv, from_json, "{what}");
    }
}

/// A step's parts as (name, ns).
fn parts_of(s: &Value) -> Vec<(String, i64)> {
    s["parts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["name"].as_str().unwrap().to_string(),
                p["ns"].as_i64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn the_first_line_and_budgets_critical_path_name_the_same_best_change() {
    for (input, args) in inputs().into_iter().take(3) {
        let what = input.display().to_string();
        let path: Value = serde_json::from_str(&run("path", &input, &args, "json")).unwrap();
        let budget: Value = serde_json::from_str(&run("budget", &input, &args, "json")).unwrap();
        let median = path["median_step"].as_u64().unwrap() as usize;
        let cp = &budget["critical_path"];
        assert_eq!(cp["step"].as_u64(), Some(median as u64), "{what}: {cp}");
        let table = run("path", &input, &args, "table");
        let first = table.lines().next().unwrap();
        // Markdown opens with the same line, in bold.
        let md = run("path", &input, &args, "md");
        // (These inputs' names hold nothing Markdown escapes.)
        assert!(
            !first.contains(['\\', '|', '<', '>', '&']),
            "{what}: {first}"
        );
        let bold = format!("**{first}**");
        assert_eq!(md.lines().next(), Some(bold.as_str()), "{what}");
        let budget_table = run("budget", &input, &args, "table");
        let line = budget_table
            .lines()
            .find(|l| l.starts_with("critical path: "))
            .unwrap_or_else(|| panic!("{what}: {budget_table}"));
        match path["best"].as_object() {
            Some(best) => {
                let change = best["change"].as_str().unwrap();
                assert_eq!(cp["change"].as_str(), Some(change), "{what}");
                assert_eq!(cp["saved_ns"], best["saved_ns"], "{what}");
                // best is the median step's own replay of that change.
                let on_median = path["steps"][median]["what_if"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|w| w["change"] == change)
                    .unwrap();
                assert_eq!(on_median["saved_ns"], best["saved_ns"], "{what}");
                assert!(
                    first.starts_with(&format!(
                        "best single change: `{change}` shortens the median step `"
                    )),
                    "{what}: {first}"
                );
                assert!(line.contains(&format!("`{change}`")), "{what}: {line}");
            }
            None => {
                assert!(cp["change"].is_null() && cp["saved_ns"].is_null(), "{what}");
                assert!(
                    first.starts_with("no single change is known to shorten the median step `"),
                    "{what}: {first}"
                );
                assert!(line.contains("no single change is known"), "{what}: {line}");
            }
        }
    }
}

#[test]
fn parquet_read_back_by_duckdb_holds_the_jsons_parts_and_changes() {
    let (input, args) = inputs().swap_remove(0);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("path.parquet");
    let mut all = vec!["path", input.to_str().unwrap()];
    all.extend(&args);
    all.extend(["--format", "parquet", "-o", out.to_str().unwrap()]);
    let (code, _, err) = rooftrace(&all);
    assert_eq!(code, 0, "{err}");
    let json: Value = serde_json::from_str(&run("path", &input, &args, "json")).unwrap();
    let Some(rows) = crate::multi::duckdb(&format!(
        "SELECT step, part, part_ns, step_ns, path_ns FROM read_parquet('{}/path_parts/*/*.parquet') ORDER BY step, part_ns DESC, part",
        out.display()
    )) else {
        return;
    };
    let mut from_parquet: BTreeMap<usize, Vec<(String, i64)>> = BTreeMap::new();
    let mut sums: BTreeMap<usize, (i64, i64, i64)> = BTreeMap::new();
    for r in rows.as_array().unwrap() {
        let step = r[0].as_u64().unwrap() as usize;
        let ns = r[2].as_i64().unwrap();
        from_parquet
            .entry(step)
            .or_default()
            .push((r[1].as_str().unwrap().to_string(), ns));
        let e = sums.entry(step).or_insert((0, 0, 0));
        e.0 += ns;
        e.1 = r[3].as_i64().unwrap();
        e.2 = r[4].as_i64().unwrap();
    }
    for (step, (sum, step_ns, path_ns)) in &sums {
        assert_eq!((sum, path_ns), (step_ns, step_ns), "step {step}");
    }
    let steps = json["steps"].as_array().unwrap();
    assert_eq!(from_parquet.len(), steps.len());
    for (i, s) in steps.iter().enumerate() {
        let mut want = parts_of(s);
        want.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        assert_eq!(from_parquet[&i], want, "step {i}");
    }
    let changes = crate::multi::duckdb(&format!(
        "SELECT count(*), coalesce(sum(saved_ns), 0) FROM read_parquet('{}/path_what_if/*/*.parquet')",
        out.display()
    ))
    .unwrap();
    let what_if: Vec<&Value> = steps
        .iter()
        .flat_map(|s| s["what_if"].as_array().unwrap())
        .collect();
    let saved: i64 = what_if
        .iter()
        .map(|w| w["saved_ns"].as_i64().unwrap())
        .sum();
    assert_eq!(changes[0][0].as_u64(), Some(what_if.len() as u64));
    assert_eq!(changes[0][1].as_i64(), Some(saved));
}

#[test]
fn bad_input_exits_2_with_one_line_saying_what_to_do() {
    let saxpy = fixture(SAXPY);
    let saxpy = saxpy.to_str().unwrap();
    // A second timeline (one file given twice is one input, read once).
    let trace = fixture("kineto/cuda_event_sync.json.gz");
    let trace = trace.to_str().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nope.json.gz");
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec![saxpy, "--gpu", "a100-40gb"],
            "--nvtx REGEX is required: the NVTX range that marks one step",
        ),
        (
            vec![saxpy, "--nvtx", "(", "--gpu", "a100-40gb"],
            "--nvtx `(`",
        ),
        (
            vec![saxpy, "--nvtx", "NoSuchRange", "--gpu", "a100-40gb"],
            "--nvtx `NoSuchRange` matches no NVTX range",
        ),
        (
            vec![missing.to_str().unwrap(), "--nvtx", "x"],
            "nope.json.gz",
        ),
        (
            vec![saxpy, "--nvtx", "MPI_Send", "--trace-out", "t.txt"],
            "--trace-out t.txt: a Chrome trace is JSON",
        ),
        (
            vec![saxpy, trace, "--nvtx", "MPI_Send", "--trace-out", "t.json"],
            "--trace-out draws one timeline, and 2 INPUTs were given",
        ),
        (
            vec![saxpy, "--nvtx", "MPI_Send", "--format", "parquet"],
            "--format parquet writes a directory of datasets; give it with -o DIR",
        ),
        (
            vec![saxpy, "--nvtx", "MPI_Send", "--roofs", "ncu"],
            "--roofs ncu needs --ncu",
        ),
        (
            vec![saxpy, "--nvtx", "MPI_Send", "-o", saxpy],
            "this is the input",
        ),
    ];
    for (args, want) in cases {
        let all = [&["path"], &args[..]].concat();
        let (code, out, err) = rooftrace(&all);
        assert_eq!(code, 2, "{args:?}: {out}{err}");
        assert!(out.is_empty(), "{args:?}: {out}");
        assert!(err.starts_with("error: "), "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
    }
}

/// The trace's events, parsed.
fn events(path: &std::path::Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).unwrap();
    let doc: Value = serde_json::from_str(&text).expect("--trace-out writes valid JSON");
    doc["traceEvents"].as_array().unwrap().clone()
}

#[test]
fn trace_out_is_valid_json_whose_critical_path_slices_tile_each_step_with_flows_at_lane_changes() {
    for (input, args) in inputs().into_iter().take(2) {
        let what = input.display().to_string();
        let dir = tempfile::tempdir().unwrap();
        let trace = dir.path().join("path.json");
        let mut all = vec!["path", input.to_str().unwrap()];
        all.extend(&args);
        all.extend(["--trace-out", trace.to_str().unwrap()]);
        let (code, json, err) = rooftrace_json(&all);
        assert_eq!(code, 0, "{what}: {err}");
        let ev = events(&trace);
        // The budget's step track is there, one slice per step.
        let steps = json["steps"].as_array().unwrap();
        let step_slices = ev.iter().filter(|e| e["cat"] == "rooftrace_step").count();
        assert_eq!(step_slices, steps.len(), "{what}");
        let slices: Vec<&Value> = ev.iter().filter(|e| e["cat"] == "rooftrace_path").collect();
        let named = ev
            .iter()
            .any(|e| e["ph"] == "M" && e["args"]["name"] == "rooftrace critical path");
        assert_eq!(named, !slices.is_empty(), "{what}");
        // Per step: the slices lie in its window and sum to it (every ns
        // in exactly one segment), each named by a part of the contract.
        let mut by_step: BTreeMap<u64, Vec<&Value>> = BTreeMap::new();
        for s in &slices {
            let part = s["args"]["part"].as_str().unwrap();
            assert!(PARTS.contains(&part), "{what}: {s}");
            assert!(s["name"].as_str().unwrap().starts_with(part), "{what}: {s}");
            by_step
                .entry(s["args"]["step"].as_u64().unwrap())
                .or_default()
                .push(s);
        }
        let mut lane_changes = 0;
        for (i, list) in &by_step {
            let step = &steps[*i as usize];
            let sum: i64 = list
                .iter()
                .map(|s| s["args"]["duration_ns"].as_i64().unwrap())
                .sum();
            assert_eq!(sum, step["step_ns"].as_i64().unwrap(), "{what}: step {i}");
            lane_changes += list
                .windows(2)
                .filter(|w| w[0]["args"]["lane"] != w[1]["args"]["lane"])
                .count();
        }
        // A walk that draws steps draws them all.
        assert!(by_step.is_empty() || by_step.len() == steps.len(), "{what}");
        let flows = ev
            .iter()
            .filter(|e| e["cat"] == "rooftrace_path_flow")
            .count();
        assert_eq!(
            flows,
            2 * lane_changes,
            "{what}: an s and an f per lane change"
        );
    }
}

#[test]
fn several_inputs_are_one_report_holding_each_ranks_steps_with_waits_split_off() {
    // Each rank's steps as alone, but for what the collectives matched
    // across the ranks change (docs/path.md, "Several ranks"): a waiting
    // collective's wait moves from `collective` to `waiting_for_rank` (the
    // walk's route is the same), and `straggler_on_time` is listed.
    let (Some(r0), Some(r1)) = (
        corpus_file("kineto/kineto_hta_sampled_rank-0.json.gz"),
        corpus_file("kineto/kineto_hta_sampled_rank-1.json.gz"),
    ) else {
        return;
    };
    let args = ["--gpu", "a100-40gb"];
    let alone: Vec<Value> = [&r0, &r1]
        .iter()
        .map(|p| serde_json::from_str(&run("path", p, &args, "json")).unwrap())
        .collect();
    let (code, both, err) = rooftrace_json(&[
        "path",
        r0.to_str().unwrap(),
        r1.to_str().unwrap(),
        "--gpu",
        "a100-40gb",
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(both["input"].as_array().unwrap().len(), 2);
    let want: Vec<&Value> = alone
        .iter()
        .flat_map(|r| r["steps"].as_array().unwrap())
        .collect();
    let got: Vec<&Value> = both["steps"].as_array().unwrap().iter().collect();
    assert_eq!(got.len(), want.len());
    let part = |s: &Value, name: &str| {
        s["parts"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["name"] == name)
            .map_or(0, |p| p["ns"].as_i64().unwrap())
    };
    let mut waited = 0;
    for (g, w) in got.iter().zip(&want) {
        for key in ["name", "pid", "device", "start_ns", "step_ns", "path_ns"] {
            assert_eq!(g[key], w[key], "{key} of {}", w["name"]);
        }
        let wait = part(g, "waiting_for_rank");
        waited += wait;
        assert_eq!(part(g, "collective") + wait, part(w, "collective"));
        let others = |s: &Value| -> Vec<Value> {
            s["parts"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|p| p["name"] != "collective" && p["name"] != "waiting_for_rank")
                .cloned()
                .collect()
        };
        assert_eq!(others(g), others(w), "parts of {}", w["name"]);
        // `all` holds straggler_on_time: equal to alone's only without a wait.
        let rows = |s: &Value| -> Vec<Value> {
            s["what_if"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|x| {
                    x["change"] != "straggler_on_time" && (wait == 0 || x["change"] != "all")
                })
                .cloned()
                .collect()
        };
        assert_eq!(rows(g), rows(w), "what_if of {}", w["name"]);
        assert!(
            g["what_if"]
                .as_array()
                .unwrap()
                .iter()
                .any(|x| x["change"] == "straggler_on_time"),
            "straggler_on_time listed with several ranks"
        );
    }
    if waited == 0 {
        // No wait split off: the report says why (on this pair `rooftrace
        // comm` aligns the clocks only to within hundreds of ms, so no rank
        // is called last; or a collective is on one rank only).
        let notes = both["diagnostics"].as_array().unwrap();
        assert!(
            notes.iter().any(|d| {
                let d = d.as_str().unwrap();
                d.contains("within the clock alignment's error") || d.contains("one rank only")
            }),
            "{notes:?}"
        );
    }
    // The median over both ranks' steps: nearest rank by step_ns (ties by
    // position), as budget picks it.
    let mut order: Vec<(i64, usize)> = got
        .iter()
        .enumerate()
        .map(|(i, s)| (s["step_ns"].as_i64().unwrap(), i))
        .collect();
    order.sort();
    let median = order[order.len().div_ceil(2) - 1].1;
    assert_eq!(both["median_step"].as_u64(), Some(median as u64));
}

#[test]
fn with_ncu_counters_the_fixture_pairs_steps_hold_the_contract_and_are_budgets() {
    // The budget fixture pair (docs/budget.md, "A checked example"): an
    // nsys export of three `step` ranges built from SQL, and the ncu CSV
    // of its kernels; roofs from the A100 80GB datasheet file.
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("sgemm_steps.sqlite");
    let sql = std::fs::read_to_string(fixture("budget/sgemm_steps.sql")).unwrap();
    rusqlite::Connection::open(&db)
        .unwrap()
        .execute_batch(&sql)
        .unwrap();
    let args = [
        "--nvtx",
        "^step$",
        "--ncu",
        "fixtures/ncu/sgemm_a100_printfp_details15.csv",
        "--roofs",
        "fixtures/budget/a100-80gb-datasheet.json",
    ];
    let path: Value = serde_json::from_str(&run("path", &db, &args, "json")).unwrap();
    let budget: Value = serde_json::from_str(&run("budget", &db, &args, "json")).unwrap();
    let steps = path["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 3);
    for (s, b) in steps.iter().zip(budget["steps"].as_array().unwrap()) {
        check_step(s, "fixture pair");
        assert_eq!(key(s, "start_ns"), key(b, "gpu_start_ns"));
        assert_eq!(s["step_ns"], b["step_ns"]);
    }
    assert_eq!(path["median_step"], budget["median_step"]);
    assert_eq!(
        budget["critical_path"]["step"], budget["median_step"],
        "{}",
        budget["critical_path"]
    );
}

/// The count a diagnostic of `report` gives before `words` (0 when no
/// diagnostic says it).
fn counted(report: &Value, words: &str) -> u64 {
    report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .find_map(|d| d.find(words).map(|at| &d[..at]))
        .and_then(|head| head.trim().rsplit(' ').next()?.parse().ok())
        .unwrap_or(0)
}

#[test]
fn several_ranks_match_their_collectives_as_comm_does() {
    // `path` over several ranks reads each trace with its collectives'
    // arguments (`Keep::OpCallsAndCollectives`), so it matches them with
    // what `rooftrace comm` matches them by (Seq and group where recorded):
    // the collectives matched by order and those found on one rank only
    // are comm's counts on the same pair. Read without the arguments (as
    // before), all 10 were matched by order and none was left single.
    let (Some(r0), Some(r1)) = (
        corpus_file("kineto/kineto_hta_sampled_rank-0.json.gz"),
        corpus_file("kineto/kineto_hta_sampled_rank-1.json.gz"),
    ) else {
        return;
    };
    let pair = [r0.to_str().unwrap(), r1.to_str().unwrap()];
    let gpu = ["--gpu", "a100-40gb"];
    let (code, path, err) = rooftrace_json(&[&["path"][..], &pair, &gpu].concat());
    assert_eq!(code, 0, "{err}");
    let (code, comm, err) = rooftrace_json(&[&["comm"][..], &pair, &gpu].concat());
    assert_eq!(code, 0, "{err}");
    let by_order = counted(&comm, "collectives matched by order");
    let single = counted(&comm, "collectives appear on one rank only");
    assert!(by_order > 0 && single > 0, "{comm}");
    assert_eq!(
        counted(&path, "collectives were matched across the ranks by order"),
        by_order,
        "{path}"
    );
    assert_eq!(
        counted(&path, "collective kernels were found on one rank only"),
        single,
        "{path}"
    );
}

#[test]
fn the_readmes_first_line_is_what_path_prints_on_its_first_command() {
    // The README quotes `path`'s first line on its first command's trace:
    // the quote is the program's own line, so it cannot drift from it.
    let readme = std::fs::read_to_string(crate::common::root().join("README.md")).unwrap();
    let quoted = readme
        .lines()
        .find(|l| l.starts_with("best single change: "))
        .expect("README quotes path's first line");
    let (code, out, err) = rooftrace(&["path", "fixtures/kineto/cuda_event_sync.json.gz"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.lines().next(), Some(quoted));
}

#[test]
fn an_empty_input_is_named_as_one_and_a_file_given_twice_is_one_rank() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("e.json");
    std::fs::write(&empty, b"").unwrap();
    // The door says what the file is, not that --nvtx is missing (before:
    // "--nvtx REGEX is required", as if it were an nsys export).
    for cmd in ["path", "budget"] {
        let (code, _, err) = rooftrace(&[cmd, empty.to_str().unwrap()]);
        assert_eq!(code, 2, "{cmd}: {err}");
        assert!(err.contains("an empty file (0 bytes)"), "{cmd}: {err}");
    }
    // One trace given twice (as `a` and `./a`-like spellings) is one rank,
    // read once and said, as `comm` reads it (before: two ranks, each
    // step counted twice).
    let trace = fixture("kineto/cuda_event_sync.json.gz");
    let again = dir.path().join("again.json.gz");
    std::fs::copy(&trace, &again).unwrap();
    let twice = dir.path().join(".").join("again.json.gz");
    let (code, once, err) = rooftrace_json(&["path", again.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let (code, both, err) =
        rooftrace_json(&["path", again.to_str().unwrap(), twice.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(both["steps"], once["steps"]);
    assert_eq!(both["input"].as_array().unwrap().len(), 1);
    assert!(
        both["diagnostics"].as_array().unwrap().iter().any(|d| d
            .as_str()
            .unwrap()
            .starts_with("given more than once, read once: ")),
        "{both}"
    );
}
