//! One row onto one target: the bound `T*' = max(Σ W_p/F'_p, Q/B')` with
//! the target's roofs for the same paths, the binding side there, and the
//! expected time under each [`Model`].
//!
//! Both bounds are taken over the same terms: a path that either GPU has no
//! roof for is left out of both (and named), so the ratio `T*'/T*` compares
//! like with like. Unknown stays unknown: a row with such a path has no
//! expected time but "same time".

use super::model::{KernelProjection, Model};
use crate::roofline::{Bound, KernelRoofline};
use crate::roofs::{ComputePath, Roofs};
use std::collections::BTreeMap;

/// The two terms of a bound on one GPU, ns; `None` where unknown.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Terms {
    /// `Σ W_p / F_p` over the mapped paths (`None`: no FLOP counter).
    pub compute_ns: Option<f64>,
    /// `Q / B` (`None`: DRAM bytes not collected, or no DRAM roof).
    pub memory_ns: Option<f64>,
}

impl Terms {
    /// `T* = max` of the known terms (0 when neither is known).
    pub fn bound_ns(&self) -> f64 {
        self.compute_ns
            .unwrap_or(0.0)
            .max(self.memory_ns.unwrap_or(0.0))
    }

    /// The binding side, claimed only when certain: compute when its term
    /// is larger; memory when the compute term is complete and not larger.
    pub fn side(&self, compute_complete: bool) -> Option<Bound> {
        match (self.compute_ns, self.memory_ns) {
            (Some(c), Some(m)) if c > m => Some(Bound::Compute),
            (Some(_), Some(_)) if compute_complete => Some(Bound::Memory),
            _ => None,
        }
    }
}

/// The terms of row `k` on `roofs`, over `paths` only.
pub fn terms(k: &KernelRoofline, roofs: &Roofs, paths: &[ComputePath]) -> Terms {
    let compute_ns = k.flop.map(|_| {
        paths
            .iter()
            .filter_map(|p| {
                let w = k.flop_by_path.get(p)?;
                let f = roofs.compute.get(p)?.flop_per_s;
                Some(w / f)
            })
            .fold(0.0, |a, b| a + b)
            * 1e9
    });
    let memory_ns = match (k.dram_bytes, roofs.dram()) {
        (Some(q), Some(b)) if b.bytes_per_s > 0.0 => Some(q / b.bytes_per_s * 1e9),
        _ => None,
    };
    Terms {
        compute_ns,
        memory_ns,
    }
}

/// The paths of `k` with FLOPs, split into (mapped: both GPUs have a roof,
/// unmapped: one of them has none).
pub fn split_paths(
    k: &KernelRoofline,
    source: &Roofs,
    target: &Roofs,
) -> (Vec<ComputePath>, Vec<ComputePath>) {
    k.flop_by_path
        .keys()
        .partition(|p| source.compute.contains_key(p) && target.compute.contains_key(p))
}

/// Expected time of a row under every model. `T` source time, `T*` and
/// `T*'` the bounds, `C` the row's per-launch cost on the source (at most
/// `T`), `C'` on the target (`C` unless the target's is given).
pub fn expected(
    t: f64,
    bound: f64,
    bound_target: f64,
    c: f64,
    c_target: f64,
) -> BTreeMap<Model, f64> {
    // Nothing collected to scale (no bytes, no FLOPs): the time stays.
    let ratio = if bound > 0.0 {
        bound_target / bound
    } else {
        1.0
    };
    let launch_fraction = c_target + (t - c) * ratio;
    let bound_scales = if t - c >= bound {
        c_target + (t - c - bound) + bound_target
    } else {
        launch_fraction
    };
    BTreeMap::from([
        (Model::SameTime, t),
        (Model::SameFraction, t * ratio),
        (Model::LaunchFraction, launch_fraction),
        (Model::BoundScales, bound_scales),
    ])
}

