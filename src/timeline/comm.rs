//! The arguments of NCCL/RCCL collectives a reader found, carried beside
//! the ops (`Timeline::collectives`): PyTorch records them on the
//! `record_param_comms` op and, in newer versions, on the NCCL kernel
//! itself (`Collective name`, `In msg nelems`, `Out msg nelems`, `dtype`,
//! `Group size`, `Process Group Ranks`, `Process Group Name`); older traces
//! carry `Input Dims`/`Input type` on `nccl:*` annotations. Plain data: the
//! join of each kernel to its arguments is the `comm` analysis'.

/// A tensor element type and its size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DataType {
    /// Canonical name (`float32`, `bfloat16`, `int8`).
    pub name: &'static str,
    /// Bytes per element.
    pub bytes: u32,
}

/// The element type PyTorch names `text`: a `ScalarType` as `dtype` writes
/// it (`Float`, `BFloat16`, `Long`) or a C++ type as `Input type` writes it
/// (`float`, `c10::BFloat16`, `long int`, `signed char`); `None` for a name
/// not listed (unknown, never a guessed size).
pub fn data_type(text: &str) -> Option<DataType> {
    let t = text.trim().trim_start_matches("c10::");
    let (name, bytes) = match t {
        "Float" | "float" | "float32" => ("float32", 4),
        "Double" | "double" | "float64" => ("float64", 8),
        "Half" | "half" | "float16" => ("float16", 2),
        "BFloat16" | "bfloat16" => ("bfloat16", 2),
        "Int" | "int" | "int32" => ("int32", 4),
        "Long" | "long int" | "long" | "int64" | "long long" => ("int64", 8),
        "Short" | "short int" | "short" | "int16" => ("int16", 2),
        "Char" | "signed char" | "int8" => ("int8", 1),
        "Byte" | "unsigned char" | "uint8" => ("uint8", 1),
        "UInt16" | "unsigned short" | "uint16" => ("uint16", 2),
        "UInt32" | "unsigned int" | "uint32" => ("uint32", 4),
        "UInt64" | "unsigned long" | "unsigned long int" | "unsigned long long" | "uint64" => {
            ("uint64", 8)
        }
        "ComplexHalf" | "complex<c10::Half>" => ("complex32", 4),
        "Bool" | "bool" => ("bool", 1),
        "Float8_e4m3fn" | "Float8_e4m3fnuz" | "Float8_e5m2" | "Float8_e5m2fnuz"
        | "Float8_e8m0fnu" => ("float8", 1),
        // `c10::complex<float>` arrives here as `complex<float>`: the
        // namespace is trimmed above.
        "ComplexFloat" | "complex<float>" => ("complex64", 8),
        "ComplexDouble" | "complex<double>" => ("complex128", 16),
        _ => return None,
    };
    Some(DataType { name, bytes })
}

/// What a trace says about one collective (every field unknown unless
/// written).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CollectiveArgs {
    /// `Collective name` (`allreduce`, `allgather`, `reduce_scatter`,
    /// `all_to_all`, `broadcast`, `send`, `recv`), or the annotation's
    /// name after `nccl:` (`all_reduce`, `_all_gather_base`).
    pub name: Option<String>,
    /// `In msg nelems`: elements each rank contributes.
    pub in_nelems: Option<u64>,
    /// `Out msg nelems`: elements each rank receives.
    pub out_nelems: Option<u64>,
    /// `dtype`, when it names a known type.
    pub dtype: Option<DataType>,
    /// `dtype` or `Input type` as written when it names no known type.
    pub dtype_text: Option<String>,
    /// `Group size`: ranks in the process group.
    pub group_size: Option<u32>,
    /// `Process Group Ranks`: the global ranks of the group, in order.
    pub ranks: Option<Vec<u32>>,
    /// `Process Group Name` (`0`, `1`, …).
    pub pg_name: Option<String>,
    /// `Process Group Description` (`default_pg`).
    pub pg_desc: Option<String>,
    /// The collective's sequence number in its group (`Seq`), when written.
    pub seq: Option<u64>,
    /// Elements of the first input (the product of `Input Dims[0]`), from
    /// an older trace's `nccl:*` annotation.
    pub input_elems: Option<u64>,
    /// NCCL's own `Message size [bytes]` (its NVTX payload, nsys): the
    /// message for all-reduce, broadcast, reduce and send/recv, one rank's
    /// send buffer for all-gather and its receive buffer for
    /// reduce-scatter; byte.
    pub msg_bytes: Option<u64>,
}

/// Where a trace recorded a collective's arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum CollectiveSite {
    /// On the NCCL kernel itself: its device and correlation id.
    Kernel {
        /// Device index.
        device: u16,
        /// Correlation id of the kernel (and of its launch call).
        correlation_id: u32,
    },
    /// On a host op (`record_param_comms`, `nccl:all_reduce`): the kernels
    /// launched inside it on its thread are the collective's.
    Host {
        /// Process id.
        pid: u32,
        /// Thread id.
        tid: u32,
        /// Start, ns.
        start_ns: i64,
        /// End, ns.
        end_ns: i64,
    },
}

/// One collective's arguments and where they were recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CollectiveRecord {
    /// Where.
    pub site: CollectiveSite,
    /// What.
    pub args: CollectiveArgs,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_spellings_of_a_type_have_one_size_and_unknown_stays_unknown() {
        assert_eq!(data_type("Float"), data_type("float"));
        assert_eq!(data_type("c10::BFloat16").map(|d| d.bytes), Some(2));
        assert_eq!(data_type("long int").map(|d| d.bytes), Some(8));
        assert_eq!(data_type("signed char").map(|d| d.name), Some("int8"));
        assert_eq!(data_type("TensorList"), None);
        // `Input type` writes complex types with their namespace.
        assert_eq!(data_type("c10::complex<float>").map(|d| d.bytes), Some(8));
        assert_eq!(
            data_type("c10::complex<double>").map(|d| d.name),
            Some("complex128")
        );
        assert_eq!(
            data_type("c10::complex<c10::Half>").map(|d| d.bytes),
            Some(4)
        );
        // Every NCCL data type (ncclDataType_t: int8, uint8, int32, uint32,
        // int64, uint64, float16, float32, float64, bfloat16, float8 e4m3
        // and e5m2) by PyTorch's ScalarType name, with its C size.
        for (name, bytes) in [
            ("Char", 1),
            ("Byte", 1),
            ("Int", 4),
            ("UInt32", 4),
            ("Long", 8),
            ("UInt64", 8),
            ("Half", 2),
            ("Float", 4),
            ("Double", 8),
            ("BFloat16", 2),
            ("Float8_e4m3fn", 1),
            ("Float8_e5m2", 1),
        ] {
            assert_eq!(data_type(name).map(|d| d.bytes), Some(bytes), "{name}");
        }
    }
}
