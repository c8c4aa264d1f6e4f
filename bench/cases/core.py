"""The first kernels' cases: add, mul, div, relu, softmax, sum, mm."""

from __future__ import annotations

import torch

from cases import Case


def cases() -> list[Case]:
    torch.manual_seed(0)
    a = torch.randn(1 << 20)
    b = torch.randn(1 << 20)
    rows = torch.randn(1024, 1024)
    row = torch.randn(1024)
    x = torch.randn(256, 1024)
    m1 = torch.randn(256, 256)
    m2 = torch.randn(256, 256)
    return [
        Case("add 1M float32", "aten::add.out", (a, b), {}),
        Case("row-broadcast add 1024x1024", "aten::add.out", (rows, row), {}),
        Case("mul 1M float32", "aten::mul.out", (a, b), {}),
        Case("div 1M float32", "aten::div.out", (a, b), {}),
        Case("relu 1M float32", "aten::relu.out", (a,), {}),
        Case("softmax 256x1024", "aten::_softmax.out", (x, -1, False), {}),
        Case("sum dim=-1 256x1024", "aten::sum.IntList_out", (x, [-1]), {}),
        Case("mm 256", "aten::mm.out", (m1, m2), {}),
    ]
