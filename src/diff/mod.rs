//! Before → after: two runs of the same kind compared row by row, each
//! change judged against a threshold and the run-to-run spread
//! ([`noise`]), and an optional regression gate ([`gate`]).
//!
//! By phase: each side becomes a plain *side model* —
//! [`ncu_side::NcuSide`] (from a
//! [`RooflineReport`](crate::roofline::RooflineReport) or a
//! `rooftrace.ncu/…` JSON) or [`gaps_side::GapsSide`] (from a
//! [`GapReport`](crate::gaps::GapReport) or a `rooftrace.gaps/…` JSON). The
//! constructors read only the fields they need (the ncu report's figures
//! through [`ncu_side::Figure`], which takes a plain or an optional number; the
//! gaps report through its JSON shape), so fields added to those reports
//! later are ignored and new idle classes and busy kinds are compared by
//! name. Then [`ncu::diff`] / [`gaps::diff`] match
//! the rows and judge every change, and [`gate::evaluate`] applies
//! `--fail-on` rules. Before any of that, [`cover::check`] decides whether
//! the sides are runs of the same work at all (each side described as a
//! [`Workload`], whatever its input kind). Counts and the default gate read
//! one list, [`DiffReport::judged_rows`]: the rows the tables print. The
//! result is a [`DiffReport`], serialised as `rooftrace.diff/3`
//! (docs/json-schema-diff.md).

pub mod build;
pub mod cover;
pub mod gaps;
pub mod gaps_side;
pub mod gate;
pub mod identity;
pub mod kernels;
pub mod name;
pub mod ncu;
pub mod ncu_side;
pub mod noise;
pub mod ops;
pub mod roofs;

use serde::Serialize;

pub use build::{check_sources, compare_ncu, compare_timelines, Compared, Source};
pub use cover::{Coverage, CoverageStatus, NothingShared, WorkKind, Workload};
pub use gate::{GateOutcome, Rule, RuleError};
pub use identity::{DifferentGpus, Identity, IdentityNote, SideIdentity};
pub use noise::{Change, Thresholds, Verdict};

/// Schema tag of the JSON report.
pub const SCHEMA: &str = "rooftrace.diff/3";

/// What was compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DiffKind {
    /// Two Nsight Compute profiles (kernels against their roofs).
    Ncu,
    /// Two Nsight Systems timelines (busy, idle and why).
    Nsys,
}

impl DiffKind {
    /// `ncu` or `nsys`.
    pub fn key(self) -> &'static str {
        match self {
            DiffKind::Ncu => "ncu",
            DiffKind::Nsys => "nsys",
        }
    }
}

/// Which table of the report a row is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Section {
    /// ncu: one row per kernel launch (or name and occurrence).
    Kernels,
    /// ncu: kernel time, DRAM bytes, FLOPs, time lost, fraction of roof.
    Totals,
    /// nsys: each device, and all devices.
    Devices,
    /// nsys: idle per class over all devices.
    IdleClasses,
    /// nsys: host-bound idle by what the host was doing (when shown).
    HostDetail,
    /// nsys: NVTX ranges by name.
    Ranges,
    /// nsys: the longest gaps of both runs.
    Gaps,
    /// PyTorch traces with shapes: each op name and shapes, its fraction
    /// of roof from the op models.
    Ops,
}

impl Section {
    /// How the headline names the section's rows.
    pub fn label(self) -> &'static str {
        match self {
            Section::Kernels => "kernels",
            Section::Totals => "totals",
            Section::Devices => "devices",
            Section::IdleClasses => "idle classes",
            Section::HostDetail => "host-bound detail",
            Section::Ranges => "ranges",
            Section::Gaps => "gaps",
            Section::Ops => "ops",
        }
    }
}

/// What a change measures, so it prints in its unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Quantity {
    /// A time, ns.
    Time,
    /// DRAM bytes.
    Bytes,
    /// FLOPs.
    Flop,
    /// A fraction of roof (changes are absolute, not relative).
    Fraction,
    /// A count (a timeline kernel's launches).
    Count,
}

/// One row with a verdict as the tables print it. The counts and the
/// default gate read this one list, so they count and gate exactly the
/// rows the reader sees.
#[derive(Debug, Clone, PartialEq)]
pub struct JudgedRow<'a> {
    /// The table.
    pub section: Section,
    /// The row, in words (kernel name and occurrence, `total kernel time`, …).
    pub label: String,
    /// The row's verdict (as printed in its verdict column).
    pub verdict: Verdict,
    /// The change that decides it.
    pub change: &'a Change,
    /// What that change measures.
    pub quantity: Quantity,
}

