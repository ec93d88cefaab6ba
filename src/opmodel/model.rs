//! What the op models read and say: one op call as the trace recorded it
//! ([`OpCall`]: its arguments' shapes, element types and concrete values),
//! the work it must do ([`Work`]: FLOPs on a matrix or vector engine, the
//! bytes it must move at least) or why it has none ([`NoModel`]).

use crate::roofs::ComputePath;

/// Element type of a tensor, as PyTorch's profiler writes it in `Input type`
/// (`float`, `c10::Half`, `c10::BFloat16`, `c10::Float8_e4m3fn`, `long int`…).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Dtype {
    /// `double`.
    F64,
    /// `float`.
    F32,
    /// `c10::Half`.
    F16,
    /// `c10::BFloat16`.
    Bf16,
    /// `c10::Float8_e4m3fn`, `c10::Float8_e5m2` and their `fnuz` forms.
    F8,
    /// `long int`, `int64_t`.
    I64,
    /// `int`.
    I32,
    /// `short int`.
    I16,
    /// `signed char`.
    I8,
    /// `unsigned char`.
    U8,
    /// `bool`.
    Bool,
    /// `c10::complex<float>`.
    C64,
    /// `c10::complex<double>`.
    C128,
}

impl Dtype {
    /// The type a profiler's `Input type` string names, `None` for what is
    /// not a tensor's element type (`Scalar`, `ScalarList`, `TensorList`,
    /// `GenericList`, an empty string for `None`).
    pub fn parse(text: &str) -> Option<Dtype> {
        Some(match text {
            "double" => Dtype::F64,
            "float" => Dtype::F32,
            "c10::Half" | "half" => Dtype::F16,
            "c10::BFloat16" | "bfloat16" => Dtype::Bf16,
            "c10::Float8_e4m3fn"
            | "c10::Float8_e5m2"
            | "c10::Float8_e4m3fnuz"
            | "c10::Float8_e5m2fnuz" => Dtype::F8,
            "long int" | "long" | "int64_t" | "long long" => Dtype::I64,
            "int" | "int32_t" => Dtype::I32,
            "short int" | "short" => Dtype::I16,
            "signed char" | "int8_t" => Dtype::I8,
            "unsigned char" | "uint8_t" => Dtype::U8,
            "bool" => Dtype::Bool,
            "c10::complex<float>" => Dtype::C64,
            "c10::complex<double>" => Dtype::C128,
            _ => return None,
        })
    }

    /// The `torch.dtype` a concrete `dtype` argument names (`torch.float16`,
    /// or the integer code `5` PyTorch's profiler writes for a ScalarType).
    pub fn parse_concrete(text: &str) -> Option<Dtype> {
        let t = text.trim().trim_start_matches("torch.");
        Some(match t {
            "float64" | "double" | "7" => Dtype::F64,
            "float32" | "float" | "6" => Dtype::F32,
            "float16" | "half" | "5" => Dtype::F16,
            "bfloat16" | "15" => Dtype::Bf16,
            "float8_e4m3fn" | "float8_e5m2" | "float8_e4m3fnuz" | "float8_e5m2fnuz" | "23"
            | "24" | "25" | "26" => Dtype::F8,
            "int64" | "long" | "4" => Dtype::I64,
            "int32" | "int" | "3" => Dtype::I32,
            "int16" | "short" | "2" => Dtype::I16,
            "int8" | "1" => Dtype::I8,
            "uint8" | "0" => Dtype::U8,
            "bool" | "11" => Dtype::Bool,
            _ => return None,
        })
    }

    /// Bytes per element.
    pub fn bytes(self) -> u64 {
        match self {
            Dtype::F64 | Dtype::I64 | Dtype::C64 => 8,
            Dtype::F32 | Dtype::I32 => 4,
            Dtype::F16 | Dtype::Bf16 | Dtype::I16 => 2,
            Dtype::F8 | Dtype::I8 | Dtype::U8 | Dtype::Bool => 1,
            Dtype::C128 => 16,
        }
    }

