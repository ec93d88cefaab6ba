//! What users see of `rooftrace ops`: "fix first" and its remedies, rows
//! above the DRAM roof, `--group-by kernel`, Parquet and `--plot`, on a
//! small PyTorch trace written here (every figure worked out by hand from
//! its shapes, times and the A100's roofs) and on the shipped HTA trace.

use crate::common::{fixture, rooftrace, rooftrace_json};
use rooftrace::plot::extent::{first_overlap, HAnchor, PlacedText, VAnchor};
use rooftrace::plot::{style, OpsRooflineInput};
use rooftrace::roofs::{gpus, ComputePath};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// One op call of the written trace: its name, inputs and kernels (name,
/// µs), run one after another on the host and the device.
struct Call {
    name: &'static str,
    dims: Vec<Vec<u64>>,
    kernels: Vec<(&'static str, u64)>,
}

fn call(name: &'static str, dims: Vec<Vec<u64>>, kernels: Vec<(&'static str, u64)>) -> Call {
    Call {
        name,
        dims,
        kernels,
    }
}

/// A Kineto trace of `calls` (all FP32): each op a `cpu_op` with shapes on
/// one thread, each kernel launched inside it by a `cudaLaunchKernel`
/// joined by correlation, kernels back to back on one stream (so each op's
/// union is the sum of its kernels).
fn write_trace(dir: &Path, calls: &[Call]) -> PathBuf {
    let mut events = Vec::new();
    let (mut host_us, mut gpu_us, mut corr) = (1_000u64, 1_000_000u64, 1u64);
    for c in calls {
        let n = c.kernels.len() as u64;
        events.push(json!({
            "ph": "X", "cat": "cpu_op", "name": c.name, "pid": 1, "tid": 1,
            "ts": host_us, "dur": 2 * n + 2,
            "args": {"External id": corr, "Input Dims": c.dims,
                     "Input type": vec!["float"; c.dims.len()]}
        }));
        for (i, (kernel, dur)) in c.kernels.iter().enumerate() {
            events.push(json!({
                "ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel",
                "pid": 1, "tid": 1, "ts": host_us + 1 + 2 * i as u64, "dur": 1,
                "args": {"correlation": corr, "External id": corr}
            }));
            events.push(json!({
                "ph": "X", "cat": "kernel", "name": kernel, "pid": 0, "tid": 7,
                "ts": gpu_us, "dur": dur,
                "args": {"correlation": corr, "External id": corr, "device": 0, "stream": 7}
            }));
            gpu_us += dur;
            corr += 1;
        }
        host_us += 2 * n + 10;
    }
    let path = dir.join("ops.pt.trace.json");
    let doc = json!({"schemaVersion": 1, "record_shapes": 1, "traceEvents": events});
    std::fs::write(&path, serde_json::to_vec(&doc).unwrap()).unwrap();
    path
}

const M: u64 = 4096;
const BIG: u64 = 1 << 24;

/// The scene: an FP32 GEMM far below its FP32 roof (20 ms), an add far
/// below the DRAM roof (1 ms), 100 tiny muls (3 µs each) and a relu
/// faster than the DRAM roof allows (10 µs).
fn scene() -> Vec<Call> {
    let mut calls = vec![
        call(
            "aten::mm",
            vec![vec![M, M], vec![M, M]],
            vec![("volta_sgemm_128x64_nn", 20_000)],
        ),
        call(
            "aten::add",
            vec![vec![BIG], vec![BIG], vec![]],
            vec![("elementwise_kernel", 1_000)],
        ),
        call(
            "aten::relu",
            vec![vec![BIG]],
            vec![("elementwise_kernel", 10)],
        ),
    ];
    for _ in 0..100 {
        calls.push(call(
            "aten::mul",
            vec![vec![256], vec![256]],
            vec![("mul_kernel", 3)],
        ));
    }
    calls
}

/// The A100 40 GB's DRAM roof (byte/s) and FP32 roof (FLOP/s), as the
/// report is given them with `--gpu a100-40gb`.
fn a100() -> (f64, f64) {
    let roofs = gpus::by_key("a100-40gb").unwrap().default_roofs();
    let dram = roofs.dram().unwrap().bytes_per_s;
    (dram, roofs.compute[&ComputePath::Fp32].flop_per_s)
}

fn ops_on(path: &Path, extra: &[&str]) -> Value {
    let args = [
        &[
            "ops",
            path.to_str().unwrap(),
            "--gpu",
            "a100-40gb",
            "--top",
            "0",
        ],
        extra,
    ]
    .concat();
    let (code, json, err) = rooftrace_json(&args);
    assert_eq!(code, 0, "{err}");
    json
}

