//! Fuzz entry points: each takes arbitrary bytes and drives one reader the
//! way the CLI does, then renders the result. A panic, an abort, a hang or
//! an allocation beyond libFuzzer's `-rss_limit_mb` is a finding; an `Err`
//! is the expected answer to bad input. Shared by the cargo-fuzz targets
//! (`fuzz/fuzz_targets/`) and the stable replay test
//! (`tests/it/fuzz_replay.rs`), so both exercise the same code.

use rooftrace::report::{Format, Render, RenderOptions};
use rusqlite::Connection;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Every output format, to run the renderers on what parsed.
const FORMATS: [Format; 4] = [Format::Table, Format::Json, Format::Markdown, Format::Csv];

fn render_all<R: Render>(r: &R) {
    let opts = RenderOptions {
        top: 5,
        images: Vec::new(),
    };
    for f in FORMATS {
        let _ = r.render(f, &opts);
    }
}

/// ncu CSV: parse, check, analyse against the roofs the file detects, the
/// H100 datasheet roofs and the file's own peaks (each when it applies), render.
pub fn ncu_csv(data: &[u8]) {
    let Ok(csv) = rooftrace::ncu::parse(data, "fuzz.csv") else {
        return;
    };
    if csv.check_analysable().is_err() {
        return;
    }
    for choice in [
        rooftrace::roofs::RoofsChoice::FromCsv,
        rooftrace::roofs::RoofsChoice::Gpu("h100-sxm".into()),
        rooftrace::roofs::RoofsChoice::Ncu,
    ] {
        let chosen = rooftrace::roofs::choose::<rooftrace::error::InputError>(
            &choice,
            &csv.device_hints(),
            || Ok(csv.roofs_from_peaks()?),
        );
        if let Ok((roofs, gpu)) = chosen {
            let report = rooftrace::roofline::analyze(
                &csv,
                &roofs,
                gpu,
                rooftrace::roofline::GroupBy::Kernel,
            );
            render_all(&report);
        }
    }
}

/// Harness JSON lines: parse, select the roofs, render the report.
pub fn calibrate_results(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(results) = rooftrace::calibrate::results::parse(text, "fuzz.jsonl") else {
        return;
    };
    let cal = rooftrace::calibrate::select::select_roofs(&results);
    let _ = cal.roofs.to_json();
    let report = rooftrace::calibrate::CalibrateReport::new(cal, None);
    render_all(&report);
}

/// Kineto JSON: the bytes as a trace file (plain or gzip, as the reader
/// tells them), read, analysed as `gaps` does, rendered.
pub fn kineto_json(data: &[u8]) {
    let path = scratch().join("fuzz.pt.trace.json");
    if std::fs::write(&path, data).is_err() {
        return;
    }
    if let Ok(t) = rooftrace::kineto::read_timeline(&path) {
        let cfg = rooftrace::gaps::GapConfig {
            nvtx: regex::Regex::new("ProfilerStep").ok(),
            ..Default::default()
        };
        render_all(&rooftrace::gaps::analyze(&t.timeline, &cfg));
    }
    // Read again in small pieces (1 to 61 bytes, from the input's length):
    // the walker then meets a piece end inside every kind of value, and must
    // read the trace exactly as in one piece.
    let whole = rooftrace::kineto::read_counters(&path);
    let cut = rooftrace::kineto::read_in_pieces(&path, 1 + data.len() % 61);
    match (&whole, &cut) {
        (Ok(a), Ok(b)) => {
            assert_eq!(a.timeline.ops, b.timeline.ops, "ops differ in pieces");
            assert_eq!(a.counts, b.counts, "counts differ in pieces");
        }
        (Err(_), Err(_)) => {}
        _ => panic!("read in pieces: {:?} vs {:?}", whole.is_ok(), cut.is_ok()),
    }
}

/// The seed image: a small real export (`fuzz/make_seed.sh`).
fn seed() -> &'static [u8] {
    static SEED: OnceLock<Vec<u8>> = OnceLock::new();
    SEED.get_or_init(|| {
        let here = Path::new(env!("CARGO_MANIFEST_DIR"));
        let p = [
            here.join("seed/nsys_small.sqlite"),
            here.join("fuzz/seed/nsys_small.sqlite"),
        ]
        .into_iter()
        .find(|p| p.is_file())
        .expect("fuzz/seed/nsys_small.sqlite");
        std::fs::read(p).expect("read the seed export")
    })
}

/// A scratch directory in memory when there is one (`/dev/shm`).
fn scratch() -> &'static Path {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| {
        let shm = Path::new("/dev/shm");
        if shm.is_dir() {
            tempfile::tempdir_in(shm).unwrap_or_else(|_| tempfile::tempdir().expect("tempdir"))
        } else {
            tempfile::tempdir().expect("tempdir")
        }
    })
    .path()
}

