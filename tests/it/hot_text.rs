//! The functions the main jobs run sit together in the executable
//! (`assets/link/hot-text.ld`, handed to the linker by `build.rs`; why:
//! `scripts/hot_text.py`). Checked on the binary the tests run, from its
//! own ELF section and symbol tables: the script reached the linker, and
//! its patterns still name functions of this build (they outlive the
//! compiler's hashes, not a rename).

const HOT: &str = ".text.hot.rooftrace";

/// A section: name, address, size.
struct Section {
    name: String,
    addr: u64,
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
/// in each header `sh_name` at 0, `sh_addr` at 0x10, `sh_offset` at 0x18,
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
            addr: u64_at(b, header(i) + 0x10),
            offset: u64_at(b, header(i) + 0x18),
            size: u64_at(b, header(i) + 0x20),
        })
        .collect()
}

/// Every symbol of `.symtab`: (name, value). Entries are 24 bytes:
/// `st_name` at 0, `st_value` at 8.
fn symbols(b: &[u8], sections: &[Section]) -> Vec<(String, u64)> {
    let find = |n: &str| sections.iter().find(|s| s.name == n).unwrap();
    let (symtab, strtab) = (find(".symtab"), find(".strtab"));
    (0..symtab.size as usize / 24)
        .map(|i| {
            let at = symtab.offset as usize + i * 24;
            let name = c_str(b, strtab.offset as usize + u32_at(b, at) as usize);
            (name, u64_at(b, at + 8))
        })
        .collect()
}

#[test]
#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
fn the_functions_the_main_jobs_run_sit_together_and_the_rest_after_them() {
    if std::env::var_os("ROOFTRACE_NO_HOT_TEXT").is_some() {
        return; // Built without the script, on purpose.
    }
    let bytes = std::fs::read(env!("CARGO_BIN_EXE_rooftrace")).unwrap();
    let all = sections(&bytes);
    let hot = all.iter().find(|s| s.name == HOT).unwrap_or_else(|| {
        panic!("no {HOT} section: build.rs did not hand the linker assets/link/hot-text.ld")
    });
    let inside = |v: u64| (hot.addr..hot.addr + hot.size).contains(&v);
    let syms = symbols(&bytes, &all);
    // The script's patterns for this crate's functions (`*(.text.NAME17h*E*
    // .text.unlikely.NAME17h*E*)`,
    // NAME being the path the compiler's hash follows): each names the same
    // functions in a debug build as in the release build it was made from.
    let script = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/link/hot-text.ld"),
    )
    .unwrap();
    let paths: Vec<&str> = script
        .lines()
        .filter_map(|l| l.trim().strip_prefix("*(.text._ZN9rooftrace"))
        .filter_map(|l| l.split_once("17h*E* "))
        .map(|(path, _)| path)
        .collect();
    assert!(
        paths.len() > 300,
        "{} patterns for rooftrace's functions",
        paths.len()
    );
    let mut named = 0;
    for path in &paths {
        let prefix = format!("_ZN9rooftrace{path}17h");
        let of: Vec<u64> = syms
            .iter()
            .filter(|(n, _)| n.starts_with(&prefix))
            .map(|&(_, v)| v)
            .collect();
        named += usize::from(!of.is_empty());
        assert!(of.iter().all(|&v| inside(v)), "{prefix}… outside {HOT}");
    }
    // A debug build keeps nearly every function a release build keeps (it
    // inlines less): a pattern naming nothing is a renamed or removed
    // function, and many of them mean the script wants regenerating.
    assert!(
        named * 10 >= paths.len() * 9,
        "{named} of {} patterns name a function of this build: run scripts/hot_text.py",
        paths.len()
    );
    let placed = |prefix: &str| -> (usize, usize) {
        let of: Vec<u64> = syms
            .iter()
            .filter(|(n, _)| n.starts_with(prefix))
            .map(|&(_, v)| v)
            .collect();
        (of.iter().filter(|&&v| inside(v)).count(), of.len())
    };
    // The plots: no main job draws one, so none of their functions is in
    // it (the section holds what runs, not everything).
    let (hot_plot, plot) = placed("_ZN9rooftrace4plot");
    assert!(plot > 20, "the plot module's functions: {plot} symbols");
    assert_eq!(hot_plot, 0, "plot functions inside {HOT}");
}
