//! Roofs x kernel metrics -> roofline report.
//!
//! `model` is the report every renderer reads ([`RooflineReport`], its rows,
//! diagnostics, padding and useful-work annotations); `analysis` is the math
//! that turns parsed launches into it; `diagnose` says, as data, what could
//! not be analysed or is only partly known; the roofs it measures against
//! come from [`crate::roofs`]. `names` gives each kernel its readable label,
//! unique in the report, for every renderer and the plot. `useful` flags
//! tensor FLOPs that may count padding and applies the useful work the user
//! states; `clocks` scales the roofs to the clocks the launches ran at.
//! `analysis`, `clocks`, `diagnose` and `useful` use `model`, one way; no two
//! files of this module import each other.

pub mod analysis;
pub mod clocks;
pub mod diagnose;
pub mod model;
pub mod names;
pub mod useful;

pub use analysis::{analyze, analyze_at, analyze_owned_at};
pub use model::{
    Bound, ClockInfo, ClockRange, Diagnostic, DiagnosticKind, GroupBy, KernelRoofline,
    PaddingSuspect, RoofClock, RooflineReport, RoofsUsed, UsefulWork, ABOVE_ROOF_TOLERANCE,
    NCU_SCHEMA,
};
