//! The GitHub Action's script (`action/diff_gate.py`), run as action.yml
//! runs it: the `GITHUB_*` variables set, the binary under test as
//! `rooftrace` and a fake `gh` on PATH that keeps the pull request's
//! comments in a JSON file and pages them two at a time, as the REST API
//! does with `per_page=2` (so a lookup that reads only the first page
//! misses the comment). The first run creates the marked comment, the
//! second updates the same one, a regression exits 3 after the comment is
//! written.

use super::common::{require_python3, root};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The fake `gh api`: GET (with `--paginate`: every page, each printed as
/// its own JSON array, as gh does), POST and PATCH of issue comments.
/// Every call is appended to `$FAKE_GH_LOG`.
const FAKE_GH: &str = r#"#!/usr/bin/env python3
import json, os, re, sys
args = sys.argv[1:]
with open(os.environ["FAKE_GH_LOG"], "a") as log:
    log.write(" ".join(args) + "\n")
assert args[0] == "api", args
assert os.environ.get("GH_TOKEN"), "no GH_TOKEN"
method, path, paginate, body = "GET", None, False, None
i = 1
while i < len(args):
    a = args[i]
    if a == "-X":
        method = args[i + 1]; i += 2; continue
    if a == "--paginate":
        paginate = True
    elif a == "--input":
        body = json.load(open(args[i + 1])); i += 2; continue
    else:
        path = a
    i += 1
state_file = os.environ["FAKE_GH_STATE"]
state = json.load(open(state_file))
m = re.fullmatch(r"repos/([^/]+/[^/]+)/issues/(\d+)/comments", path or "")
if method == "GET" and m:
    mine = [c for c in state["comments"] if c["issue"] == int(m.group(2))]
    pages = [mine[k:k + 2] for k in range(0, len(mine), 2)] or [[]]
    for page in (pages if paginate else pages[:1]):
        sys.stdout.write(json.dumps(page))
elif method == "POST" and m:
    state["next_id"] += 1
    c = {"id": state["next_id"], "issue": int(m.group(2)), "body": body["body"],
         "html_url": f"https://github.example/{m.group(1)}/pull/{m.group(2)}#issuecomment-{state['next_id']}"}
    state["comments"].append(c)
    print(json.dumps(c))
elif method == "PATCH" and re.fullmatch(r"repos/[^/]+/[^/]+/issues/comments/(\d+)", path):
    cid = int(path.rsplit("/", 1)[1])
    c = next(c for c in state["comments"] if c["id"] == cid)
    c["body"] = body["body"]
    print(json.dumps(c))
else:
    sys.exit(f"fake gh: unexpected {method} {path}")
json.dump(state, open(state_file, "w"))
"#;

const MARKER: &str = "<!-- rooftrace-diff default -->";
const ARTIFACT_URL: &str = "https://github.example/acme/kernels/actions/runs/42/artifacts/9";

struct Runner {
    dir: tempfile::TempDir,
    bin: PathBuf,
}

impl Runner {
    /// A runner with `rooftrace` and the fake `gh` on PATH, pull request 7
    /// already holding three comments by others (two pages).
    #[cfg(unix)]
    fn new() -> Runner {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("bin");
        std::fs::create_dir(&bin).unwrap();
        std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_rooftrace"), bin.join("rooftrace")).unwrap();
        std::fs::write(bin.join("gh"), FAKE_GH).unwrap();
        std::fs::set_permissions(bin.join("gh"), std::fs::Permissions::from_mode(0o755)).unwrap();
        let others: Vec<Value> = (1..=3)
            .map(|id| serde_json::json!({"id": id, "issue": 7, "body": format!("LGTM {id}"), "html_url": ""}))
            .collect();
        let state = serde_json::json!({"next_id": 100, "comments": others});
        std::fs::write(dir.path().join("gh.json"), state.to_string()).unwrap();
        std::fs::write(
            dir.path().join("event.json"),
            r#"{"action":"synchronize","pull_request":{"number":7}}"#,
        )
        .unwrap();
        Runner { dir, bin }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// Runs one phase of the script from the repo root; returns (exit code, output).
    fn phase(&self, phase: &str, base: &str, new: &str, fail_on: &str) -> (i32, String) {
        let script = root().join("action/diff_gate.py");
        let path = format!(
            "{}:{}",
            self.bin.display(),
            std::env::var("PATH").unwrap_or_default()
        );
        let p = |n: &str| self.path(n);
        let out = Command::new("python3")
            .arg(&script)
            .arg(phase)
            .current_dir(root())
            .env("PATH", path)
            .env("GITHUB_REPOSITORY", "acme/kernels")
            .env("GITHUB_EVENT_PATH", p("event.json"))
            .env("GITHUB_STEP_SUMMARY", p("summary.md"))
            .env("GITHUB_OUTPUT", p("output.txt"))
            .env("GITHUB_SERVER_URL", "https://github.example")
            .env("GITHUB_RUN_ID", "42")
            .env("GH_TOKEN", "token")
            .env("FAKE_GH_STATE", p("gh.json"))
            .env("FAKE_GH_LOG", p("gh.log"))
            .env("ROOFTRACE_OUT", p("out"))
            .env("ROOFTRACE_ARTIFACT_URL", ARTIFACT_URL)
            .env("INPUT_BASE", base)
            .env("INPUT_NEW", new)
            .env("INPUT_GPU", "a100-40gb")
            .env("INPUT_FAIL_ON", fail_on)
            .env("INPUT_COMMENT", "true")
            .env("INPUT_PLOT", "true")
            .env_remove("INPUT_MARKER")
            .output()
            .expect("python3");
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        (out.status.code().unwrap_or(-1), text)
    }

    /// Both phases, as the action's steps run them.
    fn run(&self, base: &str, new: &str, fail_on: &str) -> (i32, String) {
        let (code, out) = self.phase("diff", base, new, fail_on);
        assert_eq!(
            code, 0,
            "the diff phase always lets the upload step run: {out}"
        );
        self.phase("publish", base, new, fail_on)
    }

    /// The comments of pull request 7 that carry the marker.
    fn marked(&self) -> Vec<Value> {
        let state: Value =
            serde_json::from_str(&std::fs::read_to_string(self.path("gh.json")).unwrap()).unwrap();
        state["comments"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["body"].as_str().unwrap_or_default().contains(MARKER))
            .cloned()
            .collect()
    }
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_default()
}

#[cfg(unix)]
#[test]
fn the_action_creates_then_updates_one_comment_and_exits_3_on_a_regression_after_writing_it() {
    // The action's script runs on GitHub's runners, which have python3.
    if !require_python3() {
        return;
    }
    let r = Runner::new();
    let base = "fixtures/ncu/sgemm_a100_printfp_details15.csv";
    let slower = "fixtures/ncu/sgemm_a100_diff_new_constructed.csv";

    // 1. Same profile on both sides: no regression, a new comment.
    let (code, out) = r.run(base, base, "time>+5%");
    assert_eq!(code, 0, "{out}");
    let first = r.marked();
    assert_eq!(first.len(), 1, "{out}");
    let id = first[0]["id"].as_i64().unwrap();
    assert_eq!(id, 101, "created after the three comments by others");
    let body = first[0]["body"].as_str().unwrap();
    assert!(body.starts_with(MARKER), "{body}");
    assert!(body.contains("**unchanged:"), "{body}");
    // The plot is linked to the uploaded artifact, not embedded by a
    // relative path that a comment cannot show.
    assert!(
        body.contains(&format!("in the workflow artifact]({ARTIFACT_URL})")),
        "{body}"
    );
    assert!(!body.contains("!["), "{body}");
    assert!(body.contains("[workflow run](https://github.example/acme/kernels/actions/runs/42)"));
    assert!(r.path("out/plots/diff.png").is_file());
    let summary = read(&r.path("summary.md"));
    assert!(summary.contains("**unchanged:"), "{summary}");
    assert!(
        !summary.contains(MARKER),
        "the marker is for the comment only"
    );
    assert!(read(&r.path("output.txt")).contains("exit-code=0\n"));

    // 2. A second push: the same comment is updated, none is added.
    let (code, out) = r.run(base, base, "time>+5%");
    assert_eq!(code, 0, "{out}");
    let second = r.marked();
    assert_eq!(second.len(), 1, "{out}");
    assert_eq!(second[0]["id"].as_i64(), Some(id));
    let log = read(&r.path("gh.log"));
    assert!(
        log.contains(&format!(
            "-X PATCH repos/acme/kernels/issues/comments/{id} --input"
        )),
        "{log}"
    );
    assert_eq!(log.matches("-X POST").count(), 1, "{log}");

    // 3. gemm_v1 20 % slower: the comment (the same one) says regression,
    // and the step exits 3 after writing it.
    let (code, out) = r.run(base, slower, "time>+5%");
    assert_eq!(code, 3, "{out}");
    let third = r.marked();
    assert_eq!(third.len(), 1);
    assert_eq!(third[0]["id"].as_i64(), Some(id));
    let body = third[0]["body"].as_str().unwrap();
    assert!(body.contains("**regression:"), "{body}");
    assert!(out.contains("updated the comment on #7"), "{out}");
    assert!(
        out.contains("the report is in the comment on #7 and the job summary"),
        "{out}"
    );
    assert!(read(&r.path("output.txt")).contains("exit-code=3\n"));
    assert!(read(&r.path("summary.md")).contains("**regression:"));
    // The others' comments are untouched.
    let state: Value = serde_json::from_str(&read(&r.path("gh.json"))).unwrap();
    assert_eq!(state["comments"].as_array().unwrap().len(), 4);
}

#[cfg(unix)]
#[test]
fn on_a_push_the_regression_points_at_the_job_summary_not_a_comment() {
    if !require_python3() {
        return;
    }
    let r = Runner::new();
    // A push event: no pull request, so no comment is written.
    std::fs::write(r.path("event.json"), r#"{"ref":"refs/heads/main"}"#).unwrap();
    let (code, out) = r.run(
        "fixtures/ncu/sgemm_a100_printfp_details15.csv",
        "fixtures/ncu/sgemm_a100_diff_new_constructed.csv",
        "time>+5%",
    );
    assert_eq!(code, 3, "{out}");
    assert!(r.marked().is_empty(), "no comment on a push");
    assert!(out.contains("the report is in the job summary"), "{out}");
    assert!(!out.contains("in the comment"), "{out}");
}

#[cfg(unix)]
#[test]
fn the_action_reports_bad_input_in_the_comment_and_exits_2() {
    if !require_python3() {
        return;
    }
    let r = Runner::new();
    let (code, out) = r.run(
        "fixtures/ncu/sgemm_a100_printfp_details15.csv",
        "missing.csv",
        "",
    );
    assert_eq!(code, 2, "{out}");
    let marked = r.marked();
    assert_eq!(marked.len(), 1);
    let body = marked[0]["body"].as_str().unwrap();
    assert!(body.contains("rooftrace diff failed (exit 2)"), "{body}");
    assert!(body.contains("missing.csv: no such file"), "{body}");
}