const TABLES: [&str; 8] = [
    "StringIds",
    "CUPTI_ACTIVITY_KIND_KERNEL",
    "CUPTI_ACTIVITY_KIND_MEMCPY",
    "CUPTI_ACTIVITY_KIND_RUNTIME",
    "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION",
    "META_DATA_EXPORT",
    "NVTX_EVENTS",
    "CUPTI_ACTIVITY_KIND_GRAPH_TRACE",
];

const COLUMNS: [&str; 16] = [
    "start",
    "end",
    "deviceId",
    "streamId",
    "correlationId",
    "globalPid",
    "globalTid",
    "shortName",
    "demangledName",
    "nameId",
    "copyKind",
    "syncType",
    "eventType",
    "textId",
    "id",
    "value",
];

/// Reads bytes off the front of the input.
struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn u8(&mut self) -> u8 {
        match self.0.split_first() {
            Some((b, rest)) => {
                self.0 = rest;
                *b
            }
            None => 0,
        }
    }
    fn pick<'s>(&mut self, xs: &[&'s str]) -> &'s str {
        xs[self.u8() as usize % xs.len()]
    }
    /// An SQL literal: edge integers, a random integer, a real, text, a
    /// blob, NULL.
    fn value(&mut self) -> String {
        match self.u8() % 12 {
            0 => "NULL".into(),
            1 => "0".into(),
            2 => "-1".into(),
            3 => i64::MAX.to_string(),
            4 => i64::MIN.to_string(),
            5 => "4294967295".into(),
            6 => "4294967296".into(),
            7 => (1i64 << 61).to_string(),
            8 => "1e300".into(),
            9 => "'cudaDeviceSynchronize'".into(),
            10 => "x'00ff'".into(),
            _ => {
                let mut v = 0i64;
                for _ in 0..8 {
                    v = (v << 8) | i64::from(self.u8());
                }
                v.to_string()
            }
        }
    }
}

/// One edit from the input, at the row or schema level.
fn edit(b: &mut Bytes) -> String {
    let t = b.pick(&TABLES);
    let q = format!("\"{t}\"");
    let c = b.pick(&COLUMNS);
    match b.u8() % 14 {
        0 | 1 => format!(
            "UPDATE {q} SET \"{c}\" = {} WHERE rowid = {}",
            b.value(),
            rowid(b, &q)
        ),
        2 => format!(
            "UPDATE {q} SET rowid = {} WHERE rowid = {}",
            b.value(),
            rowid(b, &q)
        ),
        3 => format!("DELETE FROM {q} WHERE rowid = {}", rowid(b, &q)),
        4 => format!(
            "INSERT INTO {q} SELECT * FROM {q} WHERE rowid = {}",
            rowid(b, &q)
        ),
        5 => format!("DROP TABLE {q}"),
        6 => format!("ALTER TABLE {q} RENAME TO \"{}\"", b.pick(&TABLES)),
        7 => format!(
            "ALTER TABLE {q} RENAME TO \"{t}_x\"; CREATE VIEW {q} AS SELECT * FROM \"{t}_x\""
        ),
        8 => format!("ALTER TABLE {q} DROP COLUMN \"{c}\""),
        9 => format!("ALTER TABLE {q} ADD COLUMN \"{c}{}\"", b.u8()),
        10 => format!(
            "UPDATE StringIds SET value = printf('%.*c', {}, 'k') WHERE id = \
             (SELECT id FROM StringIds LIMIT 1 OFFSET {})",
            u32::from(b.u8()) << (b.u8() % 14),
            b.u8() % 64
        ),
        11 => format!("INSERT INTO StringIds VALUES ({}, 'cudaMemcpy')", b.value()),
        12 => format!("CREATE TABLE \"{t}\"\"'{}\" (a)", b.u8()),
        _ => format!(
            "DROP TABLE {q}; CREATE VIEW {q} AS WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL \
             SELECT i + 1 FROM c) SELECT i AS \"{c}\" FROM c"
        ),
    }
}

/// A rowid of table `q`: its first, its last, or a small number.
fn rowid(b: &mut Bytes, q: &str) -> String {
    match b.u8() % 4 {
        0 => format!("(SELECT max(rowid) FROM {q})"),
        1 => format!("(SELECT min(rowid) FROM {q})"),
        _ => (b.u8() % 64).to_string(),
    }
}

