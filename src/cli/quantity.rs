//! The one parser of command-line quantities written `<number><prefix><unit>`
//! (`14.14GB`, `13.2GiB`, `30.8TFLOP/s`, `2.51GHz`, `672e9`): the number as
//! Rust reads an `f64` (exponent allowed), an SI prefix (k or K, M, G, T, P;
//! for bytes also Ki, Mi, Gi, Ti, Pi), the unit's name, and for a rate `/s`.
//! The result is in SI base units (byte, FLOP, Hz; per second for a rate),
//! positive and finite, or a message naming the value and what to write.

/// What one kind of quantity is written in.
#[derive(Debug, Clone, Copy)]
pub struct Unit {
    /// The quantity in words, for messages (`size`, `FLOP rate`).
    pub what: &'static str,
    /// The unit's names (`B`; `FLOP`, `FLOPS`; `Hz`); the first is shown.
    pub names: &'static [&'static str],
    /// True when a prefix may stand without the name (`989.4T` FLOP/s).
    pub bare_prefix: bool,
    /// True when binary prefixes (`Ki` = 1024 ... `Pi`) are accepted.
    pub binary: bool,
    /// True for a rate: a trailing `/s` (or `/second`) is accepted.
    pub per_second: bool,
    /// A well-formed value, for messages.
    pub example: &'static str,
}

/// Bytes: `14.14GB`, `13.2GiB`, `1.5e10`, `1000B`.
pub const BYTES: Unit = Unit {
    what: "size",
    names: &["B"],
    bare_prefix: false,
    binary: true,
    per_second: false,
    example: "14.14GB or 13.2GiB",
};

/// Bytes per second: `672GB/s`, `1.5TiB/s`, `672e9`.
pub const BYTE_RATE: Unit = Unit {
    what: "bandwidth",
    names: &["B"],
    bare_prefix: false,
    binary: true,
    per_second: true,
    example: "672GB/s",
};

/// FLOP per second: `30.8TFLOP/s`, `989.4T`, `1.5e12`.
pub const FLOP_RATE: Unit = Unit {
    what: "FLOP rate",
    names: &["FLOP", "FLOPS"],
    bare_prefix: true,
    binary: false,
    per_second: true,
    example: "30.8TFLOP/s",
};

/// Clock frequency: `2.51GHz`, `1410MHz`, `2.51e9`.
pub const HERTZ: Unit = Unit {
    what: "clock",
    names: &["Hz"],
    bare_prefix: false,
    binary: false,
    per_second: false,
    example: "2.51GHz or 1410MHz",
};

/// SI prefixes and their factors (`K` is read as kilo, as people write it).
const DECIMAL: &[(&str, f64)] = &[
    ("k", 1e3),
    ("K", 1e3),
    ("M", 1e6),
    ("G", 1e9),
    ("T", 1e12),
    ("P", 1e15),
];

/// Binary prefixes (IEC) and their factors.
const BINARY: &[(&str, f64)] = &[
    ("Ki", 1024.0),
    ("Mi", 1048576.0),
    ("Gi", 1073741824.0),
    ("Ti", 1099511627776.0),
    ("Pi", 1125899906842624.0),
];

/// Parses `s` as a positive, finite quantity of `unit`, in SI base units.
pub fn parse(s: &str, unit: &Unit) -> Result<f64, String> {
    let mut t = s.trim();
    if unit.per_second {
        t = t
            .strip_suffix("/s")
            .or_else(|| t.strip_suffix("/second"))
            .unwrap_or(t);
    }
    // The number ends where the first letter other than an exponent's `e`
    // begins: `1.5e12T` is 1.5e12 tera.
    let split = t
        .find(|c: char| c.is_ascii_alphabetic() && c != 'e' && c != 'E')
        .unwrap_or(t.len());
    let (num, suffix) = t.split_at(split);
    let value: f64 = num
        .trim()
        .parse()
        .map_err(|_| format!("`{s}` is not a {}; write e.g. {}", unit.what, unit.example))?;
    let factor = factor(suffix.trim(), unit).ok_or_else(|| {
        format!(
            "unknown unit `{}` in `{s}`; use {}",
            suffix.trim(),
            accepted(unit)
        )
    })?;
    let v = value * factor;
    if v.is_infinite() {
        return Err(format!(
            "`{s}` is too large to be a {} (over {:e})",
            unit.what,
            f64::MAX
        ));
    }
    if v.is_nan() || v <= 0.0 {
        return Err(format!(
            "`{s}`: the {} must be a positive number (e.g. {})",
            unit.what, unit.example
        ));
    }
    Ok(v)
}

/// The factor of a suffix (`GB` → 1e9, `` → 1), `None` when `unit` does
/// not take it.
fn factor(suffix: &str, unit: &Unit) -> Option<f64> {
    if suffix.is_empty() {
        return Some(1.0);
    }
    let prefix = match unit.names.iter().find_map(|n| suffix.strip_suffix(n)) {
        Some(p) => p,
        None if unit.bare_prefix => suffix,
        None => return None,
    };
    if prefix.is_empty() {
        return Some(1.0);
    }
    let binary: &[(&str, f64)] = if unit.binary { BINARY } else { &[] };
    DECIMAL
        .iter()
        .chain(binary)
        .find(|(p, _)| *p == prefix)
        .map(|(_, f)| *f)
}

