"""aten::mean.out and aten::mean.dtype_out against torch."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from op_compare import check_op, eps
from strategies import FLOAT_DTYPES, dtypes, out_like, shapes, tensors

import kiln

SETTINGS = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])

aten = torch.ops.aten


def mean_atol(a: torch.Tensor, dtype: torch.dtype) -> float:
    """Room for summation order: a few ulps of the largest magnitude."""
    if not dtype.is_floating_point or a.numel() == 0:
        return 0.0
    finite = a.double()[torch.isfinite(a.double())]
    largest = float(finite.abs().max()) if finite.numel() else 0.0
    return 4 * (eps(dtype) + eps(torch.float32)) * largest


@st.composite
def dim_lists(draw: Any, rank: int) -> list[int] | None:
    """None, [] or a list of dims (negative ones too), sometimes repeated or out of range."""
    choice = draw(st.integers(0, 9))
    if choice == 0:
        return None
    extent = max(rank, 1)
    if choice == 1:
        return draw(st.lists(st.integers(-extent - 1, extent), max_size=3))
    dims = draw(st.lists(st.integers(0, extent - 1), unique=True, max_size=extent))
    return [d - extent if draw(st.booleans()) else d for d in dims]


@SETTINGS
@given(data=st.data())
def test_mean_matches_torch(call_op: Any, data: Any) -> None:
    dtype = data.draw(st.sampled_from(FLOAT_DTYPES) if data.draw(st.integers(0, 4)) else dtypes)
    mean_dtype = data.draw(st.one_of(st.none(), st.sampled_from(FLOAT_DTYPES), dtypes))
    out_dtype = mean_dtype or dtype
    if data.draw(st.integers(0, 5)) == 0:
        out_dtype = data.draw(dtypes)
    a = data.draw(tensors(dtype, shapes(0, 4, 0, 5), magnitude=50.0))
    dim = data.draw(dim_lists(a.dim()))
    keepdim = data.draw(st.booleans())
    check_op(
        call_op,
        "aten::mean.out",
        aten.mean.out,
        (a, dim, keepdim),
        {"dtype": mean_dtype},
        out=out_like(out_dtype, None),
        atol=mean_atol(a, out_dtype),
    )


@SETTINGS
@given(data=st.data())
def test_mean_all_matches_torch(call_op: Any, data: Any) -> None:
    dtype = data.draw(dtypes)
    mean_dtype = data.draw(st.one_of(st.none(), st.sampled_from(FLOAT_DTYPES)))
    a = data.draw(tensors(dtype, shapes(0, 3, 0, 40), magnitude=50.0))
    check_op(
        call_op,
        "aten::mean.dtype_out",
        aten.mean.dtype_out,
        (a,),
        {"dtype": mean_dtype},
        out=out_like(mean_dtype or dtype, (5,) if data.draw(st.booleans()) else None),
        atol=mean_atol(a, mean_dtype or dtype),
    )


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize(
    ("shape", "dim"), [((300, 70), [0]), ((70, 300), [1]), ((4, 50, 9), [0, 2])]
)
def test_mean_long_reductions(call_op: Any, dtype: torch.dtype, shape: tuple, dim: list) -> None:
    a = torch.randn(shape, generator=torch.Generator().manual_seed(3)).to(dtype)
    check_op(
        call_op,
        "aten::mean.out",
        aten.mean.out,
        (a, dim, False),
        out=out_like(dtype, None),
        atol=mean_atol(a, dtype),
    )


def test_mean_of_nothing_is_nan(call_op: Any) -> None:
    out = call_op("aten::mean.out", torch.ones(0, 3), [0], False, out=torch.empty(0))
    assert torch.isnan(out).all() and out.shape == (3,)


@pytest.mark.parametrize(
    ("a", "dtype", "out_dtype", "match"),
    [
        (torch.ones(3, dtype=torch.int32), None, torch.float32, "Input dtype must be"),
        (torch.ones(3), torch.int64, torch.int64, "Optional dtype must be"),
        (
            torch.ones(3),
            torch.float64,
            torch.float32,
            "(?i)expected out tensor to have dtype double",
        ),
    ],
)
def test_mean_errors(call_op: Any, a: torch.Tensor, dtype: Any, out_dtype: Any, match: str) -> None:
    with pytest.raises(RuntimeError):
        aten.mean.out(a, [0], dtype=dtype, out=torch.empty(0, dtype=out_dtype))
    with pytest.raises(kiln.KilnError, match=match):
        call_op("aten::mean.out", a, [0], dtype=dtype, out=torch.empty(0, dtype=out_dtype))
