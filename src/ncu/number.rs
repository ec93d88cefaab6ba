//! Numbers and units as ncu prints them, converted to SI once, here.
//!
//! ncu writes numbers with the C++ locale of the machine it ran on: thousands
//! separators (`134,957,158,144`), two decimals with `--print-fp`
//! (`838,860,800.00`), `n/a` for metrics the GPU lacks and `nan` for failed
//! launches. A comma-decimal locale (`1.619.726.202,90`, `8,87`) is refused,
//! never silently read 1000x off.
//!
//! Units come in base form (`byte`, `nsecond`, `hz`, `cycle/second`) or, in
//! import mode, auto-scaled per row (`Kbyte`, `Mbyte`, `us`, `msecond`,
//! `Ghz`, `Gbyte/second`). Prefixes are decimal (x1000).

/// A cell value after parsing.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Value {
    /// A finite number, still in the unit of its row.
    Number(f64),
    /// `n/a` or an empty cell: the metric does not exist on this GPU or was
    /// not collected.
    Missing,
    /// `nan`: the counter was read but had no valid value (failed launch).
    NaN,
}

/// Why a cell is not a number.
#[derive(Debug, Clone, PartialEq)]
pub enum NumberError {
    /// Not a number at all.
    NotANumber,
    /// Formatted in a comma-decimal locale.
    CommaDecimal,
    /// Digits whose value overflows a 64-bit float (`1e309`, 400 digits).
    Overflow,
}

/// Parses a cell. Accepts `-`, digits, `,` thousands groups of exactly three
/// digits and one `.` decimal point.
pub fn parse_value(cell: &[u8]) -> Result<Value, NumberError> {
    let s = trim(cell);
    if s.is_empty() || s.eq_ignore_ascii_case(b"n/a") {
        return Ok(Value::Missing);
    }
    if s.eq_ignore_ascii_case(b"nan") || s.eq_ignore_ascii_case(b"-nan") {
        return Ok(Value::NaN);
    }
    // Fast path: plain digits, the common case in base-unit exports.
    if s.len() < 19 && s.iter().all(u8::is_ascii_digit) {
        let mut v: u64 = 0;
        for &b in s {
            v = v * 10 + u64::from(b - b'0');
        }
        return Ok(Value::Number(v as f64));
    }
    if let Some(v) = grouped_integer(s) {
        return Ok(Value::Number(v));
    }
    let (neg, body) = match s.first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    if body.is_empty() {
        return Err(NumberError::NotANumber);
    }
    let dots = body.iter().filter(|&&b| b == b'.').count();
    let commas = body.iter().filter(|&&b| b == b',').count();
    if body
        .iter()
        .any(|&b| !(b.is_ascii_digit() || b == b'.' || b == b','))
    {
        // Scientific notation from some exports (`1.5e+09`).
        let text = std::str::from_utf8(s).map_err(|_| NumberError::NotANumber)?;
        return match text.parse::<f64>() {
            Ok(v) if v.is_finite() => Ok(Value::Number(v)),
            // A literal `inf` is unmeasurable, like `nan`; digits that
            // overflow are a broken value.
            Ok(_) if body.iter().any(u8::is_ascii_digit) => Err(NumberError::Overflow),
            Ok(_) => Ok(Value::NaN),
            Err(_) => Err(NumberError::NotANumber),
        };
    }
    if dots > 1 {
        // `1.619.726.202,90` or `134.957.158.144`: dot-grouped thousands.
        return Err(NumberError::CommaDecimal);
    }
    let (int_part, frac_part) = match body.iter().position(|&b| b == b'.') {
        Some(p) => (&body[..p], Some(&body[p + 1..])),
        None => (body, None),
    };
    if let Some(f) = frac_part {
        if f.contains(&b',') {
            // `1.619,90`: a dot before a comma.
            return Err(NumberError::CommaDecimal);
        }
        if f.is_empty() {
            return Err(NumberError::NotANumber);
        }
    }
    if commas > 0 {
        let groups: Vec<&[u8]> = int_part.split(|&b| b == b',').collect();
        let first = groups[0];
        // A grouped number never starts with `0` (`0,125`, `00,500`): that
        // is a decimal comma, 0.125 read as 125 otherwise.
        if first.is_empty() || first.len() > 3 || first[0] == b'0' {
            return Err(NumberError::CommaDecimal);
        }
        if groups[1..].iter().any(|g| g.len() != 3) {
            // `8,87`, `111,81`: a decimal comma.
            return Err(NumberError::CommaDecimal);
        }
    }
    if int_part.is_empty() {
        return Err(NumberError::NotANumber);
    }
    let mut v = 0f64;
    for &b in int_part {
        if b != b',' {
            v = v * 10.0 + f64::from(b - b'0');
        }
    }
    if let Some(f) = frac_part {
        // Parse the fraction through the standard library for exact rounding.
        let mut buf = String::with_capacity(f.len() + 2);
        buf.push_str("0.");
        buf.push_str(std::str::from_utf8(f).map_err(|_| NumberError::NotANumber)?);
        v += buf.parse::<f64>().map_err(|_| NumberError::NotANumber)?;
    }
    if !v.is_finite() {
        return Err(NumberError::Overflow);
    }
    Ok(Value::Number(if neg { -v } else { v }))
}

