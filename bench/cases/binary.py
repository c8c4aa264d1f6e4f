"""Binary elementwise cases: arithmetic, broadcasting, comparisons, where, pow and Half."""

from __future__ import annotations

import torch

from cases import Case


def cases() -> list[Case]:
    torch.manual_seed(0)
    a = torch.randn(1 << 20)
    b = torch.randn(1 << 20)
    rows = torch.randn(1024, 1024)
    row = torch.randn(1024)
    mask = a > 0
    half_a = a.half()
    half_b = b.half()
    return [
        Case("add 1M float32", "aten::add.out", (a, b), {}),
        Case("row-broadcast add 1024x1024", "aten::add.out", (rows, row), {}),
        Case("mul 1M float32", "aten::mul.out", (a, b), {}),
        Case("div 1M float32", "aten::div.out", (a, b), {}),
        Case("lt 1M float32", "aten::lt.Tensor_out", (a, b), {}, (torch.bool,)),
        Case("where 1M float32", "aten::where.self_out", (mask, a, b), {}),
        Case("pow 1M float32 ** 2", "aten::pow.Tensor_Scalar_out", (a, 2), {}),
        Case("pow 1M float32 ** tensor", "aten::pow.Tensor_Tensor_out", (a.abs(), b), {}),
        Case("maximum 1M float32", "aten::maximum.out", (a, b), {}),
        Case("add 1M float16", "aten::add.out", (half_a, half_b), {}, (torch.float16,)),
        Case(
            "add 1M bfloat16", "aten::add.out", (a.bfloat16(), b.bfloat16()), {}, (torch.bfloat16,)
        ),
        Case("add 1M float16 into float32", "aten::add.out", (half_a, half_b), {}),
    ]
