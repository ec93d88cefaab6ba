//! Finding nvcc and the cuBLASLt library to link, in this order: `--nvcc`,
//! `PATH`, `$CUDA_HOME/bin` (and `$CUDA_PATH/bin`), `/usr/local/cuda/bin`,
//! then the layouts of NVIDIA's pip wheels under each Python site-packages
//! directory:
//!
//! * CUDA 13 wheels (`nvidia-cuda-nvcc`, `nvidia-cublas`, ...) share one
//!   prefix: `nvidia/cu13/{bin,include,lib}` (`lib/libcublasLt.so.13`, no
//!   unversioned symlink, so it is linked as `-l:libcublasLt.so.13`).
//! * CUDA 12 wheels (`nvidia-cuda-nvcc-cu12`, ...) use one prefix per
//!   package: `nvidia/cuda_nvcc/bin/nvcc`, `nvidia/cublas/{include,lib}`,
//!   `nvidia/cuda_runtime/{include,lib}`.
//!
//! cuBLASLt (`libcublasLt.so*`) is looked for on its own, because a
//! toolkit's nvcc often comes without it: beside nvcc (`<prefix>/lib64`,
//! `<prefix>/lib`, the CUDA 12 wheels' sibling `nvidia/cublas/lib`), then in
//! the pip wheels of every site-packages directory (`nvidia/cu13/lib`,
//! `nvidia/cublas/lib`), then `LD_LIBRARY_PATH`, then the system library
//! path (`/etc/ld.so.conf.d/*.conf` and the usual lib directories). The
//! first hit wins; its `../include` is added when `cublasLt.h` is there, and
//! [`Toolchain::cublaslt_looked`] lists every place searched.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// How to install what is missing (shown in every "not found" message).
pub const PIP_INSTALL: &str =
    "pip install nvidia-cuda-nvcc nvidia-cuda-cccl nvidia-cublas nvidia-cuda-runtime";

/// Where to look for nvcc: plain data, so the search is testable.
#[derive(Debug, Clone, Default)]
pub struct Search {
    /// `--nvcc`, when given (then it is the only candidate).
    pub explicit: Option<PathBuf>,
    /// The `PATH` variable.
    pub path_var: Option<OsString>,
    /// `$CUDA_HOME`, `$CUDA_PATH` and the default toolkit prefixes.
    pub cuda_homes: Vec<PathBuf>,
    /// Python site-packages directories (pip wheels).
    pub site_packages: Vec<PathBuf>,
    /// The `LD_LIBRARY_PATH` variable (searched for cuBLASLt).
    pub ld_library_path: Option<OsString>,
    /// The system library directories (searched for cuBLASLt last).
    pub system_lib_dirs: Vec<PathBuf>,
}

impl Search {
    /// The search for this process: environment variables, and the
    /// site-packages directories `python3` reports (none if there is no
    /// `python3`).
    pub fn from_env(explicit: Option<PathBuf>) -> Search {
        let mut cuda_homes: Vec<PathBuf> = ["CUDA_HOME", "CUDA_PATH"]
            .iter()
            .filter_map(std::env::var_os)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .collect();
        cuda_homes.push(PathBuf::from("/usr/local/cuda"));
        Search {
            explicit,
            path_var: std::env::var_os("PATH"),
            cuda_homes,
            site_packages: python_site_packages(),
            ld_library_path: std::env::var_os("LD_LIBRARY_PATH"),
            system_lib_dirs: system_lib_dirs(),
        }
    }
}