/// Fast path for an integer in thousands groups (`134,957,158,144`, what a
/// details page in base units holds): one to three digits, then `,` and
/// three digits per group, at most 15 digits, so the value is below 2^53
/// and exactly what the general path computes. `None` for anything else.
fn grouped_integer(s: &[u8]) -> Option<f64> {
    if s.len() > 19 {
        return None;
    }
    let lead = s.len() % 4;
    let lead = if lead == 0 { 4 } else { lead };
    // `lead` = 4 means a comma or a fourth digit comes first: not grouped.
    // A leading `0` is never a thousands group (`0,125` is a decimal
    // comma): the general path refuses it.
    if lead == 4 || s.len() < 5 || s[0] == b'0' {
        return None;
    }
    let mut v: u64 = 0;
    for (i, &b) in s.iter().enumerate() {
        if i >= lead && (i - lead) % 4 == 0 {
            if b != b',' {
                return None;
            }
        } else if b.is_ascii_digit() {
            v = v * 10 + u64::from(b - b'0');
        } else {
            return None;
        }
    }
    Some(v as f64)
}

fn trim(s: &[u8]) -> &[u8] {
    let start = s
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(s.len());
    let end = s
        .iter()
        .rposition(|b| !b.is_ascii_whitespace())
        .map_or(start, |p| p + 1);
    &s[start..end]
}

/// What a unit measures, after its prefix is stripped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dimension {
    /// Time; factor converts to nanoseconds.
    Time,
    /// Bytes; factor converts to bytes.
    Bytes,
    /// Events per second (clock rates); factor converts to 1/s.
    Rate,
    /// Plain counts (`inst`, `cycle`, `sector`, empty unit); factor to 1.
    Count,
    /// Bytes per second; factor converts to byte/s.
    BytesPerSecond,
    /// A percentage (`%`); factor 1 (the value stays in percent).
    Percent,
    /// Events per cycle (`inst/cycle`, `sector/cycle`); factor to 1/cycle.
    PerCycle,
    /// Anything else (`%`, `inst/cycle`, ...), not converted.
    Other,
}

/// A unit resolved to its dimension and the factor to the canonical unit
/// (ns, byte, 1/s, count, byte/s).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Unit {
    /// What it measures.
    pub dimension: Dimension,
    /// Multiply a value in this unit by `factor` to get the canonical unit.
    pub factor: f64,
}

