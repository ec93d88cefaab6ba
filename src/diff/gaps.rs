//! Timelines before → after: two [`GapsSide`]s (idle classes by name, so
//! classes added later are compared too); devices matched by device id and
//! process order, NVTX ranges by name (median and p90 of their instances),
//! the longest gaps by the ops around them.

use super::gaps_side::{DeviceSample, GapSample, GapsSide, RangeSample};
use super::kernels::TimelineKernelDiff;
use super::noise::{nearest_rank, spread_rel, Change, Limit, Thresholds, Verdict, Worse};
use super::{JudgedRow, Quantity, Section};
use crate::gaps::{class_label, detail_label, FixTerms, Tool};
use serde::Serialize;
use std::collections::BTreeMap;

/// Idle of one class before → after.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClassDiff {
    /// Class key (`host_bound`, …; any key a report has).
    pub class: String,
    /// Gaps of the class in the base run.
    pub count_before: u64,
    /// Gaps of the class in the new run.
    pub count_after: u64,
    /// Idle time of the class, ns.
    pub total_ns: Change,
}

/// One device (or all devices summed) before → after.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DeviceDiff {
    /// Device id: the base run's (the new run's for an added device;
    /// `null` for the all-devices total).
    pub device: Option<u64>,
    /// The new run's device id, when the new run has the device (devices
    /// are matched by GPU model and order, so it can differ from `device`).
    pub device_after: Option<u64>,
    /// The GPU model of the device, as the base records it (else the new
    /// run); `null` when not recorded or for the total.
    pub gpu: Option<String>,
    /// Base process id.
    pub pid_before: Option<u64>,
    /// New process id.
    pub pid_after: Option<u64>,
    /// The idle verdict, or added/removed.
    pub verdict: Verdict,
    /// First op start to last op end, ns.
    pub span_ns: Change,
    /// Busy (all op kinds), ns.
    pub busy_ns: Change,
    /// Busy by kind (`kernel`, and whatever kinds the reports split busy
    /// into), ns, by kind name.
    pub busy_by_kind: Vec<KindDiff>,
    /// Idle, ns (higher is worse).
    pub idle_ns: Change,
    /// Idle per class, in the order the reports list them (unknown classes last, by name).
    pub classes: Vec<ClassDiff>,
    /// Host-bound idle by what the host was doing (`alloc`, `cpu_work`, …;
    /// empty when neither report splits it).
    pub host_detail: Vec<ClassDiff>,
    /// Which class moved the idle most, and what to do about it.
    pub why: String,
}

/// Busy time of one kind of GPU work before → after.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct KindDiff {
    /// `kernel`, `copy`, `memset`, `comm`, …
    pub kind: String,
    /// Busy time of that kind, ns (a kind one side lacks is unknown there).
    pub busy_ns: Change,
}

/// One NVTX range name before → after.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RangeDiff {
    /// Range text.
    pub name: String,
    /// Instances in the base run.
    pub instances_before: u64,
    /// Instances in the new run.
    pub instances_after: u64,
    /// Median wall time, ns (judged against the spread of the instances).
    pub median_ns: Change,
    /// 90th percentile wall time, ns.
    pub p90_ns: Change,
    /// Median idle inside the range's GPU window, ns.
    pub idle_median_ns: Change,
    /// The median's verdict, or added/removed.
    pub verdict: Verdict,
}

/// One of the longest gaps, matched across runs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GapDiff {
    /// Device id.
    pub device: u64,
    /// Op before the gap.
    pub before_op: String,
    /// Op after the gap.
    pub after_op: String,
    /// Class in the base run.
    pub class_before: Option<String>,
    /// Class in the new run.
    pub class_after: Option<String>,
    /// Length, ns.
    pub duration_ns: Change,
    /// `added`: new among the longest; `removed`: gone from them; else the
    /// length's verdict.
    pub verdict: Verdict,
}

