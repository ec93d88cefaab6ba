//! Answers for near misses: the keys closest to one the user typed (an
//! unknown `--gpu` key, compute path, projection model or subcommand), by
//! family first (`h100` → `h100-sxm`, `h100-pcie`), then by edit distance
//! (`h100-sxn` → `h100-sxm`); never the whole list. A leaf: the modules
//! that own a list of keys call it with their keys and write their own
//! error around [`did_you_mean`].

/// At most this many keys are named.
pub const MAX_SUGGESTIONS: usize = 4;

/// The keys of `keys` closest to `given`, best first, at most
/// [`MAX_SUGGESTIONS`]:
///
/// 1. its family: the keys that extend `given` by a `-suffix` or that
///    `given` extends the same way (`h100` → `h100-sxm`, `h100-pcie`), in
///    the order of `keys`;
/// 2. else the keys within a small edit distance (Levenshtein over
///    characters, case-insensitive, `_` and ` ` read as `-`): at most 1
///    for a key of up to 4 characters, 2 up to 8, else 3; closest first,
///    ties in the order of `keys`;
/// 3. else the keys that start with `given` (`rtx40` → `rtx4080`, …).
///
/// Empty when nothing is close: the caller then points at the list.
pub fn closest<'k>(given: &str, keys: &[&'k str]) -> Vec<&'k str> {
    let mut all = candidates(given, keys);
    all.truncate(MAX_SUGGESTIONS);
    all
}

/// Every key [`closest`] would choose from, best first, before it keeps
/// [`MAX_SUGGESTIONS`]: the whole family, or every key within the edit
/// distance, or every key `given` starts.
fn candidates<'k>(given: &str, keys: &[&'k str]) -> Vec<&'k str> {
    let want = normalise(given);
    if want.is_empty() {
        return Vec::new();
    }
    let family: Vec<&str> = keys
        .iter()
        .copied()
        .filter(|k| {
            let k = normalise(k);
            k != want && (extends(&k, &want) || extends(&want, &k))
        })
        .collect();
    if !family.is_empty() {
        return family;
    }
    let limit = match want.chars().count() {
        0..=4 => 1,
        5..=8 => 2,
        _ => 3,
    };
    let mut near: Vec<(usize, usize, &str)> = keys
        .iter()
        .enumerate()
        .map(|(i, k)| (edit_distance(&normalise(k), &want), i, *k))
        .filter(|(d, _, k)| *d <= limit && *k != given.trim())
        .collect();
    near.sort_unstable();
    if !near.is_empty() {
        return near.into_iter().map(|(_, _, k)| k).collect();
    }
    keys.iter()
        .copied()
        .filter(|k| {
            let k = normalise(k);
            want.chars().count() >= 2 && k != want && k.starts_with(&want)
        })
        .collect()
}

/// `did you mean `a` or `b`?` for the closest keys, or `None` when none
/// is close ([`closest`]). When more are as close than it names (a family
/// of 6, 4 named), it says how many more: `did you mean `a`, `b`, `c`,
/// `d` or one of 2 more?`.
pub fn did_you_mean(given: &str, keys: &[&str]) -> Option<String> {
    let all = candidates(given, keys);
    let more = all.len().saturating_sub(MAX_SUGGESTIONS);
    let quoted: Vec<String> = all
        .iter()
        .take(MAX_SUGGESTIONS)
        .map(|k| format!("`{k}`"))
        .collect();
    match (quoted.as_slice(), more) {
        ([], _) => None,
        ([one], _) => Some(format!("did you mean {one}?")),
        (all, more) if more > 0 => Some(format!(
            "did you mean {} or one of {more} more?",
            all.join(", ")
        )),
        ([init @ .., last], _) => Some(format!("did you mean {} or {last}?", init.join(", "))),
    }
}

