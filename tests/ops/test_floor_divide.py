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


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_floor_divide_floating_edges(call_op: Any, dtype: torch.dtype) -> None:
    # Quotients near integers and around 2^24 (where the vectorised float path hands over to the
    # exact formula), zero and infinite divisors, nan and infinities, spread over many blocks.
    gen = torch.Generator().manual_seed(11)
    b = torch.randn(6000, generator=gen, dtype=torch.float64) * 2.0 ** torch.randint(
        -30, 30, (6000,), generator=gen
    )
    quotients = torch.randint(-(2**26), 2**26, (6000,), generator=gen).double()
    a = b * quotients + torch.randn(6000, generator=gen, dtype=torch.float64) * b.abs() * 1e-7
    a[::5] = torch.randn(1200, generator=gen, dtype=torch.float64) * 100
    b[::97], a[::89], a[::101], b[::103] = 0.0, float("inf"), float("nan"), -float("inf")
    a, b = a.to(dtype), b.to(dtype)
    # Exactly torch's values: the quotients are integers, which a relative tolerance would blur.
    got = call_op(NAME, a, b, out=torch.empty(0, dtype=dtype))
    torch.testing.assert_close(got, torch.floor_divide(a, b), rtol=0, atol=0, equal_nan=True)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32])
def test_floor_divide_vector_blocks(call_op: Any, dtype: torch.dtype) -> None:
    # Blocks without an edge case run the vector loop, which for Half and BFloat16 rounds every
    # step to the dtype as ATen does: quotients near integers (both signs), exactly torch's values,
    # for floor division and for division rounding toward zero.
    gen = torch.Generator().manual_seed(12)
    b = torch.randn(4000, generator=gen) * 2.0 ** torch.randint(-6, 6, (4000,), generator=gen)
    quotients = torch.randint(-300, 300, (4000,), generator=gen).float()
    a = b * quotients + torch.randn(4000, generator=gen) * b.abs() * 1e-2
    a, b = a.to(dtype), b.to(dtype)
    b[b == 0] = 1
    got = call_op(NAME, a, b, out=torch.empty(0, dtype=dtype))
    torch.testing.assert_close(got, torch.floor_divide(a, b), rtol=0, atol=0)
    got = call_op(
        "aten::div.out_mode", a, b, rounding_mode="trunc", out=torch.empty(0, dtype=dtype)
    )
    torch.testing.assert_close(got, torch.div(a, b, rounding_mode="trunc"), rtol=0, atol=0)


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
