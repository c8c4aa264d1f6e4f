"""The Ascend softmax / log_softmax (last dim) against torch, on both SoC profiles."""

from __future__ import annotations

import pytest
import torch
from ascend_checks import SIZES, SOCS, check_ascend, check_declines, float_dtypes, on_soc

import kiln

SOFTMAX, LOG_SOFTMAX = "aten::_softmax.out", "aten::_log_softmax.out"
OPS = {SOFTMAX: torch.softmax, LOG_SOFTMAX: torch.log_softmax}


def check(name: str, x: torch.Tensor, dim: int) -> None:
    # The reference is torch's in float64, rounded once to the dtype, as the kernel rounds:
    # torch's float softmax adds a row's exps in vector lanes in order, which over the 1M-long
    # rows here is itself off by ~1e-4, and its 16-bit log_softmax loses bits of
    # x - max - log(sum) in proportion to |x| (tests/ops/test_softmax.py allows for that).
    expected = OPS[name](x.double(), dim).to(x.dtype)
    check_ascend(name, expected, x, dim, False, out=torch.empty(0, dtype=x.dtype), atol=1e-6)


def rows_of(size: int, dtype: torch.dtype) -> list[torch.Tensor]:
    """One row of `size` elements (chunked once past a UB tile), and rows of 33."""
    g = torch.Generator().manual_seed(size)
    flat = (torch.randn(size, generator=g) * 4).to(dtype)
    return [flat] + ([flat[: size // 33 * 33].reshape(-1, 33)] if size >= 33 else [])


@pytest.mark.parametrize("soc", SOCS)
@pytest.mark.parametrize("size", SIZES)
def test_softmax_rows(soc: str, size: int) -> None:
    with on_soc(soc):
        for dtype in float_dtypes(soc):
            for x in rows_of(size, dtype):
                for name in OPS:
                    check(name, x, -1)


@pytest.mark.parametrize("soc", SOCS)
def test_softmax_many_rows_per_core(soc: str) -> None:
    # 4099 rows of 257: several UB tiles on every core.
    with on_soc(soc):
        base = torch.randn(4099, 257, generator=torch.Generator().manual_seed(3)) * 3
        for dtype in float_dtypes(soc):
            for name in OPS:
                check(name, base.to(dtype), 1)


def test_softmax_dims_and_shapes() -> None:
    x = torch.randn(2, 3, 70)
    for name in OPS:
        check(name, x, -1)
        check(name, x, 2)
        check(name, torch.tensor(1.5), 0)
        check(name, torch.tensor(-3.0), -1)
        check(name, torch.randn(5, 0), -1)
        check(name, torch.randn(0, 5), 1)


@pytest.mark.parametrize("soc", SOCS)
def test_softmax_special_values(soc: str) -> None:
    inf, nan = float("inf"), float("nan")
    rows = [
        [1.0, nan, 2.0, 0.5],
        [1.0, inf, 2.0, 0.5],
        [-inf, -inf, -inf, -inf],
        [-inf, 0.0, 1.0, -inf],
        [-0.0, 0.0, -0.0, 0.0],
        [80.0, 88.0, -100.0, 87.5],
    ]
    with on_soc(soc):
        for dtype in float_dtypes(soc):
            x = torch.tensor(rows, dtype=dtype)
            # The same cases in rows long enough to go through UB in chunks.
            long = torch.randn(4, 100_003).to(dtype)
            long[0, 99_000] = nan
            long[1, 50_001] = inf
            long[2, :] = -inf
            long[3, :60_000] = -inf
            for name in OPS:
                check(name, x, -1)
                check(name, long, -1)


def test_softmax_declines_what_it_cannot_take() -> None:
    x = torch.randn(4, 6)
    for name in OPS:
        op = name.split("::_")[1].split(".")[0]
        check_declines(name, x, 0, False, out=torch.empty(0), reason=f"{op} over dim 0")
        check_declines(name, x, -2, False, out=torch.empty(0), reason=f"{op} over dim -2")
        check_declines(
            name, x.double(), 1, False, out=torch.empty(0).double(), reason="dtype Double"
        )
        with on_soc("Ascend310P"):
            b = x.bfloat16()
            check_declines(name, b, 1, False, out=torch.empty(0, dtype=b.dtype), reason="BFloat16")
        # half_to_float: declined here, refused by the portable kernel too.
        with pytest.raises(kiln.KilnError, match="does not take half_to_float"):
            kiln.call_op(
                name, x.half(), 1, True, out=torch.empty(0), backend="ascend", allow_fallback=False
            )
