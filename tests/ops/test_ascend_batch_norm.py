"""The Ascend inference batch norm against torch, on both SoC profiles."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from ascend_checks import SIZES, SOCS, call_ascend, check_declines, float_dtypes, on_soc
from op_compare import assert_same, largest, tolerances_for

import kiln

NAME = "aten::_native_batch_norm_legit_no_training.out"
aten = torch.ops.aten


def check(
    x: torch.Tensor,
    weight: torch.Tensor | None,
    bias: torch.Tensor | None,
    mean: torch.Tensor,
    var: torch.Tensor,
    eps: float = 1e-5,
) -> None:
    """out0 equals torch's; out1 and out2 come back empty of the parameters' dtype. The kernel
    computes (x - mean) * scale + bias in float with scale = weight / sqrt(var + eps), torch in
    its own order: where y is small the two differ by the float roundings of those terms."""
    args = (x, weight, bias, mean, var, 0.1, eps)
    expected = aten._native_batch_norm_legit_no_training(*args)
    outs = tuple(torch.empty(3, dtype=d) for d in (x.dtype, mean.dtype, mean.dtype))
    launches = call_ascend(NAME, *args, out=outs)
    assert launches or x.numel() == 0, "batch_norm ran no Ascend kernel"
    scale = (var.double() + eps).rsqrt() * (1 if weight is None else weight.double().abs())
    residue = (
        4
        * torch.finfo(torch.float32).eps
        * ((largest(x) + largest(mean)) * largest(scale) + largest(bias))
    )
    assert_same(outs[0], expected[0], atol=residue, tolerances=tolerances_for("ascend"))
    for actual, wanted in zip(outs[1:], expected[1:], strict=True):
        assert actual.dtype == wanted.dtype and actual.shape == wanted.shape == (0,)


def params(
    c: int, dtype: torch.dtype, seed: int
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    weight, bias, mean = (torch.randn(c, generator=g).to(dtype) for _ in range(3))
    var = (torch.rand(c, generator=g) * 3).to(dtype)
    return weight, bias, mean, var


@pytest.mark.parametrize("soc", SOCS)
@pytest.mark.parametrize("size", SIZES)
def test_batch_norm_rows(soc: str, size: int) -> None:
    # 6 rows of `size` (in chunks once past a UB tile), over 3 channels.
    with on_soc(soc):
        g = torch.Generator().manual_seed(size)
        x = torch.randn(2, 3, size, generator=g) * 3 + 1
        for dtype in float_dtypes(soc):
            w, b, m, v = params(3, dtype, size)
            check(x.to(dtype), w, b, m, v)
            if dtype != torch.float32:  # mixed precision: Float parameters
                check(x.to(dtype), w.float(), b.float(), m.float(), v.float())


@pytest.mark.parametrize("soc", SOCS)
def test_batch_norm_many_rows_per_core(soc: str) -> None:
    # 32768 rows of 33 over 64 channels: several UB tiles on every core.
    with on_soc(soc):
        x = torch.randn(512, 64, 33, generator=torch.Generator().manual_seed(5)) * 2
        for dtype in float_dtypes(soc):
            check(x.to(dtype), *params(64, dtype, 1))


def test_batch_norm_shapes_and_optional_params() -> None:
    w, b, m, v = params(8, torch.float32, 2)
    x = torch.randn(2, 8, 5, 7) * 4
    for weight, bias in ((None, None), (w, None), (None, b), (w, b)):
        check(x, weight, bias, m, v)
        check(x.half(), weight, bias, m, v)
    check(torch.randn(5, 8), w, b, m, v, eps=0.5)  # [N, C]: rows of one element
    check(torch.randn(1, 8, 2, 3, 4), w, b, m, v)
    check(torch.randn(0, 8, 3), w, b, m, v)
    c = params(4096, torch.float32, 3)
    check(torch.randn(2, 4096, 3), *c)


def test_batch_norm_special_values() -> None:
    inf, nan = float("inf"), float("nan")
    x = torch.tensor([[[1.0, nan, -inf, inf, -0.0, 0.0, 1e30, -1e30]] * 3])
    w, b, m, v = params(3, torch.float32, 4)
    check(x, w, b, m, v)
    v[1] = 0.0  # var 0: scale 1 / sqrt(eps)
    w[2] = 0.0
    check(x, w, b, m, v)


def test_batch_norm_declines_what_it_cannot_take() -> None:
    x = torch.randn(2, 3, 4)
    w, b, m, v = params(3, torch.float32, 5)
    outs = tuple(torch.empty(0) for _ in range(3))
    douts = tuple(torch.empty(0, dtype=torch.float64) for _ in range(3))
    d = [p.double() for p in (w, b, m, v)]
    check_declines(NAME, x.double(), *d, 0.1, 1e-5, out=douts, reason="dtype Double")
    hm = [p.half() for p in (w, b, m, v)]
    houts = (outs[0], *(torch.empty(0, dtype=torch.float16) for _ in range(2)))
    refused(x, *hm, out=houts, reason="Half parameters with a Float", message="mixed dtype")
    with on_soc("Ascend310P"):
        bouts = tuple(torch.empty(0, dtype=torch.bfloat16) for _ in range(3))
        bp = [p.bfloat16() for p in (w, b, m, v)]
        check_declines(NAME, x.bfloat16(), *bp, 0.1, 1e-5, out=bouts, reason="BFloat16")
    big = params(4097, torch.float32, 6)
    check_declines(
        NAME, torch.randn(1, 4097, 2), *big, 0.1, 1e-5, out=outs, reason="more than 4096 channels"
    )
    # A 1-d input has no channel dim.
    refused(
        torch.ones(3),
        None,
        None,
        m,
        v,
        out=outs,
        reason="an input without a channel dim",
        message="Dimension out of range",
    )


def refused(*args: Any, out: Any, reason: str, message: str) -> None:
    """Invalid input: the Ascend kernel declines it, and the portable kernel reports the error."""
    with pytest.raises(kiln.KilnError, match=f"does not take {reason}"):
        kiln.call_op(NAME, *args, 0.1, 1e-5, out=out, backend="ascend", allow_fallback=False)
    with pytest.raises(kiln.KilnError, match=message):
        kiln.call_op(NAME, *args, 0.1, 1e-5, out=out, backend="ascend")
