//! Timeline -> gap report: busy/idle per (process, device) and per stream,
//! each idle gap classified by why the GPU idled.

pub mod class;

pub use class::GapClass;
