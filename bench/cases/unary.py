"""Unary ops and activations on 1M elements: float32, some float64 and one Half case; the trig
and hyperbolic family, expm1, the log family, logit and glu."""

from __future__ import annotations

import torch

from cases import Case


def cases() -> list[Case]:
    torch.manual_seed(0)
    a = torch.randn(1 << 20)
    positive = torch.rand(1 << 20) + 0.01
    half = torch.randn(1 << 20).half()
    unit = torch.rand(1 << 20) * 1.98 - 0.99  # inside (-1, 1): asin, acos, atanh
    above_one = torch.rand(1 << 20) * 10 + 1  # acosh
    probability = torch.rand(1 << 20) * 0.98 + 0.01  # logit
    pairs = torch.randn(1024, 2048)  # glu halves the last dim
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
        Case("sin 1M float32", "aten::sin.out", (a,), {}),
        Case("cos 1M float32", "aten::cos.out", (a,), {}),
        Case("tan 1M float32", "aten::tan.out", (a,), {}),
        Case("asin 1M float32", "aten::asin.out", (unit,), {}),
        Case("acos 1M float32", "aten::acos.out", (unit,), {}),
        Case("atan 1M float32", "aten::atan.out", (a,), {}),
        Case("sinh 1M float32", "aten::sinh.out", (a,), {}),
        Case("cosh 1M float32", "aten::cosh.out", (a,), {}),
        Case("asinh 1M float32", "aten::asinh.out", (a,), {}),
        Case("acosh 1M float32", "aten::acosh.out", (above_one,), {}),
        Case("atanh 1M float32", "aten::atanh.out", (unit,), {}),
        Case("expm1 1M float32", "aten::expm1.out", (a,), {}),
        Case("log2 1M float32", "aten::log2.out", (positive,), {}),
        Case("log10 1M float32", "aten::log10.out", (positive,), {}),
        Case("log1p 1M float32", "aten::log1p.out", (positive,), {}),
        # float64: ATen vectorises these too (Sleef); the out dtype follows the input.
        Case("gelu 1M float64", "aten::gelu.out", (a.double(),), {}, (torch.float64,)),
        Case("log 1M float64", "aten::log.out", (positive.double(),), {}, (torch.float64,)),
        Case("log2 1M float64", "aten::log2.out", (positive.double(),), {}, (torch.float64,)),
        Case("log10 1M float64", "aten::log10.out", (positive.double(),), {}, (torch.float64,)),
        Case("log1p 1M float64", "aten::log1p.out", (positive.double(),), {}, (torch.float64,)),
        Case("logit 1M float32", "aten::logit.out", (probability,), {}),
        Case("glu 1024x2048 float32", "aten::glu.out", (pairs,), {}),
    ]
