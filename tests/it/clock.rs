//! Times a person reads: a PyTorch trace's clock is µs since 1970, so its
//! starts are printed from the first GPU op (t = 0), with that moment once
//! as a date, in the table and in Markdown.

use crate::common::{fixture, rooftrace};

const TRACE: &str = "kineto/sampled_rank-0.json.gz";

#[test]
fn kineto_starts_count_from_the_first_gpu_op_with_its_date_once() {
    let path = fixture(TRACE);
    // The first GPU op's ts is 1682725898082228 µs (the smallest `ts` of the
    // trace's kernel/memcpy/memset events, read with Python's json), which
    // Python's datetime.fromtimestamp(…, timezone.utc) calls
    // 2023-04-28 23:51:38.082228.
    let date = "2023-04-28 23:51:38.082 UTC";
    for format in ["table", "md"] {
        let (code, out, err) = rooftrace(&["gaps", path.to_str().unwrap(), "--format", format]);
        assert_eq!(code, 0, "{err}");
        assert_eq!(
            out.matches(date).count(),
            1,
            "{format}: the date once\n{out}"
        );
        assert!(
            !out.contains("1682725"),
            "{format}: no epoch seconds\n{out}"
        );
    }
    // The longest gap starts 0.989976 s after the first op (its JSON
    // start_ns minus the device's start_ns).
    let (_, json, _) = crate::common::rooftrace_json(&["gaps", path.to_str().unwrap()]);
    let rel = json["top_gaps"][0]["start_ns"].as_i64().unwrap()
        - json["devices"][0]["start_ns"].as_i64().unwrap();
    let (_, table, _) = rooftrace(&["gaps", path.to_str().unwrap()]);
    assert!(
        table.contains(&format!("{:.6} s", rel as f64 / 1e9)),
        "{table}"
    );
}
