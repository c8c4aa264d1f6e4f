"""aten::remainder and aten::fmod (.Tensor_out and .Scalar_out) against torch."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from binary_checks import SETTINGS, check_tensor_scalar, check_tensor_tensor, raises, small_scalars
from hypothesis import given
from hypothesis import strategies as st
from op_compare import check_op
from strategies import make_tensor

aten = torch.ops.aten
OPS = ["remainder", "fmod"]


@SETTINGS
@given(data=st.data())
@pytest.mark.parametrize("op", OPS)
def test_modulo_tensor_matches_torch(call_op: Any, op: str, data: Any) -> None:
    torch_op = getattr(aten, op).Tensor_out
    check_tensor_tensor(call_op, data, f"aten::{op}.Tensor_out", torch_op, other_int_range=(-3, 3))


@SETTINGS
@given(data=st.data())
@pytest.mark.parametrize("op", OPS)
def test_modulo_scalar_matches_torch(call_op: Any, op: str, data: Any) -> None:
    torch_op = getattr(aten, op).Scalar_out
    check_tensor_scalar(call_op, data, f"aten::{op}.Scalar_out", torch_op, scalars=small_scalars)


@pytest.mark.parametrize("dtype", [torch.int8, torch.int32, torch.int64, torch.uint8])
def test_modulo_integer_signs(call_op: Any, dtype: torch.dtype) -> None:
    a = make_tensor(dtype, (4, 300), 1, int_range=(-100, 100))
    b = make_tensor(dtype, (300,), 2, int_range=(-7, 7))
    b[b == 0] = 3
    for op in OPS:
        out = torch.empty(0, dtype=dtype)
        check_op(call_op, f"aten::{op}.Tensor_out", getattr(aten, op).Tensor_out, (a, b), out=out)


@pytest.mark.parametrize("op", OPS)
def test_modulo_integer_by_zero(call_op: Any, op: str) -> None:
    a = torch.tensor([5, -5, 0], dtype=torch.int32)
    b = torch.tensor([2, 0, 1], dtype=torch.int32)
    with raises(call_op, "ZeroDivisionError"):
        call_op(f"aten::{op}.Tensor_out", a, b, out=torch.empty(0, dtype=torch.int32))
    with raises(call_op, "ZeroDivisionError"):
        call_op(f"aten::{op}.Scalar_out", a, 0, out=torch.empty(0, dtype=torch.int32))
    # Floats divide by zero to nan, as in torch.
    check_op(
        call_op,
        f"aten::{op}.Tensor_out",
        getattr(aten, op).Tensor_out,
        (a.float(), b.float()),
        out=torch.empty(0),
    )


def test_modulo_rejects_bool(call_op: Any) -> None:
    a = torch.ones(2, dtype=torch.bool)
    for op in OPS:
        with raises(call_op, "not implemented for dtype Bool"):
            call_op(f"aten::{op}.Tensor_out", a, a, out=torch.empty(0, dtype=torch.bool))
