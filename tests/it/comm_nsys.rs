//! `rooftrace comm` on nsys exports: collective sizes from NCCL's own NVTX
//! ranges and their payloads (a synthetic export in the layout of nsys
//! 2026.2.1's, `synth::nccl`), and the corpus' real export whose NCCL
//! ranges were exported without payloads (time and kind only, said so).

use crate::common::{corpus_file, rooftrace_json};
use rooftrace::synth::nccl::{blob, schema_id, NcclExport};
use serde_json::Value;

const COMM: u64 = 0xC0FFEE;
/// The corpus export whose NCCL payload schemas `synth::nccl` copies.
const MFU_BEFORE_NCCL: &str = "nsys/nsys2026.2.1_nsysai_mfu_2gpu_before_nccl.sqlite";

/// Relative difference.
fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs())
}

/// Rank 3 of 8: the communicator's creation, an all-reduce, an all-gather,
/// a group of two sends and two receives (one kernel, launched at the
/// group's end), and an all-reduce whose blob does not match its schema.
fn export(dir: &std::path::Path) -> std::path::PathBuf {
    let mut x = NcclExport::new();
    let init = blob(
        schema_id::COMM_INIT,
        &[(COMM, 8), (8, 4), (3, 4), (0, 4), (0, 4)],
    );
    x.range("ncclCommInitRankConfig", 1_000_000, 2_000_000, Some(init));
    let ar = blob(
        schema_id::ALL_REDUCE,
        &[(COMM, 8), (64 << 20, 8), (0, 4), (0, 4)],
    );
    x.range("ncclAllReduce", 10_000_000, 10_100_000, Some(ar));
    x.launch(
        "ncclDevKernel_AllReduce_Sum_f32_RING_LL",
        10_050_000,
        10_200_000,
        11_200_000,
    );
    let ag = blob(schema_id::ALL_GATHER, &[(COMM, 8), (1 << 20, 8)]);
    x.range("ncclAllGather", 20_000_000, 20_100_000, Some(ag));
    x.launch(
        "ncclDevKernel_AllGather_RING_LL",
        20_050_000,
        20_200_000,
        20_700_000,
    );
    x.range("ncclGroupStart", 30_000_000, 30_010_000, None);
    for (i, (name, sid, peer)) in [
        ("ncclSend", schema_id::SEND, 4),
        ("ncclRecv", schema_id::RECV, 2),
        ("ncclSend", schema_id::SEND, 5),
        ("ncclRecv", schema_id::RECV, 1),
    ]
    .into_iter()
    .enumerate()
    {
        let t = 30_020_000 + 20_000 * i as i64;
        let b = blob(sid, &[(COMM, 8), (2 << 20, 8), (peer, 4), (0, 4)]);
        x.range(name, t, t + 10_000, Some(b));
    }
    x.range("ncclGroupEnd", 30_100_000, 30_200_000, None);
    x.launch("ncclDevKernel_SendRecv", 30_150_000, 30_300_000, 30_700_000);
    // Its header names the all-gather schema (16 bytes) over 24: unread.
    let bad = blob(schema_id::ALL_GATHER, &[(COMM, 8), (64 << 20, 8), (0, 8)]);
    x.range("ncclAllReduce", 40_000_000, 40_100_000, Some(bad));
    x.launch(
        "ncclDevKernel_AllReduce_Sum_f32_RING_LL",
        40_050_000,
        40_200_000,
        41_200_000,
    );
    let p = dir.join("rank3.sqlite");
    x.write(&p).unwrap();
    p
}

