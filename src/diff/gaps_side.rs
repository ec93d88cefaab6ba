//! The gaps side model of a diff: one side of an nsys comparison, read
//! from a [`GapReport`] or a `rooftrace.gaps/…` JSON through the same
//! reader (fields by name, so fields and classes added later are ignored or
//! compared by name), and what it ran as a [`Workload`].

use super::cover::{WorkKind, Workload};
use super::identity::SideIdentity;
use super::name::normalize;
use super::SideInfo;
use crate::error::BadInput;
use crate::gaps::{FixTerms, GapReport, Scope};
use crate::timeline::{OpKind, Timeline};
use serde_json::Value;
use std::collections::BTreeMap;

/// A side that is not a usable gaps report.
#[derive(Debug, thiserror::Error)]
pub enum GapsSideError {
    /// The JSON lacks what every `rooftrace.gaps` report has.
    #[error("{file}: {what}; give a report written by `rooftrace gaps FILE --format json`")]
    Shape {
        /// The file.
        file: String,
        /// What is wrong.
        what: String,
    },
}

impl BadInput for GapsSideError {}

/// Busy and idle of one (process, device) of one side.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DeviceSample {
    /// Process id.
    pub pid: u64,
    /// Device id.
    pub device: u64,
    /// First op start to last op end, ns.
    pub span_ns: f64,
    /// Union of all GPU ops, ns.
    pub busy_ns: f64,
    /// Busy by kind, ns: every `<kind>_busy_ns` figure the report has
    /// (`kernel`, and `copy`, `memset`, `comm`, … where a report splits them).
    pub busy_by_kind: BTreeMap<String, f64>,
    /// Idle, ns.
    pub idle_ns: f64,
    /// Idle per class key: (count, ns).
    pub classes: BTreeMap<String, (u64, f64)>,
    /// Host-bound idle by what the host was doing, per key: (count, ns)
    /// (empty when the report does not split it).
    pub host_detail: BTreeMap<String, (u64, f64)>,
}

/// One instance of an NVTX range.
#[derive(Debug, Clone, PartialEq)]
pub struct RangeSample {
    /// Range text.
    pub text: String,
    /// Wall time on the host, ns.
    pub wall_ns: f64,
    /// Idle inside its GPU window, ns.
    pub idle_ns: Option<f64>,
}

/// One of the longest gaps.
#[derive(Debug, Clone, PartialEq)]
pub struct GapSample {
    /// Device id.
    pub device: u64,
    /// Start on the side's timeline, ns (orders repeats).
    pub start_ns: i64,
    /// Length, ns.
    pub duration_ns: f64,
    /// Class key.
    pub class: String,
    /// Name of the op before the gap.
    pub before_op: String,
    /// Name of the op after the gap.
    pub after_op: String,
    /// Names of the kernels among the two ops (`rooftrace.gaps` JSON
    /// reports say which ops are kernels).
    pub kernel_names: Vec<String>,
}

/// GPU time of one kernel name on one side.
#[derive(Debug, Clone, PartialEq)]
pub struct KernelTime {
    /// Kernel name as the timeline gives it.
    pub name: String,
    /// Sum of its launches' durations, ns (`None`: the input names the
    /// kernel without its time).
    pub time_ns: Option<f64>,
    /// Its launches (`None`: the input does not count them).
    pub launches: Option<u64>,
}

/// Every kernel of a timeline (ops of kind kernel that `scope` keeps),
/// by name: launches and the sum of their durations.
pub fn kernel_times(t: &Timeline, scope: Scope) -> Vec<KernelTime> {
    let mut by: BTreeMap<&str, (u64, i64)> = BTreeMap::new();
    for op in t
        .ops
        .iter()
        .filter(|o| o.kind == OpKind::Kernel && scope.selects(o))
    {
        let e = by.entry(t.name(op.name)).or_insert((0, 0));
        e.0 += 1;
        e.1 = e.1.saturating_add(op.end_ns.saturating_sub(op.start_ns));
    }
    by.into_iter()
        .map(|(name, (n, ns))| KernelTime {
            name: name.to_string(),
            time_ns: Some(ns as f64),
            launches: Some(n),
        })
        .collect()
}

