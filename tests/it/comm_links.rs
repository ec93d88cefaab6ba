//! `rooftrace comm`'s links (issue 44 part B): the GPU table's row follows
//! the device name's form factor (a PCIe card is held to PCIe), a 2-GPU
//! group on a mesh board without NVSwitch (DGX-1) to the links of one
//! pair, NVLS kernels named when their busbw passes the link; and the
//! small items (rank labels, sizes, counts, conflicting group facts).

use crate::common::rooftrace_json;
use rooftrace::comm::{CollKind, LinkConfig, LinkKind};
use rooftrace::roofs::gpus::{self, Needle};
use rooftrace::synth::kineto::{Launch, TraceBuilder};
use serde_json::{Map, Value};

/// Relative difference.
fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs())
}

/// PCIe Gen4 x16 per direction: 16 GT/s × 16 lanes × 128/130 / 8, byte/s.
const PCIE4_X16: f64 = 16e9 * 16.0 * 128.0 / 130.0 / 8.0;

/// One collective's kernel arguments as PyTorch writes them on the kernel.
fn args(name: &str, nelems: u64, dtype: &str, ranks: &[u32]) -> Map<String, Value> {
    let list: Vec<String> = ranks.iter().map(u32::to_string).collect();
    let mut a = Map::new();
    a.insert("Collective name".into(), name.into());
    a.insert("In msg nelems".into(), nelems.into());
    a.insert("Out msg nelems".into(), nelems.into());
    a.insert("dtype".into(), dtype.into());
    a.insert("Group size".into(), ranks.len().into());
    a.insert(
        "Process Group Ranks".into(),
        format!("[{}]", list.join(", ")).into(),
    );
    a.insert("Process Group Name".into(), "0".into());
    a
}

/// A one-rank trace on `device` (device 0) whose kernels are `kernels`
/// (name, kernel args, duration ns), 1 ms apart.
fn one_rank(
    dir: &std::path::Path,
    file: &str,
    device: &str,
    rank: Option<u32>,
    kernels: &[(&str, Map<String, Value>, i64)],
) -> std::path::PathBuf {
    let mut t = TraceBuilder::new(100).device(0, device, (8, 0), 108);
    if let Some(r) = rank {
        t = t.distributed(r, 8);
    }
    for (i, (kernel, a, dur)) in kernels.iter().enumerate() {
        let base = 1_000_000 + 1_000_000 * i as i64;
        t.launch(Launch {
            kernel,
            host_ns: base,
            gpu_start_ns: base + 10_000,
            gpu_dur_ns: *dur,
            device: 0,
            stream: 20,
            args: a.clone(),
        });
    }
    let p = dir.join(file);
    std::fs::write(&p, serde_json::to_vec(&t.to_value()).unwrap()).unwrap();
    p
}

/// A device name a pattern's needles spell, with `extra` words added.
fn spelled(p: &gpus::NamePattern, extra: &str) -> String {
    let words: Vec<&str> = p
        .all
        .iter()
        .map(|n| match n {
            Needle::Has(s) | Needle::Word(s) => *s,
        })
        .collect();
    format!("NVIDIA {} {extra}", words.join(" "))
}

