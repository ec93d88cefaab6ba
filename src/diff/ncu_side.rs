//! The ncu side model of a diff: one side of a kernel comparison, built
//! from a [`RooflineReport`] (field by field through [`Figure`], so a figure
//! that becomes optional in a later report still reads) or a
//! `rooftrace.ncu/…` JSON (unknown fields ignored), and what it ran as a
//! [`Workload`].

use super::cover::{WorkKind, Workload};
use super::name::normalize;
use super::SideInfo;
use crate::error::BadInput;
use crate::roofline::{GroupBy, RooflineReport};
use crate::roofs::{ComputePath, Roofs};
use serde_json::Value;
use std::collections::HashMap;

/// A side that is not a usable ncu report.
#[derive(Debug, thiserror::Error)]
pub enum NcuSideError {
    /// The JSON lacks what every `rooftrace.ncu` report has.
    #[error("{file}: {what}; give a report written by `rooftrace ncu FILE --format json`")]
    Shape {
        /// The file.
        file: String,
        /// What is wrong.
        what: String,
    },
    /// Rows from rates alone (`rate_only`): no time to compare.
    #[error("{file}: {rows} row(s) come from rates alone (`rate_only`: the ncu export had no duration), and rooftrace diff judges kernels by their time. Re-run `rooftrace ncu` on the .ncu-rep itself, or on a re-export with every counter (`ncu --import R.ncu-rep --csv --page raw --print-units base > R.csv`), with --format json")]
    RateOnly {
        /// The file.
        file: String,
        /// Rows with `rate_only: true`.
        rows: usize,
    },
}

impl BadInput for NcuSideError {}

/// One row of one side (a launch, or all launches of a name when the report
/// was made with `--group-by kernel`).
#[derive(Debug, Clone, PartialEq)]
pub struct KernelSample {
    /// Kernel name as printed.
    pub name: String,
    /// Matching key ([`normalize`]).
    pub key: String,
    /// Process id, when known (orders occurrences).
    pub process_id: Option<u64>,
    /// ncu launch id (orders occurrences).
    pub id: u64,
    /// Launches in the row.
    pub launches: u64,
    /// Measured time, ns.
    pub duration_ns: f64,
    /// DRAM bytes (`None`: unknown).
    pub dram_bytes: Option<f64>,
    /// FLOPs (`None`: no FLOP counter, unknown — not zero).
    pub flop: Option<f64>,
    /// FLOP per DRAM byte.
    pub intensity: Option<f64>,
    /// Achieved FLOP/s.
    pub achieved_flop_per_s: Option<f64>,
    /// Fraction of the roof.
    pub fraction_of_roof: Option<f64>,
    /// Time lost against the roof, ns.
    pub time_lost_ns: Option<f64>,
    /// The compute path with the most FLOPs.
    pub path: Option<ComputePath>,
}

/// One side of an ncu diff.
#[derive(Debug, Clone, PartialEq)]
pub struct NcuSide {
    /// The file and what it was read from.
    pub info: SideInfo,
    /// GPU name of the roofs.
    pub gpu: Option<String>,
    /// The roofs, when the report carries them in the roofs format
    /// (`None`: a JSON report whose roofs this version cannot read; never
    /// the same as another side's).
    pub roofs: Option<Roofs>,
    /// The roofs as stated, before `rooftrace ncu` scaled them to the clock
    /// the side ran at (`rooftrace.ncu/3` `clock.roofs_as_stated`; else
    /// `roofs`): what two sides must share to compare.
    pub stated_roofs: Option<Box<Roofs>>,
    /// One row per launch, or per kernel name.
    pub group_by: GroupBy,
    /// The rows.
    pub kernels: Vec<KernelSample>,
    /// The report's diagnostics (messages).
    pub diagnostics: Vec<String>,
}

/// A number at `key`: a JSON number, or an object's `value` (a field that
/// grew a derivation note), else unknown.
fn num(v: &Value, key: &str) -> Option<f64> {
    match v.get(key)? {
        Value::Number(n) => n.as_f64().filter(|x| x.is_finite()),
        Value::Object(o) => o.get("value").and_then(Value::as_f64),
        _ => None,
    }
}

/// A report figure that is a plain number in one version of a report and
/// optional (unknown-able) in another: both read as `Option<f64>`, non-finite
/// values as unknown.
pub trait Figure {
    /// The value, `None` when unknown.
    fn figure(&self) -> Option<f64>;
}

impl Figure for f64 {
    fn figure(&self) -> Option<f64> {
        Some(*self).filter(|x| x.is_finite())
    }
}

impl Figure for Option<f64> {
    fn figure(&self) -> Option<f64> {
        self.filter(|x| x.is_finite())
    }
}

/// The matching key of `name`, normalised once per distinct name.
fn cached_key(keys: &mut HashMap<String, String>, name: &str) -> String {
    if let Some(k) = keys.get(name) {
        return k.clone();
    }
    let k = normalize(name);
    keys.insert(name.to_string(), k.clone());
    k
}