fn row<'a>(json: &'a Value, name: &str) -> &'a Value {
    json["ops"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == name)
        .unwrap_or_else(|| panic!("no row {name}"))
}

#[test]
fn fix_first_names_the_rows_losing_most_with_what_the_evidence_says_helps() {
    let dir = tempfile::tempdir().unwrap();
    let json = ops_on(&write_trace(dir.path(), &scene()), &[]);
    let (dram, fp32) = a100();
    // mm: 2·4096³ FLOPs on FP32 cores, 3·4096²·4 bytes: compute-bound at
    // FLOPs / F_fp32; 20 ms − that is lost. The A100 has TF32 tensor
    // cores: the remedy is to use them.
    let mm_bound_s = (2 * M * M * M) as f64 / fp32;
    assert!(mm_bound_s > (3 * M * M * 4) as f64 / dram);
    // add: two 2^24 FP32 inputs, a scalar (0-d, 4 bytes) and one output:
    // 3·2^26 + 4 bytes at the DRAM roof, in 1 ms: memory-bound far below.
    let add_bound_s = (3 * BIG * 4 + 4) as f64 / dram;
    // mul: 100 calls of 3·256·4 bytes in 3 µs kernels: tiny kernels.
    let mul_bound_s = 100.0 * (3 * 256 * 4) as f64 / dram;
    let want = [
        ("aten::mm", 20e-3 - mm_bound_s, "tensor_cores"),
        ("aten::add", 1e-3 - add_bound_s, "fewer_bytes"),
        ("aten::mul", 300e-6 - mul_bound_s, "launch_overhead"),
    ];
    // Kernel time: 20 ms + 1 ms + 10 µs + 100 · 3 µs.
    let kernel_ns = 21_310_000.0;
    assert_eq!(json["kernel_time_ns"], 21_310_000);
    let fix = json["fix_first"].as_array().unwrap();
    assert_eq!(fix.len(), 3, "{fix:?}");
    for (got, (name, lost_s, remedy)) in fix.iter().zip(want) {
        assert_eq!(got["name"], name);
        assert_eq!(got["remedy"], remedy, "{name}");
        let lost_ns = got["time_lost_ns"].as_f64().unwrap();
        assert!(
            (lost_ns - lost_s * 1e9).abs() <= 1.0,
            "{name}: {lost_ns} vs {}",
            lost_s * 1e9
        );
        let share = got["share_of_kernel_time"].as_f64().unwrap();
        assert!(
            (share - lost_s * 1e9 / kernel_ns).abs() < 1e-6,
            "{name}: {share}"
        );
    }
    // The table and the Markdown say it, with the advice.
    let path = dir.path().join("ops.pt.trace.json");
    let (code, table, err) = rooftrace(&["ops", path.to_str().unwrap(), "--gpu", "a100-40gb"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        table.contains("fix first:\n  1. aten::mm (fp32[4096,4096], fp32[4096,4096]) loses"),
        "{table}"
    );
    assert!(table.contains("allow_tf32"), "{table}");
    assert!(
        table.contains("3. aten::mul (fp32[256], fp32[256]) loses"),
        "{table}"
    );
    let (code, md, _) = rooftrace(&[
        "ops",
        path.to_str().unwrap(),
        "--gpu",
        "a100-40gb",
        "--format",
        "md",
    ]);
    assert_eq!(code, 0);
    assert!(md.contains("### Fix first\n\n1. aten::mm"), "{md}");
}

#[test]
fn a_row_moving_its_bytes_faster_than_the_dram_roof_is_flagged_and_counted() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_trace(dir.path(), &scene());
    let json = ops_on(&path, &[]);
    let (dram, _) = a100();
    // relu: 2^24 FP32 read, 2^24 written: 2^27 bytes in 10 µs = 13.4 TB/s,
    // above any A100's DRAM roof; the add's 2^26·3 bytes in 1 ms are not.
    let relu = row(&json, "aten::relu");
    let got = relu["achieved_bytes_per_s"].as_f64().unwrap();
    assert!((got - (2 * BIG * 4) as f64 / 10e-6).abs() < 1.0, "{got}");
    assert!(got > dram * 1.05);
    assert_eq!(relu["above_memory_roof"], true);
    assert_eq!(row(&json, "aten::add")["above_memory_roof"], false);
    assert_eq!(json["above_memory_roof"], 1);
    // Above the roof it loses no time, so it is not to fix first.
    assert!(relu["time_lost_ns"].as_i64().unwrap() < 0);
    let (code, table, _) = rooftrace(&["ops", path.to_str().unwrap(), "--gpu", "a100-40gb"]);
    assert_eq!(code, 0);
    assert!(
        table.contains("1 of 4 rows moved their compulsory bytes faster than the DRAM roof"),
        "{table}"
    );
    assert!(
        table.contains("above the DRAM roof: aten::relu (fp32[16777216])"),
        "{table}"
    );
    let (_, csv, _) = rooftrace(&[
        "ops",
        path.to_str().unwrap(),
        "--gpu",
        "a100-40gb",
        "--format",
        "csv",
    ]);
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let at = header
        .iter()
        .position(|h| *h == "above_memory_roof")
        .unwrap();
    let relu_line = csv.lines().find(|l| l.starts_with("aten::relu,")).unwrap();
    assert_eq!(relu_line.split(',').nth(at), Some("true"), "{relu_line}");
}

