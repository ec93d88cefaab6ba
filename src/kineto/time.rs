//! JSON numbers read from their text as exact decimals, never through an
//! `f64`: Kineto times are µs written as decimals (`4203669604595.407`,
//! `1707417525509335`, and from some writers `1.707417525512145E15`), so a
//! sub-µs fraction is kept to the ns at any magnitude and in every JSON form
//! (an `f64` of 1.7e15 µs has a 0.25 µs step). Ids written as `8.0` or `8e0`
//! are the integer 8; `8.5` is no id.

use crate::timeline::limits::MAX_TIME_NS;

/// Significant digits kept exactly; the next one decides the rounding (half
/// away from zero needs no more), the rest only whether the value is whole.
const KEPT_DIGITS: u32 = 36;

/// A JSON number as `±mantissa × 10^exponent`, exactly (the digits beyond
/// [`KEPT_DIGITS`] folded into `rest_nonzero`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Decimal {
    negative: bool,
    mantissa: u128,
    exponent: i64,
    /// Digits dropped beyond the kept ones were not all zero.
    rest_nonzero: bool,
}

/// Parses JSON number text (RFC 8259 grammar: optional `-`, integer part
/// without leading zeros, optional fraction, optional exponent); `None` for
/// anything else (a string, `null`, `+1`, `.5`, `1.`).
fn parse_decimal(text: &str) -> Option<Decimal> {
    let bytes = text.trim().as_bytes();
    // The common case, a plain integer of at most 18 digits, directly.
    if !bytes.is_empty() && bytes.len() <= 18 && bytes.iter().all(u8::is_ascii_digit) {
        if bytes.len() > 1 && bytes[0] == b'0' {
            return None;
        }
        let mantissa = bytes
            .iter()
            .fold(0u128, |m, b| m * 10 + u128::from(b - b'0'));
        return Some(Decimal {
            negative: false,
            mantissa,
            exponent: 0,
            rest_nonzero: false,
        });
    }
    let (negative, mut i) = match bytes.first()? {
        b'-' => (true, 1),
        _ => (false, 0),
    };
    let mut d = Decimal {
        negative,
        mantissa: 0,
        exponent: 0,
        rest_nonzero: false,
    };
    let mut kept = 0u32;
    let mut push = |digit: u8, fractional: bool, d: &mut Decimal| {
        if kept < KEPT_DIGITS || (d.mantissa == 0 && digit == 0) {
            if d.mantissa != 0 || digit != 0 {
                kept += 1;
            }
            d.mantissa = d.mantissa * 10 + u128::from(digit);
            if fractional {
                d.exponent -= 1;
            }
        } else if kept == KEPT_DIGITS {
            // The first dropped digit is kept too: it decides the rounding.
            kept += 1;
            d.mantissa = d.mantissa * 10 + u128::from(digit);
            if fractional {
                d.exponent -= 1;
            }
        } else {
            d.rest_nonzero |= digit != 0;
            if !fractional {
                d.exponent += 1;
            }
        }
    };
    let int_start = i;
    while let Some(b) = bytes.get(i).filter(|b| b.is_ascii_digit()) {
        push(b - b'0', false, &mut d);
        i += 1;
    }
    let int_len = i - int_start;
    if int_len == 0 || (int_len > 1 && bytes[int_start] == b'0') {
        return None;
    }
    if bytes.get(i) == Some(&b'.') {
        i += 1;
        let frac_start = i;
        while let Some(b) = bytes.get(i).filter(|b| b.is_ascii_digit()) {
            push(b - b'0', true, &mut d);
            i += 1;
        }
        if i == frac_start {
            return None;
        }
    }
    if matches!(bytes.get(i), Some(b'e' | b'E')) {
        i += 1;
        let exp_negative = match bytes.get(i) {
            Some(b'-') => {
                i += 1;
                true
            }
            Some(b'+') => {
                i += 1;
                false
            }
            _ => false,
        };
        let exp_start = i;
        let mut exp: i64 = 0;
        while let Some(b) = bytes.get(i).filter(|b| b.is_ascii_digit()) {
            // Saturates far beyond any representable value.
            exp = (exp * 10 + i64::from(b - b'0')).min(1 << 20);
            i += 1;
        }
        if i == exp_start {
            return None;
        }
        d.exponent += if exp_negative { -exp } else { exp };
    }
    (i == bytes.len()).then_some(d)
}

/// `d × 10^scale`, rounded half away from zero to an integer; `None` beyond
/// ±`bound`. `whole` is set to whether no rounding was needed.
fn scaled(d: Decimal, scale: i64, bound: i128) -> Option<(i128, bool)> {
    let k = d.exponent + scale;
    let (magnitude, whole) = if d.mantissa == 0 {
        (0u128, !d.rest_nonzero)
    } else if k >= 0 {
        let factor = 10u128.checked_pow(u32::try_from(k).ok()?)?;
        (d.mantissa.checked_mul(factor)?, !d.rest_nonzero)
    } else if k < -38 {
        // Below 10^-1 whatever the digits (at most 37 of them).
        (0, false)
    } else {
        let divisor = 10u128.pow(u32::try_from(-k).ok()?);
        let (q, r) = (d.mantissa / divisor, d.mantissa % divisor);
        let up = r >= divisor - r; // r ≥ divisor / 2, exactly
        (q + u128::from(up), r == 0 && !d.rest_nonzero)
    };
    let magnitude = i128::try_from(magnitude).ok()?;
    if magnitude > bound {
        return None;
    }
    Some((if d.negative { -magnitude } else { magnitude }, whole))
}

