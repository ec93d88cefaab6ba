//! Which GPU each real ncu CSV detects (`roofs::choose` on
//! `NcuCsv::device_hints`), and what `--gpu` says when the file contradicts
//! it. Expected values read off the corpus files (see each `.src.txt`).

use crate::common::{corpus, corpus_file, rooftrace};
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
        return;
    };
    let expect: &[(&str, Result<&str, &str>)] = &[
        // Only the measured "Memory Frequency" (627 MHz), not enough alone,
        // and its "Memory [%]" with DRAM bytes and duration: a DRAM peak of
        // at least 643.1 GB/s rules out the GPUs slower than that (issue 45
        // item 6), the V100 among those left. By hand from the table's
        // datasheet peaks: of its 53 GPUs, the 14 at 576 GB/s or less
        // (t4, rtx2080, rtx2070, rtx3070, rtx3060ti, rtx3060, rtx-a4000,
        // l4, rtx4070ti, rtx4070, rtx4060ti, rtx4000-ada, rtx5000-ada,
        // rtx5060ti) are more than 10 % under it; the A10 (600) and the
        // RTX 2080 Ti (616) are within it and stay: 39. A lower bound ranks
        // none above another, so the first three in the table are named;
        // no SM count, L2, bus or clock of the table tells 39 apart.
        (
            "ncu2019.5_details_csv_rodinia_hotspot_single_kernel.log",
            Err("a DRAM peak of at least 643.1 GB/s, shared by 39 GPUs of the table (first in the table: v100, v100-32gb, rtx2080ti); the device name would decide (collect `device__attribute_display_name`)"),
        ),
        (
            "ncu2020.1_metrics_csv_deeplab_tf_fp16_dram_bytes.log",
            Err("no device name, compute capability, SM count or L2 size"),
        ),
        // A DRAM peak of at least 1888.6 GB/s: the 80 GB A100s and A800s
        // (2039, 1935), every Hopper and Blackwell data-centre part (2000 to
        // 8000), and the RTX 5090 and RTX PRO 6000 (1792, 5.1 % under):
        // 4 + 8 + 3 + 2 = 17; the 40 GB A100s (1555) are 17.7 % under.
        (
            "ncu2020.3_metrics_csv_app_traceback_error_then_csv_leleucas_interpolate_a100.log",
            Err("a DRAM peak of at least 1888.6 GB/s, shared by 17 GPUs of the table (first in the table: a100-80gb, a100-80gb-pcie, a800-80gb); the device name would decide"),
        ),
        (
            "ncu2021.2_sections_metrics_rules_csv_leleucas_bert_flashattn_a100.csv",
            Err("no device name, compute capability, SM count or L2 size"),
        ),
        // CC 8.9 column only: twelve GPUs of the table have it (l4, l40s,
        // l40, rtx6000-ada, rtx4080, rtx4090, rtx4070ti, rtx4070,
        // rtx4060ti, rtx4000-ada, rtx5000-ada, l20). The L40 and the RTX
        // 6000 Ada share 142 SMs, the L40 and L40S every device attribute:
        // only the name tells all twelve apart.
        (
            "ncu2024.2_metrics_csv_gpp_clean.csv",
            Err("compute capability 8.9, shared by 12 GPUs of the table (first in the table: l4, l40s, l40); the device name would decide (collect `device__attribute_display_name`): no SM count, L2 size, bus width or memory clock of the table tells these 12 apart"),
        ),
        // CC 12.0 (the RTX 50 cards and the RTX PRO 6000), and a DRAM peak
        // of at least 1764.5 GB/s (tests/it/newcomer_gpu.rs): two left.
        (
            "ncu2025.1_import_metrics_csv_llm_bf16_gemm.csv",
            // One GB202 silicon and memory; 170 SMs against 188.
            Err("compute capability 12.0, a DRAM peak of at least 1764.5 GB/s, shared by rtx5090, rtx-pro-6000; the SM count would decide (collect `device__attribute_multiprocessor_count`"),
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
        // CC 8.0 column only: the four A100s, the A30 and the three A800s
        // (8); the 40 GB A100 SXM, A100 PCIe and A800 share 108 SMs, 40 MiB
        // of L2, a 5120-bit bus and 1215 MHz: only the name splits them.
        (
            "ncu_metrics_csv_printfp_a100_sgemm.csv",
            Err("compute capability 8.0, shared by 8 GPUs of the table (first in the table: a100-40gb, a100-40gb-pcie, a100-80gb); the device name would decide"),
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
    let name = "ncu2025_raw_page_csv_flashinfer_decode_b200.csv";
    let Some(path) = corpus_file(&format!("ncu/{name}")) else {
        return;
    };
    let csv = ncu::parse(std::fs::File::open(path).unwrap(), name).unwrap();
    let h = csv.device_hints();
    // device__attribute_multiprocessor_count 148 (launch__sm_count agrees),
    // device__attribute_l2_cache_size 132644864 = 126.5 MiB,
    // device__attribute_max_mem_frequency_khz and _memory_clock_rate
    // 3996000 kHz = 3996 MHz, device__attribute_global_memory_bus_width 7680.
    assert_eq!(h.sm_counts, vec![148]);
    assert_eq!(h.l2_bytes, vec![132_644_864]);
    assert!(
        h.memory_clocks_mhz.contains(&3996),
        "{:?}",
        h.memory_clocks_mhz
    );
    assert_eq!(h.bus_widths_bits, vec![7680]);
    assert_eq!(
        h.compute_capabilities,
        vec![rooftrace::units::ComputeCapability::new(10, 0)]
    );
    // Without its device name the facts still decide: CC 10.0 holds the
    // B200 and the GB200, and only the B200 is known to have 148 SMs and a
    // 7680-bit bus (the GB200's SM count and bus width are not in the table,
    // so it stays a candidate but is not decided on).
    let mut nameless = h.clone();
    nameless.device_names.clear();
    let e = choose(&RoofsChoice::FromCsv, &nameless, no_peaks).unwrap_err();
    assert!(
        e.to_string()
            .contains("148 SMs, L2 126.5 MiB, 7680-bit memory bus, shared by b200, gb200"),
        "{e}"
    );
}

/// Real nsys exports' `TARGET_INFO_GPU` rows (`budget`'s hints) without
/// their device names: the SM count, L2 size and theoretical DRAM
/// bandwidth still name the card where the table can tell it apart.
#[test]
fn nsys_target_info_gpu_facts_decide_without_the_name() {
    use rooftrace::commands::budget::export_hints;
    use rooftrace::roofs::HintSource;
    let Some(dir) = corpus("nsys") else {
        return;
    };
    let cases: &[(&str, Result<&str, &str>)] = &[
        // GeForce RTX 3060: CC 8.6, 28 SMs, L2 2359296 B, memoryBandwidth
        // 360048000000 B/s (product page: 360 GB/s); only the RTX 3060 of
        // the table has 28 SMs.
        ("nsys2023.1.2_gtls_tls-search.sqlite", Ok("rtx3060")),
        ("nsys2025.5.2_flameox_cudagraph-smoke.sqlite", Ok("rtx3060")),
        // GeForce RTX 3090 (two of them): CC 8.6, 82 SMs, 6 MiB, 936.1 GB/s.
        ("nsys2025.5.1_balinski-gomory_report3.sqlite", Ok("rtx3090")),
        // A100-SXM4-40GB: CC 8.0, 108 SMs, 40 MiB, 1555.2 GB/s: the 40 GB
        // A100s (SXM, PCIe) and A800 (one silicon, one memory: only the
        // name splits them).
        (
            "nsys2022.2.1_pipit_saxpy-mpi-cuda.sqlite",
            Err("DRAM bandwidth 1555.2 GB/s, shared by a100-40gb, a100-40gb-pcie, a800-40gb"),
        ),
        // A100-SXM4-80GB x4: 2039.0 GB/s, the SXM parts (the PCIe 80 GB
        // cards' 1935 GB/s is further than the SXM's 2039).
        (
            "nsys2024.5.1_pipit_cloverleaf.sqlite",
            Err("DRAM bandwidth 2039.0 GB/s, shared by a100-80gb, a800-80gb"),
        ),
        // H200: 132 SMs, 60 MiB, 4916.7 GB/s, 2.4 % above the datasheet's
        // 4.8 TB/s; the GH200 144GB (132 SMs, 60 MiB, 4.9 TB/s) fits as
        // well, and neither is ruled out.
        (
            "nsys2025.1.1_nvfuser_cross-entropy-pytest.sqlite",
            Err("shared by h200, gh200-144gb"),
        ),
    ];
    for (name, want) in cases {
        let path = dir.join(name);
        let tl = rooftrace::nsys::read_timeline(&path, true, &|_, _| {})
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let mut h = export_hints(&path, &tl.info.identity.gpus, HintSource::ExportGpuTable);
        assert!(!h.device_names.is_empty(), "{name}");
        // With the name, the name decides.
        let named = choose(&RoofsChoice::FromCsv, &h, no_peaks).map(|r| r.1.key);
        h.device_names.clear();
        let got = choose(&RoofsChoice::FromCsv, &h, no_peaks);
        match (want, got) {
            (Ok(key), Ok((_, gpu))) => {
                assert_eq!(gpu.key.as_deref(), Some(*key), "{name}");
                assert_eq!(named.unwrap().as_deref(), Some(*key), "{name}");
            }
            (Err(words), Err(e)) => {
                assert!(e.to_string().contains(words), "{name}: {e}");
                assert!(named.is_ok(), "{name}");
            }
            (want, got) => panic!("{name}: want {want:?}, got {:?}", got.map(|g| g.1)),
        }
    }
}

/// `--gpu` against the file: a compute capability it cannot have is an
/// error naming the GPUs that fit; exit code 2.
#[test]
fn gpu_flag_that_contradicts_the_file_is_refused() {
    let Some(path) = corpus_file("ncu/ncu_metrics_csv_printfp_a100_sgemm.csv") else {
        return;
    };
    let (code, _, err) =
        crate::common::rooftrace(&["ncu", path.to_str().unwrap(), "--gpu", "h100-sxm"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("--gpu h100-sxm has compute capability 9.0, but"),
        "{err}"
    );
    assert!(
        err.contains("records compute capability 8.0: not the GPU it ran on"),
        "{err}"
    );
    assert!(err.contains("add --project-to h100-sxm"), "{err}");
    assert!(
        err.contains("a100-40gb, a100-40gb-pcie, a100-80gb"),
        "{err}"
    );
    // An A100 key is accepted.
    let (code, out, err) =
        crate::common::rooftrace(&["ncu", path.to_str().unwrap(), "--gpu", "a100-80gb"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("a100-80gb"), "{out}");
}

/// Issue 19: an export whose compute capability fits several GPUs (the GPP
/// file, CC 8.9: twelve of the table) exits 0 without --gpu, with every
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
    // Every CC 8.9 GPU of the table fits (the file states no SM count, L2
    // size, bus width or memory clock to narrow them): twelve, counted in
    // the words, and the first three of the table named (issue 45 item 6:
    // the closest few, never the whole list).
    let cc89: Vec<&str> = rooftrace::roofs::gpus::by_compute_capability(
        rooftrace::units::ComputeCapability::new(8, 9),
    )
    .iter()
    .map(|g| g.key)
    .collect();
    assert_eq!(cc89.len(), 12);
    assert_eq!(fits, cc89[..3]);
    assert!(v["gpu"]["chosen_by"]
        .as_str()
        .unwrap()
        .contains("shared by 12 GPUs of the table (first in the table: l4, l40s, l40)"));
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
    assert!(msg.contains("l4, l40s, l40"), "{msg}");
    // Only the GPUs that fit are named, in every format.
    let (code, text, _) = rooftrace(&["ncu", f]);
    assert_eq!(code, 0);
    for other in ["h100", "a100", "rtx5090", "v100"] {
        assert!(!text.contains(other), "{other} named:\n{text}");
        assert!(!out.contains(other), "{other} named in the JSON");
    }
    assert!(text.contains("unknown"), "{text}");
}

/// Every device name the fixtures and the corpus record, read with raw SQL
/// (nsys `TARGET_INFO_GPU.name`), `serde_json::Value` (Kineto
/// `deviceProperties[].name`) and the ncu parser (display names), fits at
/// most one row of the table's
/// device-name patterns, and the row it has always mapped to.
#[test]
fn every_recorded_device_name_maps_to_one_row() {
    use std::io::Read;
    let mut names: Vec<(String, String)> = Vec::new();
    let mut dirs = vec![crate::common::root().join("fixtures")];
    dirs.extend(corpus("."));
    for dir in dirs {
        // ncu CSVs: the names the parser reads (device__attribute_display_name).
        for e in std::fs::read_dir(dir.join("ncu"))
            .into_iter()
            .flatten()
            .flatten()
        {
            let p = e.path();
            let file = p.file_name().unwrap().to_string_lossy().into_owned();
            let Ok(f) = std::fs::File::open(&p) else {
                continue;
            };
            if let Ok(csv) = ncu::parse(f, &file) {
                names.extend(csv.device_names.into_iter().map(|n| (n, file.clone())));
            }
        }
        for sub in ["nsys", "kineto"] {
            let Ok(entries) = std::fs::read_dir(dir.join(sub)) else {
                continue;
            };
            for e in entries.flatten() {
                let p = e.path();
                let file = p.file_name().unwrap().to_string_lossy().into_owned();
                if file.ends_with(".sqlite") {
                    let uri = format!("file:{}?mode=ro", p.display());
                    let flags = rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY
                        | rusqlite::OpenFlags::SQLITE_OPEN_URI;
                    let Ok(db) = rusqlite::Connection::open_with_flags(uri, flags) else {
                        continue;
                    };
                    let Ok(mut st) = db.prepare("SELECT DISTINCT name FROM TARGET_INFO_GPU") else {
                        continue;
                    };
                    let rows = st.query_map([], |r| r.get::<_, String>(0)).unwrap();
                    names.extend(rows.flatten().map(|n| (n, file.clone())));
                } else if file.ends_with(".json.gz") {
                    let mut text = String::new();
                    let f = std::fs::File::open(&p).unwrap();
                    if flate2::read::GzDecoder::new(f)
                        .read_to_string(&mut text)
                        .is_err()
                    {
                        continue;
                    }
                    let Ok(v) = serde_json::from_str::<serde_json::Value>(&text) else {
                        continue;
                    };
                    for d in v["deviceProperties"].as_array().into_iter().flatten() {
                        if let Some(n) = d["name"].as_str() {
                            names.push((n.to_string(), file.clone()));
                        }
                    }
                }
            }
        }
    }
    // What each recorded name has mapped to since it was first read
    // (`None`: no row, e.g. the MI250's ROCm name).
    let expect = |name: &str| -> Option<&str> {
        match name {
            "NVIDIA A100-PG509-200" | "NVIDIA A100-SXM4-40GB" => Some("a100-40gb"),
            "NVIDIA A100-SXM4-80GB" => Some("a100-80gb"),
            "NVIDIA GeForce RTX 3060" => Some("rtx3060"),
            "NVIDIA GeForce RTX 3090" => Some("rtx3090"),
            "NVIDIA H200" => Some("h200"),
            "Tesla V100-SXM2-32GB" => Some("v100-32gb"),
            "NVIDIA H100 80GB HBM3" => Some("h100-sxm"),
            "NVIDIA B200" => Some("b200"),
            _ => None,
        }
    };
    assert!(names.len() >= 8, "{names:?}");
    // Each reader contributed (fixtures alone: the cloverleaf export, the
    // HTA traces, the decode CSV).
    for n in [
        "NVIDIA A100-SXM4-80GB",
        "NVIDIA A100-PG509-200",
        "NVIDIA H100 80GB HBM3",
    ] {
        assert!(names.iter().any(|(m, _)| m == n), "{n}: {names:?}");
    }
    for (name, file) in &names {
        let rows: Vec<&str> = rooftrace::roofs::gpus::rows_named(name)
            .iter()
            .map(|g| g.key)
            .collect();
        assert!(rows.len() <= 1, "{file}: {name:?} fits {rows:?}");
        assert_eq!(rows.first().copied(), expect(name), "{file}: {name:?}");
    }
}
