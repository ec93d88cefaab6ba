//! Executed tensor FLOPs include padding; useful work is what the user says.
//!
//! ncu's `sm__ops_path_tensor_*` counters count the MMA tiles a kernel
//! executed. A GEMM with fewer rows M than its tile (a GEMV, a decode step
//! at small batch) computes whole tiles anyway: the counters report up to
//! tile/M times the useful work, and FLOP/B and FLOP/s with it (reference
//! §6-7: a batch-1 decode GEMM reads 61.8 FLOP/B and 161 TFLOP/s where its
//! useful intensity is about 1). The counters cannot tell padding from real
//! rows, so:
//!
//! - [`flag_padding`] marks rows where padding is plausible: the tensor
//!   FLOPs per DRAM byte, read as a GEMM that streams its weights once
//!   (`Q ≈ sizeof · K · N`, so `I = 2 M / sizeof`), imply at most
//!   [`PADDING_ROWS`] rows `M = I · sizeof / 2` — a skinny GEMM, the shape
//!   that pads. The row gets a [`PaddingSuspect`] and a diagnostic naming
//!   the fix; a kernel named `gemv` (M = 1 by construction) is marked
//!   certain.
//! - [`apply_useful`] takes the user's useful work (`--useful-flops
//!   'REGEX=FLOP'`, FLOP per launch, e.g. `2·M·N·K`) and computes the
//!   intensity, FLOP/s and fraction of roof from it, labelled as such
//!   ([`UsefulWork`]), beside the executed figures.

use super::model::{
    Bound, Diagnostic, DiagnosticKind, KernelRoofline, PaddingSuspect, RooflineReport, UsefulWork,
};
use crate::roofs::ComputePath;

/// Most rows per weight read a kernel's tensor intensity may imply and
/// still be flagged: 128, the largest common MMA tile M (Hopper `wgmma` is
/// 64 rows per warpgroup, CUTLASS CTA tiles are 64 or 128 rows). A GEMM
/// with at least this many real rows fills its tiles.
pub const PADDING_ROWS: f64 = 128.0;

/// Bytes per input element of a tensor path (FP4: half a byte).
pub fn input_bytes(path: ComputePath) -> f64 {
    match path {
        ComputePath::Fp64 | ComputePath::TensorFp64 => 8.0,
        ComputePath::Fp32 | ComputePath::TensorTf32 => 4.0,
        ComputePath::Fp16 | ComputePath::TensorFp16 | ComputePath::TensorBf16 => 2.0,
        ComputePath::TensorFp8 | ComputePath::TensorInt8 => 1.0,
        ComputePath::TensorFp4 => 0.5,
    }
}

/// One `--useful-flops` rule: kernels whose name (or label) matches do
/// this many useful FLOPs per launch.
#[derive(Debug, Clone)]
pub struct UsefulRule {
    /// The pattern, matched against the demangled name and the label.
    pub pattern: regex::Regex,
    /// Useful FLOPs per launch.
    pub flop_per_launch: f64,
    /// The rule as given, for the source line.
    pub text: String,
}

/// A `--useful-flops` value that does not read.
#[derive(Debug, thiserror::Error)]
pub enum UsefulError {
    /// No `=`, a bad regex or a bad number.
    #[error("--useful-flops {text:?}: {why}; write REGEX=FLOP, FLOP per launch, e.g. 'gemv=1.41e10' or 'gate_proj=2*1*18944*3584' (2·M·N·K)")]
    Bad {
        /// The value given.
        text: String,
        /// What is wrong.
        why: String,
    },
}

/// A bad `--useful-flops` value is the user's input (exit code 2).
impl crate::error::BadInput for UsefulError {}

