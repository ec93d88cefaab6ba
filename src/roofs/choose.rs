//! Choosing the roofs of a run (policy): `--gpu KEY`, `--roofs FILE`,
//! `--roofs ncu`, else detection from what the input says about its device
//! (name, compute capability, SM count, L2 size, memory bus width, memory
//! clock, memory bandwidth). `--gpu` is
//! checked against the same facts: a compute capability it cannot have is
//! an error, another SM count or device name a note. Takes plain data
//! ([`DeviceHints`]), so the parsers fill it and nothing here knows their
//! types.

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
    /// Roofs given on the command line (`--peak-dram-bw`, `--peak`).
    Flags(Box<Roofs>),
    /// Device name or compute capability in the input.
    FromCsv,
}

/// Where an input records its device, as a decision names it ("device name
/// … in the CSV").
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum HintSource {
    /// An ncu CSV's device columns and attributes.
    #[default]
    Csv,
    /// An nsys export's `TARGET_INFO_GPU` rows.
    ExportGpuTable,
    /// A PyTorch profiler trace's `deviceProperties`.
    TraceDeviceProperties,
}

impl HintSource {
    /// The words after "in": `the CSV`.
    pub fn words(self) -> &'static str {
        match self {
            HintSource::Csv => "the CSV",
            HintSource::ExportGpuTable => "the export's TARGET_INFO_GPU",
            HintSource::TraceDeviceProperties => "the trace's deviceProperties",
        }
    }
}

/// What an input says about the device it was recorded on.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DeviceHints {
    /// The input file as given, for messages.
    pub file: String,
    /// Where the input records the facts below.
    pub source: HintSource,
    /// Distinct device names seen, sorted.
    pub device_names: Vec<String>,
    /// Distinct compute capabilities seen (`9.0`), sorted.
    pub compute_capabilities: Vec<String>,
    /// Distinct SM counts seen, sorted.
    pub sm_counts: Vec<u32>,
    /// Distinct L2 sizes seen, bytes, sorted.
    pub l2_bytes: Vec<u64>,
    /// Distinct memory clocks seen, MHz, sorted (the CUDA attribute, or
    /// the DRAM clock ncu measured while a kernel ran).
    pub memory_clocks_mhz: Vec<u64>,
    /// Distinct memory bus widths seen, bits, sorted
    /// (`device__attribute_global_memory_bus_width`).
    pub bus_widths_bits: Vec<u32>,
    /// Distinct theoretical DRAM bandwidths seen, byte/s, sorted (nsys
    /// `TARGET_INFO_GPU.memoryBandwidth`: 2 x memory clock x bus width / 8).
    pub memory_bandwidths_bytes_per_s: Vec<u64>,
}

/// How the GPU (and so the roofs) was chosen.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GpuInfo {
    /// Built-in table key (`h100-sxm`), when the table was used.
    pub key: Option<String>,
    /// Name shown to the user.
    pub name: String,
    /// How it was chosen: `--gpu`, `device name in the CSV`, `compute
    /// capability 8.0 and 108 SMs in the CSV`, `--roofs FILE`, `--roofs ncu`.
    pub chosen_by: String,
    /// Where the input disagrees with the chosen GPU (another SM count: a
    /// MIG slice or green context?; another device name), one sentence each.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// When the GPU could not be decided: the table GPUs the input's facts
    /// fit (empty when it was decided, or when none fits).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub candidates: Vec<String>,
}

impl GpuInfo {
    /// True when the input did not decide the GPU and the roofs are the
    /// file's own ncu peaks or none ([`choose_or_undecided`]).
    pub fn undecided(&self) -> bool {
        self.key.is_none() && self.name == UNDECIDED
    }
}

/// The name of the GPU in a report whose GPU could not be decided.
pub const UNDECIDED: &str = "GPU not decided";

fn from_table(g: &GpuSpec, how: String, hints: &DeviceHints) -> (Roofs, GpuInfo) {
    (
        g.default_roofs(),
        GpuInfo {
            key: Some(g.key.to_string()),
            name: g.name.to_string(),
            chosen_by: how,
            notes: disagreements(g, hints),
            candidates: Vec::new(),
        },
    )
}

