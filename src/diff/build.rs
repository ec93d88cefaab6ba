//! A report from two sides: who ran them ([`super::identity`], refused on
//! different GPU models unless allowed), whether they did the same work
//! ([`super::cover`]), the comparison, the notes, the counts and the gate
//! ([`super::finish`]). `commands::diff` reads the files and calls these.

use super::gaps_side::GapsSide;
use super::identity::{self, Identity, IdentityNote};
use super::roofs::NcuSides;
use super::{
    cover, finish, side_notes, Coverage, CoverageStatus, Diagnostic, DiagnosticKind, DiffKind,
    DiffReport, Rule, SideInfo, Thresholds, Verdict, Workload,
};
use crate::error::InputError;

/// What a side was read from, as the caller detected it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// An ncu CSV.
    NcuCsv,
    /// An `.ncu-rep`, imported with `ncu`.
    NcuRep,
    /// An nsys export (`.sqlite`, or an `.nsys-rep` converted).
    NsysExport,
    /// A PyTorch profiler (Kineto) trace.
    Trace,
    /// A `rooftrace ncu --format json` report, with its schema.
    NcuJson(String),
    /// A `rooftrace gaps --format json` report, with its schema.
    GapsJson(String),
}

impl Source {
    /// Which diff the side belongs to.
    pub fn kind(&self) -> DiffKind {
        match self {
            Source::NcuCsv | Source::NcuRep | Source::NcuJson(_) => DiffKind::Ncu,
            Source::NsysExport | Source::Trace | Source::GapsJson(_) => DiffKind::Nsys,
        }
    }

    /// How the report names it (`SideInfo::source`).
    pub fn label(&self) -> String {
        match self {
            Source::NcuCsv => "ncu csv".into(),
            Source::NcuRep => "ncu report".into(),
            Source::NsysExport => "nsys export".into(),
            Source::Trace => "PyTorch trace".into(),
            Source::NcuJson(s) | Source::GapsJson(s) => format!("{s} json"),
        }
    }
}

/// The sides' sources must make one diff: one kind (ncu or timeline); not
/// a PyTorch trace against an nsys export (the two profilers record
/// different windows, with different overheads and host rows, so span, idle
/// and its classes would move with the tool, not the code; a `rooftrace
/// gaps` JSON report does not say which profiler it came from and is
/// compared with either); no roofs for timelines but two PyTorch traces
/// (their ops are judged at them). Exit 2 otherwise.
pub fn check_sources(
    base: (&str, &Source),
    new: (&str, &Source),
    roofs_given: bool,
) -> Result<DiffKind, InputError> {
    let ((bf, b), (nf, n)) = (base, new);
    if b.kind() != n.kind() {
        return Err(InputError::new(format!(
            "cannot compare {bf} ({}) with {nf} ({}): give two ncu profiles (CSV or rooftrace.ncu JSON) or two nsys timelines (export or rooftrace.gaps JSON)",
            b.label(),
            n.label()
        )));
    }
    if matches!(
        (b, n),
        (Source::NsysExport, Source::Trace) | (Source::Trace, Source::NsysExport)
    ) {
        return Err(InputError::new(format!(
            "cannot compare {bf} ({}) with {nf} ({}): the two profilers record different windows, overheads and host rows, so span and idle would change with the tool, not the code; profile both runs the same way (torch.profiler for both, or nsys for both)",
            b.label(),
            n.label()
        )));
    }
    // Two PyTorch traces: the roofs bound their ops (the op models).
    let traces = matches!((b, n), (Source::Trace, Source::Trace));
    if b.kind() == DiffKind::Nsys && roofs_given && !traces {
        return Err(InputError::new(format!(
            "--gpu/--roofs/--peak-dram-bw apply to ncu profiles and to the ops of two PyTorch traces; {bf} and {nf} are timelines, which carry no roofs (leave the flag out)"
        )));
    }
    Ok(b.kind())
}

/// What both kinds of diff are told besides their sides.
#[derive(Debug, Clone)]
pub struct Compared<'a> {
    /// Base side as named in the report.
    pub base: SideInfo,
    /// New side.
    pub new: SideInfo,
    /// Thresholds.
    pub thresholds: Thresholds,
    /// Gate rules (empty: the default gate).
    pub rules: &'a [Rule],
    /// False with `--no-gate`.
    pub gate: bool,
    /// `--allow-unmatched`.
    pub allow_unmatched: bool,
    /// `--allow-different-gpus`.
    pub allow_different_gpus: bool,
    /// `--nvtx` was given.
    pub nvtx: bool,
}