/// `text` (µs, any JSON number form) as ns, rounded half away from zero at
/// the ns; `None` when it is not a JSON number or lies beyond
/// ±[`MAX_TIME_NS`].
pub fn micros_to_ns(text: &str) -> Option<i64> {
    if let Some(ns) = short_micros_to_ns(text.as_bytes()) {
        return ns;
    }
    let (ns, _) = scaled(parse_decimal(text)?, 3, i128::from(MAX_TIME_NS))?;
    i64::try_from(ns).ok()
}

/// [`micros_to_ns`] of the form every Kineto time has, in `u64`
/// arithmetic: `-?(0|[1-9][0-9]*)(\.[0-9]+)?` with at most 18 digits in
/// all; `None` for any other text (the general path reads it). The same
/// rounding: half away from zero at the ns.
#[inline]
fn short_micros_to_ns(b: &[u8]) -> Option<Option<i64>> {
    let (negative, digits) = match b.split_first()? {
        (b'-', rest) => (true, rest),
        _ => (false, b),
    };
    let int_len = digits.iter().take_while(|c| c.is_ascii_digit()).count();
    let (int, rest) = digits.split_at(int_len);
    let frac = match rest.split_first() {
        None => &rest[..0],
        Some((b'.', f)) if !f.is_empty() && f.iter().all(u8::is_ascii_digit) => f,
        _ => return None,
    };
    if int_len == 0 || (int_len > 1 && int[0] == b'0') || int_len + frac.len() > 18 {
        return None;
    }
    let value = |d: &[u8]| d.iter().fold(0u64, |m, c| m * 10 + u64::from(c - b'0'));
    // Under 10^18 each: no overflow below.
    let (whole, part) = (value(int), value(frac));
    let ns_part = match frac.len() {
        n @ 0..=3 => part * 10u64.pow(3 - n as u32),
        n => {
            let divisor = 10u64.pow(n as u32 - 3);
            let (q, r) = (part / divisor, part % divisor);
            q + u64::from(r >= divisor - r)
        }
    };
    let magnitude = u128::from(whole) * 1000 + u128::from(ns_part);
    if magnitude > MAX_TIME_NS as u128 {
        return Some(None);
    }
    let magnitude = magnitude as i64;
    Some(Some(if negative { -magnitude } else { magnitude }))
}

/// `text` as an integer when it is a JSON number with an integral value
/// (`7`, `7.0`, `7e0`, `7000e-3`) within ±2^63; `None` otherwise (`7.5`, a
/// string, `null`).
pub fn exact_integer(text: &str) -> Option<i64> {
    // The common form, `-?[1-9][0-9]*` of at most 18 digits, directly.
    let b = text.as_bytes();
    let digits = b.strip_prefix(b"-").unwrap_or(b);
    if (1..=18).contains(&digits.len())
        && digits.iter().all(u8::is_ascii_digit)
        && (digits[0] != b'0' || digits.len() == 1)
    {
        let v = digits
            .iter()
            .fold(0i64, |m, c| m * 10 + i64::from(c - b'0'));
        return Some(if digits.len() < b.len() { -v } else { v });
    }
    let (v, whole) = scaled(parse_decimal(text)?, 0, i128::from(i64::MAX))?;
    if !whole {
        return None;
    }
    i64::try_from(v).ok()
}

/// `text` as a non-negative integer below 2^64 when it is a JSON number
/// with an integral value; `None` otherwise.
pub fn exact_unsigned(text: &str) -> Option<u64> {
    let (v, whole) = scaled(parse_decimal(text)?, 0, i128::from(u64::MAX))?;
    if !whole || v < 0 {
        return None;
    }
    u64::try_from(v).ok()
}

#[cfg(test)]
mod tests {
    use super::{exact_integer, exact_unsigned, micros_to_ns, MAX_TIME_NS};

    #[test]
    fn fractions_are_kept_to_the_ns_at_any_magnitude() {
        assert_eq!(
            micros_to_ns("1707417525509335"),
            Some(1_707_417_525_509_335_000)
        );
        // 1.7e15 µs with a fraction: an f64 would be off by up to 125 ns.
        assert_eq!(
            micros_to_ns("1707417525509335.123"),
            Some(1_707_417_525_509_335_123)
        );
        assert_eq!(
            micros_to_ns("4203669604595.407"),
            Some(4_203_669_604_595_407)
        );
        assert_eq!(micros_to_ns("340.024"), Some(340_024));
        assert_eq!(micros_to_ns("68.0"), Some(68_000));
        assert_eq!(
            micros_to_ns("0.0005"),
            Some(1),
            "half a ns rounds away from zero"
        );
        assert_eq!(micros_to_ns("0.00049999"), Some(0));
        assert_eq!(micros_to_ns("-2.5"), Some(-2_500));
        assert_eq!(micros_to_ns("-0.0005"), Some(-1));
        assert_eq!(micros_to_ns("1.5e3"), Some(1_500_000));
    }

