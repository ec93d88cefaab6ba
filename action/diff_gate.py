#!/usr/bin/env python3
"""The script of rooftrace's GitHub Action (action.yml): a diff gate for
pull requests, in two phases so the plots can be uploaded between them.

  diff_gate.py diff     runs `rooftrace diff BASE NEW` (Markdown report and
                        plot into $ROOFTRACE_OUT), records its exit code;
                        always exits 0 so the upload step runs.
  diff_gate.py publish  writes the report to the job summary, creates or
                        updates the one pull-request comment that carries
                        the marker, then exits with the gate's code (3 on a
                        regression, after the comment is written).

Inputs come from the environment, as action.yml passes them: INPUT_BASE,
INPUT_NEW, INPUT_GPU, INPUT_FAIL_ON (one rule per line), INPUT_ARGS (more
`rooftrace diff` flags), INPUT_COMMENT (true/false), INPUT_PLOT
(true/false), INPUT_MARKER (tells several gates in one repository apart),
ROOFTRACE_ARTIFACT_URL (the uploaded plots). GitHub's own variables say
where to write and which pull request: GITHUB_REPOSITORY,
GITHUB_EVENT_PATH, GITHUB_STEP_SUMMARY, GITHUB_OUTPUT, GITHUB_SERVER_URL,
GITHUB_RUN_ID. The comment goes through `gh api` (GH_TOKEN), so this file
needs only Python's standard library and the `gh` every runner has.
"""

import json
import os
import re
import shlex
import subprocess
import sys
import tempfile

MARKER_PREFIX = "<!-- rooftrace-diff"


def env(name, default=""):
    return os.environ.get(name, default).strip()


def flag(name, default):
    return env(name, default).lower() in ("1", "true", "yes", "on")


def out_dir():
    base = env("ROOFTRACE_OUT") or os.path.join(env("RUNNER_TEMP") or tempfile.gettempdir(), "rooftrace-diff")
    os.makedirs(base, exist_ok=True)
    return base


def set_output(name, value):
    path = env("GITHUB_OUTPUT")
    if path:
        with open(path, "a", encoding="utf-8") as f:
            f.write(f"{name}={value}\n")


def marker():
    name = env("INPUT_MARKER", "default") or "default"
    return f"{MARKER_PREFIX} {name} -->"


def phase_diff():
    """Runs rooftrace diff; records the exit code and what it wrote."""
    out = out_dir()
    base, new = env("INPUT_BASE"), env("INPUT_NEW")
    if not base or not new:
        sys.exit("rooftrace action: the `base` and `new` inputs are required (two profiles of one kind)")
    report = os.path.join(out, "report.md")
    plots = os.path.join(out, "plots")
    cmd = ["rooftrace", "diff", base, new, "--format", "md", "-o", report]
    if flag("INPUT_PLOT", "true"):
        os.makedirs(plots, exist_ok=True)
        cmd += ["--plot", os.path.join(plots, "diff.png")]
    if env("INPUT_GPU"):
        cmd += ["--gpu", env("INPUT_GPU")]
    for rule in env("INPUT_FAIL_ON").splitlines():
        if rule.strip():
            cmd += ["--fail-on", rule.strip()]
    cmd += shlex.split(env("INPUT_ARGS"))
    print("+ " + shlex.join(cmd), flush=True)
    run = subprocess.run(cmd, stderr=subprocess.PIPE, text=True)
    sys.stderr.write(run.stderr)
    code = run.returncode
    if code not in (0, 3):
        # No report: the comment says what went wrong instead.
        with open(report, "w", encoding="utf-8") as f:
            f.write(f"❌ **rooftrace diff failed (exit {code})**\n\n```\n{run.stderr.strip()}\n```\n")
    with open(os.path.join(out, "exit-code"), "w", encoding="utf-8") as f:
        f.write(f"{code}\n")
    set_output("exit-code", code)
    set_output("report", report)
    has_plots = os.path.isdir(plots) and any(os.scandir(plots))
    set_output("plots", plots if has_plots else "")


def link_plots(markdown, url):
    """Relative image links (`![alt](diff.png)`) cannot show in a comment:
    each becomes a link to the uploaded artifact, or plain text without one."""

    def repl(m):
        alt, target = m.group(1) or "plot", m.group(2)
        if url:
            return f"[{alt}: `{os.path.basename(target)}` in the workflow artifact]({url})"
        return f"{alt}: `{os.path.basename(target)}` (not uploaded)"

    return re.sub(r"!\[([^\]]*)\]\((?!https?://)([^)\s]+)\)", repl, markdown)


