//! Roofs x kernel metrics -> roofline report.
//!
//! `analysis` is the math that turns parsed launches into a
//! [`RooflineReport`]; the roofs it measures against come from
//! [`crate::roofs`].

pub mod analysis;

pub use analysis::{
    analyze, Bound, Diagnostic, DiagnosticKind, GroupBy, KernelRoofline, RooflineReport, RoofsUsed,
    NCU_SCHEMA,
};
