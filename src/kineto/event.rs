//! One trace event as the reader sees it: each field rooftrace reads is
//! kept as the raw JSON text of its value (borrowed from the parse buffer:
//! no allocation per event), and decoded only when the event's category is
//! one rooftrace reads. Every decoder is liberal: a value of an unexpected
//! type is `Unusable`, never an error, so one odd field costs at most its
//! event ([`crate::kineto`] counts why), and a field rooftrace does not read
//! is never decoded. Duplicate keys: the last wins (as Python's `json`).
//!
//! The `args` keys read are one table, [`ARG_KEYS`]: adding a key is one
//! variant of [`ArgKey`] and one line there, and [`Args::get`] hands its raw
//! value to the decoder wanted ([`id`], [`number`], [`text`]).

use super::comm_args::{CommArgs, CommField};
use super::lex::{Lex, Raw, Stop};
use super::shapes::RecordedText;
use super::time::{exact_integer, exact_unsigned};
use serde::de::{self, Visitor};
use std::borrow::Cow;
use std::fmt;

/// The event categories rooftrace reads (`cat`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cat {
    /// `kernel` (and `Kernel`).
    Kernel,
    /// `gpu_memcpy` (and `Memcpy`).
    Memcpy,
    /// `gpu_memset` (and `Memset`).
    Memset,
    /// `cuda_runtime` (HIP runtime calls too).
    Runtime,
    /// `cuda_driver`.
    Driver,
    /// `cuda_sync`: a synchronisation record on a stream's row.
    Sync,
    /// `cpu_op` (`aten::` ops and the like).
    CpuOp,
    /// `user_annotation` (`record_function`, `ProfilerStep#N`).
    Annotation,
    /// `gpu_user_annotation`: an annotation's span on the GPU.
    GpuAnnotation,
    /// `cuda_profiler_range`: a kernel's CUPTI counter values.
    ProfilerRange,
    /// `ac2g`: a launch-to-GPU flow arrow.
    Flow,
    /// Anything else (`python_function`, `Trace`, `fwdbwd`, metadata, a
    /// `cat` that is not a string).
    Other,
}

impl Cat {
    fn from_str(s: &str) -> Cat {
        match s {
            "kernel" | "Kernel" => Cat::Kernel,
            "gpu_memcpy" | "Memcpy" => Cat::Memcpy,
            "gpu_memset" | "Memset" => Cat::Memset,
            "cuda_runtime" | "Runtime" => Cat::Runtime,
            "cuda_driver" => Cat::Driver,
            "cuda_sync" => Cat::Sync,
            "cpu_op" | "Operator" => Cat::CpuOp,
            "user_annotation" => Cat::Annotation,
            "gpu_user_annotation" => Cat::GpuAnnotation,
            "cuda_profiler_range" => Cat::ProfilerRange,
            "ac2g" => Cat::Flow,
            _ => Cat::Other,
        }
    }
}

/// A decoded value: absent (or `null`), usable, or present and unusable
/// (of a type or range that cannot be read as what it is used for).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field<T> {
    /// No such key, or `null`.
    Absent,
    /// The value.
    Value(T),
    /// A value that cannot be used.
    Unusable,
}

impl<T> Field<T> {
    /// The value when usable.
    pub fn ok(self) -> Option<T> {
        match self {
            Field::Value(v) => Some(v),
            _ => None,
        }
    }
}

/// The text of a JSON string without escapes, borrowed; `None` for
/// anything else.
fn plain_string(raw: Raw<'_>) -> Option<&str> {
    let s = raw.get();
    let inner = s.strip_prefix('"')?.strip_suffix('"')?;
    (!inner.contains('\\')).then_some(inner)
}

/// A JSON string's text: borrowed when it has no escapes; a lone surrogate
/// (`"\ud800"`, valid JSON, not valid Unicode) becomes U+FFFD. `Unusable`
/// for a number, bool, array or object.
pub fn text(raw: Option<Raw<'_>>) -> Field<Cow<'_, str>> {
    let Some(raw) = raw else {
        return Field::Absent;
    };
    if let Some(s) = plain_string(raw) {
        return Field::Value(Cow::Borrowed(s));
    }
    let s = raw.get();
    if s == "null" {
        return Field::Absent;
    }
    if !s.starts_with('"') {
        return Field::Unusable;
    }
    if let Ok(owned) = serde_json::from_str::<String>(s) {
        return Field::Value(Cow::Owned(owned));
    }
    // Lone surrogates: the byte form of the string (WTF-8), made valid.
    struct Bytes;
    impl Visitor<'_> for Bytes {
        type Value = String;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a string")
        }
        fn visit_bytes<E: de::Error>(self, b: &[u8]) -> Result<String, E> {
            Ok(String::from_utf8_lossy(b).into_owned())
        }
        fn visit_borrowed_bytes<E: de::Error>(self, b: &[u8]) -> Result<String, E> {
            self.visit_bytes(b)
        }
    }
    let mut de = serde_json::Deserializer::from_str(s);
    match de::Deserializer::deserialize_bytes(&mut de, Bytes) {
        Ok(v) => Field::Value(Cow::Owned(v)),
        Err(_) => Field::Unusable,
    }
}