impl UsefulRule {
    /// Parses `REGEX=FLOP`; FLOP is a number (`1.41e10`, `14.1G`) or a
    /// product of numbers (`2*1*18944*3584`). The last `=` splits.
    pub fn parse(text: &str) -> Result<UsefulRule, UsefulError> {
        let bad = |why: String| UsefulError::Bad {
            text: text.to_string(),
            why,
        };
        let (re, n) = text.rsplit_once('=').ok_or_else(|| bad("no '='".into()))?;
        let pattern = regex::Regex::new(re).map_err(|e| bad(format!("bad regex: {e}")))?;
        let mut flop = 1.0;
        for f in n.split('*') {
            flop *= number(f.trim()).ok_or_else(|| bad(format!("{f:?} is not a number")))?;
        }
        if !(flop.is_finite() && flop > 0.0) {
            return Err(bad(format!("{n:?} is not a positive number of FLOP")));
        }
        Ok(UsefulRule {
            pattern,
            flop_per_launch: flop,
            text: text.to_string(),
        })
    }
}

/// A number with an optional SI suffix (`14.1G`).
fn number(s: &str) -> Option<f64> {
    let (body, mult) = match s.chars().last()? {
        'k' | 'K' => (&s[..s.len() - 1], 1e3),
        'M' => (&s[..s.len() - 1], 1e6),
        'G' => (&s[..s.len() - 1], 1e9),
        'T' => (&s[..s.len() - 1], 1e12),
        'P' => (&s[..s.len() - 1], 1e15),
        _ => (s, 1.0),
    };
    body.parse::<f64>().ok().map(|v| v * mult)
}

/// The tensor path with the most executed FLOPs of a row.
fn tensor_path(k: &KernelRoofline) -> Option<(ComputePath, f64)> {
    k.flop_by_path
        .iter()
        .filter(|(p, f)| p.is_tensor() && **f > 0.0)
        .max_by(|a, b| a.1.total_cmp(b.1))
        .map(|(p, f)| (*p, *f))
}

/// Marks the rows whose tensor FLOPs may count padding and returns the
/// diagnostic for them (none when no row is marked).
pub fn flag_padding(kernels: &mut [KernelRoofline]) -> Option<Diagnostic> {
    let mut examples = Vec::new();
    let mut count = 0u64;
    for k in kernels.iter_mut() {
        let Some((path, w)) = tensor_path(k) else {
            continue;
        };
        let Some(q) = k.dram_bytes.filter(|q| *q > 0.0) else {
            continue;
        };
        let rows = w / q * input_bytes(path) / 2.0;
        if rows > PADDING_ROWS {
            continue;
        }
        let certain = k.name.to_ascii_lowercase().contains("gemv");
        k.padding = Some(Box::new(PaddingSuspect {
            path,
            implied_rows: rows,
            certain,
        }));
        count += 1;
        if examples.len() < 3 {
            examples.push(format!(
                "{} (ID {}): {:.1} FLOP/B on {} = {rows:.0} rows per weight read",
                k.label,
                k.id,
                w / q,
                path.label()
            ));
        }
    }
    (count > 0).then(|| Diagnostic {
        kind: DiagnosticKind::TensorPadding,
        count,
        message: format!(
            "rows whose tensor FLOPs per DRAM byte imply a skinny GEMM (at most {PADDING_ROWS:.0} rows per weight read, I x sizeof / 2): tensor counters count executed MMA tiles, padding included, so a GEMV or small-batch GEMM can show many times its useful FLOP/B and FLOP/s; state the useful work with --useful-flops 'REGEX=FLOP' (2*M*N*K per launch) to get the useful intensity and fraction of roof"
        ),
        examples,
    })
}

