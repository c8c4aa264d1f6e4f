"""Shape and copy cases: permute, transpose, cat, dtype conversion, expand, slice, repeat, pixel
shuffle."""

from __future__ import annotations

import torch

from cases import Case


def cases() -> list[Case]:
    torch.manual_seed(0)
    x3 = torch.randn(64, 128, 256)
    square = torch.randn(1024, 1024)
    parts = [torch.randn(256, 1024) for _ in range(4)]
    flat = torch.randn(1 << 20)
    column = torch.randn(1024, 1)
    row = torch.randn(1, 1024)
    rows = torch.randn(1024, 1024)
    tile = torch.randn(64, 256)
    feature_map = torch.randn(8, 64, 64, 64)
    sub_pixels = torch.randn(4, 72, 32, 32)
    return [
        Case("permute_copy [64,128,256] (0,2,1)", "aten::permute_copy.out", (x3, [0, 2, 1]), {}),
        Case("transpose_copy 1024x1024", "aten::transpose_copy.int_out", (square, 0, 1), {}),
        Case("cat 4x[256,1024] dim=1", "aten::cat.out", (parts, 1), {}),
        Case("cat 4x[256,1024] dim=0", "aten::cat.out", (parts, 0), {}),
        Case(
            "expand_copy [1024,1]->1024x1024", "aten::expand_copy.out", (column, [1024, 1024]), {}
        ),
        Case("expand_copy [1,1024]->1024x1024", "aten::expand_copy.out", (row, [1024, 1024]), {}),
        Case(
            "slice_copy step 2 1024x1024",
            "aten::slice_copy.Tensor_out",
            (rows, 1, 0, None, 2),
            {},
        ),
        Case("repeat [64,256] (4,2)", "aten::repeat.out", (tile, [4, 2]), {}),
        Case("clone 1M float32", "aten::clone.out", (flat,), {}),
        Case("pixel_shuffle [8,64,64,64] r=2", "aten::pixel_shuffle.out", (feature_map, 2), {}),
        Case("pixel_shuffle [4,72,32,32] r=3", "aten::pixel_shuffle.out", (sub_pixels, 3), {}),
        Case("pixel_unshuffle [8,64,64,64] r=2", "aten::pixel_unshuffle.out", (feature_map, 2), {}),
    ]
