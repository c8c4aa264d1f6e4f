"""aten::bitwise_and/or/xor (.Tensor_out and .Scalar_out) against torch."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from binary_checks import SETTINGS, check_tensor_scalar, check_tensor_tensor, raises
from hypothesis import given
from hypothesis import strategies as st
from op_compare import check_op
from strategies import dtypes, make_tensor

aten = torch.ops.aten
OPS = ["bitwise_and", "bitwise_or", "bitwise_xor"]
# Every overload by name (the coverage check looks for each name literally).
NAMES = [
    "aten::bitwise_and.Tensor_out",
    "aten::bitwise_or.Tensor_out",
    "aten::bitwise_xor.Tensor_out",
    "aten::bitwise_and.Scalar_out",
    "aten::bitwise_or.Scalar_out",
    "aten::bitwise_xor.Scalar_out",
]
mostly_integral = st.one_of(
    st.sampled_from([torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64]),
    dtypes,
)
bit_scalars = st.one_of(st.booleans(), st.integers(-(2**40), 2**40), st.integers(-3, 300))


@SETTINGS
@given(data=st.data())
@pytest.mark.parametrize("op", OPS)
def test_bitwise_tensor_matches_torch(call_op: Any, op: str, data: Any) -> None:
    torch_op = getattr(aten, op).Tensor_out
    check_tensor_tensor(
        call_op, data, f"aten::{op}.Tensor_out", torch_op, dtype_pool=mostly_integral
    )


@SETTINGS
@given(data=st.data())
@pytest.mark.parametrize("op", OPS)
def test_bitwise_scalar_matches_torch(call_op: Any, op: str, data: Any) -> None:
    torch_op = getattr(aten, op).Scalar_out
    scalars = st.one_of(bit_scalars, st.floats(-2, 2, width=32))
    check_tensor_scalar(
        call_op,
        data,
        f"aten::{op}.Scalar_out",
        torch_op,
        dtype_pool=mostly_integral,
        scalars=scalars,
    )


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.float64])
def test_bitwise_rejects_floating(call_op: Any, dtype: torch.dtype) -> None:
    a = torch.ones(3, dtype=dtype)
    for name in NAMES:
        other = a if name.endswith("Tensor_out") else 1
        with raises(call_op, "not implemented for dtype"):
            call_op(name, a, other, out=torch.empty(0, dtype=dtype))
    ints = torch.ones(3, dtype=torch.int32)
    with raises(call_op, "not implemented for dtype"):
        call_op("aten::bitwise_and.Scalar_out", ints, 1.5, out=torch.empty(0))


def test_bitwise_long_rows(call_op: Any) -> None:
    a = make_tensor(torch.int32, (3, 600), 1)
    b = make_tensor(torch.int32, (600,), 2)
    for op in OPS:
        out = torch.empty(0, dtype=torch.int32)
        check_op(call_op, f"aten::{op}.Tensor_out", getattr(aten, op).Tensor_out, (a, b), out=out)
