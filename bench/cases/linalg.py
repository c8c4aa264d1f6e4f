"""Linear algebra, convolution, pooling, padding, upsampling, grid sampling and distance cases."""

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
    signal = torch.randn(16, 64, 512)
    volume = torch.randn(1, 16, 16, 32, 32)
    grid = torch.rand(1, 56, 56, 2) * 2 - 1
    points = torch.randn(512, 64)
    others = torch.randn(512, 64)
    conv_grad = torch.randn(1, 32, 32, 32)
    conv_backward = (conv_grad, image, kernel, [32], *conv[3:], [True, True, True])
    pool = ([3, 3], [2, 2], [0, 0], [1, 1], False)
    pooled, pool_indices = torch.ops.aten.max_pool2d_with_indices(features, *pool)
    pool_backward = (torch.randn_like(pooled), features, *pool, pool_indices)
    return [
        Case("mm 256x256", "aten::mm.out", (m1, m2), {}),
        Case(
            "mm 256x256 float64", "aten::mm.out", (m1.double(), m2.double()), {}, (torch.float64,)
        ),
        Case(
            "mm 256x256 int64",
            "aten::mm.out",
            (m1.mul(8).long(), m2.mul(8).long()),
            {},
            (torch.int64,),
        ),
        Case("bmm 16x128x128", "aten::bmm.out", (b1, b2), {}),
        Case("addmm 256 (bias row)", "aten::addmm.out", (bias, m1, m2), {}),
        Case("linear 64x1024 @ 1024x1024", "aten::linear.out", (x, w, wb), {}),
        Case("linear 1x1024 @ 1024x1024", "aten::linear.out", (x[:1], w, wb), {}),
        Case("linear 8x1024 @ 1024x1024", "aten::linear.out", (x[:8], w, wb), {}),
        Case("conv2d 16->32 3x3 1x16x32x32", "aten::convolution.out", conv, {}),
        *_mobilenet_convolutions(),
        Case(
            "conv2d backward (same conv)",
            "aten::convolution_backward.out",
            conv_backward,
            {},
            out_dtypes=(torch.float32,) * 3,
        ),
        Case(
            "max_pool2d 3x3 s2 1x64x56x56",
            "aten::max_pool2d_with_indices.out",
            (features, [3, 3], [2, 2]),
            {},
            out_dtypes=(torch.float32, torch.int64),
        ),
        Case(
            "max_pool2d backward 3x3 s2",
            "aten::max_pool2d_with_indices_backward.grad_input",
            pool_backward,
            {},
        ),
        Case("avg_pool2d 2x2 s2 1x64x56x56", "aten::avg_pool2d.out", (features, [2, 2]), {}),
        Case(
            "upsample_bilinear2d 28->56",
            "aten::upsample_bilinear2d.out",
            (small, [56, 56], False),
            {},
        ),
        Case(
            "upsample_bilinear2d.vec x2 28",
            "aten::upsample_bilinear2d.vec_out",
            (small, None, False, [2.0, 2.0]),
            {},
        ),
        Case(
            "upsample_nearest2d.vec x2 28",
            "aten::upsample_nearest2d.vec_out",
            (small, None, [2.0, 2.0]),
            {},
        ),
        Case(
            "upsample_bilinear2d_aa 56->28",
            "aten::_upsample_bilinear2d_aa.out",
            (features, [28, 28], False),
            {},
        ),
        Case("reflection_pad1d 3 16x64x512", "aten::reflection_pad1d.out", (signal, [3, 3]), {}),
        Case(
            "reflection_pad2d 1 1x64x56x56",
            "aten::reflection_pad2d.out",
            (features, [1, 1, 1, 1]),
            {},
        ),
        Case(
            "replication_pad2d 1 1x64x56x56",
            "aten::replication_pad2d.out",
            (features, [1, 1, 1, 1]),
            {},
        ),
        Case(
            "replication_pad3d 1 1x16x16x32x32",
            "aten::replication_pad3d.out",
            (volume, [1, 1, 1, 1, 1, 1]),
            {},
        ),
        Case(
            "grid_sampler bilinear 1x64x56x56",
            "aten::grid_sampler_2d.out",
            (features, grid, 0, 0, False),
            {},
        ),
        Case(
            "grid_sampler nearest 1x64x56x56",
            "aten::grid_sampler_2d.out",
            (features, grid, 1, 1, False),
            {},
        ),
        Case(
            "grid_sampler bicubic 1x64x56x56",
            "aten::grid_sampler_2d.out",
            (features, grid, 2, 2, True),
            {},
        ),
        Case(
            "cdist p=2 512x64 (matmul)", "aten::_cdist_forward.out", (points, others, 2.0, None), {}
        ),
        Case("cdist p=1 512x64", "aten::_cdist_forward.out", (points, others, 1.0, None), {}),
        Case("pdist p=2 512x64", "aten::_pdist_forward.out", (points, 2.0), {}),
    ]


def _mobilenet_convolutions() -> list[Case]:
    """mobilenet_v2's kinds of convolution at their real sizes: the stem, depthwise 3x3 at
    strides 1 and 2, and pointwise (1x1) expansions and projections."""
    cases = []
    shapes = [
        # label, input [c, h, w], out channels, kernel, stride, groups
        ("stem 3->32 3x3 s2 224", (3, 224, 224), 32, 3, 2, 1),
        ("depthwise 32 3x3 s1 112", (32, 112, 112), 32, 3, 1, 32),
        ("depthwise 96 3x3 s2 112", (96, 112, 112), 96, 3, 2, 96),
        ("depthwise 576 3x3 s1 14", (576, 14, 14), 576, 3, 1, 576),
        ("pointwise 32->16 112", (32, 112, 112), 16, 1, 1, 1),
        ("pointwise 24->144 56", (24, 56, 56), 144, 1, 1, 1),
        ("pointwise 320->1280 7", (320, 7, 7), 1280, 1, 1, 1),
    ]
    for label, (channels, height, width), out_channels, kernel, stride, groups in shapes:
        image = torch.randn(1, channels, height, width)
        weight = torch.randn(out_channels, channels // groups, kernel, kernel)
        pad = kernel // 2
        args = (image, weight, torch.randn(out_channels), [stride] * 2, [pad] * 2, [1, 1])
        args += (False, [0, 0], groups)
        cases.append(Case(f"conv2d {label}", "aten::convolution.out", args, {}))
    return cases
