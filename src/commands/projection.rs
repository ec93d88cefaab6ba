//! `--project-to`: the targets named on the command line (table keys or
//! roofs files) as plain [`Target`]s, and the projection of a report.

use crate::cli::projection::ProjectionModelArg;
use crate::error::InputError;
use crate::projection::{Model, Target};
use crate::roofs::{gpus, GpuChoice, GpuInfo, Roofs, RoofsError};
use std::path::Path;

/// The model of `--projection-model`.
pub fn model(arg: ProjectionModelArg) -> Model {
    match arg {
        ProjectionModelArg::BoundScales => Model::BoundScales,
        ProjectionModelArg::LaunchFraction => Model::LaunchFraction,
        ProjectionModelArg::SameFraction => Model::SameFraction,
        ProjectionModelArg::SameTime => Model::SameTime,
    }
}

/// Resolves each `--project-to` entry: a key of the built-in table, else
/// an existing roofs file. A roofs file needs a DRAM roof (every bound has
/// a memory term).
pub fn targets(specs: &[String], launch_ns: Option<f64>) -> Result<Vec<Target>, InputError> {
    if let Some(ns) = launch_ns.filter(|ns| !(ns.is_finite() && *ns >= 0.0)) {
        return Err(InputError::new(format!(
            "--target-launch-cost must be a non-negative number of ns per launch, got {ns}"
        )));
    }
    let mut out = Vec::new();
    for spec in specs.iter().map(|s| s.trim()).filter(|s| !s.is_empty()) {
        let (roofs, gpu) = if let Some(g) = gpus::by_key(spec) {
            let gpu = GpuInfo {
                key: Some(g.key.to_string()),
                name: g.name.to_string(),
                chosen_by: GpuChoice::ProjectTo(g.key.to_string()),
                notes: Vec::new(),
            };
            (g.default_roofs(), gpu)
        } else if Path::new(spec).is_file() {
            crate::input::refuse_other_kinds(Path::new(spec), &crate::input::ROOFS)?;
            let roofs = Roofs::from_file(Path::new(spec))?;
            let gpu = GpuInfo {
                key: None,
                name: roofs.gpu.clone(),
                chosen_by: GpuChoice::ProjectTo(spec.to_string()),
                notes: Vec::new(),
            };
            (roofs, gpu)
        } else {
            let keys: Vec<&str> = gpus::all().iter().map(|g| g.key).collect();
            return Err(InputError::new(format!(
                "--project-to {spec:?} is neither a GPU of the built-in table nor a roofs file; {}, or give a roofs JSON file (docs/roofs-format.md)",
                crate::suggest::did_you_mean_among(spec, &keys, "`rooftrace ncu --list-gpus`")
            )));
        };
        if roofs.dram().is_none() {
            return Err(RoofsError::NoDram {
                gpu: roofs.gpu,
                chosen_by: format!("--project-to {spec}"),
            }
            .into());
        }
        out.push(Target {
            roofs,
            gpu,
            launch_ns,
        });
    }
    Ok(out)
}

/// Projects `report` onto `targets` under `model`.
pub fn ncu(
    report: crate::roofline::RooflineReport,
    targets: &[Target],
    model: Model,
) -> crate::projection::ProjectedReport {
    let projection = crate::projection::project(&report, targets, model);
    crate::projection::ProjectedReport {
        roofline: report,
        projection,
    }
}

/// Projects a step budget (and the ncu analysis it was budgeted with) onto
/// each target.
pub fn budget(
    budget: crate::budget::BudgetReport,
    ncu: &crate::roofline::RooflineReport,
    targets: &[Target],
    model: Model,
) -> crate::projection::budget::ProjectedBudget {
    let c = crate::projection::launch::fit(&ncu.kernels).per_launch_ns;
    let projections = targets
        .iter()
        .map(|t| crate::projection::budget::project_budget(&budget, ncu, t, model, c))
        .collect();
    crate::projection::budget::ProjectedBudget {
        budget,
        projections,
    }
}
