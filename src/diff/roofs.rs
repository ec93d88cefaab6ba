//! The roofs of an ncu diff, and the checks that come with choosing them:
//! every CSV against `--gpu` (the first side that contradicts it is named),
//! the two sides' GPU models against each other ([`super::identity`]) and
//! their compute capabilities (unless `--own-roofs`), then one set of roofs
//! for both (the base side's, or `--gpu`/`--roofs`) or each its own.

use super::identity::{self, Identity, IdentityNote, SideIdentity};
use super::ncu_side::NcuSide;
use crate::error::InputError;
use crate::ncu::NcuCsv;
use crate::roofline::{analyze, GroupBy};
use crate::roofs::{self, GpuInfo, Roofs, RoofsChoice};

/// Where the roofs of an ncu diff come from.
#[derive(Debug, Clone, PartialEq)]
pub enum DiffRoofs {
    /// One choice, resolved on the base side and applied to both.
    Shared(RoofsChoice),
    /// Each side its own (`--own-roofs`: a port from one GPU to another).
    Own,
}

/// How the roofs are chosen for one diff.
#[derive(Debug, Clone, PartialEq)]
pub struct RoofsPlan {
    /// The choice.
    pub roofs: DiffRoofs,
    /// True when `--gpu`/`--roofs`/`--peak-dram-bw` was given (refused
    /// for JSON sides, which carry their roofs).
    pub given: bool,
    /// `--allow-different-gpus`.
    pub allow_different_gpus: bool,
}

/// One ncu side as read: a CSV still to analyse, or a JSON report's side.
pub enum NcuInput {
    /// An ncu CSV (or an imported `.ncu-rep`), checked analysable and timed.
    Csv(Box<NcuCsv>),
    /// A `rooftrace ncu --format json` report.
    Side(Box<NcuSide>),
}

/// A CSV side with its roofs chosen, ready to analyse.
enum Ready {
    Csv(Box<NcuCsv>, Box<Roofs>, GpuInfo),
    Side(NcuSide),
}

impl Ready {
    fn into_side(self) -> NcuSide {
        match self {
            Ready::Side(s) => s,
            Ready::Csv(csv, roofs, gpu) => {
                NcuSide::from_report(&analyze(&csv, &roofs, gpu, GroupBy::Launch), "ncu csv")
            }
        }
    }
}

/// The two sides analysed, and what their inputs say about their GPUs.
pub struct NcuSides {
    /// The base side.
    pub base: NcuSide,
    /// The new side.
    pub new: NcuSide,
    /// The two sides' GPUs (models from the CSVs' device names).
    pub identity: Identity,
    /// What the identity check noted.
    pub notes: Vec<(IdentityNote, String)>,
}