/// Where `hints` disagree with `g` without ruling it out: another SM count
/// (a MIG slice or a green context has fewer SMs than the whole GPU, and
/// the whole GPU's roofs overstate what it can reach), another device name.
fn disagreements(g: &GpuSpec, hints: &DeviceHints) -> Vec<String> {
    let mut notes = Vec::new();
    if let Some(sm) = g.sm_count {
        let other: Vec<String> = hints
            .sm_counts
            .iter()
            .filter(|&&n| n != sm)
            .map(u32::to_string)
            .collect();
        if !other.is_empty() {
            notes.push(format!(
                "{} reports {} SMs where {} has {sm}: a MIG slice, a green context or another GPU? the roofs are the whole {}'s and overstate a part of it; give measured roofs with --roofs FILE",
                hints.file,
                other.join(", "),
                g.key,
                g.key
            ));
        }
    }
    for name in &hints.device_names {
        match gpus::by_device_name(name) {
            Some(n) if n.key == g.key => {}
            Some(n) => notes.push(format!(
                "{} names its device {name:?} ({}), not {}",
                hints.file, n.key, g.key
            )),
            None => notes.push(format!(
                "{} names its device {name:?}, which the built-in table does not hold; {} was assumed",
                hints.file, g.key
            )),
        }
    }
    notes
}

/// The compute capabilities of `hints` that rule `g` out: every one when
/// none of them is `g`'s (a file from several devices may include it).
fn cc_contradiction(g: &GpuSpec, hints: &DeviceHints) -> Option<String> {
    let ccs = &hints.compute_capabilities;
    (!ccs.is_empty() && !ccs.iter().any(|c| c.trim() == g.compute_capability))
        .then(|| ccs.join(", "))
}

