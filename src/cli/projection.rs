//! The projection flags, declared once for `ncu` and `budget`
//! (`#[command(flatten)]`): the target GPUs, the model that carries a
//! kernel's time over, and the target's per-launch cost.

use clap::{Args, ValueEnum};

/// `--project-to`, `--projection-model`, `--target-launch-cost`.
#[derive(Debug, Clone, Args)]
pub struct ProjectionArgs {
    /// Project onto other GPUs: table keys (`h200`, `a100-80gb`) or roofs
    /// JSON files, comma-separated. `ncu`: per row, the bound on the
    /// target with its roofs for the same paths, the binding side there,
    /// the expected time (`--projection-model`) and its ratio to the
    /// measured time; in total too. `budget` (needs --ncu): each step's
    /// kernel parts scale by that per-kernel model; idle gaps, host time
    /// and copies stay (no link bandwidth of the target is known). Method
    /// and validation: docs/projection.md.
    #[arg(long, value_name = "GPU[,GPU...]|FILE", value_delimiter = ',')]
    pub project_to: Vec<String>,
    /// How each kernel's measured time carries over to the target
    /// (docs/projection.md).
    #[arg(long, value_enum, default_value_t = ProjectionModelArg::BoundScales, requires = "project_to")]
    pub projection_model: ProjectionModelArg,
    /// The target's fixed cost per launch, ns (e.g. the `c` that
    /// `rooftrace ncu --project-to` prints for a profile taken on the
    /// target). Without it the source's `c`, fitted from the source
    /// profile (the ncu CSV), is assumed.
    #[arg(long, value_name = "NS", requires = "project_to")]
    pub target_launch_cost: Option<f64>,
}

/// `--projection-model` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ProjectionModelArg {
    /// The bound part scales with the roofs; the per-launch cost and the time lost stay.
    BoundScales,
    /// The per-launch cost stays; the rest keeps its fraction of the bound.
    LaunchFraction,
    /// The same fraction of the bound (no per-launch cost).
    SameFraction,
    /// The same time.
    SameTime,
}