/// A category: `Other` for anything that is not one rooftrace reads
/// (including `null` and non-strings).
pub fn cat(raw: Option<Raw<'_>>) -> Cat {
    match text(raw) {
        Field::Value(s) => Cat::from_str(&s),
        _ => Cat::Other,
    }
}

/// The first byte of `ph`, when it is a string.
pub fn phase(raw: Option<Raw<'_>>) -> Option<u8> {
    match text(raw) {
        Field::Value(s) => s.bytes().next(),
        _ => None,
    }
}

/// A `pid`/`tid`/`device`/`stream`/`correlation`: a JSON number with an
/// integral value (`7`, `7.0`), or a string holding one (`"7"`, `"0x1f"`);
/// `Unusable` for a bool, array, object, fraction or other string.
pub fn id(raw: Option<Raw<'_>>) -> Field<i64> {
    let Some(raw) = raw else {
        return Field::Absent;
    };
    let s = raw.get();
    if s == "null" {
        return Field::Absent;
    }
    let parsed = if s.starts_with('"') {
        match text(Some(raw)) {
            Field::Value(t) => {
                let t = t.trim();
                match t.strip_prefix("0x") {
                    Some(hex) => i64::from_str_radix(hex, 16).ok(),
                    None => t.parse().ok(),
                }
            }
            _ => None,
        }
    } else {
        exact_integer(s)
    };
    parsed.map_or(Field::Unusable, Field::Value)
}

/// A non-negative integer (a byte count, a time in ns): a JSON number with
/// an integral value below 2^64.
pub fn unsigned(raw: Option<Raw<'_>>) -> Field<u64> {
    match raw.map(Raw::get) {
        None | Some("null") => Field::Absent,
        Some(s) => exact_unsigned(s).map_or(Field::Unusable, Field::Value),
    }
}

/// A finite number (a counter value); strings holding one count too.
pub fn number(raw: Option<Raw<'_>>) -> Field<f64> {
    let Some(raw) = raw else {
        return Field::Absent;
    };
    let s = raw.get();
    if s == "null" {
        return Field::Absent;
    }
    let parsed: Option<f64> = match text(Some(raw)) {
        Field::Value(t) => t.trim().parse().ok(),
        Field::Unusable => s.parse().ok(),
        Field::Absent => None,
    };
    parsed
        .filter(|v| v.is_finite())
        .map_or(Field::Unusable, Field::Value)
}

/// True when rooftrace reads fields of events of `cat` beyond the
/// category itself (flows and GPU annotations are only counted).
pub fn reads_event(cat: Cat) -> bool {
    !matches!(cat, Cat::Other | Cat::GpuAnnotation | Cat::Flow)
}

/// True when rooftrace reads the `args` of events of `cat` (host ops too:
/// a collective's keys, `record_param_comms`' `Input Dims`).
pub fn reads_args(cat: Cat) -> bool {
    !matches!(cat, Cat::Other | Cat::GpuAnnotation | Cat::Flow)
}

/// One element of `traceEvents`: the raw value of each field rooftrace
/// reads, borrowed from the parse buffer.
#[derive(Debug, Default)]
pub struct Event<'a> {
    /// Phase: `X` complete event, `M` metadata, `s`/`f` flow, `i` instant.
    pub ph: Option<Raw<'a>>,
    /// Category.
    pub cat: Option<Raw<'a>>,
    /// [`cat`] of `cat`, as the scan decoded it (`None`: no `cat` key).
    pub category: Option<Cat>,
    /// Name (kernel, call, op, annotation).
    pub name: Option<Raw<'a>>,
    /// Process id (a device index for GPU rows).
    pub pid: Option<Raw<'a>>,
    /// Thread id (a stream for GPU rows).
    pub tid: Option<Raw<'a>>,
    /// Start, µs.
    pub ts: Option<Raw<'a>>,
    /// Duration, µs.
    pub dur: Option<Raw<'a>>,
    /// Arguments, raw, when they came before `cat` (decode them with
    /// [`Args::read`]).
    pub args: Option<Raw<'a>>,
    /// Arguments decoded as they were parsed, when `cat` came first (the
    /// order Kineto writes) and is one whose `args` are read; the `args` of
    /// other categories are skipped unbuilt.
    pub decoded_args: Option<Args<'a>>,
}

