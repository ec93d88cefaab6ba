//! The one integration-test binary. Each area has its own module; snapshots
//! live in `tests/it/snapshots/`.

mod common;
mod gaps;