/// The directories the dynamic linker searches: those listed in
/// `/etc/ld.so.conf.d/*.conf` (sorted, as ldconfig reads them), then the
/// usual defaults. Only existing directories, each once.
fn system_lib_dirs() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = Vec::new();
    let mut confs: Vec<PathBuf> = std::fs::read_dir("/etc/ld.so.conf.d")
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "conf"))
                .collect()
        })
        .unwrap_or_default();
    confs.sort();
    for conf in confs {
        let text = std::fs::read_to_string(&conf).unwrap_or_default();
        for line in text.lines().map(str::trim) {
            if line.starts_with('/') {
                dirs.push(PathBuf::from(line));
            }
        }
    }
    for d in [
        "/usr/local/lib",
        "/usr/lib/x86_64-linux-gnu",
        "/usr/lib/aarch64-linux-gnu",
        "/usr/lib64",
        "/usr/lib",
        "/lib64",
        "/lib",
    ] {
        dirs.push(PathBuf::from(d));
    }
    let mut out: Vec<PathBuf> = Vec::new();
    for d in dirs {
        if d.is_dir() && !out.contains(&d) {
            out.push(d);
        }
    }
    out
}

fn python_site_packages() -> Vec<PathBuf> {
    let script = "import site, sys\n\
                  dirs = list(getattr(site, 'getsitepackages', lambda: [])())\n\
                  dirs.append(site.getusersitepackages())\n\
                  dirs += [p for p in sys.path if p.endswith('-packages')]\n\
                  print('\\n'.join(dirs))";
    for python in ["python3", "python"] {
        if let Ok(out) = std::process::Command::new(python)
            .args(["-c", script])
            .output()
        {
            if out.status.success() {
                let mut v: Vec<PathBuf> = Vec::new();
                for l in String::from_utf8_lossy(&out.stdout).lines() {
                    let p = PathBuf::from(l.trim());
                    if !l.trim().is_empty() && !v.contains(&p) {
                        v.push(p);
                    }
                }
                return v;
            }
        }
    }
    Vec::new()
}

/// A usable CUDA toolchain.
#[derive(Debug, Clone, PartialEq)]
pub struct Toolchain {
    /// The nvcc executable.
    pub nvcc: PathBuf,
    /// Extra `-I` directories (pip CUDA 12 layout).
    pub include_dirs: Vec<PathBuf>,
    /// Extra `-L` and rpath directories.
    pub lib_dirs: Vec<PathBuf>,
    /// How to link cuBLASLt: `-lcublasLt` or `-l:libcublasLt.so.13`; `None`
    /// when no cuBLASLt library was found (compiling still works).
    pub cublaslt: Option<String>,
    /// The directory cuBLASLt was found in.
    pub cublaslt_dir: Option<PathBuf>,
    /// Every place searched for cuBLASLt, in order, up to the hit
    /// (`beside nvcc: DIR`, `pip: DIR`, `LD_LIBRARY_PATH: DIR`, `system: DIR`).
    pub cublaslt_looked: Vec<String>,
}

impl Toolchain {
    /// nvcc flags for include directories, library directories (with rpath,
    /// so the harness finds pip's libraries at run time) and cuBLASLt.
    pub fn link_flags(&self) -> Vec<OsString> {
        let mut v: Vec<OsString> = Vec::new();
        for d in &self.lib_dirs {
            v.push(format!("-L{}", d.display()).into());
            v.push("-Xlinker".into());
            v.push(format!("-rpath,{}", d.display()).into());
        }
        if let Some(l) = &self.cublaslt {
            v.push(l.into());
        }
        // The harness dlopens NVML; glibc < 2.34 keeps dlopen in libdl.
        v.push("-ldl".into());
        v
    }

    /// nvcc `-I` flags.
    pub fn include_flags(&self) -> Vec<OsString> {
        self.include_dirs
            .iter()
            .map(|d| format!("-I{}", d.display()).into())
            .collect()
    }
}

/// nvcc could not be found; the message lists where we looked and how to get it.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("nvcc not found (looked in: {}). Install it with `{PIP_INSTALL}` (CUDA 13 wheels), or the CUDA toolkit, or pass --nvcc /path/to/nvcc", .looked.join(", "))]
pub struct NotFound {
    /// The places searched, in order.
    pub looked: Vec<String>,
}

fn is_file(p: &Path) -> bool {
    p.is_file()
}

