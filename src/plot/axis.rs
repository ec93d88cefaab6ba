//! Axis models: decade-aligned log axes (FLOP/byte, FLOP/s, seconds), "nice"
//! linear axes (counts, milliseconds), their ticks and readable tick labels,
//! and the mapping from data to pixels of a fixed plot rectangle.

use super::labels::Rect;

/// A log10 axis spanning whole decades, `10^lo_exp ..= 10^hi_exp`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LogAxis {
    /// Exponent of the lowest decade shown.
    pub lo_exp: i32,
    /// Exponent of the highest decade shown (`> lo_exp`).
    pub hi_exp: i32,
}

/// One tick: its data value and its label.
#[derive(Debug, Clone, PartialEq)]
pub struct Tick {
    /// Position in data units.
    pub value: f64,
    /// Text drawn next to the tick.
    pub label: String,
}

impl LogAxis {
    /// The smallest decade-aligned axis containing `[min, max]` (both > 0)
    /// with `margin` (a factor ≥ 1) of room on each side, e.g. 1.5 keeps a
    /// value from sitting on the frame. Non-positive or non-finite bounds
    /// give a one-decade axis at 1.
    pub fn covering(min: f64, max: f64, margin: f64) -> LogAxis {
        if !(min.is_finite() && max.is_finite() && min > 0.0 && max > 0.0) {
            return LogAxis {
                lo_exp: 0,
                hi_exp: 1,
            };
        }
        let (min, max) = if min <= max { (min, max) } else { (max, min) };
        let lo_exp = (min / margin).log10().floor() as i32;
        let hi_exp = ((max * margin).log10().ceil() as i32).max(lo_exp + 1);
        LogAxis { lo_exp, hi_exp }
    }

    /// Lowest value on the axis.
    pub fn min(&self) -> f64 {
        10f64.powi(self.lo_exp)
    }

    /// Highest value on the axis.
    pub fn max(&self) -> f64 {
        10f64.powi(self.hi_exp)
    }

    /// Fraction of the axis length at `value` (0 at `min`, 1 at `max`);
    /// outside `[0, 1]` for values off the axis.
    pub fn fraction(&self, value: f64) -> f64 {
        (value.log10() - self.lo_exp as f64) / (self.hi_exp - self.lo_exp) as f64
    }

    /// True when `value` lies on the axis (inclusive).
    pub fn contains(&self, value: f64) -> bool {
        value.is_finite()
            && value >= self.min() * (1.0 - 1e-12)
            && value <= self.max() * (1.0 + 1e-12)
    }

    /// One tick per decade, labelled by `label(exponent)`.
    pub fn decade_ticks(&self, label: impl Fn(i32) -> String) -> Vec<Tick> {
        (self.lo_exp..=self.hi_exp)
            .map(|e| Tick {
                value: 10f64.powi(e),
                label: label(e),
            })
            .collect()
    }

    /// Values 2..9 × each decade inside the axis (minor grid lines).
    pub fn minor_values(&self) -> Vec<f64> {
        (self.lo_exp..self.hi_exp)
            .flat_map(|e| (2..10).map(move |m| m as f64 * 10f64.powi(e)))
            .collect()
    }
}

/// Label of the decade `10^exp` as a plain number: `0.01`, `0.1`, `1`, `10`,
/// `1000`, `10000` (FLOP/byte ticks).
pub fn decade_plain(exp: i32) -> String {
    if exp >= 0 {
        format!("1{}", "0".repeat(exp as usize))
    } else {
        format!("0.{}1", "0".repeat((-exp - 1) as usize))
    }
}

/// Label of the decade `10^exp` with an SI prefix and `unit`: `1 GFLOP/s`,
/// `10 GFLOP/s`, `100 TFLOP/s`, `1 PFLOP/s`; `10 µs`, `1 ms` for unit `s`.
pub fn decade_si(exp: i32, unit: &str) -> String {
    const PREFIXES: [(i32, &str); 11] = [
        (-12, "p"),
        (-9, "n"),
        (-6, "µ"),
        (-3, "m"),
        (0, ""),
        (3, "k"),
        (6, "M"),
        (9, "G"),
        (12, "T"),
        (15, "P"),
        (18, "E"),
    ];
    let base = exp.div_euclid(3) * 3;
    match PREFIXES.iter().find(|(e, _)| *e == base) {
        Some((_, p)) => format!("{}{} {p}{unit}", 1, "0".repeat((exp - base) as usize)),
        None => format!("1e{exp} {unit}"),
    }
}

/// A linear axis from `0` (or `min`) to `max` with "nice" ticks (1, 2 or 5 ×
/// 10^k apart).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LinearAxis {
    /// Lowest value on the axis.
    pub min: f64,
    /// Highest value on the axis (`> min`), a multiple of `step`.
    pub max: f64,
    /// Distance between ticks.
    pub step: f64,
}

impl LinearAxis {
    /// An axis from `min` to at least `max` with about `target_ticks` ticks.
    pub fn nice(min: f64, max: f64, target_ticks: usize) -> LinearAxis {
        let span = if max > min && (max - min).is_finite() {
            max - min
        } else {
            1.0
        };
        let raw = span / target_ticks.max(1) as f64;
        let mag = 10f64.powf(raw.log10().floor());
        let step = [1.0, 2.0, 5.0, 10.0]
            .into_iter()
            .map(|m| m * mag)
            .find(|s| *s >= raw)
            .unwrap_or(10.0 * mag);
        let top = min + (span / step).ceil() * step;
        LinearAxis {
            min,
            max: top.max(min + step),
            step,
        }
    }

