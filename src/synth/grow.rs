//! Grows a real Nsight Systems export to any size by repeating its timed
//! rows (kernels, runtime calls, copies, memsets, synchronisation, NVTX
//! ranges, CUPTI overhead) back to back: copy `k` is shifted by `k` times
//! the capture's span (plus a 1 ms pause) and its correlation ids by `k`
//! times their span, so launches still join their GPU work, ranges nest as
//! they did, and both GPUs (every device of the source) scale alike. For
//! benchmarks on real row shapes (`benches/gaps.rs`,
//! `examples/gen_nsys.rs --grow-from`), not a parser.

use rusqlite::Connection;
use std::path::Path;

/// The tables whose rows are repeated, when present.
const TIMED: &[&str] = &[
    "CUPTI_ACTIVITY_KIND_KERNEL",
    "CUPTI_ACTIVITY_KIND_RUNTIME",
    "CUPTI_ACTIVITY_KIND_MEMCPY",
    "CUPTI_ACTIVITY_KIND_MEMSET",
    "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION",
    "CUPTI_ACTIVITY_KIND_CUDA_EVENT",
    "CUPTI_ACTIVITY_KIND_OVERHEAD",
    "NVTX_EVENTS",
    "OSRT_API",
    "PROFILER_OVERHEAD",
];

/// Columns holding a time (ns) that moves with each copy.
const TIME_COLUMNS: &[&str] = &[
    "start",
    "end",
    "timestamp",
    "qmdBulkReleaseDone",
    "qmdPreexitDone",
    "qmdLastCtaDone",
];

/// What [`grow`] wrote.
#[derive(Debug, Clone, Copy)]
pub struct Grown {
    /// Copies of the source's rows (the source itself counts as one).
    pub copies: u64,
    /// Kernel rows in the result.
    pub kernels: u64,
    /// Shift of each copy, ns (the source's span plus 1 ms).
    pub shift_ns: i64,
}

fn columns(db: &Connection, table: &str) -> rusqlite::Result<Vec<String>> {
    let mut st = db.prepare(&format!("select name from pragma_table_info('{table}')"))?;
    let cols = st.query_map([], |r| r.get::<_, String>(0))?;
    cols.collect()
}

/// Copies `src` to `out` (which must not exist) and repeats its timed rows
/// until the kernel table holds at least `kernels` rows.
pub fn grow(src: &Path, out: &Path, kernels: u64) -> Result<Grown, Box<dyn std::error::Error>> {
    if out.exists() {
        return Err(format!("{} exists; remove it first", out.display()).into());
    }
    std::fs::copy(src, out)?;
    // A read-only source (the corpus) gives a read-only copy.
    let mut perm = std::fs::metadata(out)?.permissions();
    #[allow(clippy::permissions_set_readonly_false)]
    perm.set_readonly(false);
    std::fs::set_permissions(out, perm)?;
    let db = Connection::open(out)?;
    db.execute_batch("pragma journal_mode=off; pragma synchronous=off;")?;
    let present: Vec<&str> = TIMED
        .iter()
        .copied()
        .filter(|t| {
            db.query_row(
                "select count(*) from sqlite_master where type='table' and name=?1",
                [t],
                |r| r.get::<_, i64>(0),
            )
            .is_ok_and(|n| n > 0)
        })
        .collect();
    let mut lo = i64::MAX;
    let mut hi = i64::MIN;
    let (mut corr_lo, mut corr_hi) = (i64::MAX, i64::MIN);
    for t in &present {
        let cols = columns(&db, t)?;
        for c in ["start", "end", "timestamp"] {
            if cols.iter().any(|x| x == c) {
                let (a, b): (Option<i64>, Option<i64>) =
                    db.query_row(&format!("select min({c}), max({c}) from {t}"), [], |r| {
                        Ok((r.get(0)?, r.get(1)?))
                    })?;
                lo = lo.min(a.unwrap_or(i64::MAX));
                hi = hi.max(b.unwrap_or(i64::MIN));
            }
        }
        if cols.iter().any(|x| x == "correlationId") {
            let (a, b): (Option<i64>, Option<i64>) = db.query_row(
                &format!("select min(correlationId), max(correlationId) from {t}"),
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )?;
            corr_lo = corr_lo.min(a.unwrap_or(i64::MAX));
            corr_hi = corr_hi.max(b.unwrap_or(i64::MIN));
        }
    }
    let base: u64 = db.query_row("select count(*) from CUPTI_ACTIVITY_KIND_KERNEL", [], |r| {
        r.get::<_, i64>(0)
    })? as u64;
    if base == 0 || hi < lo {
        return Err(format!("{}: no kernels to grow from", src.display()).into());
    }
    let copies = kernels.div_ceil(base).max(1);
    let shift_ns = hi - lo + 1_000_000;
    let corr_shift = if corr_hi >= corr_lo {
        corr_hi - corr_lo + 1
    } else {
        0
    };
    for t in &present {
        let cols = columns(&db, t)?;
        let exprs: Vec<String> = cols
            .iter()
            .map(|c| {
                if TIME_COLUMNS.contains(&c.as_str()) {
                    format!("s.\"{c}\" + k.i * {shift_ns}")
                } else if c == "correlationId" {
                    format!("s.\"{c}\" + k.i * {corr_shift}")
                } else {
                    format!("s.\"{c}\"")
                }
            })
            .collect();
        let list: Vec<String> = cols.iter().map(|c| format!("\"{c}\"")).collect();
        // `cross join` keeps the copies the outer loop, so rowids stay in
        // time order as in an export.
        db.execute_batch(&format!(
            "create temp table src_rows as select * from {t} order by rowid;
             with recursive k(i) as (select 1 union all select i + 1 from k where i < {n})
             insert into {t} ({cols}) select {exprs} from k cross join src_rows as s;
             drop table src_rows;",
            n = copies - 1,
            cols = list.join(","),
            exprs = exprs.join(","),
        ))?;
    }
    Ok(Grown {
        copies,
        kernels: base * copies,
        shift_ns,
    })
}
