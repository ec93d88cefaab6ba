//! One trace → [`RankTrace`] (its collectives and communication figures,
//! small enough to keep for every rank while the timelines are dropped one
//! by one); the ranks → [`CommReport`].

use super::given;
use super::join::{collectives, collectives_of};
use super::kind::CollKind;
use super::link::LinkConfig;
use super::model::*;
use super::ranks::{align, match_ranks, split, Clock, Matched, MatchedBy, Matching, Split};
use crate::timeline::{OpKind, Timeline};
use std::collections::HashMap;

/// Sorted disjoint intervals of `iv` (sorted by start).
fn merged(iv: impl Iterator<Item = (i64, i64)>) -> Vec<(i64, i64)> {
    let mut out: Vec<(i64, i64)> = Vec::new();
    for (s, e) in iv {
        match out.last_mut() {
            Some(l) if s <= l.1 => l.1 = l.1.max(e),
            _ => out.push((s, e)),
        }
    }
    out
}

/// Length of the intersection of two sorted disjoint interval lists.
fn intersection(a: &[(i64, i64)], b: &[(i64, i64)]) -> i64 {
    let (mut i, mut j, mut t) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        t += (a[i].1.min(b[j].1) - a[i].0.max(b[j].0)).max(0);
        if a[i].1 < b[j].1 {
            i += 1;
        } else {
            j += 1;
        }
    }
    t
}

/// Per device: (communication union, its intersection with the compute
/// union: kernels that are not communication, and graph rows), ns, summed.
pub fn comm_and_overlap(tl: &Timeline) -> (i64, i64) {
    comm_and_overlap_of(tl, None)
}

/// [`comm_and_overlap`] of process `pid` only (every process when `None`).
fn comm_and_overlap_of(tl: &Timeline, pid: Option<u32>) -> (i64, i64) {
    let (mut comm, mut overlap) = (0, 0);
    for dev in tl
        .ops
        .chunk_by(|a, b| (a.pid, a.device) == (b.pid, b.device))
        .filter(|d| pid.is_none_or(|p| d[0].pid == p))
    {
        let is_compute = |o: &&crate::timeline::GpuOp| {
            matches!(o.kind, OpKind::Kernel | OpKind::Graph) && !tl.is_comm(o)
        };
        let c = merged(
            dev.iter()
                .filter(|o| tl.is_comm(o))
                .map(|o| (o.start_ns, o.end_ns)),
        );
        let k = merged(
            dev.iter()
                .filter(is_compute)
                .map(|o| (o.start_ns, o.end_ns)),
        );
        comm += c.iter().map(|x| x.1 - x.0).sum::<i64>();
        overlap += intersection(&c, &k);
    }
    (comm, overlap)
}

/// What `comm` keeps of one timeline.
pub fn rank_trace(tl: &Timeline, input: &str) -> RankTrace {
    let (comm_ns, overlap) = comm_and_overlap(tl);
    RankTrace {
        input: input.to_string(),
        rank: tl.info.identity.rank.map(|r| r.0),
        world_size: tl.info.identity.world_size,
        collectives: collectives(tl),
        comm_ns,
        exposed_ns: comm_ns - overlap,
        notes: reader_notes(tl),
        shared_clock: None,
    }
}

/// What the reader said about the collectives' arguments.
fn reader_notes(tl: &Timeline) -> Vec<String> {
    tl.diagnostics
        .iter()
        .filter(|d| matches!(d.kind, crate::timeline::DiagnosticKind::NcclPayloads { .. }))
        .map(|d| d.message.clone())
        .collect()
}

