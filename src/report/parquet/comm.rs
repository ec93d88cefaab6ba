//! The `comm` entity as a Parquet dataset: `collectives`, one row per rank
//! × NCCL kernel, keyed by process group and sequence (`match_key`, the key
//! `rooftrace comm` matches ranks on), with the rank's own clock and its
//! offset to the reference rank, so the straggler question (who arrived
//! last, who waited how long) runs as a query over any number of ranks
//! (docs/scale.md).

use super::{Builder, Dataset};
use crate::comm::RankTrace;
use crate::many_inputs::InputTag;

/// The `collectives` dataset of one rank: its kernels with their match
/// keys (`comm::ranks::match_keys`) and its clock offset (`None`: not
/// aligned).
pub fn datasets<'a>(
    tag: &'a InputTag,
    r: &'a RankTrace,
    keys: &'a [String],
    clock_offset_ns: Option<i64>,
) -> Vec<Dataset<'a>> {
    vec![Dataset::new(
        "comm",
        "collectives",
        r.collectives.len(),
        move |rg| {
            let c = &r.collectives[rg.clone()];
            let k = &keys[rg];
            let int = |f: &dyn Fn(&crate::comm::Collective) -> Option<i64>| -> Vec<Option<i64>> {
                c.iter().map(f).collect()
            };
            let mut b = Builder::new(tag, c.len());
            b.str(
                "match_key",
                false,
                k.iter().map(|x| Some(x.clone())).collect(),
            )
            .str(
                "process_group",
                true,
                c.iter()
                    .map(|x| x.process_group.as_deref().map(str::to_string))
                    .collect(),
            )
            .i64(
                "seq",
                true,
                int(&|x| x.seq.and_then(|s| i64::try_from(s).ok())),
            )
            .str(
                "kind",
                false,
                c.iter().map(|x| Some(x.kind.key().to_string())).collect(),
            )
            .str(
                "kernel",
                false,
                c.iter().map(|x| Some(x.kernel.to_string())).collect(),
            )
            .i64("device", false, int(&|x| Some(i64::from(x.device))))
            .i64(
                "bytes",
                true,
                int(&|x| x.bytes.and_then(|b| i64::try_from(b).ok())),
            )
            .i64("group_size", true, int(&|x| x.group_size.map(i64::from)))
            .i64("start_ns", false, int(&|x| Some(x.start_ns)))
            .i64("end_ns", false, int(&|x| Some(x.end_ns)))
            .i64("duration_ns", false, int(&|x| Some(x.end_ns - x.start_ns)))
            .i64("clock_offset_ns", true, vec![clock_offset_ns; c.len()]);
            b.finish()
        },
    )]
}