/// Finds nvcc and the libraries around it.
pub fn find(search: &Search) -> Result<Toolchain, NotFound> {
    let mut looked = Vec::new();
    if let Some(p) = &search.explicit {
        if is_file(p) {
            return Ok(around(p, search));
        }
        looked.push(format!("--nvcc {}", p.display()));
        return Err(NotFound { looked });
    }
    if let Some(path) = &search.path_var {
        for dir in std::env::split_paths(path) {
            let p = dir.join("nvcc");
            if is_file(&p) {
                return Ok(around(&p, search));
            }
        }
    }
    looked.push("PATH".to_string());
    for home in &search.cuda_homes {
        let p = home.join("bin").join("nvcc");
        if is_file(&p) {
            return Ok(around(&p, search));
        }
        looked.push(home.join("bin").display().to_string());
    }
    for sp in &search.site_packages {
        for rel in ["nvidia/cu13/bin/nvcc", "nvidia/cuda_nvcc/bin/nvcc"] {
            let p = sp.join(rel);
            if is_file(&p) {
                return Ok(around(&p, search));
            }
        }
        looked.push(format!("{}/nvidia/{{cu13,cuda_nvcc}}/bin", sp.display()));
    }
    Err(NotFound { looked })
}

/// The toolchain around a found nvcc: `<prefix>/lib{,64}` for a toolkit or
/// CUDA 13 wheels, the sibling `nvidia/*` packages for CUDA 12 wheels; then
/// cuBLASLt wherever [`find_cublaslt`] finds it.
fn around(nvcc: &Path, search: &Search) -> Toolchain {
    let prefix = nvcc
        .parent()
        .and_then(Path::parent)
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let mut include_dirs = Vec::new();
    let mut lib_dirs: Vec<PathBuf> = ["lib64", "lib"]
        .iter()
        .map(|d| prefix.join(d))
        .filter(|d| d.is_dir())
        .collect();
    // CUDA 12 wheels: <site>/nvidia/cuda_nvcc/bin/nvcc, siblings beside it.
    if prefix.file_name().is_some_and(|n| n == "cuda_nvcc") {
        if let Some(nvidia) = prefix.parent() {
            for pkg in ["cuda_runtime", "cublas", "cuda_cccl"] {
                let inc = nvidia.join(pkg).join("include");
                if inc.is_dir() {
                    include_dirs.push(inc);
                }
                let lib = nvidia.join(pkg).join("lib");
                if lib.is_dir() {
                    lib_dirs.push(lib);
                }
            }
        }
    }
    let mut tc = Toolchain {
        nvcc: nvcc.to_path_buf(),
        include_dirs,
        lib_dirs,
        cublaslt: None,
        cublaslt_dir: None,
        cublaslt_looked: Vec::new(),
    };
    find_cublaslt(&mut tc, search);
    tc
}

/// Looks for cuBLASLt beside nvcc (the toolchain's library directories),
/// in the pip wheels, on `LD_LIBRARY_PATH`, then on the system library
/// path; records where it looked, and on a hit adds the directory (and its
/// `../include` when `cublasLt.h` is there) to the toolchain.
fn find_cublaslt(tc: &mut Toolchain, search: &Search) {
    let mut candidates: Vec<(&str, PathBuf)> = tc
        .lib_dirs
        .iter()
        .map(|d| ("beside nvcc", d.clone()))
        .collect();
    for sp in &search.site_packages {
        for rel in ["nvidia/cu13/lib", "nvidia/cublas/lib"] {
            candidates.push(("pip", sp.join(rel)));
        }
    }
    if let Some(v) = &search.ld_library_path {
        for d in std::env::split_paths(v).filter(|d| !d.as_os_str().is_empty()) {
            candidates.push(("LD_LIBRARY_PATH", d));
        }
    }
    for d in &search.system_lib_dirs {
        candidates.push(("system", d.clone()));
    }
    for (origin, dir) in candidates {
        tc.cublaslt_looked
            .push(format!("{origin}: {}", dir.display()));
        let Some(flag) = cublaslt_flag(&dir) else {
            continue;
        };
        if let Some(inc) = dir.parent().map(|p| p.join("include")) {
            if inc.join("cublasLt.h").is_file() && !tc.include_dirs.contains(&inc) {
                tc.include_dirs.push(inc);
            }
        }
        if !tc.lib_dirs.contains(&dir) {
            tc.lib_dirs.push(dir.clone());
        }
        tc.cublaslt = Some(flag);
        tc.cublaslt_dir = Some(dir);
        return;
    }
}

