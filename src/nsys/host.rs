//! The small host-side tables, read on the main thread before the pool:
//! StringIds (which names are sync calls, blocking copies or graph
//! launches), the SYNCHRONIZATION table and NVTX ranges.

use super::guard::{cap_name, checked_interval, string_id};
use super::read::{col_or_null, int, sql_err, NVTX, SYNC};
use super::schema::Schema;
use super::*;
use rusqlite::types::ValueRef;
use rusqlite::Connection;
use std::path::Path;

/// Small host-side tables read before the pool: StringIds (and which names
/// are sync calls or graph launches), the SYNCHRONIZATION table, NVTX.
#[derive(Default)]
pub(super) struct HostRead {
    pub(super) syncs: Vec<SyncCall>,
    pub(super) nvtx: Vec<NvtxRange>,
    pub(super) strings: HashMap<u32, String>,
    pub(super) sync_names: NameSet,
    pub(super) blocking_names: NameSet,
    pub(super) graph_launch_names: NameSet,
    pub(super) diagnostics: Vec<String>,
}

pub(super) fn read_host_small(
    conn: &Connection,
    path: &Path,
    schema: &Schema,
    want_nvtx: bool,
) -> Result<HostRead, NsysError> {
    let mut h = HostRead::default();
    if schema.has_table("StringIds") {
        schema.require(path, "StringIds", &["id", "value"])?;
        let err = sql_err(path, "StringIds");
        let mut st = conn
            .prepare("SELECT id, value FROM StringIds")
            .map_err(&err)?;
        let mut rows = st.query([]).map_err(&err)?;
        // A name longer than MAX_NAME_BYTES is cut, the cut noted in the
        // name itself (`cap_name`).
        let mut bad_ids = 0u64;
        while let Some(row) = rows.next().map_err(&err)? {
            if let (Some(id), Ok(ValueRef::Text(t))) = (int(row, 0), row.get_ref(1)) {
                let Some(id) = string_id(id) else {
                    bad_ids += 1;
                    continue;
                };
                h.strings.insert(id, cap_name(t));
            }
        }
        if bad_ids > 0 {
            h.diagnostics.push(format!(
                "StringIds: {bad_ids} names with an id outside 0..={} ignored (their users print as \"?\")",
                super::guard::MAX_STRING_ID
            ));
        }
    }
    h.sync_names = NameSet::matching(&h.strings, is_sync_name);
    h.blocking_names = NameSet::matching(&h.strings, is_blocking_copy_name);
    h.graph_launch_names = NameSet::matching(&h.strings, |v| {
        v.starts_with("cu") && v.contains("GraphLaunch")
    });

    if schema.has_table(SYNC) {
        schema.require(path, SYNC, &["start", "end"])?;
        // syncType 2 (CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT)
        // is `cudaStreamWaitEvent`: a GPU-side dependency, the host does not
        // wait in it (it returns in ~2 µs), so it cannot explain host
        // lateness. Types 1, 3, 4 (event, stream, context synchronize) block.
        let not_wait_event = if schema.has_column(SYNC, "syncType") {
            "WHERE syncType IS NOT 2"
        } else {
            ""
        };
        let sql = format!(
            "SELECT start, \"end\", {} FROM \"{SYNC}\" {not_wait_event}",
            col_or_null(schema, SYNC, "globalPid")
        );
        let err = sql_err(path, SYNC);
        let mut st = conn.prepare(&sql).map_err(&err)?;
        let mut rows = st.query([]).map_err(&err)?;
        let mut bad = 0u64;
        while let Some(row) = rows.next().map_err(&err)? {
            let times = int(row, 0).zip(int(row, 1));
            match times.and_then(|(s, e)| checked_interval(s, e.max(s))) {
                Some((start, end)) => h.syncs.push(SyncCall {
                    pid: int(row, 2).map(pid_of).unwrap_or(0),
                    start_ns: start,
                    end_ns: end,
                }),
                None => bad += 1,
            }
        }
        if bad > 0 {
            h.diagnostics.push(format!(
                "{SYNC}: skipped {bad} rows with a NULL start/end or a time beyond ±2^61 ns"
            ));
        }
    }

    if want_nvtx && schema.has_table(NVTX) {
        read_nvtx(conn, path, schema, &mut h)?;
    } else if want_nvtx {
        h.diagnostics
            .push("no NVTX_EVENTS table: profile with `nsys profile --trace=cuda,nvtx`".into());
    }
    Ok(h)
}

