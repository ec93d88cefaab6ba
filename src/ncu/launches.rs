//! The launches while the rows are read: which launch a row belongs to
//! (identity columns, one launch per (Process ID, ID), kernel names
//! interned), and storing one metric value into its launch (number, unit,
//! dimension and plausibility checked, converted to SI), then each launch
//! finalized. The row readers of both pages (`parse`) feed it.

use super::bounds::{echo, implausible, number_error};
use super::finalize::{finalize, RawLaunch};
use super::metrics::{scalar_dimension, Peak, Scalar, Slot, N_SCALARS};
use super::model::{DeviceFacts, NcuCsv, NcuPeaks, Page, PeakKey};
use super::number::{parse_unit, parse_value, Dimension, Unit, Value};
use super::records::Row;
use super::NcuError;
use crate::units::ComputeCapability;
use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

/// Where the identity columns of a launch are.
pub(super) struct Identity {
    pub(super) id: usize,
    pub(super) pid: usize,
    pub(super) kernel: usize,
    pub(super) cc: Option<usize>,
}

/// The launches read so far, with what the file says about its device.
pub(super) struct Launches<'a> {
    pub(super) file: &'a str,
    launches: Vec<RawLaunch>,
    by_key: HashMap<(u64, u64), usize>,
    last: Option<((u64, u64), usize)>,
    names: HashMap<Box<[u8]>, Arc<str>>,
    recent_units: Vec<(Box<[u8]>, Unit)>,
    unit_cache: HashMap<Box<[u8]>, Unit>,
    devices: BTreeSet<String>,
    ccs: BTreeSet<ComputeCapability>,
    facts: DeviceFacts,
    peaks: NcuPeaks,
}

