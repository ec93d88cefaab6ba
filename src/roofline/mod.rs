//! Roofs x kernel metrics -> roofline report.
//!
//! `analysis` is the math that turns parsed launches into a
//! [`RooflineReport`]; the roofs it measures against come from
//! [`crate::roofs`]. `names` gives each kernel its readable label, unique in
//! the report, for every renderer and the plot.

pub mod analysis;
pub mod names;

pub use analysis::{
    analyze, Bound, Diagnostic, DiagnosticKind, GroupBy, KernelRoofline, RooflineReport, RoofsUsed,
    NCU_SCHEMA,
};
