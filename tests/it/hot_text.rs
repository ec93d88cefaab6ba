//! `assets/link/hot-text.ld` (why: `scripts/hot_text.py`) still names the
//! functions of this crate: checked against the symbol table of the binary
//! the tests run. Its patterns outlive the compiler's hashes, not a rename.
//! The script is linked into release builds only (`build.rs`); `.ci/run`
//! checks that the wheel's binary has its section.

/// A section: name, file offset, size.
struct Section {
    name: String,
    offset: u64,
    size: u64,
}

fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes(b[at..at + 2].try_into().unwrap())
}
fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}
fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap())
}
fn c_str(b: &[u8], at: usize) -> String {
    let end = b[at..].iter().position(|&c| c == 0).unwrap() + at;
    String::from_utf8_lossy(&b[at..end]).into_owned()
}

/// The section headers of a 64-bit little-endian ELF file (System V gABI:
/// `e_shoff` at 0x28, `e_shentsize`/`e_shnum`/`e_shstrndx` at 0x3A-0x3E;
/// in each header `sh_name` at 0, `sh_offset` at 0x18,
/// `sh_size` at 0x20).
fn sections(b: &[u8]) -> Vec<Section> {
    assert_eq!(
        &b[..6],
        b"\x7fELF\x02\x01",
        "a 64-bit little-endian ELF file"
    );
    let shoff = u64_at(b, 0x28) as usize;
    let (entsize, count, names) = (
        u16_at(b, 0x3A) as usize,
        u16_at(b, 0x3C) as usize,
        u16_at(b, 0x3E) as usize,
    );
    let header = |i: usize| shoff + i * entsize;
    let strtab = u64_at(b, header(names) + 0x18) as usize;
    (0..count)
        .map(|i| Section {
            name: c_str(b, strtab + u32_at(b, header(i)) as usize),
            offset: u64_at(b, header(i) + 0x18),
            size: u64_at(b, header(i) + 0x20),
        })
        .collect()
}

/// The name of every symbol of `.symtab` (24-byte entries, `st_name` at 0).
fn symbol_names(b: &[u8], sections: &[Section]) -> Vec<String> {
    let find = |n: &str| {
        sections
            .iter()
            .find(|s| s.name == n)
            .unwrap_or_else(|| panic!("no {n}: the test binary is stripped"))
    };
    let (symtab, strtab) = (find(".symtab"), find(".strtab"));
    (0..symtab.size as usize / 24)
        .map(|i| {
            let at = symtab.offset as usize + i * 24;
            c_str(b, strtab.offset as usize + u32_at(b, at) as usize)
        })
        .collect()
}

#[test]
fn the_hot_text_script_names_functions_of_this_build() {
    let bytes = std::fs::read(env!("CARGO_BIN_EXE_rooftrace")).unwrap();
    let mut names = symbol_names(&bytes, &sections(&bytes));
    names.sort_unstable();
    let script = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/link/hot-text.ld"),
    )
    .unwrap();
    // The script's patterns for this crate's functions (`.text.PATH17h*E*`,
    // PATH being what the compiler's hash follows): a debug build keeps
    // nearly every function a release build keeps (it inlines less), so
    // each should name one here.
    let paths: Vec<&str> = script
        .split_whitespace()
        .filter_map(|t| t.strip_prefix(".text._ZN9rooftrace"))
        .filter_map(|t| t.strip_suffix("17h*E*"))
        .collect();
    assert!(
        paths.len() > 100,
        "{} patterns for rooftrace's functions",
        paths.len()
    );
    let names_one = |path: &str| {
        let prefix = format!("_ZN9rooftrace{path}17h");
        let at = names.partition_point(|n| n.as_str() < prefix.as_str());
        names.get(at).is_some_and(|n| n.starts_with(&prefix))
    };
    let stale: Vec<&&str> = paths.iter().filter(|p| !names_one(p)).collect();
    // A pattern naming nothing is a renamed or removed function; many of
    // them mean the layout has drifted from the code.
    assert!(
        stale.len() * 10 <= paths.len(),
        "{} of {} patterns name no function of this build (e.g. {:?}): run scripts/hot_text.py",
        stale.len(),
        paths.len(),
        &stale[..stale.len().min(3)]
    );
    // The reader's walker runs on every PyTorch trace `gaps` reads.
    assert!(paths.iter().any(|p| p.starts_with("6kineto6stream6Walker")));
}
