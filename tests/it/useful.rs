//! Padded tensor FLOPs and `--useful-flops`, on the reference's own H100
//! decode counters (fixtures/ncu/decode_h100_b1_raw_derived.csv, derived by
//! derive_decode_h100.py from RealZST/llm-infra-notes @ 272851c, MIT).

use crate::common::{fixture, rooftrace};
use rooftrace::ncu;
use rooftrace::roofline::useful::{apply_useful, UsefulRule};
use rooftrace::roofline::{analyze, DiagnosticKind, GroupBy};
use rooftrace::roofs::{gpus, GpuInfo};

const DECODE: &str = "fixtures/ncu/decode_h100_b1_raw_derived.csv";

fn report() -> rooftrace::roofline::RooflineReport {
    let csv = ncu::parse(
        std::fs::File::open(fixture("ncu/decode_h100_b1_raw_derived.csv")).unwrap(),
        DECODE,
    )
    .unwrap();
    let g = gpus::by_key("h100-sxm").unwrap();
    let info = GpuInfo {
        key: Some(g.key.into()),
        name: g.name.into(),
        chosen_by: rooftrace::roofs::GpuChoice::CommandLine,
        notes: Vec::new(),
    };
    analyze(&csv, &g.default_roofs(), info, GroupBy::Launch)
}

#[test]
fn decode_gemms_are_flagged_as_padded_and_gemvs_are_not() {
    let r = report();
    let by_id = |id: u64| r.kernels.iter().find(|k| k.id == id).unwrap();
    // gate_proj (ID 38): 8,690,597,888 BF16 tensor FLOP over 135,845,888 +
    // 4,692,992 = 140,538,880 DRAM bytes: 61.838 FLOP/B (the reference's
    // 61.8), x sizeof(bf16) 2 / 2 = 61.8 rows per weight read <= 128.
    let gate = by_id(38);
    let p = gate.padding.as_ref().expect("gate_proj flagged");
    assert!((p.implied_rows - 8_690_597_888.0 / 140_538_880.0).abs() < 1e-9);
    assert!(!p.certain);
    // q_proj (ID 8, CUTLASS 64x64 tile): 1,644,167,168 / 26,478,336 = 62.09.
    assert!((by_id(8).padding.as_ref().unwrap().implied_rows - 62.094).abs() < 1e-3);
    // The cuBLAS GEMVs (IDs 10, 28) run on CUDA cores: no tensor FLOPs,
    // nothing to flag.
    assert!(by_id(10).padding.is_none() && by_id(28).padding.is_none());
    let d = r
        .diagnostics
        .iter()
        .find(|d| d.kind == DiagnosticKind::TensorPadding)
        .expect("padding diagnostic");
    assert_eq!(d.count, 4);
    assert!(d.message.contains("--useful-flops"), "{}", d.message);
}

#[test]
fn useful_flops_give_the_useful_intensity_and_fraction() {
    let mut r = report();
    // Qwen2.5-7B gate/up/down at batch 1: M = 1, N x K = 18944 x 3584, so
    // 2 x 1 x 18944 x 3584 = 135,790,592 useful FLOP per launch.
    let rules = vec![
        UsefulRule::parse("tilesize64x64x64=2*1*18944*3584").unwrap(),
        UsefulRule::parse("no_such_kernel=1").unwrap(),
    ];
    assert_eq!(apply_useful(&mut r, &rules), vec![3, 0]);
    let gate = r.kernels.iter().find(|k| k.id == 38).unwrap();
    let u = gate.useful.as_ref().unwrap();
    assert_eq!(u.flop, 135_790_592.0);
    // Executed / useful = 8,690,597,888 / 135,790,592 = 64.0: one 64-row
    // wgmma tile computed for one useful row.
    assert_eq!(u.executed_over_useful, Some(64.0));
    // Useful intensity 135,790,592 / 140,538,880 = 0.96621 FLOP/B (the
    // reference: "the true intensity is ~1").
    assert!((u.intensity.unwrap() - 0.966_213).abs() < 1e-6);
    // Bound: max(135,790,592 / 802.42e12 = 0.169 us, 140,538,880 /
    // 3084.8e9 = 45.558 us) = 45.558 us of 52.64 us: 86.55 % of roof.
    let q_over_b_ns = 140_538_880.0 / 3084.8e9 * 1e9;
    assert!((u.bound_time_ns - q_over_b_ns).abs() < 1e-6);
    assert!((u.fraction_of_roof - q_over_b_ns / 52_640.0).abs() < 1e-12);
    assert!((u.flop_per_s - 135_790_592.0 / 52.64e-6).abs() < 1.0);
    // Both sides known from the stated work: memory-bound (45.558 > 0.169 us).
    assert_eq!(u.bound, Some(rooftrace::roofline::Bound::Memory));
    // The rule that matched nothing is reported.
    assert!(r
        .diagnostics
        .iter()
        .any(|d| d.kind == DiagnosticKind::UsefulWork && d.examples == ["no_such_kernel=1"]));
}

