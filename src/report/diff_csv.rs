//! The CSV of a [`DiffReport`]: one row per compared row and figure
//! (before, after, delta, rel, verdict; SI units), and on every row
//! whether the report compares two GPU models (`cross_gpu`).

use crate::diff::gaps::{DeviceDiff, GapsDiff};
use crate::diff::ncu::NcuDiff;
use crate::diff::{Change, DiffReport};

fn cells(c: &Change) -> [String; 5] {
    let o = |v: Option<f64>| v.map(|x| format!("{x}")).unwrap_or_default();
    [
        o(c.before),
        o(c.after),
        o(c.delta),
        o(c.rel),
        c.verdict.key().to_string(),
    ]
}

/// Column names `<metric>_before`, `_after`, `_delta`, `_rel`, `_verdict`.
fn metric_cols(m: &str) -> [String; 5] {
    ["before", "after", "delta", "rel", "verdict"].map(|s| format!("{m}_{s}"))
}

/// The ncu rows of the CSV: one per kernel row, then the totals.
fn csv_ncu(n: &NcuDiff, write: &mut dyn FnMut(Vec<String>)) {
    let mut h = vec![
        "row".to_string(),
        "name".into(),
        "occurrence".into(),
        "verdict".into(),
    ];
    for m in [
        "duration_ns",
        "dram_bytes",
        "flop",
        "intensity",
        "fraction_of_roof",
        "time_lost_ns",
    ] {
        h.extend(metric_cols(m));
    }
    h.push("why".into());
    write(h);
    for k in &n.kernels {
        let mut rec = vec![
            "kernel".to_string(),
            k.name.clone(),
            k.occurrence.to_string(),
            k.verdict.key().into(),
        ];
        for c in [
            &k.duration_ns,
            &k.dram_bytes,
            &k.flop,
            &k.intensity,
            &k.fraction_of_roof,
            &k.time_lost_ns,
        ] {
            rec.extend(cells(c));
        }
        rec.push(k.why.clone());
        write(rec);
    }
    let t = &n.totals;
    let mut rec = vec![
        "total".to_string(),
        String::new(),
        String::new(),
        t.duration_ns.verdict.key().into(),
    ];
    let none = Change::judge(
        None,
        None,
        crate::diff::noise::Limit { rel: 0.0, abs: 0.0 },
        0.0,
        crate::diff::noise::Worse::Neither,
    );
    for c in [
        &t.duration_ns,
        &t.dram_bytes,
        &t.flop,
        &none,
        &t.fraction_of_roof,
        &t.time_lost_ns,
    ] {
        rec.extend(cells(c));
    }
    rec.push(String::new());
    write(rec);
}

/// The nsys rows of the CSV: devices with their figures, classes and host
/// detail, ranges, gaps.
fn csv_nsys(g: &GapsDiff, write: &mut dyn FnMut(Vec<String>)) {
    let mut h = vec![
        "row".to_string(),
        "device".into(),
        "name".into(),
        "verdict".into(),
    ];
    h.extend(metric_cols("ns"));
    h.extend(["launches_before".to_string(), "launches_after".to_string()]);
    write(h);
    let dev = |d: &DeviceDiff| {
        d.device
            .map(|x| x.to_string())
            .unwrap_or_else(|| "all".into())
    };
    for d in g.devices.iter().chain(std::iter::once(&g.total)) {
        let kinds = d
            .busy_by_kind
            .iter()
            .map(|k| (format!("busy.{}", k.kind), &k.busy_ns));
        let figures = [
            ("span".to_string(), &d.span_ns),
            ("busy".to_string(), &d.busy_ns),
            ("idle".to_string(), &d.idle_ns),
        ];
        for (name, c) in figures.into_iter().chain(kinds) {
            let mut rec = vec!["device".to_string(), dev(d), name, c.verdict.key().into()];
            rec.extend(cells(c));
            write(rec);
        }
        let rows = d
            .classes
            .iter()
            .map(|c| ("class", c))
            .chain(d.host_detail.iter().map(|c| ("host_detail", c)));
        for (section, c) in rows {
            let mut rec = vec![
                section.to_string(),
                dev(d),
                c.class.clone(),
                c.total_ns.verdict.key().into(),
            ];
            rec.extend(cells(&c.total_ns));
            write(rec);
        }
    }
    for x in g.ranges.iter().flatten() {
        for (what, c) in [
            ("median", &x.median_ns),
            ("p90", &x.p90_ns),
            ("idle_median", &x.idle_median_ns),
        ] {
            let mut rec = vec![
                format!("range_{what}"),
                String::new(),
                x.name.clone(),
                x.verdict.key().into(),
            ];
            rec.extend(cells(c));
            write(rec);
        }
    }
    for x in &g.gaps {
        let mut rec = vec![
            "gap".to_string(),
            x.device.to_string(),
            format!("{} -> {}", x.before_op, x.after_op),
            x.verdict.key().into(),
        ];
        rec.extend(cells(&x.duration_ns));
        write(rec);
    }
    // Every kernel name: its total time in the `ns_` columns, its launches
    // in the last two.
    for k in g.kernels.iter().flatten() {
        let mut rec = vec![
            "kernel".to_string(),
            String::new(),
            k.name.clone(),
            k.verdict.key().into(),
        ];
        rec.extend(cells(&k.time_ns));
        let n = |v: Option<f64>| v.map(|x| format!("{x}")).unwrap_or_default();
        rec.push(n(k.launches.before));
        rec.push(n(k.launches.after));
        write(rec);
    }
}

pub(super) fn render_csv(r: &DiffReport) -> Vec<u8> {
    let mut w = csv::Writer::from_writer(Vec::new());
    let cross = r.identity.cross_gpu.to_string();
    // The header comes first and sets the width.
    let mut width: Option<usize> = None;
    let mut write = |mut rec: Vec<String>| {
        let last = match width {
            None => "cross_gpu".to_string(),
            Some(_) => cross.clone(),
        };
        // Rows without the last columns (the launches of kernel rows) leave them empty.
        let n = *width.get_or_insert(rec.len());
        rec.resize(n.max(rec.len()), String::new());
        // Every row's verdict says whether it compares two GPU models.
        rec.push(last);
        // Writing into a Vec cannot fail.
        let _ = w.write_record(&rec);
    };
    if let Some(n) = &r.ncu {
        csv_ncu(n, &mut write);
    }
    if let Some(g) = &r.nsys {
        csv_nsys(g, &mut write);
    }
    let mut bytes = w.into_inner().unwrap_or_default();
    if bytes.last() != Some(&b'\n') {
        bytes.push(b'\n');
    }
    bytes
}