/// One side of an nsys diff.
#[derive(Debug, Clone, PartialEq)]
pub struct GapsSide {
    /// The file and what it was read from.
    pub info: SideInfo,
    /// Devices, sorted by (pid, device).
    pub devices: Vec<DeviceSample>,
    /// NVTX range instances (`None`: the report was made without `--nvtx`).
    pub ranges: Option<Vec<RangeSample>>,
    /// The longest gaps, longest first.
    pub top_gaps: Vec<GapSample>,
    /// Kernels the side ran, with their GPU time where known (an export's
    /// every kernel, set by the caller that read the timeline; a JSON
    /// report's kernels around its longest gaps, without times).
    pub kernels: Vec<KernelTime>,
    /// Warnings of the report.
    pub diagnostics: Vec<String>,
    /// A PyTorch trace with shapes: its `rooftrace ops` rows (set by the
    /// caller that read the op calls); `None` otherwise.
    pub ops: Option<Vec<super::ops::OpFraction>>,
    /// The GPUs, rank and world size the side records (empty for a JSON
    /// report, which keeps none).
    pub identity: SideIdentity,
    /// Whose words the side's fixes are in: the tool that made the input
    /// (a PyTorch trace is told `torch.profiler` settings, an nsys export
    /// nsys flags) and whether it shows PyTorch; a JSON report's from its
    /// `input` (`schema_flavor`, `range_families`).
    pub terms: FixTerms,
}

/// The fix terms of a `rooftrace.gaps` JSON report's `input`: a PyTorch
/// trace's (`schema_flavor` `kineto`) or an nsys export's, PyTorch when
/// its `range_families` hold `py_torch`.
fn json_terms(input: Option<&Value>) -> FixTerms {
    let flavor = input.and_then(|i| i.get("schema_flavor")?.as_str());
    let pytorch = input
        .and_then(|i| i.get("range_families")?.as_array())
        .is_some_and(|a| a.iter().any(|f| f.as_str() == Some("py_torch")));
    FixTerms {
        tool: match flavor {
            Some("kineto") => crate::gaps::Tool::PyTorchProfiler,
            _ => crate::gaps::Tool::Nsys,
        },
        pytorch,
        graphs: input
            .and_then(|i| i.get("graph_launches")?.as_u64())
            .is_some_and(|n| n > 0),
    }
}

fn f(v: &Value, key: &str) -> Option<f64> {
    v.get(key)?.as_f64().filter(|x| x.is_finite())
}

/// A `{key: {"count", "total_ns"}}` object (classes, host detail).
fn totals_map(v: Option<&Value>) -> BTreeMap<String, (u64, f64)> {
    v.and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .filter_map(|(k, c)| {
                    Some((k.clone(), (c.get("count")?.as_u64()?, f(c, "total_ns")?)))
                })
                .collect()
        })
        .unwrap_or_default()
}

fn device_from_json(d: &Value) -> Option<DeviceSample> {
    let classes = totals_map(d.get("classes"));
    Some(DeviceSample {
        pid: d.get("pid")?.as_u64()?,
        device: d.get("device")?.as_u64()?,
        span_ns: f(d, "span_ns")?,
        busy_ns: f(d, "busy_ns")?,
        busy_by_kind: d
            .as_object()
            .map(|m| {
                m.iter()
                    .filter_map(|(k, v)| {
                        let kind = k.strip_suffix("_busy_ns")?;
                        Some((kind.to_string(), v.as_f64()?))
                    })
                    .collect()
            })
            .unwrap_or_default(),
        idle_ns: f(d, "idle_ns")?,
        classes,
        host_detail: totals_map(d.get("host_detail")),
    })
}

/// Text field `key` of `v`: inline (`rooftrace.gaps/2` and earlier) or,
/// from `rooftrace.gaps/3`, `key_id`, an index into the report's `names`.
fn text_of(v: &Value, key: &str, names: &[&str]) -> Option<String> {
    if let Some(s) = v.get(key).and_then(Value::as_str) {
        return Some(s.to_string());
    }
    let id = v.get(format!("{key}_id"))?.as_u64()?;
    names
        .get(usize::try_from(id).ok()?)
        .map(|s| (*s).to_string())
}

fn gap_from_json(g: &Value, names: &[&str]) -> Option<GapSample> {
    let op = |k: &str| {
        g.get(k)
            .and_then(|o| text_of(o, "name", names))
            .unwrap_or_default()
    };
    let kernel_names = ["before", "after"]
        .into_iter()
        .filter(|k| {
            g.get(*k)
                .and_then(|o| o.get("kind"))
                .and_then(Value::as_str)
                == Some("kernel")
        })
        .map(op)
        .filter(|n| !n.is_empty())
        .collect();
    Some(GapSample {
        device: g.get("device")?.as_u64()?,
        start_ns: g.get("start_ns")?.as_i64()?,
        duration_ns: f(g, "duration_ns")?,
        class: g.get("class")?.as_str()?.to_string(),
        before_op: op("before"),
        after_op: op("after"),
        kernel_names,
    })
}

