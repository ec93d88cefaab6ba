//! One trace event as serde sees it, and the top-level object walked one
//! event at a time: [`Root`] hands each element of `traceEvents` to a sink
//! as soon as it is parsed, so memory holds one event, never the array.
//! Only the fields rooftrace uses are kept; every other value is skipped
//! (`IgnoredAny`) without being stored.

use super::comm_args::{CommArgs, CommField};
use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;
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
    /// Anything else (`python_function`, `Trace`, `fwdbwd`, metadata).
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

impl<'de> Deserialize<'de> for Cat {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Cat, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Cat;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a category string")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Cat, E> {
                Ok(Cat::from_str(s))
            }
        }
        d.deserialize_str(V)
    }
}

/// A `pid`/`tid`/`stream`: an integer, or a string (`"Spans"`, `"0x0"`,
/// `"stream 7"`) read as the integer it holds when it holds one.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Id(pub Option<i64>);

impl<'de> Deserialize<'de> for Id {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Id, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Id;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an integer id or a string")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Id, E> {
                Ok(Id(Some(v)))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Id, E> {
                Ok(Id(i64::try_from(v).ok()))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Id, E> {
                let ok = v.fract() == 0.0 && v.abs() < 9.0e15;
                Ok(Id(ok.then_some(v as i64)))
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Id, E> {
                let t = s.trim();
                let parsed = match t.strip_prefix("0x") {
                    Some(hex) => i64::from_str_radix(hex, 16).ok(),
                    None => t.parse().ok(),
                };
                Ok(Id(parsed))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Id, E> {
                Ok(Id(None))
            }
        }
        d.deserialize_any(V)
    }
}

/// The `args` fields rooftrace reads; for a `cuda_profiler_range` every
/// numeric argument whose key looks like an ncu metric (`unit__counter.sum`)
/// is kept in `metrics`.
#[derive(Debug, Default)]
pub struct Args {
    /// `correlation`: the CUPTI/roctracer id joining a GPU op to its call.
    pub correlation: Id,
    /// `device`.
    pub device: Id,
    /// `stream`.
    pub stream: Id,
    /// `bytes` of a copy or memset.
    pub bytes: Option<u64>,
    /// `cuda_sync_kind` of a `cuda_sync` record, as [`SyncKind`].
    pub sync_kind: Option<SyncKind>,
    /// ncu metric name and value (`cuda_profiler_range` only).
    pub metrics: Vec<(String, f64)>,
    /// A collective's arguments (`Collective name`, `In msg nelems`, …)
    /// and the first input's size and type (`Input Dims`, `Input type`).
    pub comm: CommArgs,
}

/// `cuda_sync_kind`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SyncKind {
    /// `Stream Wait Event`: a GPU-side dependency; the host does not block.
    WaitEvent,
    /// `Event Sync`, `Stream Sync`, `Context Sync`: the host blocked.
    Blocking,
}

impl<'de> Deserialize<'de> for Args {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Args, D::Error> {
        d.deserialize_map(ArgsVisitor)
    }
}

struct ArgsVisitor;

/// A key of `args`, classified without allocating unless it is a metric.
enum ArgKey {
    Correlation,
    Device,
    Stream,
    Bytes,
    SyncKind,
    Comm(CommField),
    Metric(String),
    Other,
}

impl<'de> Deserialize<'de> for ArgKey {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<ArgKey, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = ArgKey;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an argument name")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<ArgKey, E> {
                Ok(match s {
                    "correlation" => ArgKey::Correlation,
                    "device" => ArgKey::Device,
                    "stream" => ArgKey::Stream,
                    "bytes" => ArgKey::Bytes,
                    "cuda_sync_kind" => ArgKey::SyncKind,
                    m if m.contains("__") && m.len() <= 256 => ArgKey::Metric(m.to_string()),
                    m => CommField::of(m).map_or(ArgKey::Other, ArgKey::Comm),
                })
            }
        }
        d.deserialize_str(V)
    }
}

/// A number, or `None` for anything else (skipped).
struct MaybeNumber(Option<f64>);

