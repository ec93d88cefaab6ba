//! Count and time of gaps, summed by what the analysis tells apart (one
//! generic [`PerKey`]): per class ([`ClassTotals`]), per host detail under
//! the host-bound class ([`DetailTotals`]), per length class
//! ([`ScaleTotals`]), and the
//! host-bound time of a window by all its typed evidence ([`HostTotals`],
//! with the advice it supports, [`HostAdvice`]). Plain data, serialised as
//! objects keyed by the class, detail or scale key; read by the gap report
//! ([`super::model`]), the step budget and every renderer.

use super::class::N_CLASSES;
use super::evidence::{CallFamily, FixTerms, HostDetail, HostFacts, RangeFamily, Scale, N_DETAILS};
use super::GapClass;
use crate::units::duration_ns;
use serde::ser::{SerializeMap, SerializeStruct};
use serde::{Serialize, Serializer};

/// Count and total duration of the gaps of one class.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct ClassTotal {
    /// Number of gaps.
    pub count: u64,
    /// Sum of their durations, ns.
    pub total_ns: i64,
}

/// A closed set of keys that gaps are counted by (a class, a host detail,
/// a length class): the display order and the JSON key of each.
pub trait TotalKey: Copy + Eq + 'static {
    /// Every key, in display order; a key's place in it is its index.
    const ALL: &'static [Self];
    /// The key's place in [`ALL`](TotalKey::ALL).
    fn index(self) -> usize;
    /// The snake_case key used in JSON and CSV.
    fn json_key(self) -> &'static str;
}

impl TotalKey for GapClass {
    const ALL: &'static [GapClass] = &GapClass::ALL;
    fn index(self) -> usize {
        self as usize
    }
    fn json_key(self) -> &'static str {
        self.key()
    }
}

impl TotalKey for HostDetail {
    const ALL: &'static [HostDetail] = &HostDetail::ALL;
    fn index(self) -> usize {
        self as usize
    }
    fn json_key(self) -> &'static str {
        self.key()
    }
}

impl TotalKey for Scale {
    const ALL: &'static [Scale] = &Scale::ALL;
    fn index(self) -> usize {
        self as usize
    }
    fn json_key(self) -> &'static str {
        self.key()
    }
}

/// Count and time of gaps per key `K` (`N` keys), indexed in `K::ALL`
/// order; serialised as an object keyed by [`TotalKey::json_key`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PerKey<K: TotalKey, const N: usize> {
    totals: [ClassTotal; N],
    key: std::marker::PhantomData<K>,
}

/// Per-class totals ([`GapClass`]); they sum to the idle time.
pub type ClassTotals = PerKey<GapClass, N_CLASSES>;
/// Host-bound idle time per [`HostDetail`]; sums to the host-bound total.
pub type DetailTotals = PerKey<HostDetail, N_DETAILS>;
/// Host-bound idle time by gap length ([`Scale`]); sums to the host-bound total.
pub type ScaleTotals = PerKey<Scale, 3>;

impl<K: TotalKey, const N: usize> Default for PerKey<K, N> {
    fn default() -> Self {
        PerKey {
            totals: [ClassTotal::default(); N],
            key: std::marker::PhantomData,
        }
    }
}

impl<K: TotalKey, const N: usize> PerKey<K, N> {
    /// Every total zero, as a constant (for [`RangeIdle::NONE`]).
    pub const ZERO: Self = PerKey {
        totals: [ClassTotal {
            count: 0,
            total_ns: 0,
        }; N],
        key: std::marker::PhantomData,
    };

    /// Adds `ns` of one gap under `k` (a gap cut by a window adds its part).
    pub fn add(&mut self, k: K, ns: i64) {
        let t = &mut self.totals[k.index()];
        t.count += 1;
        t.total_ns += ns;
    }

    /// The totals of one key.
    pub fn get(&self, k: K) -> ClassTotal {
        self.totals[k.index()]
    }

    /// Clears one key's totals.
    pub fn clear(&mut self, k: K) {
        self.totals[k.index()] = ClassTotal::default();
    }