/// The timeline comparison.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GapsDiff {
    /// All devices summed.
    pub total: DeviceDiff,
    /// Per device.
    pub devices: Vec<DeviceDiff>,
    /// Per NVTX range name (`null`: no ranges in either report).
    pub ranges: Option<Vec<RangeDiff>>,
    /// The longest gaps of either run.
    pub gaps: Vec<GapDiff>,
    /// Every kernel name of either run: added, removed, run more or less
    /// often, its total time (`null`: a side is a `rooftrace.gaps` JSON
    /// report, which keeps no kernel table).
    pub kernels: Option<Vec<TimelineKernelDiff>>,
    /// Both sides PyTorch traces with shapes: each op name and shapes, its
    /// fraction of roof before → after (absent otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ops: Option<Vec<super::ops::OpRowDiff>>,
    /// The profiler both runs come from, for the words of the rendering
    /// (PyTorch ranges or NVTX ranges); the JSON's `input` already says it.
    #[serde(skip)]
    pub tool: Tool,
}

/// True when the host-bound detail of `d` is shown (a report splits it).
pub fn host_detail_shown(d: &DeviceDiff) -> bool {
    d.host_detail
        .iter()
        .any(|c| c.total_ns.before.unwrap_or(0.0) != 0.0 || c.total_ns.after.unwrap_or(0.0) != 0.0)
}

/// How a device row is named in the gate's trips.
fn device_row_label(d: &DeviceDiff) -> String {
    match (d.device, d.device_after) {
        (None, _) => "all devices idle".to_string(),
        (Some(b), Some(a)) if a != b => format!("device {b} → {a} idle"),
        (Some(n), _) => format!("device {n} idle"),
    }
}

impl GapsDiff {
    /// Every row the tables print with a verdict: each device and all
    /// devices (idle decides), the idle classes and (when shown) the
    /// host-bound detail over all devices, the NVTX ranges (median
    /// decides), the longest gaps.
    pub fn judged_rows(&self) -> Vec<JudgedRow<'_>> {
        let mut rows = Vec::new();
        for d in self.devices.iter().chain(std::iter::once(&self.total)) {
            rows.push(JudgedRow {
                section: Section::Devices,
                label: device_row_label(d),
                verdict: d.verdict,
                change: &d.idle_ns,
                quantity: Quantity::Time,
            });
        }
        let class_rows = self.total.classes.iter().map(|c| (Section::IdleClasses, c));
        let detail_rows = self
            .total
            .host_detail
            .iter()
            .filter(|_| host_detail_shown(&self.total))
            .map(|c| (Section::HostDetail, c));
        for (section, c) in class_rows.chain(detail_rows) {
            let label = match section {
                Section::HostDetail => {
                    format!("host-bound idle: {}", detail_label(&c.class, self.tool))
                }
                _ => format!("idle {}", class_label(&c.class)),
            };
            rows.push(JudgedRow {
                section,
                label,
                verdict: c.total_ns.verdict,
                change: &c.total_ns,
                quantity: Quantity::Time,
            });
        }
        for r in self.ranges.iter().flatten() {
            rows.push(JudgedRow {
                section: Section::Ranges,
                label: format!("range {} median", r.name),
                verdict: r.verdict,
                change: &r.median_ns,
                quantity: Quantity::Time,
            });
        }
        for k in self.kernels.iter().flatten() {
            rows.push(JudgedRow {
                section: Section::Kernels,
                label: format!("kernel {}", k.name),
                verdict: k.verdict,
                change: &k.time_ns,
                quantity: Quantity::Time,
            });
        }
        rows.extend(self.ops.iter().flatten().map(super::ops::OpRowDiff::judged));
        for g in &self.gaps {
            rows.push(JudgedRow {
                section: Section::Gaps,
                label: format!(
                    "gap {} → {} on device {}",
                    g.before_op, g.after_op, g.device
                ),
                verdict: g.verdict,
                change: &g.duration_ns,
                quantity: Quantity::Time,
            });
        }
        rows
    }

    /// Most of the work is unmatched: devices, classes and host detail sum
    /// different work on each side, so their moves are inconclusive. Ranges
    /// and gaps, matched by name, keep their verdicts.
    pub fn mark_unmatched(&mut self) {
        let demote = |c: &mut Change| {
            if matches!(c.verdict, Verdict::Regression | Verdict::Improvement) {
                c.verdict = Verdict::Inconclusive;
            }
        };
        for d in self
            .devices
            .iter_mut()
            .chain(std::iter::once(&mut self.total))
        {
            if matches!(d.verdict, Verdict::Regression | Verdict::Improvement) {
                d.verdict = Verdict::Inconclusive;
                d.why = "most of the work is unmatched: not a like-for-like comparison".to_string();
            }
            demote(&mut d.idle_ns);
            demote(&mut d.busy_ns);
            demote(&mut d.span_ns);
            for c in d.classes.iter_mut().chain(d.host_detail.iter_mut()) {
                demote(&mut c.total_ns);
            }
        }
    }
}

