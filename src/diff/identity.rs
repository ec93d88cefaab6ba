//! Who ran each side: the GPU models (an ncu CSV's device names, an nsys
//! export's `TARGET_INFO_GPU`, a PyTorch trace's `deviceProperties`) and,
//! for traces and exports that record it, the rank and world size. Two
//! sides on different GPU models are not a before → after of one program:
//! refused ([`DifferentGpus`], exit 2) unless `--allow-different-gpus`,
//! which marks the report cross-GPU. Devices are matched by model and
//! order ([`SideIdentity::match_key`]), not by device index, so rank 3's
//! device 3 meets rank 1's device 1.

use crate::error::BadInput;
use crate::kineto::KinetoTrace;
use crate::roofs::DeviceHints;
use crate::timeline::Timeline;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// The device ids a timeline ran GPU work on.
fn used_devices(t: &Timeline) -> Vec<u64> {
    let ids: BTreeSet<u64> = t.ops.iter().map(|o| u64::from(o.device)).collect();
    ids.into_iter().collect()
}

/// Where a side records its GPU models.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum GpuSource {
    /// An ncu CSV's device name column/attribute.
    NcuCsv,
    /// An nsys export's `TARGET_INFO_GPU`.
    TargetInfoGpu,
    /// A PyTorch trace's `deviceProperties`.
    DeviceProperties,
}

impl GpuSource {
    /// Where, in words.
    pub fn words(self) -> &'static str {
        match self {
            GpuSource::NcuCsv => "the CSV's device name",
            GpuSource::TargetInfoGpu => "the export's TARGET_INFO_GPU",
            GpuSource::DeviceProperties => "the trace's deviceProperties",
        }
    }
}

/// What one side says about the machine it ran on.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct SideIdentity {
    /// GPU models of the devices the side ran on (distinct, as recorded,
    /// sorted); empty when the input does not say.
    pub gpus: Vec<String>,
    /// Where the models were read (`null`: not recorded).
    pub gpus_from: Option<GpuSource>,
    /// This process's rank (Kineto `distributedInfo.rank`, or an nsys
    /// export's rank environment variable).
    pub rank: Option<u32>,
    /// Ranks in the job (`distributedInfo.world_size`).
    pub world_size: Option<u32>,
    /// Device id → model, for matching devices across sides.
    #[serde(skip)]
    pub device_models: BTreeMap<u64, String>,
}

/// A GPU model name as compared: case, a leading `NVIDIA `/`Tesla ` (which
/// drivers add or drop over the years) and repeated spaces do not count.
pub fn model_key(name: &str) -> String {
    let mut n = name.split_whitespace().collect::<Vec<_>>().join(" ");
    n = n.to_lowercase();
    for prefix in ["nvidia ", "tesla "] {
        if let Some(rest) = n.strip_prefix(prefix) {
            n = rest.to_string();
        }
    }
    n
}

impl SideIdentity {
    /// A side from its devices (id, model) and the ids it ran work on:
    /// the models of those devices when every one is recorded, else every
    /// recorded model (a trace lists the node's GPUs, the work may run on
    /// one of them).
    pub fn from_devices(
        devices: impl IntoIterator<Item = (u64, String)>,
        used: &[u64],
        from: GpuSource,
    ) -> SideIdentity {
        let device_models: BTreeMap<u64, String> = devices
            .into_iter()
            .filter(|(_, n)| !n.trim().is_empty())
            .collect();
        let used_models: Option<Vec<String>> =
            used.iter().map(|d| device_models.get(d).cloned()).collect();
        let mut gpus = match used_models {
            Some(v) if !v.is_empty() => v,
            _ => device_models.values().cloned().collect(),
        };
        gpus.sort();
        gpus.dedup();
        SideIdentity {
            gpus_from: (!gpus.is_empty()).then_some(from),
            gpus,
            device_models,
            ..SideIdentity::default()
        }
    }

    /// An nsys export's side: `TARGET_INFO_GPU` and the rank its
    /// environment records (a trace's AMD devices are not in the
    /// timeline's GPU records: read traces with [`SideIdentity::from_trace`]).
    pub fn from_timeline(t: &Timeline) -> SideIdentity {
        let mut s = SideIdentity::from_devices(
            t.info
                .identity
                .gpus
                .iter()
                .filter_map(|g| Some((u64::try_from(g.id).ok()?, g.name.clone()))),
            &used_devices(t),
            GpuSource::TargetInfoGpu,
        );
        s.rank = t.info.identity.rank.map(|r| r.0);
        s
    }

