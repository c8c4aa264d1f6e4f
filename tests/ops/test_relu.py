"""aten::relu.out against torch."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from op_compare import check_op, raises
from strategies import ALL_DTYPES, make_tensor, out_tensors, tensors

SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])

aten = torch.ops.aten


@SETTINGS
@given(data=st.data())
def test_relu_matches_torch(call_op: Any, data: Any) -> None:
    a = data.draw(tensors())
    out = data.draw(out_tensors(a.dtype, tuple(a.shape)))
    check_op(call_op, "aten::relu.out", aten.relu.out, (a,), out=out)


@pytest.mark.parametrize("dtype", [d for d in ALL_DTYPES if d != torch.bool])
def test_relu_long_and_in_place(call_op: Any, dtype: torch.dtype) -> None:
    a = make_tensor(dtype, (1000,), 9, special=True)
    expected = torch.relu(a)
    call_op("aten::relu.out", a, out=a)
    torch.testing.assert_close(a, expected, equal_nan=True)


def test_relu_errors(call_op: Any) -> None:
    with raises(call_op, "Boolean inputs not supported for relu"):
        call_op(
            "aten::relu.out", torch.ones(2, dtype=torch.bool), out=torch.empty(0, dtype=torch.bool)
        )
    with raises(call_op, "Expected out tensor to have dtype Float"):
        call_op("aten::relu.out", torch.ones(2), out=torch.empty(0, dtype=torch.float64))
