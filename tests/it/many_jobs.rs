//! Inputs of different jobs in one run (issue 45 item 4), on corpus
//! traces: grouped by GPU and world size into one section per job in every
//! format; a rank claimed twice within one group told apart by directory,
//! else refused naming each group's files (exit 2); the files a directory
//! held that are no input listed in the report too.
//!
//! The facts each trace records (its `distributedInfo` and
//! `deviceProperties`, read with `zcat | python3 -m json.tool`):
//! `kineto_hta_nccl_allreduce_rank0`: rank 0, world size 2, A100-PG509-200
//! (the table's a100-40gb); `kineto_hta_v100_2rank_rank1`: rank 1, world
//! size 2, Tesla V100-SXM2-32GB; `kineto_hta_cuda_event_sync` and
//! `kineto_hta_simple_add`: rank 0, no world size, A100-PG509-200.

use crate::common::{corpus_file, rooftrace, rooftrace_json};
use std::path::Path;

/// Copies the corpus files `rels` into `dir` (created).
fn copy_into(dir: &Path, rels: &[&str]) -> Option<()> {
    std::fs::create_dir_all(dir).unwrap();
    for rel in rels {
        let src = corpus_file(rel)?;
        std::fs::copy(&src, dir.join(src.file_name().unwrap())).unwrap();
    }
    Some(())
}

const A100_WORLD2: &str = "kineto/kineto_hta_nccl_allreduce_rank0.json.gz";
const V100_WORLD2: &str = "kineto/kineto_hta_v100_2rank_rank1.json.gz";
const A100_RANK0_A: &str = "kineto/kineto_hta_cuda_event_sync.json.gz";
const A100_RANK0_B: &str = "kineto/kineto_hta_simple_add.json.gz";