fn tl(t: &Thresholds) -> Limit {
    Limit {
        rel: t.time_rel,
        abs: t.timeline_abs_ns,
    }
}

/// Where a device sits on its side: its GPU model (normalised; empty when
/// not recorded or when models are not matched) and its order among the
/// side's devices of that model. Device ids differ between runs (rank 3
/// runs on device 3, rank 1 on device 1), so devices meet by this.
type DevicePlace = (String, usize);

/// Each device id of a side → its place.
fn places(side: &GapsSide, by_model: bool) -> BTreeMap<u64, DevicePlace> {
    let mut ids: Vec<u64> = side
        .devices
        .iter()
        .map(|d| d.device)
        .chain(side.top_gaps.iter().map(|g| g.device))
        .collect();
    ids.sort_unstable();
    ids.dedup();
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    ids.into_iter()
        .map(|id| {
            let model = match by_model {
                true => side.identity.match_model(id),
                false => String::new(),
            };
            let n = seen.entry(model.clone()).or_insert(0);
            *n += 1;
            (id, (model, *n - 1))
        })
        .collect()
}

/// Devices keyed by (place, rank of the pid among those on the device):
/// device and process ids differ between runs.
fn keyed<'a>(
    devs: &'a [DeviceSample],
    place: &BTreeMap<u64, DevicePlace>,
) -> BTreeMap<(DevicePlace, usize), &'a DeviceSample> {
    let mut sorted: Vec<&DeviceSample> = devs.iter().collect();
    sorted.sort_by_key(|d| (d.device, d.pid));
    let mut out = BTreeMap::new();
    let mut last: Option<(u64, usize)> = None;
    for d in sorted {
        let rank = match last {
            Some((dev, r)) if dev == d.device => r + 1,
            _ => 0,
        };
        last = Some((d.device, rank));
        let p = place.get(&d.device).cloned().unwrap_or_default();
        out.insert((p, rank), d);
    }
    out
}

fn device_row(
    before: Option<&DeviceSample>,
    after: Option<&DeviceSample>,
    (device, terms): (Option<u64>, FixTerms),
    t: &Thresholds,
) -> DeviceDiff {
    let judge = |figure: fn(&DeviceSample) -> Option<f64>| {
        Change::judge(
            before.and_then(figure),
            after.and_then(figure),
            tl(t),
            0.0,
            Worse::Higher,
        )
    };
    let idle_ns = judge(|d| Some(d.idle_ns));
    let classes = totals_rows(before, after, |d| &d.classes, t);
    let host_detail = totals_rows(before, after, |d| &d.host_detail, t);
    let why = device_why(idle_ns.verdict, &classes, &host_detail, terms);
    DeviceDiff {
        why,
        device,
        device_after: device.and(after.map(|d| d.device)),
        gpu: None,
        pid_before: before.map(|d| d.pid),
        pid_after: after.map(|d| d.pid),
        verdict: match (before, after) {
            (Some(_), None) => Verdict::Removed,
            (None, Some(_)) => Verdict::Added,
            _ => idle_ns.verdict,
        },
        span_ns: judge(|d| Some(d.span_ns)),
        busy_ns: judge(|d| Some(d.busy_ns)),
        busy_by_kind: busy_kinds(before, after, t),
        idle_ns,
        classes,
        host_detail,
    }
}

