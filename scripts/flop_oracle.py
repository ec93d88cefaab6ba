#!/usr/bin/env python3
"""The FLOP counts of torch.utils.flop_counter for the op-model test cases.

Runs each case's aten op once on meta tensors (no GPU, no data) under
FlopCounterMode and writes, per case, the op's arguments as PyTorch's
profiler records them (`Input Dims`, `Input type`, `Concrete Inputs`) and
the count flop_counter gives. `tests` in src/opmodel/table_tests.rs build
each case's call from this file and compare rooftrace's count with it.

    python3 -m venv /tmp/torchenv && /tmp/torchenv/bin/pip install torch==2.9.1
    /tmp/torchenv/bin/python scripts/flop_oracle.py > fixtures/opmodel/flop_counter.json
"""
import json
import sys

import torch
from torch.utils.flop_counter import FlopCounterMode

aten = torch.ops.aten

TYPE_NAMES = {
    torch.float64: "double",
    torch.float32: "float",
    torch.float16: "c10::Half",
    torch.bfloat16: "c10::BFloat16",
    torch.float8_e4m3fn: "c10::Float8_e4m3fn",
    torch.int64: "long int",
    torch.int32: "int",
    torch.uint64: "unsigned long",
}


class KW:
    """A keyword-only argument: passed by name, recorded in its place."""

    def __init__(self, name, value):
        self.name, self.value = name, value


def T(*dims, dtype=torch.float32):
    return torch.empty(*dims, device="meta", dtype=dtype)


H, BF, F8 = torch.float16, torch.bfloat16, torch.float8_e4m3fn

# (case name, op name as traces write it, the op, its arguments in schema order)
CASES = [
    ("mm", "aten::mm", aten.mm, [T(64, 128), T(128, 32)]),
    ("addmm_real_shape", "aten::addmm", aten.addmm, [T(256), T(2048, 6948), T(6948, 256), KW("beta", 1), KW("alpha", 1)]),
    ("bmm_real_shape", "aten::bmm", aten.bmm, [T(2048, 160, 45), T(2048, 45, 20)]),
    ("baddbmm_half", "aten::baddbmm", aten.baddbmm, [T(4, 1, 8, dtype=H), T(4, 16, 32, dtype=H), T(4, 32, 8, dtype=H), KW("beta", 1), KW("alpha", 1)]),
    ("matmul_nd_2d", "aten::matmul", aten.matmul, [T(2, 3, 16, 32), T(32, 8)]),
    ("matmul_broadcast", "aten::matmul", aten.matmul, [T(5, 1, 4, 8), T(3, 8, 2)]),
    ("matmul_dot", "aten::matmul", aten.matmul, [T(100), T(100)]),
    ("linear_bf16", "aten::linear", aten.linear, [T(4, 10, 64, dtype=BF), T(32, 64, dtype=BF), T(32, dtype=BF)]),
    ("scaled_mm_fp8", "aten::_scaled_mm", aten._scaled_mm,
     [T(128, 256, dtype=F8), T(64, 256, dtype=F8).t(), T(()), T(()), None, None, BF, False]),
    ("sdpa_flash", "aten::_scaled_dot_product_flash_attention", aten._scaled_dot_product_flash_attention,
     [T(2, 8, 128, 64, dtype=H), T(2, 8, 128, 64, dtype=H), T(2, 8, 128, 64, dtype=H), 0.0, False]),
    ("sdpa_flash_causal", "aten::_scaled_dot_product_flash_attention", aten._scaled_dot_product_flash_attention,
     [T(2, 8, 128, 64, dtype=H), T(2, 8, 128, 64, dtype=H), T(2, 8, 128, 64, dtype=H), 0.0, True]),
    ("sdpa_flash_decode", "aten::_scaled_dot_product_flash_attention", aten._scaled_dot_product_flash_attention,
     [T(1, 32, 1, 128, dtype=BF), T(1, 32, 4096, 128, dtype=BF), T(1, 32, 4096, 128, dtype=BF), 0.0, False]),
    ("sdpa_efficient_prefill_chunk", "aten::_scaled_dot_product_efficient_attention",
     aten._scaled_dot_product_efficient_attention,
     [T(1, 16, 256, 64, dtype=H), T(1, 16, 1024, 64, dtype=H), T(1, 16, 1024, 64, dtype=H), None, True, 0.0, False]),
    ("conv2d_stride2", "aten::convolution", aten.convolution,
     [T(8, 3, 224, 224), T(64, 3, 7, 7), T(64), [2, 2], [3, 3], [1, 1], False, [0, 0], 1]),
    ("conv2d_depthwise_dilated", "aten::convolution", aten.convolution,
     [T(4, 32, 56, 56, dtype=H), T(32, 1, 3, 3, dtype=H), None, [1, 1], [2, 2], [2, 2], False, [0, 0], 32]),
    ("conv_transpose2d", "aten::convolution", aten.convolution,
     [T(1, 16, 8, 8), T(16, 8, 4, 4), None, [2, 2], [1, 1], [1, 1], True, [0, 0], 1]),
    ("conv1d", "aten::convolution", aten.convolution,
     [T(2, 64, 1000), T(128, 64, 5), T(128), [1], [2], [1], False, [0], 1]),
    ("conv2d_backward_no_input_grad", "aten::convolution_backward", aten.convolution_backward,
     [T(8, 64, 112, 112), T(8, 3, 224, 224), T(64, 3, 7, 7), [64], [2, 2], [3, 3], [1, 1], False, [0, 0], 1,
      [False, True, True]]),
    ("conv2d_backward_all", "aten::convolution_backward", aten.convolution_backward,
     [T(4, 32, 28, 28, dtype=BF), T(4, 16, 56, 56, dtype=BF), T(32, 16, 3, 3, dtype=BF), [32], [2, 2], [1, 1],
      [1, 1], False, [0, 0], 1, [True, True, True]]),
]