fn prefix_factor(p: &str) -> Option<f64> {
    Some(match p {
        "" => 1.0,
        "K" | "k" => 1e3,
        "M" => 1e6,
        "G" => 1e9,
        "T" => 1e12,
        "P" => 1e15,
        "m" => 1e-3,
        "u" | "µ" => 1e-6,
        "n" => 1e-9,
        _ => return None,
    })
}

/// Time unit -> nanoseconds per unit (exact powers of ten).
fn time_ns(u: &str) -> Option<f64> {
    match u {
        "s" | "second" | "sec" => Some(1e9),
        "ms" | "msecond" => Some(1e6),
        "us" | "usecond" | "µs" | "µsecond" => Some(1e3),
        "ns" | "nsecond" => Some(1.0),
        _ => None,
    }
}

/// Splits `Mbyte` into (`M`, `byte`) for a known base.
fn split_prefix<'a>(u: &'a str, bases: &[&str]) -> Option<(f64, &'a str)> {
    for b in bases {
        if let Some(p) = u.strip_suffix(b) {
            if let Some(f) = prefix_factor(p) {
                return Some((f, &u[p.len()..]));
            }
        }
    }
    None
}

const COUNT_BASES: [&str; 9] = [
    "inst", "cycle", "sector", "request", "warp", "thread", "block", "op", "flop",
];

/// Resolves a unit string as ncu prints it. Unknown units resolve to
/// `Dimension::Other` so that callers can refuse them where a dimension is
/// required.
pub fn parse_unit(unit: &str) -> Unit {
    let u = unit.trim();
    let other = Unit {
        dimension: Dimension::Other,
        factor: 1.0,
    };
    if u.is_empty() {
        return Unit {
            dimension: Dimension::Count,
            factor: 1.0,
        };
    }
    if let Some(ns) = time_ns(u) {
        return Unit {
            dimension: Dimension::Time,
            factor: ns,
        };
    }
    if let Some((f, _)) = split_prefix(u, &["byte"]) {
        return Unit {
            dimension: Dimension::Bytes,
            factor: f,
        };
    }
    if let Some((f, _)) = split_prefix(u, &["hz", "Hz"]) {
        return Unit {
            dimension: Dimension::Rate,
            factor: f,
        };
    }
    if let Some((f, _)) = split_prefix(u, &COUNT_BASES) {
        return Unit {
            dimension: Dimension::Count,
            factor: f,
        };
    }
    if u == "%" {
        return Unit {
            dimension: Dimension::Percent,
            factor: 1.0,
        };
    }
    if let Some((num, den)) = u.split_once('/') {
        if den == "cycle" {
            if let Some((f, _)) = split_prefix(num, &COUNT_BASES) {
                return Unit {
                    dimension: Dimension::PerCycle,
                    factor: f,
                };
            }
        }
        let Some(den_ns) = time_ns(den) else {
            return other;
        };
        if let Some((f, _)) = split_prefix(num, &["byte"]) {
            return Unit {
                dimension: Dimension::BytesPerSecond,
                factor: f * 1e9 / den_ns,
            };
        }
        if let Some((f, _)) = split_prefix(num, &COUNT_BASES) {
            return Unit {
                dimension: Dimension::Rate,
                factor: f * 1e9 / den_ns,
            };
        }
    }
    other
}

#[cfg(test)]
mod tests {
    use super::*;

    fn num(s: &str) -> f64 {
        match parse_value(s.as_bytes()) {
            Ok(Value::Number(v)) => v,
            other => panic!("{s}: {other:?}"),
        }
    }

    #[test]
    fn thousands_separators_and_print_fp() {
        assert_eq!(num("134,957,158,144"), 134_957_158_144.0);
        assert_eq!(num("838,860,800.00"), 838_860_800.0);
        assert!((num("1,619,726,202.90") - 1_619_726_202.9).abs() < 1e-6);
        assert_eq!(num("17.50"), 17.5);
        assert_eq!(num("0"), 0.0);
        assert_eq!(num("-3.25"), -3.25);
        assert_eq!(num("1.5e+09"), 1.5e9);
    }

