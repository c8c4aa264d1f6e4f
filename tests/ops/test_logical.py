"""aten::logical_and.out, aten::logical_or.out and aten::logical_xor.out against torch."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from binary_checks import SETTINGS, boolean, check_tensor_tensor, raises
from hypothesis import given
from hypothesis import strategies as st
from op_compare import check_op
from strategies import make_tensor

aten = torch.ops.aten
OPS = ["logical_and", "logical_or", "logical_xor"]


@SETTINGS
@given(data=st.data())
@pytest.mark.parametrize("op", OPS)
def test_logical_matches_torch(call_op: Any, op: str, data: Any) -> None:
    torch_op = getattr(aten, op).out
    check_tensor_tensor(
        call_op, data, f"aten::{op}.out", torch_op, result=boolean, other_int_range=(-1, 1)
    )


@pytest.mark.parametrize("out_dtype", [torch.bool, torch.float32, torch.int32, torch.bfloat16])
def test_logical_any_dtypes(call_op: Any, out_dtype: torch.dtype) -> None:
    a = make_tensor(torch.float16, (4, 300), 1, special=True)
    b = make_tensor(torch.int8, (300,), 2, int_range=(-1, 1))
    for op in OPS:
        out = torch.empty(0, dtype=out_dtype)
        check_op(call_op, f"aten::{op}.out", getattr(aten, op).out, (a, b), out=out)
        check_op(call_op, f"aten::{op}.out", getattr(aten, op).out, (a, a > 0), out=out)


def test_logical_errors(call_op: Any) -> None:
    for name in ["aten::logical_and.out", "aten::logical_or.out", "aten::logical_xor.out"]:
        with raises(call_op, "not broadcastable"):
            call_op(name, torch.ones(3), torch.ones(2), out=torch.empty(0))
