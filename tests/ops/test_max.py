"""aten::max.dim_max, aten::min.dim_min, aten::max.unary_out and aten::min.unary_out against
torch."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from op_compare import assert_same, check_op
from strategies import ALL_DTYPES, dtypes, make_tensor, out_like, shapes, tensors

import kiln

SETTINGS = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])

aten = torch.ops.aten
DIM_OPS = [
    ("aten::max.dim_max", aten.max.dim_max, ("max", "max_values")),
    ("aten::min.dim_min", aten.min.dim_min, ("min", "min_indices")),
]
UNARY_OPS = [
    ("aten::max.unary_out", aten.max.unary_out),
    ("aten::min.unary_out", aten.min.unary_out),
]


def check_values_indices(
    call_op: Any, name: str, torch_op: Any, out_names: tuple[str, str], args: tuple, outs: tuple
) -> None:
    """Like check_op for an op with (values, indices) outs."""
    torch_outs = [o.clone() for o in outs]
    kiln_outs = tuple(o.clone() for o in outs)
    try:
        torch_op(*args, **dict(zip(out_names, torch_outs, strict=True)))
    except (RuntimeError, IndexError):
        with pytest.raises(kiln.KilnError):
            call_op(name, *args, out=kiln_outs)
        return
    result = call_op(name, *args, out=kiln_outs)
    assert result[0] is kiln_outs[0] and result[1] is kiln_outs[1]
    for actual, expected in zip(kiln_outs, torch_outs, strict=True):
        assert_same(actual, expected)


@pytest.mark.parametrize(("name", "torch_op", "out_names"), DIM_OPS)
@SETTINGS
@given(data=st.data())
def test_max_min_dim_match_torch(
    call_op: Any, name: str, torch_op: Any, out_names: tuple[str, str], data: Any
) -> None:
    dtype = data.draw(dtypes)
    a = data.draw(tensors(dtype, shapes(0, 4, 0, 5), int_range=(-3, 3)))
    rank = max(a.dim(), 1)
    dim = data.draw(st.integers(-rank - 1, rank))
    values_dtype = dtype if data.draw(st.integers(0, 9)) else data.draw(dtypes)
    indices_dtype = torch.int64 if data.draw(st.integers(0, 9)) else torch.int32
    outs = (out_like(values_dtype, None), out_like(indices_dtype, None))
    check_values_indices(
        call_op, name, torch_op, out_names, (a, dim, data.draw(st.booleans())), outs
    )


@pytest.mark.parametrize(("name", "torch_op", "out_names"), DIM_OPS)
@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_max_min_dim_long(
    call_op: Any, name: str, torch_op: Any, out_names: tuple[str, str], dtype: torch.dtype
) -> None:
    for shape, dim in [((3, 1000), 1), ((1000, 3), 0), ((6, 300, 5), 1)]:
        a = make_tensor(dtype, shape, 4, special=True, int_range=(-50, 50))
        outs = (torch.empty(0, dtype=dtype), torch.empty(0, dtype=torch.int64))
        check_values_indices(call_op, name, torch_op, out_names, (a, dim), outs)


@pytest.mark.parametrize(("name", "torch_op"), UNARY_OPS)
@SETTINGS
@given(data=st.data())
def test_max_min_unary_match_torch(call_op: Any, name: str, torch_op: Any, data: Any) -> None:
    a = data.draw(tensors(dtypes, shapes(0, 3, 0, 40)))
    out_dtype = a.dtype if data.draw(st.booleans()) else data.draw(dtypes)
    check_op(call_op, name, torch_op, (a,), out=out_like(out_dtype, None))


def test_max_dim_nan_and_ties(call_op: Any) -> None:
    nan = float("nan")
    a = torch.tensor([[1.0, 3.0, 3.0, 2.0], [1.0, nan, 3.0, nan], [-1.0, -1.0, -1.0, -1.0]] * 3)
    for name, torch_op, out_names in DIM_OPS:
        for dim in (0, 1):
            outs = (torch.empty(0), torch.empty(0, dtype=torch.int64))
            check_values_indices(call_op, name, torch_op, out_names, (a, dim), outs)


def test_max_dim_empty_dim_errors(call_op: Any) -> None:
    outs = (torch.empty(0), torch.empty(0, dtype=torch.int64))
    with pytest.raises(kiln.KilnError, match="Expected reduction dim 0 to have non-zero size"):
        call_op("aten::max.dim_max", torch.ones(0, 3), 0, out=outs)
