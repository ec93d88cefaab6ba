//! Issue 45 item 6: the GPU from the file's own facts. The facts
//! `roofs::check` compares when `--gpu` is given (the DRAM peak a
//! throughput percentage implies, ncu's own peaks, a memory clock of
//! another card) also rule candidates out when no GPU is given; a file
//! that states nothing names no candidates (it listed all 52 keys, twice).
//!
//! Over the corpus's ncu files: none is decided (each states its compute
//! capability at most, and no fact narrows a CC to one GPU: 0 of the 6
//! that `ncu` analyses, as before), but three are narrowed (the BF16 GEMM
//! from 6 CC 12.0 cards to 2, the V100 hotspot and the A100 interpolate
//! files, which state no CC, from 52 to 38 and 17), and every candidate
//! list holds the GPU the file's provenance names.

use crate::common::{corpus, rooftrace_json};

/// The table key family the provenance's GPU belongs to, by the words
/// its `.src.txt` uses (`A100 80GB` → `a100-80gb`), or `None` when it names
/// no GPU.
fn provenance_gpu(src: &str) -> Option<&'static str> {
    if src.contains("A100 80GB") {
        Some("a100-80gb")
    } else if src.contains("A100") {
        Some("a100")
    } else if src.contains("V100") {
        Some("v100")
    } else if src.contains("B200") {
        Some("b200")
    } else {
        None
    }
}

#[test]
fn corpus_ncu_files_are_narrowed_by_their_facts_and_keep_their_gpu() {
    let Some(dir) = corpus("ncu") else { return };
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| !p.to_string_lossy().ends_with(".src.txt"))
        .collect();
    files.sort();
    let (mut analysed, mut decided) = (0, 0);
    let mut candidates_of = std::collections::BTreeMap::new();
    for f in &files {
        let (code, j, _) = rooftrace_json(&["ncu", f.to_str().unwrap()]);
        if code != 0 {
            continue;
        }
        analysed += 1;
        let name = f.file_name().unwrap().to_string_lossy().to_string();
        let gpu = &j["gpu"];
        let keys: Vec<String> = match gpu["key"].as_str() {
            Some(k) => {
                decided += 1;
                vec![k.to_string()]
            }
            None => gpu["candidates"]
                .as_array()
                .map(|a| a.iter().map(|k| k.as_str().unwrap().to_string()).collect())
                .unwrap_or_default(),
        };
        assert!(keys.len() < 52, "{name}: every key of the table: {keys:?}");
        let src = std::fs::read_to_string(format!("{}.src.txt", f.display())).unwrap();
        if let (Some(family), false) = (provenance_gpu(&src), keys.is_empty()) {
            assert!(
                keys.iter().any(|k| k.starts_with(family)),
                "{name}: the provenance's {family} is not among {keys:?}"
            );
        }
        candidates_of.insert(name, keys);
    }
    assert_eq!((analysed, decided), (6, 0), "{candidates_of:#?}");
    // The BF16 GEMM: CC 12.0, 17.50 MB read in 111.81 µs at 8.87 % of the
    // DRAM peak: a peak of at least 17.50e6 / 111.81e-6 / 0.0887 = 1764.5
    // GB/s. Of the table's six CC 12.0 cards only the RTX 5090 and the RTX
    // PRO 6000 (1792 GB/s each) come within the 10 % a peak may stray; the
    // 5080 (960), 5070 Ti (896), 5070 (672) and 5060 Ti (448) do not.
    assert_eq!(
        candidates_of["ncu2025.1_import_metrics_csv_llm_bf16_gemm.csv"],
        ["rtx5090", "rtx-pro-6000"]
    );
    // The BERT file states nothing about its device: no list of 52.
    assert_eq!(
        candidates_of["ncu2021.2_sections_metrics_rules_csv_leleucas_bert_flashattn_a100.csv"],
        Vec::<String>::new()
    );
}
