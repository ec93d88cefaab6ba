//! Which GPU each real ncu CSV detects (`roofs::choose` on
//! `NcuCsv::device_hints`), and what `--gpu` says when the file contradicts
//! it. Expected values read off the corpus files (see each `.src.txt`).

use crate::common::{corpus, rooftrace};
use rooftrace::ncu;
use rooftrace::roofs::{choose, Roofs, RoofsChoice, RoofsError};

fn no_peaks() -> Result<Roofs, RoofsError> {
    Err(RoofsError::NoDram {
        gpu: "unused".into(),
        chosen_by: "unused".into(),
    })
}

/// What each corpus file says about its device, and the answer: the key
/// detected, or the words of the refusal.
#[test]
fn every_corpus_file_detects_its_gpu_or_says_why_not() {
    let Some(dir) = corpus("ncu") else {
        eprintln!("corpus absent: skipped (set ROOFTRACE_CORPUS to run it)");
        return;
    };
    let expect: &[(&str, Result<&str, &str>)] = &[
        // Only the measured "Memory Frequency" (627 MHz): not enough alone.
        (
            "ncu2019.5_details_csv_rodinia_hotspot_single_kernel.log",
            Err("no device name, compute capability, SM count or L2 size"),
        ),
        (
            "ncu2020.1_metrics_csv_deeplab_tf_fp16_dram_bytes.log",
            Err("no device name, compute capability, SM count or L2 size"),
        ),
        (
            "ncu2020.3_metrics_csv_app_traceback_error_then_csv_leleucas_interpolate_a100.log",
            Err("no device name, compute capability, SM count or L2 size"),
        ),
        (
            "ncu2021.2_sections_metrics_rules_csv_leleucas_bert_flashattn_a100.csv",
            Err("no device name, compute capability, SM count or L2 size"),
        ),
        // CC 8.9 column only: six GPUs of the table have it (the L40 joined).
        (
            "ncu2024.2_metrics_csv_gpp_clean.csv",
            Err("compute capability 8.9, shared by l4, l40s, l40, rtx6000-ada, rtx4080, rtx4090"),
        ),
        // CC 12.0 column only: RTX 5090 and RTX PRO 6000 Blackwell.
        (
            "ncu2025.1_import_metrics_csv_llm_bf16_gemm.csv",
            Err("compute capability 12.0, shared by rtx5090, rtx-pro-6000"),
        ),
        // device__attribute_display_name "NVIDIA B200", 148 SMs, L2
        // 132644864 bytes: all three agree with the table.
        (
            "ncu2025_raw_page_csv_flashinfer_decode_b200.csv",
            Ok("b200"),
        ),
        (
            "ncu_metrics_csv_l2_table_rates_no_dram_leleucas_conv2d_a100.log",
            Err("no device name, compute capability, SM count or L2 size"),
        ),
        // CC 8.0 column only: both A100s.
        (
            "ncu_metrics_csv_printfp_a100_sgemm.csv",
            Err("compute capability 8.0, shared by a100-40gb, a100-80gb"),
        ),
        (
            "ncu_roofline_section_rule_row_only_leleucas_conv2d_a100.log",
            Err("no device name, compute capability, SM count or L2 size"),
        ),
    ];
    for (name, want) in expect {
        let path = dir.join(name);
        let f = std::fs::File::open(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
        let csv = ncu::parse(f, name).unwrap_or_else(|e| panic!("{name}: {e}"));
        let got = choose(&RoofsChoice::FromCsv, &csv.device_hints(), no_peaks);
        match (want, got) {
            (Ok(key), Ok((_, gpu))) => {
                assert_eq!(gpu.key.as_deref(), Some(*key), "{name}");
                assert!(gpu.notes.is_empty(), "{name}: {:?}", gpu.notes);
            }
            (Err(words), Err(e)) => {
                let msg = e.to_string();
                assert!(msg.contains(words), "{name}: {msg}");
                assert!(msg.contains("pass --gpu with one of:"), "{name}: {msg}");
            }
            (want, got) => panic!("{name}: want {want:?}, got {:?}", got.map(|g| g.1)),
        }
    }
}

/// The B200 file's device facts, read off its raw-page columns.
#[test]
fn b200_raw_page_device_facts() {
    let Some(dir) = corpus("ncu") else {
        return;
    };
    let name = "ncu2025_raw_page_csv_flashinfer_decode_b200.csv";
    let csv = ncu::parse(std::fs::File::open(dir.join(name)).unwrap(), name).unwrap();
    let h = csv.device_hints();
    // device__attribute_multiprocessor_count 148 (launch__sm_count agrees),
    // device__attribute_l2_cache_size 132644864 = 126.5 MiB,
    // device__attribute_max_mem_frequency_khz 3996000 = 3996 MHz.
    assert_eq!(h.sm_counts, vec![148]);
    assert_eq!(h.l2_bytes, vec![132_644_864]);
    assert!(
        h.memory_clocks_mhz.contains(&3996),
        "{:?}",
        h.memory_clocks_mhz
    );
    assert_eq!(h.compute_capabilities, vec!["10.0".to_string()]);
}

/// `--gpu` against the file: a compute capability it cannot have is an
/// error naming the GPUs that fit; exit code 2.
#[test]
fn gpu_flag_that_contradicts_the_file_is_refused() {
    let Some(dir) = corpus("ncu") else {
        return;
    };
    let path = dir.join("ncu_metrics_csv_printfp_a100_sgemm.csv");
    let (code, _, err) =
        crate::common::rooftrace(&["ncu", path.to_str().unwrap(), "--gpu", "h100-sxm"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("--gpu h100-sxm is compute capability 9.0"),
        "{err}"
    );
    assert!(
        err.contains("compute capability 8.0: not the same GPU"),
        "{err}"
    );
    assert!(err.contains("a100-40gb, a100-80gb"), "{err}");
    // An A100 key is accepted.
    let (code, out, err) =
        crate::common::rooftrace(&["ncu", path.to_str().unwrap(), "--gpu", "a100-80gb"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("a100-80gb"), "{out}");
}

/// Issue 19: an export whose compute capability fits several GPUs (the GPP
/// file, CC 8.9: six of the table) exits 0 without --gpu, with every
/// roof-free column (intensity, FLOP/s, B/s as with any GPU), the
/// roof-dependent ones unknown, and names only the GPUs that fit.
#[test]
fn ambiguous_cc_answers_without_roofs_and_names_only_fitting_gpus() {
    let f = "fixtures/ncu/gpp_ncu2024.2_details15.csv";
    let (code, out, err) = rooftrace(&["ncu", f, "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["gpu"]["key"], serde_json::Value::Null);
    let fits: Vec<&str> = v["gpu"]["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap())
        .collect();
    assert_eq!(
        fits,
        ["l4", "l40s", "l40", "rtx6000-ada", "rtx4080", "rtx4090"]
    );
    let k = &v["kernels"][0];
    // Roof-free: the same figures as against any roofs (tests/it/ncu.rs):
    // I = 2.012895e12 FLOP / 134.957e9 B = 14.915; 2.012895e12 / 22.765 s.
    assert!((k["intensity"].as_f64().unwrap() - 14.915).abs() < 1e-3);
    assert!((k["achieved_flop_per_s"].as_f64().unwrap() / 88.42e9 - 1.0).abs() < 1e-3);
    assert!(k["achieved_dram_bytes_per_s"].as_f64().unwrap() > 0.0);
    // Roof-dependent: unknown, not zero.
    for f in [
        "fraction_of_roof",
        "time_lost_ns",
        "bound_time_ns",
        "bound",
        "above_roof",
    ] {
        assert!(k[f].is_null(), "{f}: {}", k[f]);
    }
    let d = v["diagnostics"].as_array().unwrap();
    let undecided = d.iter().find(|d| d["kind"] == "gpu_undecided").unwrap();
    let msg = undecided["message"].as_str().unwrap();
    assert!(
        msg.contains("l4, l40s, l40, rtx6000-ada, rtx4080, rtx4090"),
        "{msg}"
    );
    // Only the GPUs that fit are named, in every format.
    let (code, text, _) = rooftrace(&["ncu", f]);
    assert_eq!(code, 0);
    for other in ["h100", "a100", "rtx5090", "v100"] {
        assert!(!text.contains(other), "{other} named:\n{text}");
        assert!(!out.contains(other), "{other} named in the JSON");
    }
    assert!(text.contains("unknown"), "{text}");
}
