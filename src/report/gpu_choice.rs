//! How a report says the GPU was decided: the words of a
//! [`GpuChoice`](crate::roofs::GpuChoice) (`device name "NVIDIA H200" in the
//! CSV`, `--gpu`, `nothing: the file states …`), in every format, and the
//! JSON of a [`GpuInfo`] (`{key, name, chosen_by, notes, candidates}`, the
//! sentence in `chosen_by`), so every report that carries a GPU writes it
//! the same way.

use crate::roofs::decision::join_facts;
use crate::roofs::{GpuChoice, GpuInfo, UndecidedRoofs};
use serde::ser::SerializeStruct;

/// How the GPU was chosen, in words: `--gpu`, `device name "…" in the CSV`,
/// `compute capability 8.9, 128 SMs in the CSV`, `--roofs FILE`,
/// `--roofs ncu`, `command line (--peak-dram-bw, --peak)`,
/// `--project-to KEY`, or `nothing: the file states …`.
pub fn chosen_by(choice: &GpuChoice) -> String {
    match choice {
        GpuChoice::Flag => "--gpu".to_string(),
        GpuChoice::DeviceName { name, source } => {
            format!("device name {name:?} in {}", source.words())
        }
        GpuChoice::Facts { facts, source } => {
            format!("{} in {}", join_facts(facts), source.words())
        }
        GpuChoice::File(path) => format!("--roofs {}", path.display()),
        GpuChoice::NcuPeaks => "--roofs ncu".to_string(),
        GpuChoice::CommandLine => "command line (--peak-dram-bw, --peak)".to_string(),
        GpuChoice::ProjectTo(target) => format!("--project-to {target}"),
        GpuChoice::Undecided { seen, roofs, .. } => match roofs {
            UndecidedRoofs::NcuPeaks => format!(
                "nothing: the file states {seen}; measured against the file's own ncu peaks (--roofs ncu)"
            ),
            UndecidedRoofs::None => format!("nothing: the file states {seen}; no roofs"),
        },
    }
}

/// A report's GPU in JSON: `key`, `name`, `chosen_by` (the words of
/// [`chosen_by`]), `notes` and `candidates` when not empty — the shape
/// every JSON schema of docs/ documents. Implemented here, not derived in
/// `roofs/`, so that the decision stays data there and its words live with
/// the other renderers.
impl serde::Serialize for GpuInfo {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let candidates = self.candidates();
        let fields = 3 + usize::from(!self.notes.is_empty()) + usize::from(!candidates.is_empty());
        let mut st = s.serialize_struct("GpuInfo", fields)?;
        st.serialize_field("key", &self.key)?;
        st.serialize_field("name", &self.name)?;
        st.serialize_field("chosen_by", &chosen_by(&self.chosen_by))?;
        if !self.notes.is_empty() {
            st.serialize_field("notes", &self.notes)?;
        }
        if !candidates.is_empty() {
            st.serialize_field("candidates", candidates)?;
        }
        st.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::roofs::{Fact, HintSource};
    use crate::units::ComputeCapability;

    #[test]
    fn json_keeps_the_sentence_and_candidates_once() {
        let gpu = GpuInfo {
            key: None,
            name: crate::roofs::UNDECIDED.to_string(),
            chosen_by: GpuChoice::Undecided {
                seen: "compute capability 8.9, shared by l40s, l40".into(),
                candidates: vec!["l40s".into(), "l40".into()],
                roofs: UndecidedRoofs::None,
            },
            notes: Vec::new(),
        };
        let v = serde_json::to_value(&gpu).unwrap();
        assert_eq!(
            v["chosen_by"],
            "nothing: the file states compute capability 8.9, shared by l40s, l40; no roofs"
        );
        assert_eq!(v["candidates"], serde_json::json!(["l40s", "l40"]));
        assert!(v.get("notes").is_none(), "{v}");
        let facts = GpuChoice::Facts {
            facts: vec![
                Fact::ComputeCapability(ComputeCapability::new(8, 9)),
                Fact::SmCount(128),
            ],
            source: HintSource::Csv,
        };
        assert_eq!(
            chosen_by(&facts),
            "compute capability 8.9, 128 SMs in the CSV"
        );
    }
}
