"""aten::squeeze_copy (.out, .dim_out, .dims_out) and unsqueeze_copy.out against torch."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from op_compare import check_op
from strategies import out_tensors, shapes, tensors

import kiln

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])

aten = torch.ops.aten
ones_heavy = shapes(0, 5, 0, 3).map(lambda s: tuple(1 if x == 2 else x for x in s))


def result_shape(fn: Any, *args: Any) -> tuple | None:
    try:
        return tuple(fn(*args).shape)
    except (RuntimeError, IndexError):
        return None


@SETTINGS
@given(data=st.data())
def test_squeeze_copy_matches_torch(call_op: Any, data: Any) -> None:
    a = data.draw(tensors(shape=ones_heavy))
    out = data.draw(out_tensors(a.dtype, tuple(a.squeeze().shape)))
    check_op(call_op, "aten::squeeze_copy.out", aten.squeeze_copy.out, (a,), out=out)


@SETTINGS
@given(data=st.data())
def test_squeeze_copy_dim_matches_torch(call_op: Any, data: Any) -> None:
    a = data.draw(tensors(shape=ones_heavy))
    extent = max(a.dim(), 1)
    dim = data.draw(st.integers(-extent - 1, extent))
    out = data.draw(out_tensors(a.dtype, result_shape(aten.squeeze_copy.dim, a, dim)))
    check_op(call_op, "aten::squeeze_copy.dim_out", aten.squeeze_copy.dim_out, (a, dim), out=out)


@SETTINGS
@given(data=st.data())
def test_squeeze_copy_dims_matches_torch(call_op: Any, data: Any) -> None:
    a = data.draw(tensors(shape=ones_heavy))
    extent = max(a.dim(), 1)
    dims = data.draw(st.lists(st.integers(-extent - 1, extent), max_size=3))
    out = data.draw(out_tensors(a.dtype, result_shape(aten.squeeze_copy.dims, a, dims)))
    check_op(call_op, "aten::squeeze_copy.dims_out", aten.squeeze_copy.dims_out, (a, dims), out=out)


def test_squeeze_copy_dims_repeated(call_op: Any) -> None:
    with pytest.raises(kiln.KilnError, match="appears multiple times"):
        call_op("aten::squeeze_copy.dims_out", torch.ones(1, 2), [0, -2], out=torch.empty(0))


@SETTINGS
@given(data=st.data())
def test_unsqueeze_copy_matches_torch(call_op: Any, data: Any) -> None:
    a = data.draw(tensors(shape=shapes(0, 4, 0, 3)))
    dim = data.draw(st.integers(-a.dim() - 2, a.dim() + 1))
    out = data.draw(out_tensors(a.dtype, result_shape(aten.unsqueeze_copy, a, dim)))
    check_op(call_op, "aten::unsqueeze_copy.out", aten.unsqueeze_copy.out, (a, dim), out=out)
