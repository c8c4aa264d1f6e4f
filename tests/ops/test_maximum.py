"""aten::maximum.out and aten::minimum.out against torch."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from binary_checks import SETTINGS, check_tensor_tensor, raises
from hypothesis import given
from hypothesis import strategies as st
from op_compare import check_op
from strategies import make_tensor

aten = torch.ops.aten


@SETTINGS
@given(data=st.data())
@pytest.mark.parametrize("op", ["maximum", "minimum"])
def test_extremum_matches_torch(call_op: Any, op: str, data: Any) -> None:
    check_tensor_tensor(call_op, data, f"aten::{op}.out", getattr(aten, op).out)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16, torch.float64])
def test_extremum_propagates_nan(call_op: Any, dtype: torch.dtype) -> None:
    nan, inf = float("nan"), float("inf")
    a = torch.tensor([nan, 1.0, nan, -inf, 0.0, 2.0] * 50, dtype=dtype)
    b = torch.tensor([1.0, nan, nan, inf, -0.0, -2.0] * 50, dtype=dtype)
    for op in ["maximum", "minimum"]:
        out = torch.empty(0, dtype=dtype)
        check_op(call_op, f"aten::{op}.out", getattr(aten, op).out, (a, b), out=out)


def test_extremum_errors(call_op: Any) -> None:
    a = make_tensor(torch.float32, (3,), 1)
    with raises(call_op, "can't be cast"):
        call_op("aten::maximum.out", a, a, out=torch.empty(0, dtype=torch.int32))
    with raises(call_op, "not broadcastable"):
        call_op("aten::minimum.out", a, torch.ones(2), out=torch.empty(0))