/// An A100 trace and a V100 trace of two 2-rank jobs in one directory: two
/// sections, each with its own file, in JSON, CSV (a `job` column), table
/// and Markdown; a `.log` beside them is listed as skipped in the JSON and
/// the table.
#[test]
fn an_a100_trace_and_a_v100_trace_are_two_jobs_in_every_format() {
    let tmp = tempfile::tempdir().unwrap();
    if copy_into(tmp.path(), &[A100_WORLD2, V100_WORLD2]).is_none() {
        return;
    }
    std::fs::write(tmp.path().join("notes.log"), "not a trace\n").unwrap();
    let dir = tmp.path().to_str().unwrap();
    let (code, json, err) = rooftrace_json(&["gaps", dir]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(json["schema"], "rooftrace.multi-gaps-jobs/1");
    let jobs = json["jobs"].as_array().unwrap();
    assert_eq!(jobs.len(), 2);
    // Sections in key order: a100-40gb before v100-32gb.
    assert_eq!(jobs[0]["gpu"], "a100-40gb");
    assert_eq!(jobs[1]["gpu"], "v100-32gb");
    for (job, file) in jobs.iter().zip([A100_WORLD2, V100_WORLD2]) {
        assert_eq!(job["world_size"], 2);
        assert!(job["directory"].is_null());
        let names = job["input_names"].as_array().unwrap();
        assert_eq!(names.len(), 1);
        let base = Path::new(file).file_name().unwrap().to_str().unwrap();
        assert!(names[0].as_str().unwrap().ends_with(base), "{names:?}");
        // Each job's report covers its own input only.
        assert_eq!(job["report"]["schema"], "rooftrace.multi-gaps/1");
        assert_eq!(job["report"]["ranks"].as_array().unwrap().len(), 1);
    }
    let skipped = json["skipped"].as_array().unwrap();
    assert_eq!(skipped.len(), 1);
    assert!(skipped[0].as_str().unwrap().ends_with("notes.log"));

    let (code, csv, err) = rooftrace(&["gaps", dir, "--format", "csv"]);
    assert_eq!(code, 0, "{err}");
    let mut lines = csv.lines();
    assert!(lines.next().unwrap().starts_with("job,input,host,rank,"));
    for line in lines {
        let want = if line.contains("allreduce_rank0") {
            "1,"
        } else {
            "2,"
        };
        assert!(line.starts_with(want), "{line}");
    }

    let (code, table, err) = rooftrace(&["gaps", dir]);
    assert_eq!(code, 0, "{err}");
    assert!(table.contains("== job 1 of 2: GPU a100-40gb, world size 2 (1 inputs) =="));
    assert!(table.contains("== job 2 of 2: GPU v100-32gb, world size 2 (1 inputs) =="));
    assert!(table.contains("1 files skipped"), "{table}");
    let (code, md, err) = rooftrace(&["gaps", dir, "--format", "md"]);
    assert_eq!(code, 0, "{err}");
    assert!(md.contains("## job 2 of 2: GPU v100-32gb, world size 2"));
}

/// Two "rank 0" A100 traces with no world size in one directory: nothing
/// recorded says which ranks ran together, so the run is refused (exit 2)
/// with one line naming both files, the rank and what to do.
#[test]
fn two_rank_0s_of_one_gpu_in_one_directory_are_refused_naming_them() {
    let tmp = tempfile::tempdir().unwrap();
    if copy_into(tmp.path(), &[A100_RANK0_A, A100_RANK0_B]).is_none() {
        return;
    }
    let (code, out, err) = rooftrace(&["gaps", tmp.path().to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(out.is_empty(), "{out}");
    for want in [
        "these 2 inputs are of more than one job",
        "GPU a100-40gb, world size unknown in",
        "rank 0 in ",
        "kineto_hta_cuda_event_sync.json.gz",
        "kineto_hta_simple_add.json.gz",
        "give each job's files in a run of its own",
        "--rank-from REGEX",
    ] {
        assert!(err.contains(want), "no `{want}` in {err}");
    }
    assert_eq!(err.lines().count(), 1, "{err}");
}

/// The same two "rank 0" traces in two run directories: the directory
/// tells the jobs apart, one section each.
#[test]
fn two_rank_0s_in_two_directories_are_two_jobs() {
    let tmp = tempfile::tempdir().unwrap();
    let (run1, run2) = (tmp.path().join("run1"), tmp.path().join("run2"));
    if copy_into(&run1, &[A100_RANK0_A]).is_none() || copy_into(&run2, &[A100_RANK0_B]).is_none() {
        return;
    }
    let (code, json, err) =
        rooftrace_json(&["gaps", run1.to_str().unwrap(), run2.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let jobs = json["jobs"].as_array().unwrap();
    assert_eq!(jobs.len(), 2);
    for (job, dir) in jobs.iter().zip([&run1, &run2]) {
        assert_eq!(job["gpu"], "a100-40gb");
        assert!(job["world_size"].is_null());
        assert_eq!(job["directory"], dir.to_str().unwrap());
        assert_eq!(job["input_names"].as_array().unwrap().len(), 1);
    }
}

/// Ranks 0 and 1 of one job (HTA's sampled traces, world size 128): the
/// one-job report as before, with an empty `skipped`.
#[test]
fn two_ranks_of_one_job_give_the_one_job_report() {
    let tmp = tempfile::tempdir().unwrap();
    if copy_into(
        tmp.path(),
        &[
            "kineto/kineto_hta_sampled_rank-0.json.gz",
            "kineto/kineto_hta_sampled_rank-1.json.gz",
        ],
    )
    .is_none()
    {
        return;
    }
    let (code, json, err) = rooftrace_json(&["gaps", tmp.path().to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(json["schema"], "rooftrace.multi-gaps/1");
    assert_eq!(json["ranks"].as_array().unwrap().len(), 2);
    assert_eq!(json["skipped"].as_array().unwrap().len(), 0);
}

/// `ncu DIR` with a CSV written to a `.log`: the JSON lists it under
/// `skipped` (the stderr note is `newcomer_jobs`' test).
#[test]
fn ncu_dir_lists_the_skipped_log_in_its_json() {
    let tmp = tempfile::tempdir().unwrap();
    if copy_into(
        tmp.path(),
        &[
            "ncu/ncu_metrics_csv_printfp_a100_sgemm.csv",
            "ncu/ncu2024.2_metrics_csv_gpp_clean.csv",
            "ncu/ncu_roofline_section_rule_row_only_leleucas_conv2d_a100.log",
        ],
    )
    .is_none()
    {
        return;
    }
    let (code, json, err) = rooftrace_json(&["ncu", tmp.path().to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(json["schema"], "rooftrace.multi-ncu/1");
    let skipped = json["skipped"].as_array().unwrap();
    assert_eq!(skipped.len(), 1, "{skipped:?}");
    assert!(skipped[0]
        .as_str()
        .unwrap()
        .ends_with("ncu_roofline_section_rule_row_only_leleucas_conv2d_a100.log"));
}

/// `--one-job`: the same two "rank 0" traces summed as ranks of one job,
/// as before issue 45 (the user's word over the recorded facts).
#[test]
fn one_job_sums_them_whatever_they_record() {
    let tmp = tempfile::tempdir().unwrap();
    if copy_into(tmp.path(), &[A100_RANK0_A, A100_RANK0_B]).is_none() {
        return;
    }
    let (code, json, err) = rooftrace_json(&["gaps", tmp.path().to_str().unwrap(), "--one-job"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(json["schema"], "rooftrace.multi-gaps/1");
    assert_eq!(json["ranks"].as_array().unwrap().len(), 2);
}

/// The many-input tables print no `?`: an unknown cell says `unknown` with
/// a line under its table saying why, and a column no input knows is left
/// out. Two ncu CSVs with no GPU decided (CC 8.0 and 8.9 only) and no rank
/// in their names: no rank column; fractions of roof `unknown`, with why.
/// HTA's two sampled traces record no host name: no host column.
#[test]
fn many_input_tables_say_unknown_with_why_and_drop_empty_columns() {
    let tmp = tempfile::tempdir().unwrap();
    let ncu = tmp.path().join("ncu");
    if copy_into(
        &ncu,
        &[
            "ncu/ncu_metrics_csv_printfp_a100_sgemm.csv",
            "ncu/ncu2024.2_metrics_csv_gpp_clean.csv",
        ],
    )
    .is_none()
    {
        return;
    }
    let (code, table, err) = rooftrace(&["ncu", ncu.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(!table.contains(" ? ") && !table.contains(" ?\n"), "{table}");
    let inputs_header = table.lines().find(|l| l.contains("input")).unwrap();
    assert!(!inputs_header.contains("rank"), "{inputs_header}");
    assert!(
        table.contains("time lost unknown: no GPU decided"),
        "{table}"
    );
    assert!(
        table.contains("of roof unknown: no input with this kernel"),
        "{table}"
    );

    let traces = tmp.path().join("traces");
    if copy_into(
        &traces,
        &[
            "kineto/kineto_hta_sampled_rank-0.json.gz",
            "kineto/kineto_hta_sampled_rank-1.json.gz",
        ],
    )
    .is_none()
    {
        return;
    }
    let (code, table, err) = rooftrace(&["gaps", traces.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let ranks_header = table.lines().find(|l| l.starts_with("rank ")).unwrap();
    assert!(!ranks_header.contains("host"), "{ranks_header}");
    assert!(!table.contains(" ? "), "{table}");
}
