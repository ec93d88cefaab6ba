//! The collective arguments of a trace event's `args`, read at the parse
//! boundary into [`CollectiveArgs`] (`timeline::comm`): the keys PyTorch
//! writes on `record_param_comms` and on NCCL kernels, and the first
//! input's size and type of an older trace's `nccl:*` annotation. Only the
//! keys of a collective allocate; `Input Dims` and `Input type`, which
//! every `cpu_op` carries, are reduced to a product and a type without
//! storing them.

use crate::timeline::comm::{data_type, CollectiveArgs, DataType};
use serde::de::{self, Deserialize, IgnoredAny, MapAccess, SeqAccess, Visitor};
use std::fmt;

/// Longest text kept from a collective's argument (a process group name,
/// a rank list as text), bytes.
const MAX_TEXT_BYTES: usize = 1 << 20;
/// Most ranks kept from `Process Group Ranks`.
const MAX_RANKS: usize = 1 << 17;

/// An `args` key of a collective.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CommField {
    /// `Collective name`.
    Name,
    /// `In msg nelems`.
    InNelems,
    /// `Out msg nelems`.
    OutNelems,
    /// `dtype`.
    Dtype,
    /// `Group size`.
    GroupSize,
    /// `Process Group Ranks`.
    Ranks,
    /// `Process Group Name`.
    PgName,
    /// `Process Group Description`.
    PgDesc,
    /// `Seq` (or `seq`): the collective's sequence number in its group.
    Seq,
    /// `Input Dims`.
    InputDims,
    /// `Input type`.
    InputType,
}

impl CommField {
    /// The field an `args` key names, if any.
    pub fn of(key: &str) -> Option<CommField> {
        Some(match key {
            "Collective name" => CommField::Name,
            "In msg nelems" => CommField::InNelems,
            "Out msg nelems" => CommField::OutNelems,
            "dtype" => CommField::Dtype,
            "Group size" => CommField::GroupSize,
            "Process Group Ranks" => CommField::Ranks,
            "Process Group Name" => CommField::PgName,
            "Process Group Description" => CommField::PgDesc,
            "Seq" | "seq" => CommField::Seq,
            "Input Dims" => CommField::InputDims,
            "Input type" => CommField::InputType,
            _ => return None,
        })
    }
}

/// What an event's `args` said of a collective.
#[derive(Debug, Default)]
pub struct CommArgs {
    /// Elements of the first input (`Input Dims[0]` multiplied out).
    pub input_elems: Option<u64>,
    /// Type of the first input (`Input type[0]`), when known.
    pub input_type: Option<DataType>,
    /// The collective's own keys, when the event has any.
    pub keys: Option<Box<CollectiveArgs>>,
}

impl CommArgs {
    /// Reads the value of `field` from `raw`, the value's JSON text (an
    /// odd value reads as nothing).
    pub fn read(&mut self, field: CommField, raw: &str) {
        fn de<'a, T: Deserialize<'a>>(raw: &'a str) -> Option<T> {
            T::deserialize(&mut serde_json::Deserializer::from_str(raw)).ok()
        }
        match field {
            CommField::InputDims => self.input_elems = de::<FirstDims>(raw).and_then(|d| d.0),
            CommField::InputType => self.input_type = de::<FirstType>(raw).and_then(|t| t.0),
            _ => {
                let v = de::<Scalar>(raw).unwrap_or(Scalar::None);
                let k = self.keys.get_or_insert_with(Default::default);
                match field {
                    CommField::Name => k.name = v.text(),
                    CommField::InNelems => k.in_nelems = v.count(),
                    CommField::OutNelems => k.out_nelems = v.count(),
                    CommField::GroupSize => {
                        k.group_size = v.count().and_then(|n| u32::try_from(n).ok())
                    }
                    CommField::Seq => k.seq = v.count(),
                    CommField::PgName => k.pg_name = v.text(),
                    CommField::PgDesc => k.pg_desc = v.text(),
                    CommField::Ranks => k.ranks = v.text().map(|t| rank_list(&t)),
                    CommField::Dtype => {
                        let t = v.text();
                        k.dtype = t.as_deref().and_then(data_type);
                        k.dtype_text = t.filter(|_| k.dtype.is_none());
                    }
                    CommField::InputDims | CommField::InputType => {}
                }
            }
        }
    }
}

