"""aten::bitwise_left_shift and bitwise_right_shift (.Tensor_out and .Tensor_Scalar_out) against
torch: shifts in the promoted integer dtype, with counts beyond the bit width and negative counts
shifting every bit out, as ATen does."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from binary_checks import SETTINGS, check_tensor_scalar, check_tensor_tensor, raises
from hypothesis import given
from hypothesis import strategies as st
from op_compare import check_op
from strategies import INT_DTYPES, dtypes, make_tensor

aten = torch.ops.aten
OPS = ["bitwise_left_shift", "bitwise_right_shift"]
mostly_integral = st.one_of(st.sampled_from(INT_DTYPES), dtypes)
# Counts around every dtype's bit width, negative ones, and values that wrap in narrow dtypes.
counts = st.one_of(
    st.integers(-3, 70),
    st.sampled_from([127, 128, 255, 256, 257, 300, -255, 2**40 + 1]),
    st.booleans(),
)


@SETTINGS
@given(data=st.data())
@pytest.mark.parametrize("op", OPS)
def test_shift_tensor_matches_torch(call_op: Any, op: str, data: Any) -> None:
    check_tensor_tensor(
        call_op,
        data,
        f"aten::{op}.Tensor_out",
        getattr(aten, op).Tensor_out,
        dtype_pool=mostly_integral,
        other_int_range=(-4, 70),
    )


@SETTINGS
@given(data=st.data())
@pytest.mark.parametrize("op", OPS)
def test_shift_scalar_matches_torch(call_op: Any, op: str, data: Any) -> None:
    check_tensor_scalar(
        call_op,
        data,
        f"aten::{op}.Tensor_Scalar_out",
        getattr(aten, op).Tensor_Scalar_out,
        dtype_pool=mostly_integral,
        scalars=st.one_of(counts, st.floats(-2, 2, width=32)),
    )


@pytest.mark.parametrize("dtype", INT_DTYPES)
@pytest.mark.parametrize("op", OPS)
def test_shift_every_count(call_op: Any, op: str, dtype: torch.dtype) -> None:
    # Each value against each count from -2 to 66 (beyond 64 bits), long enough for vector loops.
    a = make_tensor(dtype, (69, 40), seed=1)
    b = torch.arange(-2, 67).reshape(69, 1).to(dtype)  # broadcast along each row
    check_op(
        call_op, f"aten::{op}.Tensor_out", getattr(aten, op).Tensor_out, (a, b), out=a.new_empty(0)
    )
    # Mixed dtypes compute in the promoted one (int64 here), and out may be wider.
    wide = torch.empty(0, dtype=torch.int64)
    check_op(
        call_op, f"aten::{op}.Tensor_out", getattr(aten, op).Tensor_out, (a, b.long()), out=wide
    )


@pytest.mark.parametrize("op", OPS)
def test_shift_refuses_floating_and_bool(call_op: Any, op: str) -> None:
    for dtype in (torch.float32, torch.float16, torch.bool):
        a = torch.ones(3, dtype=dtype)
        with raises(call_op, f"{op} is not implemented for dtype"):
            call_op(f"aten::{op}.Tensor_out", a, a, out=torch.empty(0, dtype=dtype))
    ints = torch.ones(3, dtype=torch.int32)
    with raises(call_op, "not implemented for dtype Float"):
        call_op(f"aten::{op}.Tensor_Scalar_out", ints, 1.5, out=torch.empty(0))
    with raises(call_op, "can't be cast to the desired output type Bool"):
        call_op(f"aten::{op}.Tensor_out", ints, ints, out=torch.empty(0, dtype=torch.bool))
