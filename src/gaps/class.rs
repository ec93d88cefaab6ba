//! Why the GPU idled: the classes of an idle gap. The rules that assign them
//! are in `docs/gaps.md`.

use serde::{Deserialize, Serialize};

/// The reason a gap happened, judged from the GPU op that ends it and the API
/// call that launched that op.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GapClass {
    /// The launch call started after the GPU went idle: the CPU could not keep up.
    HostBound,
    /// The launch call started before the idle began but returned after it.
    LaunchInFlight,
    /// The work was already queued and the gap is below the launch-latency threshold.
    LaunchLatency,
    /// The work was already queued yet the GPU idled: stream/event waits, cross-stream dependencies.
    QueuedDependency,
    /// The host was blocked in a synchronisation call over the gap.
    Synchronization,
    /// No API row explains the op: graph replay, device-side launch, trimmed export.
    Unattributed,
}

impl GapClass {
    /// All classes in display order.
    pub const ALL: [GapClass; 6] = [
        GapClass::HostBound,
        GapClass::LaunchInFlight,
        GapClass::LaunchLatency,
        GapClass::QueuedDependency,
        GapClass::Synchronization,
        GapClass::Unattributed,
    ];

    /// The snake_case key used in JSON and CSV.
    pub fn key(self) -> &'static str {
        match self {
            GapClass::HostBound => "host_bound",
            GapClass::LaunchInFlight => "launch_in_flight",
            GapClass::LaunchLatency => "launch_latency",
            GapClass::QueuedDependency => "queued_dependency",
            GapClass::Synchronization => "synchronization",
            GapClass::Unattributed => "unattributed",
        }
    }

    /// A short human label.
    pub fn label(self) -> &'static str {
        match self {
            GapClass::HostBound => "host-bound",
            GapClass::LaunchInFlight => "launch in flight",
            GapClass::LaunchLatency => "launch latency",
            GapClass::QueuedDependency => "queued/dependency",
            GapClass::Synchronization => "synchronisation",
            GapClass::Unattributed => "unattributed",
        }
    }
}