def pull_request_number():
    path = env("GITHUB_EVENT_PATH")
    if not path or not os.path.exists(path):
        return None
    with open(path, encoding="utf-8") as f:
        event = json.load(f)
    for key in ("pull_request", "issue"):
        number = (event.get(key) or {}).get("number")
        if isinstance(number, int):
            return number
    return None


def gh_api(args, body=None):
    """`gh api ARGS` (with a JSON body from a file); returns stdout."""
    cmd = ["gh", "api"] + args
    body_file = None
    if body is not None:
        body_file = tempfile.NamedTemporaryFile("w", suffix=".json", delete=False, encoding="utf-8")
        json.dump(body, body_file)
        body_file.close()
        cmd += ["--input", body_file.name]
    try:
        run = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    finally:
        if body_file:
            os.unlink(body_file.name)
    if run.returncode != 0:
        raise RuntimeError(f"`{shlex.join(cmd[:4])}` failed: {run.stderr.strip()}")
    return run.stdout


def json_values(text):
    """The JSON values in `text` one after another (`gh api --paginate`
    prints one array per page)."""
    decoder, at, values = json.JSONDecoder(), 0, []
    while True:
        while at < len(text) and text[at].isspace():
            at += 1
        if at >= len(text):
            return values
        value, at = decoder.raw_decode(text, at)
        values.append(value)


def upsert_comment(repo, number, body, mark):
    """Updates the comment carrying `mark`, or creates it; returns (verb, url)."""
    pages = json_values(gh_api(["--paginate", f"repos/{repo}/issues/{number}/comments"]))
    ours = [c for page in pages for c in page if mark in (c.get("body") or "")]
    if ours:
        made = json.loads(gh_api(["-X", "PATCH", f"repos/{repo}/issues/comments/{ours[0]['id']}"], {"body": body}))
        return "updated", made.get("html_url", "")
    made = json.loads(gh_api(["-X", "POST", f"repos/{repo}/issues/{number}/comments"], {"body": body}))
    return "created", made.get("html_url", "")


def phase_publish():
    """Job summary, the comment, then the gate's exit code."""
    out = out_dir()
    with open(os.path.join(out, "exit-code"), encoding="utf-8") as f:
        code = int(f.read().strip())
    with open(os.path.join(out, "report.md"), encoding="utf-8") as f:
        report = f.read()
    run_url = ""
    if env("GITHUB_SERVER_URL") and env("GITHUB_REPOSITORY") and env("GITHUB_RUN_ID"):
        run_url = f"{env('GITHUB_SERVER_URL')}/{env('GITHUB_REPOSITORY')}/actions/runs/{env('GITHUB_RUN_ID')}"
    report = link_plots(report, env("ROOFTRACE_ARTIFACT_URL"))
    footer = f"\n---\n<sub>rooftrace diff `{env('INPUT_BASE')}` → `{env('INPUT_NEW')}`"
    footer += f" · [workflow run]({run_url})</sub>\n" if run_url else "</sub>\n"
    summary = env("GITHUB_STEP_SUMMARY")
    if summary:
        with open(summary, "a", encoding="utf-8") as f:
            f.write(report.rstrip() + "\n" + footer)
    number = pull_request_number()
    mark = marker()
    # Where the reader finds the report: said as it is, never a comment
    # that was not written.
    places = ["the job summary"] if summary else []
    if not flag("INPUT_COMMENT", "true"):
        print("rooftrace action: comment: false, no pull-request comment")
    elif number is None:
        print("rooftrace action: not a pull-request event, no comment (the report is in the job summary)")
    else:
        body = f"{mark}\n{report.rstrip()}\n{footer}"
        try:
            verb, url = upsert_comment(env("GITHUB_REPOSITORY"), number, body, mark)
            print(f"rooftrace action: {verb} the comment on #{number} {url}".rstrip())
            set_output("comment-url", url)
            places.insert(0, f"the comment on #{number}")
        except RuntimeError as e:
            # A fork's pull request gets a read-only token: say so, keep the gate.
            print(f"::warning::rooftrace action: could not write the pull-request comment: {e}")
    if code == 3:
        where = " and ".join(places) if places else "report.md of the workflow's output directory"
        print(f"::error::rooftrace diff: regression (exit 3); the report is in {where}")
    sys.exit(code)


def main():
    phases = {"diff": phase_diff, "publish": phase_publish}
    if len(sys.argv) != 2 or sys.argv[1] not in phases:
        sys.exit("usage: diff_gate.py diff|publish")
    phases[sys.argv[1]]()


if __name__ == "__main__":
    main()
