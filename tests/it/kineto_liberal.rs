//! Issue 30: liberal per field, strict per document. Each case the
//! mutation run found (one odd field, an exponent time, a byte-order mark,
//! a top-level array, UTF-16, a repeated key, the exact string bound) is
//! applied to the real trace `fixtures/kineto/cuda_event_sync.json.gz`
//! (4 kernels, 4 `cuda_sync` records, `deviceProperties`,
//! `distributedInfo`), and busy/idle per device is checked against a union
//! computed here from the mutated JSON with serde_json `Value` (no
//! rooftrace code), leaving out exactly the event the case should cost.

use crate::common::{fixture, rooftrace};
use rooftrace::gaps::{analyze, GapConfig};
use rooftrace::kineto::{read_timeline, KinetoTrace, Skip};
use rooftrace::timeline::DiagnosticKind;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::io::{Read, Write};

/// The real trace, parsed whole.
fn base() -> Value {
    let mut text = String::new();
    flate2::read::GzDecoder::new(
        std::fs::File::open(fixture("kineto/cuda_event_sync.json.gz")).unwrap(),
    )
    .read_to_string(&mut text)
    .unwrap();
    serde_json::from_str(&text).unwrap()
}

fn events(doc: &mut Value) -> &mut Vec<Value> {
    doc["traceEvents"].as_array_mut().unwrap()
}

/// Index of the first event of `cat` (and, when given, of `name`).
fn find(doc: &mut Value, cat: &str, name: Option<&str>) -> usize {
    events(doc)
        .iter()
        .position(|e| e["cat"] == cat && name.is_none_or(|n| e["name"] == n))
        .unwrap()
}

