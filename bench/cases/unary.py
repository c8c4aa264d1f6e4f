"""Unary ops and activations on 1M elements: float32 and one Half case."""

from __future__ import annotations

import torch

from cases import Case


def cases() -> list[Case]:
    torch.manual_seed(0)
    a = torch.randn(1 << 20)
    positive = torch.rand(1 << 20) + 0.01
    half = torch.randn(1 << 20).half()
    return [
        Case("relu 1M float32", "aten::relu.out", (a,), {}),
        Case("gelu 1M float32", "aten::gelu.out", (a,), {}),
        Case("gelu tanh 1M float32", "aten::gelu.out", (a,), {"approximate": "tanh"}),
        Case("sigmoid 1M float32", "aten::sigmoid.out", (a,), {}),
        Case("tanh 1M float32", "aten::tanh.out", (a,), {}),
        Case("exp 1M float32", "aten::exp.out", (a,), {}),
        Case("log 1M float32", "aten::log.out", (positive,), {}),
        Case("erf 1M float32", "aten::erf.out", (a,), {}),
        Case("silu 1M float32", "aten::silu.out", (a,), {}),
        Case("clamp 1M float32", "aten::clamp.out", (a, -0.5, 0.5), {}),
        Case("abs 1M float32", "aten::abs.out", (a,), {}),
        Case("neg 1M float32", "aten::neg.out", (a,), {}),
        # The harness sizes out from a Float tensor: Half in, Float out (computed in Half).
        Case("sigmoid 1M float16->float32", "aten::sigmoid.out", (half,), {}),
        Case("exp 1M float16->float32", "aten::exp.out", (half,), {}),
    ]