    /// The snake_case key used in JSON.
    pub fn key(self) -> &'static str {
        match self {
            Dtype::F64 => "fp64",
            Dtype::F32 => "fp32",
            Dtype::F16 => "fp16",
            Dtype::Bf16 => "bf16",
            Dtype::F8 => "fp8",
            Dtype::I64 => "int64",
            Dtype::I32 => "int32",
            Dtype::I16 => "int16",
            Dtype::I8 => "int8",
            Dtype::U8 => "uint8",
            Dtype::Bool => "bool",
            Dtype::C64 => "complex64",
            Dtype::C128 => "complex128",
        }
    }
}

/// One argument of an op call, as recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Arg {
    /// A tensor: its sizes (elements per dimension) and element type.
    Tensor {
        /// Sizes, outermost first (`[]` for a 0-dimensional tensor).
        dims: Vec<u64>,
        /// Element type.
        dtype: Dtype,
    },
    /// A non-tensor value with its `Concrete Inputs` text (`"1"`, `"True"`,
    /// `"[1, 1]"`), empty when the trace did not record it.
    Value(String),
    /// A tensor the trace names with sizes that cannot be used (a negative
    /// size, a nested or symbolic shape).
    BadTensor,
}

/// One op call: its name and arguments in schema order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpCall {
    /// The op's name (`aten::mm`).
    pub name: String,
    /// Its arguments, in the op schema's order.
    pub args: Vec<Arg>,
    /// A collective's own arguments (`record_param_comms`' `Collective
    /// name`, `In msg nelems`, …), when the trace wrote them.
    pub comm: Option<Box<CommArgs>>,
    /// torch.compile's own figures for a Triton kernel's launch
    /// (`kernel_flop`, `kernel_num_gb` on Inductor's profiler event),
    /// when the trace has them.
    pub annotation: Option<Annotation>,
}

/// Inductor's annotation of a generated kernel: its FLOPs (counted by
/// `torch.utils.flop_counter` on the kernel's graph nodes: matrix
/// products only) and the bytes it estimates the kernel moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Annotation {
    /// `kernel_flop`.
    pub flops: u64,
    /// `kernel_num_gb` × 10^9, bytes.
    pub bytes: u64,
}

/// What a trace wrote of a collective on its `record_param_comms` op
/// (PyTorch >= 2.2): every field unknown unless written.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CommArgs {
    /// `Collective name` (`allreduce`, `_allgather_base`, `all_to_all`).
    pub name: Option<String>,
    /// `In msg nelems`: elements each rank contributes.
    pub in_elems: Option<u64>,
    /// `Out msg nelems`: elements each rank receives.
    pub out_elems: Option<u64>,
    /// `dtype`, when it names a known type.
    pub dtype: Option<Dtype>,
    /// `Group size`: ranks in the process group.
    pub group_size: Option<u32>,
    /// `Process Group Ranks`: the group's global ranks.
    pub ranks: Option<Vec<u32>>,
}

/// A collective's message as its op records it: what the `ops` analysis
/// turns into bytes over a link with `comm`'s `nccl-tests` size and bus
/// bandwidth factor (the factors are `comm`'s, never copied here).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Collective {
    /// The collective's name as the trace gives it (`allreduce`,
    /// `_allgather_base`); `None` when only its kernel's name can tell.
    pub name: Option<String>,
    /// Elements each rank contributes, when known.
    pub in_elems: Option<u64>,
    /// Elements each rank receives, when known.
    pub out_elems: Option<u64>,
    /// Ranks in the group, when recorded or exactly derived (an
    /// all-gather's output / input).
    pub group_size: Option<u32>,
    /// The group's global ranks, when recorded.
    pub ranks: Option<Vec<u32>>,
}

/// Which engine an op's FLOPs run on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Engine {
    /// Matrix multiply-accumulate (GEMM, convolution, attention): tensor
    /// cores for 16-bit, 8-bit and FP64 inputs; FP32 inputs run on CUDA
    /// cores unless TF32 is allowed.
    Matrix,
    /// Per-element arithmetic on CUDA cores.
    Vector,
    /// Not told (an Inductor annotation with no recorded tensor): no
    /// compute path, the bound is the bytes' alone.
    Unknown,
}

