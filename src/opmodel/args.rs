//! Reading an [`OpCall`]'s arguments for a model: the tensor at a
//! position, a concrete value as an integer, a boolean or a list, and
//! element counts in checked arithmetic (a trace's sizes are untrusted).

use super::model::{Arg, Dtype, NoModel, OpCall};

/// A tensor argument: its sizes and element type.
#[derive(Debug, Clone, Copy)]
pub(super) struct Tensor<'a> {
    pub(super) dims: &'a [u64],
    pub(super) dtype: Dtype,
}

impl Tensor<'_> {
    /// Elements.
    pub(super) fn numel(&self) -> Result<u64, NoModel> {
        product(self.dims)
    }

    /// Bytes it holds.
    pub(super) fn bytes(&self) -> Result<u64, NoModel> {
        mul(self.numel()?, self.dtype.bytes())
    }

    /// Size of dimension `i` from the end (`back(1)` is the last).
    pub(super) fn back(&self, i: usize) -> u64 {
        self.dims.len().checked_sub(i).map_or(1, |at| self.dims[at])
    }
}

/// `a × b`, or [`NoModel::Overflow`].
pub(super) fn mul(a: u64, b: u64) -> Result<u64, NoModel> {
    a.checked_mul(b).ok_or(NoModel::Overflow)
}

/// `a + b`, or [`NoModel::Overflow`].
pub(super) fn add(a: u64, b: u64) -> Result<u64, NoModel> {
    a.checked_add(b).ok_or(NoModel::Overflow)
}

/// The sum of `parts`, or [`NoModel::Overflow`].
pub(super) fn sum(parts: &[u64]) -> Result<u64, NoModel> {
    parts.iter().try_fold(0u64, |s, &p| add(s, p))
}

/// The product of `dims` (1 for none), or [`NoModel::Overflow`].
pub(super) fn product(dims: &[u64]) -> Result<u64, NoModel> {
    dims.iter().try_fold(1u64, |p, &d| mul(p, d))
}

impl OpCall {
    /// The tensor at position `i`; [`NoModel::NotATensor`] naming `what`
    /// when it is absent.
    pub(super) fn tensor(&self, i: usize, what: &'static str) -> Result<Tensor<'_>, NoModel> {
        self.optional_tensor(i)?.ok_or(NoModel::NotATensor(what))
    }

    /// The tensor at position `i` when there is one (an optional argument
    /// passed as `None` gives `Ok(None)`); an unusable one is an error.
    pub(super) fn optional_tensor(&self, i: usize) -> Result<Option<Tensor<'_>>, NoModel> {
        match self.args.get(i) {
            Some(Arg::Tensor { dims, dtype }) => Ok(Some(Tensor {
                dims,
                dtype: *dtype,
            })),
            Some(Arg::BadTensor) => Err(NoModel::BadShape("a tensor's sizes are not numbers")),
            _ => Ok(None),
        }
    }

    /// Every usable tensor argument, in order.
    pub(super) fn tensors(&self) -> Result<Vec<Tensor<'_>>, NoModel> {
        let mut v = Vec::new();
        for i in 0..self.args.len() {
            if let Some(t) = self.optional_tensor(i)? {
                v.push(t);
            }
        }
        Ok(v)
    }

    /// The concrete text of the value at position `i`, `None` when not
    /// recorded (or when the argument is a tensor).
    pub(super) fn value(&self, i: usize) -> Option<&str> {
        match self.args.get(i) {
            Some(Arg::Value(v)) if !v.trim().is_empty() => Some(v.trim()),
            _ => None,
        }
    }

    /// The value at `i` as a boolean (`True`/`False`, `1`/`0`).
    pub(super) fn flag(&self, i: usize) -> Option<bool> {
        match self.value(i)? {
            "True" | "true" | "1" => Some(true),
            "False" | "false" | "0" => Some(false),
            _ => None,
        }
    }

    /// The value at `i` as a list of integers (`[1, 1]`, or a single `2`
    /// standing for a list of one).
    pub(super) fn ints(&self, i: usize) -> Option<Vec<i64>> {
        parse_ints(self.value(i)?)
    }
}

/// `[1, 2]`, `(1, 2)`, `[]` or `3` as integers; `None` for anything else.
pub(super) fn parse_ints(text: &str) -> Option<Vec<i64>> {
    let inner = text
        .trim()
        .trim_start_matches(['[', '('])
        .trim_end_matches([']', ')'])
        .trim();
    if inner.is_empty() {
        return Some(Vec::new());
    }
    inner
        .split(',')
        .map(|p| p.trim().parse::<i64>().ok())
        .collect()
}

/// The sizes two or more tensors broadcast to (NumPy rules: aligned from
/// the last dimension, a size of 1 stretches); [`NoModel::BadShape`] when
/// two sizes differ and neither is 1.
pub(super) fn broadcast(shapes: &[&[u64]]) -> Result<Vec<u64>, NoModel> {
    let rank = shapes.iter().map(|s| s.len()).max().unwrap_or(0);
    let mut out = vec![1u64; rank];
    for s in shapes {
        for (k, &d) in s.iter().rev().enumerate() {
            let o = &mut out[rank - 1 - k];
            if *o == 1 {
                *o = d;
            } else if d != 1 && d != *o {
                return Err(NoModel::BadShape("operands do not broadcast"));
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_of_integers_in_the_forms_traces_write() {
        assert_eq!(parse_ints("[1, 1]"), Some(vec![1, 1]));
        assert_eq!(parse_ints("[]"), Some(vec![]));
        assert_eq!(parse_ints("2"), Some(vec![2]));
        assert_eq!(parse_ints("(3, -1)"), Some(vec![3, -1]));
        assert_eq!(parse_ints("[1, x]"), None);
    }

    #[test]
    fn broadcasting_follows_numpy() {
        assert_eq!(
            broadcast(&[&[8, 1, 6, 1], &[7, 1, 5]]),
            Ok(vec![8, 7, 6, 5])
        );
        assert_eq!(broadcast(&[&[5, 4], &[]]), Ok(vec![5, 4]));
        assert!(broadcast(&[&[3], &[4]]).is_err());
    }

    #[test]
    fn counts_that_overflow_are_refused_not_wrapped() {
        assert_eq!(product(&[1 << 40, 1 << 30]), Err(NoModel::Overflow));
        assert_eq!(product(&[]), Ok(1));
    }
}