/// What `comm` keeps of one timeline: one [`RankTrace`] per process when
/// the communication kernels come from several (an nsys export of several
/// ranks' processes: each its own rank with its own kernels, labelled
/// `input (pid N)`, its rank unknown since the export's one recorded
/// environment cannot be every process's; all on the export's one clock),
/// else [`rank_trace`]'s one.
pub fn rank_traces(tl: &Timeline, input: &str) -> Vec<RankTrace> {
    let mut pids: Vec<u32> = tl
        .ops
        .iter()
        .filter(|o| tl.is_comm(o))
        .map(|o| o.pid)
        .collect();
    pids.sort_unstable();
    pids.dedup();
    if pids.len() < 2 {
        return vec![rank_trace(tl, input)];
    }
    pids.into_iter()
        .map(|pid| {
            let (comm_ns, overlap) = comm_and_overlap_of(tl, Some(pid));
            RankTrace {
                input: format!("{input} (pid {pid})"),
                rank: None,
                world_size: None,
                collectives: collectives_of(tl, Some(pid)),
                comm_ns,
                exposed_ns: comm_ns - overlap,
                notes: reader_notes(tl),
                shared_clock: Some(input.to_string()),
            }
        })
        .collect()
}

/// Bandwidths and link of a row from its bytes, time and group.
fn rates(row: &mut CollectiveRow, c: &Collective, links: &LinkConfig) {
    let t = row.duration_ns as f64 * 1e-9;
    row.algbw_bytes_per_s = row.bytes.filter(|_| t > 0.0).map(|b| b as f64 / t);
    row.busbw_factor = row.group_size.and_then(|n| row.kind.busbw_factor(n));
    row.busbw_bytes_per_s = row
        .algbw_bytes_per_s
        .zip(row.busbw_factor)
        .map(|(a, f)| a * f);
    match links.link_for(c.group_ranks.as_deref(), c.group_size) {
        Ok(l) => {
            row.link = Some(l.kind);
            row.link_fraction = row.busbw_bytes_per_s.map(|b| b / l.bytes_per_s);
        }
        Err(why) => row.link_unknown = Some(why),
    }
}

/// A row for collective `c` (first seen as `kernel_id`).
fn row(c: &Collective, kernel_id: usize, rank: Option<u32>) -> CollectiveRow {
    CollectiveRow {
        index: 0,
        rank,
        kind: c.kind,
        kernel_id,
        args_from: c.args_from,
        process_group: c.process_group.as_deref().map(str::to_string),
        seq: c.seq,
        dtype: c.dtype,
        group_size: c.group_size,
        ranks_given: 1,
        start_ns: c.start_ns,
        duration_ns: c.end_ns - c.start_ns,
        bytes: c.bytes,
        bytes_from: c.bytes_from.as_deref().map(str::to_string),
        algbw_bytes_per_s: None,
        busbw_factor: None,
        busbw_bytes_per_s: None,
        link: None,
        link_fraction: None,
        link_unknown: None,
        nvls: CollKind::is_nvls_kernel(&c.kernel),
        last_rank: None,
        last_input: None,
        wait_ns: None,
        transfer_ns: None,
        waits_lower_bound: false,
        arrival: None,
        noise_floor_ns: None,
    }
}

