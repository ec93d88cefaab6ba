//! `rooftrace ncu`: parsing every CSV shape, the roofline math against
//! numbers computed by hand, the corpus conformance walk, error messages
//! and rendered output (snapshots).

use crate::common::{corpus, fixture, rooftrace};
use rooftrace::ncu::{self, NcuCsv, NcuError, Page};
use rooftrace::plot::RooflineInput;
use rooftrace::report::{Format, Render, RenderOptions, MARKDOWN_LIMIT_CHARS};
use rooftrace::roofline::{analyze, analyze_at, Bound, DiagnosticKind, GroupBy, RoofClock};
use rooftrace::roofs::{gpus, ComputePath, GpuInfo, Roofs};
use std::path::Path;

fn parse(path: &Path) -> Result<NcuCsv, NcuError> {
    let f = std::fs::File::open(path).expect("fixture exists");
    ncu::parse(f, &path.display().to_string())
}

fn fx(rel: &str) -> NcuCsv {
    parse(&fixture(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

fn gpu(key: &str) -> (Roofs, GpuInfo) {
    let g = gpus::by_key(key).unwrap();
    (
        g.default_roofs(),
        GpuInfo {
            key: Some(key.into()),
            name: g.name.into(),
            chosen_by: rooftrace::roofs::GpuChoice::CommandLine,
            notes: Vec::new(),
        },
    )
}

fn close(a: f64, b: f64, rel: f64) -> bool {
    ((a - b) / b).abs() <= rel
}

macro_rules! assert_close {
    ($a:expr, $b:expr, $rel:expr) => {{
        let (a, b) = ($a, $b);
        assert!(
            close(a, b, $rel),
            "{} = {a}, expected {b} (±{})",
            stringify!($a),
            $rel
        );
    }};
}

/// Issue section 5, the 2024.2 GPP file (details page, base units,
/// thousands separators, no gpu__time_duration).
#[test]
fn gpp_2024_2_matches_hand_computed_figures() {
    let csv = fx("ncu/gpp_ncu2024.2_details15.csv");
    assert_eq!(
        (csv.page, csv.columns, csv.launches.len()),
        (Page::Details, 15, 1)
    );
    let l = &csv.launches[0];
    // FP64 = dadd + dmul + 2 dfma = 122,305,685,313 + 371,957,323,851
    //        + 2 x 734,774,600,586 = 1,963,812,210,336 (issue: 1.9638e12)
    assert_eq!(l.flop.get(ComputePath::Fp64), Some(1_963_812_210_336.0));
    // FP32 = fadd + fmul + 2 ffma = 0 + 0 + 2 x 24,541,362,358 (issue: 4.908e10)
    assert_eq!(l.flop.get(ComputePath::Fp32), Some(49_082_724_716.0));
    // FP16 counters are present and zero.
    assert_eq!(l.flop.get(ComputePath::Fp16), Some(0.0));
    assert_eq!(l.flop.total(), 2_012_894_935_052.0); // issue: 2.0129e12
                                                     // No gpu__time_duration.sum: 36,873,068,823 cycles / 1,619,726,202.90 Hz
                                                     // = 22.765001 s.
    assert_eq!(
        l.duration_source,
        Some("sm__cycles_elapsed.avg / sm__cycles_elapsed.avg.per_second")
    );
    assert_close!(l.duration_ns.unwrap(), 22.765_001e9, 1e-6);
    assert_eq!(l.dram_bytes, Some(134_957_158_144.0));
    assert_eq!(l.l2_bytes, Some(225_714_841_568.0));
    assert_eq!(l.l1_bytes, Some(455_104_804_320.0));

    let (roofs, info) = gpu("rtx4090");
    // The datasheet roofs as stated (the launch ran at 1620 MHz, the roofs
    // assume 2521 MHz: the run-clock rule is tested on the A100 SGEMM).
    let r = analyze_at(&csv, &roofs, info, GroupBy::Launch, RoofClock::Boost);
    let k = &r.kernels[0];
    // I = 2.012895e12 FLOP / 134.957e9 B = 14.92; L2 8.92; L1 4.42 (issue).
    assert_close!(k.intensity.unwrap(), 14.915, 1e-4);
    assert_close!(k.intensity_l2.unwrap(), 8.918, 1e-4);
    assert_close!(k.intensity_l1.unwrap(), 4.423, 1e-3);
    // 2.012895e12 FLOP / 22.765 s = 88.4 GFLOP/s (issue).
    assert_close!(k.achieved_flop_per_s.unwrap(), 88.42e9, 1e-3);
    // Two paths: T* = W64/F64 + W32/F32 = 1.9638e12/1.29e12 + 4.908e10/82.6e12
    // = 1.52233 + 0.00059 s; Q/B = 134.96e9/1008e9 = 0.1339 s, so compute-bound.
    // Every FLOP group was collected (FP64/FP32/FP16 SASS counters, and a
    // zero tensor-pipe instruction count): the bound is exact.
    assert_eq!(k.bound, Some(Bound::Compute));
    assert!(!k.lower_bound && k.flop_unknown.is_empty());
    assert_close!(
        k.bound_time_ns,
        (1_963_812_210_336.0 / 1.29e12 + 49_082_724_716.0 / 82.6e12) * 1e9,
        1e-9
    );
    assert_close!(
        k.memory_time_ns.unwrap(),
        134_957_158_144.0 / 1008e9 * 1e9,
        1e-9
    );
    assert_close!(k.fraction_of_roof, 1.52292 / 22.765, 1e-4);
    assert_close!(k.time_lost_ns, 22.765e9 - 1.52292e9, 1e-4);
    assert_eq!(k.paths(), vec![ComputePath::Fp64, ComputePath::Fp32]);
}

/// Issue section 5, the 2025.1 bf16 GEMM (import mode, auto-scaled units,
/// 20 columns with ragged metric rows).
#[test]
fn bf16_gemm_2025_1_matches_hand_computed_figures() {
    let csv = fx("ncu/bf16_gemm_ncu2025.1_import_details20.csv");
    assert_eq!(
        (csv.page, csv.columns, csv.launches.len()),
        (Page::Details, 20, 1)
    );
    let l = &csv.launches[0];
    // 17.50 Mbyte = 17,500,000 bytes read + 0 written; 111.81 us = 111,810 ns.
    assert_eq!(l.dram_bytes, Some(17_500_000.0));
    assert_eq!(l.duration_ns, Some(111_810.0));
    // Only src_bf16_dst_fp32 has a value (dst_bf16 is n/a); the n/a
    // flop_count_* legacy metrics are not read.
    assert_eq!(l.flop.get(ComputePath::TensorBf16), Some(12_532_580_352.0));
    assert_eq!(l.flop.total(), 12_532_580_352.0);
    assert_eq!(
        csv.compute_capabilities,
        vec![rooftrace::units::ComputeCapability::new(12, 0)]
    );

    let (roofs, info) = gpu("h100-sxm");
    let r = analyze(&csv, &roofs, info, GroupBy::Launch);
    let k = &r.kernels[0];
    // 17.5e6 B / 111.81e-6 s = 156.5 GB/s; I = 12,532,580,352 / 17.5e6 = 716.1;
    // 12,532,580,352 / 111.81e-6 s = 112.09 TFLOP/s (issue).
    assert_close!(k.achieved_dram_bytes_per_s.unwrap(), 156.5e9, 1e-3);
    assert_close!(k.intensity.unwrap(), 716.1, 1e-4);
    assert_close!(k.achieved_flop_per_s.unwrap(), 112.09e12, 1e-4);
    // On the measured H100 roofs (roofs.csv @ 272851c, rounded to 5 digits):
    // W/F = 12,532,580,352 / 802.42e12 = 15.6185 us > Q/B = 17.5e6 / 3084.8e9
    // = 5.67298 us: compute-bound at 15.6185/111.81 = 13.969 %.
    // Only the tensor counters were collected: the CUDA-core FLOPs are
    // unknown, so the FLOPs and the fraction are lower bounds; the counted
    // tensor FLOPs alone already exceed the memory time, so compute-bound is
    // certain.
    assert_eq!(k.bound, Some(Bound::Compute));
    assert_close!(k.compute_time_ns.unwrap(), 15_618.48, 1e-5);
    assert_close!(k.memory_time_ns.unwrap(), 5_672.98, 1e-5);
    assert_close!(k.fraction_of_roof, 0.139_688, 1e-4);
    assert!(k.lower_bound);
    assert_eq!(
        k.flop_unknown,
        vec![
            ncu::FlopGroup::Fp64,
            ncu::FlopGroup::Fp32,
            ncu::FlopGroup::Fp16
        ]
    );
    // The attainable FLOP/s needs the whole compute side: not claimed.
    assert_eq!(k.roof_flop_per_s, None);
    assert!(!k.above_roof && !k.bandwidth_only);
}

#[test]
fn details_21_columns_and_raw_page_read_the_same_numbers() {
    let d20 = fx("ncu/bf16_gemm_ncu2025.1_import_details20.csv");
    let d21 = fx("ncu/bf16_gemm_details21.csv");
    assert_eq!(d21.columns, 21);
    assert_eq!(d20.launches, d21.launches);

    let raw = fx("ncu/bf16_gemm_raw_page_units.csv");
    assert_eq!((raw.page, raw.launches.len()), (Page::Raw, 2));
    let (a, b) = (&raw.launches[0], &raw.launches[1]);
    assert_eq!((a.process_id, a.id), (1_742_833, 0));
    assert_eq!(a.dram_bytes, d20.launches[0].dram_bytes);
    assert_eq!(a.duration_ns, d20.launches[0].duration_ns);
    assert_eq!(a.flop, d20.launches[0].flop);
    // Same ID in another process is another launch; its name keeps commas
    // and quotes. 40.96 Mbyte + 20,480,000 byte = 61.44 MB; 40.00 us.
    assert_eq!((b.process_id, b.id), (1_742_834, 0));
    assert_eq!(
        &*b.name,
        "void (anonymous namespace)::axpy<float, 4>(float const*, float*, \"tag\", int)"
    );
    assert_eq!(b.dram_bytes, Some(61_440_000.0));
    assert_eq!(b.duration_ns, Some(40_000.0));
}

#[test]
fn bom_crlf_and_log_preamble_change_nothing() {
    let plain = fx("ncu/gpp_ncu2024.2_details15.csv");
    let odd = fx("ncu/gpp_bom_crlf_preamble.csv");
    let strip = |l: &ncu::LaunchMetrics| {
        let mut l = l.clone();
        l.line = 0;
        l
    };
    assert_eq!(strip(&plain.launches[0]), strip(&odd.launches[0]));
    // The header is on line 4, the first row on line 5.
    assert_eq!(odd.launches[0].line, 5);
    assert_eq!(
        odd.log,
        vec!["==WARNING== Found outstanding GPU clock reset, trying to revert...".to_string()]
    );
}

#[test]
fn print_fp_smsp_metrics_and_group_by_kernel() {
    let csv = fx("ncu/sgemm_a100_printfp_details15.csv");
    assert_eq!(csv.launches.len(), 3);
    // --print-fp: "838,860,800.00" FFMA -> 2 x 838,860,800 FLOP.
    assert_eq!(
        csv.launches[0].flop.get(ComputePath::Fp32),
        Some(1_677_721_600.0)
    );
    // smsp__ duration: 5,145,083,088.72 cycles / 764,999,991.90 Hz = 6.7256 s.
    assert_close!(
        csv.launches[0].duration_ns.unwrap(),
        5_145_083_088.72 / 764_999_991.90 * 1e9,
        1e-12
    );
    // gemm_v1 executes tensor-pipe instructions without op counters: they are
    // not converted to FLOPs (no double counting, no guessed MMA shape).
    assert_eq!(csv.launches[2].tensor_inst, Some(67_161_292_800.0));
    assert_eq!(csv.launches[2].flop.get(ComputePath::TensorFp16), None);

    let (roofs, info) = gpu("a100-80gb");
    let r = analyze(&csv, &roofs, info, GroupBy::Kernel);
    assert_eq!(r.kernels.len(), 2);
    let init = r
        .kernels
        .iter()
        .find(|k| k.name.contains("randomInit"))
        .unwrap();
    // Sums over the two launches, never rates: 6.7256 s + 6.7115 s = 13.437 s;
    // 5,323,503,232 + 5,420,639,360 B; 2 x 1,677,721,600 FLOP.
    assert_eq!(init.launches, 2);
    assert_close!(init.duration_ns, 13.437_076e9, 1e-6);
    assert_eq!(init.dram_bytes, Some(10_744_142_592.0));
    assert_eq!(init.flop, Some(3_355_443_200.0));
    assert_close!(
        init.achieved_dram_bytes_per_s.unwrap(),
        10_744_142_592.0 / 13.437_076,
        1e-6
    );
    assert_eq!(init.id, 0);
    assert!(r
        .diagnostics
        .iter()
        .any(|d| d.kind == DiagnosticKind::TensorNotCounted && d.count == 1));
}

/// `--roofs ncu` on the constructed peaks fixture (numbers in
/// fixtures/ncu/README.md).
#[test]
fn roofs_from_ncu_peaks() {
    let csv = fx("ncu/h100_raw_page_peaks_constructed.csv");
    let roofs = csv.roofs_from_peaks().unwrap();
    // 1,280 byte/cycle x 2.619 GHz; 2 x 16,896 x 1.83 GHz; 540,672 x 1.83 GHz.
    assert_close!(roofs.dram().unwrap().bytes_per_s, 3.352_32e12, 1e-12);
    assert_close!(
        roofs.compute[&ComputePath::Fp32].flop_per_s,
        61.839_36e12,
        1e-12
    );
    assert_close!(
        roofs.compute[&ComputePath::TensorBf16].flop_per_s,
        989.429_76e12,
        1e-12
    );
    let info = GpuInfo {
        key: None,
        name: roofs.gpu.clone(),
        chosen_by: rooftrace::roofs::GpuChoice::NcuPeaks,
        notes: Vec::new(),
    };
    assert_eq!(roofs.gpu, "NVIDIA H100 80GB HBM3");
    let r = analyze(&csv, &roofs, info, GroupBy::Launch);
    // Launch 0: 49.47e9 / 989.43e12 = 49.998 us vs 60e6 / 3.3523e12 = 17.898 us.
    // Launch 1: 2e9 / 61.839e12 = 32.342 us vs 100e6 / 3.3523e12 = 29.830 us.
    // Time lost 50.0 us > 17.66 us, so launch 0 comes first.
    let (a, b) = (&r.kernels[0], &r.kernels[1]);
    assert_eq!((a.id, b.id), (0, 1));
    assert_close!(a.bound_time_ns, 49_998.496, 1e-7);
    assert_close!(a.fraction_of_roof, 0.499_985, 1e-5);
    assert_close!(b.bound_time_ns, 32_341.861, 1e-7);
    assert_close!(b.memory_time_ns.unwrap(), 29_830.088, 1e-7);
    assert_eq!(b.bound, Some(Bound::Compute));
    // Without peaks, --roofs ncu is refused.
    let e = fx("ncu/gpp_ncu2024.2_details15.csv")
        .roofs_from_peaks()
        .unwrap_err();
    assert!(
        e.to_string().contains("dram__bytes.sum.peak_sustained"),
        "{e}"
    );
}

#[test]
fn above_roof_and_bandwidth_only_are_diagnosed() {
    let csv = fx("ncu/bf16_gemm_ncu2025.1_import_details20.csv");
    let mut roofs = Roofs::new("slow roofs", "test");
    roofs.memory.insert(
        rooftrace::roofs::MemoryLevel::Dram,
        rooftrace::roofs::MemoryRoof {
            bytes_per_s: 3e12,
            origin: rooftrace::roofs::Origin::File,
            source: "test".into(),
            measurement: None,
        },
    );
    roofs.compute.insert(
        ComputePath::TensorBf16,
        rooftrace::roofs::ComputeRoof {
            flop_per_s: 100e12,
            origin: rooftrace::roofs::Origin::File,
            source: "test".into(),
            measurement: None,
        },
    );
    let info = GpuInfo {
        key: None,
        name: "slow".into(),
        chosen_by: rooftrace::roofs::GpuChoice::CommandLine,
        notes: Vec::new(),
    };
    let r = analyze(&csv, &roofs, info.clone(), GroupBy::Launch);
    // 12.53e9 / 100e12 = 125.3 us against 111.81 us measured: 112.1 % > 105 %.
    assert_close!(r.kernels[0].fraction_of_roof, 1.120_88, 1e-5);
    assert!(r.kernels[0].above_roof);
    assert!(r
        .diagnostics
        .iter()
        .any(|d| d.kind == DiagnosticKind::AboveRoof));

    // A file with DRAM bytes and durations but no FLOP counter (constructed
    // raw page): analysed against bandwidth alone, and flagged.
    let text = "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"dram__bytes.sum\",\"gpu__time_duration.sum\"\n\
                \"\",\"\",\"\",\"\",\"\",\"Gbyte\",\"msecond\"\n\
                \"3\",\"9\",\"app\",\"h\",\"copy\",\"3.00\",\"1.50\"\n";
    let csv = ncu::parse(text.as_bytes(), "inline.csv").unwrap();
    let r = analyze(&csv, &roofs, info, GroupBy::Launch);
    let k = &r.kernels[0];
    // 3 GB / 3 TB/s = 1 ms of 1.5 ms: 66.7 % of the DRAM roof.
    assert!(k.bandwidth_only && k.intensity.is_none() && k.roof_flop_per_s.is_none());
    assert_close!(k.fraction_of_roof, 2.0 / 3.0, 1e-12);
    assert!(r
        .diagnostics
        .iter()
        .any(|d| d.kind == DiagnosticKind::BandwidthOnly));
}

#[test]
fn missing_zero_and_nan_metrics_become_diagnostics() {
    let text = "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"dram__bytes.sum\",\"gpu__time_duration.sum\",\"sm__sass_thread_inst_executed_op_ffma_pred_on.sum\"\n\
                \"\",\"\",\"\",\"\",\"\",\"byte\",\"ns\",\"inst\"\n\
                \"0\",\"9\",\"app\",\"h\",\"ok\",\"1000\",\"10\",\"5\"\n\
                \"1\",\"9\",\"app\",\"h\",\"no_time\",\"1000\",\"n/a\",\"5\"\n\
                \"2\",\"9\",\"app\",\"h\",\"zero_time\",\"1000\",\"0\",\"5\"\n\
                \"3\",\"9\",\"app\",\"h\",\"failed\",\"nan\",\"10\",\"nan\"\n";
    let csv = ncu::parse(text.as_bytes(), "inline.csv").unwrap();
    let (roofs, info) = gpu("h100-sxm");
    let r = analyze(&csv, &roofs, info, GroupBy::Launch);
    assert_eq!((r.launches_total, r.launches_analysed), (4, 1));
    let kinds: Vec<DiagnosticKind> = r.diagnostics.iter().map(|d| d.kind).collect();
    assert_eq!(
        kinds,
        vec![
            DiagnosticKind::MissingDuration,
            DiagnosticKind::ZeroDuration,
            DiagnosticKind::MissingWork,
            DiagnosticKind::NanMetrics,
            // Only the FFMA counter: FP64/FP16/tensor FLOPs unknown.
            DiagnosticKind::FlopIncomplete,
        ]
    );
}

#[test]
fn ties_in_time_lost_sort_deterministically() {
    // Three identical launches: same time lost and duration, so name then ID.
    let mut text = String::from("\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"dram__bytes.sum\",\"gpu__time_duration.sum\"\n");
    for (id, name) in [(5, "b"), (2, "a"), (7, "a")] {
        text.push_str(&format!(
            "\"{id}\",\"1\",\"p\",\"h\",\"{name}\",\"1000\",\"100\"\n"
        ));
    }
    let csv = ncu::parse(text.as_bytes(), "inline.csv").unwrap();
    let (roofs, info) = gpu("h100-sxm");
    let r = analyze(&csv, &roofs, info, GroupBy::Launch);
    let order: Vec<(String, u64)> = r
        .kernels
        .iter()
        .map(|k| (k.name.to_string(), k.id))
        .collect();
    assert_eq!(
        order,
        vec![("a".into(), 2), ("a".into(), 7), ("b".into(), 5)]
    );
}

#[test]
fn markdown_starts_with_the_verdict_and_fits_a_pr_comment() {
    let mut text = String::from("\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"dram__bytes.sum\",\"gpu__time_duration.sum\"\n");
    for id in 0..3000 {
        text.push_str(&format!(
            "\"{id}\",\"1\",\"p\",\"h\",\"void very_long_kernel_name_{id:05}<float, 128, 64, 8>(float const*, float*, int)\",\"{}\",\"1000\"\n",
            1_000_000 + id
        ));
    }
    let csv = ncu::parse(text.as_bytes(), "many.csv").unwrap();
    let (roofs, info) = gpu("h100-sxm");
    let r = analyze(&csv, &roofs, info, GroupBy::Launch);
    let md = String::from_utf8(r.render(
        Format::Markdown,
        &RenderOptions {
            top: 0,
            images: vec![("roofline".into(), "roofline.svg".into())],
        },
    ))
    .unwrap();
    assert!(md.chars().count() <= MARKDOWN_LIMIT_CHARS);
    let first = md.lines().next().unwrap();
    assert!(
        // Top row: ID 0, 1,000,000 B / 3085 GB/s = 324.1 ns of 1000 ns.
        first.contains("at least 32.4 % of the DRAM roof (compute unknown: no FLOP counters)"),
        "{first}"
    );
    assert!(md.contains("![roofline](roofline.svg)"));
    assert!(md.contains("rows shown (to fit a PR comment)"));
    assert!(md.contains("**Roofs used**"));
}

/// What `rooftrace ncu` must do with each corpus file: per-launch rows
/// (launches analysed, launches in the file), or a refusal whose message
/// names what is missing (or quotes ncu's own error).
enum Outcome {
    Rows(u64, u64),
    Refused(&'static str),
}

const CORPUS_OUTCOMES: &[(&str, Outcome)] = &[
    // Default sections only: DRAM from Memory Throughput x Duration.
    (
        "ncu2019.5_details_csv_rodinia_hotspot_single_kernel.log",
        Outcome::Rows(1, 1),
    ),
    // dram__bytes.sum alone: no duration in any form.
    (
        "ncu2020.1_metrics_csv_deeplab_tf_fp16_dram_bytes.log",
        Outcome::Refused("no kernel duration in"),
    ),
    (
        "ncu2020.3_metrics_csv_app_traceback_error_then_csv_leleucas_interpolate_a100.log",
        Outcome::Rows(198, 198),
    ),
    (
        "ncu2021.2_sections_metrics_rules_csv_leleucas_bert_flashattn_a100.csv",
        Outcome::Rows(10, 10),
    ),
    ("ncu2024.2_metrics_csv_gpp_clean.csv", Outcome::Rows(1, 1)),
    (
        "ncu2025.1_import_metrics_csv_llm_bf16_gemm.csv",
        Outcome::Rows(1, 1),
    ),
    // ComputeWorkloadAnalysis only: a duration, but pipe utilisations, no
    // bytes or FLOPs.
    (
        "ncu2025_raw_page_csv_flashinfer_decode_b200.csv",
        Outcome::Refused("no DRAM bytes and no FLOPs in any form;"),
    ),
    (
        "ncu2025_raw_page_empty_app_error.csv",
        Outcome::Refused("  ==ERROR== The application returned an error code (1)."),
    ),
    // L2 table: L2 sectors, no DRAM, no FLOPs, no duration.
    (
        "ncu_metrics_csv_l2_table_rates_no_dram_leleucas_conv2d_a100.log",
        Outcome::Refused("no DRAM bytes and no FLOPs in any form, and no kernel duration"),
    ),
    (
        "ncu_metrics_csv_printfp_a100_sgemm.csv",
        Outcome::Rows(3, 3),
    ),
    // The roofline-chart section as CSV: one rule row, no metric at all.
    (
        "ncu_roofline_section_rule_row_only_leleucas_conv2d_a100.log",
        Outcome::Refused("no DRAM bytes and no FLOPs in any form, and no kernel duration"),
    ),
];

/// Every file of ../shared/corpus/ncu gives per-launch rows or a refusal
/// naming what is missing, as listed in [`CORPUS_OUTCOMES`] (a new corpus
/// file fails until its outcome is written down).
#[test]
fn corpus_conformance() {
    let Some(dir) = corpus("ncu") else {
        return;
    };
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| !p.to_string_lossy().ends_with(".src.txt"))
        .collect();
    files.sort();
    assert!(files.len() >= 7, "{files:?}");
    let (roofs, info) = gpu("a100-80gb");
    for path in &files {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let outcome = CORPUS_OUTCOMES
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, o)| o)
            .unwrap_or_else(|| panic!("{name}: add its outcome to CORPUS_OUTCOMES"));
        let result = parse(path).and_then(|csv| csv.check_analysable().map(|()| csv));
        match (outcome, result) {
            (Outcome::Rows(analysed, total), Ok(csv)) => {
                check_known(&name, &csv);
                let r = analyze(&csv, &roofs, info.clone(), GroupBy::Launch);
                assert_eq!(
                    (r.launches_analysed, r.launches_total),
                    (*analysed, *total),
                    "{name}"
                );
                assert_eq!(r.kernels.len() as u64, *analysed, "{name}");
            }
            (Outcome::Refused(what), Err(e)) => {
                assert!(e.to_string().contains(what), "{name}: {e}");
                if let Ok(csv) = parse(path) {
                    check_known(&name, &csv);
                }
            }
            (Outcome::Rows(..), Err(e)) => panic!("{name}: refused: {e}"),
            (Outcome::Refused(what), Ok(_)) => panic!("{name}: analysed, expected {what:?}"),
        }
    }
}

/// Facts read off the corpus files by eye.
fn check_known(name: &str, csv: &NcuCsv) {
    let first = &csv.launches[0];
    match name {
        "ncu2019.5_details_csv_rodinia_hotspot_single_kernel.log" => {
            // 12 columns with Kernel Time; only section rows: the Speed Of
            // Light "Duration" (6624 nsecond) is the duration; DRAM bytes
            // from Memory Throughput x Duration (ncu_derived.rs).
            assert_eq!((csv.columns, csv.launches.len()), (12, 1));
            assert_eq!(first.duration_ns, Some(6624.0));
            assert_eq!(first.dram_derivation, Some(ncu::Source::RateTimesDuration));
        }
        "ncu2020.1_metrics_csv_deeplab_tf_fp16_dram_bytes.log" => {
            // IDs 0..=558 after 34 lines of application output.
            assert_eq!((csv.columns, csv.launches.len()), (12, 559));
            assert_eq!(first.dram_bytes, Some(167_616.0));
            assert_eq!(csv.launches[558].dram_bytes, Some(6_400.0));
            assert_eq!(first.duration_ns, None);
        }
        "ncu2025_raw_page_csv_flashinfer_decode_b200.csv" => {
            assert_eq!(
                (csv.page, csv.columns, csv.launches.len()),
                (Page::Raw, 475, 16)
            );
            assert_eq!(csv.device_names, vec!["NVIDIA B200".to_string()]);
            assert_eq!(first.duration_ns, Some(9_920.0));
            assert!(first
                .name
                .starts_with("void PersistentVariableLengthMergeStatesKernel<8, 16"));
        }
        "ncu2024.2_metrics_csv_gpp_clean.csv" => {
            assert_eq!(first.flop.total(), 2_012_894_935_052.0);
        }
        "ncu2025.1_import_metrics_csv_llm_bf16_gemm.csv" => {
            assert_eq!(
                first.flop.get(ComputePath::TensorBf16),
                Some(12_532_580_352.0)
            );
        }
        "ncu_metrics_csv_printfp_a100_sgemm.csv" => assert_eq!(csv.launches.len(), 3),
        _ => {}
    }
}

// ---- the CLI: output snapshots and error messages (exit code 2) ----

fn ok(args: &[&str]) -> String {
    let (code, out, err) = rooftrace(args);
    assert_eq!(code, 0, "{args:?}: {err}");
    out
}

#[test]
fn table_output() {
    insta::assert_snapshot!(
        "ncu_table_gpp_rtx4090",
        ok(&[
            "ncu",
            "fixtures/ncu/gpp_ncu2024.2_details15.csv",
            "--gpu",
            "rtx4090"
        ])
    );
    insta::assert_snapshot!(
        "ncu_table_sgemm_by_kernel",
        ok(&[
            "ncu",
            "fixtures/ncu/sgemm_a100_printfp_details15.csv",
            "--gpu",
            "a100-80gb",
            "--group-by",
            "kernel"
        ])
    );
}

#[test]
fn json_output() {
    let out = ok(&[
        "ncu",
        "fixtures/ncu/bf16_gemm_ncu2025.1_import_details20.csv",
        "--gpu",
        "rtx5090",
        "--format",
        "json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["schema"], "rooftrace.ncu/3");
    for key in [
        "id",
        "name",
        "launches",
        "duration_ns",
        "dram_bytes",
        "flop",
        "intensity",
        "achieved_flop_per_s",
        "achieved_dram_bytes_per_s",
        "bound",
        "roof_flop_per_s",
        "fraction_of_roof",
        "time_lost_ns",
    ] {
        assert!(v["kernels"][0].get(key).is_some(), "{key}");
    }
    insta::assert_snapshot!("ncu_json_bf16_gemm_rtx5090", out);
}

#[test]
fn markdown_and_csv_output() {
    // GPU taken from device__attribute_display_name ("NVIDIA H100 80GB HBM3").
    insta::assert_snapshot!(
        "ncu_md_peaks_fixture",
        ok(&[
            "ncu",
            "fixtures/ncu/h100_raw_page_peaks_constructed.csv",
            "--format",
            "md"
        ])
    );
    insta::assert_snapshot!(
        "ncu_csv_peaks_fixture_roofs_ncu",
        ok(&[
            "ncu",
            "fixtures/ncu/h100_raw_page_peaks_constructed.csv",
            "--roofs",
            "ncu",
            "--format",
            "csv"
        ])
    );
}

#[test]
fn print_metrics_and_list_gpus() {
    let m = ok(&["ncu", "--print-metrics"]);
    assert!(m.trim_end().split(',').all(|s| s.contains("__")), "{m}");
    assert!(m.contains("dram__bytes_read.sum,dram__bytes_write.sum"));
    insta::assert_snapshot!("ncu_list_gpus", ok(&["ncu", "--list-gpus"]));
}

#[test]
fn error_messages() {
    let mut all = String::new();
    let mut cases: Vec<Vec<String>> = std::fs::read_dir(fixture("ncu/bad"))
        .unwrap()
        .map(|e| {
            let p = e.unwrap().path();
            let rel = format!(
                "fixtures/ncu/bad/{}",
                p.file_name().unwrap().to_string_lossy()
            );
            vec!["ncu".into(), rel, "--gpu".into(), "h100-sxm".into()]
        })
        .collect();
    cases.sort();
    let more: [&[&str]; 3] = [
        &[
            "ncu",
            "fixtures/ncu/gpp_ncu2024.2_details15.csv",
            "--gpu",
            "h100",
        ],
        // Without --gpu the GPP file (CC 8.9, five GPUs fit) is answered
        // without roofs, exit 0 (tests/it/detect.rs).
        &[
            "ncu",
            "fixtures/ncu/gpp_ncu2024.2_details15.csv",
            "--roofs",
            "ncu",
        ],
        &[
            "ncu",
            "fixtures/ncu/gpp_ncu2024.2_details15.csv",
            "--roofs",
            "fixtures/ncu/README.md",
        ],
    ];
    cases.extend(
        more.iter()
            .map(|a| a.iter().map(|s| s.to_string()).collect()),
    );
    for args in &cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (code, out, err) = rooftrace(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(out.is_empty());
        all.push_str(&format!("$ rooftrace {}\n{err}\n", args.join(" ")));
    }
    insta::assert_snapshot!("ncu_errors", all);
}

#[test]
fn roofs_file_is_used_and_named() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("roofs.json");
    // A calibrate-style roofs file: 1 TB/s DRAM, 400 TFLOP/s BF16.
    std::fs::write(
        &path,
        r#"{"schema":"rooftrace.roofs/1","gpu":"lab GPU","source":"rooftrace calibrate on lab GPU",
            "memory":{"dram":{"bytes_per_s":1e12,"origin":"measured","source":"read_sum"}},
            "compute":{"tensor_bf16":{"flop_per_s":4e14,"origin":"measured","source":"cublas"}}}"#,
    )
    .unwrap();
    let p = path.to_str().unwrap();
    let out = ok(&[
        "ncu",
        "fixtures/ncu/bf16_gemm_ncu2025.1_import_details20.csv",
        "--roofs",
        p,
        "--format",
        "json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["gpu"]["name"], "lab GPU");
    assert_eq!(v["roofs"]["source"], "rooftrace calibrate on lab GPU");
    // W/F = 12,532,580,352 / 4e14 = 31.33 us; Q/B = 17.5e6 / 1e12 = 17.5 us.
    let k = &v["kernels"][0];
    assert!(close(k["bound_time_ns"].as_f64().unwrap(), 31_331.45, 1e-6));
    assert_eq!(k["bound"], "compute");

    // Without a DRAM roof the file is refused (exit 2).
    std::fs::write(
        &path,
        r#"{"schema":"rooftrace.roofs/1","gpu":"g","memory":{},"compute":{"fp32":{"flop_per_s":1e13}}}"#,
    )
    .unwrap();
    let (code, _, err) = rooftrace(&[
        "ncu",
        "fixtures/ncu/gpp_ncu2024.2_details15.csv",
        "--roofs",
        p,
    ]);
    assert_eq!(code, 2);
    assert!(
        err.contains("have no DRAM bandwidth (memory.dram)"),
        "{err}"
    );
}

#[test]
fn list_gpus_json_carries_every_source() {
    let v: serde_json::Value =
        serde_json::from_str(&ok(&["ncu", "--list-gpus", "--format", "json"])).unwrap();
    let list = v.as_array().unwrap();
    assert_eq!(list.len(), gpus::all().len());
    assert!(list.len() >= 22);
    for g in list {
        for kind in ["memory", "compute"] {
            for (_, roof) in g["roofs"][kind].as_object().unwrap() {
                assert!(!roof["source"].as_str().unwrap().is_empty(), "{g}");
            }
        }
    }
}

#[test]
fn report_turns_into_a_roofline_chart() {
    let csv = fx("ncu/gpp_ncu2024.2_details15.csv");
    let (roofs, info) = gpu("rtx4090");
    let r = analyze(&csv, &roofs, info, GroupBy::Launch);
    let input = RooflineInput::from_report(&r, 5);
    let p = &input.points[0];
    // FP64 dominates the compute time: 1.9638e12/1.29e12 s >> 4.9e10/82.6e12 s.
    assert_eq!(p.path, Some(ComputePath::Fp64));
    assert_close!(p.flop_per_byte, 14.915, 1e-4);
    assert_close!(p.flop_per_s, 88.42e9, 1e-3);
    assert_eq!(input.roofs.memory.len(), 1);
    let chart = rooftrace::plot::RooflineChart::build(&input).unwrap();
    assert!(!format!("{chart:?}").is_empty());
}

/// Issue 19: the A100 SGEMM export ran at 765 MHz (ncu's default
/// `--clock-control base` lock). The compute roofs are scaled to that clock,
/// the header and JSON say so, and the lock is diagnosed once with the fix.
#[test]
fn sgemm_a100_at_765_mhz_gets_roofs_at_765_mhz() {
    let csv = fx("ncu/sgemm_a100_printfp_details15.csv");
    // smsp__cycles_elapsed.avg.per_second of launches 0, 1, 2.
    let clocks = [764_999_991.90, 764_999_992.88, 764_999_999.31];
    let cycles = [5_145_083_088.72, 5_134_280_071.41, 25_610_472_227.46];
    for (l, c) in csv.launches.iter().zip(clocks) {
        assert_eq!(l.sm_clock_hz, Some(c));
        assert_eq!(
            l.sm_clock_source,
            Some("smsp__cycles_elapsed.avg.per_second")
        );
        assert_eq!(l.dram_clock_hz, None);
    }
    let (roofs, info) = gpu("a100-40gb");
    // The clock the datasheet peaks assume: 19.5 TFLOP/s / (2 x 64 FP32
    // lanes x 108 SMs) = 1410.59 MHz, rounded to 1411 (whitepaper: 1410).
    assert_eq!(roofs.clocks.sm_clock_hz, Some(1411e6));
    // The run clock: the time-weighted mean, t_i = cycles_i / clock_i, so
    // sum(t_i c_i) / sum(t_i) = sum(cycles) / sum(cycles_i / c_i).
    let t: Vec<f64> = cycles.iter().zip(clocks).map(|(n, c)| n / c).collect();
    let f_run = cycles.iter().sum::<f64>() / t.iter().sum::<f64>();
    let run = analyze(&csv, &roofs, info.clone(), GroupBy::Launch);
    let boost = analyze_at(&csv, &roofs, info, GroupBy::Launch, RoofClock::Boost);
    let fp32 = run.roofs.compute[&ComputePath::Fp32].flop_per_s;
    assert_close!(fp32, 19.5e12 * f_run / 1411e6, 1e-12); // 10.57 TFLOP/s
    assert_close!(fp32, 10.572e12, 1e-4);
    assert_eq!(boost.roofs.compute[&ComputePath::Fp32].flop_per_s, 19.5e12);
    // DRAM: the file has no DRAM clock, so its roof stays as stated.
    assert_eq!(run.roofs.dram().unwrap().bytes_per_s, 1555e9);
    assert!(run.clock.compute_scaled && !run.clock.memory_scaled);
    assert!(!boost.clock.compute_scaled);
    let range = run.clock.run_sm_clock_hz.unwrap();
    assert_eq!((range.min_hz, range.max_hz), (clocks[0], clocks[2]));
    // gemm_v1 is compute-bound: its fraction grows by 1411 MHz / f_run
    // (x1.84, the issue's "about 1.8x too low"); randomInit is memory-bound
    // and keeps its fraction.
    let row = |r: &rooftrace::roofline::RooflineReport, id: u64| {
        r.kernels.iter().find(|k| k.id == id).unwrap().clone()
    };
    let (g_run, g_boost) = (row(&run, 2), row(&boost, 2));
    assert_eq!(g_run.bound, Some(Bound::Compute));
    assert_close!(
        g_run.fraction_of_roof / g_boost.fraction_of_roof,
        1411e6 / f_run,
        1e-12
    );
    assert_close!(g_run.fraction_of_roof, 0.2002, 1e-3);
    assert_close!(g_run.sm_clock_hz.unwrap(), clocks[2], 1e-15);
    assert_eq!(
        row(&run, 0).fraction_of_roof,
        row(&boost, 0).fraction_of_roof
    );
    // One diagnostic, naming the clock, the ratio and the fix.
    let d: Vec<_> = run
        .diagnostics
        .iter()
        .filter(|d| d.kind == DiagnosticKind::ClockBelowRoof)
        .collect();
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].count, 3);
    for part in ["765 MHz", "54 %", "1411 MHz", "--clock-control none"] {
        assert!(d[0].message.contains(part), "{part}: {}", d[0].message);
    }
    // The header and the JSON carry the clocks.
    let (code, text, _) = rooftrace(&[
        "ncu",
        "fixtures/ncu/sgemm_a100_printfp_details15.csv",
        "--gpu",
        "a100-40gb",
    ]);
    assert_eq!(code, 0);
    assert!(
        text.contains("clocks: SM 765 MHz as run, roofs assume 1411 MHz: compute roofs scaled"),
        "{text}"
    );
    let (_, json, _) = rooftrace(&[
        "ncu",
        "fixtures/ncu/sgemm_a100_printfp_details15.csv",
        "--gpu",
        "a100-40gb",
        "--format",
        "json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["clock"]["roof_clock"], "run");
    assert_eq!(v["clock"]["roof_sm_clock_hz"], 1411e6);
    assert_eq!(v["clock"]["run_sm_clock_hz"]["min_hz"], clocks[0]);
    assert_eq!(
        v["clock"]["roofs_as_stated"]["compute"]["fp32"]["flop_per_s"],
        19.5e12
    );
    assert_eq!(v["kernels"][0]["sm_clock_hz"], clocks[2]);
}

/// Issue 19: `--list-gpus --format json` gives each GPU the clocks its
/// roofs assume, each with its source, and a source for every roof.
#[test]
fn list_gpus_json_has_clocks_and_sources() {
    let (code, out, err) = rooftrace(&["ncu", "--list-gpus", "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let list = v.as_array().unwrap();
    assert_eq!(list.len(), gpus::all().len());
    for g in list {
        let key = g["key"].as_str().unwrap();
        let c = &g["clocks"];
        // Only a GPU without an SM count (gb200) or an FP32 peak (h20, whose
        // reported peaks contradict each other) has no derivable SM clock.
        if g["sm_count"].is_null() || g["roofs"]["compute"].get("fp32").is_none() {
            assert!(c.get("sm_clock_hz").is_none(), "{key}");
        } else {
            let hz = c["sm_clock_hz"].as_f64().unwrap();
            assert!((1.0e9..3.0e9).contains(&hz), "{key}: {hz}");
            assert!(
                c["sm_clock_source"].as_str().unwrap().contains("datasheet"),
                "{key}"
            );
        }
        if let Some(m) = c.get("memory_clock_hz") {
            assert!(m.as_f64().unwrap() > 0.0, "{key}");
            assert!(
                !c["memory_clock_source"].as_str().unwrap().is_empty(),
                "{key}"
            );
        }
        // The roofs carry the same clocks (none at all: the key is left out).
        let empty = serde_json::json!({});
        let in_roofs = g["roofs"].get("clocks").unwrap_or(&empty);
        assert_eq!(in_roofs, c, "{key}");
        for side in ["memory", "compute"] {
            for (name, r) in g["roofs"][side].as_object().unwrap() {
                assert!(!r["source"].as_str().unwrap().is_empty(), "{key} {name}");
            }
        }
    }
    // Every device fact the table states has a source beside it.
    for g in list {
        let key = g["key"].as_str().unwrap();
        let src = &g["fact_sources"];
        for (fact, source) in [
            ("sm_count", "sm_count"),
            ("l2_bytes", "l2_bytes"),
            ("memory_clock_mhz", "memory"),
            ("bus_width_bits", "memory"),
            ("boost_clock_mhz", "boost_clock"),
        ] {
            if !g[fact].is_null() {
                assert!(!src[source].as_str().unwrap().is_empty(), "{key} {fact}");
            }
        }
    }
    // RTX 4070 (NVIDIA product page): 46 SMs, 192-bit at 21 Gbps, so a
    // memory clock of 10500 MHz; boost 2475 MHz; its L2 is not stated.
    let r4070 = list.iter().find(|g| g["key"] == "rtx4070").unwrap();
    assert_eq!(r4070["sm_count"], 46);
    assert_eq!(r4070["bus_width_bits"], 192);
    assert_eq!(r4070["memory_clock_mhz"], 10500.0);
    assert!(r4070["l2_bytes"].is_null());
    assert!(r4070["fact_sources"]["l2_bytes"]
        .as_str()
        .unwrap()
        .starts_with("not set"));
    // A100: 19.5 TFLOP/s / (2 x 64 x 108) = 1411 MHz; memory 1215 MHz.
    let a100 = list.iter().find(|g| g["key"] == "a100-40gb").unwrap();
    assert_eq!(a100["clocks"]["sm_clock_hz"], 1411e6);
    assert_eq!(a100["clocks"]["memory_clock_hz"], 1215e6);
}

/// docs/ncu.md §5 and the README list the built-in table: every key in
/// docs/ncu.md, and the README's count, so neither falls behind the table.
#[test]
fn docs_list_every_gpu_of_the_table() {
    let root = crate::common::root();
    let doc = std::fs::read_to_string(root.join("docs/ncu.md")).unwrap();
    let section = &doc[doc.find("- **Built-in table**").unwrap()..];
    let section = &section[..section.find("- **`--roofs FILE`**").unwrap()];
    let words: Vec<&str> = section
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
        .collect();
    for g in gpus::all() {
        assert!(words.contains(&g.key), "docs/ncu.md lacks {}", g.key);
    }
    let n = gpus::all().len();
    assert!(
        section.contains(&format!("{n} GPUs")),
        "docs/ncu.md: count {n}"
    );
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    assert!(
        readme.contains(&format!("for {n} GPUs")),
        "README: count {n}"
    );
}
