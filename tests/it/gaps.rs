//! `rooftrace gaps`: corpus exports checked against an independent union of
//! intervals, hand-written SQL fixtures for each gap class and schema variant,
//! the traps of naive analyses, error paths and snapshots.

use crate::common::{fixture, rooftrace};
use rooftrace::gaps::{analyze, GapClass, GapConfig, GapReport};
use rooftrace::nsys::{read_timeline, GraphTrace, OpKind, SchemaFlavor, Timeline};
use rusqlite::Connection;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const CORPUS: [&str; 3] = [
    "nsys/nsys2022.2.1_pipit_saxpy-mpi-cuda.sqlite",
    "nsys/nsys2024.5.1_pipit_cloverleaf.sqlite",
    "nsys/nsys2026.2.1_nsysai_h100_2gpu_1s.sqlite",
];

fn no_progress(_: u64, _: u64) {}

fn read(path: &Path, nvtx: bool) -> Timeline {
    read_timeline(path, nvtx, &no_progress).unwrap_or_else(|e| panic!("{e}"))
}

/// Builds `fixtures/nsys/sql/<name>.sql` into a fresh database.
fn build(name: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join(format!("{name}.sqlite"));
    let sql = std::fs::read_to_string(fixture(&format!("nsys/sql/{name}.sql"))).unwrap();
    Connection::open(&db).unwrap().execute_batch(&sql).unwrap();
    (dir, db)
}

/// Independent reference: busy and idle per (pid, device) as a plain union of
/// the intervals of every GPU activity table, read straight with rusqlite.
fn reference_busy_idle(path: &Path) -> BTreeMap<(u32, u16), (i64, i64)> {
    let c = Connection::open_with_flags(path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    let mut by_dev: BTreeMap<(u32, u16), Vec<(i64, i64)>> = BTreeMap::new();
    for t in [
        "CUPTI_ACTIVITY_KIND_KERNEL",
        "CUPTI_ACTIVITY_KIND_MEMCPY",
        "CUPTI_ACTIVITY_KIND_MEMSET",
        "CUPTI_ACTIVITY_KIND_GRAPH_TRACE",
    ] {
        let Ok(mut st) = c.prepare(&format!(
            "SELECT start, \"end\", deviceId, globalPid FROM {t}"
        )) else {
            continue; // table absent
        };
        let rows = st
            .query_map([], |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, i64>(1)?,
                    r.get::<_, i64>(2)?,
                    r.get::<_, i64>(3)?,
                ))
            })
            .unwrap();
        for row in rows {
            let (s, e, d, gp) = row.unwrap();
            let pid = ((gp / (1 << 24)) % (1 << 24)) as u32;
            by_dev.entry((pid, d as u16)).or_default().push((s, e));
        }
    }
    by_dev
        .into_iter()
        .map(|(k, mut v)| {
            v.sort();
            let (lo, hi) = (v[0].0, v.iter().map(|x| x.1).max().unwrap());
            let mut busy = 0;
            let (mut cs, mut ce) = v[0];
            for &(s, e) in &v[1..] {
                if s > ce {
                    busy += ce - cs;
                    (cs, ce) = (s, e);
                } else {
                    ce = ce.max(e);
                }
            }
            busy += ce - cs;
            (k, (busy, hi - lo - busy))
        })
        .collect()
}

fn check_against_reference(path: &Path, r: &GapReport) {
    let reference = reference_busy_idle(path);
    assert_eq!(r.devices.len(), reference.len(), "{}", path.display());
    for d in &r.devices {
        let (busy, idle) = reference[&(d.pid, d.device)];
        assert_eq!(
            (d.busy_ns, d.idle_ns),
            (busy, idle),
            "{} pid {} dev {}",
            path.display(),
            d.pid,
            d.device
        );
        assert_eq!(
            d.classes.total_ns(),
            d.idle_ns,
            "class totals must add up to idle"
        );
        assert_eq!(d.classes.total_count(), d.gap_count);
        // The host detail is a level under host-bound: it adds up to it.
        let hb = d.classes.get(GapClass::HostBound);
        assert_eq!(
            (d.host_detail.total_count(), d.host_detail.total_ns()),
            (hb.count, hb.total_ns),
            "host detail must add up to host-bound"
        );
    }
    for s in &r.streams {
        assert_eq!(s.classes.total_ns(), s.idle_ns);
    }
}

#[test]
fn corpus_busy_idle_match_an_independent_union() {
    for f in CORPUS {
        let path = fixture(f);
        let r = analyze(&read(&path, false), &GapConfig::default());
        check_against_reference(&path, &r);
    }
}

#[test]
fn corpus_schema_flavours_are_recognised() {
    let flavors: Vec<_> = CORPUS
        .iter()
        .map(|f| {
            let t = read(&fixture(f), true);
            (
                match &t.info.source {
                    rooftrace::timeline::Source::Nsys { schema, .. } => *schema,
                    other => panic!("{other:?}"),
                },
                t.info.source.version().map(str::to_string),
            )
        })
        .collect();
    assert_eq!(
        flavors[0],
        (SchemaFlavor::ExportMetaData, Some("2022.2.1.31".into()))
    );
    assert_eq!(
        flavors[1],
        (SchemaFlavor::MetaDataExport, Some("2024.5.1.113".into()))
    );
    assert_eq!(
        flavors[2],
        (SchemaFlavor::MetaDataExport, Some("2026.2.1.210".into()))
    );
    let (_d, db) = build("schema2021");
    assert_eq!(
        read(&db, false).info.source,
        rooftrace::timeline::Source::Nsys {
            version: None,
            schema: SchemaFlavor::NoMetadata
        }
    );
}

