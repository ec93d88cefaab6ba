//! Small hand-placed timelines in the real formats, for tests that need a
//! pattern the corpus lacks: a Kineto trace built event by event
//! ([`KinetoScene`]) and an nsys export built row by row ([`NsysScene`],
//! with the OS runtime table `--trace=osrt` writes). Times are given in
//! µs (Kineto's unit) or ns (nsys's), as each format stores them.

use rusqlite::{params, Connection};
use serde_json::{json, Value};
use std::path::Path;

/// A PyTorch profiler trace, one event at a time; process 100, thread 100
/// on the host, device 0.
#[derive(Debug, Default, Clone)]
pub struct KinetoScene {
    events: Vec<Value>,
}

/// The host process and thread of a [`KinetoScene`].
pub const KINETO_PID: i64 = 100;

impl KinetoScene {
    /// An empty trace.
    pub fn new() -> KinetoScene {
        KinetoScene::default()
    }

    fn push(
        &mut self,
        cat: &str,
        name: &str,
        (pid, tid): (i64, i64),
        ts_us: f64,
        dur_us: f64,
        args: Value,
    ) {
        self.events.push(json!({
            "ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid,
            "ts": ts_us, "dur": dur_us, "args": args,
        }));
    }

    /// A CPU op (`aten::mm`) on thread `tid` of the host process.
    pub fn cpu_op(&mut self, name: &str, tid: i64, ts_us: f64, dur_us: f64) -> &mut Self {
        self.push("cpu_op", name, (KINETO_PID, tid), ts_us, dur_us, json!({}));
        self
    }

    /// A user annotation (`record_function`) on thread `tid`.
    pub fn annotation(&mut self, name: &str, tid: i64, ts_us: f64, dur_us: f64) -> &mut Self {
        self.push(
            "user_annotation",
            name,
            (KINETO_PID, tid),
            ts_us,
            dur_us,
            json!({}),
        );
        self
    }

    /// A CUDA runtime call with correlation id `corr` on thread `tid`.
    pub fn runtime(
        &mut self,
        name: &str,
        tid: i64,
        ts_us: f64,
        dur_us: f64,
        corr: i64,
    ) -> &mut Self {
        self.push(
            "cuda_runtime",
            name,
            (KINETO_PID, tid),
            ts_us,
            dur_us,
            json!({ "correlation": corr, "External id": corr }),
        );
        self
    }

    /// A kernel on device 0, stream `stream`, launched by correlation `corr`.
    pub fn kernel(
        &mut self,
        name: &str,
        stream: i64,
        ts_us: f64,
        dur_us: f64,
        corr: i64,
    ) -> &mut Self {
        self.push(
            "kernel",
            name,
            (0, stream),
            ts_us,
            dur_us,
            json!({ "device": 0, "stream": stream, "correlation": corr }),
        );
        self
    }

    /// The trace document.
    pub fn to_json(&self) -> Value {
        json!({
            "schemaVersion": 1,
            "traceEvents": self.events,
        })
    }

    /// Writes the trace to `path` as plain JSON.
    pub fn write(&self, path: &Path) -> std::io::Result<()> {
        std::fs::write(path, serde_json::to_vec(&self.to_json())?)
    }
}

/// An nsys export (2024.5 column names), row by row: process 7, host
/// thread 1 (`globalTid` = 7 << 24 | 1), device 0.
#[derive(Debug, Default, Clone)]
pub struct NsysScene {
    strings: Vec<String>,
    /// (start, end, stream, correlation, name id).
    kernels: Vec<(i64, i64, i64, i64, i64)>,
    /// (start, end, stream, correlation, bytes).
    memsets: Vec<(i64, i64, i64, i64, i64)>,
    /// (start, end, stream, correlation, copyKind, bytes).
    memcpys: Vec<(i64, i64, i64, i64, i64, i64)>,
    /// (start, end, correlation, name id).
    runtime: Vec<(i64, i64, i64, i64)>,
    /// (start, end, name id).
    osrt: Vec<(i64, i64, i64)>,
    /// (start, end, text).
    nvtx: Vec<(i64, i64, String)>,
}

/// `globalPid` of the process of an [`NsysScene`].
pub const NSYS_GLOBAL_PID: i64 = 7 << 24;
/// `globalTid` of its host thread.
pub const NSYS_GLOBAL_TID: i64 = (7 << 24) | 1;