#[test]
fn every_rows_pcie_name_gets_a_pcie_row_and_its_sxm_name_never_a_pcie_row() {
    // For every row of the table and every device-name pattern it has, the
    // pattern's words plus `PCIe` name either no row or one without NVLink
    // (a PCIe card's collectives cross PCIe: link kind pcie for a group on
    // one node, or unknown where the row has no host-link source, never
    // NVLink); plus `SXM`, never a row whose name says PCIe; plus `NVL`
    // (H100 NVL, H200 NVL: other boards), no row.
    let mut pcie_rows = 0;
    for g in gpus::all() {
        for p in g.device_names {
            let pcie = spelled(p, "PCIe");
            if let Some(row) = gpus::by_device_name(&pcie) {
                assert!(row.facts.nvlink.is_none(), "{pcie:?} → {}", row.key);
                let links = LinkConfig::new(Some(row), None, Some(8));
                match links.link_for(Some(&[0, 1]), Some(2)) {
                    Ok(l) => {
                        assert_eq!(l.kind, LinkKind::Pcie, "{pcie:?} → {}", row.key);
                        pcie_rows += 1;
                    }
                    Err(why) => assert!(row.facts.host_link.is_none(), "{why}"),
                }
            }
            let says_pcie = p.all.iter().any(|n| matches!(n, Needle::Has("pcie")));
            if !says_pcie {
                let sxm = spelled(p, "SXM");
                if let Some(row) = gpus::by_device_name(&sxm) {
                    assert!(!row.name.contains("PCIe"), "{sxm:?} → {}", row.key);
                }
            }
            assert!(gpus::by_device_name(&spelled(p, "NVL")).is_none());
        }
    }
    assert!(pcie_rows >= 10, "{pcie_rows}");
    // The card, by the name the driver prints.
    let row = gpus::by_device_name("NVIDIA A100-PCIE-40GB").unwrap();
    assert_eq!(row.key, "a100-40gb-pcie");
    assert_eq!(
        gpus::by_device_name("NVIDIA A100-SXM4-40GB").unwrap().key,
        "a100-40gb"
    );
}

