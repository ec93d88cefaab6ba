//! Rows of the built-in GPU table: Volta and Turing (compute capability 7.0, 7.5): V100, T4, GeForce RTX 20.

use super::spec::*;

/// The V100 SXM2's board: DGX-1 (and HGX-1) join eight GPUs in a hybrid
/// cube-mesh without an NVSwitch, each GPU's six links going to four
/// neighbours, one or two links to each (`nvidia-smi topo -m`: NV1, NV2).
/// The DGX-2's V100s (SXM3) sit on NVSwitches and have no row.
const V100_PAIR: &str =
    "NVLink 2, at most 2 links between a pair (DGX-1 hybrid cube-mesh, no NVSwitch)";
const V100_PAIR_SOURCE: &str = "NVIDIA DGX-1 with Tesla V100 system architecture whitepaper: hybrid cube-mesh, each GPU's 6 NVLink 2 links to 4 neighbours; a pair joined by 2 links has 50 GB/s each way, by 1 link 25 GB/s, by none only PCIe";

/// The volta and turing rows, in display order.
pub(super) const VOLTA_TURING: &[GpuSpec] = &[
    GpuSpec {
        key: "v100",
        name: "NVIDIA Tesla V100 SXM2 16GB",
        device_names: &[names(&[Has("v100")], &[Has("pcie"), Has("32gb"), Has("sxm3")])],
        compute_capability: ComputeCapability::new(7, 0),
        sm_count: Some(80),
        l2_bytes: Some(6 * MIB),
        memory_clock_mhz: Some(877.0),
        bus_width_bits: Some(4096),
        facts: FactSources {
            nvlink: on_mesh(nvlink(2, 6, "NVIDIA Tesla V100 datasheet (SXM2): NVLink 300 GB/s, both directions together (6 NVLink 2 links x 50 GB/s); 150 GB/s each way"), 2, V100_PAIR, V100_PAIR_SOURCE),
            host_link: pcie(3, 16, "NVIDIA Tesla V100 datasheet: PCIe Gen3, 32 GB/s both directions together (the SXM board reaches its host over PCIe; its NVLink joins GPUs); IBM POWER9 hosts join CPU and GPU over NVLink instead"),
            memory: "4096-bit HBM2 (four stacks): NVIDIA Tesla V100 GPU Architecture whitepaper; memory clock 877 MHz: CUDA runtime attribute (entry predates per-value citations)",
            ..RUNTIME_FACTS
        },
        datasheet: &[
            m(Dram, 900.0, V100_DS),
            c(Fp64, 7.8, V100_DS),
            c(Fp32, 15.7, V100_DS),
            c(Fp16, 15.7, "NVIDIA Tesla V100 GPU Architecture whitepaper: FP16 31.4 TFLOPS packed, / 2 for per-instruction counting"),
            c(TensorFp16, 125.0, V100_DS),
        ],
        measured: &[
            m(Dram, 869.84, roofs_csv!("v100-16", "fp16", "bandwidth: read_reduce over 128 MiB")),
            c(TensorFp16, 100.58, roofs_csv!("v100-16", "fp16", "cuBLAS GEMM 8192x8192x8192")),
            c(Fp32, 15.333, "measured: FMA sweep flat part (fp32, R = 1024), github.com/RealZST/llm-infra-notes roofline/data/summary.csv @ 272851c, family fma, target v100-16"),
            c(Fp64, 7.7167, roofs_csv!("v100-16", "fp64", "cuBLAS DGEMM 8192x8192x8192 on CUDA cores, above the FMA sweep's 7.686")),
        ],
    },
    GpuSpec {
        key: "v100-32gb",
        name: "NVIDIA Tesla V100 SXM2 32GB",
        device_names: &[names(&[Has("v100"), Has("32gb")], &[Has("pcie"), Has("sxm3")])],
        compute_capability: ComputeCapability::new(7, 0),
        sm_count: Some(80),
        l2_bytes: Some(6 * MIB),
        memory_clock_mhz: Some(877.0),
        bus_width_bits: Some(4096),
        facts: FactSources {
            nvlink: on_mesh(nvlink(2, 6, "NVIDIA Tesla V100 datasheet (SXM2): NVLink 300 GB/s, both directions together (6 NVLink 2 links x 50 GB/s); 150 GB/s each way"), 2, V100_PAIR, V100_PAIR_SOURCE),
            host_link: pcie(3, 16, "NVIDIA Tesla V100 datasheet: PCIe Gen3, 32 GB/s both directions together (the SXM board reaches its host over PCIe; its NVLink joins GPUs); IBM POWER9 hosts join CPU and GPU over NVLink instead"),
            memory: "4096-bit HBM2 (four stacks): NVIDIA Tesla V100 GPU Architecture whitepaper; memory clock 877 MHz: CUDA runtime attribute (entry predates per-value citations)",
            ..RUNTIME_FACTS
        },
        datasheet: &[
            m(Dram, 900.0, V100_DS),
            c(Fp64, 7.8, V100_DS),
            c(Fp32, 15.7, V100_DS),
            c(Fp16, 15.7, "NVIDIA Tesla V100 GPU Architecture whitepaper: FP16 31.4 TFLOPS packed, / 2 for per-instruction counting"),
            c(TensorFp16, 125.0, V100_DS),
        ],
        measured: &[
            m(Dram, 840.64, roofs_csv!("v100-32", "fp16", "bandwidth: read_reduce over 128 MiB")),
            c(TensorFp16, 103.43, roofs_csv!("v100-32", "fp16", "cuBLAS GEMM 8192x8192x8192")),
            c(Fp32, 15.493, roofs_csv!("v100-32", "fp32", "cuBLAS SGEMM 8192x8192x8192 on CUDA cores, above Table 5's FMA sweep 15.3")),
            c(Fp64, 7.7155, roofs_csv!("v100-32", "fp64", "cuBLAS DGEMM 8192x8192x8192 on CUDA cores; Table 5's FMA sweep: 7.7")),
        ],
    },
    GpuSpec {
        key: "t4",
        name: "NVIDIA T4",
        device_names: &[names(&[Word("t4")], &[])],
        compute_capability: ComputeCapability::new(7, 5),
        sm_count: Some(40),
        l2_bytes: Some(4 * MIB),
        memory_clock_mhz: Some(5001.0),
        bus_width_bits: Some(256),
        facts: FactSources {
            host_link: pcie(3, 16, "NVIDIA T4 Tensor Core GPU datasheet: system interface x16 PCIe Gen3"),
            memory: "16 GB GDDR6, 256-bit, 320 GB/s: NVIDIA T4 datasheet; memory clock 5001 MHz: CUDA runtime attribute (entry predates per-value citations)",
            ..RUNTIME_FACTS
        },
        datasheet: &[
            m(Dram, 320.0, T4_DS),
            c(Fp64, 0.25, "Turing whitepaper: FP64 at 1/32 of FP32 (8.1 TFLOPS / 32)"),
            c(Fp32, 8.1, T4_DS),
            c(Fp16, 8.1, "T4 FP16 (non-tensor) 16.2 TFLOPS packed (2 x FP32, Turing whitepaper), / 2 for per-instruction counting"),
            c(TensorFp16, 65.0, T4_DS),
            c(TensorInt8, 130.0, T4_DS),
        ],
        measured: &[],
    },
    GpuSpec {
        key: "rtx2080ti",
        name: "NVIDIA GeForce RTX 2080 Ti",
        device_names: &[names(&[Has("rtx 2080 ti")], &[])],
        compute_capability: ComputeCapability::new(7, 5),
        sm_count: Some(68),
        l2_bytes: Some(5632 * KIB),
        memory_clock_mhz: Some(7000.0),
        bus_width_bits: Some(352),
        facts: FactSources {
            nvlink: None,
            no_sm_clock: "",
            sm_count: concat!(tu_wp!(), "68 SMs = 4352 CUDA cores / 64 per SM"),
            l2: concat!(tu_wp!(), "L2 5632 KB"),
            memory: concat!(tu_wp!(), "GDDR6, 352-bit at 14 Gbps = 616 GB/s; memory clock = bandwidth / (2 x bus width / 8), as cudaDevAttrMemoryClockRate relates them (CUDA deviceQuery)"),
            boost_clock_mhz: Some(1545.0),
            boost_clock: concat!(tu_clk!(), "1545 MHz"),
            host_link: pcie(3, 16, "NVIDIA GeForce RTX 20 series specifications (nvidia.com product pages): bus support PCI Express 3.0 x16"),
        },
        datasheet: &[
            m(Dram, 616.0, concat!(tu_wp!(), "352-bit GDDR6 at 14 Gbps = 616 GB/s")),
            c(Fp32, 13.4, concat!(tu_wp!(), "FP32 13.4 TFLOP/s dense; check: 68 SMs x 128 per SM and clock x 1545 MHz = 13.45 TFLOP/s (per-SM rate: ", rate_turing_gf!(), ")")),
            c(Fp64, 0.4202, concat!("derived (no figure of this path in the card document): 68 SMs x 4 per SM and clock x 1545 MHz = 0.4202 TFLOP/s (per-SM rate: ", rate_turing_gf!(), ")")),
            c(Fp16, 13.45, concat!("derived (no figure of this path in the card document): 68 SMs x 128 per SM and clock x 1545 MHz = 13.45 TFLOP/s (per-SM rate: ", rate_turing_gf!(), ")")),
            c(TensorFp16, 53.8, concat!(tu_wp!(), "FP16 tensor with FP32 accumulate 53.8 TFLOP/s dense; check: 68 SMs x 512 per SM and clock x 1545 MHz = 53.79 TFLOP/s (per-SM rate: ", rate_turing_gf!(), ")")),
            c(TensorInt8, 215.2, concat!(tu_wp!(), "INT8 tensor 215.2 TFLOP/s dense; check: 68 SMs x 2048 per SM and clock x 1545 MHz = 215.2 TFLOP/s (per-SM rate: ", rate_turing_gf!(), ")")),
        ],
        measured: &[],
    },
    GpuSpec {
        key: "rtx2080",
        name: "NVIDIA GeForce RTX 2080",
        device_names: &[names(&[Has("rtx 2080")], &[Has("2080 ti")])],
        compute_capability: ComputeCapability::new(7, 5),
        sm_count: Some(46),
        l2_bytes: Some(4 * MIB),
        memory_clock_mhz: Some(7000.0),
        bus_width_bits: Some(256),
        facts: FactSources {
            nvlink: None,
            no_sm_clock: "",
            sm_count: concat!(tu_wp!(), "46 SMs = 2944 CUDA cores / 64 per SM"),
            l2: concat!(tu_wp!(), "L2 4096 KB"),
            memory: concat!(tu_wp!(), "GDDR6, 256-bit at 14 Gbps = 448 GB/s; memory clock = bandwidth / (2 x bus width / 8), as cudaDevAttrMemoryClockRate relates them (CUDA deviceQuery)"),
            boost_clock_mhz: Some(1710.0),
            boost_clock: concat!(tu_clk!(), "1710 MHz"),
            host_link: pcie(3, 16, "NVIDIA GeForce RTX 20 series specifications (nvidia.com product pages): bus support PCI Express 3.0 x16"),
        },
        datasheet: &[
            m(Dram, 448.0, concat!(tu_wp!(), "256-bit GDDR6 at 14 Gbps = 448 GB/s")),
            c(Fp32, 10.1, concat!(tu_wp!(), "FP32 10.1 TFLOP/s dense; check: 46 SMs x 128 per SM and clock x 1710 MHz = 10.07 TFLOP/s (per-SM rate: ", rate_turing_gf!(), ")")),
            c(Fp64, 0.3146, concat!("derived (no figure of this path in the card document): 46 SMs x 4 per SM and clock x 1710 MHz = 0.3146 TFLOP/s (per-SM rate: ", rate_turing_gf!(), ")")),
            c(Fp16, 10.07, concat!("derived (no figure of this path in the card document): 46 SMs x 128 per SM and clock x 1710 MHz = 10.07 TFLOP/s (per-SM rate: ", rate_turing_gf!(), ")")),
            c(TensorFp16, 40.3, concat!(tu_wp!(), "FP16 tensor with FP32 accumulate 40.3 TFLOP/s dense; check: 46 SMs x 512 per SM and clock x 1710 MHz = 40.27 TFLOP/s (per-SM rate: ", rate_turing_gf!(), ")")),
            c(TensorInt8, 161.1, concat!(tu_wp!(), "INT8 tensor 161.1 TFLOP/s dense; check: 46 SMs x 2048 per SM and clock x 1710 MHz = 161.1 TFLOP/s (per-SM rate: ", rate_turing_gf!(), ")")),
        ],
        measured: &[],
    },
    GpuSpec {
        key: "rtx2070",
        name: "NVIDIA GeForce RTX 2070",
        device_names: &[names(&[Has("rtx 2070")], &[])],
        compute_capability: ComputeCapability::new(7, 5),
        sm_count: Some(36),
        l2_bytes: Some(4 * MIB),
        memory_clock_mhz: Some(7000.0),
        bus_width_bits: Some(256),
        facts: FactSources {
            nvlink: None,
            no_sm_clock: "",
            sm_count: concat!(tu_wp!(), "36 SMs = 2304 CUDA cores / 64 per SM"),
            l2: concat!(tu_wp!(), "L2 4096 KB"),
            memory: concat!(tu_wp!(), "GDDR6, 256-bit at 14 Gbps = 448 GB/s; memory clock = bandwidth / (2 x bus width / 8), as cudaDevAttrMemoryClockRate relates them (CUDA deviceQuery)"),
            boost_clock_mhz: Some(1620.0),
            boost_clock: concat!(tu_clk!(), "1620 MHz"),
            host_link: pcie(3, 16, "NVIDIA GeForce RTX 20 series specifications (nvidia.com product pages): bus support PCI Express 3.0 x16"),
        },
        datasheet: &[
            m(Dram, 448.0, concat!(tu_wp!(), "256-bit GDDR6 at 14 Gbps = 448 GB/s")),
            c(Fp32, 7.5, concat!(tu_wp!(), "FP32 7.5 TFLOP/s dense; check: 36 SMs x 128 per SM and clock x 1620 MHz = 7.465 TFLOP/s (per-SM rate: ", rate_turing_gf!(), ")")),
            c(Fp64, 0.2333, concat!("derived (no figure of this path in the card document): 36 SMs x 4 per SM and clock x 1620 MHz = 0.2333 TFLOP/s (per-SM rate: ", rate_turing_gf!(), ")")),
            c(Fp16, 7.465, concat!("derived (no figure of this path in the card document): 36 SMs x 128 per SM and clock x 1620 MHz = 7.465 TFLOP/s (per-SM rate: ", rate_turing_gf!(), ")")),
            c(TensorFp16, 29.9, concat!(tu_wp!(), "FP16 tensor with FP32 accumulate 29.9 TFLOP/s dense; check: 36 SMs x 512 per SM and clock x 1620 MHz = 29.86 TFLOP/s (per-SM rate: ", rate_turing_gf!(), ")")),
            c(TensorInt8, 119.4, concat!(tu_wp!(), "INT8 tensor 119.4 TFLOP/s dense; check: 36 SMs x 2048 per SM and clock x 1620 MHz = 119.4 TFLOP/s (per-SM rate: ", rate_turing_gf!(), ")")),
        ],
        measured: &[],
    },
];
