//! `rooftrace calibrate`.

use crate::cli::calibrate::CalibrateArgs;

/// Runs `rooftrace calibrate`.
pub fn run(_args: CalibrateArgs) -> anyhow::Result<()> {
    anyhow::bail!("not implemented yet")
}
