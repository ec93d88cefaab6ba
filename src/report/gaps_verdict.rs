//! The one-line verdict of the gap report: how idle the GPU was, the
//! largest reason and the fix drawn from the evidence (the host detail,
//! the CUDA call and NVTX range families of the longest gaps, the length
//! of the host-bound gaps, the copies when they dominate busy time).

use super::dur;
use crate::gaps::model::DetailTotals;
use crate::gaps::{ClassTotals, FixTerms, GapClass, GapReport, HostAdvice};
use crate::timeline::CopyKind;
use crate::timeline::Tool;
use crate::units::{duration_ns, ellipsize, percent, si};

pub(super) fn sum_classes<'a>(it: impl Iterator<Item = &'a ClassTotals>) -> ClassTotals {
    let mut t = ClassTotals::default();
    for c in it {
        t.merge(c);
    }
    t
}

/// One line: how idle the GPU was and the main reason. With `--nvtx`, per
/// range instance ("2.10 ms/step idle (median of 40 `decode`), 71.0 % host-bound").
pub fn verdict(r: &GapReport) -> String {
    let (idle, classes) = match &r.ranges {
        Some(rr) if !rr.instances.is_empty() => {
            let idle: i64 = rr.instances.iter().map(|i| i.idle_ns).sum();
            let head = format!(
                "GPU idle {} per `{}` range (median of {}, GPU window {})",
                rr.idle_ns.median.map_or_else(String::new, dur),
                rr.pattern,
                rr.instances.len(),
                rr.gpu_window_ns.median.map_or_else(String::new, dur)
            );
            // The host fix by the one rule, over the instances' own
            // host-bound gaps (as `budget` does for its steps).
            let mut host = crate::gaps::HostTotals::default();
            for i in &rr.instances {
                host.merge(i.host());
            }
            let terms = r.fix_terms();
            let advice = host.advice().map(|a| (a.fix(terms), a.evidence()));
            return with_reason(head, (idle, &rr.classes), advice, terms).0;
        }
        _ => (
            r.devices.iter().map(|d| d.idle_ns).sum::<i64>(),
            sum_classes(r.devices.iter().map(|d| &d.classes)),
        ),
    };
    let span: i64 = r.devices.iter().map(|d| d.span_ns).sum();
    let n = r.devices.len();
    let head = format!(
        "GPU idle {} of {}{}{}",
        percent(if span > 0 {
            idle as f64 / span as f64
        } else {
            0.0
        }),
        duration_ns(span as f64),
        if n > 1 {
            format!(" summed over {n} process/device pairs")
        } else {
            String::new()
        },
        busy_note(r)
    );
    let busy: i64 = r.devices.iter().map(|d| d.busy_ns).sum();
    let (line, named_fix) = with_reason(head, (idle, &classes), host_advice(r), r.fix_terms());
    match copy_advice(r) {
        // A mostly busy GPU whose busy time is copies: the copies first.
        Some(c) if busy > idle && !named_fix => format!("{line}; fix first: {c}"),
        Some(c) => format!("{line}; then {c}"),
        None => line,
    }
}