/// Projects row `k` (measured against `source`) onto `target`, with the
/// per-launch cost `per_launch_ns` fitted on the source and the target's
/// (`None`: the same).
pub fn project(
    k: &KernelRoofline,
    source: &Roofs,
    target: &Roofs,
    per_launch_ns: f64,
    target_per_launch_ns: Option<f64>,
) -> KernelProjection {
    let (mapped, unmapped) = split_paths(k, source, target);
    let s = terms(k, source, &mapped);
    let x = terms(k, target, &mapped);
    let compute_complete = k.flop.is_some() && !k.flop_incomplete() && unmapped.is_empty();
    let source_bound = s.side(compute_complete);
    let target_bound = x.side(compute_complete);
    let t = k.duration_ns;
    let n = k.launches as f64;
    let c = (per_launch_ns * n).min(t).max(0.0);
    let c_target = target_per_launch_ns.map_or(c, |ct| (ct * n).max(0.0));
    let all = expected(t, s.bound_ns(), x.bound_ns(), c, c_target);
    // A rate-only row (no duration in the file) has no time to carry over.
    let expected_ns = all
        .into_iter()
        .map(|(m, v)| {
            (
                m,
                (!k.rate_only && (m == Model::SameTime || unmapped.is_empty())).then_some(v),
            )
        })
        .collect();
    KernelProjection {
        id: k.id,
        label: k.label.to_string(),
        launches: k.launches,
        intensity: k.intensity,
        source_ns: t,
        source_bound_ns: s.bound_ns(),
        source_bound,
        target_compute_ns: x.compute_ns,
        target_memory_ns: x.memory_ns,
        target_bound_ns: x.bound_ns(),
        target_bound,
        class_change: matches!((source_bound, target_bound), (Some(a), Some(b)) if a != b),
        lower_bound: !(compute_complete && s.memory_ns.is_some()),
        unmapped_paths: unmapped,
        launch_cost_ns: c,
        target_launch_cost_ns: c_target,
        expected_ns,
        rate_only: k.rate_only,
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::roofs::{ComputeRoof, MemoryLevel, MemoryRoof, Origin};

    /// Roofs with a DRAM roof (GB/s) and compute roofs (TFLOP/s).
    pub(crate) fn roofs(gb_per_s: f64, compute: &[(ComputePath, f64)]) -> Roofs {
        let mut r = Roofs::new("test", "hand-written");
        r.memory.insert(
            MemoryLevel::Dram,
            MemoryRoof {
                bytes_per_s: gb_per_s * 1e9,
                origin: Origin::Measured,
                source: String::new(),
                measurement: None,
            },
        );
        for (p, t) in compute {
            r.compute.insert(
                *p,
                ComputeRoof {
                    flop_per_s: t * 1e12,
                    origin: Origin::Measured,
                    source: String::new(),
                    measurement: None,
                },
            );
        }
        r
    }

    /// The study's measured FP16 roofs: H100 SXM 3084.8 GB/s and 787.61
    /// TFLOP/s, H200 4295.1 GB/s and 755.65 TFLOP/s (the built-in table's
    /// measured values). Their rooflines cross at 755.65e12 / 3084.8e9 =
    /// 244.96 FLOP/B.
    pub(crate) fn h100_h200() -> (Roofs, Roofs) {
        (
            roofs(3084.8, &[(ComputePath::TensorFp16, 787.61)]),
            roofs(4295.1, &[(ComputePath::TensorFp16, 755.65)]),
        )
    }

    /// A row of `launches` launches, `t_ns` long, with `w` FLOPs on each
    /// path (every FLOP group collected) and `q` DRAM bytes.
    pub(crate) fn row(
        w: &[(ComputePath, f64)],
        q: f64,
        t_ns: f64,
        launches: u64,
    ) -> KernelRoofline {
        let flop: f64 = w.iter().map(|x| x.1).sum();
        KernelRoofline {
            id: 0,
            process_id: Some(1),
            name: "k".into(),
            label: "k".into(),
            launches,
            duration_ns: t_ns,
            dram_bytes: Some(q),
            dram_source: None,
            l2_bytes: None,
            l2_source: None,
            l1_bytes: None,
            flop: Some(flop),
            flop_source: None,
            flop_unknown: Vec::new(),
            flop_by_path: w.iter().copied().collect(),
            intensity: Some(flop / q),
            intensity_l2: None,
            intensity_l1: None,
            achieved_flop_per_s: None,
            achieved_dram_bytes_per_s: None,
            compute_time_ns: None,
            memory_time_ns: None,
            bound_time_ns: 0.0,
            lower_bound: false,
            bound: None,
            roof_flop_per_s: None,
            fraction_of_roof: 0.0,
            time_lost_ns: 0.0,
            above_roof: false,
            padding: None,
            useful: None,
            bandwidth_only: false,
            sm_clock_hz: None,
            dram_clock_hz: None,
            rate_only: false,
        }
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-6 * b.abs().max(1.0)
    }

    #[test]
    fn the_bound_on_two_gpus_is_computed_by_hand() {
        let (h100, h200) = h100_h200();
        // 1 TFLOP of FP16 tensor work over 1 GB: I = 1000 FLOP/B.
        let k = row(&[(ComputePath::TensorFp16, 1e12)], 1e9, 2.0e6, 1);
        let p = project(&k, &h100, &h200, 0.0, None);
        // H100: W/F = 1e12 / 787.61e12 s = 1,269,663.9 ns; Q/B = 1e9 /
        // 3084.8e9 s = 324,170.1 ns: compute-bound, T* = 1,269,663.9 ns.
        assert!(close(p.source_bound_ns, 1e12 / 787.61e12 * 1e9));
        assert!(
            close(p.source_bound_ns, 1_269_663.9),
            "{}",
            p.source_bound_ns
        );
        assert_eq!(p.source_bound, Some(Bound::Compute));
        // H200: W/F = 1e12 / 755.65e12 s = 1,323,364.0 ns; Q/B = 232,823.4 ns.
        assert!(
            close(p.target_compute_ns.unwrap(), 1_323_364.0),
            "{:?}",
            p.target_compute_ns
        );
        assert!(
            close(p.target_memory_ns.unwrap(), 232_823.4),
            "{:?}",
            p.target_memory_ns
        );
        assert!(close(p.target_bound_ns, 1_323_364.0));
        assert_eq!(p.target_bound, Some(Bound::Compute));
        assert!(!p.class_change && !p.lower_bound);
        // Same fraction: 2.0 ms × 1,323,364.0 / 1,269,663.9 = 2.0845894 ms.
        let e = p.expected(Model::SameFraction).unwrap();
        assert!((e - 2_084_589.4).abs() < 1.0, "{e}");
    }

    #[test]
    fn the_class_change_flags_a_kernel_between_the_ridges_and_the_crossing_is_245() {
        let (h100, h200) = h100_h200();
        let at = |i: f64| {
            // W = I GFLOP over Q = 1 GB.
            let k = row(&[(ComputePath::TensorFp16, i * 1e9)], 1e9, 1e6, 1);
            project(&k, &h100, &h200, 0.0, None)
        };
        // I = 200: H100 ridge 787.61/3.0848 = 255.3 > 200 → memory-bound,
        // T* = Q/B = 324,170.1 ns; H200 ridge 755.65/4.2951 = 175.9 < 200 →
        // compute-bound, T*' = 200e9/755.65e12 s = 264,672.8 ns.
        let p = at(200.0);
        assert_eq!(
            (p.source_bound, p.target_bound),
            (Some(Bound::Memory), Some(Bound::Compute))
        );
        assert!(p.class_change);
        assert!(close(p.source_bound_ns, 324_170.1) && close(p.target_bound_ns, 264_672.8));
        // I = 300: compute-bound on both, no change; H200 is slower there:
        // 300e9/755.65e12 = 397,009.2 ns against 300e9/787.61e12 = 380,899.2 ns.
        let p = at(300.0);
        assert_eq!(
            (p.source_bound, p.target_bound),
            (Some(Bound::Compute), Some(Bound::Compute))
        );
        assert!(!p.class_change);
        assert!(close(p.source_bound_ns, 380_899.2) && close(p.target_bound_ns, 397_009.2));
        // I = 100: memory-bound on both, faster by the bandwidth ratio.
        let p = at(100.0);
        assert!(!p.class_change);
        assert!(close(
            p.target_bound_ns / p.source_bound_ns,
            3084.8 / 4295.1
        ));
        // The crossing: H200's flat part equals H100's slope at
        // I = 755.65e12 / 3084.8e9 = 244.96: H200's bound is lower just
        // below it and higher just above it.
        assert!(at(244.0).target_bound_ns < at(244.0).source_bound_ns);
        assert!(at(246.0).target_bound_ns > at(246.0).source_bound_ns);
    }

    #[test]
    fn the_models_follow_their_formulas() {
        // T = 10 µs, T* = 6 µs, T*' = 3 µs, C = 2 µs, C' = C.
        let e = expected(10_000.0, 6_000.0, 3_000.0, 2_000.0, 2_000.0);
        assert_eq!(e[&Model::SameTime], 10_000.0);
        assert_eq!(e[&Model::SameFraction], 5_000.0); // 10 × 3/6
        assert_eq!(e[&Model::LaunchFraction], 6_000.0); // 2 + 8 × 0.5
        assert_eq!(e[&Model::BoundScales], 7_000.0); // 2 + (10 − 2 − 6) + 3
                                                     // The target's own launch cost C' = 1.5 µs replaces C.
        let e = expected(10_000.0, 6_000.0, 3_000.0, 2_000.0, 1_500.0);
        assert_eq!(e[&Model::LaunchFraction], 5_500.0);
        assert_eq!(e[&Model::BoundScales], 6_500.0);
        // Above the roof after C (T − C = 8 < T* = 9): bound_scales falls
        // back to launch_fraction, 2 + 8 × 3/9.
        let e = expected(10_000.0, 9_000.0, 3_000.0, 2_000.0, 2_000.0);
        assert!(close(e[&Model::BoundScales], 2_000.0 + 8_000.0 / 3.0));
        // Nothing collected (T* = 0): every model keeps the time.
        let e = expected(4_000.0, 0.0, 0.0, 2_000.0, 2_000.0);
        assert!(e.values().all(|v| *v == 4_000.0), "{e:?}");
    }

    #[test]
    fn a_row_of_several_launches_pays_the_launch_cost_per_launch() {
        let (h100, h200) = h100_h200();
        // 4 launches, 40 µs in all, 3.0848 MB each way: Q/B = 1,000 ns on
        // the H100 and 718.2 ns on the H200 (3084.8/4295.1 of it).
        let k = row(&[(ComputePath::TensorFp16, 1.0)], 3.0848e6, 40_000.0, 4);
        let p = project(&k, &h100, &h200, 2_000.0, None);
        assert_eq!(p.launch_cost_ns, 8_000.0); // 4 × 2 µs
        assert_eq!(p.target_launch_cost_ns, 8_000.0);
        // bound_scales: 8 + (40 − 8 − 1) + 0.7182 µs = 39,718.2 ns.
        let e = p.expected(Model::BoundScales).unwrap();
        assert!(
            (e - (40_000.0 - 1_000.0 + 1_000.0 * 3084.8 / 4295.1)).abs() < 1e-6,
            "{e}"
        );
        // The target's 1.5 µs per launch: C' = 6 µs, 2 µs less.
        let p = project(&k, &h100, &h200, 2_000.0, Some(1_500.0));
        assert_eq!(p.target_launch_cost_ns, 6_000.0);
        assert!((p.expected(Model::BoundScales).unwrap() - (e - 2_000.0)).abs() < 1e-6);
    }

    #[test]
    fn a_rate_only_row_keeps_its_bound_ratio_and_has_no_expected_time() {
        let (h100, h200) = h100_h200();
        // Per second of run: 1 GB/s of DRAM traffic, no FLOPs.
        let mut k = row(&[(ComputePath::TensorFp16, 1.0)], 1e9, 1e9, 1);
        k.rate_only = true;
        let p = project(&k, &h100, &h200, 0.0, None);
        assert!(p.rate_only);
        assert!(Model::ALL.iter().all(|m| p.expected(*m).is_none()));
        assert!(close(
            p.target_bound_ns / p.source_bound_ns,
            3084.8 / 4295.1
        ));
        let t = crate::projection::totals(&[p], Model::BoundScales);
        assert_eq!((t.source_ns, t.unknown_rows, t.ratio), (0.0, 1, None));
    }

    #[test]
    fn a_path_the_target_lacks_is_named_and_its_expected_time_unknown() {
        // FP8 work on an A100-like target without an FP8 roof.
        let source = roofs(
            3084.8,
            &[
                (ComputePath::TensorFp8, 1318.1),
                (ComputePath::TensorFp16, 787.61),
            ],
        );
        let target = roofs(2039.0, &[(ComputePath::TensorFp16, 312.0)]);
        let k = row(
            &[
                (ComputePath::TensorFp8, 5e12),
                (ComputePath::TensorFp16, 1e9),
            ],
            1e9,
            5e6,
            1,
        );
        let p = project(&k, &source, &target, 0.0, None);
        assert_eq!(p.unmapped_paths, vec![ComputePath::TensorFp8]);
        assert!(p.lower_bound);
        assert_eq!(p.expected(Model::BoundScales), None);
        assert_eq!(p.expected(Model::SameTime), Some(5e6));
        // The bound keeps the mapped terms: Q/B' = 1e9 / 2039e9 s.
        assert!(close(p.target_bound_ns, 1e9 / 2039e9 * 1e9));
    }
}
