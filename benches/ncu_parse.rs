//! Throughput of `rooftrace ncu` on a large details-page CSV (not a timed
//! test; the target and the figures live in docs/bench-ncu.md).
//!
//! The input is generated once under the gitignored `bench-data/` from the
//! real shape of fixtures/ncu/bf16_gemm_ncu2025.1_import_details20.csv (ncu
//! 2025.1 import mode: 20 columns, ragged metric rows, rule rows with long
//! text, auto-scaled units, thousands separators): 100,000 launches of 64
//! kernel names over two processes, about 0.5 GB.
//!
//! Run: `cargo bench --bench ncu_parse` (add `-- --launches N` or
//! `-- --size 200MB` to resize, `-- --page details15` for the 15-column
//! default page of a live `ncu --csv` capture instead of the 20-column
//! import-mode page).
//! Prints parse+analyse throughput next to a baseline that only reads the
//! bytes and counts lines (what `wc -l` does), their ratio, and the peak RSS.

use std::io::{BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

const TEMPLATE: &str = include_str!("../fixtures/ncu/bf16_gemm_ncu2025.1_import_details20.csv");

/// The default `ncu --csv` page of a live capture (ncu 2024.2): 15 columns,
/// one metric per row, no rule rows, base units with thousands separators.
const TEMPLATE15: &str = include_str!("../fixtures/ncu/gpp_ncu2024.2_details15.csv");

const NAMES: [&str; 8] = [
    "void Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_256x128_32x3_tn_align8>(Params)",
    "void flash_fwd_kernel<Flash_fwd_kernel_traits<128, 64, 64, 4, false, false, cutlass::bfloat16_t>, true, false>(Flash_fwd_params)",
    "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>, at::detail::Array<char *, 3>>(int, at::native::CUDAFunctor_add<c10::BFloat16>, at::detail::Array<char *, 3>)",
    "void (anonymous namespace)::rms_norm_kernel<c10::BFloat16, 4>(c10::BFloat16 *, const c10::BFloat16 *, float, int)",
    "ampere_bf16_s16816gemm_bf16_128x64_ldg8_f2f_stages_64x4_tn",
    "void gemv2T_kernel_val<int, int, __nv_bfloat16, __nv_bfloat16, float, 128, 16, 4, 4, false, false>(cublasGemvParamsEx<int, cublasGemvTensorStridedBatched<const __nv_bfloat16>, cublasGemvTensorStridedBatched<__nv_bfloat16>, float>, float, float)",
    "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps<float, float, float, float>, unsigned int, float, 4>>(at::native::ReduceOp<float, at::native::MeanOps<float, float, float, float>, unsigned int, float, 4>)",
    "void silu_and_mul_kernel<c10::BFloat16>(c10::BFloat16 *, const c10::BFloat16 *, int)",
];

/// Which page shape to generate: `details20` (ncu 2025.1 import mode, the
/// original case) or `details15` (the default `ncu --csv` of a live capture).
#[derive(Clone, Copy, PartialEq)]
pub enum Page {
    Details20,
    Details15,
}

impl Page {
    fn template(self) -> &'static str {
        match self {
            Page::Details20 => TEMPLATE,
            Page::Details15 => TEMPLATE15,
        }
    }
}

/// Bytes one generated launch occupies on average (64 launches written to
/// memory: each kernel name in each of its 8 variants), to turn `--size`
/// into a launch count.
fn bytes_per_launch(page: Page) -> std::io::Result<usize> {
    let mut out = Vec::new();
    write_launches(&mut out, 64, page)?;
    let header = page.template().lines().next().map_or(0, str::len);
    Ok((out.len() - header) / 64)
}

pub(crate) fn generate(path: &Path, launches: usize, page: Page) -> std::io::Result<()> {
    std::fs::create_dir_all(path.parent().expect("bench-data/"))?;
    let tmp = path.with_extension("tmp");
    let mut file = BufWriter::with_capacity(1 << 20, std::fs::File::create(&tmp)?);
    write_launches(&mut file, launches, page)?;
    file.flush()?;
    drop(file);
    std::fs::rename(tmp, path)
}

