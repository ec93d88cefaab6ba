//! Roofs x kernel metrics -> roofline report.
//!
//! `analysis` is the math that turns parsed launches into a
//! [`RooflineReport`]; `diagnose` says, as data, what could not be analysed
//! or is only partly known; the roofs it measures against come from
//! [`crate::roofs`]. `names` gives each kernel its readable label, unique in
//! the report, for every renderer and the plot. `useful` flags tensor FLOPs
//! that may count padding and applies the useful work the user states.

pub mod analysis;
pub mod diagnose;
pub mod names;
pub mod useful;

pub use analysis::{
    analyze, Bound, GroupBy, KernelRoofline, RooflineReport, RoofsUsed, NCU_SCHEMA,
};
pub use diagnose::{Diagnostic, DiagnosticKind};