    /// Adds another set of totals (another device, range or window).
    pub fn merge(&mut self, o: &Self) {
        for (a, b) in self.totals.iter_mut().zip(o.totals.iter()) {
            a.count += b.count;
            a.total_ns += b.total_ns;
        }
    }

    /// These totals less a part of them (`part` counted in `self`): the
    /// steady state's classes are the device's less its one-time gaps.
    pub fn less(&self, part: &Self) -> Self {
        let mut out = *self;
        for (a, b) in out.totals.iter_mut().zip(part.totals.iter()) {
            a.count = a.count.saturating_sub(b.count);
            a.total_ns = (a.total_ns - b.total_ns).max(0);
        }
        out
    }

    /// Sum of all keys' durations, ns.
    pub fn total_ns(&self) -> i64 {
        self.totals.iter().map(|t| t.total_ns).sum()
    }

    /// Sum of all keys' gap counts.
    pub fn total_count(&self) -> u64 {
        self.totals.iter().map(|t| t.count).sum()
    }

    /// Each key with its totals, in display order.
    pub fn iter(&self) -> impl Iterator<Item = (K, ClassTotal)> + '_ {
        K::ALL.iter().map(|k| (*k, self.get(*k)))
    }

    /// The key with the most time (first in display order on ties).
    pub fn dominant(&self) -> Option<K> {
        K::ALL
            .iter()
            .copied()
            .filter(|k| self.get(*k).total_ns > 0)
            .max_by_key(|k| (self.get(*k).total_ns, std::cmp::Reverse(k.index())))
    }
}

impl ScaleTotals {
    /// Adds one gap of `duration_ns` under its length class.
    pub fn add_gap(&mut self, duration_ns: i64) {
        self.add(Scale::of(duration_ns), duration_ns);
    }
}

impl<K: TotalKey, const N: usize> Serialize for PerKey<K, N> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(N))?;
        for k in K::ALL {
            m.serialize_entry(k.json_key(), &self.get(*k))?;
        }
        m.end()
    }
}

/// The keys of a [`PerKey`] with at least one gap, serialised as an object
/// like the whole set (a key absent has no gap): what each `--nvtx`
/// instance writes, where most windows have no idle time at all.
pub struct NonZero<'a, K: TotalKey, const N: usize>(pub &'a PerKey<K, N>);

impl<K: TotalKey, const N: usize> Serialize for NonZero<'_, K, N> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let kept = || {
            self.0
                .iter()
                .filter(|(_, t)| t.count != 0 || t.total_ns != 0)
        };
        let mut m = s.serialize_map(Some(kept().count()))?;
        for (k, t) in kept() {
            m.serialize_entry(k.json_key(), &t)?;
        }
        m.end()
    }
}

/// An instance's [`HostTotals`] with only the details and length classes
/// that hold a gap (schema `/5`: a million windows with no idle time wrote
/// 2.5 GB of zero totals, issue 32).
pub struct SparseHost<'a>(&'a HostTotals);

impl Serialize for SparseHost<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("HostTotals", 3)?;
        st.serialize_field("detail", &NonZero(&self.0.detail))?;
        st.serialize_field("scale", &NonZero(&self.0.scale))?;
        st.serialize_field("evidence", &self.0.evidence)?;
        st.end()
    }
}

impl HostTotals {
    /// The totals as an `--nvtx` instance writes them ([`SparseHost`]).
    pub fn sparse(&self) -> SparseHost<'_> {
        SparseHost(self)
    }
}

/// The host-bound time with one piece of typed evidence: what the
/// launching thread did (the host detail) and the family of the CUDA call
/// or NVTX range it names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct EvidenceTotal {
    /// The host detail.
    pub detail: HostDetail,
    /// The family of the CUDA call named (launch call, allocation, other
    /// CUDA calls).
    pub call_family: Option<CallFamily>,
    /// The family of the NVTX range named (a gap inside a range).
    pub range_family: Option<RangeFamily>,
    /// Gaps.
    pub count: u64,
    /// Their time in the window, ns.
    pub total_ns: i64,
}