#[test]
fn memcpy_busy_trace_is_not_reported_idle() {
    // The 2026.2 window is dominated by H2D copies (~0.92 s per GPU): counting
    // kernels only would call most of the span idle.
    let r = analyze(&read(&fixture(CORPUS[2]), false), &GapConfig::default());
    for d in &r.devices {
        assert!(
            d.idle_ns * 100 < d.span_ns,
            "idle {} of {}",
            d.idle_ns,
            d.span_ns
        );
        assert!(
            d.kernel_busy_ns * 2 < d.span_ns,
            "kernel-only busy {} of {}",
            d.kernel_busy_ns,
            d.span_ns
        );
        assert!(d.memcpys > 0);
    }
}

#[test]
fn per_stream_gaps_are_not_device_idle() {
    let (_d, db) = build("streams");
    let r = analyze(&read(&db, false), &GapConfig::default());
    assert_eq!(r.devices.len(), 1);
    let d = &r.devices[0];
    assert_eq!(
        (d.span_ns, d.busy_ns, d.idle_ns, d.gap_count),
        (100, 100, 0, 0)
    );
    // Streams 1 and 2 idle [10, 90) each; stream 3 has no gap.
    let idle: Vec<(u32, i64)> = r.streams.iter().map(|s| (s.stream, s.idle_ns)).collect();
    assert_eq!(idle, vec![(1, 80), (2, 80), (3, 0)]);
    assert!(r.streams.iter().map(|s| s.idle_ns).sum::<i64>() > d.span_ns);
}

