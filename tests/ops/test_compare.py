"""aten::eq/ne/lt/le/gt/ge (.Tensor_out and .Scalar_out) against torch."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from binary_checks import (
    SETTINGS,
    boolean,
    check_tensor_scalar,
    check_tensor_tensor,
    is_portable,
    raises,
)
from hypothesis import given
from hypothesis import strategies as st
from op_compare import check_op
from strategies import any_scalars, make_tensor

aten = torch.ops.aten
OPS = ["eq", "ne", "lt", "le", "gt", "ge"]
# Every overload by name (the coverage check looks for each name literally).
NAMES = [
    "aten::eq.Tensor_out",
    "aten::ne.Tensor_out",
    "aten::lt.Tensor_out",
    "aten::le.Tensor_out",
    "aten::gt.Tensor_out",
    "aten::ge.Tensor_out",
    "aten::eq.Scalar_out",
    "aten::ne.Scalar_out",
    "aten::lt.Scalar_out",
    "aten::le.Scalar_out",
    "aten::gt.Scalar_out",
    "aten::ge.Scalar_out",
]


@SETTINGS
@given(data=st.data())
@pytest.mark.parametrize("op", OPS)
def test_compare_tensor_matches_torch(call_op: Any, op: str, data: Any) -> None:
    torch_op = getattr(aten, op).Tensor_out
    check_tensor_tensor(call_op, data, f"aten::{op}.Tensor_out", torch_op, result=boolean)


@SETTINGS
@given(data=st.data())
@pytest.mark.parametrize("op", OPS)
def test_compare_scalar_matches_torch(call_op: Any, op: str, data: Any) -> None:
    torch_op = getattr(aten, op).Scalar_out
    scalars = st.one_of(any_scalars, st.integers(-3, 3), st.sampled_from([0.5, -1, 1000]))
    check_tensor_scalar(
        call_op, data, f"aten::{op}.Scalar_out", torch_op, result=boolean, scalars=scalars
    )


@pytest.mark.parametrize("dtype", [torch.float32, torch.int8, torch.float16, torch.bool])
@pytest.mark.parametrize("out_dtype", [torch.float32, torch.int64, torch.float16, torch.uint8])
def test_compare_any_out_dtype(call_op: Any, dtype: torch.dtype, out_dtype: torch.dtype) -> None:
    a = make_tensor(dtype, (3, 70), 1, special=True, int_range=(-2, 2))
    b = make_tensor(dtype, (70,), 2, special=True, int_range=(-2, 2))
    for op in OPS:
        out = torch.empty(0, dtype=out_dtype)
        check_op(call_op, f"aten::{op}.Tensor_out", getattr(aten, op).Tensor_out, (a, b), out=out)
        out = torch.empty(0, dtype=out_dtype)
        check_op(call_op, f"aten::{op}.Scalar_out", getattr(aten, op).Scalar_out, (a, 0.5), out=out)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.int8, torch.bool])
def test_compare_long_rows(call_op: Any, dtype: torch.dtype) -> None:
    a = make_tensor(dtype, (2, 700), 3, int_range=(-2, 2))
    b = make_tensor(dtype, (700,), 4, int_range=(-2, 2))
    for op in OPS:
        out = torch.empty(0, dtype=torch.bool)
        check_op(call_op, f"aten::{op}.Tensor_out", getattr(aten, op).Tensor_out, (a, b), out=out)


def test_compare_scalar_converts_to_the_tensor_dtype(call_op: Any) -> None:
    # A wrapped number converts to the tensor's dtype first, as in ATen: 1000 wraps in int8.
    a = torch.tensor([-24, 0, 1], dtype=torch.int8)
    check_op(call_op, "aten::eq.Scalar_out", aten.eq.Scalar_out, (a, 1000), out=torch.empty(0))
    h = torch.tensor([1.0, 2.0], dtype=torch.float16)
    for op in OPS:
        torch_op = getattr(aten, op).Scalar_out
        out = torch.empty(0, dtype=torch.bool)
        check_op(call_op, f"aten::{op}.Scalar_out", torch_op, (h, 1.0001), out=out)


def test_compare_errors(call_op: Any) -> None:
    with raises(call_op, "not broadcastable"):
        call_op("aten::lt.Tensor_out", torch.ones(3), torch.ones(2), out=torch.empty(0))


@pytest.mark.parametrize("name", NAMES)
def test_compare_rejects_dtypes_kiln_lacks(call_op: Any, name: str) -> None:
    if not is_portable(call_op):
        pytest.skip("tests a limit of the portable kernels")
    a = torch.ones(2, dtype=torch.complex64)
    other = a if name.endswith("Tensor_out") else 1
    with raises(call_op, "does not support"):
        call_op(name, a, other, out=torch.empty(0, dtype=torch.bool))