#[test]
fn nccl_payloads_give_an_nsys_export_its_collective_sizes() {
    // By hand, nccl-tests' sizes from NCCL's messages (8 ranks, from the
    // communicator's creation payload): the all-reduce's 64 MiB message
    // over 1 ms: algbw 67.108864 GB/s, busbw × 2·7/8; the all-gather's
    // 1 MiB send buffer × 8 ranks = 8 MiB over 0.5 ms: busbw × 7/8; the
    // point-to-point group sends 2 × 2 MiB over 0.4 ms, factor 1.
    let dir = tempfile::tempdir().unwrap();
    let p = export(dir.path());
    let (code, out, err) = rooftrace_json(&["comm", p.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let rows = out["collectives"].as_array().unwrap();
    assert_eq!(rows.len(), 4, "{out}");
    let want: [(&str, Option<u64>, i64, f64); 4] = [
        ("all_reduce", Some(64 << 20), 1_000_000, 2.0 * 7.0 / 8.0),
        ("all_gather", Some(8 << 20), 500_000, 7.0 / 8.0),
        ("send_recv", Some(4 << 20), 400_000, 1.0),
        ("all_reduce", None, 1_000_000, 2.0 * 7.0 / 8.0),
    ];
    for (r, (kind, bytes, dur, factor)) in rows.iter().zip(want) {
        assert_eq!(r["kind"], kind, "{r}");
        assert_eq!(r["args_from"], "host_op", "{r}");
        assert_eq!(r["duration_ns"].as_i64().unwrap(), dur);
        assert_eq!(r["bytes"].as_u64(), bytes, "{r}");
        match bytes {
            Some(b) => {
                assert_eq!(r["group_size"], 8, "{r}");
                assert_eq!(r["process_group"], "nccl:0000000000c0ffee");
                let algbw = b as f64 / (dur as f64 * 1e-9);
                assert!(
                    close(r["algbw_bytes_per_s"].as_f64().unwrap(), algbw),
                    "{r}"
                );
                assert!(
                    close(r["busbw_bytes_per_s"].as_f64().unwrap(), algbw * factor),
                    "{r}"
                );
            }
            None => {
                assert_eq!(r["bytes_from"], Value::Null);
                assert_eq!(r["algbw_bytes_per_s"], Value::Null);
            }
        }
    }
    assert_eq!(
        rows[1]["bytes_from"],
        "nccl message 1048576 B × 8 ranks = 8.39 MB"
    );
    let diags = out["diagnostics"].to_string();
    assert!(
        diags.contains("1 NCCL calls' NVTX payloads do not match the export's payload schemas"),
        "{diags}"
    );
    // Exported without blobs: kinds and times only, said so.
    let mut x = NcclExport::new();
    x.range("ncclAllReduce", 10_000_000, 10_100_000, None);
    x.launch(
        "ncclDevKernel_AllReduce_Sum_f32_RING_LL",
        10_050_000,
        10_200_000,
        11_200_000,
    );
    let p = dir.path().join("noblobs.sqlite");
    x.write(&p).unwrap();
    let (_, out, _) = rooftrace_json(&["comm", p.to_str().unwrap()]);
    assert_eq!(out["collectives"][0]["kind"], "all_reduce");
    assert_eq!(out["collectives"][0]["bytes"], Value::Null);
    assert!(out["diagnostics"]
        .to_string()
        .contains("1 NCCL calls' NVTX ranges carry no payload"));
}

#[test]
fn the_corpus_export_joins_its_sendrecv_kernels_to_ncclgroupend_without_sizes() {
    // nsys 2026.2.1, two torchrun ranks in one export, exported with
    // EXPORT_PARAM_INCLUDE_BLOBS=false: NCCL's ranges are there
    // (ncclGroupStart, 2 × ncclSend, 2 × ncclRecv, ncclGroupEnd per step),
    // their payloads not. The join counted independently in SQL: the
    // SendRecv kernels whose launch call (same process, correlation id)
    // starts inside an ncclGroupEnd range on its thread.
    let Some(p) = corpus_file(MFU_BEFORE_NCCL) else {
        return;
    };
    let conn =
        rusqlite::Connection::open_with_flags(&p, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .unwrap();
    let joined: i64 = conn
        .query_row(
            "SELECT count(DISTINCT k.rowid) FROM CUPTI_ACTIVITY_KIND_KERNEL k
             JOIN StringIds s ON s.id = k.shortName AND s.value LIKE 'ncclDevKernel%'
             JOIN CUPTI_ACTIVITY_KIND_RUNTIME r ON r.correlationId = k.correlationId
                  AND (r.globalTid >> 24) = (k.globalPid >> 24)
             JOIN NVTX_EVENTS e ON e.globalTid = r.globalTid AND e.domainId != 0
                  AND e.start <= r.start AND r.start <= e.\"end\"
             JOIN StringIds t ON t.id = e.textId AND t.value = 'ncclGroupEnd'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    let total: i64 = conn
        .query_row(
            "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s
             ON s.id = k.shortName AND s.value LIKE 'ncclDevKernel%'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    let (code, out, err) = rooftrace_json(&["comm", p.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    // Its two processes are two ranks (tests/it/comm_links.rs), whose
    // kernels match pairwise: each row is one SendRecv of both, carrying
    // the last rank's join, so at most the unjoined kernels' rows are
    // time only.
    assert_eq!(out["ranks"].as_array().unwrap().len(), 2);
    let rows = out["collectives"].as_array().unwrap();
    assert_eq!(rows.len() as i64, total / 2);
    let from_range = rows.iter().filter(|r| r["args_from"] == "host_op").count() as i64;
    assert!(
        rows.len() as i64 - from_range <= total - joined,
        "{from_range}"
    );
    assert!(joined > 0 && joined < total, "{joined} of {total}");
    assert!(rows
        .iter()
        .all(|r| r["kind"] == "send_recv" && r["bytes"].is_null()));
    let diags = out["diagnostics"].to_string();
    assert!(
        diags.contains("EXPORT_PARAM_INCLUDE_BLOBS=false"),
        "{diags}"
    );
}

#[test]
fn the_synthetic_exports_payload_schemas_are_the_corpus_exports() {
    // synth::nccl claims NCCL's schemas as nsys 2026.2.1 exports them: its
    // NVTX_PAYLOAD_SCHEMAS and _ENTRIES rows must be rows of the corpus'
    // real export (same domain, schema id, entry index, type, name,
    // offset, payload size), compared in SQL.
    let Some(real) = corpus_file(MFU_BEFORE_NCCL) else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let synth = tmp.path().join("synth.sqlite");
    NcclExport::new().write(&synth).unwrap();
    let conn =
        rusqlite::Connection::open_with_flags(&synth, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .unwrap();
    conn.execute(
        &format!("ATTACH DATABASE 'file:{}?mode=ro' AS real", real.display()),
        [],
    )
    .unwrap();
    let count = |sql: &str| -> i64 { conn.query_row(sql, [], |r| r.get(0)).unwrap() };
    let entries = count("SELECT count(*) FROM NVTX_PAYLOAD_SCHEMA_ENTRIES");
    assert!(entries >= 10);
    let missing = count(
        "SELECT count(*) FROM (SELECT domainId, schemaId, idx, type, name, offset
         FROM NVTX_PAYLOAD_SCHEMA_ENTRIES EXCEPT SELECT domainId, schemaId, idx, type, name, offset
         FROM real.NVTX_PAYLOAD_SCHEMA_ENTRIES)",
    );
    assert_eq!(missing, 0);
    let missing = count(
        "SELECT count(*) FROM (SELECT domainId, schemaId, numEntries, payloadSize FROM NVTX_PAYLOAD_SCHEMAS
         EXCEPT SELECT domainId, schemaId, numEntries, payloadSize FROM real.NVTX_PAYLOAD_SCHEMAS)",
    );
    assert_eq!(missing, 0);
}

#[test]
fn two_nsys_ranks_match_by_communicator_and_name_the_late_one() {
    // Two per-rank exports (rank from the file name), three all-reduces of
    // 8 MiB on one communicator of 2 ranks; rank 1's clock is 250 ms
    // behind, and rank 1 arrives 2 ms late at all-reduce #1. On the
    // reference clock every all-reduce ends 300 µs after the last arrival.
    // So: rank 1 is last at #1 and rank 0 waits 2 ms there; every transfer
    // is 300 µs; busbw = 8 MiB / 300 µs × 2·1/2.
    let dir = tempfile::tempdir().unwrap();
    for rank in 0..2i64 {
        let off = if rank == 1 { 250_000_000 } else { 0 };
        let mut x = NcclExport::new();
        let init = blob(
            schema_id::COMM_INIT,
            &[(COMM, 8), (2, 4), (rank as u64, 4), (0, 4), (0, 4)],
        );
        x.range(
            "ncclCommInitRank",
            1_000_000 - off,
            2_000_000 - off,
            Some(init),
        );
        for c in 0..3i64 {
            let base = 1_000_000_000 + c * 10_000_000;
            let late = |r: i64| if (r, c) == (1, 1) { 2_000_000 } else { 0 };
            let arrive = base + late(rank);
            let end = base + late(0).max(late(1)) + 300_000;
            let ar = blob(
                schema_id::ALL_REDUCE,
                &[(COMM, 8), (8 << 20, 8), (0, 4), (0, 4)],
            );
            x.range(
                "ncclAllReduce",
                arrive - 100_000 - off,
                arrive - 50_000 - off,
                Some(ar),
            );
            x.launch(
                "ncclDevKernel_AllReduce_Sum_f32_RING_LL",
                arrive - 90_000 - off,
                arrive - off,
                end - off,
            );
        }
        x.write(&dir.path().join(format!("rank{rank}.sqlite")))
            .unwrap();
    }
    let (code, out, err) = rooftrace_json(&[
        "comm",
        dir.path().to_str().unwrap(),
        "--gpus-per-node",
        "8",
        "--gpu",
        "h100-sxm",
    ]);
    assert_eq!(code, 0, "{err}");
    let rows = out["collectives"].as_array().unwrap();
    assert_eq!(rows.len(), 3, "{out}");
    let algbw = (8u64 << 20) as f64 / 300e-6;
    for (c, r) in rows.iter().enumerate() {
        assert_eq!(r["ranks_given"], 2);
        assert_eq!(r["process_group"], "nccl:0000000000c0ffee");
        assert_eq!(r["transfer_ns"].as_i64().unwrap(), 300_000, "{r}");
        assert!(
            close(r["busbw_bytes_per_s"].as_f64().unwrap(), algbw),
            "{r}"
        );
        // NCCL's payloads give the group's size, not its global ranks: a
        // group that fits a node may still span two, so the link is unknown.
        assert!(
            r["link_unknown"]
                .as_str()
                .unwrap()
                .contains("may span nodes"),
            "{r}"
        );
        let (last, wait) = if c == 1 {
            (Value::from(1), 2_000_000)
        } else {
            (Value::Null, 0)
        };
        assert_eq!(r["last_rank"], last, "{r}");
        assert_eq!(r["wait_ns"].as_i64().unwrap(), wait);
    }
    let ranks = out["ranks"].as_array().unwrap();
    assert_eq!(ranks[0]["rank"], 0);
    assert_eq!(ranks[0]["wait_ns"].as_i64().unwrap(), 2_000_000);
    assert_eq!(ranks[1]["clock_offset_ns"].as_i64().unwrap(), 250_000_000);
}
