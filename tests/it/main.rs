//! The one integration-test binary. Each area has its own module; snapshots
//! live in `tests/it/snapshots/`.

mod action;
mod architecture;
#[cfg(unix)]
mod broken_pipe;
mod budget;
mod budget_ops;
mod budget_overlap;
mod calibrate;
mod calibrate_failures;
mod chart_layout;
mod clock;
mod comm;
mod comm_inputs;
mod comm_nsys;
mod common;
mod detect;
mod diff;
mod diff_gate;
mod diff_identity;
mod errors_once;
mod fit;
mod fuzz_replay;
mod gaps;
mod gaps_advice;
mod gaps_evidence;
mod gaps_host;
mod gaps_json_ranges;
#[cfg(target_os = "linux")]
mod gaps_memcap;
mod gaps_near;
mod gaps_verdicts;
mod hostile_convert;
mod hostile_inputs;
mod hostile_nsys;
#[cfg(unix)]
mod hostile_special;
mod input_door;
mod kineto;
mod kineto_hta;
mod kineto_liberal;
mod multi;
mod names;
mod ncu;
mod ncu_derived;
mod ncu_hostile_reader;
mod ncu_stream;
mod near_miss;
mod needs;
mod newcomer;
mod nsys_companion;
mod nsys_copies;
mod nsys_nvtx;
mod nsys_sqlite;
mod ops;
mod paths;
mod plot;
mod plot_typical;
mod portability;
mod projection;
mod range_words;
mod rate_only_consumers;
mod readme;
mod roofs_flags;
mod trace_out;
mod useful;