/// What `unit` accepts, for messages: `B, kB, MB, ... GiB, TiB, PiB`.
fn accepted(unit: &Unit) -> String {
    let name = unit.names[0];
    let mut all: Vec<String> = vec![name.to_string()];
    all.extend(
        DECIMAL
            .iter()
            .filter(|(p, _)| *p != "K")
            .map(|(p, _)| format!("{p}{name}")),
    );
    if unit.binary {
        all.extend(BINARY.iter().map(|(p, _)| format!("{p}{name}")));
    }
    let rate = if unit.per_second {
        " (with or without /s)"
    } else {
        ""
    };
    let bare = if unit.bare_prefix {
        ", or a prefix alone"
    } else {
        ""
    };
    format!(
        "{}{rate}{bare}, or a plain number in {name}",
        all.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_scale_by_powers_of_ten_or_of_1024() {
        assert_eq!(parse("14.14GB", &BYTES), Ok(14.14e9));
        assert_eq!(parse("1GiB", &BYTES), Ok(1073741824.0));
        assert_eq!(parse("512 MB", &BYTES), Ok(512e6));
        assert_eq!(parse("1000B", &BYTES), Ok(1000.0));
        assert_eq!(parse("2KB", &BYTES), Ok(2000.0));
        assert_eq!(parse("672GB/s", &BYTE_RATE), Ok(672e9));
        assert_eq!(parse("1.5TiB/s", &BYTE_RATE), Ok(1.5 * 1024f64.powi(4)));
        assert_eq!(parse("30.8TFLOP/s", &FLOP_RATE), Ok(30.8e12));
        assert_eq!(parse("989.4T", &FLOP_RATE), Ok(989.4e12));
        assert_eq!(parse("5PFLOPS", &FLOP_RATE), Ok(5e15));
        assert_eq!(parse("2.51GHz", &HERTZ), Ok(2.51e9));
        assert_eq!(parse("1410MHz", &HERTZ), Ok(1410e6));
    }

    #[test]
    fn a_plain_number_is_in_base_units_with_its_exponent() {
        assert_eq!(parse("1.5e10", &BYTES), Ok(1.5e10));
        assert_eq!(parse("672e9", &BYTE_RATE), Ok(672e9));
        assert_eq!(parse("1.5E12", &FLOP_RATE), Ok(1.5e12));
        assert_eq!(parse(" 2.51e9 ", &HERTZ), Ok(2.51e9));
        // The exponent and a prefix together: 1e3 x 1e9.
        assert_eq!(parse("1e3GB", &BYTES), Ok(1e12));
    }

    #[test]
    fn an_unknown_suffix_names_itself_and_the_accepted_units() {
        let e = parse("3 parsecs", &BYTES).unwrap_err();
        assert!(e.contains("unknown unit `parsecs`"), "{e}");
        assert!(e.contains("GiB"), "{e}");
        // Lower-case m is milli, not mega: refused rather than guessed.
        assert!(parse("512mB", &BYTES).unwrap_err().contains("`mB`"));
        // Binary prefixes are for bytes only.
        assert!(parse("1GiFLOP/s", &FLOP_RATE).is_err());
        // A prefix alone is a FLOP rate's shorthand, not a size's.
        assert!(parse("14G", &BYTES).is_err());
        assert!(parse("2.51G", &HERTZ).is_err());
        // Another quantity's unit.
        assert!(parse("672GB/s", &FLOP_RATE).is_err());
        assert!(parse("30TFLOP/s", &BYTE_RATE).is_err());
        // /s only on a rate.
        assert!(parse("2GHz/s", &HERTZ).is_err());
    }

    #[test]
    fn zero_and_negative_are_refused_as_not_positive() {
        for s in ["0", "0GB", "-1GB", "-0", "0.0e5"] {
            let e = parse(s, &BYTES).unwrap_err();
            assert!(e.contains("must be a positive number"), "{s}: {e}");
        }
        assert!(parse("-30TFLOP/s", &FLOP_RATE).is_err());
        assert!(parse("0Hz", &HERTZ).is_err());
    }

    #[test]
    fn overflow_is_refused_as_too_large() {
        // 1e300 x 1e15 and 1e309 are past f64::MAX (1.8e308).
        for s in ["1e300PB", "1e309", "2e308"] {
            let e = parse(s, &BYTES).unwrap_err();
            assert!(e.contains("too large"), "{s}: {e}");
        }
    }

    #[test]
    fn words_that_f64_reads_are_not_numbers_here() {
        // `f64::from_str` takes inf and NaN; a letter ends the number here.
        for s in ["inf", "NaN", "infinityGB", "", "GB", "1.2.3GB", "1,5GB"] {
            assert!(parse(s, &BYTES).is_err(), "{s}");
        }
    }
}
