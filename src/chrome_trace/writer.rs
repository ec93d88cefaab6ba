//! The Chrome-trace event writer: one JSON object per event, appended to a
//! byte buffer. Times are written as µs with three decimals from integer
//! ns (`1694039996493421.123`), never through an `f64`, so a trace read
//! back (Kineto's reader parses the text) keeps every op to the ns at any
//! magnitude.

use serde_json::{Map, Value};
use std::io::Write;

/// `ns` as µs text with three decimals (`-1234` → `-1.234`).
pub fn micros(ns: i64) -> String {
    let sign = if ns < 0 { "-" } else { "" };
    let abs = ns.unsigned_abs();
    format!("{sign}{}.{:03}", abs / 1000, abs % 1000)
}

/// A JSON string literal of `s`.
fn quoted(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"?\"".to_string())
}

/// Where an event is drawn: a process row and a thread row in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Row {
    /// `pid`: a host process, or a device index for the GPU rows (as
    /// Kineto writes them).
    pub pid: i64,
    /// `tid`: a host thread, a stream, or one of rooftrace's tracks.
    pub tid: i64,
}

/// The document being written, one event per line, straight to `out`
/// (memory holds one event, never the trace). The first write error is
/// kept and returned by [`EventWriter::finish`]; writes after it are
/// skipped.
pub struct EventWriter<'w> {
    out: &'w mut dyn Write,
    events: u64,
    flows: u64,
    error: Option<std::io::Error>,
}

impl<'w> EventWriter<'w> {
    /// Starts the document: the top-level `extra` keys
    /// (`deviceProperties`, `distributedInfo`, …), then `traceEvents`.
    pub fn new(out: &'w mut dyn Write, extra: &Map<String, Value>) -> EventWriter<'w> {
        let mut w = EventWriter {
            out,
            events: 0,
            flows: 0,
            error: None,
        };
        let mut head = String::from("{\n");
        for (k, v) in extra {
            head.push_str(&format!("{}: {v},\n", quoted(k)));
        }
        head.push_str("\"traceEvents\": [\n");
        w.raw(head.as_bytes());
        w
    }

    fn raw(&mut self, bytes: &[u8]) {
        if self.error.is_none() {
            if let Err(e) = self.out.write_all(bytes) {
                self.error = Some(e);
            }
        }
    }

    fn push(&mut self, body: String) {
        if self.events > 0 {
            self.raw(b",\n");
        }
        self.raw(body.as_bytes());
        self.events += 1;
    }

    /// A complete (`X`) event: `name` on `row` from `start_ns` for `dur_ns`.
    pub fn complete(
        &mut self,
        cat: &str,
        name: &str,
        row: Row,
        start_ns: i64,
        dur_ns: i64,
        args: Map<String, Value>,
    ) {
        let args = Value::Object(args).to_string();
        self.push(format!(
            r#"{{"ph":"X","cat":{},"name":{},"pid":{},"tid":{},"ts":{},"dur":{},"args":{args}}}"#,
            quoted(cat),
            quoted(name),
            row.pid,
            row.tid,
            micros(start_ns),
            micros(dur_ns.max(0)),
        ));
    }

    /// A flow arrow from `from` at `from_ns` to the slice that starts on
    /// `to` at `to_ns` (Kineto's `ac2g` launch → GPU arrows: a `s` event
    /// and an `f` event bound to the enclosing slice).
    pub fn flow(&mut self, from: Row, from_ns: i64, to: Row, to_ns: i64) {
        self.flow_in("ac2g", from, from_ns, to, to_ns);
    }

    /// [`EventWriter::flow`] with `cat` and `name` set to `cat` (flows of
    /// one category are drawn and hidden together).
    pub fn flow_in(&mut self, cat: &str, from: Row, from_ns: i64, to: Row, to_ns: i64) {
        self.flows += 1;
        let id = self.flows;
        let cat = quoted(cat);
        self.push(format!(
            r#"{{"ph":"s","id":{id},"pid":{},"tid":{},"ts":{},"cat":{cat},"name":{cat}}}"#,
            from.pid,
            from.tid,
            micros(from_ns)
        ));
        self.push(format!(
            r#"{{"ph":"f","id":{id},"pid":{},"tid":{},"ts":{},"cat":{cat},"name":{cat},"bp":"e"}}"#,
            to.pid,
            to.tid,
            micros(to_ns)
        ));
    }

    /// A process's name.
    pub fn process_name(&mut self, pid: i64, name: &str) {
        self.push(format!(
            r#"{{"ph":"M","name":"process_name","pid":{pid},"tid":0,"args":{{"name":{}}}}}"#,
            quoted(name)
        ));
    }

    /// A thread's name and its place among its process's rows (lower first).
    pub fn thread_name(&mut self, row: Row, name: &str, sort_index: i64) {
        self.push(format!(
            r#"{{"ph":"M","name":"thread_name","pid":{},"tid":{},"args":{{"name":{}}}}}"#,
            row.pid,
            row.tid,
            quoted(name)
        ));
        self.push(format!(
            r#"{{"ph":"M","name":"thread_sort_index","pid":{},"tid":{},"args":{{"sort_index":{sort_index}}}}}"#,
            row.pid, row.tid
        ));
    }

    /// Ends the document (newline-terminated); the first write error, if
    /// any.
    pub fn finish(mut self) -> std::io::Result<()> {
        self.raw(b"\n]}\n");
        match self.error.take() {
            Some(e) => Err(e),
            None => self.out.flush(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_exact_micros_text() {
        assert_eq!(micros(0), "0.000");
        assert_eq!(micros(1_234), "1.234");
        assert_eq!(micros(-1_234), "-1.234");
        // 1.7e15 µs: an f64 would step by 0.25 µs here; the text keeps the ns.
        assert_eq!(micros(1_694_039_996_493_421_123), "1694039996493421.123");
    }

    #[test]
    fn a_document_is_json_with_its_events_in_order() {
        let mut extra = Map::new();
        extra.insert("schemaVersion".into(), 1.into());
        let mut out = Vec::new();
        let mut w = EventWriter::new(&mut out, &extra);
        w.process_name(0, "GPU 0");
        let mut args = Map::new();
        args.insert("stream".into(), 7.into());
        w.complete("kernel", "k\"1", Row { pid: 0, tid: 7 }, 1_500, 250, args);
        w.flow(Row { pid: 9, tid: 9 }, 1_000, Row { pid: 0, tid: 7 }, 1_500);
        w.finish().unwrap();
        let doc: Value = serde_json::from_slice(&out).unwrap();
        let ev = doc["traceEvents"].as_array().unwrap();
        assert_eq!(ev.len(), 4);
        assert_eq!(ev[1]["name"], "k\"1");
        assert_eq!(ev[1]["ts"].as_f64(), Some(1.5));
        assert_eq!(ev[1]["dur"].as_f64(), Some(0.25));
        assert_eq!(
            (ev[2]["ph"].as_str(), ev[3]["ph"].as_str()),
            (Some("s"), Some("f"))
        );
        assert_eq!(ev[2]["id"], ev[3]["id"]);
        assert_eq!(doc["schemaVersion"], 1);
    }
}