    /// A PyTorch trace's side: every `deviceProperties` entry (AMD ones
    /// too: the model is compared, whatever the compute capability field
    /// holds), and `distributedInfo`'s rank and world size.
    pub fn from_trace(trace: &KinetoTrace) -> SideIdentity {
        let mut s = SideIdentity::from_devices(
            // At most as many as the timeline keeps (a hostile trace may list millions).
            trace
                .devices
                .iter()
                .take(crate::timeline::MAX_GPUS)
                .filter_map(|d| Some((u64::try_from(d.id.unwrap_or(0)).ok()?, d.name.clone()?))),
            &used_devices(&trace.timeline),
            GpuSource::DeviceProperties,
        );
        s.rank = trace.distributed.as_ref().and_then(|d| d.rank);
        s.world_size = trace.distributed.as_ref().and_then(|d| d.world_size);
        s
    }

    /// An ncu CSV's side: its device names.
    pub fn from_hints(h: &DeviceHints) -> SideIdentity {
        SideIdentity::from_devices(
            h.device_names
                .iter()
                .enumerate()
                .map(|(i, n)| (i as u64, n.clone())),
            &[],
            GpuSource::NcuCsv,
        )
    }

    /// The normalised models, for comparing.
    fn keys(&self) -> Vec<String> {
        let mut k: Vec<String> = self.gpus.iter().map(|g| model_key(g)).collect();
        k.sort();
        k.dedup();
        k
    }

    /// The model of device `id`, normalised (`""` when not recorded), the
    /// first part of the key devices are matched by.
    pub fn match_model(&self, id: u64) -> String {
        self.device_models
            .get(&id)
            .map(|m| model_key(m))
            .unwrap_or_default()
    }

    /// `rank 3 of 8`, `rank 1`, or `None`.
    pub fn rank_words(&self) -> Option<String> {
        match (self.rank, self.world_size) {
            (Some(r), Some(w)) => Some(format!("rank {r} of {w}")),
            (Some(r), None) => Some(format!("rank {r}")),
            (None, Some(w)) => Some(format!("one of {w} ranks")),
            (None, None) => None,
        }
    }

    /// `NVIDIA A100-PG509-200, rank 3 of 8` (or `GPU not recorded`).
    pub fn words(&self) -> String {
        let gpus = if self.gpus.is_empty() {
            "GPU not recorded".to_string()
        } else {
            self.gpus.join(" + ")
        };
        match self.rank_words() {
            Some(r) => format!("{gpus}, {r}"),
            None => gpus,
        }
    }
}

/// Both sides' identities and what the comparison made of them.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Identity {
    /// The base run.
    pub base: SideIdentity,
    /// The new run.
    pub new: SideIdentity,
    /// True when the sides ran on different GPU models and
    /// `--allow-different-gpus` (or, for ncu, `--own-roofs`) let the diff
    /// run: every verdict compares two GPUs, not two versions of the code.
    pub cross_gpu: bool,
    /// True when both sides record a GPU model (so the models were checked).
    pub gpus_checked: bool,
}

/// Two sides on different GPU models, not allowed: exit 2. The sentence
/// names both models (`NVIDIA A100-PG509-200 vs Tesla V100-SXM2-16GB`),
/// both files, where each recorded its model, and the flag.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct DifferentGpus(pub String);

impl BadInput for DifferentGpus {}

/// A note about the identities that does not refuse the diff.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IdentityNote {
    /// The sides ran on different GPU models and that was allowed.
    CrossGpu,
    /// A side does not record its GPU model: not checked.
    GpuUnknown,
    /// The sides record different ranks of jobs of one size.
    OtherRank,
    /// The sides record different world sizes.
    OtherWorldSize,
}

