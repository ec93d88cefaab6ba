//! Kernels before → after: the ncu side model, built from a
//! [`RooflineReport`] (field by field through [`Figure`], so a figure that
//! becomes optional in a later report still reads) or a `rooftrace.ncu/…`
//! JSON (unknown fields ignored), kernels matched by normalised name ([`super::name`]) and occurrence,
//! every figure judged ([`super::noise`]), totals.

use super::name::normalize;
use super::noise::{spread_rel, Change, Limit, Thresholds, Verdict, Worse};
use super::{SideInfo, VerdictCounts};
use crate::error::BadInput;
use crate::roofline::RooflineReport;
use crate::roofs::{ComputePath, Roofs};
use serde::Serialize;
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
    /// The roofs, when the report carries them in the roofs format.
    pub roofs: Option<Roofs>,
    /// The roofs as JSON, to compare the two sides' roofs exactly.
    pub roofs_json: Value,
    /// `launch` or `kernel`.
    pub group_by: String,
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
                    name: k.name.clone(),
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
        let diagnostics = messages(&serde_json::to_value(&report.diagnostics).unwrap_or_default());
        NcuSide {
            info: SideInfo {
                input: report.input.clone(),
                source: source.to_string(),
            },
            gpu: Some(report.gpu.name.clone()),
            roofs: Some(report.roofs.clone()),
            // The roofs as stated, before scaling to each run's clock.
            roofs_json: serde_json::to_value(
                report
                    .clock
                    .roofs_as_stated
                    .as_ref()
                    .unwrap_or(&report.roofs),
            )
            .unwrap_or(Value::Null),
            group_by: serde_json::to_value(report.group_by)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default(),
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
        let mut keys = HashMap::new();
        let kernels = rows
            .iter()
            .filter_map(|r| KernelSample::from_json(r, &mut keys))
            .collect();
        // The roofs as stated (`rooftrace.ncu/3` keeps them when it scaled
        // `roofs` to the run clock), so runs at other clocks compare.
        let roofs_json = doc
            .pointer("/clock/roofs_as_stated")
            .or_else(|| doc.get("roofs"))
            .cloned()
            .unwrap_or(Value::Null);
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
            roofs_json,
            group_by: doc
                .get("group_by")
                .and_then(Value::as_str)
                .unwrap_or("launch")
                .to_string(),
            kernels,
            diagnostics: messages(doc.get("diagnostics").unwrap_or(&Value::Null)),
        })
    }
}

/// One matched (or one-sided) kernel row.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct KernelDiff {
    /// Kernel name as printed (new side's, else base's).
    pub name: String,
    /// Matching key.
    pub key: String,
    /// 1-based occurrence of the key (launch order within each side).
    pub occurrence: u64,
    /// The row's verdict: its time's, or added/removed.
    pub verdict: Verdict,
    /// Duration, ns.
    pub duration_ns: Change,
    /// DRAM bytes.
    pub dram_bytes: Change,
    /// FLOPs (`null` sides: no FLOP counter).
    pub flop: Change,
    /// FLOP per DRAM byte.
    pub intensity: Change,
    /// Fraction of the roof (lower is worse).
    pub fraction_of_roof: Change,
    /// Time lost against the roof, ns.
    pub time_lost_ns: Change,
    /// Why, in one phrase that names what to look at.
    pub why: String,
    /// Base point on the roofline (intensity, FLOP/s), for the plot.
    #[serde(skip)]
    pub point_before: Option<(f64, f64)>,
    /// New point on the roofline.
    #[serde(skip)]
    pub point_after: Option<(f64, f64)>,
    /// Compute path of the point.
    #[serde(skip)]
    pub path: Option<ComputePath>,
}

/// Sums over every row of each side.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NcuTotals {
    /// Rows (launches) per side.
    pub rows_before: u64,
    /// Rows in the new run.
    pub rows_after: u64,
    /// Total kernel time, ns.
    pub duration_ns: Change,
    /// Total DRAM bytes (unknown when a row's is).
    pub dram_bytes: Change,
    /// Total FLOPs (unknown when a row's is).
    pub flop: Change,
    /// Sum of positive time lost, ns.
    pub time_lost_ns: Change,
    /// Time-weighted fraction of roof, `Σ T* / Σ T`.
    pub fraction_of_roof: Change,
}

/// The kernel comparison.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NcuDiff {
    /// GPU of the base side's roofs.
    pub gpu_before: Option<String>,
    /// GPU of the new side's roofs.
    pub gpu_after: Option<String>,
    /// True when both sides were analysed against the same roofs.
    pub same_roofs: bool,
    /// Totals.
    pub totals: NcuTotals,
    /// Rows: regressions, improvements, inconclusive, added, removed,
    /// unchanged; within each, the largest time change first.
    pub kernels: Vec<KernelDiff>,
    /// The roofs to draw (the new side's).
    #[serde(skip)]
    pub roofs: Option<Roofs>,
}

impl NcuDiff {
    /// Adds every kernel row and the total time to `c`.
    pub fn count(&self, c: &mut VerdictCounts) {
        for k in &self.kernels {
            c.add(k.verdict);
        }
        c.add(self.totals.duration_ns.verdict);
    }
}

