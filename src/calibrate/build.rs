//! The reference-kernel sources, embedded in the binary so that an installed
//! rooftrace carries them; writing them to a cache directory; the nvcc
//! command lines that build the harness (for this GPU) or only compile it
//! (CI check for sm_80, sm_90 and sm_100); and reading ptxas's register/spill report.

use super::toolchain::Toolchain;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// Every kernel source file, by name. `harness.cu` includes the others.
pub const SOURCES: [(&str, &str); 5] = [
    ("common.cuh", include_str!("../../kernels/common.cuh")),
    ("bandwidth.cuh", include_str!("../../kernels/bandwidth.cuh")),
    ("fma.cuh", include_str!("../../kernels/fma.cuh")),
    ("gemm.cuh", include_str!("../../kernels/gemm.cuh")),
    ("harness.cu", include_str!("../../kernels/harness.cu")),
];

/// The translation unit nvcc compiles.
pub const MAIN_SOURCE: &str = "harness.cu";

/// Name of the built harness executable.
pub const HARNESS_BIN: &str = "rooftrace-harness";

/// Architectures the CI compile check builds for.
pub const CHECK_ARCHS: [&str; 3] = ["sm_80", "sm_90", "sm_100"];

/// A 16-hex-digit FNV-1a hash of the sources and `salt` (e.g. the nvcc
/// path), naming the cache directory so that a changed source or compiler
/// rebuilds.
pub fn sources_hash(salt: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |bytes: &[u8]| {
        for b in bytes {
            h ^= u64::from(*b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    };
    eat(salt.as_bytes());
    for (name, text) in SOURCES {
        eat(name.as_bytes());
        eat(&[0]);
        eat(text.as_bytes());
        eat(&[0]);
    }
    format!("{h:016x}")
}

/// Writes every source into `dir` (created if needed).
pub fn write_sources(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    for (name, text) in SOURCES {
        std::fs::write(dir.join(name), text)?;
    }
    Ok(())
}

/// Arguments to nvcc that build the runnable harness in `dir` for the GPU
/// in this machine (`-arch=native`).
pub fn build_args(tc: &Toolchain, dir: &Path) -> Vec<OsString> {
    let mut v: Vec<OsString> = vec![
        "-O3".into(),
        "-std=c++17".into(),
        "-arch=native".into(),
        "-lineinfo".into(),
    ];
    v.extend(tc.include_flags());
    v.push(dir.join(MAIN_SOURCE).into());
    v.push("-o".into());
    v.push(dir.join(HARNESS_BIN).into());
    v.extend(tc.link_flags());
    v
}

/// Arguments to nvcc that only compile (no link, no GPU needed) for
/// [`CHECK_ARCHS`] with ptxas's resource report (`-Xptxas -v`).
pub fn check_args(tc: &Toolchain, dir: &Path) -> Vec<OsString> {
    let mut v: Vec<OsString> = vec!["-O3".into(), "-std=c++17".into()];
    for arch in CHECK_ARCHS {
        let num = arch.trim_start_matches("sm_");
        v.push("-gencode".into());
        v.push(format!("arch=compute_{num},code={arch}").into());
    }
    v.push("-Xptxas".into());
    v.push("-v".into());
    v.extend(tc.include_flags());
    v.push("-c".into());
    v.push(dir.join(MAIN_SOURCE).into());
    v.push("-o".into());
    v.push(dir.join("harness.o").into());
    v
}

/// The default cache directory: `$XDG_CACHE_HOME/rooftrace`, else
/// `$HOME/.cache/rooftrace`, else the system temp dir.
pub fn default_cache_dir() -> PathBuf {
    if let Some(x) = std::env::var_os("XDG_CACHE_HOME").filter(|x| !x.is_empty()) {
        return PathBuf::from(x).join("rooftrace");
    }
    if let Some(h) = std::env::var_os("HOME").filter(|x| !x.is_empty()) {
        return PathBuf::from(h).join(".cache").join("rooftrace");
    }
    std::env::temp_dir().join("rooftrace")
}

/// One kernel's resource use as ptxas reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KernelResources {
    /// Mangled entry-function name.
    pub function: String,
    /// Target (`sm_80`).
    pub arch: String,
    /// Registers per thread.
    pub registers: u32,
    /// Spill stores, in bytes.
    pub spill_store_bytes: u32,
    /// Spill loads, in bytes.
    pub spill_load_bytes: u32,
}

/// Parses `-Xptxas -v` output: `Compiling entry function 'F' for 'sm_80'`,
/// then `N bytes stack frame, S bytes spill stores, L bytes spill loads`,
/// then `Used R registers`.
pub fn parse_ptxas(stderr: &str) -> Vec<KernelResources> {
    let mut out = Vec::new();
    let mut cur: Option<KernelResources> = None;
    for line in stderr.lines() {
        if let Some(rest) = line.split("Compiling entry function '").nth(1) {
            if let Some(k) = cur.take() {
                out.push(k);
            }
            let mut parts = rest.split('\'');
            let function = parts.next().unwrap_or_default().to_string();
            let arch = parts.nth(1).unwrap_or_default().to_string();
            cur = Some(KernelResources {
                function,
                arch,
                registers: 0,
                spill_store_bytes: 0,
                spill_load_bytes: 0,
            });
        } else if let Some(k) = cur.as_mut() {
            if line.contains("bytes spill stores") {
                k.spill_store_bytes = number_before(line, " bytes spill stores");
                k.spill_load_bytes = number_before(line, " bytes spill loads");
            } else if line.contains("Used ") && line.contains(" registers") {
                k.registers = number_before(line, " registers");
            }
        }
    }
    out.extend(cur);
    out
}

fn number_before(line: &str, suffix: &str) -> u32 {
    line.split(suffix)
        .next()
        .and_then(|head| head.split([' ', ',']).rfind(|w| !w.is_empty()))
        .and_then(|w| w.parse().ok())
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ptxas_report_is_parsed_per_entry() {
        // Abridged from `nvcc -Xptxas -v` (CUDA 13.5) on kernels/harness.cu.
        let text = "\
ptxas info    : Compiling entry function '_Z10fma_kernelIdLi32EEvPK5uint4PS0_mT_S4_i' for 'sm_80'
ptxas info    : Function properties for _Z10fma_kernelIdLi32EEvPK5uint4PS0_mT_S4_i
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 14 registers, used 0 barriers, 396 bytes cmem[0]
ptxas info    : Compiling entry function '_Z4spillv' for 'sm_90'
ptxas info    : Function properties for _Z4spillv
    48 bytes stack frame, 24 bytes spill stores, 16 bytes spill loads
ptxas info    : Used 255 registers, used 1 barriers, 360 bytes cmem[0]
";
        let k = parse_ptxas(text);
        assert_eq!(k.len(), 2);
        assert_eq!(k[0].function, "_Z10fma_kernelIdLi32EEvPK5uint4PS0_mT_S4_i");
        assert_eq!(k[0].arch, "sm_80");
        assert_eq!((k[0].registers, k[0].spill_store_bytes), (14, 0));
        assert_eq!(k[1].arch, "sm_90");
        assert_eq!(
            (
                k[1].registers,
                k[1].spill_store_bytes,
                k[1].spill_load_bytes
            ),
            (255, 24, 16)
        );
    }

    #[test]
    fn hash_changes_with_salt() {
        assert_ne!(sources_hash("/a/nvcc"), sources_hash("/b/nvcc"));
        assert_eq!(sources_hash("x").len(), 16);
    }
}
