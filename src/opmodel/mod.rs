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

pub use model::{Arg, Collective, CommArgs, Dtype, Engine, NoModel, OpCall, Work};
pub use record::{OpCalls, OpRecord};

/// The work of `call` at its recorded shapes, or why there is none.
pub fn work(call: &OpCall) -> Result<Work, NoModel> {
    let row = table::row_for(&call.name).ok_or(NoModel::NotModelled)?;
    if call.args.is_empty() && call.comm.is_none() {
        return Err(NoModel::NoShapes);
    }
    (row.model)(call)
}
