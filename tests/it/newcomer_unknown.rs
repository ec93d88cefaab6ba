//! Issue 45 item 1: unknown is unknown in every path. With no GPU decided
//! a report has no roofs, so no roofline time T*, no fraction of the roof
//! and no time lost: `rooftrace ncu DIR` printed 0 % of roof and each
//! kernel's whole time as lost (T* = 0), where one file alone says
//! unknown. A rate-only file (ncu's roofline section exported alone: its
//! rows hold a placeholder second for their time) had its plot labels read
//! "(896 ms lost)" where the table and JSON say unknown.

use crate::common::{corpus_file, fixture, rooftrace, rooftrace_json};
use serde_json::Value;

/// A rate-only file, constructed from ncu's roofline section (rates, no
/// durations); its provenance is in fixtures/README.md.
const RATES: &str = "ncu/gpp_roofline_chart_rates_only_constructed.csv";

/// Two corpus CSVs in a temporary folder, for `rooftrace ncu DIR`.
fn two_inputs() -> Option<tempfile::TempDir> {
    let dir = tempfile::tempdir().unwrap();
    for rel in [
        "ncu/ncu2024.2_metrics_csv_gpp_clean.csv",
        "ncu/ncu2025.1_import_metrics_csv_llm_bf16_gemm.csv",
    ] {
        let src = corpus_file(rel)?;
        let name = src.file_name().unwrap().to_owned();
        std::fs::copy(&src, dir.path().join(name)).unwrap();
    }
    Some(dir)
}

/// Whether a single-input report inside the many-input JSON has no roofs.
fn roofless(report: &Value) -> bool {
    let roofs = &report["roofs"];
    let empty = |k: &str| roofs[k].as_object().is_none_or(|m| m.is_empty());
    empty("memory") && empty("compute")
}

/// Every input without roofs shows its roof-dependent figures as `null`
/// in the many-input JSON (as the single-input JSON does), and each kernel
/// across inputs found only in such inputs has a known time (the sum of
/// its rows' times) but no T*, fraction or time lost; the table says
/// "unknown" where it said "≥ 0.0 %" and the whole time as lost.
#[test]
fn many_ncu_inputs_without_a_gpu_show_no_roof_as_unknown_not_zero() {
    let Some(dir) = two_inputs() else { return };
    let d = dir.path().to_str().unwrap();
    let (code, j, err) = rooftrace_json(&["ncu", d]);
    assert_eq!(code, 0, "{err}");
    let inputs = j["inputs"].as_array().unwrap();
    let without: Vec<&Value> = inputs
        .iter()
        .map(|i| &i["report"])
        .filter(|r| roofless(r))
        .collect();
    assert!(!without.is_empty(), "an input with no GPU decided: {j:#}");
    let mut roofless_names = std::collections::BTreeMap::new();
    for r in &without {
        assert!(r["total_time_lost_ns"].is_null(), "{r:#}");
        for k in r["kernels"].as_array().unwrap() {
            for f in ["bound_time_ns", "fraction_of_roof", "time_lost_ns"] {
                assert!(k[f].is_null(), "{f} of {}: {}", k["name"], k[f]);
            }
            let t = k["duration_ns"].as_f64().unwrap();
            *roofless_names
                .entry(k["name"].as_str().unwrap().to_string())
                .or_insert(0.0) += t;
        }
    }
    for k in j["kernels"].as_array().unwrap() {
        let Some(t) = roofless_names.get(k["name"].as_str().unwrap()) else {
            continue;
        };
        assert_eq!(k["duration_ns"].as_f64(), Some(*t), "{k:#}");
        for f in ["bound_time_ns", "fraction_of_roof", "time_lost_ns"] {
            assert!(k[f].is_null(), "{f}: {k:#}");
        }
    }
    let (code, table, err) = rooftrace(&["ncu", d]);
    assert_eq!(code, 0, "{err}");
    assert!(!table.contains("0.0 %"), "{table}");
    assert!(table.contains("unknown"), "{table}");
}

/// The rate-only file's plot labels no kernel with a time lost: its rows
/// have rates but no time, so the "(… lost)" figure it showed was 1 s less
/// the placeholder's T*.
#[test]
fn a_rate_only_roofline_plot_labels_no_time_lost() {
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("rates.svg");
    let rates = fixture(RATES);
    let (code, _, err) = rooftrace(&[
        "ncu",
        rates.to_str().unwrap(),
        "--roofs",
        "ncu",
        "--plot",
        svg.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.contains("<circle"), "a point is drawn: {text}");
    assert!(!text.contains(" lost)"), "no time lost is known: {text}");
}

/// The V100 hotspot file (no FLOP counters) on the V100's roofs: no point
/// can be drawn, and the subtitle says so (it read "0 kernels, marker area
/// ∝ time, top 0 by time lost labelled"); the caption names the reason.
#[test]
fn a_roofline_with_nothing_drawable_says_so() {
    let Some(log) =
        crate::common::corpus_file("ncu/ncu2019.5_details_csv_rodinia_hotspot_single_kernel.log")
    else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("v100.svg");
    let (code, _, err) = rooftrace(&[
        "ncu",
        log.to_str().unwrap(),
        "--gpu",
        "v100",
        "--plot",
        svg.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.contains("no kernel can be drawn"), "{text}");
    assert!(!text.contains("0 kernels"), "{text}");
    assert!(!text.contains("top 0 by time lost"), "{text}");
    assert!(
        text.contains("1 of 1 kernels not drawn: no FLOP counters"),
        "{text}"
    );
}