/// Writes the header and `launches` launches of `page` to `out`.
fn write_launches(out: impl Write, launches: usize, page: Page) -> std::io::Result<()> {
    let mut rows = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(page.template().as_bytes());
    let template: Vec<csv::StringRecord> = rows.records().collect::<Result<_, _>>()?;
    let mut w = csv::WriterBuilder::new()
        .flexible(true)
        .quote_style(csv::QuoteStyle::Always)
        .from_writer(out);
    w.write_record(&template[0])?;
    for i in 0..launches {
        let pid = if i < launches / 2 {
            "1742833"
        } else {
            "1742901"
        };
        let name = format!("{} [{}]", NAMES[i % NAMES.len()], i % 64 / NAMES.len());
        let id = i.to_string();
        for r in &template[1..] {
            let mut f: Vec<String> = r.iter().map(str::to_string).collect();
            f[0] = id.clone();
            f[1] = pid.to_string();
            f[4] = name.clone();
            match f[12].as_str() {
                "dram__bytes_read.sum" => f[14] = format!("{:.2}", 5.0 + (i % 997) as f64 * 0.031),
                "gpu__time_duration.sum" | "Duration" => {
                    f[14] = format!("{:.2}", 20.0 + (i % 991) as f64 * 0.17)
                }
                "dram__bytes.sum" => f[14] = thousands(100_000_000 + (i as u64 % 997) * 3_456_789),
                "sm__sass_thread_inst_executed_op_dfma_pred_on.sum" => {
                    f[14] = thousands(50_000_000 + (i as u64 % 1009) * 1_234_567)
                }
                "sm__ops_path_tensor_src_bf16_dst_fp32.sum" => {
                    f[14] = thousands(1_000_000_000 + (i as u64 % 1009) * 12_345_678)
                }
                _ => {}
            }
            w.write_record(&f)?;
        }
    }
    w.flush()?;
    Ok(())
}

fn thousands(v: u64) -> String {
    let s = v.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let arg = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
    };
    let page = match arg("--page").map(String::as_str) {
        None | Some("details20") => Page::Details20,
        Some("details15") => Page::Details15,
        Some(other) => return Err(format!("--page {other}: use details20 or details15").into()),
    };
    let launches = match (arg("--launches"), arg("--size")) {
        (Some(n), _) => n.parse()?,
        (None, Some(size)) => {
            let mb: usize = size.trim_end_matches("MB").parse()?;
            (mb * 1_000_000 / bytes_per_launch(page)?).max(1)
        }
        (None, None) => 100_000,
    };
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let stem = match page {
        Page::Details20 => "ncu_details20",
        Page::Details15 => "ncu_details15",
    };
    let path = root.join(format!("bench-data/{stem}_{launches}.csv"));
    if !path.exists() {
        let t = Instant::now();
        generate(&path, launches, page)?;
        eprintln!(
            "generated {} in {:.1} s",
            path.display(),
            t.elapsed().as_secs_f64()
        );
    }
    let bytes = std::fs::metadata(&path)?.len();
    let mb = bytes as f64 / 1e6;
    let rss_before = peak_rss_kib();

    // Baseline: read every byte and count lines, as `wc -l` does.
    let mut base = f64::INFINITY;
    for _ in 0..3 {
        let t = Instant::now();
        let mut f = std::fs::File::open(&path)?;
        let mut buf = vec![0u8; 1 << 16];
        let mut lines = 0usize;
        loop {
            let n = f.read(&mut buf)?;
            if n == 0 {
                break;
            }
            lines += buf[..n].iter().filter(|&&b| b == b'\n').count();
        }
        std::hint::black_box(lines);
        base = base.min(t.elapsed().as_secs_f64());
    }

    let g = rooftrace::roofs::gpus::by_key("h100-sxm").expect("in table");
    let roofs = g.default_roofs();
    let mut best = f64::INFINITY;
    let mut rows = 0;
    for _ in 0..3 {
        let t = Instant::now();
        let csv = rooftrace::ncu::parse(std::fs::File::open(&path)?, "bench")?;
        let info = rooftrace::roofs::GpuInfo {
            key: Some(g.key.into()),
            name: g.name.into(),
            chosen_by: rooftrace::roofs::GpuChoice::CommandLine,
            notes: Vec::new(),
        };
        let report =
            rooftrace::roofline::analyze(&csv, &roofs, info, rooftrace::roofline::GroupBy::Launch);
        rows = report.kernels.len();
        std::hint::black_box(&report);
        best = best.min(t.elapsed().as_secs_f64());
    }
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "file: {} ({mb:.0} MB, {launches} launches, {rows} rows)",
        path.display()
    )?;
    writeln!(
        out,
        "baseline read+count lines: {:.3} s, {:.0} MB/s",
        base,
        mb / base
    )?;
    writeln!(
        out,
        "rooftrace parse+analyse:   {:.3} s, {:.0} MB/s (best of 3)",
        best,
        mb / best
    )?;
    writeln!(out, "ratio rooftrace/baseline time: {:.1}x", best / base)?;
    if let (Some(b), Some(a)) = (rss_before, peak_rss_kib()) {
        writeln!(
            out,
            "peak RSS: {:.1} MiB (before parsing: {:.1} MiB)",
            a as f64 / 1024.0,
            b as f64 / 1024.0
        )?;
    }
    Ok(())
}
