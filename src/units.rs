//! Human-readable numbers with SI prefixes and fixed precision, so output is
//! deterministic and diffable.

/// Formats `value` with a decimal SI prefix and `unit`, 3 significant-ish
/// digits: `1.23 TFLOP/s`, `456 GB/s`, `12.0 µs`-style.
pub fn si(value: f64, unit: &str) -> String {
    if !value.is_finite() {
        return format!("- {unit}");
    }
    const PREFIXES: [(f64, &str); 7] = [
        (1e18, "E"),
        (1e15, "P"),
        (1e12, "T"),
        (1e9, "G"),
        (1e6, "M"),
        (1e3, "k"),
        (1.0, ""),
    ];
    let a = value.abs();
    if a == 0.0 {
        return format!("0 {unit}");
    }
    for (scale, p) in PREFIXES {
        if a >= scale {
            return format!("{} {p}{unit}", three_digits(value / scale));
        }
    }
    // below 1: use m, µ, n
    for (scale, p) in [(1e-3, "m"), (1e-6, "µ"), (1e-9, "n")] {
        if a >= scale {
            return format!("{} {p}{unit}", three_digits(value / scale));
        }
    }
    format!("{value:.3e} {unit}")
}

/// A duration given in nanoseconds, with the natural unit: `850 ns`,
/// `12.3 µs`, `4.56 ms`, `1.23 s`.
pub fn duration_ns(ns: f64) -> String {
    if !ns.is_finite() {
        return "-".to_string();
    }
    let a = ns.abs();
    if a < 1e3 {
        format!("{} ns", three_digits(ns))
    } else if a < 1e6 {
        format!("{} µs", three_digits(ns / 1e3))
    } else if a < 1e9 {
        format!("{} ms", three_digits(ns / 1e6))
    } else {
        format!("{} s", three_digits(ns / 1e9))
    }
}

/// Trace-clock times in ns from this one on (2001-09-09) are Unix time:
/// a PyTorch trace's clock is µs since 1970, an nsys session's starts
/// near 0.
pub const UNIX_CLOCK_FROM_NS: i64 = 1_000_000_000_000_000_000;

/// A trace-clock time as a UTC date ([`utc_datetime`]) when it reads as
/// Unix time ([`UNIX_CLOCK_FROM_NS`]), else `None`.
pub fn unix_clock_date(ns: i64) -> Option<String> {
    (ns >= UNIX_CLOCK_FROM_NS).then(|| utc_datetime(ns))
}

/// Unix time in ns as a UTC date and time to the ms:
/// `2023-04-28 23:51:38.361 UTC` (days to a civil date by Howard
/// Hinnant's `civil_from_days`, proleptic Gregorian).
pub fn utc_datetime(epoch_ns: i64) -> String {
    let ms = epoch_ns.div_euclid(1_000_000);
    let (days, ms_of_day) = (ms.div_euclid(86_400_000), ms.rem_euclid(86_400_000));
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}:{:02}.{:03} UTC",
        ms_of_day / 3_600_000,
        ms_of_day / 60_000 % 60,
        ms_of_day / 1000 % 60,
        ms_of_day % 1000
    )
}

/// A fraction as a percentage with one decimal: `87.3 %`.
pub fn percent(fraction: f64) -> String {
    if fraction.is_finite() {
        format!("{:.1} %", fraction * 100.0)
    } else {
        "-".to_string()
    }
}