impl Compared<'_> {
    fn empty(&self, kind: DiffKind, coverage: Coverage, identity: Identity) -> DiffReport {
        DiffReport {
            schema: super::SCHEMA,
            kind,
            base: self.base.clone(),
            new: self.new.clone(),
            thresholds: self.thresholds,
            identity,
            coverage,
            verdict: Verdict::Unchanged,
            counts: Default::default(),
            sections: Vec::new(),
            ncu: None,
            nsys: None,
            gate: Default::default(),
            diagnostics: Vec::new(),
        }
    }

    fn coverage(&self, base: &Workload, new: &Workload) -> Result<Coverage, InputError> {
        Ok(cover::check(
            &self.base.input,
            &self.new.input,
            base,
            new,
            self.allow_unmatched,
        )?)
    }

    fn finish(&self, report: DiffReport) -> Result<DiffReport, InputError> {
        let mut report = finish(report, self.rules)?;
        if !self.gate {
            report.gate.enabled = false;
            report.gate.failed = false;
            report.gate.tripped.clear();
        }
        Ok(report)
    }
}

fn identity_notes(notes: Vec<(IdentityNote, String)>) -> Vec<Diagnostic> {
    notes
        .into_iter()
        .map(|(k, m)| Diagnostic::new(DiagnosticKind::Identity(k), m))
        .collect()
}

/// Two ncu sides (roofs chosen and analysed by [`super::roofs::ncu_sides`]).
pub fn compare_ncu(c: &Compared, sides: NcuSides) -> Result<DiffReport, InputError> {
    let NcuSides {
        base,
        new,
        identity,
        notes,
    } = sides;
    let coverage = c.coverage(&base.workload(), &new.workload())?;
    let mut report = c.empty(DiffKind::Ncu, coverage, identity);
    report.diagnostics = identity_notes(notes);
    report
        .diagnostics
        .extend(side_notes(&base.diagnostics, &new.diagnostics));
    let n = super::ncu::diff(&base, &new, &c.thresholds);
    if !n.same_roofs {
        report.diagnostics.push(Diagnostic::new(
            DiagnosticKind::OwnRoofs,
            format!(
                "each side was analysed against its own roofs ({} → {}): fractions of roof are not comparable one to one",
                n.gpu_before.as_deref().unwrap_or("?"),
                n.gpu_after.as_deref().unwrap_or("?")
            ),
        ));
    }
    report.ncu = Some(n);
    c.finish(report)
}

/// Two timeline sides: GPU models compared first (exit 2 when they differ
/// and that is not allowed), then the work, then every row.
pub fn compare_timelines(
    c: &Compared,
    base: &GapsSide,
    new: &GapsSide,
) -> Result<DiffReport, InputError> {
    let (identity, notes) = identity::compare(
        &c.base.input,
        &c.new.input,
        base.identity.clone(),
        new.identity.clone(),
        c.allow_different_gpus,
    )?;
    let coverage = c.coverage(&base.workload(), &new.workload())?;
    let mut report = c.empty(DiffKind::Nsys, coverage, identity);
    report.diagnostics = identity_notes(notes);
    report
        .diagnostics
        .extend(side_notes(&base.diagnostics, &new.diagnostics));
    if report.coverage.status == CoverageStatus::Unknown {
        report.diagnostics.push(Diagnostic::new(
            DiagnosticKind::CoverageUnknown,
            "the share of matched work is unknown: a rooftrace.gaps JSON names only the kernels around its longest gaps, without their time; diff the exports themselves to check it",
        ));
    }
    if c.nvtx && base.ranges.is_none() && new.ranges.is_none() {
        report.diagnostics.push(Diagnostic::new(
            DiagnosticKind::NoRanges,
            "--nvtx: no side carries NVTX ranges",
        ));
    }
    let id = &report.identity;
    let g = super::gaps::diff(base, new, &c.thresholds, id.gpus_checked && !id.cross_gpu);
    if g.kernels.is_none() {
        report.diagnostics.push(Diagnostic::new(
            DiagnosticKind::NoKernelTable,
            "kernels not compared one by one: a rooftrace.gaps JSON report keeps no kernel table; diff the exports or traces themselves for kernels added, removed and run more or less often",
        ));
    }
    report.nsys = Some(g);
    c.finish(report)
}
