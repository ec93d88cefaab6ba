//! Two promises about `src/`, checked on its text: the crate compiles on
//! every platform the README names (Linux, macOS, Windows), and its
//! `unsafe` is what the allow-list below says, each block with its reason.
//!
//! The rules, read on the code with comments, strings and character
//! literals blanked out (so a word inside them never counts):
//!
//! * **Platform-only APIs are gated.** A line that names `std::os::unix`,
//!   `std::os::linux`, `std::os::fd`, `std::os::windows` or `libc::` must lie
//!   inside the item, block or statement that follows a `#[cfg(...)]` whose
//!   predicate names the platform (`unix`, `windows`, `target_os`,
//!   `target_family`) and is not negated (`not(...)`): an item or block up
//!   to its closing `}`, a statement up to its `;`. A gate covers what is
//!   nested inside it, and a `#[cfg(unix)] mod name;` covers the whole of
//!   `name.rs`. A `#[cfg(test)]` alone does not gate (the tests build on
//!   Windows too).
//! * **Every `unsafe` is listed.** Each file's count of the keyword
//!   `unsafe` must equal its entry in [`UNSAFE_ALLOWED`] (an entry that
//!   names more than the file has is stale and fails too), and the comment
//!   lines right above each one must hold a `// SAFETY:` line saying why it
//!   is sound.
//!
//! `.ci/run` also type-checks the crate for Windows (`cargo check --target
//! x86_64-pc-windows-gnu`, README, "Install"); the first rule catches the
//! same mistake in every `cargo test`, on any machine, and names the line
//! (macOS has no other check here).

use crate::common::root;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Each file of `src/` allowed to hold `unsafe`: how many times, and why it
/// is not done by a well-kept crate.
const UNSAFE_ALLOWED: &[(&str, usize, &str)] = &[
    (
        "src/nsys/raw.rs",
        8,
        "the SQLite C-API statement cursor of the hot loops (one \
         sqlite3_column_int64 per cell): rusqlite's safe rows cost about a third \
         more CPU per row",
    ),
    (
        "src/ncu/records.rs",
        1,
        "the ncu reader's 64-byte quote mask (SSE2 compares and movemask on \
         x86-64, a byte loop elsewhere): safe code took 1.20x the CPU time of \
         the whole ncu command (docs/bench-ncu.md, issue 42)",
    ),
    (
        "src/nsys/guard.rs",
        1,
        "sqlite3_hard_heap_limit64, the process-wide ceiling on SQLite's heap, \
         which rusqlite does not wrap",
    ),
];

/// What names an API of one platform.
const PLATFORM_PATHS: &[&str] = &[
    "std::os::unix",
    "std::os::linux",
    "std::os::fd",
    "std::os::windows",
    "libc::",
];

fn src_files() -> Vec<(String, String)> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).expect("src is readable") {
            let path = entry.expect("dir entry").path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|x| x == "rs") {
                out.push(path);
            }
        }
    }
    let root = root();
    let mut paths = Vec::new();
    walk(&root.join("src"), &mut paths);
    paths.sort();
    paths
        .into_iter()
        .map(|p| {
            let rel = p.strip_prefix(&root).unwrap_or(&p);
            let rel = rel.to_string_lossy().replace('\\', "/");
            let text = std::fs::read_to_string(&p).expect("source is UTF-8");
            (rel, text)
        })
        .collect()
}