/// The report over the ranks given (one trace: its kernels; several: the
/// collectives matched across them, with waits).
pub fn report(ranks: &[RankTrace], links: &LinkConfig, gpu: Option<String>) -> CommReport {
    let mut names = Names::default();
    let mut diagnostics = Vec::new();
    let mut rank_rows: Vec<RankRow> = ranks
        .iter()
        .map(|r| RankRow::new(r.rank, &r.input, r.comm_ns, r.exposed_ns))
        .collect();
    let mut rows = Vec::new();
    if ranks.len() == 1 {
        for c in &ranks[0].collectives {
            let mut r = row(c, names.id(&c.kernel), ranks[0].rank);
            rates(&mut r, c, links);
            rows.push(r);
        }
        if !rows.is_empty() {
            diagnostics.push(Diagnostic::new(
                DiagnosticKind::OneRank,
                "one rank's trace: each kernel's time includes its wait for the other ranks, so algbw and busbw are lower bounds on what the link achieved; give the traces of every rank to split wait from transfer",
            ));
        }
    } else {
        rows = several(ranks, links, &mut rank_rows, &mut names, &mut diagnostics);
    }
    rows.sort_by_key(|r| (r.start_ns, r.rank));
    for (i, r) in rows.iter_mut().enumerate() {
        r.index = i;
    }
    let no_args = rows
        .iter()
        .filter(|r| r.args_from == ArgsFrom::None)
        .count();
    if no_args > 0 {
        diagnostics.push(Diagnostic::new(
            DiagnosticKind::NoArgs { kernels: no_args },
            format!("{no_args} NCCL kernels have no collective arguments in the trace (no record_param_comms or nccl:* op around their launch, or no NCCL NVTX range in an nsys export): time only, bytes unknown"),
        ));
    }
    let nvls = rows.iter().filter(|r| r.nvls).count();
    if nvls > 0 {
        diagnostics.push(Diagnostic::new(
            DiagnosticKind::Nvls { collectives: nvls },
            format!(
                "{} (NVLink SHARP: the NVSwitch reduces, so each GPU sends its buffer once): busbw can exceed the link's per-direction peak, and a link fraction above 1 there is NVLS, not an error (nvls)",
                if nvls == 1 {
                    "1 collective ran an NVLS kernel".to_string()
                } else {
                    format!("{nvls} collectives ran NVLS kernels")
                }
            ),
        ));
    }
    let mut notes: Vec<&String> = ranks.iter().flat_map(|r| &r.notes).collect();
    notes.sort();
    notes.dedup();
    for n in notes {
        diagnostics.push(Diagnostic::new(DiagnosticKind::ReaderNote, n.clone()));
    }
    if ranks.iter().all(|r| r.collectives.is_empty()) {
        diagnostics.push(Diagnostic::new(
            DiagnosticKind::NoCollectives,
            "no NCCL/RCCL kernel in the input",
        ));
    }
    // Most wait first, then by rank.
    rank_rows.sort_by(|a, b| {
        b.wait_ns
            .unwrap_or(0)
            .cmp(&a.wait_ns.unwrap_or(0))
            .then(a.rank.cmp(&b.rank))
            .then(a.input.cmp(&b.input))
    });
    CommReport {
        schema: SCHEMA,
        inputs: ranks.iter().map(|r| r.input.clone()).collect(),
        gpu,
        links: [
            &links.nvlink,
            &links.nvlink_pair,
            &links.pcie,
            &links.network,
        ]
        .into_iter()
        .flatten()
        .cloned()
        .collect(),
        gpus_per_node: links.gpus_per_node,
        gpus_per_node_from: String::new(),
        method: METHOD.to_vec(),
        collectives: rows,
        ranks: rank_rows,
        diagnostics,
        names: names.names,
    }
}

/// Kernel names, each once.
#[derive(Default)]
struct Names {
    names: Vec<String>,
    ids: HashMap<String, usize>,
}

impl Names {
    fn id(&mut self, n: &str) -> usize {
        if let Some(i) = self.ids.get(n) {
            return *i;
        }
        self.names.push(n.to_string());
        self.ids.insert(n.to_string(), self.names.len() - 1);
        self.names.len() - 1
    }
}