#[test]
fn group_by_kernel_sums_the_work_of_every_op_that_launched_a_kernel_name() {
    let dir = tempfile::tempdir().unwrap();
    let mut calls = scene();
    // One call launching two kernels: its row is both names joined, its
    // work counted once (not split), its time the union of both.
    calls.push(call(
        "aten::mm",
        vec![vec![64, 64], vec![64, 64]],
        vec![("gemm_splitk", 5), ("splitk_reduce", 2)],
    ));
    let json = ops_on(&write_trace(dir.path(), &calls), &["--group-by", "kernel"]);
    assert_eq!(json["group_by"], "kernel");
    // elementwise_kernel: the add (2^24 + 2^24 → 2^24: 2^24 FLOPs, 3·2^26 +
    // 4 bytes) and the relu (2^24 FLOPs, 2^27 bytes), 1 ms + 10 µs.
    let ew = row(&json, "elementwise_kernel");
    assert_eq!(ew["shapes"], "aten::add, aten::relu");
    assert_eq!(ew["launches"], 2);
    assert_eq!(ew["time_ns"], 1_010_000);
    assert_eq!(ew["flops"], 2 * BIG);
    assert_eq!(ew["bytes"], 3 * BIG * 4 + 4 + 2 * BIG * 4);
    let split = row(&json, "gemm_splitk + splitk_reduce");
    assert_eq!(split["flops"], 2 * 64 * 64 * 64);
    assert_eq!(split["kernels"], 2);
    assert_eq!(split["time_ns"], 7_000);
    assert_eq!(row(&json, "mul_kernel")["launches"], 100);
    // Same kernel time as the op grouping: only the rows differ.
    let by_op = ops_on(&dir.path().join("ops.pt.trace.json"), &[]);
    assert_eq!(json["kernel_time_ns"], by_op["kernel_time_ns"]);
    assert_eq!(json["ops"].as_array().unwrap().len(), 4);
    let (code, table, _) = rooftrace(&[
        "ops",
        dir.path().join("ops.pt.trace.json").to_str().unwrap(),
        "--group-by",
        "kernel",
    ]);
    assert_eq!(code, 0);
    assert!(table.contains("kernels, most time lost first:"), "{table}");
}

