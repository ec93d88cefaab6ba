//! The streaming parser: log preamble, then the details page (long format,
//! 12/15/20/21 columns, ragged rule rows) or the raw page (wide format with
//! a units row), into [`NcuCsv`].

use super::launches::{Identity, Launches};
use super::metrics::{classify, Slot};
use super::model::{NcuCsv, Page};
use super::preamble::{io_err, read_preamble};
use super::records::{Records, Row};
use super::NcuError;
use std::collections::HashMap;
use std::io::{BufReader, Read};

/// Parses an ncu CSV from `input`; `file` names it in messages. Phases:
/// the preamble before the header, the header (which page, which columns),
/// the rows of that page, then each launch finalized.
pub fn parse(input: impl Read, file: &str) -> Result<NcuCsv, NcuError> {
    let mut reader = BufReader::with_capacity(1 << 16, input);
    let pre = read_preamble(&mut reader, file)?;
    let mut records = Records::new(
        std::io::Cursor::new(pre.header_line).chain(reader),
        pre.line_no,
    );
    let header = read_header(&mut records, file, pre.line_no)?;
    records.expect_width(header.columns.len());
    let mut st = State::new(Launches::new(file), pre.log, header.columns.len());
    match &header.details {
        Some(d) => st.read_details(&mut records, &header.ident, d)?,
        None => st.read_raw(&mut records, &header.ident, &header.columns)?,
    }
    // Every field ncu writes is quoted, so a complete file has an even
    // number of `"` from the header on; an odd count means the file ends
    // inside a field (truncated), where a CSV reader would silently yield
    // e.g. `134,957,158` for `134,957,158,144`: 1000x off.
    if records.odd_quotes() {
        return Err(NcuError::Truncated {
            file: file.to_string(),
            line: records.line(),
        });
    }
    let page = if header.details.is_some() {
        Page::Details
    } else {
        Page::Raw
    };
    st.table.finish(page, pre.line_no, st.columns, st.log)
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
    records: &mut Records<R>,
    file: &str,
    line: u64,
) -> Result<Header, NcuError> {
    let header = records.next_row().map_err(|e| io_err(e, file, line))?;
    let columns: Vec<String> = header
        .iter()
        .flat_map(|h| h.iter())
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

struct Details {
    section: Option<usize>,
    name: usize,
    unit: usize,
    value: usize,
}

/// The row readers' state: the launches, the log lines met among the
/// rows, and the caches that classify a metric name or label once.
struct State<'a> {
    table: Launches<'a>,
    log: Vec<String>,
    columns: usize,
    metric_cache: BytesMap<Option<Slot>>,
    /// The metric names of the details page in the order rows bring them,
    /// with their slots: ncu writes each launch's metrics in the same order,
    /// so row k of a launch is compared byte for byte with entry k before
    /// the name is hashed (see [`State::seq_slot`]).
    seq: Vec<(Box<[u8]>, Option<Slot>)>,
    seq_pos: usize,
    label_cache: BytesMap<Option<Slot>>,
}

impl<'a> State<'a> {
    fn new(table: Launches<'a>, log: Vec<String>, columns: usize) -> State<'a> {
        State {
            table,
            log,
            columns,
            metric_cache: BytesMap::default(),
            seq: Vec::new(),
            seq_pos: 0,
            label_cache: BytesMap::default(),
        }
    }

    /// Reads every row of the details page (one row per metric per launch).
    fn read_details<R: Read>(
        &mut self,
        records: &mut Records<R>,
        ident: &Identity,
        d: &Details,
    ) -> Result<(), NcuError> {
        loop {
            match records.next_row() {
                Ok(Some(rec)) => self.details_row(&rec, ident, d)?,
                Ok(None) => return Ok(()),
                Err(e) => return Err(io_err(e, self.table.file, records.started())),
            }
        }
    }

    /// Reads every row of the raw page (one row per launch, after an
    /// optional units row).
    fn read_raw<R: Read>(
        &mut self,
        records: &mut Records<R>,
        ident: &Identity,
        columns: &[String],
    ) -> Result<(), NcuError> {
        let slots: Vec<Option<Slot>> = columns.iter().map(|c| classify(c, "")).collect();
        let mut units: Vec<Vec<u8>> = Vec::new();
        let mut first = true;
        loop {
            let rec = match records.next_row() {
                Ok(Some(rec)) => rec,
                Ok(None) => return Ok(()),
                Err(e) => return Err(io_err(e, self.table.file, records.started())),
            };
            let rec = &rec;
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

    /// A record that is not data: an ncu log line inside the CSV, a repeated
    /// header, or a stray application line.
    fn skip_non_data(&mut self, rec: &Row<'_>, ident: &Identity) -> bool {
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

    /// One row of the details page: its metric classified (or skipped), its
    /// launch found, its value stored.
    fn details_row(
        &mut self,
        rec: &Row<'_>,
        ident: &Identity,
        d: &Details,
    ) -> Result<(), NcuError> {
        if self.skip_non_data(rec, ident) {
            return Ok(());
        }
        let name = rec.get(d.name).unwrap_or_default();
        if name.is_empty() {
            // Rule rows (20/21-column layout) carry no metric.
            self.table.launch_index(rec, ident)?;
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
        let i = self.table.launch_index(rec, ident)?;
        let Some(slot) = slot else {
            return Ok(());
        };
        let unit = rec.get(d.unit).unwrap_or_default();
        let value = rec.get(d.value).unwrap_or_default();
        self.table
            .store(i, slot, name, unit, value, rec, "Metric Value")
    }

    fn raw_row(
        &mut self,
        rec: &Row<'_>,
        ident: &Identity,
        slots: &[Option<Slot>],
        units: &[Vec<u8>],
        columns: &[String],
    ) -> Result<(), NcuError> {
        if self.skip_non_data(rec, ident) {
            return Ok(());
        }
        let i = self.table.launch_index(rec, ident)?;
        for (c, slot) in slots.iter().enumerate() {
            let Some(slot) = *slot else { continue };
            let value = rec.get(c).unwrap_or_default();
            let unit = units.get(c).map_or(&[][..], Vec::as_slice);
            self.table.store(
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

/// A map keyed by the bytes of a metric name or label (std's
/// SipHash: the keys come from an untrusted file).
type BytesMap<V> = HashMap<Box<[u8]>, V>;

/// Most metric names remembered in [`State::seq`] (each at most 256 bytes).
const SEQ_MAX: usize = 512;

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