/// The answer to an unknown key: the closest keys ([`did_you_mean`]) and
/// where the whole list is, or only where the list is when none is close:
/// "did you mean `h100-sxm` or `h100-pcie`? `rooftrace ncu --list-gpus`
/// lists all 52".
pub fn did_you_mean_among(given: &str, keys: &[&str], list: &str) -> String {
    let n = keys.len();
    match did_you_mean(given, keys) {
        Some(close) => format!("{close} {list} lists all {n}"),
        None => format!("none of the {n} keys is close; {list} lists them"),
    }
}

/// Lower case, with `_` and spaces as `-`.
fn normalise(key: &str) -> String {
    key.trim()
        .chars()
        .map(|c| match c {
            '_' | ' ' => '-',
            c => c.to_ascii_lowercase(),
        })
        .collect()
}

/// True when `longer` is `shorter` followed by `-` and more.
fn extends(longer: &str, shorter: &str) -> bool {
    longer
        .strip_prefix(shorter)
        .is_some_and(|rest| rest.len() > 1 && rest.starts_with('-'))
}

/// Levenshtein distance over characters (insert, delete, substitute, each
/// costing 1), one row at a time.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            let substitute = diagonal + usize::from(ca != *cb);
            row[j + 1] = substitute.min(above + 1).min(row[j] + 1);
            diagonal = above;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    const GPUS: &[&str] = &[
        "v100",
        "t4",
        "a100-40gb",
        "a100-80gb",
        "h100-sxm",
        "h100-pcie",
        "h200",
        "gh200",
        "h800-sxm",
        "rtx4090",
        "rtx4080",
        "rtx4070ti",
    ];

    #[test]
    fn edit_distances_count_single_character_edits() {
        // kitten → sitting: k→s, e→i, +g (the textbook example).
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("h100-sxm", "h100-sxm"), 0);
        // One character of two bytes is one edit.
        assert_eq!(edit_distance("µs", "us"), 1);
    }

    #[test]
    fn a_family_name_gets_its_members_only() {
        assert_eq!(closest("h100", GPUS), ["h100-sxm", "h100-pcie"]);
        assert_eq!(closest("A100", GPUS), ["a100-40gb", "a100-80gb"]);
        assert_eq!(
            did_you_mean("h100", GPUS).as_deref(),
            Some("did you mean `h100-sxm` or `h100-pcie`?")
        );
    }

    #[test]
    fn a_typo_gets_the_keys_within_its_edit_distance() {
        // h100-sxn → h100-sxm: one substitution; h800-sxm is two away.
        assert_eq!(closest("h100-sxn", GPUS), ["h100-sxm", "h800-sxm"]);
        // rtx4090ti: rtx4070ti 1 away (9→7), rtx4090 2 (ti), rtx4080 3.
        assert_eq!(
            closest("rtx4090ti", GPUS),
            ["rtx4070ti", "rtx4090", "rtx4080"]
        );
        assert_eq!(
            closest("tensor_fp16", &["fp16", "tensor-fp16"]),
            ["tensor-fp16"]
        );
        assert_eq!(
            did_you_mean("gaps", &["gaps"]),
            None,
            "an exact key is no miss"
        );
    }

    #[test]
    fn a_family_larger_than_the_answer_says_how_many_more() {
        // 6 tensor paths extend `tensor`: 4 named, 2 counted.
        let paths = [
            "fp32",
            "tensor_fp64",
            "tensor_tf32",
            "tensor_fp16",
            "tensor_bf16",
            "tensor_fp8",
            "tensor_int8",
        ];
        assert_eq!(closest("tensor", &paths).len(), MAX_SUGGESTIONS);
        assert_eq!(
            did_you_mean("tensor", &paths).as_deref(),
            Some(
                "did you mean `tensor_fp64`, `tensor_tf32`, `tensor_fp16`, `tensor_bf16` \
                 or one of 2 more?"
            )
        );
    }

    #[test]
    fn nothing_close_names_nothing() {
        assert!(closest("quadro", GPUS).is_empty());
        assert_eq!(did_you_mean("", GPUS), None);
        // A prefix is the last resort: `rtx4` is 2 from `t4`, 3 from the rest.
        assert_eq!(closest("rtx4", GPUS), ["rtx4090", "rtx4080", "rtx4070ti"]);
    }
}
