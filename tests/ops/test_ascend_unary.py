"""The Ascend unary kernels (relu, ...) against torch, on both SoC profiles."""

from __future__ import annotations

import pytest
import torch
from ascend_checks import SIZES, SOCS, check_ascend, check_declines, float_dtypes, on_soc


@pytest.mark.parametrize("soc", SOCS)
@pytest.mark.parametrize("size", SIZES)
def test_relu(soc: str, size: int) -> None:
    with on_soc(soc):
        for dtype in [*float_dtypes(soc), torch.int32]:
            x = (torch.randn(size) * 100).to(dtype)
            out = torch.empty(0, dtype=dtype)
            check_ascend("aten::relu.out", torch.relu(x), x, out=out)


def test_relu_keeps_shape_and_handles_empty() -> None:
    x = torch.randn(3, 0, 5)
    check_ascend("aten::relu.out", torch.relu(x), x, out=torch.empty(0))
    y = torch.randn(2, 3, 5)
    check_ascend("aten::relu.out", torch.relu(y), y, out=torch.empty(0))


def test_relu_declines_what_it_cannot_take() -> None:
    x = torch.randn(4, dtype=torch.float64)
    check_declines(
        "aten::relu.out", x, out=torch.empty(0, dtype=torch.float64), reason="dtype Double"
    )
    with on_soc("Ascend310P"):
        b = torch.randn(4, dtype=torch.bfloat16)
        check_declines(
            "aten::relu.out", b, out=torch.empty(0, dtype=torch.bfloat16), reason="BFloat16"
        )
