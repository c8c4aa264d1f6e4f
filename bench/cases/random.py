"""Random cases: rand, randn and dropout, 1M float32 values (Kiln's Philox draws against ATen's
generator; the values differ, the cost is comparable)."""

from __future__ import annotations

import torch

from cases import Case


def cases() -> list[Case]:
    torch.manual_seed(0)
    flat = torch.randn(1 << 20)
    return [
        Case("rand 1M", "aten::rand.out", ([1 << 20],), {}, deterministic=False),
        Case("randn 1M", "aten::randn.out", ([1 << 20],), {}, deterministic=False),
        Case(
            "native_dropout p=0.5 1M",
            "aten::native_dropout.out",
            (flat, 0.5, True),
            {},
            out_dtypes=(torch.float32, torch.bool),
            deterministic=False,
        ),
    ]
