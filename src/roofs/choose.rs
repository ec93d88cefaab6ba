//! Choosing the roofs of a run (policy): `--gpu KEY`, `--roofs FILE`,
//! `--roofs ncu`, else detection from what the input says about its device
//! (name, compute capability, SM count, L2 size, memory bus width, memory
//! clock, memory bandwidth). `--gpu`, and the table GPU a `--roofs FILE`
//! names, are checked against the same facts and ncu's own peaks
//! (`check`): a fact that rules the GPU out is an error. Takes plain data
//! ([`DeviceHints`]), so the parsers fill it and nothing here knows their
//! types; the decision is data ([`GpuInfo`], [`GpuChoice`]) that `report/`
//! renders.

use super::check::{self, BANDWIDTH_TOLERANCE, L2_TOLERANCE};
use super::decision::{Fact, GpuChoice, GpuInfo, UndecidedRoofs, UNDECIDED};
use super::gpus::{self, GpuSpec, HostLink};
use super::hints::DeviceHints;
use super::model::GpuContradiction;
use super::{Roofs, RoofsError};
use crate::units::ComputeCapability;
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
    /// Roofs given on the command line (`--peak-dram-bw`, `--peak`).
    Flags(Box<Roofs>),
    /// Device name or compute capability in the input.
    FromCsv,
}

fn from_table(g: &GpuSpec, chosen_by: GpuChoice, notes: Vec<String>) -> (Roofs, GpuInfo) {
    (
        g.default_roofs(),
        GpuInfo {
            key: Some(g.key.to_string()),
            name: g.name.to_string(),
            chosen_by,
            notes,
        },
    )
}

/// Notes on a GPU decided from the input itself: the device names that are
/// not the one that decided (`deciding`) and that the table does not know
/// as `g` (another GPU, or none it holds), and fewer SMs than `g` has.
fn other_names(g: &GpuSpec, hints: &DeviceHints, deciding: Option<&str>) -> Vec<String> {
    let mut notes: Vec<String> = check::part_note(g, hints).into_iter().collect();
    for name in hints
        .device_names
        .iter()
        .filter(|n| Some(n.as_str()) != deciding)
    {
        match gpus::by_device_name(name) {
            Some(n) if n.key == g.key => {}
            Some(n) => notes.push(format!(
                "{} names its device {name:?} ({}), not {}",
                hints.file, n.key, g.key
            )),
            None => notes.push(check::unknown_name_note(g, hints, name)),
        }
    }
    notes
}

/// True when none of the input's compute capabilities is `g`'s (a file
/// from several devices may include it); false when it states none.
fn cc_rules_out(g: &GpuSpec, hints: &DeviceHints) -> bool {
    let ccs = &hints.compute_capabilities;
    !ccs.is_empty() && !ccs.contains(&g.compute_capability)
}

/// `g` checked against the input ([`check::check`]): its notes, or the
/// error naming the fact, both values and the GPUs that fit.
fn checked(
    chosen: String,
    target: String,
    g: &GpuSpec,
    hints: &DeviceHints,
) -> Result<Vec<String>, RoofsError> {
    check::check(g, hints).map_err(|c| {
        RoofsError::GpuContradicted(Box::new(GpuContradiction {
            chosen,
            target,
            fact: c.fact.to_string(),
            gpu_value: c.gpu_value,
            file: hints.file.clone(),
            file_value: c.file_value,
            why: c.why,
            // The GPUs every fact, checked the same way, leaves.
            candidates: match_facts(hints)
                .0
                .iter()
                .filter(|c| check::check(c, hints).is_ok())
                .map(|c| c.key.to_string())
                .collect(),
            same_cc: gpus::all()
                .iter()
                .filter(|c| hints.compute_capabilities.contains(&c.compute_capability))
                .map(|c| c.key.to_string())
                .collect(),
        }))
    })
}

/// The table GPU a roofs file is for, by its `gpu` field: a key of the
/// table, a device name it knows, or one of its names; `None` for a GPU the
/// table does not hold (then nothing of it can be checked).
fn roofs_file_gpu(roofs: &Roofs) -> Option<&'static GpuSpec> {
    gpus::by_key(roofs.gpu.trim())
        .or_else(|| gpus::by_device_name(&roofs.gpu))
        .or_else(|| gpus::all().iter().find(|g| g.name == roofs.gpu.trim()))
}

