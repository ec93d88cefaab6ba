//! The one integration-test binary. Each area has its own module; snapshots
//! live in `tests/it/snapshots/`.

mod architecture;
mod budget;
mod calibrate;
mod calibrate_failures;
mod common;
mod gaps;
mod ncu;
mod plot;
