//! `rooftrace comm` on the layouts real jobs have (issue 44): synthetic
//! ranks from `synth::layouts`, each with a fault planted, and the named
//! last rank(s), the waits per rank and the rows kept asserted against
//! what the construction gives, worked out by hand in each test.

use crate::common::{rooftrace, rooftrace_json};
use rooftrace::synth::layouts::{self, Family, Layout, SeqSite, Step, StepKind};
use serde_json::Value;

/// Elements of every synthetic collective: 1 Mi float32, 4 MiB.
const NELEMS: u64 = 1 << 20;

/// Writes one trace per rank into a new directory, named by letter
/// (`worker-a.json`) so no rank is read from a file name.
fn write(layout: &Layout) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (r, doc) in layouts::traces(layout).iter().enumerate() {
        let letter = char::from(b'a' + r as u8);
        let p = dir.path().join(format!("worker-{letter}.json"));
        std::fs::write(p, serde_json::to_vec(doc).unwrap()).unwrap();
    }
    dir
}

/// `rooftrace comm DIR --gpus-per-node 8` as JSON.
fn comm(dir: &tempfile::TempDir) -> Value {
    let (code, out, err) =
        rooftrace_json(&["comm", dir.path().to_str().unwrap(), "--gpus-per-node", "8"]);
    assert_eq!(code, 0, "{err}");
    out
}

