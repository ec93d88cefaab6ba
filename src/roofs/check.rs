//! Checking a chosen GPU (`--gpu KEY`, or the table GPU a `--roofs FILE`
//! names) against every identity fact the input records: compute
//! capability, device name, SM count, L2 size, memory bus width, DRAM
//! bandwidth, memory clock, and ncu's own peaks. A fact that rules the GPU
//! out is a [`Contradiction`] (the caller's error, exit 2); a fact that
//! fits a part of it (fewer SMs: a MIG slice or a green context) or says
//! nothing the table can check (a device name it does not hold) is a note.
//!
//! Tolerances (docs/ncu.md §5, the table after "`--gpu KEY`, and the table
//! GPU a `--roofs FILE` is for"):
//! [`L2_TOLERANCE`], [`BANDWIDTH_TOLERANCE`], [`MEMORY_CLOCK_TOLERANCE`],
//! [`NCU_PEAK_TOLERANCE`].

use super::gpus::{self, GpuSpec};
use super::hints::DeviceHints;
use super::model::{ComputePath, Roofs};

/// L2 sizes closer than this fraction match (runtime-reported sizes).
pub const L2_TOLERANCE: f64 = 0.02;

/// A stated DRAM bandwidth this close to a GPU's datasheet bandwidth
/// matches it: the runtime's figure is 2 x memory clock x bus width / 8
/// (A100 40GB: 2 x 1215 MHz x 640 B = 1555.2 GB/s, datasheet 1555; H200:
/// 4916.7 GB/s in a real export, datasheet 4.8 TB/s, 2.4 % apart).
pub const BANDWIDTH_TOLERANCE: f64 = 0.05;

/// A memory clock further than this fraction from the chosen GPU's (the
/// CUDA attribute) and within it of another GPU of its compute capability
/// rules it out: cards of one compute capability differ by more (RTX 5080
/// 15,000 vs RTX 5070 Ti 14,000 MHz: 7 %; A40 7,250 vs RTX A6000 8,000:
/// 10 %), so a clock of 13,720 MHz (2 % from 14,000, 8.5 % from 15,000)
/// names a 14,000 MHz card, not the RTX 5080. A clock that fits no card of
/// the compute capability is not taken as another card (a real V100 export
/// states 627 MHz, its attribute is 877): a note.
pub const MEMORY_CLOCK_TOLERANCE: f64 = 0.05;

/// ncu's own peaks this close to the chosen GPU's match it: the DRAM peak
/// (`dram__bytes.sum.peak_sustained` x the DRAM clock) against the
/// datasheet bandwidth, and the FP32 peak per SM cycle (2 x the FFMA
/// `peak_sustained`, clock-free) against 2 x FP32 lanes x SMs.
pub const NCU_PEAK_TOLERANCE: f64 = 0.10;

/// A fact of the input that rules the chosen GPU out.
#[derive(Debug, Clone, PartialEq)]
pub struct Contradiction {
    /// The fact: `compute capability`, `SM count`, `memory clock`.
    pub fact: &'static str,
    /// The chosen GPU's value, with its unit.
    pub gpu_value: String,
    /// The input's value(s), with unit.
    pub file_value: String,
    /// Why it rules the GPU out, when the two values do not say it alone
    /// (` (more than any GPU of compute capability 10.0 in the table)`).
    pub why: String,
}

fn contradiction(fact: &'static str, gpu: String, file: String, why: String) -> Contradiction {
    Contradiction {
        fact,
        gpu_value: gpu,
        file_value: file,
        why,
    }
}

fn rel(value: f64, reference: f64) -> f64 {
    (value - reference).abs() / reference
}

fn list<T: ToString>(v: &[T], unit: &str) -> String {
    let v: Vec<String> = v
        .iter()
        .map(|x| format!("{}{unit}", x.to_string()))
        .collect();
    v.join(", ")
}

/// True when the input is a part of `g`: one SM count, below `g`'s. A part
/// has its share of the L2, the bus and the bandwidth, so smaller values of
/// those are no contradiction there.
fn is_part(g: &GpuSpec, hints: &DeviceHints) -> bool {
    matches!((g.sm_count, hints.sm_counts.as_slice()), (Some(sm), [n]) if *n < sm)
}