def backward_cases():
    """SDPA backward: its arguments are the forward's outputs, made on meta."""
    q = T(2, 8, 128, 64, dtype=H)
    out, lse, cq, ck, mq, mk, seed, off, _ = aten._scaled_dot_product_flash_attention(q, q, q, 0.0, True)
    yield ("sdpa_flash_bwd_causal", "aten::_scaled_dot_product_flash_attention_backward",
           aten._scaled_dot_product_flash_attention_backward,
           [q, q, q, q, out, lse, cq, ck, mq, mk, 0.0, True, seed, off])
    q = T(1, 16, 256, 64, dtype=H)
    kv = T(1, 16, 1024, 64, dtype=H)
    out, lse, seed, off = aten._scaled_dot_product_efficient_attention(q, kv, kv, None, True, 0.0, False)
    yield ("sdpa_efficient_bwd", "aten::_scaled_dot_product_efficient_attention_backward",
           aten._scaled_dot_product_efficient_attention_backward,
           [q, q, kv, kv, None, out, lse, seed, off, 0.0, [True, True, True, False], False])


def recorded(arg):
    """One argument as the profiler records it."""
    if isinstance(arg, torch.Tensor):
        return {"dims": list(arg.shape), "type": TYPE_NAMES[arg.dtype]}
    if arg is None:
        return {"dims": [], "type": "", "value": ""}
    if isinstance(arg, torch.dtype):
        return {"dims": [], "type": "Scalar", "value": str(arg)}
    if isinstance(arg, bool):
        return {"dims": [], "type": "Scalar", "value": "True" if arg else "False"}
    if isinstance(arg, list):
        text = "[" + ", ".join(("True" if v else "False") if isinstance(v, bool) else str(v) for v in arg) + "]"
        return {"dims": [], "type": "ScalarList", "value": text}
    return {"dims": [], "type": "Scalar", "value": str(arg)}


def main():
    rows = []
    for name, op_name, op, args in [*CASES, *backward_cases()]:
        pos = [a for a in args if not isinstance(a, KW)]
        kw = {a.name: a.value for a in args if isinstance(a, KW)}
        with FlopCounterMode(display=False) as counter:
            op(*pos, **kw)
        rows.append({
            "case": name,
            "op": op_name,
            "args": [recorded(a.value if isinstance(a, KW) else a) for a in args],
            "flop_counter_flops": counter.get_total_flops(),
        })
    json.dump({"torch_version": torch.__version__, "cases": rows}, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