/// Compares the two sides: different GPU models are refused unless
/// `allow_different`; what is allowed or unknown comes back as notes.
pub fn compare(
    base_file: &str,
    new_file: &str,
    base: SideIdentity,
    new: SideIdentity,
    allow_different: bool,
) -> Result<(Identity, Vec<(IdentityNote, String)>), DifferentGpus> {
    let mut notes = Vec::new();
    let checked = !base.gpus.is_empty() && !new.gpus.is_empty();
    let differ = checked && base.keys() != new.keys();
    if differ && !allow_different {
        let from = |s: &SideIdentity| s.gpus_from.map_or("", GpuSource::words);
        return Err(DifferentGpus(format!(
            "different GPUs: {} vs {} ({base_file}: {}; {new_file}: {}): a diff compares two runs of one program on one GPU model, so every change would mix the code with the card; profile both runs on the same GPU, or pass --allow-different-gpus to compare across GPUs (the report and every verdict are then marked cross-GPU)",
            base.gpus.join(" + "),
            new.gpus.join(" + "),
            from(&base),
            from(&new)
        )));
    }
    if differ {
        notes.push((
            IdentityNote::CrossGpu,
            format!(
                "cross-GPU: {} vs {}: every change mixes the code with the card (--allow-different-gpus); devices are matched by order, not model",
                base.gpus.join(" + "),
                new.gpus.join(" + ")
            ),
        ));
    } else if !checked {
        let unknown: Vec<&str> = [(base_file, &base), (new_file, &new)]
            .into_iter()
            .filter(|(_, s)| s.gpus.is_empty())
            .map(|(f, _)| f)
            .collect();
        notes.push((
            IdentityNote::GpuUnknown,
            format!(
                "GPU model not recorded in {}: not checked that both runs used one GPU model",
                unknown.join(" and ")
            ),
        ));
    }
    if let (Some(wb), Some(wa)) = (base.world_size, new.world_size) {
        if wb != wa {
            notes.push((
                IdentityNote::OtherWorldSize,
                format!(
                    "different job sizes: the base is {} and the new run {}: per-rank work and communication change with the world size, not only with the code",
                    base.rank_words().unwrap_or_default(),
                    new.rank_words().unwrap_or_default()
                ),
            ));
        }
    }
    let same_size = base.world_size == new.world_size;
    if let (Some(rb), Some(ra)) = (base.rank, new.rank) {
        if rb != ra && same_size {
            notes.push((
                IdentityNote::OtherRank,
                format!(
                    "the base is rank {rb} and the new run rank {ra}: ranks of one job can differ in their work (pipeline stages, rank 0's logging); compare the same rank to be sure"
                ),
            ));
        }
    }
    Ok((
        Identity {
            cross_gpu: differ,
            gpus_checked: checked,
            base,
            new,
        },
        notes,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn side(gpus: &[&str], rank: Option<u32>, world: Option<u32>) -> SideIdentity {
        let mut s = SideIdentity::from_devices(
            gpus.iter()
                .enumerate()
                .map(|(i, g)| (i as u64, g.to_string())),
            &[],
            GpuSource::DeviceProperties,
        );
        s.rank = rank;
        s.world_size = world;
        s
    }

    #[test]
    fn models_compare_without_the_vendor_prefix_drivers_add() {
        assert_eq!(
            model_key("NVIDIA  A100-SXM4-40GB"),
            model_key("A100-SXM4-40GB")
        );
        assert_eq!(
            model_key("Tesla V100-SXM2-16GB"),
            model_key("v100-sxm2-16gb")
        );
        assert_ne!(
            model_key("NVIDIA A100-SXM4-40GB"),
            model_key("NVIDIA A100-SXM4-80GB")
        );
    }

    #[test]
    fn different_models_are_refused_naming_both_unless_allowed() {
        let a = side(&["NVIDIA A100-PG509-200"], Some(3), Some(8));
        let v = side(&["Tesla V100-SXM2-16GB"], Some(1), Some(2));
        let e = compare("a.json", "v.json", a.clone(), v.clone(), false).unwrap_err();
        assert!(
            e.to_string()
                .contains("NVIDIA A100-PG509-200 vs Tesla V100-SXM2-16GB"),
            "{e}"
        );
        let (id, notes) = compare("a.json", "v.json", a, v, true).unwrap();
        assert!(id.cross_gpu);
        let kinds: Vec<&IdentityNote> = notes.iter().map(|n| &n.0).collect();
        assert_eq!(
            kinds,
            [&IdentityNote::CrossGpu, &IdentityNote::OtherWorldSize]
        );
    }

    #[test]
    fn a_side_without_models_is_noted_not_refused_and_ranks_are_compared() {
        let a = side(&[], Some(0), Some(128));
        let b = side(&[], Some(1), Some(128));
        let (id, notes) = compare("a", "b", a, b, false).unwrap();
        assert!(!id.cross_gpu && !id.gpus_checked);
        let kinds: Vec<&IdentityNote> = notes.iter().map(|n| &n.0).collect();
        assert_eq!(kinds, [&IdentityNote::GpuUnknown, &IdentityNote::OtherRank]);
    }

    #[test]
    fn the_models_of_the_devices_used_count_when_all_are_recorded() {
        let s = SideIdentity::from_devices(
            [(0, "A".to_string()), (1, "B".to_string())],
            &[1],
            GpuSource::TargetInfoGpu,
        );
        assert_eq!(s.gpus, ["B"]);
        // Device 7 is not recorded: every recorded model counts.
        let s = SideIdentity::from_devices(
            [(0, "A".to_string()), (1, "B".to_string())],
            &[7],
            GpuSource::TargetInfoGpu,
        );
        assert_eq!(s.gpus, ["A", "B"]);
    }
}