fn cublaslt_flag(dir: &Path) -> Option<String> {
    if dir.join("libcublasLt.so").exists() || dir.join("cublasLt.lib").exists() {
        return Some("-lcublasLt".to_string());
    }
    let mut versioned: Vec<String> = std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("libcublasLt.so."))
        .collect();
    versioned.sort();
    versioned.first().map(|n| format!("-l:{n}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pip_cu13_layout_is_found_with_versioned_cublaslt() {
        let dir = tempfile::tempdir().unwrap();
        let cu13 = dir.path().join("nvidia/cu13");
        std::fs::create_dir_all(cu13.join("bin")).unwrap();
        std::fs::create_dir_all(cu13.join("lib")).unwrap();
        std::fs::write(cu13.join("bin/nvcc"), "").unwrap();
        std::fs::write(cu13.join("lib/libcublasLt.so.13"), "").unwrap();
        let search = Search {
            site_packages: vec![dir.path().to_path_buf()],
            ..Search::default()
        };
        let t = find(&search).unwrap();
        assert_eq!(t.nvcc, cu13.join("bin/nvcc"));
        assert_eq!(t.lib_dirs, vec![cu13.join("lib")]);
        assert_eq!(t.cublaslt.as_deref(), Some("-l:libcublasLt.so.13"));
    }

    #[test]
    fn pip_cu12_layout_adds_sibling_packages() {
        let dir = tempfile::tempdir().unwrap();
        let nv = dir.path().join("nvidia");
        for d in [
            "cuda_nvcc/bin",
            "cublas/include",
            "cublas/lib",
            "cuda_runtime/include",
        ] {
            std::fs::create_dir_all(nv.join(d)).unwrap();
        }
        std::fs::write(nv.join("cuda_nvcc/bin/nvcc"), "").unwrap();
        std::fs::write(nv.join("cublas/lib/libcublasLt.so.12"), "").unwrap();
        let search = Search {
            site_packages: vec![dir.path().to_path_buf()],
            ..Search::default()
        };
        let t = find(&search).unwrap();
        assert_eq!(
            t.include_dirs,
            vec![nv.join("cuda_runtime/include"), nv.join("cublas/include")]
        );
        assert_eq!(t.lib_dirs, vec![nv.join("cublas/lib")]);
        assert_eq!(t.cublaslt.as_deref(), Some("-l:libcublasLt.so.12"));
    }

    #[test]
    fn not_found_says_where_and_how() {
        let search = Search {
            cuda_homes: vec![PathBuf::from("/nonexistent/cuda")],
            site_packages: vec![PathBuf::from("/nonexistent/site-packages")],
            ..Search::default()
        };
        let e = find(&search).unwrap_err().to_string();
        assert!(e.starts_with("nvcc not found (looked in: PATH, /nonexistent/cuda/bin, /nonexistent/site-packages/nvidia/{cu13,cuda_nvcc}/bin)"), "{e}");
        assert!(e.contains(PIP_INSTALL), "{e}");
        let explicit = Search {
            explicit: Some(PathBuf::from("/nonexistent/nvcc")),
            ..Search::default()
        };
        assert!(find(&explicit)
            .unwrap_err()
            .to_string()
            .contains("--nvcc /nonexistent/nvcc"));
    }
}
