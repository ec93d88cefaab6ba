//! Who recorded an export: the host name and, where the launcher left it in
//! the profiler's environment, the MPI / Slurm / torchrun rank. Both come
//! from `TARGET_INFO_SYSTEM_ENV` (`Hostname`, and the `DeviceEnvironment`
//! row: the environment of the `nsys` process, `;`- or NUL-separated), the
//! host falling back to `META_DATA_CAPTURE` `DEVICE_DISPLAY_NAME`.
//!
//! The rank is there only when `nsys` itself ran once per rank
//! (`srun nsys profile ./app`, `mpirun nsys profile ./app`); with
//! `nsys profile mpirun ./app` one export holds every rank and none is set.
//!
//! The GPUs of the run come from `TARGET_INFO_GPU` (name, compute
//! capability, SM count, L2 size, memory bandwidth, clock): one identity
//! for timelines too, so `budget` needs no `--gpu` when they name a GPU of
//! the table.

use super::schema::Schema;
use rusqlite::Connection;

/// Environment variables that carry a rank, in the order they are trusted:
/// the MPI library's own first, then the launcher's, then torchrun's.
pub const RANK_VARS: [&str; 7] = [
    "OMPI_COMM_WORLD_RANK",
    "PMIX_RANK",
    "PMI_RANK",
    "MV2_COMM_WORLD_RANK",
    "PALS_RANKID",
    "SLURM_PROCID",
    "RANK",
];

pub use crate::timeline::{GpuRecord, Identity, MAX_GPUS};

/// Reads the identity; a missing table or row is `None`, never an error.
pub(super) fn read_identity(conn: &Connection, schema: &Schema) -> Identity {
    let env_value = |name: &str| -> Option<String> {
        if !schema.has_table("TARGET_INFO_SYSTEM_ENV") {
            return None;
        }
        conn.query_row(
            "SELECT value FROM TARGET_INFO_SYSTEM_ENV WHERE name = ?1 LIMIT 1",
            [name],
            |r| r.get::<_, Option<String>>(0),
        )
        .ok()
        .flatten()
    };
    let host = env_value("Hostname")
        .or_else(|| {
            if !schema.has_table("META_DATA_CAPTURE") {
                return None;
            }
            conn.query_row(
                "SELECT value FROM META_DATA_CAPTURE WHERE name = 'DEVICE_DISPLAY_NAME'",
                [],
                |r| r.get::<_, Option<String>>(0),
            )
            .ok()
            .flatten()
        })
        .filter(|h| !h.trim().is_empty());
    let rank = env_value("DeviceEnvironment").and_then(|env| rank_from_env(&env));
    Identity {
        host,
        rank,
        world_size: None,
        gpus: read_gpus(conn, schema),
    }
}

/// The rows of `TARGET_INFO_GPU` (columns probed first; a missing column is
/// `None`); never an error.
fn read_gpus(conn: &Connection, schema: &Schema) -> Vec<GpuRecord> {
    const T: &str = "TARGET_INFO_GPU";
    if !schema.has_column(T, "name") || !schema.has_column(T, "id") {
        return Vec::new();
    }
    let col = |c: &str| {
        if schema.has_column(T, c) {
            c.to_string()
        } else {
            "NULL".to_string()
        }
    };
    // Column names come from the probed schema or are constants: nothing
    // from the data is spliced into the SQL.
    let sql = format!(
        "SELECT id, name, {}, {}, {}, {}, {}, {} FROM {T} ORDER BY id LIMIT {MAX_GPUS}",
        col("computeMajor"),
        col("computeMinor"),
        col("smCount"),
        col("l2CacheSize"),
        col("memoryBandwidth"),
        col("clockRate"),
    );
    let positive = |v: Option<i64>| v.filter(|&v| v > 0);
    let read = |r: &rusqlite::Row| -> rusqlite::Result<GpuRecord> {
        let major: Option<i64> = r.get(2).ok().flatten();
        let minor: Option<i64> = r.get(3).ok().flatten();
        Ok(GpuRecord {
            id: r.get(0)?,
            name: r
                .get::<_, Option<String>>(1)
                .ok()
                .flatten()
                .map(|n| crate::units::ellipsize(n.trim(), 200))
                .unwrap_or_default(),
            compute_capability: match (major, minor) {
                (Some(a), Some(b)) if (0..100).contains(&a) && (0..100).contains(&b) => {
                    Some(crate::units::ComputeCapability::new(a as u32, b as u32))
                }
                _ => None,
            },
            sm_count: positive(r.get(4).ok().flatten()).and_then(|v| u32::try_from(v).ok()),
            l2_bytes: positive(r.get(5).ok().flatten()).map(|v| v as u64),
            memory_bandwidth_bytes_per_s: positive(r.get(6).ok().flatten()).map(|v| v as u64),
            clock_hz: positive(r.get(7).ok().flatten()).map(|v| v as u64),
        })
    };
    conn.prepare(&sql)
        .and_then(|mut st| {
            st.query_map([], read)?
                .filter_map(Result::ok)
                .map(Ok)
                .collect::<rusqlite::Result<Vec<_>>>()
        })
        .unwrap_or_default()
}

/// The rank in an environment block (`K=V` entries separated by `;` or
/// NUL): the first of [`RANK_VARS`] present with a value that parses as
/// `u32`.
pub fn rank_from_env(env: &str) -> Option<(u32, &'static str)> {
    let entries: Vec<(&str, &str)> = env
        .split([';', '\0'])
        .filter_map(|kv| kv.split_once('='))
        .collect();
    RANK_VARS.into_iter().find_map(|var| {
        entries
            .iter()
            .find(|(k, _)| *k == var)
            .and_then(|(_, v)| v.trim().parse::<u32>().ok())
            .map(|r| (r, var))
    })
}

#[cfg(test)]
mod tests {
    use super::rank_from_env;

    #[test]
    fn rank_variables_in_trust_order() {
        assert_eq!(
            rank_from_env("A=1\0SLURM_PROCID=3\0PMI_RANK=5"),
            Some((5, "PMI_RANK"))
        );
        assert_eq!(
            rank_from_env("SLURM_PROCID=3;RANK=7"),
            Some((3, "SLURM_PROCID"))
        );
        assert_eq!(rank_from_env("RANK=x;LOCAL_RANK=1"), None);
        assert_eq!(rank_from_env(""), None);
    }
}