/// `[0, 1, 2]` (or `0,1,2`) as ranks; what is not a rank is left out.
fn rank_list(text: &str) -> Vec<u32> {
    text.trim_matches(|c| c == '[' || c == ']')
        .split(',')
        .filter_map(|x| x.trim().parse().ok())
        .take(MAX_RANKS)
        .collect()
}

/// A number or a string (a list becomes its text: `[0, 1]`).
enum Scalar {
    Num(f64),
    Text(String),
    None,
}

impl Scalar {
    /// A non-negative integer count.
    fn count(&self) -> Option<u64> {
        match self {
            Scalar::Num(v) if *v >= 0.0 && v.fract() == 0.0 && *v < 1.8e19 => Some(*v as u64),
            Scalar::Text(t) => t.trim().parse().ok(),
            _ => None,
        }
    }

    /// The text (a number as written).
    fn text(self) -> Option<String> {
        match self {
            Scalar::Text(t) => Some(t),
            Scalar::Num(v) => Some(v.to_string()),
            Scalar::None => None,
        }
    }
}

impl<'de> Deserialize<'de> for Scalar {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Scalar, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Scalar;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a number or a string")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Scalar, E> {
                Ok(Scalar::Num(v as f64))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Scalar, E> {
                Ok(Scalar::Num(v as f64))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Scalar, E> {
                Ok(if v.is_finite() {
                    Scalar::Num(v)
                } else {
                    Scalar::None
                })
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Scalar, E> {
                let mut end = s.len().min(MAX_TEXT_BYTES);
                while !s.is_char_boundary(end) {
                    end -= 1;
                }
                Ok(Scalar::Text(s[..end].to_string()))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Scalar, E> {
                Ok(Scalar::None)
            }
            fn visit_unit<E: de::Error>(self) -> Result<Scalar, E> {
                Ok(Scalar::None)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Scalar, A::Error> {
                // A rank list written as a JSON array.
                let mut ranks = Vec::new();
                while let Some(x) = a.next_element::<IgnoredOrNumber>()? {
                    if let (Some(r), true) = (x.0, ranks.len() < MAX_RANKS) {
                        ranks.push(r.to_string());
                    }
                }
                Ok(Scalar::Text(format!("[{}]", ranks.join(", "))))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Scalar, A::Error> {
                while a.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Scalar::None)
            }
        }
        d.deserialize_any(V)
    }
}

/// A non-negative integer, or `None` for anything else (skipped).
struct IgnoredOrNumber(Option<u64>);

impl<'de> Deserialize<'de> for IgnoredOrNumber {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<IgnoredOrNumber, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = IgnoredOrNumber;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any value")
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<IgnoredOrNumber, E> {
                Ok(IgnoredOrNumber(Some(v)))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<IgnoredOrNumber, E> {
                Ok(IgnoredOrNumber(u64::try_from(v).ok()))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<IgnoredOrNumber, E> {
                let ok = v >= 0.0 && v.fract() == 0.0 && v < 1.8e19;
                Ok(IgnoredOrNumber(ok.then_some(v as u64)))
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<IgnoredOrNumber, E> {
                Ok(IgnoredOrNumber(None))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<IgnoredOrNumber, E> {
                Ok(IgnoredOrNumber(None))
            }
            fn visit_unit<E: de::Error>(self) -> Result<IgnoredOrNumber, E> {
                Ok(IgnoredOrNumber(None))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<IgnoredOrNumber, A::Error> {
                while a.next_element::<IgnoredAny>()?.is_some() {}
                Ok(IgnoredOrNumber(None))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<IgnoredOrNumber, A::Error> {
                while a.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(IgnoredOrNumber(None))
            }
        }
        d.deserialize_any(V)
    }
}

/// The product of the first list of `Input Dims` (`[[19618307], []]` →
/// 19,618,307); `None` when the first entry is not a list of sizes or the
/// product overflows.
struct FirstDims(Option<u64>);

impl<'de> Deserialize<'de> for FirstDims {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<FirstDims, D::Error> {
        struct Dims(Option<u64>);
        impl<'de> Deserialize<'de> for Dims {
            fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Dims, D::Error> {
                struct V;
                impl<'de> Visitor<'de> for V {
                    type Value = Dims;
                    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                        f.write_str("a list of sizes")
                    }
                    fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Dims, A::Error> {
                        let (mut p, mut any) = (Some(1u64), false);
                        while let Some(x) = a.next_element::<IgnoredOrNumber>()? {
                            any = true;
                            p = match (p, x.0) {
                                (Some(p), Some(x)) => p.checked_mul(x),
                                _ => None,
                            };
                        }
                        Ok(Dims(p.filter(|_| any)))
                    }
                    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Dims, E> {
                        Ok(Dims(None))
                    }
                    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Dims, E> {
                        Ok(Dims(None))
                    }
                    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Dims, E> {
                        Ok(Dims(None))
                    }
                    fn visit_str<E: de::Error>(self, _: &str) -> Result<Dims, E> {
                        Ok(Dims(None))
                    }
                    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Dims, E> {
                        Ok(Dims(None))
                    }
                    fn visit_unit<E: de::Error>(self) -> Result<Dims, E> {
                        Ok(Dims(None))
                    }
                    fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Dims, A::Error> {
                        while a.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                        Ok(Dims(None))
                    }
                }
                d.deserialize_any(V)
            }
        }
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = FirstDims;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a list of size lists")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<FirstDims, A::Error> {
                let first = a.next_element::<Dims>()?.and_then(|d| d.0);
                while a.next_element::<IgnoredAny>()?.is_some() {}
                Ok(FirstDims(first))
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<FirstDims, E> {
                Ok(FirstDims(None))
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<FirstDims, E> {
                Ok(FirstDims(None))
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<FirstDims, E> {
                Ok(FirstDims(None))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<FirstDims, E> {
                Ok(FirstDims(None))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<FirstDims, E> {
                Ok(FirstDims(None))
            }
            fn visit_unit<E: de::Error>(self) -> Result<FirstDims, E> {
                Ok(FirstDims(None))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<FirstDims, A::Error> {
                while a.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(FirstDims(None))
            }
        }
        d.deserialize_any(V)
    }
}

/// The type of the first entry of `Input type` (`["float", …]`), when it
/// names a known type.
struct FirstType(Option<DataType>);

impl<'de> Deserialize<'de> for FirstType {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<FirstType, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = FirstType;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a list of type names")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<FirstType, A::Error> {
                let first = a.next_element::<FirstType>()?.and_then(|t| t.0);
                while a.next_element::<IgnoredAny>()?.is_some() {}
                Ok(FirstType(first))
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<FirstType, E> {
                Ok(FirstType(data_type(s)))
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<FirstType, E> {
                Ok(FirstType(None))
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<FirstType, E> {
                Ok(FirstType(None))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<FirstType, E> {
                Ok(FirstType(None))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<FirstType, E> {
                Ok(FirstType(None))
            }
            fn visit_unit<E: de::Error>(self) -> Result<FirstType, E> {
                Ok(FirstType(None))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<FirstType, A::Error> {
                while a.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(FirstType(None))
            }
        }
        d.deserialize_any(V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn collective_args_are_read_from_both_spellings() {
        let json = r#"{"Collective name": "allreduce", "In msg nelems": 2049000,
            "Out msg nelems": 2049000, "dtype": "Float", "Group size": 2,
            "Process Group Ranks": "[0, 1]", "Process Group Name": "0",
            "Input Dims": [[3, 5], []], "Input type": ["float", ""]}"#;
        let mut c = CommArgs::default();
        let map: std::collections::BTreeMap<String, &serde_json::value::RawValue> =
            serde_json::from_str(json).unwrap();
        for (k, v) in map {
            if let Some(f) = CommField::of(&k) {
                c.read(f, v.get());
            }
        }
        let k = c.keys.unwrap();
        assert_eq!(k.name.as_deref(), Some("allreduce"));
        assert_eq!(
            (k.in_nelems, k.out_nelems),
            (Some(2_049_000), Some(2_049_000))
        );
        assert_eq!(k.dtype.map(|d| d.bytes), Some(4));
        assert_eq!(k.group_size, Some(2));
        assert_eq!(k.ranks, Some(vec![0, 1]));
        assert_eq!(k.pg_name.as_deref(), Some("0"));
        assert_eq!(c.input_elems, Some(15));
        assert_eq!(c.input_type.map(|d| d.name), Some("float32"));
    }
}