#[test]
fn launches_join_within_the_process_only() {
    // Provenance of the 2026.2 file: correlationId alone joins 1643 kernels,
    // (process, correlationId) 1632. Count both ways independently in SQL.
    let path = fixture(CORPUS[2]);
    let c = Connection::open_with_flags(&path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    let count = |sql: &str| c.query_row(sql, [], |r| r.get::<_, i64>(0)).unwrap() as u64;
    let naive = count(
        "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL k WHERE EXISTS (SELECT 1 FROM CUPTI_ACTIVITY_KIND_RUNTIME r WHERE r.correlationId = k.correlationId)",
    );
    let per_process = count(
        "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL k WHERE EXISTS (SELECT 1 FROM CUPTI_ACTIVITY_KIND_RUNTIME r WHERE r.correlationId = k.correlationId AND (r.globalTid >> 24) = (k.globalPid >> 24))",
    );
    assert_eq!((naive, per_process), (1643, 1632));
    let t = read(&path, false);
    let joined = t
        .ops
        .iter()
        .filter(|o| o.kind == OpKind::Kernel && t.api_of(o).is_some())
        .count() as u64;
    assert_eq!(joined, per_process);
    // And each joined op's call is in the op's own process.
    assert!(t
        .ops
        .iter()
        .all(|o| t.api_of(o).is_none_or(|a| a.pid == o.pid)));

    let (_d, db) = build("schema2021");
    let r = analyze(&read(&db, false), &GapConfig::default());
    let class = |pid: u32| r.devices.iter().find(|d| d.pid == pid).unwrap().classes;
    assert_eq!(class(1).get(GapClass::HostBound).total_ns, 99_800);
    assert_eq!(class(2).get(GapClass::QueuedDependency).total_ns, 99_800);
}

#[test]
fn nested_runtime_rows_count_once() {
    // 2022.2: `cudaLaunchKernel` wraps `cudaLaunchKernel_v7000` with the same
    // correlationId. Each op must join the outer call, and launches count
    // distinct (pid, correlationId) pairs.
    let path = fixture(CORPUS[0]);
    let c = Connection::open_with_flags(&path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    let distinct: i64 = c
        .query_row(
            "SELECT count(*) FROM (SELECT DISTINCT correlationId FROM (
               SELECT correlationId FROM CUPTI_ACTIVITY_KIND_KERNEL UNION ALL
               SELECT correlationId FROM CUPTI_ACTIVITY_KIND_MEMCPY UNION ALL
               SELECT correlationId FROM CUPTI_ACTIVITY_KIND_MEMSET)
             WHERE correlationId IN (SELECT correlationId FROM CUPTI_ACTIVITY_KIND_RUNTIME))",
            [],
            |r| r.get(0),
        )
        .unwrap();
    let t = read(&path, false);
    let r = analyze(&t, &GapConfig::default());
    assert_eq!(r.launch.launches, distinct as u64);
    assert_eq!(r.launch.ops_with_api, r.input.ops);
    assert!(r.input.nested_api_rows > 0);
    for op in t.ops.iter().filter(|o| o.kind == OpKind::Kernel) {
        let a = t.api_of(op).unwrap();
        assert_eq!(t.name(a.name), "cudaLaunchKernel");
        let outer_start: i64 = c
            .query_row(
                "SELECT min(start) FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE correlationId = ?1",
                [op.correlation_id],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(a.start_ns, outer_start);
    }
}

#[test]
fn each_gap_class_from_the_hand_written_fixture() {
    let (_d, db) = build("classes");
    let r = analyze(&read(&db, false), &GapConfig::default());
    check_against_reference(&db, &r);
    let d = &r.devices[0];
    assert_eq!(
        (d.span_ns, d.busy_ns, d.idle_ns, d.gap_count),
        (50_000, 7_000, 43_000, 6)
    );
    let got: Vec<(GapClass, u64, i64)> = GapClass::ALL
        .iter()
        .map(|&c| (c, d.classes.get(c).count, d.classes.get(c).total_ns))
        .collect();
    assert_eq!(
        got,
        vec![
            (GapClass::HostBound, 1, 1_000),
            (GapClass::LaunchInFlight, 1, 2_000),
            (GapClass::LaunchLatency, 1, 2_000),
            (GapClass::QueuedDependency, 1, 20_000),
            (GapClass::CopyScheduling, 0, 0),
            (GapClass::Synchronization, 1, 9_000),
            (GapClass::SyncDrain, 0, 0),
            (GapClass::PageableCopy, 0, 0),
            (GapClass::Unattributed, 1, 9_000),
        ]
    );
    assert_eq!(r.top_gaps[0].duration_ns, 20_000);
    assert_eq!(r.top_gaps[0].class, GapClass::QueuedDependency);
    assert_eq!(
        r.name(r.top_gaps[0].api.as_ref().unwrap().name_id),
        "cudaLaunchKernel_v7000"
    );
}

#[test]
fn min_gap_and_device_filters() {
    let (_d, db) = build("classes");
    let t = read(&db, false);
    let cfg = GapConfig {
        min_gap_ns: 5_000,
        ..GapConfig::default()
    };
    let r = analyze(&t, &cfg);
    // Idle and classes are unchanged; only gaps >= 5 µs are distributed/listed.
    assert_eq!(r.devices[0].idle_ns, 43_000);
    assert_eq!(r.distribution.duration.count, 3);
    assert!(r.top_gaps.iter().all(|g| g.duration_ns >= 5_000));
    let r = analyze(
        &t,
        &GapConfig {
            device: Some(3),
            ..GapConfig::default()
        },
    );
    assert!(r.devices.is_empty());
}

#[test]
fn nvtx_ranges_are_projected_onto_the_gpu() {
    let (_d, db) = build("classes");
    let t = read(&db, true);
    let cfg = GapConfig {
        nvtx: Some(regex::Regex::new("^step$").unwrap()),
        ..GapConfig::default()
    };
    let r = analyze(&t, &cfg);
    let rr = r.ranges.unwrap();
    // The registered-string range (textId) and the inline one; the open range is ignored.
    assert_eq!(rr.instances.len(), 2);
    let a = &rr.instances[0];
    // Calls at 500 and 2500 launched K1 [1000,2000) and K2 [3000,4000).
    assert_eq!((a.gpu_start_ns, a.gpu_end_ns, a.kernels), (1_000, 4_000, 2));
    assert_eq!((a.kernel_busy_ns, a.idle_ns), (2_000, 1_000));
    assert_eq!(a.classes().get(GapClass::HostBound).total_ns, 1_000);
    let b = &rr.instances[1];
    // Calls at 3900 and 5000 launched K3 [6000,7000) and K5 [30000,31000);
    // inside: K4, a 2 µs launch-latency gap and the 20 µs queued gap.
    assert_eq!(
        (b.gpu_start_ns, b.gpu_end_ns, b.kernels),
        (6_000, 31_000, 2)
    );
    assert_eq!(
        (b.kernel_busy_ns, b.idle_ns, b.busy_ns),
        (3_000, 22_000, 3_000)
    );
    assert_eq!(b.classes().get(GapClass::LaunchLatency).total_ns, 2_000);
    assert_eq!(b.classes().get(GapClass::QueuedDependency).total_ns, 20_000);
    assert_eq!(rr.wall_ns.median, Some(1_400));
}

#[test]
fn graphs_traced_as_graphs_are_busy_and_launches_count_once() {
    let (_d, db) = build("graphs");
    let t = read(&db, false);
    assert_eq!(t.graph_trace, GraphTrace::Graph);
    assert_eq!(t.graph_launches, 2);
    let r = analyze(&t, &GapConfig::default());
    check_against_reference(&db, &r);
    let d = &r.devices[0];
    // Busy: kernel 1000 + graphs 3000 + 3500; gaps [1000,2000) host-bound
    // (call at 1500) and [5000,5500) queued 500 ns -> launch latency.
    assert_eq!((d.busy_ns, d.idle_ns, d.graphs), (7_500, 1_500, 2));
    assert_eq!(d.classes.get(GapClass::HostBound).total_ns, 1_000);
    assert_eq!(d.classes.get(GapClass::LaunchLatency).total_ns, 500);
    assert_eq!(r.launch.launches, 3);
}

#[test]
fn synthetic_export_matches_the_reference() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("synth.sqlite");
    let spec = rooftrace::synth::nsys::SynthSpec {
        kernels: 3_000,
        devices: 2,
        streams: 3,
        seed: 7,
    };
    rooftrace::synth::nsys::write_synthetic(&db, &spec).unwrap();
    let t = read(&db, true);
    let r = analyze(
        &t,
        &GapConfig {
            nvtx: Some(regex::Regex::new("step").unwrap()),
            ..GapConfig::default()
        },
    );
    check_against_reference(&db, &r);
    assert_eq!(r.devices.iter().map(|d| d.kernels).sum::<u64>(), 3_000);
    assert_eq!(r.streams.len(), 6);
    assert_eq!(r.ranges.unwrap().instances.len(), 30);
    assert_eq!(r.launch.ops_without_api, 0);
}

