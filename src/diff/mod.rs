//! Before → after: two runs of the same kind compared row by row, each
//! change judged against a threshold and the run-to-run spread
//! ([`noise`]), and an optional regression gate ([`gate`]).
//!
//! By phase: each side becomes a plain *side model* — [`ncu::NcuSide`]
//! (from a [`RooflineReport`](crate::roofline::RooflineReport) or a
//! `rooftrace.ncu/…` JSON) or [`gaps::GapsSide`] (from a
//! [`GapReport`](crate::gaps::GapReport) or a `rooftrace.gaps/…` JSON). The
//! constructors read only the fields they need (the ncu report's figures
//! through [`ncu::Figure`], which takes a plain or an optional number; the
//! gaps report through its JSON shape), so fields added to those reports
//! later are ignored and new idle classes and busy kinds are compared by
//! name. Then [`ncu::diff`] / [`gaps::diff`] match
//! the rows and judge every change, and [`gate::evaluate`] applies
//! `--fail-on` rules. The result is a [`DiffReport`], serialised as
//! `rooftrace.diff/1` (docs/json-schema-diff.md).

pub mod gaps;
pub mod gate;
pub mod name;
pub mod ncu;
pub mod noise;

use serde::Serialize;

pub use gate::{GateOutcome, Rule, RuleError};
pub use noise::{Change, Thresholds, Verdict};

/// Schema tag of the JSON report.
pub const SCHEMA: &str = "rooftrace.diff/1";

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

/// Counts of row verdicts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct VerdictCounts {
    /// Rows beyond threshold and spread, for the worse.
    pub regression: u64,
    /// Rows beyond threshold and spread, for the better.
    pub improvement: u64,
    /// Rows beyond the threshold but within the spread of repeated runs.
    pub inconclusive: u64,
    /// Rows within the threshold.
    pub unchanged: u64,
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
            Verdict::Added => self.added += 1,
            Verdict::Removed => self.removed += 1,
        }
    }

    /// The overall verdict: a regression anywhere wins, then an
    /// improvement, then an inconclusive row; added and removed rows alone
    /// leave it unchanged (their time shows in the totals, which are rows).
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
    /// Overall verdict (see [`VerdictCounts::overall`]).
    pub verdict: Verdict,
    /// Row verdicts counted.
    pub counts: VerdictCounts,
    /// Kernel comparison (ncu diffs).
    pub ncu: Option<ncu::NcuDiff>,
    /// Timeline comparison (nsys diffs).
    pub nsys: Option<gaps::GapsDiff>,
    /// The regression gate and what tripped it.
    pub gate: GateOutcome,
    /// Warnings, each once.
    pub diagnostics: Vec<String>,
}

impl DiffReport {
    /// One line a pull request reads first: the verdict, what drives it, the gate.
    pub fn headline(&self) -> String {
        let c = &self.counts;
        let what = match self.kind {
            DiffKind::Ncu => "kernel rows",
            DiffKind::Nsys => "rows",
        };
        let mut parts = vec![format!(
            "{} regressed, {} improved, {} inconclusive, {} unchanged",
            c.regression, c.improvement, c.inconclusive, c.unchanged
        )];
        if c.added > 0 || c.removed > 0 {
            parts.push(format!("{} added, {} removed", c.added, c.removed));
        }
        let gate = if self.gate.failed {
            format!("; gate failed ({})", self.gate.tripped.len())
        } else {
            String::new()
        };
        format!(
            "{}: {} ({}){}",
            self.verdict.key(),
            parts.join("; "),
            what,
            gate
        )
    }
}

/// Finishes a report: counts, overall verdict and the gate.
pub fn finish(mut report: DiffReport, rules: &[Rule]) -> Result<DiffReport, gate::RuleError> {
    let mut counts = VerdictCounts::default();
    if let Some(n) = &report.ncu {
        n.count(&mut counts);
    }
    if let Some(g) = &report.nsys {
        g.count(&mut counts);
    }
    report.counts = counts;
    report.verdict = counts.overall();
    report.gate = gate::evaluate(&report, rules)?;
    Ok(report)
}
