//! The tag every row of a multi-input run carries: which input, which host,
//! which rank, and where the rank came from.

use serde::Serialize;

/// Default file-name pattern for the rank: `rank3`, `rank_3`, `rank-3`,
/// `rank.3`, `proc3` (case-insensitive); the first capture group is the
/// rank.
pub const DEFAULT_RANK_PATTERN: &str = r"(?i)(?:rank|proc)[-_.]?(\d+)";

/// Where a row's rank came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind", content = "detail")]
pub enum RankSource {
    /// The export's recorded environment (`TARGET_INFO_SYSTEM_ENV`,
    /// `DeviceEnvironment`), with the variable name.
    Export(&'static str),
    /// The file name, matched by [`DEFAULT_RANK_PATTERN`] or `--rank-from`.
    FileName,
    /// Not known.
    Unknown,
}

impl RankSource {
    /// A short text: `env:SLURM_PROCID`, `file_name` or `unknown`.
    pub fn text(self) -> String {
        match self {
            RankSource::Export(var) => format!("env:{var}"),
            RankSource::FileName => "file_name".to_string(),
            RankSource::Unknown => "unknown".to_string(),
        }
    }
}

/// How to find the rank of an input.
#[derive(Debug, Clone)]
pub struct RankRule {
    /// The file-name pattern (first capture group, or the whole match).
    pub pattern: regex::Regex,
    /// True when the user gave it (`--rank-from`): it then wins over the
    /// export's metadata.
    pub explicit: bool,
}

impl Default for RankRule {
    fn default() -> Self {
        RankRule {
            pattern: regex::Regex::new(DEFAULT_RANK_PATTERN).expect("valid default pattern"),
            explicit: false,
        }
    }
}

impl RankRule {
    /// The rank in a file name, when the pattern matches a `u32`.
    pub fn from_name(&self, file_name: &str) -> Option<u32> {
        let caps = self.pattern.captures(file_name)?;
        let m = caps.get(1).or_else(|| caps.get(0))?;
        m.as_str().parse().ok()
    }

    /// The rank of an input: `--rank-from` first when given, then the
    /// export's recorded rank, then the file name.
    pub fn resolve(
        &self,
        file_name: &str,
        recorded: Option<(u32, &'static str)>,
    ) -> (Option<u32>, RankSource) {
        let by_name = || {
            self.from_name(file_name)
                .map(|r| (Some(r), RankSource::FileName))
        };
        if self.explicit {
            if let Some(found) = by_name() {
                return found;
            }
        }
        if let Some((r, var)) = recorded {
            return (Some(r), RankSource::Export(var));
        }
        by_name().unwrap_or((None, RankSource::Unknown))
    }
}

/// Which input a row belongs to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct InputTag {
    /// The input path as given (or as a glob or directory expanded to).
    pub input: String,
    /// The Hive partition value (`input=<this>` in Parquet datasets): the
    /// file name with every byte outside `[A-Za-z0-9._-]` replaced by `_`,
    /// plus `-<hash>` when two inputs of one run share it.
    pub partition: String,
    /// Host that recorded it, when known.
    pub host: Option<String>,
    /// Rank, when known.
    pub rank: Option<u32>,
    /// Where the rank came from.
    pub rank_source: RankSource,
}

/// The partition value of a file name: `[A-Za-z0-9._-]` kept, everything
/// else `_`; a name that would be empty or start with `.` gets a leading `_`
/// (Spark and DuckDB skip hidden directories).
pub fn sanitize_partition(name: &str) -> String {
    let mut s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.is_empty() || s.starts_with('.') || s.starts_with('_') {
        s.insert(0, 'x');
    }
    s
}

/// Partition values for a run's inputs: [`sanitize_partition`] of each file
/// name, with `-` and 8 hex digits of an FNV-1a hash of the whole path added
/// to every name that two inputs share (run1/rank0.sqlite, run2/rank0.sqlite).
pub fn partitions(paths: &[String]) -> Vec<String> {
    let base: Vec<String> = paths
        .iter()
        .map(|p| {
            let name = std::path::Path::new(p)
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| p.clone());
            sanitize_partition(&name)
        })
        .collect();
    base.iter()
        .zip(paths)
        .map(|(b, p)| {
            if base.iter().filter(|x| *x == b).count() > 1 {
                format!("{b}-{:08x}", fnv1a(p.as_bytes()) as u32)
            } else {
                b.clone()
            }
        })
        .collect()
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rank_from_file_names() {
        let r = RankRule::default();
        assert_eq!(r.from_name("train_rank3.sqlite"), Some(3));
        assert_eq!(r.from_name("RANK_12.nsys-rep"), Some(12));
        assert_eq!(r.from_name("proc-0.csv"), Some(0));
        assert_eq!(r.from_name("report1.sqlite"), None);
        let custom = RankRule {
            pattern: regex::Regex::new(r"node\d+-(\d+)").unwrap(),
            explicit: true,
        };
        assert_eq!(
            custom.resolve("node2-7.sqlite", Some((1, "PMI_RANK"))),
            (Some(7), RankSource::FileName)
        );
        assert_eq!(
            r.resolve("rank2.sqlite", Some((1, "PMI_RANK"))),
            (Some(1), RankSource::Export("PMI_RANK"))
        );
        assert_eq!(r.resolve("a.sqlite", None), (None, RankSource::Unknown));
    }

    #[test]
    fn partitions_are_safe_and_distinct() {
        assert_eq!(sanitize_partition("rank 0=a/b.sqlite"), "rank_0_a_b.sqlite");
        assert_eq!(sanitize_partition(".hidden"), "x.hidden");
        let p = partitions(&[
            "a/rank0.sqlite".into(),
            "b/rank0.sqlite".into(),
            "c/r1.sqlite".into(),
        ]);
        assert_ne!(p[0], p[1]);
        assert!(p[0].starts_with("rank0.sqlite-"));
        assert_eq!(p[2], "r1.sqlite");
    }
}
