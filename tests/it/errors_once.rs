//! Errors say each thing once, with the fix: a cause its context already
//! quotes is not repeated; a trace cut short says how to write a whole one;
//! a chart with nothing to draw is the input's doing (exit 2).

use crate::common::{corpus_file, fixture, rooftrace};

#[test]
fn a_truncated_gzip_trace_says_it_ends_early_once_and_how_to_write_a_whole_one() {
    let whole = std::fs::read(fixture("kineto/cuda_event_sync.json.gz")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let cut = dir.path().join("cut.json.gz");
    // Half the gzip stream: the deflate stream ends before its end marker.
    std::fs::write(&cut, &whole[..whole.len() / 2]).unwrap();
    let (code, _, err) = rooftrace(&["gaps", cut.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert_eq!(err.matches("incomplete deflate stream").count(), 1, "{err}");
    assert!(err.contains("the file ends early"), "{err}");
    assert!(err.contains("prof.stop()"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
}

#[test]
fn a_truncated_plain_trace_says_it_ends_early_with_the_fix() {
    // The same trace inflated and cut at a third: the JSON stops inside a
    // value, which only a file cut short does.
    let whole = std::fs::read(fixture("kineto/cuda_event_sync.json.gz")).unwrap();
    let mut text = Vec::new();
    std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(&whole[..]), &mut text).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let cut = dir.path().join("cut.json");
    std::fs::write(&cut, &text[..text.len() / 3]).unwrap();
    let (code, _, err) = rooftrace(&["gaps", cut.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("EOF while parsing"), "{err}");
    assert!(err.contains("the file ends early"), "{err}");
    assert!(err.contains("prof.stop()"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
}

#[test]
fn ncu_plot_with_nothing_to_plot_is_bad_input() {
    // rodinia hotspot (ncu 2019.5 details page): no FLOP counter and no GPU
    // named, so no point and no roof.
    let Some(csv) = corpus_file("ncu/ncu2019.5_details_csv_rodinia_hotspot_single_kernel.log")
    else {
        return;
    };
    let out = tempfile::tempdir().unwrap();
    let svg = out.path().join("r.svg");
    let (code, _, err) = rooftrace(&[
        "ncu",
        csv.to_str().unwrap(),
        "--plot",
        svg.to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("nothing to plot"), "{err}");
    // No GPU named: the roofs are the fix, leaving out --plot the other.
    assert!(err.contains("give --gpu KEY"), "{err}");
    assert!(err.contains("or leave out --plot"), "{err}");
    assert!(!svg.exists(), "no half chart written");
}
