//! Kernel labels on a real file: two different kernels never print the
//! same, one kernel always prints the same, in the table, JSON and plot.

use crate::common::{corpus_file, rooftrace};
use std::collections::BTreeMap;

const BERT: &str = "ncu/ncu2021.2_sections_metrics_rules_csv_leleucas_bert_flashattn_a100.csv";

#[test]
fn labels_are_unique_per_kernel_on_a_real_pytorch_profile() {
    let Some(path) = corpus_file(BERT) else {
        return;
    };
    // Ten launches of seven kernels: four `distribution_elementwise_grid_
    // stride_kernel` instantiations (uniform and normal transforms), two
    // CUTLASS wmma GEMMs that differ only in their tile (32x32_128x2 vs
    // 16x16_128x1), FMHA, split-K reduce, arange.
    let (code, out, err) = rooftrace(&[
        "ncu",
        path.to_str().unwrap(),
        "--gpu",
        "a100-80gb",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let mut by_label: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for k in v["kernels"].as_array().unwrap() {
        let label = k["label"].as_str().unwrap().to_string();
        assert!(label.chars().count() <= 36, "{label}");
        let names = by_label.entry(label).or_default();
        let name = k["name"].as_str().unwrap().to_string();
        if !names.contains(&name) {
            names.push(name);
        }
    }
    for (label, names) in &by_label {
        assert_eq!(names.len(), 1, "{label} stands for {names:#?}");
    }
    // Seven distinct kernels, seven labels; the two GEMMs show their tiles.
    assert_eq!(by_label.len(), 7, "{:?}", by_label.keys());
    assert!(by_label.contains_key("Kernel<cutlass_80_wmma_…2_tn_align8>"));
    assert!(by_label.contains_key("Kernel<cutlass_80_wmma_…1_tn_align8>"));
    // The table prints the labels, not the cut names.
    let (_, table, _) = rooftrace(&["ncu", path.to_str().unwrap(), "--gpu", "a100-80gb"]);
    assert!(
        table.contains("Kernel<cutlass_80_wmma_…2_tn_align8>"),
        "{table}"
    );
}