impl<'de> Deserialize<'de> for MaybeNumber {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<MaybeNumber, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = MaybeNumber;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any value")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<MaybeNumber, E> {
                Ok(MaybeNumber(Some(v as f64)))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<MaybeNumber, E> {
                Ok(MaybeNumber(Some(v as f64)))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<MaybeNumber, E> {
                Ok(MaybeNumber(v.is_finite().then_some(v)))
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<MaybeNumber, E> {
                Ok(MaybeNumber(
                    s.trim().parse().ok().filter(|v: &f64| v.is_finite()),
                ))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<MaybeNumber, E> {
                Ok(MaybeNumber(None))
            }
            fn visit_unit<E: de::Error>(self) -> Result<MaybeNumber, E> {
                Ok(MaybeNumber(None))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<MaybeNumber, A::Error> {
                while a.next_element::<IgnoredAny>()?.is_some() {}
                Ok(MaybeNumber(None))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<MaybeNumber, A::Error> {
                while a.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(MaybeNumber(None))
            }
        }
        d.deserialize_any(V)
    }
}

/// Most metrics kept per event: a real counter range has tens.
const MAX_METRICS_PER_EVENT: usize = 1024;

impl<'de> Visitor<'de> for ArgsVisitor {
    type Value = Args;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an args object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Args, A::Error> {
        let mut args = Args::default();
        while let Some(key) = map.next_key::<ArgKey>()? {
            match key {
                ArgKey::Correlation => args.correlation = map.next_value()?,
                ArgKey::Device => args.device = map.next_value()?,
                ArgKey::Stream => args.stream = map.next_value()?,
                ArgKey::Bytes => {
                    let n = map.next_value::<MaybeNumber>()?.0;
                    args.bytes = n.filter(|v| *v >= 0.0 && *v < 1e19).map(|v| v as u64);
                }
                ArgKey::SyncKind => {
                    let kind = map.next_value::<MaybeString>()?.0;
                    args.sync_kind = kind.map(|k| {
                        if k {
                            SyncKind::WaitEvent
                        } else {
                            SyncKind::Blocking
                        }
                    });
                }
                ArgKey::Metric(name) => {
                    let v = map.next_value::<MaybeNumber>()?.0;
                    if let (Some(v), true) = (v, args.metrics.len() < MAX_METRICS_PER_EVENT) {
                        args.metrics.push((name, v));
                    }
                }
                ArgKey::Comm(f) => args.comm.read(f, &mut map)?,
                ArgKey::Other => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(args)
    }
}

/// A `cuda_sync_kind` string: `Some(true)` for a stream wait event,
/// `Some(false)` for any other kind, `None` when not a string.
struct MaybeString(Option<bool>);

impl<'de> Deserialize<'de> for MaybeString {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<MaybeString, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = MaybeString;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a sync kind string")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<MaybeString, E> {
                Ok(MaybeString(Some(s.contains("Wait Event"))))
            }
        }
        d.deserialize_str(V)
    }
}

/// One element of `traceEvents`, the fields rooftrace reads. `ts` and
/// `dur` stay raw text so their decimal fractions convert to ns exactly
/// ([`super::time::micros_to_ns`]).
#[derive(Debug, Deserialize)]
pub struct Event {
    /// Phase: `X` complete event, `M` metadata, `s`/`f` flow, `i` instant.
    #[serde(default)]
    pub ph: Option<PhaseChar>,
    /// Category.
    #[serde(default = "other_cat")]
    pub cat: Cat,
    /// Name (kernel, call, op, annotation).
    #[serde(default)]
    pub name: Option<String>,
    /// Process id (a device index for GPU rows).
    #[serde(default)]
    pub pid: Id,
    /// Thread id (a stream for GPU rows).
    #[serde(default)]
    pub tid: Id,
    /// Start, µs, raw.
    #[serde(default)]
    pub ts: Option<Box<RawValue>>,
    /// Duration, µs, raw.
    #[serde(default)]
    pub dur: Option<Box<RawValue>>,
    /// Arguments.
    #[serde(default)]
    pub args: Args,
}

fn other_cat() -> Cat {
    Cat::Other
}

/// The first character of `ph`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PhaseChar(pub u8);

impl<'de> Deserialize<'de> for PhaseChar {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<PhaseChar, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = PhaseChar;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a phase string")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<PhaseChar, E> {
                Ok(PhaseChar(s.bytes().next().unwrap_or(b'?')))
            }
        }
        d.deserialize_str(V)
    }
}

