"""aten::mul.out and aten::mul.Scalar_out against torch."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from binary_checks import raises
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from op_compare import check_op
from strategies import any_scalars, broadcastable_shapes, dtypes, make_tensor, out_tensors, tensors

SETTINGS = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])

aten = torch.ops.aten


@SETTINGS
@given(data=st.data())
def test_mul_matches_torch(call_op: Any, data: Any) -> None:
    shape_a, shape_b = data.draw(broadcastable_shapes())
    dtype_a = data.draw(dtypes)
    dtype_b = dtype_a if data.draw(st.booleans()) else data.draw(dtypes)
    a = data.draw(tensors(dtype_a, shape_a))
    b = data.draw(tensors(dtype_b, shape_b))
    out = data.draw(
        out_tensors(torch.result_type(a, b), tuple(torch.broadcast_shapes(a.shape, b.shape)))
    )
    check_op(call_op, "aten::mul.out", aten.mul.out, (a, b), out=out)


@SETTINGS
@given(data=st.data())
def test_mul_scalar_matches_torch(call_op: Any, data: Any) -> None:
    a = data.draw(tensors())
    other = data.draw(any_scalars)
    out = data.draw(out_tensors(torch.result_type(a, other), tuple(a.shape)))
    check_op(call_op, "aten::mul.Scalar_out", aten.mul.Scalar_out, (a, other), out=out)


@pytest.mark.parametrize("dtype", [torch.float32, torch.int32, torch.bfloat16, torch.bool])
def test_mul_in_place_and_long_rows(call_op: Any, dtype: torch.dtype) -> None:
    a = make_tensor(dtype, (3, 700), 5)
    b = make_tensor(dtype, (700,), 6)
    expected = a * b
    call_op("aten::mul.out", a, b, out=a)
    torch.testing.assert_close(a, expected, equal_nan=True)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_mul_reads_a_scalar_other_unrounded(call_op: Any, dtype: torch.dtype) -> None:
    # ATen multiplies reduced-float tensors by a single-element `other` in float, without first
    # rounding it to the tensor's dtype (where 65520 or 1e39 would become inf).
    a = torch.tensor([0.0, 3.0, -2.0], dtype=dtype)
    big = 65520 if dtype == torch.float16 else 1e39
    for other in [big, 0.1, torch.tensor(big), torch.tensor([[0.1]], dtype=torch.float64)]:
        if isinstance(other, torch.Tensor):
            check_op(
                call_op, "aten::mul.out", aten.mul.out, (a, other), out=torch.empty(0, dtype=dtype)
            )
        else:
            check_op(
                call_op,
                "aten::mul.Scalar_out",
                aten.mul.Scalar_out,
                (a, other),
                out=torch.empty(0, dtype=dtype),
            )


def test_mul_errors(call_op: Any) -> None:
    with raises(call_op, "can't be cast"):
        call_op(
            "aten::mul.out", torch.ones(2), torch.ones(2), out=torch.empty(0, dtype=torch.int32)
        )
    with raises(call_op, "not broadcastable"):
        call_op("aten::mul.out", torch.ones(2, 3), torch.ones(2), out=torch.empty(0))
    with raises(call_op, "Expected out tensor to have dtype Long"):
        call_op(
            "aten::mul.Scalar_out",
            torch.ones(2, dtype=torch.int64),
            3,
            out=torch.empty(0, dtype=torch.float32),
        )
