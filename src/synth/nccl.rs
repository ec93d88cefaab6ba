//! An nsys export of one NCCL rank with NCCL's own NVTX ranges and their
//! payloads, in the layout an nsys 2026.2.1 export uses: `NVTX_EVENTS`
//! with `binaryData`, `NVTX_PAYLOAD_SCHEMAS` and
//! `NVTX_PAYLOAD_SCHEMA_ENTRIES` holding NCCL's schemas as that export
//! registers them (domain 1; schema ids 2^24 + NCCL's static id; entry
//! names, types and offsets as the corpus' `nsys2026.2.1_nsysai_*` exports
//! hold them), each payload behind the 32-byte header (u64 domain, u64
//! schema id, u64 payload size, u64 header + payload size).

use rusqlite::{params, Connection};
use std::path::Path;

/// NCCL's payload schema ids as an nsys 2026.2.1 export holds them.
pub mod schema_id {
    /// `ncclCommInitRank*`: comm, ranks, rank, device (24 bytes).
    pub const COMM_INIT: u64 = 16_777_218;
    /// `ncclAllGather`: comm, message size (16 bytes).
    pub const ALL_GATHER: u64 = 16_777_220;
    /// `ncclAllReduce`: comm, message size, reduction op (24 bytes).
    pub const ALL_REDUCE: u64 = 16_777_223;
    /// `ncclSend`: comm, message size, peer (24 bytes).
    pub const SEND: u64 = 16_777_225;
    /// `ncclRecv`: comm, message size, peer (24 bytes).
    pub const RECV: u64 = 16_777_226;
}

/// The schema rows: (schema id, payload size, entries as (index, type,
/// name, offset; `None` as the export writes the first)).
type SchemaRows = (u64, i64, &'static [(i64, i64, &'static str, Option<i64>)]);
const SCHEMAS: [SchemaRows; 5] = [
    (
        schema_id::COMM_INIT,
        24,
        &[
            (0, 18, "NCCL communicator ID", None),
            (1, 5, "No. of ranks", Some(8)),
            (2, 5, "Rank", Some(12)),
            (3, 5, "CUDA device", Some(16)),
        ],
    ),
    (
        schema_id::ALL_GATHER,
        16,
        &[
            (0, 18, "NCCL communicator ID", None),
            (1, 22, "Message size [bytes]", Some(8)),
        ],
    ),
    (
        schema_id::ALL_REDUCE,
        24,
        &[
            (0, 18, "NCCL communicator ID", None),
            (1, 22, "Message size [bytes]", Some(8)),
            (2, 16_777_232, "Reduction operation", Some(16)),
        ],
    ),
    (
        schema_id::SEND,
        24,
        &[
            (0, 18, "NCCL communicator ID", None),
            (1, 22, "Message size [bytes]", Some(8)),
            (2, 5, "Peer rank", Some(16)),
        ],
    ),
    (
        schema_id::RECV,
        24,
        &[
            (0, 18, "NCCL communicator ID", None),
            (1, 22, "Message size [bytes]", Some(8)),
            (2, 5, "Peer rank", Some(16)),
        ],
    ),
];

/// The NVTX domain id of NCCL's ranges.
pub const NCCL_DOMAIN: u64 = 1;
/// `globalTid` of the rank's host thread (process 9, thread 1).
pub const GLOBAL_TID: i64 = (9 << 24) | 1;

/// One export, row by row.
#[derive(Debug, Default, Clone)]
pub struct NcclExport {
    strings: Vec<String>,
    /// (start, end, text, blob).
    ranges: Vec<(i64, i64, String, Option<Vec<u8>>)>,
    /// (start, end, correlation, name id).
    runtime: Vec<(i64, i64, i64, i64)>,
    /// (start, end, correlation, name id).
    kernels: Vec<(i64, i64, i64, i64)>,
}

/// A payload blob: the header, then the payload's fields as given
/// (u64 or u32, little-endian).
pub fn blob(schema: u64, fields: &[(u64, usize)]) -> Vec<u8> {
    let mut payload = Vec::new();
    for &(v, width) in fields {
        payload.extend_from_slice(&v.to_le_bytes()[..width]);
    }
    let mut b = Vec::new();
    for v in [
        NCCL_DOMAIN,
        schema,
        payload.len() as u64,
        32 + payload.len() as u64,
    ] {
        b.extend_from_slice(&v.to_le_bytes());
    }
    b.extend_from_slice(&payload);
    b
}

impl NcclExport {
    /// An empty export.
    pub fn new() -> NcclExport {
        NcclExport::default()
    }

