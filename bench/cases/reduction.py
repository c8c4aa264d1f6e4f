"""Reductions, softmax and normalisation cases, on a 256x1024 float32 input (batch norm: images)."""

from __future__ import annotations

import torch

from cases import Case

F32 = torch.float32
I64 = torch.int64


def cases() -> list[Case]:
    torch.manual_seed(0)
    x = torch.randn(256, 1024)
    w = torch.randn(1024)
    b = torch.randn(1024)
    images = torch.randn(8, 64, 28, 28)
    return [
        Case("softmax 256x1024", "aten::_softmax.out", (x, -1, False), {}),
        Case("log_softmax 256x1024", "aten::_log_softmax.out", (x, -1, False), {}),
        Case("softmax dim=0 256x1024", "aten::_softmax.out", (x, 0, False), {}),
        Case("sum dim=-1 256x1024", "aten::sum.IntList_out", (x, [-1]), {}),
        Case("sum dim=0 256x1024", "aten::sum.IntList_out", (x, [0]), {}),
        Case("sum all 256x1024", "aten::sum.IntList_out", (x, None), {}),
        Case("mean dim=-1 256x1024", "aten::mean.out", (x, [-1]), {}),
        Case("amax dim=-1 256x1024", "aten::amax.out", (x, [-1]), {}),
        Case("amax dim=0 256x1024", "aten::amax.out", (x, [0]), {}),
        Case("argmax dim=-1 256x1024", "aten::argmax.out", (x, -1), {}, (I64,)),
        Case("max.dim dim=-1 256x1024", "aten::max.dim_max", (x, -1), {}, (F32, I64)),
        Case("var dim=-1 256x1024", "aten::var.correction_out", (x, [-1]), {}),
        Case("var.out dim=0 256x1024", "aten::var.out", (x, [0]), {}),
        Case(
            "var_mean dim=-1 256x1024",
            "aten::var_mean.correction_out",
            (x, [-1]),
            {},
            (F32, F32),
        ),
        Case("var_mean all 256x1024", "aten::var_mean.correction_out", (x, None), {}, (F32, F32)),
        Case(
            "batch_norm train 8x64x28x28",
            "aten::_native_batch_norm_legit.out",
            (images, None, None, torch.zeros(64), torch.ones(64), True, 0.1, 1e-5),
            {},
            (F32, F32, F32),
        ),
        Case(
            "layer_norm 256x1024",
            "aten::native_layer_norm.out",
            (x, [1024], w, b, 1e-5),
            {},
            (F32, F32, F32),
        ),
        Case("cumsum dim=-1 256x1024", "aten::cumsum.out", (x, -1), {}),
        Case("logsumexp dim=-1 256x1024", "aten::logsumexp.out", (x, [-1]), {}),
    ]
