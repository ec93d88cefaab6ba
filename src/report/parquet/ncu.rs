//! The `ncu` entity as a Parquet dataset: `kernels`, one row per row of the
//! roofline report (a launch, or a kernel name with `--group-by kernel`),
//! with the roofs' GPU and how it was chosen.

use super::{Builder, Column, Dataset};
use crate::many_inputs::InputTag;
use crate::roofline::{KernelRoofline, RooflineReport};

fn f<F: Fn(&KernelRoofline) -> f64>(v: &[KernelRoofline], g: F) -> Vec<Option<f64>> {
    v.iter().map(|k| Some(g(k))).collect()
}

/// The snake_case name of a derivation source, as in the JSON.
fn source(s: crate::ncu::Source) -> String {
    serde_json::to_value(s)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

fn fo<F: Fn(&KernelRoofline) -> Option<f64>>(v: &[KernelRoofline], g: F) -> Vec<Option<f64>> {
    v.iter().map(g).collect()
}

/// The `kernels` dataset of one input's roofline report.
pub fn datasets<'a>(tag: &'a InputTag, r: &'a RooflineReport) -> Vec<Dataset<'a>> {
    vec![Dataset::new("ncu", "kernels", r.kernels.len(), move |rg| {
        kernel_rows(tag, r, &r.kernels[rg])
    })]
}

fn kernel_rows(tag: &InputTag, r: &RooflineReport, v: &[KernelRoofline]) -> Vec<Column> {
    let n = v.len();
    let mut b = Builder::new(tag, n);
    b.str("gpu", false, vec![Some(r.gpu.name.clone()); n])
        .str(
            "gpu_chosen_by",
            false,
            vec![Some(crate::report::gpu_choice::chosen_by(&r.gpu.chosen_by)); n],
        )
        .str(
            "group_by",
            false,
            vec![Some(format!("{:?}", r.group_by).to_lowercase()); n],
        )
        .i64(
            "id",
            false,
            v.iter().map(|k| i64::try_from(k.id).ok()).collect(),
        )
        .i64(
            "process_id",
            true,
            v.iter()
                .map(|k| k.process_id.and_then(|p| i64::try_from(p).ok()))
                .collect(),
        )
        .str(
            "name",
            false,
            v.iter().map(|k| Some(k.name.to_string())).collect(),
        )
        .i64(
            "launches",
            false,
            v.iter().map(|k| Some(k.launches as i64)).collect(),
        )
        .f64("duration_ns", false, f(v, |k| k.duration_ns))
        .f64("dram_bytes", true, fo(v, |k| k.dram_bytes))
        .str(
            "dram_source",
            true,
            v.iter().map(|k| k.dram_source.map(source)).collect(),
        )
        .f64("l2_bytes", true, fo(v, |k| k.l2_bytes))
        .f64("l1_bytes", true, fo(v, |k| k.l1_bytes))
        .f64("flop", true, fo(v, |k| k.flop))
        .str(
            "flop_source",
            true,
            v.iter().map(|k| k.flop_source.map(source)).collect(),
        )
        .f64("intensity_flop_per_byte", true, fo(v, |k| k.intensity))
        .f64(
            "achieved_flop_per_s",
            true,
            fo(v, |k| k.achieved_flop_per_s),
        )
        .f64(
            "achieved_dram_bytes_per_s",
            true,
            fo(v, |k| k.achieved_dram_bytes_per_s),
        )
        .f64("compute_time_ns", true, fo(v, |k| k.compute_time_ns))
        .f64("memory_time_ns", true, fo(v, |k| k.memory_time_ns))
        .f64("bound_time_ns", false, f(v, |k| k.bound_time_ns))
        .str(
            "bound",
            true,
            v.iter()
                .map(|k| k.bound.map(|b| b.key().to_string()))
                .collect(),
        )
        .f64("roof_flop_per_s", true, fo(v, |k| k.roof_flop_per_s))
        .f64("fraction_of_roof", false, f(v, |k| k.fraction_of_roof))
        .f64("time_lost_ns", false, f(v, |k| k.time_lost_ns))
        .bool(
            "above_roof",
            false,
            v.iter().map(|k| Some(k.above_roof)).collect(),
        )
        .bool(
            "bandwidth_only",
            false,
            v.iter().map(|k| Some(k.bandwidth_only)).collect(),
        )
        .bool(
            "lower_bound",
            false,
            v.iter().map(|k| Some(k.lower_bound)).collect(),
        );
    b.finish()
}
