"""aten::flip.out and roll.out against torch."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from op_compare import check_op
from strategies import out_tensors, shapes, tensors

import kiln

SETTINGS = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])

aten = torch.ops.aten


@SETTINGS
@given(data=st.data())
def test_flip_matches_torch(call_op: Any, data: Any) -> None:
    a = data.draw(tensors(shape=shapes(0, 4, 0, 5)))
    extent = max(a.dim(), 1)
    dims = data.draw(st.lists(st.integers(-extent - 1, extent), max_size=4))
    out = data.draw(out_tensors(a.dtype, tuple(a.shape)))
    check_op(call_op, "aten::flip.out", aten.flip.out, (a, dims), out=out)


@SETTINGS
@given(data=st.data())
def test_roll_matches_torch(call_op: Any, data: Any) -> None:
    a = data.draw(tensors(shape=shapes(0, 4, 0, 5)))
    extent = max(a.dim(), 1)
    dims = data.draw(st.lists(st.integers(-extent - 1, extent), max_size=3))
    count = len(dims) if dims else 1
    if data.draw(st.integers(0, 9)) == 0:
        count += data.draw(st.sampled_from([-1, 1]))
    shifts = data.draw(st.lists(st.integers(-12, 12), min_size=count, max_size=count))
    out = data.draw(out_tensors(a.dtype, tuple(a.shape)))
    check_op(call_op, "aten::roll.out", aten.roll.out, (a, shifts, dims), out=out)


def test_roll_errors(call_op: Any) -> None:
    with pytest.raises(kiln.KilnError, match="`shifts` required"):
        call_op("aten::roll.out", torch.ones(3), [], [], out=torch.empty(0))
    with pytest.raises(kiln.KilnError, match="shifts and dimensions must align"):
        call_op("aten::roll.out", torch.ones(2, 3), [1, 2], [0], out=torch.empty(0))
    with pytest.raises(kiln.KilnError, match="appears multiple times"):
        call_op("aten::flip.out", torch.ones(2, 3), [0, -2], out=torch.empty(0))
