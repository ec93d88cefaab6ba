//! The `clocks:` line of the `rooftrace ncu` report: the clocks the
//! launches ran at, the clocks the roofs assume, and whether the roofs were
//! scaled (docs/ncu.md, "Clocks").

use crate::roofline::RooflineReport;

/// One line on the clocks: what the launches ran at, what the roofs
/// assume, and whether the roofs were scaled (docs/ncu.md, "Clocks").
pub fn clock_line(r: &RooflineReport) -> String {
    let c = &r.clock;
    let mhz = |hz: f64| format!("{:.0}", hz / 1e6);
    let range = |x: &crate::roofline::ClockRange| {
        if (x.max_hz - x.min_hz).abs() < 0.5e6 {
            format!("{} MHz", mhz(x.min_hz))
        } else {
            format!("{}-{} MHz", mhz(x.min_hz), mhz(x.max_hz))
        }
    };
    let sm = match (&c.run_sm_clock_hz, c.roof_sm_clock_hz) {
        (Some(run), Some(roof)) => format!(
            "SM {} as run, roofs assume {} MHz{}",
            range(run),
            mhz(roof),
            if c.compute_scaled {
                ": compute roofs scaled to the run clock"
            } else if c.roof_clock == crate::roofline::RoofClock::Boost {
                ": compute roofs not scaled (--roof-clock boost)"
            } else {
                ""
            }
        ),
        (Some(run), None) => format!("SM {} as run, roofs state no clock: not scaled", range(run)),
        (None, Some(roof)) => format!(
            "SM clock not in the file: roofs at their {} MHz, not scaled",
            mhz(roof)
        ),
        (None, None) => "SM clock unknown: roofs not scaled".to_string(),
    };
    let dram = match (&c.run_dram_clock_hz, c.roof_memory_clock_hz) {
        (Some(run), Some(roof)) => format!(
            ", DRAM {} as run, roofs assume {} MHz{}",
            range(run),
            mhz(roof),
            if c.memory_scaled {
                ": DRAM roof scaled"
            } else {
                ""
            }
        ),
        (Some(run), None) => format!(", DRAM {} as run", range(run)),
        _ => String::new(),
    };
    format!("clocks: {sm}{dram}")
}