/// Where two inputs' own records say they ran on different GPUs: no
/// compute capability in common, or device names that the built-in table
/// knows as different GPUs. One sentence naming both files, or `None` when
/// they agree or a side does not say.
pub fn contradiction(base: &DeviceHints, new: &DeviceHints) -> Option<String> {
    let (cc_base, cc_new) = (&base.compute_capabilities, &new.compute_capabilities);
    if !cc_base.is_empty() && !cc_new.is_empty() && !cc_base.iter().any(|c| cc_new.contains(c)) {
        return Some(format!(
            "{} was recorded on compute capability {} and {} on {}: not the same GPU",
            base.file,
            cc_base.join(", "),
            new.file,
            cc_new.join(", ")
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
                choices: crate::suggest::did_you_mean_among(
                    key,
                    &gpus::all().iter().map(|g| g.key).collect::<Vec<_>>(),
                    "`rooftrace ncu --list-gpus`",
                ),
            })?;
            if let Some(ccs) = cc_contradiction(g, hints) {
                return Err(RoofsError::GpuContradicted {
                    key: g.key.to_string(),
                    gpu_cc: g.compute_capability.to_string(),
                    file: hints.file.clone(),
                    file_cc: ccs,
                    candidates: match_facts(hints)
                        .0
                        .iter()
                        .map(|g| g.key)
                        .collect::<Vec<_>>()
                        .join(", "),
                }
                .into());
            }
            from_table(g, "--gpu".into(), hints)
        }
        RoofsChoice::File(path) => {
            let roofs = Roofs::from_file(path)?;
            let gpu = GpuInfo {
                key: None,
                name: roofs.gpu.clone(),
                chosen_by: format!("--roofs {}", path.display()),
                notes: Vec::new(),
                candidates: Vec::new(),
            };
            (roofs, gpu)
        }
        RoofsChoice::Ncu => {
            let roofs = from_peaks()?;
            let gpu = GpuInfo {
                key: None,
                name: roofs.gpu.clone(),
                chosen_by: "--roofs ncu".into(),
                notes: Vec::new(),
                candidates: Vec::new(),
            };
            (roofs, gpu)
        }
        RoofsChoice::Flags(roofs) => {
            let gpu = GpuInfo {
                key: None,
                name: roofs.gpu.clone(),
                chosen_by: "command line (--peak-dram-bw, --peak)".into(),
                notes: Vec::new(),
                candidates: Vec::new(),
            };
            ((**roofs).clone(), gpu)
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

/// Memory clocks closer than this fraction to a GPU's match it: the file's
/// value may be measured while the kernel runs (ncu's `Memory Frequency`),
/// the table's is the CUDA attribute.
const MEMORY_CLOCK_TOLERANCE: f64 = 0.10;

/// A stated DRAM bandwidth this close to a GPU's datasheet bandwidth
/// matches it: the runtime's figure is 2 x memory clock x bus width / 8
/// (A100 40GB: 2 x 1215 MHz x 640 B = 1555.2 GB/s, datasheet 1555; H200:
/// 4916.7 GB/s in a real export, datasheet 4.8 TB/s, 2.4 % apart).
const BANDWIDTH_TOLERANCE: f64 = 0.05;

/// L2 sizes closer than this fraction match (runtime-reported sizes).
const L2_TOLERANCE: f64 = 0.02;

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
fn match_facts(hints: &DeviceHints) -> (Vec<&'static GpuSpec>, Vec<String>) {
    let mut used = Vec::new();
    let mut c: Vec<&'static GpuSpec> = gpus::all().iter().collect();
    if let [cc] = hints.compute_capabilities.as_slice() {
        c.retain(|g| g.compute_capability == cc.trim());
        used.push(format!("compute capability {}", cc.trim()));
    }
    if let [sm] = hints.sm_counts.as_slice() {
        // A GPU whose SM count the table does not know stays a candidate.
        c.retain(|g| g.sm_count.is_none_or(|n| n == *sm));
        used.push(format!("{sm} SMs"));
    }
    if let [l2] = hints.l2_bytes.as_slice() {
        let l2f = *l2 as f64;
        c.retain(|g| {
            g.l2_bytes
                .is_none_or(|b| ((b as f64) - l2f).abs() <= L2_TOLERANCE * l2f)
        });
        used.push(format!("L2 {:.1} MiB", l2f / (1u64 << 20) as f64));
    }
    if let [bus] = hints.bus_widths_bits.as_slice() {
        c.retain(|g| g.bus_width_bits.is_none_or(|b| b == *bus));
        used.push(format!("{bus}-bit memory bus"));
    }
    if let [bw] = hints.memory_bandwidths_bytes_per_s.as_slice() {
        let bwf = *bw as f64;
        let error = |g: &GpuSpec| g.datasheet_dram().map(|d| (d - bwf).abs() / d);
        // Every GPU within the tolerance stays: datasheets round their
        // figures (H200: 4.8 TB/s stated, 4.92 reported), so the nearest
        // is not the likeliest.
        if narrow(&mut c, BANDWIDTH_TOLERANCE, BANDWIDTH_TOLERANCE, error) {
            used.push(format!("DRAM bandwidth {:.1} GB/s", bwf / 1e9));
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
        if narrow(&mut c, MEMORY_CLOCK_TOLERANCE, NEAREST_SLACK, error) {
            let clocks: Vec<String> = hints
                .memory_clocks_mhz
                .iter()
                .map(|m| m.to_string())
                .collect();
            used.push(format!("memory clock {} MHz", clocks.join("/")));
        }
    }
    (c, used)
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
            if cc_contradiction(g, hints).is_none() {
                let mut r = from_table(
                    g,
                    format!("device name {name:?} in {}", hints.source.words()),
                    hints,
                );
                // The name is the device: only other names are news.
                r.1.notes.retain(|n| !n.contains(&format!("{name:?}")));
                return Ok(r);
            }
        }
    }
    let (candidates, used) = match_facts(hints);
    if hints.device_names.is_empty() && !used.is_empty() {
        if let [g] = candidates.as_slice() {
            if confirmed(g, hints) {
                return Ok(from_table(
                    g,
                    format!("{} in {}", used.join(", "), hints.source.words()),
                    hints,
                ));
            }
        }
    }
    let keys: Vec<&str> = candidates.iter().map(|g| g.key).collect();
    let seen = match (hints.device_names.first(), used.is_empty()) {
        (Some(n), _) => match gpus::by_device_name(n) {
            Some(g) => format!(
                "device {n:?} ({}, compute capability {}) but compute capability {}: the name and the CC disagree",
                g.key,
                g.compute_capability,
                hints.compute_capabilities.join(", ")
            ),
            None => format!("device {n:?}, which is not in the built-in table"),
        },
        (None, true) => "no device name, compute capability, SM count or L2 size".into(),
        (None, false) if keys.is_empty() => format!(
            "{}, which no GPU of the built-in table has",
            used.join(", ")
        ),
        (None, false) if keys.len() == 1 => format!(
            "{}, which only {} might have (the table does not know its SM count, L2 size or bus width to confirm it)",
            used.join(", "),
            keys[0]
        ),
        (None, false) => format!("{}, shared by {}", used.join(", "), keys.join(", ")),
    };
    Err(RoofsError::UnknownDevice {
        file: hints.file.clone(),
        seen,
        choices: if keys.is_empty() {
            "a key of `rooftrace ncu --list-gpus` (none fits what the file states; for a GPU not in the table write a roofs file, docs/roofs-format.md)".to_string()
        } else {
            keys.join(", ")
        },
        candidates: keys.iter().map(|k| k.to_string()).collect(),
    })
}

/// [`choose`], except that an input whose GPU cannot be decided (no device
/// name of the table, facts that fit several GPUs or none) still gets an
/// answer: the file's own ncu peaks when it carries them (`--roofs ncu`),
/// else no roofs at all (every roof-dependent figure unknown). The
/// [`GpuInfo`] says so, with the candidates that fit.
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
    let (roofs, chosen_by) = match peaks {
        Some(r) => (
            r,
            format!("nothing: the file states {seen}; measured against the file's own ncu peaks (--roofs ncu)"),
        ),
        None => (
            Roofs::new(
                UNDECIDED,
                "none: the GPU was not decided and the file carries no ncu peaks",
            ),
            format!("nothing: the file states {seen}; no roofs"),
        ),
    };
    Ok((
        roofs,
        GpuInfo {
            key: None,
            name: UNDECIDED.to_string(),
            chosen_by,
            notes: Vec::new(),
            candidates,
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hints(names: &[&str], ccs: &[&str]) -> DeviceHints {
        DeviceHints {
            file: "t.csv".into(),
            device_names: names.iter().map(|s| s.to_string()).collect(),
            compute_capabilities: ccs.iter().map(|s| s.to_string()).collect(),
            ..DeviceHints::default()
        }
    }

    fn no_peaks() -> Result<Roofs, RoofsError> {
        panic!("peaks are read only for --roofs ncu")
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
            gpu.chosen_by.starts_with("device name"),
            "{}",
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
        assert_eq!(gpu.chosen_by, "compute capability 8.9, 128 SMs in the CSV");
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
            e.contains("L2 128.0 MiB, shared by rtx5070ti, rtx5070, rtx5060ti, rtx-pro-6000"),
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
            e.contains("shared by a100-40gb, a100-80gb, a100-80gb-pcie, a800-40gb, a800-80gb, a800-80gb-pcie"),
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
        assert!(e.contains("shared by a100-40gb, a800-40gb"), "{e}");
        // A clock that fits none (V100-like 627 MHz) is not used.
        h.memory_clocks_mhz = vec![627];
        let e = decide(&h).unwrap_err();
        assert!(!e.contains("memory clock"), "{e}");
        assert!(e.contains("a100-40gb, a100-80gb, a100-80gb-pcie"), "{e}");
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
            msg.contains("--gpu h100-sxm is compute capability 9.0"),
            "{msg}"
        );
        assert!(msg.contains("a100-40gb, a100-80gb"), "{msg}");
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
        // Another device name: a note.
        let (_, gpu) = choose(
            &RoofsChoice::Gpu("h200".into()),
            &hints(&["NVIDIA H100 80GB HBM3"], &["9.0"]),
            no_peaks,
        )
        .unwrap();
        assert!(
            gpu.notes[0].contains("(h100-sxm), not h200"),
            "{:?}",
            gpu.notes
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
