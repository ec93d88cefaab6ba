//! The one-line verdict of the gap report: how idle the GPU was, the
//! largest reason and the fix drawn from the evidence (the host detail,
//! the CUDA call and NVTX range families of the longest gaps, the length
//! of the host-bound gaps, the copies when they dominate busy time).

use super::dur;
use crate::gaps::model::DetailTotals;
use crate::gaps::onetime::OneTimeIdle;
use crate::gaps::totals::HostTotals;
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
            let window: i64 = rr
                .instances
                .iter()
                .map(|i| (i.gpu_end_ns - i.gpu_start_ns).max(0))
                .sum();
            let worth = Worth::of(&rr.classes, idle, window);
            let (line, _) = with_reason(head, (idle, &rr.classes), advice, terms, worth);
            return match worth {
                Worth::FixFirst => line,
                Worth::Busy(_) => with_kernel_lever(line, r),
            };
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
    let mut once = OneTimeIdle::default();
    for d in &r.devices {
        once.merge(&d.one_time);
    }
    let (line, named_fix, worth) = if once.idle_ns > 0 {
        // The advice is for the steady state: the gaps paid once are
        // named apart and left out of it.
        let (idle, span) = (idle - once.idle_ns, span - once.idle_ns);
        let classes = classes.less(&once.classes);
        let head = format!(
            "{head}; one-time {} ({} of the idle: {}), the steady state idles {} of {}",
            dur(once.idle_ns),
            frac(once.idle_ns, idle + once.idle_ns),
            one_time_parts(r, &once),
            frac(idle, span),
            dur(span)
        );
        let worth = Worth::of(&classes, idle, span);
        let host = host_advice(r, once.steady_host.clone());
        let (line, named) = with_reason(head, (idle, &classes), host, r.fix_terms(), worth);
        (line, named, worth)
    } else {
        let worth = Worth::of(&classes, idle, span);
        let host = host_advice(r, r.host_totals());
        let (line, named) = with_reason(head, (idle, &classes), host, r.fix_terms(), worth);
        (line, named, worth)
    };
    match (copy_advice(r), worth) {
        // A mostly busy GPU whose busy time is copies: the copies first.
        (Some(c), _) if busy > idle && !named_fix => format!("{line}; fix first: {c}"),
        (Some(c), _) => format!("{line}; then {c}"),
        (None, Worth::Busy(_)) => with_kernel_lever(line, r),
        (None, Worth::FixFirst) => line,
    }
}

/// An idle fix is put first only when the idle it addresses is at least
/// this share of the span (docs/gaps.md, "The verdict"): closing 1 % of
/// idle on a busy GPU buys 1 % at most, while the kernels hold the rest.
pub const FIX_FIRST_MIN_SHARE: f64 = 0.05;

/// What the largest idle class's fix is worth against the span: enough to
/// be the fix to make first, or so little that the GPU is busy and the
/// kernels are the lever (the share of the span it is worth).
#[derive(Debug, Clone, Copy, PartialEq)]
enum Worth {
    FixFirst,
    Busy(f64),
}

impl Worth {
    /// From the idle classes, the idle time and the span (or the sum of
    /// the ranges' GPU windows) they lie in, ns.
    fn of(classes: &ClassTotals, idle: i64, span: i64) -> Worth {
        let largest = classes
            .dominant()
            .map_or(0, |c| classes.get(c).total_ns)
            .min(idle);
        if span <= 0 {
            return Worth::FixFirst;
        }
        let share = largest as f64 / span as f64;
        if share < FIX_FIRST_MIN_SHARE {
            Worth::Busy(share)
        } else {
            Worth::FixFirst
        }
    }
}

/// The parts of the one-time idle in words: `15.6 s inside warm-up ranges
/// (e.g. `[param|…|warmup|forward]`), 4.22 s before slow first launches`.
fn one_time_parts(r: &GapReport, once: &OneTimeIdle) -> String {
    let mut parts = Vec::new();
    if once.warmup_ns > 0 {
        let example = r
            .input
            .warmup_range
            .as_deref()
            .map(|t| format!(" (e.g. `{}`)", ellipsize(t, 48)))
            .unwrap_or_default();
        parts.push(format!(
            "{} inside warm-up ranges{example}",
            dur(once.warmup_ns)
        ));
    }
    if once.first_launch_ns > 0 {
        parts.push(format!(
            "{} before slow first launches (module loading, a library's first use)",
            dur(once.first_launch_ns)
        ));
    }
    parts.join(", ")
}

/// The verdict of a busy GPU: its kernels are the lever, and the command
/// that puts them on the roofline in the input's terms (a PyTorch trace's
/// op shapes, an nsys export's ncu counters).
fn with_kernel_lever(line: String, r: &GapReport) -> String {
    let how = match r.input.source.tool() {
        Tool::PyTorchProfiler => {
            "`rooftrace ops` puts each op on its roofline from the shapes the trace records (record_shapes=True), `rooftrace budget` splits each step"
        }
        Tool::Nsys => {
            "profile them with ncu and read the report with `rooftrace ncu` (each kernel's fraction of its roof), or `rooftrace budget --ncu` per step"
        }
    };
    format!("{line}; the GPU is busy, so the kernels are the lever: {how}")
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

/// The fix for the host-bound time of `totals` (the whole report's, or
/// its steady state's) and the evidence behind it, in words: the advice
/// of [`HostTotals::advice`] over those host-bound gaps (the rule `budget`
/// applies to its steps), in the input's
/// terms; the words name the detail, the family and, inside PyTorch, MPI
/// or NCCL ranges, an example range from the longest gaps.
fn host_advice(r: &GapReport, totals: HostTotals) -> Option<(&'static str, String)> {
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
    worth: Worth,
) -> (String, bool) {
    let share = |c: GapClass| percent(classes.get(c).total_ns as f64 / idle as f64);
    // On a busy GPU the idle fix is named with what it is worth, not first.
    let lead = match worth {
        Worth::FixFirst => "fix first".to_string(),
        Worth::Busy(w) => format!("worth {} of the span", percent(w)),
    };
    let named_fix = worth == Worth::FixFirst
        && match classes.dominant() {
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
                "{head}, {} host-bound; {lead}: {fix} ({evidence})",
                share(GapClass::HostBound),
            ),
            None => format!("{head}, {} host-bound", share(GapClass::HostBound)),
        },
        Some(c) if idle > 0 => format!(
            "{head}, {} {}; {lead}: {} ({} of {} idle)",
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