#[test]
fn useful_flops_on_the_command_line() {
    let (code, out, err) = rooftrace(&[
        "ncu",
        DECODE,
        "--useful-flops",
        "tilesize64x64x64=2*1*18944*3584",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    // Detected from its device name; the three sm90 GEMMs carry `useful`.
    assert_eq!(v["gpu"]["key"], "h100-sxm");
    let with: Vec<&serde_json::Value> = v["kernels"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|k| k.get("useful").is_some())
        .collect();
    assert_eq!(with.len(), 3);
    assert_eq!(
        with[0]["useful"]["source"],
        "--useful-flops tilesize64x64x64=2*1*18944*3584"
    );
    let (code, _, err) = rooftrace(&["ncu", DECODE, "--useful-flops", "gemv"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("write REGEX=FLOP"), "{err}");
}

/// The decode profile on the roofline: the two cuBLAS GEMVs have tensor
/// counters only (0) and no CUDA-core counters, so they cannot be placed;
/// the caption counts them and, as they are among the top rows (`--top 10`
/// labels every one of the 6), names them.
#[test]
fn decode_plot_caption_names_what_is_not_drawn() {
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("d.svg");
    let (code, _, err) = rooftrace(&[
        "ncu",
        DECODE,
        "--top",
        "10",
        "--plot",
        svg.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(
        text.contains("2 of 6 kernels not drawn: no FLOP counters for its path (2); of the top 6 by time lost: gemv2T_kernel_val, kernel&lt;int,int,__nv_bfl…emvParamsEx&gt;"),
        "caption missing"
    );
}

/// The CSV carries the label, the padding mark and the useful figures.
#[test]
fn csv_carries_padding_and_useful_columns() {
    let (code, out, err) = rooftrace(&[
        "ncu",
        DECODE,
        "--useful-flops",
        "tilesize64x64x64=2*1*18944*3584",
        "--format",
        "csv",
    ]);
    assert_eq!(code, 0, "{err}");
    let mut rd = csv::Reader::from_reader(out.as_bytes());
    let h = rd.headers().unwrap().clone();
    let col = |name: &str| h.iter().position(|c| c == name).unwrap();
    let gate = rd
        .records()
        .map(|r| r.unwrap())
        .find(|r| &r[col("id")] == "38")
        .unwrap();
    assert_eq!(&gate[col("useful_flop")], "135790592");
    // 8,690,597,888 / 140,538,880 = 61.8379... rows per weight read.
    let rows: f64 = gate[col("padding_implied_rows")].parse().unwrap();
    assert!((rows - 61.8379).abs() < 1e-3, "{rows}");
    assert_eq!(&gate[col("label")], "sm90_xmma_ge…off_kernel__5x_cublas");
}

/// With useful work stated, the plot puts the GEMMs where their work is
/// (I ~ 1 FLOP/B on the slope) and says so in their labels.
#[test]
fn plot_draws_useful_work_where_stated() {
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("u.svg");
    let (code, _, err) = rooftrace(&[
        "ncu",
        DECODE,
        "--useful-flops",
        "tilesize64x64x64=2*1*18944*3584",
        "--top",
        "10",
        "--plot",
        svg.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(&svg).unwrap();
    assert_eq!(
        text.matches("[useful work]").count(),
        3,
        "three useful points labelled"
    );
}