/// The rank row of `rank`.
fn rank_row(out: &Value, rank: u64) -> &Value {
    out["ranks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["rank"] == rank)
        .unwrap_or_else(|| panic!("no rank {rank}: {}", out["ranks"]))
}

/// Asserts `got` is within 2 % of `want` (ns).
fn within_2pct(got: &Value, want: i64, what: &str) {
    let got = got
        .as_i64()
        .unwrap_or_else(|| panic!("{what}: {got} is no number"));
    assert!(
        (got - want).abs() as f64 <= 0.02 * want.abs() as f64,
        "{what}: {got} ns, {want} ns by construction"
    );
}

/// The matched rows someone was named last at: (last rank, wait).
fn named(out: &Value) -> Vec<(u64, i64)> {
    out["collectives"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| !c["last_rank"].is_null())
        .map(|c| {
            (
                c["last_rank"].as_u64().unwrap(),
                c["wait_ns"].as_i64().unwrap(),
            )
        })
        .collect()
}

fn diagnostics(out: &Value) -> String {
    out["diagnostics"].to_string()
}

#[test]
fn a_window_opening_one_collective_later_on_one_rank_does_not_slide_the_matching() {
    // Four ranks, eight all-reduces; rank 2's profiler opens at step 1, so
    // its trace starts at Seq 2 while the others start at Seq 1. Seq is on
    // record_param_comms only and the kernels carry the other arguments,
    // as PyTorch writes them. Rank 3 is late by 4 ms at step 5: ranks 0,
    // 1 and 2 each wait 4 ms there (12 ms in all), nobody else waits. Step
    // 0 is matched on ranks 0, 1, 3 only (rank 2's window had not opened),
    // so its row is kept with three ranks given. Clock offsets to rank 0
    // are the differences of the offsets planted.
    let mut l = Layout::world(4, 8, NELEMS);
    l.clock_offsets_ns = vec![0, 2_500_000_000, -30_000_000, 9_000_000];
    l.window_from = vec![(2, 1)];
    l.late = vec![(3, 5, 4_000_000)];
    let dir = write(&l);
    let out = comm(&dir);
    let rows = out["collectives"].as_array().unwrap();
    assert_eq!(rows.len(), 8);
    assert_eq!(rows[0]["ranks_given"], 3);
    assert!(rows[1..].iter().all(|r| r["ranks_given"] == 4));
    assert_eq!(named(&out), vec![(3, 12_000_000)]);
    for (rank, wait) in [(0, 4_000_000), (1, 4_000_000), (2, 4_000_000)] {
        within_2pct(&rank_row(&out, rank)["wait_ns"], wait, "wait");
    }
    assert_eq!(rank_row(&out, 3)["wait_ns"], 0);
    assert_eq!(rank_row(&out, 3)["last_in"], 1);
    for rank in 0..4 {
        let r = rank_row(&out, rank);
        assert_eq!(
            r["clock_offset_ns"].as_i64().unwrap(),
            l.clock_offsets_ns[rank as usize],
            "{r}"
        );
        assert_eq!(r["clock_error_ns"], 0);
    }
    assert!(!diagnostics(&out).contains("by order"), "{out}");

    // Without Seq anywhere the same traces can only be matched by order:
    // said, with the kernels matched per rank (rank 2 holds 7 of the 8).
    l.seq = SeqSite::Nowhere;
    let out = comm(&write(&l));
    let d = diagnostics(&out);
    assert!(d.contains("8 collectives matched by order"), "{d}");
    assert!(
        d.contains("rank 0: 8, rank 1: 8, rank 2: 7, rank 3: 8"),
        "{d}"
    );
}

#[test]
fn a_kernel_dropped_or_without_sizes_on_one_rank_does_not_slide_the_matching() {
    // Four ranks, eight all-reduces. Rank 1's kernel of step 3 is absent
    // (the profiler dropped it); rank 2's size arguments at step 6 are
    // absent, and rank 2 is the rank late there, by 3 ms. So: step 3 is
    // matched on three ranks (rank 1's absent kernel is no member), step 6
    // names rank 2, the others wait 3 ms each (9 ms), and its size is
    // taken from a rank that has it: 1 Mi × 4 B. Every other step: nobody
    // waits. The kernels carry NCCL < 2.19's names (`ncclKernel_*`).
    let mut l = Layout::world(4, 8, NELEMS);
    l.old_kernel_names = true;
    l.clock_offsets_ns = vec![0, -1_000_000_000, 77_000_000, 5_000];
    l.dropped_kernel = vec![(1, 3)];
    l.no_sizes = vec![(2, 6)];
    l.late = vec![(2, 6, 3_000_000)];
    let out = comm(&write(&l));
    let rows = out["collectives"].as_array().unwrap();
    assert_eq!(rows.len(), 8);
    let given: Vec<u64> = rows
        .iter()
        .map(|r| r["ranks_given"].as_u64().unwrap())
        .collect();
    assert_eq!(given, [4, 4, 4, 3, 4, 4, 4, 4]);
    assert_eq!(named(&out), vec![(2, 9_000_000)]);
    assert_eq!(rows[6]["bytes"], NELEMS * 4);
    assert_eq!(
        out["names"],
        serde_json::json!([
            "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)"
        ])
    );
    assert!(rows.iter().all(|r| r["kind"] == "all_reduce"));
    for rank in [0, 1, 3] {
        within_2pct(&rank_row(&out, rank)["wait_ns"], 3_000_000, "wait");
    }
    assert_eq!(rank_row(&out, 2)["wait_ns"], 0);
    assert_eq!(rank_row(&out, 1)["clock_offset_ns"], -1_000_000_000);
}

#[test]
fn an_all_reduce_and_a_send_sharing_a_seq_stay_two_rows() {
    // Two ranks in group 0, alternating all-reduce and send (rank 0) /
    // recv (rank 1): PyTorch numbers the all-reduces 1, 2, 3 and the
    // point-to-point ops 1, 2, 3 on separate counters, so each Seq is
    // shared by an all-reduce and a send. Rank 1 is late by 2 ms at step 3
    // (the second send/recv): rank 0 waits 2 ms there, nobody else waits.
    // Six rows: three all-reduces and three send/recvs, each on 2 ranks.
    let mut l = Layout::world(2, 0, NELEMS);
    l.steps = [StepKind::AllReduce, StepKind::SendRecv]
        .iter()
        .cycle()
        .take(6)
        .map(|&kind| Step {
            family: 0,
            kind,
            nelems: NELEMS,
        })
        .collect();
    l.clock_offsets_ns = vec![0, 123_456_789];
    l.late = vec![(1, 3, 2_000_000)];
    let out = comm(&write(&l));
    let rows = out["collectives"].as_array().unwrap();
    let kinds: Vec<(&str, u64)> = rows
        .iter()
        .map(|r| (r["kind"].as_str().unwrap(), r["seq"].as_u64().unwrap()))
        .collect();
    assert_eq!(
        kinds,
        [
            ("all_reduce", 1),
            ("send_recv", 1),
            ("all_reduce", 2),
            ("send_recv", 2),
            ("all_reduce", 3),
            ("send_recv", 3)
        ]
    );
    assert!(rows.iter().all(|r| r["ranks_given"] == 2));
    assert_eq!(named(&out), vec![(1, 2_000_000)]);
    assert_eq!(rows[3]["last_rank"], 1);
    within_2pct(&rank_row(&out, 0)["wait_ns"], 2_000_000, "rank 0's wait");
    assert_eq!(rank_row(&out, 1)["wait_ns"], 0);
}

/// TP {0,1} (group 1), {2,3} (group 2); DP {0,2} (group 3), {1,3}
/// (group 4); no world collective.
fn tp_dp() -> Vec<Family> {
    vec![
        Family {
            instances: vec![vec![0, 1], vec![2, 3]],
            first_name: 1,
            description: "tp",
        },
        Family {
            instances: vec![vec![0, 2], vec![1, 3]],
            first_name: 3,
            description: "dp",
        },
    ]
}

#[test]
fn tp_by_dp_groups_align_every_rank_through_the_group_graph_and_name_the_late_rank() {
    // Four ranks, TP × DP, steps alternating a TP all-reduce and a DP
    // all-reduce (eight steps, each on both instances: 16 collectives).
    // Rank 3 shares no group with rank 0: its clock is aligned through
    // rank 1 (TP {0,1}, then DP {1,3}; rank 1 before rank 2 on the tie).
    // Rank 3 is late by 5 ms at step 4 (TP: rank 2 waits) and step 5 (DP:
    // rank 1 waits): named last twice, 5 ms each; ranks 1 and 2 wait 5 ms
    // each, ranks 0 and 3 none.
    let mut l = Layout::world(4, 0, NELEMS);
    l.families = tp_dp();
    l.steps = (0..8)
        .map(|s| Step {
            family: s % 2,
            kind: StepKind::AllReduce,
            nelems: NELEMS,
        })
        .collect();
    l.clock_offsets_ns = vec![0, 1_000_000_000, -2_000_000_000, 3_500_000_000];
    l.late = vec![(3, 4, 5_000_000), (3, 5, 5_000_000)];
    let out = comm(&write(&l));
    let rows = out["collectives"].as_array().unwrap();
    assert_eq!(rows.len(), 16);
    assert!(rows.iter().all(|r| r["ranks_given"] == 2));
    assert!(rows.iter().all(|r| r["waits_lower_bound"] == false));
    assert_eq!(named(&out), vec![(3, 5_000_000), (3, 5_000_000)]);
    for (rank, wait) in [(1, 5_000_000), (2, 5_000_000)] {
        within_2pct(&rank_row(&out, rank)["wait_ns"], wait, "wait");
    }
    for rank in [0, 3] {
        assert_eq!(rank_row(&out, rank)["wait_ns"], 0);
    }
    let r3 = rank_row(&out, 3);
    assert_eq!(r3["clock_offset_ns"], 3_500_000_000i64);
    assert_eq!(r3["clock_path"], serde_json::json!([0, 1]));
    assert_eq!(r3["caused_wait_ns"], 10_000_000);
    assert_eq!(rank_row(&out, 2)["clock_path"], serde_json::json!([0]));
    let d = diagnostics(&out);
    assert!(
        !d.contains("cannot be aligned") && !d.contains("sets"),
        "{d}"
    );
}

#[test]
fn a_trace_without_its_rank_takes_the_one_rank_of_its_groups_no_other_trace_claims() {
    // Four ranks; rank 2's trace records no rank (no distributedInfo, no
    // Rank argument). Its groups' ranks are [0, 1, 2, 3] and the other
    // traces record 0, 1, 3: it is rank 2, said. Rank 2 is late by 6 ms at
    // step 3: named, the others wait 6 ms each (18 ms), and no wait is a
    // lower bound (every rank of the group is given).
    let mut l = Layout::world(4, 6, NELEMS);
    l.unrecorded_rank = Some(2);
    l.late = vec![(2, 3, 6_000_000)];
    let out = comm(&write(&l));
    assert_eq!(named(&out), vec![(2, 18_000_000)]);
    let r2 = rank_row(&out, 2);
    assert_eq!(r2["rank_inferred"], true);
    assert_eq!(r2["last_in"], 1);
    assert_eq!(rank_row(&out, 0)["rank_inferred"], false);
    for rank in [0, 1, 3] {
        within_2pct(&rank_row(&out, rank)["wait_ns"], 6_000_000, "wait");
    }
    let rows = out["collectives"].as_array().unwrap();
    assert_eq!(rows.len(), 6);
    assert!(rows.iter().all(|r| r["waits_lower_bound"] == false));
    let d = diagnostics(&out);
    assert!(!d.contains("lower bounds"), "{d}");
    assert!(d.contains("record no rank"), "{d}");
}

/// Two ranks, eight all-reduces, clock jitter `jitter_ns` (rank r's clock
/// off by +j when r + step is even, −j otherwise) and rank 1 late by
/// `late_ns` at step 3.
fn jittery(jitter_ns: i64, late_ns: i64) -> Layout {
    let mut l = Layout::world(2, 8, NELEMS);
    l.clock_offsets_ns = vec![0, 40_000_000];
    l.jitter_ns = jitter_ns;
    l.late = vec![(1, 3, late_ns)];
    l
}

#[test]
fn a_clock_error_larger_than_the_waits_names_no_rank_and_says_why() {
    // Jitter J = 20 ms. The end differences (rank 0 − rank 1) are the
    // offset + 2J at even steps and − 2J at odd ones; their lower median
    // (4 of each) is offset − 2J, so odd steps align exactly and even
    // steps leave rank 1 4J = 80 ms early: each rank's clock error is
    // 80 ms, every collective's noise floor 80 ms. At even steps rank 0
    // seems last by exactly 80 ms (not above the floor); at step 3 rank 1
    // is truly last by 1 ms (far below it): no rank is called last.
    let l = jittery(20_000_000, 1_000_000);
    let dir = write(&l);
    let out = comm(&dir);
    assert_eq!(named(&out), vec![]);
    for rank in [0, 1] {
        assert_eq!(rank_row(&out, rank)["clock_error_ns"], 80_000_000);
    }
    let rows = out["collectives"].as_array().unwrap();
    assert_eq!(rows.len(), 8);
    for r in rows {
        // Seq counts from 1: step = seq − 1.
        let step = r["seq"].as_u64().unwrap() - 1;
        let seeming = step % 2 == 0 || step == 3;
        assert_eq!(r["noise_floor_ns"], 80_000_000, "{r}");
        let want = if seeming { "within_noise" } else { "together" };
        assert_eq!(r["arrival"], want, "{r}");
    }
    // Rows are by start on aligned clocks: step 3 is the row of Seq 4.
    let step3 = rows.iter().find(|r| r["seq"] == 4).unwrap();
    assert_eq!(step3["wait_ns"], 1_000_000);
    assert!(diagnostics(&out).contains("no rank is called last"));
    let (_, table, _) = rooftrace(&["comm", dir.path().to_str().unwrap()]);
    assert!(table.contains("none (±80.0 ms)"), "{table}");
}

#[test]
fn a_clock_error_near_the_lead_names_the_rank_and_says_so_beside_it() {
    // Jitter J = 100 µs: clock error 4J = 400 µs (as above). Rank 1 is
    // late by 2 ms at step 3, an odd step aligned exactly: its lead, 2 ms,
    // is above the 400 µs floor but within ten times it: named, said near
    // the noise in the JSON, the table and the Markdown. At even steps the
    // 400 µs seeming lead of rank 0 is not above the floor: nobody named
    // (rank 1's seeming waits there, 4 × 400 µs, are its own).
    let l = jittery(100_000, 2_000_000);
    let dir = write(&l);
    let out = comm(&dir);
    assert_eq!(named(&out), vec![(1, 2_000_000)]);
    let rows = out["collectives"].as_array().unwrap();
    let step3 = rows.iter().find(|r| r["seq"] == 4).unwrap();
    assert_eq!(step3["arrival"], "last_near_noise");
    assert_eq!(step3["noise_floor_ns"], 400_000);
    within_2pct(&rank_row(&out, 0)["wait_ns"], 2_000_000, "rank 0's wait");
    within_2pct(&rank_row(&out, 1)["wait_ns"], 4 * 400_000, "rank 1's wait");
    let d = dir.path().to_str().unwrap();
    let (_, table, _) = rooftrace(&["comm", d]);
    assert!(table.contains("1 (±400 µs clock)"), "{table}");
    let (_, md, _) = rooftrace(&["comm", d, "--format", "md"]);
    assert!(md.contains("1 (±400 µs clock)"), "{md}");
}

#[test]
fn two_sampled_ranks_of_a_128_rank_job_are_aligned_too_loosely_to_name_a_last_rank() {
    // HTA's sampled_rank-0 and -1 (two of 128 ranks, no Seq): the clocks
    // align only to within about 616 ms (the figure an independent
    // alignment of the two traces gave, issue 44), far above every wait
    // (each capped at its kernel time, at most tens of ms): no collective
    // names a last rank, each says its noise floor, and the report says
    // why.
    let (Some(r0), Some(r1)) = (
        crate::common::corpus_file("kineto/kineto_hta_sampled_rank-0.json.gz"),
        crate::common::corpus_file("kineto/kineto_hta_sampled_rank-1.json.gz"),
    ) else {
        return;
    };
    let (code, out, err) = rooftrace_json(&["comm", r0.to_str().unwrap(), r1.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(named(&out), vec![]);
    let error = rank_row(&out, 1)["clock_error_ns"].as_i64().unwrap();
    assert!((error - 616_000_000).abs() < 6_160_000, "{error}");
    let rows = out["collectives"].as_array().unwrap();
    assert!(!rows.is_empty());
    for r in rows {
        assert!(r["noise_floor_ns"].as_i64().unwrap() >= error, "{r}");
        assert!(r["wait_ns"].as_i64().unwrap() < error, "{r}");
        assert_ne!(r["arrival"], "last", "{r}");
    }
    assert!(diagnostics(&out).contains("no rank is called last"));
}