fn temp(bytes: &[u8], suffix: &str) -> tempfile::NamedTempFile {
    let mut f = tempfile::Builder::new().suffix(suffix).tempfile().unwrap();
    f.write_all(bytes).unwrap();
    f
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

/// µs as ns, from the JSON number (integers exactly).
fn ns(v: &Value) -> i64 {
    v.as_i64().map_or_else(
        || (v.as_f64().unwrap() * 1000.0).round() as i64,
        |us| us * 1000,
    )
}

/// The reference: per device, (first start, last end, union length) of the
/// complete kernel/copy/memset events whose device (`args.device` when an
/// integer, else `pid`) is known.
fn reference(events: &[Value]) -> BTreeMap<i64, (i64, i64, i64)> {
    let mut per: BTreeMap<i64, Vec<(i64, i64)>> = BTreeMap::new();
    for e in events {
        let cat = e["cat"].as_str().unwrap_or("");
        if e["ph"] != "X" || !["kernel", "gpu_memcpy", "gpu_memset"].contains(&cat) {
            continue;
        }
        let device = e["args"]["device"].as_i64().or(e["pid"].as_i64()).unwrap();
        let start = ns(&e["ts"]);
        per.entry(device)
            .or_default()
            .push((start, start + ns(&e["dur"])));
    }
    per.into_iter()
        .map(|(device, mut iv)| {
            iv.sort();
            let (first, mut last, mut busy) = (iv[0].0, iv[0].1, 0);
            let mut cur = iv[0];
            for &(s, e) in &iv[1..] {
                if s > cur.1 {
                    busy += cur.1 - cur.0;
                    cur = (s, e);
                } else {
                    cur.1 = cur.1.max(e);
                }
                last = last.max(e);
            }
            busy += cur.1 - cur.0;
            (device, (first, last, busy))
        })
        .collect()
}

/// Per device (start, end, busy) as `gaps` computes them; idle is checked
/// to be span − busy.
fn measured(trace: &KinetoTrace) -> BTreeMap<i64, (i64, i64, i64)> {
    let report = analyze(&trace.timeline, &GapConfig::default());
    report
        .devices
        .iter()
        .map(|d| {
            assert_eq!(d.idle_ns, d.span_ns - d.busy_ns);
            (i64::from(d.device), (d.start_ns, d.end_ns, d.busy_ns))
        })
        .collect()
}

/// Reads `bytes` as a trace and checks busy/idle against `expect_from`.
fn read_checked(bytes: &[u8], expect_from: &Value) -> KinetoTrace {
    let f = temp(bytes, ".json");
    let t = read_timeline(f.path()).unwrap_or_else(|e| panic!("{e}"));
    let expect = reference(expect_from["traceEvents"].as_array().unwrap());
    assert_eq!(measured(&t), expect);
    // The same in pieces of 1 to 3 bytes: a first piece shorter than the
    // byte-order mark once read the mark as text ("expected value"; the
    // fuzz run's finding crash-4433f7e4…, a UTF-8 mark in pieces of 2).
    for n in 1..=3 {
        let cut =
            rooftrace::kineto::read_in_pieces(f.path(), n).unwrap_or_else(|e| panic!("{n}: {e}"));
        assert_eq!(cut.timeline.ops, t.timeline.ops, "pieces of {n}");
        assert_eq!(cut.counts, t.counts, "pieces of {n}");
    }
    t
}

fn skipped(t: &KinetoTrace, why: Skip) -> u64 {
    t.counts.skipped.get(&why).copied().unwrap_or(0)
}

#[test]
fn an_odd_field_costs_its_event_and_nothing_else() {
    let unmodified = read_checked(&serde_json::to_vec(&base()).unwrap(), &base());
    assert_eq!(unmodified.counts.bad, 0);
    let ranges = unmodified.timeline.nvtx.len();
    let records = unmodified.sync_records.len();

    // `cuda_sync_kind: 3` (not a string): that record is skipped.
    let mut doc = base();
    let i = find(&mut doc, "cuda_sync", Some("Stream Sync"));
    events(&mut doc)[i]["args"]["cuda_sync_kind"] = json!(3);
    let t = read_checked(&serde_json::to_vec(&doc).unwrap(), &doc);
    assert_eq!((skipped(&t, Skip::SyncKind), t.counts.bad), (1, 1));
    assert_eq!(t.sync_records.len(), records - 1);
    assert!(t.timeline.diagnostics.iter().any(|d| d.kind
        == DiagnosticKind::SkippedEvents {
            events: 1,
            reason: "args.cuda_sync_kind"
        }));

    // A bool `pid` on a `cpu_op`: that range is skipped.
    let mut doc = base();
    let i = find(&mut doc, "cpu_op", None);
    events(&mut doc)[i]["pid"] = json!(true);
    let t = read_checked(&serde_json::to_vec(&doc).unwrap(), &doc);
    assert_eq!((skipped(&t, Skip::Pid), t.counts.bad), (1, 1));
    assert_eq!(t.timeline.nvtx.len(), ranges - 1);

    // `args: null` on a `python_function` and `cat: null` on metadata: values
    // rooftrace does not read are never looked at.
    let mut doc = base();
    let ts = events(&mut doc)[0]["ts"].clone();
    events(&mut doc).push(json!({"ph": "X", "cat": "python_function", "name": "f",
        "pid": 1, "tid": 1, "ts": ts, "dur": 1, "args": null}));
    for e in events(&mut doc).iter_mut().filter(|e| e["ph"] == "M") {
        e["cat"] = Value::Null;
    }
    let t = read_checked(&serde_json::to_vec(&doc).unwrap(), &doc);
    assert_eq!(t.counts.bad, 0);
    assert_eq!(t.timeline.nvtx.len(), ranges);

    // `args.device: "abc"`: the kernel is placed by its `pid` (here 1), with
    // a note; the reference does the same.
    let mut doc = base();
    let i = find(&mut doc, "kernel", None);
    events(&mut doc)[i]["args"]["device"] = json!("abc");
    events(&mut doc)[i]["pid"] = json!(1);
    let t = read_checked(&serde_json::to_vec(&doc).unwrap(), &doc);
    assert_eq!(t.counts.bad, 0);
    assert_eq!(t.counts.placed_by_row, 1);
    assert!(measured(&t).contains_key(&1), "device 1 from the pid");
    assert!(t
        .timeline
        .diagnostics
        .iter()
        .any(|d| d.kind == DiagnosticKind::PlacedByRow { ops: 1 }));
}

#[test]
fn odd_metadata_costs_that_fact_with_a_note() {
    let mut doc = base();
    doc["deviceProperties"][0]["totalGlobalMem"] = json!(-1);
    doc["distributedInfo"]["rank"] = json!(1u64 << 40);
    // `computeMajor: 8.0` is the integer 8, exactly: no note.
    let text = serde_json::to_string(&doc).unwrap().replacen(
        "\"computeMajor\":8,",
        "\"computeMajor\":8.0,",
        1,
    );
    assert!(text.contains("\"computeMajor\":8.0,"));
    let t = read_checked(text.as_bytes(), &doc);
    assert_eq!(t.devices[0].total_global_mem, None);
    assert_eq!(t.devices[0].compute_major, Some(8));
    assert_eq!(t.devices[1].total_global_mem, Some(42_297_524_224));
    assert_eq!(t.distributed.as_ref().unwrap().rank, None);
    let notes: Vec<_> = t
        .timeline
        .diagnostics
        .iter()
        .filter_map(|d| match d.kind {
            DiagnosticKind::UnusableMetadata { key, field } => Some((key, field)),
            _ => None,
        })
        .collect();
    assert_eq!(
        notes,
        [
            ("deviceProperties", "totalGlobalMem"),
            ("distributedInfo", "rank")
        ]
    );
    assert_eq!(t.timeline.info.identity.rank, None);
}

#[test]
fn text_level_cases_read_as_the_reference_says() {
    let doc = base();
    let text = serde_json::to_string(&doc).unwrap();
    // serde_json writes keys sorted: a kernel ends `"tid":7,"ts":…}`.
    let first_ts = "\"tid\":7,\"ts\":1707417525512145}";
    assert!(text.contains(first_ts));

    // An exponent time: exact (an f64 puts this kernel 104 ns early).
    let exp = text.replacen(first_ts, "\"tid\":7,\"ts\":1.707417525512145E15}", 1);
    let t = read_checked(exp.as_bytes(), &doc);
    assert_eq!(t.counts.bad, 0);
    assert!(t
        .timeline
        .ops
        .iter()
        .any(|o| o.start_ns == 1_707_417_525_512_145_000));

    // A duplicate key inside an event: the last wins (as serde_json's
    // `Value` and Python's `json` read it).
    let dup = text.replacen("\"dur\":36,", "\"dur\":999999,\"dur\":36,", 1);
    assert_ne!(dup, text);
    read_checked(dup.as_bytes(), &serde_json::from_str(&dup).unwrap());

    // A lone surrogate in a kernel name: the name keeps U+FFFD.
    let name = "at::cuda::(anonymous namespace)::spin_kernel(long)";
    let lone = text.replacen(name, "at::cuda::\\ud800spin_kernel(long)", 1);
    assert_ne!(lone, text);
    let t = read_checked(lone.as_bytes(), &doc);
    assert!(t.timeline.ops.iter().any(|o| {
        let n = t.timeline.name(o.name);
        n.contains('\u{FFFD}') && n.ends_with("spin_kernel(long)")
    }));

    // A top-level array (the older Chrome-trace form).
    let array = serde_json::to_vec(&doc["traceEvents"]).unwrap();
    read_checked(&array, &doc);

    // A UTF-8 byte-order mark, plain and gzip; UTF-16 with and without one.
    let mut bom = b"\xEF\xBB\xBF".to_vec();
    bom.extend_from_slice(text.as_bytes());
    read_checked(&bom, &doc);
    read_checked(&gzip(&bom), &doc);
    let mut le = vec![0xFF, 0xFE];
    le.extend(text.encode_utf16().flat_map(u16::to_le_bytes));
    read_checked(&le, &doc);
    let be: Vec<u8> = text.encode_utf16().flat_map(u16::to_be_bytes).collect();
    read_checked(&be, &doc);

    // Two `traceEvents` arrays: the last is read, with a note.
    let twice = format!(
        "{{\"traceEvents\":[{{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":1,\"dur\":1,\"args\":{{\"device\":0,\"stream\":7}}}}],{}",
        &text[1..]
    );
    let t = read_checked(twice.as_bytes(), &doc);
    assert!(t
        .timeline
        .diagnostics
        .iter()
        .any(|d| d.kind == DiagnosticKind::RepeatedEventArrays { arrays: 2 }));
}

#[test]
fn the_string_bound_is_exact() {
    let doc = base();
    let text = serde_json::to_string(&doc).unwrap();
    let limit = rooftrace::kineto::input::MAX_STRING_BYTES as usize;
    // A string in an event rooftrace does not read still counts.
    for (len, ok) in [(limit, true), (limit + 1, false), (limit + 60_000, false)] {
        let long = format!(
            "{{\"traceEvents\":[{{\"ph\":\"X\",\"cat\":\"python_function\",\"name\":\"{}\"}},{}",
            "x".repeat(len),
            &text[text.find("\"traceEvents\":[").unwrap() + 15..]
        );
        for data in [long.as_bytes().to_vec(), gzip(long.as_bytes())] {
            let f = temp(&data, ".json");
            match read_timeline(f.path()) {
                Ok(t) => {
                    assert!(ok, "{len} bytes must be refused");
                    let expect = reference(doc["traceEvents"].as_array().unwrap());
                    assert_eq!(measured(&t), expect);
                }
                Err(e) => {
                    assert!(!ok, "{len} bytes must be read: {e}");
                    assert!(e.to_string().contains("longer than 1048576 bytes"), "{e}");
                }
            }
        }
    }
}

#[test]
fn metadata_before_trace_events_is_detected_the_same_by_every_command() {
    // No `schemaVersion`, 70 kB of metadata first: the content test scans
    // the top-level keys, so gaps FILE, gaps DIR and diff all take it.
    let doc = base();
    let body = serde_json::to_string(&doc["traceEvents"]).unwrap();
    let text = format!(
        "{{\"extraMetadata\":{{\"note\":\"{}\",\"traceEvents\":0}},\"traceEvents\":{body}}}",
        "m".repeat(70_000)
    );
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rank0.json");
    std::fs::write(&path, &text).unwrap();
    let p = path.to_str().unwrap();
    let d = dir.path().to_str().unwrap();
    let (code, out, err) = rooftrace(&["gaps", p, "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let (code, out_dir, err) = rooftrace(&["gaps", d, "--format", "json"]);
    assert_eq!(code, 0, "gaps DIR: {err}");
    // One trace found: the directory's report is the file's.
    assert_eq!(out_dir, out, "gaps DIR found the trace");
    let (code, _, err) = rooftrace(&["diff", p, p]);
    assert_eq!(code, 0, "diff: {err}");
    // And the busy time is the reference's.
    let report: Value = serde_json::from_str(&out).unwrap();
    let busy: i64 = reference(doc["traceEvents"].as_array().unwrap())
        .values()
        .map(|v| v.2)
        .sum();
    let got: i64 = report["devices"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["busy_ns"].as_i64().unwrap())
        .sum();
    assert_eq!(got, busy);
}

#[test]
fn budget_reads_a_top_level_array_and_names_the_file_when_it_is_cut() {
    let doc = base();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("array.json");
    std::fs::write(&path, serde_json::to_vec(&doc["traceEvents"]).unwrap()).unwrap();
    let p = path.to_str().unwrap();
    let (code, _, err) = rooftrace(&["budget", p, "--gpu", "a100-40gb", "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let cut = dir.path().join("cut.json");
    let text = serde_json::to_string(&doc["traceEvents"]).unwrap();
    std::fs::write(&cut, &text[..text.len() / 2]).unwrap();
    let (code, _, err) = rooftrace(&["budget", cut.to_str().unwrap(), "--gpu", "a100-40gb"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("cut.json"), "names the file: {err}");
}

#[test]
fn args_are_read_in_either_key_order_and_odd_args_hold_nothing() {
    // Kineto writes `cat` before `args` (decoded as parsed); other writers
    // may not (decoded afterwards). `args: null` or `3` on a kernel: device
    // and stream come from the row (`pid` 3, `tid` 9).
    let text = r#"{"traceEvents":[
        {"ph":"X","cat":"kernel","name":"a","pid":0,"tid":7,"ts":1,"dur":2,"args":{"device":1,"stream":7,"correlation":5}},
        {"args":{"device":1,"stream":7,"correlation":6},"ph":"X","cat":"kernel","name":"b","pid":0,"tid":7,"ts":4,"dur":2},
        {"ph":"X","cat":"kernel","name":"c","pid":3,"tid":9,"ts":10,"dur":1,"args":null},
        {"ph":"X","args":3,"cat":"kernel","name":"d","pid":3,"tid":9,"ts":20,"dur":1}
    ]}"#;
    let doc: Value = serde_json::from_str(text).unwrap();
    let t = read_checked(text.as_bytes(), &doc);
    assert_eq!(t.counts.bad, 0);
    let mut placed: Vec<(u16, u32, u32)> = t
        .timeline
        .ops
        .iter()
        .map(|o| (o.device, o.stream, o.correlation_id))
        .collect();
    placed.sort();
    assert_eq!(placed, [(1, 7, 5), (1, 7, 6), (3, 9, 0), (3, 9, 0)]);
}

#[test]
fn pieces_of_any_size_read_every_trace_the_same() {
    // The text reaches the parser in pieces; a piece may end anywhere (inside
    // a number: `1.`, `1e`, `-`; a string; an escape; a key). Every fixture
    // trace read in pieces of 1, 2, 7 and 4093 bytes equals the default
    // reading (a 256 KiB piece once cut `1.` and read "invalid number").
    for name in ["cuda_event_sync", "amd_mi250_rocm6.2", "simple_add"] {
        let path = fixture(&format!("kineto/{name}.json.gz"));
        let whole = rooftrace::kineto::read_counters(&path).unwrap();
        for piece in [1, 2, 7, 4093] {
            let cut = rooftrace::kineto::read_in_pieces(&path, piece)
                .unwrap_or_else(|e| panic!("{name} in pieces of {piece}: {e}"));
            assert_eq!(cut.timeline.ops, whole.timeline.ops, "{name} {piece}");
            assert_eq!(cut.timeline.api, whole.timeline.api, "{name} {piece}");
            assert_eq!(cut.timeline.nvtx.len(), whole.timeline.nvtx.len());
            assert_eq!(cut.counts, whole.counts, "{name} {piece}");
            assert_eq!(cut.devices, whole.devices);
        }
    }
    // Exponent and fraction times cut at every byte.
    let text = r#"{"traceEvents":[{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":1.5e3,"dur":-0.0e0,"args":{"device":0,"stream":7}},{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":2000.25,"dur":1E1,"args":{"device":0,"stream":7}}]}"#;
    let f = temp(text.as_bytes(), ".json");
    for piece in 1..=8 {
        let t = rooftrace::kineto::read_in_pieces(f.path(), piece).unwrap();
        let spans: Vec<(i64, i64)> = t
            .timeline
            .ops
            .iter()
            .map(|o| (o.start_ns, o.end_ns))
            .collect();
        assert_eq!(
            spans,
            [(1_500_000, 1_500_000), (2_000_250, 2_010_250)],
            "{piece}"
        );
    }
}

#[test]
fn text_beyond_ascii_is_read_the_same_in_pieces_cut_inside_characters() {
    // The walker checks UTF-8 a piece at a time and keeps a character a
    // piece cut until the next piece ends it: host range names of 2-, 3-
    // and 4-byte characters, read in pieces of 1 to 9 bytes (every cut
    // inside every character), are the names written.
    let names = ["é", "a€b", "😀", "x😀é€y", "\\u00e9 é"];
    let events: Vec<String> = names
        .iter()
        .enumerate()
        .map(|(i, n)| {
            format!(
                r#"{{"ph":"X","cat":"cpu_op","name":"{n}","pid":1,"tid":1,"ts":{i},"dur":1}}"#
            )
        })
        .chain([
            r#"{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":0,"dur":1,"args":{"device":0,"stream":7}}"#
                .to_string(),
        ])
        .collect();
    let text = format!(r#"{{"traceEvents":[{}]}}"#, events.join(","));
    let f = temp(text.as_bytes(), ".json");
    // Expected: the names as JSON decodes them (serde_json, not the reader).
    let mut expect: Vec<String> = names
        .iter()
        .map(|n| serde_json::from_str::<String>(&format!("\"{n}\"")).unwrap())
        .collect();
    expect.sort();
    for piece in (1..=9).chain([256 << 10]) {
        let t = rooftrace::kineto::read_in_pieces(f.path(), piece).unwrap();
        let mut got: Vec<String> = t.timeline.nvtx.iter().map(|r| r.text.to_string()).collect();
        got.sort();
        assert_eq!(got, expect, "pieces of {piece}");
    }
}

#[test]
fn bytes_that_are_not_utf8_are_refused_where_they_are_in_pieces_of_any_size() {
    // Each text holds one place that is not UTF-8 (or ends inside a
    // character); the error names that byte's line and column (1-based,
    // found here by searching the text) and what is wrong there, in the
    // scanner's words, whatever the pieces.
    let head = r#"{"traceEvents":[{"ph":"X","cat":"cpu_op","name":"#;
    let cases: [(&[u8], &str); 8] = [
        (b"\"a\xffb\"}]}", "invalid unicode code point"),
        // A character begun after the document and never ended (the
        // fuzz finding `crash-55849614…`: read whole, this was taken as
        // the end of the text), alone and after whitespace.
        (b"\"a\"}]}\xd3", "trailing characters after the document"),
        (
            b"\"a\"}]} \n\xe2\x82",
            "trailing characters after the document",
        ),
        (b"\"a\xed\xa0\x80\"}]}", "invalid unicode code point"),
        (b"\"a\xc3\"}]}", "invalid unicode code point"),
        (b"\"a\"\xff}]}", "expected `,` or `}`"),
        (
            b"\"a\"}\xc3\xa9]}",
            "expected `,` or `]` after an array element",
        ),
        (b"\"a\xe2\x82", "EOF while parsing a string"),
    ];
    for (tail, what) in cases {
        let text = [head.as_bytes(), tail].concat();
        // The offset of the error: the first byte that is not ASCII, or,
        // for a text cut inside a string, its end.
        let at = match text.iter().position(|&b| b >= 0x80) {
            _ if what.starts_with("EOF") => text.len(),
            Some(at) => at,
            None => unreachable!(),
        };
        let before = &text[..at];
        let line = 1 + before.iter().filter(|&&b| b == b'\n').count();
        let column = match before.iter().rposition(|&b| b == b'\n') {
            Some(newline) => at - newline,
            None => at + 1,
        };
        let f = temp(&text, ".json");
        for piece in (1..=7).chain([256 << 10]) {
            let e = rooftrace::kineto::read_in_pieces(f.path(), piece).unwrap_err();
            let shown = e.to_string();
            assert!(
                shown.contains(&format!("line {line}, column {column}: {what}")),
                "{:?} in pieces of {piece}: {shown}",
                String::from_utf8_lossy(tail)
            );
        }
    }
}
