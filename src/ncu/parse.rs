//! The streaming parser: log preamble, then the details page (long format,
//! 12/15/20/21 columns, ragged rule rows) or the raw page (wide format with
//! a units row), into [`NcuCsv`].

use super::bounds::{echo, implausible, number_error, Guard};
use super::finalize::{finalize, RawLaunch};
use super::metrics::{classify, scalar_dimension, Peak, Scalar, Slot, N_SCALARS};
use super::model::{DeviceFacts, NcuCsv, NcuPeaks, Page, PeakKey};
use super::number::{parse_unit, parse_value, Dimension, Unit, Value};
use super::preamble::{csv_err, read_preamble};
use super::NcuError;
use std::cell::Cell;
use std::collections::{BTreeSet, HashMap};
use std::io::{BufReader, Read};
use std::rc::Rc;
use std::sync::Arc;

/// Parses an ncu CSV from `input`; `file` names it in messages. Phases:
/// the preamble before the header, the header (which page, which columns),
/// the rows of that page, then each launch finalized.
pub fn parse(input: impl Read, file: &str) -> Result<NcuCsv, NcuError> {
    let mut reader = BufReader::with_capacity(1 << 16, input);
    let pre = read_preamble(&mut reader, file)?;
    let crlf = pre.header_line.ends_with(b"\r\n");
    // Every field ncu writes is quoted, so a complete file has an even
    // number of `"` from the header on; an odd count means the file ends
    // inside a field (truncated), where the csv crate would silently yield
    // e.g. `134,957,158` for `134,957,158,144`: 1000x off.
    let quotes = Rc::new(Cell::new(0u64));
    let mut csv = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .buffer_capacity(1 << 16)
        .from_reader(Guard::new(
            std::io::Cursor::new(pre.header_line).chain(reader),
            quotes.clone(),
        ));
    let header = read_header(&mut csv, file, pre.line_no)?;
    let mut st = State::new(file, pre.line_no - 1, pre.log);
    st.crlf = crlf;
    st.columns = header.columns.len();
    let mut rec = csv::ByteRecord::new();
    match &header.details {
        Some(d) => st.read_details(&mut csv, &mut rec, &header.ident, d)?,
        None => st.read_raw(&mut csv, &mut rec, &header.ident, &header.columns)?,
    }
    if quotes.get() % 2 == 1 {
        return Err(NcuError::Truncated {
            file: file.to_string(),
            line: st.line_of(&rec),
        });
    }
    let page = if header.details.is_some() {
        Page::Details
    } else {
        Page::Raw
    };
    st.finish(page, pre.line_no)
}

/// The header: its columns, where the identity columns are, and (details
/// page only) where the metric name, unit and value are.
struct Header {
    columns: Vec<String>,
    ident: Identity,
    /// `Some` on the details page, `None` on the raw page.
    details: Option<Details>,
}

fn read_header<R: Read>(
    csv: &mut csv::Reader<R>,
    file: &str,
    line: u64,
) -> Result<Header, NcuError> {
    let mut header = csv::ByteRecord::new();
    csv.read_byte_record(&mut header)
        .map_err(|e| csv_err(e, file, line))?;
    let columns: Vec<String> = header
        .iter()
        .map(|c| String::from_utf8_lossy(c).trim().to_string())
        .collect();
    let col = |name: &str| columns.iter().position(|c| c == name);
    let need = |name: &str| {
        col(name).ok_or_else(|| NcuError::MissingColumn {
            file: file.to_string(),
            line,
            column: name.to_string(),
        })
    };
    let ident = Identity {
        id: need("ID")?,
        pid: need("Process ID")?,
        kernel: need("Kernel Name")?,
        cc: col("CC"),
    };
    let details = if col("Metric Name").is_some() || col("Metric Value").is_some() {
        Some(Details {
            section: col("Section Name"),
            name: need("Metric Name")?,
            unit: need("Metric Unit")?,
            value: need("Metric Value")?,
        })
    } else {
        None
    };
    Ok(Header {
        columns,
        ident,
        details,
    })
}

struct Identity {
    id: usize,
    pid: usize,
    kernel: usize,
    cc: Option<usize>,
}

struct Details {
    section: Option<usize>,
    name: usize,
    unit: usize,
    value: usize,
}

