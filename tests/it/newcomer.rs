//! The small things a newcomer hit (issue 33, item 7), each checked where
//! it shows.

use crate::common::rooftrace_json;

/// The saxpy export with its GPU record rewritten to a Quadro RTX 6000
/// (compute capability 7.5, a card the table lacks), in a temporary folder.
fn quadro_export() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("quadro.sqlite");
    std::fs::copy(
        crate::common::fixture("nsys/nsys2022.2.1_pipit_saxpy-mpi-cuda.sqlite"),
        &db,
    )
    .unwrap();
    let mut perms = std::fs::metadata(&db).unwrap().permissions();
    #[allow(clippy::permissions_set_readonly_false)]
    perms.set_readonly(false);
    std::fs::set_permissions(&db, perms).unwrap();
    rusqlite::Connection::open(&db)
        .unwrap()
        .execute(
            "UPDATE TARGET_INFO_GPU SET name = 'Quadro RTX 6000', computeMajor = 7, computeMinor = 5",
            [],
        )
        .unwrap();
    (dir, db)
}

/// The table's keys of compute capability `cc`, from its own list
/// (`ncu --list-gpus`), in the order it lists them.
fn table_keys_of_cc(cc: &str) -> Vec<String> {
    let (_, list, _) = rooftrace_json(&["ncu", "--list-gpus"]);
    list.as_array()
        .or_else(|| list["gpus"].as_array())
        .unwrap()
        .iter()
        .filter(|g| g["compute_capability"] == cc)
        .map(|g| g["key"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn gaps_on_a_gpu_the_table_lacks_asks_for_gpu_naming_the_cards_of_its_compute_capability() {
    // The saxpy export with its GPU record rewritten to a Quadro RTX 6000
    // (compute capability 7.5, not in the table).
    let (_dir, db) = quadro_export();
    let (code, out, err) = crate::common::rooftrace(&["gaps", db.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let line = out.lines().find(|l| l.starts_with("host link:")).unwrap();
    assert!(
        line.contains("Quadro RTX 6000 (compute capability 7.5)"),
        "{line}"
    );
    assert!(
        !line.contains("--roofs"),
        "no roofs remedy for a host link: {line}"
    );
    // The table's 7.5 cards, from its own list (`ncu --list-gpus`).
    let turing = table_keys_of_cc("7.5");
    assert!(!turing.is_empty());
    assert!(line.contains(&turing.join(", ")), "{line} vs {turing:?}");
}

#[test]
fn a_cut_host_detail_keeps_its_closing_backtick() {
    use rooftrace::report::gaps::cut_keeping_quotes as cut;
    let h =
        "`autograd::engine::evaluate_function: EmbeddingBackward0` (inside an NVTX range, 387 µs)";
    let c = cut(h, 64);
    assert_eq!(c.chars().count(), 64, "{c}");
    assert!(c.starts_with("`autograd::"), "{c}");
    // The quote closes before the words after it, which stay whole.
    assert!(c.ends_with("` (inside an NVTX range, 387 µs)"), "{c}");
    assert_eq!(c.matches('`').count(), 2, "{c}");
    assert_eq!(cut("short", 64), "short");
}

#[test]
fn projection_rows_say_an_unknown_side_once_and_no_empty_lower_bound() {
    // The H100 decode counters: tensor FLOPs not collected, so the bounds
    // are lower bounds with no binding side, and the GEMVs' known FLOPs
    // are 0.
    let (code, out, err) = crate::common::rooftrace(&[
        "ncu",
        "fixtures/ncu/decode_h100_b1_raw_derived.csv",
        "--project-to",
        "h100-sxm",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        !out.contains("µs unknown"),
        "no `≥46.9 µs unknown` cells:\n{out}"
    );
    assert!(!out.contains("≥0.0"), "no FLOP/B ≥0.0:\n{out}");
    let gemv = out
        .lines()
        .find(|l| l.starts_with("gemv2T_kernel_val"))
        .unwrap();
    assert!(gemv.contains(" unknown "), "{gemv}");
    assert!(gemv.contains("binding side unknown"), "{gemv}");
}

#[test]
fn the_verdict_states_time_lost_as_a_bound_where_the_table_does() {
    // The decode counters lack tensor FLOPs: every row's time lost is an
    // upper bound (≤ in the table), so is the verdict's total.
    let (_, md, _) = crate::common::rooftrace(&[
        "ncu",
        "fixtures/ncu/decode_h100_b1_raw_derived.csv",
        "--format",
        "md",
    ]);
    let verdict = md.lines().next().unwrap();
    assert!(md.contains("| ≤"), "{md}");
    assert!(verdict.contains("; at most "), "{verdict}");
    // Every ncu fixture: the verdict says "at most" exactly when some
    // row's time lost is printed with ≤.
    let mut both = [false, false];
    for e in std::fs::read_dir(crate::common::fixture("ncu")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_none_or(|x| x != "csv") {
            continue;
        }
        let (code, md, _) =
            crate::common::rooftrace(&["ncu", p.to_str().unwrap(), "--format", "md"]);
        if code != 0 {
            continue;
        }
        let bounded = md.lines().any(|l| l.starts_with('|') && l.contains("| ≤"));
        let verdict = md.lines().next().unwrap();
        assert_eq!(
            verdict.contains("; at most "),
            bounded,
            "{}: {verdict}",
            p.display()
        );
        both[usize::from(bounded)] = true;
    }
    assert_eq!(both, [true, true], "fixtures of both kinds");
}

#[test]
fn the_projection_plot_says_how_many_kernels_it_does_not_draw() {
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("p.svg");
    let (code, table, err) = crate::common::rooftrace(&[
        "ncu",
        "fixtures/ncu/decode_h100_b1_raw_derived.csv",
        "--project-to",
        "h200",
        "--plot",
        svg.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    // The rows with no point: FLOP/B `unknown` in the table (their known
    // FLOPs are 0), out of the table's rows.
    let rows: Vec<&str> = table
        .lines()
        .skip_while(|l| !l.starts_with("kernel "))
        .skip(2)
        .take_while(|l| !l.trim().is_empty())
        .collect();
    let unknown = rows.iter().filter(|l| l.contains("  unknown  ")).count();
    assert!(unknown > 0);
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(
        text.contains(&format!("{unknown} of {} not drawn", rows.len())),
        "{unknown} of {}",
        rows.len()
    );
}

#[test]
fn a_gpu_flag_the_file_rules_out_names_the_cards_of_its_compute_capability() {
    // The saxpy export recorded on a Quadro RTX 6000 (compute capability
    // 7.5, not in the table) with `--gpu rtx-a6000` (8.6): refused, and the
    // answer names the table's 7.5 cards (from its own list) instead of an
    // empty "Pick one that fits ()".
    let (_dir, db) = quadro_export();
    let (code, _, err) =
        crate::common::rooftrace(&["gaps", db.to_str().unwrap(), "--gpu", "rtx-a6000"]);
    assert_eq!(code, 2, "{err}");
    assert!(!err.contains("()"), "{err}");
    let turing = table_keys_of_cc("7.5");
    assert!(!turing.is_empty());
    assert!(
        err.contains(&format!(
            "its cards of that compute capability: {}",
            turing.join(", ")
        )),
        "{err} vs {turing:?}"
    );
}