/// The host-bound gaps of a window (an `--nvtx` instance) by their typed
/// evidence, each gap judged as the sweep judges it (`gaps::host`): time
/// per host detail, per length class (of the whole gap, docs/gaps.md
/// "Advice that fits the scale") and per (detail, call family, range
/// family). Each sums to the host-bound time in the window.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct HostTotals {
    /// By host detail.
    pub detail: DetailTotals,
    /// By the length class of the whole gap.
    pub scale: ScaleTotals,
    /// By (detail, call family, range family), in order of first sight.
    pub evidence: Vec<EvidenceTotal>,
}

impl HostTotals {
    /// Adds `ns` of a host-bound gap `gap_ns` long with this evidence.
    pub fn add(&mut self, facts: HostFacts, gap_ns: i64, ns: i64) {
        let HostFacts {
            detail,
            call_family,
            range_family,
        } = facts;
        self.detail.add(detail, ns);
        self.scale.add(Scale::of(gap_ns), ns);
        let key = (detail, call_family, range_family);
        match self
            .evidence
            .iter_mut()
            .find(|e| (e.detail, e.call_family, e.range_family) == key)
        {
            Some(e) => {
                e.count += 1;
                e.total_ns += ns;
            }
            None => self.evidence.push(EvidenceTotal {
                detail,
                call_family,
                range_family,
                count: 1,
                total_ns: ns,
            }),
        }
    }

    /// Adds another window's totals.
    pub fn merge(&mut self, o: &HostTotals) {
        self.detail.merge(&o.detail);
        self.scale.merge(&o.scale);
        for e in &o.evidence {
            let key = (e.detail, e.call_family, e.range_family);
            match self
                .evidence
                .iter_mut()
                .find(|x| (x.detail, x.call_family, x.range_family) == key)
            {
                Some(x) => {
                    x.count += e.count;
                    x.total_ns += e.total_ns;
                }
                None => self.evidence.push(*e),
            }
        }
    }

    /// The advice this evidence supports, by the rule of the gap verdict:
    /// the host detail with the most time; inside NVTX ranges, the range
    /// family with the most time (else, as for CPU work, the length class
    /// with the most time); in CUDA calls, the call family with the most
    /// time (the launch call's own fix when it is launches); OS calls and
    /// profiler overhead their detail's fix. `None` without host-bound time.
    /// The one rule: the gap verdict applies it to every host-bound gap of
    /// the report, `budget` to those of its typical steps.
    pub fn advice(&self) -> Option<HostAdvice> {
        self.advice_for(self.detail.dominant()?)
    }

    /// The advice for the gaps of host detail `k`, by the rule of
    /// [`advice`](HostTotals::advice) (the detail table's fix column).
    pub fn advice_for(&self, k: HostDetail) -> Option<HostAdvice> {
        // The family with the most time among the gaps of detail `k`
        // (the first seen on ties).
        let largest = |family: &dyn Fn(&EvidenceTotal) -> Option<Family>| {
            let mut by: Vec<(Family, ClassTotal)> = Vec::new();
            for e in self.evidence.iter().filter(|e| e.detail == k) {
                let Some(f) = family(e) else { continue };
                match by.iter_mut().find(|x| x.0 == f) {
                    Some(x) => {
                        x.1.count += e.count;
                        x.1.total_ns += e.total_ns;
                    }
                    None => by.push((
                        f,
                        ClassTotal {
                            count: e.count,
                            total_ns: e.total_ns,
                        },
                    )),
                }
            }
            by.into_iter().rev().max_by_key(|x| x.1.total_ns)
        };
        let by_scale = || {
            let sc = self.scale.dominant()?;
            Some(HostAdvice::Scale(sc, self.scale.get(sc)))
        };
        match k {
            HostDetail::Nvtx => match largest(&|e| e.range_family.map(Family::Range)) {
                Some((Family::Range(f), t)) => Some(HostAdvice::Range(f, t)),
                _ => by_scale(),
            },
            HostDetail::CpuWork => by_scale(),
            HostDetail::LaunchCall | HostDetail::Alloc | HostDetail::CudaApi => {
                match largest(&|e| e.call_family.map(Family::Call)) {
                    Some((Family::Call(f), t)) if f != CallFamily::Launch => {
                        Some(HostAdvice::Call(f, t))
                    }
                    _ => Some(HostAdvice::Detail(k, self.detail.get(k))),
                }
            }
            HostDetail::OsRuntime | HostDetail::InputWait | HostDetail::ProfilerOverhead => {
                Some(HostAdvice::Detail(k, self.detail.get(k)))
            }
        }
    }
}

