//! Choosing the roofs of a run (policy): `--gpu KEY`, `--roofs FILE`,
//! `--roofs ncu`, else detection from the device name or compute capability
//! the input carries. Takes plain data ([`DeviceHints`]), so the parsers
//! fill it and nothing here knows their types.

use super::gpus::{self, GpuSpec};
use super::{Roofs, RoofsError};
use serde::Serialize;
use std::path::PathBuf;

/// Where the roofs come from (the plain-config twin of `--gpu`/`--roofs`).
#[derive(Debug, Clone, PartialEq)]
pub enum RoofsChoice {
    /// A key of the built-in table.
    Gpu(String),
    /// A roofs JSON file.
    File(PathBuf),
    /// The peak metrics in the input (`--roofs ncu`).
    Ncu,
    /// Device name or compute capability in the input.
    FromCsv,
}

/// What an input says about the device it was recorded on.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DeviceHints {
    /// The input file as given, for messages.
    pub file: String,
    /// Distinct device names seen, sorted.
    pub device_names: Vec<String>,
    /// Distinct compute capabilities seen (`9.0`), sorted.
    pub compute_capabilities: Vec<String>,
}

/// How the GPU (and so the roofs) was chosen.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GpuInfo {
    /// Built-in table key (`h100-sxm`), when the table was used.
    pub key: Option<String>,
    /// Name shown to the user.
    pub name: String,
    /// How it was chosen: `--gpu`, `device name in the CSV`, `compute
    /// capability in the CSV`, `--roofs FILE`, `--roofs ncu`.
    pub chosen_by: String,
}

/// The keys of the built-in table, comma-separated, for messages.
fn choices() -> String {
    gpus::all()
        .iter()
        .map(|g| g.key)
        .collect::<Vec<_>>()
        .join(", ")
}

fn from_table(g: &GpuSpec, how: String) -> (Roofs, GpuInfo) {
    (
        g.default_roofs(),
        GpuInfo {
            key: Some(g.key.to_string()),
            name: g.name.to_string(),
            chosen_by: how,
        },
    )
}

/// Picks the roofs: `--gpu`, `--roofs FILE`, `--roofs ncu` (built by
/// `from_peaks`, called only for that choice), else the device name in
/// `hints`, else its compute capability when that names one GPU. The roofs
/// must have a DRAM bandwidth (every roofline needs it).
pub fn choose<E: From<RoofsError>>(
    choice: &RoofsChoice,
    hints: &DeviceHints,
    from_peaks: impl FnOnce() -> Result<Roofs, E>,
) -> Result<(Roofs, GpuInfo), E> {
    let (roofs, gpu) = match choice {
        RoofsChoice::Gpu(key) => {
            let g = gpus::by_key(key).ok_or_else(|| RoofsError::UnknownGpu {
                key: key.clone(),
                choices: choices(),
            })?;
            from_table(g, "--gpu".into())
        }
        RoofsChoice::File(path) => {
            let roofs = Roofs::from_file(path)?;
            let gpu = GpuInfo {
                key: None,
                name: roofs.gpu.clone(),
                chosen_by: format!("--roofs {}", path.display()),
            };
            (roofs, gpu)
        }
        RoofsChoice::Ncu => {
            let roofs = from_peaks()?;
            let gpu = GpuInfo {
                key: None,
                name: roofs.gpu.clone(),
                chosen_by: "--roofs ncu".into(),
            };
            (roofs, gpu)
        }
        RoofsChoice::FromCsv => detect(hints)?,
    };
    if roofs.dram().is_none() {
        return Err(RoofsError::NoDram {
            gpu: roofs.gpu,
            chosen_by: gpu.chosen_by,
        }
        .into());
    }
    Ok((roofs, gpu))
}

/// The GPU named by the device name in `hints`, else by its one compute
/// capability when exactly one GPU of the table has it.
fn detect(hints: &DeviceHints) -> Result<(Roofs, GpuInfo), RoofsError> {
    for name in &hints.device_names {
        if let Some(g) = gpus::by_device_name(name) {
            return Ok(from_table(g, format!("device name {name:?} in the CSV")));
        }
    }
    if let [cc] = hints.compute_capabilities.as_slice() {
        if let [g] = gpus::by_compute_capability(cc).as_slice() {
            return Ok(from_table(g, format!("compute capability {cc} in the CSV")));
        }
    }
    let seen = match (
        hints.device_names.first(),
        hints.compute_capabilities.first(),
    ) {
        (Some(n), _) => format!("device {n:?}, which is not in the built-in table"),
        (None, Some(cc)) => {
            let c: Vec<&str> = gpus::by_compute_capability(cc)
                .iter()
                .map(|g| g.key)
                .collect();
            if c.is_empty() {
                format!("compute capability {cc}, which no GPU of the built-in table has")
            } else {
                format!("compute capability {cc}, shared by {}", c.join(", "))
            }
        }
        (None, None) => "no device name or compute capability".into(),
    };
    Err(RoofsError::UnknownDevice {
        file: hints.file.clone(),
        seen,
        choices: choices(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hints(names: &[&str], ccs: &[&str]) -> DeviceHints {
        DeviceHints {
            file: "t.csv".into(),
            device_names: names.iter().map(|s| s.to_string()).collect(),
            compute_capabilities: ccs.iter().map(|s| s.to_string()).collect(),
        }
    }

    fn no_peaks() -> Result<Roofs, RoofsError> {
        panic!("peaks are read only for --roofs ncu")
    }

    #[test]
    fn device_name_wins_over_compute_capability() {
        // 8.9 is shared by the L40S and two GeForce cards; the name decides.
        let (_, gpu) = choose(
            &RoofsChoice::FromCsv,
            &hints(&["NVIDIA H100 80GB HBM3"], &["8.9"]),
            no_peaks,
        )
        .unwrap();
        assert_eq!(gpu.key.as_deref(), Some("h100-sxm"));
        assert!(
            gpu.chosen_by.starts_with("device name"),
            "{}",
            gpu.chosen_by
        );
    }

    #[test]
    fn a_shared_compute_capability_is_not_a_guess() {
        let e = choose(&RoofsChoice::FromCsv, &hints(&[], &["8.9"]), no_peaks).unwrap_err();
        let msg = e.to_string();
        assert!(msg.contains("compute capability 8.9, shared by"), "{msg}");
        assert!(msg.contains("pass --gpu with one of:"), "{msg}");
    }

    #[test]
    fn unknown_key_lists_the_table() {
        let e = choose(
            &RoofsChoice::Gpu("h1000".into()),
            &hints(&[], &[]),
            no_peaks,
        )
        .unwrap_err();
        assert!(
            e.to_string().contains("unknown GPU \"h1000\" for --gpu"),
            "{e}"
        );
    }

    #[test]
    fn roofs_without_dram_are_refused() {
        let e = choose(&RoofsChoice::Ncu, &hints(&[], &[]), || {
            Ok::<_, RoofsError>(Roofs::new("G", "t"))
        })
        .unwrap_err();
        assert!(e.to_string().contains("have no DRAM bandwidth"), "{e}");
    }
}