/// A set of `StringIds` ids, looked up once per runtime row: a bitmap when
/// the ids are dense (as nsys writes them), else a sorted list, so one id of
/// 4e9 cannot cost a 4 GiB bitmap.
#[derive(Debug, Clone)]
pub(crate) enum NameSet {
    /// `bits[id]`.
    Bits(Vec<bool>),
    /// Sorted ids.
    Sorted(Vec<u32>),
}

impl Default for NameSet {
    fn default() -> NameSet {
        NameSet::Bits(Vec::new())
    }
}

impl NameSet {
    pub(super) fn matching(strings: &HashMap<u32, String>, f: impl Fn(&str) -> bool) -> NameSet {
        let mut ids: Vec<u32> = strings
            .iter()
            .filter(|(_, v)| f(v))
            .map(|(k, _)| *k)
            .collect();
        let max = ids.iter().max().map_or(0, |m| *m as usize + 1);
        if max > 4 * strings.len() + 4096 {
            ids.sort_unstable();
            return NameSet::Sorted(ids);
        }
        let mut bits = vec![false; max];
        for i in ids {
            bits[i as usize] = true;
        }
        NameSet::Bits(bits)
    }

    pub(crate) fn contains(&self, id: &u32) -> bool {
        match self {
            NameSet::Bits(b) => b.get(*id as usize).copied().unwrap_or(false),
            NameSet::Sorted(v) => v.binary_search(id).is_ok(),
        }
    }
}

/// `cudaDeviceSynchronize`, `cudaStreamSynchronize_v3020`, `cuCtxSynchronize`, …
pub(super) fn is_sync_name(name: &str) -> bool {
    name.starts_with("cu") && name.contains("Synchronize")
}

/// Copies that block the host until they (and the work queued before them)
/// complete: `cudaMemcpy`, `cudaMemcpy2D`, `cuMemcpyDtoH_v2`, … — every
/// runtime/driver copy without `Async` in its name.
pub fn is_blocking_copy_name(name: &str) -> bool {
    (name.starts_with("cudaMemcpy") || name.starts_with("cuMemcpy")) && !name.contains("Async")
}

pub(super) fn read_nvtx(
    conn: &Connection,
    path: &Path,
    schema: &Schema,
    h: &mut HostRead,
) -> Result<(), NsysError> {
    schema.require(path, NVTX, &["start", "end"])?;
    // Push/pop and start/end ranges (NvtxPushPopRange 59, NvtxStartEndRange
    // 60, and their NVTXT twins 70/71); marks and domain rows have no end.
    let filter = if schema.has_column(NVTX, "eventType") {
        "AND eventType IN (59, 60, 70, 71)"
    } else {
        ""
    };
    let sql = format!(
        "SELECT start, \"end\", {}, {}, {} FROM {NVTX} WHERE \"end\" IS NOT NULL {filter}",
        col_or_null(schema, NVTX, "globalTid"),
        col_or_null(schema, NVTX, "text"),
        col_or_null(schema, NVTX, "textId"),
    );
    let err = sql_err(path, NVTX);
    let mut st = conn.prepare(&sql).map_err(&err)?;
    let mut rows = st.query([]).map_err(&err)?;
    let (mut unnamed, mut bad) = (0u64, 0u64);
    while let Some(row) = rows.next().map_err(&err)? {
        let times = int(row, 0).zip(int(row, 1));
        let Some((start, end)) = times.and_then(|(s, e)| checked_interval(s, e.max(s))) else {
            bad += 1;
            continue;
        };
        let gtid = int(row, 2).unwrap_or(0);
        let text = match row.get_ref(3) {
            Ok(ValueRef::Text(t)) => Some(cap_name(t)),
            _ => int(row, 4)
                .and_then(string_id)
                .and_then(|id| h.strings.get(&id).cloned()),
        };
        let Some(text) = text else {
            unnamed += 1;
            continue;
        };
        h.nvtx.push(NvtxRange {
            start_ns: start,
            end_ns: end,
            pid: pid_of(gtid),
            tid: tid_of(gtid),
            text,
        });
    }
    if bad > 0 {
        h.diagnostics.push(format!(
            "{NVTX}: skipped {bad} ranges with a NULL start or a time beyond ±2^61 ns"
        ));
    }
    if unnamed > 0 {
        h.diagnostics.push(format!(
            "{NVTX}: {unnamed} ranges without text or textId ignored"
        ));
    }
    Ok(())
}
