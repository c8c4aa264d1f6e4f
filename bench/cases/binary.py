"""Binary elementwise cases: arithmetic, broadcasting (rows and columns), comparisons, where, pow
(float32 and float64), atan2, fmod and remainder, shifts and Half into float32
(same-dtype Half and BFloat16 cases are in half.py)."""

from __future__ import annotations

import torch

from cases import Case


def cases() -> list[Case]:
    torch.manual_seed(0)
    a = torch.randn(1 << 20)
    b = torch.randn(1 << 20)
    rows = torch.randn(1024, 1024)
    row = torch.randn(1024)
    column = torch.randn(1024, 1)
    mask = a > 0
    half_a = a.half()
    half_b = b.half()
    ints = torch.randint(-(2**20), 2**20, (1 << 20,), dtype=torch.int32)
    counts = torch.randint(0, 40, (1 << 20,), dtype=torch.int32)
    return [
        Case("add 1M float32", "aten::add.out", (a, b), {}),
        Case("row-broadcast add 1024x1024", "aten::add.out", (rows, row), {}),
        Case("column-broadcast add 1024x1024", "aten::add.out", (rows, column), {}),
        Case("short-row add 262144x4 + 4", "aten::add.out", (a.reshape(-1, 4), row[:4]), {}),
        Case(
            "short-column add 262144x4 + 262144x1",
            "aten::add.out",
            (a.reshape(-1, 4), b[: 1 << 18].reshape(-1, 1)),
            {},
        ),
        Case("mul 1M float32", "aten::mul.out", (a, b), {}),
        Case("div 1M float32", "aten::div.out", (a, b), {}),
        Case("floor_divide 1M float32", "aten::floor_divide.out", (a, b), {}),
        Case("rsub 1M float32", "aten::rsub.Scalar_out", (a, 2.0), {}),
        Case(
            "left shift 1M int32",
            "aten::bitwise_left_shift.Tensor_out",
            (ints, counts),
            {},
            (torch.int32,),
        ),
        Case(
            "right shift 1M int32",
            "aten::bitwise_right_shift.Tensor_out",
            (ints, counts),
            {},
            (torch.int32,),
        ),
        Case("lt 1M float32", "aten::lt.Tensor_out", (a, b), {}, (torch.bool,)),
        Case("lt 1M float32 into float32", "aten::lt.Tensor_out", (a, b), {}),
        Case("lt 1M int32 into float32", "aten::lt.Tensor_out", (ints, counts), {}),
        Case("where 1M float32", "aten::where.self_out", (mask, a, b), {}),
        Case("pow 1M float32 ** 2", "aten::pow.Tensor_Scalar_out", (a, 2), {}),
        Case("pow 1M float32 ** tensor", "aten::pow.Tensor_Tensor_out", (a.abs(), b), {}),
        Case("pow 2 ** 1M float32", "aten::pow.Scalar_out", (2.0, b), {}),
        Case(
            "pow 1M float64 ** tensor",
            "aten::pow.Tensor_Tensor_out",
            (a.abs().double(), b.double()),
            {},
            (torch.float64,),
        ),
        Case("maximum 1M float32", "aten::maximum.out", (a, b), {}),
        Case("atan2 1M float32", "aten::atan2.out", (a, b), {}),
        Case("fmod 1M float32", "aten::fmod.Tensor_out", (a * 100, b), {}),
        Case("remainder 1M float32", "aten::remainder.Tensor_out", (a * 100, b), {}),
        Case("add 1M float16 into float32", "aten::add.out", (half_a, half_b), {}),
        Case("add 1M bfloat16 into float32", "aten::add.out", (a.bfloat16(), b.bfloat16()), {}),
    ]
