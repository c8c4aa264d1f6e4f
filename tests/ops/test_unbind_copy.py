"""aten::unbind_copy.int_out (Tensor[] outs) against torch: every slice of a dim, the dim dropped.

As for split_copy, the Python binding passes the tensors of a Tensor[] argument as fixed-shape
views, so the tests hand the kernel outs of the result shapes."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from op_compare import assert_same, raises
from strategies import shapes, tensors

import kiln

SETTINGS = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])

UNBIND = "aten::unbind_copy.int_out"


@SETTINGS
@given(data=st.data())
def test_unbind_copy_matches_torch(call_op: Any, data: Any) -> None:
    a = data.draw(tensors(shape=shapes(0, 4, 0, 5)))
    extent = max(a.dim(), 1)
    dim = data.draw(st.integers(-extent - 1, extent))
    try:
        expected = torch.unbind(a, dim)
    except (RuntimeError, IndexError):
        with pytest.raises(kiln.KilnError):
            call_op(UNBIND, a, dim, out=([],))
        return
    outs = [torch.empty(e.shape, dtype=a.dtype) for e in expected]
    before = a.clone()
    call_op(UNBIND, a, dim, out=(outs,))
    torch.testing.assert_close(a, before, rtol=0, atol=0, equal_nan=True)
    for got, want in zip(outs, expected, strict=True):
        assert_same(got, want.contiguous())


def test_unbind_copy_refusals(call_op: Any) -> None:
    a = torch.ones(2, 3)
    with raises(call_op, "expected an out= argument of size 3, got size 2"):
        call_op(UNBIND, a, 1, out=([torch.empty(2), torch.empty(2)],))
    with raises(call_op, "Expected out tensor to have dtype Float, but got Double"):
        call_op(UNBIND, a, 0, out=([torch.empty(3), torch.empty(3, dtype=torch.float64)],))
    with raises(call_op, "Dimension specified as 0 but tensor has no dimensions"):
        call_op(UNBIND, torch.tensor(1.0), 0, out=([],))