impl NsysScene {
    /// An empty export.
    pub fn new() -> NsysScene {
        NsysScene::default()
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

    /// A CUDA runtime call `[start, end)` ns with correlation `corr`.
    pub fn runtime(&mut self, name: &str, start: i64, end: i64, corr: i64) -> &mut Self {
        let id = self.id(name);
        self.runtime.push((start, end, corr, id));
        self
    }

    /// A kernel on stream `stream`.
    pub fn kernel(
        &mut self,
        name: &str,
        stream: i64,
        start: i64,
        end: i64,
        corr: i64,
    ) -> &mut Self {
        let id = self.id(name);
        self.kernels.push((start, end, stream, corr, id));
        self
    }

    /// A memset of `bytes` on stream `stream`.
    pub fn memset(
        &mut self,
        stream: i64,
        start: i64,
        end: i64,
        corr: i64,
        bytes: i64,
    ) -> &mut Self {
        self.memsets.push((start, end, stream, corr, bytes));
        self
    }

    /// A pinned memcpy of `copy_kind` (1 HtoD, 2 DtoH, 8 DtoD) on stream `stream`.
    pub fn memcpy(
        &mut self,
        stream: i64,
        (start, end): (i64, i64),
        corr: i64,
        copy_kind: i64,
        bytes: i64,
    ) -> &mut Self {
        self.memcpys
            .push((start, end, stream, corr, copy_kind, bytes));
        self
    }

    /// An OS runtime call (`getc`, `read`) on the host thread.
    pub fn osrt(&mut self, name: &str, start: i64, end: i64) -> &mut Self {
        let id = self.id(name);
        self.osrt.push((start, end, id));
        self
    }

    /// An NVTX push/pop range on the host thread.
    pub fn nvtx(&mut self, text: &str, start: i64, end: i64) -> &mut Self {
        self.nvtx.push((start, end, text.to_string()));
        self
    }

    /// Writes the export to `path` (which must not exist).
    pub fn write(&self, path: &Path) -> rusqlite::Result<()> {
        let mut c = Connection::open(path)?;
        c.execute_batch(
            &[
                "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;",
                super::nsys::TABLES_HEAD,
                "INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_PRODUCT_VERSION', 'rooftrace-scene (2024.5 schema)');",
                SCHEMA_REST,
            ]
            .concat(),
        )?;
        let tx = c.transaction()?;
        for (i, s) in self.strings.iter().enumerate() {
            tx.execute(
                "INSERT INTO StringIds VALUES (?1, ?2)",
                params![i as i64, s],
            )?;
        }
        for &(s, e, stream, corr, name) in &self.kernels {
            tx.execute(
                "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?1, ?2, 0, 1, NULL, ?3, ?4, ?5, ?6, ?6, NULL,
                 1, 0, 32, 128, 1, 1, 256, 1, 1, 0, 0, 0, 0, ?4, 0, NULL, 0)",
                params![s, e, stream, corr, NSYS_GLOBAL_PID, name],
            )?;
        }
        for &(s, e, stream, corr, bytes) in &self.memsets {
            tx.execute(
                "INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES (?1, ?2, 0, 1, NULL, ?3, ?4, ?5, 0, ?6, 1, NULL, NULL)",
                params![s, e, stream, corr, NSYS_GLOBAL_PID, bytes],
            )?;
        }
        for &(s, e, stream, corr, kind, bytes) in &self.memcpys {
            tx.execute(
                "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (?1, ?2, 0, 1, NULL, ?3, ?4, ?5, ?6, ?7,
                 NULL, 1, 1, NULL, NULL, 0, 1, NULL, NULL, NULL)",
                params![s, e, stream, corr, NSYS_GLOBAL_PID, bytes, kind],
            )?;
        }
        for &(s, e, corr, name) in &self.runtime {
            tx.execute(
                "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?1, ?2, 1, ?3, ?4, ?5, 0, NULL)",
                params![s, e, NSYS_GLOBAL_TID, corr, name],
            )?;
        }
        for &(s, e, name) in &self.osrt {
            tx.execute(
                "INSERT INTO OSRT_API VALUES (?1, ?2, 27, ?3, ?4, 0, 0, NULL)",
                params![s, e, NSYS_GLOBAL_TID, name],
            )?;
        }
        for (s, e, text) in &self.nvtx {
            tx.execute(
                "INSERT INTO NVTX_EVENTS VALUES (?1, ?2, 59, NULL, NULL, NULL, ?3, ?4, NULL, NULL, 0)",
                params![s, e, text, NSYS_GLOBAL_TID],
            )?;
        }
        tx.commit()
    }
}

/// The tables an [`NsysScene`] writes after [`super::nsys::TABLES_HEAD`]
/// (nsys 2024.5 columns).
const SCHEMA_REST: &str = "
    CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INTEGER NOT NULL, end INTEGER NOT NULL,
      deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER,
      streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER, value INTEGER NOT NULL,
      bytes INTEGER NOT NULL, memKind INTEGER, graphNodeId INTEGER, memoryOperationType INTEGER);
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
    CREATE TABLE OSRT_API (start INTEGER NOT NULL, end INTEGER NOT NULL,
      eventClass INTEGER NOT NULL, globalTid INTEGER, nameId INTEGER NOT NULL,
      returnValue INTEGER NOT NULL, nestingLevel INTEGER, callchainId INTEGER);
    CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL,
      rangeId INTEGER, category INTEGER, color INTEGER, text TEXT, globalTid INTEGER,
      endGlobalTid INTEGER, textId INTEGER, domainId INTEGER);";
