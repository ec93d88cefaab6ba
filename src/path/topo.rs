//! A topological order of the graph's events (each node's start and end),
//! by Kahn's algorithm, and each node's slack over its latest constraint.
//!
//! Every edge runs from an event no later than its target, so a cycle can
//! only close among events at one timestamp (a zero-duration op launched by
//! a call that a sync on it released, all at one ns). Kahn's algorithm
//! finds such a knot when its queue runs dry; the earliest event left (by
//! time, a start before an end) then loses its edges from events not yet
//! ordered, and the count is kept. Slacks are computed after, from the
//! edges kept, so a replay of nothing reproduces every observed time.

use super::node::{end_event, start_event, Binding, Graph, Slack, NONE};
use std::collections::VecDeque;

/// Orders `graph`'s events (fills `rank`), breaks equal-time cycles
/// (counted in `dropped_edges`) and fills `slack`.
pub fn order(graph: &mut Graph) {
    let events = graph.nodes.len() * 2;
    let (offsets, successors) = successors(graph);
    let mut indegree = vec![0i32; events];
    for &t in &successors {
        indegree[t as usize] += 1;
    }
    let mut rank = vec![u32::MAX; events];
    let mut queue: VecDeque<u32> = (0..events as u32)
        .filter(|&e| indegree[e as usize] == 0)
        .collect();
    let mut next_rank = 0u32;
    let mut stuck: Option<(Vec<u32>, usize)> = None;
    while (next_rank as usize) < events {
        let Some(e) = queue.pop_front() else {
            let e = knot(graph, &mut stuck, &rank);
            indegree[e as usize] = 0;
            queue.push_back(e);
            continue;
        };
        if rank[e as usize] != u32::MAX {
            continue;
        }
        rank[e as usize] = next_rank;
        next_rank += 1;
        for &t in &successors[offsets[e as usize] as usize..offsets[e as usize + 1] as usize] {
            indegree[t as usize] -= 1;
            if indegree[t as usize] == 0 && rank[t as usize] == u32::MAX {
                queue.push_back(t);
            }
        }
    }
    graph.rank = rank;
    graph.slack = graph
        .nodes
        .iter()
        .map(|n| {
            let mut best: Option<(i64, Binding)> = None;
            for (kind, source, from_end) in n.start_edges() {
                if source == NONE {
                    continue;
                }
                let c = graph.constraint(source, from_end);
                // Strictly later replaces: the earlier kind wins a tie.
                if best.is_none_or(|(b, _)| c > b) {
                    best = Some((c, kind));
                }
            }
            match best {
                Some((c, binding)) => Slack {
                    ns: n.start_ns - c,
                    binding: Some(binding),
                },
                None => Slack {
                    ns: 0,
                    binding: None,
                },
            }
        })
        .collect();
}

/// The graph's successor lists (CSR: `offsets`, `successors`) over events.
fn successors(graph: &Graph) -> (Vec<u32>, Vec<u32>) {
    let events = graph.nodes.len() * 2;
    let mut edges: Vec<(u32, u32)> = Vec::with_capacity(events + graph.nodes.len());
    for (i, n) in graph.nodes.iter().enumerate() {
        let i = i as u32;
        for (_, source, from_end) in n.start_edges() {
            if source != NONE {
                let from = if from_end {
                    end_event(source)
                } else {
                    start_event(source)
                };
                edges.push((from as u32, start_event(i) as u32));
            }
        }
        edges.push((start_event(i) as u32, end_event(i) as u32));
        if n.waited != NONE {
            edges.push((end_event(n.waited) as u32, end_event(i) as u32));
        }
    }
    let mut offsets = vec![0u32; events + 1];
    for &(from, _) in &edges {
        offsets[from as usize + 1] += 1;
    }
    for e in 0..events {
        offsets[e + 1] += offsets[e];
    }
    let mut fill = offsets.clone();
    let mut successors = vec![0u32; edges.len()];
    for (from, to) in edges {
        successors[fill[from as usize] as usize] = to;
        fill[from as usize] += 1;
    }
    (offsets, successors)
}

/// The earliest event not yet ordered (by observed time, a start before an
/// end, then node), with its edges from unordered events dropped.
fn knot(graph: &mut Graph, stuck: &mut Option<(Vec<u32>, usize)>, rank: &[u32]) -> u32 {
    let (left, at) = stuck.get_or_insert_with(|| {
        let mut left: Vec<u32> = (0..rank.len() as u32)
            .filter(|&e| rank[e as usize] == u32::MAX)
            .collect();
        left.sort_by_key(|&e| (graph.event_time(e as usize), e % 2, e));
        (left, 0)
    });
    while rank[left[*at] as usize] != u32::MAX {
        *at += 1;
    }
    let e = left[*at];
    let unordered = |source: u32, from_end: bool| {
        let ev = if from_end {
            end_event(source)
        } else {
            start_event(source)
        };
        rank[ev] == u32::MAX
    };
    let node = e / 2;
    let mut n = graph.nodes[node as usize];
    let mut dropped = 0;
    if e % 2 == 0 {
        for (field, from_end) in [
            (&mut n.stream_prev, true),
            (&mut n.cross, true),
            (&mut n.launch, false),
            (&mut n.host_prev, true),
        ] {
            if *field != NONE && unordered(*field, from_end) {
                *field = NONE;
                dropped += 1;
            }
        }
    } else if n.waited != NONE && unordered(n.waited, true) {
        n.waited = NONE;
        dropped += 1;
    }
    graph.nodes[node as usize] = n;
    graph.dropped_edges += dropped;
    e
}
