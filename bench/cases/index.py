"""Indexing cases: embedding, index_select, gather, advanced indexing, masked_fill, masked_select,
masked_scatter, narrow_copy.

topk and sort have two outs (values, indices), which bench/kernels.py cannot pass yet; their
ratios come from measuring the same way by hand until it can.
"""

from __future__ import annotations

import torch

from cases import Case


def cases() -> list[Case]:
    torch.manual_seed(0)
    table = torch.randn(30000, 512)
    tokens = torch.randint(0, 30000, (4096,))
    x = torch.randn(1024, 1024)
    rows = torch.randint(0, 1024, (512,))
    columns = torch.randint(0, 1024, (1024, 64))
    mask = torch.rand(1024, 1024) > 0.5
    scores = torch.randn(64, 4096)
    source = torch.randn(1 << 20)
    with_indices = (torch.float32, torch.int64)
    return [
        Case("embedding 30000x512, 4096 ids", "aten::embedding.out", (table, tokens), {}),
        Case("index_select dim=0 1024x1024", "aten::index_select.out", (x, 0, rows), {}),
        Case("index_select dim=1 1024x1024", "aten::index_select.out", (x, 1, rows), {}),
        Case("gather dim=1 1024x64 of 1024^2", "aten::gather.out", (x, 1, columns), {}),
        Case("index rows 1024x1024", "aten::index.Tensor_out", (x, [rows]), {}),
        Case("masked_fill 1024x1024", "aten::masked_fill.Scalar_out", (x, mask, -1e9), {}),
        Case("masked_select 1024x1024", "aten::masked_select.out", (x, mask), {}),
        Case("masked_scatter 1024x1024", "aten::masked_scatter.out", (x, mask, source), {}),
        Case("narrow_copy dim=1 1024x1024", "aten::narrow_copy.out", (x, 1, 100, 512), {}),
        Case("topk k=10 64x4096", "aten::topk.values", (scores, 10), {}, out_dtypes=with_indices),
        Case("sort 64x4096", "aten::sort.values", (scores,), {}, out_dtypes=with_indices),
    ]
