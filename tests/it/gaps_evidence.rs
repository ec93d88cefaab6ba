//! `rooftrace gaps` and `budget`: advice drawn from the evidence inside each
//! gap (docs/gaps.md, "From evidence to a fix"), checked on real exports —
//! edited copies where the corpus lacks a case, with the edit in
//! `fixtures/nsys/sql/` — with the expected numbers recomputed from the
//! raw rows.

use crate::common::{corpus_file, fixture, rooftrace};
use rooftrace::gaps::{analyze, CallFamily, GapClass, GapConfig, HostDetail, RangeFamily};
use rooftrace::nsys::read_timeline;
use rusqlite::Connection;
use std::path::{Path, PathBuf};

const CLOVERLEAF: &str = "nsys/nsys2024.5.1_pipit_cloverleaf.sqlite";
const SAXPY: &str = "nsys/nsys2022.2.1_pipit_saxpy-mpi-cuda.sqlite";

fn no_progress(_: u64, _: u64) {}

fn report(path: &Path) -> rooftrace::gaps::GapReport {
    let cfg = GapConfig {
        top: 0,
        ..GapConfig::default()
    };
    analyze(&read_timeline(path, false, &no_progress).unwrap(), &cfg)
}

/// A temporary copy of a fixture with `sql` (a file under
/// `fixtures/nsys/sql/`) applied.
fn edited(dir: &Path, base: &str, sql: &str) -> PathBuf {
    let p = dir.join("edited.sqlite");
    std::fs::copy(fixture(base), &p).unwrap();
    let edit = std::fs::read_to_string(fixture(&format!("nsys/sql/{sql}"))).unwrap();
    Connection::open(&p).unwrap().execute_batch(&edit).unwrap();
    p
}

