"""aten::nonzero.out against torch: the coordinates of nonzero elements (NaN is nonzero, -0.0 is
not), a [count, dim] Long out resized to the data-dependent count."""

from __future__ import annotations

from typing import Any

import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from op_compare import check_op, raises
from strategies import dtypes, make_tensor, out_tensors, seeds, shapes

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

aten = torch.ops.aten
NONZERO = "aten::nonzero.out"


@SETTINGS
@given(data=st.data())
def test_nonzero_matches_torch(call_op: Any, data: Any) -> None:
    dtype = data.draw(dtypes)
    shape = data.draw(st.one_of(shapes(0, 4, 0, 5), shapes(1, 2, 200, 600)))
    a = make_tensor(dtype, shape, data.draw(seeds), special=data.draw(st.booleans()))
    # Many zeros: keep a random part of the elements.
    keep = make_tensor(torch.bool, shape, data.draw(seeds))
    a = torch.where(keep, a, torch.zeros((), dtype=dtype))
    out = data.draw(out_tensors(torch.int64, (0,), other_dtype_p=0.1))
    check_op(call_op, NONZERO, aten.nonzero.out, (a,), out=out)


def test_nonzero_signed_zero_and_nan(call_op: Any) -> None:
    for dtype in (torch.float16, torch.bfloat16, torch.float32, torch.float64):
        a = torch.tensor([[0.0, -0.0, float("nan")], [1e-30, -float("inf"), 0.0]]).to(dtype)
        check_op(call_op, NONZERO, aten.nonzero.out, (a,), out=torch.empty(0, dtype=torch.int64))


def test_nonzero_out_must_be_long(call_op: Any) -> None:
    with raises(call_op, "Expected out tensor to have scalar type Long but got scalar type Int"):
        call_op(NONZERO, torch.ones(2), out=torch.empty(0, dtype=torch.int32))