#[test]
fn input_files_are_not_modified() {
    use std::hash::{DefaultHasher, Hash, Hasher};
    let digest = |p: &Path| {
        let mut h = DefaultHasher::new();
        std::fs::read(p).unwrap().hash(&mut h);
        h.finish()
    };
    let (_d, db) = build("classes");
    let before = digest(&db);
    let (code, _, _) = rooftrace(&["gaps", db.to_str().unwrap(), "--nvtx", "step"]);
    assert_eq!(code, 0);
    assert_eq!(digest(&db), before);
    let dir = db.parent().unwrap();
    let names: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names.len(), 1, "no journal or side files: {names:?}");
}

fn error_of(path: &Path) -> (i32, String) {
    let (code, out, err) = rooftrace(&["gaps", path.to_str().unwrap()]);
    assert!(out.is_empty());
    assert!(!err.contains("panicked"), "{err}");
    (code, err.replace(&path.display().to_string(), "FILE"))
}

#[test]
fn bad_inputs_exit_2_with_file_and_table() {
    let mut msgs = Vec::new();
    for name in ["no_gpu", "missing_column", "not_nsys"] {
        let (_d, db) = build(name);
        let (code, err) = error_of(&db);
        assert_eq!(code, 2, "{name}: {err}");
        msgs.push(err);
    }
    let (code, err) = error_of(&fixture("nsys/not_sqlite.sqlite"));
    assert_eq!(code, 2, "{err}");
    msgs.push(err);
    let (code, err) = error_of(Path::new("fixtures/nsys/absent.sqlite"));
    assert_eq!(code, 2, "{err}");
    msgs.push(err);
    let (code, err) = error_of(Path::new("fixtures/nsys/absent.nsys-rep"));
    assert_eq!(code, 2, "{err}");
    msgs.push(err);
    insta::assert_snapshot!("gaps_errors", msgs.join("\n"));
}

#[test]
fn a_file_that_is_no_timeline_says_what_it_starts_with() {
    // An ncu CSV handed to `gaps` (a newcomer's mix-up): its header row is
    // `"ID","Process ID",…,"Metric Name",…` (fixtures/ncu/README.md), so
    // the door tells its page and the error names the command that reads it.
    let (code, err) = error_of(&fixture("ncu/bf16_gemm_details21.csv"));
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("FILE: an ncu CSV (details page), read by `rooftrace ncu`"),
        "{err}"
    );
    assert!(
        err.contains("; `rooftrace gaps` reads Nsight Systems exports"),
        "{err}"
    );
    // Text behind a `.json` name is neither JSON nor SQLite: the message
    // shows its first line, and names the trace form `gaps` also reads.
    let dir = tempfile::tempdir().unwrap();
    let junk = dir.path().join("trace.json");
    std::fs::write(&junk, "\n  hello `world`\tagain\n").unwrap();
    let (code, err) = error_of(&junk);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("it starts with `  hello 'world'.again`"),
        "{err}"
    );
    assert!(err.contains("PyTorch profiler trace"), "{err}");
    assert!(!err.contains("rooftrace ncu"), "{err}");
    // Binary bytes (a NUL first) are said to be binary, never printed.
    let bin = dir.path().join("trace.sqlite");
    std::fs::write(&bin, b"\x00\x01\xff\xfe|<>").unwrap();
    let (code, err) = error_of(&bin);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("(it is binary data, not text, starting with bytes 00 01 ff fe 7c 3c 3e)"),
        "{err}"
    );
}