#[test]
fn an_os_call_inside_cuda_malloc_async_gets_the_allocation_fix() {
    let dir = tempfile::tempdir().unwrap();
    let db = edited(dir.path(), CLOVERLEAF, "nested_osrt_cloverleaf.sql");
    // The edited gap and its host window [g0, launch call end), from the
    // SQL file's header.
    let (g0, w1) = (544_365_378i64, 544_396_614i64);
    let c = Connection::open_with_flags(&db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    // Independently: the allocation calls' time in the window, and the OS
    // time in it with and without the parts inside CUDA calls.
    let q = |sql: &str| -> i64 { c.query_row(sql, [g0, w1], |r| r.get(0)).unwrap() };
    let alloc = q(
        "SELECT SUM(MIN(r.end, ?2) - MAX(r.start, ?1)) FROM CUPTI_ACTIVITY_KIND_RUNTIME r
         JOIN StringIds s ON s.id = r.nameId
         WHERE s.value LIKE 'cudaMalloc%' AND r.end > ?1 AND r.start < ?2
           AND r.globalTid = 310028055214088",
    );
    let os_all = q(
        "SELECT SUM(MIN(o.end, ?2) - MAX(o.start, ?1)) FROM OSRT_API o
         WHERE o.end > ?1 AND o.start < ?2 AND o.globalTid = 310028055214088",
    );
    let os_outside = q(
        "SELECT SUM(MIN(o.end, ?2) - MAX(o.start, ?1)) FROM OSRT_API o
         WHERE o.end > ?1 AND o.start < ?2 AND o.globalTid = 310028055214088
           AND NOT EXISTS (SELECT 1 FROM CUPTI_ACTIVITY_KIND_RUNTIME r
             WHERE r.globalTid = o.globalTid AND r.start <= o.start AND r.end >= o.end)",
    );
    assert_eq!(alloc, 19_789);
    // Counting nested OS time too, OS calls would outweigh the allocation
    // (the old rule's "OS runtime calls"); outside CUDA calls they do not.
    assert!(os_all > alloc, "{os_all} <= {alloc}");
    assert_eq!(os_outside, 391);
    let r = report(&db);
    let g = r.top_gaps.iter().find(|g| g.start_ns == g0).unwrap();
    assert_eq!(g.class, GapClass::HostBound);
    let e = g.host_evidence.unwrap();
    assert_eq!(e.detail, HostDetail::Alloc);
    assert_eq!(e.call_family, Some(CallFamily::PoolAlloc));
    assert_eq!(
        g.host.as_deref(),
        Some("cudaMallocAsync_v11020 (cudaMalloc/cudaFree, 19.8 µs)")
    );
    assert!(r.gap_fix(g).contains("cudaMemPoolAttrReleaseThreshold"));
    assert!(!r.gap_fix(g).contains("I/O"));
}

#[test]
fn mpi_ranges_beside_a_gap_are_listed_with_their_share_but_name_it_only_when_they_cover_it() {
    let path = fixture(SAXPY);
    let r = report(&path);
    let g = &r.top_gaps[0];
    // The 196 ms gap before the third HtoD copy: the rank's main thread
    // sat in MPI_Recv, then two MPI_Send, inside it (recomputed below).
    assert_eq!(g.class, GapClass::HostBound);
    let c = Connection::open_with_flags(&path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    let in_window = |text: &str, w1: i64| -> i64 {
        c.query_row(
            "SELECT COALESCE(SUM(MIN(n.end, ?2) - MAX(n.start, ?1)), 0) FROM NVTX_EVENTS n
             LEFT JOIN StringIds s ON s.id = n.textId
             WHERE COALESCE(n.text, s.value) = ?3 AND n.end > ?1 AND n.start < ?2",
            rusqlite::params![g.start_ns, w1, text],
            |x| x.get(0),
        )
        .unwrap()
    };
    let (recv, send) = (
        in_window("MPI_Recv", g.end_ns),
        in_window("MPI_Send", g.end_ns),
    );
    assert!(recv > 30_000_000 && send > 20_000_000, "{recv} {send}");
    let shares: Vec<(&str, i64)> = g.ranges.iter().map(|x| (r.name(x.text_id), x.ns)).collect();
    assert_eq!(shares, vec![("MPI_Recv", recv), ("MPI_Send", send)]);
    assert!(g.ranges.iter().all(|x| x.family == Some(RangeFamily::Mpi)));
    // The host window runs from the gap start to the launch call's end:
    // there each text covers less than half (the ranges of one text do not
    // nest here, so their sum is their union), so the ranges do not name
    // the host's time: CPU work, with the CPU stretch's fix, not MPI's.
    let api = g.api.as_ref().unwrap();
    let w1 = api.end_ns.min(g.end_ns);
    let half = (w1 - g.start_ns) / 2;
    assert!(in_window("MPI_Recv", w1) < half && in_window("MPI_Send", w1) < half);
    assert_eq!(g.host_evidence.unwrap().detail, HostDetail::CpuWork);
    assert!(!r.gap_fix(g).contains("MPI_Isend"));
    // The Markdown still lists them with their share of the gap.
    let (code, md, _) = rooftrace(&["gaps", path.to_str().unwrap(), "--format", "md"]);
    assert_eq!(code, 0);
    assert!(!md.lines().next().unwrap().contains("MPI_Isend"), "{md}");
    let share = format!(
        "MPI_Recv 36.0 ms ({:.1} %)",
        100.0 * recv as f64 / g.duration_ns as f64
    );
    assert!(md.contains(&share), "{share} not in {md}");
}

#[test]
fn nvfuser_verdict_names_neither_cuda_graphs_nor_mpi() {
    let Some(path) = corpus_file("nsys/nsys2025.1.1_nvfuser_cross-entropy-pytest.sqlite") else {
        return;
    };
    let r = report(&path);
    // 1.63 s, 652 ms, 566 ms … of CPU work: stretches, not launch overhead.
    let hb_stretch: i64 = r
        .devices
        .iter()
        .map(|d| d.host_scale.get(rooftrace::gaps::Scale::Stretch).total_ns)
        .sum();
    let hb: i64 = r
        .devices
        .iter()
        .map(|d| d.classes.get(GapClass::HostBound).total_ns)
        .sum();
    assert!(2 * hb_stretch > hb, "{hb_stretch} of {hb}");
    let v = rooftrace::report::gaps::verdict(&r);
    assert!(!v.contains("CUDA graph"), "{v}");
    assert!(!v.contains("MPI"), "{v}");
    assert!(v.contains("profile the host"), "{v}");
    // No PyTorch NVTX ranges in this export: no PyTorch knobs either.
    assert!(!r.has_pytorch());
    assert!(!v.contains("DataLoader"), "{v}");
}

#[test]
fn h100_verdict_names_the_copy_fix_with_bytes_and_bandwidth() {
    let path = fixture("nsys/nsys2026.2.1_nsysai_h100_2gpu_1s.sqlite");
    // Independently: the largest copy stream by time, its bytes and time.
    let c = Connection::open_with_flags(&path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    let (kind, count, bytes, ns): (i64, i64, i64, i64) = c
        .query_row(
            "SELECT copyKind, COUNT(*), SUM(bytes), SUM(end - start) FROM CUPTI_ACTIVITY_KIND_MEMCPY
             GROUP BY copyKind, srcKind = 0 OR dstKind = 0 ORDER BY 4 DESC LIMIT 1",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        )
        .unwrap();
    // Host to device (ENUM_CUDA_MEMCPY_OPER 1), pinned (srcKind 1):
    // 446 copies, 50,950,504,448 bytes in 1,841,627,438 ns = 27.7 GB/s.
    assert_eq!((kind, count), (1, 446));
    let gb_s = bytes as f64 / ns as f64;
    assert!((gb_s - 27.67).abs() < 0.01, "{gb_s}");
    let (code, md, err) = rooftrace(&["gaps", path.to_str().unwrap(), "--format", "md"]);
    assert_eq!(code, 0, "{err}");
    let v = md.lines().next().unwrap();
    assert!(
        v.contains("fix first: copies dominate busy time: 446 HtoD copies from pinned memory"),
        "{v}"
    );
    assert!(v.contains("51.0 GB in 1.84 s at 27.7 GB/s achieved"), "{v}");
    assert!(v.contains("keep the data resident on the GPU"), "{v}");
    // The export has no GPU record (no TARGET_INFO_GPU table): the link's
    // bandwidth is unknown, not 0, and the verdict says why.
    assert!(
        v.contains(
            "link bandwidth unknown (the export records no GPU (no TARGET_INFO_GPU rows); give --gpu KEY)"
        ),
        "{v}"
    );
    assert!(!v.contains("% of the"), "{v}");
    assert!(!v.contains("MPI"), "{v}");
    // Told the GPU (`--gpu h100-sxm`: the export cannot say SXM or PCIe),
    // the link is the table's PCIe Gen5 x16: 32 GT/s x 16 lanes x 128/130
    // / 8 = 63,015,384,615 B/s per direction. By hand: 50,950,504,448 B /
    // 1.841627438 s = 27.666 GB/s; / 63.015 GB/s = 0.43904 -> "43.9 %".
    assert!((bytes as f64 / (ns as f64 * 1e-9) / 63_015_384_615.0 - 0.43904).abs() < 1e-4);
    let (code, md, err) = rooftrace(&[
        "gaps",
        path.to_str().unwrap(),
        "--gpu",
        "h100-sxm",
        "--format",
        "md",
    ]);
    assert_eq!(code, 0, "{err}");
    let v = md.lines().next().unwrap();
    assert!(
        v.contains("51.0 GB in 1.84 s at 27.7 GB/s achieved, 43.9 % of the PCIe Gen5 x16 link (63.0 GB/s per direction, from the h100-sxm table entry, GPU chosen by --gpu): keep the data resident"),
        "{v}"
    );
    // Pinned copies: no pinning advice.
    assert!(!v.contains("staging"), "{v}");
    assert!(
        md.contains("- pid 111 device 0 HtoD pinned: 27.7 GB/s achieved, 43.9 % of the link"),
        "{md}"
    );
    // The JSON: the link with its source, each host copy's share of it.
    let (code, json, err) = rooftrace(&[
        "gaps",
        path.to_str().unwrap(),
        "--gpu",
        "h100-sxm",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let j: serde_json::Value = serde_json::from_str(&json).unwrap();
    let l = &j["host_link"];
    assert_eq!(l["interface"], "PCIe Gen5 x16");
    assert_eq!(l["per_direction_bytes_per_s"], 63_015_384_615u64);
    assert_eq!(l["gpu"], "h100-sxm");
    assert_eq!(l["chosen_by"], "--gpu");
    assert!(l["source"].as_str().unwrap().contains("H100"), "{l}");
    assert!(l["unknown_reason"].is_null());
    let c = &l["copies"][0];
    assert_eq!(
        (c["pid"].as_u64(), c["direction"].as_str()),
        (Some(111), Some("HtoD"))
    );
    let f = c["link_fraction"].as_f64().unwrap();
    let want = c["bytes_per_s"].as_f64().unwrap() / 63_015_384_615.0;
    assert!((f - want).abs() < 1e-12 && (f - 0.439).abs() < 1e-3, "{f}");
}

#[test]
fn saxpy_copy_verdict_takes_the_link_of_its_recorded_gpu_and_points_pageable_copies_to_pinning() {
    let path = fixture(SAXPY);
    // Independently: the export's GPU record and its largest copy stream.
    let c = Connection::open_with_flags(&path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    let name: String = c
        .query_row("SELECT name FROM TARGET_INFO_GPU", [], |r| r.get(0))
        .unwrap();
    assert_eq!(name, "NVIDIA A100-SXM4-40GB");
    let (kind, src, count, bytes, ns): (i64, i64, i64, i64, i64) = c
        .query_row(
            "SELECT copyKind, srcKind, COUNT(*), SUM(bytes), SUM(end - start) FROM CUPTI_ACTIVITY_KIND_MEMCPY
             GROUP BY copyKind, srcKind ORDER BY 5 DESC LIMIT 1",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
        )
        .unwrap();
    // HtoD (1) from pageable memory (srcKind 0): 10 copies, 2,621,440,000
    // B in 186,001,123 ns = 14.094 GB/s. The A100 SXM4 reaches its host
    // over PCIe Gen4 x16: 16 GT/s x 16 x 128/130 / 8 = 31,507,692,307 B/s
    // per direction; 14.094 / 31.508 = 0.4473 -> "44.7 %", under half of
    // the link: the verdict points to pinning.
    assert_eq!((kind, src, count), (1, 0, 10));
    let share = bytes as f64 / (ns as f64 * 1e-9) / 31_507_692_307.0;
    assert!((share - 0.4473).abs() < 1e-4, "{share}");
    let (code, md, err) = rooftrace(&["gaps", path.to_str().unwrap(), "--format", "md"]);
    assert_eq!(code, 0, "{err}");
    let v = md.lines().next().unwrap();
    assert!(
        v.contains("10 HtoD copies from pageable memory, 2.62 GB in 186 ms at 14.1 GB/s achieved, 44.7 % of the PCIe Gen4 x16 link (31.5 GB/s per direction, from the a100-40gb table entry, GPU chosen by device name \"NVIDIA A100-SXM4-40GB\" in the export's TARGET_INFO_GPU); pageable copies under 50.0 % of the link point to the host staging them: pin the host buffers"),
        "{v}"
    );
    // The CSV's device row: the link and the largest host copy's share.
    let (code, csv, err) = rooftrace(&["gaps", path.to_str().unwrap(), "--format", "csv"]);
    assert_eq!(code, 0, "{err}");
    let mut rd = csv::Reader::from_reader(csv.as_bytes());
    let h = rd.headers().unwrap().clone();
    let row = rd.records().next().unwrap().unwrap();
    let col = |k: &str| {
        row.get(h.iter().position(|x| x == k).unwrap())
            .unwrap()
            .to_string()
    };
    assert_eq!(col("scope"), "device");
    assert_eq!(col("host_link"), "PCIe Gen4 x16");
    assert_eq!(col("host_link_bytes_per_s"), "31507692307");
    assert_eq!(col("host_copy"), "HtoD pageable");
    assert_eq!(col("host_copy_link_fraction"), "0.4473");
}

#[test]
fn gaps_gpu_flag_is_checked() {
    let path = fixture(SAXPY);
    // Not a table key.
    let (code, _, err) = rooftrace(&["gaps", path.to_str().unwrap(), "--gpu", "h1000"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--gpu h1000"), "{err}");
    // Contradicted by the export's record (compute capability 8.0).
    let (code, _, err) = rooftrace(&["gaps", path.to_str().unwrap(), "--gpu", "h100-sxm"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("8.0"), "{err}");
}

#[test]
fn tls_search_default_timeline_window_contains_idle_time() {
    let Some(path) = corpus_file("nsys/nsys2023.1.2_gtls_tls-search.sqlite") else {
        return;
    };
    let tl = read_timeline(&path, false, &no_progress).unwrap();
    let r = analyze(
        &tl,
        &GapConfig {
            keep_gaps: true,
            ..GapConfig::default()
        },
    );
    let input = rooftrace::plot::TimelineInput::from_gaps(&tl, &r, None, "t").unwrap();
    let chart = rooftrace::plot::TimelineChart::build(&input).unwrap();
    let (w0, w1) = chart.window_ns;
    // Idle time of the largest class (host-bound) inside the window,
    // from the report's own classified gaps.
    let idle_in = |class: Option<GapClass>| -> i64 {
        r.gaps
            .as_ref()
            .unwrap()
            .iter()
            .filter(|g| class.is_none_or(|c| g.class == c))
            .map(|g| (g.end_ns.min(w1) - g.start_ns.max(w0)).max(0))
            .sum()
    };
    assert!(idle_in(Some(GapClass::HostBound)) > 0, "window {w0}..{w1}");
    // At least a tenth of the window is idle (the busiest stretch was 100 % busy).
    assert!(10 * idle_in(None) >= w1 - w0, "window {w0}..{w1}");
    assert!(!input.gaps.is_empty());
}

#[test]
fn budget_nvtx_matching_nothing_exits_2_naming_the_most_frequent_ranges() {
    let path = fixture(SAXPY);
    let (code, out, err) = rooftrace(&[
        "budget",
        path.to_str().unwrap(),
        "--nvtx",
        "NoSuchRange",
        "--gpu",
        "a100-40gb",
    ]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(out.is_empty(), "{out}");
    // The counts, from the export: closed ranges per text.
    let c = Connection::open_with_flags(&path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    let sends: i64 = c
        .query_row(
            "SELECT COUNT(*) FROM NVTX_EVENTS n LEFT JOIN StringIds s ON s.id = n.textId
             WHERE COALESCE(n.text, s.value) = 'MPI_Send' AND n.end IS NOT NULL",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(sends, 10);
    assert!(
        err.contains("--nvtx `NoSuchRange` matches no NVTX range; the most frequent ranges are `MPI_Send` (10), `MPI_Recv` (5), `saxpy` (5)"),
        "{err}"
    );
}

#[test]
fn budget_outlier_steps_are_named_and_left_out_of_fix_first() {
    // The saxpy rank's MPI_Send ranges: 10 steps, median 11.1 ms; the
    // second send of the run takes 33.5 ms (851,454,373..884,983,803 ns),
    // more than 3 × the median: an outlier.
    let path = fixture(SAXPY);
    let (code, md, err) = rooftrace(&[
        "budget",
        path.to_str().unwrap(),
        "--nvtx",
        "^MPI_Send$",
        "--gpu",
        "a100-40gb",
        "--format",
        "md",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        md.contains("left out: 1 outlier step longer than 3 × the median step (11.1 ms): #1 `MPI_Send` 33.5 ms"),
        "{md}"
    );
    // Fix first uses the median step (the headline's), not the mean (13.6
    // ms with the outlier). Its gaps last milliseconds and the MPI ranges
    // cover less than half of their host windows (docs/gaps.md: a range
    // names the host's time only when it covers most of it): CPU
    // stretches, with their fix, never launch overhead's CUDA graphs.
    let fix = md.lines().find(|l| l.starts_with("1. ")).unwrap();
    assert!(fix.contains("per step of 11.1 ms"), "{fix}");
    assert!(fix.contains("gaps of 1 ms or more"), "{fix}");
    assert!(!fix.contains("CUDA graph"), "{fix}");
}