/// One row per key of `pick` (classes or host detail) on either side, known
/// classes in display order, others by name.
fn totals_rows(
    before: Option<&DeviceSample>,
    after: Option<&DeviceSample>,
    pick: fn(&DeviceSample) -> &BTreeMap<String, (u64, f64)>,
    t: &Thresholds,
) -> Vec<ClassDiff> {
    let mut keys: Vec<&String> = before
        .iter()
        .chain(after.iter())
        .flat_map(|d| pick(d).keys())
        .collect();
    keys.sort_by_key(|k| (class_order(k), (*k).clone()));
    keys.dedup();
    keys.into_iter()
        .map(|k| {
            let get =
                |d: Option<&DeviceSample>| d.map(|d| pick(d).get(k).copied().unwrap_or((0, 0.0)));
            let (count_before, count_after) = (get(before), get(after));
            ClassDiff {
                class: k.clone(),
                count_before: count_before.map_or(0, |c| c.0),
                count_after: count_after.map_or(0, |c| c.0),
                total_ns: Change::judge(
                    count_before.map(|c| c.1),
                    count_after.map(|c| c.1),
                    tl(t),
                    0.0,
                    Worse::Higher,
                ),
            }
        })
        .collect()
}

fn busy_kinds(
    before: Option<&DeviceSample>,
    after: Option<&DeviceSample>,
    t: &Thresholds,
) -> Vec<KindDiff> {
    let mut kinds: Vec<&String> = before
        .iter()
        .chain(after.iter())
        .flat_map(|d| d.busy_by_kind.keys())
        .collect();
    kinds.sort();
    kinds.dedup();
    kinds
        .into_iter()
        .map(|k| KindDiff {
            kind: k.clone(),
            busy_ns: Change::judge(
                before.and_then(|d| d.busy_by_kind.get(k).copied()),
                after.and_then(|d| d.busy_by_kind.get(k).copied()),
                tl(t),
                0.0,
                Worse::Neither,
            ),
        })
        .collect()
}

/// What to do about idle in `class`, in the input's `terms`: the fix
/// `rooftrace gaps` gives for a class it knows, else a pointer to it.
pub fn class_hint(class: &str, terms: FixTerms) -> &'static str {
    crate::gaps::GapClass::ALL
        .iter()
        .find(|c| c.key() == class)
        .map_or("see `rooftrace gaps` for what this class means", |c| {
            c.fix_in(terms)
        })
}

/// The row of `rows` with the largest change in the direction `sign`.
fn largest(rows: &[ClassDiff], sign: f64) -> Option<(&ClassDiff, f64)> {
    rows.iter()
        .filter_map(|c| Some((c, c.total_ns.delta? * sign)))
        .filter(|(_, d)| *d > 0.0)
        .max_by(|x, y| x.1.total_cmp(&y.1))
}

/// The class with the largest idle change in the direction of `verdict`
/// and its fix; for host-bound idle, also what the host was doing.
fn device_why(
    verdict: Verdict,
    classes: &[ClassDiff],
    detail: &[ClassDiff],
    terms: FixTerms,
) -> String {
    let sign = match verdict {
        Verdict::Regression => 1.0,
        Verdict::Improvement => -1.0,
        _ => return String::new(),
    };
    let pm = if sign > 0.0 { "+" } else { "-" };
    let Some((c, d)) = largest(classes, sign) else {
        return String::new();
    };
    let mut why = format!(
        "{} {pm}{}: {}",
        class_label(&c.class),
        crate::units::duration_ns(d),
        class_hint(&c.class, terms)
    );
    if c.class == crate::gaps::GapClass::HostBound.key() {
        if let Some((h, hd)) = largest(detail, sign) {
            let fix = crate::gaps::HostDetail::ALL
                .iter()
                .find(|x| x.key() == h.class)
                .map_or("", |x| x.fix(terms));
            why.push_str(&format!(
                "; mostly {} {pm}{}: {fix}",
                detail_label(&h.class, terms.tool),
                crate::units::duration_ns(hd)
            ));
        }
    }
    why
}

/// Known classes (and host-bound details) in `rooftrace gaps` display
/// order; others after them.
fn class_order(k: &str) -> usize {
    crate::gaps::GapClass::ALL
        .iter()
        .position(|c| c.key() == k)
        .or_else(|| {
            crate::gaps::HostDetail::ALL
                .iter()
                .position(|d| d.key() == k)
        })
        .unwrap_or(usize::MAX)
}

