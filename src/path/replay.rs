//! The replay (docs/path.md, "What-if"): a step's nodes recomputed
//! forward in the graph's topological order, each start at its latest
//! recomputed constraint plus its slack, each end at its start plus its
//! own time (a sync's end at the op it waited for plus its return
//! latency), with one change's edits. Nodes outside the step keep their
//! observed times. With no edit every event comes back as observed: each
//! slack was measured against the same edges.

use super::change::{Change, Editor};
use super::node::{end_event, start_event, NONE};

/// One step's share of the graph.
#[derive(Debug, Clone, Default)]
pub struct StepNodes {
    /// Events of the nodes that start in the window, in topological order.
    pub events: Vec<u32>,
    /// The step's ops that end in the window and start in it (replayed).
    pub ends: Vec<u32>,
    /// The latest observed end of the step's ops that started before the
    /// window and end in it (kept as observed), ns.
    pub fixed_end_ns: Option<i64>,
    /// The latest observed end of the step's ops, ns.
    pub observed_end_ns: Option<i64>,
    /// The window's start (`gpu_start_ns`), ns.
    pub window_start_ns: i64,
    /// The earliest the step may start, ns: the window's start when the
    /// window begins at the previous step's work end (budget's tiling,
    /// `previous_overlap_ns` > 0, or an op of the device began before the
    /// window), which no change of this step moves; `None` otherwise.
    pub start_floor_ns: Option<i64>,
    /// The step's observed start ([`StepNodes::step_start`] of the observed
    /// times), ns.
    pub observed_start_ns: Option<i64>,
}

impl StepNodes {
    /// The step's start (docs/path.md, "New step") given the earliest start
    /// of its replayed ops: the minimum over its ops, an op that began
    /// before the window counting at the window's start (it keeps its
    /// observed times, clipped there), then no earlier than the floor.
    pub fn step_start(&self, first_replayed_ns: Option<i64>) -> Option<i64> {
        let before = self.fixed_end_ns.map(|_| self.window_start_ns);
        let first = first_replayed_ns.into_iter().chain(before).min()?;
        Some(self.start_floor_ns.map_or(first, |floor| first.max(floor)))
    }
}

/// What one replay found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Outcome {
    /// The step's ops' latest recomputed end, ns.
    pub end_ns: i64,
    /// The step's recomputed start ([`StepNodes::step_start`]), ns.
    pub start_ns: i64,
    /// Σ over the nodes the change touched of old − new time and slack, ns.
    pub shortfall_ns: i64,
    /// Nodes the change touched.
    pub moved: u64,
}

/// Replays steps of one graph; holds every event's time, observed outside
/// a replay.
pub struct Replayer<'a> {
    /// The change's edits.
    pub editor: Editor<'a>,
    time: Vec<i64>,
    /// Per node, its own time under the change (set at its start event,
    /// read at its end event, which comes after it in the order).
    duration: Vec<i64>,
}

impl<'a> Replayer<'a> {
    /// A replayer over `editor`'s graph.
    pub fn new(editor: Editor<'a>) -> Replayer<'a> {
        let graph = editor.graph;
        let time = (0..graph.nodes.len() * 2)
            .map(|e| graph.event_time(e))
            .collect();
        let duration = graph.nodes.iter().map(|n| n.duration_ns()).collect();
        Replayer {
            editor,
            time,
            duration,
        }
    }

    /// Replays `step` with `change` (recomputed times are put back to the
    /// observed ones after).
    pub fn replay(&mut self, step: &StepNodes, change: Change) -> Outcome {
        let (shortfall, moved) = self.run(&step.events, change);
        let replayed = step.ends.iter().map(|&n| self.time[end_event(n)]).max();
        let end_ns = replayed
            .into_iter()
            .chain(step.fixed_end_ns)
            .max()
            .unwrap_or(i64::MIN);
        let first = step.ends.iter().map(|&n| self.time[start_event(n)]).min();
        let start_ns = step.step_start(first).unwrap_or(i64::MAX);
        self.restore(&step.events);
        Outcome {
            end_ns,
            start_ns,
            shortfall_ns: shortfall,
            moved,
        }
    }

    /// Replays `events` (in topological order) with no change and counts
    /// those that did not come back at their observed time.
    pub fn moved_by_nothing(&mut self, events: &[u32]) -> u64 {
        self.run(events, Change::Nothing);
        let graph = self.editor.graph;
        let moved = events
            .iter()
            .filter(|&&e| self.time[e as usize] != graph.event_time(e as usize))
            .count() as u64;
        self.restore(events);
        moved
    }

    /// Recomputes `events` with `change`; returns (shortfall, nodes moved).
    fn run(&mut self, events: &[u32], change: Change) -> (i64, u64) {
        let graph = self.editor.graph;
        let (mut shortfall, mut moved) = (0i64, 0u64);
        for &e in events {
            let n = e / 2;
            let node = &graph.nodes[n as usize];
            let t = if e % 2 == 0 {
                let edit = self.editor.edit(change, n);
                let slack = graph.slack[n as usize];
                let cut = (node.duration_ns() - edit.duration_ns) + (slack.ns - edit.slack_ns);
                shortfall += cut;
                moved += u64::from(cut > 0);
                self.duration[n as usize] = edit.duration_ns;
                match slack.binding {
                    None => node.start_ns,
                    Some(_) => {
                        let latest = node
                            .start_edges()
                            .iter()
                            .filter(|(_, s, _)| *s != NONE)
                            .map(|&(_, s, from_end)| {
                                self.time[if from_end {
                                    end_event(s)
                                } else {
                                    start_event(s)
                                }]
                            })
                            .max()
                            .unwrap_or(node.start_ns);
                        latest + edit.slack_ns
                    }
                }
            } else if node.waited != NONE {
                let waited_end = graph.nodes[node.waited as usize].end_ns;
                let latency = node.end_ns - waited_end;
                self.time[start_event(n)].max(self.time[end_event(node.waited)] + latency)
            } else {
                self.time[start_event(n)] + self.duration[n as usize]
            };
            self.time[e as usize] = t;
        }
        (shortfall, moved)
    }

    /// Puts `events` back to their observed times.
    fn restore(&mut self, events: &[u32]) {
        let graph = self.editor.graph;
        for &e in events {
            self.time[e as usize] = graph.event_time(e as usize);
            let n = (e / 2) as usize;
            self.duration[n] = graph.nodes[n].duration_ns();
        }
    }
}
