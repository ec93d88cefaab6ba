//! The house rules of `docs/architecture.md`, checked on the source: which
//! top-level module may use which, and the size limits (no file over 700
//! lines, no function over 150 lines, outside tests and data tables).
//!
//! A new module (a new report, a new parser) adds its row to `ALLOWED` and to
//! the table in `docs/architecture.md`, in the same commit.

use crate::common::root;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Each top-level module and the modules of ours it may use. Lower layers
/// never name higher ones: ground floor (`units`, `error`, `diagnostic`,
/// `roofs`, `synth`, `timeline`) ← parsers (`ncu`, `nsys`, `kineto`, `calibrate`) ← the door
/// (`input`) ← analysis (`roofline`,
/// `gaps`, `budget`) ← presentation (`report`, `plot`) ← glue (`cli`, `commands`).
const ALLOWED: &[(&str, &[&str])] = &[
    ("units", &[]),
    ("error", &[]),
    ("diagnostic", &[]),
    ("synth", &[]),
    ("suggest", &[]),
    ("timeline", &["units", "diagnostic"]),
    ("roofs", &["units", "error", "suggest"]),
    ("ncu", &["units", "error", "roofs"]),
    ("nsys", &["units", "error", "timeline"]),
    (
        "kineto",
        &["units", "error", "roofs", "timeline", "opmodel"],
    ),
    ("calibrate", &["units", "error", "roofs"]),
    (
        "input",
        // The one door: tells every input from its content and hands
        // timelines to their reader.
        &["units", "error", "timeline", "ncu", "nsys", "kineto"],
    ),
    ("opmodel", &["units", "error", "roofs"]),
    ("roofline", &["units", "error", "roofs", "ncu"]),
    (
        "gaps",
        // `suggest`: the range texts closest to a `--nvtx` matching none.
        &["units", "error", "diagnostic", "suggest", "timeline"],
    ),
    (
        "budget",
        &[
            "units",
            "error",
            "diagnostic",
            "roofs",
            "timeline",
            "ncu",
            "roofline",
            "gaps",
            "opmodel",
            "ops",
        ],
    ),
    (
        "comm",
        &["units", "error", "diagnostic", "roofs", "timeline"],
    ),
    (
        "ops",
        &["units", "error", "roofs", "timeline", "opmodel", "comm"],
    ),
    (
        "path",
        &[
            "units",
            "error",
            "diagnostic",
            "roofs",
            "timeline",
            "ncu",
            "roofline",
            "gaps",
            "budget",
            "opmodel",
            "ops",
            "comm",
        ],
    ),
    (
        "diff",
        &[
            "units",
            "error",
            "diagnostic",
            "roofs",
            "timeline",
            "ncu",
            "kineto",
            "roofline",
            "gaps",
            "ops",
        ],
    ),
    (
        "many_inputs",
        &[
            "units", "error", "roofs", "ncu", "kineto", "timeline", "roofline", "gaps",
        ],
    ),
    (
        "projection",
        &[
            "units", "error", "roofs", "ncu", "roofline", "gaps", "budget",
        ],
    ),
    (
        "report",
        &[
            "units",
            "error",
            "roofs",
            "ncu",
            "kineto",
            "timeline",
            "calibrate",
            "roofline",
            "gaps",
            "budget",
            "path",
            "comm",
            "diff",
            "many_inputs",
            "projection",
            "opmodel",
            "ops",
        ],
    ),
    (
        "plot",
        &[
            "units",
            "error",
            "roofs",
            "ncu",
            "kineto",
            "timeline",
            "calibrate",
            "roofline",
            "gaps",
            "budget",
            "path",
            "comm",
            "diff",
            "projection",
            "opmodel",
            "ops",
        ],
    ),
    (
        "chrome_trace",
        &[
            "units", "error", "roofs", "timeline", "ncu", "roofline", "gaps", "budget", "path",
        ],
    ),
    ("cli", &["report", "suggest"]),
    (
        "commands",
        &[
            "units",
            "error",
            "roofs",
            "ncu",
            "nsys",
            "kineto",
            "timeline",
            "calibrate",
            "roofline",
            "gaps",
            "budget",
            "comm",
            "diff",
            "many_inputs",
            "projection",
            "report",
            "plot",
            "cli",
            "synth",
            "suggest",
            "chrome_trace",
            "input",
            "opmodel",
            "ops",
            "path",
        ],
    ),
];

/// Files that are data tables, exempt from the size limits.
const DATA_TABLES: &[&str] = &[
    "src/roofs/gpus/volta_turing.rs",
    "src/roofs/gpus/ampere.rs",
    "src/roofs/gpus/hopper.rs",
    "src/roofs/gpus/ada.rs",
    "src/roofs/gpus/blackwell.rs",
];

const MAX_FILE_LINES: usize = 700;
const MAX_FN_LINES: usize = 150;