struct State<'a> {
    file: &'a str,
    lines_before: u64,
    crlf: bool,
    log: Vec<String>,
    columns: usize,
    launches: Vec<RawLaunch>,
    by_key: HashMap<(u64, u64), usize>,
    last: Option<((u64, u64), usize)>,
    names: HashMap<Box<[u8]>, Arc<str>>,
    metric_cache: BytesMap<Option<Slot>>,
    /// The metric names of the details page in the order rows bring them,
    /// with their slots: ncu writes each launch's metrics in the same order,
    /// so row k of a launch is compared byte for byte with entry k before
    /// the name is hashed (see [`State::seq_slot`]).
    seq: Vec<(Box<[u8]>, Option<Slot>)>,
    seq_pos: usize,
    label_cache: BytesMap<Option<Slot>>,
    unit_cache: BytesMap<Unit>,
    devices: BTreeSet<String>,
    ccs: BTreeSet<String>,
    facts: DeviceFacts,
    peaks: NcuPeaks,
}

impl<'a> State<'a> {
    fn new(file: &'a str, lines_before: u64, log: Vec<String>) -> State<'a> {
        State {
            file,
            lines_before,
            crlf: false,
            log,
            columns: 0,
            launches: Vec::new(),
            by_key: HashMap::new(),
            last: None,
            names: HashMap::new(),
            metric_cache: BytesMap::default(),
            seq: Vec::new(),
            seq_pos: 0,
            label_cache: BytesMap::default(),
            unit_cache: BytesMap::default(),
            devices: BTreeSet::new(),
            ccs: BTreeSet::new(),
            facts: DeviceFacts::default(),
            peaks: NcuPeaks::default(),
        }
    }

    /// Reads every row of the details page (one row per metric per launch).
    fn read_details<R: Read>(
        &mut self,
        csv: &mut csv::Reader<R>,
        rec: &mut csv::ByteRecord,
        ident: &Identity,
        d: &Details,
    ) -> Result<(), NcuError> {
        loop {
            let more = csv
                .read_byte_record(rec)
                .map_err(|e| csv_err(e, self.file, self.line_of(rec)))?;
            if !more {
                return Ok(());
            }
            self.details_row(rec, ident, d)?;
        }
    }

    /// Reads every row of the raw page (one row per launch, after an
    /// optional units row).
    fn read_raw<R: Read>(
        &mut self,
        csv: &mut csv::Reader<R>,
        rec: &mut csv::ByteRecord,
        ident: &Identity,
        columns: &[String],
    ) -> Result<(), NcuError> {
        let slots: Vec<Option<Slot>> = columns.iter().map(|c| classify(c, "")).collect();
        let mut units: Vec<Vec<u8>> = Vec::new();
        let mut first = true;
        loop {
            let more = csv
                .read_byte_record(rec)
                .map_err(|e| csv_err(e, self.file, self.line_of(rec)))?;
            if !more {
                return Ok(());
            }
            if first {
                first = false;
                // The units row: identity columns empty, one unit per metric.
                if rec.get(ident.id).is_none_or(|c| c.is_empty()) {
                    units = rec.iter().map(<[u8]>::to_vec).collect();
                    continue;
                }
            }
            self.raw_row(rec, ident, &slots, &units, columns)?;
        }
    }

    /// The slot of a display label in its section, cached by (section, label).
    fn label_slot(&mut self, name: &[u8], section: &[u8]) -> Option<Slot> {
        let mut key = Vec::with_capacity(section.len() + name.len() + 1);
        key.extend_from_slice(section);
        key.push(0);
        key.extend_from_slice(name);
        if let Some(s) = self.label_cache.get(key.as_slice()) {
            return *s;
        }
        let s = classify(
            &String::from_utf8_lossy(name),
            &String::from_utf8_lossy(section),
        );
        self.label_cache.insert(key.into(), s);
        s
    }

    /// The slot of metric `name` when it is the entry expected next in
    /// [`State::seq`] (or the first, when a new launch starts): a byte
    /// comparison instead of hashing a long name. `None` when not there
    /// (then the caller classifies through the hashed cache).
    fn seq_slot(&mut self, name: &[u8]) -> Option<Option<Slot>> {
        if let Some((n, s)) = self.seq.get(self.seq_pos) {
            if **n == *name {
                self.seq_pos += 1;
                return Some(*s);
            }
        }
        match self.seq.first() {
            Some((n, s)) if **n == *name => {
                self.seq_pos = 1;
                Some(*s)
            }
            _ => None,
        }
    }

    fn line_of(&self, rec: &csv::ByteRecord) -> u64 {
        // The csv crate records a record's position before it consumes the
        // `\n` of the previous record's `\r\n`, so CRLF lines read one short.
        let fix = |p: &csv::Position| u64::from(self.crlf && p.record() > 0);
        self.lines_before + rec.position().map_or(0, |p| p.line() + fix(p))
    }

    /// A record that is not data: an ncu log line inside the CSV, a repeated
    /// header, or a stray application line.
    fn skip_non_data(&mut self, rec: &csv::ByteRecord, ident: &Identity) -> bool {
        if rec.len() <= ident.kernel {
            if let Some(first) = rec.get(0) {
                let text = String::from_utf8_lossy(first);
                if text.starts_with("==ERROR==") || text.starts_with("==WARNING==") {
                    self.log.push(text.trim_end().to_string());
                }
            }
            return true;
        }
        rec.get(ident.id) == Some(b"ID")
    }

    fn launch_index(&mut self, rec: &csv::ByteRecord, ident: &Identity) -> Result<usize, NcuError> {
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
                if let Some(cc) = ident.cc.and_then(|c| rec.get(c)) {
                    if !cc.is_empty() && !self.ccs.contains(std::str::from_utf8(cc).unwrap_or("")) {
                        self.ccs.insert(String::from_utf8_lossy(cc).into_owned());
                    }
                }
                let line = self.line_of(rec);
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
    fn same_kernel(&self, i: usize, raw: &[u8], rec: &csv::ByteRecord) -> Result<usize, NcuError> {
        let l = &self.launches[i];
        if l.name.as_bytes() == raw || *l.name == *String::from_utf8_lossy(raw) {
            return Ok(i);
        }
        Err(NcuError::DuplicateLaunch {
            file: self.file.to_string(),
            line: self.line_of(rec),
            first_line: l.line,
            id: l.id,
            pid: l.pid,
            first: echo(l.name.as_bytes()),
            second: echo(raw),
        })
    }

    fn parse_id(&self, rec: &csv::ByteRecord, col: usize, what: &str) -> Result<u64, NcuError> {
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
                line: self.line_of(rec),
                column: what.to_string(),
                value: echo(cell),
            })
        }
    }

    fn details_row(
        &mut self,
        rec: &csv::ByteRecord,
        ident: &Identity,
        d: &Details,
    ) -> Result<(), NcuError> {
        if self.skip_non_data(rec, ident) {
            return Ok(());
        }
        let name = rec.get(d.name).unwrap_or_default();
        if name.is_empty() {
            // Rule rows (20/21-column layout) carry no metric.
            self.launch_index(rec, ident)?;
            return Ok(());
        }
        let slot = if let Some(s) = self.seq_slot(name) {
            s
        } else if is_metric_name(name) {
            let s = match self.metric_cache.get(name) {
                Some(s) => *s,
                None => {
                    let s = classify(&String::from_utf8_lossy(name), "");
                    self.metric_cache.insert(name.into(), s);
                    s
                }
            };
            if self.seq_pos == self.seq.len() && self.seq.len() < SEQ_MAX && name.len() <= 256 {
                self.seq.push((name.into(), s));
                self.seq_pos += 1;
            }
            s
        } else if is_read_label(name) {
            let section = d.section.and_then(|c| rec.get(c)).unwrap_or_default();
            self.label_slot(name, section)
        } else {
            None
        };
        let i = self.launch_index(rec, ident)?;
        let Some(slot) = slot else {
            return Ok(());
        };
        let unit = rec.get(d.unit).unwrap_or_default();
        let value = rec.get(d.value).unwrap_or_default();
        self.store(i, slot, name, unit, value, rec, "Metric Value")
    }

    fn raw_row(
        &mut self,
        rec: &csv::ByteRecord,
        ident: &Identity,
        slots: &[Option<Slot>],
        units: &[Vec<u8>],
        columns: &[String],
    ) -> Result<(), NcuError> {
        if self.skip_non_data(rec, ident) {
            return Ok(());
        }
        let i = self.launch_index(rec, ident)?;
        for (c, slot) in slots.iter().enumerate() {
            let Some(slot) = *slot else { continue };
            let value = rec.get(c).unwrap_or_default();
            let unit = units.get(c).map_or(&[][..], Vec::as_slice);
            self.store(
                i,
                slot,
                columns[c].as_bytes(),
                unit,
                value,
                rec,
                &columns[c],
            )?;
        }
        Ok(())
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

    #[allow(clippy::too_many_arguments)]
    fn store(
        &mut self,
        i: usize,
        slot: Slot,
        metric: &[u8],
        unit: &[u8],
        value: &[u8],
        rec: &csv::ByteRecord,
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
                let line = self.line_of(rec);
                return Err(number_error(e, self.file, line, column_s(), value));
            }
        };
        let unit_s = std::str::from_utf8(unit).unwrap_or("").trim();
        let u = match self.unit_cache.get(unit) {
            Some(u) => *u,
            None => {
                let u = parse_unit(unit_s);
                if self.unit_cache.len() < UNIT_CACHE_MAX {
                    self.unit_cache.insert(unit.into(), u);
                }
                u
            }
        };
        let bad_unit = |expected| NcuError::BadUnit {
            file: self.file.to_string(),
            line: self.line_of(rec),
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
        rec: &csv::ByteRecord,
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
        rec: &csv::ByteRecord,
        column: String,
        cell: &[u8],
        why: Option<&'static str>,
    ) -> NcuError {
        NcuError::Implausible {
            file: self.file.to_string(),
            line: self.line_of(rec),
            column,
            value: echo(cell),
            why: why.unwrap_or("is not a measurement"),
        }
    }

    fn peak(&mut self, p: Peak, v: f64) {
        self.peaks.values.entry(PeakKey::from(p)).or_insert(v);
    }

    fn finish(self, page: Page, header_line: u64) -> Result<NcuCsv, NcuError> {
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
            columns: self.columns,
            launches,
            device_names: self.devices.into_iter().collect(),
            compute_capabilities: self.ccs.into_iter().collect(),
            facts: self.facts,
            peaks: self.peaks,
            log: self.log,
        })
    }
}

