//! Nsight Systems SQLite export (schema probed first) -> timeline.

/// Errors in an nsys export.
#[derive(Debug, thiserror::Error)]
pub enum NsysError {
    /// Placeholder until the reader lands.
    #[error("{0}")]
    Other(String),
}