/// When copies kept the GPU busier than kernels: the largest copy stream
/// (direction and host memory kind) with its bytes, time and achieved
/// bandwidth against the host link's (and where that figure came from),
/// and the fix, e.g. `copies dominate busy time: 446 HtoD copies from
/// pinned memory, 51.0 GB in 1.84 s at 27.7 GB/s achieved, 43.9 % of the
/// PCIe Gen5 x16 link (63.0 GB/s per direction, from the h100-sxm table
/// entry, GPU chosen by --gpu): keep the data resident …`.
fn copy_advice(r: &GapReport) -> Option<String> {
    let kernels: i64 = r.devices.iter().map(|d| d.kernel_busy_ns).sum();
    let copies: i64 = r.devices.iter().map(|d| d.copy_busy_ns).sum();
    if copies <= kernels {
        return None;
    }
    // The largest (direction, pageable) over every device.
    let mut groups: Vec<CopyGroup> = Vec::new();
    for c in r.devices.iter().flat_map(|d| &d.copies) {
        match groups
            .iter_mut()
            .find(|g| (g.direction, g.pageable) == (c.direction, c.pageable))
        {
            Some(g) => {
                g.count += c.count;
                g.bytes = g.bytes.zip(c.bytes).map(|(a, b)| a.saturating_add(b));
                g.duration_ns += c.duration_ns;
            }
            None => groups.push(CopyGroup {
                direction: c.direction,
                pageable: c.pageable,
                count: c.count,
                bytes: c.bytes,
                duration_ns: c.duration_ns,
            }),
        }
    }
    let CopyGroup {
        direction,
        pageable,
        count,
        bytes,
        duration_ns: ns,
    } = groups
        .into_iter()
        .max_by_key(|g| (g.duration_ns, std::cmp::Reverse(g.direction.label())))?;
    // What the input is called: a PyTorch profiler trace or an nsys export.
    let input = match r.input.source.tool() {
        Tool::PyTorchProfiler => "trace",
        Tool::Nsys => "export",
    };
    let achieved = bytes
        .filter(|_| ns > 0)
        .map(|b| (b as f64 / (ns as f64 * 1e-9)) as u64);
    let moved = match (bytes, achieved) {
        (Some(b), Some(bw)) => format!(
            "{} in {} at {} achieved",
            si(b as f64, "B"),
            dur(ns),
            si(bw as f64, "B/s")
        ),
        _ => format!("{} (bytes not in the {input})", dur(ns)),
    };
    let link = &r.host_link;
    let fraction = link.fraction(direction, achieved);
    let against = match (&link.interface, link.per_direction_bytes_per_s, fraction) {
        _ if !direction.crosses_host_link() => {
            "device-side copies, not over the host link".to_string()
        }
        (Some(iface), Some(peak), Some(f)) => format!(
            "{} of the {iface} link ({} per direction, from the {} table entry, GPU chosen by {})",
            percent(f),
            si(peak as f64, "B/s"),
            link.gpu.as_deref().unwrap_or("?"),
            link.chosen_by.as_deref().unwrap_or("?")
        ),
        (Some(iface), Some(peak), None) => format!(
            "the {iface} link's {} per direction not compared (bytes not in the {input})",
            si(peak as f64, "B/s")
        ),
        _ => format!(
            "link bandwidth unknown ({})",
            link.unknown_reason
                .as_deref()
                .unwrap_or("no host link recorded")
        ),
    };
    // Pageable copies well under the link: the host's staging copy, not
    // the link, sets their pace.
    let staged = match fraction {
        Some(f) if pageable && f < PAGEABLE_SHARE => {
            format!(
                "; pageable copies under {} of the link point to the host staging them",
                percent(PAGEABLE_SHARE)
            )
        }
        _ => String::new(),
    };
    let fix = crate::gaps::fixes::copy_fix(pageable, direction == CopyKind::DtoD);
    Some(format!(
        "copies dominate busy time: {count} {direction} copies from {} memory, {moved}, {against}{staged}: {fix}",
        if pageable {
            "pageable"
        } else if direction.has_host_side() {
            "pinned"
        } else {
            "device"
        }
    ))
}

/// The copies of one (direction, host memory kind) summed over devices.
struct CopyGroup {
    direction: CopyKind,
    pageable: bool,
    count: u64,
    /// Bytes, `None` when any copy of the group has none.
    bytes: Option<u64>,
    duration_ns: i64,
}

/// Pageable copies below this share of the host link point to pinning
/// (docs/gaps.md, "Copy-bound"): the driver stages them through a pinned
/// buffer, a host-side copy that pinned memory skips.
const PAGEABLE_SHARE: f64 = 0.5;

/// The fix for the host-bound time of the whole report and the evidence
/// behind it, in words: the advice of [`HostTotals::advice`] over every
/// host-bound gap (the rule `budget` applies to its steps), in the input's
/// terms; the words name the detail, the family and, inside PyTorch, MPI
/// or NCCL ranges, an example range from the longest gaps.
fn host_advice(r: &GapReport) -> Option<(&'static str, String)> {
    let totals = r.host_totals();
    let advice = totals.advice()?;
    let details = totals.detail;
    let k = details.dominant()?;
    let ns = details.get(k).total_ns;
    let hb: i64 = details.total_ns();
    let of = format!("{} of {} host-bound", dur(ns), dur(hb));
    let fix = advice.fix(r.fix_terms());
    let label = k.label_in(r.fix_terms().tool);
    let words = match advice {
        HostAdvice::Scale(sc, t) => format!(
            "{}: {of}; {} {} hold {}",
            label,
            t.count,
            sc.label(),
            dur(t.total_ns)
        ),
        HostAdvice::Range(family, t) => {
            let example = r
                .nvtx_hint()
                .filter(|h| h.family == family)
                .map(|h| {
                    format!(
                        ", e.g. `{}`",
                        ellipsize(h.example.split(',').next().unwrap_or(h.example), 48)
                    )
                })
                .unwrap_or_default();
            format!(
                "{}{example}: {of}; {} gaps inside {} ranges hold {}",
                label,
                t.count,
                family.label(),
                dur(t.total_ns)
            )
        }
        HostAdvice::Call(f, _) => format!("{}, {}: {of}", label, f.label()),
        HostAdvice::Detail(..) => format!("{}: {of}", label),
    };
    Some((fix, words))
}