/// A call or range family, for [`HostTotals::advice`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Family {
    Call(CallFamily),
    Range(RangeFamily),
}

/// The advice for host-bound time and the evidence it rests on (the gaps
/// and time that decided it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HostAdvice {
    /// Inside NVTX ranges of a family (PyTorch, MPI, NCCL).
    Range(RangeFamily, ClassTotal),
    /// In CUDA calls of a family (allocation, module loading, …).
    Call(CallFamily, ClassTotal),
    /// A host detail's own fix (the launch call, OS calls, the profiler).
    Detail(HostDetail, ClassTotal),
    /// CPU work (or a user's range): the fix for the length class.
    Scale(Scale, ClassTotal),
}

impl HostAdvice {
    /// The fix, in the input's terms (its tool, and with PyTorch's ranges
    /// in the input the length-class fix may name its knobs).
    pub fn fix(&self, terms: FixTerms) -> &'static str {
        match *self {
            HostAdvice::Range(f, _) => f.fix_in(terms),
            HostAdvice::Call(f, _) => f.fix_in(terms),
            HostAdvice::Detail(d, _) => d.fix(terms),
            HostAdvice::Scale(s, _) => s.fix(terms),
        }
    }

    /// The evidence in words: `3 gaps under 100 µs hold 150 µs`.
    pub fn evidence(&self) -> String {
        let (what, t) = match *self {
            HostAdvice::Range(f, t) => (format!("gaps inside {} ranges", f.label()), t),
            HostAdvice::Call(f, t) => (format!("gaps in {} calls", f.label()), t),
            HostAdvice::Detail(d, t) => (format!("gaps of {}", d.label()), t),
            HostAdvice::Scale(s, t) => (s.label().to_string(), t),
        };
        format!("{} {what} hold {}", t.count, duration_ns(t.total_ns as f64))
    }
}

/// Median and 90th percentile across range instances; `None` (JSON
/// `null`) when there is no instance: a median of nothing is unknown, not 0.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct MedianP90 {
    /// Median.
    pub median: Option<i64>,
    /// 90th percentile.
    pub p90: Option<i64>,
}

/// An instance's own part of the device among the instances of its process
/// on the same devices, in host order: it owns the device from the later of
/// its own first GPU start and the end of the windows before it, to its own
/// end, so the owned windows never overlap (each nanosecond of the device is
/// charged to one instance at most) and an instance whose work did not run
/// into the next one keeps its whole window.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tiling {
    /// Start of the owned window, ns: `gpu_start_ns`, or the end of the
    /// windows before it when they ran later (`gpu_end_ns` at most: an
    /// instance whose work ran entirely under the one before owns nothing).
    pub owned_start_ns: i64,
    /// Time of this instance's GPU window inside the next instance's host
    /// range (its work still running while the host ran the next step), ns.
    pub next_host_overlap_ns: i64,
    /// Idle time by class and host-bound evidence inside the owned window.
    pub owned: Owned,
    /// The host's time inside the range before its first GPU op started
    /// that no earlier instance's window covers (`None` when there is none,
    /// or the window is the host range): what `budget` reports beside the
    /// step.
    pub host_before: Option<Box<HostBefore>>,
}

