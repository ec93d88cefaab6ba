//! Op calls as a reader hands them to the `ops` analysis: each call with
//! its recorded shapes, the host thread it ran on and its interval there
//! (a kernel belongs to the ops whose interval holds its launch call on
//! the same thread), and what was left out.

use super::model::OpCall;

/// Most op calls with shapes a reader keeps (28,878 on a real V100
/// training trace); beyond it calls are counted in
/// [`OpCalls::dropped`], not kept.
pub const MAX_OP_CALLS: usize = 1 << 22;

/// One op call with shapes, where and when it ran on the host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpRecord {
    /// The call: name and recorded arguments.
    pub call: OpCall,
    /// Host process id.
    pub pid: u32,
    /// Host thread id (the same reading as the launch calls').
    pub tid: u32,
    /// Start on the host, ns.
    pub start_ns: i64,
    /// End on the host, ns (≥ `start_ns`).
    pub end_ns: i64,
}

/// The op calls a trace recorded with shapes, and the counts of the rest.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OpCalls {
    /// Calls with shapes whose interval holds at least one launch call on
    /// their thread, sorted by (pid, tid, start, end descending: an outer
    /// op before the inner ones that start with it).
    pub records: Vec<OpRecord>,
    /// `cpu_op` events without usable `Input Dims`/`Input type`.
    pub without_shapes: u64,
    /// Calls with shapes beyond [`MAX_OP_CALLS`], not kept.
    pub dropped: u64,
    /// Calls with shapes that launched nothing (left out of `records`).
    pub launched_nothing: u64,
}
