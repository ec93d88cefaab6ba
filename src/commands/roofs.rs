//! The roofs flags ([`RoofsArgs`]) as plain config: one conversion for every
//! command that takes them (`ncu`, `budget`, `diff`), checked before any
//! work (exit 2 on a bad `--peak`).

use crate::cli::quantity::{self, FLOP_RATE};
use crate::cli::roofs::{PeakArgs, RoofsArgs};
use crate::error::InputError;
use crate::roofs::{ComputePath, Roofs, RoofsChoice};
use std::path::PathBuf;

/// The choice the flags make: the command-line peaks, a table GPU, the
/// file's ncu peaks, a roofs file, or (none given) detection from the input.
pub fn choice(args: &RoofsArgs) -> Result<RoofsChoice, InputError> {
    Ok(
        match (peak_roofs(&args.peaks)?, &args.gpu, args.roofs.as_deref()) {
            (Some(flags), _, _) => RoofsChoice::Flags(Box::new(flags)),
            (None, Some(g), _) => RoofsChoice::Gpu(g.clone()),
            (None, None, Some("ncu")) => RoofsChoice::Ncu,
            (None, None, Some(r)) => {
                crate::input::refuse_other_kinds(r.as_ref(), &crate::input::ROOFS)?;
                RoofsChoice::File(PathBuf::from(r))
            }
            (None, None, None) => RoofsChoice::FromCsv,
        },
    )
}

/// True when any roofs flag was given (`--gpu`, `--roofs`, `--peak-dram-bw`).
pub fn given(args: &RoofsArgs) -> bool {
    args.gpu.is_some() || args.roofs.is_some() || args.peaks.peak_dram_bw.is_some()
}

/// The roofs of `--peak-dram-bw`/`--peak`/`--peak-sm-clock`/`--peak-mem-clock`
/// (source `command line`), `None` without `--peak-dram-bw`.
pub fn peak_roofs(args: &PeakArgs) -> Result<Option<Roofs>, InputError> {
    let Some(dram) = args.peak_dram_bw else {
        return Ok(None);
    };
    let peaks = args
        .peak
        .iter()
        .map(|p| parse_peak(p).map_err(|e| InputError::new(format!("--peak: {e}"))))
        .collect::<Result<Vec<_>, _>>()?;
    let mut roofs = Roofs::from_command_line(dram, &peaks).map_err(InputError::new)?;
    if let Some(hz) = args.peak_sm_clock {
        roofs.clocks.sm_clock_hz = Some(hz);
        roofs.clocks.sm_clock_source = "command line: --peak-sm-clock".into();
    }
    if let Some(hz) = args.peak_mem_clock {
        roofs.clocks.memory_clock_hz = Some(hz);
        roofs.clocks.memory_clock_source = "command line: --peak-mem-clock".into();
    }
    Ok(Some(roofs))
}

/// Parses `--peak PATH=RATE`.
fn parse_peak(s: &str) -> Result<(ComputePath, f64), String> {
    let keys = || {
        ComputePath::ALL
            .iter()
            .map(|p| p.key())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let (path, rate) = s.split_once('=').ok_or_else(|| {
        format!(
            "`{s}` is not PATH=RATE; write e.g. fp32=30.8TFLOP/s (paths: {})",
            keys()
        )
    })?;
    let p = ComputePath::from_key(path.trim()).ok_or_else(|| {
        let all: Vec<&str> = ComputePath::ALL.iter().map(|p| p.key()).collect();
        // The closest paths, or where the list is: never all of them.
        let hint = crate::suggest::did_you_mean(path.trim(), &all).unwrap_or_else(|| {
            format!(
                "none of the {} compute paths is close; `rooftrace ncu --help` lists them under --peak",
                all.len()
            )
        });
        format!("unknown compute path `{}` in `{s}`; {hint}", path.trim())
    })?;
    Ok((p, quantity::parse(rate, &FLOP_RATE)?))
}
