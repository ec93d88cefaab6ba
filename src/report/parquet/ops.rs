//! The `ops` entities as Parquet datasets: `ops`, one row per row of the
//! ops report (an op name and shapes, or a kernel name with `--group-by
//! kernel`), and `ops_unmodelled`, one row per reason no model covers a
//! kernel; unknown figures are nulls, never 0.

use super::{Builder, Dataset};
use crate::many_inputs::InputTag;
use crate::ops::{OpRow, OpsReport, UnmodelledRow};

/// A u64 count as INT64 (a count past i64 is a damaged input: null).
fn int(v: u64) -> Option<i64> {
    i64::try_from(v).ok()
}

/// The rows' columns after the tags.
fn op_rows(tag: &InputTag, r: &OpsReport, rows: &[OpRow]) -> Vec<super::Column> {
    let strs = |g: &dyn Fn(&OpRow) -> Option<String>| rows.iter().map(g).collect();
    let ints = |g: &dyn Fn(&OpRow) -> Option<i64>| rows.iter().map(g).collect();
    let floats = |g: &dyn Fn(&OpRow) -> Option<f64>| rows.iter().map(g).collect();
    let mut b = Builder::new(tag, rows.len());
    b.str("gpu", false, vec![Some(r.gpu.name.clone()); rows.len()])
        .str(
            "group_by",
            false,
            vec![Some(r.group_by.key().to_string()); rows.len()],
        )
        .str("name", false, strs(&|x| Some(x.name.clone())))
        .str("shapes", false, strs(&|x| Some(x.shapes.clone())))
        .str("model", false, strs(&|x| Some(x.model.to_string())))
        .str("dtype", false, strs(&|x| Some(x.dtype.key().to_string())))
        .str(
            "dtype_from",
            true,
            strs(&|x| x.dtype_from.map(|d| d.key().to_string())),
        )
        .str(
            "compute_path",
            true,
            strs(&|x| x.path.map(|p| p.key().to_string())),
        )
        .i64("launches", false, ints(&|x| int(x.launches)))
        .i64("kernels", false, ints(&|x| int(x.kernels)))
        .i64("time_ns", false, ints(&|x| Some(x.time_ns)))
        .i64("flops", true, ints(&|x| int(x.flops)))
        .i64("bytes", true, ints(&|x| int(x.bytes)))
        .f64("intensity_flop_per_byte", true, floats(&|x| x.intensity()))
        .f64(
            "achieved_flop_per_s",
            true,
            floats(&|x| x.achieved_flop_per_s()),
        )
        .f64(
            "achieved_bytes_per_s",
            true,
            floats(&|x| x.achieved_bytes_per_s()),
        )
        .str(
            "bound",
            true,
            strs(&|x| x.bound.map(|b| b.key().to_string())),
        )
        .f64("bound_ns", true, floats(&|x| x.bound_ns))
        .f64("fraction_of_roof", true, floats(&|x| x.fraction_of_roof()))
        .i64("time_lost_ns", true, ints(&|x| x.time_lost_ns()))
        .bool(
            "above_memory_roof",
            false,
            rows.iter().map(|x| Some(r.above_memory_roof(x))).collect(),
        );
    b.finish()
}

/// The unmodelled rows' columns after the tags.
fn unmodelled_rows(tag: &InputTag, rows: &[UnmodelledRow]) -> Vec<super::Column> {
    let mut b = Builder::new(tag, rows.len());
    b.str(
        "reason",
        false,
        rows.iter().map(|x| Some(x.reason.reason())).collect(),
    )
    .i64(
        "kernels",
        false,
        rows.iter().map(|x| int(x.kernels)).collect(),
    )
    .i64(
        "time_ns",
        false,
        rows.iter().map(|x| Some(x.time_ns)).collect(),
    )
    .str(
        "top_ops",
        false,
        rows.iter()
            .map(|x| {
                let names: Vec<&str> = x.top_ops.iter().map(|(n, _)| n.as_str()).collect();
                Some(names.join(", "))
            })
            .collect(),
    );
    b.finish()
}

/// The `ops` and `ops_unmodelled` datasets of one input's report.
pub fn datasets<'a>(tag: &'a InputTag, r: &'a OpsReport) -> Vec<Dataset<'a>> {
    vec![
        Dataset::new("ops", "ops", r.rows.len(), move |rg| {
            op_rows(tag, r, &r.rows[rg])
        }),
        Dataset::new("ops", "ops_unmodelled", r.unmodelled.len(), move |rg| {
            unmodelled_rows(tag, &r.unmodelled[rg])
        }),
    ]
}