/// The work of one op call at its recorded shapes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Work {
    /// The model (the table row's key) that computed it.
    pub model: &'static str,
    /// Floating-point operations (a fused multiply-add is 2), per the
    /// convention of docs/ops.md.
    pub flops: u64,
    /// Where the FLOPs run.
    pub engine: Engine,
    /// The element type the FLOPs are done in (the inputs' type).
    pub dtype: Dtype,
    /// Bytes the op must move at least: every input read once, every output
    /// written once (compulsory traffic; real kernels move more, so an
    /// intensity from these bytes is an upper bound).
    pub bytes: u64,
    /// For a collective, its message: its cost is bytes over a link, not
    /// DRAM traffic (`None` for every other op).
    pub collective: Option<Box<Collective>>,
}

impl Work {
    /// The compute path the FLOPs take: `tf32` says whether FP32 matrix
    /// work may run on TF32 tensor cores (told by the kernel's name or the
    /// user). `None` for integer and complex work, which has no FLOP roof.
    pub fn compute_path(&self, tf32: bool) -> Option<ComputePath> {
        use Dtype::*;
        if self.engine == Engine::Unknown {
            return None;
        }
        Some(match (self.engine, self.dtype) {
            (Engine::Matrix, F64) => ComputePath::TensorFp64,
            (Engine::Matrix, F32) if tf32 => ComputePath::TensorTf32,
            (Engine::Matrix, F16) => ComputePath::TensorFp16,
            (Engine::Matrix, Bf16) => ComputePath::TensorBf16,
            (Engine::Matrix, F8) => ComputePath::TensorFp8,
            (Engine::Matrix, I8 | U8) => ComputePath::TensorInt8,
            (_, F32) => ComputePath::Fp32,
            (Engine::Vector, F64) => ComputePath::Fp64,
            (Engine::Vector, F16 | Bf16 | F8) => ComputePath::Fp16,
            _ => return None,
        })
    }
}

/// Why an op call has no work figure. Each costs that op only.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum NoModel {
    /// No row of the table names this op.
    NotModelled,
    /// The trace recorded no shapes for it (`record_shapes=False`).
    NoShapes,
    /// An argument the model needs is missing or not the tensor it must
    /// be (what is wrong).
    BadShape(&'static str),
    /// The argument the model needs (its name) is not a recorded tensor:
    /// absent, or recorded with a type that is no element type.
    NotATensor(&'static str),
    /// A value the model needs (stride, `is_causal`, `output_mask`) was not
    /// recorded (`Concrete Inputs` absent): the argument's name.
    NoValue(&'static str),
    /// Shapes too large to count in 64 bits: a damaged trace.
    Overflow,
}

impl NoModel {
    /// The reason in words, for tables and JSON.
    pub fn reason(&self) -> String {
        match self {
            NoModel::NotModelled => "op not modelled".into(),
            NoModel::NoShapes => "no shapes (profile with record_shapes=True)".into(),
            NoModel::BadShape(what) => format!("unusable shapes: {what}"),
            NoModel::NotATensor(arg) => {
                format!("unusable shapes: `{arg}` is not a recorded tensor")
            }
            NoModel::NoValue(arg) => {
                format!("`{arg}` not recorded (PyTorch >= 2.1 records Concrete Inputs)")
            }
            NoModel::Overflow => "shapes too large to count".into(),
        }
    }
}

impl OpCall {
    /// A call from what the profiler recorded per argument: `Input Dims`
    /// (sizes), `Input type` (an element type for a tensor, `Scalar`,
    /// `ScalarList` or empty otherwise) and `Concrete Inputs` (a value's
    /// text, empty when not recorded or not a value). A tensor with a
    /// negative size is [`Arg::BadTensor`]; the lists may differ in length
    /// (the shortest decides nothing: missing entries read as empty).
    pub fn from_recorded(name: &str, dims: &[Vec<i64>], types: &[&str], values: &[&str]) -> OpCall {
        let n = dims.len().max(types.len()).max(values.len());
        let args = (0..n)
            .map(|i| {
                let ty = types.get(i).copied().unwrap_or("");
                match Dtype::parse(ty) {
                    Some(dtype) => {
                        let sizes = dims.get(i).map_or(&[][..], Vec::as_slice);
                        match sizes.iter().map(|&d| u64::try_from(d)).collect() {
                            Ok(dims) => Arg::Tensor { dims, dtype },
                            Err(_) => Arg::BadTensor,
                        }
                    }
                    None => Arg::Value(values.get(i).copied().unwrap_or("").to_string()),
                }
            })
            .collect();
        OpCall {
            name: name.to_string(),
            args,
            comm: None,
            annotation: None,
        }
    }
}