    /// An axis from 0 for counts: like [`LinearAxis::nice`] but with whole
    /// steps (0, 1, 2, 3 rather than 0, 0.5, 1, ...).
    pub fn counts(max: u64, target_ticks: usize) -> LinearAxis {
        let a = LinearAxis::nice(0.0, max.max(1) as f64, target_ticks);
        if a.step >= 1.0 {
            a
        } else {
            LinearAxis {
                min: 0.0,
                max: max.max(1) as f64,
                step: 1.0,
            }
        }
    }

    /// Fraction of the axis length at `value`.
    pub fn fraction(&self, value: f64) -> f64 {
        (value - self.min) / (self.max - self.min)
    }

    /// Ticks from `min` to `max`, labelled by `label(value)`.
    pub fn ticks(&self, label: impl Fn(f64) -> String) -> Vec<Tick> {
        let n = ((self.max - self.min) / self.step).round() as i64;
        (0..=n)
            .map(|i| {
                let value = self.min + i as f64 * self.step;
                Tick {
                    value,
                    label: label(value),
                }
            })
            .collect()
    }
}

/// Decimal places needed to show multiples of `step` exactly (0 for steps ≥ 1).
pub fn decimals_for_step(step: f64) -> usize {
    if step >= 1.0 {
        0
    } else {
        (-step.log10().floor()) as usize
    }
}

/// A log-log plot: the frame rectangle in pixels and both axes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LogLogFrame {
    /// The plot frame on the canvas, in pixels.
    pub plot: Rect,
    /// Horizontal axis (FLOP/byte).
    pub x: LogAxis,
    /// Vertical axis (FLOP/s).
    pub y: LogAxis,
}

impl LogLogFrame {
    /// Pixel x of a data x value.
    pub fn px_x(&self, x: f64) -> f64 {
        self.plot.left as f64 + self.x.fraction(x) * self.plot.width() as f64
    }

    /// Pixel y of a data y value (pixels grow downwards).
    pub fn px_y(&self, y: f64) -> f64 {
        self.plot.bottom as f64 - self.y.fraction(y) * self.plot.height() as f64
    }

    /// Pixel position of a data point, rounded to whole pixels.
    pub fn px(&self, x: f64, y: f64) -> (i32, i32) {
        (self.px_x(x).round() as i32, self.px_y(y).round() as i32)
    }

    /// True when the data point lies inside both axes.
    pub fn contains(&self, x: f64, y: f64) -> bool {
        self.x.contains(x) && self.y.contains(y)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_axis_covers_whole_decades_with_margin() {
        // 0.25 .. 716 FLOP/byte with a 1.5× margin: 0.1667 -> 10^-1, 1074 -> 10^4.
        let a = LogAxis::covering(0.25, 716.0, 1.5);
        assert_eq!((a.lo_exp, a.hi_exp), (-1, 4));
        assert!((a.fraction(1.0) - 0.2).abs() < 1e-12);
        // A single value still gets a decade of room.
        let b = LogAxis::covering(100.0, 100.0, 1.0);
        assert_eq!((b.lo_exp, b.hi_exp), (2, 3));
        assert_eq!(
            LogAxis::covering(0.0, 5.0, 1.0),
            LogAxis {
                lo_exp: 0,
                hi_exp: 1
            }
        );
    }

    #[test]
    fn decade_labels_are_readable() {
        assert_eq!(decade_plain(-2), "0.01");
        assert_eq!(decade_plain(-1), "0.1");
        assert_eq!(decade_plain(0), "1");
        assert_eq!(decade_plain(3), "1000");
        assert_eq!(decade_si(9, "FLOP/s"), "1 GFLOP/s");
        assert_eq!(decade_si(11, "FLOP/s"), "100 GFLOP/s");
        assert_eq!(decade_si(13, "FLOP/s"), "10 TFLOP/s");
        assert_eq!(decade_si(15, "FLOP/s"), "1 PFLOP/s");
        assert_eq!(decade_si(-5, "s"), "10 µs");
        assert_eq!(decade_si(-7, "s"), "100 ns");
    }

    #[test]
    fn nice_linear_axis_steps() {
        // 0..37 in about 5 ticks: raw step 7.4 -> 10, top 40.
        let a = LinearAxis::nice(0.0, 37.0, 5);
        assert_eq!((a.step, a.max), (10.0, 40.0));
        assert_eq!(a.ticks(|v| format!("{v}")).len(), 5);
        // 0..0.9 ms in 6 ticks: raw 0.15 -> 0.2, top 1.0.
        let b = LinearAxis::nice(0.0, 0.9, 6);
        assert!((b.step - 0.2).abs() < 1e-12 && (b.max - 1.0).abs() < 1e-12);
        assert_eq!(decimals_for_step(b.step), 1);
        // Counts 0..3 step by whole gaps, not 0.5.
        let c = LinearAxis::counts(3, 6);
        assert_eq!((c.step, c.max), (1.0, 3.0));
        assert_eq!(LinearAxis::counts(2345, 6).step, 500.0);
    }
}