impl<'a> Event<'a> {
    /// The `args` as rooftrace reads them for `cat`.
    pub fn take_args(&mut self, cat: Cat) -> Args<'a> {
        match self.decoded_args.take() {
            Some(args) => args,
            None if reads_args(cat) => Args::read(self.args, cat == Cat::ProfilerRange),
            None => Args::default(),
        }
    }
}

impl<'a> Event<'a> {
    /// One element of an event array at the scanner's position: `None`
    /// (stepped over) when it is JSON but not an object.
    pub fn scan(lx: &mut Lex<'a>) -> Result<Option<Event<'a>>, Stop> {
        if lx.peek("EOF while parsing a value")? != b'{' {
            lx.skip()?;
            return Ok(None);
        }
        lx.at += 1;
        let mut ev = Event::default();
        if lx.peek("EOF while parsing an object")? == b'}' {
            lx.at += 1;
            return Ok(Some(ev));
        }
        let mut seen_cat = None;
        loop {
            let key = lx.key_colon()?;
            if seen_cat.is_some_and(|c| !reads_event(c)) {
                // Only counted (or not read at all): the rest of the event
                // is validated, nothing kept.
                lx.skip()?;
                lx.skip_members()?;
                return Ok(Some(ev));
            }
            let slot = match key_text(key).as_bytes() {
                b"ph" => &mut ev.ph,
                b"cat" => {
                    // A string without escapes (every real one) is matched
                    // as it lies, without a decoding pass.
                    let c = if lx.peek("EOF while parsing a value")? == b'"' {
                        let (raw, escaped) = lx.string()?;
                        ev.cat = Some(raw);
                        match raw.get().get(1..raw.get().len() - 1) {
                            Some(inner) if !escaped => Cat::from_str(inner),
                            _ => cat(Some(raw)),
                        }
                    } else {
                        let raw = lx.value()?;
                        ev.cat = Some(raw);
                        cat(Some(raw))
                    };
                    seen_cat = Some(c);
                    ev.category = seen_cat;
                    if !lx.next_member()? {
                        return Ok(Some(ev));
                    }
                    continue;
                }
                b"args" => {
                    match seen_cat {
                        Some(c) if !reads_args(c) => {
                            lx.skip()?;
                            ev.args = None;
                            ev.decoded_args = None;
                        }
                        Some(c) => {
                            ev.decoded_args = Some(Args::scan(lx, c == Cat::ProfilerRange)?);
                            ev.args = None;
                        }
                        None => ev.args = Some(lx.value()?),
                    }
                    if !lx.next_member()? {
                        return Ok(Some(ev));
                    }
                    continue;
                }
                b"name" => &mut ev.name,
                b"pid" => &mut ev.pid,
                b"tid" => &mut ev.tid,
                b"ts" => &mut ev.ts,
                b"dur" => &mut ev.dur,
                _ => {
                    lx.skip()?;
                    if !lx.next_member()? {
                        return Ok(Some(ev));
                    }
                    continue;
                }
            };
            *slot = Some(lx.value()?);
            if !lx.next_member()? {
                return Ok(Some(ev));
            }
        }
    }
}

/// A key's text (`key` with its quotes, and whether the scanner saw an
/// escape in it): borrowed when it has none (`"\u0070h"` is `ph` too).
fn key_text((key, escaped): (Raw<'_>, bool)) -> Cow<'_, str> {
    let s = key.get();
    if !escaped {
        if let Some(inner) = s.get(1..s.len().saturating_sub(1)) {
            return Cow::Borrowed(inner);
        }
    }
    match text(Some(key)) {
        Field::Value(t) => t,
        _ => Cow::Borrowed(""),
    }
}

/// The `args` keys rooftrace reads. Add a key here and in [`ARG_KEYS`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArgKey {
    /// `correlation`: the CUPTI/roctracer id joining a GPU op to its call.
    Correlation,
    /// `device`.
    Device,
    /// `stream`.
    Stream,
    /// `bytes` of a copy or memset.
    Bytes,
    /// `cuda_sync_kind` of a `cuda_sync` record.
    SyncKind,
}

/// Each read `args` key and its name in the trace: the one place the set
/// of keys read is written.
pub const ARG_KEYS: [(&str, ArgKey); 5] = [
    ("correlation", ArgKey::Correlation),
    ("device", ArgKey::Device),
    ("stream", ArgKey::Stream),
    ("bytes", ArgKey::Bytes),
    ("cuda_sync_kind", ArgKey::SyncKind),
];

/// Most metrics kept per event: a real counter range has tens.
const MAX_METRICS_PER_EVENT: usize = 1024;

/// The `args` values of the keys in [`ARG_KEYS`] (raw, borrowed), and for
/// a `cuda_profiler_range` every numeric argument whose key looks like an
/// ncu metric (`unit__counter.sum`). Other keys are skipped unbuilt.
#[derive(Debug, Default)]
pub struct Args<'a> {
    values: [Option<Raw<'a>>; ARG_KEYS.len()],
    /// ncu metric name and value (`cuda_profiler_range` only).
    pub metrics: Vec<(String, f64)>,
    /// A collective's arguments (`Collective name`, `In msg nelems`, …)
    /// and the first input's size and type (`Input Dims`, `Input type`):
    /// the keys of `comm_args::CommField`.
    pub comm: CommArgs,
    /// An op's recorded `Input Dims`, `Input type` and `Concrete Inputs`,
    /// raw (read into an op call by `shapes` when the op calls are kept).
    pub shapes: RecordedText<'a>,
}

impl<'a> Args<'a> {
    /// The raw value of `key`, if the args hold it.
    pub fn get(&self, key: ArgKey) -> Option<Raw<'a>> {
        self.values[key as usize]
    }

    /// Decodes `raw` (an event's `args`); metrics are collected when
    /// `metrics` is set. `args` that are absent, `null` or not an object
    /// hold nothing.
    pub fn read(raw: Option<Raw<'a>>, metrics: bool) -> Args<'a> {
        let Some(raw) = raw else {
            return Args::default();
        };
        // The text was validated when the event was scanned.
        Args::scan(&mut Lex::text(raw.get(), true), metrics).unwrap_or_default()
    }

    /// The `args` value at the scanner's position, decoded as it is
    /// stepped over: the keys of [`ARG_KEYS`] kept raw, a collective's keys
    /// read, metrics collected when `metrics` is set; every other key
    /// stepped over unbuilt. A value that is not an object holds nothing.
    pub fn scan(lx: &mut Lex<'a>, metrics: bool) -> Result<Args<'a>, Stop> {
        let mut args = Args::default();
        if lx.peek("EOF while parsing a value")? != b'{' {
            lx.skip()?;
            return Ok(args);
        }
        lx.at += 1;
        if lx.peek("EOF while parsing an object")? == b'}' {
            lx.at += 1;
            return Ok(args);
        }
        loop {
            let raw_key = lx.key_colon()?;
            let key = key_text(raw_key);
            if let Some((_, k)) = ARG_KEYS.iter().find(|(name, _)| *name == key) {
                args.values[*k as usize] = Some(lx.value()?);
            } else if let Some(field) = CommField::of(&key) {
                let raw = lx.value()?.get();
                match field {
                    CommField::InputDims => args.shapes.dims = Some(raw),
                    CommField::InputType => args.shapes.types = Some(raw),
                    _ => {}
                }
                args.comm.read(field, raw);
            } else if key == "Concrete Inputs" {
                args.shapes.values = Some(lx.value()?.get());
            } else if key == "kernel_flop" {
                args.shapes.kernel_flop = Some(lx.value()?.get());
            } else if key == "kernel_num_gb" {
                args.shapes.kernel_num_gb = Some(lx.value()?.get());
            } else if metrics && key.contains("__") && key.len() <= 256 {
                let raw = lx.value()?;
                if let (Some(v), true) = (
                    number(Some(raw)).ok(),
                    args.metrics.len() < MAX_METRICS_PER_EVENT,
                ) {
                    args.metrics.push((key.into_owned(), v));
                }
            } else {
                lx.skip()?;
            }
            if !lx.next_member()? {
                return Ok(args);
            }
        }
    }
}

/// `cuda_sync_kind`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SyncKind {
    /// `Stream Wait Event`: a GPU-side dependency; the host does not block.
    WaitEvent,
    /// `Event Sync`, `Stream Sync`, `Context Sync`: the host blocked.
    Blocking,
}

/// A `cuda_sync_kind` string as [`SyncKind`]; `Unusable` when not a string.
pub fn sync_kind(raw: Option<Raw<'_>>) -> Field<SyncKind> {
    match text(raw) {
        Field::Value(s) if s.contains("Wait Event") => Field::Value(SyncKind::WaitEvent),
        Field::Value(_) => Field::Value(SyncKind::Blocking),
        Field::Absent => Field::Absent,
        Field::Unusable => Field::Unusable,
    }
}