fn summed(devs: &[DeviceSample]) -> DeviceSample {
    let mut s = DeviceSample::default();
    for d in devs {
        s.span_ns += d.span_ns;
        s.busy_ns += d.busy_ns;
        s.idle_ns += d.idle_ns;
        for (k, ns) in &d.busy_by_kind {
            *s.busy_by_kind.entry(k.clone()).or_insert(0.0) += ns;
        }
        for (k, (c, ns)) in &d.classes {
            let e = s.classes.entry(k.clone()).or_insert((0, 0.0));
            e.0 += c;
            e.1 += ns;
        }
        for (k, (c, ns)) in &d.host_detail {
            let e = s.host_detail.entry(k.clone()).or_insert((0, 0.0));
            e.0 += c;
            e.1 += ns;
        }
    }
    s
}

fn range_rows(before: &[RangeSample], after: &[RangeSample], t: &Thresholds) -> Vec<RangeDiff> {
    let group = |rs: &[RangeSample]| {
        let mut m: BTreeMap<String, (Vec<f64>, Vec<f64>)> = BTreeMap::new();
        for r in rs {
            let e = m.entry(r.text.clone()).or_default();
            e.0.push(r.wall_ns);
            if let Some(i) = r.idle_ns {
                e.1.push(i);
            }
        }
        for (w, i) in m.values_mut() {
            w.sort_by(f64::total_cmp);
            i.sort_by(f64::total_cmp);
        }
        m
    };
    let (by_name_before, by_name_after) = (group(before), group(after));
    let mut names: Vec<&String> = by_name_before.keys().chain(by_name_after.keys()).collect();
    names.sort();
    names.dedup();
    let q = |v: Option<&Vec<f64>>, p: f64| v.filter(|v| !v.is_empty()).map(|v| nearest_rank(v, p));
    names
        .into_iter()
        .map(|n| {
            let wall_before = by_name_before.get(n).map(|x| &x.0);
            let wall_after = by_name_after.get(n).map(|x| &x.0);
            let idle_before = by_name_before.get(n).map(|x| &x.1);
            let idle_after = by_name_after.get(n).map(|x| &x.1);
            let spread = spread_rel(&mut wall_before.cloned().unwrap_or_default())
                .max(spread_rel(&mut wall_after.cloned().unwrap_or_default()));
            let median_ns = Change::judge(
                q(wall_before, 0.5),
                q(wall_after, 0.5),
                tl(t),
                spread,
                Worse::Higher,
            );
            RangeDiff {
                name: n.clone(),
                instances_before: wall_before.map_or(0, |v| v.len() as u64),
                instances_after: wall_after.map_or(0, |v| v.len() as u64),
                verdict: match (wall_before, wall_after) {
                    (Some(_), None) => Verdict::Removed,
                    (None, Some(_)) => Verdict::Added,
                    _ => median_ns.verdict,
                },
                median_ns,
                p90_ns: Change::judge(
                    q(wall_before, 0.9),
                    q(wall_after, 0.9),
                    tl(t),
                    spread,
                    Worse::Higher,
                ),
                idle_median_ns: Change::judge(
                    q(idle_before, 0.5),
                    q(idle_after, 0.5),
                    tl(t),
                    spread,
                    Worse::Higher,
                ),
            }
        })
        .collect()
}

