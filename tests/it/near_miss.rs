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
    let peak = |path: &str| {
        rooftrace(&[
            "ncu",
            &csv,
            "--peak-dram-bw",
            "1TB/s",
            "--peak",
            &format!("{path}=100TFLOP/s"),
        ])
    };
    // Nothing close: where the list is, not the ten paths.
    let (code, _, err) = peak("zzz");
    assert_eq!(code, 2);
    assert!(
        err.contains("none of the 10 compute paths is close"),
        "{err}"
    );
    assert!(!err.contains("tensor_fp8"), "never the whole list: {err}");
    // `tensor`: seven paths extend it (fp64, tf32, fp16, bf16, fp8, int8,
    // fp4); four named, the other three counted.
    let (_, _, err) = peak("tensor");
    assert_eq!(quoted(&err).len(), 2 + 4, "{err}");
    assert!(err.contains("or one of 3 more?"), "{err}");
}

#[test]
fn a_subcommand_or_model_typo_names_its_closest_value_never_the_list() {
    // clap said "a similar subcommand exists: 'gaps'" here: kept as one
    // name, in our words.
    let (code, _, err) = rooftrace(&["gapz", "x.sqlite"]);
    assert_eq!(code, 2);
    assert_eq!(quoted(&err), ["gaps"], "{err}");
    // clap said nothing for `roof`: where the list is, not the list.
    let (code, _, err) = rooftrace(&["roof", "x.csv"]);
    assert_eq!(code, 2);
    // Counted from the command, so a new subcommand changes no test.
    let n = <rooftrace::cli::Cli as clap::CommandFactory>::command()
        .get_subcommands()
        .filter(|c| c.get_name() != "help")
        .count();
    assert!(
        err.contains(&format!("none of rooftrace's {n} subcommands is close")),
        "{err}"
    );
    assert_eq!(quoted(&err), ["rooftrace --help"], "{err}");
    // clap listed all four models for `h10`; `bound` and `same` name their
    // family only.
    let model = |m: &str| {
        rooftrace(&[
            "ncu",
            "x.csv",
            "--project-to",
            "h100-sxm",
            "--projection-model",
            m,
        ])
    };
    let (code, _, err) = model("h10");
    assert_eq!(code, 2);
    assert!(err.contains("none of its 4 values is close"), "{err}");
    assert!(!err.contains("same-time"), "never the whole list: {err}");
    let (_, _, err) = model("bound");
    assert_eq!(quoted(&err), ["bound-scales"], "{err}");
    let (_, _, err) = model("same");
    assert_eq!(quoted(&err), ["same-fraction", "same-time"], "{err}");
    // A typo one edit away.
    let (_, _, err) = model("same-tme");
    assert_eq!(quoted(&err), ["same-time"], "{err}");
}
