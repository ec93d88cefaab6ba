//! The regression gate: `--fail-on` rules, parsed strictly, evaluated on a
//! [`DiffReport`]. Grammar (docs/diff.md):
//!
//! ```text
//! RULE   := [SCOPE ':'] METRIC ('>' | '<') VALUE
//! SCOPE  := 'total' | 'kernel:' NAME | 'device:' N | 'range:' NAME
//! METRIC := time | bytes | flop | fraction | lost          (ncu)
//!         | idle | idle.CLASS | busy | span | time | count  (nsys; time = NVTX range
//!           median and each kernel's total time, count = a kernel's launches)
//! VALUE  := ['+'|'-'] NUMBER ('%' | ns | us | µs | ms | s | B | kB | MB | GB | '')
//! ```
//!
//! Without a scope a rule applies to every row of its metric (each kernel
//! and the total; each device and the total; each range). `NAME` matches a
//! kernel whose normalised name contains the normalised `NAME`. A rule
//! trips on a row when the change passes the limit in the rule's direction
//! *and* is beyond the spread of repeated samples; the rule's limit takes
//! the place of the default threshold.

use super::cover::CoverageStatus;
use super::name::normalize;
use super::noise::{Change, Verdict};
use super::{DiffKind, DiffReport, Quantity};
use crate::error::BadInput;
use serde::Serialize;

/// A `--fail-on` rule that cannot be parsed, or does not fit the diff.
#[derive(Debug, thiserror::Error)]
#[error("--fail-on '{rule}': {what}; e.g. 'time>+5%', 'fraction<-0.05', 'bytes>+10%', 'idle>+1ms', 'idle.host_bound>+10%', 'kernel:gemm:time>+5%', 'total:time>+2%'")]
pub struct RuleError {
    /// The rule as given.
    pub rule: String,
    /// What is wrong.
    pub what: String,
}

impl BadInput for RuleError {}

/// Which rows a rule looks at.
#[derive(Debug, Clone, PartialEq)]
pub enum Scope {
    /// Every row of the metric.
    Any,
    /// The totals.
    Total,
    /// Kernels whose normalised name contains this (normalised) text.
    Kernel(String),
    /// One device.
    Device(u64),
    /// One NVTX range name.
    Range(String),
}

/// The figure a rule looks at.
#[derive(Debug, Clone, PartialEq)]
pub enum Metric {
    /// Kernel duration (ncu) or NVTX range median (nsys), ns.
    Time,
    /// DRAM bytes.
    Bytes,
    /// FLOPs.
    Flop,
    /// Fraction of roof (absolute values only).
    Fraction,
    /// Time lost against the roof, ns.
    Lost,
    /// Device idle, ns.
    Idle,
    /// Idle of one class (by key), ns.
    IdleClass(String),
    /// Device busy, ns.
    Busy,
    /// Device span, ns.
    Span,
    /// A timeline kernel's launches.
    Count,
}

/// Which side of its limit a rule trips on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// `>`: a change above the limit trips.
    Above,
    /// `<`: a change below the limit trips.
    Below,
}

/// The limit a rule compares a change with.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum RuleLimit {
    /// Given with `%`: the change relative to the base value, as a
    /// fraction (`+5%` is 0.05).
    Relative(f64),
    /// Given with a unit (or none, for the fraction of roof): the change
    /// itself in the metric's SI unit (`1ms` is 1e6 ns).
    Absolute(f64),
}

impl Metric {
    /// What a change of this metric measures.
    pub fn quantity(&self) -> Quantity {
        match self {
            Metric::Bytes => Quantity::Bytes,
            Metric::Flop => Quantity::Flop,
            Metric::Fraction => Quantity::Fraction,
            Metric::Count => Quantity::Count,
            Metric::Time
            | Metric::Lost
            | Metric::Idle
            | Metric::IdleClass(_)
            | Metric::Busy
            | Metric::Span => Quantity::Time,
        }
    }
}

/// A parsed rule.
#[derive(Debug, Clone, PartialEq)]
pub struct Rule {
    /// As given.
    pub text: String,
    /// Rows.
    pub scope: Scope,
    /// Figure.
    pub metric: Metric,
    /// Which side of the limit trips.
    pub direction: Direction,
    /// The limit.
    pub limit: RuleLimit,
}