/// Where two inputs' own records say they ran on different GPUs: no
/// compute capability in common, or device names that the built-in table
/// knows as different GPUs. One sentence naming both files, or `None` when
/// they agree or a side does not say.
pub fn contradiction(base: &DeviceHints, new: &DeviceHints) -> Option<String> {
    let (cc_base, cc_new) = (&base.compute_capabilities, &new.compute_capabilities);
    let words = |ccs: &[ComputeCapability]| {
        ccs.iter()
            .map(|c| c.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    if !cc_base.is_empty() && !cc_new.is_empty() && !cc_base.iter().any(|c| cc_new.contains(c)) {
        return Some(format!(
            "{} was recorded on compute capability {} and {} on {}: not the same GPU",
            base.file,
            words(cc_base),
            new.file,
            words(cc_new)
        ));
    }
    let keys = |h: &DeviceHints| -> Vec<&'static str> {
        let mut k: Vec<&'static str> = h
            .device_names
            .iter()
            .filter_map(|n| gpus::by_device_name(n))
            .map(|g| g.key)
            .collect();
        k.dedup();
        k
    };
    let (keys_base, keys_new) = (keys(base), keys(new));
    (!keys_base.is_empty()
        && !keys_new.is_empty()
        && !keys_base.iter().any(|k| keys_new.contains(k)))
    .then(|| {
        format!(
            "{} names its device {} ({}) and {} {} ({}): not the same GPU",
            base.file,
            base.device_names.join(", "),
            keys_base.join(", "),
            new.file,
            new.device_names.join(", "),
            keys_new.join(", ")
        )
    })
}

/// Picks the roofs: `--gpu` (checked against every fact of `hints`, its
/// ncu peaks included), `--roofs FILE` (checked the same way when its GPU
/// is one of the table), `--roofs ncu` (built by `from_peaks`, called only
/// for that choice), else the device name in `hints`, else its facts when
/// they name one GPU.
/// The roofs must have a DRAM bandwidth (every roofline needs it).
pub fn choose<E: From<RoofsError>>(
    choice: &RoofsChoice,
    hints: &DeviceHints,
    from_peaks: impl FnOnce() -> Result<Roofs, E>,
) -> Result<(Roofs, GpuInfo), E> {
    let plain = |roofs: Roofs, chosen_by: GpuChoice, notes: Vec<String>| {
        let gpu = GpuInfo {
            key: None,
            name: roofs.gpu.clone(),
            chosen_by,
            notes,
        };
        (roofs, gpu)
    };
    let (roofs, gpu) = match choice {
        RoofsChoice::Gpu(key) => {
            let g = gpus::by_key(key).ok_or_else(|| RoofsError::UnknownGpu {
                key: key.clone(),
                choices: crate::suggest::did_you_mean_among(
                    key,
                    &gpus::all().iter().map(|g| g.key).collect::<Vec<_>>(),
                    "`rooftrace ncu --list-gpus`",
                ),
            })?;
            let notes = checked(format!("--gpu {}", g.key), g.key.to_string(), g, hints)?;
            from_table(g, GpuChoice::Flag, notes)
        }
        RoofsChoice::File(path) => {
            let roofs = Roofs::from_file(path)?;
            // Roofs without DRAM are refused below, whatever their GPU.
            let notes = match roofs_file_gpu(&roofs).filter(|_| roofs.dram().is_some()) {
                Some(g) => {
                    let chosen = format!(
                        "--roofs {} (for {}: the table's {})",
                        path.display(),
                        roofs.gpu,
                        g.key
                    );
                    checked(chosen, path.display().to_string(), g, hints)?
                }
                None => Vec::new(),
            };
            plain(roofs, GpuChoice::File(path.clone()), notes)
        }
        RoofsChoice::Ncu => plain(from_peaks()?, GpuChoice::NcuPeaks, Vec::new()),
        RoofsChoice::Flags(roofs) => plain((**roofs).clone(), GpuChoice::CommandLine, Vec::new()),
        RoofsChoice::FromCsv => detect(hints)?,
    };
    if roofs.dram().is_none() {
        let chosen_by = match &gpu.chosen_by {
            GpuChoice::File(p) => format!("--roofs {}", p.display()),
            GpuChoice::NcuPeaks => "--roofs ncu".to_string(),
            GpuChoice::CommandLine => "command line (--peak-dram-bw, --peak)".to_string(),
            _ => "the built-in table".to_string(),
        };
        return Err(RoofsError::NoDram {
            gpu: roofs.gpu,
            chosen_by,
        }
        .into());
    }
    Ok((roofs, gpu))
}

/// The host link a timeline's copies crossed: no export records it, so it
/// is the table entry's of the GPU `--gpu` names (checked against the
/// input like any `--gpu`), else of the GPU the input's records decide (as
/// `budget` chooses its roofs), else unknown with why. An `Err` only for a
/// `--gpu` the input contradicts or the table lacks.
pub fn host_link(gpu_flag: Option<&str>, hints: &DeviceHints) -> Result<LinkChoice, RoofsError> {
    let what = hints.source.input_kind();
    let records_nothing = hints.device_names.is_empty()
        && hints.compute_capabilities.is_empty()
        && hints.sm_counts.is_empty()
        && hints.l2_bytes.is_empty()
        && hints.memory_bandwidths_bytes_per_s.is_empty();
    let choice = match gpu_flag {
        Some(key) => RoofsChoice::Gpu(key.to_string()),
        None if records_nothing => {
            return Ok(LinkChoice::Unknown(format!(
                "the {what} records no {}; give --gpu KEY",
                hints.source.nothing_recorded()
            )))
        }
        None => RoofsChoice::FromCsv,
    };
    // A timeline carries no ncu peaks.
    let no_peaks = || {
        Err(RoofsError::NoDram {
            gpu: String::new(),
            chosen_by: String::new(),
        })
    };
    let info = match choose::<RoofsError>(&choice, hints, no_peaks) {
        Ok((_, info)) => info,
        Err(e) if gpu_flag.is_some() => return Err(e),
        // Said in a host link's own words: the roofs' remedies
        // (`--roofs`) mean nothing here.
        Err(_) => return Ok(LinkChoice::Unknown(undecided_link(what, hints))),
    };
    let Some(spec) = info.key.as_deref().and_then(gpus::by_key) else {
        return Ok(LinkChoice::Unknown("no table GPU was chosen".to_string()));
    };
    Ok(match spec.facts.host_link {
        Some(link) => LinkChoice::Known {
            gpu: spec,
            link,
            chosen_by: info.chosen_by,
        },
        None => LinkChoice::Unknown(format!(
            "the {} table entry has no source for its host link",
            spec.key
        )),
    })
}

/// Why a timeline's host link is unknown when its GPU records decide no
/// single card: the recorded GPU, and the table's cards of its compute
/// capability to choose from with `--gpu`.
fn undecided_link(what: &str, hints: &DeviceHints) -> String {
    let mut recorded = hints.device_names.join(", ");
    if !hints.compute_capabilities.is_empty() {
        let ccs: Vec<String> = hints
            .compute_capabilities
            .iter()
            .map(|c| c.to_string())
            .collect();
        recorded = format!("{recorded} (compute capability {})", ccs.join(", "));
    }
    let same: Vec<&str> = gpus::all()
        .iter()
        .filter(|g| hints.compute_capabilities.contains(&g.compute_capability))
        .map(|g| g.key)
        .collect();
    let hint = if same.is_empty() {
        "give --gpu KEY of a card with the same host link".to_string()
    } else {
        format!(
            "give --gpu KEY of a card with the same host link (the table's cards of that compute capability: {})",
            same.join(", ")
        )
    };
    format!("the {what}'s GPU {recorded} decides no single card of the built-in table; {hint}")
}

/// The host link of a timeline ([`host_link`]), or why it is unknown.
#[derive(Debug, Clone)]
pub enum LinkChoice {
    /// The link of the table entry of the chosen GPU.
    Known {
        /// The table entry.
        gpu: &'static GpuSpec,
        /// Its host link, with its source.
        link: HostLink,
        /// How the GPU was chosen.
        chosen_by: GpuChoice,
    },
    /// Unknown (not zero), and why.
    Unknown(String),
}

/// Memory clocks closer than this fraction to a GPU's match it: the file's
/// value may be measured while the kernel runs (ncu's `Memory Frequency`),
/// the table's is the CUDA attribute.
const MEMORY_CLOCK_FIT: f64 = 0.10;

/// How much worse than the best fit another candidate's fit may be and
/// stay (fraction): cards of one silicon differ in memory clock by 5-10 %
/// (A40 7250 vs RTX A6000 8000 MHz), more than a measured clock is off.
const NEAREST_SLACK: f64 = 0.02;

/// Keeps the candidates a fact fits best, and says whether the fact was
/// used. `error` is the relative distance between the fact and a GPU's
/// value, `None` where the table does not know the value (those stay
/// candidates). A GPU fits within `tolerance`; of those, the ones within
/// `slack` of the nearest stay. A fact that no known value fits is not
/// used: it may be a clock measured under a power state, not a reason to
/// rule out every GPU.
fn narrow(
    c: &mut Vec<&'static GpuSpec>,
    tolerance: f64,
    slack: f64,
    error: impl Fn(&GpuSpec) -> Option<f64>,
) -> bool {
    let best = c
        .iter()
        .filter_map(|g| error(g))
        .filter(|e| *e <= tolerance)
        .fold(f64::INFINITY, f64::min);
    if c.len() < 2 || !best.is_finite() {
        return false;
    }
    let before = c.len();
    c.retain(|g| error(g).is_none_or(|e| e <= tolerance && e <= best + slack));
    c.len() < before
}

/// The GPUs of the table consistent with every fact in `hints` but the
/// device name, and the facts used, in words. A fact with several distinct
/// values (several devices) is not used. Compute capability, SM count, L2
/// size and bus width are device attributes and rule GPUs out; the memory
/// clock and bandwidth only narrow the candidates ([`narrow`]).
fn match_facts(hints: &DeviceHints) -> (Vec<&'static GpuSpec>, Vec<Fact>) {
    let mut used = Vec::new();
    let mut c: Vec<&'static GpuSpec> = gpus::all().iter().collect();
    if let [cc] = hints.compute_capabilities.as_slice() {
        c.retain(|g| g.compute_capability == *cc);
        used.push(Fact::ComputeCapability(*cc));
    }
    if let [sm] = hints.sm_counts.as_slice() {
        // A GPU whose SM count the table does not know stays a candidate.
        c.retain(|g| g.sm_count.is_none_or(|n| n == *sm));
        used.push(Fact::SmCount(*sm));
    }
    if let [l2] = hints.l2_bytes.as_slice() {
        let l2f = *l2 as f64;
        c.retain(|g| {
            g.l2_bytes
                .is_none_or(|b| ((b as f64) - l2f).abs() <= L2_TOLERANCE * l2f)
        });
        used.push(Fact::L2Bytes(*l2));
    }
    if let [bus] = hints.bus_widths_bits.as_slice() {
        c.retain(|g| g.bus_width_bits.is_none_or(|b| b == *bus));
        used.push(Fact::BusWidthBits(*bus));
    }
    if let [bw] = hints.memory_bandwidths_bytes_per_s.as_slice() {
        let bwf = *bw as f64;
        let error = |g: &GpuSpec| g.datasheet_dram().map(|d| (d - bwf).abs() / d);
        // Every GPU within the tolerance stays: datasheets round their
        // figures (H200: 4.8 TB/s stated, 4.92 reported), so the nearest
        // is not the likeliest.
        if narrow(&mut c, BANDWIDTH_TOLERANCE, BANDWIDTH_TOLERANCE, error) {
            used.push(Fact::DramBandwidth(*bw));
        }
    }
    if !hints.memory_clocks_mhz.is_empty() {
        // Every clock the file states must fit: the worst one counts.
        let error = |g: &GpuSpec| {
            g.memory_clock_mhz.map(|m| {
                hints
                    .memory_clocks_mhz
                    .iter()
                    .map(|&f| (f as f64 - m).abs() / m)
                    .fold(0.0, f64::max)
            })
        };
        if narrow(&mut c, MEMORY_CLOCK_FIT, NEAREST_SLACK, error) {
            used.push(Fact::MemoryClocksMhz(hints.memory_clocks_mhz.clone()));
        }
    }
    (c, used)
}

/// [`match_facts`], then the facts [`check::check`] compares beyond those
/// (the DRAM peak the file's throughput percentage implies, ncu's own
/// peaks, a memory clock of another card): a candidate they contradict is
/// ruled out, as `--gpu` with it would be refused. They are named among the
/// facts used when they ruled one out; when they would rule out every
/// candidate they are not used (the check's error says why on `--gpu`).
fn checked_facts(hints: &DeviceHints) -> (Vec<&'static GpuSpec>, Vec<Fact>) {
    let (candidates, mut used) = match_facts(hints);
    let fit: Vec<&'static GpuSpec> = candidates
        .iter()
        .copied()
        .filter(|g| check::check(g, hints).is_ok())
        .collect();
    if fit.is_empty() || fit.len() == candidates.len() {
        return (candidates, used);
    }
    if let Some(b) = hints.implied_dram_peak_bytes_per_s {
        used.push(Fact::DramPeakAtLeast(b as u64));
    }
    if hints.ncu_peaks.is_some() {
        used.push(Fact::NcuPeaks);
    }
    (fit, used)
}

/// True when the table knows `g`'s value of every device attribute
/// (SM count, L2 size, bus width) that `hints` state once: a GPU that
/// stayed a candidate only because a value is unknown is not decided on.
fn confirmed(g: &GpuSpec, hints: &DeviceHints) -> bool {
    (hints.sm_counts.len() != 1 || g.sm_count.is_some())
        && (hints.l2_bytes.len() != 1 || g.l2_bytes.is_some())
        && (hints.bus_widths_bits.len() != 1 || g.bus_width_bits.is_some())
}

/// The GPU named by the device name in `hints`, else the one GPU of the
/// table consistent with its compute capability, SM count, L2 size, bus
/// width, memory clock and bandwidth ([`match_facts`]).
fn detect(hints: &DeviceHints) -> Result<(Roofs, GpuInfo), RoofsError> {
    for name in &hints.device_names {
        if let Some(g) = gpus::by_device_name(name) {
            if !cc_rules_out(g, hints) {
                let chosen_by = GpuChoice::DeviceName {
                    name: name.clone(),
                    source: hints.source,
                };
                // The name is the device: only other names are news.
                return Ok(from_table(g, chosen_by, other_names(g, hints, Some(name))));
            }
        }
    }
    let (candidates, used) = checked_facts(hints);
    if hints.device_names.is_empty() && !used.is_empty() {
        if let [g] = candidates.as_slice() {
            if confirmed(g, hints) {
                let chosen_by = GpuChoice::Facts {
                    facts: used,
                    source: hints.source,
                };
                return Ok(from_table(g, chosen_by, other_names(g, hints, None)));
            }
        }
    }
    // Nothing stated: every GPU of the table fits, and naming all of them
    // (52 keys, twice) tells nothing; the errors point at the list instead.
    // Else the closest few are named (issue 45 item 6), with how many fit.
    let by_clock = used.iter().any(|f| matches!(f, Fact::MemoryClocksMhz(_)));
    let ordered = super::closest::closest_first(&candidates, hints, by_clock);
    let keys: Vec<String> = if used.is_empty() && hints.device_names.is_empty() {
        Vec::new()
    } else {
        ordered
            .iter()
            .take(super::closest::NAMED)
            .map(|g| g.key.to_string())
            .collect()
    };
    let used_words = super::decision::join_facts(&used);
    let ccs: Vec<String> = hints
        .compute_capabilities
        .iter()
        .map(|c| c.to_string())
        .collect();
    let seen = match (hints.device_names.first(), used.is_empty()) {
        (Some(n), _) => match gpus::by_device_name(n) {
            Some(g) => format!(
                "device {n:?} ({}, compute capability {}) but compute capability {}: the name and the CC disagree",
                g.key,
                g.compute_capability,
                ccs.join(", ")
            ),
            None => format!("device {n:?}, which is not in the built-in table"),
        },
        (None, true) => "no device name, compute capability, SM count or L2 size".into(),
        (None, false) if keys.is_empty() => {
            format!("{used_words}, which no GPU of the built-in table has")
        }
        (None, false) if keys.len() == 1 => format!(
            "{used_words}, which only {} might have (the table does not know its SM count, L2 size or bus width to confirm it)",
            keys[0]
        ),
        (None, false) if candidates.len() <= super::closest::NAMED => format!(
            "{used_words}, shared by {}; {}",
            keys.join(", "),
            super::closest::what_would_decide(&candidates, hints)
        ),
        (None, false) => format!(
            "{used_words}, shared by {} GPUs of the table ({}: {}); {}",
            candidates.len(),
            super::closest::order_words(by_clock),
            keys.join(", "),
            super::closest::what_would_decide(&candidates, hints)
        ),
    };
    Err(RoofsError::UnknownDevice {
        file: hints.file.clone(),
        seen,
        candidates: keys,
    })
}

/// [`choose`], except that an input whose GPU cannot be decided (no device
/// name of the table, facts that fit several GPUs or none) still gets an
/// answer: the file's own ncu peaks when it carries them (`--roofs ncu`),
/// else no roofs at all (every roof-dependent figure unknown). The
/// [`GpuInfo`] says so ([`GpuChoice::Undecided`]), with the candidates that
/// fit.
pub fn choose_or_undecided<E: From<RoofsError>>(
    choice: &RoofsChoice,
    hints: &DeviceHints,
    from_peaks: impl FnOnce() -> Result<Roofs, E>,
) -> Result<(Roofs, GpuInfo), E> {
    if *choice != RoofsChoice::FromCsv {
        return choose(choice, hints, from_peaks);
    }
    let (seen, candidates) = match detect(hints) {
        Ok(r) => return Ok(r),
        Err(RoofsError::UnknownDevice {
            seen, candidates, ..
        }) => (seen, candidates),
        Err(e) => return Err(e.into()),
    };
    let peaks = from_peaks().ok().filter(|r| r.dram().is_some());
    let (roofs, undecided) = match peaks {
        Some(r) => (r, UndecidedRoofs::NcuPeaks),
        None => (
            Roofs::new(
                UNDECIDED,
                "none: the GPU was not decided and the file carries no ncu peaks",
            ),
            UndecidedRoofs::None,
        ),
    };
    Ok((
        roofs,
        GpuInfo {
            key: None,
            name: UNDECIDED.to_string(),
            chosen_by: GpuChoice::Undecided {
                seen,
                candidates,
                roofs: undecided,
            },
            notes: Vec::new(),
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::roofs::Fact;

    fn hints(names: &[&str], ccs: &[&str]) -> DeviceHints {
        DeviceHints {
            file: "t.csv".into(),
            device_names: names.iter().map(|s| s.to_string()).collect(),
            compute_capabilities: ccs
                .iter()
                .map(|s| ComputeCapability::parse(s).unwrap())
                .collect(),
            ..DeviceHints::default()
        }
    }

    /// A file without ncu peaks (`--roofs ncu` fails on it).
    fn no_peaks() -> Result<Roofs, RoofsError> {
        Err(RoofsError::NoDram {
            gpu: "test".into(),
            chosen_by: "--roofs ncu".into(),
        })
    }

    #[test]
    fn device_name_decides_when_it_fits_the_compute_capability() {
        // 8.9 is shared by five GPUs of the table; the name decides.
        let (_, gpu) = choose(
            &RoofsChoice::FromCsv,
            &hints(&["NVIDIA GeForce RTX 4090"], &["8.9"]),
            no_peaks,
        )
        .unwrap();
        assert_eq!(gpu.key.as_deref(), Some("rtx4090"));
        assert!(
            matches!(gpu.chosen_by, GpuChoice::DeviceName { .. }),
            "{:?}",
            gpu.chosen_by
        );
        assert!(gpu.notes.is_empty(), "{:?}", gpu.notes);
        // A name whose GPU cannot have the file's compute capability is
        // not trusted: an H100 is 9.0, not 8.9.
        let e = choose(
            &RoofsChoice::FromCsv,
            &hints(&["NVIDIA H100 80GB HBM3"], &["8.9"]),
            no_peaks,
        )
        .unwrap_err();
        assert!(
            e.to_string()
                .contains("(h100-sxm, compute capability 9.0) but compute capability 8.9"),
            "{e}"
        );
    }

    fn decide(h: &DeviceHints) -> Result<String, String> {
        match choose(&RoofsChoice::FromCsv, h, no_peaks) {
            Ok((_, gpu)) => Ok(gpu.key.unwrap()),
            Err(e) => Err(e.to_string()),
        }
    }

    #[test]
    fn sm_count_splits_a_compute_capability() {
        // CC 8.9, SM counts from the cited documents: RTX 4070 5888 CUDA
        // cores / 128 = 46, RTX 4080 76 (Ada whitepaper), L4 58, RTX 4090
        // 128; L40S, L40 and RTX 6000 Ada all 142 (one AD102 configuration).
        let mut h = hints(&[], &["8.9"]);
        for (sms, key) in [
            (46, "rtx4070"),
            (76, "rtx4080"),
            (58, "l4"),
            (128, "rtx4090"),
        ] {
            h.sm_counts = vec![sms];
            assert_eq!(decide(&h).as_deref(), Ok(key), "{sms} SMs");
        }
        let (_, gpu) = choose(&RoofsChoice::FromCsv, &h, no_peaks).unwrap();
        assert_eq!(
            gpu.chosen_by,
            GpuChoice::Facts {
                facts: vec![
                    Fact::ComputeCapability(ComputeCapability::new(8, 9)),
                    Fact::SmCount(128)
                ],
                source: super::super::HintSource::Csv,
            }
        );
        h.sm_counts = vec![142];
        let e = decide(&h).unwrap_err();
        assert!(
            e.contains("compute capability 8.9, 142 SMs, shared by l40s, l40, rtx6000-ada"),
            "{e}"
        );
        // The memory clock splits the RTX 6000 Ada (20 Gbps: 10000 MHz)
        // from the L40 and L40S (18 Gbps: 9000 MHz), not those two.
        h.memory_clocks_mhz = vec![10001];
        assert_eq!(decide(&h).as_deref(), Ok("rtx6000-ada"));
        h.memory_clocks_mhz = vec![9001];
        assert!(decide(&h).unwrap_err().contains("shared by l40s, l40"));
        // CC 12.0 (CES 2025 table: CUDA cores / 128): RTX 5080 84, 5070 Ti
        // 70, 5070 48, 5060 Ti 36, 5090 170, RTX PRO 6000 188.
        let mut h = hints(&[], &["12.0"]);
        for (sms, key) in [
            (84, "rtx5080"),
            (70, "rtx5070ti"),
            (48, "rtx5070"),
            (36, "rtx5060ti"),
            (170, "rtx5090"),
            (188, "rtx-pro-6000"),
        ] {
            h.sm_counts = vec![sms];
            assert_eq!(decide(&h).as_deref(), Ok(key), "{sms} SMs");
        }
        // L2 alone: 128 MiB rules out the RTX 5090 (96 MiB) and 5080 (64
        // MiB); the cards whose L2 the table does not know stay candidates,
        // and only those are named.
        h.sm_counts.clear();
        h.l2_bytes = vec![128 << 20];
        let e = decide(&h).unwrap_err();
        assert!(
            e.contains("L2 128.0 MiB, shared by 4 GPUs of the table (first in the table: rtx5070ti, rtx5070, rtx5060ti)"),
            "{e}"
        );
    }

    #[test]
    fn name_bus_width_and_memory_clock_split_one_silicon() {
        // CC 8.6 with 84 SMs: the A40 and the RTX A6000 (GA102, 10,752 CUDA
        // cores each, both 384-bit); the RTX 3090 has 82.
        let mut h = hints(&[], &["8.6"]);
        h.sm_counts = vec![84];
        let e = decide(&h).unwrap_err();
        assert!(e.contains("84 SMs, shared by a40, rtx-a6000"), "{e}");
        h.bus_widths_bits = vec![384];
        assert!(decide(&h).unwrap_err().contains("shared by a40, rtx-a6000"));
        // Memory clock (CUDA attribute = data rate / 2): A40 14.5 Gbps ->
        // 7250 MHz, RTX A6000 16 Gbps -> 8000 MHz (PNY and NVIDIA
        // datasheets). 7251 is within 10 % of both; the nearer one wins.
        h.memory_clocks_mhz = vec![7251];
        assert_eq!(decide(&h).as_deref(), Ok("a40"));
        h.memory_clocks_mhz = vec![8001];
        assert_eq!(decide(&h).as_deref(), Ok("rtx-a6000"));
        // The device name decides whatever the facts.
        let mut h = hints(&["NVIDIA RTX A6000"], &["8.6"]);
        h.sm_counts = vec![84];
        assert_eq!(decide(&h).as_deref(), Ok("rtx-a6000"));
        // 82 SMs: the RTX 3090.
        let mut h = hints(&[], &["8.6"]);
        h.sm_counts = vec![82];
        assert_eq!(decide(&h).as_deref(), Ok("rtx3090"));
        // Bus width alone: 320 bits is the RTX 3080's (GA102 whitepaper);
        // the A10, whose bus width the table does not know, stays.
        let mut h = hints(&[], &["8.6"]);
        h.bus_widths_bits = vec![320];
        let e = decide(&h).unwrap_err();
        assert!(
            e.contains("320-bit memory bus, shared by a10, rtx3080"),
            "{e}"
        );
        // A bus width no GPU of that CC has rules all out (a card not in
        // the table): the message says none fits.
        h.bus_widths_bits = vec![96];
        let e = decide(&h).unwrap_err();
        assert!(e.contains("which only a10 might have"), "{e}");
        // With its SM count too, nothing fits.
        h.sm_counts = vec![20];
        let e = decide(&h).unwrap_err();
        assert!(e.contains("which no GPU of the built-in table has"), "{e}");
    }

    #[test]
    fn dram_bandwidth_splits_the_a100s() {
        // nsys TARGET_INFO_GPU.memoryBandwidth of a real A100-SXM4-80GB
        // export (corpus cloverleaf): 2039040000000 B/s; datasheets: A100
        // 40GB 1555, 80GB SXM 2039, 80GB PCIe 1935 GB/s. The A800 is the
        // same silicon and memory (A800 datasheet): no fact splits it from
        // the A100, only the name.
        let mut h = hints(&[], &["8.0"]);
        h.sm_counts = vec![108];
        h.memory_bandwidths_bytes_per_s = vec![2_039_040_000_000];
        let e = decide(&h).unwrap_err();
        assert!(
            e.contains("DRAM bandwidth 2039.0 GB/s, shared by a100-80gb, a800-80gb"),
            "{e}"
        );
        h.memory_bandwidths_bytes_per_s = vec![1_935_000_000_000];
        let e = decide(&h).unwrap_err();
        assert!(
            e.contains("shared by a100-80gb-pcie, a800-80gb-pcie"),
            "{e}"
        );
        // Over 5 % from every table figure: not used.
        h.memory_bandwidths_bytes_per_s = vec![3_000_000_000_000];
        let e = decide(&h).unwrap_err();
        assert!(!e.contains("DRAM bandwidth"), "{e}");
    }

    #[test]
    fn memory_clock_splits_the_a100s() {
        // CC 8.0 with 108 SMs fits every A100 and A800; the HBM2 clock of
        // the 40 GB parts is 1215 MHz, the 80 GB SXM 1593, the 80 GB PCIe
        // 1512 (bandwidth / (2 x 5120 / 8) of the datasheet figures).
        let mut h = hints(&[], &["8.0"]);
        h.sm_counts = vec![108];
        let e = decide(&h).unwrap_err();
        assert!(
            e.contains("shared by 7 GPUs of the table (first in the table: a100-40gb, a100-40gb-pcie, a100-80gb)"),
            "{e}"
        );
        h.memory_clocks_mhz = vec![1512];
        let e = decide(&h).unwrap_err();
        assert!(
            e.contains("memory clock 1512 MHz, shared by a100-80gb-pcie, a800-80gb-pcie"),
            "{e}"
        );
        h.memory_clocks_mhz = vec![1215];
        let e = decide(&h).unwrap_err();
        assert!(
            e.contains("shared by a100-40gb, a100-40gb-pcie, a800-40gb"),
            "{e}"
        );
        // A clock that fits none (V100-like 627 MHz) is not used.
        h.memory_clocks_mhz = vec![627];
        let e = decide(&h).unwrap_err();
        assert!(!e.contains("memory clock 627 MHz"), "{e}");
        assert!(
            e.contains("shared by 7 GPUs of the table (first in the table: a100-40gb, a100-40gb-pcie, a100-80gb)"),
            "{e}"
        );
    }

    #[test]
    fn gpu_flag_contradicted_by_the_file() {
        // --gpu h100-sxm on a CC 8.0 file: not the same GPU.
        let e = choose(
            &RoofsChoice::Gpu("h100-sxm".into()),
            &hints(&[], &["8.0"]),
            no_peaks,
        )
        .unwrap_err();
        let msg = e.to_string();
        assert!(
            msg.contains("--gpu h100-sxm has compute capability 9.0, but t.csv records compute capability 8.0"),
            "{msg}"
        );
        assert!(
            msg.contains("a100-40gb, a100-40gb-pcie, a100-80gb"),
            "{msg}"
        );
        assert!(msg.contains("--project-to h100-sxm"), "{msg}");
        // --gpu h200 on a file with 60 SMs (an H200 MIG 3g slice): a note.
        let mut h = hints(&[], &["9.0"]);
        h.sm_counts = vec![60];
        let (_, gpu) = choose(&RoofsChoice::Gpu("h200".into()), &h, no_peaks).unwrap();
        assert_eq!(gpu.notes.len(), 1, "{:?}", gpu.notes);
        assert!(
            gpu.notes[0].contains("reports 60 SMs where h200 has 132"),
            "{:?}",
            gpu.notes
        );
        // A device name the table knows as another GPU rules it out.
        let e = choose(
            &RoofsChoice::Gpu("h200".into()),
            &hints(&["NVIDIA H100 80GB HBM3"], &["9.0"]),
            no_peaks,
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("records device name \"NVIDIA H100 80GB HBM3\" (the table's h100-sxm)"),
            "{e}"
        );
        // A name the table does not hold (H100 NVL) is a note: --gpu is
        // how such a device is named.
        let (_, gpu) = choose(
            &RoofsChoice::Gpu("h100-pcie".into()),
            &hints(&["NVIDIA H100 NVL"], &["9.0"]),
            no_peaks,
        )
        .unwrap();
        assert!(gpu.notes[0].contains("does not hold"), "{:?}", gpu.notes);
    }

    #[test]
    fn more_sms_than_the_gpu_is_no_mig_slice() {
        // B200: 148 SMs (table); a CC 10.0 file recording 152 has more
        // than every CC 10.0 GPU of the table (b200 148, gb200 unknown
        // count is not "more"), so it is said as such.
        let mut h = hints(&[], &["10.0"]);
        h.sm_counts = vec![152];
        let e = choose(&RoofsChoice::Gpu("b200".into()), &h, no_peaks)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("has SM count 148, but t.csv records SM count 152"),
            "{e}"
        );
        assert!(!e.contains("MIG"), "{e}");
    }

    #[test]
    fn gpu_flag_contradicted_by_memory_clock_bus_l2_and_bandwidth() {
        // RTX 5080: 15,000 MHz (30 Gbps GDDR7); 13,720 MHz is 8.5 % off,
        // over the 5 % a measured clock strays; 14,700 (2 %) is not.
        let mut h = hints(&[], &["12.0"]);
        h.memory_clocks_mhz = vec![13_720];
        let e = choose(&RoofsChoice::Gpu("rtx5080".into()), &h, no_peaks)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains(
                "has memory clock 15000 MHz, but t.csv records memory clock 13720 MHz (8.5 % apart"
            ),
            "{e}"
        );
        h.memory_clocks_mhz = vec![14_700];
        assert!(choose(&RoofsChoice::Gpu("rtx5080".into()), &h, no_peaks).is_ok());
        // Under half the clock: a power state, a note.
        h.memory_clocks_mhz = vec![405];
        let (_, gpu) = choose(&RoofsChoice::Gpu("rtx5080".into()), &h, no_peaks).unwrap();
        assert!(gpu.notes[0].contains("a power state?"), "{:?}", gpu.notes);
        // Bus width 128 bits is not the RTX 5080's 256.
        let mut h = hints(&[], &["12.0"]);
        h.bus_widths_bits = vec![128];
        let e = choose(&RoofsChoice::Gpu("rtx5080".into()), &h, no_peaks)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains(
                "has memory bus width 256 bits, but t.csv records memory bus width 128 bits"
            ),
            "{e}"
        );
        // An export's bandwidth 1555.2 GB/s is an A100 40GB's, 24 % from
        // the A100 80GB's 2039 GB/s.
        let mut h = hints(&[], &["8.0"]);
        h.memory_bandwidths_bytes_per_s = vec![1_555_200_000_000];
        let e = choose(&RoofsChoice::Gpu("a100-80gb".into()), &h, no_peaks)
            .unwrap_err()
            .to_string();
        assert!(e.contains("DRAM bandwidth 2039.0 GB/s (datasheet), but t.csv records DRAM bandwidth 1555.2 GB/s"), "{e}");
        // ... but on a slice (fewer SMs) a smaller share is no contradiction.
        h.sm_counts = vec![42];
        assert!(choose(&RoofsChoice::Gpu("a100-80gb".into()), &h, no_peaks).is_ok());
    }

    #[test]
    fn gpu_flag_contradicted_by_ncu_peaks() {
        // ncu peaks of an H100 SXM (constructed fixture's figures): DRAM
        // 1280 B/cycle x 2.619 GHz = 3352.3 GB/s, FP32 2 x 16,896 FFMA per
        // cycle = 33,792 FLOP per SM cycle = 2 x 128 lanes x 132 SMs.
        let peaks_at = |dram_bytes_per_s: f64| {
            let mut r = Roofs::new("NVIDIA H100 80GB HBM3", "ncu");
            r.memory.insert(
                super::super::MemoryLevel::Dram,
                super::super::MemoryRoof {
                    bytes_per_s: dram_bytes_per_s,
                    origin: super::super::Origin::Ncu,
                    source: "dram peak".into(),
                    measurement: None,
                },
            );
            r.compute.insert(
                super::super::ComputePath::Fp32,
                super::super::ComputeRoof {
                    flop_per_s: 2.0 * 16_896.0 * 1.83e9,
                    origin: super::super::Origin::Ncu,
                    source: "ffma peak".into(),
                    measurement: None,
                },
            );
            r.clocks.sm_clock_hz = Some(1.83e9);
            r
        };
        let mut h = hints(&[], &["9.0"]);
        h.ncu_peaks = Some(peaks_at(1280.0 * 2.619e9));
        // The H100 SXM fits: 3352 vs 3350 GB/s, 33,792 FLOP per cycle both.
        assert!(choose(&RoofsChoice::Gpu("h100-sxm".into()), &h, no_peaks).is_ok());
        // The H200 (4800 GB/s) is 30 % off the DRAM peak.
        let e = choose(&RoofsChoice::Gpu("h200".into()), &h, no_peaks)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains(
                "has DRAM peak 4800.0 GB/s (datasheet), but t.csv records DRAM peak 3352.3 GB/s"
            ),
            "{e}"
        );
        // The H100 PCIe's DRAM (2000 GB/s) matched, but 33,792 FLOP per
        // SM cycle is 132 SMs' (2 x 128 x 132), not its 114 SMs' 29,184.
        // Per memory cycle when the peaks state their DRAM clock: 1280
        // byte per cycle at a clock held to 1.8 GHz is still the H100
        // SXM's 3350 GB/s / 2619 MHz = 1279.1, though 2304 GB/s is 31 %
        // under its datasheet bandwidth.
        let mut low = peaks_at(1280.0 * 1.8e9);
        low.clocks.memory_clock_hz = Some(1.8e9);
        h.ncu_peaks = Some(low);
        assert!(choose(&RoofsChoice::Gpu("h100-sxm".into()), &h, no_peaks).is_ok());
        h.ncu_peaks = Some(peaks_at(2000e9));
        let e = choose(&RoofsChoice::Gpu("h100-pcie".into()), &h, no_peaks)
            .unwrap_err()
            .to_string();
        assert!(e.contains("has FP32 peak per SM cycle 29184 FLOP (2 x 128 lanes x 114 SMs), but t.csv records FP32 peak per SM cycle 33792 FLOP"), "{e}");
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
