//! Op models from recorded shapes: the FLOPs and the compulsory bytes of a
//! PyTorch op from the input sizes, types and values its profiler trace
//! records (`record_shapes=True`), so an op's kernels can be put on the
//! roofline without hardware counters. `model` holds the types,
//! `table` which model takes which op, one file per family (`gemm`,
//! `attention`, `conv`, `vector`, `collective`, `fbgemm`), `record` the calls a reader keeps for
//! the `ops` analysis; the convention (what is counted, and
//! where other tools count differently) is docs/ops.md.

mod args;
mod attention;
mod collective;
mod conv;
mod fbgemm;
mod gemm;
pub mod model;
pub mod record;
pub mod table;
#[cfg(test)]
mod table_cases;
#[cfg(test)]
mod table_tests;
mod vector;

pub use model::{Annotation, Arg, Collective, CommArgs, Dtype, Engine, NoModel, OpCall, Work};
pub use record::{OpCalls, OpRecord};

/// The work of `call` at its recorded shapes, or why there is none.
pub fn work(call: &OpCall) -> Result<Work, NoModel> {
    if let Some(a) = call.annotation {
        return Ok(annotated(call, a));
    }
    let row = table::row_for(&call.name).ok_or(NoModel::NotModelled)?;
    if call.args.is_empty() && call.comm.is_none() {
        return Err(NoModel::NoShapes);
    }
    (row.model)(call)
}

/// A kernel with Inductor's annotation: its figures as given, said as
/// such (`model` `inductor_annotation`, not a model of ours). FLOPs are
/// matrix work (flop_counter, which Inductor counts with, has formulas for
/// matrix products only), in the first recorded tensor's type; with no
/// tensor recorded the engine is unknown.
fn annotated(call: &OpCall, a: Annotation) -> Work {
    let dtype = call.args.iter().find_map(|arg| match arg {
        Arg::Tensor { dtype, .. } => Some(*dtype),
        _ => None,
    });
    let engine = match (dtype, a.flops) {
        (None, _) => Engine::Unknown,
        (Some(_), 0) => Engine::Vector,
        (Some(_), _) => Engine::Matrix,
    };
    Work {
        model: "inductor_annotation",
        flops: a.flops,
        engine,
        dtype: dtype.unwrap_or(Dtype::F32),
        bytes: a.bytes,
        collective: None,
    }
}