impl Rule {
    /// Parses one rule (see the module grammar).
    pub fn parse(text: &str) -> Result<Rule, RuleError> {
        let err = |what: &str| RuleError {
            rule: text.to_string(),
            what: what.to_string(),
        };
        let s = text.trim();
        let op = s
            .rfind(['>', '<'])
            .ok_or_else(|| err("no comparison: use > or <"))?;
        let direction = if &s[op..op + 1] == ">" {
            Direction::Above
        } else {
            Direction::Below
        };
        let (lhs, value) = (s[..op].trim(), s[op + 1..].trim());
        let (scope_text, metric_text) = match lhs.rfind(':') {
            Some(i) => (Some(&lhs[..i]), &lhs[i + 1..]),
            None => (None, lhs),
        };
        let metric = match metric_text.trim() {
            "time" => Metric::Time,
            "bytes" => Metric::Bytes,
            "flop" | "flops" => Metric::Flop,
            "fraction" => Metric::Fraction,
            "lost" => Metric::Lost,
            "idle" => Metric::Idle,
            "busy" => Metric::Busy,
            "span" => Metric::Span,
            "count" => Metric::Count,
            m if m.starts_with("idle.") && m.len() > 5 => Metric::IdleClass(m[5..].to_string()),
            "" => return Err(err("no metric before the comparison")),
            m => {
                return Err(err(&format!(
                "unknown metric `{m}` (time, bytes, flop, fraction, lost, idle, idle.CLASS, busy, span, count)"
            )))
            }
        };
        let scope = match scope_text.map(str::trim) {
            None => Scope::Any,
            Some("total") => Scope::Total,
            Some(sc) => match sc.split_once(':') {
                Some(("kernel", n)) if !n.trim().is_empty() => Scope::Kernel(normalize(n)),
                Some(("range", n)) if !n.is_empty() => Scope::Range(n.to_string()),
                Some(("device", n)) => Scope::Device(
                    n.trim()
                        .parse()
                        .map_err(|_| err(&format!("`{n}` is not a device number")))?,
                ),
                _ => {
                    return Err(err(&format!(
                        "unknown scope `{sc}` (total, kernel:NAME, device:N, range:NAME)"
                    )))
                }
            },
        };
        let limit = parse_value(value, &metric).map_err(|w| err(&w))?;
        Ok(Rule {
            text: text.to_string(),
            scope,
            metric,
            direction,
            limit,
        })
    }

    /// True when `c` passes this rule's limit in its direction and is
    /// beyond the spread of repeated samples.
    pub fn trips(&self, c: &Change) -> bool {
        let Some(delta) = c.delta else { return false };
        if delta.abs() <= c.spread {
            return false;
        }
        let (change, limit) = match self.limit {
            // From a zero base any change is infinitely large in relative terms.
            RuleLimit::Relative(limit) => (c.rel.unwrap_or(f64::INFINITY.copysign(delta)), limit),
            RuleLimit::Absolute(limit) => (delta, limit),
        };
        match self.direction {
            Direction::Above => change > limit,
            Direction::Below => change < limit,
        }
    }
}

/// `+5%` → relative 0.05; `1ms` → 1e6 ns; `-0.05` → absolute.
fn parse_value(v: &str, metric: &Metric) -> Result<RuleLimit, String> {
    let v = v.trim();
    if v.is_empty() {
        return Err("no value after the comparison".to_string());
    }
    let split = v
        .find(|c: char| !(c.is_ascii_digit() || matches!(c, '+' | '-' | '.' | 'e' | 'E')))
        .unwrap_or(v.len());
    // An exponent letter followed by a unit: `1e3us` keeps `e3`; `5e` alone is not a number.
    let (num, unit) = v.split_at(split);
    let x: f64 = num
        .parse()
        .ok()
        .filter(|x: &f64| x.is_finite())
        .ok_or_else(|| format!("`{num}` is not a number"))?;
    let time = matches!(
        metric,
        Metric::Time
            | Metric::Lost
            | Metric::Idle
            | Metric::IdleClass(_)
            | Metric::Busy
            | Metric::Span
    );
    let bytes = matches!(metric, Metric::Bytes);
    match unit.trim() {
        "%" if *metric == Metric::Fraction => {
            Err("fraction takes an absolute change (e.g. -0.05), not a percentage".to_string())
        }
        "%" => Ok(RuleLimit::Relative(x / 100.0)),
        "" if time => {
            Err("give a unit for a time change (ns, us, ms, s) or a percentage".to_string())
        }
        "" => Ok(RuleLimit::Absolute(x)),
        u if time => {
            let scale = match u {
                "ns" => 1.0,
                "us" | "µs" => 1e3,
                "ms" => 1e6,
                "s" => 1e9,
                _ => return Err(format!("unknown time unit `{u}` (ns, us, ms, s)")),
            };
            Ok(RuleLimit::Absolute(x * scale))
        }
        u if bytes => {
            let scale = match u {
                "B" => 1.0,
                "kB" | "KB" => 1e3,
                "MB" => 1e6,
                "GB" => 1e9,
                _ => return Err(format!("unknown byte unit `{u}` (B, kB, MB, GB)")),
            };
            Ok(RuleLimit::Absolute(x * scale))
        }
        u => Err(format!("unexpected unit `{u}` for this metric")),
    }
}

