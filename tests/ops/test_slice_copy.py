"""aten::slice_copy.Tensor_out and select_copy.int_out against torch."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from op_compare import check_op
from strategies import out_tensors, shapes, tensors

import kiln

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

aten = torch.ops.aten
bounds = st.one_of(st.none(), st.integers(-8, 8), st.sampled_from([-(2**62), 2**62]))


@SETTINGS
@given(data=st.data())
def test_slice_copy_matches_torch(call_op: Any, data: Any) -> None:
    a = data.draw(tensors(shape=shapes(0, 4, 0, 6)))
    extent = max(a.dim(), 1)
    dim = data.draw(st.integers(-extent - 1, extent))
    start = data.draw(bounds)
    end = data.draw(bounds)
    step = data.draw(st.sampled_from([1, 1, 2, 3, 7, 1000, 0, -1]))
    try:
        shape = tuple(aten.slice_copy.Tensor(a, dim, start, end, step).shape)
    except (RuntimeError, IndexError):
        shape = None
    out = data.draw(out_tensors(a.dtype, shape))
    check_op(
        call_op,
        "aten::slice_copy.Tensor_out",
        aten.slice_copy.Tensor_out,
        (a, dim, start, end, step),
        out=out,
    )


def test_slice_copy_errors(call_op: Any) -> None:
    with pytest.raises(kiln.KilnError, match="slice step must be positive"):
        call_op("aten::slice_copy.Tensor_out", torch.ones(4), 0, 0, 4, 0, out=torch.empty(0))
    with pytest.raises(kiln.KilnError, match="0-dim"):
        call_op("aten::slice_copy.Tensor_out", torch.tensor(1.0), out=torch.empty(0))


@SETTINGS
@given(data=st.data())
def test_select_copy_matches_torch(call_op: Any, data: Any) -> None:
    a = data.draw(tensors(shape=shapes(0, 4, 0, 5)))
    extent = max(a.dim(), 1)
    dim = data.draw(st.integers(-extent - 1, extent))
    index = data.draw(st.integers(-6, 6))
    try:
        shape = tuple(aten.select_copy.int(a, dim, index).shape)
    except (RuntimeError, IndexError):
        shape = None
    out = data.draw(out_tensors(a.dtype, shape))
    check_op(
        call_op, "aten::select_copy.int_out", aten.select_copy.int_out, (a, dim, index), out=out
    )


def test_select_copy_index_out_of_range(call_op: Any) -> None:
    with pytest.raises(kiln.KilnError, match="index 3 out of range"):
        call_op("aten::select_copy.int_out", torch.ones(2, 3), 1, 3, out=torch.empty(0))
