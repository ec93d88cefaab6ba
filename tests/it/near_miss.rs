//! Answers for near misses: an unknown key names the closest keys, never
//! the whole list (`src/suggest.rs`), on every flag that takes a key.

use crate::common::{fixture, rooftrace};

/// The words the message quotes in backticks.
fn quoted(message: &str) -> Vec<&str> {
    message.split('`').skip(1).step_by(2).collect()
}

fn some_csv() -> String {
    fixture("ncu")
        .read_dir()
        .expect("fixtures/ncu")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| p.extension().is_some_and(|x| x == "csv"))
        .expect("an ncu CSV fixture")
        .display()
        .to_string()
}

#[test]
fn gpu_h100_names_the_two_h100_cards_only() {
    let csv = some_csv();
    let (code, _, err) = rooftrace(&["ncu", &csv, "--gpu", "h100"]);
    assert_eq!(code, 2, "{err}");
    // The family: h100-sxm and h100-pcie (not h100's 50 neighbours), and
    // where the whole list is.
    assert_eq!(
        quoted(&err),
        ["h100-sxm", "h100-pcie", "rooftrace ncu --list-gpus"],
        "{err}"
    );
    // gaps checks --gpu itself, with the same answer.
    let (code, _, err) = rooftrace(&["gaps", "x.sqlite", "--gpu", "h100"]);
    assert_eq!(code, 2);
    assert_eq!(
        quoted(&err),
        ["h100-sxm", "h100-pcie", "rooftrace ncu --list-gpus"],
        "{err}"
    );
}

#[test]
fn a_typo_names_the_keys_one_edit_away_and_nothing_close_names_none() {
    let csv = some_csv();
    // h100-sxn: h100-sxm is one edit away, h800-sxm two.
    let (_, _, err) = rooftrace(&["ncu", &csv, "--gpu", "h100-sxn"]);
    assert_eq!(quoted(&err)[0], "h100-sxm", "{err}");
    assert!(!err.contains("v100"), "{err}");
    let (code, _, err) = rooftrace(&["ncu", &csv, "--gpu", "quadro"]);
    assert_eq!(code, 2);
    assert!(err.contains("keys is close"), "{err}");
    assert!(!err.contains("rtx4090"), "never the whole list: {err}");
    let (_, _, err) = rooftrace(&["ncu", &csv, "--project-to", "b20"]);
    // b20: h20, b200 and l20 are each one edit away.
    assert_eq!(quoted(&err)[..3], ["h20", "b200", "l20"], "{err}");
}

#[test]
fn a_compute_path_typo_names_its_neighbours() {
    let csv = some_csv();
    let (code, _, err) = rooftrace(&[
        "ncu",
        &csv,
        "--peak-dram-bw",
        "1TB/s",
        "--peak",
        "tensor-fp16=100TFLOP/s",
    ]);
    assert_eq!(code, 2);
    // `-` for `_`: the path itself first.
    assert_eq!(quoted(&err).get(2).copied(), Some("tensor_fp16"), "{err}");
}

#[test]
fn clap_answers_a_subcommand_or_model_typo_with_its_closest_value() {
    // clap's own suggestion (Jaro similarity), kept: one name, not a list.
    let (code, _, err) = rooftrace(&["gap", "x.sqlite"]);
    assert_eq!(code, 2);
    assert!(err.contains("a similar subcommand exists: 'gaps'"), "{err}");
    let (code, _, err) = rooftrace(&[
        "ncu",
        "x.csv",
        "--project-to",
        "h100-sxm",
        "--projection-model",
        "bound",
    ]);
    assert_eq!(code, 2);
    assert!(
        err.contains("a similar value exists: 'bound-scales'"),
        "{err}"
    );
}