/// Counts of row verdicts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct VerdictCounts {
    /// Rows beyond threshold and spread, for the worse.
    pub regression: u64,
    /// Rows beyond threshold and spread, for the better.
    pub improvement: u64,
    /// Rows beyond the threshold but within the spread of repeated runs (or
    /// a side lacks the figure, or most of the work is unmatched).
    pub inconclusive: u64,
    /// Rows within the threshold.
    pub unchanged: u64,
    /// Rows of a figure that is neither better nor worse, beyond the threshold.
    pub changed: u64,
    /// Rows only in the new run.
    pub added: u64,
    /// Rows only in the base run.
    pub removed: u64,
}

impl VerdictCounts {
    /// Counts one row.
    pub fn add(&mut self, v: Verdict) {
        match v {
            Verdict::Regression => self.regression += 1,
            Verdict::Improvement => self.improvement += 1,
            Verdict::Inconclusive => self.inconclusive += 1,
            Verdict::Unchanged => self.unchanged += 1,
            Verdict::Changed => self.changed += 1,
            Verdict::Added => self.added += 1,
            Verdict::Removed => self.removed += 1,
        }
    }

    /// The overall verdict: a regression anywhere wins, then an
    /// improvement, then an inconclusive row; added, removed and changed
    /// rows alone leave it unchanged (their time shows in the totals, which
    /// are rows).
    pub fn overall(&self) -> Verdict {
        if self.regression > 0 {
            Verdict::Regression
        } else if self.improvement > 0 {
            Verdict::Improvement
        } else if self.inconclusive > 0 {
            Verdict::Inconclusive
        } else {
            Verdict::Unchanged
        }
    }

    /// `1 regressed, 2 unchanged`: the nonzero counts, in verdict order
    /// (`0 rows` when there are none).
    pub fn phrase(&self) -> String {
        let parts: Vec<String> = [
            (self.regression, "regressed"),
            (self.improvement, "improved"),
            (self.inconclusive, "inconclusive"),
            (self.unchanged, "unchanged"),
            (self.changed, "changed"),
            (self.added, "added"),
            (self.removed, "removed"),
        ]
        .into_iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, what)| format!("{n} {what}"))
        .collect();
        if parts.is_empty() {
            "0 rows".to_string()
        } else {
            parts.join(", ")
        }
    }
}

/// The verdicts of one table.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SectionCounts {
    /// The table.
    pub section: Section,
    /// Its rows' verdicts.
    pub counts: VerdictCounts,
}

/// One side as named in the report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SideInfo {
    /// The file as given.
    pub input: String,
    /// What the side was read from: `ncu csv`, `rooftrace.ncu/1 json`, `nsys sqlite`, …
    pub source: String,
}

/// The whole comparison: what every renderer prints.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DiffReport {
    /// Always [`SCHEMA`].
    pub schema: &'static str,
    /// ncu or nsys.
    pub kind: DiffKind,
    /// The base run.
    pub base: SideInfo,
    /// The new run.
    pub new: SideInfo,
    /// Thresholds every change was judged with.
    pub thresholds: Thresholds,
    /// Each side's GPU models, rank and world size, and whether the two
    /// ran on different GPU models (`cross_gpu`: every verdict of the
    /// report compares two cards, not two versions of the code).
    pub identity: Identity,
    /// Whether the two runs did the same work ([`cover`]).
    pub coverage: Coverage,
    /// Overall verdict: inconclusive when most of the work is unmatched,
    /// else [`VerdictCounts::overall`] of every row.
    pub verdict: Verdict,
    /// Every row's verdict counted (the sum of `sections`).
    pub counts: VerdictCounts,
    /// Row verdicts per table, in table order.
    pub sections: Vec<SectionCounts>,
    /// Kernel comparison (ncu diffs).
    pub ncu: Option<ncu::NcuDiff>,
    /// Timeline comparison (nsys diffs).
    pub nsys: Option<gaps::GapsDiff>,
    /// The regression gate and what tripped it.
    pub gate: GateOutcome,
    /// Warnings, each once (serialised as their sentences).
    pub diagnostics: Vec<Diagnostic>,
}

