"""The Ascend layer norm (last dim) against torch: output, mean and rstd, on both SoC profiles."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from ascend_checks import SIZES, SOCS, call_ascend, check_declines, float_dtypes, on_soc
from op_compare import assert_same, largest, tolerances_for

import kiln

NAME = "aten::native_layer_norm.out"
aten = torch.ops.aten


def check(
    x: torch.Tensor,
    weight: torch.Tensor | None,
    bias: torch.Tensor | None,
    eps: float = 1e-5,
) -> None:
    """The three outputs equal torch's. torch computes y = x * rstd - mean * rstd, the kernel
    (x - mean) * rstd: where y is small the two differ by rounding residue of about
    eps * |x| * rstd * |weight| (as tests/ops/test_layer_norm.py allows)."""
    args = (x, [x.shape[-1]], weight, bias, eps)
    expected = aten.native_layer_norm(*args)
    stat_dtype = next((p.dtype for p in (weight, bias) if p is not None), x.dtype)
    outs = tuple(torch.empty(0, dtype=d) for d in (x.dtype, stat_dtype, stat_dtype))
    launches = call_ascend(NAME, *args, out=outs)
    assert launches or x.numel() == 0, "layer_norm ran no Ascend kernel"
    residue = (
        4 * torch.finfo(x.dtype).eps * largest(x) * largest(expected[2]) * max(largest(weight), 1)
    )
    for index, (actual, wanted) in enumerate(zip(outs, expected, strict=True)):
        atol = 1e-5 * (1 + largest(wanted)) + (residue if index == 0 else 0.0)
        assert_same(actual, wanted, atol=atol, tolerances=tolerances_for("ascend"))


def params(n: int, dtype: torch.dtype, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    return torch.randn(n, generator=g).to(dtype), torch.randn(n, generator=g).to(dtype)


@pytest.mark.parametrize("soc", SOCS)
@pytest.mark.parametrize("size", SIZES)
def test_layer_norm_rows(soc: str, size: int) -> None:
    with on_soc(soc):
        g = torch.Generator().manual_seed(size)
        flat = torch.randn(size, generator=g) * 3 + 2
        for dtype in float_dtypes(soc):
            # One row of `size` (in chunks once past a UB tile), and rows of 33.
            shapes = [flat.to(dtype).reshape(1, -1)]
            if size >= 33:
                shapes.append(flat[: size // 33 * 33].to(dtype).reshape(-1, 33))
            for x in shapes:
                w, b = params(x.shape[-1], dtype, size)
                check(x, w, b)
                if dtype != torch.float32:  # mixed precision: Float parameters and statistics
                    check(x, w.float(), b.float())


@pytest.mark.parametrize("soc", SOCS)
def test_layer_norm_many_rows_per_core(soc: str) -> None:
    # 4099 rows of 257: several UB tiles on every core.
    with on_soc(soc):
        x = torch.randn(4099, 257, generator=torch.Generator().manual_seed(11)) * 2
        for dtype in float_dtypes(soc):
            w, b = params(257, dtype, 1)
            check(x.to(dtype), w, b, eps=1e-3)


def test_layer_norm_optional_params_and_shapes() -> None:
    x = torch.randn(2, 3, 100) + 50
    w, b = params(100, torch.float32, 2)
    for weight, bias in ((None, None), (w, None), (None, b), (w, b)):
        check(x, weight, bias)
        check(x.half(), None if weight is None else weight.half(), None)
    check(torch.randn(7), w[:7], b[:7], eps=0.5)
    check(torch.randn(0, 9), None, None)
    long = torch.randn(2, 100_003) * 5
    lw, lb = params(100_003, torch.float32, 3)
    for weight, bias in ((None, None), (lw, None), (None, lb)):
        check(long, weight, bias)
        check(long.half(), weight, bias)


def test_layer_norm_special_values() -> None:
    inf, nan = float("inf"), float("nan")
    x = torch.tensor(
        [
            [1.0, nan, 2.0],
            [1.0, inf, 2.0],
            [-inf, 1.0, 2.0],
            [3.0, 3.0, 3.0],
            [-0.0, 0.0, -0.0],
            [1e4, -1e4, 0.0],
            [1e15, 2e15, -1e15],
        ]
    )
    check(x, None, None)
    check(x, *params(3, torch.float32, 4))
    long = torch.randn(3, 100_003)
    long[0, 99_000] = nan
    long[1, 3] = -inf
    long[2, :] = 7.0  # constant row: rstd = 1/sqrt(eps)
    check(long, None, None)


def test_layer_norm_declines_what_it_cannot_take() -> None:
    x = torch.randn(4, 6, 8)
    outs: Any = tuple(torch.empty(0) for _ in range(3))
    check_declines(
        NAME, x, [6, 8], None, None, 1e-5, out=outs, reason="a normalized_shape other than the last"
    )
    d = x.double()
    douts = tuple(torch.empty(0, dtype=torch.float64) for _ in range(3))
    check_declines(NAME, d, [8], None, None, 1e-5, out=douts, reason="dtype Double")
    with on_soc("Ascend310P"):
        b = x.bfloat16()
        bouts = tuple(torch.empty(0, dtype=torch.bfloat16) for _ in range(3))
        check_declines(NAME, b, [8], None, None, 1e-5, out=bouts, reason="BFloat16")
    # A row length of 0 has no statistics to compute; the portable kernel gives torch's.
    e = torch.randn(3, 0)
    check_declines(NAME, e, [0], None, None, 1e-5, out=outs, reason="an empty normalized dim")
    with pytest.raises(kiln.KilnError, match="normalized_shape"):
        kiln.call_op(
            NAME, x, [6], None, None, 1e-5, out=outs, backend="ascend", allow_fallback=False
        )