#[test]
fn an_a100_pcie_40gb_trace_is_held_to_pcie_not_the_sxm_cards_nvlink() {
    // One all-reduce of 64 Mi float32 (256 MiB) between ranks 0 and 1 of an
    // 8-GPU node, 20 ms: algbw = 268435456 B / 0.02 s = 13.42 GB/s, busbw =
    // algbw × 2·1/2 = 13.42 GB/s; against PCIe Gen4 x16 (31.51 GB/s per
    // direction) 42.6 %; against the SXM part's NVLink (300 GB/s) it was
    // 4.47 %, 9.5× too low.
    let dir = tempfile::tempdir().unwrap();
    let p = one_rank(
        dir.path(),
        "rank0.json",
        "NVIDIA A100-PCIE-40GB",
        Some(0),
        &[(
            "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
            args("allreduce", 64 << 20, "Float", &[0, 1]),
            20_000_000,
        )],
    );
    let (code, out, err) = rooftrace_json(&["comm", p.to_str().unwrap(), "--gpus-per-node", "8"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out["gpu"], "NVIDIA A100 40GB PCIe");
    let r = &out["collectives"][0];
    assert_eq!(r["link"], "pcie", "{r}");
    let busbw = (256u64 << 20) as f64 / 0.02;
    assert!(
        close(r["busbw_bytes_per_s"].as_f64().unwrap(), busbw),
        "{r}"
    );
    assert!(
        close(r["link_fraction"].as_f64().unwrap(), busbw / PCIE4_X16),
        "{r}"
    );
    assert!((r["link_fraction"].as_f64().unwrap() - 0.426).abs() < 0.001);
}

#[test]
fn a_two_gpu_group_on_a_dgx1_mesh_is_held_to_one_pairs_links() {
    // Tesla V100-SXM2-16GB: DGX-1's hybrid cube-mesh, no NVSwitch; a pair
    // shares at most 2 NVLink 2 links = 50 GB/s per direction, the GPU's
    // six 150 GB/s. Two all-reduces of 16 Mi float32 (64 MiB) in 2 ms:
    // algbw 33.55 GB/s; on 2 ranks busbw = algbw (factor 1), 67.1 % of the
    // pair's 50 GB/s; on 8 ranks busbw = algbw × 1.75 = 58.7 GB/s, 39.1 %
    // of the whole 150 GB/s (the 8-GPU ring crosses every link).
    let dir = tempfile::tempdir().unwrap();
    let all: Vec<u32> = (0..8).collect();
    let k = "ncclDevKernel_AllReduce_Sum_f32_RING_LL";
    let p = one_rank(
        dir.path(),
        "rank0.json",
        "Tesla V100-SXM2-16GB",
        Some(0),
        &[
            (k, args("allreduce", 16 << 20, "Float", &[0, 1]), 2_000_000),
            (k, args("allreduce", 16 << 20, "Float", &all), 2_000_000),
        ],
    );
    let (code, out, err) = rooftrace_json(&["comm", p.to_str().unwrap(), "--gpus-per-node", "8"]);
    assert_eq!(code, 0, "{err}");
    let algbw = (64u64 << 20) as f64 / 0.002;
    let rows = out["collectives"].as_array().unwrap();
    assert_eq!(rows[0]["link"], "nvlink_pair", "{}", rows[0]);
    assert!(close(
        rows[0]["link_fraction"].as_f64().unwrap(),
        algbw / 50e9
    ));
    assert_eq!(rows[1]["link"], "nvlink", "{}", rows[1]);
    assert!(close(
        rows[1]["link_fraction"].as_f64().unwrap(),
        algbw * 1.75 / 150e9
    ));
    // The pair's roof is listed with its source, and named in the table.
    let links = out["links"].to_string();
    assert!(links.contains("hybrid cube-mesh"), "{links}");
    let (_, table, _) =
        crate::common::rooftrace(&["comm", p.to_str().unwrap(), "--gpus-per-node", "8"]);
    assert!(table.contains("nvlink_pair"), "{table}");
}

#[test]
fn an_nvls_all_reduce_above_the_link_is_named_not_left_unexplained() {
    // H100 SXM (NVLink 4, 18 links: 450 GB/s per direction), 8 ranks: an
    // NVLS all-reduce of 256 Mi bf16 (512 MiB) in 1.5 ms: algbw 357.9 GB/s,
    // busbw × 1.75 = 626.3 GB/s, 139 % of the link: NVLS (the NVSwitch
    // reduces). A ring kernel of the same size is not NVLS.
    let dir = tempfile::tempdir().unwrap();
    let all: Vec<u32> = (0..8).collect();
    let p = one_rank(
        dir.path(),
        "rank0.json",
        "NVIDIA H100 80GB HBM3",
        Some(0),
        &[
            (
                "ncclDevKernel_AllReduce_Sum_bf16_NVLS(ncclDevKernelArgsStorage<4096ul>)",
                args("allreduce", 256 << 20, "BFloat16", &all),
                1_500_000,
            ),
            (
                "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
                args("allreduce", 256 << 20, "BFloat16", &all),
                3_000_000,
            ),
        ],
    );
    let (code, out, err) = rooftrace_json(&["comm", p.to_str().unwrap(), "--gpus-per-node", "8"]);
    assert_eq!(code, 0, "{err}");
    let rows = out["collectives"].as_array().unwrap();
    let fraction = (512u64 << 20) as f64 / 1.5e-3 * 1.75 / 450e9;
    assert!(close(rows[0]["link_fraction"].as_f64().unwrap(), fraction));
    assert!(fraction > 1.0);
    assert_eq!(rows[0]["nvls"], true);
    assert_eq!(rows[1]["nvls"], false);
    let diags = out["diagnostics"].to_string();
    assert!(diags.contains("1 collective ran an NVLS kernel"), "{diags}");
    let (_, table, _) =
        crate::common::rooftrace(&["comm", p.to_str().unwrap(), "--gpus-per-node", "8"]);
    assert!(table.contains("139.2 % NVLS"), "{table}");
    assert!(CollKind::is_nvls_kernel(
        "ncclDevKernel_AllReduce_Sum_f32_NVLS_TREE"
    ));
    assert!(!CollKind::is_nvls_kernel(
        "ncclDevKernel_AllReduce_Sum_f32_RING_LL"
    ));
}