/// Matches the longest gaps by (device place, op before, op after) and
/// their order in time; a gap only in the new list is new among the
/// longest, one only in the base list is gone from them.
fn gap_rows(
    before: (&[GapSample], &BTreeMap<u64, DevicePlace>),
    after: (&[GapSample], &BTreeMap<u64, DevicePlace>),
    t: &Thresholds,
) -> Vec<GapDiff> {
    type Key = (DevicePlace, String, String);
    fn group<'a>(
        gs: &'a [GapSample],
        place: &BTreeMap<u64, DevicePlace>,
    ) -> BTreeMap<Key, Vec<&'a GapSample>> {
        let mut m: BTreeMap<Key, Vec<&GapSample>> = BTreeMap::new();
        for g in gs {
            let p = place.get(&g.device).cloned().unwrap_or_default();
            m.entry((p, g.before_op.clone(), g.after_op.clone()))
                .or_default()
                .push(g);
        }
        for v in m.values_mut() {
            v.sort_by_key(|g| g.start_ns);
        }
        m
    }
    let (by_ops_before, by_ops_after) = (group(before.0, before.1), group(after.0, after.1));
    let mut keys: Vec<&Key> = by_ops_before.keys().chain(by_ops_after.keys()).collect();
    keys.sort();
    keys.dedup();
    let mut rows = Vec::new();
    for k in keys {
        let (list_before, list_after) = (by_ops_before.get(k), by_ops_after.get(k));
        let n = list_before
            .map_or(0, Vec::len)
            .max(list_after.map_or(0, Vec::len));
        for i in 0..n {
            let gap_before = list_before.and_then(|v| v.get(i));
            let gap_after = list_after.and_then(|v| v.get(i));
            let duration_ns = Change::judge(
                gap_before.map(|g| g.duration_ns),
                gap_after.map(|g| g.duration_ns),
                tl(t),
                0.0,
                Worse::Higher,
            );
            rows.push(GapDiff {
                device: gap_before.or(gap_after).map_or(0, |g| g.device),
                before_op: k.1.clone(),
                after_op: k.2.clone(),
                class_before: gap_before.map(|g| g.class.clone()),
                class_after: gap_after.map(|g| g.class.clone()),
                verdict: match (gap_before, gap_after) {
                    (Some(_), None) => Verdict::Removed,
                    (None, Some(_)) => Verdict::Added,
                    _ => duration_ns.verdict,
                },
                duration_ns,
            });
        }
    }
    let len = |g: &GapDiff| g.duration_ns.after.or(g.duration_ns.before).unwrap_or(0.0);
    rows.sort_by(|x, y| {
        len(y)
            .total_cmp(&len(x))
            .then_with(|| x.device.cmp(&y.device))
    });
    rows
}

/// Compares two sides. Devices meet by GPU model and order ([`places`])
/// when `by_model` (both sides record their models, and they are the same);
/// otherwise (a side does not say, or different models were allowed) by
/// order alone.
pub fn diff(base: &GapsSide, new: &GapsSide, t: &Thresholds, by_model: bool) -> GapsDiff {
    // The fixes in the new run's terms (both sides come from one tool,
    // `build::check_sources`; a JSON report says its own).
    let terms = new.terms;
    let (place_before, place_after) = (places(base, by_model), places(new, by_model));
    let (devices_before, devices_after) = (
        keyed(&base.devices, &place_before),
        keyed(&new.devices, &place_after),
    );
    let mut keys: Vec<&(DevicePlace, usize)> =
        devices_before.keys().chain(devices_after.keys()).collect();
    keys.sort();
    keys.dedup();
    let devices = keys
        .into_iter()
        .map(|k| {
            let before = devices_before.get(k).copied();
            let after = devices_after.get(k).copied();
            let id = before.or(after).map(|d| d.device);
            let mut row = device_row(before, after, (id, terms), t);
            row.gpu = before
                .and_then(|d| base.identity.device_models.get(&d.device))
                .or_else(|| after.and_then(|d| new.identity.device_models.get(&d.device)))
                .cloned();
            row
        })
        .collect();
    let (sum_before, sum_after) = (summed(&base.devices), summed(&new.devices));
    let ranges = match (&base.ranges, &new.ranges) {
        (None, None) => None,
        (b, a) => Some(range_rows(
            b.as_deref().unwrap_or(&[]),
            a.as_deref().unwrap_or(&[]),
            t,
        )),
    };
    GapsDiff {
        total: device_row(Some(&sum_before), Some(&sum_after), (None, terms), t),
        devices,
        ranges,
        gaps: gap_rows(
            (&base.top_gaps, &place_before),
            (&new.top_gaps, &place_after),
            t,
        ),
        kernels: super::kernels::diff(&base.kernels, &new.kernels, t),
        ops: super::ops::diff_sides(base.ops.as_deref(), new.ops.as_deref(), t),
        tool: terms.tool,
    }
}