/// True for the display labels [`classify`] may read (the rest are skipped
/// without looking at their section).
fn is_read_label(name: &[u8]) -> bool {
    matches!(
        name,
        b"Duration"
            | b"DRAM Throughput"
            | b"SOL FB"
            | b"Memory Throughput"
            | b"SM Frequency"
            | b"DRAM Frequency"
            | b"DRAM Bandwidth"
            | b"Memory Frequency"
            | b"# SMs"
    ) || name.starts_with(b"Predicated-On ")
        || name.starts_with(b"Theoretical ")
}

/// True when the metric name contains `__` (a real metric, not a label).
fn is_metric_name(name: &[u8]) -> bool {
    name.windows(2).any(|w| w == b"__")
}

/// A map keyed by the bytes of a metric name, label or unit (std's
/// SipHash: the keys come from an untrusted file).
type BytesMap<V> = HashMap<Box<[u8]>, V>;

/// Most metric names remembered in [`State::seq`] (each at most 256 bytes).
const SEQ_MAX: usize = 512;

/// Most distinct units remembered; ncu prints a few dozen, and a hostile
/// file cannot grow the cache past this.
const UNIT_CACHE_MAX: usize = 256;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::roofs::ComputePath;

    fn raw(cols: &[(&str, &str)]) -> NcuCsv {
        let mut header =
            String::from("\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\"");
        let mut row = String::from("\"0\",\"1\",\"p\",\"h\",\"k\"");
        for (name, value) in cols {
            header.push_str(&format!(",\"{name}\""));
            row.push_str(&format!(",\"{value}\""));
        }
        parse(format!("{header}\n{row}\n").as_bytes(), "t.csv").unwrap()
    }

    #[test]
    fn tensor_counters_are_never_counted_twice() {
        let csv = raw(&[
            // fp16: plain dst_fp32 (100) wins over its sparsity split (30 + 70);
            // dst_fp16 (50) is other work and adds: 150.
            ("sm__ops_path_tensor_src_fp16_dst_fp32.sum", "100"),
            (
                "sm__ops_path_tensor_src_fp16_dst_fp32_sparsity_on.sum",
                "30",
            ),
            (
                "sm__ops_path_tensor_src_fp16_dst_fp32_sparsity_off.sum",
                "70",
            ),
            ("sm__ops_path_tensor_src_fp16_dst_fp16.sum", "50"),
            // bf16: only the split: 10 + 20 = 30.
            (
                "sm__ops_path_tensor_src_bf16_dst_fp32_sparsity_on.sum",
                "10",
            ),
            (
                "sm__ops_path_tensor_src_bf16_dst_fp32_sparsity_off.sum",
                "20",
            ),
            // fp8: the dst-less total (500) is used alone.
            ("sm__ops_path_tensor_src_fp8.sum", "500"),
            ("sm__ops_path_tensor_src_fp8_dst_fp16.sum", "200"),
            // Instruction families overlap each other and the ops: not FLOPs.
            ("sm__inst_executed_pipe_tensor.sum", "999"),
            ("sm__inst_executed_pipe_tensor_op_hmma.sum", "999"),
            ("smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", "4"),
        ]);
        let l = &csv.launches[0];
        assert_eq!(l.flop.get(ComputePath::TensorFp16), Some(150.0));
        assert_eq!(l.flop.get(ComputePath::TensorBf16), Some(30.0));
        assert_eq!(l.flop.get(ComputePath::TensorFp8), Some(500.0));
        assert_eq!(l.flop.get(ComputePath::Fp32), Some(8.0));
        assert_eq!(l.flop.total(), 688.0);
        assert_eq!(l.tensor_inst, Some(999.0));
    }

    #[test]
    fn dram_and_duration_fallbacks() {
        let csv = raw(&[
            ("dram__sectors_read.sum", "10"),
            ("dram__sectors_write.sum", "5"),
        ]);
        assert_eq!(csv.launches[0].dram_bytes, Some(480.0));
        let csv = raw(&[("dram__bytes_read.sum", "1000")]);
        assert_eq!(csv.launches[0].dram_bytes, Some(1000.0));
        assert!(csv.launches[0].dram_partial);
        let csv = raw(&[
            ("smsp__cycles_elapsed.avg", "2000"),
            ("smsp__cycles_elapsed.avg.per_second", "1000000000"),
        ]);
        assert_eq!(csv.launches[0].duration_ns, Some(2000.0));
    }

    #[test]
    fn l2_from_operation_sectors_and_dram_from_a_rate() {
        use crate::ncu::Source;
        // (10 read + 5 write + 1 atom + 2 red) sectors x 32 B = 576 B.
        let csv = raw(&[
            ("lts__t_sectors_op_read.sum", "10"),
            ("lts__t_sectors_op_write.sum", "5"),
            ("lts__t_sectors_op_atom.sum", "1"),
            ("lts__t_sectors_op_red.sum", "2"),
            // 2e9 byte/s x 1,500 ns = 3,000 B.
            ("dram__bytes.sum.per_second", "2000000000"),
            ("gpu__time_duration.sum", "1500"),
        ]);
        let l = &csv.launches[0];
        assert_eq!(l.l2_bytes, Some(576.0));
        assert_eq!(l.l2_derivation, Some(Source::Sectors));
        assert_eq!(l.dram_bytes, Some(3000.0));
        assert_eq!(l.dram_derivation, Some(Source::RateTimesDuration));
        // The total sector counter wins over the per-operation ones.
        let csv = raw(&[
            ("lts__t_sectors.sum", "100"),
            ("lts__t_sectors_op_read.sum", "10"),
        ]);
        assert_eq!(csv.launches[0].l2_bytes, Some(3200.0));
        // A rate without a duration (and no counter) is a rate-only launch
        // (issue 19): bytes per second of its nominal one-second run, which
        // reports show as unknown; only ratios are used.
        let csv = raw(&[("dram__bytes.sum.per_second", "2000000000")]);
        let l = &csv.launches[0];
        assert!(l.rate_only);
        assert_eq!(l.duration_ns, Some(crate::ncu::RATE_ONLY_NS));
        // 2e9 B/s x 1e9 ns x 1e-9 s/ns (to the last bit of the product).
        assert!((l.dram_bytes.unwrap() - 2e9).abs() < 1e-3);
        // A rate beside a counter without a duration is not: the counter
        // needs the duration, which is missing.
        let csv = raw(&[
            ("dram__bytes.sum.per_second", "2000000000"),
            ("dram__bytes.sum", "3000"),
        ]);
        assert!(!csv.launches[0].rate_only);
        assert_eq!(csv.launches[0].duration_ns, None);
    }

    #[test]
    fn no_input_and_log_only_input() {
        let e = parse(&b""[..], "e.csv").unwrap_err();
        assert!(matches!(e, NcuError::NoCsv { lines: 0, .. }), "{e}");
        let e = parse(&b"==PROF== x\n==ERROR== boom\n"[..], "e.log").unwrap_err();
        assert!(e.to_string().contains("  ==ERROR== boom"), "{e}");
    }
}