/// What a diff's warning is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DiagnosticKind {
    /// A warning one side's own report carries (`base:`, `new:` or `both:`).
    Side(SideTag),
    /// About the two sides' GPUs, ranks or world sizes.
    Identity(IdentityNote),
    /// Each ncu side was analysed against its own roofs.
    OwnRoofs,
    /// The share of matched work is unknown (a `rooftrace.gaps` JSON side).
    CoverageUnknown,
    /// `--nvtx` was given and no side carries ranges.
    NoRanges,
    /// A side keeps no kernel table: kernels not compared.
    NoKernelTable,
}

/// Which side a side's own warning came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SideTag {
    /// The base run only.
    Base,
    /// The new run only.
    New,
    /// Both say it.
    Both,
}

/// A diff's warning, typed.
pub type Diagnostic = crate::diagnostic::Diagnostic<DiagnosticKind>;

/// The two sides' warnings: once with `both:` when they agree, else per side.
pub fn side_notes(b: &[String], a: &[String]) -> Vec<Diagnostic> {
    let mut out: Vec<Diagnostic> = Vec::new();
    for d in b {
        let (tag, word) = match a.contains(d) {
            true => (SideTag::Both, "both"),
            false => (SideTag::Base, "base"),
        };
        out.push(Diagnostic::new(
            DiagnosticKind::Side(tag),
            format!("{word}: {d}"),
        ));
    }
    out.extend(
        a.iter()
            .filter(|d| !b.contains(d))
            .map(|d| Diagnostic::new(DiagnosticKind::Side(SideTag::New), format!("new: {d}"))),
    );
    out
}

impl DiffReport {
    /// Every row with a verdict, table by table, as printed.
    pub fn judged_rows(&self) -> Vec<JudgedRow<'_>> {
        let mut rows = Vec::new();
        if let Some(n) = &self.ncu {
            rows.extend(n.judged_rows());
        }
        if let Some(g) = &self.nsys {
            rows.extend(g.judged_rows());
        }
        rows
    }

    /// One line a pull request reads first: the verdict (and, when most of
    /// the work is unmatched, why it is inconclusive), the counts of each
    /// table, the gate.
    pub fn headline(&self) -> String {
        let mut verdict = self.verdict_words(self.verdict);
        if let Some(why) = self.coverage.unmatched_phrase() {
            verdict = format!("{verdict}: {why};");
        } else {
            verdict.push(':');
        }
        let parts: Vec<String> = self
            .sections
            .iter()
            .map(|s| format!("{} {}", s.section.label(), s.counts.phrase()))
            .collect();
        let gate = if !self.gate.enabled {
            String::new()
        } else if self.gate.failed {
            let mut why = Vec::new();
            if !self.gate.tripped.is_empty() {
                why.push(format!("{} tripped", self.gate.tripped.len()));
            }
            if self.gate.unmatched {
                why.push("most of the work unmatched".to_string());
            }
            format!("; gate failed ({})", why.join(", "))
        } else {
            String::new()
        };
        format!("{verdict} {}{gate}", parts.join("; "))
    }
}

impl DiffReport {
    /// A verdict as the report prints it: `regression`, or on a
    /// cross-GPU report `regression (cross-GPU)`.
    pub fn verdict_words(&self, v: Verdict) -> String {
        match self.identity.cross_gpu {
            true => format!("{} (cross-GPU)", v.key()),
            false => v.key().to_string(),
        }
    }
}

/// Finishes a report: rows comparing mostly unmatched work made
/// inconclusive, counts per table, overall verdict and the gate.
pub fn finish(mut report: DiffReport, rules: &[Rule]) -> Result<DiffReport, gate::RuleError> {
    if report.coverage.status == CoverageStatus::MostlyUnmatched {
        if let Some(n) = &mut report.ncu {
            n.mark_unmatched();
        }
        if let Some(g) = &mut report.nsys {
            g.mark_unmatched();
        }
    }
    let mut counts = VerdictCounts::default();
    let mut sections: Vec<SectionCounts> = Vec::new();
    for row in report.judged_rows() {
        counts.add(row.verdict);
        match sections.last_mut() {
            Some(s) if s.section == row.section => s.counts.add(row.verdict),
            _ => {
                let mut c = VerdictCounts::default();
                c.add(row.verdict);
                sections.push(SectionCounts {
                    section: row.section,
                    counts: c,
                });
            }
        }
    }
    report.verdict = if report.coverage.status == CoverageStatus::MostlyUnmatched {
        Verdict::Inconclusive
    } else {
        counts.overall()
    };
    report.counts = counts;
    report.sections = sections;
    report.gate = gate::evaluate(&report, rules)?;
    Ok(report)
}