/// The messages of a report's `diagnostics` array (objects with a
/// `message`, or plain strings).
fn messages(v: &Value) -> Vec<String> {
    v.as_array()
        .map(|a| {
            a.iter()
                .filter_map(|d| d.get("message").unwrap_or(d).as_str())
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

impl KernelSample {
    /// Reads one `kernels[]` row; unknown fields are ignored, a row without
    /// a name or a positive duration is skipped (`None`). `keys` caches the
    /// normalised name of each distinct name (a profile repeats a few names
    /// many times).
    pub fn from_json(row: &Value, keys: &mut HashMap<String, String>) -> Option<KernelSample> {
        let name = row.get("name")?.as_str()?.to_string();
        let duration_ns = num(row, "duration_ns").filter(|d| *d > 0.0)?;
        // A report without FLOP counters writes 0 and flags the row; 0 is
        // then unknown, not zero.
        let bandwidth_only = row.get("bandwidth_only").and_then(Value::as_bool) == Some(true);
        let flop = num(row, "flop").filter(|_| !bandwidth_only);
        let path = row
            .get("flop_by_path")
            .and_then(Value::as_object)
            .and_then(|m| {
                m.iter()
                    .filter_map(|(k, w)| Some((k, w.as_f64()?)))
                    .max_by(|a, b| a.1.total_cmp(&b.1))
                    .and_then(|(k, _)| serde_json::from_value(Value::String(k.clone())).ok())
            });
        Some(KernelSample {
            key: cached_key(keys, &name),
            name,
            process_id: row.get("process_id").and_then(Value::as_u64),
            id: row.get("id").and_then(Value::as_u64).unwrap_or(0),
            launches: row.get("launches").and_then(Value::as_u64).unwrap_or(1),
            duration_ns,
            dram_bytes: num(row, "dram_bytes"),
            intensity: num(row, "intensity").filter(|_| flop.is_some()),
            achieved_flop_per_s: num(row, "achieved_flop_per_s").filter(|_| flop.is_some()),
            flop,
            fraction_of_roof: num(row, "fraction_of_roof"),
            time_lost_ns: num(row, "time_lost_ns"),
            path,
        })
    }
}

impl NcuSide {
    /// The side of an analysed CSV. Rows are read field by field through
    /// [`Figure`], so a figure that is a plain number in one version of the
    /// report and optional (unknown-able) in another reads the same.
    pub fn from_report(report: &RooflineReport, source: &str) -> NcuSide {
        let mut keys: HashMap<String, String> = HashMap::new();
        let kernels = report
            .kernels
            .iter()
            .filter_map(|k| {
                let flop = k.flop.figure().filter(|_| !k.bandwidth_only);
                Some(KernelSample {
                    key: cached_key(&mut keys, &k.name),
                    name: k.name.to_string(),
                    process_id: k.process_id,
                    id: k.id,
                    launches: k.launches,
                    duration_ns: k.duration_ns.figure().filter(|d| *d > 0.0)?,
                    dram_bytes: k.dram_bytes.figure(),
                    intensity: k.intensity.figure().filter(|_| flop.is_some()),
                    achieved_flop_per_s: k.achieved_flop_per_s.figure().filter(|_| flop.is_some()),
                    flop,
                    fraction_of_roof: k.fraction_of_roof.figure(),
                    time_lost_ns: k.time_lost_ns.figure(),
                    path: report.dominant_path(k),
                })
            })
            .collect();
        let diagnostics = report
            .diagnostics
            .iter()
            .map(|d| d.message.clone())
            .collect();
        NcuSide {
            info: SideInfo {
                input: report.input.clone(),
                source: source.to_string(),
            },
            gpu: Some(report.gpu.name.clone()),
            roofs: Some(report.roofs.clone()),
            stated_roofs: Some(Box::new(
                report
                    .clock
                    .roofs_as_stated
                    .clone()
                    .unwrap_or_else(|| report.roofs.clone()),
            )),
            group_by: report.group_by,
            kernels,
            diagnostics,
        }
    }

    /// The side of a `rooftrace.ncu/…` JSON document.
    pub fn from_json(doc: &Value, file: &str, schema: &str) -> Result<NcuSide, NcuSideError> {
        let shape = |what: &str| NcuSideError::Shape {
            file: file.to_string(),
            what: what.to_string(),
        };
        let rows = doc
            .get("kernels")
            .and_then(Value::as_array)
            .ok_or_else(|| shape("no `kernels` array"))?;
        let rate_only = rows
            .iter()
            .filter(|r| r.get("rate_only").and_then(Value::as_bool) == Some(true))
            .count();
        if rate_only > 0 {
            return Err(NcuSideError::RateOnly {
                file: file.to_string(),
                rows: rate_only,
            });
        }
        let mut keys = HashMap::new();
        let kernels = rows
            .iter()
            .filter_map(|r| KernelSample::from_json(r, &mut keys))
            .collect();
        Ok(NcuSide {
            info: SideInfo {
                input: file.to_string(),
                source: format!("{schema} json"),
            },
            gpu: doc
                .pointer("/gpu/name")
                .and_then(Value::as_str)
                .map(str::to_string),
            roofs: doc
                .get("roofs")
                .and_then(|r| serde_json::from_value(r.clone()).ok()),
            stated_roofs: doc
                .pointer("/clock/roofs_as_stated")
                .or_else(|| doc.get("roofs"))
                .and_then(|r| serde_json::from_value(r.clone()).ok())
                .map(Box::new),
            group_by: match doc.get("group_by").and_then(Value::as_str) {
                Some("kernel") => GroupBy::Kernel,
                _ => GroupBy::Launch,
            },
            kernels,
            diagnostics: messages(doc.get("diagnostics").unwrap_or(&Value::Null)),
        })
    }
}

impl NcuSide {
    /// What the side ran, for the comparability check: kernel time per
    /// matching key.
    pub fn workload(&self) -> Workload {
        let mut work = Workload::default();
        for k in &self.kernels {
            work.add(WorkKind::Kernel, &k.key, Some(k.duration_ns));
        }
        work
    }

    /// True when both sides carry roofs and they are the same.
    pub fn same_roofs(&self, other: &NcuSide) -> bool {
        matches!(
            (&self.stated_roofs, &other.stated_roofs),
            (Some(mine), Some(theirs)) if mine == theirs
        )
    }
}
