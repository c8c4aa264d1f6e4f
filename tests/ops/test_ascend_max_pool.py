"""The Ascend 2-d max pooling with indices against torch (exact), on both SoC profiles."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
import torch
from ascend_checks import SOCS, call_ascend, check_declines, float_dtypes, on_soc
from op_compare import assert_same

import kiln

NAME = "aten::max_pool2d_with_indices.out"
aten = torch.ops.aten


def check(x: torch.Tensor, *args: Any) -> None:
    """Values and indices equal torch's exactly (the maximum is one of the inputs)."""
    expected, expected_indices = aten.max_pool2d_with_indices(x, *args)
    out = torch.empty(0, dtype=x.dtype)
    indices = torch.empty(0, dtype=torch.int64)
    launches = call_ascend(NAME, x, *args, out=(out, indices))
    assert launches or out.numel() == 0, "max_pool2d ran no Ascend kernel"
    assert_same(out, expected)
    assert_same(indices, expected_indices)


@pytest.mark.parametrize("soc", SOCS)
def test_max_pool_arguments(soc: str) -> None:
    # Kernel, stride, padding, dilation and ceil_mode over shapes with odd sizes.
    g = torch.Generator().manual_seed(1)
    x = torch.randn(2, 3, 9, 11, generator=g)
    with on_soc(soc):
        for dtype in float_dtypes(soc):
            for kernel, stride, dilation, ceil_mode in itertools.product(
                ([1, 1], [2, 2], [3, 2]), ([1, 1], [2, 3]), ([1, 1], [2, 1]), (False, True)
            ):
                for pad_h in range(0, ((kernel[0] - 1) * dilation[0] + 1) // 2 + 1):
                    if pad_h > kernel[0] // 2:
                        continue
                    check(x.to(dtype), kernel, stride, [pad_h, kernel[1] // 2], dilation, ceil_mode)


@pytest.mark.parametrize("soc", SOCS)
def test_max_pool_many_tiles(soc: str) -> None:
    # 8 x 16 x 65 x 65 outputs: several UB tiles on every core; a 3-d input.
    g = torch.Generator().manual_seed(2)
    x = torch.randn(8, 16, 130, 130, generator=g)
    with on_soc(soc):
        for dtype in float_dtypes(soc):
            check(x.to(dtype), [2, 2], [2, 2], [0, 0], [1, 1], False)
        check(torch.randn(3, 7, 33, generator=g), [3, 3], [1, 1], [1, 1], [1, 1], True)


def test_max_pool_nan_inf_and_ties() -> None:
    nan, inf = float("nan"), float("inf")
    x = torch.tensor([[[[nan, 1.0, 1.0], [2.0, nan, 2.0], [-inf] * 3]]])
    for dtype in (torch.float32, torch.float16, torch.bfloat16):
        check(x.to(dtype), [2, 2], [1, 1], [1, 1], [1, 1], True)
        check(torch.full((1, 1, 3, 3), -inf, dtype=dtype), [2, 2], [1, 1], [1, 1], [1, 1], False)
        ties = torch.tensor([[[[3.0, 3.0, -0.0, 0.0], [3.0, 3.0, 0.0, -0.0]]]], dtype=dtype)
        check(ties, [2, 2], [2, 2], [0, 0], [1, 1], False)


def test_max_pool_single_values_and_empty() -> None:
    x = torch.randn(2, 4, 7, 7)
    check(x, [3], [2], [1], [1], False)
    check(x, [3], [], [0], [1], True)
    check(x[:0], [2, 2], [2, 2], [0, 0], [1, 1], False)


def test_max_pool_declines_what_it_cannot_take() -> None:
    x = torch.randn(1, 2, 8, 8)
    outs: Any = (torch.empty(0), torch.empty(0, dtype=torch.int64))
    args = ([2, 2], [2, 2], [0, 0], [1, 1], False)
    douts = (torch.empty(0, dtype=torch.float64), outs[1])
    check_declines(NAME, x.double(), *args, out=douts, reason="dtype Double")
    iouts = (torch.empty(0, dtype=torch.int32), outs[1])
    check_declines(NAME, x.int(), *args, out=iouts, reason="dtype Int")
    with on_soc("Ascend310P"):
        bouts = (torch.empty(0, dtype=torch.bfloat16), outs[1])
        check_declines(NAME, x.bfloat16(), *args, out=bouts, reason="BFloat16")
    big = torch.randn(1, 1, 40, 40)
    check_declines(
        NAME,
        big,
        [33, 33],
        [1, 1],
        [0, 0],
        [1, 1],
        False,
        out=outs,
        reason="a window of more than 1024 taps",
    )
    wide = torch.randn(1, 1, 2, 70_000)
    check_declines(
        NAME, wide, [1, 1], [1, 1], [0, 0], [1, 1], False, out=outs, reason="an input row too long"
    )
    # Invalid arguments decline, and the portable kernel reports them.
    bad = ([2, 2], [0, 1], [0, 0], [1, 1], False)
    with pytest.raises(kiln.KilnError, match="does not take pooling arguments torch refuses"):
        kiln.call_op(NAME, x, *bad, out=outs, backend="ascend", allow_fallback=False)
    with pytest.raises(kiln.KilnError, match="stride should not be zero"):
        kiln.call_op(NAME, x, *bad, out=outs, backend="ascend")
