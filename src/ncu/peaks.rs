//! `--roofs ncu`: theoretical roofs from the peak metrics in the CSV, computed
//! the way ncu's own roofline sections do (`peak_sustained` per cycle x
//! cycles per second).

use super::metrics::Peak;
use super::model::NcuCsv;
use super::NcuError;
use crate::roofs::{ComputePath, ComputeRoof, MemoryLevel, MemoryRoof, Origin, Roofs};

impl NcuCsv {
    /// Roofs from ncu's peak metrics (first launch that carries them).
    /// Needs at least the DRAM peak and one compute peak.
    pub fn roofs_from_peaks(&self) -> Result<Roofs, NcuError> {
        let p = &self.peaks;
        let gpu = self
            .device_names
            .first()
            .cloned()
            .unwrap_or_else(|| "GPU of the ncu report".to_string());
        let mut roofs = Roofs::new(
            gpu,
            format!("ncu peak metrics in {} (peak_sustained x clock)", self.file),
        );
        let mem = |bpc: Peak, clk: Peak, metric: &str, clock: &str| {
            let (b, c) = (p.get(bpc)?, p.get(clk)?);
            (b > 0.0 && c > 0.0).then(|| MemoryRoof {
                bytes_per_s: b * c,
                origin: Origin::Ncu,
                source: format!("{metric} x {clock}"),
                measurement: None,
            })
        };
        if let Some(r) = mem(
            Peak::DramBytesPerCycle,
            Peak::DramClock,
            "dram__bytes.sum.peak_sustained",
            "dram__cycles_elapsed.avg.per_second",
        ) {
            roofs.memory.insert(MemoryLevel::Dram, r);
        }
        if let Some(r) = mem(
            Peak::L2BytesPerCycle,
            Peak::L2Clock,
            "lts__t_bytes.sum.peak_sustained",
            "lts__cycles_elapsed.avg.per_second",
        ) {
            roofs.memory.insert(MemoryLevel::L2, r);
        }
        if let Some(r) = mem(
            Peak::L1BytesPerCycle,
            Peak::L1Clock,
            "l1tex__t_bytes.sum.peak_sustained",
            "l1tex__cycles_elapsed.avg.per_second",
        ) {
            roofs.memory.insert(MemoryLevel::L1, r);
        }
        if let Some(clock) = p.get(Peak::SmClock).filter(|&c| c > 0.0) {
            // An FMA is 2 FLOP per thread instruction, as ncu's roofline
            // sections count (`..._pred_on.sum.peak_sustained x 2`).
            for (peak, path, op) in [
                (Peak::DfmaPerCycle, ComputePath::Fp64, "dfma"),
                (Peak::FfmaPerCycle, ComputePath::Fp32, "ffma"),
                (Peak::HfmaPerCycle, ComputePath::Fp16, "hfma"),
            ] {
                if let Some(v) = p.get(peak).filter(|&v| v > 0.0) {
                    roofs.compute.insert(
                        path,
                        ComputeRoof {
                            flop_per_s: 2.0 * v * clock,
                            origin: Origin::Ncu,
                            source: format!(
                                "2 x sm__sass_thread_inst_executed_op_{op}_pred_on.sum.peak_sustained x sm__cycles_elapsed.avg.per_second"
                            ),
                            measurement: None,
                        },
                    );
                }
            }
            for path in ComputePath::ALL.into_iter().filter(|p| p.is_tensor()) {
                if let Some(v) = p.get(Peak::Tensor(path)).filter(|&v| v > 0.0) {
                    roofs.compute.insert(
                        path,
                        ComputeRoof {
                            flop_per_s: v * clock,
                            origin: Origin::Ncu,
                            source: format!(
                                "sm__ops_path_tensor_src_{}*.sum.peak_sustained x sm__cycles_elapsed.avg.per_second",
                                path.key().trim_start_matches("tensor_")
                            ),
                            measurement: None,
                        },
                    );
                }
            }
        }
        // ncu's peaks are per cycle times the clocks of the first launch
        // that carries them: the roofs assume those clocks.
        let first = format!("of the first launch in {}", self.file);
        if let Some(c) = p.get(Peak::SmClock).filter(|&c| c > 0.0) {
            roofs.clocks.sm_clock_hz = Some(c);
            roofs.clocks.sm_clock_source = format!("sm__cycles_elapsed.avg.per_second {first}");
        }
        if let Some(c) = p.get(Peak::DramClock).filter(|&c| c > 0.0) {
            roofs.clocks.memory_clock_hz = Some(c);
            roofs.clocks.memory_clock_source =
                format!("dram__cycles_elapsed.avg.per_second {first}");
        }
        let mut missing = Vec::new();
        if !roofs.memory.contains_key(&MemoryLevel::Dram) {
            missing.push("dram__bytes.sum.peak_sustained and dram__cycles_elapsed.avg.per_second");
        }
        if roofs.compute.is_empty() {
            missing.push("a compute peak (e.g. sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained with sm__cycles_elapsed.avg.per_second)");
        }
        if !missing.is_empty() {
            return Err(NcuError::NoPeaks {
                file: self.file.clone(),
                missing: missing.join(" and "),
            });
        }
        Ok(roofs)
    }
}
