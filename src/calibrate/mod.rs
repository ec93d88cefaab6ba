//! Reference-kernel results -> measured roofs.

/// Errors in a harness results file.
#[derive(Debug, thiserror::Error)]
pub enum CalibrateInputError {
    /// Placeholder until calibrate lands.
    #[error("{0}")]
    Other(String),
}