/// One row that tripped a rule.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Trip {
    /// The rule as given (`default` for the verdict gate).
    pub rule: String,
    /// The row: kernel name and occurrence, device, range, `total`.
    pub row: String,
    /// The change that tripped it.
    pub change: Change,
    /// What the change measures.
    pub quantity: Quantity,
}

/// The gate's result.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct GateOutcome {
    /// The rules as given; empty: the default gate (any row called a regression).
    pub rules: Vec<String>,
    /// False with `--no-gate`.
    pub enabled: bool,
    /// True when a rule tripped or most of the work is unmatched (and not
    /// allowed): the command exits 3.
    pub failed: bool,
    /// True when the gate failed because most of the work is unmatched
    /// (`--allow-unmatched` not given).
    pub unmatched: bool,
    /// What tripped, in rule order.
    pub tripped: Vec<Trip>,
    /// Rows a rule applied to but could not judge (a side lacks the figure).
    pub unknown: u64,
}

/// The rows a rule looks at: (row label, change).
fn rows<'a>(r: &'a DiffReport, rule: &Rule) -> Result<Vec<(String, &'a Change)>, RuleError> {
    let err = |what: String| RuleError {
        rule: rule.text.clone(),
        what,
    };
    let mut out = Vec::new();
    match r.kind {
        DiffKind::Ncu => {
            let Some(n) = &r.ncu else { return Ok(out) };
            let pick = |k: &'a super::ncu::KernelDiff| -> Option<&'a Change> {
                Some(match rule.metric {
                    Metric::Time => &k.duration_ns,
                    Metric::Bytes => &k.dram_bytes,
                    Metric::Flop => &k.flop,
                    Metric::Fraction => &k.fraction_of_roof,
                    Metric::Lost => &k.time_lost_ns,
                    _ => return None,
                })
            };
            let t = &n.totals;
            let total =
                match rule.metric {
                    Metric::Time => &t.duration_ns,
                    Metric::Bytes => &t.dram_bytes,
                    Metric::Flop => &t.flop,
                    Metric::Fraction => &t.fraction_of_roof,
                    Metric::Lost => &t.time_lost_ns,
                    _ => return Err(err(
                        "idle, busy, span and count apply to timeline diffs; this is an ncu diff"
                            .into(),
                    )),
                };
            match &rule.scope {
                Scope::Device(_) | Scope::Range(_) => {
                    return Err(err("device: and range: scopes apply to nsys diffs".into()))
                }
                Scope::Total => out.push(("total".to_string(), total)),
                Scope::Any | Scope::Kernel(_) => {
                    for k in &n.kernels {
                        if let Scope::Kernel(name) = &rule.scope {
                            if !k.key.contains(name.as_str()) {
                                continue;
                            }
                        }
                        if let Some(c) = pick(k) {
                            out.push((format!("{} #{}", k.name, k.occurrence), c));
                        }
                    }
                    if let Scope::Kernel(name) = &rule.scope {
                        if out.is_empty()
                            && !n.kernels.iter().any(|k| k.key.contains(name.as_str()))
                        {
                            return Err(err(format!(
                                "no kernel name in either run contains `{name}`"
                            )));
                        }
                    } else {
                        out.push(("total".to_string(), total));
                    }
                }
            }
        }
        DiffKind::Nsys => {
            let Some(g) = &r.nsys else { return Ok(out) };
            nsys_rows(g, rule, &mut out).map_err(err)?;
        }
    }
    Ok(out)
}