/// Several ranks: the collectives matched across them, on aligned clocks,
/// with the last rank and the waits; fills each rank's row.
fn several(
    ranks: &[RankTrace],
    links: &LinkConfig,
    rank_rows: &mut [RankRow],
    names: &mut Names,
    diagnostics: &mut Vec<Diagnostic>,
) -> Vec<CollectiveRow> {
    let views: Vec<&[Collective]> = ranks.iter().map(|r| r.collectives.as_slice()).collect();
    let given = given::ranks(ranks, rank_rows, diagnostics);
    let matching = match_ranks(&views);
    let clocks = clocks(ranks, &views, &matching);
    clock_rows(&clocks, &given, rank_rows, diagnostics);
    matching_diagnostics(&matching, &given, diagnostics);
    let mut rows = Vec::new();
    let (mut partial, mut within, mut near, mut floor) = (false, 0, 0, 0);
    for m in &matching.matched {
        let Some(s) = split(&views, m, &clocks) else {
            continue;
        };
        let (mut r, c) = matched_row(&views, m, &s, &given, names);
        // Named (by rank, else by its input) only above the noise floor.
        r.last_input = matches!(s.arrival, Arrival::Last | Arrival::LastNearNoise)
            .then(|| ranks[s.last].input.clone());
        partial |= r.waits_lower_bound;
        for &(ri, w, d) in &s.waits {
            let rr = &mut rank_rows[ri];
            rr.wait_ns = Some(rr.wait_ns.unwrap_or(0) + w);
            rr.transfer_ns = Some(rr.transfer_ns.unwrap_or(0) + d - w);
        }
        match s.arrival {
            Arrival::WithinNoise => within += 1,
            Arrival::LastNearNoise => near += 1,
            Arrival::Together | Arrival::Last => {}
        }
        if matches!(s.arrival, Arrival::Last | Arrival::LastNearNoise) {
            rank_rows[s.last].last_in += 1;
            rank_rows[s.last].caused_wait_ns += r.wait_ns.unwrap_or(0);
        }
        if s.arrival != Arrival::Together {
            floor = floor.max(s.noise_floor_ns);
        }
        rates(&mut r, c, links);
        rows.push(r);
    }
    if partial {
        diagnostics.push(Diagnostic::new(
            DiagnosticKind::PartialGroups,
            "some collectives' groups have ranks whose traces were not given: the last rank may be one of them, so their waits are lower bounds (waits_lower_bound)",
        ));
    }
    if within + near > 0 {
        diagnostics.push(Diagnostic::new(
            DiagnosticKind::Noise { within, near },
            format!("the clocks are aligned to within {} (noise floor: the largest clock_error_ns of a collective's ranks): at {within} collective{} the latest rank's lead is within it, so no rank is called last there (arrival within_noise); at {near} more the named last rank's lead is within ten times it (last_near_noise); their waits are as measured, give or take the floor", crate::units::duration_ns(floor as f64), if within == 1 { "" } else { "s" }),
        ));
    }
    rows
}

/// One matched collective's row: its arguments from the last rank's
/// kernel, or from the first member whose size is known when the last
/// rank's is not; its time the transfer. Returns the row and the
/// collective it describes.
fn matched_row<'a>(
    views: &[&'a [Collective]],
    m: &Matched,
    s: &Split,
    given: &[Option<u32>],
    names: &mut Names,
) -> (CollectiveRow, &'a Collective) {
    let of = |&(r, c): &(usize, usize)| &views[r][c];
    let last = m
        .members
        .iter()
        .find(|x| x.0 == s.last)
        .map_or(of(&m.members[0]), of);
    let c = if last.bytes.is_some() {
        last
    } else {
        m.members
            .iter()
            .map(of)
            .find(|c| c.bytes.is_some())
            .unwrap_or(last)
    };
    let mut r = row(c, names.id(&c.kernel), None);
    r.ranks_given = s.waits.len() as u32;
    r.start_ns = s.start_ns;
    r.duration_ns = s.transfer_ns;
    r.transfer_ns = Some(s.transfer_ns);
    r.wait_ns = Some(s.waits.iter().map(|w| w.1).sum());
    r.arrival = Some(s.arrival);
    r.noise_floor_ns = Some(s.noise_floor_ns);
    // Named only when its lead is above the noise floor.
    r.last_rank =
        given[s.last].filter(|_| matches!(s.arrival, Arrival::Last | Arrival::LastNearNoise));
    // Traces whose rank is neither recorded nor inferred cannot be looked
    // up in the group's list: then only the count says whether some were
    // not given.
    let all_ranked = given.iter().all(Option::is_some);
    r.waits_lower_bound = match (&c.group_ranks, c.group_size) {
        (Some(g), _) if all_ranked => g.iter().any(|x| !given.contains(&Some(*x))),
        (Some(g), _) => g.len() > s.waits.len(),
        (None, Some(n)) => (n as usize) > s.waits.len(),
        (None, None) => true,
    };
    (r, c)
}