/// `code` with the text of every comment, string and character literal
/// replaced by spaces (line ends kept, so lines and columns still match).
fn blank_literals(code: &str) -> String {
    let chars: Vec<char> = code.chars().collect();
    let mut out = String::with_capacity(code.len());
    let mut i = 0;
    let blank = |out: &mut String, c: char| out.push(if c == '\n' { '\n' } else { ' ' });
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                blank(&mut out, chars[i]);
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    blank(&mut out, chars[i]);
                    i += 1;
                }
            }
        } else if c == 'r'
            && (next == Some('"') || next == Some('#'))
            && (i == 0
                || !ident(chars[i - 1])
                || (chars[i - 1] == 'b' && i >= 2 && !ident(chars[i - 2])))
        {
            // A raw string: r"..." or r#"..."# (any number of #).
            let hashes = chars[i + 1..].iter().take_while(|&&h| h == '#').count();
            if chars.get(i + 1 + hashes) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            out.push('r');
            i += 2 + hashes;
            let close: String = std::iter::once('"')
                .chain(std::iter::repeat_n('#', hashes))
                .collect();
            let close: Vec<char> = close.chars().collect();
            while i < chars.len() && chars[i..].iter().take(close.len()).ne(close.iter()) {
                blank(&mut out, chars[i]);
                i += 1;
            }
            i += close.len();
            out.push_str(&" ".repeat(hashes + 1));
        } else if c == '"' {
            out.push(' ');
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                let step = if chars[i] == '\\' { 2 } else { 1 };
                for k in 0..step {
                    if let Some(&s) = chars.get(i + k) {
                        blank(&mut out, s);
                    }
                }
                i += step;
            }
            out.push(' ');
            i += 1;
        } else if c == '\'' && (next == Some('\\') || chars.get(i + 2) == Some(&'\'')) {
            // A character literal ('x', '\n', '\'', '\u{7f}'), not a lifetime.
            out.push(' ');
            i += 1;
            while i < chars.len() && chars[i] != '\'' {
                let step = if chars[i] == '\\' { 2 } else { 1 };
                out.push_str(&" ".repeat(step));
                i += step;
            }
            out.push(' ');
            i += 1;
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// A `#[cfg(...)]` predicate that holds on one platform only: it names
/// one and negates nothing.
fn platform_cfg(predicate: &str) -> bool {
    let names = ["unix", "windows", "target_os", "target_family"];
    names.iter().any(|n| predicate.contains(n)) && !predicate.contains("not(")
}

/// The lines (1-based) of `code` (already blanked) that name a platform's
/// API outside a platform gate, given whether the whole file is gated.
fn ungated_platform_lines(code: &str, file_gated: bool) -> Vec<usize> {
    // Each open `{` scope: whether a gate covers it.
    let mut scopes: Vec<bool> = vec![file_gated];
    // A gate read whose item or statement has not begun yet.
    let mut pending = false;
    // The gated item or statement under way: the depth it began at. It
    // ends at a `;` at that depth or at the `}` that returns there.
    let mut region: Option<usize> = None;
    let mut out = Vec::new();
    let mut line = 1;
    let mut i = 0;
    while i < code.len() {
        let Some(rest) = code.get(i..) else {
            i += 1;
            continue;
        };
        if rest.starts_with("#[cfg(") {
            let end = rest.find(")]").map_or(rest.len(), |e| e + 2);
            pending |= platform_cfg(&rest[..end]);
            line += rest[..end].matches('\n').count();
            i += end;
            continue;
        }
        let c = rest.as_bytes()[0];
        if pending && !c.is_ascii_whitespace() {
            region = region.or(Some(scopes.len()));
            pending = false;
        }
        if let Some(path) = PLATFORM_PATHS.iter().find(|p| rest.starts_with(**p)) {
            let gated = region.is_some() || scopes.iter().any(|&g| g);
            if !gated && out.last() != Some(&line) {
                out.push(line);
            }
            i += path.len();
            continue;
        }
        match c {
            b'\n' => line += 1,
            b'{' => scopes.push(region.is_some()),
            b'}' => {
                scopes.pop();
                if scopes.is_empty() {
                    scopes.push(file_gated);
                }
                if region.is_some_and(|depth| depth >= scopes.len()) {
                    region = None;
                }
            }
            b';' if region == Some(scopes.len()) => region = None,
            _ => {}
        }
        i += 1;
    }
    out
}

/// Files declared as `#[cfg(<platform>)] mod name;`: gated whole.
fn gated_module_files(files: &[(String, String)]) -> Vec<String> {
    let mut out = Vec::new();
    for (rel, text) in files {
        let code = blank_literals(text);
        let dir = match rel.rsplit_once('/') {
            Some((dir, name)) if name == "mod.rs" || name == "lib.rs" || name == "main.rs" => {
                dir.to_string()
            }
            Some((dir, name)) => format!("{dir}/{}", name.trim_end_matches(".rs")),
            None => continue,
        };
        let lines: Vec<&str> = code.lines().map(str::trim).collect();
        for pair in lines.windows(2) {
            let name = pair[1]
                .trim_start_matches("pub ")
                .strip_prefix("mod ")
                .and_then(|m| m.strip_suffix(';'));
            if let (Some(name), true) = (name, platform_cfg(pair[0])) {
                out.push(format!("{dir}/{name}.rs"));
                out.push(format!("{dir}/{name}/mod.rs"));
            }
        }
    }
    out
}

#[test]
fn platform_only_apis_in_src_are_behind_a_platform_cfg() {
    let files = src_files();
    let gated_files = gated_module_files(&files);
    let mut ungated = Vec::new();
    for (rel, text) in &files {
        let whole = gated_files.contains(rel);
        for line in ungated_platform_lines(&blank_literals(text), whole) {
            ungated.push(format!("{rel}:{line}"));
        }
    }
    assert!(
        ungated.is_empty(),
        "platform-only APIs outside a #[cfg(unix)] (or other platform) gate, which \
         breaks the Windows build the README promises: {ungated:?}. Put the use inside \
         an item or block under #[cfg(unix)] and give #[cfg(not(unix))] a portable path"
    );
}

/// Each `unsafe` of `code` (blanked) by line, 1-based.
fn unsafe_lines(code: &str) -> Vec<usize> {
    let mut out = Vec::new();
    for (n, line) in code.lines().enumerate() {
        let bytes = line.as_bytes();
        for (at, _) in line.match_indices("unsafe") {
            let word = |k: Option<&u8>| k.is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_');
            let before = at.checked_sub(1).and_then(|k| bytes.get(k));
            if !word(before) && !word(bytes.get(at + "unsafe".len())) {
                out.push(n + 1);
            }
        }
    }
    out
}

/// The comment lines right above line `line` (1-based) hold `SAFETY:`.
fn has_safety_comment(text: &str, line: usize) -> bool {
    let lines: Vec<&str> = text.lines().collect();
    lines[..line - 1]
        .iter()
        .rev()
        .map(|l| l.trim_start())
        .take_while(|l| l.starts_with("//"))
        .any(|l| l.contains("SAFETY:"))
}

#[test]
fn every_unsafe_in_src_is_on_the_allow_list_with_a_safety_comment() {
    let mut found: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    let mut unexplained = Vec::new();
    for (rel, text) in src_files() {
        let lines = unsafe_lines(&blank_literals(&text));
        for &line in &lines {
            if !has_safety_comment(&text, line) {
                unexplained.push(format!("{rel}:{line}"));
            }
        }
        if !lines.is_empty() {
            found.insert(rel, lines);
        }
    }
    assert!(
        unexplained.is_empty(),
        "`unsafe` without a `// SAFETY:` comment right above it saying why it is sound: {unexplained:?}"
    );
    for (rel, lines) in &found {
        let allowed = UNSAFE_ALLOWED.iter().find(|(f, ..)| f == rel).map(|e| e.1);
        assert_eq!(
            allowed,
            Some(lines.len()),
            "{rel} holds `unsafe` {} times (lines {lines:?}); the allow-list in \
             tests/it/portability.rs says {allowed:?}. Use safe code or a crate that does it \
             (memchr, rusqlite), or add the entry with the reason",
            lines.len()
        );
    }
    for (rel, count, _) in UNSAFE_ALLOWED {
        assert!(
            found.contains_key(*rel),
            "the allow-list names {rel} ({count} `unsafe`), which holds none now: remove the entry"
        );
    }
}

#[test]
fn the_checks_see_what_they_check() {
    // Comments, strings, raw strings and character literals are blanked;
    // lifetimes and code are kept.
    let code =
        "let a = \"unsafe {\"; // unsafe\nlet b: &'a str = r#\"}\"#; let c = '{';\n/* unsafe */ x";
    let blanked = blank_literals(code);
    assert_eq!(blanked.lines().count(), 3);
    assert!(!blanked.contains("unsafe") && !blanked.contains('{') && !blanked.contains('}'));
    assert!(blanked.contains("&'a str") && blanked.ends_with(" x"));
    assert_eq!(
        unsafe_lines(&blank_literals(
            "fn f() {\n  unsafe { g() }\n}\nunsafe_code"
        )),
        [2]
    );

    let ungated = |code: &str| ungated_platform_lines(&blank_literals(code), false);
    assert_eq!(ungated("use std::os::unix::fs::FileExt;\nfn f() {}\n"), [1]);
    assert_eq!(ungated("fn f() {\n    libc::getpid();\n}\n"), [2]);
    assert_eq!(
        ungated("#[cfg(not(unix))]\nfn f() { use std::os::unix::fs::FileExt; }"),
        [2]
    );
    assert_eq!(
        ungated("#[cfg(test)]\nmod t {\n    use std::os::unix::ffi::OsStrExt;\n}"),
        [3]
    );
    assert_eq!(
        ungated("// std::os::unix\nlet s = \"std::os::unix\";"),
        Vec::<usize>::new()
    );
    // Gated: an item, a block, a statement, and what nests inside them; the
    // gate ends with its item.
    let gated = "#[cfg(unix)]\nfn f() {\n    { use std::os::unix::fs::FileExt; }\n}\n\
                 fn g() {\n    #[cfg(unix)]\n    std::os::unix::fs::symlink(a, b).unwrap();\n    \
                 #[cfg(target_os = \"linux\")]\n    {\n        use std::os::linux::fs::MetadataExt;\n    }\n}\n\
                 #[cfg(all(unix, test))]\nmod t { use libc::c_int; }\n\
                 use std::os::fd::AsRawFd;\n";
    assert_eq!(ungated(gated), [15]);
    assert_eq!(
        ungated_platform_lines(&blank_literals(gated), true),
        Vec::<usize>::new()
    );

    let files = vec![(
        "src/a/mod.rs".to_string(),
        "#[cfg(unix)]\nmod posix;\nmod plain;\n".to_string(),
    )];
    assert_eq!(
        gated_module_files(&files),
        ["src/a/posix.rs", "src/a/posix/mod.rs"]
    );

    let text = "// SAFETY: why.\nunsafe { f() }\n// other\nunsafe { g() }\n";
    assert!(has_safety_comment(text, 2));
    assert!(!has_safety_comment(text, 4));
}
