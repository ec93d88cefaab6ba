//! Roofs x kernel metrics -> roofline report.
//!
//! `analysis` is the math that turns parsed launches into a
//! [`RooflineReport`]; `diagnose` says, as data, what could not be analysed
//! or is only partly known; the roofs it measures against come from
//! [`crate::roofs`].

pub mod analysis;
pub mod diagnose;

pub use analysis::{
    analyze, Bound, GroupBy, KernelRoofline, RooflineReport, RoofsUsed, NCU_SCHEMA,
};
pub use diagnose::{Diagnostic, DiagnosticKind};
