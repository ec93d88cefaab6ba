//! A synthetic Nsight Systems export in the real schema (the tables and
//! columns rooftrace reads, with nsys 2024.5 column names and types), for
//! tests, the `gen_nsys` example and the benchmark.
//!
//! Model: one process per device (as with `torchrun`), one host thread per
//! process launching `kernels / devices` kernels round-robin over `streams`
//! streams with `cudaLaunchKernel_v7000` calls; the device runs one op at a
//! time, each starting `launch latency` after its call returns or when the
//! previous op ends; every 100 kernels a `step` NVTX range closes with a
//! `cudaStreamSynchronize`, every 50th op is an HtoD memcpy. Durations come
//! from a fixed-seed generator, so a spec always gives the same file.

use rusqlite::{params, Connection};
use std::path::Path;

/// What to generate.
#[derive(Debug, Clone, Copy)]
pub struct SynthSpec {
    /// Total kernels over all devices.
    pub kernels: u64,
    /// Devices (one process each).
    pub devices: u32,
    /// Streams per device.
    pub streams: u32,
    /// Random seed.
    pub seed: u64,
}

impl Default for SynthSpec {
    fn default() -> Self {
        SynthSpec {
            kernels: 10_000,
            devices: 2,
            streams: 4,
            seed: 1,
        }
    }
}

/// `globalPid` of the process driving device `d`.
pub fn synth_global_pid(d: u32) -> i64 {
    i64::from(1000 + d) << 24
}

/// The tables every synthetic export starts with (nsys 2024.5 columns):
/// the export's metadata, the string table and the kernel rows. The
/// caller inserts its `EXPORT_PRODUCT_VERSION` and adds its other tables.
pub(super) const TABLES_HEAD: &str = "
        CREATE TABLE META_DATA_EXPORT (name TEXT NOT NULL, value TEXT);
        CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL,
          deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER,
          streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,
          demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL, mangledName INTEGER,
          launchType INTEGER, cacheConfig INTEGER, registersPerThread INTEGER NOT NULL,
          gridX INTEGER NOT NULL, gridY INTEGER NOT NULL, gridZ INTEGER NOT NULL,
          blockX INTEGER NOT NULL, blockY INTEGER NOT NULL, blockZ INTEGER NOT NULL,
          staticSharedMemory INTEGER NOT NULL, dynamicSharedMemory INTEGER NOT NULL,
          localMemoryPerThread INTEGER NOT NULL, localMemoryTotal INTEGER NOT NULL,
          gridId INTEGER NOT NULL, sharedMemoryExecuted INTEGER, graphNodeId INTEGER,
          sharedMemoryLimitConfig INTEGER);";

/// Writes the export to `path` (which must not exist).
pub fn write_synthetic(path: &Path, spec: &SynthSpec) -> rusqlite::Result<()> {
    let mut c = Connection::open(path)?;
    c.execute_batch(
        &[
            "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;",
            TABLES_HEAD,
            "INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_PRODUCT_VERSION', 'rooftrace-synthetic (2024.5 schema)');",
            "
        CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL,
          deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER,
          streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,
          bytes INTEGER NOT NULL, copyKind INTEGER NOT NULL, deprecatedSrcId INTEGER,
          srcKind INTEGER, dstKind INTEGER, srcDeviceId INTEGER, srcContextId INTEGER,
          dstDeviceId INTEGER, dstContextId INTEGER, migrationCause INTEGER,
          graphNodeId INTEGER, virtualAddress INTEGER);
        CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL,
          eventClass INTEGER NOT NULL, globalTid INTEGER, correlationId INTEGER,
          nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL, callchainId INTEGER);
        CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL,
          rangeId INTEGER, category INTEGER, color INTEGER, text TEXT, globalTid INTEGER,
          endGlobalTid INTEGER, textId INTEGER, domainId INTEGER);",
        ]
        .concat(),
    )?;
    let tx = c.transaction()?;
    {
        const NAMES: [&str; 8] = [
            "cudaLaunchKernel_v7000",
            "cudaStreamSynchronize_v3020",
            "cudaMemcpyAsync_v3020",
            "step",
            "gemm_bf16_tn",
            "rmsnorm_fwd",
            "flash_attn_fwd",
            "silu_mul",
        ];
        let mut s = tx.prepare("INSERT INTO StringIds VALUES (?1, ?2)")?;
        for (i, n) in NAMES.iter().enumerate() {
            s.execute(params![i as i64, n])?;
        }
        let mut k = tx.prepare(
            "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?1, ?2, ?3, 1, NULL, ?4, ?5, ?6, ?7, ?7, NULL,
             1, 0, 32, 128, 1, 1, 256, 1, 1, 0, 0, 0, 0, ?8, 0, NULL, 0)",
        )?;
        let mut m = tx.prepare(
            "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (?1, ?2, ?3, 1, NULL, ?4, ?5, ?6, 1048576, 1,
             NULL, 0, 1, NULL, NULL, ?3, 1, NULL, NULL, NULL)",
        )?;
        let mut r = tx.prepare(
            "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?1, ?2, 1, ?3, ?4, ?5, 0, NULL)",
        )?;
        let mut n = tx.prepare(
            "INSERT INTO NVTX_EVENTS VALUES (?1, ?2, 59, NULL, NULL, NULL, NULL, ?3, NULL, 3, 0)",
        )?;
        let mut rng = spec.seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let mut next = move || {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng
        };
        let per_dev = spec.kernels / u64::from(spec.devices.max(1));
        let mut grid_id = 0i64;
        for d in 0..spec.devices.max(1) {
            let gpid = synth_global_pid(d);
            let gtid = gpid + 1;
            let (mut host, mut dev_free) = (1_000_000i64, 0i64);
            let mut corr = 0i64;
            let mut step_start = host;
            for i in 0..per_dev {
                corr += 1;
                let stream = 7 + (i % u64::from(spec.streams.max(1))) as i64;
                // Host: ~4 µs per launch, occasionally a slow 50 µs Python step.
                let api_dur = 2_500 + (next() % 3_000) as i64;
                host += if next() % 20 == 0 { 50_000 } else { 500 };
                r.execute(params![host, host + api_dur, gtid, corr, 0])?;
                let dur = 1_000 + (next() % 12_000) as i64;
                let start = dev_free.max(host + api_dur + 1_500);
                grid_id += 1;
                k.execute(params![
                    start,
                    start + dur,
                    d,
                    stream,
                    corr,
                    gpid,
                    4 + (i % 4) as i64,
                    grid_id
                ])?;
                host += api_dur;
                dev_free = start + dur;
                if i % 50 == 49 {
                    corr += 1;
                    r.execute(params![host, host + 3_000, gtid, corr, 2])?;
                    let s = dev_free.max(host + 4_000);
                    m.execute(params![s, s + 80_000, d, stream, corr, gpid])?;
                    host += 3_000;
                    dev_free = s + 80_000;
                }
                if i % 100 == 99 {
                    corr += 1;
                    let end = dev_free.max(host) + 2_000;
                    r.execute(params![host, end, gtid, corr, 1])?;
                    host = end;
                    n.execute(params![step_start, host, gtid])?;
                    step_start = host;
                }
            }
        }
    }
    tx.commit()
}