/// The host-bound detail summed over devices.
pub(super) fn host_detail(r: &GapReport) -> DetailTotals {
    r.host_totals().detail
}

/// " (busy: 97.7 % copies)" when copies or memsets, not kernels, kept the
/// GPU busy: a copy-bound GPU is not "busy computing".
fn busy_note(r: &GapReport) -> String {
    let busy: i64 = r.devices.iter().map(|d| d.busy_ns).sum();
    let kernels: i64 = r.devices.iter().map(|d| d.kernel_busy_ns).sum();
    let copies: i64 = r.devices.iter().map(|d| d.copy_busy_ns).sum();
    if busy > 0 && copies > kernels {
        format!(
            " (busy {}: {} copies, {} kernels)",
            dur(busy),
            frac(copies, busy),
            frac(kernels, busy)
        )
    } else {
        String::new()
    }
}

/// The verdict's tail: the largest class and its fix; for host-bound, the
/// fix of the largest thing the host did. The flag says whether a fix was
/// named (decided here, not by searching the sentence).
fn with_reason(
    head: String,
    (idle, classes): (i64, &ClassTotals),
    host: Option<(&'static str, String)>,
    terms: FixTerms,
) -> (String, bool) {
    let share = |c: GapClass| percent(classes.get(c).total_ns as f64 / idle as f64);
    let named_fix = match classes.dominant() {
        Some(GapClass::Unattributed) | None => false,
        Some(GapClass::HostBound) => host.is_some(),
        Some(_) => true,
    };
    let line = match classes.dominant() {
        // "Unattributed" says the export cannot tell; when it leads, also
        // name the largest class among the gaps that can be explained.
        Some(GapClass::Unattributed) if idle > 0 => {
            let mut explained = *classes;
            explained.clear(GapClass::Unattributed);
            match explained.dominant() {
                Some(c) => format!(
                    "{head}, {} unattributed (no launch row), then {} {}",
                    share(GapClass::Unattributed),
                    share(c),
                    c.label()
                ),
                None => format!(
                    "{head}, {} unattributed (no launch row)",
                    share(GapClass::Unattributed)
                ),
            }
        }
        Some(GapClass::HostBound) if idle > 0 => match host {
            Some((fix, evidence)) => format!(
                "{head}, {} host-bound; fix first: {fix} ({evidence})",
                share(GapClass::HostBound),
            ),
            None => format!("{head}, {} host-bound", share(GapClass::HostBound)),
        },
        Some(c) if idle > 0 => format!(
            "{head}, {} {}; fix first: {} ({} of {} idle)",
            share(c),
            c.label(),
            c.fix_in(terms),
            dur(classes.get(c).total_ns),
            dur(idle)
        ),
        _ => return (head, false),
    };
    (line, named_fix)
}

pub(super) fn frac(a: i64, b: i64) -> String {
    percent(if b > 0 { a as f64 / b as f64 } else { 0.0 })
}

/// The host link and each host copy stream's share of it, for the table
/// and Markdown (empty when no copy crossed the host link): `host link:
/// PCIe Gen5 x16, 63.0 GB/s per direction (h100-sxm table entry, GPU
/// chosen by --gpu; source: …)`, then `pid 111 device 0 HtoD pinned: 27.7
/// GB/s achieved, 43.9 % of the link`.
pub(super) fn link_lines(r: &GapReport) -> Vec<String> {
    let l = &r.host_link;
    if l.copies.is_empty() {
        return Vec::new();
    }
    let head = match (&l.interface, l.per_direction_bytes_per_s) {
        (Some(iface), Some(peak)) => format!(
            "host link: {iface}, {} per direction ({} table entry, GPU chosen by {}; source: {})",
            si(peak as f64, "B/s"),
            l.gpu.as_deref().unwrap_or("?"),
            l.chosen_by.as_deref().unwrap_or("?"),
            l.source.as_deref().unwrap_or("?")
        ),
        _ => format!(
            "host link: unknown ({})",
            l.unknown_reason.as_deref().unwrap_or("not recorded")
        ),
    };
    let mut v = vec![head];
    for c in &l.copies {
        v.push(format!(
            "pid {} device {} {} {}: {} achieved{}",
            c.pid,
            c.device,
            c.direction,
            if c.pageable { "pageable" } else { "pinned" },
            c.bytes_per_s
                .map_or("unknown".to_string(), |b| si(b as f64, "B/s")),
            c.link_fraction
                .map_or(String::new(), |f| format!(", {} of the link", percent(f)))
        ));
    }
    v
}
