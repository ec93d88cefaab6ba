//! Synthetic inputs for tests, examples and benchmarks (not parsers): data
//! written in the real formats so the readers can be exercised at any size.

pub mod grow;
pub mod job;
pub mod kineto;
pub mod layouts;
pub mod nccl;
pub mod nsys;
pub mod path;
pub mod scene;
