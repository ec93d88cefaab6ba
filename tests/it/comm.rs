//! `rooftrace comm`: every collective of the corpus NCCL trace against its
//! own raw JSON (serde_json `Value`, no rooftrace code), HTA's
//! communication/computation overlap under HTA's definition, and a
//! synthetic job of several ranks with known clock offsets and one late
//! rank, recovered exactly.

use crate::common::{corpus_file, rooftrace, rooftrace_json};
use serde_json::Value;

/// µs number → ns (integers exactly; fractions rounded at the ns).
fn ns(v: &Value) -> i64 {
    match v.as_i64() {
        Some(us) => us * 1000,
        None => (v.as_f64().unwrap() * 1000.0).round() as i64,
    }
}

/// Relative difference.
fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs())
}

#[test]
fn every_collective_of_the_nccl_trace_has_the_bytes_and_bandwidths_of_its_raw_args() {
    // kineto_hta_nccl_allreduce_rank0 (A100-PG509-200, rank 0 of 2): each
    // NCCL kernel event carries its collective's args. From the raw JSON:
    // bytes = In msg nelems (all-reduce, broadcast: in = out) × the dtype's
    // size (Float 4, Long 8), time = dur, algbw = bytes / time, busbw = algbw × 2(n−1)/n
    // for all-reduce and × 1 for broadcast (nccl-tests), n = Group size;
    // the link is the A100 SXM's NVLink, 12 links × 25 GB/s = 300 GB/s per
    // direction (the two ranks are devices 0 and 1 of one 8-GPU node).
    let Some(path) = corpus_file("kineto/kineto_hta_nccl_allreduce_rank0.json.gz") else {
        return;
    };
    let events = crate::kineto::raw_events(&path);
    let mut raw: Vec<&Value> = events
        .iter()
        .filter(|e| e["cat"] == "kernel" && e["name"].as_str().unwrap().contains("nccl"))
        .collect();
    raw.sort_by_key(|e| ns(&e["ts"]));
    assert_eq!(raw.len(), 21);
    let (code, out, err) = rooftrace_json(&["comm", path.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out["schema"], "rooftrace.comm/1");
    let rows = out["collectives"].as_array().unwrap();
    assert_eq!(rows.len(), raw.len());
    for (e, r) in raw.iter().zip(rows) {
        let a = &e["args"];
        let size = match a["dtype"].as_str().unwrap() {
            "Float" => 4,
            "Long" => 8,
            t => panic!("{t}"),
        };
        assert_eq!(a["In msg nelems"], a["Out msg nelems"]);
        let bytes = a["In msg nelems"].as_u64().unwrap() * size;
        let n = a["Group size"].as_f64().unwrap();
        let (kind, factor) = match a["Collective name"].as_str().unwrap() {
            "allreduce" => ("all_reduce", 2.0 * (n - 1.0) / n),
            "broadcast" => ("broadcast", 1.0),
            other => panic!("{other}"),
        };
        let t = ns(&e["dur"]) as f64 * 1e-9;
        assert_eq!(r["kind"], kind);
        assert_eq!(r["bytes"].as_u64().unwrap(), bytes);
        assert_eq!(r["duration_ns"].as_i64().unwrap(), ns(&e["dur"]));
        assert_eq!(r["group_size"].as_f64().unwrap(), n);
        let algbw = bytes as f64 / t;
        assert!(
            close(r["algbw_bytes_per_s"].as_f64().unwrap(), algbw),
            "{r}"
        );
        assert!(
            close(r["busbw_bytes_per_s"].as_f64().unwrap(), algbw * factor),
            "{r}"
        );
        assert_eq!(r["link"], "nvlink");
        assert!(
            close(r["link_fraction"].as_f64().unwrap(), algbw * factor / 300e9),
            "{r}"
        );
        assert_eq!(r["args_from"], "kernel");
    }
    // Every format says it.
    let (_, csv, _) = rooftrace(&["comm", path.to_str().unwrap(), "--format", "csv"]);
    assert_eq!(csv.lines().count(), 22);
    let (_, table, _) = rooftrace(&["comm", path.to_str().unwrap()]);
    assert!(table.contains("21 collectives on 1 rank"), "{table}");
    let (_, md, _) = rooftrace(&["comm", path.to_str().unwrap(), "--format", "md"]);
    assert!(md.contains("### Collectives"), "{md}");
}

#[test]
fn an_older_trace_takes_sizes_from_its_nccl_annotations() {
    // sampled_rank-0 (fixtures): record_param_comms carries no collective
    // keys; the nccl:* annotation around each launch has Input Dims and
    // Input type. An all-reduce's size is its first input: Input Dims[0]
    // multiplied out × the type's size, checked against the raw JSON for
    // every all-reduce annotation that launched a kernel.
    let path = crate::kineto::trace("sampled_rank-0");
    let events = crate::kineto::raw_events(&path);
    let mut sizes: Vec<u64> = events
        .iter()
        .filter(|e| e["name"] == "nccl:all_reduce" && e["cat"] == "user_annotation")
        .map(|e| {
            let elems: u64 = e["args"]["Input Dims"][0]
                .as_array()
                .unwrap()
                .iter()
                .map(|d| d.as_u64().unwrap())
                .product();
            let size = match e["args"]["Input type"][0].as_str().unwrap() {
                "float" => 4,
                "c10::Half" | "c10::BFloat16" => 2,
                t => panic!("{t}"),
            };
            elems * size
        })
        .collect();
    sizes.sort_unstable();
    let (code, out, err) = rooftrace_json(&["comm", path.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let mut got: Vec<u64> = out["collectives"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["kind"] == "all_reduce")
        .map(|r| r["bytes"].as_u64().unwrap())
        .collect();
    got.sort_unstable();
    assert!(!got.is_empty());
    assert_eq!(got, sizes);
}

/// Writes the job's traces into a new directory, one file per rank.
fn job_dir(spec: &rooftrace::synth::job::JobSpec) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (r, doc) in rooftrace::synth::job::synthetic_job(spec)
        .iter()
        .enumerate()
    {
        let p = dir.path().join(format!("rank{r}.pt.trace.json"));
        std::fs::write(p, serde_json::to_vec(doc).unwrap()).unwrap();
    }
    dir
}

#[test]
fn a_synthetic_job_gives_back_its_late_rank_waits_offsets_and_transfers() {
    // Six ranks, eight all-reduces of 16 Mi float32 (64 MiB); each rank's
    // clock is off the reference by a different amount (up to seconds);
    // rank 4's compute before all-reduce #5 runs 5 ms longer. On the
    // reference clock every all-reduce ends 1.2 ms after the last rank
    // arrives. So, by construction: at #5 rank 4 is last and each of the
    // other five waits exactly 5 ms (25 ms in all); at the others nobody
    // waits; every transfer is 1.2 ms, algbw = 67,108,864 B / 1.2 ms,
    // busbw = algbw × 2·5/6; clock offsets (to rank 0) are the differences
    // of the offsets given.
    let offsets = vec![
        0,
        3_000_000_000,
        -250_000_000,
        17_123_456,
        999_999_999,
        -5_000,
    ];
    let spec = rooftrace::synth::job::JobSpec {
        ranks: 6,
        collectives: 8,
        nelems: 16 << 20,
        compute_ns: 9_000_000,
        transfer_ns: 1_200_000,
        period_ns: 20_000_000,
        clock_offsets_ns: offsets.clone(),
        late: (4, 5, 5_000_000),
    };
    let dir = job_dir(&spec);
    let d = dir.path().to_str().unwrap();
    let (code, out, err) = rooftrace_json(&["comm", d, "--gpus-per-node", "8"]);
    assert_eq!(code, 0, "{err}");
    let rows = out["collectives"].as_array().unwrap();
    assert_eq!(rows.len(), 8);
    let bytes = (16u64 << 20) * 4;
    let algbw = bytes as f64 / 1.2e-3;
    for (c, r) in rows.iter().enumerate() {
        assert_eq!(r["seq"].as_u64().unwrap(), c as u64);
        assert_eq!(r["ranks_given"], 6);
        assert_eq!(r["transfer_ns"].as_i64().unwrap(), 1_200_000, "{r}");
        assert_eq!(r["bytes"].as_u64().unwrap(), bytes);
        assert!(
            close(r["algbw_bytes_per_s"].as_f64().unwrap(), algbw),
            "{r}"
        );
        assert!(
            close(r["busbw_bytes_per_s"].as_f64().unwrap(), algbw * 10.0 / 6.0),
            "{r}"
        );
        // H100 SXM NVLink: 18 links × 25 GB/s per direction.
        assert!(
            close(
                r["link_fraction"].as_f64().unwrap(),
                algbw * 10.0 / 6.0 / 450e9
            ),
            "{r}"
        );
        assert_eq!(r["waits_lower_bound"], false);
        if c == 5 {
            assert_eq!(r["last_rank"], 4, "{r}");
            assert_eq!(r["wait_ns"].as_i64().unwrap(), 25_000_000);
        } else {
            assert_eq!(r["last_rank"], Value::Null, "{r}");
            assert_eq!(r["wait_ns"].as_i64().unwrap(), 0);
        }
    }
    let ranks = out["ranks"].as_array().unwrap();
    assert_eq!(ranks.len(), 6);
    for r in ranks {
        let rank = r["rank"].as_u64().unwrap() as usize;
        let wait = r["wait_ns"].as_i64().unwrap();
        if rank == 4 {
            assert_eq!(wait, 0);
            assert_eq!(r["last_in"], 1);
            assert_eq!(r["caused_wait_ns"].as_i64().unwrap(), 25_000_000);
        } else {
            assert!((wait - 5_000_000).abs() <= 50_000, "rank {rank}: {wait}");
            assert_eq!(r["caused_wait_ns"], 0);
        }
        // Its NCCL time less its wait is the 8 transfers.
        assert_eq!(
            r["transfer_ns"].as_i64().unwrap(),
            8 * 1_200_000,
            "rank {rank}"
        );
        assert_eq!(
            r["clock_offset_ns"].as_i64().unwrap(),
            offsets[rank] - offsets[0],
            "rank {rank}"
        );
        assert_eq!(r["clock_error_ns"], 0);
    }
    // The ranks are sorted by wait: the late rank (no wait) is last.
    assert_eq!(ranks[5]["rank"], 4);
    let (_, table, _) = rooftrace(&["comm", d, "--gpus-per-node", "8"]);
    assert!(
        table.contains("rank 4 arrived last at 1 collective and cost the others 25.0 ms"),
        "{table}"
    );
    // Without --gpus-per-node: each trace lists one device and records no
    // host, which says nothing of the node (one GPU per node, or eight
    // with CUDA_VISIBLE_DEVICES per rank): unknown, never one per node,
    // and the link with it, each saying the flag to pass.
    let (_, out, _) = rooftrace_json(&["comm", d, "--net-bw", "50GB/s"]);
    assert_eq!(out["gpus_per_node"], Value::Null);
    let from = out["gpus_per_node_from"].as_str().unwrap();
    assert!(from.starts_with("each process lists one device"), "{from}");
    let why = out["collectives"][0]["link_unknown"].as_str().unwrap();
    assert!(why.contains("--gpus-per-node"), "{why}");
    // Four per node: the six ranks span two nodes, over the network.
    let (_, out, _) = rooftrace_json(&["comm", d, "--gpus-per-node", "4", "--net-bw", "50GB/s"]);
    assert_eq!(out["collectives"][0]["link"], "network");
    // Only some ranks given: the waits are lower bounds.
    std::fs::remove_file(dir.path().join("rank4.pt.trace.json")).unwrap();
    let (_, out, _) = rooftrace_json(&["comm", d, "--gpus-per-node", "8"]);
    assert_eq!(out["collectives"][5]["waits_lower_bound"], true);
    assert!(out["diagnostics"].to_string().contains("lower bounds"));
}

/// The SQL statements of the `comm` block of docs/scale.md, as written.
fn scale_doc_queries() -> Vec<String> {
    let doc = std::fs::read_to_string(crate::common::root().join("docs/scale.md")).unwrap();
    let at = doc
        .find("## Collectives: the rank everyone waited for")
        .unwrap();
    let block = &doc[at..];
    let start = block.find("```sql\n").unwrap() + 7;
    let end = start + block[start..].find("```").unwrap();
    block[start..end]
        .split(';')
        .map(str::trim)
        .filter(|q| !q.is_empty())
        .map(str::to_string)
        .collect()
}

#[test]
fn the_duckdb_queries_of_the_scale_doc_align_the_clocks_and_name_the_same_last_ranks_and_waits() {
    // A synthetic job of four ranks (clocks off by up to 1.5 s; rank 2
    // late by 7 ms at collective #3, so the three others wait 21 ms there)
    // written as Parquet rank by rank, one `rooftrace comm` run per trace,
    // so the rows carry no offset computed across ranks (null): the doc's
    // three queries, as written, align the clocks in SQL from the rows
    // alone, and must agree with `rooftrace comm`'s JSON of the four traces
    // together: offsets and errors, last ranks and waits.
    let spec = rooftrace::synth::job::JobSpec {
        ranks: 4,
        collectives: 6,
        nelems: 1 << 20,
        compute_ns: 3_000_000,
        transfer_ns: 400_000,
        period_ns: 10_000_000,
        clock_offsets_ns: vec![0, 1_500_000_000, -700_000, 42_000_000],
        late: (2, 3, 7_000_000),
    };
    let dir = job_dir(&spec);
    let d = dir.path().to_str().unwrap();
    let out_dir = tempfile::tempdir().unwrap();
    let pq = out_dir.path().join("comm.parquet");
    for r in 0..4 {
        let trace = dir.path().join(format!("rank{r}.pt.trace.json"));
        let (code, _, err) = rooftrace(&[
            "comm",
            trace.to_str().unwrap(),
            "--format",
            "parquet",
            "-o",
            pq.to_str().unwrap(),
        ]);
        assert_eq!(code, 0, "{err}");
    }
    let (_, json, _) = rooftrace_json(&["comm", d]);
    let queries = scale_doc_queries();
    assert_eq!(queries.len(), 3);
    let sql = |q: &str| q.replace("comm.parquet/", &format!("{}/", pq.display()));
    let Some(offsets) = crate::multi::duckdb(&sql(&queries[0])) else {
        return;
    };
    // The rows hold no offset of rooftrace's: the alignment is the query's.
    let nulls = crate::multi::duckdb(&format!(
        "SELECT count(*) FROM read_parquet('{}/collectives/*/*.parquet') WHERE clock_offset_ns IS NULL",
        pq.display()
    ))
    .unwrap();
    assert_eq!(nulls[0][0], 24);
    let mut want: Vec<(i64, i64, i64)> = json["ranks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["rank"].as_i64().unwrap(),
                r["clock_offset_ns"].as_i64().unwrap(),
                r["clock_error_ns"].as_i64().unwrap(),
            )
        })
        .collect();
    want.sort_unstable();
    let got: Vec<(i64, i64, i64)> = offsets
        .as_array()
        .unwrap()
        .iter()
        .map(|row| {
            (
                row[0].as_i64().unwrap(),
                row[1].as_i64().unwrap(),
                row[2].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(got, want);
    // By construction: rank r's offset to rank 0 is offset[r] − offset[0].
    let by_hand: Vec<i64> = spec
        .clock_offsets_ns
        .iter()
        .map(|o| o - spec.clock_offsets_ns[0])
        .collect();
    assert_eq!(got.iter().map(|x| x.1).collect::<Vec<_>>(), by_hand);
    // rooftrace: the collectives someone waited at, with last rank and wait.
    let want: Vec<(i64, i64)> = json["collectives"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["wait_ns"].as_i64().unwrap() > 0)
        .map(|c| {
            (
                c["last_rank"].as_i64().unwrap(),
                c["wait_ns"].as_i64().unwrap(),
            )
        })
        .collect();
    let per_collective = crate::multi::duckdb(&sql(&queries[1])).unwrap();
    let got: Vec<(i64, i64)> = per_collective
        .as_array()
        .unwrap()
        .iter()
        .map(|row| (row[1].as_i64().unwrap(), row[2].as_i64().unwrap()))
        .collect();
    assert_eq!(got, want);
    assert_eq!(got, vec![(2, 3 * 7_000_000)]);
    let per_rank = crate::multi::duckdb(&sql(&queries[2])).unwrap();
    let mut got: Vec<(i64, i64)> = per_rank
        .as_array()
        .unwrap()
        .iter()
        .map(|row| (row[0].as_i64().unwrap(), row[1].as_i64().unwrap()))
        .collect();
    got.sort_unstable();
    let mut want: Vec<(i64, i64)> = json["ranks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["rank"].as_i64().unwrap(), r["wait_ns"].as_i64().unwrap()))
        .collect();
    want.sort_unstable();
    assert_eq!(got, want);
}

#[test]
fn a_128_rank_job_is_read_on_the_many_inputs_path_and_its_ranks_sorted_by_wait() {
    // 128 ranks, rank 77 late by 3 ms at all-reduce #2: every other rank
    // waits 3 ms there (127 × 3 ms in all); the rank table lists the 127
    // waiting ranks first (3 ms each, by rank) and rank 77 last.
    let spec = rooftrace::synth::job::JobSpec {
        ranks: 128,
        collectives: 4,
        nelems: 1 << 22,
        compute_ns: 2_000_000,
        transfer_ns: 500_000,
        period_ns: 5_000_000,
        clock_offsets_ns: (0..128).map(|r| r * 7_919 - 300_000).collect(),
        late: (77, 2, 3_000_000),
    };
    let dir = job_dir(&spec);
    let (code, out, err) = rooftrace_json(&[
        "comm",
        dir.path().to_str().unwrap(),
        "--jobs",
        "2",
        "--gpus-per-node",
        "8",
    ]);
    assert_eq!(code, 0, "{err}");
    let c = &out["collectives"][2];
    assert_eq!(c["last_rank"], 77);
    assert_eq!(c["wait_ns"].as_i64().unwrap(), 127 * 3_000_000);
    // A group of 128 on 8-GPU nodes spans nodes: no --net-bw, unknown link.
    assert!(c["link_unknown"].as_str().unwrap().contains("--net-bw"));
    let ranks = out["ranks"].as_array().unwrap();
    assert_eq!(ranks.len(), 128);
    let order: Vec<i64> = ranks.iter().map(|r| r["rank"].as_i64().unwrap()).collect();
    let mut want: Vec<i64> = (0..128).filter(|r| *r != 77).collect();
    want.push(77);
    assert_eq!(order, want);
    assert!(ranks[..127]
        .iter()
        .all(|r| r["wait_ns"].as_i64().unwrap() == 3_000_000));
}

#[test]
fn the_plot_draws_every_collective_under_its_link_roof() {
    // The corpus-free synthetic job: eight all-reduces matched across four
    // ranks, on H100 NVLink (450 GB/s per direction); the SVG names the roof
    // and the Markdown links the chart.
    let spec = rooftrace::synth::job::JobSpec {
        ranks: 4,
        collectives: 8,
        nelems: 1 << 20,
        compute_ns: 1_000_000,
        transfer_ns: 100_000,
        period_ns: 2_000_000,
        clock_offsets_ns: vec![0, 10, 20, 30],
        late: (1, 1, 50_000),
    };
    let dir = job_dir(&spec);
    let out = tempfile::tempdir().unwrap();
    let svg = out.path().join("busbw.svg");
    let md = out.path().join("comm.md");
    let (code, _, err) = rooftrace(&[
        "comm",
        dir.path().to_str().unwrap(),
        "--gpus-per-node",
        "8",
        "--plot",
        svg.to_str().unwrap(),
        "--format",
        "md",
        "-o",
        md.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.contains("NVLink 4, 18 links: 450 GB/s"), "roof label");
    assert!(text.contains("all-reduce"), "legend");
    let md = std::fs::read_to_string(&md).unwrap();
    assert!(
        md.contains("![bus bandwidth against message size](busbw.svg)"),
        "{md}"
    );
    assert!(md.contains("### Ranks, most wait first"), "{md}");
}
