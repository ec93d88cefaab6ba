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
    let timed: Vec<Kernel> = kernels
        .iter()
        .enumerate()
        .map(|(i, (kernel, a, dur))| Kernel {
            name: kernel,
            args: a.clone(),
            start_ns: 1_010_000 + 1_000_000 * i as i64,
            dur_ns: *dur,
        })
        .collect();
    trace(dir, file, device, rank, &timed)
}

/// One kernel of a synthetic trace.
struct Kernel<'a> {
    name: &'a str,
    args: Map<String, Value>,
    start_ns: i64,
    dur_ns: i64,
}

/// A trace of `kernels` on `device` (device 0, stream 20), each launched
/// 10 µs before it starts; `rank` in `distributedInfo` (world of 8) when
/// given.
fn trace(
    dir: &std::path::Path,
    file: &str,
    device: &str,
    rank: Option<u32>,
    kernels: &[Kernel],
) -> std::path::PathBuf {
    let mut t = TraceBuilder::new(100).device(0, device, (8, 0), 108);
    if let Some(r) = rank {
        t = t.distributed(r, 8);
    }
    for k in kernels {
        t.launch(Launch {
            kernel: k.name,
            host_ns: k.start_ns - 10_000,
            gpu_start_ns: k.start_ns,
            gpu_dur_ns: k.dur_ns,
            device: 0,
            stream: 20,
            args: k.args.clone(),
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

/// The corpus export holding two torchrun ranks' processes (pid 144 on
/// device 0, pid 145 on device 1), each with 33 `ncclDevKernel_SendRecv`.
const TWO_PROCESSES: &str = "nsys/nsys2026.2.1_nsysai_mfu_2gpu_before_nccl.sqlite";

/// One process's kernels, [start, end) ns: NCCL's and the others.
#[derive(Default)]
struct ProcessKernels {
    comm: Vec<(i64, i64)>,
    compute: Vec<(i64, i64)>,
}

/// Sorted disjoint intervals of `iv`.
fn union(mut iv: Vec<(i64, i64)>) -> Vec<(i64, i64)> {
    iv.sort_unstable();
    let mut out: Vec<(i64, i64)> = Vec::new();
    for (s, e) in iv {
        match out.last_mut() {
            Some(last) if s <= last.1 => last.1 = last.1.max(e),
            _ => out.push((s, e)),
        }
    }
    out
}

#[test]
fn an_nsys_export_of_two_processes_gives_two_ranks_with_their_own_kernels() {
    // Per process, from the export's rows in SQL (no rooftrace code): its
    // NCCL kernels' union (comm_ns) and the part of it no other kernel of
    // that process overlaps (exposed_ns), computed here by interval
    // arithmetic. Both processes share the export's clock: offsets 0, no
    // alignment error; the SendRecv kernels match by order (no sizes, no
    // sequence numbers in this export), each row held by both ranks.
    let Some(p) = crate::common::corpus_file(TWO_PROCESSES) else {
        return;
    };
    let conn =
        rusqlite::Connection::open_with_flags(&p, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .unwrap();
    let mut st = conn
        .prepare(
            "SELECT (k.globalPid >> 24) & 16777215, k.start, k.\"end\", s.value LIKE 'nccl%'
             FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = k.shortName",
        )
        .unwrap();
    let mut per_pid: std::collections::BTreeMap<i64, ProcessKernels> = Default::default();
    let rows = st
        .query_map([], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get(1)?,
                r.get(2)?,
                r.get::<_, bool>(3)?,
            ))
        })
        .unwrap();
    for row in rows {
        let (pid, s, e, nccl) = row.unwrap();
        let entry = per_pid.entry(pid).or_default();
        if nccl {
            entry.comm.push((s, e));
        } else {
            entry.compute.push((s, e));
        }
    }
    assert_eq!(per_pid.keys().copied().collect::<Vec<_>>(), [144, 145]);
    let (code, out, err) = rooftrace_json(&["comm", p.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let ranks = out["ranks"].as_array().unwrap();
    assert_eq!(ranks.len(), 2, "{out}");
    for (pid, ProcessKernels { comm, compute }) in &per_pid {
        assert_eq!(comm.len(), 33);
        let c = union(comm.clone());
        let k = union(compute.clone());
        let comm_ns: i64 = c.iter().map(|x| x.1 - x.0).sum();
        let mut overlap = 0;
        for a in &c {
            for b in &k {
                overlap += (a.1.min(b.1) - a.0.max(b.0)).max(0);
            }
        }
        let r = ranks
            .iter()
            .find(|r| {
                r["input"]
                    .as_str()
                    .unwrap()
                    .ends_with(&format!("(pid {pid})"))
            })
            .unwrap_or_else(|| panic!("pid {pid}: {ranks:?}"));
        assert_eq!(r["comm_ns"].as_i64().unwrap(), comm_ns, "{r}");
        assert_eq!(r["exposed_ns"].as_i64().unwrap(), comm_ns - overlap, "{r}");
        assert_eq!(r["clock_offset_ns"], 0);
        assert_eq!(r["clock_error_ns"], 0);
        assert!(r["rank"].is_null());
    }
    // One clock: both on the first process's (clock_path), no residual, so
    // no noise floor to name and no sets of unrelated clocks.
    assert_eq!(ranks[0]["clock_path"], serde_json::json!([]));
    assert_eq!(ranks[1]["clock_path"], serde_json::json!([null]));
    let diags = out["diagnostics"].to_string();
    assert!(
        !diags.contains("noise floor") && !diags.contains("share no collective"),
        "{diags}"
    );
    let rows = out["collectives"].as_array().unwrap();
    assert_eq!(rows.len(), 33);
    assert!(rows
        .iter()
        .all(|r| r["ranks_given"] == 2 && r["kind"] == "send_recv"));
    // The help says nsys exports are read.
    let (_, help, _) = crate::common::rooftrace(&["comm", "--help"]);
    assert!(help.contains("nsys export --type=sqlite"), "{help}");
    assert!(help.contains("several ranks' processes"), "{help}");
}

const RING: &str = "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)";

#[test]
fn traces_without_a_recorded_rank_get_no_false_warning_and_a_label() {
    // Two traces with no distributedInfo and file names without a rank
    // (alpha, beta), one all-reduce of group [0, 1] (Seq 0) on one clock:
    // alpha starts at 1.01 ms and waits; beta starts 2 ms later; both end
    // at 3.31 ms. Both of the group's two ranks are given, so the waits are
    // not lower bounds and no "not given" warning; beta is last, named by
    // its file since its rank is not recorded; alpha waited 2 ms.
    let dir = tempfile::tempdir().unwrap();
    let mut a = args("allreduce", 1 << 20, "Float", &[0, 1]);
    a.insert("Seq".into(), 0.into());
    let k = |start_ns, dur_ns| Kernel {
        name: RING,
        args: a.clone(),
        start_ns,
        dur_ns,
    };
    trace(
        dir.path(),
        "alpha.json",
        "NVIDIA H100 80GB HBM3",
        None,
        &[k(1_010_000, 2_300_000)],
    );
    trace(
        dir.path(),
        "beta.json",
        "NVIDIA H100 80GB HBM3",
        None,
        &[k(3_010_000, 300_000)],
    );
    let d = dir.path().to_str().unwrap();
    let (code, out, err) = rooftrace_json(&["comm", d]);
    assert_eq!(code, 0, "{err}");
    let r = &out["collectives"][0];
    assert_eq!(r["waits_lower_bound"], false, "{r}");
    assert!(r["last_rank"].is_null());
    assert!(
        r["last_input"].as_str().unwrap().ends_with("beta.json"),
        "{r}"
    );
    assert_eq!(r["wait_ns"], 2_000_000);
    let diags = out["diagnostics"].to_string();
    assert!(!diags.contains("not given"), "{diags}");
    let (_, table, _) = crate::common::rooftrace(&["comm", d]);
    assert!(
        table.contains("the rank of")
            && table.contains("beta.json (rank not recorded) arrived last at 1 collective"),
        "{table}"
    );
}

#[test]
fn gather_and_scatter_take_nccl_tests_sizes_and_factors() {
    // nccl-tests src/gather.cu, src/scatter.cu: size = count × nranks ×
    // type size (all ranks' parts), busbw = algbw × (n−1)/n. Four ranks,
    // 1000 float32 per rank, 1 ms: 16,000 B, algbw 16 MB/s, busbw 12 MB/s,
    // on the root (its output or input holds all parts: 4000) and on a
    // non-root rank (0 there: its own part × 4).
    let dir = tempfile::tempdir().unwrap();
    let ranks = [0, 1, 2, 3];
    let with = |name: &str, inn: u64, out: u64| {
        let mut a = args(name, inn, "Float", &ranks);
        a.insert("Out msg nelems".into(), out.into());
        (
            "ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)",
            a,
            1_000_000,
        )
    };
    let p = one_rank(
        dir.path(),
        "rank0.json",
        "NVIDIA H100 80GB HBM3",
        Some(0),
        &[
            with("gather", 1000, 4000),
            with("gather", 1000, 0),
            with("scatter", 4000, 1000),
            with("scatter", 0, 1000),
        ],
    );
    let (code, out, err) = rooftrace_json(&["comm", p.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let rows = out["collectives"].as_array().unwrap();
    for (r, kind) in rows.iter().zip(["gather", "gather", "scatter", "scatter"]) {
        assert_eq!(r["kind"], kind, "{r}");
        assert_eq!(r["bytes"], 16_000, "{r}");
        assert_eq!(r["busbw_factor"], 0.75, "{r}");
        assert!(close(r["busbw_bytes_per_s"].as_f64().unwrap(), 12e6), "{r}");
    }
    assert_eq!(CollKind::Gather.busbw_factor(8), Some(0.875));
    assert_eq!(CollKind::Scatter.busbw_factor(2), Some(0.5));
}

#[test]
fn uint32_and_every_nccl_type_have_bytes_and_unknown_sizes_are_not_zero() {
    // An all-reduce of 1000 UInt32 is 4000 B (4 B each, ncclUint32); a
    // kernel with no arguments has unknown bytes, and a report whose every
    // size is unknown says so rather than "0 B moved"; one collective is
    // "1 collective".
    let dir = tempfile::tempdir().unwrap();
    let p = one_rank(
        dir.path(),
        "rank0.json",
        "NVIDIA H100 80GB HBM3",
        Some(0),
        &[(RING, args("allreduce", 1000, "UInt32", &[0, 1]), 1_000_000)],
    );
    let (code, out, err) = rooftrace_json(&["comm", p.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out["collectives"][0]["bytes"], 4000);
    assert_eq!(out["collectives"][0]["dtype"], "uint32");
    let (_, table, _) = crate::common::rooftrace(&["comm", p.to_str().unwrap()]);
    assert!(
        table.contains("1 collective on 1 rank, 4.00 kB moved"),
        "{table}"
    );
    let q = one_rank(
        dir.path(),
        "bare.json",
        "NVIDIA H100 80GB HBM3",
        Some(0),
        &[(RING, Map::new(), 1_000_000), (RING, Map::new(), 1_000_000)],
    );
    let (_, table, _) = crate::common::rooftrace(&["comm", q.to_str().unwrap()]);
    assert!(
        table.contains("2 collectives on 1 rank, bytes moved unknown"),
        "{table}"
    );
    assert!(!table.contains("0 B moved"), "{table}");
}

#[test]
fn a_group_size_contradicting_the_ranks_list_is_said_and_the_list_wins() {
    // Group size 1e9 on a group whose Process Group Ranks list 4 ranks: an
    // all-reduce of 64 MiB in 1.5 ms has algbw 44.74 GB/s and busbw ×
    // 2·3/4 = 67.1 GB/s (× 2(1e9−1)/1e9 it was 89.5).
    let dir = tempfile::tempdir().unwrap();
    let mut a = args("allreduce", 16 << 20, "Float", &[0, 1, 2, 3]);
    a.insert("Group size".into(), 1_000_000_000u64.into());
    let p = one_rank(
        dir.path(),
        "rank0.json",
        "NVIDIA H100 80GB HBM3",
        Some(0),
        &[(RING, a, 1_500_000)],
    );
    let (code, out, err) = rooftrace_json(&["comm", p.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let r = &out["collectives"][0];
    assert_eq!(r["group_size"], 4);
    let busbw = (64u64 << 20) as f64 / 1.5e-3 * 1.5;
    assert!(
        close(r["busbw_bytes_per_s"].as_f64().unwrap(), busbw),
        "{r}"
    );
    assert!((busbw / 1e9 - 67.1).abs() < 0.05);
    let diags = out["diagnostics"].to_string();
    assert!(
        diags.contains("1 collective records a Group size that contradicts its Process Group Ranks (Group size 1000000000, 4 ranks listed)"),
        "{diags}"
    );
}

#[test]
fn a_rank_claimed_twice_a_file_given_twice_and_a_rank_outside_its_groups_are_said() {
    // Two traces claiming rank 0, a third given twice, and a trace of rank
    // 4,000,000,000 whose largest group has 2 ranks, listing 0 and 1, in a
    // job of world_size 8: each said, nothing merged or dropped silently.
    let dir = tempfile::tempdir().unwrap();
    let k = [(RING, args("allreduce", 1000, "Float", &[0, 1]), 1_000_000)];
    let h = "NVIDIA H100 80GB HBM3";
    let a = one_rank(dir.path(), "first.json", h, Some(0), &k);
    let b = one_rank(dir.path(), "second.json", h, Some(0), &k);
    let c = one_rank(dir.path(), "huge.json", h, Some(4_000_000_000), &k);
    let (a, b, c) = (
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        c.to_str().unwrap(),
    );
    let (code, out, err) = rooftrace_json(&["comm", a, b, c, c]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out["ranks"].as_array().unwrap().len(), 3);
    let diags = out["diagnostics"].to_string();
    assert!(diags.contains("2 traces claim rank 0"), "{diags}");
    assert!(diags.contains("given more than once, read once"), "{diags}");
    assert!(
        diags.contains("records rank 4000000000, but its largest group has 2 ranks"),
        "{diags}"
    );
    // Each trace's distributedInfo says world_size 8: 3 given, and 4e9 is
    // no rank of it.
    assert!(
        diags.contains("the job has 8 ranks (distributedInfo.world_size), 3 given"),
        "{diags}"
    );
    assert!(
        diags.contains("rank 4000000000 is not below the job's world_size 8"),
        "{diags}"
    );
}

#[test]
fn nccl_dev_kernel_names_are_communication_everywhere() {
    // NCCL 2.19+ names its kernels ncclDevKernel_* (demangled with their
    // argument storage, or mangled as a profiler may record them): each is
    // a communication kernel for the timeline (gaps, budget, comm) and
    // takes its kind from the name.
    use rooftrace::timeline::names::is_comm_kernel_name;
    for (name, kind) in [
        (
            "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
            CollKind::AllGather,
        ),
        (
            "ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL",
            CollKind::ReduceScatter,
        ),
        ("ncclDevKernel_Broadcast_RING_LL", CollKind::Broadcast),
        (
            "_Z29ncclDevKernel_AllReduce_Sum_f32_RING_LL24ncclDevKernelArgsStorageILm4096EE",
            CollKind::AllReduce,
        ),
        (
            "ncclDevKernel_AllReduce_Sum_f32_NVLS_TREE",
            CollKind::AllReduce,
        ),
        ("ncclDevKernel_SendRecv", CollKind::SendRecv),
        ("ncclDevKernel_Generic_1", CollKind::Other),
    ] {
        assert!(is_comm_kernel_name(name), "{name}");
        assert_eq!(CollKind::from_kernel(name), kind, "{name}");
    }
}