    fn id(&mut self, s: &str) -> i64 {
        match self.strings.iter().position(|x| x == s) {
            Some(i) => i as i64,
            None => {
                self.strings.push(s.to_string());
                self.strings.len() as i64 - 1
            }
        }
    }

    /// An NCCL range (`ncclAllReduce`) `[start, end)` ns on the host
    /// thread, with its payload blob (`None`: exported without blobs).
    pub fn range(&mut self, text: &str, start: i64, end: i64, blob: Option<Vec<u8>>) -> &mut Self {
        self.ranges.push((start, end, text.to_string(), blob));
        self
    }

    /// A kernel launch: `cudaLaunchKernel` at `[call, call + 5 µs)` on the
    /// host thread, the kernel `name` at `[start, end)` on device 0.
    pub fn launch(&mut self, name: &str, call: i64, start: i64, end: i64) -> &mut Self {
        let corr = self.runtime.len() as i64 + 1;
        let api = self.id("cudaLaunchKernel_v7000");
        let k = self.id(name);
        self.runtime.push((call, call + 5_000, corr, api));
        self.kernels.push((start, end, corr, k));
        self
    }

    /// Writes the export to `path` (which must not exist).
    pub fn write(&self, path: &Path) -> rusqlite::Result<()> {
        let mut c = Connection::open(path)?;
        c.execute_batch(
            &[
                "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;",
                super::nsys::TABLES_HEAD,
                "INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_PRODUCT_VERSION', 'rooftrace-synthetic (2026.2.1 schema)');
                 INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_PARAM_INCLUDE_BLOBS', 'true');
                 CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL,
                   eventClass INTEGER NOT NULL, globalTid INTEGER, correlationId INTEGER,
                   nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL, callchainId INTEGER);
                 CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL,
                   rangeId INTEGER, category INTEGER, color INTEGER, text TEXT, globalTid INTEGER,
                   endGlobalTid INTEGER, textId INTEGER, domainId INTEGER, uint64Value INTEGER,
                   int64Value INTEGER, doubleValue REAL, uint32Value INTEGER, int32Value INTEGER,
                   floatValue REAL, jsonTextId INTEGER, jsonText TEXT, binaryData BLOB);
                 CREATE TABLE NVTX_PAYLOAD_SCHEMAS (domainId INTEGER, schemaId INTEGER, name TEXT,
                   type INTEGER, flags INTEGER, numEntries INTEGER, payloadSize INTEGER, alignTo INTEGER);
                 CREATE TABLE NVTX_PAYLOAD_SCHEMA_ENTRIES (domainId INTEGER, schemaId INTEGER,
                   idx INTEGER, flags INTEGER, type INTEGER, name TEXT, description TEXT,
                   arrayOrUnionDetail INTEGER, offset INTEGER);",
            ]
            .concat(),
        )?;
        let tx = c.transaction()?;
        for (sid, size, entries) in SCHEMAS {
            tx.execute(
                "INSERT INTO NVTX_PAYLOAD_SCHEMAS VALUES (?1, ?2, NULL, 1, NULL, ?3, ?4, NULL)",
                params![NCCL_DOMAIN as i64, sid as i64, entries.len() as i64, size],
            )?;
            for &(idx, ty, name, offset) in entries {
                tx.execute(
                    "INSERT INTO NVTX_PAYLOAD_SCHEMA_ENTRIES VALUES (?1, ?2, ?3, NULL, ?4, ?5, NULL, NULL, ?6)",
                    params![NCCL_DOMAIN as i64, sid as i64, idx, ty, name, offset],
                )?;
            }
        }
        for (i, s) in self.strings.iter().enumerate() {
            tx.execute(
                "INSERT INTO StringIds VALUES (?1, ?2)",
                params![i as i64, s],
            )?;
        }
        for &(s, e, corr, name) in &self.kernels {
            tx.execute(
                "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?1, ?2, 0, 1, NULL, 20, ?3, ?4, ?5, ?5, NULL,
                 1, 0, 32, 128, 1, 1, 256, 1, 1, 0, 0, 0, 0, ?3, 0, NULL, 0)",
                params![s, e, corr, GLOBAL_TID & !0xFF_FFFF, name],
            )?;
        }
        for &(s, e, corr, name) in &self.runtime {
            tx.execute(
                "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?1, ?2, 1, ?3, ?4, ?5, 0, NULL)",
                params![s, e, GLOBAL_TID, corr, name],
            )?;
        }
        for (s, e, text, blob) in &self.ranges {
            tx.execute(
                "INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, domainId, binaryData)
                 VALUES (?1, ?2, 59, ?3, ?4, ?5, ?6)",
                params![s, e, text, GLOBAL_TID, NCCL_DOMAIN as i64, blob],
            )?;
        }
        tx.commit()
    }
}