fn ranges_from_json(r: &Value, names: &[&str]) -> Option<Vec<RangeSample>> {
    let inst = r.get("instances")?.as_array()?;
    Some(
        inst.iter()
            .filter_map(|i| {
                Some(RangeSample {
                    text: text_of(i, "text", names)?,
                    wall_ns: f(i, "wall_ns")?,
                    idle_ns: f(i, "idle_ns"),
                })
            })
            .collect(),
    )
}

impl GapsSide {
    /// The side of an analysed export (its parts read through their JSON shape).
    pub fn from_report(report: &GapReport, input: &str, source: &str) -> GapsSide {
        let arr = |v: Value| v.as_array().cloned().unwrap_or_default();
        let devices = arr(serde_json::to_value(&report.devices).unwrap_or(Value::Null));
        let gaps = arr(serde_json::to_value(&report.top_gaps).unwrap_or(Value::Null));
        let names: Vec<&str> = report.names.iter().map(String::as_str).collect();
        GapsSide {
            info: SideInfo {
                input: input.to_string(),
                source: source.to_string(),
            },
            devices: devices.iter().filter_map(device_from_json).collect(),
            ranges: report.ranges.as_ref().and_then(|r| {
                ranges_from_json(&serde_json::to_value(r).unwrap_or(Value::Null), &names)
            }),
            top_gaps: gaps
                .iter()
                .filter_map(|g| gap_from_json(g, &names))
                .collect(),
            kernels: Vec::new(),
            ops: None,
            identity: SideIdentity::default(),
            terms: report.fix_terms(),
            // The sentences: a JSON side has no kinds, and the diff only
            // prints them (once when both sides say the same).
            diagnostics: report
                .diagnostics
                .iter()
                .map(|d| d.message.clone())
                .collect(),
        }
    }

    /// The side of a timeline (an nsys export or a PyTorch trace): analysed
    /// like `rooftrace gaps` (the `kept` longest gaps kept for matching,
    /// NVTX ranges matching `nvtx`), with every kernel's launches and time.
    pub fn from_timeline(
        timeline: &Timeline,
        identity: SideIdentity,
        info: SideInfo,
        nvtx: Option<regex::Regex>,
        kept: usize,
    ) -> GapsSide {
        let cfg = crate::gaps::GapConfig {
            top: kept,
            nvtx,
            ..crate::gaps::GapConfig::default()
        };
        let report = crate::gaps::analyze(timeline, &cfg);
        let mut side = GapsSide::from_report(&report, &info.input, &info.source);
        side.kernels = kernel_times(timeline, cfg.scope());
        side.identity = identity;
        side
    }

    /// The side of a `rooftrace.gaps/…` JSON document. Its kernels are the
    /// kernel ops around its longest gaps, without times (the report keeps
    /// no kernel table).
    pub fn from_json(doc: &Value, file: &str, schema: &str) -> Result<GapsSide, GapsSideError> {
        let devices = doc
            .get("devices")
            .and_then(Value::as_array)
            .ok_or_else(|| GapsSideError::Shape {
                file: file.to_string(),
                what: "no `devices` array".to_string(),
            })?;
        let names: Vec<&str> = doc
            .get("names")
            .and_then(Value::as_array)
            .map(|a| a.iter().map(|n| n.as_str().unwrap_or("")).collect())
            .unwrap_or_default();
        let mut side = GapsSide {
            ops: None,
            info: SideInfo {
                input: file.to_string(),
                source: format!("{schema} json"),
            },
            devices: devices.iter().filter_map(device_from_json).collect(),
            ranges: doc.get("ranges").and_then(|r| ranges_from_json(r, &names)),
            top_gaps: doc
                .get("top_gaps")
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(|g| gap_from_json(g, &names)).collect())
                .unwrap_or_default(),
            diagnostics: doc
                .get("diagnostics")
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(|d| d.as_str().map(str::to_string))
                        .collect()
                })
                .unwrap_or_default(),
            kernels: Vec::new(),
            identity: SideIdentity::default(),
            terms: json_terms(doc.get("input")),
        };
        side.kernels = side
            .top_gaps
            .iter()
            .flat_map(|g| g.kernel_names.iter())
            .map(|name| KernelTime {
                name: name.clone(),
                time_ns: None,
                launches: None,
            })
            .collect();
        Ok(side)
    }

    /// What the side ran, for the comparability check: kernels by
    /// normalised name with their GPU time, and NVTX ranges by text with
    /// their wall time.
    pub fn workload(&self) -> Workload {
        let mut work = Workload::default();
        for k in &self.kernels {
            work.add(WorkKind::Kernel, &normalize(&k.name), k.time_ns);
        }
        for r in self.ranges.iter().flatten() {
            work.add(WorkKind::Range, &r.text, Some(r.wall_ns));
        }
        work
    }
}
