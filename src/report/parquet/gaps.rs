//! The `gaps` entities as Parquet datasets: `devices`, `streams`, `gaps`
//! (every classified device gap), `nvtx` (range instances, with `--nvtx`)
//! and `kernels` (per-kernel totals). Class totals become two columns per
//! class: `<class>_count`, `<class>_ns`.

use super::{Builder, Column, Dataset};
use crate::gaps::{ClassTotals, GapClass, GapReport};
use crate::many_inputs::{InputTag, KernelTotal};

fn ints<T, F: Fn(&T) -> i64>(rows: &[T], f: F) -> Vec<Option<i64>> {
    rows.iter().map(|r| Some(f(r))).collect()
}

fn classes<T, F: Fn(&T) -> &ClassTotals>(b: &mut Builder, rows: &[T], f: F) {
    for c in GapClass::ALL {
        b.i64(
            &format!("{}_count", c.key()),
            false,
            ints(rows, |r| f(r).get(c).count as i64),
        );
        b.i64(
            &format!("{}_ns", c.key()),
            false,
            ints(rows, |r| f(r).get(c).total_ns),
        );
    }
}

/// Every dataset of one input's gap report: `devices`, `streams`,
/// `kernels`, `gaps` when the report kept its classified gaps, `nvtx` when
/// it has `--nvtx` results.
pub fn datasets<'a>(
    tag: &'a InputTag,
    r: &'a GapReport,
    kernels: &'a [KernelTotal],
) -> Vec<Dataset<'a>> {
    let mut out = vec![
        Dataset::new("gaps", "devices", r.devices.len(), move |rg| {
            devices(tag, &r.devices[rg])
        }),
        Dataset::new("gaps", "streams", r.streams.len(), move |rg| {
            streams(tag, &r.streams[rg])
        }),
        Dataset::new("gaps", "kernels", kernels.len(), move |rg| {
            kernel_rows(tag, &kernels[rg])
        }),
    ];
    if let Some(g) = &r.gaps {
        out.push(Dataset::new("gaps", "gaps", g.len(), move |rg| {
            let g = &g[rg];
            let mut b = Builder::new(tag, g.len());
            b.i64("pid", false, ints(g, |x| i64::from(x.pid)))
                .i64("device", false, ints(g, |x| i64::from(x.device)))
                .i64("start_ns", false, ints(g, |x| x.start_ns))
                .i64("end_ns", false, ints(g, |x| x.end_ns))
                .i64("duration_ns", false, ints(g, |x| x.end_ns - x.start_ns))
                .str(
                    "class",
                    false,
                    g.iter().map(|x| Some(x.class.key().to_string())).collect(),
                );
            b.finish()
        }));
    }
    if let Some(rr) = &r.ranges {
        out.push(Dataset::new(
            "gaps",
            "nvtx",
            rr.instances.len(),
            move |rg| {
                let v = &rr.instances[rg];
                let mut b = Builder::new(tag, v.len());
                b.str(
                    "text",
                    false,
                    v.iter()
                        .map(|x| Some(r.name(x.text_id).to_string()))
                        .collect(),
                )
                .i64("pid", false, ints(v, |x| i64::from(x.pid)))
                .i64("tid", false, ints(v, |x| i64::from(x.tid)))
                .i64("start_ns", false, ints(v, |x| x.start_ns))
                .i64("end_ns", false, ints(v, |x| x.end_ns))
                .i64("wall_ns", false, ints(v, |x| x.wall_ns))
                .bool(
                    "projected",
                    false,
                    v.iter().map(|x| Some(x.projected)).collect(),
                )
                .i64("gpu_start_ns", false, ints(v, |x| x.gpu_start_ns))
                .i64("gpu_end_ns", false, ints(v, |x| x.gpu_end_ns))
                .i64("busy_ns", false, ints(v, |x| x.busy_ns))
                .i64("kernel_busy_ns", false, ints(v, |x| x.kernel_busy_ns))
                .i64("idle_ns", false, ints(v, |x| x.idle_ns))
                .i64("kernels", false, ints(v, |x| x.kernels as i64));
                classes(&mut b, v, |x| x.classes());
                b.finish()
            },
        ));
    }
    out
}

fn devices(tag: &InputTag, v: &[crate::gaps::DeviceGaps]) -> Vec<Column> {
    let mut b = Builder::new(tag, v.len());
    b.i64("pid", false, ints(v, |x| i64::from(x.pid)))
        .i64("device", false, ints(v, |x| i64::from(x.device)))
        .i64("start_ns", false, ints(v, |x| x.start_ns))
        .i64("end_ns", false, ints(v, |x| x.end_ns))
        .i64("span_ns", false, ints(v, |x| x.span_ns))
        .i64("busy_ns", false, ints(v, |x| x.busy_ns))
        .i64("kernel_busy_ns", false, ints(v, |x| x.kernel_busy_ns))
        .i64("idle_ns", false, ints(v, |x| x.idle_ns))
        .i64("gap_count", false, ints(v, |x| x.gap_count as i64))
        .i64("kernels", false, ints(v, |x| x.kernels as i64))
        .i64("memcpys", false, ints(v, |x| x.memcpys as i64))
        .i64("memsets", false, ints(v, |x| x.memsets as i64))
        .i64("graphs", false, ints(v, |x| x.graphs as i64));
    classes(&mut b, v, |x| &x.classes);
    b.finish()
}

fn streams(tag: &InputTag, v: &[crate::gaps::StreamGaps]) -> Vec<Column> {
    let mut b = Builder::new(tag, v.len());
    b.i64("pid", false, ints(v, |x| i64::from(x.pid)))
        .i64("device", false, ints(v, |x| i64::from(x.device)))
        .i64("stream", false, ints(v, |x| i64::from(x.stream)))
        .i64("start_ns", false, ints(v, |x| x.start_ns))
        .i64("end_ns", false, ints(v, |x| x.end_ns))
        .i64("span_ns", false, ints(v, |x| x.span_ns))
        .i64("busy_ns", false, ints(v, |x| x.busy_ns))
        .i64("idle_ns", false, ints(v, |x| x.idle_ns))
        .i64("gap_count", false, ints(v, |x| x.gap_count as i64))
        .i64("ops", false, ints(v, |x| x.ops as i64));
    classes(&mut b, v, |x| &x.classes);
    b.finish()
}

fn kernel_rows(tag: &InputTag, v: &[KernelTotal]) -> Vec<Column> {
    let mut b = Builder::new(tag, v.len());
    b.i64("pid", false, ints(v, |x| i64::from(x.pid)))
        .i64("device", false, ints(v, |x| i64::from(x.device)))
        .str(
            "name",
            false,
            v.iter().map(|x| Some(x.name.clone())).collect(),
        )
        .i64("launches", false, ints(v, |x| x.launches as i64))
        .i64("total_ns", false, ints(v, |x| x.total_ns))
        .i64("min_ns", false, ints(v, |x| x.min_ns))
        .i64("max_ns", false, ints(v, |x| x.max_ns));
    b.finish()
}
