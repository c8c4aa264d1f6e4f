"""The Ascend last-dim reductions (sum, mean, amax) against torch, on both SoC profiles."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import torch
from ascend_checks import SIZES, SOCS, check_ascend, check_declines, float_dtypes, on_soc

SUM, MEAN, AMAX = "aten::sum.IntList_out", "aten::mean.out", "aten::amax.out"
OPS: dict[str, Callable[..., torch.Tensor]] = {
    SUM: lambda x, dim, keepdim: x.sum(dim, keepdim=keepdim),
    MEAN: lambda x, dim, keepdim: x.mean(dim, keepdim=keepdim),
    AMAX: lambda x, dim, keepdim: x.amax(dim, keepdim=keepdim),
}


def order_atol(name: str, x: torch.Tensor) -> float:
    """Room for summation order: the kernel sums each row in float as a balanced tree, torch
    in its own cascade; both stay within a few float ulps per level of the row's sum of
    magnitudes (log2 of the row length levels). amax is exact."""
    if name == AMAX or x.numel() == 0:
        return 0.0
    x64 = x.double()
    magnitudes = x64.nan_to_num(0, 0, 0).abs().sum(-1)
    levels = max(x.shape[-1] if x.dim() else 1, 2).bit_length()
    scale = float(magnitudes.max()) / (x.shape[-1] if name == MEAN and x.dim() else 1)
    return 2 * levels * torch.finfo(torch.float32).eps * scale


def check(name: str, x: torch.Tensor, dim: Any, keepdim: bool) -> None:
    expected = OPS[name](x, dim, keepdim)
    out = torch.empty(0, dtype=x.dtype)
    check_ascend(name, expected, x, dim, keepdim, out=out, atol=order_atol(name, x))


def rows_of(size: int, dtype: torch.dtype, seed: int) -> list[torch.Tensor]:
    """One row of `size` elements, and `size` split into rows of 33 (several rows per tile)."""
    g = torch.Generator().manual_seed(seed)
    if dtype == torch.int32:
        flat = torch.randint(-(2**31), 2**31 - 1, (size,), generator=g, dtype=torch.int32)
    else:
        flat = (torch.randn(size, generator=g) * 10).to(dtype)
    shapes = [flat]
    if size >= 33:
        shapes.append(flat[: size // 33 * 33].reshape(-1, 33))
    return shapes


@pytest.mark.parametrize("soc", SOCS)
@pytest.mark.parametrize("size", SIZES)
def test_reductions_over_rows(soc: str, size: int) -> None:
    with on_soc(soc):
        for dtype in [*float_dtypes(soc), torch.int32]:
            names = [AMAX] if dtype == torch.int32 else list(OPS)
            for x in rows_of(size, dtype, size):
                for name in names:
                    check(name, x, [-1], False)


@pytest.mark.parametrize("soc", SOCS)
def test_reductions_over_many_rows_per_core(soc: str) -> None:
    # 4099 rows of 257: several UB tiles on every core.
    with on_soc(soc):
        g = torch.Generator().manual_seed(7)
        base = torch.randn(4099, 257, generator=g) * 4
        for dtype in [*float_dtypes(soc), torch.int32]:
            x = (base * 1000).to(dtype) if dtype == torch.int32 else base.to(dtype)
            for name in [AMAX] if dtype == torch.int32 else list(OPS):
                check(name, x, [1], True)


def test_reductions_dim_forms_and_keepdim() -> None:
    x = torch.randn(3, 5, 40)
    for name in OPS:
        for dim in ([-1], [2]):
            for keepdim in (False, True):
                check(name, x, dim, keepdim)
        v = torch.randn(37)
        check(name, v, [0], True)
        check(name, torch.tensor(2.5), [0], False)
        check(name, torch.tensor(-1.5), [-1], True)
    for name in (SUM, MEAN):
        check(name, torch.randn(50), None, True)
    check(AMAX, torch.randn(50), [], False)
    empty = torch.randn(0, 7)
    for name in OPS:
        check(name, empty, [-1], False)


@pytest.mark.parametrize("soc", SOCS)
def test_reductions_special_values(soc: str) -> None:
    inf, nan = float("inf"), float("nan")
    rows = [
        [1.0, nan, 3.0],
        [inf, 2.0, -1.0],
        [-inf, -inf, -inf],
        [inf, -inf, 0.0],
        [nan, inf, -inf],
        [-0.0, -0.0, -0.0],
        [-5.0, -3.0, -4.0],
    ]
    with on_soc(soc):
        for dtype in float_dtypes(soc):
            x = torch.tensor(rows, dtype=dtype)
            long = torch.randn(3, 100_003).to(dtype)
            long[0, 70_000] = nan
            long[1, 99_999] = inf
            long[2, 5] = -inf
            for name in OPS:
                check(name, x, [-1], False)
                check(name, long, [-1], False)


def test_reductions_decline_what_they_cannot_take() -> None:
    x = torch.randn(4, 6)
    for name in OPS:
        other_dims = f"{name[6:].split('.')[0]} over dims other than the last"
        check_declines(name, x, [0], out=torch.empty(0), reason=other_dims)
        check_declines(name, x, [0, 1], out=torch.empty(0), reason=other_dims)
        check_declines(name, x.double(), [1], out=torch.empty(0).double(), reason="dtype Double")
    check_declines(SUM, x, None, out=torch.empty(0), reason="sum over dims other than the last")
    check_declines(
        SUM, x.half(), [1], dtype=torch.float32, out=torch.empty(0), reason="sum with dtype=Float"
    )
    check_declines(SUM, x.half(), [1], out=torch.empty(0), reason="out of dtype Float with Half")
    i = torch.arange(24, dtype=torch.int32).reshape(4, 6)
    check_declines(SUM, i, [1], out=torch.empty(0, dtype=torch.int64), reason="dtype Int")
    check_declines(
        SUM, torch.ones(3, 0), [1], out=torch.empty(0), reason="sum over an empty last dim"
    )
    with on_soc("Ascend310P"):
        b = x.bfloat16()
        check_declines(AMAX, b, [1], out=torch.empty(0, dtype=torch.bfloat16), reason="BFloat16")
