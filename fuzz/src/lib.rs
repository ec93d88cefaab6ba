//! The fuzz entry points, shared by the cargo-fuzz targets and by the stable
//! replay test (`tests/it/fuzz_replay.rs` includes `entry.rs`).

#[path = "entry.rs"]
pub mod entry;