/// Checks `g` against `hints`, ncu's own peaks included when the input
/// carries them. Returns the notes (facts that fit a part of `g`, or that
/// the table cannot check) or the first contradiction, in the order of the
/// module header.
pub fn check(g: &GpuSpec, hints: &DeviceHints) -> Result<Vec<String>, Contradiction> {
    let ccs = &hints.compute_capabilities;
    if !ccs.is_empty() && !ccs.contains(&g.compute_capability) {
        return Err(contradiction(
            "compute capability",
            g.compute_capability.to_string(),
            list(ccs, ""),
            String::new(),
        ));
    }
    let mut notes = names(g, hints)?;
    sm_count(g, hints, &mut notes)?;
    sizes(g, hints)?;
    memory_clock(g, hints, &mut notes)?;
    if let Some(p) = &hints.ncu_peaks {
        ncu_peaks(g, hints, p)?;
    }
    implied_dram_peak(g, hints)?;
    Ok(notes)
}

/// Device names: one the table knows as another GPU rules `g` out (unless
/// another of the file's names is `g`'s: a file from several devices); one
/// it does not hold is a note.
fn names(g: &GpuSpec, hints: &DeviceHints) -> Result<Vec<String>, Contradiction> {
    let known: Vec<(&String, &'static GpuSpec)> = hints
        .device_names
        .iter()
        .filter_map(|n| gpus::by_device_name(n).map(|s| (n, s)))
        .collect();
    if !known.is_empty() && !known.iter().any(|(_, s)| s.key == g.key) {
        let (name, other) = known[0];
        return Err(contradiction(
            "device name",
            format!("{:?}", g.name),
            format!("{name:?}"),
            format!(" (the table's {})", other.key),
        ));
    }
    Ok(hints
        .device_names
        .iter()
        .filter(|n| gpus::by_device_name(n).is_none())
        .map(|n| unknown_name_note(g, hints, n))
        .collect())
}

/// The note on a device name the table does not hold, `g` assumed.
pub fn unknown_name_note(g: &GpuSpec, hints: &DeviceHints, name: &str) -> String {
    format!(
        "{} names its device {name:?}, which the built-in table does not hold; {} was assumed",
        hints.file, g.key
    )
}

/// SM count: more than `g` has rules it out (a part of a GPU has fewer
/// SMs, never more), said as more than every table GPU of its compute
/// capability when it is; fewer is a note (a MIG slice or green context).
fn sm_count(
    g: &GpuSpec,
    hints: &DeviceHints,
    notes: &mut Vec<String>,
) -> Result<(), Contradiction> {
    let Some(sm) = g.sm_count else {
        return Ok(());
    };
    if let Some(&most) = hints.sm_counts.iter().max().filter(|&&n| n > sm) {
        let peers = gpus::by_compute_capability(g.compute_capability);
        let above_all = peers.iter().all(|p| p.sm_count.is_some_and(|n| n < most));
        let why = if above_all {
            format!(
                " (more than any GPU of compute capability {} in the table: not {} nor a part of one)",
                g.compute_capability, g.key
            )
        } else {
            format!(
                " (more than {} has: a part of a GPU has fewer SMs, never more)",
                g.key
            )
        };
        return Err(contradiction(
            "SM count",
            sm.to_string(),
            most.to_string(),
            why,
        ));
    }
    notes.extend(part_note(g, hints));
    Ok(())
}

/// The note on an input with fewer SMs than `g` (a MIG slice or a green
/// context): `g`'s roofs overstate a part of it.
pub fn part_note(g: &GpuSpec, hints: &DeviceHints) -> Option<String> {
    let sm = g.sm_count?;
    let fewer: Vec<u32> = hints
        .sm_counts
        .iter()
        .copied()
        .filter(|&n| n < sm)
        .collect();
    (!fewer.is_empty()).then(|| {
        format!(
            "{} reports {} SMs where {} has {sm}: a MIG slice or a green context? the roofs are the whole {}'s and overstate a part of it; give measured roofs with --roofs FILE",
            hints.file,
            list(&fewer, ""),
            g.key,
            g.key
        )
    })
}

/// L2 size, bus width, DRAM bandwidth: another value rules `g` out, but a
/// smaller one on a part of `g` ([`is_part`]).
fn sizes(g: &GpuSpec, hints: &DeviceHints) -> Result<(), Contradiction> {
    let part = is_part(g, hints);
    let off = |value: f64, reference: f64, tolerance: f64| {
        rel(value, reference) > tolerance && !(part && value < reference)
    };
    if let Some(l2) = g.l2_bytes {
        let mib = |b: u64| format!("{:.1} MiB", b as f64 / (1u64 << 20) as f64);
        if let Some(&b) = hints
            .l2_bytes
            .iter()
            .find(|&&b| off(b as f64, l2 as f64, L2_TOLERANCE))
        {
            return Err(contradiction("L2 size", mib(l2), mib(b), String::new()));
        }
    }
    if let Some(bus) = g.bus_width_bits {
        if let Some(&b) = hints
            .bus_widths_bits
            .iter()
            .find(|&&b| off(f64::from(b), f64::from(bus), 0.0))
        {
            return Err(contradiction(
                "memory bus width",
                format!("{bus} bits"),
                format!("{b} bits"),
                String::new(),
            ));
        }
    }
    if let Some(dram) = g.datasheet_dram() {
        let gbs = |b: f64| format!("{:.1} GB/s", b / 1e9);
        if let Some(&b) = hints
            .memory_bandwidths_bytes_per_s
            .iter()
            .find(|&&b| off(b as f64, dram, BANDWIDTH_TOLERANCE))
        {
            return Err(contradiction(
                "DRAM bandwidth",
                format!("{} (datasheet)", gbs(dram)),
                gbs(b as f64),
                format!(" (over {:.0} % apart)", BANDWIDTH_TOLERANCE * 100.0),
            ));
        }
    }
    Ok(())
}

/// Memory clocks: one further than [`MEMORY_CLOCK_TOLERANCE`] from `g`'s
/// rules `g` out when it is within it of another GPU of `g`'s compute
/// capability (the clock of another card); one that fits no such GPU is a
/// note (a power state, or a clock the table does not know: a real V100
/// export states 627 MHz, the attribute is 877).
fn memory_clock(
    g: &GpuSpec,
    hints: &DeviceHints,
    notes: &mut Vec<String>,
) -> Result<(), Contradiction> {
    let Some(mhz) = g.memory_clock_mhz else {
        return Ok(());
    };
    let peers = gpus::by_compute_capability(g.compute_capability);
    // The clocks that fit no GPU: one note for all of them (a file of many
    // launches can state 23 clocks, each a line of its own before).
    let mut odd: Vec<u64> = Vec::new();
    for &f in &hints.memory_clocks_mhz {
        if rel(f as f64, mhz) <= MEMORY_CLOCK_TOLERANCE {
            continue;
        }
        let fits: Vec<&str> = peers
            .iter()
            .filter(|p| p.key != g.key)
            .filter(|p| {
                p.memory_clock_mhz
                    .is_some_and(|m| rel(f as f64, m) <= MEMORY_CLOCK_TOLERANCE)
            })
            .map(|p| p.key)
            .collect();
        if fits.is_empty() {
            odd.push(f);
            continue;
        }
        return Err(contradiction(
            "memory clock",
            format!("{mhz} MHz"),
            format!("{f} MHz"),
            format!(
                " ({:.1} % apart, over the {:.0} % a measured clock strays, and within it of {})",
                rel(f as f64, mhz) * 100.0,
                MEMORY_CLOCK_TOLERANCE * 100.0,
                fits.join(", ")
            ),
        ));
    }
    if let Some(note) = odd_clocks_note(g, hints, mhz, &odd) {
        notes.push(note);
    }
    Ok(())
}

/// The one note on the memory clocks `odd` that fit neither `g`'s `mhz`
/// nor another GPU of its compute capability; `None` when there are none.
fn odd_clocks_note(g: &GpuSpec, hints: &DeviceHints, mhz: f64, odd: &[u64]) -> Option<String> {
    let worst = odd
        .iter()
        .map(|&f| rel(f as f64, mhz))
        .fold(None, |m: Option<f64>, r| Some(m.map_or(r, |m| m.max(r))))?;
    let clocks = match odd {
        [f] => format!("a memory clock of {f} MHz, {:.0} %", worst * 100.0),
        _ => format!(
            "{} memory clocks ({} MHz), up to {:.0} %",
            odd.len(),
            list(odd, ""),
            worst * 100.0
        ),
    };
    Some(format!(
        "{} reports {clocks} from {}'s {mhz} MHz and no other GPU's of compute capability {}: a power state? the DRAM roof assumes {mhz} MHz",
        hints.file, g.key, g.compute_capability
    ))
}

/// ncu's own peaks against `g`'s: the DRAM peak against the datasheet
/// bandwidth, the FP32 peak per SM cycle against 2 x lanes x SMs; smaller
/// on a part of `g` is no contradiction.
fn ncu_peaks(g: &GpuSpec, hints: &DeviceHints, peaks: &Roofs) -> Result<(), Contradiction> {
    let part = is_part(g, hints);
    let off = |value: f64, reference: f64| {
        rel(value, reference) > NCU_PEAK_TOLERANCE && !(part && value < reference)
    };
    // Per memory cycle where both clocks are known (a clock held low
    // under profiling moves both sides alike), else per second.
    if let (Some(ncu), Some(dram)) = (peaks.dram(), g.datasheet_dram()) {
        let per_cycle = peaks.clocks.memory_clock_hz.zip(g.memory_clock_mhz);
        let (file, gpu, unit) = match per_cycle {
            Some((f, m)) => (
                ncu.bytes_per_s / f,
                dram / (m * 1e6),
                "byte per memory cycle",
            ),
            None => (ncu.bytes_per_s / 1e9, dram / 1e9, "GB/s"),
        };
        if off(file, gpu) {
            return Err(contradiction(
                "DRAM peak",
                format!("{gpu:.1} {unit} (datasheet)"),
                format!("{file:.1} {unit} ({}, ncu's own peak)", ncu.source),
                format!(" (over {:.0} % apart)", NCU_PEAK_TOLERANCE * 100.0),
            ));
        }
    }
    let fp32 = peaks.compute.get(&ComputePath::Fp32).map(|r| r.flop_per_s);
    let lanes = gpus::fp32_lanes_per_sm(g.compute_capability).map(|l| l.0);
    if let (Some(flop), Some(clock), Some(lanes), Some(sms)) =
        (fp32, peaks.clocks.sm_clock_hz, lanes, g.sm_count)
    {
        let per_cycle = flop / clock;
        let table = 2.0 * f64::from(lanes) * f64::from(sms);
        if off(per_cycle, table) {
            return Err(contradiction(
                "FP32 peak per SM cycle",
                format!("{table:.0} FLOP (2 x {lanes} lanes x {sms} SMs)"),
                format!("{per_cycle:.0} FLOP (ncu's FFMA peak_sustained x 2)"),
                format!(" (over {:.0} % apart)", NCU_PEAK_TOLERANCE * 100.0),
            ));
        }
    }
    Ok(())
}

/// The DRAM peak the file's throughput percentage implies is at most the
/// true peak ([`DeviceHints::implied_dram_peak_bytes_per_s`]): a GPU whose
/// datasheet bandwidth is more than [`NCU_PEAK_TOLERANCE`] below it is
/// ruled out (a part of a GPU has a smaller peak, never a larger one).
fn implied_dram_peak(g: &GpuSpec, hints: &DeviceHints) -> Result<(), Contradiction> {
    let (Some(implied), Some(dram)) = (hints.implied_dram_peak_bytes_per_s, g.datasheet_dram())
    else {
        return Ok(());
    };
    if implied > dram * (1.0 + NCU_PEAK_TOLERANCE) {
        return Err(contradiction(
            "DRAM peak",
            format!("{:.1} GB/s (datasheet)", dram / 1e9),
            format!(
                "at least {:.1} GB/s (DRAM bytes / duration / ncu's dram__throughput %)",
                implied / 1e9
            ),
            format!(" (over {:.0} % above it)", NCU_PEAK_TOLERANCE * 100.0),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{check, gpus, DeviceHints};

    /// Three measured memory clocks that fit no CC 7.0 GPU of the table
    /// (the V100s' attribute is 877 MHz; 627, 700 and 810 MHz lie 28.5 %,
    /// 20.2 % and 7.6 % from it, over the tolerance, and near no other
    /// card of that CC): one note naming all three and the worst distance,
    /// where each was a note of its own (a real file states 23).
    #[test]
    fn odd_memory_clocks_make_one_note() {
        let g = gpus::by_key("v100").unwrap();
        let hints = DeviceHints {
            file: "k.csv".into(),
            memory_clocks_mhz: vec![627, 700, 810],
            ..DeviceHints::default()
        };
        let notes = check(g, &hints).unwrap();
        let clocks: Vec<&String> = notes
            .iter()
            .filter(|n| n.contains("memory clock"))
            .collect();
        assert_eq!(clocks.len(), 1, "{notes:?}");
        assert!(
            clocks[0]
                .contains("3 memory clocks (627, 700, 810 MHz), up to 29 % from v100's 877 MHz"),
            "{}",
            clocks[0]
        );
    }
}
