//! What `rooftrace calibrate` shows: the selected roofs beside the
//! datasheet. Built here, beside the analysis; rendered by
//! `report::calibrate`.

use super::compare::{compare, Comparison};
use super::select::Calibration;
use crate::roofs::Roofs;

/// Everything `rooftrace calibrate` shows.
#[derive(Debug, Clone)]
pub struct CalibrateReport {
    /// Roofs selected from the harness results.
    pub calibration: Calibration,
    /// The same roofs beside the datasheet.
    pub comparison: Comparison,
    /// Where the datasheet roofs came from; `None` when there are none.
    pub datasheet_source: Option<String>,
}

impl CalibrateReport {
    /// The report for `calibration` compared with `datasheet` (none: no
    /// percentages).
    pub fn new(calibration: Calibration, datasheet: Option<&Roofs>) -> CalibrateReport {
        CalibrateReport {
            comparison: compare(&calibration.roofs, datasheet),
            calibration,
            datasheet_source: datasheet.map(|d| format!("{} ({})", d.gpu, d.source)),
        }
    }
}