fn nsys_rows<'a>(
    g: &'a super::gaps::GapsDiff,
    rule: &Rule,
    out: &mut Vec<(String, &'a Change)>,
) -> Result<(), String> {
    if matches!(rule.metric, Metric::Time | Metric::Count) {
        return timed_rows(g, rule, out);
    }
    let pick = |d: &'a super::gaps::DeviceDiff| -> Result<Option<&'a Change>, String> {
        Ok(match &rule.metric {
            Metric::Idle => Some(&d.idle_ns),
            Metric::Busy => Some(&d.busy_ns),
            Metric::Span => Some(&d.span_ns),
            Metric::IdleClass(c) => d
                .classes
                .iter()
                .find(|x| x.class == *c)
                .map(|x| &x.total_ns),
            _ => {
                return Err(
                    "bytes, flop, fraction and lost apply to ncu diffs; this is an nsys diff"
                        .into(),
                )
            }
        })
    };
    if let Metric::IdleClass(c) = &rule.metric {
        if !g.total.classes.iter().any(|x| x.class == *c) {
            let known: Vec<&str> = g.total.classes.iter().map(|x| x.class.as_str()).collect();
            return Err(format!(
                "no idle class `{c}` in either run (classes: {})",
                known.join(", ")
            ));
        }
    }
    let label = |d: &super::gaps::DeviceDiff| match (d.device, d.device_after) {
        (Some(b), Some(a)) if a != b => format!("device {b} → {a}"),
        (Some(n), _) => format!("device {n}"),
        (None, _) => "total".to_string(),
    };
    let devices: Vec<&super::gaps::DeviceDiff> = match rule.scope {
        Scope::Any => g.devices.iter().chain(std::iter::once(&g.total)).collect(),
        Scope::Total => vec![&g.total],
        Scope::Device(n) => {
            let v: Vec<_> = g
                .devices
                .iter()
                .filter(|d| d.device == Some(n) || d.device_after == Some(n))
                .collect();
            if v.is_empty() {
                return Err(format!("no device {n} in either run"));
            }
            v
        }
        Scope::Kernel(_) | Scope::Range(_) => {
            return Err(
                "kernel: takes time or count on a timeline; range: takes the metric time".into(),
            )
        }
    };
    for d in devices {
        if let Some(c) = pick(d)? {
            out.push((label(d), c));
        }
    }
    Ok(())
}

/// The rows of `time` and `count` on a timeline diff: NVTX range medians
/// (`time`, unscoped or `range:`) and the kernels' total time or launches
/// (unscoped or `kernel:`).
fn timed_rows<'a>(
    g: &'a super::gaps::GapsDiff,
    rule: &Rule,
    out: &mut Vec<(String, &'a Change)>,
) -> Result<(), String> {
    if matches!(rule.scope, Scope::Range(_)) && rule.metric == Metric::Count {
        return Err(
            "range: takes the metric time (its median); count is a kernel's launches".into(),
        );
    }
    let ranges = matches!(rule.scope, Scope::Any | Scope::Range(_)) && rule.metric == Metric::Time;
    if ranges {
        for r in g.ranges.iter().flatten() {
            if matches!(&rule.scope, Scope::Range(n) if *n != r.name) {
                continue;
            }
            out.push((format!("range {}", r.name), &r.median_ns));
        }
        if let Scope::Range(n) = &rule.scope {
            if g.ranges.is_none() {
                return Err(format!("range:{n} needs NVTX ranges: give --nvtx PATTERN"));
            }
            if out.is_empty() {
                return Err(format!("no NVTX range named `{n}` in either run"));
            }
        }
    }
    if matches!(rule.scope, Scope::Any | Scope::Kernel(_)) {
        let Some(kernels) = &g.kernels else {
            return match (&rule.scope, g.ranges.is_some() && rule.metric == Metric::Time) {
                (Scope::Any, true) => Ok(()),
                _ => Err("a rooftrace.gaps JSON report keeps no kernel table: diff the exports or traces themselves to gate on kernels".into()),
            };
        };
        let before = out.len();
        for k in kernels {
            if let Scope::Kernel(name) = &rule.scope {
                if !k.key.contains(name.as_str()) {
                    continue;
                }
            }
            let c = match rule.metric {
                Metric::Count => &k.launches,
                _ => &k.time_ns,
            };
            out.push((format!("kernel {}", k.name), c));
        }
        if let Scope::Kernel(name) = &rule.scope {
            if out.len() == before {
                return Err(format!("no kernel name in either run contains `{name}`"));
            }
        }
    }
    if matches!(rule.scope, Scope::Total | Scope::Device(_)) {
        return Err("time and count on a timeline apply to kernels (kernel:NAME) and NVTX ranges (range:NAME); for a device use idle, busy or span".into());
    }
    Ok(())
}

