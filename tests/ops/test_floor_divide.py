"""aten::floor_divide.out against torch: division rounded toward negative infinity in the promoted
dtype; an integer division by zero is refused, as torch refuses it."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from binary_checks import SETTINGS, check_tensor_tensor, raises
from hypothesis import given
from hypothesis import strategies as st
from op_compare import check_op
from strategies import FLOAT_DTYPES, INT_DTYPES, make_tensor

aten = torch.ops.aten
NAME = "aten::floor_divide.out"


@SETTINGS
@given(data=st.data())
def test_floor_divide_matches_torch(call_op: Any, data: Any) -> None:
    # Small integer divisors, 0 included: torch raises then, and so must the backend.
    check_tensor_tensor(call_op, data, NAME, aten.floor_divide.out, other_int_range=(-3, 3))


@pytest.mark.parametrize("dtype", [*INT_DTYPES, *FLOAT_DTYPES])
def test_floor_divide_signs(call_op: Any, dtype: torch.dtype) -> None:
    a = make_tensor(dtype, (4, 300), 1, int_range=(-100, 100))
    b = make_tensor(dtype, (300,), 2, int_range=(-7, 7), magnitude=3.0)
    b[b == 0] = 3
    out = torch.empty(0, dtype=dtype)
    check_op(call_op, NAME, aten.floor_divide.out, (a, b), out=out)
    # A 0-dim divisor (read as a scalar by ATen for Half and BFloat16).
    check_op(call_op, NAME, aten.floor_divide.out, (a, b[5].clone()), out=out)


def test_floor_divide_by_zero(call_op: Any) -> None:
    a = torch.tensor([5, -5, 0], dtype=torch.int32)
    b = torch.tensor([2, 0, 1], dtype=torch.int32)
    with raises(call_op, "ZeroDivisionError"):
        call_op(NAME, a, b, out=torch.empty(0, dtype=torch.int32))
    # Floats divide by zero to inf and nan, as in torch.
    check_op(call_op, NAME, aten.floor_divide.out, (a.float(), b.float()), out=torch.empty(0))


def test_floor_divide_refuses_bool(call_op: Any) -> None:
    a = torch.ones(2, dtype=torch.bool)
    with raises(call_op, "floor_divide is not implemented for dtype Bool"):
        call_op(NAME, a, a, out=torch.empty(0, dtype=torch.bool))
