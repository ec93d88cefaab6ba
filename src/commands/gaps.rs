//! `rooftrace gaps`.

use crate::cli::gaps::GapsArgs;

/// Runs `rooftrace gaps`.
pub fn run(_args: GapsArgs) -> anyhow::Result<()> {
    anyhow::bail!("not implemented yet")
}