/// Checks both CSVs against `--gpu` and each other, chooses the roofs and
/// analyses both sides (at once, one thread each).
pub fn ncu_sides(
    plan: &RoofsPlan,
    before: NcuInput,
    after: NcuInput,
) -> Result<NcuSides, InputError> {
    let (mut base_id, mut new_id) = (SideIdentity::default(), SideIdentity::default());
    let file = |i: &NcuInput| match i {
        NcuInput::Csv(c) => c.file.clone(),
        NcuInput::Side(s) => s.info.input.clone(),
    };
    let (base_file, new_file) = (file(&before), file(&after));
    let mut ccs: Option<(Vec<String>, Vec<String>)> = None;
    if let (NcuInput::Csv(b), NcuInput::Csv(a)) = (&before, &after) {
        // `--gpu` first, so that its error names the side it contradicts.
        if let DiffRoofs::Shared(choice @ RoofsChoice::Gpu(_)) = &plan.roofs {
            for csv in [b, a] {
                roofs::choose::<InputError>(choice, &csv.device_hints(), || {
                    Ok(csv.roofs_from_peaks()?)
                })?;
            }
        }
        let (hints_before, hints_after) = (b.device_hints(), a.device_hints());
        base_id = SideIdentity::from_hints(&hints_before);
        new_id = SideIdentity::from_hints(&hints_after);
        let words = |h: &crate::roofs::DeviceHints| -> Vec<String> {
            h.compute_capabilities
                .iter()
                .map(|c| c.to_string())
                .collect()
        };
        ccs = Some((words(&hints_before), words(&hints_after)));
        let allowed = plan.allow_different_gpus || plan.roofs == DiffRoofs::Own;
        if !allowed {
            identity::compare(&b.file, &a.file, base_id.clone(), new_id.clone(), false)?;
            if let Some(why) = roofs::choose::contradiction(&hints_before, &hints_after) {
                return Err(InputError::new(format!(
                    "{why}: a diff compares two runs on one GPU; pass --allow-different-gpus to compare across GPUs (with --own-roofs, each side against its own roofs)"
                )));
            }
        }
    }
    let allowed = plan.allow_different_gpus || plan.roofs == DiffRoofs::Own;
    let (identity, mut notes) = identity::compare(&base_file, &new_file, base_id, new_id, allowed)?;
    // Without names the compute capabilities were still compared (above).
    if let Some((cb, ca)) = ccs.filter(|(b, a)| !b.is_empty() && !a.is_empty() && !allowed) {
        for (kind, message) in &mut notes {
            if *kind == IdentityNote::GpuUnknown {
                message.push_str(&format!(
                    "; their compute capabilities were compared instead ({} and {})",
                    cb.join(", "),
                    ca.join(", ")
                ));
            }
        }
    }
    let mut shared: Option<(Roofs, GpuInfo)> = None;
    let mut ready = |r: NcuInput| -> Result<Ready, InputError> {
        let csv = match r {
            NcuInput::Side(s) if plan.given => {
                return Err(InputError::new(format!(
                    "{}: --gpu/--roofs/--peak-dram-bw apply to ncu CSVs; a JSON report carries the roofs it was analysed with (re-run `rooftrace ncu` with the roofs you want)",
                    s.info.input
                )))
            }
            NcuInput::Side(s) => return Ok(Ready::Side(*s)),
            NcuInput::Csv(csv) => csv,
        };
        let hints = csv.device_hints();
        let peaks = || Ok(csv.roofs_from_peaks()?);
        let (roofs, gpu) = match (&plan.roofs, &shared) {
            // Each CSV with --gpu is checked against it (its own notes too).
            (DiffRoofs::Shared(choice @ RoofsChoice::Gpu(_)), _) => {
                roofs::choose::<InputError>(choice, &hints, peaks)?
            }
            (DiffRoofs::Shared(_), Some(chosen)) => chosen.clone(),
            (how, _) => {
                let choice = match how {
                    DiffRoofs::Shared(c) => c.clone(),
                    DiffRoofs::Own => RoofsChoice::FromCsv,
                };
                let chosen = roofs::choose::<InputError>(&choice, &hints, peaks)?;
                if matches!(how, DiffRoofs::Shared(_)) {
                    shared = Some(chosen.clone());
                }
                chosen
            }
        };
        Ok(Ready::Csv(csv, Box::new(roofs), gpu))
    };
    let (ready_before, ready_after) = (ready(before)?, ready(after)?);
    let (base, new) = std::thread::scope(|s| {
        let base_thread = s.spawn(|| ready_before.into_side());
        let new = ready_after.into_side();
        base_thread.join().map(|base| (base, new))
    })
    .map_err(|_| InputError::new("analysing the base side panicked"))?;
    if !base.same_roofs(&new) && plan.roofs != DiffRoofs::Own {
        return Err(InputError::new(format!(
            "{} and {} were analysed against different roofs ({} vs {}): re-run `rooftrace ncu` on both with one --gpu/--roofs, or pass --own-roofs to compare anyway",
            base.info.input,
            new.info.input,
            base.gpu.as_deref().unwrap_or("?"),
            new.gpu.as_deref().unwrap_or("?")
        )));
    }
    Ok(NcuSides {
        base,
        new,
        identity,
        notes,
    })
}
