//! Issue 45 item 4: no silent merges. `rooftrace gaps DIR` of unrelated
//! jobs (two "rank 0" on different A100s) said nothing while its tables
//! compared them as ranks of one job; `rooftrace ncu DIR` skipped the
//! `.log` files ncu had written its CSVs to without a word.

use crate::common::{corpus_file, rooftrace};

/// Copies the corpus files `rels` into a new temporary folder.
fn folder_of(rels: &[&str]) -> Option<tempfile::TempDir> {
    let dir = tempfile::tempdir().unwrap();
    for rel in rels {
        let src = corpus_file(rel)?;
        std::fs::copy(&src, dir.path().join(src.file_name().unwrap())).unwrap();
    }
    Some(dir)
}

/// The saxpy export (rank 0 of an MPI run on an A100 40 GB) and the
/// CloverLeaf one (rank 0 on an A100 80 GB; their `.src.txt`): two jobs by
/// their GPUs, so one section each, and a line on stderr saying so (they
/// were summed as ranks of one job).
#[test]
fn gaps_of_unrelated_jobs_shows_a_section_per_job() {
    let Some(dir) = folder_of(&[
        "nsys/nsys2022.2.1_pipit_saxpy-mpi-cuda.sqlite",
        "nsys/nsys2024.5.1_pipit_cloverleaf.sqlite",
    ]) else {
        return;
    };
    let (code, out, err) = rooftrace(&["gaps", dir.path().to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("these 2 inputs are of 2 jobs (by GPU and world size"),
        "{err}"
    );
    for want in [
        "== job 1 of 2: GPU a100-40gb, world size unknown (1 inputs) ==",
        "== job 2 of 2: GPU a100-80gb, world size unknown (1 inputs) ==",
    ] {
        assert!(out.contains(want), "no `{want}` in {out}");
    }
}

/// Two ranks of one job (HTA's sampled traces, ranks 0 and 1, no GPU
/// record): no such line.
#[test]
fn gaps_of_two_ranks_of_one_job_says_nothing_of_jobs() {
    let Some(dir) = folder_of(&[
        "kineto/kineto_hta_sampled_rank-0.json.gz",
        "kineto/kineto_hta_sampled_rank-1.json.gz",
    ]) else {
        return;
    };
    let (code, _, err) = rooftrace(&["gaps", dir.path().to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("jobs"), "{err}");
}

/// A folder with an ncu CSV and an ncu CSV written to a `.log`: the `.log`
/// is named as skipped, with how to read it, and its provenance note
/// (`.src.txt`) is not.
#[test]
fn ncu_dir_names_the_files_it_skipped() {
    let Some(dir) = folder_of(&[
        "ncu/ncu_metrics_csv_printfp_a100_sgemm.csv",
        "ncu/ncu2020.3_metrics_csv_app_traceback_error_then_csv_leleucas_interpolate_a100.log",
        "ncu/ncu2020.3_metrics_csv_app_traceback_error_then_csv_leleucas_interpolate_a100.log.src.txt",
    ]) else {
        return;
    };
    let (code, _, err) = rooftrace(&["ncu", dir.path().to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let line = err
        .lines()
        .find(|l| l.starts_with("skipped "))
        .unwrap_or_else(|| panic!("no skipped line in {err}"));
    assert!(
        line.starts_with("skipped 1 file(s) that are not .csv or .ncu-rep"),
        "{line}"
    );
    assert!(line.contains("interpolate_a100.log"), "{line}");
    assert!(!line.contains(".src.txt"), "{line}");
    assert!(line.contains("give a file by name"), "{line}");
}

/// `-o` and `--plot` into a directory that does not exist: exit 2 and one
/// line naming the directory and how to make it (it was exit 1 with
/// "creating a temporary file beside …"); nothing is created.
#[test]
fn output_into_a_missing_directory_is_bad_input_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no-such-dir");
    let csv = crate::common::fixture("ncu/gpp_ncu2024.2_details15.csv");
    for (flag, file) in [("-o", "report.json"), ("--plot", "roofline.svg")] {
        let target = missing.join(file);
        let (code, _, err) = rooftrace(&[
            "ncu",
            csv.to_str().unwrap(),
            "--gpu",
            "rtx4090",
            flag,
            target.to_str().unwrap(),
        ]);
        assert_eq!(code, 2, "{flag}: {err}");
        let want = format!("the directory {} does not exist", missing.display());
        assert!(err.contains(&want), "{flag}: {err}");
        assert!(err.contains("mkdir -p"), "{flag}: {err}");
        assert!(!missing.exists());
    }
}