    #[test]
    fn grouped_integers_take_the_fast_path_only_when_exact() {
        // Digits with the commas removed, read by hand.
        assert_eq!(grouped_integer(b"1,000"), Some(1000.0));
        assert_eq!(grouped_integer(b"12,345,678"), Some(12_345_678.0));
        assert_eq!(
            grouped_integer(b"999,999,999,999,999"),
            Some(999_999_999_999_999.0)
        );
        // Not grouped in threes, signed, decimal, or over 15 digits: the
        // general path decides (an error for the misgrouped ones).
        for s in [
            "1,0000",
            "1000",
            ",100",
            "1,00",
            "-1,000",
            "1,000.5",
            "1,000,",
            "1,000,000,000,000,000",
        ] {
            assert_eq!(grouped_integer(s.as_bytes()), None, "{s}");
        }
        assert_eq!(parse_value(b"1,0000"), Err(NumberError::CommaDecimal));
        // A first group of `0` is a decimal comma (`0,125` is 0.125 in a
        // de_DE export), never thousands: an error on both paths, not 125.
        for s in ["0,125", "0,001", "00,500", "0,125,000", "-0,125", "0,125.5"] {
            assert_eq!(grouped_integer(s.as_bytes()), None, "{s}");
            assert_eq!(
                parse_value(s.as_bytes()),
                Err(NumberError::CommaDecimal),
                "{s}"
            );
        }
        assert_eq!(num("1,000,000,000,000,000"), 1e15);
    }

    #[test]
    fn missing_nan_and_garbage() {
        assert_eq!(parse_value(b"n/a"), Ok(Value::Missing));
        assert_eq!(parse_value(b""), Ok(Value::Missing));
        assert_eq!(parse_value(b"nan"), Ok(Value::NaN));
        assert_eq!(parse_value(b"(128, 1, 1)"), Err(NumberError::NotANumber));
        assert_eq!(parse_value(b"abc"), Err(NumberError::NotANumber));
    }

    #[test]
    fn comma_decimal_locale_is_refused() {
        for s in [
            "8,87",
            "111,81",
            "1.619.726.202,90",
            "134.957.158.144",
            "1.619,9",
            "1234,567",
        ] {
            assert_eq!(
                parse_value(s.as_bytes()),
                Err(NumberError::CommaDecimal),
                "{s}"
            );
        }
    }

    #[test]
    fn units_convert_to_canonical() {
        let u = parse_unit("Mbyte");
        assert_eq!((u.dimension, u.factor), (Dimension::Bytes, 1e6));
        let u = parse_unit("us");
        assert_eq!((u.dimension, u.factor), (Dimension::Time, 1e3));
        let u = parse_unit("msecond");
        assert_eq!((u.dimension, u.factor), (Dimension::Time, 1e6));
        let u = parse_unit("nsecond");
        assert_eq!((u.dimension, u.factor), (Dimension::Time, 1.0));
        let u = parse_unit("Ghz");
        assert_eq!((u.dimension, u.factor), (Dimension::Rate, 1e9));
        let u = parse_unit("cycle/second");
        assert_eq!((u.dimension, u.factor), (Dimension::Rate, 1.0));
        let u = parse_unit("cycle/nsecond");
        assert_eq!((u.dimension, u.factor), (Dimension::Rate, 1e9));
        let u = parse_unit("Gbyte/second");
        assert_eq!((u.dimension, u.factor), (Dimension::BytesPerSecond, 1e9));
        assert_eq!(parse_unit("%").dimension, Dimension::Percent);
        let u = parse_unit("Kinst/cycle");
        assert_eq!((u.dimension, u.factor), (Dimension::PerCycle, 1e3));
        assert_eq!(parse_unit("register/thread").dimension, Dimension::Other);
        assert_eq!(parse_unit("Kinst").factor, 1e3);
    }
}
