//! The one integration-test binary. Each area has its own module; snapshots
//! live in `tests/it/snapshots/`.

mod architecture;
mod calibrate;
mod calibrate_failures;
mod common;
mod detect;
mod diff;
mod gaps;
mod gaps_host;
mod names;
mod ncu;
mod ncu_derived;
mod plot;
