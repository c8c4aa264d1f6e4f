"""Linear algebra, convolution, pooling and upsampling cases."""

from __future__ import annotations

import torch

from cases import Case


def cases() -> list[Case]:
    torch.manual_seed(0)
    m1 = torch.randn(256, 256)
    m2 = torch.randn(256, 256)
    bias = torch.randn(256)
    b1 = torch.randn(16, 128, 128)
    b2 = torch.randn(16, 128, 128)
    x = torch.randn(64, 1024)
    w = torch.randn(1024, 1024)
    wb = torch.randn(1024)
    image = torch.randn(1, 16, 32, 32)
    kernel = torch.randn(32, 16, 3, 3)
    kernel_bias = torch.randn(32)
    features = torch.randn(1, 64, 56, 56)
    small = torch.randn(1, 64, 28, 28)
    conv = (image, kernel, kernel_bias, [1, 1], [1, 1], [1, 1], False, [0, 0], 1)
    return [
        Case("mm 256x256", "aten::mm.out", (m1, m2), {}),
        Case("bmm 16x128x128", "aten::bmm.out", (b1, b2), {}),
        Case("addmm 256 (bias row)", "aten::addmm.out", (bias, m1, m2), {}),
        Case("linear 64x1024 @ 1024x1024", "aten::linear.out", (x, w, wb), {}),
        Case("conv2d 16->32 3x3 1x16x32x32", "aten::convolution.out", conv, {}),
        Case(
            "max_pool2d 3x3 s2 1x64x56x56",
            "aten::max_pool2d_with_indices.out",
            (features, [3, 3], [2, 2]),
            {},
            out_dtypes=(torch.float32, torch.int64),
        ),
        Case("avg_pool2d 2x2 s2 1x64x56x56", "aten::avg_pool2d.out", (features, [2, 2]), {}),
        Case(
            "upsample_bilinear2d 28->56",
            "aten::upsample_bilinear2d.out",
            (small, [56, 56], False),
            {},
        ),
    ]