/// Applies the first matching rule to each row: the useful FLOPs and the
/// figures computed from them ([`UsefulWork`]), with a diagnostic saying
/// which rows use them and which rules matched nothing. Returns how many
/// rows matched each rule, in rule order.
pub fn apply_useful(report: &mut RooflineReport, rules: &[UsefulRule]) -> Vec<usize> {
    let mut matched = vec![0usize; rules.len()];
    let dram_bw = report.roofs.dram().map(|r| r.bytes_per_s);
    let mut updates = Vec::new();
    for (i, k) in report.kernels.iter().enumerate() {
        let Some((ri, rule)) = rules
            .iter()
            .enumerate()
            .find(|(_, r)| r.pattern.is_match(&k.name) || r.pattern.is_match(&k.label))
        else {
            continue;
        };
        matched[ri] += 1;
        let flop = rule.flop_per_launch * k.launches as f64;
        let path = tensor_path(k)
            .map(|(p, _)| p)
            .or_else(|| report.dominant_path(k));
        let t = k.duration_ns;
        let compute_ns = path
            .and_then(|p| report.roofs.compute.get(&p))
            .map(|r| flop / r.flop_per_s * 1e9);
        let memory_ns = k.dram_bytes.zip(dram_bw).map(|(q, b)| q / b * 1e9);
        let bound_time_ns = compute_ns.unwrap_or(0.0).max(memory_ns.unwrap_or(0.0));
        updates.push((
            i,
            UsefulWork {
                flop,
                source: format!("--useful-flops {}", rule.text),
                path,
                intensity: k.dram_bytes.filter(|q| *q > 0.0).map(|q| flop / q),
                flop_per_s: flop / (t * 1e-9),
                bound_time_ns,
                fraction_of_roof: bound_time_ns / t,
                bound: match (compute_ns, memory_ns) {
                    (Some(c), Some(m)) if c > m => Some(Bound::Compute),
                    (Some(_), Some(_)) => Some(Bound::Memory),
                    _ => None,
                },
                time_lost_ns: t - bound_time_ns,
                executed_over_useful: k.flop.map(|w| w / flop),
            },
        ));
    }
    let examples: Vec<String> = updates
        .iter()
        .take(3)
        .map(|(i, u)| {
            let k = &report.kernels[*i];
            format!(
                "{} (ID {}): {} useful of {} executed",
                k.label,
                k.id,
                crate::units::si(u.flop, "FLOP"),
                k.flop
                    .map_or("unknown".into(), |w| crate::units::si(w, "FLOP"))
            )
        })
        .collect();
    if !updates.is_empty() {
        report.diagnostics.push(Diagnostic {
            kind: DiagnosticKind::UsefulWork,
            count: updates.len() as u64,
            message: "rows with useful work stated by --useful-flops: their useful intensity, FLOP/s and fraction of roof are computed from it (notes column, JSON `useful`); the FLOP columns stay the executed counts".into(),
            examples,
        });
    }
    for (i, u) in updates {
        report.kernels[i].useful = Some(Box::new(u));
    }
    let unmatched: Vec<String> = rules
        .iter()
        .zip(&matched)
        .filter(|(_, n)| **n == 0)
        .map(|(r, _)| r.text.clone())
        .collect();
    if !unmatched.is_empty() {
        report.diagnostics.push(Diagnostic {
            kind: DiagnosticKind::UsefulWork,
            count: unmatched.len() as u64,
            message: "--useful-flops rules that matched no kernel name or label (check the regex against the JSON `name`)".into(),
            examples: unmatched,
        });
    }
    matched
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_read_numbers_products_and_suffixes() {
        let r = UsefulRule::parse("gate_proj=2*1*18944*3584").unwrap();
        // 2 x 1 x 18944 x 3584 = 135,790,592 FLOP per launch.
        assert_eq!(r.flop_per_launch, 135_790_592.0);
        assert!(r.pattern.is_match("void gemv<gate_proj>"));
        assert_eq!(
            UsefulRule::parse("x=14.1G").unwrap().flop_per_launch,
            14.1e9
        );
        // The last '=' splits: a regex may hold '='.
        assert_eq!(UsefulRule::parse("a=b=3").unwrap().pattern.as_str(), "a=b");
        for bad in ["gemv", "gemv=", "gemv=abc", "(=5", "g=0", "g=-1"] {
            let e = UsefulRule::parse(bad).unwrap_err().to_string();
            assert!(e.contains("write REGEX=FLOP"), "{bad}: {e}");
        }
    }

    #[test]
    fn element_sizes_follow_the_path() {
        assert_eq!(input_bytes(ComputePath::TensorBf16), 2.0);
        assert_eq!(input_bytes(ComputePath::TensorFp8), 1.0);
        assert_eq!(input_bytes(ComputePath::TensorFp4), 0.5);
    }
}
