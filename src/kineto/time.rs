//! Kineto times are µs written as decimal numbers (`4203669604595.407`,
//! `1707417525509335`); parsed from the text, not through an `f64`, so a
//! sub-µs fraction is kept to the ns at any magnitude (an `f64` of
//! 1.7e15 µs has a 0.25 µs step).

use crate::timeline::limits::MAX_TIME_NS;

/// `text` (µs, decimal, optional sign, fraction and exponent) as ns,
/// rounded half away from zero at the ns; `None` when it is not a number or
/// lies beyond ±[`MAX_TIME_NS`].
pub fn micros_to_ns(text: &str) -> Option<i64> {
    let t = text.trim();
    let (neg, body) = match t.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, t),
    };
    if body.contains(['e', 'E']) {
        // Rare (an exponent): the f64 path, exact to the ns below 2^53 ns.
        let v: f64 = t.parse().ok()?;
        let ns = (v * 1000.0).round();
        return (ns.is_finite() && ns.abs() <= MAX_TIME_NS as f64).then_some(ns as i64);
    }
    let (int, frac) = body.split_once('.').unwrap_or((body, ""));
    if int.is_empty() && frac.is_empty() {
        return None;
    }
    if !int.bytes().all(|b| b.is_ascii_digit()) || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let mut ns: i64 = 0;
    for b in int.bytes() {
        ns = ns.checked_mul(10)?.checked_add(i64::from(b - b'0'))?;
        if ns > MAX_TIME_NS / 1000 {
            return None;
        }
    }
    ns *= 1000;
    let digits: Vec<i64> = frac.bytes().map(|b| i64::from(b - b'0')).collect();
    let mut sub = 0i64;
    for k in 0..3 {
        sub = sub * 10 + digits.get(k).copied().unwrap_or(0);
    }
    if digits.get(3).is_some_and(|d| *d >= 5) {
        sub += 1;
    }
    ns += sub;
    if ns > MAX_TIME_NS {
        return None;
    }
    Some(if neg { -ns } else { ns })
}

#[cfg(test)]
mod tests {
    use super::micros_to_ns;

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
        assert_eq!(micros_to_ns("-2.5"), Some(-2_500));
        assert_eq!(micros_to_ns("1.5e3"), Some(1_500_000));
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
        ] {
            assert_eq!(micros_to_ns(bad), None, "{bad}");
        }
    }
}