/// Per key: the side's rows in occurrence order and the relative spreads of
/// time, bytes and fraction over them.
struct Group {
    rows: Vec<usize>,
    spread: [f64; 3],
}

fn groups(side: &NcuSide) -> HashMap<&str, Group> {
    let mut g: HashMap<&str, Group> = HashMap::new();
    for (i, k) in side.kernels.iter().enumerate() {
        g.entry(k.key.as_str())
            .or_insert(Group {
                rows: Vec::new(),
                spread: [0.0; 3],
            })
            .rows
            .push(i);
    }
    for grp in g.values_mut() {
        let ks = &side.kernels;
        grp.rows
            .sort_by_key(|&i| (ks[i].process_id.unwrap_or(0), ks[i].id, i));
        let pick = |f: &dyn Fn(&KernelSample) -> Option<f64>| -> f64 {
            let mut v: Vec<f64> = grp.rows.iter().filter_map(|&i| f(&ks[i])).collect();
            spread_rel(&mut v)
        };
        grp.spread = [
            pick(&|k| Some(k.duration_ns)),
            pick(&|k| k.dram_bytes),
            pick(&|k| k.fraction_of_roof),
        ];
    }
    g
}

/// Compares two sides.
pub fn diff(base: &NcuSide, new: &NcuSide, t: &Thresholds) -> NcuDiff {
    let gb = groups(base);
    let ga = groups(new);
    let mut keys: Vec<&str> = gb.keys().chain(ga.keys()).copied().collect();
    keys.sort_unstable();
    keys.dedup();
    let empty = Group {
        rows: Vec::new(),
        spread: [0.0; 3],
    };
    let mut kernels = Vec::new();
    for key in keys {
        let b = gb.get(key).unwrap_or(&empty);
        let a = ga.get(key).unwrap_or(&empty);
        let spread = [0, 1, 2].map(|i| b.spread[i].max(a.spread[i]));
        for occ in 0..b.rows.len().max(a.rows.len()) {
            let kb = b.rows.get(occ).map(|&i| &base.kernels[i]);
            let ka = a.rows.get(occ).map(|&i| &new.kernels[i]);
            kernels.push(row(kb, ka, occ as u64 + 1, spread, t));
        }
    }
    kernels.sort_by(|x, y| {
        rank(x.verdict)
            .cmp(&rank(y.verdict))
            .then(abs_delta(y).total_cmp(&abs_delta(x)))
            .then_with(|| x.key.cmp(&y.key))
            .then(x.occurrence.cmp(&y.occurrence))
    });
    NcuDiff {
        gpu_before: base.gpu.clone(),
        gpu_after: new.gpu.clone(),
        same_roofs: base.roofs_json == new.roofs_json,
        totals: totals(base, new, t),
        kernels,
        roofs: new.roofs.clone().or_else(|| base.roofs.clone()),
    }
}

/// Display order of verdicts.
fn rank(v: Verdict) -> u8 {
    match v {
        Verdict::Regression => 0,
        Verdict::Improvement => 1,
        Verdict::Inconclusive => 2,
        Verdict::Added => 3,
        Verdict::Removed => 4,
        Verdict::Unchanged => 5,
    }
}

fn abs_delta(k: &KernelDiff) -> f64 {
    match (k.duration_ns.before, k.duration_ns.after) {
        (Some(b), Some(a)) => (a - b).abs(),
        (b, a) => b.or(a).unwrap_or(0.0),
    }
}

fn time_limit(t: &Thresholds) -> Limit {
    Limit {
        rel: t.time_rel,
        abs: t.kernel_abs_ns,
    }
}

/// One row: every figure judged; a one-sided row is added or removed.
fn row(
    kb: Option<&KernelSample>,
    ka: Option<&KernelSample>,
    occurrence: u64,
    spread: [f64; 3],
    t: &Thresholds,
) -> KernelDiff {
    let get = |f: fn(&KernelSample) -> Option<f64>| (kb.and_then(f), ka.and_then(f));
    let judge = |f: fn(&KernelSample) -> Option<f64>, limit, spread, worse| {
        let (b, a) = get(f);
        Change::judge(b, a, limit, spread, worse)
    };
    let bytes_limit = Limit {
        rel: t.bytes_rel,
        abs: 0.0,
    };
    let duration_ns = judge(
        |k| Some(k.duration_ns),
        time_limit(t),
        spread[0],
        Worse::Higher,
    );
    let dram_bytes = judge(|k| k.dram_bytes, bytes_limit, spread[1], Worse::Higher);
    let flop = judge(|k| k.flop, bytes_limit, 0.0, Worse::Neither);
    let intensity = judge(|k| k.intensity, bytes_limit, 0.0, Worse::Neither);
    let fraction_of_roof = judge(
        |k| k.fraction_of_roof,
        Limit {
            rel: 0.0,
            abs: t.fraction_abs,
        },
        spread[2],
        Worse::Lower,
    );
    let time_lost_ns = judge(|k| k.time_lost_ns, time_limit(t), spread[0], Worse::Higher);
    let verdict = match (kb, ka) {
        (Some(_), None) => Verdict::Removed,
        (None, Some(_)) => Verdict::Added,
        _ => duration_ns.verdict,
    };
    let mut d = KernelDiff {
        name: ka.or(kb).map(|k| k.name.clone()).unwrap_or_default(),
        key: ka.or(kb).map(|k| k.key.clone()).unwrap_or_default(),
        occurrence,
        verdict,
        duration_ns,
        dram_bytes,
        flop,
        intensity,
        fraction_of_roof,
        time_lost_ns,
        why: String::new(),
        point_before: kb.and_then(point),
        point_after: ka.and_then(point),
        path: ka.or(kb).and_then(|k| k.path),
    };
    d.why = why(&d);
    d
}