/// Each rank's clock: one shared clock (the processes of one nsys export)
/// needs no alignment (offsets 0, no residual, so no noise floor), else
/// aligned over the matched collectives.
fn clocks(ranks: &[RankTrace], views: &[&[Collective]], m: &Matching) -> Vec<Option<Clock>> {
    let first = &ranks[0].shared_clock;
    if first.is_some() && ranks.iter().all(|r| &r.shared_clock == first) {
        return (0..ranks.len())
            .map(|i| {
                Some(Clock {
                    offset_ns: 0,
                    error_ns: 0,
                    // On the first process's clock, as every other is.
                    path: if i == 0 { Vec::new() } else { vec![0] },
                })
            })
            .collect();
    }
    align(views, &m.matched)
}

/// Fills each rank's clock (offset, error, the ranks it was aligned
/// through) and says which ranks could not be aligned or were aligned to
/// another reference.
fn clock_rows(
    clocks: &[Option<Clock>],
    given: &[Option<u32>],
    rank_rows: &mut [RankRow],
    diagnostics: &mut Vec<Diagnostic>,
) {
    let mut references = std::collections::BTreeSet::new();
    for (i, clock) in clocks.iter().enumerate() {
        let Some(clock) = clock else {
            continue;
        };
        let row = &mut rank_rows[i];
        row.clock_offset_ns = Some(clock.offset_ns);
        row.clock_error_ns = Some(clock.error_ns);
        row.clock_path = clock.path.iter().map(|&p| given[p]).collect();
        row.wait_ns = Some(0);
        row.transfer_ns = Some(0);
        references.insert(clock.path.first().copied().unwrap_or(i));
    }
    let unaligned = clocks.iter().filter(|o| o.is_none()).count();
    if unaligned > 0 {
        diagnostics.push(Diagnostic::new(
            DiagnosticKind::Unaligned { ranks: unaligned },
            format!("{unaligned} ranks share no matched collective with any other rank given: their clocks cannot be aligned and they are left out of the waits"),
        ));
    }
    if references.len() > 1 {
        let refs: Vec<String> = references
            .iter()
            .map(|&i| given[i].map_or(format!("input {}", i + 1), |r| format!("rank {r}")))
            .collect();
        diagnostics.push(Diagnostic::new(
            DiagnosticKind::ClockGroups {
                groups: references.len(),
            },
            format!("the ranks given fall into {} sets that share no collective: each set's clocks are aligned to its own first rank ({}; clock_path), so offsets of different sets are not comparable", references.len(), refs.join(", ")),
        ));
    }
}

/// Says how many collectives appear on one rank only and how many were
/// matched by order (with the count per rank).
fn matching_diagnostics(m: &Matching, given: &[Option<u32>], diagnostics: &mut Vec<Diagnostic>) {
    if m.single > 0 {
        let single = m.single;
        diagnostics.push(Diagnostic::new(
            DiagnosticKind::Unmatched { collectives: single },
            format!("{single} collectives appear on one rank only (another process group, a rank's trace cut earlier, or a kernel without its Seq): left out of the matched rows"),
        ));
    }
    let by_order = m
        .matched
        .iter()
        .filter(|x| x.by == MatchedBy::Order)
        .count();
    if by_order > 0 {
        let per_rank: Vec<String> = m
            .by_order
            .iter()
            .enumerate()
            .filter(|x| *x.1 > 0)
            .map(|(i, n)| {
                let who = given[i].map_or(format!("input {}", i + 1), |r| format!("rank {r}"));
                format!("{who}: {n}")
            })
            .collect();
        diagnostics.push(Diagnostic::new(
            DiagnosticKind::MatchedByOrder {
                collectives: by_order,
            },
            format!("{by_order} collectives matched by order of occurrence, the traces recording no Seq for them (kernels matched per rank: {}): a rank whose profiler window opened later, or that misses one collective, is matched wrong from there on; traces whose record_param_comms ops carry Seq are matched by it", per_rank.join(", ")),
        ));
    }
}