    #[test]
    fn exponents_are_exact_too() {
        // The case: an f64 puts this 104 ns early.
        assert_eq!(
            micros_to_ns("1.707417525512145E15"),
            Some(1_707_417_525_512_145_000)
        );
        assert_eq!(
            micros_to_ns("1707417525512145123E-3"),
            Some(1_707_417_525_512_145_123)
        );
        assert_eq!(micros_to_ns("12.5e-3"), Some(13), "12.5 ns rounds up");
        assert_eq!(micros_to_ns("1E+2"), Some(100_000));
        assert_eq!(micros_to_ns("0e999999999"), Some(0));
        assert_eq!(micros_to_ns("1e-99999999999999999999"), Some(0));
        // 40 significant digits: the 37th decides the rounding.
        assert_eq!(
            micros_to_ns("1.0000000000000000000000000000000000005000"),
            Some(1_000)
        );
        assert_eq!(
            micros_to_ns("0.0004999999999999999999999999999999999999999"),
            Some(0)
        );
        assert_eq!(
            micros_to_ns("0.0005000000000000000000000000000000000000001"),
            Some(1)
        );
    }

    #[test]
    fn non_numbers_and_huge_values_are_refused() {
        for bad in [
            "",
            ".",
            "abc",
            "\"12\"",
            "1.2.3",
            "99999999999999999999999",
            "null",
            "1e300",
            "+1",
            ".5",
            "1.",
            "01",
            "1e",
            "--1",
        ] {
            assert_eq!(micros_to_ns(bad), None, "{bad}");
        }
    }

    #[test]
    fn the_short_form_reads_as_the_general_path_does() {
        // Every text against the general path (parse_decimal, then
        // scaled), which the fast paths must agree with digit for digit:
        // rounding at the ns, the bound, leading zeros, the 18-digit edge.
        let general = |t: &str| {
            let (ns, _) = super::scaled(super::parse_decimal(t)?, 3, i128::from(MAX_TIME_NS))?;
            i64::try_from(ns).ok()
        };
        let general_int = |t: &str| {
            let (v, whole) = super::scaled(super::parse_decimal(t)?, 0, i128::from(i64::MAX))?;
            whole.then_some(v).and_then(|v| i64::try_from(v).ok())
        };
        let mut texts: Vec<String> = [
            "0",
            "-0",
            "7",
            "-7",
            "0.5",
            "0.0005",
            "0.00049999",
            "-0.0005",
            "12.3456",
            "12.3455",
            "-12.3455",
            "999999999999999.999",
            "2305843009213693.952",
            "2305843009213693.9515",
            "2305843009213693.9525",
            "2305843009213694",
            "-2305843009213693.952",
            "123456789012345678",
            "1234567890123456789",
            "00",
            "01.5",
            "1.",
            ".5",
            "-",
            "",
            " 1",
            "1 ",
            "1e3",
            "1.5E2",
            "4203669604595.407",
            "1707417525509335",
            "1707417525509335.123",
            "0.000000000000000005",
            "0.0000000000000000005",
        ]
        .iter()
        .map(|t| t.to_string())
        .collect();
        // Every digit count at both ends of the 18-digit form.
        for n in 1..=20 {
            let digits: String = "987654321098765432109".chars().take(n).collect();
            for split in 0..=n {
                let (a, b) = digits.split_at(split);
                texts.push(format!("{}.{}", if a.is_empty() { "0" } else { a }, b));
                texts.push(format!("-{a}.{b}"));
            }
            texts.push(digits.clone());
            texts.push(format!("-{digits}"));
        }
        for t in &texts {
            assert_eq!(micros_to_ns(t), general(t), "{t:?}");
            assert_eq!(exact_integer(t), general_int(t), "{t:?}");
        }
    }

    #[test]
    fn integers_in_every_form() {
        assert_eq!(exact_integer("8"), Some(8));
        assert_eq!(exact_integer("8.0"), Some(8));
        assert_eq!(exact_integer("8e0"), Some(8));
        assert_eq!(exact_integer("8000e-3"), Some(8));
        assert_eq!(exact_integer("-1"), Some(-1));
        assert_eq!(exact_integer("8.5"), None);
        assert_eq!(exact_integer("1e19"), None);
        assert_eq!(exact_integer("true"), None);
        assert_eq!(exact_unsigned("-1"), None);
        assert_eq!(exact_unsigned("1.8446744073709551615e19"), Some(u64::MAX));
        assert_eq!(exact_unsigned("1099511627776"), Some(1 << 40));
    }
}
