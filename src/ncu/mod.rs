//! Nsight Compute CSV (details and raw pages, every ncu version) -> launches.

/// Errors in an ncu CSV.
#[derive(Debug, thiserror::Error)]
pub enum NcuError {
    /// Placeholder until the parser lands.
    #[error("{0}")]
    Other(String),
}