#[test]
fn nsys_rep_without_nsys_gives_the_export_command() {
    let dir = tempfile::tempdir().unwrap();
    let rep = dir.path().join("decode.nsys-rep");
    std::fs::write(&rep, b"not really").unwrap();
    let missing = dir.path().join("nsys-missing");
    let (code, _, err) = rooftrace(&[
        "gaps",
        rep.to_str().unwrap(),
        "--nsys",
        missing.to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("nsys export --type=sqlite --force-overwrite=true -o"),
        "{err}"
    );
}

#[test]
fn snapshots_of_table_json_markdown_csv() {
    let (_d, db) = build("classes");
    let p = db.to_str().unwrap();
    for (fmt, name) in [
        ("table", "gaps_classes_table"),
        ("json", "gaps_classes_json"),
        ("md", "gaps_classes_md"),
        ("csv", "gaps_classes_csv"),
    ] {
        let (code, out, err) = rooftrace(&["gaps", p, "--nvtx", "^step$", "--format", fmt]);
        assert_eq!(code, 0, "{err}");
        insta::assert_snapshot!(name, out);
    }
    let (code, out, _) = rooftrace(&[
        "gaps",
        "fixtures/nsys/nsys2024.5.1_pipit_cloverleaf.sqlite",
        "--top",
        "5",
    ]);
    assert_eq!(code, 0);
    insta::assert_snapshot!("gaps_cloverleaf_table", out);
}

#[test]
fn markdown_starts_with_the_verdict_and_fits_a_comment() {
    let (code, out, _) = rooftrace(&[
        "gaps",
        "fixtures/nsys/nsys2026.2.1_nsysai_h100_2gpu_1s.sqlite",
        "--format",
        "md",
        "--nvtx",
        "aten",
        "--top",
        "0",
    ]);
    assert_eq!(code, 0);
    assert!(out.starts_with("**"), "{}", &out[..80]);
    assert!(out.chars().count() <= rooftrace::report::MARKDOWN_LIMIT_CHARS);
}

#[test]
fn stream_filter_analyses_one_stream() {
    let (_d, db) = build("streams");
    let t = read(&db, false);
    let r = analyze(
        &t,
        &GapConfig {
            stream: Some(1),
            ..GapConfig::default()
        },
    );
    // Only stream 1's two kernels: the device view is that stream's view.
    assert_eq!((r.devices[0].idle_ns, r.devices[0].gap_count), (80, 1));
    assert_eq!(r.streams.len(), 1);
    assert_eq!(r.input.ops, 2);
}

#[test]
fn timeline_input_has_lanes_and_classified_gaps() {
    let (_d, db) = build("classes");
    let t = read(&db, false);
    let cfg = GapConfig {
        keep_gaps: true,
        ..GapConfig::default()
    };
    let r = analyze(&t, &cfg);
    // The first op starts at 1000: `--window 4us..31us` is [5000, 32000);
    // the axis (27 µs, ticks every 5 µs) runs on to 30 µs, so the chart
    // shows [5000, 35000).
    let input =
        rooftrace::plot::TimelineInput::from_gaps(&t, &r, Some((4_000, 31_000)), "x").unwrap();
    let chart = rooftrace::plot::TimelineChart::build(&input).unwrap();
    assert_eq!(chart.window_ns, (5_000, 35_000));
    let labels: Vec<&str> = input.lanes.iter().map(|l| l.label.as_str()).collect();
    assert_eq!(labels, vec!["GPU 0 idle gaps", "GPU 0 stream 7"]);
    // Ops overlapping [5000, 35000): K3 [6000,7000), K4, K5, on the stream lane.
    let starts: Vec<(usize, i64)> = input.ops.iter().map(|o| (o.lane, o.start_ns)).collect();
    assert_eq!(starts, vec![(1, 6_000), (1, 9_000), (1, 30_000)]);
    // Gaps overlapping it, unclipped, with the same classes as the report,
    // on the idle-gap lane.
    let gaps: Vec<(usize, i64, GapClass)> = input
        .gaps
        .iter()
        .map(|g| (g.lane, g.start_ns, g.class))
        .collect();
    assert_eq!(
        gaps,
        vec![
            (0, 4_000, GapClass::LaunchInFlight),
            (0, 7_000, GapClass::LaunchLatency),
            (0, 10_000, GapClass::QueuedDependency),
            (0, 31_000, GapClass::Synchronization),
        ]
    );
}

#[test]
fn nvtx_text_and_registered_strings_from_the_2022_export() {
    // 22 closed push/pop ranges: 5 with inline text, 17 with a textId.
    let path = fixture(CORPUS[0]);
    let c = Connection::open_with_flags(&path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    let closed: i64 = c
        .query_row(
            "SELECT count(*) FROM NVTX_EVENTS WHERE eventType = 59 AND end IS NOT NULL",
            [],
            |r| r.get(0),
        )
        .unwrap();
    let t = read(&path, true);
    assert_eq!(t.nvtx.len() as i64, closed);
    assert_eq!(closed, 22);
    assert!(t
        .nvtx
        .iter()
        .all(|r| !r.text.is_empty() && r.end_ns >= r.start_ns));
}

#[test]
fn markdown_links_the_image() {
    let (_d, db) = build("classes");
    let (code, out, _) = rooftrace(&[
        "gaps",
        db.to_str().unwrap(),
        "--format",
        "md",
        "--image",
        "timeline.png",
    ]);
    assert_eq!(code, 0);
    let mut lines = out.lines();
    assert!(lines
        .next()
        .unwrap()
        .starts_with("**GPU idle 86.0 % of 50.0 µs, 46.5 % queued/dependency; fix first: find what the queued op waited for (an event, another stream, process or device) and overlap it (more streams, earlier events) (20.0 µs of 43.0 µs idle)**"));
    assert_eq!(lines.nth(1), Some("![GPU timeline](timeline.png)"));
}

#[test]
fn classified_gaps_agree_with_the_report_totals() {
    let t = read(&fixture(CORPUS[2]), false);
    let r = analyze(&t, &GapConfig::default());
    let mut kept = analyze(
        &t,
        &GapConfig {
            keep_gaps: true,
            ..GapConfig::default()
        },
    );
    let gaps = kept.gaps.take().unwrap();
    // Keeping the gaps changes nothing else in the report.
    assert_eq!(r.gaps, None);
    assert_eq!(kept, r);
    for d in &r.devices {
        for c in GapClass::ALL {
            let mine: i64 = gaps
                .iter()
                .filter(|g| (g.pid, g.device, g.class) == (d.pid, d.device, c))
                .map(|g| g.end_ns - g.start_ns)
                .sum();
            assert_eq!(mine, d.classes.get(c).total_ns);
        }
    }
}

#[test]
fn nvtx_range_without_launches_uses_the_host_window() {
    let (_d, db) = build("classes");
    // A range on another thread (tid 999) of pid 100 that launched nothing.
    Connection::open(&db)
        .unwrap()
        .execute(
            "INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid) VALUES (5000, 32000, 59, 'wait', ?1)",
            [(100i64 << 24) + 999],
        )
        .unwrap();
    let t = read(&db, true);
    let cfg = GapConfig {
        nvtx: Some(regex::Regex::new("^wait$").unwrap()),
        ..GapConfig::default()
    };
    let rr = analyze(&t, &cfg).ranges.unwrap();
    assert_eq!(rr.instances.len(), 1);
    let w = &rr.instances[0];
    assert!(!w.projected);
    // Window [5000, 32000): K3, K4, K5 start inside; gaps clipped to it:
    // 1000 in flight + 2000 latency + 20000 queued + 1000 sync.
    assert_eq!(
        (w.gpu_start_ns, w.gpu_end_ns, w.kernels),
        (5_000, 32_000, 3)
    );
    assert_eq!(
        (w.idle_ns, w.busy_ns, w.kernel_busy_ns),
        (24_000, 3_000, 3_000)
    );
    assert_eq!(w.classes().get(GapClass::LaunchInFlight).total_ns, 1_000);
    assert_eq!(w.classes().get(GapClass::Synchronization).total_ns, 1_000);
}

#[test]
fn graphs_traced_per_node_attribute_kernels_to_their_launch() {
    let (_d, db) = build("graphs");
    // Re-trace graph 2 per node: no whole-graph rows, two node kernels
    // carrying the correlation id of the cudaGraphLaunch (2).
    let c = Connection::open(&db).unwrap();
    c.execute_batch(
        "DELETE FROM CUPTI_ACTIVITY_KIND_GRAPH_TRACE;
         DELETE FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE correlationId = 3;
         INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES
           (2000, 3000, 0, 1, NULL, 7, 2, 16777216, 1, 1, NULL, 11, 1),
           (3000, 5000, 0, 1, NULL, 7, 2, 16777216, 1, 1, NULL, 12, 1);",
    )
    .unwrap();
    drop(c);
    let t = read(&db, false);
    assert_eq!(t.graph_trace, GraphTrace::Node);
    assert_eq!(t.graph_launches, 1);
    let r = analyze(&t, &GapConfig::default());
    check_against_reference(&db, &r);
    // Three ops, two calls: the graph launch counts once.
    assert_eq!((r.launch.ops_with_api, r.launch.launches), (3, 2));
    let node_calls: Vec<&str> = t
        .ops
        .iter()
        .filter(|o| o.start_ns >= 2000)
        .map(|o| t.name(t.api_of(o).unwrap().name))
        .collect();
    assert_eq!(node_calls, vec!["cudaGraphLaunch_v10000"; 2]);
}

#[test]
fn nsys_rep_is_converted_into_the_cache_with_the_given_nsys() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let rep = dir.path().join("decode.nsys-rep");
    std::fs::write(&rep, b"report").unwrap();
    // A stand-in `nsys` that checks its argument vector and writes the export
    // to the -o path: `export --type=sqlite --force-overwrite=true -o OUT REP`.
    let fake = dir.path().join("fake-nsys");
    let src = fixture("nsys/nsys2024.5.1_pipit_cloverleaf.sqlite");
    std::fs::write(
        &fake,
        format!(
            "#!/bin/sh\n[ \"$1 $2 $3 $4\" = \"export --type=sqlite --force-overwrite=true -o\" ] || exit 3\n[ \"$6\" = \"{}\" ] || exit 4\ncp '{}' \"$5\"\n",
            rep.display(),
            src.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let cache = dir.path().join("cache");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_rooftrace"))
        .args([
            "gaps",
            rep.to_str().unwrap(),
            "--nsys",
            fake.to_str().unwrap(),
            "--format",
            "csv",
        ])
        .env("XDG_CACHE_HOME", &cache)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("device,1701896,0,"));
    // The export went to the cache, nothing was written beside the report.
    let cached: Vec<_> = std::fs::read_dir(cache.join("rooftrace"))
        .unwrap()
        .collect();
    assert_eq!(cached.len(), 1);
    let mut beside: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    beside.sort();
    assert_eq!(beside, vec!["cache", "decode.nsys-rep", "fake-nsys"]);
}

#[test]
fn host_work_after_a_sync_is_host_bound() {
    // CloverLeaf (2024.5): the longest gap starts when the GPU drains under a
    // `cudaDeviceSynchronize`; the sync returns microseconds later, then the
    // host spends milliseconds in other calls (`cudaMalloc`, ...) before the
    // next launch. That lateness is host time, not sync time. Checked here
    // from the raw rows: the latest sync starting before the launch call ends
    // within 10 µs of the gap start, and the launch call comes > 1 ms later.
    let path = fixture(CORPUS[1]);
    let r = analyze(&read(&path, false), &GapConfig::default());
    let g = &r.top_gaps[0];
    let api = g
        .api
        .as_ref()
        .expect("the longest gap's op has a launch call");
    let c = Connection::open_with_flags(&path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    let sync_end: i64 = c
        .query_row(
            "SELECT r.\"end\" FROM CUPTI_ACTIVITY_KIND_RUNTIME r JOIN StringIds s ON s.id = r.nameId
             WHERE s.value LIKE 'cuda%Synchronize%' AND r.start <= ?1 ORDER BY r.start DESC LIMIT 1",
            [api.start_ns],
            |row| row.get(0),
        )
        .unwrap();
    assert!(
        sync_end > g.start_ns && sync_end - g.start_ns < 10_000,
        "sync ends {} ns into the gap",
        sync_end - g.start_ns
    );
    assert!(
        api.start_ns - sync_end > 1_000_000,
        "host work after the sync: {} ns",
        api.start_ns - sync_end
    );
    assert_eq!(g.class, GapClass::HostBound);
}

#[test]
fn gaps_ended_by_a_blocking_copy_are_synchronisation_or_staging() {
    // saxpy (2022.2): each DtoH `cudaMemcpy` is called while the kernel runs
    // and blocks until the copy is done; the GPU idles between the kernel and
    // the copy while the call is still blocked. That is an implicit sync, not
    // a slow launch — and since every copy here moves pageable memory
    // (`srcKind` or `dstKind` 0, counted below from the raw rows), the host
    // was staging: pageable-copy staging. The blocking copies are left out
    // of the queue delay (they would make it -17.7 ms).
    let path = fixture(CORPUS[0]);
    let c = Connection::open_with_flags(&path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    let (copies, pageable): (i64, i64) = c
        .query_row(
            "SELECT count(*), sum(srcKind = 0 OR dstKind = 0) FROM CUPTI_ACTIVITY_KIND_MEMCPY",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!((copies, pageable), (15, 15));
    let t = read(&path, false);
    let r = analyze(
        &t,
        &GapConfig {
            top: 0,
            ..GapConfig::default()
        },
    );
    let blocking: Vec<_> = r
        .top_gaps
        .iter()
        .filter(|g| {
            g.api.as_ref().is_some_and(|a| {
                let name = r.name(a.name_id);
                name.starts_with("cudaMemcpy") && !name.contains("Async") && a.start_ns < g.start_ns
            })
        })
        .collect();
    assert!(
        !blocking.is_empty(),
        "the saxpy export has gaps before blocking copies"
    );
    for g in &blocking {
        assert_eq!(g.class, GapClass::PageableCopy, "gap at {}", g.start_ns);
    }
    // The blocking copies started 17.7 ms before their op; without them the
    // most negative queue delay is a kernel starting a few µs before its
    // `cudaLaunchKernel` returned.
    assert!(
        r.launch.queue_delay.min_ns > -1_000_000,
        "{:?}",
        r.launch.queue_delay
    );
}

#[test]
fn filters_that_match_nothing_name_what_exists() {
    // The 2026.2 export has device 0 stream 7 (pid 111) and device 1 stream
    // 15 (pid 112); stream 99 selects nothing and must not print an empty report.
    let f = fixture(CORPUS[2]);
    let (code, out, err) = rooftrace(&["gaps", f.to_str().unwrap(), "--stream", "99"]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(out.is_empty(), "{out}");
    assert!(
        err.contains(
            "no GPU op matches --stream 99; the export has: device 0 stream 7, device 1 stream 15"
        ),
        "{err}"
    );
}

#[test]
fn nvtx_pattern_matching_nothing_is_diagnosed_with_examples() {
    // The 2026.2 export's NVTX texts are PyTorch/FSDP op names
    // ("FSDP::inputs_to_device, op_id = ..."); none starts with "forward".
    let path = fixture(CORPUS[2]);
    let t = read(&path, true);
    let cfg = GapConfig {
        nvtx: Some(regex::Regex::new("^forward").unwrap()),
        ..GapConfig::default()
    };
    let r = analyze(&t, &cfg);
    assert!(r.ranges.as_ref().unwrap().instances.is_empty());
    let d = r
        .diagnostics
        .iter()
        .find(|d| d.kind == rooftrace::gaps::DiagnosticKind::NvtxNoMatch)
        .expect("a diagnostic for the empty match");
    // The most frequent ranges, with their counts: each op_id-tagged
    // PyTorch range appears at most twice (once per rank); ties go by text.
    assert!(
        d.message.contains("the most frequent ranges are `aten::_to_copy, op_id = 317173` (2), `aten::add, op_id = 314359` (2)"),
        "{d}"
    );
}

#[test]
fn stream_wait_event_and_query_rows_are_not_host_syncs() {
    // Two kernels on pid 1 ([100, 900) and [1500, 1600)); the second is
    // launched at 908, after the GPU went idle at 900, so the gap [900, 1500)
    // is host-bound unless the launching thread was blocked in a sync. The
    // only SYNCHRONIZATION row, 905..907, belongs to the call with
    // correlationId `corr`:
    // * the runtime `cudaStreamWaitEvent` (corr 2, syncType 2 as in the
    //   2026.2 corpus export): it returns at once and blocks no one;
    // * a `cudaEventQuery` (corr 4, syncType 1 as in the 2026.2 export):
    //   a query never blocks;
    // * a call missing from the runtime table (corr 9), syncType 3 (stream
    //   synchronize in every version): a sync of the process, thread
    //   unknown; it covers 2 ns of the gap and the launch comes 1 ns later
    //   (1 <= max(5 us, 2 ns)): synchronisation.
    let sql = |corr: u32, sync_type: u32| {
        format!(
            "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);
             INSERT INTO StringIds VALUES (1, 'k'), (2, 'cudaLaunchKernel_v7000'),
               (3, 'cudaStreamWaitEvent_v3020'), (4, 'cudaEventQuery_v3020');
             CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, deviceId INTEGER,
               streamId INTEGER, correlationId INTEGER, globalPid INTEGER, shortName INTEGER);
             INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES
               (100, 900, 0, 7, 1, 16777216, 1), (1500, 1600, 0, 7, 3, 16777216, 1);
             CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER, end INTEGER, globalTid INTEGER,
               correlationId INTEGER, nameId INTEGER);
             INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES
               (10, 20, 16777217, 1, 2), (905, 907, 16777218, 2, 3), (908, 918, 16777217, 3, 2),
               (905, 907, 16777218, 4, 4);
             CREATE TABLE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (start INTEGER, end INTEGER,
               deviceId INTEGER, streamId INTEGER, correlationId INTEGER, globalPid INTEGER,
               syncType INTEGER);
             INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION VALUES
               (905, 907, 0, 7, {corr}, 16777216, {sync_type});"
        )
    };
    for (corr, sync_type, class) in [
        (2, 2, GapClass::HostBound),
        (4, 1, GapClass::HostBound),
        (9, 3, GapClass::Synchronization),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("wait.sqlite");
        Connection::open(&db)
            .unwrap()
            .execute_batch(&sql(corr, sync_type))
            .unwrap();
        let r = analyze(&read(&db, false), &GapConfig::default());
        assert_eq!(r.devices[0].idle_ns, 600);
        assert_eq!(r.top_gaps.len(), 1);
        assert_eq!(
            r.top_gaps[0].class, class,
            "corr {corr}, syncType {sync_type}"
        );
    }
}

#[test]
fn csv_splits_host_bound_per_device_and_leaves_streams_unknown() {
    let f = fixture("nsys/nsys2024.5.1_pipit_cloverleaf.sqlite");
    let f = f.to_str().unwrap();
    let (code, out, err) = rooftrace(&["gaps", f, "--format", "csv"]);
    assert_eq!(code, 0, "{err}");
    let (code, js, err) = rooftrace(&["gaps", f, "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&js).unwrap();
    let mut rd = csv::Reader::from_reader(out.as_bytes());
    let head: Vec<String> = rd.headers().unwrap().iter().map(str::to_string).collect();
    let col = |name: &str| head.iter().position(|h| h == name).unwrap();
    let details: Vec<&String> = head
        .iter()
        .filter(|h| h.starts_with("host_detail_") && h.ends_with("_ns"))
        .collect();
    assert_eq!(details.len(), 8, "{head:?}");
    let (mut devices, mut streams) = (0, 0);
    for rec in rd.records() {
        let rec = rec.unwrap();
        if &rec[0] == "device" {
            devices += 1;
            // The split sums to the host-bound total, and is the JSON's.
            let sum: i64 = details
                .iter()
                .map(|h| rec[col(h)].parse::<i64>().unwrap())
                .sum();
            assert_eq!(sum, rec[col("host_bound_ns")].parse::<i64>().unwrap());
            let os: i64 = rec[col("host_detail_os_runtime_ns")].parse().unwrap();
            assert_eq!(os, v["devices"][0]["host_detail"]["os_runtime"]["total_ns"]);
            assert!(
                os > 0,
                "CloverLeaf's host-bound time is mostly OS runtime calls"
            );
        } else {
            streams += 1;
            assert!(details.iter().all(|h| rec[col(h)].is_empty()));
        }
    }
    assert_eq!((devices, streams > 0), (1, true));
}

#[test]
fn host_bound_inside_pytorch_ranges_names_the_pytorch_fix() {
    // The nsys-ai MFU export: 42.5 ms of its 47.5 ms host-bound idle is
    // spent inside NVTX ranges, and the longest such gaps are in PyTorch's
    // `aten::` op ranges (`torch.autograd.profiler.emit_nvtx`).
    let f = fixture("nsys/nsys2026.2.1_nsysai_mfu_2gpu_before_nccl.sqlite");
    let (code, out, err) = rooftrace(&["gaps", f.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let verdict = out.lines().next().unwrap();
    assert!(
        verdict.contains("fix first: PyTorch issues its ops"),
        "{verdict}"
    );
    assert!(verdict.contains("torch.compile"), "{verdict}");
    // The PyTorch range covering most of the longest such gap: the outer
    // `aten::layer_norm` (the `aten::native_layer_norm` nested in it covers
    // less).
    assert!(verdict.contains("e.g. `aten::layer_norm`"), "{verdict}");
    // The host-bound table's NVTX row carries the same fix.
    let row = out
        .lines()
        .find(|l| l.starts_with("inside an NVTX range"))
        .unwrap();
    assert!(row.contains("torch.compile"), "{row}");
}
