//! Measured roofs vs the datasheet: one row per roof with the fraction of
//! the datasheet reached, and the ridge points of both. Pure functions; the
//! datasheet roofs come from `crate::roofs::gpus` when the GPU is known.

use crate::roofs::model::{ComputePath, MemoryLevel, Roofs};

/// Which roof a row describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum RoofKey {
    /// A sloped roof.
    Memory(MemoryLevel),
    /// A flat roof.
    Compute(ComputePath),
}

impl RoofKey {
    /// The JSON/CSV key (`dram`, `tensor_bf16` ...).
    pub fn key(self) -> &'static str {
        match self {
            RoofKey::Memory(l) => l.key(),
            RoofKey::Compute(p) => p.key(),
        }
    }

    /// Human label (`DRAM`, `BF16 tensor` ...).
    pub fn label(self) -> &'static str {
        match self {
            RoofKey::Memory(l) => l.label(),
            RoofKey::Compute(p) => p.label(),
        }
    }

    /// Unit of the roof's value: `B/s` or `FLOP/s`.
    pub fn unit(self) -> &'static str {
        match self {
            RoofKey::Memory(_) => "B/s",
            RoofKey::Compute(_) => "FLOP/s",
        }
    }
}

/// One measured roof next to its datasheet value.
#[derive(Debug, Clone, PartialEq)]
pub struct RoofRow {
    /// Which roof.
    pub roof: RoofKey,
    /// Measured value, in B/s or FLOP/s.
    pub measured: f64,
    /// Datasheet value, same unit, when the GPU is in the built-in table.
    pub datasheet: Option<f64>,
    /// measured / datasheet.
    pub fraction_of_datasheet: Option<f64>,
    /// Kernel that gave the measured value.
    pub kernel: String,
    /// Its shape.
    pub shape: String,
    /// IQR / median of that point.
    pub iqr_fraction: Option<f64>,
    /// SM clock the point ran at, in Hz; `None` when not recorded.
    pub sm_clock_hz: Option<f64>,
    /// NVML reasons the clock was held down (`sw_power_cap` ...).
    pub throttle_reasons: Vec<String>,
}

/// Ridge point of one compute path, I* = F / B_dram.
#[derive(Debug, Clone, PartialEq)]
pub struct RidgeRow {
    /// The compute path.
    pub path: ComputePath,
    /// From the measured roofs, in FLOP/byte.
    pub measured_flop_per_byte: Option<f64>,
    /// From the datasheet roofs, in FLOP/byte.
    pub datasheet_flop_per_byte: Option<f64>,
}

/// The comparison table.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    /// Memory roofs first (DRAM, L2, L1), then compute paths in display order.
    pub roofs: Vec<RoofRow>,
    /// One row per measured compute path.
    pub ridges: Vec<RidgeRow>,
}

/// Compares measured roofs with datasheet roofs (`None` when the GPU is not
/// in the built-in table: fractions are then `None`).
pub fn compare(measured: &Roofs, datasheet: Option<&Roofs>) -> Comparison {
    let mut roofs = Vec::new();
    for level in MemoryLevel::ALL {
        let Some(m) = measured.memory.get(&level) else {
            continue;
        };
        let ds = datasheet
            .and_then(|d| d.memory.get(&level))
            .map(|r| r.bytes_per_s);
        roofs.push(row(
            RoofKey::Memory(level),
            m.bytes_per_s,
            ds,
            m.measurement.as_ref(),
        ));
    }
    for path in ComputePath::ALL {
        let Some(m) = measured.compute.get(&path) else {
            continue;
        };
        let ds = datasheet
            .and_then(|d| d.compute.get(&path))
            .map(|r| r.flop_per_s);
        roofs.push(row(
            RoofKey::Compute(path),
            m.flop_per_s,
            ds,
            m.measurement.as_ref(),
        ));
    }
    let ridges = ComputePath::ALL
        .into_iter()
        .filter(|p| measured.compute.contains_key(p))
        .map(|path| RidgeRow {
            path,
            measured_flop_per_byte: measured.ridge_flop_per_byte(path),
            datasheet_flop_per_byte: datasheet.and_then(|d| d.ridge_flop_per_byte(path)),
        })
        .collect();
    Comparison { roofs, ridges }
}

fn row(
    roof: RoofKey,
    measured: f64,
    datasheet: Option<f64>,
    m: Option<&crate::roofs::model::Measurement>,
) -> RoofRow {
    RoofRow {
        roof,
        measured,
        datasheet,
        fraction_of_datasheet: datasheet.map(|d| measured / d),
        kernel: m.map(|m| m.kernel.clone()).unwrap_or_default(),
        shape: m.map(|m| m.shape.clone()).unwrap_or_default(),
        iqr_fraction: m.map(|m| m.iqr / m.median),
        sm_clock_hz: m.and_then(|m| m.sm_clock_hz),
        throttle_reasons: m.map(|m| m.throttle_reasons.clone()).unwrap_or_default(),
    }
}
