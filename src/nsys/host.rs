//! The small host-side tables, read on the main thread before the pool:
//! StringIds (which names are sync calls, blocking copies or graph
//! launches), the SYNCHRONIZATION table and NVTX ranges.

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
        while let Some(row) = rows.next().map_err(&err)? {
            if let (Some(id), Ok(ValueRef::Text(t))) = (int(row, 0), row.get_ref(1)) {
                h.strings
                    .insert(id as u32, String::from_utf8_lossy(t).into_owned());
            }
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
        while let Some(row) = rows.next().map_err(&err)? {
            if let (Some(start), Some(end)) = (int(row, 0), int(row, 1)) {
                h.syncs.push(SyncCall {
                    pid: int(row, 2).map(pid_of).unwrap_or(0),
                    start_ns: start,
                    end_ns: end.max(start),
                });
            }
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

/// A set of `StringIds` ids, as a bitmap: looked up once per runtime row.
#[derive(Default)]
pub(super) struct NameSet(pub(super) Vec<bool>);

impl NameSet {
    pub(super) fn matching(strings: &HashMap<u32, String>, f: impl Fn(&str) -> bool) -> NameSet {
        let ids: Vec<u32> = strings
            .iter()
            .filter(|(_, v)| f(v))
            .map(|(k, _)| *k)
            .collect();
        let mut bits = vec![false; ids.iter().max().map_or(0, |m| *m as usize + 1)];
        for i in ids {
            bits[i as usize] = true;
        }
        NameSet(bits)
    }

    pub(super) fn contains(&self, id: &u32) -> bool {
        self.0.get(*id as usize).copied().unwrap_or(false)
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
    let mut unnamed = 0u64;
    while let Some(row) = rows.next().map_err(&err)? {
        let (Some(start), Some(end)) = (int(row, 0), int(row, 1)) else {
            continue;
        };
        let gtid = int(row, 2).unwrap_or(0);
        let text = match row.get_ref(3) {
            Ok(ValueRef::Text(t)) => Some(String::from_utf8_lossy(t).into_owned()),
            _ => int(row, 4).and_then(|id| h.strings.get(&(id as u32)).cloned()),
        };
        let Some(text) = text else {
            unnamed += 1;
            continue;
        };
        h.nvtx.push(NvtxRange {
            start_ns: start,
            end_ns: end.max(start),
            pid: pid_of(gtid),
            tid: tid_of(gtid),
            text,
        });
    }
    if unnamed > 0 {
        h.diagnostics.push(format!(
            "{NVTX}: {unnamed} ranges without text or textId ignored"
        ));
    }
    Ok(())
}
