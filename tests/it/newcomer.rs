//! The small things a newcomer hit (issue 33, item 7), each checked where
//! it shows: the README's own comments say what the command does.

use crate::common::{rooftrace_json, root};

#[test]
fn the_readmes_kineto_diff_comment_names_the_row_the_gate_trips_on() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let line = readme
        .lines()
        .find(|l| l.starts_with("rooftrace diff fixtures/kineto/sampled_rank-0"))
        .expect("the README's Kineto diff example");
    let comment = line.split_once('#').expect("a comment").1;
    let args: Vec<&str> = line
        .split_once('#')
        .unwrap()
        .0
        .split_whitespace()
        .skip(1)
        .collect();
    let (code, json, _) = rooftrace_json(&args);
    assert_eq!(code, 3);
    let tripped = &json["gate"]["tripped"];
    assert_eq!(tripped.as_array().map(Vec::len), Some(1), "{tripped}");
    // The row is "idle <class label>"; the comment names that class and
    // the change the gate saw (rel 2.25 → +225 %).
    let row = tripped[0]["row"].as_str().unwrap();
    let class = row.strip_prefix("idle ").unwrap();
    assert!(comment.contains(class), "{comment} vs {row}");
    let rel = tripped[0]["change"]["rel"].as_f64().unwrap();
    assert!(
        comment.contains(&format!("+{:.0} %", rel * 100.0)),
        "{comment}"
    );
}
