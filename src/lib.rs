//! rooftrace: how close each kernel is to the roofline of the GPU it ran on
//! (from Nsight Compute CSVs), and where time goes between kernels (from
//! Nsight Systems timelines and PyTorch profiler traces).
//!
//! Data flows one way: input files are parsed into typed models (`ncu`,
//! `nsys`, `kineto`, `calibrate`; timelines share `timeline`), analysed into reports (`roofline`, `gaps`), and
//! presented as bytes (`report`, `plot`). Only `commands` touches paths,
//! stdout and progress bars.

// Every byte for the user goes through `commands::output` (`write_output`,
// `note`), where a reader that left is no failure; `println!`/`eprintln!`
// panic on a closed pipe.
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod budget;
pub mod calibrate;
pub mod chrome_trace;
pub mod cli;
pub mod comm;
pub mod commands;
pub mod diagnostic;
pub mod diff;
pub mod error;
pub mod gaps;
pub mod input;
pub mod kineto;
pub mod many_inputs;
pub mod ncu;
pub mod nsys;
pub mod opmodel;
pub mod ops;
pub mod path;
pub mod plot;
pub mod projection;
pub mod report;
pub mod roofline;
pub mod roofs;
pub mod suggest;
pub mod synth;
pub mod timeline;
pub mod units;