impl<'a> Launches<'a> {
    pub(super) fn new(file: &'a str) -> Launches<'a> {
        Launches {
            file,
            launches: Vec::new(),
            by_key: HashMap::new(),
            last: None,
            names: HashMap::new(),
            recent_units: Vec::new(),
            unit_cache: HashMap::new(),
            devices: BTreeSet::new(),
            ccs: BTreeSet::new(),
            facts: DeviceFacts::default(),
            peaks: NcuPeaks::default(),
        }
    }

    /// The index of the launch row `rec` belongs to, a new one for a new
    /// (Process ID, ID).
    pub(super) fn launch_index(
        &mut self,
        rec: &Row<'_>,
        ident: &Identity,
    ) -> Result<usize, NcuError> {
        let pid = self.parse_id(rec, ident.pid, "Process ID")?;
        let id = self.parse_id(rec, ident.id, "ID")?;
        let raw_name = rec.get(ident.kernel).unwrap_or_default();
        if let Some((k, i)) = self.last {
            if k == (pid, id) {
                return self.same_kernel(i, raw_name, rec);
            }
        }
        let i = match self.by_key.get(&(pid, id)) {
            Some(&i) => self.same_kernel(i, raw_name, rec)?,
            None => {
                let name = match self.names.get(raw_name) {
                    Some(n) => n.clone(),
                    None => {
                        let n: Arc<str> = Arc::from(String::from_utf8_lossy(raw_name).as_ref());
                        self.names.insert(raw_name.into(), n.clone());
                        n
                    }
                };
                // Parsed once here; text that is no `major.minor` says
                // nothing about the device (unknown, not a device).
                if let Some(cc) = ident.cc.and_then(|c| rec.get(c)) {
                    if let Some(cc) = std::str::from_utf8(cc)
                        .ok()
                        .and_then(ComputeCapability::parse)
                    {
                        self.ccs.insert(cc);
                    }
                }
                let line = rec.line;
                self.launches.push(RawLaunch {
                    pid,
                    id,
                    name,
                    line,
                    scalars: [f64::NAN; N_SCALARS],
                    tensor: Vec::new(),
                    tensor_inst: f64::NAN,
                    nan_metrics: 0,
                });
                let i = self.launches.len() - 1;
                self.by_key.insert((pid, id), i);
                i
            }
        };
        self.last = Some(((pid, id), i));
        Ok(i)
    }

    /// `i` when row `rec` names the same kernel as launch `i`; two kernels
    /// under one (ID, Process ID) are an error, never merged.
    fn same_kernel(&self, i: usize, raw: &[u8], rec: &Row<'_>) -> Result<usize, NcuError> {
        let l = &self.launches[i];
        if l.name.as_bytes() == raw || *l.name == *String::from_utf8_lossy(raw) {
            return Ok(i);
        }
        Err(NcuError::DuplicateLaunch {
            file: self.file.to_string(),
            line: rec.line,
            first_line: l.line,
            id: l.id,
            pid: l.pid,
            first: echo(l.name.as_bytes()),
            second: echo(raw),
        })
    }

    fn parse_id(&self, rec: &Row<'_>, col: usize, what: &str) -> Result<u64, NcuError> {
        let cell = rec.get(col).unwrap_or_default();
        let mut v: u64 = 0;
        let ok = !cell.is_empty()
            && cell.len() < 20
            && cell.iter().all(|b| {
                if b.is_ascii_digit() {
                    v = v * 10 + u64::from(b - b'0');
                    true
                } else {
                    false
                }
            });
        if ok {
            Ok(v)
        } else {
            Err(NcuError::BadId {
                file: self.file.to_string(),
                line: rec.line,
                column: what.to_string(),
                value: echo(cell),
            })
        }
    }

    /// Stores a device name or fact (hints for choosing the roofs, never an
    /// error: a value that does not read is ignored); false for other slots.
    fn store_device(&mut self, slot: Slot, unit: &[u8], value: &[u8]) -> bool {
        match slot {
            Slot::DeviceName => {
                let v = String::from_utf8_lossy(value).trim().to_string();
                if !v.is_empty() && v != "n/a" {
                    self.devices.insert(v);
                }
                true
            }
            Slot::Device(attr) => {
                self.facts.note(attr, unit, value);
                true
            }
            _ => false,
        }
    }

    /// Stores the value of one metric cell into launch `i`: parsed, its
    /// unit checked against the slot's dimension, converted to SI, checked
    /// for plausibility. `column` names the cell in messages.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn store(
        &mut self,
        i: usize,
        slot: Slot,
        metric: &[u8],
        unit: &[u8],
        value: &[u8],
        rec: &Row<'_>,
        column: &str,
    ) -> Result<(), NcuError> {
        if self.store_device(slot, unit, value) {
            return Ok(());
        }
        let metric_s = || String::from_utf8_lossy(metric).into_owned();
        let column_s = || {
            if column == "Metric Value" {
                format!("Metric Value ({})", metric_s())
            } else {
                column.to_string()
            }
        };
        let v = match parse_value(value) {
            Ok(Value::Number(v)) => v,
            Ok(Value::Missing) => return Ok(()),
            Ok(Value::NaN) => {
                self.launches[i].nan_metrics += 1;
                return Ok(());
            }
            Err(e) => {
                let line = rec.line;
                return Err(number_error(e, self.file, line, column_s(), value));
            }
        };
        let unit_s = std::str::from_utf8(unit).unwrap_or("").trim();
        let u = self.unit(unit, unit_s);
        let bad_unit = |expected| NcuError::BadUnit {
            file: self.file.to_string(),
            line: rec.line,
            metric: metric_s(),
            unit: unit_s.to_string(),
            expected,
        };
        // Check the dimension and convert to ns / byte / 1/s / count.
        // No unit at all (a raw page without its units row): ncu's base unit.
        let convert = |dim: Dimension, expected: &'static str| {
            if unit_s.is_empty() {
                Ok(v)
            } else if u.dimension == dim {
                Ok(v * u.factor)
            } else {
                Err(bad_unit(expected))
            }
        };
        match slot {
            Slot::Scalar(s) => {
                let v = match scalar_dimension(s) {
                    Dimension::Time => convert(Dimension::Time, "a time (ns, us, ms, s)")?,
                    Dimension::Bytes => {
                        convert(Dimension::Bytes, "bytes (byte, Kbyte, Mbyte, ...)")?
                    }
                    Dimension::Rate => {
                        convert(Dimension::Rate, "a rate (hz, Ghz, cycle/second, ...)")?
                    }
                    Dimension::BytesPerSecond => convert(
                        Dimension::BytesPerSecond,
                        "bytes per second (byte/second, Gbyte/second, ...)",
                    )?,
                    Dimension::Percent => convert(Dimension::Percent, "a percentage (%)")?,
                    // Chart body items print some per-cycle rates as `inst`.
                    Dimension::PerCycle if u.dimension == Dimension::Count => v * u.factor,
                    Dimension::PerCycle => {
                        convert(Dimension::PerCycle, "a rate per cycle (inst/cycle, ...)")?
                    }
                    _ => convert(Dimension::Count, "a count (inst, cycle, sector, or none)")?,
                };
                self.check(v, rec, &column_s, value)?;
                self.launches[i].scalars[s as usize] = v;
                match s {
                    Scalar::SmCyclesPerSecond => self.peak(Peak::SmClock, v),
                    Scalar::DramCyclesPerSecond => self.peak(Peak::DramClock, v),
                    _ => {}
                }
            }
            Slot::Tensor(k) => {
                let v = convert(Dimension::Count, "a count (inst or none)")?;
                self.check(v, rec, &column_s, value)?;
                let l = &mut self.launches[i];
                match l.tensor.iter_mut().find(|(key, _)| *key == k) {
                    Some(e) => e.1 = v,
                    None => l.tensor.push((k, v)),
                }
            }
            Slot::TensorInst => {
                let v = convert(Dimension::Count, "a count (inst or none)")?;
                self.check(v, rec, &column_s, value)?;
                let l = &mut self.launches[i];
                // The instruction families overlap; keep the largest.
                if l.tensor_inst.is_nan() || l.tensor_inst < v {
                    l.tensor_inst = v;
                }
            }
            Slot::Peak(p) => {
                let v = match p {
                    Peak::DramClock | Peak::L2Clock | Peak::L1Clock | Peak::SmClock => {
                        convert(Dimension::Rate, "a rate (hz, cycle/second, ...)")?
                    }
                    Peak::DramBytesPerCycle | Peak::L2BytesPerCycle | Peak::L1BytesPerCycle => {
                        // ncu prints `byte/cycle` for these; accept bytes too.
                        if unit_s.ends_with("/cycle") || u.dimension == Dimension::Bytes {
                            let b = parse_unit(unit_s.trim_end_matches("/cycle"));
                            v * b.factor
                        } else {
                            return Err(bad_unit("byte/cycle"));
                        }
                    }
                    _ => v * parse_unit(unit_s.trim_end_matches("/cycle")).factor,
                };
                self.check(v, rec, &column_s, value)?;
                self.peak(p, v);
            }
            Slot::PeakOps(p) => {
                // FLOP per cycle, 2 per FMA: the FMA peak is half.
                let v = v * parse_unit(unit_s.trim_end_matches("/cycle")).factor / 2.0;
                self.check(v, rec, &column_s, value)?;
                self.peak(p, v);
            }
            Slot::DeviceName | Slot::Device(_) => {}
        }
        Ok(())
    }

    /// A value that is not finite or beyond [`super::bounds::MAX_MAGNITUDE`]
    /// once its unit is applied is bad input, named by line and column.
    fn check(
        &self,
        v: f64,
        rec: &Row<'_>,
        column: &dyn Fn() -> String,
        cell: &[u8],
    ) -> Result<(), NcuError> {
        match implausible(v) {
            None => Ok(()),
            why => Err(self.implausible(rec, column(), cell, why)),
        }
    }

    fn implausible(
        &self,
        rec: &Row<'_>,
        column: String,
        cell: &[u8],
        why: Option<&'static str>,
    ) -> NcuError {
        NcuError::Implausible {
            file: self.file.to_string(),
            line: rec.line,
            column,
            value: echo(cell),
            why: why.unwrap_or("is not a measurement"),
        }
    }

    fn peak(&mut self, p: Peak, v: f64) {
        self.peaks.values.entry(PeakKey::from(p)).or_insert(v);
    }

    /// The unit `unit` (`unit_s`: as text, trimmed), parsed once: a file
    /// uses a handful of units, found by a byte comparison in the first
    /// [`RECENT_UNITS`], by a hash past them.
    fn unit(&mut self, unit: &[u8], unit_s: &str) -> Unit {
        if let Some((_, u)) = self.recent_units.iter().find(|(k, _)| **k == *unit) {
            return *u;
        }
        if let Some(u) = self.unit_cache.get(unit) {
            return *u;
        }
        let u = parse_unit(unit_s);
        if self.recent_units.len() < RECENT_UNITS {
            self.recent_units.push((unit.into(), u));
        } else if self.unit_cache.len() < UNIT_CACHE_MAX {
            self.unit_cache.insert(unit.into(), u);
        }
        u
    }

    /// Every launch finalized into the parsed file.
    pub(super) fn finish(
        self,
        page: Page,
        header_line: u64,
        columns: usize,
        log: Vec<String>,
    ) -> Result<NcuCsv, NcuError> {
        if self.launches.is_empty() {
            return Err(NcuError::NoLaunches {
                file: self.file.to_string(),
                line: header_line,
            });
        }
        let launches = self.launches.into_iter().map(finalize).collect();
        Ok(NcuCsv {
            file: self.file.to_string(),
            page,
            columns,
            launches,
            device_names: self.devices.into_iter().collect(),
            compute_capabilities: self.ccs.into_iter().collect(),
            facts: self.facts,
            peaks: self.peaks,
            log,
        })
    }
}

/// Units compared byte for byte before the hashed cache is asked.
const RECENT_UNITS: usize = 8;

/// Most distinct units remembered in the hashed cache; ncu prints a few dozen, and a hostile
/// file cannot grow the cache past this.
const UNIT_CACHE_MAX: usize = 256;