/// Applies `rules` (or, when empty, the default gate: every row the
/// tables call a regression, totals included) to the report; a report whose
/// work is mostly unmatched fails unless that was allowed.
pub fn evaluate(r: &DiffReport, rules: &[Rule]) -> Result<GateOutcome, RuleError> {
    let mut outcome = GateOutcome {
        rules: rules.iter().map(|x| x.text.clone()).collect(),
        enabled: true,
        unmatched: r.coverage.status == CoverageStatus::MostlyUnmatched && !r.coverage.allowed,
        ..GateOutcome::default()
    };
    if rules.is_empty() {
        for row in r.judged_rows() {
            if row.verdict == Verdict::Regression {
                outcome.tripped.push(Trip {
                    rule: "default".to_string(),
                    row: row.label,
                    change: *row.change,
                    quantity: row.quantity,
                });
            }
        }
    }
    for rule in rules {
        for (row, change) in rows(r, rule)? {
            if change.delta.is_none() {
                outcome.unknown += 1;
            } else if rule.trips(change) {
                outcome.tripped.push(Trip {
                    rule: rule.text.clone(),
                    row,
                    change: *change,
                    quantity: rule.metric.quantity(),
                });
            }
        }
    }
    outcome.failed = !outcome.tripped.is_empty() || outcome.unmatched;
    Ok(outcome)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diff::noise::{Change, Limit, Worse};

    #[test]
    fn rules_parse_strictly() {
        let r = Rule::parse("time>+5%").unwrap();
        assert_eq!(
            (r.scope.clone(), r.metric.clone(), r.direction, r.limit),
            (
                Scope::Any,
                Metric::Time,
                Direction::Above,
                RuleLimit::Relative(0.05)
            )
        );
        let r = Rule::parse("fraction<-0.05").unwrap();
        assert_eq!(
            (r.direction, r.limit),
            (Direction::Below, RuleLimit::Absolute(-0.05))
        );
        assert_eq!(
            Rule::parse("idle>+1ms").unwrap().limit,
            RuleLimit::Absolute(1e6)
        );
        assert_eq!(
            Rule::parse("idle.host_bound>+10%").unwrap().metric,
            Metric::IdleClass("host_bound".into())
        );
        let r = Rule::parse("kernel:void gemm_v1<float>(float *, int):time>+5%").unwrap();
        assert_eq!(
            r.scope,
            Scope::Kernel("void gemm_v1<float>(float*,int)".into())
        );
        assert_eq!(
            Rule::parse("device:1:idle>2us").unwrap().scope,
            Scope::Device(1)
        );
        assert_eq!(
            Rule::parse("bytes>+10MB").unwrap().limit,
            RuleLimit::Absolute(1e7)
        );
        for bad in [
            "time+5%",
            "tme>+5%",
            "time>",
            "time>5",
            "time>+5x%",
            "fraction>+5%",
            "idle>+1 parsec",
            "bogus:time>1%",
            "device:x:idle>1ms",
            ">5%",
            "bytes>1TB",
            "time>abc%",
        ] {
            assert!(Rule::parse(bad).is_err(), "{bad} should be refused");
        }
    }

    #[test]
    fn a_rule_trips_past_its_limit_and_the_spread_only() {
        let lim = Limit { rel: 0.0, abs: 0.0 };
        let c = Change::judge(Some(1000.0), Some(1050.0), lim, 0.0, Worse::Higher);
        let r = Rule::parse("time>+5%").unwrap();
        assert!(!r.trips(&c), "exactly +5 % is not beyond +5 %");
        let c = Change::judge(Some(1000.0), Some(1051.0), lim, 0.0, Worse::Higher);
        assert!(r.trips(&c));
        // Same change inside a 6 % spread of repeated launches: not a trip.
        let c = Change::judge(Some(1000.0), Some(1051.0), lim, 0.06, Worse::Higher);
        assert!(!r.trips(&c));
        let f = Rule::parse("fraction<-0.05").unwrap();
        let c = Change::judge(Some(0.5), Some(0.44), lim, 0.0, Worse::Lower);
        assert!(f.trips(&c));
        let c = Change::judge(Some(0.5), Some(0.46), lim, 0.0, Worse::Lower);
        assert!(!f.trips(&c));
    }
}