/// nsys export: the input is a program of SQL edits (and, after a 0xFF
/// byte, raw byte overwrites of the image) applied to a copy of the seed
/// export; the result is read, analysed and rendered like `gaps` does.
pub fn nsys_sql(data: &[u8]) {
    static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let path: PathBuf = scratch().join(format!("e{}.sqlite", n % 4));
    let (program, raw) = match data.iter().position(|&b| b == 0xFF) {
        Some(p) => (&data[..p], &data[p + 1..]),
        None => (data, &[][..]),
    };
    if std::fs::write(&path, seed()).is_err() {
        return;
    }
    if let Ok(conn) = Connection::open(&path) {
        let mut b = Bytes(program);
        for _ in 0..16 {
            if b.0.is_empty() {
                break;
            }
            // An edit that SQLite refuses (no such column, ...) is skipped.
            let _ = conn.execute_batch(&edit(&mut b));
        }
    }
    if !raw.is_empty() {
        if let Ok(mut img) = std::fs::read(&path) {
            for w in raw.chunks(3) {
                if let [hi, lo, v] = *w {
                    let at = (usize::from(hi) << 8 | usize::from(lo)) % img.len().max(1);
                    img[at] = v;
                }
            }
            let _ = std::fs::write(&path, img);
        }
    }
    read_and_render(&path);
    let _ = std::fs::remove_file(&path);
}

/// A read as text, to compare two reads: the timeline's `Debug` (its
/// string table sorted: a hash map's order is its hasher's) or the error.
pub fn timeline_text(r: &Result<rooftrace::nsys::Timeline, rooftrace::nsys::NsysError>) -> String {
    match r {
        Ok(tl) => {
            let table = format!("{:?}", tl.string_table());
            let sorted: std::collections::BTreeMap<_, _> = tl.string_table().iter().collect();
            format!("{tl:?}").replacen(&table, &format!("{sorted:?}"), 1)
        }
        Err(e) => format!("error: {e}"),
    }
}

/// Reading an export twice gives the same timeline or the same error, and
/// leaves its bytes as they were: what SQLite does with a damaged page
/// never depends on the run (`PRAGMA cell_size_check`: a cell pointer past
/// its page once read the bytes after the page buffer, and the same file
/// gave a report in one run and "malformed" in the next).
pub fn reads_the_same_twice(path: &Path) {
    let before = std::fs::read(path).ok();
    let first = timeline_text(&rooftrace::nsys::read_timeline(path, true, &|_, _| {}));
    let second = timeline_text(&rooftrace::nsys::read_timeline(path, true, &|_, _| {}));
    let at = first
        .bytes()
        .zip(second.bytes())
        .take_while(|(a, b)| a == b)
        .count();
    let near = |s: &str| {
        let mut a = at.saturating_sub(300);
        while !s.is_char_boundary(a) {
            a -= 1;
        }
        s[a..].chars().take(600).collect::<String>()
    };
    assert!(
        first == second,
        "two reads of one export differ at byte {at}:\nfirst  {}\nsecond {}",
        near(&first),
        near(&second)
    );
    assert!(
        std::fs::read(path).ok() == before,
        "reading the export changed its bytes"
    );
}

fn read_and_render(path: &Path) {
    reads_the_same_twice(path);
    let read = rooftrace::nsys::read_timeline(path, true, &|_, _| {});
    let Ok(tl) = read else {
        return;
    };
    let cfg = rooftrace::gaps::GapConfig {
        nvtx: regex::Regex::new(".").ok(),
        keep_gaps: true,
        ..Default::default()
    };
    let report = rooftrace::gaps::analyze(&tl, &cfg);
    render_all(&report);
    same_without_far_ranges(path, &tl);
}

/// Without `--nvtx`, `gaps` reads only the NVTX ranges its analysis can
/// look at (`gaps::range_filter`): the same report, every gap listed, as
/// over every range `tl` holds.
fn same_without_far_ranges(path: &Path, tl: &rooftrace::nsys::Timeline) {
    let cfg = rooftrace::gaps::GapConfig {
        top: 0,
        ..Default::default()
    };
    let near = |t: &rooftrace::nsys::Timeline| rooftrace::gaps::range_filter(t, &cfg);
    let read = rooftrace::nsys::read_timeline_near(path, true, &|_, _| {}, &near);
    let near_tl = match read {
        Ok(t) => t,
        Err(e) => panic!("the read of the ranges near gaps failed, the read of all did not: {e}"),
    };
    let json = |t: &rooftrace::nsys::Timeline| {
        rooftrace::gaps::analyze(t, &cfg).render(Format::Json, &RenderOptions::default())
    };
    let (near, all) = (json(&near_tl), json(tl));
    let at = near.iter().zip(&all).take_while(|(a, b)| a == b).count();
    let around = |v: &[u8]| {
        String::from_utf8_lossy(&v[at.saturating_sub(300)..(at + 300).min(v.len())]).into_owned()
    };
    assert!(
        near == all,
        "the report over the ranges near gaps differs from the report over all ranges at byte {at}:\nnear {}\nall  {}",
        around(&near),
        around(&all)
    );
}