/// `distributedInfo`.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct DistributedInfo {
    /// This process's rank.
    #[serde(default)]
    pub rank: Option<u32>,
    /// Ranks in the job.
    #[serde(default)]
    pub world_size: Option<u32>,
    /// Communication backend (`nccl`, `gloo`).
    #[serde(default)]
    pub backend: Option<String>,
}

/// One `deviceProperties` entry.
#[derive(Debug, Clone, PartialEq, Deserialize, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DeviceProps {
    /// Device index.
    #[serde(default)]
    pub id: Option<i64>,
    /// Marketing name (`NVIDIA A100-PG509-200`, `AMD Radeon Graphics`).
    #[serde(default)]
    pub name: Option<String>,
    /// Compute capability major.
    #[serde(default)]
    pub compute_major: Option<i64>,
    /// Compute capability minor.
    #[serde(default)]
    pub compute_minor: Option<i64>,
    /// Streaming multiprocessors (compute units on AMD).
    #[serde(default)]
    pub num_sms: Option<i64>,
    /// Device memory, bytes.
    #[serde(default)]
    pub total_global_mem: Option<u64>,
}

/// What the top level holds besides the events.
#[derive(Debug, Default)]
pub struct TopLevel {
    /// `distributedInfo`, when present.
    pub distributed: Option<DistributedInfo>,
    /// `deviceProperties`, when present.
    pub devices: Vec<DeviceProps>,
    /// `baseTimeNanoseconds`, when present.
    pub base_time_ns: Option<u64>,
    /// True once a `traceEvents` array was seen.
    pub saw_events: bool,
}

/// The top-level object: `traceEvents` elements go to `sink` one at a time.
pub struct Root<'s, F> {
    /// Receives each event.
    pub sink: &'s mut F,
}

impl<'de, F: FnMut(Event) -> Result<(), String>> DeserializeSeed<'de> for Root<'_, F> {
    type Value = TopLevel;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<TopLevel, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de, F: FnMut(Event) -> Result<(), String>> Visitor<'de> for Root<'_, F> {
    type Value = TopLevel;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a Chrome-trace object with `traceEvents`")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<TopLevel, A::Error> {
        let mut top = TopLevel::default();
        while let Some(key) = map.next_key::<TopKey>()? {
            match key {
                TopKey::TraceEvents => {
                    map.next_value_seed(Events {
                        sink: &mut *self.sink,
                    })?;
                    top.saw_events = true;
                }
                TopKey::Distributed => top.distributed = Some(map.next_value()?),
                TopKey::Devices => top.devices = map.next_value()?,
                TopKey::BaseTime => {
                    let v = map.next_value::<MaybeNumber>()?.0;
                    top.base_time_ns = v.filter(|v| *v >= 0.0 && *v < 1.8e19).map(|v| v as u64);
                }
                TopKey::Other => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(top)
    }
}

enum TopKey {
    TraceEvents,
    Distributed,
    Devices,
    BaseTime,
    Other,
}

impl<'de> Deserialize<'de> for TopKey {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<TopKey, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = TopKey;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a top-level key")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<TopKey, E> {
                Ok(match s {
                    "traceEvents" => TopKey::TraceEvents,
                    "distributedInfo" => TopKey::Distributed,
                    "deviceProperties" => TopKey::Devices,
                    "baseTimeNanoseconds" => TopKey::BaseTime,
                    _ => TopKey::Other,
                })
            }
        }
        d.deserialize_str(V)
    }
}

/// The `traceEvents` array, element by element.
struct Events<'s, F> {
    sink: &'s mut F,
}

impl<'de, F: FnMut(Event) -> Result<(), String>> DeserializeSeed<'de> for Events<'_, F> {
    type Value = ();
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de, F: FnMut(Event) -> Result<(), String>> Visitor<'de> for Events<'_, F> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array of trace events")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while let Some(ev) = seq.next_element::<Event>()? {
            (self.sink)(ev).map_err(de::Error::custom)?;
        }
        Ok(())
    }
}
