//! The one integration-test binary. Each area has its own module; snapshots
//! live in `tests/it/snapshots/`.

mod architecture;
mod calibrate;
mod calibrate_failures;
mod common;
mod fuzz_replay;
mod gaps;
mod hostile_convert;
mod hostile_inputs;
mod hostile_nsys;
mod ncu;
mod plot;