/// Three significant digits for values in [1, 1000): `1.23`, `12.3`, `123`.
fn three_digits(v: f64) -> String {
    let a = v.abs();
    if a >= 100.0 {
        format!("{v:.0}")
    } else if a >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

/// Shortens a long kernel name for a table cell: keeps the start and the end,
/// joined by `…`, at most `max` chars.
pub fn ellipsize(name: &str, max: usize) -> String {
    let n = name.chars().count();
    if n <= max || max < 5 {
        return name.to_string();
    }
    let head = (max - 1) * 2 / 3;
    let tail = max - 1 - head;
    let mut s: String = name.chars().take(head).collect();
    s.push('…');
    s.extend(name.chars().skip(n - tail));
    s
}

/// `s` as one word for a POSIX shell, for a command line printed for the
/// user to copy (quoted only when it needs to be).
pub fn shell_quote(s: &str) -> String {
    if s.chars()
        .all(|c| c.is_ascii_alphanumeric() || "/._-+".contains(c))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// A CUDA compute capability (`8.0`, `12.0`): not a unit, but vocabulary
/// every floor shares (the GPU table, the ncu CSV, nsys `TARGET_INFO_GPU`,
/// a trace's `deviceProperties`). Parsed once where an input records it and
/// ordered as the architectures are (`7.5 < 8.0 < 12.0`), so code compares
/// it and never reads text back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ComputeCapability {
    /// The major version (`8` of `8.6`).
    pub major: u32,
    /// The minor version (`6` of `8.6`).
    pub minor: u32,
}

impl ComputeCapability {
    /// `major.minor`.
    pub const fn new(major: u32, minor: u32) -> ComputeCapability {
        ComputeCapability { major, minor }
    }

    /// Parses `8.9` as ncu's `CC` column and `device__attribute_*` values
    /// print it (surrounding blanks allowed); `None` for anything else.
    pub fn parse(text: &str) -> Option<ComputeCapability> {
        let (major, minor) = text.trim().split_once('.')?;
        let digits =
            |s: &str| !s.is_empty() && s.len() <= 3 && s.bytes().all(|b| b.is_ascii_digit());
        if !digits(major) || !digits(minor) {
            return None;
        }
        Some(ComputeCapability::new(
            major.parse().ok()?,
            minor.parse().ok()?,
        ))
    }
}

impl std::fmt::Display for ComputeCapability {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

/// Written as its text (`"8.0"`), as every JSON output had it.
impl serde::Serialize for ComputeCapability {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unix_times_read_as_utc_dates() {
        assert_eq!(utc_datetime(0), "1970-01-01 00:00:00.000 UTC");
        // `date -u -d @1694039996.493421`: Wed Sep  6 22:39:56 UTC 2023.
        assert_eq!(
            utc_datetime(1_694_039_996_493_421_000),
            "2023-09-06 22:39:56.493 UTC"
        );
        // A leap day: `date -u -d @1709164800` is 2024-02-29 00:00:00.
        assert_eq!(
            utc_datetime(1_709_164_800_000_000_000),
            "2024-02-29 00:00:00.000 UTC"
        );
    }

    #[test]
    fn prefixes_and_precision() {
        assert_eq!(si(1.1213e14, "FLOP/s"), "112 TFLOP/s");
        assert_eq!(si(1.566e11, "B/s"), "157 GB/s");
        assert_eq!(si(0.0, "B"), "0 B");
        assert_eq!(si(14.92, "FLOP/B"), "14.9 FLOP/B");
        assert_eq!(si(0.25, "FLOP/B"), "250 mFLOP/B");
        assert_eq!(duration_ns(111_810.0), "112 µs");
        assert_eq!(duration_ns(22.765e9), "22.8 s");
        assert_eq!(duration_ns(850.0), "850 ns");
        assert_eq!(percent(0.8734), "87.3 %");
    }

    #[test]
    fn ellipsize_keeps_both_ends() {
        assert_eq!(ellipsize("abcdefghij", 7), "abcd…ij");
        assert_eq!(ellipsize("short", 7), "short");
    }

    #[test]
    fn compute_capability_parses_once_and_orders_as_architectures() {
        let cc = ComputeCapability::parse(" 8.9 ").unwrap();
        assert_eq!(cc, ComputeCapability::new(8, 9));
        assert_eq!(cc.to_string(), "8.9");
        // 12.0 is newer than 8.9, which text order would get wrong.
        assert!(ComputeCapability::new(12, 0) > cc);
        for bad in ["", "8", "8.", ".9", "8.9.1", "-8.0", "n/a", "8,9"] {
            assert_eq!(ComputeCapability::parse(bad), None, "{bad:?}");
        }
    }
}
