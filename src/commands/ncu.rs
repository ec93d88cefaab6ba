//! `rooftrace ncu`.

use crate::cli::ncu::NcuArgs;

/// Runs `rooftrace ncu`.
pub fn run(_args: NcuArgs) -> anyhow::Result<()> {
    anyhow::bail!("not implemented yet")
}