fn point(k: &KernelSample) -> Option<(f64, f64)> {
    let x = k.intensity.filter(|x| *x > 0.0)?;
    let y = k.achieved_flop_per_s.filter(|y| *y > 0.0)?;
    Some((x, y))
}

fn pct(c: &Change) -> String {
    match c.rel {
        Some(r) => format!("{:+.1} %", r * 100.0),
        None => "new".to_string(),
    }
}

/// What moved with the time, most telling first: more bytes, more FLOPs,
/// or the same work further from (closer to) the roof.
fn why(d: &KernelDiff) -> String {
    match d.verdict {
        Verdict::Added => return "only in the new run".to_string(),
        Verdict::Removed => return "only in the base run".to_string(),
        Verdict::Unchanged => return String::new(),
        Verdict::Inconclusive => {
            return if d.duration_ns.spread > 0.0 {
                format!(
                    "time {} is within the spread of repeated launches (±{})",
                    pct(&d.duration_ns),
                    crate::units::duration_ns(d.duration_ns.spread)
                )
            } else {
                "a side lacks the figure".to_string()
            }
        }
        Verdict::Regression | Verdict::Improvement => {}
    }
    let moved = |c: &Change| matches!(c.verdict, Verdict::Regression | Verdict::Improvement);
    let flop_moved = d.flop.delta.is_some() && d.flop.verdict != Verdict::Unchanged;
    if moved(&d.dram_bytes) {
        format!(
            "DRAM bytes {}: the kernel moves {} data (layout, fusion, caching)",
            pct(&d.dram_bytes),
            if d.dram_bytes.delta.unwrap_or(0.0) > 0.0 {
                "more"
            } else {
                "less"
            }
        )
    } else if flop_moved {
        format!("FLOPs {}: the kernel does different work", pct(&d.flop))
    } else {
        let frac = match (d.fraction_of_roof.before, d.fraction_of_roof.after) {
            (Some(b), Some(a)) => format!(", fraction of roof {b:.3} → {a:.3}"),
            _ => String::new(),
        };
        let dir = if d.verdict == Verdict::Regression {
            "further below"
        } else {
            "closer to"
        };
        format!(
            "same bytes{}{frac}: runs {dir} its roof (compare occupancy and stall reasons, `ncu --set full`)",
            if d.flop.delta.is_some() {
                " and FLOPs"
            } else {
                ""
            }
        )
    }
}

/// Sum of `f` over the rows, `None` when any row does not know it.
fn sum(side: &NcuSide, f: impl Fn(&KernelSample) -> Option<f64>) -> Option<f64> {
    side.kernels.iter().map(f).sum()
}

fn totals(base: &NcuSide, new: &NcuSide, t: &Thresholds) -> NcuTotals {
    let both = |f: &dyn Fn(&KernelSample) -> Option<f64>| (sum(base, f), sum(new, f));
    let judge =
        |(b, a): (Option<f64>, Option<f64>), limit, worse| Change::judge(b, a, limit, 0.0, worse);
    let bytes_limit = Limit {
        rel: t.bytes_rel,
        abs: 0.0,
    };
    // Σ T* / Σ T with T* = fraction × T.
    let frac = |s: &NcuSide| {
        let bound = sum(s, |k| k.fraction_of_roof.map(|f| f * k.duration_ns))?;
        let time = sum(s, |k| Some(k.duration_ns))?;
        (time > 0.0).then(|| bound / time)
    };
    NcuTotals {
        rows_before: base.kernels.len() as u64,
        rows_after: new.kernels.len() as u64,
        duration_ns: judge(both(&|k| Some(k.duration_ns)), time_limit(t), Worse::Higher),
        dram_bytes: judge(both(&|k| k.dram_bytes), bytes_limit, Worse::Higher),
        flop: judge(both(&|k| k.flop), bytes_limit, Worse::Neither),
        time_lost_ns: judge(
            both(&|k| k.time_lost_ns.map(|x| x.max(0.0))),
            time_limit(t),
            Worse::Higher,
        ),
        fraction_of_roof: judge(
            (frac(base), frac(new)),
            Limit {
                rel: 0.0,
                abs: t.fraction_abs,
            },
            Worse::Lower,
        ),
    }
}