#[test]
fn parquet_reads_back_the_rows_of_the_json() {
    use parquet::file::reader::{FileReader, SerializedFileReader};
    use parquet::record::Field;
    let dir = tempfile::tempdir().unwrap();
    let path = write_trace(dir.path(), &scene());
    let out = dir.path().join("ops.parquet");
    let (code, _, err) = rooftrace(&[
        "ops",
        path.to_str().unwrap(),
        "--gpu",
        "a100-40gb",
        "--format",
        "parquet",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let json = ops_on(&path, &[]);
    let file = out.join("ops/input=ops.pt.trace.json/part-0.parquet");
    let reader = SerializedFileReader::new(std::fs::File::open(&file).unwrap()).unwrap();
    let mut got: Vec<(String, i64, Option<i64>, bool)> = Vec::new();
    for record in reader.get_row_iter(None).unwrap() {
        let record = record.unwrap();
        let mut name = String::new();
        let (mut time, mut lost, mut above) = (0, None, false);
        for (column, value) in record.get_column_iter() {
            match (column.as_str(), value) {
                ("name", Field::Str(s)) => name = s.clone(),
                ("time_ns", Field::Long(v)) => time = *v,
                ("time_lost_ns", Field::Long(v)) => lost = Some(*v),
                ("above_memory_roof", Field::Bool(b)) => above = *b,
                _ => {}
            }
        }
        got.push((name, time, lost, above));
    }
    let want: Vec<(String, i64, Option<i64>, bool)> = json["ops"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["name"].as_str().unwrap().to_string(),
                r["time_ns"].as_i64().unwrap(),
                r["time_lost_ns"].as_i64(),
                r["above_memory_roof"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(got, want);
    let unmodelled = out.join("ops_unmodelled");
    assert!(unmodelled.is_dir(), "no ops_unmodelled dataset");
}

/// Each placed label of a chart as the text drawn in its box.
fn label_texts(chart: &rooftrace::plot::RooflineChart) -> Vec<PlacedText> {
    chart
        .points
        .iter()
        .filter_map(|p| p.label.as_ref())
        .map(|l| {
            PlacedText::new(
                l.text.clone(),
                (l.rect.left, l.rect.top),
                style::LABEL_FONT,
                style::INK,
                (HAnchor::Left, VAnchor::Top),
            )
        })
        .collect()
}

/// The shipped trace's ops report through the library, as `ops` makes it.
fn shipped_report(gpu: Option<&str>) -> rooftrace::ops::OpsReport {
    let path = fixture("kineto/sampled_rank-0.json.gz");
    let trace =
        rooftrace::kineto::read_timeline_keeping(&path, rooftrace::kineto::Keep::OpCalls).unwrap();
    let (roofs, gpu) = match gpu {
        Some(key) => (
            gpus::by_key(key).unwrap().default_roofs(),
            rooftrace::roofs::GpuInfo {
                key: Some(key.into()),
                name: key.into(),
                chosen_by: rooftrace::roofs::GpuChoice::CommandLine,
                notes: Vec::new(),
            },
        ),
        None => {
            let choice = rooftrace::roofs::RoofsChoice::FromCsv;
            rooftrace::roofs::choose_or_undecided::<anyhow::Error>(
                &choice,
                &Default::default(),
                || Err(anyhow::anyhow!("a trace has no ncu peaks")),
            )
            .unwrap()
        }
    };
    rooftrace::ops::analyze(&trace.timeline, &trace.op_calls, &roofs, gpu, "trace")
}

#[test]
fn the_plot_puts_each_row_at_its_flops_per_byte_and_per_second_with_labels_apart() {
    let report = shipped_report(Some("a100-80gb"));
    let input = OpsRooflineInput::from_ops(&report, 10);
    assert_eq!(input.roofline.points.len(), report.rows.len());
    // Each point: x = FLOPs / compulsory bytes, y = FLOPs / time.
    for (p, r) in input.roofline.points.iter().zip(&report.rows) {
        if r.flops > 0 && r.bytes > 0 {
            assert_eq!(p.flop_per_byte, r.flops as f64 / r.bytes as f64);
            assert_eq!(p.flop_per_s, r.flops as f64 / (r.time_ns as f64 * 1e-9));
        }
    }
    let chart = input.chart().unwrap();
    let texts = label_texts(&chart);
    // Merged with budgetops' TF32 reading (`cutlass_80_tensorop_s1688gemm`
    // is TF32) the fixture's FP32 GEMMs moved to the TF32 path, so their
    // time lost and the top 10 changed: two of them (aten::mm 8192×512×8192
    // and 512×2048×38313) now sit close together and the placer leaves
    // one label out rather than overlap. Every label is placed or named as
    // unplaced, at most one is left out, and none overlap.
    assert_eq!(texts.len() + chart.unplaced_labels.len(), 10);
    assert!(texts.len() >= 9, "{:?}", chart.unplaced_labels);
    assert_eq!(first_overlap(&texts).unwrap(), None);
    // The roofs of the A100's DRAM and of the paths the rows use.
    assert_eq!(chart.roofs.sloped.len(), 1);
    assert!(!chart.roofs.flat.is_empty());
    assert!(chart.title.starts_with("Ops roofline: "), "{}", chart.title);
    let caption = chart.caption.clone().unwrap();
    assert!(
        caption.contains("compulsory bytes (an upper bound)"),
        "{caption}"
    );
    assert!(caption.contains("rooftrace/1"), "{caption}");
    // Through the command: the SVG is written and carries the top label.
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("ops.svg");
    let (code, _, err) = rooftrace(&[
        "ops",
        fixture("kineto/sampled_rank-0.json.gz").to_str().unwrap(),
        "--gpu",
        "a100-80gb",
        "--plot",
        svg.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.contains("Ops roofline"));
    let top = chart.points.iter().find(|p| p.label.is_some()).unwrap();
    let label = &top.label.as_ref().unwrap().text;
    let head: String = label.chars().take(12).collect();
    assert!(text.contains(&head), "{head} not in the SVG");
}

#[test]
fn the_plot_without_a_gpu_draws_the_points_alone_and_says_so() {
    let report = shipped_report(None);
    let chart = OpsRooflineInput::from_ops(&report, 10).chart().unwrap();
    assert!(chart.roofs.sloped.is_empty() && chart.roofs.flat.is_empty());
    assert!(!chart.points.is_empty());
    let caption = chart.caption.clone().unwrap();
    assert!(
        caption.contains("no roofs: the GPU was not decided"),
        "{caption}"
    );
    assert_eq!(first_overlap(&label_texts(&chart)).unwrap(), None);
}