/// The stretch of an instance's host range before its first GPU op
/// started: from the later of the range's start and the end of the
/// windows before it, to its GPU window's start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HostBefore {
    /// Its start, ns.
    pub start_ns: i64,
    /// Its length (`gpu_start_ns - start_ns`), ns.
    pub ns: i64,
    /// What the launching thread of the first GPU op did in it, judged as a
    /// host-bound gap is (`gaps::host`, over the stretch up to the end of
    /// that op's launch call); `None` when the call ended before the
    /// stretch began (the op waited on the GPU side, not for the host).
    pub facts: Option<HostFacts>,
}

/// How much of its GPU window an instance owns, and the idle time there.
/// Held without an allocation unless the owned part is shorter than the
/// window and has idle time: 64 copies of a step's ranges own nothing but
/// the first, and a boxed zero per copy cost 350 bytes each (issue 32).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Owned {
    /// The whole GPU window: the row's own `idle_ns`, `classes` and `host`
    /// are the owned window's.
    #[default]
    Whole,
    /// A shorter part, without idle time.
    PartNoIdle,
    /// A shorter part, with this idle time.
    Part(Box<OwnedIdle>),
}

static NO_OWNED_IDLE: OwnedIdle = OwnedIdle {
    idle_ns: 0,
    classes: ClassTotals::ZERO,
    host: HostTotals {
        detail: DetailTotals::ZERO,
        scale: ScaleTotals::ZERO,
        evidence: Vec::new(),
    },
};

impl Owned {
    /// The idle time of the owned part when it is shorter than the window
    /// (`None`: the row's own figures are the owned window's).
    pub fn idle(&self) -> Option<&OwnedIdle> {
        match self {
            Owned::Whole => None,
            Owned::PartNoIdle => Some(&NO_OWNED_IDLE),
            Owned::Part(o) => Some(o),
        }
    }
}

/// The idle time of an owned window that is shorter than the GPU window.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OwnedIdle {
    /// Idle time inside the owned window, ns.
    pub idle_ns: i64,
    /// Idle time inside the owned window by class.
    pub classes: ClassTotals,
    /// Its host-bound time by typed evidence.
    pub host: HostTotals,
}

/// What a range instance's idle time was.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RangeIdle {
    /// Idle time inside the window by class (gaps clipped to the window).
    pub classes: ClassTotals,
    /// The host-bound time inside the window by its typed evidence (what
    /// the launching thread did, the length class of the whole gap).
    pub host: HostTotals,
}

impl RangeIdle {
    /// No idle time: every class and every evidence total zero.
    pub const NONE: RangeIdle = RangeIdle {
        classes: ClassTotals::ZERO,
        host: HostTotals {
            detail: DetailTotals::ZERO,
            scale: ScaleTotals::ZERO,
            evidence: Vec::new(),
        },
    };