fn rs_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).expect("src is readable") {
        let p = e.expect("dir entry").path();
        if p.is_dir() {
            rs_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The top-level module a file under `src/` belongs to (`None` for
/// `lib.rs`/`main.rs`).
fn module_of(rel: &Path) -> Option<String> {
    let mut parts = rel.components().skip(1); // "src"
    let first = parts.next()?.as_os_str().to_string_lossy().into_owned();
    let name = first.strip_suffix(".rs").unwrap_or(&first).to_string();
    (name != "lib" && name != "main").then_some(name)
}

/// The file's code without its `#[cfg(test)]` module (by convention the
/// last item of a file).
fn without_tests(text: &str) -> &str {
    text.find("#[cfg(test)]").map_or(text, |i| &text[..i])
}

/// `crate::NAME` paths used in `code`, including `use crate::{a, b}`.
fn crate_refs(code: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut rest = code;
    while let Some(i) = rest.find("crate::") {
        rest = &rest[i + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let end = group.find('}').unwrap_or(group.len());
            for item in group[..end].split(',') {
                let name: String = item
                    .trim()
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                if !name.is_empty() {
                    out.insert(name);
                }
            }
        } else {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            out.insert(name);
        }
    }
    out
}

/// (first line, length) of each `fn` whose body is longer than `max` lines:
/// from the line with `fn name(` to the line that closes its indentation.
fn long_fns(code: &str, max: usize) -> Vec<(usize, usize, String)> {
    let lines: Vec<&str> = code.lines().collect();
    let mut out = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        let t = l.trim_start();
        let is_fn = [
            "fn ",
            "pub fn ",
            "pub(crate) fn ",
            "pub(super) fn ",
            "const fn ",
        ]
        .iter()
        .any(|p| t.starts_with(p));
        if !is_fn || t.ends_with(';') {
            continue;
        }
        let indent = l.len() - t.len();
        let close = lines[i + 1..].iter().position(|m| {
            let mt = m.trim_start();
            m.len() - mt.len() == indent && mt.starts_with('}')
        });
        if let Some(n) = close {
            if n + 2 > max {
                out.push((i + 1, n + 2, t.chars().take(60).collect()));
            }
        }
    }
    out
}

#[test]
fn layers_only_use_what_is_below_them() {
    let root = root();
    let mut files = Vec::new();
    rs_files(&root.join("src"), &mut files);
    let mut problems = Vec::new();
    for f in &files {
        let rel = f.strip_prefix(&root).expect("under root");
        let Some(m) = module_of(rel) else { continue };
        let Some((_, allowed)) = ALLOWED.iter().find(|(n, _)| *n == m) else {
            problems.push(format!(
                "{}: module `{m}` has no row in ALLOWED (tests/it/architecture.rs) and docs/architecture.md",
                rel.display()
            ));
            continue;
        };
        let text = std::fs::read_to_string(f).expect("readable");
        for r in crate_refs(without_tests(&text)) {
            if r != m && !allowed.contains(&r.as_str()) {
                problems.push(format!("{}: `{m}` uses `crate::{r}`", rel.display()));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "layer rule broken:\n{}",
        problems.join("\n")
    );
}

/// Sibling files a file in a module directory names: `super::NAME` and
/// `crate::MODULE::NAME`, where NAME is another `.rs` file (or folder) of
/// the same directory.
fn sibling_refs(code: &str, module: &str, siblings: &BTreeSet<String>) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let long = format!("crate::{module}::");
    for prefix in ["super::", long.as_str()] {
        let mut rest = code;
        while let Some(i) = rest.find(prefix) {
            rest = &rest[i + prefix.len()..];
            let mut names = Vec::new();
            if let Some(group) = rest.strip_prefix('{') {
                let end = group.find('}').unwrap_or(group.len());
                names.extend(group[..end].split(',').map(str::trim));
            } else {
                names.push(rest);
            }
            for n in names {
                let name: String = n
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                if siblings.contains(&name) {
                    out.insert(name);
                }
            }
        }
    }
    out
}

/// Analysis and reporting read timelines in the model's own words
/// (`timeline`), never through a reader: a new reader changes none of them.
const TIMELINE_CONSUMERS: &[&str] = &[
    "gaps",
    "budget",
    "diff",
    "many_inputs",
    "comm",
    "plot",
    "report",
    "chrome_trace",
    "projection",
];

#[test]
fn analysis_and_reports_import_timeline_types_from_timeline_not_nsys() {
    let root = root();
    let mut problems = Vec::new();
    for m in TIMELINE_CONSUMERS {
        let (_, allowed) = ALLOWED
            .iter()
            .find(|(n, _)| n == m)
            .unwrap_or_else(|| panic!("`{m}` has a row in ALLOWED"));
        if allowed.contains(&"nsys") {
            problems.push(format!("ALLOWED lets `{m}` use `nsys`"));
        }
        let mut files = Vec::new();
        let dir = root.join("src").join(m);
        if dir.is_dir() {
            rs_files(&dir, &mut files);
        }
        for f in files {
            let text = std::fs::read_to_string(&f).expect("readable");
            if crate_refs(&text).contains("nsys") {
                let rel = f.strip_prefix(&root).expect("under root");
                problems.push(format!(
                    "{}: uses `crate::nsys`; import the type from `crate::timeline`",
                    rel.display()
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn no_two_files_of_a_module_import_each_other() {
    let root = root();
    let mut files = Vec::new();
    rs_files(&root.join("src"), &mut files);
    let mut uses: BTreeSet<(PathBuf, String, String)> = BTreeSet::new();
    for f in &files {
        let (Some(dir), Some(stem)) = (f.parent(), f.file_stem()) else {
            continue;
        };
        let stem = stem.to_string_lossy().into_owned();
        if stem == "mod" || dir == root.join("src") {
            continue;
        }
        let siblings: BTreeSet<String> = std::fs::read_dir(dir)
            .expect("readable")
            .filter_map(|e| {
                let p = e.ok()?.path();
                let s = p.file_stem()?.to_string_lossy().into_owned();
                (s != "mod" && s != stem).then_some(s)
            })
            .collect();
        let module = dir
            .file_name()
            .expect("named")
            .to_string_lossy()
            .into_owned();
        let text = std::fs::read_to_string(f).expect("readable");
        // Doc links (`[`super::analysis`]`) are not imports.
        let code: String = without_tests(&text)
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .collect::<Vec<_>>()
            .join("\n");
        for s in sibling_refs(&code, &module, &siblings) {
            uses.insert((dir.to_path_buf(), stem.clone(), s));
        }
    }
    let mut problems = Vec::new();
    for (dir, a, b) in &uses {
        if a < b && uses.contains(&(dir.clone(), b.clone(), a.clone())) {
            let rel = dir.strip_prefix(&root).expect("under root");
            problems.push(format!(
                "{}: `{a}` and `{b}` import each other",
                rel.display()
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn files_and_functions_stay_readable() {
    let root = root();
    let mut files = Vec::new();
    rs_files(&root.join("src"), &mut files);
    let mut problems = Vec::new();
    for f in &files {
        let rel = f.strip_prefix(&root).expect("under root");
        if DATA_TABLES.iter().any(|d| Path::new(d) == rel) {
            continue;
        }
        let text = std::fs::read_to_string(f).expect("readable");
        let code = without_tests(&text);
        let n = code.lines().count();
        if n > MAX_FILE_LINES {
            problems.push(format!(
                "{}: {n} lines (max {MAX_FILE_LINES})",
                rel.display()
            ));
        }
        for (line, len, sig) in long_fns(code, MAX_FN_LINES) {
            problems.push(format!(
                "{}:{line}: `{sig}` is {len} lines (max {MAX_FN_LINES})",
                rel.display()
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Rule 8: a `print!`-family macro panics when its stream is a pipe whose
/// reader left; user-facing bytes go through `commands::output`.
fn print_macros(code: &str) -> Vec<(usize, String)> {
    code.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim_start().starts_with("//"))
        .filter(|(_, l)| {
            ["println!(", "print!(", "eprintln!(", "eprint!("]
                .iter()
                .any(|m| l.contains(m))
        })
        .map(|(i, l)| (i + 1, l.trim().to_string()))
        .collect()
}

#[test]
fn output_leaves_through_commands_output_only() {
    let root = root();
    let mut files = Vec::new();
    rs_files(&root.join("src"), &mut files);
    let mut problems = Vec::new();
    for f in &files {
        let rel = f.strip_prefix(&root).expect("under root");
        let text = std::fs::read_to_string(f).expect("readable");
        for (line, l) in print_macros(without_tests(&text)) {
            problems.push(format!(
                "{}:{line}: `{l}`: write through commands::output (write_output, note)",
                rel.display()
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    // The checker sees a macro, and not a comment about one.
    assert_eq!(print_macros("let x = 1;\n    eprintln!(\"a\");").len(), 1);
    assert!(print_macros("// eprintln!(\"a\")").is_empty());
}

#[test]
fn the_checker_sees_what_it_checks() {
    // The checks above pass vacuously if the helpers see nothing: feed them
    // code that breaks each rule.
    let refs = crate_refs("use crate::{gaps::X, nsys};\nlet a = crate::plot::f();");
    assert_eq!(
        refs.into_iter().collect::<Vec<_>>(),
        ["gaps", "nsys", "plot"]
    );
    let body = "    x;\n".repeat(200);
    let code = format!("fn short() {{\n}}\n\npub fn long() {{\n{body}}}\n");
    let long = long_fns(&code, MAX_FN_LINES);
    assert_eq!(long.len(), 1);
    assert_eq!((long[0].0, long[0].1), (4, 202));
    assert_eq!(without_tests("a\n#[cfg(test)]\nmod t {}"), "a\n");
    let siblings: BTreeSet<String> = ["model", "useful"].map(String::from).into();
    let refs = sibling_refs(
        "use super::{model::X, names};\nlet a = crate::roofline::useful::f();",
        "roofline",
        &siblings,
    );
    assert_eq!(refs.into_iter().collect::<Vec<_>>(), ["model", "useful"]);
}
