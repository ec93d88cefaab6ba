//! Renderer of a `gaps` run over the inputs of several jobs
//! ([`MultiJobGapReport`]): a heading per job naming what its inputs share,
//! then that job's report as a run of its files alone shows it; the failed
//! and skipped files once, at the end. JSON is the whole report; CSV each
//! job's rows with the job's number in front.

use super::many_inputs::{gaps_tables, gaps_verdict, json, sections, Ends};
use super::{Format, Render, RenderOptions};
use crate::many_inputs::jobs::{JobSection, MultiJobGapReport};

impl Render for MultiJobGapReport {
    /// One section per job: its key and files, then its report as a run of
    /// its files alone shows it; the failed and skipped files once, at the
    /// end. CSV: each job's rows with the job's number in front.
    fn render(&self, format: Format, opts: &RenderOptions) -> Vec<u8> {
        match format {
            Format::Json => json(self),
            Format::Csv => jobs_csv(self, opts),
            Format::Table | Format::Markdown => {
                let md = format == Format::Markdown;
                let mut out = if md {
                    format!("**{}**\n\n", jobs_verdict(self))
                } else {
                    format!("{}\n\n", jobs_verdict(self))
                };
                for j in &self.jobs {
                    let title = job_title(j, self.jobs.len());
                    let tables = gaps_tables(&j.report, opts.top);
                    let body = sections(String::new(), tables, j.report.ends(), md);
                    if md {
                        out.push_str(&format!(
                            "## {title}\n\n**{}**\n\n{body}\n",
                            gaps_verdict(&j.report)
                        ));
                    } else {
                        out.push_str(&format!(
                            "== {title} ==\n{}\n\n{body}\n",
                            gaps_verdict(&j.report)
                        ));
                    }
                }
                let ends = Ends {
                    failures: &self.failures,
                    skipped: &self.skipped,
                };
                out.push_str(&sections(String::new(), Vec::new(), ends, md));
                out.into_bytes()
            }
        }
    }
}

/// Each job's CSV ([`tagged_csv`]: `input,host,rank` and the input's
/// single-input rows) with `job` in front of every row; one header.
fn jobs_csv(r: &MultiJobGapReport, opts: &RenderOptions) -> Vec<u8> {
    let mut w = csv::Writer::from_writer(Vec::new());
    let mut wrote_header = false;
    for j in &r.jobs {
        let bytes = j.report.render(Format::Csv, opts);
        let mut rd = csv::ReaderBuilder::new()
            .has_headers(true)
            .from_reader(bytes.as_slice());
        if !wrote_header {
            if let Ok(h) = rd.headers() {
                let mut head = vec!["job"];
                head.extend(h.iter());
                let _ = w.write_record(&head);
                wrote_header = true;
            }
        }
        let job = j.job.to_string();
        for rec in rd.records().flatten() {
            let mut row = vec![job.as_str()];
            row.extend(rec.iter());
            let _ = w.write_record(&row);
        }
    }
    w.into_inner().unwrap_or_default()
}

/// `job 1 of 3: GPU a100-40gb, world size 2 (2 inputs)`, and the directory
/// when it told the job apart.
fn job_title(j: &JobSection, of: usize) -> String {
    let dir = j
        .directory
        .as_deref()
        .map(|d| format!(", in {d}"))
        .unwrap_or_default();
    format!(
        "job {} of {of}: {}{dir} ({} inputs)",
        j.job,
        j.key.words(),
        j.input_names.len()
    )
}

/// One line: how many jobs, told apart by what, and the failures.
fn jobs_verdict(r: &MultiJobGapReport) -> String {
    let inputs: usize = r.jobs.iter().map(|j| j.input_names.len()).sum();
    let mut s = format!(
        "{inputs} inputs of {} jobs (told apart by GPU and world size, then directory where one rank is claimed twice); each job is summarised alone",
        r.jobs.len()
    );
    if !r.failures.is_empty() {
        s.push_str(&format!("; {} inputs failed", r.failures.len()));
    }
    s
}