    /// `Some` unless it is [`RangeIdle::NONE`].
    pub fn boxed(self) -> Option<Box<RangeIdle>> {
        (self != RangeIdle::NONE).then(|| Box::new(self))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: i64 = 1_000_000;
    const US: i64 = 1_000;

    fn facts(
        detail: HostDetail,
        call_family: Option<CallFamily>,
        range_family: Option<RangeFamily>,
    ) -> HostFacts {
        HostFacts {
            detail,
            call_family,
            range_family,
        }
    }

    /// One generic type for classes, details and scales: the same adding,
    /// merging, tie rule (first in display order) and JSON keys in order.
    #[test]
    fn per_key_totals_add_merge_and_serialise_by_key() {
        let mut a = DetailTotals::default();
        a.add(HostDetail::CpuWork, 5);
        a.add(HostDetail::Alloc, 5);
        // A tie goes to the first in display order.
        assert_eq!(a.dominant(), Some(HostDetail::Alloc));
        let mut b = DetailTotals::default();
        b.add(HostDetail::CpuWork, 7);
        a.merge(&b);
        assert_eq!(
            a.get(HostDetail::CpuWork),
            ClassTotal {
                count: 2,
                total_ns: 12
            }
        );
        assert_eq!((a.total_count(), a.total_ns()), (3, 17));
        a.clear(HostDetail::CpuWork);
        assert_eq!(a.dominant(), Some(HostDetail::Alloc));
        let json = serde_json::to_string(&a).unwrap();
        let keys: Vec<&str> = HostDetail::ALL.iter().map(|d| d.key()).collect();
        let mut at = 0;
        for k in keys {
            let i = json[at..].find(&format!("\"{k}\"")).map(|i| i + at);
            assert!(i.is_some(), "{k} missing or out of order in {json}");
            at = i.unwrap();
        }
        let mut s = ScaleTotals::default();
        s.add_gap(150_000);
        assert_eq!(s.get(Scale::Mid).count, 1);
        assert_eq!(ClassTotals::default().dominant(), None);
    }

    #[test]
    fn a_cut_gap_keeps_the_scale_of_its_whole_length() {
        let mut t = HostTotals::default();
        // 40 µs of a 5 ms gap fall in the window: a CPU stretch, 40 µs.
        t.add(facts(HostDetail::CpuWork, None, None), 5 * MS, 40 * US);
        let s = t.scale.get(Scale::Stretch);
        assert_eq!((s.count, s.total_ns), (1, 40 * US));
        assert_eq!(t.scale.get(Scale::Launch).count, 0);
        assert_eq!(
            t.advice(),
            Some(HostAdvice::Scale(
                Scale::Stretch,
                ClassTotal {
                    count: 1,
                    total_ns: 40 * US
                }
            ))
        );
    }

    #[test]
    fn advice_follows_the_dominant_detail_then_its_family() {
        let mpi = facts(HostDetail::Nvtx, None, Some(RangeFamily::Mpi));
        let module = facts(HostDetail::CudaApi, Some(CallFamily::ModuleLoad), None);
        let launch = facts(HostDetail::LaunchCall, Some(CallFamily::Launch), None);
        let cpu = facts(HostDetail::CpuWork, None, None);
        // NVTX time (2 × 3 ms in MPI ranges) outweighs CPU work (4 ms).
        let mut t = HostTotals::default();
        t.add(mpi, 3 * MS, 3 * MS);
        t.add(mpi, 3 * MS, 3 * MS);
        t.add(cpu, 4 * MS, 4 * MS);
        let a = t.advice().unwrap();
        assert_eq!(
            a,
            HostAdvice::Range(
                RangeFamily::Mpi,
                ClassTotal {
                    count: 2,
                    total_ns: 6 * MS
                }
            )
        );
        assert_eq!(a.fix(FixTerms::default()), RangeFamily::Mpi.fix());
        assert_eq!(a.evidence(), "2 gaps inside MPI ranges hold 6.00 ms");
        // Other CUDA calls that load modules: the module-loading fix.
        let mut t = HostTotals::default();
        t.add(module, 2 * MS, 2 * MS);
        assert_eq!(
            t.advice().unwrap().fix(FixTerms::default()),
            CallFamily::ModuleLoad.fix()
        );
        // The launch call itself: its detail's fix, not "launch calls".
        let mut t = HostTotals::default();
        t.add(launch, 50 * US, 50 * US);
        assert_eq!(
            t.advice().unwrap().fix(FixTerms::default()),
            HostDetail::LaunchCall.fix(FixTerms::default())
        );
        // Merging adds per evidence: the CPU work of a second window (9 ms)
        // now outweighs the first's MPI time.
        let mut a = HostTotals::default();
        a.add(mpi, 3 * MS, 3 * MS);
        let mut b = HostTotals::default();
        b.add(cpu, 9 * MS, 9 * MS);
        a.merge(&b);
        assert_eq!(a.evidence.len(), 2);
        assert!(matches!(
            a.advice(),
            Some(HostAdvice::Scale(Scale::Stretch, _))
        ));
        assert_eq!(a.detail.get(HostDetail::CpuWork).total_ns, 9 * MS);
    }
}
